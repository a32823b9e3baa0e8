/* SPDX-License-Identifier: MIT */
/* OpenPGP keyrings, binary or ASCII-armored, as the apt probe looks for
 * AMD's key in them: the packet walk and the armor decoder. */
#include "keyring.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    /* AMD's key id, and one that cannot be there (not hex) */
    (void)rd_keyring_has_key(data, size, "9386B48A1A693C5C");
    (void)rd_keyring_has_key(data, size, "CA8BB4727A47B4D09B4EE8969386B48A1A693C5C");
    if (rd_keyring_has_key(data, size, "not-a-key-id!!!!"))
        abort();
    return 0;
}
