/* SPDX-License-Identifier: MIT */
/* undo: reverses an applied fix run (--last or RUN-ID) from its journal.
 * What it prints is rendered by src/report/report-fix.c. */
#include <stdio.h>
#include <unistd.h>
#include "cli.h"
#include "journal.h"
#include "report-fix.h"
#include "util.h"

int rd_verb_undo(const rd_options *o, char **args, size_t n_args)
{
    if (n_args == 1 && o->last)
        return rd_usage_error("%s", "give either --last or a RUN-ID, not both");
    if (o->format_set && o->format != RD_FORMAT_JSON && o->format != RD_FORMAT_TEXT)
        return rd_usage_error("%s", "undo prints text or JSON");
    if (geteuid() != 0)
        return rd_fail("undo needs root: run `sudo rocm-doctor undo`");
    _cleanup_free_ char *err = NULL;
    _cleanup_ctx_ rd_ctx ctx;
    if (rd_ctx_open_root(&ctx, o->root, &err) < 0)
        return rd_fail("%s", err);
    rd_cli_fix_deadlines(o, &ctx, NULL);
    _cleanup_apply_result_ rd_apply_result res = { 0 };
    if (rd_pkg_root_confined(&ctx, &err) < 0)
        return rd_fail("%s", err);
    if (rd_journal_undo(&ctx, n_args ? args[0] : NULL, &res, &err) < 0)
        return rd_fail("%s", err);
    if (o->format == RD_FORMAT_JSON)
        return rd_cli_print_json(rd_report_undo_json(&res)) < 0 ? rd_cli_unwritten("undone", res.run_id, 0) : 0;
    rd_report_undo_text(stdout, ctx.root, &res);
    return fflush(stdout) == 0 && !ferror(stdout) ? 0 : rd_cli_unwritten("undone", res.run_id, 0);
}
