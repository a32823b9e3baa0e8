/* SPDX-License-Identifier: MIT */
/* Parsers and helpers of the rpm, dnf/zypper and wheel probes, exported for
 * unit tests and the fuzz target. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include "distro.h"
#include "facts.h"

/* packages-rpm.c */
void rd_rpm_parse_query(const char *text, char *const *extra, rd_rpm_package **packages, size_t *n);
bool rd_kernel_devel_matches(const rd_rpm_package *pk, const char *kernel);
/* The package that holds the running kernel's headers on this family. */
char *rd_kernel_devel_package(rd_os_family fam, const char *os_id, const char *kernel);

/* repos-rpm.c */
typedef struct {
    const char *name, *value;
} rd_repo_var;
/* Parses one .repo file of text (size bytes, NULs allowed) into cfg:
 * sections, their URL with $vars expanded, and "FILE:LINE: ..." problems. */
void rd_repo_parse(rd_repo_config *cfg, const char *file, const char *text, size_t size, const rd_repo_var *vars,
                   size_t n_vars, const char *host);
/* $name and ${name} replaced from vars, as dnf and zypper do. */
char *rd_repo_expand(const char *s, const rd_repo_var *vars, size_t n_vars);

/* wheels.c */
/* A distribution name as pip compares it (PEP 503): "rocm_sdk_core" ->
 * "rocm-sdk-core". */
char *rd_wheel_normalize(const char *name);
/* rocm, rocm-sdk, rocm-sdk-*, rocm-profiler (a normalized name). */
bool rd_wheel_is_rocm_dist(const char *normalized);
/* Name: and Version: of a METADATA file's headers (up to the first empty
 * line); -EINVAL when either is missing or not a plain token. */
int rd_wheel_metadata_parse(const char *text, char **ret_name, char **ret_version);
/* The GPU family and targets of a distribution: rocm-sdk-libraries-FAMILY
 * (targets from conf/wheels.ini; an unknown family has none; a gfx target
 * is a family of its own), rocm-sdk-device-GFX (no family, that target).
 * -ENOENT for a distribution that carries no GPU code. */
int rd_wheel_family_parse(const rd_knowledge *k, const char *dist, char **ret_family, char ***ret_gfx);
