/* SPDX-License-Identifier: MIT */
/* modprobe.d files read the way kmod reads them (libkmod-config.c), so that
 * the check and the fix agree with modprobe: a backslash right before a
 * newline joins the next line (nothing else is removed); a line whose
 * first character is '#' is a comment; words are separated by spaces and
 * tabs only. A carriage return is therefore part of a word:
 * "blacklist amdgpu\r\n" blacklists a module named "amdgpu\r", which is
 * nothing. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

typedef struct {
    unsigned first_line, last_line; /* 1-based physical lines */
    size_t offset, length;          /* the physical text of the line(s), without the final newline */
    const char *directive;          /* NULL for a blank line or a comment */
    const char *module;             /* as kmod reads it ('-' as '_'); NULL when missing */
    const char *rest;               /* what follows the module, "" when nothing */
} rd_modprobe_entry;

/* Calls on_entry for every logical line of text (size bytes; a NUL ends a
 * line's content as it does for kmod); stops when it returns non-zero and
 * returns that. */
int rd_modprobe_conf_parse(const char *text, size_t size, int (*on_entry)(const rd_modprobe_entry *e, void *userdata),
                           void *userdata);

/* Whether the entry keeps module from loading: "blacklist MODULE", or
 * "install MODULE /bin/false" (or /bin/true). */
bool rd_modprobe_entry_disables(const rd_modprobe_entry *e, const char *module);

/* Whether the entry would disable module but for a carriage return at the
 * end of its module name: a line that does nothing. */
bool rd_modprobe_entry_disables_but_cr(const rd_modprobe_entry *e, const char *module);
