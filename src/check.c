/* SPDX-License-Identifier: MIT */
#include "check.h"

#include "probe.h"
#include "util.h"

const rd_probe *const rd_probes[] = {
    &rd_probe_os, &rd_probe_pci, &rd_probe_drm, &rd_probe_kfd, &rd_probe_driver, &rd_probe_access,
};
const size_t rd_n_probes = ELEMENTSOF(rd_probes);

void rd_gather(const rd_ctx *ctx, rd_facts *facts)
{
    free(facts->root);
    facts->root = xstrdup(ctx->root);
    for (size_t i = 0; i < rd_n_probes; i++)
        if (rd_probes[i]->gather && !(rd_probes[i]->flags & RD_PROBE_LEVEL2))
            rd_probes[i]->gather(ctx, facts);
}

void rd_assess(const rd_facts *facts, const rd_knowledge *k, rd_gpu_view *ret_view, rd_findings *ret_findings)
{
    rd_gpu_view_build(facts, k, ret_view);
    rd_assess_input in = { .facts = facts, .knowledge = k, .gpus = ret_view };
    rd_findings out = { 0 };
    /* pci before kfd: kfd leaves out GPUs whose atomics finding explains them */
    static const rd_probe *const order[] = {
        &rd_probe_os, &rd_probe_pci, &rd_probe_driver, &rd_probe_kfd, &rd_probe_access,
    };
    for (size_t i = 0; i < ELEMENTSOF(order); i++)
        if (order[i]->assess)
            order[i]->assess(&in, &out);
    rd_findings_sort(&out);
    *ret_findings = out;
}
