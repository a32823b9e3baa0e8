/* SPDX-License-Identifier: MIT */
#include "probe.h"

const rd_probe rd_probe_torch = {
    .id = "torch",
    .title = "PyTorch build and GPU targets",
    .flags = 0,
};
