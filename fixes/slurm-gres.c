/* SPDX-License-Identifier: MIT */
/* slurm-gres: a gres.conf for this node from the GPUs it has, one line per
 * GPU with its render node (and the Type= slurm.conf gives it, and its NUMA
 * node's cores where the check read them). Planned only when asked for
 * (`fix --only slurm-gres`): Slurm's configuration is the site's, so the
 * check proposes and a person decides. Lines for other nodes and for other
 * resources stay as they are. */
#include <strings.h>
#include "fixes.h"
#include "slurm-conf.h"
#include "util.h"

/* This node's GPUs as Slurm sees them: discrete ones with a render node
 * (integrated ones only when there is nothing else), in PCI order. */
static size_t node_gpus(const rd_gpu_view *v, const rd_gpu **ret, size_t max)
{
    size_t n = 0;
    for (int pass = 0; pass < 2 && n == 0; pass++)
        for (size_t i = 0; i < v->n_gpus && n < max; i++)
            if ((pass == 1 || !v->gpus[i].integrated) && v->gpus[i].drm && v->gpus[i].drm->render)
                ret[n++] = &v->gpus[i];
    return n;
}

/* The GPU type slurm.conf's Gres= gives this node ("gpu:mi300x:8"); NULL
 * when it names none, or several. */
static char *slurm_type(const rd_slurm_facts *s)
{
    char *type = NULL;
    for (size_t i = 0; i < s->n_nodes; i++) {
        const rd_slurm_node *n = &s->nodes[i];
        if (!n->gres || (strcasecmp(n->node_name, "DEFAULT") != 0 &&
                         !(s->node_name && rd_slurm_hostlist_has(n->node_name, s->node_name))))
            continue;
        _cleanup_strv_free_ char **items = strv_split(n->gres, ",");
        for (size_t k = 0; items && items[k]; k++) {
            _cleanup_strv_free_ char **f = strv_split(items[k], ":");
            if (!f || !streq(f[0], "gpu") || !f[1] || !f[2])
                continue; /* gpu:N has no type */
            if (type && !streq(type, f[1])) {
                free(type);
                return NULL;
            }
            if (!type)
                type = xstrdup(f[1]);
        }
    }
    return type;
}

/* Whether line number `line` of file is a gpu line of this node (it goes). */
static bool replaced(const rd_slurm_facts *s, const char *file, int64_t line, bool *ret_named)
{
    for (size_t i = 0; i < s->n_gres; i++) {
        const rd_slurm_gres *g = &s->gres[i];
        if (g->line != line || !streq_ptr(g->file, file) || !streq_ptr(g->name, "gpu"))
            continue;
        if (g->node_name)
            *ret_named = true;
        return !g->node_name || (s->node_name && rd_slurm_hostlist_has(g->node_name, s->node_name));
    }
    return false;
}

/* The cores of the GPU's NUMA node, as the check read them; NULL: not read. */
static const char *cores_of(const rd_slurm_facts *s, const rd_gpu *g)
{
    for (size_t i = 0; i < s->n_numa; i++)
        if (s->numa[i].numa_node == g->pci->numa_node && g->pci->numa_node >= 0)
            return s->numa[i].cores;
    return NULL;
}

static char *proposed(const rd_fix_input *in, const char *old, const char *path, const rd_gpu **gpus, size_t n)
{
    const rd_slurm_facts *s = &in->facts->slurm;
    strbuf b = { 0 };
    bool named = false;
    int64_t number = 0;
    for (const char *at = old ? old : ""; *at;) {
        size_t len = strcspn(at, "\n");
        number++;
        if (!replaced(s, path, number, &named))
            strbuf_printf(&b, "%.*s\n", (int)len, at);
        at += len + (at[len] == '\n');
    }
    _cleanup_free_ char *type = slurm_type(s);
    strbuf_printf(&b, "# This node's %zu AMD GPU%s, one line each (rocm-doctor fix --only slurm-gres).\n", n,
                  n == 1 ? "" : "s");
    for (size_t i = 0; i < n; i++) {
        const char *cores = cores_of(s, gpus[i]);
        strbuf_printf(&b, "%s%s%sName=gpu%s%s File=%s%s%s\n", named ? "NodeName=" : "",
                      named ? strempty(s->node_name) : "", named ? " " : "", type ? " Type=" : "", strempty(type),
                      gpus[i]->drm->render, cores ? " Cores=" : "", strempty(cores));
    }
    return strbuf_steal(&b);
}

static int slurm_gres_plan(const rd_fix_input *in, rd_plan *p, char **ret_reason)
{
    const rd_slurm_facts *s = &in->facts->slurm;
    if (!s->present || !s->conf_dir) {
        *ret_reason = xstrdup("no Slurm configuration here (/etc/slurm or /etc/slurm-llnl)");
        return -ENOENT;
    }
    const rd_gpu *gpus[64];
    size_t n = node_gpus(in->gpus, gpus, ELEMENTSOF(gpus));
    if (n == 0) {
        *ret_reason = xstrdup("no AMD GPU with a render node is visible: nothing to list in gres.conf");
        return -ENODEV;
    }
    _cleanup_free_ char *path = xasprintf("%s/gres.conf", s->conf_dir), *old = NULL;
    (void)rd_fix_read(in->ctx->root_fd, path, &old, NULL, NULL);
    _cleanup_free_ char *text = proposed(in, old, path, gpus, n);
    rd_step *s_ = rd_plan_add_step(p, "slurm-gres", RD_EFFECT_NOW, "%s lists this node's %zu AMD GPU%s", path, n,
                                   n == 1 ? "" : "s");
    static const char *const ids[] = { RD_FINDING(SLURM_GRES_COUNT), RD_FINDING(SLURM_GRES_FILE) };
    for (size_t i = 0; i < ELEMENTSOF(ids); i++)
        if (rd_fix_has_finding(in, ids[i]))
            rd_step_address(s_, ids[i]);
    int r = rd_step_write(p, s_, in, path, text, strlen(text), 0644, ret_reason);
    if (r < 0)
        return r;
    if (r > 0)
        s_->note = xstrdup("restart slurmd (`systemctl restart slurmd`) and, when slurm.conf's Gres= changes too, "
                           "`scontrol reconfigure`; `slurmd -G` shows what slurmd reads");
    rd_plan_drop_empty_step(p);
    return 0;
}

const rd_fix rd_fix_slurm_gres = {
    .id = "slurm-gres",
    .title = "a gres.conf for this node's GPUs (only when asked for)",
    .on_request = true,
    .plan = slurm_gres_plan,
};
