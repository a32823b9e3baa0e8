/* SPDX-License-Identifier: MIT */
#include "driver.h"
#include "fuzz.h"
#include "util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    /* the parser takes a length: an exact-size copy lets ASan catch a read past it */
    char *rec = malloc(size ? size : 1);
    if (!rec)
        abort();
    memcpy(rec, data, size);
    rd_kmsg_record r = { 0 };
    if (rd_kmsg_parse_record(rec, size, &r) == 0) {
        if (r.priority < 0 || r.priority > 7 || strlen(r.text) >= size)
            abort();
        for (const char *c = r.text; *c; c++)
            if ((unsigned char)*c < 0x20 || *c == 0x7f)
                abort();
        (void)rd_kmsg_relevant(r.text);
        free(r.text);
    }
    free(rec);
    return 0;
}
