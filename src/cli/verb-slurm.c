/* SPDX-License-Identifier: MIT */
/* slurm health: the node's health check for Slurm's HealthCheckProgram.
 * Takes the boot check's or the daemon's status when it is fresh, else runs
 * the level-1 check, then drains the node with the error ids as the reason,
 * resumes a node it drained itself once the errors are gone, and leaves a
 * node someone else drained alone. slurm prolog and epilog: a job's GPUs
 * checked, their counters compared. What is decided and kept is in
 * src/slurm/ (slurm-node.c, slurm-job.c); this file parses, calls and says. */
#include <fcntl.h>
#include <time.h>
#include "cli.h"
#include "config.h"
#include "explain.h"
#include "fix.h"
#include "fixes.h"
#include "registry.h"
#include "slurm-job.h"
#include "slurm-node.h"
#include "util.h"

/* This node's name, exactly one (scontrol takes a list, or a range, where
 * it takes a name); NULL, said on stderr, when there is none. */
static char *slurm_node_name(void)
{
    const char *env = secure_getenv("SLURMD_NODENAME");
    if (env && *env) {
        if (!rd_slurm_node_name_valid(env)) {
            rd_msg_error("rocm-doctor",
                         "SLURMD_NODENAME is not one node name (letters, digits, '-', '_' and '.'; no list or "
                         "range): \"%s\"",
                         env);
            return NULL;
        }
        return xstrdup(env);
    }
    char buf[256] = { 0 };
    if (gethostname(buf, sizeof(buf) - 1) < 0)
        buf[0] = 0;
    buf[strcspn(buf, ".")] = 0;
    if (!rd_slurm_node_name_valid(buf)) {
        rd_msg_error("rocm-doctor", "%s", "cannot tell this node's name: set SLURMD_NODENAME");
        return NULL;
    }
    return xstrdup(buf);
}

/* The status file's verdict (rd_slurm_status_verdict), as the
 * configuration names it; -ENOENT when it names none. *ret_path: the file,
 * whenever it exists. */
static int status_file_verdict(const rd_options *o, char ***ret_ids, char **ret_path)
{
    rd_config config;
    _cleanup_free_ char *err = NULL;
    _cleanup_strv_free_ char **fix_ids = rd_fix_table_ids(&rd_fix_registry);
    const rd_config_ids ids = { .probes = &rd_probe_registry, .fix_ids = fix_ids };
    _cleanup_ctx_ rd_ctx ctx;
    int r = rd_ctx_open_root(&ctx, o->root, &err);
    if (r < 0)
        return r;
    r = rd_config_load(&ids, ctx.root, o->config_file, &config, &err);
    if (r < 0)
        return r;
    _cleanup_free_ char *path = xstrdup_or_null(config.status_file);
    rd_config_free(&config);
    if (!path || !*path)
        return -ENOENT;
    bool opened;
    r = rd_slurm_status_verdict(ctx.root_fd, path, time(NULL), ret_ids, &opened);
    if (opened)
        *ret_path = TAKE_PTR(path);
    return r;
}

/* The level-1 check now (or --facts); 3 when it could not run. */
static int check_verdict(const rd_options *o, char ***ret_ids)
{
    rd_options co = *o;
    if (co.level == 0)
        co.level = 1;
    rd_run run;
    int r = rd_cli_run_diagnosis(&co, &run);
    if (r == 0) {
        r = rd_findings_exit_status(&run.findings);
        for (size_t i = 0; i < run.findings.n; i++)
            if (run.findings.items[i].severity == RD_SEV_ERROR)
                *ret_ids = strv_push(*ret_ids, xstrdup(run.findings.items[i].id));
    }
    rd_run_free(&run);
    return r;
}

static int scontrol(const char *const *argv, char **ret_output)
{
    _cleanup_free_ char *out = NULL;
    int r = rd_fix_spawn_within((char *const *)argv, RD_SLURM_SCONTROL_TIMEOUT_S, &out);
    if (r != 0) {
        _cleanup_free_ char *cmd = rd_argv_join((char *const *)argv);
        if (r == -ETIME)
            return rd_fail("%s did not finish within %d seconds: ended", cmd, RD_SLURM_SCONTROL_TIMEOUT_S);
        if (r < 0)
            return rd_fail("cannot run %s: %s", cmd, errno_name(-r));
        return rd_fail("%s exited with status %d: %s", cmd, r, strempty(out));
    }
    if (ret_output)
        *ret_output = TAKE_PTR(out);
    return 0;
}

static int parse_on_unknown(const char *arg, rd_slurm_on_unknown *ret)
{
    if (!arg || streq(arg, "drain"))
        *ret = RD_SLURM_UNKNOWN_DRAIN;
    else if (streq(arg, "keep"))
        *ret = RD_SLURM_UNKNOWN_KEEP;
    else
        return rd_usage_error("--on-unknown must be drain or keep, not \"%s\"", arg);
    return 0;
}

/* This node's State= and Reason= from `scontrol show node`; 0 or 3. */
static int read_node(const char *node, rd_slurm_node_state *ret)
{
    _cleanup_free_ char *shown = NULL;
    const char *const argv[] = { "scontrol", "show", "node", node, NULL };
    if (scontrol(argv, &shown) != 0)
        return RD_EXIT_UNKNOWN;
    if (rd_slurm_node_state_parse(shown, ret) < 0)
        return rd_fail("scontrol show node %s: no State= in its output", node);
    return 0;
}

/* After a resume: where Slurm kept rocm-doctor's reason on the node it
 * resumed (rd_slurm_reason_kept), replaces it with RD_SLURM_REASON_RESUMED,
 * which no later run takes for its own drain; 0 or 3. */
static int replace_kept_reason(const char *node, const char *nodearg)
{
    rd_slurm_node_state after = { 0 };
    int r = read_node(node, &after);
    if (r == 0 && rd_slurm_reason_kept(&after)) {
        const char *const argv[] = { "scontrol", "update", nodearg, "reason=" RD_SLURM_REASON_RESUMED, NULL };
        if (scontrol(argv, NULL) != 0)
            r = RD_EXIT_UNKNOWN;
    }
    rd_slurm_node_state_done(&after);
    return r;
}

/* Carries out the decision; 0, or 3 when scontrol failed. */
static int act(const char *node, rd_slurm_action a, const char *reason, const rd_slurm_node_state *st)
{
    _cleanup_free_ char *nodearg = xasprintf("nodename=%s", node);
    _cleanup_free_ char *reasonarg = reason ? xasprintf("reason=%s", reason) : NULL;
    switch (a) {
    case RD_SLURM_DRAIN: {
        const char *const argv[] = { "scontrol", "update", nodearg, "state=drain", reasonarg, NULL };
        if (scontrol(argv, NULL) != 0)
            return RD_EXIT_UNKNOWN;
        printf("%s: drained (%s)\n", node, reason);
        return 0;
    }
    case RD_SLURM_RESUME: {
        const char *const argv[] = { "scontrol", "update", nodearg, "state=resume", NULL };
        if (scontrol(argv, NULL) != 0)
            return RD_EXIT_UNKNOWN;
        printf("%s: resumed (was: %s)\n", node, st->reason);
        return replace_kept_reason(node, nodearg);
    }
    case RD_SLURM_KEEP:
        printf("%s: %s%s%s%s\n", node, st->state, st->reason ? " (" : "", strempty(st->reason), st->reason ? ")" : "");
        return 0;
    }
    return 0;
}

/* The level-1 check (or --facts) with its facts and view; 0 or 3. */
static int check_run(const rd_options *o, rd_run *run)
{
    rd_options co = *o;
    if (co.level == 0)
        co.level = 1;
    int r = rd_cli_run_diagnosis(&co, run);
    if (r != 0)
        rd_run_free(run);
    return r;
}

/* Reads this node's state with scontrol, decides and acts: drains (with
 * the ids as the reason), resumes (only what rocm-doctor drained) or leaves
 * the node. Returns 0 or an exit status. */
static int decide_and_act(int status, char *const *ids, rd_slurm_on_unknown on_unknown)
{
    _cleanup_free_ char *node = slurm_node_name();
    if (!node)
        return RD_EXIT_UNKNOWN;
    rd_slurm_node_state st = { 0 };
    if (read_node(node, &st) != 0)
        return RD_EXIT_UNKNOWN;
    _cleanup_free_ char *reason = NULL;
    rd_slurm_action a = rd_slurm_decide(status, ids, on_unknown, &st, &reason);
    int r = act(node, a, reason, &st);
    rd_slurm_node_state_done(&st);
    return r;
}

/* Drains this node with the ids as the reason, unless someone else drained it. */
static int drain_for(char *const *ids)
{
    return decide_and_act(2, ids, RD_SLURM_UNKNOWN_DRAIN);
}

static int slurm_health(const rd_options *o)
{
    rd_slurm_on_unknown on_unknown;
    if (parse_on_unknown(o->on_unknown, &on_unknown) != 0)
        return RD_EXIT_UNKNOWN;
    _cleanup_free_ char *node = slurm_node_name();
    if (!node)
        return RD_EXIT_UNKNOWN;
    _cleanup_strv_free_ char **ids = NULL;
    _cleanup_free_ char *status_path = NULL;
    int status = o->facts_file ? -ENOENT : status_file_verdict(o, &ids, &status_path);
    if (status_path && (status == -EPERM || status == -EINVAL)) {
        /* a status file that is there but is no verdict: the check cannot run */
        rd_msg_error("rocm-doctor", "%s is not a verdict (%s): the check cannot run", status_path,
                     status == -EPERM ? "not owned by root alone" : "not a report with valid finding ids");
        strv_free(TAKE_PTR(ids));
        status = RD_EXIT_UNKNOWN;
    } else if (status < 0) {
        strv_free(TAKE_PTR(ids));
        status = check_verdict(o, &ids);
    } else
        fprintf(stderr, "rocm-doctor: the verdict of %s\n", status_path);
    int r = decide_and_act(status, ids, on_unknown);
    if (fflush(stdout) != 0)
        return rd_fail("%s", "cannot write to standard output");
    return r != 0 ? r : status;
}

/* SLURM_JOB_ID, checked: it becomes a directory name. */
static int job_id(const char **ret)
{
    const char *job = secure_getenv("SLURM_JOB_ID");
    if (!rd_slurm_job_id_valid(job))
        return rd_fail("SLURM_JOB_ID is %s: run this as Slurm's Prolog or Epilog", job ? "not a job id" : "not set");
    *ret = job;
    return 0;
}

/* The errors that concern the job: about one of its GPUs, or about no
 * particular GPU (the driver, /dev/kfd). Says each on stderr; returns 1 when
 * there are any. */
static int job_errors(const char *job, const rd_findings *fs, char *const *gpus)
{
    int r = 0;
    for (size_t i = 0; i < fs->n; i++) {
        const rd_finding *fd = &fs->items[i];
        if (fd->severity != RD_SEV_ERROR || (fd->gpu && !strv_contains(gpus, fd->gpu)))
            continue;
        fprintf(stderr, "rocm-doctor: job %s refused: %s%s%s: %s\n", job, strempty(fd->gpu), fd->gpu ? ": " : "",
                fd->id, fd->summary);
        r = 1;
    }
    return r;
}

/* The prolog: the job's GPUs only; a job whose GPUs have errors does not
 * start. A job without GPUs is not checked. */
static int slurm_prolog(const rd_options *o)
{
    const char *job;
    if (job_id(&job) != 0)
        return RD_EXIT_UNKNOWN;
    rd_run run;
    if (check_run(o, &run) != 0)
        return RD_EXIT_UNKNOWN;
    _cleanup_strv_free_ char **gpus = NULL;
    _cleanup_free_ char *err = NULL;
    const rd_slurm_job_env env = { secure_getenv("SLURM_JOB_GPUS"), secure_getenv("ROCR_VISIBLE_DEVICES"),
                                   secure_getenv("GPU_DEVICE_ORDINAL") };
    int r = 0;
    if (rd_slurm_job_gpus(&run.facts, &run.view, &run.ctx.knowledge, &env, &gpus, &err) < 0) {
        fprintf(stderr, "rocm-doctor: job %s refused: %s\n", job, err);
        r = 1;
    } else if (gpus && (r = job_errors(job, &run.findings, gpus)) == 0) {
        /* only a job that starts has an epilog to compare */
        json_object *c = rd_slurm_counters_json(&run.facts, job, gpus);
        _cleanup_free_ char *dir = rd_slurm_job_state_dir(job), *what = NULL;
        int e = rd_slurm_counters_save(dir, c, &what);
        json_object_put(c);
        if (e < 0)
            r = rd_fail("cannot %s %s: %s", streq(what, dir) ? "create" : "write", what, errno_name(-e));
    }
    rd_run_free(&run);
    return r;
}

/* The epilog: drains the node when a GPU's counters grew during the job. */
static int slurm_epilog(const rd_options *o)
{
    const char *job;
    if (job_id(&job) != 0)
        return RD_EXIT_UNKNOWN;
    _cleanup_free_ char *dir = rd_slurm_job_state_dir(job);
    _cleanup_free_ char *path = xasprintf("%s/counters.json", dir);
    json_object *saved = NULL;
    int r = rd_slurm_counters_load(dir, &saved);
    if (r == -ENOENT)
        return 0; /* no GPUs, or no prolog: nothing to compare */
    if (r < 0 && r != -EBADMSG) {
        /* damaged or not a file: removed all the same, as the next job of
         * this id must not compare with it */
        rd_msg_error("rocm-doctor", "cannot read %s: %s (removed)", path, errno_name(-r));
        rd_slurm_counters_drop(dir);
        return RD_EXIT_UNKNOWN;
    }
    rd_run run;
    r = !saved ? rd_fail("%s: not JSON", path) : check_run(o, &run) != 0 ? RD_EXIT_UNKNOWN : 0;
    _cleanup_strv_free_ char **ids = NULL, **evidence = NULL;
    if (saved && r == 0) {
        rd_slurm_counters_grown(saved, &run.facts, &ids, &evidence);
        rd_run_free(&run);
    }
    json_object_put(saved);
    for (char **e = evidence; e && *e; e++)
        fprintf(stderr, "rocm-doctor: job %s: %s\n", job, *e);
    if (r == 0 && ids)
        r = drain_for(ids);
    rd_slurm_counters_drop(dir);
    return r;
}

int rd_verb_slurm(const rd_options *o, char **args, size_t n_args)
{
    if (streq(args[0], "health"))
        return slurm_health(o);
    if (o->on_unknown)
        return rd_usage_error("--on-unknown is an option of slurm health, not slurm %s", args[0]);
    if (streq(args[0], "prolog"))
        return slurm_prolog(o);
    if (streq(args[0], "epilog"))
        return slurm_epilog(o);
    return rd_usage_error("unknown slurm mode \"%s\" (the modes are health, prolog and epilog)", args[0]);
}
