/* SPDX-License-Identifier: MIT */
#include "report-health.h"

#include <inttypes.h>
#include "json-util.h"
#include "util.h"

/* Parts joined by ", " after "health: ", wrapped at 80 columns under the
 * GPU's other lines. */
static void print_parts(FILE *out, char **parts)
{
    size_t col = 16 + strlen("health: ");
    fprintf(out, "%16shealth: ", "");
    for (size_t i = 0; parts[i]; i++) {
        size_t len = strlen(parts[i]) + (parts[i + 1] ? 1 : 0);
        if (i > 0 && col + 1 + len > 80) {
            fprintf(out, "\n%24s", "");
            col = 24;
        } else if (i > 0) {
            fputc(' ', out);
            col++;
        }
        fprintf(out, "%s%s", parts[i], parts[i + 1] ? "," : "");
        col += len;
    }
    fputc('\n', out);
}

void rd_report_health_line(FILE *out, const rd_facts *f, const rd_gpu *g)
{
    const rd_health_gpu *h = rd_health_gpu_find(&f->health, g->pci->address);
    if (!h)
        return;
    _cleanup_strv_free_ char **parts = NULL;
    const rd_temp_sensor *hot = NULL;
    for (size_t i = 0; i < h->n_temps; i++)
        if (h->temps[i].input_mc >= 0 && (!hot || h->temps[i].input_mc > hot->input_mc))
            hot = &h->temps[i];
    parts = strv_push(parts, hot ? xasprintf("%.0f °C %s", (double)hot->input_mc / 1000, rd_health_temp_sensor(hot))
                                 : xstrdup("temperature not exposed"));
    if (h->power_uw >= 0 && h->power_cap_uw > 0)
        parts = strv_push(parts, xasprintf("%.0f/%.0f W", (double)h->power_uw / 1e6, (double)h->power_cap_uw / 1e6));
    else if (h->power_uw >= 0)
        parts = strv_push(parts, xasprintf("%.0f W", (double)h->power_uw / 1e6));
    int64_t ue = rd_health_ras_total(h, 'u'), ce = rd_health_ras_total(h, 'c');
    parts = strv_push(parts, h->ras_exposed
                                 ? xasprintf("RAS %" PRId64 " UE %" PRId64 " CE", ue < 0 ? 0 : ue, ce < 0 ? 0 : ce)
                                 : xstrdup("RAS not exposed"));
    int64_t pages = rd_health_retired_pages(h);
    if (pages >= 0)
        parts = strv_push(parts, xasprintf("%" PRId64 " retired pages", pages));
    size_t resets = rd_health_event_count(h, "reset");
    parts = strv_push(parts, xasprintf("%zu reset%s", resets, resets == 1 ? "" : "s"));
    print_parts(out, parts);
}

/* The blocks with an error of any type: a healthy GPU's ten zero blocks
 * stay in the facts, out of the report that a fleet stores per host. */
static json_object *ras_json(const rd_health_gpu *h)
{
    if (!h->ras_exposed)
        return NULL;
    json_object *o = json_object_new_object();
    for (size_t i = 0; i < h->n_ras; i++) {
        const rd_ras_count *c = &h->ras[i];
        if (c->ue <= 0 && c->ce <= 0 && c->de <= 0)
            continue;
        json_object *b = json_object_new_object();
        rd_json_add(b, "uncorrectable", rd_json_int_or_null(c->ue));
        rd_json_add(b, "correctable", rd_json_int_or_null(c->ce));
        rd_json_add(b, "deferred", rd_json_int_or_null(c->de));
        json_object_object_add(o, c->block, b);
    }
    return o;
}

static json_object *temperatures_json(const rd_health_gpu *h)
{
    if (!h->hwmon_exposed)
        return NULL;
    json_object *o = json_object_new_object();
    for (size_t i = 0; i < h->n_temps; i++)
        if (h->temps[i].input_mc >= 0)
            json_object_object_add(o, rd_health_temp_sensor(&h->temps[i]), rd_json_int(h->temps[i].input_mc));
    return o;
}

static json_object *power_cap_json(const rd_health_gpu *h)
{
    static const char *const kinds[] = { "current", "default", "max" };
    const int64_t v[] = { h->power_cap_uw, h->power_cap_default_uw, h->power_cap_max_uw };
    json_object *o = NULL;
    for (size_t k = 0; k < ELEMENTSOF(kinds); k++)
        if (v[k] >= 0) {
            if (!o)
                o = json_object_new_object();
            rd_json_add(o, kinds[k], rd_json_int(v[k]));
        }
    return o;
}

/* "aer": the totals over the GPU's path to the root; "aer_devices": the
 * devices on it with a nonzero count. */
static void aer_json(json_object *o, const rd_health_gpu *h)
{
    int64_t sum[3];
    rd_health_aer_sum(h, sum);
    json_object *devices = json_object_new_array();
    for (size_t i = 0; i < h->n_aer; i++) {
        const rd_aer_device *a = &h->aer[i];
        const int64_t v[3] = { a->correctable, a->nonfatal, a->fatal };
        if (v[0] <= 0 && v[1] <= 0 && v[2] <= 0)
            continue;
        json_object *d = json_object_new_object();
        rd_json_add(d, "address", json_object_new_string(a->address));
        for (size_t t = 0; t < 3; t++)
            rd_json_add(d, rd_aer_type_names[t], rd_json_int_or_null(v[t]));
        json_object_array_add(devices, d);
    }
    json_object *tot = NULL;
    if (sum[0] >= 0 || sum[1] >= 0 || sum[2] >= 0) {
        tot = json_object_new_object();
        for (size_t t = 0; t < 3; t++)
            rd_json_add(tot, rd_aer_type_names[t], rd_json_int_or_null(sum[t]));
    }
    rd_json_add(o, "aer", tot);
    rd_json_add(o, "aer_devices", devices);
}

static void throttle_json(json_object *o, const rd_health_gpu *h)
{
    json_object *active = NULL;
    if (h->metrics.understood && h->metrics.has_indep_throttle) {
        active = json_object_new_array();
        unsigned bits = rd_throttle_active(&h->metrics);
        for (unsigned r = 0; r < RD_THROTTLE_N; r++)
            if (bits & (1u << r))
                json_object_array_add(active, json_object_new_string(rd_throttle_reason_name(r)));
    }
    rd_json_add(o, "throttle_active", active);
    double share[RD_THROTTLE_N];
    json_object *res = NULL;
    if (rd_throttle_residency(&h->metrics, share)) {
        res = json_object_new_object();
        for (unsigned r = 0; r < RD_THROTTLE_N; r++)
            if (r != RD_THROTTLE_CURRENT && r != RD_THROTTLE_OTHER)
                rd_json_add(res, rd_throttle_reason_name(r), rd_json_double(share[r]));
    }
    rd_json_add(o, "throttle_residency", res);
}

/* A summary per GPU, about 30 values: the full detail (every RAS block,
 * sensor limits, gpu_metrics fields, firmware versions, kernel log lines,
 * every device on the AER path, what is not exposed) is in the facts
 * (`rocm-doctor facts --json`). */
json_object *rd_report_health_json(const rd_facts *f, const rd_gpu *g)
{
    const rd_health_gpu *h = rd_health_gpu_find(&f->health, g->pci->address);
    if (!h)
        return NULL;
    json_object *o = json_object_new_object();
    rd_json_add(o, "temperatures_mc", temperatures_json(h));
    rd_json_add(o, "power_uw", rd_json_int_or_null(h->power_uw));
    rd_json_add(o, "power_cap_uw", power_cap_json(h));
    rd_json_add(o, "ras", ras_json(h));
    rd_json_add(o, "ras_uncorrectable", rd_json_int_or_null(rd_health_ras_total(h, 'u')));
    rd_json_add(o, "ras_correctable", rd_json_int_or_null(rd_health_ras_total(h, 'c')));
    rd_json_add(o, "ras_deferred", rd_json_int_or_null(rd_health_ras_total(h, 'd')));
    rd_json_add(o, "retired_pages", rd_json_int_or_null(rd_health_retired_pages(h)));
    rd_json_add(o, "resets", rd_json_int((int64_t)rd_health_event_count(h, "reset")));
    rd_json_add(o, "reset_failures", rd_json_int((int64_t)rd_health_event_count(h, "reset-failed")));
    rd_json_add(o, "ring_timeouts", rd_json_int((int64_t)rd_health_event_count(h, "ring-timeout")));
    rd_json_add(o, "page_faults", rd_json_int((int64_t)rd_health_event_count(h, "page-fault")));
    throttle_json(o, h);
    aer_json(o, h);
    rd_json_add(o, "vbios_version", rd_json_str_or_null(h->vbios_version));
    rd_json_add(o, "serial_number", rd_json_str_or_null(h->serial_number));
    rd_json_add(o, "unique_id", rd_json_str_or_null(h->unique_id));
    return o;
}

const char *rd_report_health_status(const rd_facts *f, const rd_findings *fs)
{
    if (f->health.n_gpus == 0)
        return NULL;
    rd_severity worst = RD_SEV_OK;
    for (size_t i = 0; i < fs->n; i++)
        if (strv_contains((char *const *)rd_health_finding_ids, fs->items[i].id) && fs->items[i].severity > worst)
            worst = fs->items[i].severity;
    return worst == RD_SEV_ERROR ? "error" : worst == RD_SEV_WARNING ? "warning" : "ok";
}
