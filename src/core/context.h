/* SPDX-License-Identifier: MIT */
#pragma once

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include "facts.h"
#include "knowledge.h"

/* What one gather reads that several probes use, read by the first of them
 * and kept until rd_gather returns: the kernel log (the driver, boot and
 * health probes each keep their records of it). Outside rd_gather (a
 * probe's own re-gather in the daemon) nothing is kept. */
typedef struct {
    bool active;    /* inside rd_gather */
    bool kmsg_read; /* kmsg holds the log's records, kmsg_error the read's -errno */
    int kmsg_error;
    rd_kmsg_record *kmsg;
    size_t n_kmsg;
} rd_gather_cache;

void rd_gather_cache_clear(rd_gather_cache *c);

/* What a run inspects: the OS installation under `root` (every /etc, /usr,
 * /opt, /var, /lib file is read there) and the running kernel's /sys, /dev
 * and /proc, which are always the live ones. */
typedef struct {
    char *root; /* "/" or the --root directory, absolute */
    int root_fd;
    char *user;      /* --user NAME, or NULL */
    uid_t uid;       /* real uid of the process */
    char *sudo_user; /* SUDO_USER, when set */
    rd_knowledge knowledge;
    rd_gather_cache *cache; /* rd_ctx_init allocates it; NULL in a hand-made ctx */
    /* Set by the caller after rd_ctx_init (rd_run_check does): */
    const struct rd_config *config; /* never NULL once a run has started */
    bool with_python;               /* --with-python or config: import torch */
    int64_t runtime_timeout_s;      /* level 2: limit for the child, seconds */
    /* --python: a python executable or an environment directory (a path on
     * the inspected system), or NULL */
    const char *python;
    /* --rocm-path: level 2 loads the runtime from this directory only;
     * NULL: the default search */
    const char *rocm_path;
} rd_ctx;

/* The one place --root is resolved: ctx->root is root (NULL: "/") with its
 * links resolved, ctx->root_fd a descriptor of it; everything after (the
 * check, the fixes, undo, fix --status, the package managers' confinement,
 * slurm's status file) takes them from the context. rd_ctx_open_root opens
 * the root alone (what undo and fix --status need); rd_ctx_init also loads
 * the knowledge tables. Either way *ctx is freed with rd_ctx_free, and an
 * unusable root is "--root DIR: REASON" in *ret_error. */
int rd_ctx_open_root(rd_ctx *ctx, const char *root, char **ret_error);
int rd_ctx_init(rd_ctx *ctx, const char *root, const char *user, char **ret_error);
void rd_ctx_free(rd_ctx *ctx);
#define _cleanup_ctx_ __attribute__((cleanup(rd_ctx_free)))
static inline bool rd_ctx_has_root(const rd_ctx *ctx)
{
    return ctx->root[1] != 0;
}

/* OS files inside the root, through the one confined opener (rootfs.h):
 * symlinks resolve inside the root and never escape it. */
int rd_root_open(const rd_ctx *ctx, const char *path, int flags);
/* A whole regular file; max 0: no limit (line-based files). A FIFO, socket
 * or device is never opened for reading: -EINVAL. */
int rd_root_read_file(const rd_ctx *ctx, const char *path, size_t max, char **ret);
/* A regular file streamed line by line, no size limit. */
int rd_root_read_lines(const rd_ctx *ctx, const char *path, int (*fn)(char *line, void *userdata), void *userdata);
/* Directory listing inside the root: sorted names of entries whose name
 * ends in suffix (NULL for any), dot-files skipped. */
int rd_root_list_dir(const rd_ctx *ctx, const char *path, const char *suffix, char ***ret);
/* The path with every symbolic link in it followed inside the root
 * (rootfs_resolve: a ".." above the root is refused, -EXDEV; more than
 * ROOTFS_MAX_LINKS links, -ELOOP; a missing component, -ENOENT). */
int rd_root_resolve(const rd_ctx *ctx, const char *path, char **ret);
/* The rootfs_flags for ctx->root_fd (for passwd_foreach_file and friends). */
unsigned rd_root_how(const rd_ctx *ctx);

/* The rpm database of the tree at root_fd (how: the rootfs_flags it is read
 * with): the first of /usr/lib/sysimage/rpm (rpm 4.16 and later: Fedora 36
 * on, RHEL 10, SUSE) and /var/lib/rpm that is a directory with something in
 * it, its links followed inside the tree; NULL when neither is. rpm and
 * rpmkeys take it as --dbpath, which they read relative to --root: the
 * probe, the package steps and their lock check all ask here, so they use
 * the tree's own database whatever the host's rpm macros say (Debian's rpm
 * keeps its own in ~/.rpmdb). */
const char *rd_rpm_dbpath_at(int root_fd, unsigned how);
/* rd_rpm_dbpath_at for ctx's root. */
const char *rd_rpm_dbpath(const rd_ctx *ctx);

/* --python under --root DIR: PATH names a file of the image, written as
 * inside it (/home/u/venv/bin/python3) or with DIR in front
 * (DIR/home/u/venv/bin/python3, DIR as given or with its links resolved;
 * a relative PATH is taken from the working directory and needs that
 * prefix). DIR is stripped only when the path as written does not exist
 * inside the image. Its symlinks are followed inside DIR (rootfs_resolve):
 * a link that loops, leads above DIR or ends on a name DIR lacks is refused
 * with a message naming the link. *ret: the path inside DIR, links kept
 * (a venv's bin/python3 stays in the venv). */
int rd_root_python_path(const char *root, const char *python, char **ret, char **ret_error);

/* The directory with the knowledge tables: $ROCM_DOCTOR_DATA_DIR (tests,
 * `meson devenv`), else the data dir the build installs to. */
const char *rd_data_dir(void);
