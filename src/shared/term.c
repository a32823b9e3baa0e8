/* SPDX-License-Identifier: MIT */
#include "term.h"

#include <stdio.h>
#include "util.h"

void rd_format_bytes(uint64_t b, char *buf, size_t size)
{
    static const char *const units[] = { "B", "KiB", "MiB", "GiB", "TiB" };
    double v = (double)b;
    size_t u = 0;
    while (v >= 1024 && u + 1 < ELEMENTSOF(units)) {
        v /= 1024;
        u++;
    }
    if (v >= 10 || v == (double)(uint64_t)v)
        snprintf(buf, size, "%.0f %s", v, units[u]);
    else
        snprintf(buf, size, "%.1f %s", v, units[u]);
}
