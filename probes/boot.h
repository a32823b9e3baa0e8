/* SPDX-License-Identifier: MIT */
/* The parsers of the probe of module signing, lockdown and DKMS (boot.c),
 * exported for the unit tests and the fuzz targets. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include "facts.h"

/* Whether a kernel log line concerns module signatures or lockdown. */
bool rd_boot_kmsg_relevant(const char *text);
