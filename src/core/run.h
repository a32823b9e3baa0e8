/* SPDX-License-Identifier: MIT */
/* One diagnosis, as `check` does it: context, configuration, facts (live,
 * or loaded from a facts file), level 2 when asked, assessment, then the
 * configuration's policy. The verbs and the daemon share it; it never
 * prints. */
#pragma once

#include <stdint.h>
#include "check.h"
#include "config.h"

typedef struct {
    const rd_probe_table *probes; /* required */
    char *const *fix_ids;         /* what allowed_fixes may list (rd_fix_table_ids); required */
    const char *root;             /* NULL: "/" */
    const char *user;             /* NULL: the invoking user */
    const char *facts_file;       /* saved facts instead of the host */
    const char *config_file;      /* instead of the configuration directories */
    int level;                    /* 1 or 2; 0: the configuration decides */
    bool with_python;
    int64_t timeout_s;     /* level-2 child limit; 0: the configuration's */
    const char *python;    /* --python PATH: an environment to inspect */
    const char *rocm_path; /* --rocm-path DIR: level 2 loads the runtime from DIR */
    /* The knowledge tables the check does not always consult (health,
     * wheels, repos) are loaded when a step first asks for them, and a
     * malformed one fails the run only then; false: all before the check
     * (what fixes and the plans they make need). */
    bool tables_on_first_use;
} rd_run_params;

typedef struct {
    const rd_probe_table *probes;
    rd_ctx ctx;
    rd_config config;
    rd_facts facts;
    rd_gpu_view view;
    rd_findings findings;
    int level;
    bool ctx_ready, view_ready;
} rd_run;

/* Returns 0, or a negative errno with *ret_error saying why. *r must be
 * freed with rd_run_free either way. */
int rd_run_check(const rd_run_params *p, rd_run *r, char **ret_error);
/* Re-runs assessment and policy on r's facts (after a change to them). */
void rd_run_assess(rd_run *r);
void rd_run_free(rd_run *r);

#define _cleanup_run_ _cleanup_(rd_run_free)
