/* SPDX-License-Identifier: MIT */
/* list: the knowledge the checks use (archs, releases, gpus, usecases),
 * every check and every fix. This file takes the argument and gathers the
 * tables; src/report/report-list.c renders them. */
#include <stdio.h>
#include "cli.h"
#include "context.h"
#include "fixes.h"
#include "registry.h"
#include "report-list.h"
#include "util.h"

#define LISTS RD_CLI_LIST_TOPICS

/* clang-format off */
static const struct {
    const char *name;
    rd_list_kind kind;
    bool knowledge; /* made of the knowledge tables: they are loaded first */
} lists[] = {
    { "archs",    RD_LIST_ARCHS,    true },
    { "releases", RD_LIST_RELEASES, true },
    { "checks",   RD_LIST_CHECKS,   false },
    { "usecases", RD_LIST_USECASES, true },
    { "gpus",     RD_LIST_GPUS,     true },
    { "fixes",    RD_LIST_FIXES,    false },
};
/* clang-format on */

static int print_list(rd_list_kind kind, const rd_list_input *in, bool json)
{
    int r;
    if (json)
        r = rd_cli_print_json(rd_report_list_json(kind, in));
    else {
        rd_report_list_text(stdout, kind, in);
        r = fflush(stdout) != 0 ? -EIO : 0;
    }
    return r < 0 ? rd_fail("cannot write to standard output") : 0;
}

int rd_verb_list(const rd_options *o, char **args, size_t n_args)
{
    if (o->format_set && o->format != RD_FORMAT_TEXT && o->format != RD_FORMAT_JSON)
        return rd_usage_error("%s", "list prints text or json");
    size_t i = 0;
    while (i < ELEMENTSOF(lists) && !streq(args[0], lists[i].name))
        i++;
    if (i == ELEMENTSOF(lists))
        return rd_usage_error("cannot list \"%s\": " LISTS, args[0]);

    rd_knowledge k = { 0 };
    rd_list_input in = { .knowledge = &k, .probes = &rd_probe_registry, .fixes = &rd_fix_registry };
    if (lists[i].knowledge) {
        _cleanup_free_ char *err = NULL;
        if (rd_knowledge_load(rd_data_dir(), &k, &err) < 0)
            return rd_fail("%s", err);
    }
    int r = print_list(lists[i].kind, &in, o->format == RD_FORMAT_JSON);
    rd_knowledge_free(&k);
    return r;
}
