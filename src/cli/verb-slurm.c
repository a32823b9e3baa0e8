/* SPDX-License-Identifier: MIT */
/* slurm health: the node's health check for Slurm's HealthCheckProgram.
 * Takes the boot check's or the daemon's status when it is fresh, else runs
 * the level-1 check, then drains the node with the error ids as the reason,
 * resumes a node it drained itself once the errors are gone, and leaves a
 * node someone else drained alone. */
#include <fcntl.h>
#include <sys/stat.h>
#include <time.h>
#include "cli.h"
#include "config.h"
#include "fix.h"
#include "fixes.h"
#include "json-util.h"
#include "registry.h"
#include "rootfs.h"
#include "slurm-node.h"
#include "util.h"

/* A status older than this is not taken as the node's health. */
#define STATUS_MAX_AGE_S 600

static char *slurm_node_name(void)
{
    const char *env = secure_getenv("SLURMD_NODENAME");
    if (env && *env)
        return xstrdup(env);
    char buf[256] = { 0 };
    if (gethostname(buf, sizeof(buf) - 1) < 0)
        return NULL;
    buf[strcspn(buf, ".")] = 0;
    return *buf ? xstrdup(buf) : NULL;
}

/* The findings of a report (status.json or a fresh check's JSON): the exit
 * status they make and the error ids. */
static int verdict_of_report(json_object *report, char ***ret_ids)
{
    json_object *findings;
    if (!json_object_object_get_ex(report, "findings", &findings) || !json_object_is_type(findings, json_type_array))
        return -EINVAL;
    int status = 0;
    for (size_t i = 0; i < json_object_array_length(findings); i++) {
        json_object *f = json_object_array_get_idx(findings, i);
        const char *sev = rd_json_get_str(f, "severity"), *id = rd_json_get_str(f, "id");
        if (!sev || !id)
            return -EINVAL;
        if (streq(sev, "error")) {
            status = 2;
            *ret_ids = strv_push(*ret_ids, xstrdup(id));
        } else if (streq(sev, "warning") && status < 1)
            status = 1;
    }
    return status;
}

/* The status file's verdict when it was written in the last
 * STATUS_MAX_AGE_S seconds; -ESTALE when older. */
static int status_file_verdict(const rd_options *o, char ***ret_ids, char **ret_path)
{
    rd_config config;
    _cleanup_free_ char *err = NULL;
    _cleanup_strv_free_ char **fix_ids = rd_fix_table_ids(&rd_fix_registry);
    const rd_config_ids ids = { .probes = &rd_probe_registry, .fix_ids = fix_ids };
    int r = rd_config_load(&ids, o->root, o->config_file, &config, &err);
    if (r < 0)
        return r;
    _cleanup_free_ char *path = xstrdup_or_null(config.status_file);
    rd_config_free(&config);
    if (!path || !*path)
        return -ENOENT;
    _cleanup_close_ int root_fd = open(o->root ? o->root : "/", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    struct stat st;
    _cleanup_close_ int fd = root_fd < 0 ? -errno : rootfs_open_regular(root_fd, path, ROOTFS_IN_ROOT, &st);
    if (fd < 0)
        return fd;
    if (st.st_mtime < time(NULL) - STATUS_MAX_AGE_S)
        return -ESTALE;
    _cleanup_free_ char *text = NULL;
    size_t size;
    if ((r = read_fd_sized(fd, &st, 64u << 20, &text, &size)) < 0)
        return r;
    json_object *j = json_tokener_parse(text);
    r = j ? verdict_of_report(j, ret_ids) : -EINVAL;
    json_object_put(j);
    if (r >= 0)
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
    int r = rd_cli_run_check(&co, &run);
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
    int r = rd_fix_spawn((char *const *)argv, &out);
    if (r != 0) {
        _cleanup_free_ char *cmd = rd_argv_join((char *const *)argv);
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
        return 0;
    }
    case RD_SLURM_KEEP:
        printf("%s: %s%s%s%s\n", node, st->state, st->reason ? " (" : "", strempty(st->reason),
               st->reason ? ")" : "");
        return 0;
    }
    return 0;
}

static int slurm_health(const rd_options *o)
{
    rd_slurm_on_unknown on_unknown;
    if (parse_on_unknown(o->on_unknown, &on_unknown) != 0)
        return RD_EXIT_UNKNOWN;
    _cleanup_free_ char *node = slurm_node_name();
    if (!node)
        return rd_fail("%s", "cannot tell this node's name: set SLURMD_NODENAME");
    _cleanup_strv_free_ char **ids = NULL;
    _cleanup_free_ char *status_path = NULL;
    int status = o->facts_file ? -ENOENT : status_file_verdict(o, &ids, &status_path);
    if (status < 0) {
        strv_free(TAKE_PTR(ids));
        status = check_verdict(o, &ids);
    } else
        fprintf(stderr, "rocm-doctor: the verdict of %s\n", status_path);
    _cleanup_free_ char *shown = NULL;
    const char *const argv[] = { "scontrol", "show", "node", node, NULL };
    if (scontrol(argv, &shown) != 0)
        return RD_EXIT_UNKNOWN;
    rd_slurm_node_state st = { 0 };
    if (rd_slurm_node_state_parse(shown, &st) < 0)
        return rd_fail("scontrol show node %s: no State= in its output", node);
    _cleanup_free_ char *reason = NULL;
    rd_slurm_action a = rd_slurm_decide(status, ids, on_unknown, &st, &reason);
    int r = act(node, a, reason, &st);
    rd_slurm_node_state_done(&st);
    if (fflush(stdout) != 0)
        return rd_fail("%s", "cannot write to standard output");
    return r != 0 ? r : status;
}

int rd_verb_slurm(const rd_options *o, char **args, size_t n_args)
{
    if (n_args == 0)
        return rd_usage_error("%s", "slurm needs a mode: health");
    if (n_args > 1)
        return rd_usage_error("unexpected argument \"%s\"", args[1]);
    if (streq(args[0], "health"))
        return slurm_health(o);
    return rd_usage_error("unknown slurm mode \"%s\" (the modes are health)", args[0]);
}
