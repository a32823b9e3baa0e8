/* SPDX-License-Identifier: MIT */
/* What the torch probe reads back from its Python child: the "KEY\tVALUE"
 * lines of its standard output, and the HIP error line of its error output.
 * The first byte picks which. Besides memory errors: every target in the arch
 * list is non-empty and has no space, and an error line is one line that
 * names a HIP or HSA error. */
#include "env.h"
#include "facts-json.h"
#include "fuzz.h"
#include "util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    char *text = fuzz_strndup(data + 1, size - 1);
    if (data[0] & 1) {
        char *l = rd_torch_hip_error_line(text);
        if (l && (strchr(l, '\n') || (!strstr(l, "hipError") && !strstr(l, "HIP error") &&
                                      !strstr(l, "HSA_STATUS_ERROR") && !strstr(l, "HIP_ERROR"))))
            abort();
        free(l);
    } else {
        rd_facts f;
        rd_facts_init(&f);
        rd_torch_parse_output(&f.torch, text);
        for (size_t i = 0; f.torch.arch_list && f.torch.arch_list[i]; i++)
            if (!*f.torch.arch_list[i] || strchr(f.torch.arch_list[i], ' '))
                abort();
        if (f.torch.arch_list && !f.torch.arch_list_known)
            abort();
        rd_facts_free(&f);
    }
    free(text);
    return 0;
}
