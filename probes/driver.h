/* SPDX-License-Identifier: MIT */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include "context.h"
#include "facts.h"

/* modprobe.d: the lines about `modules` (NULL-terminated names) from one
 * file's text, continuation lines joined, with 1-based line numbers. */
int rd_modprobe_parse(const char *text, const char *file, const char *const *modules, rd_modprobe_line **lines,
                      size_t *n);

typedef struct {
    bool nomodeset;
    bool amdgpu_modeset_off; /* amdgpu.modeset=0 */
    char **blacklist_tokens; /* tokens that blacklist amdgpu, as written */
} rd_cmdline_info;

/* Splits a kernel command line like the kernel does (double quotes group). */
char **rd_cmdline_split(const char *cmdline);
void rd_cmdline_parse(const char *cmdline, rd_cmdline_info *ret);
void rd_cmdline_info_free(rd_cmdline_info *i);

/* One /dev/kmsg record "prio,seq,usec,flags[,...];text". Returns -EINVAL for
 * anything else. The level is prio & 7. */
int rd_kmsg_parse_record(const char *rec, size_t len, rd_kmsg_record *ret);
/* Reads /dev/kmsg (or the file a test bed puts there) to its end and hands
 * every record to on_record, which copies what it keeps (rec->text lives
 * only for the call). Within rd_gather the log is read and parsed once and
 * the later callers get the same records (ctx->cache). Returns 0, or -errno
 * with *ret_error (when not NULL) naming the problem. */
int rd_kmsg_read(const rd_ctx *ctx, void (*on_record)(const rd_kmsg_record *rec, void *userdata), void *userdata,
                 char **ret_error);
/* Whether a kernel log line concerns the GPU stack (kept in the facts). */
bool rd_kmsg_relevant(const char *text);
