/* SPDX-License-Identifier: MIT */
#include "probe.h"

const rd_probe rd_probe_env = {
    .id = "env",
    .title = "Environment variables that steer ROCm",
    .flags = 0,
};
