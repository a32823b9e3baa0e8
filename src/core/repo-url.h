/* SPDX-License-Identifier: MIT */
/* AMD's package repositories live under one base URL: AMD's own server, or
 * a fleet's mirror laid out the same way (rocm/apt/..., rocm/el9/...,
 * amdgpu/..., graphics/...). Fixes write the base the configuration names;
 * the check takes a URL under the mirror for AMD's. */
#pragma once

#include <stdbool.h>

struct rd_config;

#define RD_AMD_REPO_HOST "repo.radeon.com"
#define RD_AMD_REPO_BASE "https://" RD_AMD_REPO_HOST

/* The configured mirror, else AMD's base; never ends in '/'. */
const char *rd_repo_base(const struct rd_config *c);
/* Whether url lies under the mirror (at a '/' boundary); false without one. */
bool rd_url_under_mirror(const char *mirror, const char *url);
/* url as it reads on AMD's server: the mirror's prefix replaced by AMD's
 * base; a copy of url when it is not under the mirror. */
char *rd_repo_canonical(const char *mirror, const char *url);
/* url of AMD's server as the configured base serves it: AMD's base
 * replaced by the mirror; a copy of url without a mirror. */
char *rd_repo_on_base(const struct rd_config *c, const char *url);
/* The path of url under the mirror or AMD's host (any scheme), without
 * the leading '/' (the folder of a ROCm release); NULL when url lies under neither. Points
 * into url. */
const char *rd_repo_path_of(const char *mirror, const char *url);
