/* SPDX-License-Identifier: MIT */
#include "check.h"

#include "probe.h"
#include "util.h"

/* Gather order: access needs the render nodes that drm and kfd found; the
 * environment probes need the GPUs. */
const rd_probe *const rd_probes[] = {
    &rd_probe_os, &rd_probe_pci, &rd_probe_drm, &rd_probe_kfd, &rd_probe_driver, &rd_probe_access,
    &rd_probe_rocm, &rd_probe_apt, &rd_probe_boot,
    &rd_probe_env, &rd_probe_apu, &rd_probe_container, &rd_probe_tuning, &rd_probe_torch,
    &rd_probe_runtime,
};
const size_t rd_n_probes = ELEMENTSOF(rd_probes);

/* Assess order: pci before kfd (kfd leaves out GPUs whose atomics finding
 * explains them); level-1 causes before the runtime failures they explain. */
const rd_probe *const rd_assess_order[] = {
    &rd_probe_os, &rd_probe_pci, &rd_probe_driver, &rd_probe_kfd, &rd_probe_access,
    &rd_probe_boot, &rd_probe_rocm, &rd_probe_apt,
    &rd_probe_env, &rd_probe_apu, &rd_probe_container, &rd_probe_tuning, &rd_probe_torch,
    &rd_probe_runtime, &rd_probe_drm,
};
const size_t rd_n_assess_order = ELEMENTSOF(rd_assess_order);

void rd_gather(const rd_ctx *ctx, rd_facts *facts)
{
    free(facts->root);
    facts->root = xstrdup(ctx->root);
    for (size_t i = 0; i < rd_n_probes; i++)
        if (rd_probes[i]->gather && !(rd_probes[i]->flags & RD_PROBE_LEVEL2))
            rd_probes[i]->gather(ctx, facts);
}

void rd_gather_level2(const rd_ctx *ctx, rd_facts *facts)
{
    for (size_t i = 0; i < rd_n_probes; i++)
        if (rd_probes[i]->gather && (rd_probes[i]->flags & RD_PROBE_LEVEL2))
            rd_probes[i]->gather(ctx, facts);
}

void rd_assess(const rd_facts *facts, const rd_knowledge *k, rd_gpu_view *ret_view, rd_findings *ret_findings)
{
    rd_gpu_view_build(facts, k, ret_view);
    rd_assess_input in = { .facts = facts, .knowledge = k, .gpus = ret_view };
    rd_findings out = { 0 };
    for (size_t i = 0; i < rd_n_assess_order; i++)
        if (rd_assess_order[i]->assess)
            rd_assess_order[i]->assess(&in, &out);
    rd_findings_sort(&out);
    *ret_findings = out;
}
