/* SPDX-License-Identifier: MIT */
/* fleet: judge many nodes together. The nodes' reports come from a folder
 * (--from DIR: saved `check --json` reports, or facts files diagnosed here
 * as `check --facts` would), a parallel shell (--hosts: clush, pdsh or
 * ssh) or Slurm (--slurm: srun, one task per node); the core groups them
 * by cause and finds the drift among nodes with the same GPUs; a renderer
 * of src/report prints it. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "cli.h"
#include "fixes.h"
#include "fleet.h"
#include "json-util.h"
#include "registry.h"
#include "report-fleet.h"
#include "util.h"

/* The largest report or facts file read. */
#define MAX_NODE_FILE (64u << 20)

/* A facts file diagnosed here with the pipeline of check --facts, its
 * report reduced to a node, with the properties only facts carry. */
static int node_from_facts(const rd_options *o, const char *path, const char *name, rd_fleet_node *ret,
                           char **ret_error)
{
    _cleanup_strv_free_ char **fix_ids = rd_fix_table_ids(&rd_fix_registry);
    const rd_run_params p = {
        .probes = &rd_probe_registry,
        .fix_ids = fix_ids,
        .facts_file = path,
        .config_file = o->config_file,
        .user = o->user,
    };
    rd_run run;
    _cleanup_free_ char *err = NULL;
    int e = rd_run_check(&p, &run, &err);
    if (e < 0) {
        *ret_error = xasprintf("facts file could not be diagnosed: %s", err ? err : errno_name(-e));
        rd_run_free(&run);
        return e;
    }
    _cleanup_json_ json_object *report = rd_report_json(&run.facts, &run.view, &run.findings, run.level);
    int r = rd_fleet_node_from_report(report, name, ret, ret_error);
    if (r == 0)
        rd_fleet_node_add_facts(ret, &run.facts);
    rd_run_free(&run);
    return r;
}

int rd_cli_fleet_node_from_text(const rd_options *o, const char *text, size_t size, const char *path, const char *name,
                                rd_fleet_node *ret)
{
    _cleanup_free_ char *err = NULL;
    json_tokener *tok = json_tokener_new();
    _cleanup_json_ json_object *j = json_tokener_parse_ex(tok, text, (int)size);
    enum json_tokener_error jerr = json_tokener_get_error(tok);
    json_tokener_free(tok);
    if (!j || jerr != json_tokener_success) {
        rd_fleet_node_unreachable(ret, name, size ? "not a rocm-doctor report: not JSON" : "no report: empty output");
        return 0;
    }
    const char *schema = rd_json_get_str(j, "schema");
    int r;
    if (schema && streq(schema, RD_FACTS_SCHEMA) && path)
        r = node_from_facts(o, path, name, ret, &err);
    else
        r = rd_fleet_node_from_report(j, name, ret, &err);
    if (r < 0)
        rd_fleet_node_unreachable(ret, name, err ? err : "not a rocm-doctor report");
    return 0;
}

/* The node's name from its file's: without a final ".json". */
static char *name_of_file(const char *file)
{
    size_t n = strlen(file);
    if (n > 5 && endswith(file, ".json"))
        n -= 5;
    return xstrndup(file, n);
}

int rd_cli_fleet_from_dir(const rd_options *o, const char *dir, rd_fleet *fleet)
{
    _cleanup_close_ int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0)
        return rd_fail("--from %s: %s", dir, errno_name(errno));
    int e = 0;
    _cleanup_strv_free_ char **names = dir_names(fd, dir_name_visible, NULL, &e);
    if (e < 0)
        return rd_fail("--from %s: %s", dir, errno_name(-e));
    for (char **f = names; f && *f; f++) {
        _cleanup_free_ char *name = name_of_file(*f);
        _cleanup_free_ char *text = NULL;
        size_t size = 0;
        rd_fleet_node node;
        int r = read_file_at(fd, *f, MAX_NODE_FILE, &text, &size);
        if (r < 0) {
            _cleanup_free_ char *why = xasprintf("cannot read %s: %s", *f, errno_name(-r));
            rd_fleet_node_unreachable(&node, name, why);
        } else {
            _cleanup_free_ char *path = xasprintf("%s/%s", dir, *f);
            rd_cli_fleet_node_from_text(o, text, size, path, name, &node);
        }
        rd_fleet_add(fleet, &node);
    }
    return 0;
}

/* The fleet in the chosen format on stdout, and as HTML to --html FILE. */
static int render(const rd_options *o, const rd_fleet *fleet)
{
    rd_fleet_analysis a;
    rd_fleet_analyse(fleet, &a);
    int e = 0;
    switch (o->format) {
    case RD_FORMAT_JSON: e = rd_cli_print_json(rd_report_fleet_json(fleet, &a)); break;
    case RD_FORMAT_PROMETHEUS: e = rd_report_fleet_prometheus(stdout, fleet, &a); break;
    default:
        e = rd_report_fleet_text(stdout, fleet, &a, o->format == RD_FORMAT_TEXT && rd_cli_want_color(o->color));
        break;
    }
    int status = a.exit_status;
    if (e < 0)
        status = rd_fail("cannot write to standard output: %s", errno_name(-e));
    if (o->html) {
        _cleanup_free_ char *tmp = xasprintf("%s.tmp-XXXXXX", o->html);
        int fd = mkostemp(tmp, O_CLOEXEC);
        FILE *f = fd >= 0 ? fdopen(fd, "we") : NULL;
        if (!f) {
            if (fd >= 0)
                close(fd);
            status = rd_fail("--html %s: %s", o->html, errno_name(errno));
        } else {
            (void)fchmod(fd, 0644);
            e = rd_report_fleet_html(f, fleet, &a);
            if (fsync(fileno(f)) < 0 && e == 0)
                e = -errno;
            if (fclose(f) != 0 && e == 0)
                e = -EIO;
            if (e == 0 && rename(tmp, o->html) < 0)
                e = -errno;
            if (e < 0) {
                unlink(tmp);
                status = rd_fail("--html %s: %s", o->html, errno_name(-e));
            }
        }
    }
    rd_fleet_analysis_free(&a);
    return status;
}

int rd_verb_fleet(const rd_options *o, char **args, size_t n_args)
{
    if (o->hosts && o->slurm)
        return rd_usage_error("%s", "--hosts and --slurm are two ways to reach the nodes; give one of them");
    if (!o->from && !o->hosts && !o->slurm)
        return rd_usage_error("%s", "fleet needs --from DIR, --hosts NODESET or --slurm");
    if (o->format_set && o->format == RD_FORMAT_NFD)
        return rd_usage_error("%s", "fleet prints text, json or prometheus (and HTML with --html FILE)");
    if ((o->nodes || o->partition) && !o->slurm)
        return rd_usage_error("%s", "--nodes and --partition are options of --slurm");
    if (o->slurm && !o->nodes && !o->partition)
        return rd_usage_error("%s", "--slurm needs --nodes NODELIST or --partition P");
    rd_fleet fleet = { 0 };
    int r = 0;
    /* --from with --hosts or --slurm: the saved nodes and the live ones */
    if (o->from)
        r = rd_cli_fleet_from_dir(o, o->from, &fleet);
    if (r == 0 && (o->hosts || o->slurm))
        r = rd_cli_fleet_remote(o, &fleet);
    if (r == 0) {
        rd_fleet_sort(&fleet);
        r = render(o, &fleet);
    }
    rd_fleet_free(&fleet);
    return r;
}
