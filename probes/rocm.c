/* SPDX-License-Identifier: MIT */
#include "probe.h"

const rd_probe rd_probe_rocm = {
    .id = "rocm",
    .title = "ROCm installations, PATH, libraries and kernels per gfx",
    .flags = 0,
};
