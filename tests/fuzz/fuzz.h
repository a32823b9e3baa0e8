/* SPDX-License-Identifier: MIT */
/* Shared by the libFuzzer targets: the parsers take C strings, and libFuzzer
 * input is not NUL-terminated. */
#pragma once

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static inline char *fuzz_strndup(const uint8_t *data, size_t size)
{
    char *s = malloc(size + 1);
    if (!s)
        abort();
    memcpy(s, data, size);
    s[size] = 0;
    return s;
}
