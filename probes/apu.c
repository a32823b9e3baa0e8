/* SPDX-License-Identifier: MIT */
#include "probe.h"

const rd_probe rd_probe_apu = {
    .id = "apu",
    .title = "Integrated and discrete GPUs together",
    .flags = 0,
};
