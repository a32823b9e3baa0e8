/* SPDX-License-Identifier: MIT */
/* The verification kernels, embedded at build time (see meson.build here). */
#pragma once

#include <stddef.h>

typedef struct {
    const char *gfx;           /* "gfx90a": built for any xnack/sramecc mode */
    int version;               /* code object version: 4 or 5 */
    const unsigned char *data; /* a raw AMDGPU ELF code object */
    size_t size;
} rd_code_object;

/* Each target once per code object version, in build order. */
extern const rd_code_object rd_code_objects[];
extern const size_t rd_n_code_objects;
/* rd-kernels.hip, for hiprtc */
extern const char rd_kernel_source[];
