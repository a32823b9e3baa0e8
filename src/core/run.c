/* SPDX-License-Identifier: MIT */
#include "run.h"

#include "facts-json.h"
#include "util.h"

int rd_run_check(const rd_run_params *p, rd_run *r, char **ret_error)
{
    int e;
    *r = (rd_run){ .probes = p->probes };
    rd_facts_init(&r->facts);
    rd_config_init(&r->config);

    /* With a facts file nothing is read from the host; the root then only
     * says whose configuration applies. */
    if ((e = rd_ctx_init(&r->ctx, p->facts_file && !p->root ? "/" : p->root, p->user, ret_error)) < 0) {
        rd_ctx_free(&r->ctx);
        return e;
    }
    r->ctx_ready = true;
    if (!p->tables_on_first_use && (e = rd_knowledge_need(&r->ctx.knowledge, RD_KT_ALL, ret_error)) < 0)
        return e;

    rd_config_free(&r->config);
    const rd_config_ids ids = { .probes = p->probes, .fix_ids = p->fix_ids };
    if ((e = rd_config_load(&ids, r->ctx.root, p->config_file, &r->config, ret_error)) < 0)
        return e;
    r->ctx.config = &r->config;
    r->ctx.with_python = p->with_python || r->config.with_python;
    r->ctx.runtime_timeout_s = p->timeout_s > 0 ? p->timeout_s : r->config.runtime_timeout_s;
    r->ctx.python = p->python;
    r->ctx.rocm_path = p->rocm_path;
    r->level = p->level > 0 ? p->level : r->config.level;

    if (p->facts_file) {
        rd_facts_free(&r->facts);
        if ((e = rd_facts_load(p->facts_file, &r->facts, ret_error)) < 0)
            return e;
        /* Saved facts say themselves whether the runtime was run. */
        if (p->level == 0)
            r->level = r->facts.runtime.ran ? 2 : 1;
    } else {
        rd_gather(p->probes, &r->ctx, &r->facts);
        if (r->level >= 2)
            rd_gather_level2(p->probes, &r->ctx, &r->facts);
    }
    rd_run_assess(r);
    /* a table first asked for by the check, and malformed, fails it as at the start */
    return rd_knowledge_error(&r->ctx.knowledge, ret_error);
}

void rd_run_assess(rd_run *r)
{
    if (r->view_ready) {
        rd_findings_free(&r->findings);
        rd_gpu_view_free(&r->view);
    }
    rd_assess_with_config(r->probes, &r->facts, &r->ctx.knowledge, &r->config, &r->view, &r->findings);
    r->view_ready = true;
    rd_config_apply(&r->config, r->view.n_gpus, &r->findings);
    rd_findings_sort(&r->findings);
}

void rd_run_free(rd_run *r)
{
    if (r->view_ready) {
        rd_findings_free(&r->findings);
        rd_gpu_view_free(&r->view);
    }
    rd_facts_free(&r->facts);
    rd_config_free(&r->config);
    if (r->ctx_ready)
        rd_ctx_free(&r->ctx);
    *r = (rd_run){ 0 };
}
