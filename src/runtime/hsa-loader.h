/* SPDX-License-Identifier: MIT */
/* libhsa-runtime64 through dlopen: the few types and constants used, with
 * the values of ROCm's hsa.h and hsa_ext_amd.h (stable since ROCm 1.x), and
 * one X-macro table of entry points. */
#pragma once

#include <stddef.h>
#include <stdint.h>

typedef int rd_hsa_status; /* hsa_status_t */
typedef struct {
    uint64_t handle;
} rd_hsa_agent;
typedef struct {
    uint64_t handle;
} rd_hsa_isa;
typedef struct {
    uint64_t handle;
} rd_hsa_pool;

enum {
    RD_HSA_STATUS_SUCCESS = 0x0,
    RD_HSA_STATUS_INFO_BREAK = 0x1,
    RD_HSA_STATUS_ERROR_OUT_OF_RESOURCES = 0x1008,
    RD_HSA_STATUS_ERROR_INVALID_ISA = 0x100F,
    RD_HSA_STATUS_ERROR_INVALID_CODE_OBJECT = 0x1010,
    RD_HSA_STATUS_ERROR_INVALID_ISA_NAME = 0x1017,

    RD_HSA_SYSTEM_INFO_VERSION_MAJOR = 0,
    RD_HSA_SYSTEM_INFO_VERSION_MINOR = 1,

    RD_HSA_AGENT_INFO_NAME = 0,    /* char[64] */
    RD_HSA_AGENT_INFO_DEVICE = 17, /* hsa_device_type_t */
    RD_HSA_DEVICE_TYPE_CPU = 0,
    RD_HSA_DEVICE_TYPE_GPU = 1,
    RD_HSA_DEVICE_TYPE_DSP = 2,
    RD_HSA_AMD_AGENT_INFO_COMPUTE_UNIT_COUNT = 0xA002, /* uint32_t */
    RD_HSA_AMD_AGENT_INFO_DRIVER_NODE_ID = 0xA004,     /* uint32_t */
    RD_HSA_AMD_AGENT_INFO_BDFID = 0xA006,              /* uint32_t: bus << 8 | dev << 3 | fn */
    RD_HSA_AMD_AGENT_INFO_PRODUCT_NAME = 0xA009,       /* char[64] */
    RD_HSA_AMD_AGENT_INFO_DOMAIN = 0xA00F,             /* uint32_t */

    RD_HSA_ISA_INFO_NAME_LENGTH = 0,
    RD_HSA_ISA_INFO_NAME = 1,

    RD_HSA_AMD_SEGMENT_GLOBAL = 0,
    RD_HSA_AMD_SEGMENT_READONLY = 1,
    RD_HSA_AMD_SEGMENT_PRIVATE = 2,
    RD_HSA_AMD_SEGMENT_GROUP = 3,
    RD_HSA_AMD_MEMORY_POOL_INFO_SEGMENT = 0,
    RD_HSA_AMD_MEMORY_POOL_INFO_GLOBAL_FLAGS = 1,
    RD_HSA_AMD_MEMORY_POOL_INFO_SIZE = 2, /* size_t */
    RD_HSA_AMD_MEMORY_POOL_GLOBAL_FLAG_KERNARG_INIT = 1,
    RD_HSA_AMD_MEMORY_POOL_GLOBAL_FLAG_FINE_GRAINED = 2,
    RD_HSA_AMD_MEMORY_POOL_GLOBAL_FLAG_COARSE_GRAINED = 4,
};

typedef rd_hsa_status (*rd_hsa_agent_cb)(rd_hsa_agent agent, void *data);
typedef rd_hsa_status (*rd_hsa_isa_cb)(rd_hsa_isa isa, void *data);
typedef rd_hsa_status (*rd_hsa_pool_cb)(rd_hsa_pool pool, void *data);

/* X(return type, name, parameter list, optional) */
#define RD_HSA_SYMBOLS(X)                                                                                              \
    X(rd_hsa_status, hsa_init, (void), false)                                                                          \
    X(rd_hsa_status, hsa_shut_down, (void), false)                                                                     \
    X(rd_hsa_status, hsa_status_string, (rd_hsa_status status, const char **ret), false)                               \
    X(rd_hsa_status, hsa_system_get_info, (int attribute, void *value), false)                                         \
    X(rd_hsa_status, hsa_iterate_agents, (rd_hsa_agent_cb cb, void *data), false)                                      \
    X(rd_hsa_status, hsa_agent_get_info, (rd_hsa_agent agent, int attribute, void *value), false)                      \
    X(rd_hsa_status, hsa_agent_iterate_isas, (rd_hsa_agent agent, rd_hsa_isa_cb cb, void *data), false)                \
    X(rd_hsa_status, hsa_isa_get_info_alt, (rd_hsa_isa isa, int attribute, void *value), false)                        \
    X(rd_hsa_status, hsa_amd_agent_iterate_memory_pools, (rd_hsa_agent agent, rd_hsa_pool_cb cb, void *data), false)   \
    X(rd_hsa_status, hsa_amd_memory_pool_get_info, (rd_hsa_pool pool, int attribute, void *value), false)

typedef struct {
    void *handle;
    char *path;
#define X(ret, name, params, optional) ret(*name) params;
    RD_HSA_SYMBOLS(X)
#undef X
} rd_hsa_lib;

/* Opens libhsa-runtime64.so.1 (see runtime-dl.h for where). Returns 0, or
 * -ENOENT with *ret_error saying what was tried. */
int rd_hsa_open(char *const *dirs, rd_hsa_lib *ret, char **ret_error);
/* "HSA_STATUS_ERROR_OUT_OF_RESOURCES"; NULL for a value this table lacks. */
const char *rd_hsa_status_name(rd_hsa_status s);
