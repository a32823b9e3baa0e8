/* SPDX-License-Identifier: MIT */
#include "gpus.h"

#include <inttypes.h>
#include <stdio.h>
#include <strings.h>
#include "util.h"

#define PCI_VENDOR_AMD_GPU 0x1002
#define PCI_VENDOR_AMD 0x1022
#define PCIE_TYPE_UPSTREAM 5
#define PCIE_TYPE_DOWNSTREAM 6

bool rd_kfd_node_is_gpu(const rd_kfd_node *n)
{
    return rd_kfd_prop_or(n, "simd_count", 0) > 0;
}

bool rd_pci_parse_address(const char *s, unsigned *domain, unsigned *bus, unsigned *dev, unsigned *fn)
{
    unsigned d, b, v, f;
    int end = 0;
    if (!s || sscanf(s, "%4x:%2x:%2x.%1x%n", &d, &b, &v, &f, &end) != 4 || s[end] || v > 31 || f > 7)
        return false;
    *domain = d;
    *bus = b;
    *dev = v;
    *fn = f;
    return true;
}

bool rd_pci_is_amd_gpu(const rd_pci_device *d)
{
    return d->display && d->vendor_id == PCI_VENDOR_AMD_GPU;
}

/* KFD location_id is (bus << 8) | devfn; MI300 partitions put their index
 * into the function bits, so a partition matches its GPU by bus and slot. */
static bool kfd_matches_pci(const rd_kfd_node *n, const rd_pci_device *p, bool exact)
{
    unsigned d, b, v, f;
    if (!rd_pci_parse_address(p->address, &d, &b, &v, &f))
        return false;
    uint64_t loc = rd_kfd_prop_or(n, "location_id", UINT64_MAX);
    if (loc == UINT64_MAX || rd_kfd_prop_or(n, "domain", 0) != d)
        return false;
    unsigned kb = (unsigned)(loc >> 8) & 0xff, kdevfn = (unsigned)loc & 0xff;
    if (kb != b)
        return false;
    if (exact)
        return kdevfn == ((v << 3) | f);
    return (kdevfn >> 3) == v;
}

/* libdrm's amdgpu.ids first, then the board's FRU product name, then the
 * product table (health.ini [vram]: hosts whose amdgpu.ids is older than
 * the card, or absent), then pci.ids. */
static const char *pick_name(const rd_gpu *g, const rd_knowledge *k)
{
    if (g->pci->marketing_name)
        return g->pci->marketing_name;
    if (g->drm && g->drm->product_name && *g->drm->product_name)
        return g->drm->product_name;
    const rd_product_memory *p = rd_knowledge_product_memory(k, (uint16_t)g->pci->device_id, (uint8_t)g->pci->revision);
    if (p)
        return p->product;
    if (g->pci->device_name)
        return g->pci->device_name;
    return "AMD GPU";
}

static bool amd_vendor(const rd_pci_device *d)
{
    return d->vendor_id == PCI_VENDOR_AMD_GPU || d->vendor_id == PCI_VENDOR_AMD;
}

/* Every function below the port is one of the GPU's (same bus and slot). */
static bool only_gpu_below(const rd_pci_device *port, const rd_pci_device *gpu)
{
    unsigned gd, gb, gs, gf;
    if (!port->children || !port->children[0] || !rd_pci_parse_address(gpu->address, &gd, &gb, &gs, &gf))
        return false;
    for (char **c = port->children; *c; c++) {
        unsigned d, b, s, fn;
        if (!rd_pci_parse_address(*c, &d, &b, &s, &fn) || d != gd || b != gb || s != gs)
            return false;
    }
    return true;
}

const rd_pci_device *rd_gpu_board_switch(const rd_facts *f, const rd_pci_device *gpu)
{
    /* The switch on the card itself (Vega 10: 1022:1470/1471, Navi: 1002:1478/
     * 1479, others unlisted), known by its shape rather than its ids: an AMD
     * upstream port whose one child is an AMD downstream port with nothing but
     * the GPU's functions below. A chipset switch (X570's 1022 ports) has other
     * ports and devices below it. */
    const rd_pci_device *down = rd_pci_find(f, gpu->parent);
    if (!down || !amd_vendor(down) || down->pcie_type != PCIE_TYPE_DOWNSTREAM)
        return NULL;
    const rd_pci_device *up = rd_pci_find(f, down->parent);
    if (!up || !amd_vendor(up) || up->pcie_type != PCIE_TYPE_UPSTREAM)
        return NULL;
    if (!down->children && !up->children)
        /* facts of an older version, without the children: the GPU vendor's
         * own ports are on a card, AMD's chipset ports (0x1022) may not be */
        return down->vendor_id == PCI_VENDOR_AMD_GPU && up->vendor_id == PCI_VENDOR_AMD_GPU ? up : NULL;
    if (!only_gpu_below(down, gpu) || !up->children || !up->children[0] || up->children[1] ||
        !streq(up->children[0], down->address))
        return NULL;
    return up;
}

static const rd_pci_device *link_device(const rd_facts *f, const rd_pci_device *gpu)
{
    /* behind the card's own switch, the endpoint's link is internal and the
     * upstream port's is the slot's */
    const rd_pci_device *up = rd_gpu_board_switch(f, gpu);
    return up && up->max_link_width > 0 ? up : gpu;
}

static int cmp_gpu(const void *a, const void *b)
{
    return strcmp(((const rd_gpu *)a)->pci->address, ((const rd_gpu *)b)->pci->address);
}

void rd_gpu_view_build(const rd_facts *f, const rd_knowledge *k, rd_gpu_view *ret)
{
    rd_gpu_view v = { 0 };
    bool *used = xcalloc(f->kfd.n_nodes, sizeof(bool));

    for (size_t i = 0; i < f->pci.n_devices; i++) {
        const rd_pci_device *p = &f->pci.devices[i];
        if (!rd_pci_is_amd_gpu(p))
            continue;
        rd_gpu *g = ARRAY_APPEND(v.gpus, v.n_gpus);
        g->pci = p;
        for (size_t j = 0; j < f->drm.n_devices; j++)
            if (streq_ptr(f->drm.devices[j].pci_address, p->address)) {
                g->drm = &f->drm.devices[j];
                break;
            }
    }

    /* sysfs lists devices in hash order; people and tools expect bus order */
    if (v.n_gpus > 1)
        qsort(v.gpus, v.n_gpus, sizeof(rd_gpu), cmp_gpu);

    /* exact location first, then partitions by bus and slot */
    for (int pass = 0; pass < 2; pass++)
        for (size_t j = 0; j < f->kfd.n_nodes; j++) {
            const rd_kfd_node *n = &f->kfd.nodes[j];
            if (used[j] || !rd_kfd_node_is_gpu(n))
                continue;
            for (size_t i = 0; i < v.n_gpus; i++)
                if (kfd_matches_pci(n, v.gpus[i].pci, pass == 0)) {
                    rd_gpu *g = &v.gpus[i];
                    g->kfd = xrealloc(g->kfd, (g->n_kfd + 1) * sizeof(*g->kfd));
                    g->kfd[g->n_kfd++] = n;
                    used[j] = true;
                    break;
                }
        }

    for (size_t j = 0; j < f->kfd.n_nodes; j++)
        if (!used[j] && rd_kfd_node_is_gpu(&f->kfd.nodes[j])) {
            v.unmatched = xrealloc(v.unmatched, (v.n_unmatched + 1) * sizeof(*v.unmatched));
            v.unmatched[v.n_unmatched++] = &f->kfd.nodes[j];
        }
    free(used);

    for (size_t i = 0; i < v.n_gpus; i++) {
        rd_gpu *g = &v.gpus[i];
        /* keep partitions in node order */
        for (size_t a = 1; a < g->n_kfd; a++)
            for (size_t b = a; b > 0 && g->kfd[b - 1]->node_id > g->kfd[b]->node_id; b--) {
                const rd_kfd_node *t = g->kfd[b];
                g->kfd[b] = g->kfd[b - 1];
                g->kfd[b - 1] = t;
            }
        uint64_t gtv;
        if (g->n_kfd > 0 && rd_kfd_prop(g->kfd[0], "gfx_target_version", &gtv) &&
            rd_gfx_name(gtv, g->gfx, sizeof g->gfx)) {
            g->gfx_from_kfd = true;
        } else {
            const char *hint = rd_knowledge_gfx_for_pci_id(k, (uint16_t)g->pci->device_id);
            if (hint)
                snprintf(g->gfx, sizeof g->gfx, "%s", hint);
        }
        g->arch = rd_knowledge_arch(k, g->gfx);
        g->integrated = (g->arch && g->arch->apu) || rd_knowledge_is_apu_pci_id(k, (uint16_t)g->pci->device_id);
        /* partitions may each report the whole device's memory: never sum them */
        if (g->drm && g->drm->vram_total)
            g->vram_bytes = g->drm->vram_total;
        for (size_t j = 0; j < g->n_kfd && !g->vram_bytes; j++)
            g->vram_bytes = g->kfd[j]->vram_bytes;
        g->name = pick_name(g, k);
        g->link = link_device(f, g->pci);
    }
    *ret = v;
}

void rd_gpu_view_free(rd_gpu_view *v)
{
    for (size_t i = 0; i < v->n_gpus; i++)
        free(v->gpus[i].kfd);
    free(v->gpus);
    free(v->unmatched);
    memset(v, 0, sizeof(*v));
}

/* ---- ROCm agents ---- */

void rd_agents_build(const rd_facts *f, const rd_gpu_view *gpus, const rd_knowledge *kn, rd_agent **ret, size_t *ret_n)
{
    rd_agent *a = NULL;
    size_t n = 0;
    for (size_t j = 0; j < f->kfd.n_nodes; j++) {
        const rd_kfd_node *node = &f->kfd.nodes[j];
        if (!rd_kfd_node_is_gpu(node))
            continue;
        rd_agent *x = ARRAY_APPEND(a, n);
        x->node_id = node->node_id;
        x->unique_id = rd_kfd_prop_or(node, "unique_id", 0);
        const rd_gpu *gpu = NULL;
        for (size_t i = 0; i < gpus->n_gpus && !gpu; i++)
            for (size_t k = 0; k < gpus->gpus[i].n_kfd; k++)
                if (gpus->gpus[i].kfd[k] == node) {
                    gpu = &gpus->gpus[i];
                    break;
                }
        uint64_t gtv;
        if (rd_kfd_prop(node, "gfx_target_version", &gtv))
            (void)rd_gfx_name(gtv, x->gfx, sizeof x->gfx);
        if (gpu) {
            if (!*x->gfx)
                snprintf(x->gfx, sizeof x->gfx, "%s", gpu->gfx);
            x->integrated = gpu->integrated;
            x->pci_address = gpu->pci->address;
            x->name = gpu->name;
        }
        x->arch = *x->gfx ? rd_knowledge_arch(kn, x->gfx) : NULL;
        if (!gpu)
            x->integrated = x->arch && x->arch->apu;
        if (!x->name)
            x->name = node->name && *node->name ? node->name : "AMD GPU";
    }
    /* ROCm numbers agents in node order */
    for (size_t i = 1; i < n; i++)
        for (size_t k = i; k > 0 && a[k - 1].node_id > a[k].node_id; k--) {
            rd_agent t = a[k];
            a[k] = a[k - 1];
            a[k - 1] = t;
        }
    *ret = a;
    *ret_n = n;
}

void rd_agent_uuid(const rd_agent *a, char *buf, size_t size)
{
    if (a->unique_id)
        snprintf(buf, size, "GPU-%016" PRIx64, a->unique_id);
    else if (size)
        buf[0] = 0;
}

size_t rd_visible_devices_apply(const char *value, const rd_agent *agents, size_t n_agents, bool *keep, char **ret_bad)
{
    size_t kept = 0;
    for (size_t i = 0; i < n_agents; i++)
        keep[i] = false;
    if (ret_bad)
        *ret_bad = NULL;
    _cleanup_free_ char *copy = xstrdup(strempty(value));
    char *save = NULL;
    for (char *t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        t = strstrip(t);
        if (!*t)
            continue;
        ssize_t hit = -1;
        uint64_t idx;
        if (strncasecmp(t, "GPU-", 4) == 0) {
            for (size_t i = 0; i < n_agents && hit < 0; i++) {
                char uuid[32];
                rd_agent_uuid(&agents[i], uuid, sizeof uuid);
                if (*uuid && strcasecmp(uuid, t) == 0)
                    hit = (ssize_t)i;
            }
        } else if (safe_atou64(t, 10, &idx) == 0 && idx < n_agents)
            hit = (ssize_t)idx;
        if (hit < 0) {
            if (ret_bad)
                *ret_bad = xstrdup(t);
            break;
        }
        if (!keep[hit]) {
            keep[hit] = true;
            kept++;
        }
    }
    return kept;
}
