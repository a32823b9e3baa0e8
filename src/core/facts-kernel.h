/* SPDX-License-Identifier: MIT */
/* Facts: The kernel: how it boots (command line, initramfs, blacklists) and
 * whether its headers or kernel-devel are there for a DKMS build. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct {
    int64_t secure_boot; /* 1 on, 0 off, -1 unknown (no EFI, unreadable) */
    char *secure_boot_evidence;
    char *lockdown;     /* active mode of /sys/kernel/security/lockdown */
    char **dkms_amdgpu; /* versions under /var/lib/dkms/amdgpu */
    char **dkms_built;  /* "VERSION for KERNEL" */
    char **dkms_tried;  /* "VERSION for KERNEL": the kernel of the last build DKMS
                               * tried, from the header of build/make.log */
    char *mok_key;      /* the DKMS/shim machine-owner key to enrol, if present */
    char **kmsg;        /* kernel log lines about module signatures and lockdown */
    char *error;
} rd_boot_facts;

/* What DKMS needs to build a module for the running kernel. */
typedef struct {
    bool checked;
    char *kernel;    /* /proc/sys/kernel/osrelease */
    char *build_dir; /* /lib/modules/KERNEL/build when it leads to a directory; NULL: missing */
    char *package;   /* the installed package for it (rpm), NULL when none or unknown */
    char *wanted;    /* the package that provides it on this family */
} rd_kernel_devel_facts;
