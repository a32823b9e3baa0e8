/* SPDX-License-Identifier: MIT */
/* libamdhip64 (and hiprtc) through dlopen: handles as opaque pointers, the
 * error codes used, and one X-macro table per library. Only calls whose
 * signatures are the same in ROCm 5, 6 and 7 are used; hipDeviceProp_t and
 * the attribute enums changed between releases and are avoided. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

typedef int rd_hip_error;        /* hipError_t */
typedef void *rd_hip_module;     /* hipModule_t */
typedef void *rd_hip_function;   /* hipFunction_t */
typedef int rd_hiprtc_result;    /* hiprtcResult */
typedef void *rd_hiprtc_program; /* hiprtcProgram */

enum {
    RD_HIP_SUCCESS = 0,
    RD_HIP_ERROR_NO_DEVICE = 100,
    RD_HIP_MEMCPY_HOST_TO_DEVICE = 1,
    RD_HIP_MEMCPY_DEVICE_TO_HOST = 2,
};

/* X(return type, name, parameter list, optional) */
/* clang-format off */
/* The symbol lists keep their hand-made layout: clang-format reads "(T *ret)" as a multiplication. */
#define RD_HIP_SYMBOLS(X) \
    X(rd_hip_error, hipInit, (unsigned flags), false) \
    X(rd_hip_error, hipRuntimeGetVersion, (int *ret), false) \
    X(rd_hip_error, hipGetDeviceCount, (int *ret), false) \
    X(const char *, hipGetErrorName, (rd_hip_error e), true) \
    X(rd_hip_error, hipDeviceGetName, (char *name, int len, int device), false) \
    X(rd_hip_error, hipDeviceGetPCIBusId, (char *id, int len, int device), false) \
    X(rd_hip_error, hipSetDevice, (int device), false) \
    X(rd_hip_error, hipMalloc, (void **ret, size_t size), false) \
    X(rd_hip_error, hipFree, (void *p), false) \
    X(rd_hip_error, hipHostMalloc, (void **ret, size_t size, unsigned flags), true) \
    X(rd_hip_error, hipHostFree, (void *p), true) \
    X(rd_hip_error, hipMemcpy, (void *dst, const void *src, size_t size, int kind), false) \
    X(rd_hip_error, hipMemset, (void *dst, int value, size_t size), false) \
    X(rd_hip_error, hipModuleLoadData, (rd_hip_module *ret, const void *image), false) \
    X(rd_hip_error, hipModuleUnload, (rd_hip_module module), false) \
    X(rd_hip_error, hipModuleGetFunction, (rd_hip_function *ret, rd_hip_module module, const char *name), false) \
    X(rd_hip_error, hipModuleLaunchKernel, (rd_hip_function f, unsigned gx, unsigned gy, unsigned gz, \
                                            unsigned bx, unsigned by, unsigned bz, unsigned shared_bytes, \
                                            void *stream, void **params, void **extra), false) \
    X(rd_hip_error, hipDeviceSynchronize, (void), false)

#define RD_HIPRTC_SYMBOLS(X) \
    X(const char *, hiprtcGetErrorString, (rd_hiprtc_result r), false) \
    X(rd_hiprtc_result, hiprtcCreateProgram, (rd_hiprtc_program *ret, const char *src, const char *name, \
                                              int n_headers, const char **headers, const char **include_names), false) \
    X(rd_hiprtc_result, hiprtcCompileProgram, (rd_hiprtc_program prog, int n_options, const char **options), false) \
    X(rd_hiprtc_result, hiprtcGetProgramLogSize, (rd_hiprtc_program prog, size_t *ret), false) \
    X(rd_hiprtc_result, hiprtcGetProgramLog, (rd_hiprtc_program prog, char *log), false) \
    X(rd_hiprtc_result, hiprtcGetCodeSize, (rd_hiprtc_program prog, size_t *ret), false) \
    X(rd_hiprtc_result, hiprtcGetCode, (rd_hiprtc_program prog, char *code), false) \
    X(rd_hiprtc_result, hiprtcDestroyProgram, (rd_hiprtc_program *prog), false)
/* clang-format on */

typedef struct {
    void *handle;
    char *path;
#define X(ret, name, params, optional) ret(*name) params;
    RD_HIP_SYMBOLS(X)
#undef X
} rd_hip_lib;

typedef struct {
    void *handle; /* NULL when the functions live in libamdhip64 (ROCm 5) */
    char *path;
#define X(ret, name, params, optional) ret(*name) params;
    RD_HIPRTC_SYMBOLS(X)
#undef X
} rd_hiprtc_lib;

/* libamdhip64.so.7, .6, .5, then the unversioned name. */
int rd_hip_open(char *const *dirs, rd_hip_lib *ret, char **ret_error);
/* libhiprtc.so.7, .6, the unversioned name, else libamdhip64 itself. */
int rd_hiprtc_open(char *const *dirs, const rd_hip_lib *hip, rd_hiprtc_lib *ret, char **ret_error);
void rd_hiprtc_close(rd_hiprtc_lib *lib);
/* The error's name, "hipErrorNoDevice": from the library when it has
 * hipGetErrorName, else from a table; "hipError 123" for unknown values
 * (written into buf). */
const char *rd_hip_error_name(const rd_hip_lib *lib, rd_hip_error e, char *buf, size_t size);
