/* SPDX-License-Identifier: MIT */
/* The one reader of passwd(5) and group(5) files. One rule for every line:
 * leading blanks are skipped; a blank line, a line starting with '#' and a
 * NIS compat line ('+' or '-') are not entries; a line is malformed, and
 * skipped, when its name is empty or its uid or gid is not a decimal number
 * below 4294967295. passwd needs name:password:uid:gid (the later fields may
 * be missing), group name:password:gid (members may be missing). Group
 * members are split at ',' with blanks around each trimmed; empty ones are
 * dropped. Entries keep file order; a duplicate name is reported as often as
 * it appears (look-ups take the first). Linear in the file's size. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct {
    const char *name, *password;
    uint32_t uid, gid;
    const char *gecos, *home, *shell; /* "" when missing */
} passwd_entry;

typedef struct {
    const char *name, *password;
    uint32_t gid;
    char **members; /* NULL-terminated, n_members long */
    size_t n_members;
} group_entry;

/* Parse one line in place (it is modified). 1: an entry in *ret (pointing
 * into line; a group's members array is reused by the next call: pass the
 * same *ret with members initialised to NULL, free ret->members at the
 * end); 0: not an entry. */
int passwd_parse_line(char *line, passwd_entry *ret);
int group_parse_line(char *line, group_entry *ret);

/* Calls fn for each entry; a non-zero return stops and is returned. From a
 * NUL-terminated text, or streamed from a file inside a root (rootfs.h). */
typedef int (*passwd_fn)(const passwd_entry *e, void *userdata);
typedef int (*group_fn)(const group_entry *e, void *userdata);
int passwd_foreach_text(const char *text, passwd_fn fn, void *userdata);
int group_foreach_text(const char *text, group_fn fn, void *userdata);
int passwd_foreach_file(int root_fd, const char *path, unsigned rootfs_how, passwd_fn fn, void *userdata);
int group_foreach_file(int root_fd, const char *path, unsigned rootfs_how, group_fn fn, void *userdata);

/* The first entry whose name is `name` (name != NULL) or whose uid is uid.
 * Copies into *ret (free with passwd_entry_copy_free). -ENOENT if none. */
typedef struct {
    char *name;
    uint32_t uid, gid;
    char *home;
} passwd_record;
int passwd_find_text(const char *text, const char *name, int64_t uid, passwd_record *ret);
int passwd_find_file(int root_fd, const char *path, unsigned rootfs_how, const char *name, int64_t uid,
                     passwd_record *ret);
void passwd_record_free(passwd_record *r);
