/* SPDX-License-Identifier: MIT */
/* The health probe's assess step: facts in, findings out, no I/O. The
 * limits come from rocm-doctor.conf [health] (defaults when the caller
 * passes no configuration). */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include "config.h"
#include "health.h"
#include "probe.h"
#include "util.h"

#define MAX_EVIDENCE_LINES 4

static const char *const sysfs = "/sys/bus/pci/devices";

static void evidence_events(rd_finding *fd, const rd_health_event *ev, size_t n, const char *const *kinds)
{
    size_t shown = 0, total = 0;
    for (size_t i = n; i-- > 0;) {
        bool match = false;
        for (const char *const *k = kinds; *k; k++)
            match |= streq_ptr(ev[i].kind, *k);
        if (!match)
            continue;
        total++;
        if (shown++ < MAX_EVIDENCE_LINES)
            rd_finding_evidence(fd, "kernel log, %.1f s after boot: %s", (double)ev[i].usec / 1e6, ev[i].text);
    }
    if (total > MAX_EVIDENCE_LINES)
        rd_finding_evidence(fd, "and %zu earlier kernel log lines like these", total - MAX_EVIDENCE_LINES);
}

/* ---- RAS ---- */

static void assess_ras(const rd_health_limits *lim, const rd_health_gpu *g, rd_findings *out)
{
    static const char *const ue_kinds[] = { RD_HEALTH_EV_RAS_UE, RD_HEALTH_EV_POISON, NULL };
    int64_t ue = rd_health_ras_total(g, 'u'), ce = rd_health_ras_total(g, 'c');
    size_t ue_lines = rd_health_event_count(g, RD_HEALTH_EV_RAS_UE) + rd_health_event_count(g, RD_HEALTH_EV_POISON);
    if (ue > 0 || ue_lines > 0) {
        rd_finding *fd = ue > 0
                             ? rd_finding_add(out, RD_FINDING(GPU_RAS_UNCORRECTABLE), RD_SEV_ERROR, g->pci_address,
                                              "%" PRId64 " uncorrectable ECC/RAS errors on GPU %s", ue, g->pci_address)
                             : rd_finding_add(out, RD_FINDING(GPU_RAS_UNCORRECTABLE), RD_SEV_ERROR, g->pci_address,
                                              "uncorrectable ECC/RAS errors on GPU %s (kernel log)", g->pci_address);
        for (size_t i = 0; i < g->n_ras; i++)
            if (g->ras[i].ue > 0)
                rd_finding_evidence(fd, "%s/%s/ras/%s_err_count: ue: %" PRId64 " (block %s)", sysfs, g->pci_address,
                                    g->ras[i].block, g->ras[i].ue, g->ras[i].block);
        evidence_events(fd, g->events, g->n_events, ue_kinds);
        rd_finding_remedy(fd, "Drain the node: results computed on this GPU may be corrupt. Reset the GPU (or "
                              "reboot) and watch the count; if uncorrectable errors come back or pages keep being "
                              "retired, follow AMD's service guidance for the board (RMA).");
    }
    if (ce > lim->correctable_errors_max) {
        rd_finding *fd = rd_finding_add(out, RD_FINDING(GPU_RAS_CORRECTABLE), RD_SEV_WARNING, g->pci_address,
                                        "%" PRId64 " correctable ECC/RAS errors on GPU %s (more than %" PRId64 ")", ce,
                                        g->pci_address, lim->correctable_errors_max);
        for (size_t i = 0; i < g->n_ras; i++)
            if (g->ras[i].ce > 0)
                rd_finding_evidence(fd, "%s/%s/ras/%s_err_count: ce: %" PRId64, sysfs, g->pci_address, g->ras[i].block,
                                    g->ras[i].ce);
        rd_finding_remedy(fd, "Correctable errors are fixed by ECC, but a rising count often comes before "
                              "uncorrectable errors and retired pages: watch the trend (rocm_doctor_gpu_ras_errors) "
                              "and plan maintenance. The limit is [health] correctable_errors_max.");
    }
}

/* The retired-page threshold in effect and where it comes from. The rule
 * changed across kernel versions (amdgpu_ras_eeprom.c): the kernel's own figure
 * (debugfs, or a log line naming it) wins; then a positive
 * amdgpu.bad_page_threshold; else an estimate, labelled as one. */
static bool retired_threshold(const rd_assess_input *in, const rd_gpu *gpu, const rd_health_gpu *g, int64_t *ret,
                              char **ret_source)
{
    if (g->bad_page_threshold > 0) {
        *ret = g->bad_page_threshold;
        *ret_source = xstrdup("debugfs bad_page_cnt_threshold");
        return true;
    }
    for (size_t i = g->n_events; i-- > 0;)
        if (streq_ptr(g->events[i].kind, RD_HEALTH_EV_BAD_PAGES) && g->events[i].count > 0) {
            *ret = g->events[i].count;
            *ret_source = xstrdup("the kernel log");
            return true;
        }
    const char *param = in->facts->health.bad_page_threshold_param;
    int p = -1;
    if (param && safe_atoi(param, &p) == 0 && p > 0) {
        *ret = p;
        *ret_source = xasprintf("amdgpu.bad_page_threshold=%d", p);
        return true;
    }
    if (param && p == 0)
        return false; /* retirement disabled */
    uint64_t vram = g->vram_total > 0 ? (uint64_t)g->vram_total : gpu ? gpu->vram_bytes : 0;
    int64_t formula = (int64_t)(vram / (100ULL << 20));
    bool mi300 = gpu && (startswith(gpu->gfx, "gfx94") || startswith(gpu->gfx, "gfx95"));
    if (mi300 && p == -1) {
        *ret = 128;
        *ret_source = xasprintf("an estimate: 128 pages is the default of newer kernels for MI300-class GPUs "
                                "(16 MiB reserved); older kernels used VRAM / 100 MiB = %" PRId64,
                                formula);
        return true;
    }
    if (formula <= 0)
        return false;
    *ret = formula;
    *ret_source = xstrdup("an estimate: VRAM / 100 MiB, the kernel's formula for amdgpu.bad_page_threshold=-2 "
                          "(and -1 on older kernels)");
    return true;
}

static void assess_retired(const rd_assess_input *in, const rd_health_limits *lim, const rd_gpu *gpu,
                           const rd_health_gpu *g, rd_findings *out)
{
    static const char *const kinds[] = { RD_HEALTH_EV_BAD_PAGES, NULL };
    int64_t pages = rd_health_retired_pages(g);
    bool reached = rd_health_event_count(g, RD_HEALTH_EV_BAD_PAGES) > 0;
    int64_t threshold = 0;
    _cleanup_free_ char *source = NULL;
    if (pages <= 0 && !reached)
        return;
    bool known = retired_threshold(in, gpu, g, &threshold, &source);
    rd_severity sev;
    if (reached || (known && pages >= threshold))
        sev = RD_SEV_ERROR;
    else if (known && pages * 100 >= threshold * lim->retired_pages_warn_percent)
        sev = RD_SEV_WARNING;
    else
        return;
    rd_finding *fd = rd_finding_add(out, RD_FINDING(GPU_RETIRED_PAGES), sev, g->pci_address,
                                    sev == RD_SEV_ERROR ? "GPU %s has retired %" PRId64 " VRAM pages, at or past its "
                                                          "threshold of %" PRId64
                                                        : "GPU %s has retired %" PRId64 " VRAM pages, near its "
                                                          "threshold of %" PRId64,
                                    g->pci_address, pages < 0 ? 0 : pages, threshold);
    if (pages >= 0)
        rd_finding_evidence(fd,
                            "%s/%s/ras/gpu_vram_bad_pages: %" PRId64 " reserved (R), %" PRId64 " pending (P), %" PRId64
                            " failed to reserve (F)",
                            sysfs, g->pci_address, g->bad_pages_reserved, g->bad_pages_pending, g->bad_pages_failed);
    if (known)
        rd_finding_evidence(fd, "threshold %" PRId64 " from %s", threshold, source);
    evidence_events(fd, g->events, g->n_events, kinds);
    rd_finding_remedy(fd, sev == RD_SEV_ERROR
                              ? "Replace the GPU: past the threshold the driver stops trusting its memory (newer "
                                "kernels halt it when a threshold is set). Follow AMD's Service Action Guide for "
                                "the board (RMA)."
                              : "Plan to replace the GPU: each retired page is a memory cell that failed; at the "
                                "threshold the board is due for RMA under AMD's service guidance.");
}

/* ---- resets and hangs ---- */

static void assess_resets(const rd_health_event *ev, size_t n, const char *gpu, rd_findings *out)
{
    static const char *const hang_kinds[] = { RD_HEALTH_EV_RESET,    RD_HEALTH_EV_RING_TIMEOUT, RD_HEALTH_EV_MES_HANG,
                                              RD_HEALTH_EV_SMU_HANG, RD_HEALTH_EV_VRAM_LOST,    NULL };
    static const char *const failed_kinds[] = { RD_HEALTH_EV_RESET_FAILED, NULL };
    static const char *const fault_kinds[] = { RD_HEALTH_EV_PAGE_FAULT, NULL };
    size_t resets = 0, hangs = 0, failed = 0, faults = 0;
    const rd_health_event *last = NULL, *cause = NULL;
    for (size_t i = 0; i < n; i++) {
        const char *k = ev[i].kind;
        if (streq_ptr(k, RD_HEALTH_EV_RESET_FAILED))
            failed++;
        else if (streq_ptr(k, RD_HEALTH_EV_PAGE_FAULT))
            faults++;
        else if (streq_ptr(k, RD_HEALTH_EV_RESET))
            resets++;
        else if (streq_ptr(k, RD_HEALTH_EV_RING_TIMEOUT) || streq_ptr(k, RD_HEALTH_EV_MES_HANG) ||
                 streq_ptr(k, RD_HEALTH_EV_SMU_HANG))
            hangs++, cause = &ev[i];
        else
            continue;
        if (!streq_ptr(k, RD_HEALTH_EV_RESET_FAILED) && !streq_ptr(k, RD_HEALTH_EV_PAGE_FAULT) &&
            (!last || ev[i].usec >= last->usec))
            last = &ev[i];
    }
    const char *where = gpu ? gpu : "an AMD GPU";
    if (failed > 0) {
        rd_finding *fd = rd_finding_add(out, RD_FINDING(GPU_RESET_FAILED), RD_SEV_ERROR, gpu,
                                        "a reset of %s failed: the GPU is unusable until the node reboots", where);
        evidence_events(fd, ev, n, failed_kinds);
        rd_finding_remedy(fd, "Drain the node and reboot it (a cold boot if the GPU does not come back). If resets "
                              "keep failing on this GPU, have the board checked (firmware, RAS counters, RMA).");
    }
    if (resets + hangs == 0)
        return;
    char cause_text[96] = "";
    if (cause && streq_ptr(cause->kind, RD_HEALTH_EV_RING_TIMEOUT)) {
        const char *d = cause->detail ? cause->detail : "?", *proc = strstr(d, ", process ");
        snprintf(cause_text, sizeof cause_text, "; ring %.*s timed out%s%s%s", proc ? (int)(proc - d) : (int)strlen(d),
                 d, proc ? " (" : "", proc ? proc + 2 : "", proc ? ")" : "");
    } else if (cause)
        snprintf(cause_text, sizeof cause_text, "; %s%s%s", cause->kind, cause->detail ? " " : "",
                 strempty(cause->detail));
    if (strlen(cause_text) >= sizeof cause_text - 1)
        memcpy(cause_text + sizeof cause_text - 4, "...", 4);
    rd_finding *fd = rd_finding_add(out, RD_FINDING(GPU_RESET_SEEN), RD_SEV_WARNING, gpu,
                                    "%s reset %zu times and hung %zu times since boot (last %.1f s after boot%s)",
                                    where, resets, hangs, last ? (double)last->usec / 1e6 : 0.0, cause_text);
    evidence_events(fd, ev, n, hang_kinds);
    if (faults > 0)
        evidence_events(fd, ev, n, fault_kinds);
    rd_finding_remedy(fd, "A job hung the GPU and the driver reset it. Look at the process named in the kernel log "
                          "(page faults name it); repeated resets with no such cause point to firmware or "
                          "hardware: update the amdgpu driver and firmware, then check the RAS counters.");
}

/* ---- PCIe AER ---- */

static bool seen_device(char ***seen, const char *address)
{
    if (strv_contains(*seen, address))
        return true;
    *seen = strv_push(*seen, xstrdup(address));
    return false;
}

static void assess_aer(const rd_health_limits *lim, const rd_health_gpu *g, char ***seen, rd_findings *out)
{
    rd_severity sev = RD_SEV_OK;
    const rd_aer_device *worst = NULL;
    for (size_t i = 0; i < g->n_aer; i++) {
        const rd_aer_device *a = &g->aer[i];
        rd_severity s = a->fatal > 0 || a->nonfatal > 0             ? RD_SEV_ERROR
                        : a->correctable > lim->aer_correctable_max ? RD_SEV_WARNING
                                                                    : RD_SEV_OK;
        if (s == RD_SEV_OK || seen_device(seen, a->address))
            continue;
        if (s > sev || !worst)
            worst = a;
        if (s > sev)
            sev = s;
    }
    if (!worst)
        return;
    rd_finding *fd = rd_finding_add(out, RD_FINDING(PCIE_AER_ERRORS), sev, g->pci_address,
                                    "PCIe errors on the path of GPU %s, worst at %s%s", g->pci_address, worst->address,
                                    streq(worst->address, g->pci_address) ? " (the GPU)" : "");
    for (size_t i = 0; i < g->n_aer; i++) {
        const rd_aer_device *a = &g->aer[i];
        if (a->fatal > 0 || a->nonfatal > 0 || a->correctable > lim->aer_correctable_max)
            rd_finding_evidence(
                fd, "%s/%s/aer_dev_*: %" PRId64 " fatal, %" PRId64 " non-fatal, %" PRId64 " correctable%s", sysfs,
                a->address, a->fatal, a->nonfatal, a->correctable, i == 0 ? " (the GPU)" : " (a port above the GPU)");
    }
    rd_finding_remedy(fd, sev == RD_SEV_ERROR
                              ? "Uncorrectable PCIe errors: reseat the GPU or its riser and cables, check the slot's "
                                "link (lspci -vvv), update the system firmware; a GPU that keeps them needs service."
                              : "Many corrected PCIe errors: a marginal link (riser, cable, slot) or signal "
                                "integrity; reseat, and check the link speed and width. The limit is [health] "
                                "aer_correctable_max.");
}

/* ---- thermal and power ---- */

static void assess_thermal(const rd_health_limits *lim, const rd_health_gpu *g, rd_findings *out)
{
    for (size_t i = 0; i < g->n_temps; i++) {
        const rd_temp_sensor *t = &g->temps[i];
        if (t->input_mc < 0)
            continue;
        bool emergency = t->emergency_mc > 0 && t->input_mc >= t->emergency_mc;
        bool near = t->crit_mc > 0 && t->input_mc >= t->crit_mc - lim->hot_margin_c * 1000;
        if (!emergency && !near)
            continue;
        rd_finding *fd =
            rd_finding_add(out, RD_FINDING(GPU_HOT), emergency ? RD_SEV_ERROR : RD_SEV_WARNING, g->pci_address,
                           "GPU %s %s temperature %.0f °C is %s", g->pci_address, t->label ? t->label : t->name,
                           (double)t->input_mc / 1000,
                           emergency ? "at its emergency (shutdown) limit" : "at or near its critical limit");
        rd_finding_evidence(
            fd, "hwmon %s_input %" PRId64 ", %s_crit %" PRId64 ", %s_emergency %" PRId64 " (millidegrees Celsius)",
            t->name, t->input_mc, t->name, t->crit_mc, t->name, t->emergency_mc);
        rd_finding_remedy(fd, "Check the cooling: fans, air flow, heat sink contact, the room or rack inlet "
                              "temperature. The margin is [health] hot_margin_c.");
        return;
    }
}

static void assess_power(const rd_health_limits *lim, const rd_health_gpu *g, rd_findings *out)
{
    int64_t cap = g->power_cap_uw, def = g->power_cap_default_uw;
    if (cap <= 0 || def <= 0 || cap >= def)
        return;
    bool far = cap * 100 < def * lim->power_cap_warn_percent;
    rd_finding *fd =
        rd_finding_add(out, RD_FINDING(GPU_POWER_CAPPED), far ? RD_SEV_WARNING : RD_SEV_INFO, g->pci_address,
                       "GPU %s power cap is %.0f W, below its default of %.0f W (%" PRId64 "%%)", g->pci_address,
                       (double)cap / 1e6, (double)def / 1e6, cap * 100 / def);
    rd_finding_evidence(
        fd, "hwmon power1_cap %" PRId64 ", power1_cap_default %" PRId64 ", power1_cap_max %" PRId64 " (microwatts)",
        cap, def, g->power_cap_max_uw);
    rd_finding_remedy(fd,
                      "Someone lowered the limit (rocm-smi/amd-smi --setpoweroverdrive, a tuning tool, or "
                      "the BMC). If that is not deliberate, set it back: echo %" PRId64
                      " | sudo tee /sys/bus/pci/devices/%s/hwmon/hwmon*/power1_cap",
                      def, g->pci_address);
}

static void assess_throttle(const rd_health_limits *lim, const rd_health_gpu *g, rd_findings *out)
{
    const rd_gpu_metrics *m = &g->metrics;
    unsigned active = rd_throttle_active(m), past = 0;
    double share[RD_THROTTLE_N];
    bool residency = rd_throttle_residency(m, share);
    for (unsigned r = 0; residency && r < RD_THROTTLE_N; r++)
        if (share[r] * 100 >= (double)lim->throttle_percent)
            past |= 1u << r;
    if (!active && !past)
        return;
    strbuf why = { 0 };
    for (unsigned r = 0; r < RD_THROTTLE_N; r++)
        if ((active | past) & (1u << r))
            strbuf_printf(&why, "%s%s", why.s ? ", " : "", rd_throttle_reason_name(r));
    rd_finding *fd = rd_finding_add(out, RD_FINDING(GPU_THROTTLED), RD_SEV_WARNING, g->pci_address,
                                    "GPU %s is throttled: %s", g->pci_address, why.s);
    if (active)
        rd_finding_evidence(fd, "%s/%s/gpu_metrics (%s): indep_throttle_status 0x%016" PRIx64, sysfs, g->pci_address,
                            m->layout, m->indep_throttle_status);
    for (unsigned r = 0; r < RD_THROTTLE_N; r++)
        if (past & (1u << r))
            rd_finding_evidence(fd, "%s/%s/gpu_metrics (%s): %s throttling in %.1f%% of %" PRId64 " samples", sysfs,
                                g->pci_address, m->layout, rd_throttle_reason_name(r), share[r] * 100,
                                m->accumulation_counter);
    rd_finding_remedy(fd, "The GPU runs below its clocks: thermal and PROCHOT point to cooling, power and current "
                          "to the power cap or supply. The residency limit is [health] throttle_percent.");
    free(why.s);
}

/* ---- memory present ---- */

static void assess_vram(const rd_assess_input *in, const rd_health_limits *lim, const rd_gpu *gpu,
                        const rd_health_gpu *g, rd_findings *out)
{
    if (!gpu || g->vram_total <= 0)
        return;
    /* In an NPS2/NPS4 memory partition mode the device reports a share of
     * its memory: only NPS1 (or no partition support) is comparable. */
    if (g->memory_partition && !streq(g->memory_partition, "NPS1"))
        return;
    const rd_product_memory *p =
        rd_knowledge_product_memory(in->knowledge, (uint16_t)gpu->pci->device_id, (uint8_t)gpu->pci->revision);
    /* vram_bytes 0: an integrated GPU, whose memory the firmware carves out */
    if (!p || !p->vram_bytes ||
        (uint64_t)g->vram_total * 100 >= p->vram_bytes * (uint64_t)(100 - lim->vram_missing_percent))
        return;
    rd_finding *fd = rd_finding_add(out, RD_FINDING(GPU_VRAM_MISSING), RD_SEV_ERROR, g->pci_address,
                                    "GPU %s reports %.1f GiB of VRAM; an %s has %" PRIu64 " GiB", g->pci_address,
                                    (double)g->vram_total / (1 << 30), p->product, p->vram_bytes >> 30);
    rd_finding_evidence(fd, "%s/%s/mem_info_vram_total: %" PRId64, sysfs, g->pci_address, g->vram_total);
    rd_finding_evidence(fd, "conf/health.ini [vram]: PCI id 1002:%04" PRIx64 " rev %02" PRIx64 ": %" PRIu64 " GiB",
                        gpu->pci->device_id, gpu->pci->revision, p->vram_bytes >> 30);
    rd_finding_remedy(fd, "Memory the board has is not usable: a failed HBM/GDDR stack or channel, or a firmware "
                          "problem. Update the firmware; if the size stays short, the board needs service (RMA).");
}

/* ---- firmware ---- */

static void assess_firmware(const rd_assess_input *in, const rd_gpu *gpu, const rd_health_gpu *g, rd_findings *out)
{
    if (!gpu || !gpu->gfx[0])
        return;
    for (size_t i = 0; g->firmware && g->firmware[i]; i++) {
        /* "mes=0x00000083" */
        const char *eq = strchr(g->firmware[i], '=');
        uint64_t v;
        if (!eq || !startswith(eq + 1, "0x") || safe_atou64(eq + 3, 16, &v) < 0 || v > UINT32_MAX)
            continue;
        _cleanup_free_ char *name = xstrndup(g->firmware[i], (size_t)(eq - g->firmware[i]));
        const rd_firmware_bad *b = rd_knowledge_firmware_bad(in->knowledge, gpu->gfx, name, (uint32_t)v);
        if (!b)
            continue;
        rd_finding *fd = rd_finding_add(out, RD_FINDING(GPU_FIRMWARE_KNOWN_BAD), RD_SEV_WARNING, g->pci_address,
                                        "GPU %s (%s) runs %s firmware %s, a version known to be broken", g->pci_address,
                                        gpu->gfx, name, eq + 1);
        rd_finding_evidence(fd, "%s/%s/fw_version/%s_fw_version: %s", sysfs, g->pci_address, name, eq + 1);
        rd_finding_evidence(fd, "conf/health.ini [firmware-known-bad] %s.%s = 0x%08" PRIx32 ": %s", b->gfx, b->name,
                            b->version, b->reason);
        rd_finding_remedy(fd, "The driver loads this firmware from the distribution's firmware package "
                              "(linux-firmware; amd-gpu-firmware on Fedora; kernel-firmware-amdgpu on SLES; "
                              "amdgpu-dkms-firmware with AMD's driver). Install a version of that package with "
                              "other firmware (a newer one with the fix, or the one before), then reboot; "
                              "`rocm-doctor check` shows the version loaded.");
    }
}

/* ---- XGMI ---- */

/* The node of g whose io_links were read (its first partition), or NULL. */
static const rd_io_links_read *links_read(const rd_health_facts *h, const rd_gpu *g)
{
    for (size_t i = 0; i < h->n_io_links_read; i++)
        for (size_t j = 0; j < g->n_kfd; j++)
            if (h->io_links_read[i].node_id == g->kfd[j]->node_id)
                return &h->io_links_read[i];
    return NULL;
}

/* An XGMI link from node `from` to any node (partition) of GPU g. */
static bool links_to_gpu(const rd_health_facts *h, int64_t from, const rd_gpu *g)
{
    for (size_t i = 0; i < h->n_xgmi_links; i++)
        if (h->xgmi_links[i].node_from == from)
            for (size_t j = 0; j < g->n_kfd; j++)
                if (h->xgmi_links[i].node_to == g->kfd[j]->node_id)
                    return true;
    return false;
}

static uint64_t hive_of(const rd_gpu *g)
{
    return g->n_kfd ? rd_kfd_prop_or(g->kfd[0], "hive_id", 0) : 0;
}

static bool hive_has_links(const rd_assess_input *in, uint64_t hive)
{
    const rd_health_facts *h = &in->facts->health;
    for (size_t a = 0; a < in->gpus->n_gpus; a++) {
        const rd_io_links_read *r = hive_of(&in->gpus->gpus[a]) == hive ? links_read(h, &in->gpus->gpus[a]) : NULL;
        for (size_t i = 0; r && i < h->n_xgmi_links; i++)
            if (h->xgmi_links[i].node_from == r->node_id)
                return true;
    }
    return false;
}

static void link_missing_remedy(rd_finding *fd)
{
    rd_finding_remedy(fd, "Traffic between these GPUs falls back to PCIe or fails. Drain the node, power cycle it "
                          "(a warm reboot may not retrain XGMI); if the link stays down, the board or its XGMI "
                          "connector needs service.");
}

/* A hive whose members list io_links, none of them XGMI: every link of the
 * hive is down (or the hive never trained). One finding for the hive. A
 * topology without io_links at all says nothing. */
static void assess_hive_without_links(const rd_assess_input *in, uint64_t hive, size_t first, rd_findings *out)
{
    const rd_gpu_view *v = in->gpus;
    const rd_health_facts *h = &in->facts->health;
    size_t members = 0, judged = 0;
    for (size_t a = first; a < v->n_gpus; a++)
        if (hive_of(&v->gpus[a]) == hive) {
            const rd_io_links_read *r = links_read(h, &v->gpus[a]);
            members++;
            judged += r && r->io_links > 0;
        }
    if (members < 2 || judged < members)
        return;
    rd_finding *fd =
        rd_finding_add(out, RD_FINDING(XGMI_LINK_MISSING), RD_SEV_ERROR, v->gpus[first].pci->address,
                       "none of the %zu GPUs of hive %" PRIu64 " has an XGMI link to another", members, hive);
    for (size_t a = first; a < v->n_gpus; a++) {
        const rd_io_links_read *r = hive_of(&v->gpus[a]) == hive ? links_read(h, &v->gpus[a]) : NULL;
        if (r)
            rd_finding_evidence(fd,
                                "/sys/class/kfd/kfd/topology/nodes/%" PRId64 "/io_links (%s): %" PRId64
                                " links, none of type 11 (XGMI)",
                                r->node_id, v->gpus[a].pci->address, r->io_links);
    }
    link_missing_remedy(fd);
}

/* The node whose io_links were read for GPU a (its first partition) must
 * have an XGMI link to some node of every other GPU of the hive, and the
 * reverse. Partitions of one GPU share its socket's links and are not
 * judged against each other. One finding per pair of GPUs. */
static void assess_xgmi_pair(const rd_assess_input *in, const rd_gpu *ga, const rd_gpu *gb, rd_findings *out)
{
    const rd_health_facts *h = &in->facts->health;
    const rd_io_links_read *ra = links_read(h, ga), *rb = links_read(h, gb);
    if (!ra || !rb || ra->io_links == 0 || rb->io_links == 0)
        return;
    const rd_io_links_read *from = !links_to_gpu(h, ra->node_id, gb)   ? ra
                                   : !links_to_gpu(h, rb->node_id, ga) ? rb
                                                                       : NULL;
    if (!from)
        return;
    const rd_gpu *gt = from == ra ? gb : ga;
    uint64_t hive = hive_of(ga);
    rd_finding *fd = rd_finding_add(out, RD_FINDING(XGMI_LINK_MISSING), RD_SEV_ERROR, ga->pci->address,
                                    "no XGMI link between GPU %s and GPU %s of hive %" PRIu64, ga->pci->address,
                                    gb->pci->address, hive);
    if (gt->n_kfd == 1)
        rd_finding_evidence(fd,
                            "/sys/class/kfd/kfd/topology/nodes/%" PRId64 "/io_links: no link of type 11 "
                            "(XGMI) to node %" PRId64 " (%s -> %s)",
                            from->node_id, gt->kfd[0]->node_id, from == ra ? ga->pci->address : gb->pci->address,
                            gt->pci->address);
    else
        rd_finding_evidence(fd,
                            "/sys/class/kfd/kfd/topology/nodes/%" PRId64 "/io_links: no link of type 11 "
                            "(XGMI) to any of the %zu partition nodes %" PRId64 "-%" PRId64 " of %s",
                            from->node_id, gt->n_kfd, gt->kfd[0]->node_id, gt->kfd[gt->n_kfd - 1]->node_id,
                            gt->pci->address);
    link_missing_remedy(fd);
}

static void assess_xgmi_links(const rd_assess_input *in, rd_findings *out)
{
    const rd_gpu_view *v = in->gpus;
    for (size_t a = 0; a < v->n_gpus; a++) {
        uint64_t hive = hive_of(&v->gpus[a]);
        bool first = hive != 0;
        for (size_t b = 0; b < a && first; b++)
            first = hive_of(&v->gpus[b]) != hive;
        if (!first)
            continue;
        if (!hive_has_links(in, hive)) {
            assess_hive_without_links(in, hive, a, out);
            continue;
        }
        for (size_t x = a; x < v->n_gpus; x++)
            for (size_t y = x + 1; y < v->n_gpus; y++)
                if (hive_of(&v->gpus[x]) == hive && hive_of(&v->gpus[y]) == hive)
                    assess_xgmi_pair(in, &v->gpus[x], &v->gpus[y], out);
    }
}

static void assess_hive_size(const rd_assess_input *in, rd_findings *out)
{
    const rd_gpu_view *v = in->gpus;
    const rd_health_facts *h = &in->facts->health;
    for (size_t a = 0; a < h->n_gpus; a++) {
        uint64_t hive = h->gpus[a].xgmi_hive_id;
        bool first = hive != 0;
        for (size_t b = 0; b < a && first; b++)
            first = h->gpus[b].xgmi_hive_id != hive;
        if (!first)
            continue;
        const rd_pci_device *model = rd_pci_find(in->facts, h->gpus[a].pci_address);
        int64_t members = 0, size = h->gpus[a].xgmi_hive_size, same_model = 0;
        for (size_t b = 0; b < h->n_gpus; b++)
            if (h->gpus[b].xgmi_hive_id == hive) {
                members++;
                if (h->gpus[b].xgmi_hive_size > size)
                    size = h->gpus[b].xgmi_hive_size;
            }
        for (size_t i = 0; model && i < v->n_gpus; i++)
            same_model += v->gpus[i].pci->device_id == model->device_id;
        int64_t expected = size > same_model ? size : same_model;
        if (members >= expected)
            continue;
        rd_finding *fd =
            rd_finding_add(out, RD_FINDING(XGMI_HIVE_INCOMPLETE), RD_SEV_ERROR, h->gpus[a].pci_address,
                           "XGMI hive %" PRIu64 " has %" PRId64 " of %" PRId64 " GPUs", hive, members, expected);
        for (size_t b = 0; b < h->n_gpus; b++)
            if (h->gpus[b].xgmi_hive_id == hive)
                rd_finding_evidence(fd, "%s: xgmi_hive_info/xgmi_hive_id %" PRIu64 ", %" PRId64 " node entries",
                                    h->gpus[b].pci_address, hive, h->gpus[b].xgmi_hive_size);
        for (size_t i = 0; model && i < v->n_gpus; i++) {
            const rd_health_gpu *hg = rd_health_gpu_find(h, v->gpus[i].pci->address);
            if (v->gpus[i].pci->device_id == model->device_id && (!hg || hg->xgmi_hive_id != hive))
                rd_finding_evidence(fd, "%s: the same model (1002:%04" PRIx64 "), not in the hive%s",
                                    v->gpus[i].pci->address, model->device_id, hg ? "" : " (not bound to amdgpu)");
        }
        rd_finding_remedy(fd, "A GPU did not join its hive: look at the kernel log for its initialisation; a cold "
                              "power cycle usually retrains the hive. If one GPU keeps failing, it needs service.");
    }
}

void rd_health_assess(const rd_assess_input *in, rd_findings *out)
{
    const rd_health_facts *h = &in->facts->health;
    if (h->n_gpus == 0)
        return;
    const rd_config *c = in->config;
    const rd_health_limits lim = c ? c->health : RD_HEALTH_LIMITS_DEFAULT;
    _cleanup_strv_free_ char **seen_aer = NULL;
    for (size_t i = 0; i < h->n_gpus; i++) {
        const rd_health_gpu *g = &h->gpus[i];
        const rd_gpu *gpu = NULL;
        for (size_t j = 0; j < in->gpus->n_gpus && !gpu; j++)
            if (streq(in->gpus->gpus[j].pci->address, g->pci_address))
                gpu = &in->gpus->gpus[j];
        assess_ras(&lim, g, out);
        assess_retired(in, &lim, gpu, g, out);
        assess_resets(g->events, g->n_events, g->pci_address, out);
        assess_aer(&lim, g, &seen_aer, out);
        assess_thermal(&lim, g, out);
        assess_power(&lim, g, out);
        assess_throttle(&lim, g, out);
        assess_vram(in, &lim, gpu, g, out);
        assess_firmware(in, gpu, g, out);
    }
    assess_resets(h->events, h->n_events, NULL, out);
    assess_xgmi_links(in, out);
    assess_hive_size(in, out);
}
