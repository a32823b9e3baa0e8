/* SPDX-License-Identifier: MIT */
/* Plan steps that edit the group database: /etc/group and its siblings as
 * the plan reads them, and adding a user to a group. Nothing here writes
 * to the system. */
#include <inttypes.h>
#include "fix.h"
#include "fix-private.h"
#include "passwd.h"
#include "util.h"

const char *const rd_group_files[] = {
    "/etc/group",  "/etc/gshadow", "/etc/group-",  "/etc/gshadow-",  "/etc/passwd",
    "/etc/shadow", "/etc/passwd-", "/etc/shadow-", "/etc/.pwd.lock", NULL,
};

void rd_group_entries_free(rd_group_entry *g, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        free(g[i].name);
        strv_free(g[i].members);
    }
    free(g);
}

typedef struct {
    rd_group_entry *v;
    size_t n;
} group_list;

static int keep_group(const group_entry *e, void *userdata)
{
    group_list *l = userdata;
    rd_group_entry *g = ARRAY_APPEND(l->v, l->n);
    g->name = xstrdup(e->name);
    g->gid = e->gid;
    size_t n = 0;
    for (size_t i = 0; i < e->n_members; i++)
        g->members = strv_push_n(g->members, &n, xstrdup(e->members[i]));
    return 0;
}

/* Through the one passwd/group reader (passwd.h). */
static void parse_groups(const char *text, rd_group_entry **ret, size_t *ret_n)
{
    group_list l = { 0 };
    group_foreach_text(text, keep_group, &l);
    *ret = l.v;
    *ret_n = l.n;
}

int rd_fix_read_groups(const rd_fix_input *in, rd_group_entry **ret, size_t *ret_n)
{
    _cleanup_free_ char *text = NULL;
    int r = rd_fix_read(in->ctx->root_fd, "/etc/group", &text, NULL, NULL);
    if (r < 0)
        return r;
    parse_groups(text, ret, ret_n);
    return 0;
}

bool rd_fix_user_exists(const rd_fix_input *in, const char *user, int64_t *ret_gid)
{
    _cleanup_free_ char *text = NULL;
    passwd_record rec;
    if (rd_fix_read(in->ctx->root_fd, "/etc/passwd", &text, NULL, NULL) < 0 ||
        passwd_find_text(text, user, -1, &rec) < 0)
        return false;
    if (ret_gid)
        *ret_gid = rec.gid;
    passwd_record_free(&rec);
    return true;
}

/* The /etc/group line of `group` with `user` appended to its members. */
static char *group_text_add(const char *text, const char *group, const char *user)
{
    strbuf b = { 0 };
    size_t n = strlen(group);
    for (const char *l = text; *l;) {
        const char *e = strchr(l, '\n');
        size_t len = e ? (size_t)(e - l) : strlen(l);
        strbuf_appendn(&b, l, len);
        if (strncmp(l, group, n) == 0 && l[n] == ':') {
            bool empty = len > 0 && l[len - 1] == ':';
            strbuf_printf(&b, "%s%s", empty ? "" : ",", user);
        }
        if (e)
            strbuf_append(&b, "\n");
        l += len + (e ? 1 : 0);
    }
    return strbuf_steal(&b);
}

int rd_step_group_add(rd_plan *p, rd_step *s, const rd_fix_input *in, const char *user, const char *group,
                      char **ret_reason)
{
    rd_snapshot *snap;
    int r = rd_plan_snapshot(p, in, "/etc/group", &snap, ret_reason);
    if (r < 0)
        return r;
    if (!snap->exists) {
        *ret_reason = xasprintf("%s/etc/group does not exist", root_prefix(in->ctx->root));
        return -ENOENT;
    }
    rd_group_entry *groups = NULL;
    size_t n_groups = 0;
    parse_groups(snap->content, &groups, &n_groups);
    const rd_group_entry *g = NULL;
    for (size_t i = 0; i < n_groups; i++)
        if (streq(groups[i].name, group))
            g = &groups[i];
    int64_t primary = -1;
    bool planned = false; /* by an earlier step of this plan */
    for (size_t i = 0; i < p->n_steps; i++)
        for (size_t k = 0; k < p->steps[i].n_actions; k++) {
            const rd_action *a = &p->steps[i].actions[k];
            planned |= a->kind == RD_ACT_GROUP_ADD && streq(a->user, user) && streq(a->group, group);
        }
    if (planned) {
        r = 0;
    } else if (!g) {
        r = -ENOENT;
        *ret_reason = xasprintf("group %s does not exist in %s/etc/group", group, root_prefix(in->ctx->root));
    } else if (!rd_fix_user_exists(in, user, &primary)) {
        r = -ENOENT;
        *ret_reason = xasprintf("user %s is not in %s/etc/passwd (a directory service user: add it to %s with the "
                                "directory's tools)",
                                user, root_prefix(in->ctx->root), group);
    } else if (strv_contains(g->members, user) || primary == g->gid) {
        r = 0;
    } else {
        r = 1;
    }
    rd_group_entries_free(groups, n_groups);
    if (r <= 0)
        return r;

    for (size_t i = 0; rd_group_files[i]; i++) {
        rd_snapshot *gs;
        int q = rd_plan_snapshot(p, in, rd_group_files[i], &gs, ret_reason);
        if (q < 0)
            return q;
        gs->touched = true;
    }
    rd_action *a = rd_step_add_action(s, RD_ACT_GROUP_ADD);
    a->user = xstrdup(user);
    a->group = xstrdup(group);

    /* the predicted /etc/group, shown as a diff */
    snap = rd_plan_find_snapshot(p, "/etc/group");
    size_t k = 0;
    for (; k < s->n_previews; k++)
        if (streq(s->preview_paths[k], "/etc/group"))
            break;
    if (k == s->n_previews) {
        s->preview_paths = strv_push(s->preview_paths, xstrdup("/etc/group"));
        s->preview_after = strv_push(s->preview_after, xstrdup(snap->content));
        s->n_previews++;
    }
    char *next = group_text_add(s->preview_after[k], group, user);
    free(s->preview_after[k]);
    s->preview_after[k] = next;
    return 1;
}
