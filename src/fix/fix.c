/* SPDX-License-Identifier: MIT */
/* Plans: the fix table, the helpers fixes build their steps with, and the
 * plan built from the fixes. The group edits are in fix-groups.c; the plan
 * as text and JSON is src/report's (report-plan.c). Nothing here writes to
 * the system. */
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <sys/stat.h>
#include "fix.h"
#include "fix-private.h"
#include "json-util.h"
#include "passwd.h"
#include "util.h"

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

json_object *rd_step_summary_json(const rd_step *s)
{
    json_object *js = json_object_new_object();
    rd_json_set_str(js, "fix", s->fix);
    rd_json_set_str(js, "title", s->title);
    rd_json_add(js, "findings", rd_json_strv(s->findings));
    rd_json_set_str(js, "effect", rd_effect_name(s->effect));
    if (s->note)
        rd_json_set_str(js, "note", s->note);
    return js;
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
    free(a->shown);
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
        free(p->not_planned[i].detail);
    }
    free(p->not_planned);
    free(p->pending_detail);
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
    int r = rd_fix_read(in->ctx->root_fd, path, &content, &size, &st);
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

rd_action *rd_step_add_action(rd_step *s, rd_action_kind kind)
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
            *ret_reason =
                xasprintf("%s is also changed by the %s fix; apply one at a time (--only)", path, p->steps[i].fix);
            return -EBUSY;
        }
    snap->touched = true;
    rd_action *a = rd_step_add_action(s, RD_ACT_WRITE);
    a->path = xstrdup(path);
    a->content = xmalloc(size + 1);
    memcpy(a->content, content, size);
    a->content[size] = 0;
    a->size = size;
    a->mode = mode;
    return 1;
}

int rd_step_write_secret(rd_plan *p, rd_step *s, const rd_fix_input *in, const char *path, const char *content,
                         const char *shown, char **ret_reason)
{
    int r = rd_step_write(p, s, in, path, content, strlen(content), 0600, ret_reason);
    if (r > 0)
        s->actions[s->n_actions - 1].shown = xstrdup(shown);
    return r;
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
    rd_action *a = rd_step_add_action(s, RD_ACT_REMOVE);
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

void rd_step_command(rd_step *s, char **argv, char **undo_argv)
{
    rd_action *a = rd_step_add_action(s, RD_ACT_COMMAND);
    a->argv = argv;
    a->undo_argv = undo_argv;
}

void rd_step_packages(rd_step *s, rd_pkg_set *set)
{
    rd_action *a = rd_step_add_action(s, RD_ACT_PACKAGES);
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
    n->detail = TAKE_PTR(p->pending_detail);
    n->refused = refused;
    n->partial = p->pending_partial;
    p->pending_partial = false;
}

void rd_plan_partial(rd_plan *p)
{
    p->pending_partial = true;
}

void rd_plan_detail(rd_plan *p, char *detail)
{
    free(p->pending_detail);
    p->pending_detail = detail;
}

int rd_plan_build(const rd_fix_input *in, rd_plan *ret, char **ret_error)
{
    rd_plan p = { .root = xstrdup(in->ctx->root) };
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
        free(TAKE_PTR(p.pending_detail));
        p.pending_partial = false;
    }
    *ret = p;
    return 0;
}

int rd_fix_release(const rd_fix_input *in, rd_repo_family family, rd_release_choice *ret, char **ret_reason)
{
    const rd_release_input ri = {
        .facts = in->facts,
        .knowledge = in->knowledge,
        .config = in->config,
        .gpus = in->gpus,
        .asked = in->release,
        .family = family,
    };
    return rd_release_decide(&ri, ret, ret_reason);
}
