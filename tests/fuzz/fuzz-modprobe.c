/* SPDX-License-Identifier: MIT */
#include "driver.h"
#include "fuzz.h"
#include "util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const char *const modules[] = { "amdgpu", "radeon", NULL };
    char *text = fuzz_strndup(data, size);
    rd_modprobe_line *lines = NULL;
    size_t n = 0;
    rd_modprobe_parse(text, "/etc/modprobe.d/fuzz.conf", modules, &lines, &n);
    int64_t prev = 0;
    for (size_t i = 0; i < n; i++) {
        /* line numbers are 1-based and increase */
        if (lines[i].line <= prev)
            abort();
        prev = lines[i].line;
        if (!streq(lines[i].module, "amdgpu") && !streq(lines[i].module, "radeon"))
            abort();
        free(lines[i].file);
        free(lines[i].directive);
        free(lines[i].module);
        free(lines[i].args);
    }
    free(lines);
    free(text);
    return 0;
}
