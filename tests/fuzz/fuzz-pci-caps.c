/* SPDX-License-Identifier: MIT */
#include "fuzz.h"
#include "pci.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > 4096)
        return 0;
    /* an exact-size copy lets ASan catch a read past len */
    uint8_t *cfg = malloc(size ? size : 1);
    if (!cfg)
        abort();
    memcpy(cfg, data, size);
    rd_pcie_caps caps;
    int r = rd_pci_parse_caps(cfg, size, &caps);
    if (r == 0 && caps.has_exp && (caps.type < 0 || caps.type > 15))
        abort();
    free(cfg);
    return 0;
}
