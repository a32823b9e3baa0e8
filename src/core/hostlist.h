/* SPDX-License-Identifier: MIT */
/* Slurm-style host lists: "gpu[003,017-019],login1" from a list of names
 * and back. Pure functions, no printing. */
#pragma once

#include <stddef.h>

/* The names as a compact host list: names that differ only in their last
 * run of digits (same prefix, same suffix, same width of a zero-padded
 * number) become one bracket with ranges ("gpu[001-003,007]"); other names
 * stay as they are. The groups come in the order of their first name; the
 * numbers of a group ascend. Duplicates are listed once. Returns a string
 * to free ("" for no names). */
char *rd_hostlist_compress(char *const *names);

/* A host list ("gpu[001-003,7],login[1-2]-ib,n1") as names, in the order
 * written, brackets expanded left to right (several brackets in one name
 * multiply). Ranges keep the zero padding of their first bound. Returns 0,
 * or -EINVAL for a malformed list (unbalanced bracket, a range that
 * descends), -E2BIG for more than max names; *ret is a NULL-terminated vector to free. */
int rd_hostlist_expand(const char *list, size_t max, char ***ret);
