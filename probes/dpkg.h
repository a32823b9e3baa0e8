/* SPDX-License-Identifier: MIT */
/* The dpkg database (packages-dpkg.c), which the rocm probe reads beside
 * the rpm one (packages-rpm.c, rpm.h); exported for the unit tests and the
 * fuzz targets. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include "facts.h"

/* /var/lib/dpkg/status: appends the installed packages for which want(name)
 * is true. */
void rd_dpkg_status_parse(const char *text, bool (*want)(const char *name), rd_package **packages, size_t *n);
