/* SPDX-License-Identifier: MIT */
/* check: diagnose and print the report. facts: print the facts. */
#include <stdio.h>
#include "cli.h"
#include "facts-json.h"
#include "run.h"
#include "util.h"

int rd_verb_check(const rd_options *o, char **args, size_t n_args)
{
    rd_run run;
    int r = rd_cli_run_diagnosis(o, &run);
    if (r == 0)
        r = rd_cli_render(o, &run, stdout);
    rd_run_free(&run);
    return r;
}

int rd_verb_facts(const rd_options *o, char **args, size_t n_args)
{
    if (o->facts_file)
        return rd_usage_error("%s", "--facts is for the check command: facts always reads the live host");
    if (o->format_set && o->format != RD_FORMAT_JSON)
        return rd_usage_error("%s", "facts are always printed as JSON");
    rd_options fo = *o;
    if (fo.level == 0)
        fo.level = 1; /* the runtime runs only when asked for here, never from config */
    rd_run run;
    int r = rd_cli_run_diagnosis(&fo, &run);
    if (r == 0 && rd_cli_print_json(rd_facts_to_json(&run.facts)) < 0)
        r = rd_fail("cannot write to standard output");
    rd_run_free(&run);
    return r;
}
