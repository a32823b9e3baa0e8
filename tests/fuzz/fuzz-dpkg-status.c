/* SPDX-License-Identifier: MIT */
/* /var/lib/dpkg/status as the rocm probe reads it. Besides memory errors:
 * every package kept is one the filter asked for, with a name. */
#include "dpkg.h"
#include "facts.h"
#include "fuzz.h"
#include "util.h"

static bool want(const char *name)
{
    return startswith(name, "rocm") || startswith(name, "amdgpu") || startswith(name, "hip") ||
           startswith(name, "linux-headers");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = fuzz_strndup(data, size);
    rd_facts f;
    rd_facts_init(&f);
    rd_dpkg_status_parse(text, want, &f.rocm.packages, &f.rocm.n_packages);
    for (size_t i = 0; i < f.rocm.n_packages; i++)
        if (!f.rocm.packages[i].name || !want(f.rocm.packages[i].name))
            abort();
    rd_facts_free(&f);
    free(text);
    return 0;
}
