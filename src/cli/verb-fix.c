/* SPDX-License-Identifier: MIT */
/* fix: the plan that fixes the findings, as a diff; --apply carries it out
 * (as root), journals it and checks again. undo: reverses an applied run. */
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include "cli.h"
#include "fixes.h"
#include "journal.h"
#include "run.h"
#include "util.h"

static int open_root(const char *root, char **ret_path, int *ret_fd)
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

typedef enum {
    RES_FIXED,
    RES_RELOGIN,
    RES_REBOOT,
    RES_FAILING,
} result_kind;

static const char *const result_names[] = { "fixed", "fixed-after-relogin", "fixed-after-reboot", "still-failing" };
static const char *const result_text[] = { "fixed", "fixed after re-login", "fixed after reboot", "still failing" };

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

int rd_verb_fix(const rd_options *o, char **args, size_t n_args)
{
    int r = rd_cli_reject(o, "fix", RD_OPT_LAST | RD_OPT_OUTPUT);
    if (r)
        return r;
    if (n_args > 0)
        return rd_usage_error("unexpected argument \"%s\"", args[0]);
    if (o->format_set && o->format != RD_FORMAT_JSON && o->format != RD_FORMAT_TEXT)
        return rd_usage_error("%s", "fix prints text or JSON");
    bool json = o->format == RD_FORMAT_JSON;
    if (o->apply && json && !o->yes)
        return rd_usage_error("%s", "--apply with --json needs --yes (there is no one to ask)");
    if (o->apply && o->facts_file && !o->root)
        return rd_usage_error("%s", "--apply with --facts needs --root: a facts file describes another host");
    _cleanup_strv_free_ char **only = NULL;
    if (o->only && (r = parse_only(o->only, &only)) != 0)
        return r;

    rd_run run;
    r = rd_cli_run_check(o, &run);
    if (r != 0) {
        rd_run_free(&run);
        return r;
    }
    _cleanup_free_ char *root = NULL;
    _cleanup_close_ int root_fd = -1;
    if ((r = open_root(o->root, &root, &root_fd)) != 0) {
        rd_run_free(&run);
        return r;
    }
    rd_fix_input in = {
        .fixes = &rd_fix_registry,
        .root = root, .root_fd = root_fd, .config = &run.config, .facts = &run.facts, .gpus = &run.view,
        .findings = &run.findings, .knowledge = &run.ctx.knowledge, .only = only, .key_file = o->key_file,
        .user = o->user,
    };
    rd_plan plan;
    _cleanup_free_ char *err = NULL;
    if (rd_plan_build(&in, &plan, &err) < 0) {
        rd_run_free(&run);
        return rd_fail("%s", err);
    }

    if (!o->apply || plan.n_steps == 0) {
        if (json) {
            json_object *j = rd_plan_to_json(&plan);
            json_object_object_add(j, "applied", json_object_new_boolean(false));
            r = rd_cli_print_json(j) < 0 ? rd_fail("cannot write to standard output") : 0;
        } else {
            rd_plan_print(&plan, stdout);
            size_t unfixable = 0;
            for (size_t i = 0; !only && i < run.findings.n; i++)
                unfixable += run.findings.items[i].severity >= RD_SEV_WARNING && !run.findings.items[i].fix;
            if (unfixable)
                printf("%s%zu problem%s found by the check %s no automatic fix: see `rocm-doctor check`.\n",
                       plan.n_steps || plan.n_not_planned ? "\n" : "", unfixable, unfixable == 1 ? "" : "s",
                       unfixable == 1 ? "has" : "have");
            if (plan.n_steps > 0) {
                printf("\nTo carry it out: sudo rocm-doctor fix --apply");
                const char *names[] = { "--root", "--user", "--facts", "--only" };
                const char *values[] = { o->root ? root : NULL, o->user, o->facts_file, o->only };
                for (size_t i = 0; i < ELEMENTSOF(names); i++)
                    if (values[i])
                        printf(" %s %s", names[i], values[i]);
                putchar('\n');
            }
            r = fflush(stdout) == 0 ? 0 : rd_fail("cannot write to standard output");
        }
        if (r == 0)
            r = plan.n_steps > 0 && !o->apply ? 1 : 0;
        rd_plan_free(&plan);
        rd_run_free(&run);
        return r;
    }

    if (geteuid() != 0) {
        rd_plan_free(&plan);
        rd_run_free(&run);
        return rd_fail("applying the plan needs root: run `sudo rocm-doctor fix --apply` (`rocm-doctor fix` shows "
                       "the plan without root)");
    }
    if (!json)
        rd_plan_print(&plan, stdout);
    if (!o->yes && !ask(&plan)) {
        puts("Nothing was changed.");
        rd_plan_free(&plan);
        rd_run_free(&run);
        return 1;
    }
    rd_apply_result res = { 0 };
    r = rd_plan_apply(&plan, root_fd, &res, &err);
    if (r < 0) {
        rd_plan_free(&plan);
        rd_run_free(&run);
        return rd_fail("%s", err);
    }

    /* check again, and say per finding what the run achieved */
    rd_run again;
    int rc = rd_cli_run_check(o, &again);
    json_object *jres = json_object_new_array();
    bool failing = false;
    if (!json)
        printf("\nApplied as run %s (undo: rocm-doctor undo%s%s %s).\n", res.run_id, o->root ? " --root " : "",
               o->root ? root : "", res.run_id);
    if (!json && res.deferred) {
        printf("Run on the first boot of %s (not run now):\n", root);
        for (size_t i = 0; res.deferred[i]; i++)
            printf("   %s\n", res.deferred[i]);
    }
    if (!json && plan.n_steps)
        puts("\nResult:");
    for (size_t i = 0; i < plan.n_steps; i++) {
        const rd_step *s = &plan.steps[i];
        for (size_t k = 0; s->findings && s->findings[k]; k++) {
            const rd_finding *f = rc == 0 ? rd_findings_get(&again.findings, s->findings[k]) : NULL;
            if (f && f->severity < RD_SEV_WARNING)
                f = NULL; /* what is left is only information */
            rd_effect e = s->effect;
            bool deferred = false;
            for (size_t a = 0; a < s->n_actions; a++)
                deferred |= s->actions[a].kind == RD_ACT_COMMAND && !streq(root, "/");
            if (deferred)
                e = RD_EFFECT_REBOOT; /* its commands run on the first boot */
            result_kind kind;
            const char *why = NULL;
            if (rc != 0) {
                kind = RES_FAILING;
                why = "the check could not run again";
            } else if (!f || o->facts_file || e == RD_EFFECT_REBOOT) {
                /* gone from the check; or not re-gathered (--facts); or
                 * the running kernel shows the old state until the reboot */
                kind = e == RD_EFFECT_RELOGIN ? RES_RELOGIN : e == RD_EFFECT_REBOOT ? RES_REBOOT : RES_FIXED;
                if (f && e == RD_EFFECT_NOW) {
                    kind = RES_FAILING;
                    why = o->facts_file ? "not checked again: the diagnosis comes from --facts" : f->summary;
                }
            } else {
                kind = RES_FAILING;
                why = f->summary;
            }
            failing |= kind == RES_FAILING;
            if (!json)
                printf("   %-24s %s%s%s\n", s->findings[k], result_text[kind], kind == RES_FAILING && why ? ": " : "",
                       kind == RES_FAILING && why ? why : "");
            json_object *jr = json_object_new_object();
            json_object_object_add(jr, "finding", json_object_new_string(s->findings[k]));
            json_object_object_add(jr, "fix", json_object_new_string(s->fix));
            json_object_object_add(jr, "status", json_object_new_string(result_names[kind]));
            if (why)
                json_object_object_add(jr, "why", json_object_new_string(why));
            json_object_array_add(jres, jr);
        }
    }
    r = failing ? 1 : 0;
    if (json) {
        json_object *j = rd_plan_to_json(&plan);
        json_object_object_add(j, "applied", json_object_new_boolean(true));
        json_object_object_add(j, "run_id", json_object_new_string(res.run_id));
        json_object *jd = json_object_new_array();
        for (size_t i = 0; res.deferred && res.deferred[i]; i++)
            json_object_array_add(jd, json_object_new_string(res.deferred[i]));
        json_object_object_add(j, "first_boot", jd);
        json_object_object_add(j, "results", jres);
        if (rd_cli_print_json(j) < 0)
            r = rd_fail("cannot write to standard output");
    } else {
        json_object_put(jres);
        for (size_t i = 0; i < plan.n_steps; i++)
            if (plan.steps[i].note)
                printf("%s %s: %s\n", i == 0 ? "\nNext:\n  " : "  ", plan.steps[i].fix, plan.steps[i].note);
        if (fflush(stdout) != 0)
            r = rd_fail("cannot write to standard output");
    }
    rd_run_free(&again);
    rd_apply_result_free(&res);
    rd_plan_free(&plan);
    rd_run_free(&run);
    return r;
}

int rd_verb_undo(const rd_options *o, char **args, size_t n_args)
{
    int r = rd_cli_reject(o, "undo", RD_OPT_USER | RD_OPT_FACTS | RD_OPT_CONFIG | RD_OPT_LEVEL |
                                         RD_OPT_WITH_PYTHON | RD_OPT_TIMEOUT | RD_OPT_APPLY | RD_OPT_ONLY |
                                         RD_OPT_KEY_FILE | RD_OPT_OUTPUT);
    if (r)
        return r;
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
    if ((r = open_root(o->root, &root, &root_fd)) != 0)
        return r;
    rd_apply_result res = { 0 };
    _cleanup_free_ char *err = NULL;
    r = rd_journal_undo(root, root_fd, n_args ? args[0] : NULL, &res, &err);
    if (r < 0)
        return rd_fail("%s", err);
    if (o->format == RD_FORMAT_JSON) {
        json_object *j = json_object_new_object();
        json_object_object_add(j, "run_id", json_object_new_string(res.run_id));
        json_object_object_add(j, "undone", json_object_new_boolean(true));
        json_object *jd = json_object_new_array();
        for (size_t i = 0; res.deferred && res.deferred[i]; i++)
            json_object_array_add(jd, json_object_new_string(res.deferred[i]));
        json_object_object_add(j, "first_boot", jd);
        json_object *jn = json_object_new_array();
        for (size_t i = 0; res.notes && res.notes[i]; i++)
            json_object_array_add(jn, json_object_new_string(res.notes[i]));
        json_object_object_add(j, "notes", jn);
        r = rd_cli_print_json(j) < 0 ? rd_fail("cannot write to standard output") : 0;
    } else {
        printf("Undid run %s.\n", res.run_id);
        for (size_t i = 0; res.notes && res.notes[i]; i++)
            printf("Note: %s.\n", res.notes[i]);
        if (res.deferred) {
            printf("Run on the first boot of %s (not run now):\n", root);
            for (size_t i = 0; res.deferred[i]; i++)
                printf("   %s\n", res.deferred[i]);
        }
        r = fflush(stdout) == 0 ? 0 : rd_fail("cannot write to standard output");
    }
    rd_apply_result_free(&res);
    return r;
}
