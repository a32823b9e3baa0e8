/* SPDX-License-Identifier: MIT */
/* A minimal POSIX ustar writer: regular files only, written in one pass to a
 * file descriptor. Enough for the support bundle, readable by any tar. */
#pragma once

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

typedef struct {
    int fd;
    uint64_t offset; /* bytes written so far */
    time_t mtime;    /* of every member */
} rd_tar;

void rd_tar_init(rd_tar *t, int fd, time_t mtime);
/* Adds a regular file. name is relative, at most 255 bytes, and splits at a
 * '/' into ustar's prefix (155) and name (100) fields; -ENAMETOOLONG when it
 * cannot. Returns 0 or -errno. */
int rd_tar_add(rd_tar *t, const char *name, const void *data, size_t size, mode_t mode);
/* Writes the end-of-archive marker (two zero blocks). */
int rd_tar_finish(rd_tar *t);
