/* SPDX-License-Identifier: MIT */
/* Slurm's configuration syntax: every line through rd_slurm_conf_parse, each
 * value through the range expansion and the CPU list parser. Aborts when a
 * line number goes backwards, a pair has no key, or an expansion breaks its
 * limit. */
#include "fuzz.h"
#include "slurm-conf.h"
#include "util.h"

typedef struct {
    unsigned prev;
} state;

static void check_value(const char *v)
{
    char **names = NULL, *error = NULL;
    int r = rd_slurm_list_expand(v, &names, &error);
    if (r == 0 && (error || strv_length(names) > RD_SLURM_LIST_MAX))
        abort();
    if (r < 0 && (names || !error))
        abort();
    strv_free(names);
    free(error);
    bool bits[64];
    (void)rd_slurm_cpulist_parse(v, bits, 64);
    (void)rd_slurm_hostlist_has(v, "gpu01");
}

static int on_line(const rd_slurm_line *l, void *userdata)
{
    state *st = userdata;
    if (l->line <= st->prev)
        abort();
    st->prev = l->line;
    if (l->error && (l->n_pairs || l->include))
        abort();
    for (size_t i = 0; i < l->n_pairs; i++) {
        if (!l->pairs[i].key[0] || !l->pairs[i].value)
            abort();
        check_value(l->pairs[i].value);
    }
    if (l->include && !l->include[0])
        abort();
    (void)rd_slurm_line_get(l, "File");
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = fuzz_strndup(data, size);
    state st = { 0 };
    rd_slurm_conf_parse(text, size, on_line, &st);
    free(text);
    return 0;
}
