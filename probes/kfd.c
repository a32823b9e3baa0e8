/* SPDX-License-Identifier: MIT */
/* KFD: the compute driver's topology, the authority on which GPUs ROCm sees. */
#include "kfd.h"

#include <ctype.h>
#include <fcntl.h>
#include <sys/stat.h>
#include "distro.h"
#include "probe.h"
#include "util.h"

#define KFD_TOPOLOGY "/sys/class/kfd/kfd/topology"
#define MAX_PROPERTY_LINES 1024
#define MAX_NODES 1024

typedef struct {
    rd_kv *kv;
    size_t n, bad, lines;
} kfd_properties;

/* "name value": a property, a blank line, or one more bad line. */
static int kfd_property_line(char *line, void *userdata)
{
    kfd_properties *p = userdata;
    if (++p->lines > MAX_PROPERTY_LINES)
        return -E2BIG;
    size_t len = strlen(line), k = 0;
    while (k < len && (isalnum((unsigned char)line[k]) || line[k] == '_'))
        k++;
    size_t v = k;
    while (v < len && line[v] == ' ')
        v++;
    uint64_t value;
    size_t vlen = len - v;
    if (len == 0)
        return 0; /* blank line */
    if (k == 0 || v == k || vlen == 0 || vlen >= 24 || safe_atou64(line + v, 10, &value) < 0 ||
        !isdigit((unsigned char)line[v])) {
        p->bad++;
        return 0;
    }
    rd_kv *e = ARRAY_APPEND(p->kv, p->n);
    e->key = xstrndup(line, k);
    e->value = value;
    return 0;
}

int rd_kfd_parse_properties(const char *text, rd_kv **ret, size_t *ret_n, size_t *ret_bad)
{
    kfd_properties p = { 0 };
    int r = foreach_line(text, kfd_property_line, &p);
    if (r < 0) {
        for (size_t i = 0; i < p.n; i++)
            free(p.kv[i].key);
        free(p.kv);
        return r;
    }
    *ret = p.kv;
    *ret_n = p.n;
    if (ret_bad)
        *ret_bad = p.bad;
    return 0;
}

static char *reason(int err)
{
    if (err == -EPERM || err == -EACCES)
        return xasprintf("%s: hidden by the device cgroup (container or scheduler)", errno_name(err));
    return xasprintf("%s: %s", errno_name(err), strerror(-err));
}

static uint64_t node_vram(const char *dir)
{
    uint64_t total = 0;
    _cleanup_free_ char *banks = xasprintf("%s/mem_banks", dir);
    _cleanup_close_ int dfd = open(banks, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    _cleanup_strv_free_ char **names = dfd >= 0 ? dir_names(dfd, dir_name_visible, NULL, NULL) : NULL;
    for (size_t b = 0; names && names[b]; b++) {
        _cleanup_free_ char *path = xasprintf("%s/properties", names[b]), *text = NULL;
        if (read_file_at(dfd, path, 64 * 1024, &text, NULL) < 0)
            continue;
        rd_kv *kv;
        size_t n;
        if (rd_kfd_parse_properties(text, &kv, &n, NULL) < 0)
            continue;
        uint64_t heap = UINT64_MAX, size = 0;
        for (size_t i = 0; i < n; i++) {
            if (streq(kv[i].key, "heap_type"))
                heap = kv[i].value;
            else if (streq(kv[i].key, "size_in_bytes"))
                size = kv[i].value;
            free(kv[i].key);
        }
        free(kv);
        /* 1: frame buffer public, 2: frame buffer private */
        if ((heap == 1 || heap == 2) && size <= UINT64_MAX - total)
            total += size;
    }
    return total;
}

static int cmp_node(const void *a, const void *b)
{
    int64_t x = ((const rd_kfd_node *)a)->node_id, y = ((const rd_kfd_node *)b)->node_id;
    return (x > y) - (x < y);
}

int rd_kfd_read_topology(const char *topology, rd_kfd_facts *kf)
{
    _cleanup_free_ char *gen_path = xasprintf("%s/generation_id", topology);
    _cleanup_free_ char *nodes_path = xasprintf("%s/nodes", topology);
    uint64_t gen;
    if (read_u64_at(AT_FDCWD, gen_path, 10, &gen) == 0)
        kf->generation_id = (int64_t)gen;

    _cleanup_close_ int dfd = open(nodes_path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    int err = dfd < 0 ? -errno : 0;
    _cleanup_strv_free_ char **names = dfd >= 0 ? dir_names(dfd, dir_name_visible, NULL, &err) : NULL;
    if (err < 0) {
        kf->error = reason(err);
        return err;
    }
    for (size_t k = 0; names && names[k]; k++) {
        int id;
        if (safe_atoi(names[k], &id) < 0 || id < 0)
            continue;
        if (kf->n_nodes >= MAX_NODES) {
            kf->error = xasprintf("more than %d topology nodes; the rest were ignored", MAX_NODES);
            break;
        }
        rd_kfd_node *n = ARRAY_APPEND(kf->nodes, kf->n_nodes);
        n->node_id = id;
        _cleanup_free_ char *dir = xasprintf("%s/%d", nodes_path, id);
        _cleanup_free_ char *name_path = xasprintf("%s/name", dir);
        _cleanup_free_ char *gpu_id_path = xasprintf("%s/gpu_id", dir);
        _cleanup_free_ char *props_path = xasprintf("%s/properties", dir);
        char *name = NULL;
        if (read_line_at(AT_FDCWD, name_path, &name) == 0)
            n->name = name;
        uint64_t gpu_id;
        if (read_u64_at(AT_FDCWD, gpu_id_path, 10, &gpu_id) == 0)
            n->gpu_id = (int64_t)gpu_id;
        _cleanup_free_ char *text = NULL;
        int r = read_file_at(AT_FDCWD, props_path, 256 * 1024, &text, NULL);
        if (r < 0) {
            n->error = reason(r);
            continue;
        }
        size_t bad = 0;
        r = rd_kfd_parse_properties(text, &n->properties, &n->n_properties, &bad);
        if (r < 0)
            n->error = xasprintf("%s: too many lines", props_path);
        else if (bad)
            n->error = xasprintf("%s: %zu malformed lines skipped", props_path, bad);
        n->vram_bytes = node_vram(dir);
    }
    if (kf->n_nodes > 1)
        qsort(kf->nodes, kf->n_nodes, sizeof(rd_kfd_node), cmp_node);
    return 0;
}

static void kfd_gather(const rd_ctx *ctx, rd_facts *facts)
{
    struct stat st;
    facts->kfd.present = stat("/sys/class/kfd/kfd", &st) == 0;
    if (facts->kfd.present)
        (void)rd_kfd_read_topology(KFD_TOPOLOGY, &facts->kfd);
}

static const rd_dev_node *find_node(const rd_facts *f, const char *path)
{
    for (size_t i = 0; i < f->access.n_nodes; i++)
        if (streq_ptr(f->access.nodes[i].path, path))
            return &f->access.nodes[i];
    return NULL;
}

static bool finding_for_gpu(const rd_findings *out, const char *id, const char *gpu)
{
    for (size_t i = 0; i < out->n; i++)
        if (streq(out->items[i].id, id) && streq_ptr(out->items[i].gpu, gpu))
            return true;
    return false;
}

static void kfd_missing_remedy(const rd_facts *f, rd_finding *fd)
{
    if (f->os.container) {
        rd_finding_remedy(fd, "The host's kernel has no KFD, so no container on it can have /dev/kfd: fix the host "
                              "(its amdgpu must come with KFD, CONFIG_HSA_AMD) and check `sudo dmesg | grep -i kfd` "
                              "there.");
        return;
    }
    switch (rd_os_family_facts(&f->os)) {
    case RD_OS_DEBIAN:
        rd_finding_remedy(fd,
                          "This kernel was built without KFD (CONFIG_HSA_AMD) or KFD failed to start: boot the "
                          "distribution's kernel (%s) and check `sudo dmesg | grep -i kfd`.",
                          rd_os_is_ubuntu(&f->os)         ? "linux-generic or the HWE kernel"
                          : streq_ptr(f->os.id, "debian") ? "linux-image-amd64"
                                                          : "its generic kernel");
        break;
    case RD_OS_RHEL:
    case RD_OS_FEDORA:
    case RD_OS_SUSE:
        rd_finding_remedy(fd,
                          "This kernel was built without KFD (CONFIG_HSA_AMD) or KFD failed to start: boot the "
                          "distribution's own kernel (%s) and check `sudo dmesg | grep -i kfd`.",
                          rd_os_family_facts(&f->os) == RD_OS_SUSE ? "kernel-default" : "the kernel package");
        break;
    case RD_OS_UNKNOWN:
    default:
        rd_finding_remedy(fd, "This kernel was built without KFD (CONFIG_HSA_AMD=y, with CONFIG_DRM_AMDGPU) or KFD "
                              "failed to start: boot a kernel built with it and check `sudo dmesg | grep -i kfd`.");
    }
}

static void kfd_evidence(const rd_facts *f, const rd_gpu *g, rd_finding *fd)
{
    rd_finding_evidence(fd, "no KFD topology node has location %s", g->pci->address);
    for (size_t j = 0; j < f->driver.n_kmsg; j++)
        if (strstr(f->driver.kmsg[j].text, "not supported in kfd") || strstr(f->driver.kmsg[j].text, "skipped device"))
            rd_finding_evidence(fd, "kernel: %s", f->driver.kmsg[j].text);
    if (g->gfx[0])
        rd_finding_evidence(fd, "%04x:%04x is %s", (unsigned)g->pci->vendor_id, (unsigned)g->pci->device_id, g->gfx);
}

/* The kernels of the newest release on this host's distribution, or the
 * nearest one it lists (said so). */
static char *validated_kernels(const rd_assess_input *in)
{
    const rd_knowledge *k = in->knowledge;
    if (k->n_releases == 0)
        return NULL;
    return rd_support_validated_kernels(&k->releases[k->n_releases - 1], &in->facts->os);
}

/* The GPUs the newest release supports, as "gfx942 (MI300X, ...), ...". */
static char *supported_gpus(const rd_knowledge *k)
{
    if (k->n_releases == 0)
        return NULL;
    const rd_release *rel = &k->releases[k->n_releases - 1];
    strbuf b = { 0 };
    strbuf_printf(&b, "ROCm %s supports", rel->line);
    for (size_t i = 0; rel->gfx && rel->gfx[i]; i++) {
        const rd_arch *a = rd_knowledge_arch(k, rel->gfx[i]);
        strbuf_printf(&b, "%s %s", i ? "," : "", rel->gfx[i]);
        if (a && a->codename)
            strbuf_printf(&b, " (%s)", a->codename);
    }
    return strbuf_steal(&b);
}

/* SI (GCN1), Bonaire, Kabini: no kernel's KFD takes them, whatever the
 * kernel, driver package or ROCm release. Say so plainly. */
static void never_rocm(const rd_assess_input *in, const rd_gpu *g, rd_findings *out)
{
    rd_finding *fd = rd_finding_add(out, RD_FINDING(DRIVER_KFD_UNSUPPORTED), RD_SEV_ERROR, g->pci->address,
                                    "%s %s (%s, %s) cannot run ROCm: no Linux kernel's KFD and no ROCm release "
                                    "supports it",
                                    g->pci->address, g->name, g->gfx, strempty(g->arch->codename));
    kfd_evidence(in->facts, g, fd);
    rd_finding_evidence(fd, "archs.ini: %s (%s): kfd = no", g->gfx, strempty(g->arch->family));
    _cleanup_free_ char *supported = supported_gpus(in->knowledge);
    rd_finding_remedy(fd,
                      "No kernel, driver package or setting changes this: it is the hardware generation. The GPU "
                      "still does graphics, Vulkan and OpenGL (amdgpu or radeon with Mesa) and OpenCL through "
                      "Mesa (rusticl). For ROCm you need a GCN5 (Vega) or newer GPU%s%s.",
                      supported ? "; " : "", strempty(supported));
}

static void kfd_assess(const rd_assess_input *in, rd_findings *out)
{
    const rd_facts *f = in->facts;
    size_t bound = 0;
    for (size_t i = 0; i < in->gpus->n_gpus; i++)
        bound += streq_ptr(in->gpus->gpus[i].pci->driver, "amdgpu");
    if (bound == 0)
        return;

    const rd_dev_node *dev = find_node(f, "/dev/kfd");
    bool dev_missing = dev && !dev->exists;
    /* In a container whose host has KFD, a missing /dev/kfd is the container's
     * doing: container.devices-missing reports that one cause. */
    if (!f->kfd.present || (dev_missing && !f->os.container)) {
        rd_finding *fd = rd_finding_add(out, RD_FINDING(KFD_MISSING), RD_SEV_ERROR, NULL,
                                        "amdgpu drives %zu GPU%s but the compute interface (KFD) is missing", bound,
                                        bound == 1 ? "" : "s");
        if (!f->kfd.present)
            rd_finding_evidence(fd, "/sys/class/kfd/kfd: absent");
        if (dev_missing)
            rd_finding_evidence(fd, "/dev/kfd: absent");
        for (size_t i = 0; i < f->driver.n_kmsg; i++)
            if (strstr(f->driver.kmsg[i].text, "kfd"))
                rd_finding_evidence(fd, "kernel: %s", f->driver.kmsg[i].text);
        kfd_missing_remedy(f, fd);
        return;
    }
    if (f->kfd.error && f->kfd.n_nodes == 0)
        return; /* topology unreadable: nothing can be concluded */

    for (size_t i = 0; i < in->gpus->n_gpus; i++) {
        const rd_gpu *g = &in->gpus->gpus[i];
        if (g->n_kfd > 0 || !streq_ptr(g->pci->driver, "amdgpu"))
            continue;
        if (finding_for_gpu(out, RD_FINDING(PCIE_ATOMICS_MISSING), g->pci->address))
            continue; /* the reason KFD skipped it is already reported */
        bool hidden = false;
        for (size_t j = 0; j < f->kfd.n_nodes; j++)
            hidden |= f->kfd.nodes[j].error && f->kfd.nodes[j].n_properties == 0;
        if (hidden)
            continue;
        if (g->arch && g->arch->no_kfd) {
            never_rocm(in, g, out);
            continue;
        }
        rd_finding *fd =
            rd_finding_add(out, RD_FINDING(DRIVER_KFD_UNSUPPORTED), RD_SEV_ERROR, g->pci->address,
                           "%s %s is driven by amdgpu but KFD does not offer it for compute", g->pci->address, g->name);
        kfd_evidence(f, g, fd);
        _cleanup_free_ char *kernels = validated_kernels(in);
        _cleanup_free_ char *upgrade = rd_distro_kernel_upgrade(&f->os);
        rd_finding_remedy(fd,
                          "This kernel's KFD does not support the GPU: install %s%s%s, or AMD's amdgpu-dkms "
                          "driver for a release that supports this OS.",
                          upgrade, kernels ? "; " : "", strempty(kernels));
    }
}

static const char *const kfd_findings[] = { RD_FINDING(KFD_MISSING), RD_FINDING(DRIVER_KFD_UNSUPPORTED), NULL };
/* a GPU KFD skipped for want of atomics has that finding instead */
static const char *const kfd_needs[] = { RD_FINDING(PCIE_ATOMICS_MISSING), NULL };

const rd_probe rd_probe_kfd = {
    .id = "kfd",
    .findings = kfd_findings,
    .title = "KFD compute topology",
    .areas = RD_STRV("kfd"),
    .uevents = RD_STRV("pci", "drm", "kfd", "drm/WEDGED"),
    .needs = kfd_needs,
    .gather = kfd_gather,
    .assess = kfd_assess,
};
