/* SPDX-License-Identifier: MIT */
#include "probe.h"

const rd_probe rd_probe_apt = {
    .id = "apt",
    .title = "apt repositories, keys and pinning",
    .flags = 0,
};
