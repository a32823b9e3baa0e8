/* SPDX-License-Identifier: MIT */
/* setup: fix's plan (verb-fix.c) over every fix a working ROCm needs
 * (repository, packages, access), finding or not, for the release and use
 * cases asked for. */
#include <stdio.h>
#include "cli.h"
#include "installer.h"
#include "json-util.h"
#include "report-plan.h"
#include "run.h"
#include "util.h"

/* setup's --release: a release of the support table that AMD ships for
 * this OS; refused with the valid values otherwise. */
static int check_release(const rd_options *o, const rd_run *run, const char *release)
{
    const rd_knowledge *k = &run->ctx.knowledge;
    const rd_os_facts *os = &run->facts.os;
    if (!os->id)
        return rd_usage_error("--release %s: %s has no os-release (etc/os-release, usr/lib/os-release): which OS "
                              "to set up is unknown",
                              release, o->root ? o->root : "this host");
    strbuf valid = { 0 };
    bool known = false, shipped = false;
    /* an OS release no ROCm release lists (Ubuntu 25.10) takes the packages
     * of the nearest one of its family */
    bool unlisted = !rd_support_lists_os(k, os);
    for (size_t i = 0; i < k->n_releases; i++) {
        const rd_release *rel = &k->releases[i];
        bool here = rd_release_find_os(rel, os->id, os->version_id) != NULL ||
                    (unlisted && rd_support_nearest_os(rel, os) != NULL);
        if (here)
            strbuf_printf(&valid, "%s%s (%s)", valid.len ? ", " : "", rel->line, rel->latest);
        if (rd_knowledge_release(k, release) == rel) {
            known = true;
            shipped = here;
        }
    }
    _cleanup_free_ char *list = valid.len ? strbuf_steal(&valid) : xstrdup("none");
    const rd_repo_row *newest = rd_repos_newest(k);
    if (!known && !rd_repos_find(k, release) && newest && rd_version_compare(release, newest->release) > 0) {
        /* newer than the tables: its folders come from AMD's installer
         * package, which the server must have for this OS */
        _cleanup_installer_info_ rd_installer_info info = { 0 };
        _cleanup_free_ char *why = NULL;
        if (rd_installer_read(&run->config, k, os, release, &info, &why) < 0)
            return rd_fail("--release %s: %s; the releases rocm-doctor's tables have for %s %s: %s", release, why,
                           strempty(os->id), strempty(os->version_id), list);
        return 0;
    }
    if (!known)
        return rd_usage_error("--release %s: no such ROCm release in support.ini; for %s %s: %s", release,
                              strempty(os->id), strempty(os->version_id), list);
    if (!shipped)
        return rd_usage_error("--release %s: AMD does not ship ROCm %s for %s %s; releases for it: %s", release,
                              release, strempty(os->id), strempty(os->version_id), list);
    if (k->n_repos > 0 && !rd_repos_find(k, release)) {
        _cleanup_free_ char *why = rd_repos_unknown_release(k, release);
        return rd_usage_error("--release %s: %s", release, why);
    }
    return 0;
}

static int parse_usecases(const rd_run *run, const char *release, const char *arg, char ***ret)
{
    const rd_knowledge *k = &run->ctx.knowledge;
    _cleanup_strv_free_ char **v = strv_split(arg, ",");
    strbuf valid = { 0 };
    for (size_t i = 0; i < k->packages.n_usecases; i++)
        strbuf_printf(&valid, "%s%s", i ? ", " : "", k->packages.usecases[i].name);
    _cleanup_free_ char *list = valid.len ? strbuf_steal(&valid) : xstrdup("none (packages.ini is missing)");
    for (size_t i = 0; v && v[i]; i++) {
        const rd_usecase *u = rd_knowledge_usecase(k, v[i]);
        if (!u)
            return rd_usage_error("--usecase: \"%s\" is not a use case (%s)", v[i], list);
        if (release && u->since && rd_version_compare(release, u->since) < 0)
            return rd_usage_error("--usecase %s: AMD ships it from ROCm %s on, not in %s", v[i], u->since, release);
    }
    if (!v)
        return rd_usage_error("--usecase needs one of %s", list);
    *ret = TAKE_PTR(v);
    return 0;
}

#define NO_GPU_TEXT                                                                                                    \
    "No AMD GPU is visible on this host (gpu.none): nothing to set up here. To prepare an OS image for a machine "     \
    "with one, pass --root DIR (and --facts FILE of that machine)."

static int no_gpu_here(const rd_options *o)
{
    if (o->format == RD_FORMAT_JSON) {
        json_object *j = json_object_new_object();
        rd_json_set_str(j, "schema", RD_PLAN_SCHEMA);
        rd_json_set_str(j, "root", "/");
        rd_json_add(j, "steps", json_object_new_array());
        rd_json_add(j, "not_planned", json_object_new_array());
        rd_json_set_str(j, "nothing_to_set_up", NO_GPU_TEXT);
        return rd_cli_print_json(j) < 0 ? rd_fail("cannot write to standard output") : 0;
    }
    puts(NO_GPU_TEXT);
    return fflush(stdout) == 0 && !ferror(stdout) ? 0 : rd_fail("cannot write to standard output");
}

/* What setup checks once the check has run: a host with no AMD GPU and no
 * image to prepare has nothing to set up; --release and --usecase against
 * the tables. */
static int prepare(const rd_options *o, const rd_run *run, char ***ret_usecases)
{
    int r;
    /* a release that cannot be set up is refused whatever the host has */
    if (o->release && (r = check_release(o, run, o->release)) != 0)
        return r;
    if (!o->root && run->view.n_gpus == 0)
        return no_gpu_here(o);
    if (o->usecase && (r = parse_usecases(run, o->release, o->usecase, ret_usecases)) != 0)
        return r;
    return RD_CLI_GO_ON;
}

int rd_verb_setup(const rd_options *o, char **args, size_t n_args)
{
    static const rd_cli_setup setup = { .prepare = prepare };
    return rd_cli_plan_verb(o, &setup);
}
