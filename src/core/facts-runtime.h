/* SPDX-License-Identifier: MIT */
/* Level 2: what the ROCm runtime said when loaded as applications load it,
 * and what a kernel computed on each GPU. Gathered in a child process
 * (src/runtime/); included by facts.h; every field needs an entry in
 * facts-json-runtime.c. Integers are -1 when unknown or not reached. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct {
    char *segment; /* "global", "readonly", "private", "group" */
    uint64_t size; /* bytes */
    bool coarse_grained, fine_grained, kernarg;
} rd_runtime_pool;

typedef struct {
    char *name; /* HSA agent name: "gfx1100", or the CPU's name */
    char *type; /* "cpu", "gpu", "dsp" */
    char *product_name;
    char *isa;         /* "amdgcn-amd-amdhsa--gfx90a:sramecc+:xnack-"; NULL for a CPU */
    int64_t kfd_node;  /* KFD topology node (HSA driver node id) */
    char *pci_address; /* from the agent's BDF id and domain; NULL for a CPU */
    int64_t compute_units;
    rd_runtime_pool *pools;
    size_t n_pools;
} rd_runtime_agent;

typedef struct {
    int64_t index; /* HIP device ordinal */
    char *pci_address;
    char *name;
    char *gfx; /* target whose code object was run: "gfx1100" */
    char *isa; /* the matching HSA agent's ISA, when found */
    int64_t kfd_node;
    char *code_object;           /* "embedded", or NULL when none was run */
    int64_t code_object_version; /* 4 or 5: the embedded object loaded last; -1 none */
    char *code_object_fallback;  /* why the version the runtime calls for was refused; NULL when it loaded */
    char *result;                /* "ok", "wrong-result", "error", "no-code-object" */
    char *error_call;            /* HIP call that failed: "hipModuleLaunchKernel" */
    int64_t error_code;          /* hipError_t */
    char *error_name;            /* "hipErrorLaunchFailure" */
    char *mismatch;              /* first wrong value, "rd_vector_add: c[17] = 35, expected 34" */
    double launch_latency_us;    /* median launch + synchronize of an empty kernel; 0 unmeasured */
    double h2d_gbps, d2h_gbps;   /* hipMemcpy of 64 MiB, 1e9 bytes per second */
    char *hiprtc;                /* "ok", "failed", "wrong-result", "unavailable"; NULL not tried */
    char *hiprtc_error;
} rd_runtime_device;

typedef struct {
    bool ran; /* level 2 was run */
    /* the one directory the runtime was loaded from (--rocm-path, or the
     * --python environment's wheels); NULL: the default search */
    char *rocm_path;
    char *error; /* the child could not be started */
    /* HSA (libhsa-runtime64) */
    char *hsa_library;            /* path loaded; NULL when none could be */
    char *hsa_load_error;         /* dlopen/dlsym error and the places tried */
    int64_t hsa_init_status;      /* hsa_status_t; -1 not called */
    char *hsa_init_status_name;   /* "HSA_STATUS_ERROR_OUT_OF_RESOURCES" */
    char *hsa_init_status_string; /* hsa_status_string() */
    char *hsa_version;            /* "1.1" */
    rd_runtime_agent *agents;
    size_t n_agents;
    /* HIP (libamdhip64) */
    char *hip_library;
    char *hip_load_error;
    int64_t hip_runtime_version;     /* hipRuntimeGetVersion, 50221153; -1 unknown */
    int64_t hip_code_object_version; /* the code object version it calls for: 4 (ROCm 5) or 5; -1 unknown */
    int64_t hip_init_status;         /* hipError_t of hipInit; -1 not called */
    char *hip_init_status_name;
    int64_t hip_device_count_status;
    char *hip_device_count_status_name;
    int64_t hip_device_count;
    char *hiprtc_library; /* where hiprtc came from; NULL: unavailable */
    rd_runtime_device *devices;
    size_t n_devices;
    /* the child process */
    char *child_status; /* "exited", "timeout", "signal", "no-result" */
    int64_t child_exit_code;
    int64_t child_signal;
    char *child_signal_name;    /* "SIGSEGV" */
    bool child_unkillable;      /* still alive after SIGKILL: stuck in the kernel driver */
    char *child_stage;          /* what it was doing when it ended: "hipModuleLaunchKernel rd_vector_add" */
    int64_t child_stage_device; /* HIP ordinal the stage concerned; -1 none */
    char *child_output;         /* the last lines it wrote to stdout/stderr */
    int64_t timeout_s;
    double elapsed_s;
} rd_runtime_facts;
