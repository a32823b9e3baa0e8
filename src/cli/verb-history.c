/* SPDX-License-Identifier: MIT */
/* fix --status [RUN]: the applied runs, newest first, each with what it
 * changed and how the boot check verified it. The data is the fix engine's
 * (rd_fix_runs_json, the same object as status.json's "fix_runs"); this
 * file only renders it as text. */
#include <inttypes.h>
#include <stdio.h>
#include "cli.h"
#include "journal.h"
#include "json-util.h"
#include "term.h"
#include "util.h"

static void put(const rd_term *t, const char *s)
{
    rd_term_puts(t, strempty(s));
}

static void print_steps(const rd_term *t, json_object *steps)
{
    for (size_t i = 0; steps && i < json_object_array_length(steps); i++) {
        json_object *s = json_object_array_get_idx(steps, i);
        printf("    ");
        put(t, rd_json_get_str(s, "fix"));
        printf(": ");
        put(t, rd_json_get_str(s, "title"));
        _cleanup_strv_free_ char **ids = rd_json_to_strv(rd_json_get_array(s, "findings"));
        const char *effect = rd_json_get_str(s, "effect");
        printf("\n      fixes ");
        for (size_t k = 0; ids && ids[k]; k++) {
            printf("%s", k ? ", " : "");
            put(t, ids[k]);
        }
        printf("%s%s\n", ids ? "" : "nothing the check reported",
               streq_ptr(effect, "reboot")    ? "; counts after a reboot"
               : streq_ptr(effect, "relogin") ? "; counts after a re-login"
                                              : "");
    }
}

static void print_change(const rd_term *t, const char *what, const char *text, const char *tail)
{
    printf("    %-9s ", what);
    put(t, text);
    printf("%s\n", tail ? tail : "");
}

/* "rocm 6.4.1", "hip-runtime-amd 6.4.1 (was 6.2.4)" */
static void print_packages(const rd_term *t, json_object *packages)
{
    static const char *const kinds[][2] = { { "installed", "installed" }, { "upgraded", "upgraded" },
                                            { "removed", "removed" }, { "downgraded", "downgraded" } };
    for (size_t k = 0; packages && k < ELEMENTSOF(kinds); k++) {
        json_object *a = rd_json_get_array(packages, kinds[k][0]);
        for (size_t i = 0; a && i < json_object_array_length(a); i++) {
            json_object *p = json_object_array_get_idx(a, i);
            const char *name = rd_json_get_str(p, "name"), *version = rd_json_get_str(p, "version"),
                       *old = rd_json_get_str(p, "old_version");
            _cleanup_free_ char *text = xasprintf("%s%s%s", strempty(name), version ? " " : "", strempty(version));
            _cleanup_free_ char *tail = old && !streq_ptr(old, version) ? xasprintf(" (was %s)", old) : NULL;
            _cleanup_free_ char *shown = tail ? rd_term_escape(tail, t->utf8) : NULL;
            print_change(t, kinds[k][1], text, shown);
        }
    }
}

static void print_changes(const rd_term *t, json_object *c)
{
    printf("  Changed:\n");
    size_t before = 0;
    json_object *a;
    if ((a = rd_json_get_array(c, "files_written")))
        for (size_t i = 0; i < json_object_array_length(a); i++, before++)
            print_change(t, "wrote", json_object_get_string(json_object_array_get_idx(a, i)), NULL);
    if ((a = rd_json_get_array(c, "files_removed")))
        for (size_t i = 0; i < json_object_array_length(a); i++, before++)
            print_change(t, "removed", json_object_get_string(json_object_array_get_idx(a, i)), NULL);
    if ((a = rd_json_get_array(c, "groups")))
        for (size_t i = 0; i < json_object_array_length(a); i++, before++) {
            json_object *g = json_object_array_get_idx(a, i);
            bool add = streq_ptr(rd_json_get_str(g, "action"), "add");
            _cleanup_free_ char *text = xasprintf("%s %s %s group %s", add ? "added" : "removed",
                                                  strempty(rd_json_get_str(g, "user")), add ? "to" : "from",
                                                  strempty(rd_json_get_str(g, "group")));
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
        print_packages(t, packages);
        before++;
    }
    if (before == 0)
        printf("    nothing\n");
}

/* ok: ✓, failed: ✗, neither (not run): -; the why wrapped at 80 columns. */
static void print_verdict_line(const rd_term *t, int ok, const char *what, const char *status, const char *why)
{
    if (ok < 0)
        printf("    - ");
    else
        printf("    %s%s%s ", rd_term_color(t, ok ? RD_COLOR_GREEN : RD_COLOR_RED),
               rd_term_glyph(t, ok ? RD_GLYPH_CHECK : RD_GLYPH_CROSS), rd_term_color(t, RD_COLOR_RESET));
    _cleanup_free_ char *e = rd_term_escape(what, t->utf8);
    size_t cells = rd_term_cells(e);
    rd_term_cell(t, what, 24);
    printf("%s", status);
    if (!why) {
        putchar('\n');
        return;
    }
    printf(": ");
    rd_term_wrap(t, why, 6 + (cells < 24 ? 24 : cells + 1) + strlen(status) + 2, 8);
}

static void print_verification(const rd_term *t, const char *state, json_object *v)
{
    if (!v) {
        printf("  Verification: none needed%s\n",
               streq_ptr(state, "applied") ? ": every change counted at once" : "");
        return;
    }
    const char *vs = rd_json_get_str(v, "state");
    bool relogin = streq_ptr(rd_json_get_str(v, "needs"), "relogin");
    if (streq_ptr(vs, RD_VERIFY_PENDING)) {
        if (!streq_ptr(state, "applied"))
            printf("  Verification: not done: the run is %s\n", strempty(state));
        else
            printf("  Verification: pending until %s\n",
                   relogin ? "the next boot check (re-login)" : "the boot check after a reboot");
        return;
    }
    bool failed = streq_ptr(vs, RD_VERIFY_FAILED);
    printf("  %s at ", failed ? "Failed" : "Verified");
    put(t, rd_json_get_str(v, "time"));
    printf(" on boot ");
    put(t, rd_json_get_str(v, "boot_id") ? rd_json_get_str(v, "boot_id") : "unknown");
    printf(":\n");
    json_object *results = rd_json_get_array(v, "results");
    for (size_t i = 0; results && i < json_object_array_length(results); i++) {
        json_object *x = json_object_array_get_idx(results, i);
        bool fixed = streq_ptr(rd_json_get_str(x, "status"), "fixed");
        print_verdict_line(t, fixed, strempty(rd_json_get_str(x, "finding")), fixed ? "fixed" : "still failing",
                           fixed ? NULL : rd_json_get_str(x, "why"));
    }
    json_object *rt = NULL;
    if (json_object_object_get_ex(v, "runtime", &rt) && rt) {
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
}

static void print_run(const rd_term *t, json_object *run)
{
    const char *state = rd_json_get_str(run, "state");
    json_object *v = NULL;
    if (!json_object_object_get_ex(run, "verification", &v) || !json_object_is_type(v, json_type_object))
        v = NULL;
    const char *vs = v && streq_ptr(state, "applied") ? rd_json_get_str(v, "state") : NULL;
    printf("%sRun ", rd_term_color(t, RD_COLOR_BOLD));
    put(t, rd_json_get_str(run, "run_id"));
    printf("%s: ", rd_term_color(t, RD_COLOR_RESET));
    put(t, state);
    const char *applied = rd_json_get_str(run, "applied");
    if (applied) {
        printf(" ");
        put(t, applied);
    }
    if (vs) {
        printf(", ");
        put(t, vs);
    }
    printf("\n");
    const char *root = rd_json_get_str(run, "root");
    if (root && !streq(root, "/")) {
        printf("  Root: ");
        put(t, root);
        printf("\n");
    }
    printf("  Steps:\n");
    print_steps(t, rd_json_get_array(run, "steps"));
    json_object *c = NULL;
    if (json_object_object_get_ex(run, "changes", &c))
        print_changes(t, c);
    print_verification(t, state, v);
}

int rd_verb_fix_status(const rd_options *o, char **args, size_t n_args)
{
    int r;
    if (n_args > 1)
        return rd_usage_error("unexpected argument \"%s\"", args[1]);
    if (o->format_set && o->format != RD_FORMAT_JSON && o->format != RD_FORMAT_TEXT)
        return rd_usage_error("%s", "fix --status prints text or JSON");
    const char *only = n_args ? args[0] : NULL;
    _cleanup_free_ char *root = NULL;
    _cleanup_close_ int root_fd = -1;
    if ((r = rd_cli_open_root(o->root, &root, &root_fd)) != 0)
        return r;
    /* an unreadable journal is not an empty one */
    _cleanup_close_ int jfd = rd_fix_open_dir(root_fd, RD_JOURNAL_DIR, NULL);
    if (jfd < 0 && jfd != -ENOENT)
        return rd_fail("cannot read %s%s: %s%s", streq(root, "/") ? "" : root, RD_JOURNAL_DIR,
                       rd_fix_describe_error(-jfd), jfd == -EACCES ? " (the journal is root's: use sudo)" : "");
    json_object *runs = NULL;
    r = rd_fix_runs_json(root, root_fd, only, SIZE_MAX, &runs);
    if (r == -ENOENT) {
        return rd_fail("no run %s in %s%s", only, streq(root, "/") ? "" : root, RD_JOURNAL_DIR);
    }
    if (o->format == RD_FORMAT_JSON)
        return rd_cli_print_json(runs) < 0 ? rd_fail("cannot write to standard output") : 0;
    rd_term t;
    rd_term_init(&t, stdout, rd_cli_want_color(o->color));
    json_object *a = rd_json_get_array(runs, "runs");
    size_t n = a ? json_object_array_length(a) : 0;
    if (n == 0) {
        printf("No fix run was applied to %s (%s%s holds none).\n", root, streq(root, "/") ? "" : root,
               RD_JOURNAL_DIR);
    }
    for (size_t i = 0; i < n; i++) {
        if (i)
            putchar('\n');
        print_run(&t, json_object_array_get_idx(a, i));
    }
    if (!only && n)
        printf("\n%" PRId64 " pending, %" PRId64 " verified, %" PRId64 " failed.\n",
               rd_json_get_int(runs, "pending", 0), rd_json_get_int(runs, "verified", 0),
               rd_json_get_int(runs, "failed", 0));
    json_object_put(runs);
    return fflush(stdout) != 0 || ferror(stdout) ? rd_fail("cannot write to standard output") : 0;
}
