/* SPDX-License-Identifier: MIT */
/* group: add the target users to the group that owns /dev/kfd and the
 * render nodes, and to video. Never touches the device nodes themselves. */
#include <inttypes.h>
#include "fixes.h"
#include "util.h"

/* Whose access to fix: the users named in the configuration, else --user,
 * else the users the check looked at. */
char **rd_fix_target_users(const rd_fix_input *in)
{
    char **v = NULL;
    if (in->config && in->config->users) {
        for (size_t i = 0; in->config->users[i]; i++)
            if (!strv_contains(v, in->config->users[i]))
                v = strv_push(v, xstrdup(in->config->users[i]));
        return v;
    }
    if (in->user)
        return strv_push(v, xstrdup(in->user));
    const rd_access_facts *a = &in->facts->access;
    for (size_t i = 0; i < a->n_users; i++)
        if (!a->users[i].error && a->users[i].name && !strv_contains(v, a->users[i].name) &&
            !streq(a->users[i].name, "root"))
            v = strv_push(v, xstrdup(a->users[i].name));
    return v;
}

static char *user_list(char **users)
{
    strbuf b = { 0 };
    for (size_t i = 0; users[i]; i++)
        strbuf_printf(&b, "%s%s", i == 0 ? "" : users[i + 1] ? ", " : " and ", users[i]);
    return strbuf_steal(&b);
}

static int group_plan(const rd_fix_input *in, rd_plan *p, char **ret_reason)
{
    _cleanup_strv_free_ char **users = rd_fix_target_users(in);
    if (!users) {
        *ret_reason = xstrdup("no user to add: name one with --user or users= in the configuration");
        return -EINVAL;
    }
    rd_group_entry *entries = NULL;
    size_t n_entries = 0;
    int r = rd_fix_read_groups(in, &entries, &n_entries);
    if (r < 0) {
        *ret_reason = xasprintf("cannot read %s/etc/group: %s", root_prefix(in->ctx->root), rd_fix_describe_error(-r));
        return r;
    }
    /* the groups that own the nodes, by name, resolved in this root */
    _cleanup_strv_free_ char **groups = NULL;
    const rd_access_facts *a = &in->facts->access;
    for (size_t i = 0; i < a->n_nodes; i++) {
        const rd_dev_node *n = &a->nodes[i];
        if (!n->exists || (!streq_ptr(n->role, "kfd") && !streq_ptr(n->role, "render")) || n->gid <= 0)
            continue;
        const char *name = n->group;
        for (size_t g = 0; !name && g < n_entries; g++)
            if (entries[g].gid == n->gid)
                name = entries[g].name;
        if (!name) {
            *ret_reason = xasprintf("%s belongs to gid %" PRId64 ", which has no name in %s/etc/group", n->path, n->gid,
                                    root_prefix(in->ctx->root));
            rd_group_entries_free(entries, n_entries);
            return -ENOENT;
        }
        if (!strv_contains(groups, name))
            groups = strv_push(groups, xstrdup(name));
    }
    bool have_video = false;
    for (size_t g = 0; g < n_entries; g++)
        have_video |= streq(entries[g].name, "video");
    rd_group_entries_free(entries, n_entries);
    if (!groups) {
        *ret_reason = xstrdup("no group owns /dev/kfd or the render nodes (they belong to root): the udev fix gives "
                              "them to a group");
        return -ENOENT;
    }
    if (have_video && !strv_contains(groups, "video"))
        groups = strv_push(groups, xstrdup("video"));

    _cleanup_free_ char *who = user_list(users);
    _cleanup_free_ char *which = user_list(groups);
    rd_step *s = rd_plan_add_step(p, "group", RD_EFFECT_RELOGIN, "add %s to %s", who, which);
    rd_step_address_findings(s, in, "group");
    for (size_t u = 0; users[u]; u++)
        for (size_t g = 0; groups[g]; g++) {
            r = rd_step_group_add(p, s, in, users[u], groups[g], ret_reason);
            if (r < 0)
                return r;
        }
    s->note = xasprintf("%s must log out and back in (or reboot) for the new groups to count; `newgrp %s` gives "
                        "one shell the group meanwhile",
                        who, groups[0]);
    rd_plan_drop_empty_step(p);
    return 0;
}

const rd_fix rd_fix_group = {
    .id = "group",
    .title = "Add users to the GPU groups",
    .on_request = false,
    .plan = group_plan,
};
