/* SPDX-License-Identifier: MIT */
#include "probe.h"

const rd_probe rd_probe_tuning = {
    .id = "tuning",
    .title = "Multi-GPU host tuning",
    .flags = 0,
};
