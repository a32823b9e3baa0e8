/* SPDX-License-Identifier: MIT */
/* Slurm's configuration files (slurm.conf, gres.conf, cgroup.conf) read the
 * way Slurm's own parser reads them: a '#' starts a comment to the end of
 * the line unless written "\#"; a backslash at the end of a line joins the
 * next one; a line is "Key=Value" pairs separated by blanks, keys compared
 * without case, a value may be quoted ("..."); "Include FILE" pulls in
 * another file. Host lists and device lists use Slurm's bracket ranges:
 * "renderD[128-131,134]", "node[01-04]" (the width of the first bound is
 * kept). */
#pragma once

#include <stdbool.h>
#include <stddef.h>

/* The most names one device list may expand to: a "renderD[0-999999999]" is
 * an error, not a billion strings. No node has that many device files; host
 * lists are matched without expanding them (rd_slurm_hostlist_has). */
#define RD_SLURM_LIST_MAX 256

typedef struct {
    const char *key; /* as written */
    const char *value;
} rd_slurm_pair;

typedef struct {
    unsigned line;        /* 1-based, the first physical line */
    rd_slurm_pair *pairs; /* in order; NULL for a blank line or a comment */
    size_t n_pairs;
    const char *include; /* "Include FILE": the file as written, else NULL */
    const char *error;   /* a line that is not Key=Value pairs, else NULL */
} rd_slurm_line;

/* Calls on_line for every logical line of text that holds something (a
 * blank or comment line is skipped); stops when it returns non-zero and
 * returns that. Linear in size. */
int rd_slurm_conf_parse(const char *text, size_t size, int (*on_line)(const rd_slurm_line *l, void *userdata),
                        void *userdata);

/* The value of key in the line (case-insensitive; the last one wins), NULL
 * when absent. */
const char *rd_slurm_line_get(const rd_slurm_line *l, const char *key);

/* Expands a comma-separated list with bracket ranges ("a,b[1-3]",
 * "/dev/dri/renderD[128-135]"). At most RD_SLURM_LIST_MAX names; -EINVAL
 * with *ret_error saying why for an unbalanced bracket, a bad range or too
 * many names. */
int rd_slurm_list_expand(const char *spec, char ***ret, char **ret_error);

/* Whether the host list spec names host (ALL and DEFAULT name every host),
 * matched range by range without expanding it: "gpu[0001-9999]" costs as
 * much as "gpu0001". False for a malformed list. */
bool rd_slurm_hostlist_has(const char *spec, const char *host);

/* A CPU or core list ("0-3,8,10-11") as a bitmap of max bits: -EINVAL for a
 * bad list or a number at max or above. */
int rd_slurm_cpulist_parse(const char *spec, bool *bits, size_t max);
