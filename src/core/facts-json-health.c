/* SPDX-License-Identifier: MIT */
#include "facts-json.h"
#include "catalogue.h"

/* clang-format off */
/* The schema tables keep one field a line. */
static const rd_field ras_count_fields[] = {
    F(rd_ras_count, block, RD_FT_STR),
    F(rd_ras_count, ue, RD_FT_INT),
    F(rd_ras_count, ce, RD_FT_INT),
    F(rd_ras_count, de, RD_FT_INT),
    F(rd_ras_count, inaccessible, RD_FT_BOOL),
};
static SCHEMA(ras_count_schema, rd_ras_count, ras_count_fields);

static const rd_field temp_fields[] = {
    F(rd_temp_sensor, name, RD_FT_STR),
    F(rd_temp_sensor, label, RD_FT_STR),
    F(rd_temp_sensor, input_mc, RD_FT_INT),
    F(rd_temp_sensor, crit_mc, RD_FT_INT),
    F(rd_temp_sensor, emergency_mc, RD_FT_INT),
};
static SCHEMA(temp_schema, rd_temp_sensor, temp_fields);

static const rd_field metrics_fields[] = {
    F(rd_gpu_metrics, exposed, RD_FT_BOOL),
    F(rd_gpu_metrics, size, RD_FT_INT),
    F(rd_gpu_metrics, structure_size, RD_FT_INT),
    F(rd_gpu_metrics, format_revision, RD_FT_INT),
    F(rd_gpu_metrics, content_revision, RD_FT_INT),
    F(rd_gpu_metrics, understood, RD_FT_BOOL),
    F(rd_gpu_metrics, layout, RD_FT_STR),
    F(rd_gpu_metrics, note, RD_FT_STR),
    F(rd_gpu_metrics, throttle_status, RD_FT_INT),
    F(rd_gpu_metrics, has_indep_throttle, RD_FT_BOOL),
    F(rd_gpu_metrics, indep_throttle_status, RD_FT_U64),
    F(rd_gpu_metrics, accumulation_counter, RD_FT_INT),
    F(rd_gpu_metrics, prochot_residency, RD_FT_INT),
    F(rd_gpu_metrics, ppt_residency, RD_FT_INT),
    F(rd_gpu_metrics, socket_thm_residency, RD_FT_INT),
    F(rd_gpu_metrics, vr_thm_residency, RD_FT_INT),
    F(rd_gpu_metrics, hbm_thm_residency, RD_FT_INT),
};
static SCHEMA(metrics_schema, rd_gpu_metrics, metrics_fields);

static const rd_field event_fields[] = {
    F(rd_health_event, kind, RD_FT_STR),
    F(rd_health_event, usec, RD_FT_U64),
    F(rd_health_event, detail, RD_FT_STR),
    F(rd_health_event, count, RD_FT_INT),
    F(rd_health_event, text, RD_FT_STR),
};
static SCHEMA(event_schema, rd_health_event, event_fields);

static const rd_field aer_fields[] = {
    F(rd_aer_device, address, RD_FT_STR),
    F(rd_aer_device, exposed, RD_FT_BOOL),
    F(rd_aer_device, correctable, RD_FT_INT),
    F(rd_aer_device, nonfatal, RD_FT_INT),
    F(rd_aer_device, fatal, RD_FT_INT),
};
static SCHEMA(aer_schema, rd_aer_device, aer_fields);

static const rd_field xgmi_link_fields[] = {
    F(rd_xgmi_link, node_from, RD_FT_INT),
    F(rd_xgmi_link, node_to, RD_FT_INT),
    F(rd_xgmi_link, weight, RD_FT_INT),
};
static SCHEMA(xgmi_link_schema, rd_xgmi_link, xgmi_link_fields);

static const rd_field io_links_read_fields[] = {
    F(rd_io_links_read, node_id, RD_FT_INT),
    F(rd_io_links_read, io_links, RD_FT_INT),
};
static SCHEMA(io_links_read_schema, rd_io_links_read, io_links_read_fields);

static const rd_field health_gpu_fields[] = {
    F(rd_health_gpu, pci_address, RD_FT_STR),
    F(rd_health_gpu, ras_exposed, RD_FT_BOOL),
    F(rd_health_gpu, ras_features, RD_FT_INT),
    FA(rd_health_gpu, ras, n_ras, ras_count_schema),
    F(rd_health_gpu, bad_pages_exposed, RD_FT_BOOL),
    F(rd_health_gpu, bad_pages_reserved, RD_FT_INT),
    F(rd_health_gpu, bad_pages_pending, RD_FT_INT),
    F(rd_health_gpu, bad_pages_failed, RD_FT_INT),
    F(rd_health_gpu, bad_page_threshold, RD_FT_INT),
    F(rd_health_gpu, hwmon_exposed, RD_FT_BOOL),
    FA(rd_health_gpu, temps, n_temps, temp_schema),
    F(rd_health_gpu, power_uw, RD_FT_INT),
    F(rd_health_gpu, power_cap_uw, RD_FT_INT),
    F(rd_health_gpu, power_cap_default_uw, RD_FT_INT),
    F(rd_health_gpu, power_cap_max_uw, RD_FT_INT),
    FS(rd_health_gpu, metrics, metrics_schema),
    F(rd_health_gpu, firmware, RD_FT_STRV),
    F(rd_health_gpu, vbios_version, RD_FT_STR),
    F(rd_health_gpu, serial_number, RD_FT_STR),
    F(rd_health_gpu, unique_id, RD_FT_STR),
    F(rd_health_gpu, product_name, RD_FT_STR),
    F(rd_health_gpu, vram_total, RD_FT_INT),
    F(rd_health_gpu, memory_partition, RD_FT_STR),
    F(rd_health_gpu, xgmi_hive_id, RD_FT_U64),
    F(rd_health_gpu, xgmi_hive_size, RD_FT_INT),
    FA(rd_health_gpu, events, n_events, event_schema),
    FA(rd_health_gpu, aer, n_aer, aer_schema),
    F(rd_health_gpu, not_exposed, RD_FT_STRV),
};
SCHEMA(rd_health_gpu_schema, rd_health_gpu, health_gpu_fields);

static const rd_field health_fields[] = {
    FA(rd_health_facts, gpus, n_gpus, rd_health_gpu_schema),
    FA(rd_health_facts, xgmi_links, n_xgmi_links, xgmi_link_schema),
    FA(rd_health_facts, io_links_read, n_io_links_read, io_links_read_schema),
    FA(rd_health_facts, events, n_events, event_schema),
    F(rd_health_facts, bad_page_threshold_param, RD_FT_STR),
    F(rd_health_facts, kmsg_error, RD_FT_STR),
    F(rd_health_facts, error, RD_FT_STR),
};
SCHEMA(rd_health_facts_schema, rd_health_facts, health_fields);
/* clang-format on */

const rd_health_gpu *rd_health_gpu_find(const rd_health_facts *h, const char *pci_address)
{
    for (size_t i = 0; pci_address && i < h->n_gpus; i++)
        if (streq_ptr(h->gpus[i].pci_address, pci_address))
            return &h->gpus[i];
    return NULL;
}

int64_t rd_health_ras_total(const rd_health_gpu *g, char which)
{
    int64_t sum = -1;
    for (size_t i = 0; i < g->n_ras; i++) {
        int64_t v = which == 'u' ? g->ras[i].ue : which == 'c' ? g->ras[i].ce : g->ras[i].de;
        if (v >= 0)
            sum = (sum < 0 ? 0 : sum) + v;
    }
    return sum;
}

int64_t rd_health_retired_pages(const rd_health_gpu *g)
{
    if (!g->bad_pages_exposed)
        return -1;
    return g->bad_pages_reserved + g->bad_pages_pending + g->bad_pages_failed;
}

size_t rd_health_event_count(const rd_health_gpu *g, const char *kind)
{
    size_t n = 0;
    for (size_t i = 0; i < g->n_events; i++)
        n += streq_ptr(g->events[i].kind, kind);
    return n;
}

const char *rd_health_temp_sensor(const rd_temp_sensor *t)
{
    return t->label ? t->label : t->name;
}

const char *const rd_aer_type_names[3] = { "correctable", "nonfatal", "fatal" };

void rd_health_aer_sum(const rd_health_gpu *g, int64_t ret[3])
{
    int64_t v[3] = { -1, -1, -1 };
    for (size_t j = 0; j < g->n_aer; j++) {
        const rd_aer_device *a = &g->aer[j];
        const int64_t d[] = { a->correctable, a->nonfatal, a->fatal };
        for (size_t t = 0; t < 3; t++)
            if (d[t] >= 0)
                v[t] = (v[t] < 0 ? 0 : v[t]) + d[t];
    }
    memcpy(ret, v, sizeof v);
}

/* clang-format off */
const char *const rd_health_finding_ids[] = {
    RD_FINDING(GPU_RAS_UNCORRECTABLE), RD_FINDING(GPU_RAS_CORRECTABLE), RD_FINDING(GPU_RETIRED_PAGES), RD_FINDING(GPU_RESET_SEEN), RD_FINDING(GPU_RESET_FAILED),
    RD_FINDING(XGMI_LINK_MISSING), RD_FINDING(XGMI_HIVE_INCOMPLETE), RD_FINDING(PCIE_AER_ERRORS), RD_FINDING(GPU_THROTTLED), RD_FINDING(GPU_POWER_CAPPED),
    RD_FINDING(GPU_HOT), RD_FINDING(GPU_VRAM_MISSING), RD_FINDING(GPU_FIRMWARE_KNOWN_BAD), NULL,
};
/* clang-format on */

const char *rd_throttle_reason_name(unsigned reason)
{
    static const char *const names[RD_THROTTLE_N] = { "power", "current", "thermal", "prochot", "other" };
    return reason < RD_THROTTLE_N ? names[reason] : "unknown";
}

unsigned rd_throttle_active(const rd_gpu_metrics *m)
{
    if (!m->understood || !m->has_indep_throttle)
        return 0;
    uint64_t s = m->indep_throttle_status;
    unsigned r = 0;
    /* amdgpu_smu.h: power 0-7 (PPT0-3, SPL, FPPT, SPPT, SPPT_APU), current
     * 16-23 (TDC_*, EDC_*, APCC), temperature 32-45 (TEMP_*, VRHOT0/1),
     * PROCHOT_CPU/GFX 46-47, PPM and FIT 56-57 */
    if (s & 0xffULL)
        r |= 1u << RD_THROTTLE_POWER;
    if (s & (0xffULL << 16))
        r |= 1u << RD_THROTTLE_CURRENT;
    if (s & (0x3fffULL << 32))
        r |= 1u << RD_THROTTLE_THERMAL;
    if (s & (0x3ULL << 46))
        r |= 1u << RD_THROTTLE_PROCHOT;
    if (s & ~(0xffULL | (0xffULL << 16) | (0xffffULL << 32)))
        r |= 1u << RD_THROTTLE_OTHER;
    return r;
}

bool rd_throttle_residency(const rd_gpu_metrics *m, double ret[RD_THROTTLE_N])
{
    if (!m->understood || m->accumulation_counter <= 0)
        return false;
    double acc = (double)m->accumulation_counter;
    int64_t thermal = m->socket_thm_residency;
    if (m->vr_thm_residency > thermal)
        thermal = m->vr_thm_residency;
    if (m->hbm_thm_residency > thermal)
        thermal = m->hbm_thm_residency;
    for (unsigned i = 0; i < RD_THROTTLE_N; i++)
        ret[i] = 0;
    ret[RD_THROTTLE_POWER] = m->ppt_residency > 0 ? (double)m->ppt_residency / acc : 0;
    ret[RD_THROTTLE_THERMAL] = thermal > 0 ? (double)thermal / acc : 0;
    ret[RD_THROTTLE_PROCHOT] = m->prochot_residency > 0 ? (double)m->prochot_residency / acc : 0;
    return true;
}
