/* SPDX-License-Identifier: MIT */
#include "fuzz.h"
#include "pci.h"
#include "util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    /* the look-up takes a length: no NUL terminator, an exact-size copy */
    char *text = malloc(size ? size : 1);
    if (!text)
        abort();
    memcpy(text, data, size);
    static const unsigned ids[][2] = { { 0x1002, 0x744c }, { 0x10de, 0x2335 }, { 0x0000, 0x0000 } };
    for (size_t i = 0; i < sizeof ids / sizeof ids[0]; i++) {
        char *vendor = NULL, *device = NULL;
        rd_pci_ids_lookup(text, size, ids[i][0], ids[i][1], &vendor, &device);
        free(vendor);
        free(device);
    }
    free(text);
    return 0;
}
