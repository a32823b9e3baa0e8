/* SPDX-License-Identifier: MIT */
/* rocm-doctor: find out why ROCm does not work on this host. */
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <unistd.h>
#include "check.h"
#include "config.h"
#include "context.h"
#include "facts-json.h"
#include "report.h"
#include "util.h"

typedef struct {
    const char *root;
    const char *user;
    const char *facts_file;
    bool json;
    int level;
    int color; /* -1 auto, 0 never, 1 always */
} options;

static void help(void)
{
    printf("Usage: rocm-doctor [COMMAND] [OPTIONS]\n"
           "Find out why ROCm does not work on this host, and what fixes it.\n"
           "\n"
           "Commands:\n"
           "  check            Diagnose this host (the default)\n"
           "  facts            Print what was learned about the host, as JSON\n"
           "  help             Show this help\n"
           "  version          Show the version\n"
           "\n"
           "Options:\n"
           "  --root DIR       Inspect the OS installation under DIR (hardware is always\n"
           "                   the running kernel's /sys, /dev and /proc)\n"
           "  --user NAME      Whose access to the GPUs to check (default: the invoking\n"
           "                   user, or SUDO_USER under sudo)\n"
           "  --facts FILE     Diagnose a saved facts file instead of this host (check)\n"
           "  --json           Print the report as JSON\n"
           "  --level 1|2      1: static checks; 2: also run a GPU kernel (not yet available)\n"
           "  --color WHEN     auto, always or never (NO_COLOR is honoured)\n"
           "  -h, --help       Show this help\n"
           "  --version        Show the version\n"
           "\n"
           "Exit status: 0 healthy, 1 warnings, 2 errors, 3 the check could not run.\n"
           "See rocm-doctor(8) for the findings and the JSON format.\n");
}

static int __attribute__((format(printf, 1, 2))) usage_error(const char *fmt, ...)
{
    va_list ap;
    fputs("rocm-doctor: ", stderr);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputs("\nTry 'rocm-doctor --help' for more information.\n", stderr);
    return RD_EXIT_UNKNOWN;
}

static bool want_color(int setting)
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

static int print_json(json_object *j)
{
    const char *s = json_object_to_json_string_ext(j, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_NOSLASHESCAPE);
    int r = puts(s) < 0 || fflush(stdout) != 0 ? -EIO : 0;
    json_object_put(j);
    return r;
}

static int verb_facts(const options *o)
{
    if (o->facts_file)
        return usage_error("%s", "--facts is for the check command: facts always reads the live host");
    _cleanup_free_ char *err = NULL;
    rd_ctx ctx;
    if (rd_ctx_init(&ctx, o->root, o->user, &err) < 0) {
        fprintf(stderr, "rocm-doctor: %s\n", err);
        rd_ctx_free(&ctx);
        return RD_EXIT_UNKNOWN;
    }
    rd_facts facts;
    rd_facts_init(&facts);
    rd_gather(&ctx, &facts);
    int r = print_json(rd_facts_to_json(&facts));
    rd_facts_free(&facts);
    rd_ctx_free(&ctx);
    if (r < 0) {
        fprintf(stderr, "rocm-doctor: cannot write to standard output\n");
        return RD_EXIT_UNKNOWN;
    }
    return RD_EXIT_OK;
}

static int verb_check(const options *o)
{
    _cleanup_free_ char *err = NULL;
    rd_ctx ctx;
    rd_facts facts;
    rd_facts_init(&facts);
    if (rd_ctx_init(&ctx, o->facts_file ? "/" : o->root, o->user, &err) < 0) {
        fprintf(stderr, "rocm-doctor: %s\n", err);
        rd_ctx_free(&ctx);
        rd_facts_free(&facts);
        return RD_EXIT_UNKNOWN;
    }
    if (o->facts_file) {
        rd_facts_free(&facts);
        if (rd_facts_load(o->facts_file, &facts, &err) < 0) {
            fprintf(stderr, "rocm-doctor: %s\n", err);
            rd_ctx_free(&ctx);
            return RD_EXIT_UNKNOWN;
        }
    } else
        rd_gather(&ctx, &facts);

    rd_gpu_view view;
    rd_findings findings;
    rd_assess(&facts, &ctx.knowledge, &view, &findings);
    int status = rd_findings_exit_status(&findings);
    int r = 0;
    if (o->json)
        r = print_json(rd_report_json(&facts, &view, &findings, o->level));
    else {
        rd_report_text(stdout, &facts, &view, &findings, want_color(o->color));
        r = fflush(stdout) != 0 || ferror(stdout) ? -EIO : 0;
    }
    rd_findings_free(&findings);
    rd_gpu_view_free(&view);
    rd_facts_free(&facts);
    rd_ctx_free(&ctx);
    if (r < 0) {
        fprintf(stderr, "rocm-doctor: cannot write to standard output\n");
        return RD_EXIT_UNKNOWN;
    }
    return status;
}

static int parse_level(const char *arg, int *ret)
{
    if (streq(arg, "1")) {
        *ret = 1;
        return 0;
    }
    if (streq(arg, "2")) {
        fprintf(stderr, "rocm-doctor: --level 2 (running a GPU kernel) is not available in this version\n");
        return RD_EXIT_UNKNOWN;
    }
    return usage_error("--level must be 1 or 2, not \"%s\"", arg);
}

int main(int argc, char **argv)
{
    enum { OPT_ROOT = 256, OPT_USER, OPT_FACTS, OPT_JSON, OPT_LEVEL, OPT_COLOR, OPT_VERSION };
    static const struct option longopts[] = {
        { "root", required_argument, NULL, OPT_ROOT },
        { "user", required_argument, NULL, OPT_USER },
        { "facts", required_argument, NULL, OPT_FACTS },
        { "json", no_argument, NULL, OPT_JSON },
        { "level", required_argument, NULL, OPT_LEVEL },
        { "color", required_argument, NULL, OPT_COLOR },
        { "help", no_argument, NULL, 'h' },
        { "version", no_argument, NULL, OPT_VERSION },
        { 0 },
    };
    options o = { .level = 1, .color = -1 };
    int c, r;
    opterr = 0;
    /* GNU getopt permutes: options may come before or after the command */
    while ((c = getopt_long(argc, argv, ":h", longopts, NULL)) != -1) {
        switch (c) {
        case OPT_ROOT: o.root = optarg; break;
        case OPT_USER:
            if (!*optarg)
                return usage_error("%s", "--user needs a user name");
            o.user = optarg;
            break;
        case OPT_FACTS: o.facts_file = optarg; break;
        case OPT_JSON: o.json = true; break;
        case OPT_LEVEL:
            if ((r = parse_level(optarg, &o.level)) != 0)
                return r;
            break;
        case OPT_COLOR:
            if (streq(optarg, "auto"))
                o.color = -1;
            else if (streq(optarg, "always"))
                o.color = 1;
            else if (streq(optarg, "never"))
                o.color = 0;
            else
                return usage_error("--color must be auto, always or never, not \"%s\"", optarg);
            break;
        case 'h': help(); return RD_EXIT_OK;
        case OPT_VERSION: printf("rocm-doctor %s\n", PACKAGE_VERSION); return RD_EXIT_OK;
        case ':': return usage_error("option %s needs an argument", argv[optind - 1]);
        default: return usage_error("unknown option %s", argv[optind - 1]);
        }
    }
    const char *verb = optind < argc ? argv[optind++] : "check";
    if (optind < argc)
        return usage_error("unexpected argument \"%s\"", argv[optind]);

    if (streq(verb, "check"))
        return verb_check(&o);
    if (streq(verb, "facts"))
        return verb_facts(&o);
    if (streq(verb, "help")) {
        help();
        return RD_EXIT_OK;
    }
    if (streq(verb, "version")) {
        printf("rocm-doctor %s\n", PACKAGE_VERSION);
        return RD_EXIT_OK;
    }
    return usage_error("unknown command \"%s\"", verb);
}
