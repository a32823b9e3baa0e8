/* SPDX-License-Identifier: MIT */
/* The plan of fix and setup as text (with diffs) and as JSON. */
#include <inttypes.h>
#include <sys/stat.h>
#include "report-plan.h"
#include "json-util.h"
#include "term.h"
#include "util.h"

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
    if (a->shown) /* credentials: neither the old file nor the new one, only the new one masked */
        return rd_unified_diff(a->path, "", 0, false, a->shown, strlen(a->shown), true);
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

/* Names and versions come from the repository's index: escaped, bounded. */
#define PKG_TEXT_MAX 128
/* A line of the package manager's output, or a reason that quotes one. */
#define PM_LINE_MAX 1024

static char *shown(const char *s, size_t max)
{
    return rd_term_escape_bounded(s, max, rd_term_locale_utf8());
}

/* Each package with its exact version and size, then the totals. */
static void print_packages(const rd_pkg_set *set, FILE *out)
{
    const rd_pkg_changes *c = &set->changes;
    fprintf(out, "   %s, through %s%s:\n", c->n ? "packages" : "nothing to change in the packages", rd_pm_name(set->pm),
            set->refresh ? " (indexes refreshed first)" : "");
    size_t counts[RD_PKG_OP_MAX] = { 0 };
    for (size_t i = 0; i < c->n; i++) {
        const rd_pkg_change *x = &c->items[i];
        counts[x->op]++;
        _cleanup_free_ char *size = x->size ? rd_pkg_size_text(x->size) : NULL;
        _cleanup_free_ char *name = shown(x->name, PKG_TEXT_MAX), *version = shown(x->version, PKG_TEXT_MAX);
        if (x->old_version) {
            _cleanup_free_ char *old = shown(x->old_version, PKG_TEXT_MAX);
            fprintf(out, "     %-9s %s %s -> %s%s%s%s\n", rd_pkg_op_name(x->op), name, old, version, size ? " (" : "",
                    strempty(size), size ? ")" : "");
        } else
            fprintf(out, "     %-9s %s %s%s%s%s\n", rd_pkg_op_name(x->op), name, version, size ? " (" : "",
                    strempty(size), size ? ")" : "");
    }
    if (!c->n)
        return;
    _cleanup_free_ char *dl = c->download_known ? rd_pkg_size_text(c->download) : xstrdup("unknown");
    fprintf(out, "     %zu to install, %zu to upgrade, %zu to downgrade, %zu to remove; download %s\n",
            counts[RD_PKG_INSTALL], counts[RD_PKG_UPGRADE], counts[RD_PKG_DOWNGRADE], counts[RD_PKG_REMOVE], dl);
}

/* The line of action k of a step (none for the REMOVE half of a move aside). */
static void print_action(const rd_plan *p, const rd_step *s, size_t k, FILE *out)
{
    const rd_action *a = &s->actions[k];
    const rd_action *removal = moved_aside(p, s, k);
    if (move_removal(p, s, k))
        return;
    switch (a->kind) {
    case RD_ACT_WRITE:
        if (removal)
            fprintf(out, "   move %s aside to %s (kept in the journal)\n", removal->path, a->path);
        else
            fprintf(out, "   write %s (mode %04o, root:root)\n", a->path, (unsigned)a->mode);
        break;
    case RD_ACT_REMOVE: fprintf(out, "   remove %s (kept in the journal)\n", a->path); break;
    case RD_ACT_GROUP_ADD:
        fprintf(out, "   add %s to group %s: usermod -aG %s %s (undo: gpasswd -d %s %s)\n", a->user, a->group, a->group,
                a->user, a->user, a->group);
        break;
    case RD_ACT_GROUP_DEL:
        fprintf(out, "   remove %s from group %s: gpasswd -d %s %s\n", a->user, a->group, a->user, a->group);
        break;
    case RD_ACT_PACKAGES: print_packages(a->pkgs, out); break;
    case RD_ACT_COMMAND: {
        _cleanup_free_ char *cmd = rd_argv_join(a->argv);
        _cleanup_free_ char *undo = a->undo_argv ? rd_argv_join(a->undo_argv) : xstrdup("nothing");
        fprintf(out, "   %s %s (undo: %s)\n", under_root(p) ? "run on first boot:" : "run", cmd, undo);
        break;
    }
    }
}

/* The diffs of a step's file actions, then of the files it previews. */
static void print_diffs(const rd_plan *p, const rd_step *s, FILE *out)
{
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
}

void rd_plan_print(const rd_plan *p, FILE *out)
{
    /* the headline counts both: never "Nothing to do" above a list of what
     * could not be planned */
    if (p->n_steps == 0 && p->n_not_planned == 0)
        fprintf(out, "Nothing to do%s.\n", under_root(p) ? " in this root" : "");
    else if (p->n_steps == 0)
        fprintf(out, "Nothing planned%s: %zu not planned (below).\n", under_root(p) ? " in this root" : "",
                p->n_not_planned);
    else if (p->n_not_planned == 0)
        fprintf(out, "Plan for %s: %zu step%s\n", p->root, p->n_steps, p->n_steps == 1 ? "" : "s");
    else
        fprintf(out, "Plan for %s: %zu step%s, %zu not planned (below)\n", p->root, p->n_steps,
                p->n_steps == 1 ? "" : "s", p->n_not_planned);
    for (size_t i = 0; i < p->n_steps; i++) {
        const rd_step *s = &p->steps[i];
        fprintf(out, "\n%zu. %s: %s\n", i + 1, s->fix, s->title);
        if (s->findings) {
            fputs("   Fixes:", out);
            for (size_t k = 0; s->findings[k]; k++)
                fprintf(out, "%s %s", k ? "," : "", s->findings[k]);
            fputc('\n', out);
        }
        for (size_t k = 0; k < s->n_actions; k++)
            print_action(p, s, k, out);
        print_diffs(p, s, out);
        if (s->note)
            fprintf(out, "   Afterwards: %s\n", s->note);
    }
    if (p->n_not_planned) {
        fputs("\nNot planned:\n", out);
        for (size_t i = 0; i < p->n_not_planned; i++) {
            _cleanup_free_ char *reason = shown(p->not_planned[i].reason, PM_LINE_MAX);
            fprintf(out, "   %s: %s\n", p->not_planned[i].fix, reason);
            if (p->verbose && p->not_planned[i].detail) {
                /* what the tool printed, indented under its fix */
                _cleanup_strv_free_ char **lines = strv_split(p->not_planned[i].detail, "\n");
                for (size_t k = 0; lines && lines[k]; k++) {
                    _cleanup_free_ char *line = shown(lines[k], PM_LINE_MAX);
                    fprintf(out, "      | %s\n", line);
                }
            }
        }
        if (!p->verbose)
            for (size_t i = 0; i < p->n_not_planned; i++)
                if (p->not_planned[i].detail) {
                    fputs("   (--verbose shows what the package manager printed)\n", out);
                    break;
                }
    }
}

static void add_packages_json(json_object *ja, const rd_pkg_set *set)
{
    rd_json_set_str(ja, "package_manager", rd_pm_name(set->pm));
    rd_json_add(ja, "install", rd_json_strv(set->install));
    rd_json_add(ja, "remove", rd_json_strv(set->remove));
    rd_json_set_bool(ja, "refresh", set->refresh);
    rd_json_add(ja, "packages", rd_pkg_changes_to_json(&set->changes));
    if (set->changes.download_known)
        rd_json_set_int(ja, "download_size", (int64_t)set->changes.download);
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
        if (!a->shown) { /* a hash of a password is no secret kept */
            rd_sha256_hex(a->content, a->size, h);
            rd_json_set_str(ja, "sha256", h);
        }
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
        rd_json_add(ja, "argv", rd_json_strv(a->argv));
        rd_json_add(ja, "undo", a->undo_argv ? rd_json_strv(a->undo_argv) : NULL);
        rd_json_set_str(ja, "when", under_root(p) ? "first-boot" : "now");
    }
    if (a->pkgs)
        add_packages_json(ja, a->pkgs);
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
        rd_json_add(js, "actions", acts);
        json_object_array_add(steps, js);
    }
    rd_json_add(j, "steps", steps);
    json_object *np = json_object_new_array();
    for (size_t i = 0; i < p->n_not_planned; i++) {
        json_object *o = json_object_new_object();
        rd_json_set_str(o, "fix", p->not_planned[i].fix);
        rd_json_set_str(o, "reason", p->not_planned[i].reason);
        rd_json_set_str(o, "detail", p->not_planned[i].detail);
        json_object_array_add(np, o);
    }
    rd_json_add(j, "not_planned", np);
    return j;
}
