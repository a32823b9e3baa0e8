/* SPDX-License-Identifier: MIT */
/* The Slurm checks: gres.conf and slurm.conf against the GPUs this node
 * has, and cgroup.conf against what a HIP program must open. */
#include <fnmatch.h>
#include <inttypes.h>
#include <strings.h>
#include "slurm-conf.h"
#include "slurm-probe.h"
#include "util.h"

#define CORE_MAX 8192

const char *const rd_slurm_findings[] = {
    RD_FINDING(SLURM_CONF_INVALID),   RD_FINDING(SLURM_GRESTYPES_MISSING),
    RD_FINDING(SLURM_GRES_COUNT),     RD_FINDING(SLURM_GRES_FILE),
    RD_FINDING(SLURM_GRES_TYPE),      RD_FINDING(SLURM_GRES_AUTODETECT),
    RD_FINDING(SLURM_GRES_CORES),     RD_FINDING(SLURM_CGROUP_KFD),
    RD_FINDING(SLURM_CONF_TOO_LARGE), NULL,
};

typedef struct {
    const rd_slurm_facts *s;
    const rd_gpu_view *gpus;
    const rd_gpu **node_gpus; /* the GPUs Slurm should schedule */
    size_t n_node_gpus;
    const rd_slurm_node *node; /* slurm.conf's line for this node, NULL none */
    const char *node_gres;     /* its Gres=, or a DEFAULT line's */
} slurm_view;

static bool is_gpu_entry(const rd_slurm_gres *g)
{
    return g->name && strcasecmp(g->name, "gpu") == 0;
}

static bool applies(const slurm_view *v, const char *node_name)
{
    return !node_name || rd_slurm_hostlist_has(node_name, v->s->node_name);
}

static void view_build(const rd_assess_input *in, slurm_view *v)
{
    const rd_slurm_facts *s = &in->facts->slurm;
    *v = (slurm_view){ .s = s, .gpus = in->gpus };
    v->node_gpus = xcalloc(in->gpus->n_gpus + 1, sizeof(rd_gpu *));
    for (int pass = 0; pass < 2 && v->n_node_gpus == 0; pass++)
        for (size_t i = 0; i < in->gpus->n_gpus; i++)
            if (pass == 1 || !in->gpus->gpus[i].integrated)
                v->node_gpus[v->n_node_gpus++] = &in->gpus->gpus[i];
    const char *default_gres = NULL;
    for (size_t i = 0; i < s->n_nodes; i++) {
        const rd_slurm_node *n = &s->nodes[i];
        if (strcasecmp(n->node_name, "DEFAULT") == 0) {
            if (n->gres)
                default_gres = n->gres;
        } else if (s->node_name && rd_slurm_hostlist_has(n->node_name, s->node_name)) {
            v->node = n;
            v->node_gres = n->gres ? n->gres : default_gres;
        }
    }
}

/* The gpu items of a Gres= value: "gpu:mi300x:8,gpu:4(S:0)". *ret_count sums
 * their counts; each item's type goes to *ret_types (NULL: untyped). */
static bool gres_gpus(const char *gres, int64_t *ret_count, char ***ret_types, bool *ret_untyped)
{
    _cleanup_strv_free_ char **items = strv_split(strempty(gres), ",");
    bool any = false;
    *ret_count = 0;
    for (char **it = items; it && *it; it++) {
        (*it)[strcspn(*it, "(")] = 0;
        _cleanup_strv_free_ char **parts = strv_split(*it, ":");
        size_t n = strv_length(parts);
        if (n == 0 || strcasecmp(parts[0], "gpu") != 0)
            continue;
        any = true;
        const char *count = n >= 2 ? parts[n - 1] : "1";
        char *end;
        long long c = strtoll(count, &end, 10);
        if (n == 2 && *end) { /* gpu:TYPE, count 1 */
            c = 1;
            *ret_types = strv_push(*ret_types, xstrdup(parts[1]));
        } else if (n >= 3)
            *ret_types = strv_push(*ret_types, xstrdup(parts[1]));
        else
            *ret_untyped = true;
        *ret_count += c > 0 ? c : 0;
    }
    return any;
}

static int64_t entry_count(const rd_slurm_gres *g)
{
    if (g->count >= 0)
        return g->count;
    return g->files ? (int64_t)strv_length(g->files) : 1;
}

static void evidence_gpus(const slurm_view *v, rd_finding *fd)
{
    strbuf b = { 0 };
    strbuf_append(&b, "");
    for (size_t i = 0; i < v->n_node_gpus; i++) {
        const rd_gpu *g = v->node_gpus[i];
        strbuf_printf(&b, "%s%s", i ? " " : "", g->drm && g->drm->render ? g->drm->render : g->pci->address);
    }
    rd_finding_evidence(fd, "this node has %zu AMD GPU%s%s%s", v->n_node_gpus, v->n_node_gpus == 1 ? "" : "s",
                        v->n_node_gpus ? ": " : "", b.s);
    free(b.s);
}

static void check_invalid(const slurm_view *v, rd_findings *out)
{
    if (!v->s->errors)
        return;
    rd_finding *fd = rd_finding_add(out, RD_FINDING(SLURM_CONF_INVALID), RD_SEV_WARNING, NULL,
                                    "Slurm's configuration has lines that do not read as Slurm reads them");
    rd_finding_evidence_all(fd, v->s->errors);
    rd_finding_remedy(fd, "Correct the lines shown; slurmd and slurmctld refuse or misread them the same way.");
}

static void check_too_large(const slurm_view *v, rd_findings *out)
{
    if (!v->s->limits)
        return;
    rd_finding *fd = rd_finding_add(out, RD_FINDING(SLURM_CONF_TOO_LARGE), RD_SEV_WARNING, NULL,
                                    "Slurm's configuration is larger than rocm-doctor reads: the rest was not checked");
    rd_finding_evidence_all(fd, v->s->limits);
    rd_finding_remedy(fd, "Look for an Include that repeats or loops, or a range that names far more devices than "
                          "the nodes have; split a very large configuration by node.");
}

static void check_grestypes(const slurm_view *v, rd_findings *out)
{
    int64_t count;
    _cleanup_strv_free_ char **types = NULL;
    bool untyped = false;
    if (!v->node || !gres_gpus(v->node_gres, &count, &types, &untyped))
        return;
    const rd_slurm_setting *st = NULL;
    for (size_t i = 0; i < v->s->n_settings; i++)
        if (strcasecmp(v->s->settings[i].key, "GresTypes") == 0)
            st = &v->s->settings[i];
    _cleanup_strv_free_ char **names = st ? strv_split(st->value, ",") : NULL;
    for (char **n = names; n && *n; n++)
        if (strcasecmp(*n, "gpu") == 0)
            return;
    rd_finding *fd = rd_finding_add(out, RD_FINDING(SLURM_GRESTYPES_MISSING), RD_SEV_ERROR, NULL,
                                    "slurm.conf gives this node GPUs but GresTypes does not name gpu");
    rd_finding_evidence(fd, "%s:%" PRId64 ": NodeName=%s Gres=%s", v->node->file, v->node->line, v->node->node_name,
                        v->node_gres);
    if (st)
        rd_finding_evidence(fd, "%s:%" PRId64 ": GresTypes=%s", st->file, st->line, st->value);
    else
        rd_finding_evidence(fd, "%s/slurm.conf: no GresTypes", v->s->conf_dir);
    rd_finding_remedy(fd, "Add gpu to GresTypes= in slurm.conf (GresTypes=gpu) on every node and the controller.");
}

static void check_count(const slurm_view *v, rd_findings *out)
{
    int64_t conf_count = 0, gres_count = 0;
    _cleanup_strv_free_ char **types = NULL;
    bool untyped = false, in_conf = v->node && gres_gpus(v->node_gres, &conf_count, &types, &untyped);
    bool in_gres = false;
    for (size_t i = 0; i < v->s->n_gres; i++)
        if (is_gpu_entry(&v->s->gres[i]) && applies(v, v->s->gres[i].node_name)) {
            in_gres = true;
            gres_count += entry_count(&v->s->gres[i]);
        }
    int64_t n = (int64_t)v->n_node_gpus;
    bool conf_wrong = in_conf && conf_count != n, gres_wrong = in_gres && gres_count != n;
    if (!conf_wrong && !gres_wrong)
        return;
    rd_finding *fd = rd_finding_add(out, RD_FINDING(SLURM_GRES_COUNT), RD_SEV_ERROR, NULL,
                                    "Slurm is configured for %" PRId64 " GPUs on this node, which has %" PRId64,
                                    gres_wrong ? gres_count : conf_count, n);
    if (conf_wrong)
        rd_finding_evidence(fd, "%s:%" PRId64 ": NodeName=%s Gres=%s (%" PRId64 " GPUs)", v->node->file, v->node->line,
                            v->node->node_name, v->node_gres, conf_count);
    for (size_t i = 0; gres_wrong && i < v->s->n_gres; i++) {
        const rd_slurm_gres *g = &v->s->gres[i];
        if (is_gpu_entry(g) && applies(v, g->node_name))
            rd_finding_evidence(fd, "%s:%" PRId64 ": Name=%s%s%s%s%s (%" PRId64 " GPUs)", g->file, g->line, g->name,
                                g->file_spec ? " File=" : "", strempty(g->file_spec), g->type ? " Type=" : "",
                                strempty(g->type), entry_count(g));
    }
    evidence_gpus(v, fd);
    rd_finding_remedy(fd, "Make gres.conf and the node's Gres= in slurm.conf count the GPUs this node has (one "
                          "File= render node each), then restart slurmd; `rocm-doctor fix --only slurm-gres` "
                          "proposes this node's gres.conf.");
}

static const rd_gpu *gpu_of_render(const slurm_view *v, const char *path)
{
    for (size_t i = 0; i < v->n_node_gpus; i++)
        if (v->node_gpus[i]->drm && streq_ptr(v->node_gpus[i]->drm->render, path))
            return v->node_gpus[i];
    return NULL;
}

static void check_files(const slurm_view *v, rd_findings *out)
{
    rd_finding *fd = NULL;
    for (size_t i = 0; i < v->s->n_gres; i++) {
        const rd_slurm_gres *g = &v->s->gres[i];
        if (!is_gpu_entry(g) || !applies(v, g->node_name))
            continue;
        for (char **f = g->files; f && *f; f++) {
            if (gpu_of_render(v, *f))
                continue;
            if (!fd)
                fd = rd_finding_add(out, RD_FINDING(SLURM_GRES_FILE), RD_SEV_ERROR, NULL,
                                    "gres.conf's File= names devices that are not this node's GPU render nodes");
            bool card = startswith(*f, "/dev/dri/card") != NULL;
            rd_finding_evidence(fd, "%s:%" PRId64 ": File=%s: %s", g->file, g->line, *f,
                                card ? "a display node (/dev/dri/card*), not a render node"
                                     : "no AMD GPU's render node");
        }
    }
    if (!fd)
        return;
    evidence_gpus(v, fd);
    rd_finding_remedy(fd, "List the GPUs' render nodes in File= (/dev/dri/renderD128 and up, one per GPU); Slurm "
                          "gives a job the File= devices it allocated, and HIP opens the render nodes. `rocm-doctor "
                          "fix --only slurm-gres` proposes this node's gres.conf.");
}

static void check_types(const slurm_view *v, rd_findings *out)
{
    int64_t count;
    _cleanup_strv_free_ char **conf_types = NULL;
    bool untyped = false;
    if (!v->node || !gres_gpus(v->node_gres, &count, &conf_types, &untyped) || !conf_types)
        return;
    rd_finding *fd = NULL;
    for (size_t i = 0; i < v->s->n_gres; i++) {
        const rd_slurm_gres *g = &v->s->gres[i];
        if (!is_gpu_entry(g) || !applies(v, g->node_name))
            continue;
        bool known = false;
        for (char **t = conf_types; *t && g->type; t++)
            known |= strcasecmp(*t, g->type) == 0;
        if (known)
            continue;
        if (!fd) {
            fd = rd_finding_add(out, RD_FINDING(SLURM_GRES_TYPE), RD_SEV_ERROR, NULL,
                                "gres.conf's GPU types differ from the node's Gres= in slurm.conf");
            rd_finding_evidence(fd, "%s:%" PRId64 ": NodeName=%s Gres=%s", v->node->file, v->node->line,
                                v->node->node_name, v->node_gres);
        }
        rd_finding_evidence(fd, "%s:%" PRId64 ": Name=gpu %s%s", g->file, g->line,
                            g->type ? "Type=" : "no Type=", strempty(g->type));
    }
    if (fd)
        rd_finding_remedy(fd, "Use the same Type= in gres.conf as in slurm.conf's Gres=gpu:TYPE:COUNT, then "
                              "restart slurmd and slurmctld.");
}

static void check_autodetect(const slurm_view *v, rd_findings *out)
{
    /* a line for this node wins over a line for every node, wherever it is */
    const rd_slurm_gres *ad = NULL;
    for (size_t i = 0; i < v->s->n_gres; i++) {
        const rd_slurm_gres *g = &v->s->gres[i];
        if (g->autodetect && applies(v, g->node_name) && (!ad || !ad->node_name || g->node_name))
            ad = g;
    }
    if (!ad || v->n_node_gpus == 0)
        return;
    const char *m = ad->autodetect;
    bool rsmi = strcasecmp(m, "rsmi") == 0;
    bool other = strcasecmp(m, "nvml") == 0 || strcasecmp(m, "oneapi") == 0 || strcasecmp(m, "nrt") == 0;
    if (!other && !(rsmi && (!v->s->rsmi_plugin || !v->s->rsmi_library)))
        return;
    rd_finding *fd = rd_finding_add(out, RD_FINDING(SLURM_GRES_AUTODETECT), RD_SEV_ERROR, NULL,
                                    "gres.conf's AutoDetect=%s cannot see this node's AMD GPUs", m);
    rd_finding_evidence(fd, "%s:%" PRId64 ": AutoDetect=%s", ad->file, ad->line, m);
    if (other)
        rd_finding_evidence(fd, "AutoDetect=%s detects another vendor's GPUs", m);
    if (rsmi && !v->s->rsmi_plugin)
        rd_finding_evidence(fd, "Slurm's gpu_rsmi plugin is not installed (this Slurm was built without ROCm SMI)");
    if (rsmi && !v->s->rsmi_library)
        rd_finding_evidence(fd, "librocm_smi64.so not found (rocm-smi-lib is not installed)");
    evidence_gpus(v, fd);
    rd_finding_remedy(fd, "Install a Slurm built with ROCm SMI and rocm-smi-lib, or set AutoDetect=off and list "
                          "each GPU's render node with File=; slurmd otherwise discards the GPUs it cannot detect.");
}

static void cores_of_entry(const slurm_view *v, const rd_slurm_gres *g, bool *near, bool *ret_known)
{
    *ret_known = g->files != NULL;
    for (char **f = g->files; f && *f; f++) {
        const rd_gpu *gpu = gpu_of_render(v, *f);
        const rd_slurm_numa *m = NULL;
        for (size_t j = 0; gpu && j < v->s->n_numa; j++)
            if (v->s->numa[j].numa_node == gpu->pci->numa_node)
                m = &v->s->numa[j];
        _cleanup_free_ bool *bits = xcalloc(CORE_MAX, sizeof(bool));
        if (!m || rd_slurm_cpulist_parse(m->cores, bits, CORE_MAX) < 0) {
            *ret_known = false;
            return;
        }
        for (size_t c = 0; c < CORE_MAX; c++)
            near[c] |= bits[c];
    }
}

static void check_cores(const slurm_view *v, rd_findings *out)
{
    rd_finding *fd = NULL;
    for (size_t i = 0; i < v->s->n_gres; i++) {
        const rd_slurm_gres *g = &v->s->gres[i];
        if (!is_gpu_entry(g) || !g->cores || !applies(v, g->node_name))
            continue;
        _cleanup_free_ bool *near = xcalloc(CORE_MAX, sizeof(bool));
        _cleanup_free_ bool *set = xcalloc(CORE_MAX, sizeof(bool));
        bool known, outside = false;
        cores_of_entry(v, g, near, &known);
        if (!known || rd_slurm_cpulist_parse(g->cores, set, CORE_MAX) < 0)
            continue;
        for (size_t c = 0; c < CORE_MAX; c++)
            outside |= set[c] && !near[c];
        if (!outside)
            continue;
        if (!fd) {
            fd = rd_finding_add(out, RD_FINDING(SLURM_GRES_CORES), RD_SEV_WARNING, NULL,
                                "gres.conf's Cores= bind GPUs to cores of another NUMA node");
            for (size_t j = 0; j < v->s->n_numa; j++)
                rd_finding_evidence(fd, "NUMA node %" PRId64 " (AMD GPUs): cores %s", v->s->numa[j].numa_node,
                                    v->s->numa[j].cores);
        }
        rd_finding_evidence(fd, "%s:%" PRId64 ": File=%s Cores=%s", g->file, g->line, strempty(g->file_spec), g->cores);
    }
    if (fd)
        rd_finding_remedy(fd, "Set each GPU's Cores= to the cores of its own NUMA node (`slurmd -G` shows what "
                              "Slurm detects), or leave Cores= out.");
}

static void check_cgroup(const slurm_view *v, rd_findings *out)
{
    const rd_slurm_setting *st = NULL;
    for (size_t i = 0; i < v->s->n_settings; i++)
        if (strcasecmp(v->s->settings[i].key, "ConstrainDevices") == 0)
            st = &v->s->settings[i];
    if (!st || strcasecmp(st->value, "yes") != 0 || !v->s->allowed_devices_file || v->n_node_gpus == 0)
        return;
    for (char **p = v->s->allowed_devices; p && *p; p++)
        if (fnmatch(*p, "/dev/kfd", 0) == 0)
            return;
    rd_finding *fd = rd_finding_add(out, RD_FINDING(SLURM_CGROUP_KFD), RD_SEV_ERROR, NULL,
                                    "Slurm's device cgroup keeps jobs from opening /dev/kfd: HIP fails in every job");
    rd_finding_evidence(fd, "%s:%" PRId64 ": ConstrainDevices=%s", st->file, st->line, st->value);
    rd_finding_evidence(fd, "%s: no line allows /dev/kfd", v->s->allowed_devices_file);
    rd_finding_remedy(fd,
                      "Add /dev/kfd to %s (the GPUs' render nodes come from gres.conf's File=), then "
                      "restart slurmd.",
                      v->s->allowed_devices_file);
}

void rd_slurm_assess(const rd_assess_input *in, rd_findings *out)
{
    if (!in->facts->slurm.present)
        return;
    slurm_view v;
    view_build(in, &v);
    check_invalid(&v, out);
    check_too_large(&v, out);
    check_grestypes(&v, out);
    check_count(&v, out);
    check_files(&v, out);
    check_types(&v, out);
    check_autodetect(&v, out);
    check_cores(&v, out);
    check_cgroup(&v, out);
    free(v.node_gpus);
}
