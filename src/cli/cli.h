/* SPDX-License-Identifier: MIT */
/* The command line: one options struct filled by main.c for every verb, and
 * the verbs, each in its own file. main.c refuses the options a verb does
 * not take (from its entry in the table of verbs); the verb gets the rest
 * and its positional arguments. */
#pragma once

#include <json-c/json.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "report.h"
#include "run.h"
#include "term.h"

typedef struct {
    /* common */
    const char *root;
    const char *user;
    const char *facts_file;
    const char *config_file; /* --config FILE: instead of the configuration directories */
    rd_format format;        /* --json is --format json */
    bool format_set;
    int level; /* 1 or 2; 0 when not given (config decides) */
    int color; /* -1 auto, 0 never, 1 always */
    bool with_python;
    int64_t timeout_s;     /* --timeout: level-2 child limit; 0 when not given */
    const char *python;    /* --python PATH: a Python environment to inspect */
    const char *rocm_path; /* --rocm-path DIR: verify loads the runtime from DIR */
    /* fix */
    bool apply;
    bool yes;
    bool verbose;         /* fix, setup: what a tool printed when a step could not be planned */
    const char *only;     /* comma-separated fix or finding ids */
    const char *key_file; /* apt signing key to install */
    /* setup */
    const char *release; /* --release: the ROCm release to set up */
    const char *usecase; /* --usecase: comma-separated use cases */
    bool status;         /* fix --status: the runs and their verification */
    /* undo */
    bool last;
    /* report */
    const char *output; /* -o, --output FILE */
    /* slurm */
    const char *on_unknown; /* --on-unknown drain|keep */
    /* list */
    bool server; /* list releases --server: the releases on the repository server */
    /* fleet */
    const char *from;      /* --from DIR: saved reports or facts files */
    const char *hosts;     /* --hosts NODESET: through clush, pdsh or ssh */
    bool slurm;            /* --slurm: through srun */
    const char *nodes;     /* --nodes NODELIST (--slurm) */
    const char *partition; /* --partition P (--slurm) */
    int64_t parallel;      /* --parallel N: nodes at once; 0 default */
    int64_t node_timeout;  /* --node-timeout SEC: per node; 0 default */
    const char *html;      /* --html FILE: the HTML report */
} rd_options;

/* A verb's entry in the table of verbs (main.c). main.c checks the options
 * and the number of positional arguments against it before run: run gets
 * from min_args to max_args of them. */
typedef struct {
    const char *name;
    const char *summary;
    int (*run)(const rd_options *o, char **args, size_t n_args);
    const char *args; /* its arguments in the usage line: "[TOPIC]" */
    unsigned options; /* the RD_OPT_* it accepts (its --help lists them) */
    size_t min_args;
    size_t max_args;     /* RD_ARGS_ANY: no limit */
    const char *missing; /* the usage error when fewer than min_args are given */
} rd_verb;
#define RD_ARGS_ANY SIZE_MAX

/* What `list` lists, for its usage errors. */
#define RD_CLI_LIST_TOPICS "archs, releases, gpus, checks, fixes or usecases"

/* Verbs, by file: verb-check.c (check, facts), verb-list.c (list),
 * verb-explain.c (explain), verb-fix.c (fix), verb-setup.c (setup),
 * verb-undo.c (undo), verb-history.c (fix --status), verb-verify.c (verify),
 * verb-report.c (report), verb-slurm.c (slurm). */
int rd_verb_check(const rd_options *o, char **args, size_t n_args);
int rd_verb_facts(const rd_options *o, char **args, size_t n_args);
int rd_verb_list(const rd_options *o, char **args, size_t n_args);
int rd_verb_explain(const rd_options *o, char **args, size_t n_args);
int rd_verb_fix(const rd_options *o, char **args, size_t n_args);
int rd_verb_undo(const rd_options *o, char **args, size_t n_args);
int rd_verb_setup(const rd_options *o, char **args, size_t n_args);
/* fix --status [RUN] (verb-history.c); main.c runs it for fix --status */
int rd_verb_fix_status(const rd_options *o, char **args, size_t n_args);
/* A run carried out whose report cannot be written: says so (it was `what`,
 * "applied" or "undone", all the same) and returns r (run-cli.c). */
int rd_cli_unwritten(const char *what, const char *run_id, int r);
/* fix and setup (verb-fix.c): the plan over the check's findings, shown
 * or carried out. setup NULL for fix; for setup, its checks of its options
 * against the check's run (verb-setup.c). */
typedef struct {
    /* RD_CLI_GO_ON, or the exit status (after printing) */
    int (*prepare)(const rd_options *o, const rd_run *run, char ***ret_usecases);
} rd_cli_setup;
#define RD_CLI_GO_ON (-1)
int rd_cli_plan_verb(const rd_options *o, const rd_cli_setup *setup);
int rd_verb_verify(const rd_options *o, char **args, size_t n_args);
int rd_verb_report(const rd_options *o, char **args, size_t n_args);
/* slurm health|prolog|epilog (verb-slurm.c) */
int rd_verb_slurm(const rd_options *o, char **args, size_t n_args);

/* fleet (verb-fleet.c): the nodes of --from DIR, one file each; a node from
 * a report's or facts file's text (path: the facts file to diagnose); the
 * nodes of --hosts or --slurm (fleet-remote.c). 0, or 3 after saying why. */
struct rd_fleet;
struct rd_fleet_node;
int rd_verb_fleet(const rd_options *o, char **args, size_t n_args);
int rd_cli_fleet_from_dir(const rd_options *o, const char *dir, struct rd_fleet *fleet);
int rd_cli_fleet_node_from_text(const rd_options *o, const char *text, size_t size, const char *path, const char *name,
                                struct rd_fleet_node *ret);
int rd_cli_fleet_remote(const rd_options *o, struct rd_fleet *fleet);

/* Prints "rocm-doctor: MESSAGE" and the --help hint on stderr; returns 3. */
#define rd_usage_error(...) (rd_msg_usage_error("rocm-doctor", __VA_ARGS__), RD_EXIT_UNKNOWN)
/* Prints "rocm-doctor: MESSAGE" on stderr; returns 3. */
#define rd_fail(...) (rd_msg_error("rocm-doctor", __VA_ARGS__), RD_EXIT_UNKNOWN)

/* The options, one flag each (several for the fleet's): the verbs' table in
 * main.c says which a verb takes. When a command is given several it does
 * not take, the lowest flag is the one named. */
enum {
    RD_OPT_ROOT = 1 << 0,
    RD_OPT_USER = 1 << 1,
    RD_OPT_FACTS = 1 << 2,
    RD_OPT_CONFIG = 1 << 3,
    RD_OPT_FORMAT = 1 << 4,
    RD_OPT_LEVEL = 1 << 5,
    RD_OPT_WITH_PYTHON = 1 << 6,
    RD_OPT_TIMEOUT = 1 << 7,
    RD_OPT_APPLY = 1 << 8,
    RD_OPT_YES = 1 << 9,
    RD_OPT_ONLY = 1 << 10,
    RD_OPT_KEY_FILE = 1 << 11,
    RD_OPT_LAST = 1 << 12,
    RD_OPT_OUTPUT = 1 << 13,
    RD_OPT_PYTHON = 1 << 14,
    RD_OPT_ROCM_PATH = 1 << 15,
    RD_OPT_RELEASE = 1 << 16,
    RD_OPT_USECASE = 1 << 17,
    RD_OPT_STATUS = 1 << 18,
    RD_OPT_VERBOSE = 1 << 19,
    RD_OPT_ON_UNKNOWN = 1 << 20,
    RD_OPT_SERVER = 1 << 21,
    RD_OPT_FLEET = 1 << 22, /* --from, --hosts, --slurm, --nodes, --partition, --parallel, --node-timeout, --html */
};

bool rd_cli_want_color(int setting);
/* rd_run_check with the options (run-cli.c); returns 0, or 3 after printing
 * the reason on stderr. *r must be freed with rd_run_free either way. */
int rd_cli_run_check(const rd_options *o, rd_run *r);
/* The same for a verb that only reports (check, facts, slurm): the tables
 * the check does not always consult are loaded when it asks for them. */
int rd_cli_run_diagnosis(const rd_options *o, rd_run *r);
/* The package managers' deadlines from configuration c (NULL: the
 * configuration of ctx's root, loaded for the purpose; defaults where it is
 * malformed). */
void rd_cli_fix_deadlines(const rd_options *o, const rd_ctx *ctx, const rd_config *c);
/* Prints the report in o->format; returns the exit status, or 3 when
 * standard output cannot be written. */
int rd_cli_render(const rd_options *o, const rd_run *r, FILE *out);
/* Pretty-prints j on stdout and drops the reference; -EIO on a write error. */
int rd_cli_print_json(json_object *j);
