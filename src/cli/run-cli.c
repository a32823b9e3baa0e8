/* SPDX-License-Identifier: MIT */
/* The diagnosis as the verbs run it: options to the core's parameters, its
 * error to a message, and the report in the chosen format. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include "cli.h"
#include "fixes.h"
#include "registry.h"
#include "report.h"
#include "run.h"
#include "util.h"

static int run_check(const rd_options *o, rd_run *r, bool tables_on_first_use)
{
    _cleanup_strv_free_ char **fix_ids = rd_fix_table_ids(&rd_fix_registry);
    const rd_run_params p = {
        .probes = &rd_probe_registry,
        .fix_ids = fix_ids,
        .root = o->root,
        .user = o->user,
        .facts_file = o->facts_file,
        .config_file = o->config_file,
        .level = o->level,
        .with_python = o->with_python,
        .timeout_s = o->timeout_s,
        .python = o->python,
        .rocm_path = o->rocm_path,
        .tables_on_first_use = tables_on_first_use,
    };
    _cleanup_free_ char *err = NULL;
    if (rd_run_check(&p, r, &err) < 0)
        return rd_fail("%s", err ? err : "cannot run the check");
    for (char **w = r->config.warnings; w && *w; w++)
        rd_msg_error("rocm-doctor", "warning: %s", *w);
    return 0;
}

int rd_cli_run_check(const rd_options *o, rd_run *r)
{
    return run_check(o, r, false);
}

int rd_cli_run_diagnosis(const rd_options *o, rd_run *r)
{
    return run_check(o, r, true);
}

void rd_cli_fix_deadlines(const rd_options *o, const rd_ctx *ctx, const rd_config *c)
{
    rd_config loaded;
    rd_config_init(&loaded);
    if (!c) {
        /* undo runs no check: the root's configuration as the fix saw it;
         * a malformed one leaves the defaults (undo must still run) */
        _cleanup_strv_free_ char **fix_ids = rd_fix_table_ids(&rd_fix_registry);
        const rd_config_ids ids = { .probes = &rd_probe_registry, .fix_ids = fix_ids };
        _cleanup_free_ char *err = NULL;
        rd_config_free(&loaded);
        if (rd_config_load(&ids, ctx->root, o->config_file, &loaded, &err) < 0)
            rd_config_init(&loaded);
        c = &loaded;
    }
    rd_fix_deadlines d = { .query_s = c->package_query_timeout_s, .transaction_s = c->package_timeout_s };
    rd_fix_set_deadlines(&d);
    rd_config_free(&loaded);
}

int rd_cli_render(const rd_options *o, const rd_run *r, FILE *out)
{
    const rd_report_input in = {
        .facts = &r->facts,
        .view = &r->view,
        .findings = &r->findings,
        .level = r->level,
        .color = out == stdout && o->format == RD_FORMAT_TEXT && rd_cli_want_color(o->color),
    };
    int e = rd_renderers[o->format].write(out, &in);
    if (e < 0 || fflush(out) != 0 || ferror(out))
        return rd_fail("cannot write the report: %s", errno_name(e < 0 ? -e : EIO));
    return rd_findings_exit_status(&r->findings);
}

/* The run was carried out: a report that cannot be written does not undo
 * that, so the exit status still says what the system is like now. */
int rd_cli_unwritten(const char *what, const char *run_id, int r)
{
    rd_msg_error("rocm-doctor", "cannot write to standard output; run %s was %s all the same", run_id, what);
    return r;
}
