/* SPDX-License-Identifier: MIT */
/* Test driver for the fix engine: plans, applies or undoes on a root from a
 * facts file, with the [fix] policy given as options instead of
 * rocm-doctor.conf (so tests cover apt, overrides and the all-users udev
 * rule whatever the configuration loader does). Output as `rocm-doctor fix`
 * prints it.
 *
 *   fix-driver ROOT FACTS plan|apply|undo [--release R] [--key-file F]
 *              [--fingerprint FPR] [--graphics] [--driver] [--allow-overrides]
 *              [--all-users] [--group G] [--only IDS] [--users A,B]
 *              [--finding ID:FIX:GPU]... [--key-url URL]
 *
 * --finding adds a finding as a check of another area would report it
 * (GPU: a PCI address, or empty), for fixes whose findings come from checks
 * that are not part of this build. */
#include <fcntl.h>
#include <getopt.h>
#include "check.h"
#include "config.h"
#include "context.h"
#include "facts-json.h"
#include "fix.h"
#include "journal.h"
#include "util.h"

static char **split_commas(const char *s)
{
    char **v = NULL;
    _cleanup_free_ char *c = xstrdup(s);
    char *save = NULL;
    for (char *w = strtok_r(c, ",", &save); w; w = strtok_r(NULL, ",", &save))
        v = strv_push(v, xstrdup(w));
    return v;
}

int main(int argc, char **argv)
{
    static const struct option opts[] = {
        { "release", required_argument, NULL, 'r' }, { "key-file", required_argument, NULL, 'k' },
        { "fingerprint", required_argument, NULL, 'f' }, { "graphics", no_argument, NULL, 'g' },
        { "driver", no_argument, NULL, 'd' }, { "allow-overrides", no_argument, NULL, 'o' },
        { "all-users", no_argument, NULL, 'a' }, { "group", required_argument, NULL, 'G' },
        { "only", required_argument, NULL, 'O' }, { "users", required_argument, NULL, 'u' },
        { "finding", required_argument, NULL, 'F' }, { "key-url", required_argument, NULL, 'U' }, { 0 },
    };
    rd_config config;
    rd_config_init(&config);
    char **only = NULL;
    const char *key_file = NULL;
    char **extra = NULL;
    int c;
    while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
        switch (c) {
        case 'r': config.rocm_release = xstrdup(optarg); break;
        case 'k': key_file = optarg; break;
        case 'f': config.apt_key_fingerprint = xstrdup(optarg); break;
        case 'g': config.apt_graphics = true; break;
        case 'd': config.apt_driver = true; break;
        case 'o': config.allow_overrides = true; break;
        case 'a': config.udev_all_users = true; break;
        case 'G': free(config.access_group); config.access_group = xstrdup(optarg); break;
        case 'O': only = split_commas(optarg); break;
        case 'u': config.users = split_commas(optarg); break;
        case 'F': extra = strv_push(extra, xstrdup(optarg)); break;
        case 'U': config.apt_key_url = xstrdup(optarg); break;
        default: return 3;
        }
    }
    if (argc - optind != 3) {
        fprintf(stderr, "usage: fix-driver ROOT FACTS plan|apply|undo [OPTIONS]\n");
        return 3;
    }
    const char *root_arg = argv[optind], *facts_file = argv[optind + 1], *verb = argv[optind + 2];
    if (streq(verb, "diff")) {
        /* fix-driver A B diff: the plan's diff of file A (before) to B */
        char *a = NULL, *b = NULL;
        size_t na = 0, nb = 0;
        if (read_file_at(AT_FDCWD, root_arg, 1u << 24, &a, &na) < 0 ||
            read_file_at(AT_FDCWD, facts_file, 1u << 24, &b, &nb) < 0)
            return 3;
        char *d = rd_unified_diff("file", a, na, true, b, nb, true);
        fputs(d, stdout);
        free(d);
        free(a);
        free(b);
        rd_config_free(&config);
        strv_free(only);
        return 0;
    }
    char *err = NULL;
    rd_ctx ctx;
    if (rd_ctx_init(&ctx, root_arg, NULL, &err) < 0) {
        fprintf(stderr, "fix-driver: %s\n", err);
        return 3;
    }
    int r = 0;
    if (streq(verb, "undo")) {
        rd_apply_result res = { 0 };
        r = rd_journal_undo(ctx.root, ctx.root_fd, NULL, &res, &err);
        if (r < 0) {
            fprintf(stderr, "fix-driver: %s\n", err);
            return 3;
        }
        printf("Undid run %s.\n", res.run_id);
        rd_apply_result_free(&res);
        rd_config_free(&config);
        strv_free(only);
        rd_ctx_free(&ctx);
        return 0;
    }
    rd_facts facts;
    if (rd_facts_load(facts_file, &facts, &err) < 0) {
        fprintf(stderr, "fix-driver: %s\n", err);
        return 3;
    }
    rd_gpu_view view;
    rd_findings findings;
    rd_assess(&facts, &ctx.knowledge, &view, &findings);
    for (size_t i = 0; extra && extra[i]; i++) {
        char *id = extra[i], *fix = strchr(id, ':'), *gpu = fix ? strchr(fix + 1, ':') : NULL;
        if (!gpu) {
            fprintf(stderr, "fix-driver: --finding wants ID:FIX:GPU, not %s\n", id);
            return 3;
        }
        *fix++ = 0;
        *gpu++ = 0;
        rd_finding *f = rd_finding_add(&findings, id, RD_SEV_ERROR, *gpu ? gpu : NULL, "injected by the test");
        rd_finding_set_fix(f, fix);
    }
    strv_free(extra);
    rd_fix_input in = {
        .root = ctx.root, .root_fd = ctx.root_fd, .config = &config, .facts = &facts, .gpus = &view,
        .findings = &findings, .knowledge = &ctx.knowledge, .only = only, .key_file = key_file,
    };
    rd_plan plan;
    if (rd_plan_build(&in, &plan, &err) < 0) {
        fprintf(stderr, "fix-driver: %s\n", err);
        return 3;
    }
    rd_plan_print(&plan, stdout);
    fflush(stdout);
    if (streq(verb, "apply") && plan.n_steps > 0) {
        rd_apply_result res = { 0 };
        if (rd_plan_apply(&plan, ctx.root_fd, &res, &err) < 0) {
            fprintf(stderr, "fix-driver: %s\n", err);
            r = 3;
        } else {
            printf("Applied as run %s.\n", res.run_id);
            rd_apply_result_free(&res);
        }
    } else if (streq(verb, "plan"))
        r = plan.n_steps > 0 ? 1 : 0;
    free(err);
    rd_plan_free(&plan);
    rd_findings_free(&findings);
    rd_gpu_view_free(&view);
    rd_facts_free(&facts);
    strv_free(only);
    rd_config_free(&config);
    rd_ctx_free(&ctx);
    return r;
}
