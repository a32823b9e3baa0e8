/* SPDX-License-Identifier: MIT */
#include "run.h"

#include <errno.h>
#include "facts-json.h"
#include "probe.h"
#include "report.h"
#include "util.h"

int rd_run_check(const rd_options *o, rd_run *r)
{
    _cleanup_free_ char *err = NULL;
    *r = (rd_run){ 0 };
    rd_facts_init(&r->facts);
    rd_config_init(&r->config);

    /* With --facts nothing is read from the host; --root then only says
     * whose configuration applies. */
    if (rd_ctx_init(&r->ctx, o->facts_file && !o->root ? "/" : o->root, o->user, &err) < 0) {
        rd_ctx_free(&r->ctx);
        return rd_fail("%s", err);
    }
    r->ctx_ready = true;

    rd_config_free(&r->config);
    if (rd_config_load(r->ctx.root, o->config_file, &r->config, &err) < 0)
        return rd_fail("%s", err);
    r->ctx.config = &r->config;
    r->ctx.with_python = o->with_python || r->config.with_python;
    r->ctx.runtime_timeout_s = o->timeout_s > 0 ? o->timeout_s : r->config.runtime_timeout_s;
    r->level = o->level > 0 ? o->level : r->config.level;

    if (r->level >= 2 && !o->facts_file) {
        bool have = false;
        for (size_t i = 0; i < rd_n_probes; i++)
            have |= (rd_probes[i]->flags & RD_PROBE_LEVEL2) && rd_probes[i]->gather;
        if (!have)
            return rd_fail("level 2 (running a GPU kernel) is not available in this version");
    }
    if (o->facts_file) {
        rd_facts_free(&r->facts);
        if (rd_facts_load(o->facts_file, &r->facts, &err) < 0)
            return rd_fail("%s", err);
        /* Saved facts say themselves whether the runtime was run. */
        if (o->level == 0)
            r->level = r->facts.runtime.ran ? 2 : 1;
    } else {
        rd_gather(&r->ctx, &r->facts);
        if (r->level >= 2)
            rd_gather_level2(&r->ctx, &r->facts);
    }
    rd_run_assess(r);
    return 0;
}

void rd_run_assess(rd_run *r)
{
    if (r->view_ready) {
        rd_findings_free(&r->findings);
        rd_gpu_view_free(&r->view);
    }
    rd_assess(&r->facts, &r->ctx.knowledge, &r->view, &r->findings);
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

int rd_run_render(const rd_options *o, const rd_run *r, FILE *out)
{
    int status = rd_findings_exit_status(&r->findings);
    int e = 0;
    switch (o->format) {
    case RD_FORMAT_JSON: {
        json_object *j = rd_report_json(&r->facts, &r->view, &r->findings, r->level);
        const char *s = json_object_to_json_string_ext(j, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_NOSLASHESCAPE);
        if (fputs(s, out) < 0 || fputc('\n', out) < 0)
            e = -EIO;
        json_object_put(j);
        break;
    }
    case RD_FORMAT_PROMETHEUS:
        e = rd_report_prometheus(out, &r->facts, &r->view, &r->findings);
        break;
    case RD_FORMAT_NFD:
        e = rd_report_nfd(out, &r->facts, &r->view, &r->findings);
        break;
    case RD_FORMAT_TEXT:
        rd_report_text(out, &r->facts, &r->view, &r->findings, out == stdout && rd_cli_want_color(o->color));
        break;
    }
    if (e == -EOPNOTSUPP)
        return rd_fail("this output format is not available in this version");
    if (e < 0 || fflush(out) != 0 || ferror(out))
        return rd_fail("cannot write the report: %s", errno_name(e < 0 ? -e : EIO));
    return status;
}
