/* SPDX-License-Identifier: MIT */
/* A Kubernetes Node Feature Discovery feature file for nfd-worker's local
 * source (/etc/kubernetes/node-feature-discovery/features.d/): one
 * `name=value` line per label. Names carry their own prefix, a sub-namespace
 * of feature.node.kubernetes.io, which nfd-master accepts without extra
 * configuration and never re-prefixes. A label name after the prefix and a
 * value are at most 63 characters of [A-Za-z0-9._-], starting and ending
 * alphanumeric; anything else is left out rather than mangled. */
#include "report.h"

#include <ctype.h>
#include <inttypes.h>
#include <time.h>
#include "build-config.h"
#include "report-health.h"
#include "util.h"

#define NFD_PREFIX "rocm-doctor.feature.node.kubernetes.io/"

static bool nfd_valid(const char *s, bool empty_ok)
{
    size_t n = strlen(s);
    if (n == 0)
        return empty_ok;
    if (n > 63 || !isalnum((unsigned char)s[0]) || !isalnum((unsigned char)s[n - 1]))
        return false;
    for (size_t i = 0; i < n; i++)
        if (!isalnum((unsigned char)s[i]) && !strchr("-_.", s[i]))
            return false;
    return true;
}

static void label(FILE *out, const char *name, const char *value)
{
    if (nfd_valid(name, false) && nfd_valid(value, true))
        fprintf(out, NFD_PREFIX "%s=%s\n", name, value);
}

static bool seen_before(const rd_gpu_view *v, size_t i, bool family)
{
    for (size_t j = 0; j < i; j++) {
        if (family ? (v->gpus[j].arch && streq(v->gpus[j].arch->family, v->gpus[i].arch->family))
                   : streq(v->gpus[j].gfx, v->gpus[i].gfx))
            return true;
    }
    return false;
}

int rd_report_nfd(FILE *out, const rd_facts *f, const rd_gpu_view *v, const rd_findings *fs)
{
    int exit_status = rd_findings_exit_status(fs);
    char buf[64];

    fprintf(out, "# Node Feature Discovery labels written by rocm-doctor %s\n", PACKAGE_VERSION);
    label(out, "health", exit_status == 2 ? "error" : exit_status == 1 ? "warning" : "ok");
    snprintf(buf, sizeof buf, "%zu", v->n_gpus);
    label(out, "gpu.count", buf);
    const char *health = rd_report_health_status(f, fs);
    if (health)
        label(out, "gpu.health", health);

    for (size_t i = 0; i < v->n_gpus; i++) {
        const rd_gpu *g = &v->gpus[i];
        if (g->gfx[0] && !seen_before(v, i, false)) {
            _cleanup_free_ char *name = xasprintf("gpu.gfx.%s", g->gfx);
            label(out, name, "true");
        }
    }
    for (size_t i = 0; i < v->n_gpus; i++) {
        const rd_gpu *g = &v->gpus[i];
        if (g->arch && !seen_before(v, i, true)) {
            _cleanup_free_ char *name = xasprintf("gpu.family.%s", g->arch->family);
            label(out, name, "true");
        }
    }

    /* The smallest VRAM is what a workload can count on; an integrated GPU's
     * carve-out does not count when there is a discrete GPU. */
    bool any_discrete = false;
    for (size_t i = 0; i < v->n_gpus; i++)
        any_discrete |= !v->gpus[i].integrated;
    uint64_t vram_min = 0;
    for (size_t i = 0; i < v->n_gpus; i++) {
        const rd_gpu *g = &v->gpus[i];
        if ((any_discrete && g->integrated) || g->vram_bytes == 0)
            continue;
        if (vram_min == 0 || g->vram_bytes < vram_min)
            vram_min = g->vram_bytes;
    }
    if (vram_min > 0) {
        snprintf(buf, sizeof buf, "%" PRIu64, vram_min >> 30);
        label(out, "gpu.vram-gib", buf);
    }

    if (f->rocm.default_version)
        label(out, "rocm.version", f->rocm.default_version);
    return ferror(out) ? -EIO : 0;
}

int rd_report_nfd_fix_runs(FILE *out, const rd_report_fix_runs *runs)
{
    /* a node whose fixes are not proven yet, or failed, is one to keep
     * workloads off */
    label(out, "fix.pending", runs->pending ? "true" : "false");
    label(out, "fix.failed", runs->failed ? "true" : "false");
    return ferror(out) ? -EIO : 0;
}

char *rd_report_nfd_expiry_line(time_t expiry)
{
    struct tm tm;
    char when[32];
    if (!gmtime_r(&expiry, &tm) || strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%SZ", &tm) == 0)
        return xstrdup("");
    return xasprintf("# +expiry-time=%s\n", when);
}
