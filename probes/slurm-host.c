/* SPDX-License-Identifier: MIT */
/* What Slurm's GPU plugins would find on this host: the node's name, the
 * rsmi plugin and the library it needs, and the cores near each GPU. */
#include <fcntl.h>
#include <inttypes.h>
#include "rootfs.h"
#include "slurm-conf.h"
#include "slurm-probe.h"
#include "util.h"

#define CPU_MAX 8192

char *rd_slurm_node_name(const rd_ctx *ctx)
{
    const char *env = secure_getenv("SLURMD_NODENAME");
    if (env && *env)
        return xstrdup(env);
    char *name = NULL;
    if (rd_ctx_has_root(ctx)) {
        if (rd_root_read_file(ctx, "/etc/hostname", 4096, &name) < 0)
            return NULL;
    } else {
        char buf[256] = { 0 };
        if (gethostname(buf, sizeof(buf) - 1) < 0)
            return NULL;
        name = xstrdup(buf);
    }
    name[strcspn(name, ". \t\r\n")] = 0;
    if (!*name) {
        free(name);
        return NULL;
    }
    return name;
}

static bool root_has(const rd_ctx *ctx, const char *path)
{
    int fd = rd_root_open(ctx, path, O_PATH);
    if (fd < 0)
        return false;
    close(fd);
    return true;
}

void rd_slurm_gather_rsmi(const rd_ctx *ctx, rd_facts *facts)
{
    static const char *const plugin_dirs[] = {
        "/usr/lib/x86_64-linux-gnu/slurm-wlm",
        "/usr/lib/x86_64-linux-gnu/slurm",
        "/usr/lib64/slurm",
        "/usr/lib/slurm",
        "/usr/local/lib/slurm",
        "/usr/local/lib64/slurm",
    };
    static const char *const lib_dirs[] = { "/opt/rocm/lib", "/opt/rocm/lib64", "/usr/lib/x86_64-linux-gnu",
                                            "/usr/lib64", "/usr/lib" };
    static const char *const lib_names[] = { "librocm_smi64.so", "librocm_smi64.so.7", "librocm_smi64.so.6",
                                             "librocm_smi64.so.5", "librocm_smi64.so.1" };
    rd_slurm_facts *s = &facts->slurm;
    for (size_t i = 0; i < ELEMENTSOF(plugin_dirs) && !s->rsmi_plugin; i++) {
        _cleanup_free_ char *p = xasprintf("%s/gpu_rsmi.so", plugin_dirs[i]);
        s->rsmi_plugin = root_has(ctx, p);
    }
    for (size_t i = 0; i < ELEMENTSOF(lib_dirs) && !s->rsmi_library; i++)
        for (size_t j = 0; j < ELEMENTSOF(lib_names) && !s->rsmi_library; j++) {
            _cleanup_free_ char *p = xasprintf("%s/%s", lib_dirs[i], lib_names[j]);
            if (root_has(ctx, p))
                s->rsmi_library = TAKE_PTR(p);
        }
}

static char *ranges_text(const bool *bits, size_t n)
{
    strbuf b = { 0 };
    strbuf_append(&b, "");
    for (size_t i = 0; i < n;) {
        if (!bits[i]) {
            i++;
            continue;
        }
        size_t j = i;
        while (j + 1 < n && bits[j + 1])
            j++;
        strbuf_printf(&b, "%s%zu", b.len ? "," : "", i);
        if (j > i)
            strbuf_printf(&b, "-%zu", j);
        i = j + 1;
    }
    return strbuf_steal(&b);
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* Each present CPU's core as (package << 32 | core id); UINT64_MAX unknown. */
static size_t read_cores(uint64_t *key, const bool *present)
{
    size_t n = 0;
    for (size_t c = 0; c < CPU_MAX; c++) {
        key[c] = UINT64_MAX;
        uint64_t pkg, core;
        _cleanup_free_ char *p = xasprintf("/sys/devices/system/cpu/cpu%zu/topology/physical_package_id", c);
        _cleanup_free_ char *q = xasprintf("/sys/devices/system/cpu/cpu%zu/topology/core_id", c);
        if (!present[c] || read_u64_at(AT_FDCWD, p, 10, &pkg) < 0 || read_u64_at(AT_FDCWD, q, 10, &core) < 0)
            continue;
        key[c] = pkg << 32 | (core & 0xffffffffu);
        n = c + 1;
    }
    return n;
}

static void add_numa(rd_slurm_facts *s, int64_t node, const uint64_t *key, const uint64_t *sorted, size_t n_sorted)
{
    _cleanup_free_ char *path = xasprintf("/sys/devices/system/node/node%" PRId64 "/cpulist", node);
    _cleanup_free_ char *list = NULL;
    _cleanup_free_ bool *cpus = xcalloc(CPU_MAX, sizeof(bool));
    _cleanup_free_ bool *cores = xcalloc(n_sorted + 1, sizeof(bool));
    if (read_line_at(AT_FDCWD, path, &list) < 0 || rd_slurm_cpulist_parse(list, cpus, CPU_MAX) < 0)
        return;
    for (size_t c = 0; c < CPU_MAX; c++) {
        const uint64_t *at =
            cpus[c] && key[c] != UINT64_MAX ? bsearch(&key[c], sorted, n_sorted, sizeof(uint64_t), cmp_u64) : NULL;
        if (at)
            cores[at - sorted] = true;
    }
    rd_slurm_numa *m = ARRAY_APPEND(s->numa, s->n_numa);
    m->numa_node = node;
    m->cores = ranges_text(cores, n_sorted);
}

void rd_slurm_gather_numa(rd_facts *facts)
{
    rd_slurm_facts *s = &facts->slurm;
    bool any = false;
    for (size_t i = 0; i < s->n_gres; i++)
        any |= s->gres[i].cores != NULL;
    _cleanup_free_ char *present_list = NULL;
    if (!any || read_line_at(AT_FDCWD, "/sys/devices/system/cpu/present", &present_list) < 0)
        return;
    _cleanup_free_ bool *present = xcalloc(CPU_MAX, sizeof(bool));
    _cleanup_free_ uint64_t *key = xcalloc(CPU_MAX, sizeof(uint64_t));
    _cleanup_free_ uint64_t *sorted = xcalloc(CPU_MAX, sizeof(uint64_t));
    if (rd_slurm_cpulist_parse(present_list, present, CPU_MAX) < 0)
        return;
    size_t n_cpus = read_cores(key, present), n_sorted = 0;
    for (size_t c = 0; c < n_cpus; c++)
        if (key[c] != UINT64_MAX)
            sorted[n_sorted++] = key[c];
    qsort(sorted, n_sorted, sizeof(uint64_t), cmp_u64);
    size_t u = 0;
    for (size_t i = 0; i < n_sorted; i++)
        if (u == 0 || sorted[i] != sorted[u - 1])
            sorted[u++] = sorted[i];
    for (size_t i = 0; i < facts->pci.n_devices; i++) {
        const rd_pci_device *p = &facts->pci.devices[i];
        bool seen = false;
        for (size_t j = 0; j < s->n_numa; j++)
            seen |= s->numa[j].numa_node == p->numa_node;
        if (rd_pci_is_amd_gpu(p) && p->numa_node >= 0 && !seen)
            add_numa(s, p->numa_node, key, sorted, u);
    }
}
