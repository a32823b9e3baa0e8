/* SPDX-License-Identifier: MIT */
#include "driver.h"
#include "fuzz.h"
#include "util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = fuzz_strndup(data, size);
    char **tokens = rd_cmdline_split(text);
    for (size_t i = 0; tokens && tokens[i]; i++)
        if (strlen(tokens[i]) > size)
            abort();
    strv_free(tokens);
    rd_cmdline_info ci;
    rd_cmdline_parse(text, &ci);
    rd_cmdline_info_free(&ci);
    free(text);
    return 0;
}
