/* SPDX-License-Identifier: MIT */
/* The parsers of the probe of ROCm installations (rocm.c), exported for the
 * unit tests and the fuzz targets. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include "context.h"
#include "facts.h"

/* The gfx target a rocBLAS/Tensile kernel file is for ("TensileLibrary_lazy_gfx90a.dat",
 * "Kernels.so-000-gfx1030.hsaco"): copies it into buf, or returns false. */
bool rd_rocblas_file_gfx(const char *name, char *buf, size_t size);
/* The kernel series of a release string: "6.8.0-45-generic" -> "6.8". */
char *rd_kernel_series(const char *release);
