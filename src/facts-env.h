/* SPDX-License-Identifier: MIT */
/* Facts about the environment ROCm programs run in: variables (process and
 * persistent), container devices and groups, host tuning, PyTorch. Included
 * by facts.h; every field needs an entry in facts-json-env.c. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct {
    char *error;
} rd_env_facts;

typedef struct {
    char *error;
} rd_container_facts;

typedef struct {
    char *error;
} rd_tuning_facts;

typedef struct {
    char *error;
} rd_torch_facts;
