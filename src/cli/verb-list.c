/* SPDX-License-Identifier: MIT */
/* list: the knowledge the checks use (archs, releases, gpus, usecases),
 * every check and every fix. This file takes the argument and gathers the
 * tables; src/report/report-list.c renders them. */
#include <stdio.h>
#include "cli.h"
#include "context.h"
#include "fixes.h"
#include "installer.h"
#include "registry.h"
#include "repo-url.h"
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

/* list releases --server: the amdgpu-install/ index of the configured
 * repository base (AMD's server or the mirror) against repos.ini. */
static int print_server_releases(const rd_options *o, rd_list_input *in)
{
    _cleanup_strv_free_ char **fix_ids = rd_fix_table_ids(&rd_fix_registry);
    const rd_config_ids ids = { .probes = &rd_probe_registry, .fix_ids = fix_ids };
    _cleanup_free_ char *err = NULL;
    rd_config config;
    if (rd_config_load(&ids, "/", o->config_file, &config, &err) < 0)
        return rd_fail("%s", err);
    _cleanup_strv_free_ char **releases = NULL;
    int r = rd_installer_list_releases(&config, in->knowledge, &releases, &err);
    if (r < 0) {
        rd_config_free(&config);
        return rd_fail("%s", err);
    }
    in->server = rd_repo_base(&config);
    in->server_releases = releases;
    r = print_list(RD_LIST_SERVER_RELEASES, in, o->format == RD_FORMAT_JSON);
    in->server = NULL;
    rd_config_free(&config);
    return r;
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

    if (o->server && lists[i].kind != RD_LIST_RELEASES)
        return rd_usage_error("%s", "--server lists releases only: rocm-doctor list releases --server");
    if (o->config_file && !o->server)
        return rd_usage_error("%s", "--config is for list releases --server (the mirror it names)");

    rd_knowledge k = { 0 };
    rd_list_input in = { .knowledge = &k, .probes = &rd_probe_registry, .fixes = &rd_fix_registry };
    if (lists[i].knowledge) {
        _cleanup_free_ char *err = NULL;
        if (rd_knowledge_load(rd_data_dir(), &k, &err) < 0)
            return rd_fail("%s", err);
    }
    int r = o->server ? print_server_releases(o, &in) : print_list(lists[i].kind, &in, o->format == RD_FORMAT_JSON);
    rd_knowledge_free(&k);
    return r;
}
