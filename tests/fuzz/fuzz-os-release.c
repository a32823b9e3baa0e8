/* SPDX-License-Identifier: MIT */
#include "fuzz.h"
#include "os.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const char *const keys[] = { "ID", "ID_LIKE", "VERSION_ID", "VERSION_CODENAME", "PRETTY_NAME", "I" };
    char *text = fuzz_strndup(data, size);
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++) {
        char *v = rd_os_release_get(text, keys[i]);
        /* a value never outgrows its line */
        if (v && strlen(v) > size)
            abort();
        free(v);
    }
    free(text);
    return 0;
}
