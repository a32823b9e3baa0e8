/* SPDX-License-Identifier: MIT */
#include "probe.h"

const rd_probe rd_probe_runtime = {
    .id = "runtime",
    .title = "ROCm runtime and a GPU kernel (level 2)",
    .flags = RD_PROBE_LEVEL2,
};
