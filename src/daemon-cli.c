/* SPDX-License-Identifier: MIT */
/* The messages the shared check code prints (cli.h), with the daemon's
 * name: rocm-doctord links the check code, not rocm-doctor's main. */
#include <stdarg.h>
#include <stdio.h>
#include "cli.h"
#include "findings.h"

int rd_usage_error(const char *fmt, ...)
{
    va_list ap;
    fputs("rocm-doctord: ", stderr);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputs("\nTry 'rocm-doctord --help' for more information.\n", stderr);
    return RD_EXIT_UNKNOWN;
}

int rd_fail(const char *fmt, ...)
{
    va_list ap;
    fputs("rocm-doctord: ", stderr);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    return RD_EXIT_UNKNOWN;
}

bool rd_cli_want_color(int setting)
{
    /* the daemon never writes a text report to a terminal */
    return setting > 0;
}
