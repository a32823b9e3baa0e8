/* SPDX-License-Identifier: MIT */
#include "fuzz.h"
#include "kfd.h"
#include "util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = fuzz_strndup(data, size);
    rd_kv *kv = NULL;
    size_t n = 0, bad = 0;
    if (rd_kfd_parse_properties(text, &kv, &n, &bad) == 0) {
        for (size_t i = 0; i < n; i++) {
            /* every kept key is a non-empty run of [A-Za-z0-9_] */
            if (!kv[i].key[0] || strspn(kv[i].key, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_") !=
                                     strlen(kv[i].key))
                abort();
            free(kv[i].key);
        }
        free(kv);
    }
    free(text);
    return 0;
}
