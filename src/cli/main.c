/* SPDX-License-Identifier: MIT */
/* rocm-doctor: find out why ROCm does not work on this host. */
#include <limits.h>
#include <sys/stat.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <unistd.h>
#include "cli.h"
#include "build-config.h"
#include "findings.h"
#include "json-util.h"
#include "kernels/rd-kernels.h"
#include "util.h"

/* What check, facts, explain and verify accept: the diagnosis options. */
#define DIAGNOSIS_OPTIONS                                                                                              \
    (RD_OPT_ROOT | RD_OPT_USER | RD_OPT_FACTS | RD_OPT_CONFIG | RD_OPT_FORMAT | RD_OPT_LEVEL | RD_OPT_WITH_PYTHON |    \
     RD_OPT_TIMEOUT | RD_OPT_PYTHON)

#define EXPLAIN_NEEDS                                                                                                  \
    "explain needs the error message, e.g. rocm-doctor explain hipErrorNoDevice (or - to read it from standard "       \
    "input)"

/* name, summary, run, usage arguments, options, minimum and maximum
 * positional arguments, the error when too few are given */
static const rd_verb verbs[] = {
    { "check", "Diagnose this host (the default)", rd_verb_check, "", DIAGNOSIS_OPTIONS, 0, 0, NULL },
    { "facts", "Print what was learned about the host, as JSON", rd_verb_facts, "", DIAGNOSIS_OPTIONS, 0, 0, NULL },
    { "list", "List the knowledge: archs, releases, checks, fixes, usecases", rd_verb_list,
      "archs|releases|checks|fixes|usecases", RD_OPT_FORMAT | RD_OPT_SERVER | RD_OPT_CONFIG, 1, 1,
      "list needs what to list: " RD_CLI_LIST_TOPICS },
    { "explain", "Explain an error message and find its cause on this host", rd_verb_explain, "MESSAGE",
      DIAGNOSIS_OPTIONS, 1, RD_ARGS_ANY, EXPLAIN_NEEDS },
    { "fix", "Show the plan that fixes the findings; --apply runs it", rd_verb_fix, "",
      DIAGNOSIS_OPTIONS | RD_OPT_APPLY | RD_OPT_YES | RD_OPT_ONLY | RD_OPT_KEY_FILE | RD_OPT_STATUS | RD_OPT_VERBOSE, 0,
      0, NULL },
    { "setup", "Plan everything this host needs for a working ROCm; --apply runs it", rd_verb_setup, "",
      DIAGNOSIS_OPTIONS | RD_OPT_APPLY | RD_OPT_YES | RD_OPT_KEY_FILE | RD_OPT_RELEASE | RD_OPT_USECASE |
          RD_OPT_VERBOSE,
      0, 0, NULL },
    { "undo", "Undo an applied fix run (--last or RUN-ID)", rd_verb_undo, "--last|RUN-ID",
      RD_OPT_ROOT | RD_OPT_FORMAT | RD_OPT_YES | RD_OPT_LAST, 0, 1, NULL },
    { "verify", "Run a GPU kernel on every GPU (level 2) and report", rd_verb_verify, "",
      DIAGNOSIS_OPTIONS | RD_OPT_ROCM_PATH, 0, 0, NULL },
    { "report", "Write a support bundle (a tar archive)", rd_verb_report, "[-o FILE|-]",
      RD_OPT_ROOT | RD_OPT_USER | RD_OPT_CONFIG | RD_OPT_LEVEL | RD_OPT_WITH_PYTHON | RD_OPT_TIMEOUT | RD_OPT_OUTPUT |
          RD_OPT_PYTHON,
      0, 0, NULL },
    { "slurm", "Slurm: drain or resume this node; check a job's GPUs", rd_verb_slurm, "health|prolog|epilog",
      RD_OPT_ROOT | RD_OPT_FACTS | RD_OPT_CONFIG | RD_OPT_LEVEL | RD_OPT_TIMEOUT | RD_OPT_ON_UNKNOWN, 1, 1,
      "slurm needs a mode: health, prolog or epilog" },
    { "fleet", "Check many nodes and group them by cause (--from, --hosts, --slurm)", rd_verb_fleet, "",
      RD_OPT_FLEET | RD_OPT_FORMAT | RD_OPT_USER | RD_OPT_CONFIG, 0, 0, NULL },
};
/* fix --status [RUN] is a command of its own as far as options go. */
static const rd_verb fix_status = { "fix --status",
                                    "Show the applied fix runs",
                                    rd_verb_fix_status,
                                    "[RUN-ID]",
                                    RD_OPT_ROOT | RD_OPT_FORMAT | RD_OPT_STATUS,
                                    0,
                                    1,
                                    NULL };

/* The number of positional arguments against the verb's entry: 3 after
 * saying what is wrong, else 0. */
static int check_args(const rd_verb *verb, char **args, size_t n_args)
{
    if (n_args < verb->min_args)
        return rd_usage_error("%s", verb->missing);
    if (n_args > verb->max_args)
        return rd_usage_error("unexpected argument \"%s\"", args[verb->max_args]);
    return 0;
}

/* Each option's help; flag 0: every command takes it. */
static const struct {
    unsigned flag;
    const char *text;
} option_help[] = {
    { RD_OPT_ROOT, "  --root DIR       Inspect (or fix) the OS installation under DIR (hardware is\n"
                   "                   always the running kernel's /sys, /dev and /proc)\n" },
    { RD_OPT_USER, "  --user NAME      Whose access to the GPUs to check (default: the invoking\n"
                   "                   user, or SUDO_USER under sudo)\n" },
    { RD_OPT_FACTS, "  --facts FILE     Diagnose a saved facts file instead of this host\n" },
    { RD_OPT_CONFIG, "  --config FILE    Read only this configuration file\n" },
    { RD_OPT_FORMAT, "  --format FMT     text, json, prometheus or nfd\n"
                     "  --json           Same as --format json\n" },
    { RD_OPT_LEVEL, "  --level 1|2      1: static checks; 2: also run a GPU kernel\n" },
    { RD_OPT_TIMEOUT, "  --timeout SEC    Level 2: give up on the GPU after SEC seconds (default 20)\n" },
    { RD_OPT_WITH_PYTHON, "  --with-python    Also check the installed PyTorch build\n" },
    { RD_OPT_PYTHON, "  --python PATH    Also look for ROCm wheels in this Python environment (a\n"
                     "                   venv or conda directory, or its bin/python)\n" },
    { RD_OPT_ROCM_PATH, "  --rocm-path DIR  verify: load libhsa-runtime64 and libamdhip64 from DIR\n"
                        "                   only (e.g. a wheel's _rocm_sdk_core/lib)\n" },
    { 0, "  --color WHEN     auto, always or never (NO_COLOR is honoured)\n" },
    { RD_OPT_APPLY, "  --apply          fix, setup: carry out the plan (needs root)\n" },
    { RD_OPT_RELEASE, "  --release X      setup: the ROCm release to install (default: the configured\n"
                      "                   one, else the newest that supports this OS and its GPUs)\n" },
    { RD_OPT_USECASE, "  --usecase U,...  setup: what to install: rocm, runtime, hip-sdk, ml-sdk,\n"
                      "                   driver (default: rocm,driver; `rocm-doctor list usecases`)\n" },
    { RD_OPT_YES, "  --yes            Do not ask for confirmation\n" },
    { RD_OPT_ONLY, "  --only IDS       fix: only these fixes or findings (comma-separated)\n" },
    { RD_OPT_KEY_FILE, "  --key-file FILE  fix, setup: AMD's signing key from a file (default: fetched\n"
                       "                   from where repos.ini says, checked against its fingerprint)\n" },
    { RD_OPT_VERBOSE, "  --verbose        fix, setup: also show what the package manager printed\n"
                      "                   when a step could not be planned\n" },
    { RD_OPT_LAST, "  --last           undo: the most recent run\n" },
    { RD_OPT_STATUS, "  --status [RUN]   fix: the applied runs, what they changed and how they\n"
                     "                   were verified after the reboot\n" },
    { RD_OPT_OUTPUT, "  -o, --output FILE  report: where to write the bundle (- for standard output)\n" },
    { RD_OPT_SERVER, "  --server         list releases: the releases AMD's server (or the configured\n"
                     "                   mirror) has that the tables lack\n" },
    { RD_OPT_ON_UNKNOWN, "  --on-unknown ACT slurm: when the check cannot run, drain the node (drain,\n"
                         "                   the default) or leave it as it is (keep); never resume\n" },
    { RD_OPT_FLEET, "  --from DIR       fleet: the saved reports or facts files, one per node\n"
                    "  --hosts NODESET  fleet: check these nodes through clush, pdsh or ssh\n"
                    "  --slurm          fleet: check nodes through srun, one task per node\n"
                    "  --nodes LIST     fleet --slurm: these nodes (gpu[001-128])\n"
                    "  --partition P    fleet --slurm: the nodes of this partition\n"
                    "  --parallel N     fleet: nodes checked at once (default 64)\n"
                    "  --node-timeout SEC  fleet: give up on a node after SEC seconds (default 120)\n"
                    "  --html FILE      fleet: also write the report as one HTML page\n" },
    { 0, "  -h, --help       Show this help\n"
         "  -V, --version    Show the version and the GPU targets of the embedded kernels\n" },
};

static void print_options(unsigned accepted)
{
    printf("\nOptions:\n");
    for (size_t i = 0; i < ELEMENTSOF(option_help); i++)
        if (option_help[i].flag == 0 || (option_help[i].flag & accepted))
            fputs(option_help[i].text, stdout);
}

/* Output that is the whole point of the command (--help, --version) must
 * reach its reader: a full disk or a closed pipe is exit status 3. */
static int finish_stdout(void)
{
    if (fflush(stdout) != 0 || ferror(stdout))
        return rd_fail("cannot write to standard output: %s", errno_name(errno ? errno : EIO));
    return RD_EXIT_OK;
}

static int help(const rd_verb *verb)
{
    if (verb) {
        printf("Usage: rocm-doctor %s [OPTIONS]%s%s\n%s.\n", verb->name, *verb->args ? " " : "", verb->args,
               verb->summary);
        print_options(verb->options);
        printf("\nSee rocm-doctor(1) for the %s command.\n", verb->name);
        return finish_stdout();
    }
    printf("Usage: rocm-doctor [COMMAND] [OPTIONS] [ARGS]\n"
           "Find out why ROCm does not work on this host, and what fixes it.\n"
           "\n"
           "Commands:\n");
    for (size_t i = 0; i < ELEMENTSOF(verbs); i++)
        printf("  %-16s %s\n", verbs[i].name, verbs[i].summary);
    printf("  %-16s %s\n  %-16s %s\n", "help [COMMAND]", "Show this help, or a command's", "version",
           "Show the version");
    print_options(~0u);
    printf("\n"
           "rocm-doctor COMMAND --help shows the options of one command.\n"
           "Exit status: 0 healthy, 1 warnings, 2 errors, 3 the check could not run.\n"
           "See rocm-doctor(1) for the findings and the JSON format.\n");
    return finish_stdout();
}

/* The version, and the GPU targets whose kernels are built in (other
 * targets are compiled by the installation's hiprtc at run time). */
static int version(void)
{
    printf("rocm-doctor %s\n", PACKAGE_VERSION);
    if (rd_n_code_objects == 0)
        printf("GPU kernels: none embedded (verify compiles them with hiprtc)\n");
    else {
        int column = printf("GPU kernels (code object v4, v5):");
        for (size_t i = 0; i < rd_n_code_objects; i++) {
            if (i > 0 && streq(rd_code_objects[i].gfx, rd_code_objects[i - 1].gfx))
                continue;
            if (column + 1 + (int)strlen(rd_code_objects[i].gfx) > 79)
                column = printf("\n ") - 1;
            column += printf(" %s", rd_code_objects[i].gfx);
        }
        printf("\n");
    }
    return finish_stdout();
}

static const rd_verb *find_verb(const char *name)
{
    for (size_t i = 0; i < ELEMENTSOF(verbs); i++)
        if (streq(name, verbs[i].name))
            return &verbs[i];
    return NULL;
}

/* Names the first option given that the verb does not take (in the table's
 * order): 3 then, else 0. */
static int reject_options(const rd_options *o, const char *verb, unsigned not_accepted)
{
    static const struct {
        unsigned flag;
        const char *name;
    } names[] = {
        { RD_OPT_ROOT, "--root" },
        { RD_OPT_USER, "--user" },
        { RD_OPT_FACTS, "--facts" },
        { RD_OPT_CONFIG, "--config" },
        { RD_OPT_FORMAT, "--format/--json" },
        { RD_OPT_LEVEL, "--level" },
        { RD_OPT_WITH_PYTHON, "--with-python" },
        { RD_OPT_TIMEOUT, "--timeout" },
        { RD_OPT_APPLY, "--apply" },
        { RD_OPT_YES, "--yes" },
        { RD_OPT_ONLY, "--only" },
        { RD_OPT_KEY_FILE, "--key-file" },
        { RD_OPT_LAST, "--last" },
        { RD_OPT_OUTPUT, "--output" },
        { RD_OPT_PYTHON, "--python" },
        { RD_OPT_ROCM_PATH, "--rocm-path" },
        { RD_OPT_RELEASE, "--release" },
        { RD_OPT_USECASE, "--usecase" },
        { RD_OPT_STATUS, "--status" },
        { RD_OPT_VERBOSE, "--verbose" },
        { RD_OPT_ON_UNKNOWN, "--on-unknown" },
        { RD_OPT_SERVER, "--server" },
        { RD_OPT_FLEET, "--from/--hosts/--slurm/--nodes/--partition/--parallel/--node-timeout/--html" },
    };
    unsigned given =
        (o->root ? RD_OPT_ROOT : 0) | (o->user ? RD_OPT_USER : 0) | (o->facts_file ? RD_OPT_FACTS : 0) |
        (o->config_file ? RD_OPT_CONFIG : 0) | (o->format_set ? RD_OPT_FORMAT : 0) | (o->level ? RD_OPT_LEVEL : 0) |
        (o->with_python ? RD_OPT_WITH_PYTHON : 0) | (o->timeout_s ? RD_OPT_TIMEOUT : 0) |
        (o->apply ? RD_OPT_APPLY : 0) | (o->yes ? RD_OPT_YES : 0) | (o->only ? RD_OPT_ONLY : 0) |
        (o->key_file ? RD_OPT_KEY_FILE : 0) | (o->last ? RD_OPT_LAST : 0) | (o->output ? RD_OPT_OUTPUT : 0) |
        (o->python ? RD_OPT_PYTHON : 0) | (o->rocm_path ? RD_OPT_ROCM_PATH : 0) | (o->release ? RD_OPT_RELEASE : 0) |
        (o->usecase ? RD_OPT_USECASE : 0) | (o->status ? RD_OPT_STATUS : 0) | (o->verbose ? RD_OPT_VERBOSE : 0) |
        (o->on_unknown ? RD_OPT_ON_UNKNOWN : 0) | (o->server ? RD_OPT_SERVER : 0);
    if (o->from || o->hosts || o->slurm || o->nodes || o->partition || o->parallel || o->node_timeout || o->html)
        given |= RD_OPT_FLEET;
    for (size_t i = 0; i < ELEMENTSOF(names); i++)
        if (given & not_accepted & names[i].flag)
            return rd_usage_error("%s is not an option of the %s command", names[i].name, verb);
    return 0;
}

bool rd_cli_want_color(int setting)
{
    if (setting >= 0)
        return setting;
    const char *no = getenv("NO_COLOR");
    if (no && *no)
        return false;
    const char *term = getenv("TERM");
    if (term && streq(term, "dumb"))
        return false;
    return isatty(STDOUT_FILENO);
}

int rd_cli_print_json(json_object *j)
{
    _cleanup_free_ char *s = rd_json_pretty(j);
    int r = fputs(s, stdout) < 0 || fflush(stdout) != 0 ? -EIO : 0;
    json_object_put(j);
    return r;
}

static int set_format(rd_options *o, rd_format f)
{
    if (o->format_set && o->format != f)
        return rd_usage_error("%s", "--json and --format disagree; give one of them");
    o->format = f;
    o->format_set = true;
    return 0;
}

static int parse_format(const char *arg, rd_options *o)
{
    int f = rd_format_from_name(arg);
    if (f >= 0)
        return set_format(o, (rd_format)f);
    return rd_usage_error("--format must be text, json, prometheus or nfd, not \"%s\"", arg);
}

/* --python names a path on the inspected system, made absolute without
 * resolving links (a venv's bin/python is a link to the system's); under
 * --root, rd_root_python_path follows them inside the root; --rocm-path a
 * directory of this one. */
static int check_paths(rd_options *o, char **ret_python)
{
    struct stat st;
    if (o->python && o->root) {
        _cleanup_free_ char *err = NULL;
        if (rd_root_python_path(o->root, o->python, ret_python, &err) < 0)
            return rd_usage_error("%s", err);
        o->python = *ret_python;
    } else if (o->python) {
        char cwd[PATH_MAX];
        if (o->python[0] != '/' && !getcwd(cwd, sizeof cwd))
            return rd_fail("cannot get the working directory: %s", errno_name(errno));
        _cleanup_free_ char *abs = o->python[0] == '/' ? xstrdup(o->python) : xasprintf("%s/%s", cwd, o->python);
        if (stat(abs, &st) < 0)
            return rd_usage_error("--python %s: %s", o->python, errno_name(errno));
        o->python = *ret_python = TAKE_PTR(abs);
    }
    if (o->rocm_path && stat(o->rocm_path, &st) < 0)
        return rd_usage_error("--rocm-path %s: %s", o->rocm_path, errno_name(errno));
    if (o->rocm_path && !S_ISDIR(st.st_mode))
        return rd_usage_error("--rocm-path %s: not a directory", o->rocm_path);
    return 0;
}

/* The long options (tests/run/cli/test-man.py reads this table: each one is documented). */
enum {
    OPT_ROOT = 256,
    OPT_USER,
    OPT_FACTS,
    OPT_CONFIG,
    OPT_FORMAT,
    OPT_JSON,
    OPT_LEVEL,
    OPT_TIMEOUT,
    OPT_WITH_PYTHON,
    OPT_COLOR,
    OPT_APPLY,
    OPT_YES,
    OPT_ONLY,
    OPT_KEY_FILE,
    OPT_LAST,
    OPT_PYTHON,
    OPT_ROCM_PATH,
    OPT_STATUS,
    OPT_RELEASE,
    OPT_USECASE,
    OPT_VERBOSE,
    OPT_ON_UNKNOWN,
    OPT_SERVER,
    OPT_FROM,
    OPT_HOSTS,
    OPT_SLURM,
    OPT_NODES,
    OPT_PARTITION,
    OPT_PARALLEL,
    OPT_NODE_TIMEOUT,
    OPT_HTML,
    OPT_LIST_VERBS,
    OPT_LIST_OPTIONS,
};
/* help --list-verbs and --list-options: for the shell's completion, offered
 * to no command. */
#define OPT_HELP_LISTS (1u << 31)
/* Each long option, the RD_OPT_* flag of the verbs that take it (0: every
 * command) and its short form. */
static const struct {
    struct option o;
    unsigned flag;
    char short_name;
} options[] = {
    { { "root", required_argument, NULL, OPT_ROOT }, RD_OPT_ROOT, 0 },
    { { "user", required_argument, NULL, OPT_USER }, RD_OPT_USER, 0 },
    { { "facts", required_argument, NULL, OPT_FACTS }, RD_OPT_FACTS, 0 },
    { { "config", required_argument, NULL, OPT_CONFIG }, RD_OPT_CONFIG, 0 },
    { { "format", required_argument, NULL, OPT_FORMAT }, RD_OPT_FORMAT, 0 },
    { { "json", no_argument, NULL, OPT_JSON }, RD_OPT_FORMAT, 0 },
    { { "level", required_argument, NULL, OPT_LEVEL }, RD_OPT_LEVEL, 0 },
    { { "timeout", required_argument, NULL, OPT_TIMEOUT }, RD_OPT_TIMEOUT, 0 },
    { { "with-python", no_argument, NULL, OPT_WITH_PYTHON }, RD_OPT_WITH_PYTHON, 0 },
    { { "color", required_argument, NULL, OPT_COLOR }, 0, 0 },
    { { "apply", no_argument, NULL, OPT_APPLY }, RD_OPT_APPLY, 0 },
    { { "yes", no_argument, NULL, OPT_YES }, RD_OPT_YES, 0 },
    { { "only", required_argument, NULL, OPT_ONLY }, RD_OPT_ONLY, 0 },
    { { "key-file", required_argument, NULL, OPT_KEY_FILE }, RD_OPT_KEY_FILE, 0 },
    { { "last", no_argument, NULL, OPT_LAST }, RD_OPT_LAST, 0 },
    { { "python", required_argument, NULL, OPT_PYTHON }, RD_OPT_PYTHON, 0 },
    { { "rocm-path", required_argument, NULL, OPT_ROCM_PATH }, RD_OPT_ROCM_PATH, 0 },
    { { "release", required_argument, NULL, OPT_RELEASE }, RD_OPT_RELEASE, 0 },
    { { "usecase", required_argument, NULL, OPT_USECASE }, RD_OPT_USECASE, 0 },
    { { "status", no_argument, NULL, OPT_STATUS }, RD_OPT_STATUS, 0 },
    { { "verbose", no_argument, NULL, OPT_VERBOSE }, RD_OPT_VERBOSE, 0 },
    { { "on-unknown", required_argument, NULL, OPT_ON_UNKNOWN }, RD_OPT_ON_UNKNOWN, 0 },
    { { "server", no_argument, NULL, OPT_SERVER }, RD_OPT_SERVER, 0 },
    { { "from", required_argument, NULL, OPT_FROM }, RD_OPT_FLEET, 0 },
    { { "hosts", required_argument, NULL, OPT_HOSTS }, RD_OPT_FLEET, 0 },
    { { "slurm", no_argument, NULL, OPT_SLURM }, RD_OPT_FLEET, 0 },
    { { "nodes", required_argument, NULL, OPT_NODES }, RD_OPT_FLEET, 0 },
    { { "partition", required_argument, NULL, OPT_PARTITION }, RD_OPT_FLEET, 0 },
    { { "parallel", required_argument, NULL, OPT_PARALLEL }, RD_OPT_FLEET, 0 },
    { { "node-timeout", required_argument, NULL, OPT_NODE_TIMEOUT }, RD_OPT_FLEET, 0 },
    { { "html", required_argument, NULL, OPT_HTML }, RD_OPT_FLEET, 0 },
    { { "output", required_argument, NULL, 'o' }, RD_OPT_OUTPUT, 'o' },
    { { "help", no_argument, NULL, 'h' }, 0, 'h' },
    { { "version", no_argument, NULL, 'V' }, 0, 'V' },
    { { "list-verbs", no_argument, NULL, OPT_LIST_VERBS }, OPT_HELP_LISTS, 0 },
    { { "list-options", no_argument, NULL, OPT_LIST_OPTIONS }, OPT_HELP_LISTS, 0 },
};

/* What help --list-verbs and --list-options print. */
typedef struct {
    bool list_verbs;
    bool list_options;
} help_lists;

/* The commands, one a line: the table's, then help and version. */
static int list_verbs(void)
{
    for (size_t i = 0; i < ELEMENTSOF(verbs); i++)
        puts(verbs[i].name);
    puts("help");
    puts("version");
    return finish_stdout();
}

/* The options a command with these flags takes (every option for ~0u), one
 * a line, short forms after their long one; "=" after one that takes a
 * value. */
static int list_options(unsigned accepted)
{
    for (size_t i = 0; i < ELEMENTSOF(options); i++) {
        if (options[i].flag == OPT_HELP_LISTS || (options[i].flag && !(options[i].flag & accepted)))
            continue;
        const char *value = options[i].o.has_arg == required_argument ? "=" : "";
        printf("--%s%s\n", options[i].o.name, value);
        if (options[i].short_name)
            printf("-%c%s\n", options[i].short_name, value);
    }
    return finish_stdout();
}

/* rocm-doctor help [COMMAND], help --list-verbs, help --list-options [COMMAND]. */
static int help_command(const char *name, const help_lists *lists)
{
    const rd_verb *verb = name ? find_verb(name) : NULL;
    if (name && !verb)
        return rd_usage_error("unknown command \"%s\"", name);
    if (lists->list_verbs)
        return list_verbs();
    if (lists->list_options)
        return list_options(verb ? verb->options : ~0u);
    return help(verb);
}

static int parse_color(const char *arg, rd_options *o)
{
    if (streq(arg, "auto"))
        o->color = -1;
    else if (streq(arg, "always"))
        o->color = 1;
    else if (streq(arg, "never"))
        o->color = 0;
    else
        return rd_usage_error("--color must be auto, always or never, not \"%s\"", arg);
    return 0;
}

/* Not an exit status: parse_option read the option, go on. */
#define PARSE_GO_ON (-1)

/* One option from getopt_long (c, optarg); PARSE_GO_ON, or the exit
 * status when it is --version or a usage error. */
static int parse_option(int c, char **argv, rd_options *o, bool *want_help, help_lists *lists)
{
    int r;
    uint64_t u;
    switch (c) {
    case OPT_ROOT: o->root = optarg; break;
    case OPT_USER:
        if (!*optarg)
            return rd_usage_error("%s", "--user needs a user name");
        o->user = optarg;
        break;
    case OPT_FACTS: o->facts_file = optarg; break;
    case OPT_CONFIG: o->config_file = optarg; break;
    case OPT_FORMAT:
        if ((r = parse_format(optarg, o)) != 0)
            return r;
        break;
    case OPT_JSON:
        if ((r = set_format(o, RD_FORMAT_JSON)) != 0)
            return r;
        break;
    case OPT_LEVEL:
        if (!streq(optarg, "1") && !streq(optarg, "2"))
            return rd_usage_error("--level must be 1 or 2, not \"%s\"", optarg);
        o->level = optarg[0] - '0';
        break;
    case OPT_TIMEOUT:
        if (safe_atou64(optarg, 10, &u) < 0 || u == 0 || u > 3600)
            return rd_usage_error("--timeout must be a number of seconds from 1 to 3600, not \"%s\"", optarg);
        o->timeout_s = (int64_t)u;
        break;
    case OPT_WITH_PYTHON: o->with_python = true; break;
    case OPT_COLOR:
        if ((r = parse_color(optarg, o)) != 0)
            return r;
        break;
    case OPT_APPLY: o->apply = true; break;
    case OPT_YES: o->yes = true; break;
    case OPT_VERBOSE: o->verbose = true; break;
    case OPT_ON_UNKNOWN: o->on_unknown = optarg; break;
    case OPT_SERVER: o->server = true; break;
    case OPT_ONLY:
        if (!*optarg)
            return rd_usage_error("%s", "--only needs a comma-separated list of ids");
        o->only = optarg;
        break;
    case OPT_KEY_FILE: o->key_file = optarg; break;
    case OPT_LAST: o->last = true; break;
    case OPT_STATUS: o->status = true; break;
    case OPT_PYTHON: o->python = optarg; break;
    case OPT_ROCM_PATH:
        if (!*optarg)
            return rd_usage_error("%s", "--rocm-path needs a directory");
        o->rocm_path = optarg;
        break;
    case OPT_RELEASE:
        if (!*optarg)
            return rd_usage_error("%s", "--release needs a ROCm release such as 6.4 or 6.4.1");
        o->release = optarg;
        break;
    case OPT_USECASE:
        if (!*optarg)
            return rd_usage_error("%s", "--usecase needs a comma-separated list of use cases");
        o->usecase = optarg;
        break;
    case OPT_FROM: o->from = optarg; break;
    case OPT_HOSTS: o->hosts = optarg; break;
    case OPT_SLURM: o->slurm = true; break;
    case OPT_NODES: o->nodes = optarg; break;
    case OPT_PARTITION: o->partition = optarg; break;
    case OPT_HTML: o->html = optarg; break;
    case OPT_PARALLEL:
        if (safe_atou64(optarg, 10, &u) < 0 || u == 0 || u > 4096)
            return rd_usage_error("--parallel must be a number from 1 to 4096, not \"%s\"", optarg);
        o->parallel = (int64_t)u;
        break;
    case OPT_NODE_TIMEOUT:
        if (safe_atou64(optarg, 10, &u) < 0 || u == 0 || u > 3600)
            return rd_usage_error("--node-timeout must be a number of seconds from 1 to 3600, not \"%s\"", optarg);
        o->node_timeout = (int64_t)u;
        break;
    case 'o': o->output = optarg; break;
    case 'h': *want_help = true; break;
    case OPT_LIST_VERBS: lists->list_verbs = true; break;
    case OPT_LIST_OPTIONS: lists->list_options = true; break;
    case 'V': return version();
    case ':': return rd_usage_error("option %s needs an argument", argv[optind - 1]);
    default: return rd_usage_error("unknown option %s", argv[optind - 1]);
    }
    return PARSE_GO_ON;
}

int main(int argc, char **argv)
{
    rd_options o = { .color = -1 };
    bool want_help = false;
    help_lists lists = { 0 };
    struct option longopts[ELEMENTSOF(options) + 1] = { 0 };
    for (size_t i = 0; i < ELEMENTSOF(options); i++)
        longopts[i] = options[i].o;
    int c;
    opterr = 0;
    /* GNU getopt permutes: options may come before or after the command */
    while ((c = getopt_long(argc, argv, ":hVo:", longopts, NULL)) != -1) {
        int r = parse_option(c, argv, &o, &want_help, &lists);
        if (r != PARSE_GO_ON)
            return r;
    }
    const char *name = optind < argc ? argv[optind++] : NULL;
    bool is_help = name && streq(name, "help");
    if ((lists.list_verbs || lists.list_options) && !is_help)
        return rd_usage_error("%s is an option of the help command",
                              lists.list_verbs ? "--list-verbs" : "--list-options");
    if (name && streq(name, "version"))
        return version();
    if (is_help) /* rocm-doctor help [COMMAND] */
        return help_command(optind < argc ? argv[optind] : NULL, &lists);
    const rd_verb *verb = find_verb(name ? name : "check");
    if (!verb)
        return rd_usage_error("unknown command \"%s\"", name);
    if (want_help)
        return help(name ? verb : NULL);
    if (verb->run == rd_verb_fix && o.status)
        verb = &fix_status;
    /* the options are checked against the verb's table entry here, never in the verbs */
    int r = reject_options(&o, verb->name, ~verb->options);
    if (r == 0)
        r = check_args(verb, argv + optind, (size_t)(argc - optind));
    if (r != 0)
        return r;
    _cleanup_free_ char *python = NULL;
    if ((r = check_paths(&o, &python)) != 0)
        return r;
    return verb->run(&o, argv + optind, (size_t)(argc - optind));
}
