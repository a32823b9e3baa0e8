/* SPDX-License-Identifier: MIT */
#include "report-health.h"

#include <inttypes.h>
#include "facts-json.h"
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
    parts = strv_push(parts, hot ? xasprintf("%.0f °C %s", (double)hot->input_mc / 1000, hot->label ? hot->label : hot->name)
                                 : xstrdup("temperature not exposed"));
    if (h->power_uw >= 0 && h->power_cap_uw > 0)
        parts = strv_push(parts, xasprintf("%.0f/%.0f W", (double)h->power_uw / 1e6, (double)h->power_cap_uw / 1e6));
    else if (h->power_uw >= 0)
        parts = strv_push(parts, xasprintf("%.0f W", (double)h->power_uw / 1e6));
    int64_t ue = rd_health_ras_total(h, 'u'), ce = rd_health_ras_total(h, 'c');
    parts = strv_push(parts, h->ras_exposed ? xasprintf("RAS %" PRId64 " UE %" PRId64 " CE", ue < 0 ? 0 : ue, ce < 0 ? 0 : ce)
                                            : xstrdup("RAS not exposed"));
    int64_t pages = rd_health_retired_pages(h);
    if (pages >= 0)
        parts = strv_push(parts, xasprintf("%" PRId64 " retired pages", pages));
    size_t resets = rd_health_event_count(h, "reset");
    parts = strv_push(parts, xasprintf("%zu reset%s", resets, resets == 1 ? "" : "s"));
    print_parts(out, parts);
}

static json_object *int_or_null(int64_t v)
{
    return v >= 0 ? json_object_new_int64(v) : NULL;
}

json_object *rd_report_health_json(const rd_facts *f, const rd_gpu *g)
{
    const rd_health_gpu *h = rd_health_gpu_find(&f->health, g->pci->address);
    if (!h)
        return NULL;
    json_object *o = rd_struct_to_json(&rd_health_gpu_schema, h);
    json_object *s = json_object_new_object();
    json_object_object_add(s, "ras_uncorrectable", int_or_null(rd_health_ras_total(h, 'u')));
    json_object_object_add(s, "ras_correctable", int_or_null(rd_health_ras_total(h, 'c')));
    json_object_object_add(s, "ras_deferred", int_or_null(rd_health_ras_total(h, 'd')));
    json_object_object_add(s, "retired_pages", int_or_null(rd_health_retired_pages(h)));
    json_object_object_add(s, "resets", json_object_new_int64((int64_t)rd_health_event_count(h, "reset")));
    json_object_object_add(s, "reset_failures",
                           json_object_new_int64((int64_t)rd_health_event_count(h, "reset-failed")));
    json_object_object_add(s, "ring_timeouts",
                           json_object_new_int64((int64_t)rd_health_event_count(h, "ring-timeout")));
    json_object_object_add(s, "page_faults", json_object_new_int64((int64_t)rd_health_event_count(h, "page-fault")));
    json_object *active = NULL;
    if (h->metrics.understood && h->metrics.has_indep_throttle) {
        active = json_object_new_array();
        unsigned bits = rd_throttle_active(&h->metrics);
        for (unsigned r = 0; r < RD_THROTTLE_N; r++)
            if (bits & (1u << r))
                json_object_array_add(active, json_object_new_string(rd_throttle_reason_name(r)));
    }
    json_object_object_add(s, "throttle_active", active);
    double share[RD_THROTTLE_N];
    json_object *res = NULL;
    if (rd_throttle_residency(&h->metrics, share)) {
        res = json_object_new_object();
        for (unsigned r = 0; r < RD_THROTTLE_N; r++)
            if (r != RD_THROTTLE_CURRENT && r != RD_THROTTLE_OTHER)
                json_object_object_add(res, rd_throttle_reason_name(r), json_object_new_double(share[r]));
    }
    json_object_object_add(s, "throttle_residency", res);
    json_object_object_add(o, "summary", s);
    return o;
}

const char *rd_report_health_status(const rd_facts *f, const rd_findings *fs)
{
    /* the ids of probes/health.c; the renderers do not see the probe table */
    static const char *const ids[] = {
        "gpu.ras-uncorrectable", "gpu.ras-correctable", "gpu.retired-pages", "gpu.reset-seen", "gpu.reset-failed",
        "xgmi.link-missing",     "xgmi.hive-incomplete", "pcie.aer-errors",  "gpu.throttled",  "gpu.power-capped",
        "gpu.hot",               "gpu.vram-missing",
    };
    if (f->health.n_gpus == 0)
        return NULL;
    rd_severity worst = RD_SEV_OK;
    for (size_t i = 0; i < fs->n; i++)
        for (size_t j = 0; j < ELEMENTSOF(ids); j++)
            if (streq(fs->items[i].id, ids[j]) && fs->items[i].severity > worst)
                worst = fs->items[i].severity;
    return worst == RD_SEV_ERROR ? "error" : worst == RD_SEV_WARNING ? "warning" : "ok";
}
