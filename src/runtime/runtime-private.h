/* SPDX-License-Identifier: MIT */
/* What the parent (runtime.c) and the child (runtime-child.c) of level 2
 * share. */
#pragma once

#include <time.h>
#include "facts.h"

static inline double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* The child's whole life: loads the runtime, runs the kernels, writes its
 * findings as JSON lines to fd, and exits (runtime-child.c). */
_Noreturn void rd_runtime_child_main(int fd, const rd_facts *facts);
