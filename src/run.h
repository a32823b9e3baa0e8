/* SPDX-License-Identifier: MIT */
/* One diagnosis, as `check` does it: context, configuration, facts (live,
 * or loaded from --facts), level 2 when asked, assessment, then the
 * configuration's policy. Verbs that need a diagnosis (check, explain, fix,
 * verify, report) and the daemon share it. */
#pragma once

#include <stdio.h>
#include "check.h"
#include "cli.h"
#include "config.h"

typedef struct {
    rd_ctx ctx;
    rd_config config;
    rd_facts facts;
    rd_gpu_view view;
    rd_findings findings;
    int level;
    bool ctx_ready, view_ready;
} rd_run;

/* Returns 0, or 3 after printing the reason on stderr. *r must be freed
 * with rd_run_free either way. */
int rd_run_check(const rd_options *o, rd_run *r);
/* Re-runs assessment and policy on r's facts (after a change to them). */
void rd_run_assess(rd_run *r);
void rd_run_free(rd_run *r);

/* Prints the report in o->format; returns the exit status, or 3 when
 * standard output cannot be written. */
int rd_run_render(const rd_options *o, const rd_run *r, FILE *out);
