/* SPDX-License-Identifier: MIT */
/* The parsers of the probe of the ROCm wheels (wheels.c), exported for the
 * unit tests and the fuzz targets. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include "knowledge.h"
#include "facts.h"

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
