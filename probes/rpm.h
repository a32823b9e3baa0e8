/* SPDX-License-Identifier: MIT */
/* The parsers of the probe of the rpm database and the dnf/zypper
 * repositories (packages-rpm.c, repos-rpm.c), exported for the unit tests
 * and the fuzz targets. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include "distro.h"
#include "facts.h"

void rd_rpm_parse_query(const char *text, char *const *extra, rd_rpm_package **packages, size_t *n);
bool rd_kernel_devel_matches(const rd_rpm_package *pk, const char *kernel);
/* The package that holds the running kernel's headers on this family. */
char *rd_kernel_devel_package(rd_os_family fam, const char *os_id, const char *kernel);

typedef struct {
    const char *name, *value;
} rd_repo_var;
/* Parses one .repo file of text (size bytes, NULs allowed) into cfg:
 * sections, their URL with $vars expanded, and "FILE:LINE: ..." problems. */
void rd_repo_parse(rd_repo_config *cfg, const char *file, const char *text, size_t size, const rd_repo_var *vars,
                   size_t n_vars, const char *host);
/* $name and ${name} replaced from vars, as dnf and zypper do. */
char *rd_repo_expand(const char *s, const rd_repo_var *vars, size_t n_vars);
