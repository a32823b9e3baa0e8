/* SPDX-License-Identifier: MIT */
/* fix, setup and undo around the plan: what to do next, what an applied
 * run achieved, what undo did; and `fix --status`, the applied runs from
 * the journal (rd_fix_runs_json, the same object as status.json's
 * "fix_runs"), as text. */
#include <inttypes.h>
#include "report-fix.h"
#include "json-util.h"
#include "report-plan.h"
#include "term.h"
#include "util.h"

void rd_report_fix_plan_text(FILE *out, const rd_plan *p, size_t unfixable, const char *apply_command)
{
    rd_plan_print(p, out);
    if (unfixable)
        fprintf(out, "%s%zu problem%s found by the check %s no automatic fix: see `rocm-doctor check`.\n",
                p->n_steps || p->n_not_planned ? "\n" : "", unfixable, unfixable == 1 ? "" : "s",
                unfixable == 1 ? "has" : "have");
    if (p->n_steps > 0 && apply_command)
        fprintf(out, "\nTo carry it out: %s\n", apply_command);
}

json_object *rd_report_fix_json(const rd_plan *p, const rd_apply_result *res, const rd_fix_results *results)
{
    json_object *j = rd_plan_to_json(p);
    rd_json_set_bool(j, "applied", res != NULL);
    if (!res)
        return j;
    rd_json_set_str(j, "run_id", res->run_id);
    rd_json_add(j, "first_boot", rd_json_strv(res->deferred));
    rd_json_add(j, "results", rd_fix_results_to_json(results));
    return j;
}

static void print_deferred(FILE *out, const char *root, char *const *deferred)
{
    if (!deferred)
        return;
    fprintf(out, "Run on the first boot of %s (not run now):\n", root);
    for (size_t i = 0; deferred[i]; i++)
        fprintf(out, "   %s\n", deferred[i]);
}

void rd_report_fix_applied_text(FILE *out, const rd_plan *p, const rd_apply_result *res, const rd_fix_results *results)
{
    _cleanup_free_ char *undo = rd_undo_command(p->root, res->run_id);
    fprintf(out, "\nApplied as run %s (undo: %s).\n", res->run_id, undo);
    print_deferred(out, p->root, res->deferred);
    if (p->n_steps)
        fputs("\nResult:\n", out);
    for (size_t i = 0; i < results->n; i++) {
        const rd_fix_result *x = &results->items[i];
        bool why = (x->kind == RD_RESULT_FAILING || x->kind == RD_RESULT_PARTLY) && x->why;
        fprintf(out, "   %-24s %s%s%s\n", x->finding, rd_result_text(x->kind), why ? ": " : "", why ? x->why : "");
    }
    for (size_t i = 0; i < p->n_steps; i++)
        if (p->steps[i].note)
            fprintf(out, "%s %s: %s\n", i == 0 ? "\nNext:\n  " : "  ", p->steps[i].fix, p->steps[i].note);
    bool later = false;
    for (size_t i = 0; i < results->n; i++)
        later |= results->items[i].kind == RD_RESULT_REBOOT || results->items[i].kind == RD_RESULT_RELOGIN;
    if (later)
        fprintf(out,
                "\nThe boot check verifies this run after the reboot or re-login it needs:\n"
                "`rocm-doctor fix --status%s%s %s` shows the verdict.\n",
                streq(p->root, "/") ? "" : " --root ", root_prefix(p->root), res->run_id);
}

void rd_report_undo_text(FILE *out, const char *root, const rd_apply_result *res)
{
    fprintf(out, "Undid run %s%s.\n", res->run_id,
            res->interrupted ? " (it had been interrupted: every file it touched is back as it was before)" : "");
    for (size_t i = 0; res->notes && res->notes[i]; i++) {
        /* a note may quote the package manager */
        _cleanup_free_ char *note = rd_term_escape_bounded(res->notes[i], 1024, rd_term_locale_utf8());
        fprintf(out, "Note: %s.\n", note);
    }
    print_deferred(out, root, res->deferred);
}

json_object *rd_report_undo_json(const rd_apply_result *res)
{
    json_object *j = json_object_new_object();
    rd_json_set_str(j, "run_id", res->run_id);
    rd_json_set_bool(j, "undone", true);
    rd_json_set_bool(j, "interrupted", res->interrupted);
    rd_json_add(j, "first_boot", rd_json_strv(res->deferred));
    rd_json_add(j, "notes", rd_json_strv(res->notes));
    return j;
}

/* ---- fix --status ---- */

static void put(const rd_term *t, const char *s)
{
    rd_term_puts(t, strempty(s));
}

static void print_steps(const rd_term *t, json_object *steps)
{
    for (size_t i = 0; steps && i < json_object_array_length(steps); i++) {
        json_object *s = json_object_array_get_idx(steps, i);
        fputs("    ", t->out);
        put(t, rd_json_get_str(s, "fix"));
        fputs(": ", t->out);
        put(t, rd_json_get_str(s, "title"));
        _cleanup_strv_free_ char **ids = rd_json_to_strv(rd_json_get_array(s, "findings"));
        const char *effect = rd_json_get_str(s, "effect");
        fputs("\n      fixes ", t->out);
        for (size_t k = 0; ids && ids[k]; k++) {
            fputs(k ? ", " : "", t->out);
            put(t, ids[k]);
        }
        fprintf(t->out, "%s%s\n", ids ? "" : "nothing the check reported",
                streq_ptr(effect, "reboot")    ? "; counts after a reboot"
                : streq_ptr(effect, "relogin") ? "; counts after a re-login"
                                               : "");
    }
}

static void print_change(const rd_term *t, const char *what, const char *text, const char *tail)
{
    fprintf(t->out, "    %-9s ", what);
    put(t, text);
    fprintf(t->out, "%s\n", tail ? tail : "");
}

/* "rocm 6.4.1", "hip-runtime-amd 6.4.1 (was 6.2.4)": the journal's lists
 * of what the run did, kind by kind. */
static void print_changed_packages(const rd_term *t, json_object *packages)
{
    rd_pkg_changes c = { 0 };
    if (rd_pkg_changes_from_lists(packages, &c) < 0)
        return;
    for (size_t i = 0; i < c.n; i++) {
        const rd_pkg_change *x = &c.items[i];
        _cleanup_free_ char *text = xasprintf("%s%s%s", x->name, x->version ? " " : "", strempty(x->version));
        _cleanup_free_ char *tail =
            x->old_version && !streq_ptr(x->old_version, x->version) ? xasprintf(" (was %s)", x->old_version) : NULL;
        _cleanup_free_ char *shown = tail ? rd_term_escape(tail, t->utf8) : NULL;
        print_change(t, rd_pkg_kinds[x->op].done, text, shown);
    }
    rd_pkg_changes_free(&c);
}

/* Each string of c[key] as a change; returns how many. */
static size_t print_paths(const rd_term *t, json_object *c, const char *key, const char *what)
{
    json_object *a = rd_json_get_array(c, key);
    size_t n = a ? json_object_array_length(a) : 0;
    for (size_t i = 0; i < n; i++)
        print_change(t, what, json_object_get_string(json_object_array_get_idx(a, i)), NULL);
    return n;
}

static void print_changes(const rd_term *t, json_object *c)
{
    fputs("  Changed:\n", t->out);
    size_t before = print_paths(t, c, "files_written", "wrote");
    before += print_paths(t, c, "files_removed", "removed");
    json_object *a;
    if ((a = rd_json_get_array(c, "groups")))
        for (size_t i = 0; i < json_object_array_length(a); i++, before++) {
            json_object *g = json_object_array_get_idx(a, i);
            bool add = streq_ptr(rd_json_get_str(g, "action"), "add");
            _cleanup_free_ char *text =
                xasprintf("%s %s %s group %s", add ? "added" : "removed", strempty(rd_json_get_str(g, "user")),
                          add ? "to" : "from", strempty(rd_json_get_str(g, "group")));
            print_change(t, "group", text, NULL);
        }
    if ((a = rd_json_get_array(c, "commands")))
        for (size_t i = 0; i < json_object_array_length(a); i++, before++) {
            json_object *cmd = json_object_array_get_idx(a, i);
            _cleanup_strv_free_ char **argv = rd_json_to_strv(rd_json_get_array(cmd, "argv"));
            _cleanup_free_ char *text = argv ? rd_argv_join(argv) : xstrdup("");
            bool first_boot = streq_ptr(rd_json_get_str(cmd, "when"), "first-boot");
            print_change(t, "command", text, first_boot ? " (on first boot)" : NULL);
        }
    json_object *packages = NULL;
    if (json_object_object_get_ex(c, "packages", &packages) && json_object_is_type(packages, json_type_object)) {
        print_changed_packages(t, packages);
        before++;
    }
    if (before == 0)
        fputs("    nothing\n", t->out);
}

/* ok: ✓, failed: ✗, neither (not run): -; the why wrapped at 80 columns. */
static void print_verdict_line(const rd_term *t, int ok, const char *what, const char *status, const char *why)
{
    if (ok < 0)
        fputs("    - ", t->out);
    else
        fprintf(t->out, "    %s%s%s ", rd_term_color(t, ok ? RD_COLOR_GREEN : RD_COLOR_RED),
                rd_term_glyph(t, ok ? RD_GLYPH_CHECK : RD_GLYPH_CROSS), rd_term_color(t, RD_COLOR_RESET));
    _cleanup_free_ char *e = rd_term_escape(what, t->utf8);
    size_t cells = rd_term_cells(e);
    rd_term_cell(t, what, 24);
    fputs(status, t->out);
    if (!why) {
        fputc('\n', t->out);
        return;
    }
    fputs(": ", t->out);
    rd_term_wrap(t, why, 6 + (cells < 24 ? 24 : cells + 1) + strlen(status) + 2, 8);
}

/* The boot check's GPU kernel run of a verification. */
static void print_runtime_verdict(const rd_term *t, json_object *rt)
{
    const char *rs = rd_json_get_str(rt, "status");
    int64_t gpus = rd_json_get_int(rt, "gpus", 0);
    if (streq_ptr(rs, "ok")) {
        _cleanup_free_ char *text = xasprintf("ok on %" PRId64 " GPU%s", gpus, gpus == 1 ? "" : "s");
        print_verdict_line(t, true, "GPU kernel", text, NULL);
    } else if (streq_ptr(rs, "failed"))
        print_verdict_line(t, false, "GPU kernel", "failed", rd_json_get_str(rt, "why"));
    else
        print_verdict_line(t, -1, "GPU kernel", "not run (verify_runtime = no)", NULL);
}

static void print_verification(const rd_term *t, const char *state, json_object *v)
{
    if (!v) {
        fprintf(t->out, "  Verification: none needed%s\n",
                streq_ptr(state, "applied") ? ": every change counted at once" : "");
        return;
    }
    const char *vs = rd_json_get_str(v, "state");
    bool relogin = streq_ptr(rd_json_get_str(v, "needs"), "relogin");
    if (streq_ptr(vs, RD_VERIFY_PENDING)) {
        if (!streq_ptr(state, "applied"))
            fprintf(t->out, "  Verification: not done: the run is %s\n", strempty(state));
        else
            fprintf(t->out, "  Verification: pending until %s\n",
                    relogin ? "the next boot check (re-login)" : "the boot check after a reboot");
        return;
    }
    bool failed = streq_ptr(vs, RD_VERIFY_FAILED);
    fprintf(t->out, "  %s at ", failed ? "Failed" : "Verified");
    put(t, rd_json_get_str(v, "time"));
    fputs(" on boot ", t->out);
    put(t, rd_json_get_str(v, "boot_id") ? rd_json_get_str(v, "boot_id") : "unknown");
    fputs(":\n", t->out);
    json_object *results = rd_json_get_array(v, "results");
    for (size_t i = 0; results && i < json_object_array_length(results); i++) {
        json_object *x = json_object_array_get_idx(results, i);
        bool fixed = streq_ptr(rd_json_get_str(x, "status"), "fixed");
        print_verdict_line(t, fixed, strempty(rd_json_get_str(x, "finding")), fixed ? "fixed" : "still failing",
                           fixed ? NULL : rd_json_get_str(x, "why"));
    }
    json_object *rt = NULL;
    if (json_object_object_get_ex(v, "runtime", &rt) && rt)
        print_runtime_verdict(t, rt);
}

/* " TEXT" after a separator, for a string that is there */
static void put_after(const rd_term *t, const char *sep, const char *s)
{
    if (!s)
        return;
    fputs(sep, t->out);
    put(t, s);
}

static void print_run(const rd_term *t, json_object *run)
{
    const char *state = rd_json_get_str(run, "state");
    json_object *v = NULL;
    if (!json_object_object_get_ex(run, "verification", &v) || !json_object_is_type(v, json_type_object))
        v = NULL;
    const char *vs = v && streq_ptr(state, "applied") ? rd_json_get_str(v, "state") : NULL;
    fprintf(t->out, "%sRun ", rd_term_color(t, RD_COLOR_BOLD));
    put(t, rd_json_get_str(run, "run_id"));
    fprintf(t->out, "%s: ", rd_term_color(t, RD_COLOR_RESET));
    put(t, state);
    put_after(t, " ", rd_json_get_str(run, "applied"));
    put_after(t, ", ", vs);
    fputc('\n', t->out);
    const char *root = rd_json_get_str(run, "root");
    if (root && !streq(root, "/")) {
        put_after(t, "  Root: ", root);
        fputc('\n', t->out);
    }
    fputs("  Steps:\n", t->out);
    print_steps(t, rd_json_get_array(run, "steps"));
    json_object *c = NULL;
    if (json_object_object_get_ex(run, "changes", &c))
        print_changes(t, c);
    print_verification(t, state, v);
}

void rd_report_fix_status_text(FILE *out, bool color, const char *root, json_object *runs, bool one)
{
    rd_term t;
    rd_term_init(&t, out, color);
    json_object *a = rd_json_get_array(runs, "runs");
    size_t n = a ? json_object_array_length(a) : 0;
    if (n == 0)
        fprintf(out, "No fix run was applied to %s (%s%s holds none).\n", root, root_prefix(root), RD_JOURNAL_DIR);
    for (size_t i = 0; i < n; i++) {
        if (i)
            fputc('\n', out);
        print_run(&t, json_object_array_get_idx(a, i));
    }
    if (!one && n)
        fprintf(out, "\n%" PRId64 " pending, %" PRId64 " verified, %" PRId64 " failed.\n",
                rd_json_get_int(runs, "pending", 0), rd_json_get_int(runs, "verified", 0),
                rd_json_get_int(runs, "failed", 0));
}
