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

#define GiB (1024.0 * 1024 * 1024)
/* Carve-outs below this starve HIP on kernels that allocate from it only. */
#define SMALL_CARVEOUT (4ULL << 30)

/* Linux 6.10 (6.9.9 in stable) lets KFD's VRAM allocations go to GTT on APUs
 * with a small carve-out (drm/amdkfd 89773b85599a); 6.15 deprecates
 * amdgpu.gttsize in favour of ttm.pages_limit. With the DKMS driver its own
 * version decides, which the kernel release does not tell. */
static int kernel_at_least(const rd_facts *f, const char *v)
{
    return f->driver.version ? -1 : rd_kernel_at_least(&f->os, v);
}

static void assess_carveout(const rd_assess_input *in, const rd_gpu *g, rd_findings *out)
{
    const rd_facts *f = in->facts;
    /* MI300A has no carve-out at all: its memory is GTT by design */
    if (!g->integrated || !g->drm || !g->drm->vram_total || startswith(g->gfx, "gfx94"))
        return;
    uint64_t vram = g->drm->vram_total, gtt = g->drm->gtt_total;
    if (vram >= SMALL_CARVEOUT || (gtt && gtt <= vram))
        return;
    int gtt_kernel = kernel_at_least(f, "6.10");
    rd_finding *fd = rd_finding_add(out, RD_FINDING(APU_SMALL_CARVEOUT), gtt_kernel == 1 ? RD_SEV_INFO : RD_SEV_WARNING,
                                    g->pci->address,
                                    gtt_kernel == 1 ? "%s (%s) has a %.1f GiB carve-out: ROCm allocates from GTT on "
                                                      "this kernel, but programs that size themselves by VRAM see "
                                                      "only the carve-out"
                                                    : "%s (%s) has only a %.1f GiB carve-out: HIP runs out of memory "
                                                      "(\"HIP out of memory\", hipErrorOutOfMemory) far below the "
                                                      "system's RAM",
                                    g->name, *g->gfx ? g->gfx : "APU", vram / GiB);
    const char *where = g->drm->card ? g->drm->card : g->pci->address;
    rd_finding_evidence(fd, "%s: integrated GPU at %s", *g->gfx ? g->gfx : "APU", g->pci->address);
    rd_finding_evidence(fd, "%s mem_info_vram_total: %" PRIu64 " (%.1f GiB, the firmware's UMA carve-out)", where, vram,
                        vram / GiB);
    if (gtt)
        rd_finding_evidence(fd, "%s mem_info_gtt_total: %" PRIu64 " (%.1f GiB of system memory)", where, gtt,
                            gtt / GiB);
    if (f->os.kernel_release)
        rd_finding_evidence(fd, "kernel %s%s", f->os.kernel_release,
                            f->driver.version ? " with the amdgpu-dkms driver" : "");
    strbuf r = { 0 };
    strbuf_append(&r, "Raise the carve-out in the firmware setup: \"UMA Frame Buffer Size\" (also called \"UMA "
                      "Buffer Size\" or \"iGPU Memory\"), 4-16 GiB depending on the RAM; some laptops hide it.");
    if (gtt_kernel == 1) {
        int deprecated = kernel_at_least(f, "6.15");
        strbuf_printf(&r,
                      " This kernel (6.10 or newer) lets ROCm allocate from GTT, by default half of the RAM; to "
                      "make GTT larger set ttm.pages_limit (in 4 KiB pages: GiB x 262144, e.g. "
                      "ttm.pages_limit=25165824 for 96 GiB) on the kernel command line%s.",
                      deprecated == 1 ? "; amdgpu.gttsize is deprecated since Linux 6.15 and does not raise what "
                                        "TTM lets ROCm pin"
                                      : " (amdgpu.gttsize alone does not raise what TTM lets ROCm pin)");
    } else if (f->driver.version)
        strbuf_append(&r, " With the amdgpu-dkms driver, a release whose KFD allocates from GTT on APUs lets ROCm "
                          "use system memory; its TTM module is amdttm, so the size is amdttm.pages_limit (GiB x "
                          "262144 pages), not ttm.pages_limit.");
    else
        strbuf_append(&r, " Or boot Linux 6.10 or newer (6.9.9 and later stable kernels too): there ROCm allocates "
                          "from GTT, half of the RAM by default, not from the carve-out.");
    fd->remedy = strbuf_steal(&r);
}

static void apu_assess(const rd_assess_input *in, rd_findings *out)
{
    /* an APU that is the only GPU computes with its carve-out; next to a
     * discrete GPU, apu.igpu-conflict is what matters */
    bool discrete = false;
    for (size_t i = 0; i < in->gpus->n_gpus; i++)
        discrete |= !in->gpus->gpus[i].integrated;
    for (size_t i = 0; i < in->gpus->n_gpus && !discrete; i++)
        assess_carveout(in, &in->gpus->gpus[i], out);

    const rd_env_facts *e = &in->facts->env;
    rd_agent *agents = NULL;
    const rd_agent *igpu = NULL;
    size_t n = 0, n_dgpu = 0;
    rd_agents_build(in->facts, in->gpus, in->knowledge, &agents, &n);
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

    rd_finding *fd =
        rd_finding_add(out, RD_FINDING(APU_IGPU_CONFLICT), RD_SEV_WARNING, igpu->pci_address,
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
        rd_finding_remedy(fd,
                          "Hide the integrated GPU from ROCm: ROCR_VISIBLE_DEVICES=%s (by UUID, which stays "
                          "right when devices are renumbered), set for every login. Or disable the integrated "
                          "GPU in the firmware setup (UEFI: Integrated Graphics = Disabled), as AMD advises. "
                          "Do not blacklist amdgpu: the same driver runs the discrete GPU.",
                          uuids.s);
    else {
        strbuf idx = { 0 };
        for (size_t i = 0; i < n; i++)
            if (!agents[i].integrated)
                strbuf_printf(&idx, "%s%zu", idx.s ? "," : "", i);
        rd_finding_remedy(fd,
                          "Hide the integrated GPU from ROCm: ROCR_VISIBLE_DEVICES=%s (device indices; this GPU "
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

static const char *const apu_findings[] = { RD_FINDING(APU_IGPU_CONFLICT), RD_FINDING(APU_SMALL_CARVEOUT), NULL };

const rd_probe rd_probe_apu = {
    .id = "apu",
    .title = "Integrated GPUs: next to a discrete one, memory carve-out",
    .flags = 0,
    .findings = apu_findings,
    .uevents = RD_STRV("pci", "drm", "kfd"),
    .assess = apu_assess,
};
