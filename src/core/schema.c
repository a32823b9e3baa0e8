/* SPDX-License-Identifier: MIT */
/* The walker of the field descriptors that every schema-described struct
 * (the facts, the knowledge tables) is freed by. */
#include "schema.h"

#include "facts.h"

#define AT(p, off, type) ((type *)((char *)(p) + (off)))

void rd_struct_free(const rd_schema *s, void *p)
{
    for (size_t i = 0; i < s->n_fields; i++) {
        const rd_field *fd = &s->fields[i];
        switch (fd->type) {
        case RD_FT_STR: free(*AT(p, fd->offset, char *)); break;
        case RD_FT_STRV: strv_free(*AT(p, fd->offset, char **)); break;
        case RD_FT_I64V:
        case RD_FT_U64V: free(*AT(p, fd->offset, void *)); break;
        case RD_FT_KV: {
            rd_kv *a = *AT(p, fd->offset, rd_kv *);
            size_t n = *AT(p, fd->count_offset, size_t);
            for (size_t k = 0; k < n; k++)
                free(a[k].key);
            free(a);
            break;
        }
        case RD_FT_OBJ: rd_struct_free(fd->sub, AT(p, fd->offset, char)); break;
        case RD_FT_ARR: {
            char *a = *AT(p, fd->offset, char *);
            size_t n = *AT(p, fd->count_offset, size_t);
            for (size_t k = 0; k < n; k++)
                rd_struct_free(fd->sub, a + k * fd->sub->size);
            free(a);
            break;
        }
        default: break;
        }
    }
    memset(p, 0, s->size);
}
