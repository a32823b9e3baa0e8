/* SPDX-License-Identifier: MIT */
#include "hsa-loader.h"

#include <dlfcn.h>
#include "runtime-dl.h"
#include "util.h"

static const rd_dl_symbol hsa_symbols[] = {
#define X(ret, name, params, opt) { #name, offsetof(rd_hsa_lib, name), opt },
    RD_HSA_SYMBOLS(X)
#undef X
};

RD_DL_ASSERT_HEAD(rd_hsa_lib);

int rd_hsa_open(char *const *dirs, rd_hsa_lib *ret, char **ret_error)
{
    static const char *const names[] = { "libhsa-runtime64.so.1", "libhsa-runtime64.so", NULL };
    return rd_dl_load(dirs, names, hsa_symbols, ELEMENTSOF(hsa_symbols), ret, sizeof(*ret), ret_error);
}

const char *rd_hsa_status_name(rd_hsa_status s)
{
    static const struct {
        int value;
        const char *name;
    } names[] = {
        { 0x0, "HSA_STATUS_SUCCESS" },
        { 0x1, "HSA_STATUS_INFO_BREAK" },
        { 0x1000, "HSA_STATUS_ERROR" },
        { 0x1001, "HSA_STATUS_ERROR_INVALID_ARGUMENT" },
        { 0x1002, "HSA_STATUS_ERROR_INVALID_QUEUE_CREATION" },
        { 0x1003, "HSA_STATUS_ERROR_INVALID_ALLOCATION" },
        { 0x1004, "HSA_STATUS_ERROR_INVALID_AGENT" },
        { 0x1005, "HSA_STATUS_ERROR_INVALID_REGION" },
        { 0x1006, "HSA_STATUS_ERROR_INVALID_SIGNAL" },
        { 0x1007, "HSA_STATUS_ERROR_INVALID_QUEUE" },
        { 0x1008, "HSA_STATUS_ERROR_OUT_OF_RESOURCES" },
        { 0x1009, "HSA_STATUS_ERROR_INVALID_PACKET_FORMAT" },
        { 0x100A, "HSA_STATUS_ERROR_RESOURCE_FREE" },
        { 0x100B, "HSA_STATUS_ERROR_NOT_INITIALIZED" },
        { 0x100C, "HSA_STATUS_ERROR_REFCOUNT_OVERFLOW" },
        { 0x100D, "HSA_STATUS_ERROR_INCOMPATIBLE_ARGUMENTS" },
        { 0x100E, "HSA_STATUS_ERROR_INVALID_INDEX" },
        { 0x100F, "HSA_STATUS_ERROR_INVALID_ISA" },
        { 0x1010, "HSA_STATUS_ERROR_INVALID_CODE_OBJECT" },
        { 0x1011, "HSA_STATUS_ERROR_INVALID_EXECUTABLE" },
        { 0x1012, "HSA_STATUS_ERROR_FROZEN_EXECUTABLE" },
        { 0x1013, "HSA_STATUS_ERROR_INVALID_SYMBOL_NAME" },
        { 0x1014, "HSA_STATUS_ERROR_VARIABLE_ALREADY_DEFINED" },
        { 0x1015, "HSA_STATUS_ERROR_VARIABLE_UNDEFINED" },
        { 0x1016, "HSA_STATUS_ERROR_EXCEPTION" },
        { 0x1017, "HSA_STATUS_ERROR_INVALID_ISA_NAME" },
        { 0x1018, "HSA_STATUS_ERROR_INVALID_CODE_SYMBOL" },
        { 0x1019, "HSA_STATUS_ERROR_INVALID_EXECUTABLE_SYMBOL" },
        { 0x1020, "HSA_STATUS_ERROR_INVALID_FILE" },
        { 0x1021, "HSA_STATUS_ERROR_INVALID_CODE_OBJECT_READER" },
        { 0x1022, "HSA_STATUS_ERROR_INVALID_CACHE" },
        { 0x1023, "HSA_STATUS_ERROR_INVALID_WAVEFRONT" },
        { 0x1024, "HSA_STATUS_ERROR_INVALID_SIGNAL_GROUP" },
        { 0x1025, "HSA_STATUS_ERROR_INVALID_RUNTIME_STATE" },
        { 0x1026, "HSA_STATUS_ERROR_FATAL" },
        { 40, "HSA_STATUS_ERROR_INVALID_MEMORY_POOL" },
        { 41, "HSA_STATUS_ERROR_MEMORY_APERTURE_VIOLATION" },
        { 42, "HSA_STATUS_ERROR_ILLEGAL_INSTRUCTION" },
        { 43, "HSA_STATUS_ERROR_MEMORY_FAULT" },
        { 44, "HSA_STATUS_CU_MASK_REDUCED" },
    };
    for (size_t i = 0; i < ELEMENTSOF(names); i++)
        if (names[i].value == s)
            return names[i].name;
    return NULL;
}
