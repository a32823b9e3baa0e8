/* SPDX-License-Identifier: MIT */
/* Prometheus text exposition (format 0.0.4) for the node-exporter textfile
 * collector. Every metric is a gauge; a label set appears once per metric
 * (the collector rejects duplicates), so findings that repeat an id for the
 * same GPU are counted, not repeated. Every per-GPU series names the GPU's
 * PCI address in the label gpu; the metrics that named it pci_address before
 * carry that label too for this release (rocm-doctor(1), OUTPUT). */
#include "report.h"

#include <inttypes.h>
#include <time.h>
#include "build-config.h"
#include "util.h"

/* Label values escape backslash, double quote and newline; HELP text escapes
 * backslash and newline. */
static void put_escaped(FILE *out, const char *s, bool quote)
{
    for (; s && *s; s++) {
        if (*s == '\\')
            fputs("\\\\", out);
        else if (*s == '\n')
            fputs("\\n", out);
        else if (quote && *s == '"')
            fputs("\\\"", out);
        else
            fputc(*s, out);
    }
}

static void header(FILE *out, const char *name, const char *help)
{
    fprintf(out, "# HELP %s ", name);
    put_escaped(out, help, false);
    fprintf(out, "\n# TYPE %s gauge\n", name);
}

/* labels: NULL-terminated name, value pairs; a NULL value is written as "". */
static void sample(FILE *out, const char *name, const char *const *labels, const char *value)
{
    fputs(name, out);
    if (labels && labels[0]) {
        fputc('{', out);
        for (size_t i = 0; labels[i]; i += 2) {
            fprintf(out, "%s%s=\"", i ? "," : "", labels[i]);
            put_escaped(out, labels[i + 1], true);
            fputc('"', out);
        }
        fputc('}', out);
    }
    fprintf(out, " %s\n", value);
}

static void sample_u64(FILE *out, const char *name, const char *const *labels, uint64_t v)
{
    char buf[32];
    snprintf(buf, sizeof buf, "%" PRIu64, v);
    sample(out, name, labels, buf);
}

static void sample_double(FILE *out, const char *name, const char *const *labels, double v)
{
    char buf[64];
    snprintf(buf, sizeof buf, "%.17g", v);
    sample(out, name, labels, buf);
}

static void findings_metric(FILE *out, const rd_findings *fs)
{
    header(out, "rocm_doctor_finding",
           "Findings of the last check by id, severity and GPU PCI address (\"\" for the host); "
           "the value is how many findings share these labels.");
    bool *done = xcalloc(fs->n ? fs->n : 1, sizeof(bool));
    for (size_t i = 0; i < fs->n; i++) {
        if (done[i])
            continue;
        const rd_finding *a = &fs->items[i];
        uint64_t n = 0;
        for (size_t j = i; j < fs->n; j++) {
            const rd_finding *b = &fs->items[j];
            if (!done[j] && streq(a->id, b->id) && a->severity == b->severity &&
                streq(strempty(a->gpu), strempty(b->gpu))) {
                done[j] = true;
                n++;
            }
        }
        const char *labels[] = {
            "id", a->id, "severity", rd_severity_name(a->severity), "gpu", strempty(a->gpu), NULL
        };
        sample_u64(out, "rocm_doctor_finding", labels, n);
    }
    free(done);
}

static void link_metrics(FILE *out, const rd_gpu_view *v, bool speed)
{
    const char *name =
        speed ? "rocm_doctor_gpu_pcie_link_speed_transfers_per_second" : "rocm_doctor_gpu_pcie_link_width_lanes";
    bool any = false;
    for (size_t i = 0; i < v->n_gpus; i++) {
        const rd_gpu *g = &v->gpus[i];
        const rd_pci_device *l = g->link;
        for (int max = 0; max <= 1; max++) {
            double value = speed ? (max ? l->max_link_speed : l->current_link_speed) * 1e9
                                 : (double)(max ? l->max_link_width : l->current_link_width);
            if (value <= 0)
                continue; /* unknown (no PCIe capability, or unreadable) */
            if (!any)
                header(out, name,
                       speed ? "PCIe link speed of the GPU's slot (link=\"current\" or \"max\"), "
                               "in transfers per second."
                             : "PCIe link width of the GPU's slot (link=\"current\" or \"max\"), "
                               "in lanes.");
            any = true;
            const char *labels[] = { "gpu",  g->pci->address,         "pci_address", g->pci->address,
                                     "link", max ? "max" : "current", NULL };
            sample_double(out, name, labels, value);
        }
    }
}

/* Level 2, one series per HIP device; labelled with the HIP ordinal too,
 * since partitions of one GPU can share a PCI address. A metric whose value
 * no device measured is left out, as a number that was never measured is not
 * a zero. */
static void runtime_metric(FILE *out, const rd_runtime_facts *rt, const char *name, const char *help, int which)
{
    bool any = false;
    for (size_t i = 0; i < rt->n_devices; i++) {
        const rd_runtime_device *d = &rt->devices[i];
        double value;
        switch (which) {
        case 0: /* the kernel ran and computed the right values; a GPU with
                 * no code object to run was not tested, which is not a failure */
            if (streq_ptr(d->result, "no-code-object"))
                continue;
            value = streq_ptr(d->result, "ok") ? 1 : 0;
            break;
        case 1: value = d->launch_latency_us / 1e6; break;
        case 2: value = d->h2d_gbps * 1e9; break;
        default: value = d->d2h_gbps * 1e9; break;
        }
        if (which != 0 && value <= 0)
            continue;
        if (!any)
            header(out, name, help);
        any = true;
        char index[32];
        snprintf(index, sizeof index, "%" PRId64, d->index);
        const char *labels[] = {
            "gpu", strempty(d->pci_address), "pci_address", strempty(d->pci_address), "hip_device", index, NULL
        };
        sample_double(out, name, labels, value);
    }
}

static void runtime_metrics(FILE *out, const rd_runtime_facts *rt)
{
    if (!rt->ran)
        return;
    runtime_metric(out, rt, "rocm_doctor_gpu_kernel_ok",
                   "Level 2: 1 when the test kernel ran on the GPU and computed the right values, 0 when it failed, "
                   "computed wrong values or did not finish; absent for a GPU it could not be built for.",
                   0);
    runtime_metric(out, rt, "rocm_doctor_gpu_kernel_launch_latency_seconds",
                   "Level 2: median time to launch an empty kernel and wait for it, in seconds.", 1);
    runtime_metric(out, rt, "rocm_doctor_gpu_host_to_device_bandwidth_bytes_per_second",
                   "Level 2: host-to-device copy bandwidth (hipMemcpy of 64 MiB), in bytes per second.", 2);
    runtime_metric(out, rt, "rocm_doctor_gpu_device_to_host_bandwidth_bytes_per_second",
                   "Level 2: device-to-host copy bandwidth (hipMemcpy of 64 MiB), in bytes per second.", 3);
}

/* ---- health (probes/health.c): each value is the JSON report's gpus[].health ---- */

typedef struct {
    FILE *out;
    const char *name, *help;
    bool any;
} prom_series;

static void health_sample(prom_series *s, const char *const *labels, double v)
{
    if (!s->any)
        header(s->out, s->name, s->help);
    s->any = true;
    sample_double(s->out, s->name, labels, v);
}

/* A block has series only when it has counted an error, as the JSON
 * report's health.ras lists it; the sums are there for every GPU whose RAS
 * is exposed. */
static void health_ras_metrics(FILE *out, const rd_health_facts *h)
{
    prom_series s = { out, "rocm_doctor_gpu_ras_errors",
                      "RAS error counts of each GPU by block (ras/<block>_err_count) and type (uncorrectable, "
                      "correctable, deferred), since the driver loaded; only blocks with an error.",
                      false };
    static const char *const types[] = { "uncorrectable", "correctable", "deferred" };
    for (size_t i = 0; i < h->n_gpus; i++)
        for (size_t j = 0; j < h->gpus[i].n_ras; j++) {
            const rd_ras_count *c = &h->gpus[i].ras[j];
            const int64_t v[] = { c->ue, c->ce, c->de };
            for (size_t t = 0; (v[0] > 0 || v[1] > 0 || v[2] > 0) && t < 3; t++)
                if (v[t] >= 0) {
                    const char *labels[] = { "gpu", h->gpus[i].pci_address, "block", c->block, "type", types[t], NULL };
                    health_sample(&s, labels, (double)v[t]);
                }
        }
    prom_series sum = { out, "rocm_doctor_gpu_ras_error_totals",
                        "RAS error counts of each GPU summed over its blocks, by type.", false };
    for (size_t i = 0; i < h->n_gpus; i++)
        for (size_t t = 0; h->gpus[i].ras_exposed && t < 3; t++) {
            int64_t v = rd_health_ras_total(&h->gpus[i], "ucd"[t]);
            const char *labels[] = { "gpu", h->gpus[i].pci_address, "type", types[t], NULL };
            if (v >= 0)
                health_sample(&sum, labels, (double)v);
        }
    prom_series pages = { out, "rocm_doctor_gpu_retired_pages",
                          "VRAM pages each GPU retired (rows of ras/gpu_vram_bad_pages).", false };
    for (size_t i = 0; i < h->n_gpus; i++) {
        int64_t n = rd_health_retired_pages(&h->gpus[i]);
        const char *labels[] = { "gpu", h->gpus[i].pci_address, NULL };
        if (n >= 0)
            health_sample(&pages, labels, (double)n);
    }
    prom_series resets = { out, "rocm_doctor_gpu_resets", "GPU resets since boot, from the kernel log.", false };
    prom_series failed = { out, "rocm_doctor_gpu_reset_failures", "Failed GPU resets since boot, from the kernel log.",
                           false };
    for (size_t i = 0; i < h->n_gpus; i++) {
        const char *labels[] = { "gpu", h->gpus[i].pci_address, NULL };
        health_sample(&resets, labels, (double)rd_health_event_count(&h->gpus[i], "reset"));
    }
    for (size_t i = 0; i < h->n_gpus; i++) {
        const char *labels[] = { "gpu", h->gpus[i].pci_address, NULL };
        health_sample(&failed, labels, (double)rd_health_event_count(&h->gpus[i], "reset-failed"));
    }
}

static void health_thermal_metrics(FILE *out, const rd_health_facts *h)
{
    prom_series temp = { out, "rocm_doctor_gpu_temperature_celsius",
                         "GPU temperatures by hwmon sensor label, in degrees Celsius.", false };
    for (size_t i = 0; i < h->n_gpus; i++)
        for (size_t j = 0; j < h->gpus[i].n_temps; j++) {
            const rd_temp_sensor *t = &h->gpus[i].temps[j];
            const char *labels[] = { "gpu", h->gpus[i].pci_address, "sensor", rd_health_temp_sensor(t), NULL };
            if (t->input_mc >= 0)
                health_sample(&temp, labels, (double)t->input_mc / 1000);
        }
    prom_series power = { out, "rocm_doctor_gpu_power_watts",
                          "GPU power draw (hwmon power1_average or _input), in watts.", false };
    prom_series cap = { out, "rocm_doctor_gpu_power_cap_watts",
                        "GPU power limits (hwmon power1_cap, _cap_default, _cap_max) by cap=current|default|max, in "
                        "watts.",
                        false };
    for (size_t i = 0; i < h->n_gpus; i++) {
        const rd_health_gpu *g = &h->gpus[i];
        const char *labels[] = { "gpu", g->pci_address, NULL };
        if (g->power_uw >= 0)
            health_sample(&power, labels, (double)g->power_uw / 1e6);
    }
    for (size_t i = 0; i < h->n_gpus; i++) {
        const rd_health_gpu *g = &h->gpus[i];
        const char *kinds[] = { "current", "default", "max" };
        const int64_t v[] = { g->power_cap_uw, g->power_cap_default_uw, g->power_cap_max_uw };
        for (size_t k = 0; k < 3; k++) {
            const char *labels[] = { "gpu", g->pci_address, "cap", kinds[k], NULL };
            if (v[k] >= 0)
                health_sample(&cap, labels, (double)v[k] / 1e6);
        }
    }
    prom_series active = { out, "rocm_doctor_gpu_throttle_active",
                           "1 when gpu_metrics' indep_throttle_status has a reason set (power, current, thermal, "
                           "prochot, other); only for layouts that have it.",
                           false };
    prom_series res = { out, "rocm_doctor_gpu_throttle_residency_ratio",
                        "Share of gpu_metrics samples the GPU was throttled by reason (v1_6 and later).", false };
    for (size_t i = 0; i < h->n_gpus; i++) {
        const rd_gpu_metrics *m = &h->gpus[i].metrics;
        unsigned bits = rd_throttle_active(m);
        for (unsigned r = 0; m->understood && m->has_indep_throttle && r < RD_THROTTLE_N; r++) {
            const char *labels[] = { "gpu", h->gpus[i].pci_address, "reason", rd_throttle_reason_name(r), NULL };
            health_sample(&active, labels, (bits & (1u << r)) ? 1 : 0);
        }
    }
    for (size_t i = 0; i < h->n_gpus; i++) {
        double share[RD_THROTTLE_N];
        for (unsigned r = 0; rd_throttle_residency(&h->gpus[i].metrics, share) && r < RD_THROTTLE_N; r++) {
            const char *labels[] = { "gpu", h->gpus[i].pci_address, "reason", rd_throttle_reason_name(r), NULL };
            if (r != RD_THROTTLE_CURRENT && r != RD_THROTTLE_OTHER)
                health_sample(&res, labels, share[r]);
        }
    }
}

/* Per device only where a count is nonzero (the JSON's aer_devices); the
 * sums over the path for every GPU that exposes AER (the JSON's aer). */
static void health_aer_metrics(FILE *out, const rd_health_facts *h)
{
    prom_series s = { out, "rocm_doctor_gpu_pcie_aer_errors",
                      "PCIe AER error totals (aer_dev_*) of the devices on a GPU's path to the root port that have "
                      "counted one, by type=correctable|nonfatal|fatal.",
                      false };
    prom_series sum = { out, "rocm_doctor_gpu_pcie_aer_error_totals",
                        "PCIe AER error totals summed over the devices on a GPU's path to the root port, by type.",
                        false };
    for (size_t i = 0; i < h->n_gpus; i++)
        for (size_t j = 0; j < h->gpus[i].n_aer; j++) {
            const rd_aer_device *a = &h->gpus[i].aer[j];
            const int64_t v[] = { a->correctable, a->nonfatal, a->fatal };
            for (size_t t = 0; (v[0] > 0 || v[1] > 0 || v[2] > 0) && t < 3; t++) {
                const char *labels[] = { "gpu",  h->gpus[i].pci_address, "device", a->address,
                                         "type", rd_aer_type_names[t],   NULL };
                if (v[t] >= 0)
                    health_sample(&s, labels, (double)v[t]);
            }
        }
    for (size_t i = 0; i < h->n_gpus; i++) {
        int64_t v[3];
        rd_health_aer_sum(&h->gpus[i], v);
        for (size_t t = 0; t < 3; t++) {
            const char *labels[] = { "gpu", h->gpus[i].pci_address, "type", rd_aer_type_names[t], NULL };
            if (v[t] >= 0)
                health_sample(&sum, labels, (double)v[t]);
        }
    }
}

int rd_report_prometheus(FILE *out, const rd_facts *f, const rd_gpu_view *v, const rd_findings *fs)
{
    int exit_status = rd_findings_exit_status(fs);
    uint64_t counts[4] = { 0 };
    for (size_t i = 0; i < fs->n; i++)
        counts[fs->items[i].severity]++;

    header(out, "rocm_doctor_info", "Version of rocm-doctor that ran the last check.");
    const char *info[] = { "version", PACKAGE_VERSION, NULL };
    sample(out, "rocm_doctor_info", info, "1");

    header(out, "rocm_doctor_exit_status",
           "Result of the last check: 0 ok, 1 warnings, 2 errors (the exit status of rocm-doctor check).");
    sample_u64(out, "rocm_doctor_exit_status", NULL, (uint64_t)exit_status);

    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    header(out, "rocm_doctor_last_check_timestamp_seconds",
           "When the last check was assessed, in seconds since the Unix epoch.");
    char when[48];
    snprintf(when, sizeof when, "%lld.%03ld", (long long)ts.tv_sec, ts.tv_nsec / 1000000);
    sample(out, "rocm_doctor_last_check_timestamp_seconds", NULL, when);

    header(out, "rocm_doctor_findings", "Number of findings of the last check, by severity.");
    for (rd_severity s = RD_SEV_OK; s <= RD_SEV_ERROR; s++) {
        const char *labels[] = { "severity", rd_severity_name(s), NULL };
        sample_u64(out, "rocm_doctor_findings", labels, counts[s]);
    }
    if (fs->n > 0)
        findings_metric(out, fs);

    header(out, "rocm_doctor_gpus", "Number of AMD GPUs found.");
    sample_u64(out, "rocm_doctor_gpus", NULL, v->n_gpus);

    if (v->n_gpus > 0) {
        header(out, "rocm_doctor_gpu_info",
               "One series per AMD GPU: PCI address, gfx target, family, name, bound driver, integrated.");
        for (size_t i = 0; i < v->n_gpus; i++) {
            const rd_gpu *g = &v->gpus[i];
            const char *labels[] = { "gpu",         g->pci->address,
                                     "pci_address", g->pci->address,
                                     "gfx",         g->gfx,
                                     "family",      g->arch ? g->arch->family : "",
                                     "name",        strempty(g->name),
                                     "driver",      strempty(g->pci->driver),
                                     "integrated",  g->integrated ? "true" : "false",
                                     NULL };
            sample(out, "rocm_doctor_gpu_info", labels, "1");
        }
        header(out, "rocm_doctor_gpu_vram_bytes", "Video memory of each GPU, in bytes (0: unknown).");
        for (size_t i = 0; i < v->n_gpus; i++) {
            const char *labels[] = { "gpu", v->gpus[i].pci->address, "pci_address", v->gpus[i].pci->address, NULL };
            sample_u64(out, "rocm_doctor_gpu_vram_bytes", labels, v->gpus[i].vram_bytes);
        }
        header(out, "rocm_doctor_gpu_kfd_nodes",
               "KFD (compute) nodes of each GPU: 0 means ROCm cannot use it, more than 1 means partitions.");
        for (size_t i = 0; i < v->n_gpus; i++) {
            const char *labels[] = { "gpu", v->gpus[i].pci->address, "pci_address", v->gpus[i].pci->address, NULL };
            sample_u64(out, "rocm_doctor_gpu_kfd_nodes", labels, v->gpus[i].n_kfd);
        }
        link_metrics(out, v, true);
        link_metrics(out, v, false);
    }
    health_ras_metrics(out, &f->health);
    health_thermal_metrics(out, &f->health);
    health_aer_metrics(out, &f->health);
    runtime_metrics(out, &f->runtime);
    return ferror(out) ? -EIO : 0;
}

int rd_report_prometheus_fix_runs(FILE *out, const rd_report_fix_runs *runs)
{
    header(out, "rocm_doctor_fix_runs",
           "Applied fix runs that needed a reboot or a re-login, by state: pending (waiting for the boot "
           "check), verified or failed (a finding still failing, or the GPU kernel failed).");
    const struct {
        const char *state;
        uint64_t n;
    } rows[] = { { "pending", runs->pending }, { "verified", runs->verified }, { "failed", runs->failed } };
    for (size_t i = 0; i < ELEMENTSOF(rows); i++) {
        const char *labels[] = { "state", rows[i].state, NULL };
        sample_u64(out, "rocm_doctor_fix_runs", labels, rows[i].n);
    }
    return ferror(out) ? -EIO : 0;
}
