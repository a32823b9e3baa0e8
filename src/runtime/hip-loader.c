/* SPDX-License-Identifier: MIT */
#include "hip-loader.h"

#include <dlfcn.h>
#include "runtime-dl.h"
#include "util.h"

static const rd_dl_symbol hip_symbols[] = {
#define X(ret, name, params, opt) { #name, offsetof(rd_hip_lib, name), opt },
    RD_HIP_SYMBOLS(X)
#undef X
};

static const rd_dl_symbol hiprtc_symbols[] = {
#define X(ret, name, params, opt) { #name, offsetof(rd_hiprtc_lib, name), opt },
    RD_HIPRTC_SYMBOLS(X)
#undef X
};

RD_DL_ASSERT_HEAD(rd_hip_lib);

int rd_hip_open(char *const *dirs, rd_hip_lib *ret, char **ret_error)
{
    static const char *const names[] = { "libamdhip64.so.7", "libamdhip64.so.6", "libamdhip64.so.5", "libamdhip64.so",
                                         NULL };
    return rd_dl_load(dirs, names, hip_symbols, ELEMENTSOF(hip_symbols), ret, sizeof(*ret), ret_error);
}

int rd_hiprtc_open(char *const *dirs, const rd_hip_lib *hip, rd_hiprtc_lib *ret, char **ret_error)
{
    static const char *const names[] = { "libhiprtc.so.7", "libhiprtc.so.6", "libhiprtc.so", NULL };
    rd_hiprtc_lib lib = { 0 };
    _cleanup_free_ char *open_error = NULL;
    if (rd_dl_open(dirs, names, &lib.handle, &lib.path, &open_error) == 0) {
        if (rd_dl_resolve(lib.handle, lib.path, hiprtc_symbols, ELEMENTSOF(hiprtc_symbols), &lib, ret_error) < 0) {
            rd_hiprtc_close(&lib);
            return -ENOENT;
        }
        *ret = lib;
        return 0;
    }
    /* ROCm 5 keeps hiprtc inside libamdhip64 */
    _cleanup_free_ char *resolve_error = NULL;
    if (hip && hip->handle &&
        rd_dl_resolve(hip->handle, hip->path, hiprtc_symbols, ELEMENTSOF(hiprtc_symbols), &lib, &resolve_error) == 0) {
        lib.handle = NULL;
        lib.path = xstrdup(hip->path);
        *ret = lib;
        return 0;
    }
    *ret_error = xasprintf("%s; %s", open_error, resolve_error ? resolve_error : "no libamdhip64");
    return -ENOENT;
}

void rd_hiprtc_close(rd_hiprtc_lib *lib)
{
    if (lib->handle)
        dlclose(lib->handle);
    free(lib->path);
    *lib = (rd_hiprtc_lib){ 0 };
}

const char *rd_hip_error_name(const rd_hip_lib *lib, rd_hip_error e, char *buf, size_t size)
{
    static const struct {
        int value;
        const char *name;
    } names[] = {
        { 0, "hipSuccess" },
        { 1, "hipErrorInvalidValue" },
        { 2, "hipErrorOutOfMemory" },
        { 3, "hipErrorNotInitialized" },
        { 100, "hipErrorNoDevice" },
        { 101, "hipErrorInvalidDevice" },
        { 200, "hipErrorInvalidImage" },
        { 201, "hipErrorInvalidContext" },
        { 209, "hipErrorNoBinaryForGpu" },
        { 218, "hipErrorInvalidKernelFile" },
        { 300, "hipErrorInvalidSource" },
        { 303, "hipErrorSharedObjectInitFailed" },
        { 400, "hipErrorInvalidHandle" },
        { 500, "hipErrorNotFound" },
        { 700, "hipErrorIllegalAddress" },
        { 701, "hipErrorLaunchOutOfResources" },
        { 702, "hipErrorLaunchTimeOut" },
        { 709, "hipErrorContextIsDestroyed" },
        { 719, "hipErrorLaunchFailure" },
        { 98, "hipErrorInvalidDeviceFunction" },
        { 999, "hipErrorUnknown" },
        { 1052, "hipErrorRuntimeOther" },
    };
    if (lib && lib->hipGetErrorName) {
        const char *s = lib->hipGetErrorName(e);
        if (s && startswith(s, "hip"))
            return s;
    }
    for (size_t i = 0; i < ELEMENTSOF(names); i++)
        if (names[i].value == e)
            return names[i].name;
    snprintf(buf, size, "hipError %d", e);
    return buf;
}
