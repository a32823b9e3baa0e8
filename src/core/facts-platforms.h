/* SPDX-License-Identifier: MIT */
/* Facts of rpm-based hosts (the rpm database, dnf and zypper repositories),
 * of the kernel headers DKMS needs on every family, and of ROCm installed as
 * Python wheels. Included by facts.h; every field needs an entry in the
 * tables of facts-json-platforms.c. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* One installed rpm package that the checks care about. */
typedef struct {
    char *name;
    char *version;            /* VERSION-RELEASE, "6.2.4.60204-139.el9" */
    char *arch;
    char *summary;            /* gpg-pubkey entries: the key's user id */
} rd_rpm_package;

typedef struct {
    bool present;             /* an rpm database is in the root */
    char *dbpath;             /* where: /var/lib/rpm, /usr/lib/sysimage/rpm */
    bool queried;             /* `rpm -qa` ran and answered */
    rd_rpm_package *packages; /* the ROCm, driver, kernel-devel, key and prerequisite packages */
    size_t n_packages;
    char *error;              /* why the database could not be read ("rpm: not found") */
} rd_rpm_facts;

/* One repository section of a dnf (.repo in /etc/yum.repos.d) or zypper
 * (/etc/zypp/repos.d) file. */
typedef struct {
    char *file;
    int64_t line;             /* the [id] line */
    char *id;
    char *name;
    char *baseurl;            /* as written (the first URL) */
    char *url;                /* with $releasever, $basearch and the vars expanded */
    int64_t baseurl_line;
    bool enabled;
    char *gpgcheck;           /* the value as written; NULL: not set in the section */
    char *gpgkey;             /* as written */
    bool gpgkey_missing;      /* gpgkey names a file:// path that is not in the root */
    bool amd;                 /* baseurl on AMD's host */
} rd_rpm_repo;

typedef struct {
    char *manager;            /* "dnf" or "zypper" */
    bool present;             /* its repository directory exists */
    char *releasever;         /* what $releasever expands to */
    char *basearch;
    char *main_gpgcheck;      /* dnf.conf [main] gpgcheck as written; NULL: not set */
    rd_rpm_repo *repos;
    size_t n_repos;
    char **problems;          /* "FILE:LINE: what is wrong" for lines dnf/zypper would reject */
} rd_repo_config;

typedef struct {
    rd_repo_config dnf, zypper;
} rd_repos_facts;

/* What DKMS needs to build a module for the running kernel. */
typedef struct {
    bool checked;
    char *kernel;             /* /proc/sys/kernel/osrelease */
    char *build_dir;          /* /lib/modules/KERNEL/build when it leads to a directory; NULL: missing */
    char *package;            /* the installed package for it (rpm), NULL when none or unknown */
    char *wanted;             /* the package that provides it on this family */
} rd_kernel_devel_facts;

/* ROCm as Python wheels (TheRock: rocm, rocm-sdk-core, rocm-sdk-libraries-*,
 * rocm-sdk-device-*) in one site-packages directory. */
typedef struct {
    char *site_packages;
    char *source;             /* "--python", "VIRTUAL_ENV", "CONDA_PREFIX", "system" */
    char *prefix;             /* the environment it belongs to: the venv, or /usr */
    char *version;            /* METADATA Version of rocm-sdk-core (or rocm) */
    char *version_source;     /* the METADATA file (or rocm_sdk/_dist_info.py) it is from */
    char *family;             /* target family, "gfx94X-dcgpu"; NULL unknown */
    char **gfx;               /* the targets the wheels carry code for */
    char *lib_dir;            /* <sp>/_rocm_sdk_core/lib */
    bool runtime;             /* libamdhip64.so* is in lib_dir */
    char *hip_library;        /* the file found there, "libamdhip64.so.7" */
    char **dists;             /* the ROCm distributions installed there, "rocm-sdk-core 7.1.0" */
    char *torch_version;      /* torch's METADATA Version there ("2.8.0+rocm7.1.0.git56765e8c"), or NULL */
    char *torch_direct_url;   /* "url" of its direct_url.json (a URL or file install), or NULL */
} rd_wheel_install;

typedef struct {
    bool checked;
    rd_wheel_install *installs;
    size_t n_installs;
    char *error;
} rd_wheel_facts;
