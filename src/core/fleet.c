/* SPDX-License-Identifier: MIT */
/* A fleet of nodes judged together (fleet.h). */
#include "fleet.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include "hostlist.h"
#include "json-util.h"
#include "util.h"

#define REPORT_SCHEMA "rocm-doctor/1"

void rd_fleet_node_set(rd_fleet_node *node, const char *key, const char *value)
{
    for (size_t i = 0; i < node->n_props; i++)
        if (streq(node->props[i].key, key)) {
            free(node->props[i].value);
            node->props[i].value = xstrdup(value);
            return;
        }
    rd_fleet_prop *p = ARRAY_APPEND(node->props, node->n_props);
    p->key = xstrdup(key);
    p->value = xstrdup(value);
}

const char *rd_fleet_node_get(const rd_fleet_node *node, const char *key)
{
    for (size_t i = 0; i < node->n_props; i++)
        if (streq(node->props[i].key, key))
            return node->props[i].value;
    return NULL;
}

static rd_severity severity_from_name(const char *s)
{
    if (streq_ptr(s, "error"))
        return RD_SEV_ERROR;
    if (streq_ptr(s, "warning"))
        return RD_SEV_WARNING;
    if (streq_ptr(s, "info"))
        return RD_SEV_INFO;
    return RD_SEV_OK;
}

/* "WHAT ADDRESS" = value: a property of one GPU. */
static void set_gpu(rd_fleet_node *node, const char *what, const char *gpu, const char *value)
{
    _cleanup_free_ char *key = xasprintf("%s %s", what, gpu);
    rd_fleet_node_set(node, key, value);
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The GPUs of the report: the class (their models), the count, and per GPU
 * its PCIe link and VBIOS. */
static void gpu_props(json_object *report, rd_fleet_node *node)
{
    json_object *gpus = rd_json_get_array(report, "gpus");
    size_t n = gpus ? json_object_array_length(gpus) : 0;
    _cleanup_strv_free_ char **models = NULL;
    size_t n_models = 0;
    for (size_t i = 0; i < n; i++) {
        json_object *g = json_object_array_get_idx(gpus, i);
        const char *name = rd_json_get_str(g, "name");
        const char *addr = rd_json_get_str(g, "pci_address");
        if (name && !strv_contains(models, name))
            models = strv_push_n(models, &n_models, xstrdup(name));
        json_object *link = NULL;
        if (addr && json_object_object_get_ex(g, "link", &link) && json_object_is_type(link, json_type_object)) {
            json_object *speed = NULL;
            double gts =
                json_object_object_get_ex(link, "current_speed_gts", &speed) ? json_object_get_double(speed) : 0;
            int64_t width = rd_json_get_int(link, "current_width", 0);
            _cleanup_free_ char *v =
                gts > 0 || width > 0 ? xasprintf("%g GT/s x%" PRId64, gts, width) : xstrdup("unknown");
            set_gpu(node, "pcie_link", addr, v);
        }
        json_object *health = NULL;
        const char *vbios = NULL;
        if (json_object_object_get_ex(g, "health", &health))
            vbios = rd_json_get_str(health, "vbios_version");
        if (addr && vbios)
            set_gpu(node, "vbios", addr, vbios);
    }
    if (n_models)
        qsort(models, n_models, sizeof *models, cmp_str);
    node->klass = n_models ? strv_join(models, " + ") : xstrdup("no GPU");
    _cleanup_free_ char *count = xasprintf("%zu", n);
    rd_fleet_node_set(node, "gpu_count", count);
}

int rd_fleet_node_from_report(json_object *report, const char *name, rd_fleet_node *ret, char **ret_error)
{
    *ret = (rd_fleet_node){ 0 };
    const char *schema = rd_json_get_str(report, "schema");
    if (!schema || !streq(schema, REPORT_SCHEMA)) {
        *ret_error = schema ? xasprintf("not a rocm-doctor report: schema \"%s\", not \"" REPORT_SCHEMA "\"", schema)
                            : xstrdup("not a rocm-doctor report: no \"schema\": \"" REPORT_SCHEMA "\"");
        return -EINVAL;
    }
    int64_t exit_status = rd_json_get_int(report, "exit_status", -1);
    json_object *findings = rd_json_get_array(report, "findings");
    if (exit_status < 0 || exit_status > 2 || !findings) {
        *ret_error = xstrdup("not a complete rocm-doctor report: no exit_status or findings");
        return -EINVAL;
    }
    json_object *host = NULL;
    json_object_object_get_ex(report, "host", &host);
    const char *hostname = rd_json_get_str(host, "hostname");
    ret->name = xstrdup(hostname ? hostname : name);
    ret->exit_status = (int)exit_status;
    size_t n = json_object_array_length(findings);
    ret->findings = xcalloc(n ? n : 1, sizeof *ret->findings);
    for (size_t i = 0; i < n; i++) {
        json_object *f = json_object_array_get_idx(findings, i);
        const char *id = rd_json_get_str(f, "id");
        if (!id)
            continue;
        rd_fleet_finding *d = &ret->findings[ret->n_findings++];
        d->id = xstrdup(id);
        d->severity = severity_from_name(rd_json_get_str(f, "severity"));
        d->summary = xstrdup_or_null(rd_json_get_str(f, "summary"));
        d->remedy = xstrdup_or_null(rd_json_get_str(f, "remedy"));
        d->fix = xstrdup_or_null(rd_json_get_str(f, "fix"));
    }
    const char *kernel = rd_json_get_str(host, "kernel");
    if (kernel)
        rd_fleet_node_set(ret, "kernel", kernel);
    gpu_props(report, ret);
    return 0;
}

void rd_fleet_node_unreachable(rd_fleet_node *ret, const char *name, const char *reason)
{
    *ret = (rd_fleet_node){ .name = xstrdup(name), .unreachable = xstrdup(reason), .exit_status = RD_EXIT_UNKNOWN };
}

static char *join_gids(const int64_t *gids, size_t n)
{
    strbuf b = { 0 };
    for (size_t i = 0; i < n; i++)
        strbuf_printf(&b, "%s%" PRId64, i ? "," : "", gids[i]);
    return b.s ? strbuf_steal(&b) : xstrdup("");
}

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return x < y ? -1 : x > y;
}

void rd_fleet_node_add_facts(rd_fleet_node *node, const rd_facts *f)
{
    if (f->rocm.checked)
        rd_fleet_node_set(node, "rocm", f->rocm.default_version ? f->rocm.default_version : "none");
    const rd_driver_facts *d = &f->driver;
    _cleanup_free_ char *driver = d->builtin          ? xstrdup("built-in")
                                  : d->version        ? xasprintf("dkms %s", d->version)
                                  : d->module_present ? xstrdup("in-box")
                                                      : xstrdup("not loaded");
    rd_fleet_node_set(node, "amdgpu_driver", driver);
    if (f->boot.dkms_amdgpu) {
        _cleanup_free_ char *dkms = strv_join(f->boot.dkms_amdgpu, ",");
        rd_fleet_node_set(node, "amdgpu_dkms", dkms);
    }
    for (size_t i = 0; i < f->health.n_gpus; i++) {
        const rd_health_gpu *h = &f->health.gpus[i];
        if (!h->pci_address)
            continue;
        /* one property per firmware: "firmware mec 0000:47:00.0" = "0x000000b1" */
        for (char **fw = h->firmware; fw && *fw; fw++) {
            const char *eq = strchr(*fw, '=');
            if (!eq)
                continue;
            _cleanup_free_ char *what = xasprintf("firmware %.*s", (int)(eq - *fw), *fw);
            set_gpu(node, what, h->pci_address, eq + 1);
        }
        if (h->vbios_version)
            set_gpu(node, "vbios", h->pci_address, h->vbios_version);
    }
    for (size_t i = 0; i < f->access.n_users; i++) {
        const rd_user_facts *u = &f->access.users[i];
        if (!u->name || u->error)
            continue;
        int64_t *gids = xcalloc(u->n_groups ? u->n_groups : 1, sizeof *gids);
        if (u->n_groups)
            memcpy(gids, u->groups, u->n_groups * sizeof *gids);
        qsort(gids, u->n_groups, sizeof *gids, cmp_i64);
        _cleanup_free_ char *v = join_gids(gids, u->n_groups);
        free(gids);
        _cleanup_free_ char *key = xasprintf("groups of %s", u->name);
        rd_fleet_node_set(node, key, v);
    }
    if (f->slurm.present) {
        strbuf b = { 0 };
        for (size_t i = 0; i < f->slurm.n_gres; i++) {
            const rd_slurm_gres *g = &f->slurm.gres[i];
            strbuf_printf(&b, "%s", b.len ? "; " : "");
            if (g->name)
                strbuf_printf(&b, "Name=%s", g->name);
            if (g->type)
                strbuf_printf(&b, " Type=%s", g->type);
            if (g->file_spec)
                strbuf_printf(&b, " File=%s", g->file_spec);
            if (g->count >= 0)
                strbuf_printf(&b, " Count=%" PRId64, g->count);
            if (g->autodetect)
                strbuf_printf(&b, " AutoDetect=%s", g->autodetect);
        }
        _cleanup_free_ char *gres = b.s ? strbuf_steal(&b) : xstrdup("(none)");
        rd_fleet_node_set(node, "gres.conf", gres);
    }
}

void rd_fleet_node_free(rd_fleet_node *node)
{
    free(node->name);
    free(node->unreachable);
    free(node->klass);
    for (size_t i = 0; i < node->n_findings; i++) {
        free(node->findings[i].id);
        free(node->findings[i].summary);
        free(node->findings[i].remedy);
        free(node->findings[i].fix);
    }
    free(node->findings);
    for (size_t i = 0; i < node->n_props; i++) {
        free(node->props[i].key);
        free(node->props[i].value);
    }
    free(node->props);
    *node = (rd_fleet_node){ 0 };
}

void rd_fleet_add(rd_fleet *fleet, rd_fleet_node *node)
{
    *ARRAY_APPEND(fleet->nodes, fleet->n_nodes) = *node;
    *node = (rd_fleet_node){ 0 };
}

/* Names compared with their runs of digits as numbers: gpu2 before gpu10. */
static int natural_cmp(const char *a, const char *b)
{
    while (*a && *b) {
        if (*a >= '0' && *a <= '9' && *b >= '0' && *b <= '9') {
            const char *x = a, *y = b;
            while (*x == '0')
                x++;
            while (*y == '0')
                y++;
            size_t lx = 0, ly = 0;
            while (x[lx] >= '0' && x[lx] <= '9')
                lx++;
            while (y[ly] >= '0' && y[ly] <= '9')
                ly++;
            if (lx != ly)
                return lx < ly ? -1 : 1;
            int c = strncmp(x, y, lx);
            if (c)
                return c;
            a = x + lx;
            b = y + ly;
            continue;
        }
        if (*a != *b)
            return (unsigned char)*a < (unsigned char)*b ? -1 : 1;
        a++;
        b++;
    }
    return *a ? 1 : *b ? -1 : 0;
}

static int cmp_node(const void *a, const void *b)
{
    const rd_fleet_node *x = a, *y = b;
    int c = natural_cmp(x->name, y->name);
    return c ? c : strcmp(x->name, y->name);
}

void rd_fleet_sort(rd_fleet *fleet)
{
    if (fleet->n_nodes)
        qsort(fleet->nodes, fleet->n_nodes, sizeof *fleet->nodes, cmp_node);
}

void rd_fleet_free(rd_fleet *fleet)
{
    for (size_t i = 0; i < fleet->n_nodes; i++)
        rd_fleet_node_free(&fleet->nodes[i]);
    free(fleet->nodes);
    *fleet = (rd_fleet){ 0 };
}

static int cmp_cause(const void *a, const void *b)
{
    const rd_fleet_cause *x = a, *y = b;
    if (x->finding->severity != y->finding->severity)
        return x->finding->severity > y->finding->severity ? -1 : 1;
    if (x->n_nodes != y->n_nodes)
        return x->n_nodes > y->n_nodes ? -1 : 1;
    return strcmp(x->finding->id, y->finding->id);
}

static void find_causes(const rd_fleet *fleet, rd_fleet_analysis *a)
{
    for (size_t i = 0; i < fleet->n_nodes; i++) {
        const rd_fleet_node *node = &fleet->nodes[i];
        for (size_t k = 0; k < node->n_findings; k++) {
            const rd_fleet_finding *f = &node->findings[k];
            rd_fleet_cause *c = NULL;
            for (size_t j = 0; j < a->n_causes && !c; j++)
                if (streq(a->causes[j].finding->id, f->id))
                    c = &a->causes[j];
            if (!c) {
                c = ARRAY_APPEND(a->causes, a->n_causes);
                c->finding = f;
            }
            /* a finding per GPU names its node once */
            if (c->n_nodes == 0 || !streq(c->nodes[c->n_nodes - 1], node->name))
                c->nodes = strv_push_n(c->nodes, &c->n_nodes, xstrdup(node->name));
        }
    }
    for (size_t j = 0; j < a->n_causes; j++)
        a->causes[j].hostlist = rd_hostlist_compress(a->causes[j].nodes);
    if (a->n_causes)
        qsort(a->causes, a->n_causes, sizeof *a->causes, cmp_cause);
}

/* The drift of one property among the nodes with class klass. */
static void drift_of(const rd_fleet *fleet, const char *klass, const char *key, rd_fleet_analysis *a)
{
    const char **values = xcalloc(fleet->n_nodes, sizeof *values);
    size_t *counts = xcalloc(fleet->n_nodes, sizeof *counts);
    size_t n_values = 0;
    for (size_t i = 0; i < fleet->n_nodes; i++) {
        const rd_fleet_node *node = &fleet->nodes[i];
        const char *v = node->unreachable || !streq(node->klass, klass) ? NULL : rd_fleet_node_get(node, key);
        if (!v)
            continue;
        size_t j = 0;
        while (j < n_values && !streq(values[j], v))
            j++;
        if (j == n_values)
            values[n_values++] = v;
        counts[j]++;
    }
    if (n_values > 1) {
        size_t m = 0;
        for (size_t j = 1; j < n_values; j++)
            if (counts[j] > counts[m] || (counts[j] == counts[m] && strcmp(values[j], values[m]) < 0))
                m = j;
        rd_fleet_drift *d = ARRAY_APPEND(a->drift, a->n_drift);
        d->klass = xstrdup(klass);
        d->property = xstrdup(key);
        d->majority = xstrdup(values[m]);
        d->n_majority = counts[m];
        for (size_t i = 0; i < fleet->n_nodes; i++) {
            const rd_fleet_node *node = &fleet->nodes[i];
            const char *v = node->unreachable || !streq(node->klass, klass) ? NULL : rd_fleet_node_get(node, key);
            if (!v || streq(v, values[m]))
                continue;
            rd_fleet_outlier *o = ARRAY_APPEND(d->outliers, d->n_outliers);
            o->node = xstrdup(node->name);
            o->value = xstrdup(v);
        }
    }
    free(values);
    free(counts);
}

static void find_drift(const rd_fleet *fleet, rd_fleet_analysis *a)
{
    _cleanup_strv_free_ char **classes = NULL;
    size_t n_classes = 0;
    for (size_t i = 0; i < fleet->n_nodes; i++)
        if (!fleet->nodes[i].unreachable && !strv_contains(classes, fleet->nodes[i].klass))
            classes = strv_push_n(classes, &n_classes, xstrdup(fleet->nodes[i].klass));
    if (n_classes)
        qsort(classes, n_classes, sizeof *classes, cmp_str);
    for (size_t c = 0; c < n_classes; c++) {
        _cleanup_strv_free_ char **keys = NULL;
        size_t n_keys = 0;
        for (size_t i = 0; i < fleet->n_nodes; i++) {
            const rd_fleet_node *node = &fleet->nodes[i];
            if (node->unreachable || !streq(node->klass, classes[c]))
                continue;
            for (size_t k = 0; k < node->n_props; k++)
                if (!strv_contains(keys, node->props[k].key))
                    keys = strv_push_n(keys, &n_keys, xstrdup(node->props[k].key));
        }
        if (n_keys)
            qsort(keys, n_keys, sizeof *keys, cmp_str);
        for (size_t k = 0; k < n_keys; k++)
            drift_of(fleet, classes[c], keys[k], a);
    }
}

void rd_fleet_analyse(const rd_fleet *fleet, rd_fleet_analysis *a)
{
    *a = (rd_fleet_analysis){ 0 };
    for (size_t i = 0; i < fleet->n_nodes; i++) {
        int s = fleet->nodes[i].exit_status;
        a->n_status[s >= 0 && s <= 3 ? s : 3]++;
    }
    a->exit_status = a->n_status[3]   ? RD_EXIT_UNKNOWN
                     : a->n_status[2] ? RD_EXIT_ERROR
                     : a->n_status[1] ? RD_EXIT_WARNING
                                      : RD_EXIT_OK;
    find_causes(fleet, a);
    find_drift(fleet, a);
}

void rd_fleet_analysis_free(rd_fleet_analysis *a)
{
    for (size_t i = 0; i < a->n_causes; i++) {
        strv_free(a->causes[i].nodes);
        free(a->causes[i].hostlist);
    }
    free(a->causes);
    for (size_t i = 0; i < a->n_drift; i++) {
        rd_fleet_drift *d = &a->drift[i];
        free(d->klass);
        free(d->property);
        free(d->majority);
        for (size_t k = 0; k < d->n_outliers; k++) {
            free(d->outliers[k].node);
            free(d->outliers[k].value);
        }
        free(d->outliers);
    }
    free(a->drift);
    *a = (rd_fleet_analysis){ 0 };
}

const char *rd_fleet_status_name(int exit_status)
{
    switch (exit_status) {
    case RD_EXIT_OK: return "ok";
    case RD_EXIT_WARNING: return "warning";
    case RD_EXIT_ERROR: return "error";
    default: return "unreachable";
    }
}

char *rd_fleet_fix_command(const rd_fleet_finding *f)
{
    return f->fix ? xasprintf("rocm-doctor fix --only %s --apply", f->fix) : NULL;
}
