/* SPDX-License-Identifier: MIT */
/* Facts: ROCm installations: the trees under /opt, their packages, the PATH and
 * loader configuration that picks one. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* One ROCm user space: /opt/rocm-X.Y.Z (or /opt/rocm as a directory), or a
 * distribution's packages under /usr. */
typedef struct {
    char *path;           /* /opt/rocm-6.2.4, or /usr */
    char *kind;           /* "opt" or "distribution" */
    char *version;        /* "6.2.4"; NULL when unknown */
    char *version_source; /* where the version came from */
    char *lib_dir;        /* /opt/rocm-6.2.4/lib, /usr/lib/x86_64-linux-gnu */
    char **libraries;     /* runtime libraries present there */
    bool runtime;         /* libhsa-runtime64.so.1 is present */
    bool has_bin;         /* <path>/bin exists (opt installs) */
    char *rocblas_dir;    /* the rocBLAS kernel library directory; NULL: no rocBLAS */
    char **rocblas_gfx;   /* gfx targets that have rocBLAS kernel files */
} rd_rocm_install;

typedef struct {
    char *name;
    char *version;
    char *source; /* where it was seen: NULL /var/lib/dpkg/status, "rpm database" */
} rd_package;

/* A line of /etc/profile.d, /etc/environment or /etc/environment.d that
 * sets PATH with a ROCm directory: where it is and what it adds, never the
 * line itself (the rest of a shell line is anybody's: a password on a
 * command line, a token in a comment). */
typedef struct {
    char *file;
    int64_t line;
    char **dirs; /* the PATH entries under /opt/rocm it sets; empty when not a plain assignment */
} rd_path_dropin;

/* A ROCm directory of /etc/ld.so.conf.d, its comment left out. */
typedef struct {
    char *file;
    int64_t line;
    char *dir;
} rd_ld_conf_dir;

typedef struct {
    bool checked;          /* the probe ran (facts of older versions lack it: nothing is known) */
    char *default_version; /* version of the installation in use, "6.2.4"; NULL: none */
    char *default_path;    /* that installation's path */
    rd_rocm_install *installs;
    size_t n_installs;
    char *opt_rocm;                   /* what /opt/rocm is: "-> /opt/rocm-6.2.4", "directory"; NULL: absent */
    bool opt_rocm_dangling;           /* /opt/rocm is a link to nothing */
    char *path_env;                   /* PATH of the process (the environment, not --root) */
    rd_path_dropin *path_dropin_dirs; /* lines of /etc/profile.d and /etc/environment(.d) that put ROCm on PATH */
    size_t n_path_dropin_dirs;
    rd_ld_conf_dir *ld_conf_dirs; /* ROCm directories of /etc/ld.so.conf.d */
    size_t n_ld_conf_dirs;
    rd_package *packages; /* dpkg: ROCm and driver packages that are installed */
    size_t n_packages;
    char *error;
} rd_rocm_facts;
