/* SPDX-License-Identifier: MIT */
/* Tuning of multi-GPU Instinct hosts: NUMA balancing off, and the IOMMU in
 * pass-through mode (iommu=pt) when it is enabled. Both are AMD's
 * recommendations for MI200/MI300 systems; RCCL warns about the second. */
#include <fcntl.h>
#include <inttypes.h>
#include "distro.h"
#include "probe.h"
#include "util.h"

static int cmp_name(const void *a, const void *b)
{
    return strverscmp(*(char *const *)a, *(char *const *)b);
}

static void tuning_gather(const rd_ctx *ctx, rd_facts *facts)
{
    rd_tuning_facts *t = &facts->tuning;
    uint64_t v;
    int r = read_u64_at(AT_FDCWD, "/proc/sys/kernel/numa_balancing", 10, &v);
    if (r < 0) {
        t->numa_balancing = -1;
        /* a kernel without CONFIG_NUMA_BALANCING has no such file: nothing to tune */
        if (r != -ENOENT)
            t->numa_balancing_error = xasprintf("/proc/sys/kernel/numa_balancing: %s", strerror(-r));
    } else
        t->numa_balancing = (int64_t)(v > INT32_MAX ? INT32_MAX : v);

    /* The domain type the kernel gave each GPU's IOMMU group: "identity" is
     * pass-through, whether from iommu=pt, iommu.passthrough=1, a kernel
     * built with IOMMU_DEFAULT_PASSTHROUGH or a write to the type file. */
    for (size_t i = 0; i < facts->pci.n_devices; i++) {
        const rd_pci_device *p = &facts->pci.devices[i];
        _cleanup_free_ char *type = NULL;
        _cleanup_free_ char *path = NULL;
        if (p->vendor_id != 0x1002 || !p->address)
            continue;
        path = xasprintf("/sys/bus/pci/devices/%s/iommu_group/type", p->address);
        if (read_line_at(AT_FDCWD, path, &type) == 0 && streq(type, "identity"))
            t->iommu_identity = strv_push(t->iommu_identity, xstrdup(p->address));
    }

    _cleanup_close_ int dfd = open("/sys/class/iommu", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    int err = dfd < 0 ? -errno : 0;
    if (dfd >= 0)
        t->iommu_units = dir_names(dfd, dir_name_visible, NULL, &err);
    if (err < 0) {
        if (err != -ENOENT)
            t->iommu_error = xasprintf("/sys/class/iommu: %s", strerror(-err));
        return;
    }
    /* dir_names sorts by bytes; units read as numbered (dmar2 before dmar10) */
    size_t n = strv_length(t->iommu_units);
    if (n > 1)
        qsort(t->iommu_units, n, sizeof(char *), cmp_name);
}

/* The value of a kernel parameter on the command line (last one wins), "" for
 * a bare flag, NULL when absent. Parameters after "--" belong to init. */
static char *cmdline_param(const char *cmdline, const char *name)
{
    char *found = NULL;
    _cleanup_free_ char *copy = xstrdup(strempty(cmdline));
    char *save = NULL;
    for (char *t = strtok_r(copy, " \t\n", &save); t; t = strtok_r(NULL, " \t\n", &save)) {
        if (streq(t, "--"))
            break;
        const char *v = startswith(t, name);
        if (v && (*v == '=' || !*v)) {
            free(found);
            found = xstrdup(*v ? v + 1 : "");
        }
    }
    return found;
}

static bool is_instinct(const rd_gpu *g)
{
    /* Instinct parts are processing accelerators (class 0x12) since MI300; the
     * MI100/MI200 generation is told by its targets, which only Instinct uses */
    if ((g->pci->class_code >> 16) == 0x12)
        return true;
    if (g->name && strstr(g->name, "Instinct"))
        return true;
    const char *fam = g->arch ? g->arch->family : NULL;
    return streq(g->gfx, "gfx908") || streq(g->gfx, "gfx90a") ||
           (fam && (streq(fam, "gfx9.4") || streq(fam, "gfx9.5")));
}

static void tuning_assess(const rd_assess_input *in, rd_findings *out)
{
    const rd_facts *f = in->facts;
    size_t n = 0, n_identity = 0;
    for (size_t i = 0; i < in->gpus->n_gpus; i++)
        if (!in->gpus->gpus[i].integrated && is_instinct(&in->gpus->gpus[i])) {
            n++;
            n_identity += strv_contains(f->tuning.iommu_identity, in->gpus->gpus[i].pci->address);
        }
    if (n < 2)
        return;

    if (f->tuning.numa_balancing > 0) {
        rd_finding *fd = rd_finding_add(out, RD_FINDING(TUNING_NUMA_BALANCING), RD_SEV_WARNING, NULL,
                                        "Automatic NUMA balancing is on in a host with %zu Instinct GPUs", n);
        rd_finding_evidence(fd, "/proc/sys/kernel/numa_balancing: %" PRId64, f->tuning.numa_balancing);
        rd_finding_remedy(fd, "Turn it off now and at every boot: sudo sysctl -w kernel.numa_balancing=0 and "
                              "echo kernel.numa_balancing=0 | sudo tee /etc/sysctl.d/90-rocm-numa-balancing.conf");
    }

    if (!f->driver.cmdline)
        return;
    _cleanup_free_ char *iommu = cmdline_param(f->driver.cmdline, "iommu");
    _cleanup_free_ char *passthrough = cmdline_param(f->driver.cmdline, "iommu.passthrough");
    _cleanup_free_ char *amd = cmdline_param(f->driver.cmdline, "amd_iommu");
    _cleanup_free_ char *intel = cmdline_param(f->driver.cmdline, "intel_iommu");
    /* iommu.passthrough takes what the kernel's kstrtobool reads as true */
    bool pt =
        (iommu && streq(iommu, "pt")) ||
        (passthrough && (strchr("1yYtT", passthrough[0]) ? passthrough[0] != 0 : strcasecmp(passthrough, "on") == 0));
    /* every GPU already in pass-through, whatever the command line says */
    if (pt || n_identity == n)
        return;
    size_t units = strv_length(f->tuning.iommu_units);
    bool on_cmdline = (amd && streq(amd, "on")) || (intel && streq(intel, "on"));
    if (units == 0 && !on_cmdline)
        return;
    rd_finding *fd = rd_finding_add(out, RD_FINDING(TUNING_IOMMU_PT), RD_SEV_WARNING, NULL,
                                    "The IOMMU translates GPU DMA in a host with %zu Instinct GPUs: add iommu=pt", n);
    if (units > 0) {
        strbuf b = { 0 };
        for (char **u = f->tuning.iommu_units; *u; u++)
            strbuf_printf(&b, "%s%s", u == f->tuning.iommu_units ? "" : " ", *u);
        rd_finding_evidence(fd, "/sys/class/iommu: %s", b.s);
        free(b.s);
    }
    if (on_cmdline)
        rd_finding_evidence(fd, "kernel command line: %s=on", amd && streq(amd, "on") ? "amd_iommu" : "intel_iommu");
    rd_finding_evidence(fd, "kernel command line: no iommu=pt");
    _cleanup_free_ char *how = rd_distro_cmdline_add(&f->os, "iommu=pt");
    rd_finding_remedy(fd,
                      "To add iommu=pt to the kernel command line: %s, then reboot. Keep the IOMMU on; "
                      "amd_iommu=off is not the fix.",
                      how);
    /* the fix writes a grub.d drop-in and runs update-grub: Debian's tools */
    if (rd_distro_debian_tools(&f->os))
        rd_finding_set_fix(fd, "cmdline");
}

static const char *const tuning_findings[] = { RD_FINDING(TUNING_NUMA_BALANCING), RD_FINDING(TUNING_IOMMU_PT), NULL };

const rd_probe rd_probe_tuning = {
    .id = "tuning",
    .title = "Multi-GPU host tuning",
    .flags = 0,
    .findings = tuning_findings,
    .areas = RD_STRV("tuning"),
    .uevents = RD_STRV("pci", "drm", "kfd"),
    .gather = tuning_gather,
    .assess = tuning_assess,
};
