/* SPDX-License-Identifier: MIT */
#include "check.h"

#include "util.h"

void rd_gather(const rd_probe_table *t, const rd_ctx *ctx, rd_facts *facts)
{
    free(facts->root);
    facts->root = xstrdup(ctx->root);
    if (ctx->cache) {
        rd_gather_cache_clear(ctx->cache);
        ctx->cache->active = true;
    }
    for (size_t i = 0; i < t->n_gather; i++)
        if (t->gather[i]->gather && !(t->gather[i]->flags & RD_PROBE_LEVEL2))
            t->gather[i]->gather(ctx, facts);
    if (ctx->cache) {
        ctx->cache->active = false;
        rd_gather_cache_clear(ctx->cache);
    }
}

void rd_gather_level2(const rd_probe_table *t, const rd_ctx *ctx, rd_facts *facts)
{
    for (size_t i = 0; i < t->n_gather; i++)
        if (t->gather[i]->gather && (t->gather[i]->flags & RD_PROBE_LEVEL2))
            t->gather[i]->gather(ctx, facts);
}

void rd_assess(const rd_probe_table *t, const rd_facts *facts, const rd_knowledge *k, rd_gpu_view *ret_view,
               rd_findings *ret_findings)
{
    rd_assess_with_config(t, facts, k, NULL, ret_view, ret_findings);
}

void rd_assess_with_config(const rd_probe_table *t, const rd_facts *facts, const rd_knowledge *k,
                           const struct rd_config *config, rd_gpu_view *ret_view, rd_findings *ret_findings)
{
    rd_gpu_view_build(facts, k, ret_view);
    rd_assess_input in = { .facts = facts, .knowledge = k, .gpus = ret_view, .config = config };
    rd_findings out = { 0 };
    for (size_t i = 0; i < t->n_assess; i++)
        if (t->assess[i]->assess)
            t->assess[i]->assess(&in, &out);
    rd_findings_sort(&out);
    *ret_findings = out;
}

static bool reports(const rd_probe *p, const char *id)
{
    for (const char *const *f = p->findings; f && *f; f++)
        if (streq(*f, id))
            return true;
    return false;
}

int rd_probe_table_check(const rd_probe_table *t, char **ret_error)
{
    for (size_t i = 0; i < t->n_assess; i++)
        for (const char *const *id = t->assess[i]->needs; id && *id; id++) {
            bool before = false, known = false;
            for (size_t j = 0; j < t->n_assess; j++)
                if (reports(t->assess[j], *id)) {
                    known = true;
                    before |= j < i;
                }
            if (!known || !before) {
                *ret_error = xasprintf("probe %s reads %s, which %s", t->assess[i]->id, *id,
                                       known ? "is assessed after it" : "no probe reports");
                return -EINVAL;
            }
        }
    return 0;
}

bool rd_probe_table_knows(const rd_probe_table *t, const char *id)
{
    /* the configuration's own finding (rd_config_apply) */
    if (streq(id, RD_CONFIG_FINDING))
        return true;
    for (size_t i = 0; i < t->n_gather; i++)
        if (reports(t->gather[i], id))
            return true;
    return false;
}

bool rd_probe_table_can_check(const rd_probe_table *t, const char *id, int level)
{
    for (size_t i = 0; i < t->n_gather; i++) {
        const rd_probe *p = t->gather[i];
        if (p->assess && !((p->flags & RD_PROBE_LEVEL2) && level < 2) && reports(p, id))
            return true;
    }
    return false;
}
