/* SPDX-License-Identifier: MIT */
#include "fuzz.h"
#include "pci.h"
#include "util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = fuzz_strndup(data, size);
    static const unsigned ids[][2] = { { 0x744c, 0xc8 }, { 0x67df, 0xe7 }, { 0x0000, 0x00 }, { 0xffff, 0xff } };
    for (size_t i = 0; i < sizeof ids / sizeof ids[0]; i++) {
        char *name = rd_amdgpu_ids_lookup(text, ids[i][0], ids[i][1]);
        free(name);
    }
    /* and the whole input as one line */
    unsigned dev, rev;
    char *name = NULL;
    if (rd_amdgpu_ids_parse_line(text, &dev, &rev, &name) == 1) {
        if (dev > 0xffff || rev > 0xff || !name || !*name)
            abort();
        free(name);
    }
    free(text);
    return 0;
}
