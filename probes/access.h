/* SPDX-License-Identifier: MIT */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "facts.h"

/* system.posix_acl_access xattr value -> entries. -EINVAL when malformed. */
int rd_acl_parse_xattr(const void *buf, size_t len, rd_acl_entry **ret, size_t *ret_n);

/* Whether uid with these groups may open the node read-write, by the POSIX
 * permission and ACL rules (root always may). */
bool rd_access_can_rw(const rd_dev_node *node, int64_t uid, const int64_t *groups, size_t n_groups);

/* /etc/passwd and /etc/group text look-ups, for --root. */
int rd_passwd_find(const char *text, const char *name, int64_t uid, char **ret_name, int64_t *ret_uid,
                   int64_t *ret_gid);
/* The gids of `user` (primary gid included), from /etc/group text. */
int rd_group_list(const char *text, const char *user, int64_t primary_gid, int64_t **ret, size_t *ret_n);
char *rd_group_name(const char *text, int64_t gid);
