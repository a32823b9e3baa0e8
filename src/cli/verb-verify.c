/* SPDX-License-Identifier: MIT */
/* verify: level 2 on every GPU, reported as a per-GPU table. */
#include <stdio.h>
#include "cli.h"
#include "report-runtime.h"
#include "run.h"
#include "util.h"

int rd_verb_verify(const rd_options *o, char **args, size_t n_args)
{
    if (o->level == 1)
        return rd_usage_error("%s", "verify always runs level 2; use check --level 1 for the static checks");
    rd_options vo = *o;
    vo.level = 2;
    rd_run run;
    int r = rd_cli_run_check(&vo, &run);
    if (r == 0 && !run.facts.runtime.ran)
        r = rd_fail("%s holds no level-2 results; gather them with rocm-doctor facts --level 2",
                    o->facts_file ? o->facts_file : "the facts");
    if (r == 0 && vo.format == RD_FORMAT_TEXT) {
        rd_report_verify_text(stdout, &run.facts, &run.view, &run.findings, rd_cli_want_color(o->color));
        r = fflush(stdout) != 0 || ferror(stdout) ? rd_fail("cannot write the report: %s", errno_name(EIO))
                                                  : rd_findings_exit_status(&run.findings);
    } else if (r == 0)
        r = rd_cli_render(&vo, &run, stdout);
    rd_run_free(&run);
    return r;
}
