/* SPDX-License-Identifier: MIT */
/* Facts: The container the check runs in, and the devices it was given. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct {
    int64_t uid;     /* of the process */
    int64_t *groups; /* the process's gid and supplementary groups */
    size_t n_groups;
    char *error;
} rd_container_facts;
