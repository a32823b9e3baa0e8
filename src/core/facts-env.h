/* SPDX-License-Identifier: MIT */
/* Facts about the environment ROCm programs run in: variables (process and
 * persistent), container devices and groups, host tuning, PyTorch. Included
 * by facts.h; every field needs an entry in facts-json-env.c. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* One definition of a variable that steers ROCm. */
typedef struct {
    char *name;
    char *value;
    char *source;             /* "process environment" or the file as on the host */
    int64_t line;             /* 1-based line in source; 0 for the process environment */
} rd_env_var;

typedef struct {
    rd_env_var *vars;         /* process environment first, then files in login order */
    size_t n_vars;
    char *user;               /* whose ~/.profile and ~/.bashrc were read */
    char *home;
    char **files;             /* every file that was read */
    char *error;              /* why the user's files were not read */
} rd_env_facts;

typedef struct {
    int64_t uid;              /* of the process */
    int64_t *groups;          /* the process's gid and supplementary groups */
    size_t n_groups;
    char *error;
} rd_container_facts;

typedef struct {
    int64_t numa_balancing;   /* /proc/sys/kernel/numa_balancing; -1 unknown */
    char *numa_balancing_error;
    char **iommu_units;       /* /sys/class/iommu entries: ivhd0, dmar0 */
    char *iommu_error;
    char **iommu_identity;    /* AMD GPUs whose IOMMU group is "identity" (pass-through) */
} rd_tuning_facts;

typedef struct {
    bool ran;                 /* --with-python asked for it and python3 was started */
    char *python;
    int64_t exit_status;      /* of the child; -1 when killed or not run */
    bool timed_out;
    bool imported;            /* `import torch` worked */
    char *version;            /* torch.__version__ */
    char *direct_url;         /* "url" of its dist-info's direct_url.json (pip
                               * writes one for a URL or file install only) */
    char *hip;                /* torch.version.hip; NULL: not a ROCm build */
    char *cuda;               /* torch.version.cuda */
    char **arch_list;         /* targets the wheel has kernels for */
    bool arch_list_known;
    char *arch_source;        /* where arch_list came from (read without starting HIP) */
    char *hip_error;          /* the HIP/HSA error line PyTorch printed when it failed or aborted */
    int64_t available;        /* torch.cuda.is_available(): 1, 0, -1 unknown */
    char *error;              /* the child's last error line */
} rd_torch_facts;
