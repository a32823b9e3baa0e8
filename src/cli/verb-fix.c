/* SPDX-License-Identifier: MIT */
/* fix: the plan that fixes the findings, as a diff; --apply carries it out
 * (as root), journals it and checks again. setup: the same plan over every
 * fix a working ROCm needs (repository, packages, access), finding or not.
 * undo: reverses an applied run. What they print is rendered by
 * src/report (report-plan.c, report-fix.c). */
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include "cli.h"
#include "fixes.h"
#include "journal.h"
#include "json-util.h"
#include "report-fix.h"
#include "report-plan.h"
#include "run.h"
#include "util.h"

int rd_cli_open_root(const char *root, char **ret_path, int *ret_fd)
{
    char resolved[PATH_MAX];
    if (!realpath(root ? root : "/", resolved))
        return rd_fail("--root %s: %s", root, strerror(errno));
    int fd = open(resolved, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0)
        return rd_fail("--root %s: %s", root, strerror(errno));
    *ret_path = xstrdup(resolved);
    *ret_fd = fd;
    return 0;
}

static int parse_only(const char *only, char ***ret)
{
    char **v = NULL;
    _cleanup_free_ char *copy = xstrdup(only);
    char *save = NULL;
    for (char *id = strtok_r(copy, ",", &save); id; id = strtok_r(NULL, ",", &save)) {
        bool finding = strchr(id, '.') && strspn(id, "abcdefghijklmnopqrstuvwxyz0123456789.-") == strlen(id);
        if (!rd_fix_get(&rd_fix_registry, id) && !finding) {
            strv_free(v);
            return rd_usage_error("--only: \"%s\" is neither a fix (group, udev, modprobe, apt, env, cmdline) nor a "
                                  "finding id",
                                  id);
        }
        if (!strv_contains(v, id))
            v = strv_push(v, xstrdup(id));
    }
    if (!v)
        return rd_usage_error("%s", "--only needs a comma-separated list of ids");
    *ret = v;
    return 0;
}

static bool ask(const rd_plan *p)
{
    printf("\nApply %zu step%s to %s? [y/N] ", p->n_steps, p->n_steps == 1 ? "" : "s", p->root);
    fflush(stdout);
    char line[64];
    if (!fgets(line, sizeof line, stdin)) {
        puts("");
        return false;
    }
    strstrip(line);
    return streq(line, "y") || streq(line, "Y") || streq(line, "yes");
}

static int fix_check_options(const rd_options *o, size_t n_args, char **args, const char *verb)
{
    if (n_args > 0)
        return rd_usage_error("unexpected argument \"%s\"", args[0]);
    if (o->format_set && o->format != RD_FORMAT_JSON && o->format != RD_FORMAT_TEXT)
        return rd_usage_error("%s", "fix prints text or JSON");
    if (o->apply && o->format == RD_FORMAT_JSON && !o->yes)
        return rd_usage_error("%s", "--apply with --json needs --yes (there is no one to ask)");
    if (o->apply && o->facts_file && !o->root)
        return rd_usage_error("%s", "--apply with --facts needs --root: a facts file describes another host");
    return 0;
}

/* "sudo rocm-doctor VERB --apply" with the options that chose the plan. */
static char *apply_command(const rd_options *o, const rd_plan *plan, const char *verb)
{
    strbuf b = { 0 };
    strbuf_printf(&b, "sudo rocm-doctor %s --apply", verb);
    const char *names[] = { "--root", "--user", "--facts", "--only", "--release", "--usecase" };
    const char *values[] = { o->root ? plan->root : NULL, o->user, o->facts_file, o->only, o->release, o->usecase };
    for (size_t i = 0; i < ELEMENTSOF(names); i++)
        if (values[i])
            strbuf_printf(&b, " %s %s", names[i], values[i]);
    return strbuf_steal(&b);
}

/* fix without --apply, or with nothing to do: the plan. 1 when it has steps. */
static int show_plan(const rd_options *o, const rd_run *run, const rd_plan *plan, bool only, const char *verb)
{
    if (o->format == RD_FORMAT_JSON) {
        if (rd_cli_print_json(rd_report_fix_json(plan, NULL, NULL)) < 0)
            return rd_fail("cannot write to standard output");
        return plan->n_steps > 0 && !o->apply ? 1 : 0;
    }
    size_t unfixable = 0;
    for (size_t i = 0; !only && i < run->findings.n; i++)
        unfixable += run->findings.items[i].severity >= RD_SEV_WARNING && !run->findings.items[i].fix;
    _cleanup_free_ char *command = apply_command(o, plan, verb);
    rd_report_fix_plan_text(stdout, plan, unfixable, command);
    if (fflush(stdout) != 0)
        return rd_fail("cannot write to standard output");
    return plan->n_steps > 0 && !o->apply ? 1 : 0;
}

/* The run was carried out: a report that cannot be written does not undo
 * that, so the exit status still says what the system is like now. */
static int unwritten(const char *what, const char *run_id, int r)
{
    rd_msg_error("rocm-doctor", "cannot write to standard output; run %s was %s all the same", run_id, what);
    return r;
}

/* What the run achieved, per finding, from the check run again. */
static int report_results(const rd_options *o, const rd_plan *plan, const rd_apply_result *res)
{
    _cleanup_run_ rd_run again = { 0 };
    int rc = rd_cli_run_check(o, &again);
    _cleanup_fix_results_ rd_fix_results results = { 0 };
    rd_fix_classify(plan, rc == 0 ? &again.findings : NULL, o->facts_file != NULL, &results);
    int r = results.failing ? 1 : 0;
    if (o->format == RD_FORMAT_JSON) {
        json_object *j = rd_report_fix_json(plan, res, &results);
        return rd_cli_print_json(j) < 0 ? unwritten("applied", res->run_id, r) : r;
    }
    rd_report_fix_applied_text(stdout, plan, res, &results);
    return fflush(stdout) != 0 || ferror(stdout) ? unwritten("applied", res->run_id, r) : r;
}

static int apply_plan(const rd_options *o, const rd_plan *plan, int root_fd, const char *verb)
{
    if (geteuid() != 0)
        return rd_fail("applying the plan needs root: run `sudo rocm-doctor %s --apply` (`rocm-doctor %s` shows "
                       "the plan without root)",
                       verb, verb);
    if (o->format != RD_FORMAT_JSON)
        rd_plan_print(plan, stdout);
    if (!o->yes && !ask(plan)) {
        puts("Nothing was changed.");
        return 1;
    }
    _cleanup_apply_result_ rd_apply_result res = { 0 };
    _cleanup_free_ char *err = NULL;
    if (rd_plan_apply(plan, root_fd, &res, &err) < 0)
        return rd_fail("%s", err);
    return report_results(o, plan, &res);
}

/* A fix that could not plan (refused, or missing what it needs); one that
 * leaves a file alone by design is not counted. */
static bool fix_refused(const rd_plan *p)
{
    for (size_t i = 0; i < p->n_not_planned; i++)
        if (p->not_planned[i].refused)
            return true;
    return false;
}

/* What setup was asked for. */
typedef struct {
    bool setup;
    char **usecases;
} plan_kind;

/* setup's --release: a release of the support table that AMD ships for
 * this OS; refused with the valid values otherwise. */
static int check_release(const rd_run *run, const char *release)
{
    const rd_knowledge *k = &run->ctx.knowledge;
    const rd_os_facts *os = &run->facts.os;
    strbuf valid = { 0 };
    bool known = false, shipped = false;
    /* an OS release no ROCm release lists (Ubuntu 25.10) takes the packages
     * of the nearest one of its family */
    bool unlisted = !rd_support_lists_os(k, os);
    for (size_t i = 0; i < k->n_releases; i++) {
        const rd_release *rel = &k->releases[i];
        bool here = rd_release_find_os(rel, os->id, os->version_id) != NULL ||
                    (unlisted && rd_support_nearest_os(rel, os) != NULL);
        if (here)
            strbuf_printf(&valid, "%s%s (%s)", valid.len ? ", " : "", rel->line, rel->latest);
        if (rd_knowledge_release(k, release) == rel) {
            known = true;
            shipped = here;
        }
    }
    _cleanup_free_ char *list = valid.len ? strbuf_steal(&valid) : xstrdup("none");
    if (!known)
        return rd_usage_error("--release %s: no such ROCm release in support.ini; for %s %s: %s", release,
                              strempty(os->id), strempty(os->version_id), list);
    if (!shipped)
        return rd_usage_error("--release %s: AMD does not ship ROCm %s for %s %s; releases for it: %s", release,
                              release, strempty(os->id), strempty(os->version_id), list);
    if (k->n_repos > 0 && !rd_repos_find(k, release)) {
        _cleanup_free_ char *why = rd_repos_unknown_release(k, release);
        return rd_usage_error("--release %s: %s", release, why);
    }
    return 0;
}

static int parse_usecases(const rd_run *run, const char *release, const char *arg, char ***ret)
{
    const rd_knowledge *k = &run->ctx.knowledge;
    _cleanup_strv_free_ char **v = strv_split(arg, ",");
    strbuf valid = { 0 };
    for (size_t i = 0; i < k->packages.n_usecases; i++)
        strbuf_printf(&valid, "%s%s", i ? ", " : "", k->packages.usecases[i].name);
    _cleanup_free_ char *list = valid.len ? strbuf_steal(&valid) : xstrdup("none (packages.ini is missing)");
    for (size_t i = 0; v && v[i]; i++) {
        const rd_usecase *u = rd_knowledge_usecase(k, v[i]);
        if (!u)
            return rd_usage_error("--usecase: \"%s\" is not a use case (%s)", v[i], list);
        if (release && u->since && rd_version_compare(release, u->since) < 0)
            return rd_usage_error("--usecase %s: AMD ships it from ROCm %s on, not in %s", v[i], u->since, release);
    }
    if (!v)
        return rd_usage_error("--usecase needs one of %s", list);
    *ret = TAKE_PTR(v);
    return 0;
}

#define NO_GPU_TEXT                                                                                                    \
    "No AMD GPU is visible on this host (gpu.none): nothing to set up here. To prepare an OS image for a machine "     \
    "with one, pass --root DIR (and --facts FILE of that machine)."

static int no_gpu_here(const rd_options *o)
{
    if (o->format == RD_FORMAT_JSON) {
        json_object *j = json_object_new_object();
        rd_json_set_str(j, "schema", RD_PLAN_SCHEMA);
        rd_json_set_str(j, "root", "/");
        rd_json_add(j, "steps", json_object_new_array());
        rd_json_add(j, "not_planned", json_object_new_array());
        rd_json_set_str(j, "nothing_to_set_up", NO_GPU_TEXT);
        return rd_cli_print_json(j) < 0 ? rd_fail("cannot write to standard output") : 0;
    }
    puts(NO_GPU_TEXT);
    return fflush(stdout) == 0 && !ferror(stdout) ? 0 : rd_fail("cannot write to standard output");
}

static int fix_or_setup(const rd_options *o, char **args, size_t n_args, plan_kind *kind)
{
    const char *verb = kind->setup ? "setup" : "fix";
    int r = fix_check_options(o, n_args, args, verb);
    if (r)
        return r;
    _cleanup_strv_free_ char **only = NULL;
    if (o->only && (r = parse_only(o->only, &only)) != 0)
        return r;
    _cleanup_run_ rd_run run = { 0 };
    if ((r = rd_cli_run_check(o, &run)) != 0)
        return r;
    rd_cli_fix_deadlines(o, &run.config);
    /* no AMD GPU and no image to prepare: there is nothing to set up here */
    if (kind->setup && !o->root && run.view.n_gpus == 0)
        return no_gpu_here(o);
    if (o->release && (r = check_release(&run, o->release)) != 0)
        return r;
    if (o->usecase && (r = parse_usecases(&run, o->release, o->usecase, &kind->usecases)) != 0)
        return r;
    _cleanup_free_ char *root = NULL;
    _cleanup_close_ int root_fd = -1;
    if ((r = rd_cli_open_root(o->root, &root, &root_fd)) != 0)
        return r;
    _cleanup_free_ char *err = NULL;
    if (rd_pkg_root_confined(root, &err) < 0)
        return rd_fail("%s", err);
    /* an interrupted run comes first, even when there is nothing new to do */
    if (o->apply && rd_journal_unresolved_now(root, root_fd, &err) != 0)
        return rd_fail("%s", err);
    rd_fix_input in = {
        .fixes = &rd_fix_registry,
        .root = root,
        .root_fd = root_fd,
        .config = &run.config,
        .facts = &run.facts,
        .gpus = &run.view,
        .findings = &run.findings,
        .knowledge = &run.ctx.knowledge,
        .only = only,
        .key_file = o->key_file,
        .user = o->user,
        .setup = kind->setup,
        .release = o->release,
        .usecases = kind->usecases,
    };
    _cleanup_plan_ rd_plan plan = { 0 };
    if (rd_plan_build(&in, &plan, &err) < 0)
        return rd_fail("%s", err);
    plan.verbose = o->verbose;
    if (!o->apply || plan.n_steps == 0)
        r = show_plan(o, &run, &plan, only != NULL, verb);
    else
        r = apply_plan(o, &plan, root_fd, verb);
    /* setup asked for every one of its steps: one that could not be
     * planned leaves the host without a working ROCm */
    if (kind->setup && fix_refused(&plan) && r != RD_EXIT_UNKNOWN && r < 2)
        r = 2;
    /* a fix asked for with --only that could not be planned: its finding stays */
    return r == 0 && only && fix_refused(&plan) ? 1 : r;
}

int rd_verb_fix(const rd_options *o, char **args, size_t n_args)
{
    plan_kind kind = { .setup = false };
    return fix_or_setup(o, args, n_args, &kind);
}

int rd_verb_setup(const rd_options *o, char **args, size_t n_args)
{
    plan_kind kind = { .setup = true };
    int r = fix_or_setup(o, args, n_args, &kind);
    strv_free(kind.usecases);
    return r;
}

int rd_verb_undo(const rd_options *o, char **args, size_t n_args)
{
    int r;
    if (n_args > 1)
        return rd_usage_error("unexpected argument \"%s\"", args[1]);
    if (n_args == 1 && o->last)
        return rd_usage_error("%s", "give either --last or a RUN-ID, not both");
    if (o->format_set && o->format != RD_FORMAT_JSON && o->format != RD_FORMAT_TEXT)
        return rd_usage_error("%s", "undo prints text or JSON");
    if (geteuid() != 0)
        return rd_fail("undo needs root: run `sudo rocm-doctor undo`");
    _cleanup_free_ char *root = NULL;
    _cleanup_close_ int root_fd = -1;
    if ((r = rd_cli_open_root(o->root, &root, &root_fd)) != 0)
        return r;
    rd_cli_fix_deadlines(o, NULL);
    _cleanup_apply_result_ rd_apply_result res = { 0 };
    _cleanup_free_ char *err = NULL;
    if (rd_pkg_root_confined(root, &err) < 0)
        return rd_fail("%s", err);
    if (rd_journal_undo(root, root_fd, n_args ? args[0] : NULL, &res, &err) < 0)
        return rd_fail("%s", err);
    if (o->format == RD_FORMAT_JSON)
        return rd_cli_print_json(rd_report_undo_json(&res)) < 0 ? unwritten("undone", res.run_id, 0) : 0;
    rd_report_undo_text(stdout, root, &res);
    return fflush(stdout) == 0 && !ferror(stdout) ? 0 : unwritten("undone", res.run_id, 0);
}
