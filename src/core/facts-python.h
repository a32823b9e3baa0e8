/* SPDX-License-Identifier: MIT */
/* Facts: Python: the ROCm wheels in a virtual environment and the torch build
 * next to them. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* ROCm as Python wheels (TheRock: rocm, rocm-sdk-core, rocm-sdk-libraries-*,
 * rocm-sdk-device-*) in one site-packages directory. */
typedef struct {
    char *site_packages;
    char *source;           /* "--python", "VIRTUAL_ENV", "CONDA_PREFIX", "system" */
    char *prefix;           /* the environment it belongs to: the venv, or /usr */
    char *version;          /* METADATA Version of rocm-sdk-core (or rocm) */
    char *version_source;   /* the METADATA file (or rocm_sdk/_dist_info.py) it is from */
    char *family;           /* target family, "gfx94X-dcgpu"; NULL unknown */
    char **gfx;             /* the targets the wheels carry code for */
    char *lib_dir;          /* <sp>/_rocm_sdk_core/lib */
    bool runtime;           /* libamdhip64.so* is in lib_dir */
    char *hip_library;      /* the file found there, "libamdhip64.so.7" */
    char **dists;           /* the ROCm distributions installed there, "rocm-sdk-core 7.1.0" */
    char *torch_version;    /* torch's METADATA Version there ("2.8.0+rocm7.1.0.git56765e8c"), or NULL */
    char *torch_direct_url; /* "url" of its direct_url.json (a URL or file install), or NULL */
} rd_wheel_install;

typedef struct {
    bool checked;
    rd_wheel_install *installs;
    size_t n_installs;
    char *error;
} rd_wheel_facts;

typedef struct {
    bool ran; /* --with-python asked for it and python3 was started */
    char *python;
    int64_t exit_status; /* of the child; -1 when killed or not run */
    bool timed_out;
    bool imported;    /* `import torch` worked */
    char *version;    /* torch.__version__ */
    char *direct_url; /* "url" of its dist-info's direct_url.json (pip
                               * writes one for a URL or file install only) */
    char *hip;        /* torch.version.hip; NULL: not a ROCm build */
    char *cuda;       /* torch.version.cuda */
    char **arch_list; /* targets the wheel has kernels for */
    bool arch_list_known;
    char *arch_source; /* where arch_list came from (read without starting HIP) */
    char *hip_error;   /* the HIP/HSA error line PyTorch printed when it failed or aborted */
    int64_t available; /* torch.cuda.is_available(): 1, 0, -1 unknown */
    char *error;       /* the child's last error line */
} rd_torch_facts;
