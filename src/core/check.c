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
    _cleanup_free_ const rd_probe **order = xcalloc(t->n_gather ? t->n_gather : 1, sizeof(rd_probe *));
    _cleanup_free_ char *err = NULL;
    if (rd_probe_assess_order(t, order, &err) < 0) /* the registry's test rules it out: the table's order */
        memcpy(order, t->gather, t->n_gather * sizeof(rd_probe *));
    for (size_t i = 0; i < t->n_gather; i++)
        if (order[i]->assess)
            order[i]->assess(&in, &out);
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

/* Whether probe p reads id: its .needs, or a catalogue row with one of
 * its .needs_flags. */
static bool needs_id(const rd_probe *p, const char *id)
{
    for (const char *const *n = p->needs; n && *n; n++)
        if (streq(*n, id))
            return true;
    const rd_finding_def *d = p->needs_flags ? rd_finding_lookup(id) : NULL;
    return d && (d->flags & p->needs_flags);
}

/* The first id p reads that no probe of t reports, or NULL. */
static const char *unreported_need(const rd_probe_table *t, const rd_probe *p)
{
    for (const char *const *n = p->needs; n && *n; n++)
        if (!rd_probe_table_knows(t, *n))
            return *n;
    for (size_t k = 0; p->needs_flags && k < RD_N_FINDINGS; k++)
        if ((rd_finding_catalogue[k].flags & p->needs_flags) && !rd_probe_table_knows(t, rd_finding_catalogue[k].id))
            return rd_finding_catalogue[k].id;
    return NULL;
}

/* Whether p must be assessed after q: p reads a finding q reports. */
static bool after(const rd_probe *p, const rd_probe *q)
{
    if (p == q || !p->assess || !q->assess)
        return false;
    for (const char *const *f = q->findings; f && *f; f++)
        if (needs_id(p, *f))
            return true;
    return false;
}

int rd_probe_assess_order(const rd_probe_table *t, const rd_probe **ret_order, char **ret_error)
{
    size_t n = t->n_gather;
    for (size_t i = 0; i < n; i++) {
        const char *id = unreported_need(t, t->gather[i]);
        if (id) {
            *ret_error = xasprintf("probe %s reads %s, which no probe reports", t->gather[i]->id, id);
            return -EINVAL;
        }
    }
    _cleanup_free_ bool *placed = xcalloc(n ? n : 1, sizeof(bool));
    /* a stable topological sort: each time the first probe of the table
     * whose causes are all placed */
    for (size_t k = 0; k < n; k++) {
        size_t pick = n;
        for (size_t i = 0; i < n && pick == n; i++) {
            if (placed[i])
                continue;
            bool ready = true;
            for (size_t j = 0; j < n && ready; j++)
                ready = placed[j] || !after(t->gather[i], t->gather[j]);
            if (ready)
                pick = i;
        }
        if (pick == n) {
            for (size_t i = 0; i < n; i++)
                if (!placed[i]) {
                    *ret_error = xasprintf("probe %s reads the findings of probes that read its own", t->gather[i]->id);
                    break;
                }
            return -ELOOP;
        }
        placed[pick] = true;
        ret_order[k] = t->gather[pick];
    }
    return 0;
}

int rd_probe_table_check(const rd_probe_table *t, char **ret_error)
{
    _cleanup_free_ const rd_probe **order = xcalloc(t->n_gather ? t->n_gather : 1, sizeof(rd_probe *));
    return rd_probe_assess_order(t, order, ret_error);
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
