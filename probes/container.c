/* SPDX-License-Identifier: MIT */
#include "probe.h"

const rd_probe rd_probe_container = {
    .id = "container",
    .title = "Container devices and groups",
    .flags = 0,
};
