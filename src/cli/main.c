/* SPDX-License-Identifier: MIT */
/* rocm-doctor: find out why ROCm does not work on this host. */
#include <limits.h>
#include <sys/stat.h>
#include <getopt.h>
#include <stddef.h>
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

/* Output that is the whole point of the command (--help, --version) must
 * reach its reader: a full disk or a closed pipe is exit status 3. */
static int finish_stdout(void)
{
    if (fflush(stdout) != 0 || ferror(stdout))
        return rd_fail("cannot write to standard output: %s", errno_name(errno ? errno : EIO));
    return RD_EXIT_OK;
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

/* What the command line says beside the options struct: --help, help's
 * lists, and which options were given (their RD_OPT_* flags). */
typedef struct {
    rd_options o;
    bool want_help;
    bool list_verbs;   /* help --list-verbs */
    bool list_options; /* help --list-options */
    unsigned given;
} cli_args;

/* Not an exit status: the option was read, go on. */
#define PARSE_GO_ON (-1)

/* One row of the table of options: how it is written, which commands take
 * it, where its value goes and how, and its lines in --help. */
typedef struct cli_option cli_option;
struct cli_option {
    const char *name;
    int has_arg; /* getopt's no_argument or required_argument */
    char short_name;
    unsigned flag; /* the RD_OPT_* of the commands that take it; 0: every command */
    size_t field;  /* offsetof(cli_args, ...): where the parser puts the value */
    /* PARSE_GO_ON, or the exit status (after printing) */
    int (*parse)(const cli_option *opt, const char *arg, void *field);
    const char *need; /* the usage error's end when the value is empty ("a user name"); NULL: may be empty */
    const char *help; /* its lines in --help; NULL: not shown */
};
/* help --list-verbs and --list-options: for the shell's completion, offered
 * to no command. */
#define OPT_HELP_LISTS (1u << 31)

static int parse_string(const cli_option *opt, const char *arg, void *field)
{
    if (opt->need && !*arg)
        return rd_usage_error("--%s needs %s", opt->name, opt->need);
    *(const char **)field = arg;
    return PARSE_GO_ON;
}

static int parse_true(const cli_option *opt, const char *arg, void *field)
{
    *(bool *)field = true;
    return PARSE_GO_ON;
}

static int parse_seconds(const cli_option *opt, const char *arg, void *field)
{
    uint64_t u;
    if (safe_atou64(arg, 10, &u) < 0 || u == 0 || u > 3600)
        return rd_usage_error("--%s must be a number of seconds from 1 to 3600, not \"%s\"", opt->name, arg);
    *(int64_t *)field = (int64_t)u;
    return PARSE_GO_ON;
}

static int parse_parallel(const cli_option *opt, const char *arg, void *field)
{
    uint64_t u;
    if (safe_atou64(arg, 10, &u) < 0 || u == 0 || u > 4096)
        return rd_usage_error("--%s must be a number from 1 to 4096, not \"%s\"", opt->name, arg);
    *(int64_t *)field = (int64_t)u;
    return PARSE_GO_ON;
}

static int parse_level(const cli_option *opt, const char *arg, void *field)
{
    if (!streq(arg, "1") && !streq(arg, "2"))
        return rd_usage_error("--level must be 1 or 2, not \"%s\"", arg);
    *(int *)field = arg[0] - '0';
    return PARSE_GO_ON;
}

static int set_format(rd_options *o, rd_format f)
{
    if (o->format_set && o->format != f)
        return rd_usage_error("%s", "--json and --format disagree; give one of them");
    o->format = f;
    o->format_set = true;
    return PARSE_GO_ON;
}

/* field: the whole rd_options (--format and --json both set format_set) */
static int parse_format(const cli_option *opt, const char *arg, void *field)
{
    int f = rd_format_from_name(arg);
    if (f >= 0)
        return set_format(field, (rd_format)f);
    return rd_usage_error("--format must be text, json, prometheus or nfd, not \"%s\"", arg);
}

static int parse_json(const cli_option *opt, const char *arg, void *field)
{
    return set_format(field, RD_FORMAT_JSON);
}

static int parse_color(const cli_option *opt, const char *arg, void *field)
{
    int *color = field;
    if (streq(arg, "auto"))
        *color = -1;
    else if (streq(arg, "always"))
        *color = 1;
    else if (streq(arg, "never"))
        *color = 0;
    else
        return rd_usage_error("--color must be auto, always or never, not \"%s\"", arg);
    return PARSE_GO_ON;
}

static int parse_version(const cli_option *opt, const char *arg, void *field)
{
    return version();
}

#define FIELD(f) offsetof(cli_args, f)

/* The options, one row each, in the order of --help (tests/run/cli/test-man.py
 * reads this table: each one is documented): name, argument, short form,
 * the commands' flag, field, parser, what an empty value lacks, help. */
static const cli_option options[] = {
    { "root", required_argument, 0, RD_OPT_ROOT, FIELD(o.root), parse_string, NULL,
      "  --root DIR       Inspect (or fix) the OS installation under DIR (hardware is\n"
      "                   always the running kernel's /sys, /dev and /proc)\n" },
    { "user", required_argument, 0, RD_OPT_USER, FIELD(o.user), parse_string, "a user name",
      "  --user NAME      Whose access to the GPUs to check (default: the invoking\n"
      "                   user, or SUDO_USER under sudo)\n" },
    { "facts", required_argument, 0, RD_OPT_FACTS, FIELD(o.facts_file), parse_string, NULL,
      "  --facts FILE     Diagnose a saved facts file instead of this host\n" },
    { "config", required_argument, 0, RD_OPT_CONFIG, FIELD(o.config_file), parse_string, NULL,
      "  --config FILE    Read only this configuration file\n" },
    { "format", required_argument, 0, RD_OPT_FORMAT, FIELD(o), parse_format, NULL,
      "  --format FMT     text, json, prometheus or nfd\n" },
    { "json", no_argument, 0, RD_OPT_FORMAT, FIELD(o), parse_json, NULL, "  --json           Same as --format json\n" },
    { "level", required_argument, 0, RD_OPT_LEVEL, FIELD(o.level), parse_level, NULL,
      "  --level 1|2      1: static checks; 2: also run a GPU kernel\n" },
    { "timeout", required_argument, 0, RD_OPT_TIMEOUT, FIELD(o.timeout_s), parse_seconds, NULL,
      "  --timeout SEC    Level 2: give up on the GPU after SEC seconds (default 20)\n" },
    { "with-python", no_argument, 0, RD_OPT_WITH_PYTHON, FIELD(o.with_python), parse_true, NULL,
      "  --with-python    Also check the installed PyTorch build\n" },
    { "python", required_argument, 0, RD_OPT_PYTHON, FIELD(o.python), parse_string, NULL,
      "  --python PATH    Also look for ROCm wheels in this Python environment (a\n"
      "                   venv or conda directory, or its bin/python)\n" },
    { "rocm-path", required_argument, 0, RD_OPT_ROCM_PATH, FIELD(o.rocm_path), parse_string, "a directory",
      "  --rocm-path DIR  verify: load libhsa-runtime64 and libamdhip64 from DIR\n"
      "                   only (e.g. a wheel's _rocm_sdk_core/lib)\n" },
    { "color", required_argument, 0, 0, FIELD(o.color), parse_color, NULL,
      "  --color WHEN     auto, always or never (NO_COLOR is honoured)\n" },
    { "apply", no_argument, 0, RD_OPT_APPLY, FIELD(o.apply), parse_true, NULL,
      "  --apply          fix, setup: carry out the plan (needs root)\n" },
    { "release", required_argument, 0, RD_OPT_RELEASE, FIELD(o.release), parse_string,
      "a ROCm release such as 6.4 or 6.4.1",
      "  --release X      setup: the ROCm release to install (default: the configured\n"
      "                   one, else the newest that supports this OS and its GPUs)\n" },
    { "usecase", required_argument, 0, RD_OPT_USECASE, FIELD(o.usecase), parse_string,
      "a comma-separated list of use cases",
      "  --usecase U,...  setup: what to install: rocm, runtime, hip-sdk, ml-sdk,\n"
      "                   driver (default: rocm,driver; `rocm-doctor list usecases`)\n" },
    { "yes", no_argument, 0, RD_OPT_YES, FIELD(o.yes), parse_true, NULL,
      "  --yes            Do not ask for confirmation\n" },
    { "only", required_argument, 0, RD_OPT_ONLY, FIELD(o.only), parse_string, "a comma-separated list of ids",
      "  --only IDS       fix: only these fixes or findings (comma-separated)\n" },
    { "key-file", required_argument, 0, RD_OPT_KEY_FILE, FIELD(o.key_file), parse_string, NULL,
      "  --key-file FILE  fix, setup: AMD's signing key from a file (default: fetched\n"
      "                   from where repos.ini says, checked against its fingerprint)\n" },
    { "verbose", no_argument, 0, RD_OPT_VERBOSE, FIELD(o.verbose), parse_true, NULL,
      "  --verbose        fix, setup: also show what the package manager printed\n"
      "                   when a step could not be planned\n" },
    { "last", no_argument, 0, RD_OPT_LAST, FIELD(o.last), parse_true, NULL,
      "  --last           undo: the most recent run\n" },
    { "status", no_argument, 0, RD_OPT_STATUS, FIELD(o.status), parse_true, NULL,
      "  --status [RUN]   fix: the applied runs, what they changed and how they\n"
      "                   were verified after the reboot\n" },
    { "output", required_argument, 'o', RD_OPT_OUTPUT, FIELD(o.output), parse_string, NULL,
      "  -o, --output FILE  report: where to write the bundle (- for standard output)\n" },
    { "server", no_argument, 0, RD_OPT_SERVER, FIELD(o.server), parse_true, NULL,
      "  --server         list releases: the releases AMD's server (or the configured\n"
      "                   mirror) has that the tables lack\n" },
    { "on-unknown", required_argument, 0, RD_OPT_ON_UNKNOWN, FIELD(o.on_unknown), parse_string, NULL,
      "  --on-unknown ACT slurm: when the check cannot run, drain the node (drain,\n"
      "                   the default) or leave it as it is (keep); never resume\n" },
    { "from", required_argument, 0, RD_OPT_FLEET, FIELD(o.from), parse_string, NULL,
      "  --from DIR       fleet: the saved reports or facts files, one per node\n" },
    { "hosts", required_argument, 0, RD_OPT_FLEET, FIELD(o.hosts), parse_string, NULL,
      "  --hosts NODESET  fleet: check these nodes through clush, pdsh or ssh\n" },
    { "slurm", no_argument, 0, RD_OPT_FLEET, FIELD(o.slurm), parse_true, NULL,
      "  --slurm          fleet: check nodes through srun, one task per node\n" },
    { "nodes", required_argument, 0, RD_OPT_FLEET, FIELD(o.nodes), parse_string, NULL,
      "  --nodes LIST     fleet --slurm: these nodes (gpu[001-128])\n" },
    { "partition", required_argument, 0, RD_OPT_FLEET, FIELD(o.partition), parse_string, NULL,
      "  --partition P    fleet --slurm: the nodes of this partition\n" },
    { "parallel", required_argument, 0, RD_OPT_FLEET, FIELD(o.parallel), parse_parallel, NULL,
      "  --parallel N     fleet: nodes checked at once (default 64)\n" },
    { "node-timeout", required_argument, 0, RD_OPT_FLEET, FIELD(o.node_timeout), parse_seconds, NULL,
      "  --node-timeout SEC  fleet: give up on a node after SEC seconds (default 120)\n" },
    { "html", required_argument, 0, RD_OPT_FLEET, FIELD(o.html), parse_string, NULL,
      "  --html FILE      fleet: also write the report as one HTML page\n" },
    { "help", no_argument, 'h', 0, FIELD(want_help), parse_true, NULL, "  -h, --help       Show this help\n" },
    { "version", no_argument, 'V', 0, 0, parse_version, NULL,
      "  -V, --version    Show the version and the GPU targets of the embedded kernels\n" },
    { "list-verbs", no_argument, 0, OPT_HELP_LISTS, FIELD(list_verbs), parse_true, NULL, NULL },
    { "list-options", no_argument, 0, OPT_HELP_LISTS, FIELD(list_options), parse_true, NULL, NULL },
};

/* getopt's value for a row: its short form, else 256 and its index. */
#define LONG_ONLY 256

static const cli_option *option_of(int c)
{
    for (size_t i = 0; i < ELEMENTSOF(options); i++)
        if (c == (options[i].short_name ? options[i].short_name : LONG_ONLY + (int)i))
            return &options[i];
    return NULL;
}

static bool takes(const cli_option *opt, unsigned accepted)
{
    return opt->flag != OPT_HELP_LISTS && (opt->flag == 0 || (opt->flag & accepted));
}

static void print_options(unsigned accepted)
{
    printf("\nOptions:\n");
    for (size_t i = 0; i < ELEMENTSOF(options); i++)
        if (options[i].help && takes(&options[i], accepted))
            fputs(options[i].help, stdout);
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

static const rd_verb *find_verb(const char *name)
{
    for (size_t i = 0; i < ELEMENTSOF(verbs); i++)
        if (streq(name, verbs[i].name))
            return &verbs[i];
    return NULL;
}

/* Names the option given that the verb does not take with the lowest flag,
 * with the others of its flag ("--format/--json"): 3 then, else 0. */
static int reject_options(unsigned given, const char *verb, unsigned not_accepted)
{
    unsigned refused = given & not_accepted;
    if (!refused)
        return 0;
    unsigned flag = refused & -refused;
    strbuf b = { 0 };
    for (size_t i = 0; i < ELEMENTSOF(options); i++)
        if (options[i].flag == flag)
            strbuf_printf(&b, "%s--%s", b.len ? "/" : "", options[i].name);
    _cleanup_free_ char *names = strbuf_steal(&b);
    return rd_usage_error("%s is not an option of the %s command", names, verb);
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
        if (!takes(&options[i], accepted))
            continue;
        const char *value = options[i].has_arg == required_argument ? "=" : "";
        printf("--%s%s\n", options[i].name, value);
        if (options[i].short_name)
            printf("-%c%s\n", options[i].short_name, value);
    }
    return finish_stdout();
}

/* rocm-doctor help [COMMAND], help --list-verbs, help --list-options [COMMAND]. */
static int help_command(const char *name, const cli_args *a)
{
    const rd_verb *verb = name ? find_verb(name) : NULL;
    if (name && !verb)
        return rd_usage_error("unknown command \"%s\"", name);
    if (a->list_verbs)
        return list_verbs();
    if (a->list_options)
        return list_options(verb ? verb->options : ~0u);
    return help(verb);
}

/* The options of argv into *a, through getopt_long with the table's array:
 * PARSE_GO_ON, or the exit status of --version or a usage error. */
static int parse_options(int argc, char **argv, cli_args *a)
{
    struct option longopts[ELEMENTSOF(options) + 1] = { 0 };
    char shortopts[2 * ELEMENTSOF(options) + 2] = ":";
    size_t n = 1;
    for (size_t i = 0; i < ELEMENTSOF(options); i++) {
        const cli_option *opt = &options[i];
        int val = opt->short_name ? opt->short_name : LONG_ONLY + (int)i;
        longopts[i] = (struct option){ opt->name, opt->has_arg, NULL, val };
        if (opt->short_name) {
            shortopts[n++] = opt->short_name;
            if (opt->has_arg == required_argument)
                shortopts[n++] = ':';
        }
    }
    int c;
    opterr = 0;
    /* GNU getopt permutes: options may come before or after the command */
    while ((c = getopt_long(argc, argv, shortopts, longopts, NULL)) != -1) {
        const cli_option *opt = c == ':' || c == '?' ? NULL : option_of(c);
        if (c == ':')
            return rd_usage_error("option %s needs an argument", argv[optind - 1]);
        if (!opt)
            return rd_usage_error("unknown option %s", argv[optind - 1]);
        int r = opt->parse(opt, optarg, (char *)a + opt->field);
        if (r != PARSE_GO_ON)
            return r;
        a->given |= opt->flag & ~OPT_HELP_LISTS;
    }
    return PARSE_GO_ON;
}

int main(int argc, char **argv)
{
    cli_args a = { .o = { .color = -1 } };
    int r = parse_options(argc, argv, &a);
    if (r != PARSE_GO_ON)
        return r;
    rd_options *o = &a.o;
    const char *name = optind < argc ? argv[optind++] : NULL;
    bool is_help = name && streq(name, "help");
    if ((a.list_verbs || a.list_options) && !is_help)
        return rd_usage_error("%s is an option of the help command", a.list_verbs ? "--list-verbs" : "--list-options");
    if (name && streq(name, "version"))
        return version();
    if (is_help) /* rocm-doctor help [COMMAND] */
        return help_command(optind < argc ? argv[optind] : NULL, &a);
    const rd_verb *verb = find_verb(name ? name : "check");
    if (!verb)
        return rd_usage_error("unknown command \"%s\"", name);
    if (a.want_help)
        return help(name ? verb : NULL);
    if (verb->run == rd_verb_fix && o->status)
        verb = &fix_status;
    /* the options are checked against the verb's table entry here, never in the verbs */
    r = reject_options(a.given, verb->name, ~verb->options);
    if (r == 0)
        r = check_args(verb, argv + optind, (size_t)(argc - optind));
    if (r != 0)
        return r;
    _cleanup_free_ char *python = NULL;
    if ((r = check_paths(o, &python)) != 0)
        return r;
    return verb->run(o, argv + optind, (size_t)(argc - optind));
}
