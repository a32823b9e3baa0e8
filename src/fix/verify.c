/* SPDX-License-Identifier: MIT */
/* Closing the loop: a run whose changes count only after a reboot or a
 * re-login is "pending" in its journal until the boot check has looked
 * again. The boot check gives each due run its verdict, per finding the run
 * addressed (fixed, or still failing and why) and for the GPU kernel of
 * level 2, and writes it into the run's journal; the outputs read it back
 * from there. */
#include <fcntl.h>
#include <inttypes.h>
#include "journal-private.h"
#include "catalogue.h"

#define BOOT_ID_PATH "/proc/sys/kernel/random/boot_id"

char *rd_boot_id(void)
{
    /* opened by path, so that a umockdev testbed's proc/ supplies it */
    char *s = NULL;
    if (read_line_at(AT_FDCWD, BOOT_ID_PATH, &s) < 0)
        return NULL;
    if (!*s || strspn(s, "0123456789abcdef-") != strlen(s)) {
        free(s);
        return NULL;
    }
    return s;
}

/* What the run waits for: "reboot", "relogin", or NULL when every change
 * counted at once. Commands deferred to the first boot of a root count as
 * a reboot, as they do for the results of fix --apply. */
static const char *run_needs(json_object *j)
{
    bool reboot = false, relogin = false;
    json_object *steps = rd_json_get_array(j, "steps");
    for (size_t i = 0; steps && i < json_object_array_length(steps); i++) {
        const char *e = rd_json_get_str(json_object_array_get_idx(steps, i), "effect");
        reboot |= streq_ptr(e, "reboot");
        relogin |= streq_ptr(e, "relogin");
    }
    json_object *cmds = rd_json_get_array(j, "commands");
    for (size_t i = 0; cmds && i < json_object_array_length(cmds); i++)
        reboot |= streq_ptr(rd_json_get_str(json_object_array_get_idx(cmds, i), "when"), "first-boot");
    return reboot ? "reboot" : relogin ? "relogin" : NULL;
}

void rd_journal_note_verification(rd_journal *jr)
{
    _cleanup_free_ char *boot = rd_boot_id();
    rd_json_set_str(jr->j, "boot_id", boot);
    const char *needs = run_needs(jr->j);
    if (!needs)
        return;
    json_object *v = json_object_new_object();
    rd_json_set_str(v, "state", RD_VERIFY_PENDING);
    rd_json_set_str(v, "needs", needs);
    json_object_object_add(jr->j, "verification", v);
}

static json_object *verification_of(json_object *j)
{
    json_object *v = NULL;
    if (!json_object_object_get_ex(j, "verification", &v) || !json_object_is_type(v, json_type_object))
        return NULL;
    return v;
}

/* Applied, waiting for its verdict, and what it waits for has happened: a
 * reboot (the boot id differs from the one of the apply), or for a re-login
 * alone, the next boot check: what the check reads (the group database, the
 * device nodes' owners) already shows the change, and no session's groups
 * are visible to it. An unknown boot id on either side is no reboot. */
static bool run_due(json_object *j, const char *boot_id)
{
    json_object *v = verification_of(j);
    if (!v || !streq_ptr(rd_json_get_str(j, "state"), RD_STATE_APPLIED) ||
        !streq_ptr(rd_json_get_str(v, "state"), RD_VERIFY_PENDING))
        return false;
    if (streq_ptr(rd_json_get_str(v, "needs"), "relogin"))
        return true;
    const char *then = rd_json_get_str(j, "boot_id");
    return boot_id && then && !streq(boot_id, then);
}

size_t rd_fix_runs_due(const rd_ctx *ctx, const char *boot_id)
{
    const char *root = ctx->root;
    int root_fd = ctx->root_fd;
    size_t n = 0;
    _cleanup_strv_free_ char **ids = rd_journal_list(root_fd);
    for (size_t i = 0; ids && ids[i]; i++) {
        _cleanup_journal_ rd_journal jr = { 0 };
        if (rd_journal_load(root, root_fd, ids[i], &jr) == 0 && run_due(jr.j, boot_id))
            n++;
    }
    return n;
}

/* The steps of the journal as a plan without actions, each with effect
 * "now": the event it waited for has happened, so a finding the check still
 * reports is still failing. */
static void plan_of_steps(json_object *j, rd_plan *ret)
{
    rd_plan p = { .root = xstrdup("/") };
    json_object *steps = rd_json_get_array(j, "steps");
    for (size_t i = 0; steps && i < json_object_array_length(steps); i++) {
        json_object *js = json_object_array_get_idx(steps, i);
        const char *fix = rd_json_get_str(js, "fix");
        if (!fix)
            continue;
        rd_step *s = rd_plan_add_step(&p, fix, RD_EFFECT_NOW, "%s", strempty(rd_json_get_str(js, "title")));
        _cleanup_strv_free_ char **ids = rd_json_to_strv(rd_json_get_array(js, "findings"));
        for (size_t k = 0; ids && ids[k]; k++)
            rd_step_address(s, ids[k]);
    }
    *ret = p;
}

/* The GPU kernel's part of the verdict: every GPU the runtime offers ran it
 * correctly (runtime.kernel-ok, no runtime error, none left untested), or
 * why not. A warning (hiprtc cannot compile, prebuilt kernels run) does not
 * fail it. */
static json_object *runtime_verdict(const rd_findings *fs, bool ran, bool *ret_failed)
{
    json_object *o = json_object_new_object();
    if (!ran) {
        rd_json_set_str(o, "status", "not-run");
        rd_json_set_str(o, "why", "verify_runtime = no in the configuration");
        *ret_failed = false;
        return o;
    }
    size_t ok = 0;
    const rd_finding *bad = NULL, *other = NULL;
    for (size_t i = 0; i < fs->n; i++) {
        const rd_finding *f = &fs->items[i];
        if (!startswith(f->id, "runtime."))
            continue;
        if (streq(f->id, RD_FINDING(RUNTIME_KERNEL_OK)))
            ok++;
        else if ((f->severity >= RD_SEV_ERROR || streq(f->id, RD_FINDING(RUNTIME_KERNEL_UNTESTED))) && !bad)
            bad = f;
        else if (!other)
            other = f;
    }
    if (bad || ok == 0) {
        const rd_finding *why = bad ? bad : other;
        rd_json_set_str(o, "status", "failed");
        if (why)
            rd_json_set_str(o, "finding", why->id);
        rd_json_set_str(o, "why", why ? why->summary : "no GPU ran the kernel");
        *ret_failed = true;
        return o;
    }
    rd_json_set_str(o, "status", "ok");
    rd_json_set_int(o, "gpus", (int64_t)ok);
    *ret_failed = false;
    return o;
}

/* One line for the journal entry: what was fixed and what was not. */
static char *outcome_message(const char *run_id, bool failed, json_object *results, json_object *runtime)
{
    strbuf b = { 0 };
    strbuf_printf(&b, "fix run %s %s", run_id, failed ? "failed verification" : "verified");
    const char *sep = ": ";
    for (size_t i = 0; i < json_object_array_length(results); i++) {
        json_object *x = json_object_array_get_idx(results, i);
        const char *why = rd_json_get_str(x, "why");
        bool fixed = streq_ptr(rd_json_get_str(x, "status"), "fixed");
        strbuf_printf(&b, "%s%s %s%s%s%s", sep, strempty(rd_json_get_str(x, "finding")),
                      fixed ? "fixed" : "still failing", why && !fixed ? " (" : "", why && !fixed ? why : "",
                      why && !fixed ? ")" : "");
        sep = "; ";
    }
    const char *rs = rd_json_get_str(runtime, "status");
    if (streq_ptr(rs, "ok"))
        strbuf_printf(&b, "%sGPU kernel ok on %" PRId64 " GPU%s", sep, rd_json_get_int(runtime, "gpus", 0),
                      rd_json_get_int(runtime, "gpus", 0) == 1 ? "" : "s");
    else if (streq_ptr(rs, "failed"))
        strbuf_printf(&b, "%sGPU kernel failed (%s)", sep, strempty(rd_json_get_str(runtime, "why")));
    return strbuf_steal(&b);
}

/* The verdict on one due run, written into its journal. */
static int verify_one(rd_journal *jr, const rd_verify_input *in, rd_verify_outcome *ret)
{
    _cleanup_plan_ rd_plan p = { 0 };
    plan_of_steps(jr->j, &p);
    _cleanup_fix_results_ rd_fix_results res = { 0 };
    rd_fix_classify(&p, in->findings, false, &res);
    bool runtime_failed = false;
    json_object *runtime = runtime_verdict(in->findings, in->runtime, &runtime_failed);
    json_object *results = rd_fix_results_to_json(&res);
    bool failed = res.failing || runtime_failed;
    _cleanup_free_ char *now = rd_now_iso();
    json_object *v = verification_of(jr->j);
    rd_json_set_str(v, "state", failed ? RD_VERIFY_FAILED : RD_VERIFY_VERIFIED);
    rd_json_set_str(v, "time", now);
    rd_json_set_str(v, "boot_id", in->boot_id);
    json_object_object_add(v, "results", results);
    json_object_object_add(v, "runtime", runtime);
    int r = rd_journal_save(jr);
    if (r < 0)
        return r;
    *ret = (rd_verify_outcome){
        .run_id = xstrdup(jr->run_id),
        .verified = !failed,
        .message = outcome_message(jr->run_id, failed, results, runtime),
    };
    return 0;
}

int rd_fix_runs_verify(const rd_ctx *ctx, const rd_verify_input *in, rd_verify_outcome **ret, size_t *ret_n,
                       char **ret_error)
{
    const char *root = ctx->root;
    int root_fd = ctx->root_fd;
    _cleanup_close_ int lock = rd_journal_lock(root, root_fd, ret_error);
    if (lock < 0)
        return lock;
    rd_verify_outcome *out = NULL;
    size_t n = 0;
    strbuf problems = { 0 };
    _cleanup_strv_free_ char **ids = rd_journal_list(root_fd);
    for (size_t i = 0; ids && ids[i]; i++) {
        _cleanup_journal_ rd_journal jr = { 0 };
        if (rd_journal_load(root, root_fd, ids[i], &jr) < 0 || !run_due(jr.j, in->boot_id))
            continue;
        rd_verify_outcome o;
        int r = verify_one(&jr, in, &o);
        if (r < 0) {
            _cleanup_free_ char *d = rd_root_shown(root, jr.dir);
            strbuf_printf(&problems, "%scannot write %s/journal.json: %s", problems.len ? "; " : "", d,
                          rd_fix_describe_error(-r));
            continue;
        }
        *ARRAY_APPEND(out, n) = o;
    }
    *ret = out;
    *ret_n = n;
    if (problems.len) {
        *ret_error = strbuf_steal(&problems);
        return -EIO;
    }
    return 0;
}

void rd_verify_outcomes_free(rd_verify_outcome *o, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        free(o[i].run_id);
        free(o[i].message);
    }
    free(o);
}

/* ---- the runs as the outputs show them ---- */

static json_object *copy_or_null(json_object *j, const char *key)
{
    json_object *v = NULL;
    if (!json_object_object_get_ex(j, key, &v) || !v)
        return NULL;
    json_object *copy = NULL;
    return json_object_deep_copy(v, &copy, NULL) == 0 ? copy : NULL;
}

/* What the run changed: files written and removed, group changes,
 * commands, and the packages when the journal has them. */
static json_object *run_changes(json_object *j)
{
    json_object *c = json_object_new_object(), *written = json_object_new_array(), *removed = json_object_new_array();
    json_object *files = rd_json_get_array(j, "files");
    for (size_t i = 0; files && i < json_object_array_length(files); i++) {
        json_object *jf = json_object_array_get_idx(files, i);
        const char *path = rd_json_get_str(jf, "path");
        if (!path || rd_is_group_file(path))
            continue; /* the group changes say it better */
        bool existed = rd_json_get_bool(jf, "existed");
        json_object *after = NULL;
        if (!json_object_object_get_ex(jf, "after_exists", &after))
            continue; /* the apply did not finish */
        if (json_object_get_boolean(after))
            json_object_array_add(written, json_object_new_string(path));
        else if (existed)
            json_object_array_add(removed, json_object_new_string(path));
    }
    json_object_object_add(c, "files_written", written);
    json_object_object_add(c, "files_removed", removed);
    json_object *groups = copy_or_null(j, "groups"), *cmds = copy_or_null(j, "commands");
    json_object_object_add(c, "groups", groups ? groups : json_object_new_array());
    json_object_object_add(c, "commands", cmds ? cmds : json_object_new_array());
    json_object *packages = copy_or_null(j, "packages");
    if (packages)
        json_object_object_add(c, "packages", packages);
    return c;
}

static json_object *run_json(json_object *j)
{
    json_object *o = json_object_new_object();
    rd_json_set_str(o, "run_id", rd_json_get_str(j, "run_id"));
    rd_json_set_str(o, "state", rd_json_get_str(j, "state"));
    rd_json_set_str(o, "root", rd_json_get_str(j, "root"));
    rd_json_set_str(o, "created", rd_json_get_str(j, "created"));
    rd_json_set_str(o, "applied", rd_json_get_str(j, "applied"));
    rd_json_set_str(o, "boot_id", rd_json_get_str(j, "boot_id"));
    json_object *steps = copy_or_null(j, "steps");
    json_object_object_add(o, "steps", steps ? steps : json_object_new_array());
    json_object_object_add(o, "changes", run_changes(j));
    json_object_object_add(o, "verification", copy_or_null(j, "verification"));
    return o;
}

/* The verdict state of an applied run that waited for one, else NULL. */
static const char *counted_state(json_object *j)
{
    json_object *v = verification_of(j);
    if (!v || !streq_ptr(rd_json_get_str(j, "state"), RD_STATE_APPLIED))
        return NULL;
    return rd_json_get_str(v, "state");
}

int rd_fix_runs_json(const rd_ctx *ctx, const char *only, size_t max, json_object **ret)
{
    const char *root = ctx->root;
    int root_fd = ctx->root_fd;
    int64_t pending = 0, verified = 0, failed = 0;
    bool found = false;
    json_object *runs = json_object_new_array();
    _cleanup_strv_free_ char **ids = rd_journal_list(root_fd);
    for (size_t i = 0; ids && ids[i]; i++) {
        _cleanup_journal_ rd_journal jr = { 0 };
        if (rd_journal_load(root, root_fd, ids[i], &jr) < 0)
            continue;
        const char *s = counted_state(jr.j);
        pending += streq_ptr(s, RD_VERIFY_PENDING);
        verified += streq_ptr(s, RD_VERIFY_VERIFIED);
        failed += streq_ptr(s, RD_VERIFY_FAILED);
        if (only ? streq(only, ids[i]) : json_object_array_length(runs) < max) {
            json_object_array_add(runs, run_json(jr.j));
            found = true;
        }
    }
    if (only && !found) {
        json_object_put(runs);
        return -ENOENT;
    }
    json_object *o = json_object_new_object();
    rd_json_set_int(o, "pending", pending);
    rd_json_set_int(o, "verified", verified);
    rd_json_set_int(o, "failed", failed);
    json_object_object_add(o, "runs", runs);
    *ret = o;
    return 0;
}
