/* SPDX-License-Identifier: MIT */
/* fix --status [RUN]: the applied runs, newest first, each with what it
 * changed and how the boot check verified it. The data is the fix engine's
 * (rd_fix_runs_json, the same object as status.json's "fix_runs"); this
 * file reads it, and src/report/report-fix.c renders it as text. */
#include <stdio.h>
#include "cli.h"
#include "journal.h"
#include "report-fix.h"
#include "util.h"

int rd_verb_fix_status(const rd_options *o, char **args, size_t n_args)
{
    int r;
    if (o->format_set && o->format != RD_FORMAT_JSON && o->format != RD_FORMAT_TEXT)
        return rd_usage_error("%s", "fix --status prints text or JSON");
    const char *only = n_args ? args[0] : NULL;
    _cleanup_free_ char *err = NULL;
    _cleanup_ctx_ rd_ctx ctx;
    if (rd_ctx_open_root(&ctx, o->root, &err) < 0)
        return rd_fail("%s", err);
    const char *root = ctx.root;
    /* an unreadable journal is not an empty one */
    _cleanup_close_ int jfd = rd_fix_open_dir(ctx.root_fd, RD_JOURNAL_DIR, NULL);
    if (jfd < 0 && jfd != -ENOENT)
        return rd_fail("cannot read %s%s: %s%s", root_prefix(root), RD_JOURNAL_DIR, rd_fix_describe_error(-jfd),
                       jfd == -EACCES ? " (the journal is root's: use sudo)" : "");
    json_object *runs = NULL;
    r = rd_fix_runs_json(&ctx, only, SIZE_MAX, &runs);
    if (r == -ENOENT) {
        return rd_fail("no run %s in %s%s", only, root_prefix(root), RD_JOURNAL_DIR);
    }
    if (o->format == RD_FORMAT_JSON)
        return rd_cli_print_json(runs) < 0 ? rd_fail("cannot write to standard output") : 0;
    rd_report_fix_status_text(stdout, rd_cli_want_color(o->color), root, runs, only != NULL);
    json_object_put(runs);
    return fflush(stdout) != 0 || ferror(stdout) ? rd_fail("cannot write to standard output") : 0;
}
