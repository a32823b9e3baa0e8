/* SPDX-License-Identifier: MIT */
/* Finding and opening the ROCm runtime libraries with dlopen, the way an
 * application finds them: the ROCm installation first ($ROCM_PATH/lib,
 * /opt/rocm/lib, /opt/rocm-X.Y.Z/lib, newest first), then the dynamic
 * linker's search path. rocm-doctor never links against them, so that it
 * runs where ROCm is missing or broken. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

/* The test double (tests/run/runtime/runtime-double.c) replaces every runtime
 * library when this variable names it; read with secure_getenv. */
#define RD_RUNTIME_LIB_ENV "ROCM_DOCTOR_RUNTIME_LIB"

typedef struct {
    const char *name;
    size_t offset; /* of the function pointer in the library struct */
    bool optional; /* absent in some releases: left NULL */
} rd_dl_symbol;

/* A directory entry of this value ends the search: the libraries come from
 * the directories before it, never from the system path. */
#define RD_DL_NO_SYSTEM ""

/* Directories searched before the system path, in order, NULL-terminated;
 * only_dir non-NULL: that directory alone, then RD_DL_NO_SYSTEM. */
char **rd_runtime_lib_dirs(const char *only_dir);

/* Tries every name (sonames, newest first) in every directory, then each
 * bare name. On success *ret_handle and *ret_path (the file opened) are set.
 * On failure *ret_error says what was tried and the first dlopen error. */
int rd_dl_open(char *const *dirs, const char *const *names, void **ret_handle, char **ret_path, char **ret_error);

/* Resolves the table into the struct at base; a missing required symbol
 * fails with *ret_error naming it. */
int rd_dl_resolve(void *handle, const char *path, const rd_dl_symbol *syms, size_t n, void *base, char **ret_error);

/* Every library struct (rd_hsa_lib, rd_hip_lib) starts with this head. */
typedef struct {
    void *handle;
    char *path; /* the file opened */
} rd_dl_head;

/* A library struct that rd_dl_load fills through its rd_dl_head. */
#define RD_DL_ASSERT_HEAD(type)                                                                                        \
    _Static_assert(offsetof(type, handle) == offsetof(rd_dl_head, handle) &&                                           \
                       offsetof(type, path) == offsetof(rd_dl_head, path),                                             \
                   #type " starts with an rd_dl_head")

/* rd_dl_open then rd_dl_resolve into the library struct at ret (size
 * bytes, starting with an rd_dl_head): written only on success. */
int rd_dl_load(char *const *dirs, const char *const *names, const rd_dl_symbol *syms, size_t n, void *ret, size_t size,
               char **ret_error);
/* Closes what rd_dl_load opened and zeroes the struct. */
void rd_dl_unload(void *lib, size_t size);
