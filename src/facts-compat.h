/* SPDX-License-Identifier: MIT */
/* Facts about the installed ROCm user space, apt configuration and the
 * boot chain (Secure Boot, DKMS). Included by facts.h; every field needs an
 * entry in the tables of facts-json-compat.c. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct {
    char *default_version;    /* version of the installation in use, "6.2.4"; NULL: none */
    char *error;
} rd_rocm_facts;

typedef struct {
    char *error;
} rd_apt_facts;

typedef struct {
    char *error;
} rd_boot_facts;
