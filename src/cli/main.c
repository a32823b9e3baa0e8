/* SPDX-License-Identifier: MIT */
/* rocm-doctor: find out why ROCm does not work on this host. */
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <unistd.h>
#include "cli.h"
#include "build-config.h"
#include "findings.h"
#include "util.h"

static const rd_verb verbs[] = {
    { "check", "Diagnose this host (the default)", rd_verb_check },
    { "facts", "Print what was learned about the host, as JSON", rd_verb_facts },
    { "list", "List the knowledge: archs, releases, checks", rd_verb_list },
    { "explain", "Explain an error message and find its cause on this host", rd_verb_explain },
    { "fix", "Show the plan that fixes the findings; --apply runs it", rd_verb_fix },
    { "undo", "Undo an applied fix run (--last or RUN-ID)", rd_verb_undo },
    { "verify", "Run a GPU kernel on every GPU (level 2) and report", rd_verb_verify },
    { "report", "Write a support bundle (-o FILE)", rd_verb_report },
};

static void help(void)
{
    printf("Usage: rocm-doctor [COMMAND] [OPTIONS] [ARGS]\n"
           "Find out why ROCm does not work on this host, and what fixes it.\n"
           "\n"
           "Commands:\n");
    for (size_t i = 0; i < ELEMENTSOF(verbs); i++)
        printf("  %-16s %s\n", verbs[i].name, verbs[i].summary);
    printf("  %-16s %s\n  %-16s %s\n", "help", "Show this help", "version", "Show the version");
    printf("\n"
           "Options:\n"
           "  --root DIR       Inspect (or fix) the OS installation under DIR (hardware is\n"
           "                   always the running kernel's /sys, /dev and /proc)\n"
           "  --user NAME      Whose access to the GPUs to check (default: the invoking\n"
           "                   user, or SUDO_USER under sudo)\n"
           "  --facts FILE     Diagnose a saved facts file instead of this host\n"
           "  --config FILE    Read only this configuration file\n"
           "  --format FMT     text, json, prometheus or nfd\n"
           "  --json           Same as --format json\n"
           "  --level 1|2      1: static checks; 2: also run a GPU kernel\n"
           "  --timeout SEC    Level 2: give up on the GPU after SEC seconds (default 20)\n"
           "  --with-python    Also check the installed PyTorch build\n"
           "  --color WHEN     auto, always or never (NO_COLOR is honoured)\n"
           "  --apply          fix: carry out the plan (needs root)\n"
           "  --yes            fix: do not ask for confirmation\n"
           "  --only IDS       fix: only these fixes or findings (comma-separated)\n"
           "  --key-file FILE  fix: the apt repository signing key to install\n"
           "  --last           undo: the most recent run\n"
           "  -o, --output FILE  report: where to write the bundle\n"
           "  -h, --help       Show this help\n"
           "  --version        Show the version\n"
           "\n"
           "Exit status: 0 healthy, 1 warnings, 2 errors, 3 the check could not run.\n"
           "See rocm-doctor(8) for the findings and the JSON format.\n");
}

int rd_usage_error(const char *fmt, ...)
{
    va_list ap;
    fputs("rocm-doctor: ", stderr);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputs("\nTry 'rocm-doctor --help' for more information.\n", stderr);
    return RD_EXIT_UNKNOWN;
}

int rd_fail(const char *fmt, ...)
{
    va_list ap;
    fputs("rocm-doctor: ", stderr);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    return RD_EXIT_UNKNOWN;
}

int rd_cli_reject(const rd_options *o, const char *verb, unsigned not_accepted)
{
    static const struct {
        unsigned flag;
        const char *name;
    } names[] = {
        { RD_OPT_ROOT, "--root" }, { RD_OPT_USER, "--user" }, { RD_OPT_FACTS, "--facts" },
        { RD_OPT_CONFIG, "--config" }, { RD_OPT_FORMAT, "--format/--json" },
        { RD_OPT_LEVEL, "--level" }, { RD_OPT_WITH_PYTHON, "--with-python" },
        { RD_OPT_TIMEOUT, "--timeout" }, { RD_OPT_APPLY, "--apply" }, { RD_OPT_YES, "--yes" },
        { RD_OPT_ONLY, "--only" }, { RD_OPT_KEY_FILE, "--key-file" }, { RD_OPT_LAST, "--last" },
        { RD_OPT_OUTPUT, "--output" },
    };
    unsigned given = (o->root ? RD_OPT_ROOT : 0) | (o->user ? RD_OPT_USER : 0) |
                     (o->facts_file ? RD_OPT_FACTS : 0) | (o->config_file ? RD_OPT_CONFIG : 0) |
                     (o->format_set ? RD_OPT_FORMAT : 0) | (o->level ? RD_OPT_LEVEL : 0) |
                     (o->with_python ? RD_OPT_WITH_PYTHON : 0) | (o->timeout_s ? RD_OPT_TIMEOUT : 0) |
                     (o->apply ? RD_OPT_APPLY : 0) | (o->yes ? RD_OPT_YES : 0) |
                     (o->only ? RD_OPT_ONLY : 0) | (o->key_file ? RD_OPT_KEY_FILE : 0) |
                     (o->last ? RD_OPT_LAST : 0) | (o->output ? RD_OPT_OUTPUT : 0);
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
    const char *s = json_object_to_json_string_ext(j, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_NOSLASHESCAPE);
    int r = puts(s) < 0 || fflush(stdout) != 0 ? -EIO : 0;
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
    static const char *const names[] = {
        [RD_FORMAT_TEXT] = "text", [RD_FORMAT_JSON] = "json",
        [RD_FORMAT_PROMETHEUS] = "prometheus", [RD_FORMAT_NFD] = "nfd",
    };
    for (size_t i = 0; i < ELEMENTSOF(names); i++)
        if (streq(arg, names[i]))
            return set_format(o, (rd_format)i);
    return rd_usage_error("--format must be text, json, prometheus or nfd, not \"%s\"", arg);
}

int main(int argc, char **argv)
{
    enum {
        OPT_ROOT = 256, OPT_USER, OPT_FACTS, OPT_CONFIG, OPT_FORMAT, OPT_JSON, OPT_LEVEL,
        OPT_TIMEOUT, OPT_WITH_PYTHON, OPT_COLOR, OPT_APPLY, OPT_YES, OPT_ONLY, OPT_KEY_FILE,
        OPT_LAST, OPT_VERSION,
    };
    static const struct option longopts[] = {
        { "root", required_argument, NULL, OPT_ROOT },
        { "user", required_argument, NULL, OPT_USER },
        { "facts", required_argument, NULL, OPT_FACTS },
        { "config", required_argument, NULL, OPT_CONFIG },
        { "format", required_argument, NULL, OPT_FORMAT },
        { "json", no_argument, NULL, OPT_JSON },
        { "level", required_argument, NULL, OPT_LEVEL },
        { "timeout", required_argument, NULL, OPT_TIMEOUT },
        { "with-python", no_argument, NULL, OPT_WITH_PYTHON },
        { "color", required_argument, NULL, OPT_COLOR },
        { "apply", no_argument, NULL, OPT_APPLY },
        { "yes", no_argument, NULL, OPT_YES },
        { "only", required_argument, NULL, OPT_ONLY },
        { "key-file", required_argument, NULL, OPT_KEY_FILE },
        { "last", no_argument, NULL, OPT_LAST },
        { "output", required_argument, NULL, 'o' },
        { "help", no_argument, NULL, 'h' },
        { "version", no_argument, NULL, OPT_VERSION },
        { 0 },
    };
    rd_options o = { .color = -1 };
    int c, r;
    uint64_t u;
    opterr = 0;
    /* GNU getopt permutes: options may come before or after the command */
    while ((c = getopt_long(argc, argv, ":ho:", longopts, NULL)) != -1) {
        switch (c) {
        case OPT_ROOT: o.root = optarg; break;
        case OPT_USER:
            if (!*optarg)
                return rd_usage_error("%s", "--user needs a user name");
            o.user = optarg;
            break;
        case OPT_FACTS: o.facts_file = optarg; break;
        case OPT_CONFIG: o.config_file = optarg; break;
        case OPT_FORMAT:
            if ((r = parse_format(optarg, &o)) != 0)
                return r;
            break;
        case OPT_JSON:
            if ((r = set_format(&o, RD_FORMAT_JSON)) != 0)
                return r;
            break;
        case OPT_LEVEL:
            if (!streq(optarg, "1") && !streq(optarg, "2"))
                return rd_usage_error("--level must be 1 or 2, not \"%s\"", optarg);
            o.level = optarg[0] - '0';
            break;
        case OPT_TIMEOUT:
            if (safe_atou64(optarg, 10, &u) < 0 || u == 0 || u > 3600)
                return rd_usage_error("--timeout must be a number of seconds from 1 to 3600, not \"%s\"", optarg);
            o.timeout_s = (int64_t)u;
            break;
        case OPT_WITH_PYTHON: o.with_python = true; break;
        case OPT_COLOR:
            if (streq(optarg, "auto"))
                o.color = -1;
            else if (streq(optarg, "always"))
                o.color = 1;
            else if (streq(optarg, "never"))
                o.color = 0;
            else
                return rd_usage_error("--color must be auto, always or never, not \"%s\"", optarg);
            break;
        case OPT_APPLY: o.apply = true; break;
        case OPT_YES: o.yes = true; break;
        case OPT_ONLY:
            if (!*optarg)
                return rd_usage_error("%s", "--only needs a comma-separated list of ids");
            o.only = optarg;
            break;
        case OPT_KEY_FILE: o.key_file = optarg; break;
        case OPT_LAST: o.last = true; break;
        case 'o': o.output = optarg; break;
        case 'h': help(); return RD_EXIT_OK;
        case OPT_VERSION: printf("rocm-doctor %s\n", PACKAGE_VERSION); return RD_EXIT_OK;
        case ':': return rd_usage_error("option %s needs an argument", argv[optind - 1]);
        default: return rd_usage_error("unknown option %s", argv[optind - 1]);
        }
    }
    const char *verb = optind < argc ? argv[optind++] : "check";
    if (streq(verb, "help")) {
        help();
        return RD_EXIT_OK;
    }
    if (streq(verb, "version")) {
        printf("rocm-doctor %s\n", PACKAGE_VERSION);
        return RD_EXIT_OK;
    }
    for (size_t i = 0; i < ELEMENTSOF(verbs); i++)
        if (streq(verb, verbs[i].name))
            return verbs[i].run(&o, argv + optind, (size_t)(argc - optind));
    return rd_usage_error("unknown command \"%s\"", verb);
}
