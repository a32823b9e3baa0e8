/* SPDX-License-Identifier: MIT */
/* Parsers of the rocm, apt and boot probes, exported for unit tests. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include "context.h"
#include "facts.h"

/* rocm.c */

/* The gfx target a rocBLAS/Tensile kernel file is for ("TensileLibrary_lazy_gfx90a.dat",
 * "Kernels.so-000-gfx1030.hsaco"): copies it into buf, or returns false. */
bool rd_rocblas_file_gfx(const char *name, char *buf, size_t size);
/* /var/lib/dpkg/status: appends the installed packages for which want(name)
 * is true. */
void rd_dpkg_status_parse(const char *text, bool (*want)(const char *name), rd_package **packages, size_t *n);
/* Follows symlinks of an absolute path inside the root (at most 16 hops);
 * *ret is the final path. */
int rd_root_resolve(const rd_ctx *ctx, const char *path, char **ret);
/* The kernel series of a release string: "6.8.0-45-generic" -> "6.8". */
char *rd_kernel_series(const char *release);

/* apt.c */

/* Parses one sources file (one-line format when deb822 is false). Entries
 * that concern host, or that hold a @PLACEHOLDER@, are appended. */
void rd_apt_parse_sources(const char *text, const char *file, bool deb822, const char *host, rd_apt_source **sources,
                          size_t *n);
/* Parses one preferences file; stanzas whose Pin names origin are appended. */
void rd_apt_parse_preferences(const char *text, const char *file, const char *origin, rd_apt_pin **pins, size_t *n);
/* Whether an OpenPGP keyring (binary, or ASCII-armored) holds a key whose
 * 64-bit id (16 hex digits) is key_id: looks for it in the issuer data of
 * the signatures. */
bool rd_keyring_has_key(const unsigned char *data, size_t size, const char *key_id);

/* boot.c */

/* Whether a kernel log line concerns module signatures or lockdown. */
bool rd_boot_kmsg_relevant(const char *text);
