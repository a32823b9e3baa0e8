/* SPDX-License-Identifier: MIT */
/* Plans: the fix table, the helpers fixes build their steps with, and the
 * plan as text and JSON. Nothing here writes to the system. */
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <sys/stat.h>
#include "fix.h"
#include "json-util.h"
#include "passwd.h"
#include "util.h"

const char *const rd_group_files[] = {
    "/etc/group", "/etc/gshadow", "/etc/group-", "/etc/gshadow-", "/etc/passwd", "/etc/shadow",
    "/etc/passwd-", "/etc/shadow-", "/etc/.pwd.lock", NULL,
};

const rd_fix *rd_fix_get(const rd_fix_table *t, const char *id)
{
    for (size_t i = 0; i < t->n_fixes; i++)
        if (streq(t->fixes[i]->id, id))
            return t->fixes[i];
    return NULL;
}

char **rd_fix_table_ids(const rd_fix_table *t)
{
    char **ids = xcalloc(1, sizeof(char *));
    for (size_t i = 0; i < t->n_fixes; i++) {
        ids = strv_push(ids, xstrdup(t->fixes[i]->id));
        for (size_t j = 0; t->fixes[i]->options && t->fixes[i]->options[j]; j++)
            ids = strv_push(ids, xstrdup(t->fixes[i]->options[j]));
    }
    return ids;
}

const char *rd_effect_name(rd_effect e)
{
    switch (e) {
    case RD_EFFECT_RELOGIN: return "relogin";
    case RD_EFFECT_REBOOT: return "reboot";
    default: return "now";
    }
}

bool rd_fix_named(const rd_fix_input *in, const char *id)
{
    return in->only && strv_contains(in->only, id);
}

bool rd_fix_selected(const rd_fix_input *in, const char *id)
{
    return !in->only || strv_contains(in->only, id);
}

static void action_free(rd_action *a)
{
    free(a->path);
    free(a->content);
    free(a->user);
    free(a->group);
    strv_free(a->argv);
    strv_free(a->undo_argv);
    rd_pkg_set_free(a->pkgs);
}

static void step_free(rd_step *s)
{
    free(s->fix);
    free(s->title);
    strv_free(s->findings);
    for (size_t i = 0; i < s->n_actions; i++)
        action_free(&s->actions[i]);
    free(s->actions);
    free(s->note);
    strv_free(s->preview_paths);
    strv_free(s->preview_after);
}

void rd_plan_free(rd_plan *p)
{
    free(p->root);
    for (size_t i = 0; i < p->n_steps; i++)
        step_free(&p->steps[i]);
    free(p->steps);
    for (size_t i = 0; i < p->n_not_planned; i++) {
        free(p->not_planned[i].fix);
        free(p->not_planned[i].reason);
    }
    free(p->not_planned);
    for (size_t i = 0; i < p->n_snapshots; i++) {
        free(p->snapshots[i].path);
        free(p->snapshots[i].content);
    }
    free(p->snapshots);
    *p = (rd_plan){ 0 };
}

rd_step *rd_plan_add_step(rd_plan *p, const char *fix, rd_effect effect, const char *title_fmt, ...)
{
    rd_step *s = ARRAY_APPEND(p->steps, p->n_steps);
    s->fix = xstrdup(fix);
    s->effect = effect;
    va_list ap;
    va_start(ap, title_fmt);
    s->title = xvasprintf(title_fmt, ap);
    va_end(ap);
    return s;
}

void rd_step_address(rd_step *s, const char *finding_id)
{
    if (!strv_contains(s->findings, finding_id))
        s->findings = strv_push(s->findings, xstrdup(finding_id));
}

size_t rd_step_address_findings(rd_step *s, const rd_fix_input *in, const char *fix_id)
{
    size_t n = 0;
    for (size_t i = 0; in->findings && i < in->findings->n; i++) {
        const rd_finding *f = &in->findings->items[i];
        if (!streq_ptr(f->fix, fix_id))
            continue;
        if (in->only && !strv_contains(in->only, fix_id) && !strv_contains(in->only, f->id))
            continue;
        rd_step_address(s, f->id);
        n++;
    }
    return n;
}

bool rd_step_changes(const rd_step *s)
{
    for (size_t i = 0; i < s->n_actions; i++)
        if (s->actions[i].kind != RD_ACT_COMMAND)
            return true;
    return false;
}

void rd_plan_drop_empty_step(rd_plan *p)
{
    if (p->n_steps == 0 || rd_step_changes(&p->steps[p->n_steps - 1]))
        return;
    step_free(&p->steps[--p->n_steps]);
}

rd_snapshot *rd_plan_find_snapshot(const rd_plan *p, const char *path)
{
    for (size_t i = 0; i < p->n_snapshots; i++)
        if (streq(p->snapshots[i].path, path))
            return &p->snapshots[i];
    return NULL;
}

int rd_plan_snapshot(rd_plan *p, const rd_fix_input *in, const char *path, rd_snapshot **ret, char **ret_reason)
{
    rd_snapshot *s = rd_plan_find_snapshot(p, path);
    if (s) {
        *ret = s;
        return 0;
    }
    char *content = NULL;
    size_t size = 0;
    struct stat st = { 0 };
    int r = rd_fix_read(in->root_fd, path, &content, &size, &st);
    if (r == -EACCES) {
        /* /etc/shadow and /etc/gshadow: planning needs no root; applying
         * (as root) reads and journals them */
        s = ARRAY_APPEND(p->snapshots, p->n_snapshots);
        s->path = xstrdup(path);
        s->exists = true;
        s->unreadable = true;
        s->content = xstrdup("");
        *ret = s;
        return 0;
    }
    if (r < 0 && r != -ENOENT && r != -ENOTDIR) {
        *ret_reason = xasprintf("%s: %s", path, rd_fix_describe_error(-r));
        return r;
    }
    s = ARRAY_APPEND(p->snapshots, p->n_snapshots);
    s->path = xstrdup(path);
    s->exists = r >= 0;
    s->content = r >= 0 ? content : xstrdup("");
    s->size = r >= 0 ? size : 0;
    s->mode = st.st_mode & 07777;
    s->uid = st.st_uid;
    s->gid = st.st_gid;
    *ret = s;
    return 0;
}

static rd_action *add_action(rd_step *s, rd_action_kind kind)
{
    rd_action *a = ARRAY_APPEND(s->actions, s->n_actions);
    a->kind = kind;
    return a;
}

static bool step_touches(const rd_step *s, const char *path)
{
    for (size_t i = 0; i < s->n_actions; i++)
        if (s->actions[i].path && streq(s->actions[i].path, path))
            return true;
    return false;
}

int rd_step_write(rd_plan *p, rd_step *s, const rd_fix_input *in, const char *path, const char *content, size_t size,
                  mode_t mode, char **ret_reason)
{
    rd_snapshot *snap;
    int r = rd_plan_snapshot(p, in, path, &snap, ret_reason);
    if (r < 0)
        return r;
    if (snap->exists && snap->size == size && memcmp(snap->content, content, size) == 0 && snap->mode == mode &&
        snap->uid == 0 && snap->gid == 0)
        return 0;
    for (size_t i = 0; i < p->n_steps; i++)
        if (&p->steps[i] != s && step_touches(&p->steps[i], path)) {
            *ret_reason = xasprintf("%s is also changed by the %s fix; apply one at a time (--only)", path,
                                    p->steps[i].fix);
            return -EBUSY;
        }
    snap->touched = true;
    rd_action *a = add_action(s, RD_ACT_WRITE);
    a->path = xstrdup(path);
    a->content = xmalloc(size + 1);
    memcpy(a->content, content, size);
    a->content[size] = 0;
    a->size = size;
    a->mode = mode;
    return 1;
}

int rd_step_remove(rd_plan *p, rd_step *s, const rd_fix_input *in, const char *path, char **ret_reason)
{
    rd_snapshot *snap;
    int r = rd_plan_snapshot(p, in, path, &snap, ret_reason);
    if (r < 0)
        return r;
    if (!snap->exists)
        return 0;
    snap->touched = true;
    rd_action *a = add_action(s, RD_ACT_REMOVE);
    a->path = xstrdup(path);
    return 1;
}

int rd_step_move_aside(rd_plan *p, rd_step *s, const rd_fix_input *in, const char *path, char **ret_reason)
{
    rd_snapshot *snap;
    int r = rd_plan_snapshot(p, in, path, &snap, ret_reason);
    if (r < 0 || !snap->exists)
        return r;
    _cleanup_free_ char *aside = xasprintf("%s.disabled", path);
    /* copy what is needed before the snapshot array may move */
    _cleanup_free_ char *content = xmalloc(snap->size + 1);
    memcpy(content, snap->content, snap->size);
    size_t size = snap->size;
    mode_t mode = snap->mode;
    rd_snapshot *dst;
    r = rd_plan_snapshot(p, in, aside, &dst, ret_reason);
    if (r < 0)
        return r;
    if (dst->exists) {
        *ret_reason = xasprintf("%s already exists; move it away first", aside);
        return -EEXIST;
    }
    r = rd_step_write(p, s, in, aside, content, size, mode, ret_reason);
    if (r < 0)
        return r;
    return rd_step_remove(p, s, in, path, ret_reason);
}

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
    int r = rd_fix_read(in->root_fd, "/etc/group", &text, NULL, NULL);
    if (r < 0)
        return r;
    parse_groups(text, ret, ret_n);
    return 0;
}

bool rd_fix_user_exists(const rd_fix_input *in, const char *user, int64_t *ret_gid)
{
    _cleanup_free_ char *text = NULL;
    passwd_record rec;
    if (rd_fix_read(in->root_fd, "/etc/passwd", &text, NULL, NULL) < 0 ||
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
        *ret_reason = xasprintf("%s/etc/group does not exist", streq(in->root, "/") ? "" : in->root);
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
        *ret_reason = xasprintf("group %s does not exist in %s/etc/group", group, streq(in->root, "/") ? "" : in->root);
    } else if (!rd_fix_user_exists(in, user, &primary)) {
        r = -ENOENT;
        *ret_reason = xasprintf("user %s is not in %s/etc/passwd (a directory service user: add it to %s with the "
                                "directory's tools)",
                                user, streq(in->root, "/") ? "" : in->root, group);
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
    rd_action *a = add_action(s, RD_ACT_GROUP_ADD);
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

char **rd_strv_new(const char *first, ...)
{
    char **v = NULL;
    va_list ap;
    va_start(ap, first);
    for (const char *a = first; a; a = va_arg(ap, const char *))
        v = strv_push(v, xstrdup(a));
    va_end(ap);
    return v;
}

void rd_step_command(rd_step *s, char **argv, char **undo_argv)
{
    rd_action *a = add_action(s, RD_ACT_COMMAND);
    a->argv = argv;
    a->undo_argv = undo_argv;
}

void rd_step_packages(rd_step *s, rd_pkg_set *set)
{
    rd_action *a = add_action(s, RD_ACT_PACKAGES);
    a->pkgs = set;
}

const rd_action *rd_plan_packages(const rd_plan *p)
{
    for (size_t i = 0; i < p->n_steps; i++)
        for (size_t k = 0; k < p->steps[i].n_actions; k++)
            if (p->steps[i].actions[k].kind == RD_ACT_PACKAGES)
                return &p->steps[i].actions[k];
    return NULL;
}

/* ---- building ---- */

static bool has_findings_for(const rd_fix_input *in, const char *fix_id)
{
    for (size_t i = 0; in->findings && i < in->findings->n; i++) {
        const rd_finding *f = &in->findings->items[i];
        if (streq_ptr(f->fix, fix_id) &&
            (!in->only || strv_contains(in->only, fix_id) || strv_contains(in->only, f->id)))
            return true;
    }
    return false;
}

static void not_planned(rd_plan *p, const char *fix, char *reason, bool refused)
{
    rd_not_planned *n = ARRAY_APPEND(p->not_planned, p->n_not_planned);
    n->fix = xstrdup(fix);
    n->reason = reason;
    n->refused = refused;
}

int rd_plan_build(const rd_fix_input *in, rd_plan *ret, char **ret_error)
{
    rd_plan p = { .root = xstrdup(in->root) };
    for (size_t i = 0; i < in->fixes->n_fixes; i++) {
        const rd_fix *fix = in->fixes->fixes[i];
        bool wanted = has_findings_for(in, fix->id) || (fix->on_request && rd_fix_named(in, fix->id)) ||
                      (in->setup && fix->setup && rd_fix_selected(in, fix->id));
        if (!wanted)
            continue;
        if (in->config && in->config->allowed_fixes && !strv_contains(in->config->allowed_fixes, fix->id)) {
            not_planned(&p, fix->id, xstrdup("not among allowed_fixes in the configuration"), true);
            continue;
        }
        size_t before = p.n_steps;
        char *reason = NULL;
        int r = fix->plan(in, &p, &reason);
        if (r < 0) {
            while (p.n_steps > before)
                step_free(&p.steps[--p.n_steps]);
            not_planned(&p, fix->id, reason ? reason : xasprintf("%s", strerror(-r)), true);
        } else if (reason)
            not_planned(&p, fix->id, reason, false);
    }
    *ret = p;
    return 0;
}

/* ---- output ---- */

static const char *action_verb(rd_action_kind k)
{
    switch (k) {
    case RD_ACT_WRITE: return "write";
    case RD_ACT_REMOVE: return "remove";
    case RD_ACT_GROUP_ADD: return "group-add";
    case RD_ACT_GROUP_DEL: return "group-remove";
    case RD_ACT_PACKAGES: return "packages";
    default: return "command";
    }
}

static char *action_diff(const rd_plan *p, const rd_action *a)
{
    const rd_snapshot *s = rd_plan_find_snapshot(p, a->path);
    bool before_exists = s && s->exists;
    const char *before = s ? s->content : "";
    size_t before_size = s ? s->size : 0;
    if (a->kind == RD_ACT_REMOVE) {
        if (before_exists && !rd_is_text(before, before_size)) {
            char h[65];
            rd_sha256_hex(before, before_size, h);
            return xasprintf("Binary file %s removed: %zu bytes, sha256 %s\n", a->path, before_size, h);
        }
        return rd_unified_diff(a->path, before, before_size, before_exists, "", 0, false);
    }
    if (!rd_is_text(a->content, a->size) || (before_exists && !rd_is_text(before, before_size))) {
        char h[65];
        rd_sha256_hex(a->content, a->size, h);
        return xasprintf("Binary file %s: %zu bytes, sha256 %s\n", a->path, a->size, h);
    }
    return rd_unified_diff(a->path, before, before_size, before_exists, a->content, a->size, true);
}

static bool under_root(const rd_plan *p)
{
    return !streq(p->root, "/");
}

/* A file moved aside (rd_step_move_aside): action k writes PATH.disabled
 * with PATH's bytes and another action of the step removes PATH. Returns
 * that REMOVE action, or NULL. */
static const rd_action *moved_aside(const rd_plan *p, const rd_step *s, size_t k)
{
    const rd_action *a = &s->actions[k];
    if (a->kind != RD_ACT_WRITE || !endswith(a->path, ".disabled"))
        return NULL;
    _cleanup_free_ char *orig = xstrndup(a->path, strlen(a->path) - strlen(".disabled"));
    const rd_snapshot *snap = rd_plan_find_snapshot(p, orig);
    if (!snap || !snap->exists || snap->size != a->size || memcmp(snap->content, a->content, a->size) != 0)
        return NULL;
    for (size_t i = 0; i < s->n_actions; i++)
        if (s->actions[i].kind == RD_ACT_REMOVE && streq(s->actions[i].path, orig))
            return &s->actions[i];
    return NULL;
}

/* Whether action k is the REMOVE half of a move aside. */
static bool move_removal(const rd_plan *p, const rd_step *s, size_t k)
{
    for (size_t i = 0; i < s->n_actions; i++)
        if (moved_aside(p, s, i) == &s->actions[k])
            return true;
    return false;
}

/* Each package with its exact version and size, then the totals. */
static void print_packages(const rd_pkg_set *set, FILE *out)
{
    const rd_pkg_changes *c = &set->changes;
    fprintf(out, "   %s, through %s%s:\n", c->n ? "packages" : "nothing to change in the packages",
            rd_pm_name(set->pm), set->refresh ? " (indexes refreshed first)" : "");
    size_t counts[4] = { 0 };
    for (size_t i = 0; i < c->n; i++) {
        const rd_pkg_change *x = &c->items[i];
        counts[x->op]++;
        _cleanup_free_ char *size = x->size ? rd_pkg_size_text(x->size) : NULL;
        if (x->old_version)
            fprintf(out, "     %-9s %s %s -> %s%s%s%s\n", rd_pkg_op_name(x->op), x->name, x->old_version,
                    strempty(x->version), size ? " (" : "", strempty(size), size ? ")" : "");
        else
            fprintf(out, "     %-9s %s %s%s%s%s\n", rd_pkg_op_name(x->op), x->name, strempty(x->version),
                    size ? " (" : "", strempty(size), size ? ")" : "");
    }
    if (!c->n)
        return;
    _cleanup_free_ char *dl = c->download_known ? rd_pkg_size_text(c->download) : xstrdup("unknown");
    fprintf(out, "     %zu to install, %zu to upgrade, %zu to downgrade, %zu to remove; download %s\n",
            counts[RD_PKG_INSTALL], counts[RD_PKG_UPGRADE], counts[RD_PKG_DOWNGRADE], counts[RD_PKG_REMOVE], dl);
}

void rd_plan_print(const rd_plan *p, FILE *out)
{
    if (p->n_steps == 0)
        fprintf(out, "Nothing to do%s.\n", under_root(p) ? " in this root" : "");
    else
        fprintf(out, "Plan for %s: %zu step%s\n", p->root, p->n_steps, p->n_steps == 1 ? "" : "s");
    for (size_t i = 0; i < p->n_steps; i++) {
        const rd_step *s = &p->steps[i];
        fprintf(out, "\n%zu. %s: %s\n", i + 1, s->fix, s->title);
        if (s->findings) {
            fputs("   Fixes:", out);
            for (size_t k = 0; s->findings[k]; k++)
                fprintf(out, "%s %s", k ? "," : "", s->findings[k]);
            fputc('\n', out);
        }
        for (size_t k = 0; k < s->n_actions; k++) {
            const rd_action *a = &s->actions[k];
            const rd_action *removal = moved_aside(p, s, k);
            if (move_removal(p, s, k))
                continue;
            switch (a->kind) {
            case RD_ACT_WRITE:
                if (removal)
                    fprintf(out, "   move %s aside to %s (kept in the journal)\n", removal->path, a->path);
                else
                    fprintf(out, "   write %s (mode %04o, root:root)\n", a->path, (unsigned)a->mode);
                break;
            case RD_ACT_REMOVE:
                fprintf(out, "   remove %s (kept in the journal)\n", a->path);
                break;
            case RD_ACT_GROUP_ADD:
                fprintf(out, "   add %s to group %s: usermod -aG %s %s (undo: gpasswd -d %s %s)\n", a->user, a->group,
                        a->group, a->user, a->user, a->group);
                break;
            case RD_ACT_GROUP_DEL:
                fprintf(out, "   remove %s from group %s: gpasswd -d %s %s\n", a->user, a->group, a->user, a->group);
                break;
            case RD_ACT_PACKAGES:
                print_packages(a->pkgs, out);
                break;
            case RD_ACT_COMMAND: {
                _cleanup_free_ char *cmd = rd_argv_join(a->argv);
                _cleanup_free_ char *undo = a->undo_argv ? rd_argv_join(a->undo_argv) : xstrdup("nothing");
                fprintf(out, "   %s %s (undo: %s)\n", under_root(p) ? "run on first boot:" : "run", cmd, undo);
                break;
            }
            }
        }
        for (size_t k = 0; k < s->n_actions; k++) {
            const rd_action *a = &s->actions[k];
            if ((a->kind != RD_ACT_WRITE && a->kind != RD_ACT_REMOVE) || move_removal(p, s, k))
                continue;
            const rd_action *removal = moved_aside(p, s, k);
            if (removal) {
                fprintf(out, "rename %s to %s, content unchanged (%zu bytes)\n", removal->path, a->path, a->size);
                continue;
            }
            _cleanup_free_ char *d = action_diff(p, a);
            fputs(d, out);
        }
        for (size_t k = 0; k < s->n_previews; k++) {
            const rd_snapshot *snap = rd_plan_find_snapshot(p, s->preview_paths[k]);
            _cleanup_free_ char *d = rd_unified_diff(snap->path, snap->content, snap->size, snap->exists,
                                                     s->preview_after[k], strlen(s->preview_after[k]), true);
            fputs(d, out);
        }
        if (s->note)
            fprintf(out, "   Afterwards: %s\n", s->note);
    }
    if (p->n_not_planned) {
        fputs("\nNot planned:\n", out);
        for (size_t i = 0; i < p->n_not_planned; i++)
            fprintf(out, "   %s: %s\n", p->not_planned[i].fix, p->not_planned[i].reason);
    }
}

json_object *rd_step_summary_json(const rd_step *s)
{
    json_object *js = json_object_new_object();
    rd_json_set_str(js, "fix", s->fix);
    rd_json_set_str(js, "title", s->title);
    json_object_object_add(js, "findings", rd_json_strv(s->findings));
    rd_json_set_str(js, "effect", rd_effect_name(s->effect));
    if (s->note)
        rd_json_set_str(js, "note", s->note);
    return js;
}

static json_object *action_json(const rd_plan *p, const rd_action *a)
{
    json_object *ja = json_object_new_object();
    rd_json_set_str(ja, "action", action_verb(a->kind));
    if (a->path)
        rd_json_set_str(ja, "path", a->path);
    if (a->kind == RD_ACT_WRITE) {
        char m[8], h[65];
        snprintf(m, sizeof m, "%04o", (unsigned)a->mode);
        rd_json_set_str(ja, "mode", m);
        rd_sha256_hex(a->content, a->size, h);
        rd_json_set_str(ja, "sha256", h);
    }
    if (a->kind == RD_ACT_WRITE || a->kind == RD_ACT_REMOVE) {
        _cleanup_free_ char *d = action_diff(p, a);
        rd_json_set_str(ja, "diff", d);
    }
    if (a->user)
        rd_json_set_str(ja, "user", a->user);
    if (a->group)
        rd_json_set_str(ja, "group", a->group);
    if (a->argv) {
        json_object_object_add(ja, "argv", rd_json_strv(a->argv));
        json_object_object_add(ja, "undo", a->undo_argv ? rd_json_strv(a->undo_argv) : NULL);
        rd_json_set_str(ja, "when", under_root(p) ? "first-boot" : "now");
    }
    if (a->pkgs) {
        rd_json_set_str(ja, "package_manager", rd_pm_name(a->pkgs->pm));
        json_object_object_add(ja, "install", rd_json_strv(a->pkgs->install));
        json_object_object_add(ja, "remove", rd_json_strv(a->pkgs->remove));
        json_object_object_add(ja, "refresh", json_object_new_boolean(a->pkgs->refresh));
        json_object_object_add(ja, "packages", rd_pkg_changes_to_json(&a->pkgs->changes));
        if (a->pkgs->changes.download_known)
            rd_json_set_int(ja, "download_size", (int64_t)a->pkgs->changes.download);
    }
    return ja;
}

json_object *rd_plan_to_json(const rd_plan *p)
{
    json_object *j = json_object_new_object();
    rd_json_set_str(j, "schema", RD_PLAN_SCHEMA);
    rd_json_set_str(j, "root", p->root);
    json_object *steps = json_object_new_array();
    for (size_t i = 0; i < p->n_steps; i++) {
        const rd_step *s = &p->steps[i];
        json_object *js = rd_step_summary_json(s);
        json_object *acts = json_object_new_array();
        for (size_t k = 0; k < s->n_actions; k++)
            json_object_array_add(acts, action_json(p, &s->actions[k]));
        json_object_object_add(js, "actions", acts);
        json_object_array_add(steps, js);
    }
    json_object_object_add(j, "steps", steps);
    json_object *np = json_object_new_array();
    for (size_t i = 0; i < p->n_not_planned; i++) {
        json_object *o = json_object_new_object();
        rd_json_set_str(o, "fix", p->not_planned[i].fix);
        rd_json_set_str(o, "reason", p->not_planned[i].reason);
        json_object_array_add(np, o);
    }
    json_object_object_add(j, "not_planned", np);
    return j;
}
