/* SPDX-License-Identifier: MIT */
/* fix: the plan that fixes the findings, as a diff; --apply carries it out
 * (as root), journals it and checks again. setup (verb-setup.c) is the same
 * plan over every fix a working ROCm needs. What they print is rendered by
 * src/report (report-plan.c, report-fix.c). */
#include <stdio.h>
#include <unistd.h>
#include "cli.h"
#include "fixes.h"
#include "journal.h"
#include "report-fix.h"
#include "report-plan.h"
#include "run.h"
#include "util.h"

static int parse_only(const char *only, char ***ret)
{
    char **v = NULL;
    _cleanup_free_ char *copy = xstrdup(only);
    char *save = NULL;
    for (char *id = strtok_r(copy, ",", &save); id; id = strtok_r(NULL, ",", &save)) {
        bool finding = strchr(id, '.') && strspn(id, "abcdefghijklmnopqrstuvwxyz0123456789.-") == strlen(id);
        if (!rd_fix_get(&rd_fix_registry, id) && !finding) {
            strv_free(v);
            _cleanup_strv_free_ char **fixes = NULL;
            for (size_t i = 0; i < rd_fix_registry.n_fixes; i++)
                fixes = strv_push(fixes, xstrdup(rd_fix_registry.fixes[i]->id));
            _cleanup_free_ char *names = strv_join(fixes, ", ");
            return rd_usage_error("--only: \"%s\" is neither a fix (%s) nor a finding id", id, names);
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

static int fix_check_options(const rd_options *o)
{
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
        return rd_cli_print_json(j) < 0 ? rd_cli_unwritten("applied", res->run_id, r) : r;
    }
    rd_report_fix_applied_text(stdout, plan, res, &results);
    return fflush(stdout) != 0 || ferror(stdout) ? rd_cli_unwritten("applied", res->run_id, r) : r;
}

static int apply_plan(const rd_options *o, const rd_plan *plan, const rd_ctx *ctx, const char *verb)
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
    if (rd_plan_apply(plan, ctx, &res, &err) < 0)
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

int rd_cli_plan_verb(const rd_options *o, const rd_cli_setup *setup)
{
    const char *verb = setup ? "setup" : "fix";
    int r = fix_check_options(o);
    if (r)
        return r;
    _cleanup_strv_free_ char **only = NULL;
    if (o->only && (r = parse_only(o->only, &only)) != 0)
        return r;
    _cleanup_run_ rd_run run = { 0 };
    if ((r = rd_cli_run_check(o, &run)) != 0)
        return r;
    rd_cli_fix_deadlines(o, &run.ctx, &run.config);
    _cleanup_strv_free_ char **usecases = NULL;
    if (setup && (r = setup->prepare(o, &run, &usecases)) != RD_CLI_GO_ON)
        return r;
    /* the root is the check's, resolved once (rd_ctx_init) */
    _cleanup_free_ char *err = NULL;
    if (rd_pkg_root_confined(&run.ctx, &err) < 0)
        return rd_fail("%s", err);
    /* an interrupted run comes first, even when there is nothing new to do */
    if (o->apply && rd_journal_unresolved_now(&run.ctx, &err) != 0)
        return rd_fail("%s", err);
    rd_fix_input in = {
        .fixes = &rd_fix_registry,
        .ctx = &run.ctx,
        .config = &run.config,
        .facts = &run.facts,
        .gpus = &run.view,
        .findings = &run.findings,
        .knowledge = &run.ctx.knowledge,
        .only = only,
        .key_file = o->key_file,
        .user = o->user,
        .setup = setup != NULL,
        .release = o->release,
        .usecases = usecases,
    };
    _cleanup_plan_ rd_plan plan = { 0 };
    if (rd_plan_build(&in, &plan, &err) < 0)
        return rd_fail("%s", err);
    plan.verbose = o->verbose;
    if (!o->apply || plan.n_steps == 0)
        r = show_plan(o, &run, &plan, only != NULL, verb);
    else
        r = apply_plan(o, &plan, &run.ctx, verb);
    /* setup asked for every one of its steps: one that could not be
     * planned leaves the host without a working ROCm */
    if (setup && fix_refused(&plan) && r != RD_EXIT_UNKNOWN && r < 2)
        r = 2;
    /* a fix asked for with --only that could not be planned: its finding stays */
    return r == 0 && only && fix_refused(&plan) ? 1 : r;
}

int rd_verb_fix(const rd_options *o, char **args, size_t n_args)
{
    return rd_cli_plan_verb(o, NULL);
}
