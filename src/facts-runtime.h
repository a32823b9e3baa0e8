/* SPDX-License-Identifier: MIT */
/* Level 2: what the ROCm runtime said when loaded as applications load it.
 * Included by facts.h; every field needs an entry in facts-json-runtime.c. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct {
    bool ran;                 /* level 2 was run */
    char *error;
} rd_runtime_facts;
