/* SPDX-License-Identifier: MIT */
#include "probe.h"

const rd_probe rd_probe_boot = {
    .id = "boot",
    .title = "Secure Boot, lockdown and DKMS",
    .flags = 0,
};
