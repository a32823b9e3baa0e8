/* SPDX-License-Identifier: MIT */
/* APU: an integrated GPU next to a discrete one. ROCm enumerates both; the
 * iGPU is unsupported, shares system memory and becomes device 0, which is
 * how programs end up crashing with memory access faults. */
#include <inttypes.h>
#include "env.h"
#include "probe.h"
#include "util.h"

/* Does this ROCR_VISIBLE_DEVICES value hide every iGPU and keep a dGPU? */
static bool hides_igpus(const char *value, const rd_agent *agents, size_t n)
{
    _cleanup_free_ bool *keep = xcalloc(n, sizeof(bool));
    if (rd_visible_devices_apply(value, agents, n, keep, NULL) == 0)
        return false;
    bool dgpu = false;
    for (size_t i = 0; i < n; i++) {
        if (keep[i] && agents[i].integrated)
            return false;
        dgpu |= keep[i] && !agents[i].integrated;
    }
    return dgpu;
}

static void apu_assess(const rd_assess_input *in, rd_findings *out)
{
    const rd_env_facts *e = &in->facts->env;
    rd_agent *agents = NULL;
    const rd_agent *igpu = NULL;
    size_t n = 0, n_dgpu = 0;
    rd_agents_build(in, &agents, &n);
    for (size_t i = 0; i < n; i++) {
        if (!agents[i].integrated)
            n_dgpu++;
        else if (!igpu)
            igpu = &agents[i];
    }
    if (!igpu || n_dgpu == 0)
        goto done;

    /* Already hidden the robust way (ROCr level), anywhere it is set? */
    for (size_t i = 0; i < e->n_vars; i++)
        if (streq(e->vars[i].name, "ROCR_VISIBLE_DEVICES") && hides_igpus(e->vars[i].value, agents, n))
            goto done;

    rd_finding *fd = rd_finding_add(out, "apu.igpu-conflict", RD_SEV_WARNING, igpu->pci_address,
                                    "ROCm sees the integrated GPU (%s at %s) next to the discrete one: programs "
                                    "may pick it or crash on it",
                                    *igpu->gfx ? igpu->gfx : "gfx unknown", igpu->pci_address ? igpu->pci_address : "?");
    strbuf uuids = { 0 };
    bool all_uuid = true;
    for (size_t i = 0; i < n; i++) {
        const rd_agent *a = &agents[i];
        char uuid[32];
        rd_agent_uuid(a, uuid, sizeof uuid);
        rd_finding_evidence(fd, "ROCm device %zu = KFD node %" PRId64 ": %s, %s, %s%s%s", i, a->node_id, a->name,
                            *a->gfx ? a->gfx : "gfx unknown", a->integrated ? "integrated" : "discrete",
                            *uuid ? ", " : "", uuid);
        if (a->integrated)
            continue;
        if (!*uuid)
            all_uuid = false;
        strbuf_printf(&uuids, "%s%s", uuids.s ? "," : "", *uuid ? uuid : "");
    }
    for (size_t i = 0; i < e->n_vars; i++)
        if (streq(e->vars[i].name, "ROCR_VISIBLE_DEVICES") || streq(e->vars[i].name, "HIP_VISIBLE_DEVICES")) {
            _cleanup_free_ char *where = rd_env_where(&e->vars[i]);
            rd_finding_evidence(fd, "%s: %s=%s does not hide it at the ROCr level", where, e->vars[i].name,
                                e->vars[i].value);
        }
    if (all_uuid)
        rd_finding_remedy(fd, "Hide the integrated GPU from ROCm: ROCR_VISIBLE_DEVICES=%s (by UUID, which stays "
                              "right when devices are renumbered), set for every login. Or disable the integrated "
                              "GPU in the firmware setup (UEFI: Integrated Graphics = Disabled), as AMD advises. "
                              "Do not blacklist amdgpu: the same driver runs the discrete GPU.",
                          uuids.s);
    else {
        strbuf idx = { 0 };
        for (size_t i = 0; i < n; i++)
            if (!agents[i].integrated)
                strbuf_printf(&idx, "%s%zu", idx.s ? "," : "", i);
        rd_finding_remedy(fd, "Hide the integrated GPU from ROCm: ROCR_VISIBLE_DEVICES=%s (device indices; this GPU "
                              "reports no UUID), set for every login. Or disable the integrated GPU in the firmware "
                              "setup (UEFI: Integrated Graphics = Disabled), as AMD advises. Do not blacklist "
                              "amdgpu: the same driver runs the discrete GPU.",
                          idx.s);
        free(idx.s);
    }
    rd_finding_set_fix(fd, "env");
    free(uuids.s);
done:
    free(agents);
}

static const char *const apu_findings[] = { "apu.igpu-conflict", NULL };

const rd_probe rd_probe_apu = {
    .id = "apu",
    .title = "Integrated and discrete GPUs together",
    .flags = 0,
    .findings = apu_findings,
    .uevents = RD_STRV("pci", "drm", "kfd"),
    .assess = apu_assess,
};
