/* SPDX-License-Identifier: MIT */
/* Files inside a root directory: the one way to open, list, read and
 * atomically replace a file of an inspected or fixed OS tree. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <sys/stat.h>
#include <sys/types.h>

typedef enum {
    /* Symlinks resolve as if root_fd were "/": an absolute link stays in
     * the tree (reading an OS image, as its own programs would see it). */
    ROOTFS_IN_ROOT = 0,
    /* A symlink that leads out of root_fd is refused with -EXDEV (writing:
     * never touch a file outside the tree). */
    ROOTFS_BENEATH = 1 << 0,
    /* root_fd is the live "/": the fallback may follow symlinks. */
    ROOTFS_HOST = 1 << 1,
} rootfs_flags;

/* Opens path (absolute as on the target, or relative) inside root_fd with
 * openat2 and RESOLVE_IN_ROOT or RESOLVE_BENEATH (never magic links).
 * Explicit fallback where openat2 is missing (kernels before 5.6) or denied
 * (seccomp: ENOSYS or EPERM): walk the path one component at a time with
 * O_NOFOLLOW, so any symlink is refused (-ELOOP), unless ROOTFS_HOST.
 * Returns the fd or a negative errno. */
int rootfs_open(int root_fd, const char *path, int open_flags, rootfs_flags how);

/* Opens directory path beneath root_fd (ROOTFS_BENEATH: a symlink that leads
 * out of the tree, or any absolute one, is refused with -EXDEV), creating
 * the missing components (mode, whatever the umask), each opened beneath
 * the root before the next is made in it. For a program that writes its
 * outputs into an inspected tree. Returns the fd or a negative errno. */
int rootfs_mkdir_open(int root_fd, const char *path, mode_t mode);

/* Opens a regular file for reading: O_NONBLOCK, then fstat, so a FIFO never
 * blocks and a FIFO, socket or device is never read (-EINVAL; -EISDIR for a
 * directory). *ret_st: its stat, which sizes the read buffer. */
int rootfs_open_regular(int root_fd, const char *path, rootfs_flags how, struct stat *ret_st);

/* Reads a whole regular file in one read sized to it; max 0 means no limit
 * (line-based files), else -EFBIG past max. NUL-terminated. */
int rootfs_read_file(int root_fd, const char *path, rootfs_flags how, size_t max, char **ret, size_t *ret_size);

/* Streams a regular file line by line (see read_lines_fd): no size limit,
 * memory bounded by the longest line. */
int rootfs_read_lines(int root_fd, const char *path, rootfs_flags how, int (*fn)(char *line, void *userdata),
                      void *userdata);

/* Sorted names in a directory, dot-files skipped, only names ending in
 * suffix (NULL: any). O(n log n). *ret_n (optional) is the count. */
int rootfs_list_dir(int root_fd, const char *path, rootfs_flags how, const char *suffix, char ***ret, size_t *ret_n);

/* The most symbolic links rootfs_resolve follows for one path (as the
 * kernel's MAXSYMLINKS). */
#define ROOTFS_MAX_LINKS 40

/* Where rootfs_resolve got to. Paths are absolute as inside the root. */
typedef struct {
    char *path; /* the path with every link followed, none left in it */
    char *at;   /* on an error: the path where it stopped */
    char *link; /* the last link followed, and its target as written */
    char *target;
    unsigned n_links;
} rootfs_resolved;

/* Follows the symbolic links of path the way the programs of the tree under
 * root_fd see them: an absolute target starts again at root_fd (never at
 * this host's "/"), a relative one at the link's own directory. A ".." that
 * would climb above root_fd is refused (-EXDEV), never clamped; more than
 * ROOTFS_MAX_LINKS links give -ELOOP; a missing component -ENOENT. Every
 * lookup goes through rootfs_open with ROOTFS_BENEATH on a path that holds
 * no link. Fills *ret (free with rootfs_resolved_done) also on an error. */
int rootfs_resolve(int root_fd, const char *path, rootfs_resolved *ret);
void rootfs_resolved_done(rootfs_resolved *r);

/* How a rootfs error reads in a sentence ("not a regular file", ...). */
const char *rootfs_strerror(int err);

/* The temp name an atomic write uses beside NAME: ".#NAME.PID.N". Other
 * code removes leftovers by this pattern: keep it. */
char *rootfs_temp_name(const char *name, int attempt);

/* An atomic replacement in progress: write to fd, then commit or abort. */
typedef struct {
    int dir_fd; /* owned */
    int fd;
    char *name, *tmp;
} atomic_file;

/* Creates the temp file ".#NAME.PID.N" beside dir_fd/name (O_EXCL, mode
 * 0600, never through a symlink). dir_fd is duplicated, not taken. An
 * existing symlink or non-regular name is refused (-ELOOP, -EINVAL). */
int atomic_file_open(atomic_file *f, int dir_fd, const char *name);
/* The same for a path, its directory opened with O_DIRECTORY. */
int atomic_file_open_path(atomic_file *f, const char *path);
/* fchown (unless uid and gid are both -1), fchmod, fsync, close, rename
 * over name, fsync of the directory. Aborts on failure. Frees f. */
int atomic_file_commit(atomic_file *f, mode_t mode, uid_t uid, gid_t gid);
/* Removes the temp file; frees f. Harmless on a zeroed or finished f. */
void atomic_file_abort(atomic_file *f);

/* The whole write in one call: open, write data, commit. */
int write_atomic_at(int dir_fd, const char *name, const void *data, size_t size, mode_t mode, uid_t uid, gid_t gid);
