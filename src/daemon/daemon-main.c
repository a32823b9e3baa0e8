/* SPDX-License-Identifier: MIT */
/* rocm-doctord: keeps the ROCm diagnosis of this host current. */
#include <getopt.h>
#include <stdio.h>
#include "build-config.h"
#include "daemon.h"
#include "findings.h"
#include "util.h"

static void help(void)
{
    printf("Usage: rocm-doctord [OPTIONS]\n"
           "Keep the ROCm diagnosis of this host current: re-check when a GPU, its driver\n"
           "or a file the checks read changes, and publish the result.\n"
           "\n"
           "Options:\n"
           "  --once           Check once, write the outputs and exit (the boot check)\n"
           "  --config FILE    Read only this configuration file\n"
           "  --root DIR       Inspect the OS installation under DIR; outputs are written\n"
           "                   under DIR too\n"
           "  -h, --help       Show this help\n"
           "  -V, --version    Show the version\n"
           "\n"
           "Exit status (--once): 0 healthy, 1 warnings, 2 errors, 3 the check could not run.\n"
           "See rocm-doctord(8).\n");
}

int main(int argc, char **argv)
{
    enum { OPT_ROOT = 256, OPT_CONFIG, OPT_ONCE };
    /* clang-format off */
    static const struct option longopts[] = {
        { "root", required_argument, NULL, OPT_ROOT },
        { "config", required_argument, NULL, OPT_CONFIG },
        { "once", no_argument, NULL, OPT_ONCE },
        { "help", no_argument, NULL, 'h' },
        { "version", no_argument, NULL, 'V' },
        { 0 },
    };
    /* clang-format on */
    rd_daemon_options o = { 0 };
    int c;
    opterr = 0;
    while ((c = getopt_long(argc, argv, ":hV", longopts, NULL)) != -1) {
        switch (c) {
        case OPT_ROOT: o.root = optarg; break;
        case OPT_CONFIG:
            if (!*optarg)
                return rd_daemon_usage_error("%s", "--config needs a file name");
            o.config_file = optarg;
            break;
        case OPT_ONCE: o.once = true; break;
        case 'h': help(); return 0;
        case 'V': printf("rocm-doctord %s\n", PACKAGE_VERSION); return 0;
        case ':': return rd_daemon_usage_error("%s needs an argument", argv[optind - 1]);
        default: return rd_daemon_usage_error("unknown option %s", argv[optind - 1]);
        }
    }
    if (optind < argc)
        return rd_daemon_usage_error("unexpected argument \"%s\"", argv[optind]);
    /* A line at a time: the journal or a test reads stderr as it comes. */
    setvbuf(stderr, NULL, _IOLBF, 0);
    return o.once ? rd_daemon_run_once(&o) : rd_daemon_run(&o);
}
