/* SPDX-License-Identifier: MIT */
/* rd_assess: facts in, findings out. Each scenario is built in C the way the
 * probes would record it, and checked for the exact finding ids, severities,
 * evidence and exit status. */
#include <glib.h>

#include "testlib.h"
#include "check.h"
#include "registry.h"
#include "context.h"
#include "facts.h"
#include "findings.h"
#include "distro.h"
#include "report.h"
#include "util.h"

#define GIB (UINT64_C(1) << 30)
#define MIB (UINT64_C(1) << 20)
#define RENDER_GID 992
#define VIDEO_GID 44

static rd_knowledge knowledge;

/* ---- building facts ---- */

static rd_pci_device *add_pci(rd_facts *f, const char *address, int64_t vendor, int64_t device, int64_t class_code,
                              const char *parent)
{
    rd_pci_device *d = ARRAY_APPEND(f->pci.devices, f->pci.n_devices);
    d->address = xstrdup(address);
    d->vendor_id = vendor;
    d->device_id = device;
    d->class_code = class_code;
    d->display = (class_code >> 16) == 0x03;
    d->parent = xstrdup_or_null(parent);
    d->pcie_type = -1;
    d->numa_node = -1;
    return d;
}

static rd_pci_device *add_port(rd_facts *f, const char *address, int64_t vendor, int64_t device, int type,
                               const char *parent)
{
    rd_pci_device *d = add_pci(f, address, vendor, device, 0x060400, parent);
    d->pcie_type = type;
    d->caps_readable = true;
    return d;
}

static void set_link(rd_pci_device *d, double cur_speed, int64_t cur_width, double max_speed, int64_t max_width)
{
    d->current_link_speed = cur_speed;
    d->current_link_width = cur_width;
    d->max_link_speed = max_speed;
    d->max_link_width = max_width;
}

static void add_cpu_node(rd_facts *f)
{
    rd_kfd_node *n = ARRAY_APPEND(f->kfd.nodes, f->kfd.n_nodes);
    n->node_id = (int64_t)f->kfd.n_nodes - 1;
    rd_test_kv_add(n, "cpu_cores_count", 32);
    rd_test_kv_add(n, "simd_count", 0);
    rd_test_kv_add(n, "gfx_target_version", 0);
}

static rd_kfd_node *add_gpu_node(rd_facts *f, uint64_t location_id, uint64_t gfx_target_version, uint64_t device_id)
{
    rd_kfd_node *n = ARRAY_APPEND(f->kfd.nodes, f->kfd.n_nodes);
    n->node_id = (int64_t)f->kfd.n_nodes - 1;
    n->gpu_id = 1000 + n->node_id;
    rd_test_kv_add(n, "cpu_cores_count", 0);
    rd_test_kv_add(n, "simd_count", 192);
    rd_test_kv_add(n, "gfx_target_version", gfx_target_version);
    rd_test_kv_add(n, "vendor_id", 4098);
    rd_test_kv_add(n, "device_id", device_id);
    rd_test_kv_add(n, "location_id", location_id);
    rd_test_kv_add(n, "domain", 0);
    rd_test_kv_add(n, "drm_render_minor", 128);
    return n;
}

static void add_kmsg(rd_facts *f, int64_t priority, const char *text)
{
    rd_kmsg_record *k = ARRAY_APPEND(f->driver.kmsg, f->driver.n_kmsg);
    k->priority = priority;
    k->seq = f->driver.n_kmsg;
    k->text = xstrdup(text);
}

static void add_modprobe(rd_facts *f, const char *file, int64_t line, const char *directive, const char *module,
                         const char *args)
{
    rd_modprobe_line *l = ARRAY_APPEND(f->driver.modprobe, f->driver.n_modprobe);
    l->file = xstrdup(file);
    l->line = line;
    l->directive = xstrdup(directive);
    l->module = xstrdup(module);
    l->args = xstrdup(args);
}

static rd_dev_node *add_dev_node(rd_facts *f, const char *path, const char *role, int64_t mode, int64_t gid,
                                 const char *group)
{
    rd_dev_node *n = ARRAY_APPEND(f->access.nodes, f->access.n_nodes);
    n->path = xstrdup(path);
    n->role = xstrdup(role);
    n->exists = true;
    n->mode = mode;
    n->uid = 0;
    n->gid = gid;
    n->group = xstrdup_or_null(group);
    return n;
}

static int64_t *gid_list(size_t n, const int64_t *src)
{
    int64_t *v = xcalloc(n, sizeof(int64_t));
    memcpy(v, src, n * sizeof(int64_t));
    return v;
}

static rd_user_facts *add_user(rd_facts *f, const char *name, int64_t uid, const int64_t *groups, size_t n_groups)
{
    rd_user_facts *u = ARRAY_APPEND(f->access.users, f->access.n_users);
    u->name = xstrdup(name);
    u->uid = uid;
    u->gid = uid;
    u->source = xstrdup("--user");
    u->groups = gid_list(n_groups, groups);
    u->n_groups = n_groups;
    return u;
}

enum {
    WITH_DRIVER = 1 << 0, /* amdgpu loaded and bound, DRM node present */
    WITH_KFD = 1 << 1,    /* KFD present with the GPU's node */
    WITH_ACCESS = 1 << 2, /* /dev/kfd and the render node 0660 root:render, alice in render */
    HEALTHY = WITH_DRIVER | WITH_KFD | WITH_ACCESS,
};

#define NAVI31 "0000:03:00.0"
#define NAVI31_NAME "AMD Radeon RX 7900 XTX"
#define NAVI31_UPSTREAM "0000:01:00.0"
#define ROOT_PORT "0000:00:01.1"

/* An RX 7900 XTX behind its on-board AMD switch, on a CPU root port that
 * completes AtomicOps: root port -> upstream -> downstream -> GPU. */
static void navi31_host(rd_facts *f, unsigned what)
{
    rd_facts_init(f);
    f->os.id = xstrdup("ubuntu");
    f->os.version_id = xstrdup("24.04");

    rd_pci_device *d = add_port(f, ROOT_PORT, 0x1022, 0x14db, 4, NULL);
    d->atomic_comp32 = d->atomic_comp64 = d->atomic_routing = true;
    set_link(d, 16.0, 16, 16.0, 16);
    d = add_port(f, NAVI31_UPSTREAM, 0x1002, 0x1478, 5, ROOT_PORT);
    d->atomic_routing = true;
    set_link(d, 16.0, 16, 16.0, 16);
    d = add_port(f, "0000:02:00.0", 0x1002, 0x1479, 6, NAVI31_UPSTREAM);
    d->atomic_routing = true;
    set_link(d, 16.0, 16, 16.0, 16);

    d = add_pci(f, NAVI31, 0x1002, 0x744c, 0x030000, "0000:02:00.0");
    d->revision = 0xc8;
    d->marketing_name = xstrdup(NAVI31_NAME);
    d->device_name = xstrdup("Navi 31 [Radeon RX 7900 XT/7900 XTX/7900 GRE/7900M]");
    d->pcie_type = 0;
    d->caps_readable = true;
    d->atomic_requester = (what & WITH_DRIVER) != 0;
    set_link(d, 16.0, 16, 16.0, 16);
    d->bar_sizes = xcalloc(2, sizeof(uint64_t));
    d->bar_sizes[0] = 32 * GIB;
    d->bar_sizes[1] = 2 * MIB;
    d->n_bar_sizes = 2;
    d->resizable_bar = true;

    f->driver.cmdline = xstrdup("BOOT_IMAGE=/vmlinuz-6.8.0-45-generic root=UUID=1234 ro quiet splash");
    if (what & WITH_DRIVER) {
        d->driver = xstrdup("amdgpu");
        f->driver.module_present = true;
        f->driver.initstate = xstrdup("live");
        rd_drm_device *drm = ARRAY_APPEND(f->drm.devices, f->drm.n_devices);
        drm->pci_address = xstrdup(NAVI31);
        drm->card = xstrdup("/dev/dri/card1");
        drm->render = xstrdup("/dev/dri/renderD128");
        drm->render_minor = 128;
        drm->driver = xstrdup("amdgpu");
        drm->vram_total = 24 * GIB;
    }
    if (what & WITH_KFD) {
        f->kfd.present = true;
        f->kfd.generation_id = 1;
        add_cpu_node(f);
        add_gpu_node(f, 3 << 8, 110000, 0x744c);
    }
    if (what & WITH_ACCESS) {
        add_dev_node(f, "/dev/kfd", "kfd", 0660, RENDER_GID, "render");
        add_dev_node(f, "/dev/dri/renderD128", "render", 0660, RENDER_GID, "render");
        const int64_t groups[] = { 1000, VIDEO_GID, RENDER_GID };
        add_user(f, "alice", 1000, groups, G_N_ELEMENTS(groups));
    }
}

static rd_pci_device *find_pci(rd_facts *f, const char *address)
{
    for (size_t i = 0; i < f->pci.n_devices; i++)
        if (streq(f->pci.devices[i].address, address))
            return &f->pci.devices[i];
    g_assert_not_reached();
    return NULL;
}

/* ---- checking findings ---- */

typedef struct {
    rd_gpu_view view;
    rd_findings fs;
} result;

static void assess(const rd_facts *f, result *r)
{
    rd_assess(&rd_probe_registry, f, &knowledge, &r->view, &r->fs);
}

static void result_free(result *r)
{
    rd_findings_free(&r->fs);
    rd_gpu_view_free(&r->view);
}

static char *ids_of(const rd_findings *fs)
{
    GString *s = g_string_new(NULL);
    for (size_t i = 0; i < fs->n; i++)
        g_string_append_printf(s, "%s%s", i ? " " : "", fs->items[i].id);
    return g_string_free(s, FALSE);
}

/* The findings in order, as a space-separated list of ids. */
static void assert_ids(const rd_findings *fs, const char *expected)
{
    g_autofree char *got = ids_of(fs);
    g_assert_cmpstr(got, ==, expected);
}

static const rd_finding *get(const rd_findings *fs, const char *id)
{
    const rd_finding *f = rd_findings_get(fs, id);
    if (!f) {
        g_test_message("finding %s missing", id);
        g_test_fail();
    }
    return f;
}

static void assert_evidence(const rd_finding *f, size_t index, const char *expected)
{
    if (!f)
        return;
    g_assert_cmpuint(strv_length(f->evidence), >, index);
    if (strv_length(f->evidence) > index)
        g_assert_cmpstr(f->evidence[index], ==, expected);
}

static void assert_n_evidence(const rd_finding *f, size_t n)
{
    if (f)
        g_assert_cmpuint(strv_length(f->evidence), ==, n);
}

static void assert_contains(const char *haystack, const char *needle)
{
    if (!haystack || !strstr(haystack, needle)) {
        g_test_message("\"%s\" does not contain \"%s\"", strempty(haystack), needle);
        g_test_fail();
    }
}

/* ---- scenarios ---- */

static void test_no_display_device(void)
{
    rd_facts f;
    rd_facts_init(&f);
    result r;
    assess(&f, &r);
    assert_ids(&r.fs, "gpu.none");
    const rd_finding *fd = get(&r.fs, "gpu.none");
    if (fd) {
        g_assert_cmpint(fd->severity, ==, RD_SEV_ERROR);
        g_assert_cmpstr(fd->summary, ==, "No AMD GPU is visible on this host");
        assert_n_evidence(fd, 1);
        assert_evidence(fd, 0, "no display-class PCI device in /sys/bus/pci/devices");
        g_assert_true(g_str_has_prefix(fd->remedy, "Install an AMD GPU"));
        g_assert_null(fd->fix);
        g_assert_null(fd->gpu);
    }
    g_assert_cmpuint(r.view.n_gpus, ==, 0);
    g_assert_cmpint(rd_findings_exit_status(&r.fs), ==, RD_EXIT_ERROR);
    result_free(&r);
    rd_facts_free(&f);
}

static void test_nvidia_only(void)
{
    rd_facts f;
    rd_facts_init(&f);
    rd_pci_device *d = add_pci(&f, "0000:41:00.0", 0x10de, 0x2335, 0x030200, NULL);
    d->driver = xstrdup("nvidia");
    d->device_name = xstrdup("GH100 [H200 SXM 141GB]");
    /* an ASPEED BMC display without a name */
    add_pci(&f, "0000:02:00.0", 0x1a03, 0x2000, 0x030000, NULL)->driver = xstrdup("ast");
    /* a bridge is not a display device */
    add_port(&f, "0000:40:01.1", 0x1022, 0x14ab, 4, NULL);
    result r;
    assess(&f, &r);
    assert_ids(&r.fs, "gpu.none");
    const rd_finding *fd = get(&r.fs, "gpu.none");
    assert_n_evidence(fd, 2);
    assert_evidence(fd, 0, "NVIDIA GH100 [H200 SXM 141GB] (10de:2335), driver nvidia");
    assert_evidence(fd, 1, "ASPEED display device (1a03:2000), driver ast");
    if (fd)
        g_assert_true(g_str_has_prefix(fd->remedy, "ROCm needs an AMD GPU"));
    g_assert_cmpint(rd_findings_exit_status(&r.fs), ==, RD_EXIT_ERROR);
    result_free(&r);
    rd_facts_free(&f);
}

static void test_container_without_gpu(void)
{
    rd_facts f;
    rd_facts_init(&f);
    f.os.container = xstrdup("docker");
    result r;
    assess(&f, &r);
    assert_ids(&r.fs, "gpu.none");
    const rd_finding *fd = get(&r.fs, "gpu.none");
    if (fd)
        assert_contains(fd->remedy, "This is a docker container");
    result_free(&r);
    rd_facts_free(&f);
}

static void test_wsl(void)
{
    rd_facts f;
    rd_facts_init(&f);
    f.os.wsl = true;
    f.os.wsl_evidence = xstrdup("/proc/version: Linux version 5.15.153.1-microsoft-standard-WSL2");
    result r;
    assess(&f, &r);
    assert_ids(&r.fs, "host.wsl");
    const rd_finding *fd = get(&r.fs, "host.wsl");
    assert_n_evidence(fd, 1);
    assert_evidence(fd, 0, "/proc/version: Linux version 5.15.153.1-microsoft-standard-WSL2");
    if (fd)
        g_assert_cmpint(fd->severity, ==, RD_SEV_ERROR);
    g_assert_cmpint(rd_findings_exit_status(&r.fs), ==, RD_EXIT_ERROR);
    result_free(&r);
    rd_facts_free(&f);
}

static void test_healthy(void)
{
    rd_facts f;
    navi31_host(&f, HEALTHY);
    result r;
    assess(&f, &r);
    assert_ids(&r.fs, "");
    g_assert_cmpint(rd_findings_exit_status(&r.fs), ==, RD_EXIT_OK);

    /* the view joined PCI, DRM and KFD */
    g_assert_cmpuint(r.view.n_gpus, ==, 1);
    const rd_gpu *g = &r.view.gpus[0];
    g_assert_cmpstr(g->pci->address, ==, NAVI31);
    g_assert_cmpstr(g->gfx, ==, "gfx1100");
    g_assert_true(g->gfx_from_kfd);
    g_assert_cmpuint(g->n_kfd, ==, 1);
    g_assert_cmpint(g->kfd[0]->node_id, ==, 1);
    g_assert_nonnull(g->drm);
    g_assert_cmpuint(g->vram_bytes, ==, 24 * GIB);
    g_assert_cmpstr(g->name, ==, NAVI31_NAME);
    g_assert_false(g->integrated);
    /* the switch's upstream port carries the slot's link */
    g_assert_cmpstr(g->link->address, ==, NAVI31_UPSTREAM);
    g_assert_cmpuint(r.view.n_unmatched, ==, 0);
    result_free(&r);
    rd_facts_free(&f);
}

static void test_mi300x_partitions(void)
{
    /* CPX mode: the partitions of one MI300X put their index in the function bits */
    rd_facts f;
    rd_facts_init(&f);
    rd_pci_device *d = add_pci(&f, "0000:05:00.0", 0x1002, 0x74a1, 0x120000, NULL);
    d->display = true; /* processing accelerators are GPUs too, as the probe records them */
    d->driver = xstrdup("amdgpu");
    d->caps_readable = true;
    f.driver.module_present = true;
    f.kfd.present = true;
    add_cpu_node(&f);
    add_gpu_node(&f, (5 << 8) | 1, 90402, 0x74a1);
    add_gpu_node(&f, (5 << 8) | 0, 90402, 0x74a1);
    add_gpu_node(&f, (9 << 8) | 0, 90402, 0x74a1); /* a GPU PCI does not show */
    result r;
    assess(&f, &r);
    assert_ids(&r.fs, "");
    g_assert_cmpuint(r.view.n_gpus, ==, 1);
    g_assert_cmpuint(r.view.gpus[0].n_kfd, ==, 2);
    g_assert_cmpint(r.view.gpus[0].kfd[0]->node_id, ==, 1);
    g_assert_cmpint(r.view.gpus[0].kfd[1]->node_id, ==, 2);
    g_assert_cmpstr(r.view.gpus[0].gfx, ==, "gfx942");
    g_assert_cmpuint(r.view.n_unmatched, ==, 1);
    g_assert_cmpint(r.view.unmatched[0]->node_id, ==, 3);
    result_free(&r);
    rd_facts_free(&f);
}

static void test_blacklisted_not_loaded(void)
{
    rd_facts f;
    navi31_host(&f, 0);
    add_modprobe(&f, "/etc/modprobe.d/blacklist-amdgpu.conf", 3, "blacklist", "amdgpu", "");
    add_modprobe(&f, "/etc/modprobe.d/amdgpu.conf", 1, "options", "amdgpu", "ppfeaturemask=0xffffffff");
    result r;
    assess(&f, &r);
    assert_ids(&r.fs, "driver.not-loaded driver.blacklisted");

    const rd_finding *nl = get(&r.fs, "driver.not-loaded");
    if (nl) {
        g_assert_cmpint(nl->severity, ==, RD_SEV_ERROR);
        g_assert_cmpstr(nl->summary, ==, "The amdgpu driver is not loaded: 1 AMD GPU without a driver");
        assert_n_evidence(nl, 2);
        assert_evidence(nl, 0, "/sys/module/amdgpu: absent");
        assert_evidence(nl, 1, NAVI31 " " NAVI31_NAME ": no driver bound");
        g_assert_cmpstr(nl->remedy, ==, "Remove what stops it (reported below), then reboot.");
    }
    const rd_finding *bl = get(&r.fs, "driver.blacklisted");
    if (bl) {
        g_assert_cmpint(bl->severity, ==, RD_SEV_ERROR);
        g_assert_cmpstr(bl->summary, ==, "amdgpu is blacklisted, so it does not load");
        assert_n_evidence(bl, 1);
        assert_evidence(bl, 0, "/etc/modprobe.d/blacklist-amdgpu.conf:3: blacklist amdgpu");
        g_assert_cmpstr(bl->remedy, ==,
                        "Delete line 3 of /etc/modprobe.d/blacklist-amdgpu.conf (keep a copy), then "
                        "`sudo update-initramfs -u` and reboot.");
        g_assert_cmpstr(bl->fix, ==, "modprobe");
    }
    g_assert_cmpint(rd_findings_exit_status(&r.fs), ==, RD_EXIT_ERROR);
    result_free(&r);
    rd_facts_free(&f);
}

static void test_blacklisted_install_false(void)
{
    rd_facts f;
    navi31_host(&f, 0);
    add_modprobe(&f, "/usr/lib/modprobe.d/gpu-operator.conf", 7, "install", "amdgpu", "/bin/false");
    add_modprobe(&f, "/etc/modprobe.d/x.conf", 2, "install", "amdgpu", "/sbin/modprobe --ignore-install amdgpu");
    result r;
    assess(&f, &r);
    assert_ids(&r.fs, "driver.not-loaded driver.blacklisted");
    const rd_finding *bl = get(&r.fs, "driver.blacklisted");
    assert_n_evidence(bl, 1);
    assert_evidence(bl, 0, "/usr/lib/modprobe.d/gpu-operator.conf:7: install amdgpu /bin/false");
    if (bl) {
        g_assert_true(g_str_has_prefix(bl->remedy, "/usr/lib/modprobe.d/gpu-operator.conf belongs to a package"));
        assert_contains(bl->remedy, "This blacklist looks deliberate");
    }
    result_free(&r);
    rd_facts_free(&f);
}

static void test_blacklisted_loaded(void)
{
    rd_facts f;
    navi31_host(&f, HEALTHY);
    add_modprobe(&f, "/etc/modprobe.d/blacklist.conf", 12, "blacklist", "amdgpu", "");
    add_modprobe(&f, "/etc/modprobe.d/blacklist.conf", 13, "blacklist", "radeon", "");
    result r;
    assess(&f, &r);
    assert_ids(&r.fs, "driver.blacklisted");
    const rd_finding *bl = get(&r.fs, "driver.blacklisted");
    if (bl) {
        g_assert_cmpint(bl->severity, ==, RD_SEV_WARNING);
        g_assert_cmpstr(bl->summary, ==, "amdgpu is blacklisted and will not load at the next boot");
        assert_n_evidence(bl, 1);
        assert_evidence(bl, 0, "/etc/modprobe.d/blacklist.conf:12: blacklist amdgpu");
    }
    g_assert_cmpint(rd_findings_exit_status(&r.fs), ==, RD_EXIT_WARNING);
    result_free(&r);
    rd_facts_free(&f);
}

static void test_blacklisted_cmdline(void)
{
    rd_facts f;
    navi31_host(&f, 0);
    free(f.driver.cmdline);
    f.driver.cmdline = xstrdup("BOOT_IMAGE=/vmlinuz ro modprobe.blacklist=nouveau,amdgpu quiet");
    result r;
    assess(&f, &r);
    assert_ids(&r.fs, "driver.not-loaded driver.blacklisted");
    const rd_finding *bl = get(&r.fs, "driver.blacklisted");
    if (bl) {
        g_assert_cmpstr(bl->summary, ==, "amdgpu is blacklisted on the kernel command line");
        assert_n_evidence(bl, 1);
        assert_evidence(bl, 0, "/proc/cmdline: modprobe.blacklist=nouveau,amdgpu");
        assert_contains(bl->remedy, "remove modprobe.blacklist=nouveau,amdgpu from GRUB_CMDLINE_LINUX");
    }
    result_free(&r);
    rd_facts_free(&f);
}

static void test_nomodeset(void)
{
    rd_facts f;
    navi31_host(&f, 0);
    free(f.driver.cmdline);
    f.driver.cmdline = xstrdup("BOOT_IMAGE=/vmlinuz-6.8.0-45-generic ro quiet splash nomodeset");
    result r;
    assess(&f, &r);
    assert_ids(&r.fs, "driver.not-loaded driver.nomodeset");
    const rd_finding *nm = get(&r.fs, "driver.nomodeset");
    if (nm) {
        g_assert_cmpint(nm->severity, ==, RD_SEV_ERROR);
        g_assert_cmpstr(nm->summary, ==, "nomodeset on the kernel command line keeps amdgpu from loading");
        assert_n_evidence(nm, 1);
        assert_evidence(nm, 0, "/proc/cmdline: BOOT_IMAGE=/vmlinuz-6.8.0-45-generic ro quiet splash nomodeset");
        assert_contains(nm->remedy, "remove nomodeset from GRUB_CMDLINE_LINUX and GRUB_CMDLINE_LINUX_DEFAULT");
    }
    g_assert_cmpint(rd_findings_exit_status(&r.fs), ==, RD_EXIT_ERROR);
    result_free(&r);
    rd_facts_free(&f);

    /* amdgpu.modeset=0 while the GPU is bound: a warning about the next boot */
    navi31_host(&f, HEALTHY);
    free(f.driver.cmdline);
    f.driver.cmdline = xstrdup("ro amdgpu.modeset=0");
    assess(&f, &r);
    assert_ids(&r.fs, "driver.nomodeset");
    nm = get(&r.fs, "driver.nomodeset");
    if (nm) {
        g_assert_cmpint(nm->severity, ==, RD_SEV_WARNING);
        g_assert_cmpstr(nm->summary, ==, "amdgpu.modeset=0 on the kernel command line keeps amdgpu from loading");
    }
    g_assert_cmpint(rd_findings_exit_status(&r.fs), ==, RD_EXIT_WARNING);
    result_free(&r);
    rd_facts_free(&f);
}

static void test_radeon_bound_si(void)
{
    rd_facts f;
    rd_facts_init(&f);
    rd_pci_device *d = add_pci(&f, "0000:01:00.0", 0x1002, 0x6818, 0x030000, NULL);
    d->driver = xstrdup("radeon");
    d->device_name = xstrdup("Pitcairn XT [Radeon HD 7870 GHz Edition]");
    d->caps_readable = true;
    d->pcie_type = 0;
    f.driver.radeon_loaded = true;
    f.os.id = xstrdup("ubuntu");
    f.os.version_id = xstrdup("24.04");
    result r;
    assess(&f, &r);
    assert_ids(&r.fs, "gpu.radeon-bound");
    const rd_finding *fd = get(&r.fs, "gpu.radeon-bound");
    if (fd) {
        g_assert_cmpint(fd->severity, ==, RD_SEV_ERROR);
        g_assert_cmpstr(fd->gpu, ==, "0000:01:00.0");
        g_assert_cmpstr(fd->summary, ==,
                        "0000:01:00.0 Pitcairn XT [Radeon HD 7870 GHz Edition] is driven by the legacy radeon "
                        "driver, which ROCm cannot use");
        assert_n_evidence(fd, 2);
        assert_evidence(fd, 0, "/sys/bus/pci/devices/0000:01:00.0/driver -> radeon");
        assert_evidence(fd, 1, "1002:6818 is gfx601 (gfx6)");
        assert_contains(fd->remedy, "\"options amdgpu si_support=1\"");
        assert_contains(fd->remedy, "\"options radeon si_support=0\"");
        assert_contains(fd->remedy, "/etc/modprobe.d/amdgpu-si.conf");
        g_assert_cmpstr(fd->fix, ==, "modprobe");
    }
    g_assert_cmpint(rd_findings_exit_status(&r.fs), ==, RD_EXIT_ERROR);
    result_free(&r);
    rd_facts_free(&f);
}

static void test_vfio_bound(void)
{
    rd_facts f;
    navi31_host(&f, WITH_ACCESS);
    f.driver.module_present = true;
    free(find_pci(&f, NAVI31)->driver);
    find_pci(&f, NAVI31)->driver = xstrdup("vfio-pci");
    result r;
    assess(&f, &r);
    assert_ids(&r.fs, "gpu.vfio-bound");
    const rd_finding *fd = get(&r.fs, "gpu.vfio-bound");
    if (fd) {
        g_assert_cmpint(fd->severity, ==, RD_SEV_WARNING);
        assert_n_evidence(fd, 1);
        assert_evidence(fd, 0, "/sys/bus/pci/devices/" NAVI31 "/driver -> vfio-pci");
        assert_contains(fd->remedy, "remove 1002:744c from vfio-pci.ids=");
    }
    g_assert_cmpint(rd_findings_exit_status(&r.fs), ==, RD_EXIT_WARNING);
    result_free(&r);
    rd_facts_free(&f);
}

static void test_kfd_missing(void)
{
    rd_facts f;
    navi31_host(&f, WITH_DRIVER | WITH_ACCESS);
    f.access.nodes[0].exists = false; /* /dev/kfd */
    add_kmsg(&f, 6, "[drm] amdgpu kernel modesetting enabled.");
    add_kmsg(&f, 3, "kfd kfd: error getting iommu info. is the iommu enabled?");
    result r;
    assess(&f, &r);
    assert_ids(&r.fs, "kfd.missing");
    const rd_finding *fd = get(&r.fs, "kfd.missing");
    if (fd) {
        g_assert_cmpint(fd->severity, ==, RD_SEV_ERROR);
        g_assert_cmpstr(fd->summary, ==, "amdgpu drives 1 GPU but the compute interface (KFD) is missing");
        assert_n_evidence(fd, 3);
        assert_evidence(fd, 0, "/sys/class/kfd/kfd: absent");
        assert_evidence(fd, 1, "/dev/kfd: absent");
        assert_evidence(fd, 2, "kernel: kfd kfd: error getting iommu info. is the iommu enabled?");
        g_assert_true(g_str_has_prefix(fd->remedy, "This kernel was built without KFD"));
    }
    g_assert_cmpint(rd_findings_exit_status(&r.fs), ==, RD_EXIT_ERROR);
    result_free(&r);
    rd_facts_free(&f);

    /* a container that was not given /dev/kfd, on a host with KFD: one cause,
     * one finding, and it is the container's */
    navi31_host(&f, HEALTHY);
    f.os.container = xstrdup("podman");
    f.access.nodes[0].exists = false;
    assess(&f, &r);
    assert_ids(&r.fs, "container.devices-missing");
    fd = get(&r.fs, "container.devices-missing");
    if (fd)
        assert_contains(fd->remedy, "podman run --device=/dev/kfd --device=/dev/dri");
    result_free(&r);

    /* ... on a host without KFD: the host's cause alone */
    f.kfd.present = false;
    assess(&f, &r);
    assert_ids(&r.fs, "kfd.missing");
    fd = get(&r.fs, "kfd.missing");
    if (fd)
        g_assert_true(g_str_has_prefix(fd->remedy, "The host's kernel has no KFD"));
    result_free(&r);
    rd_facts_free(&f);
}

static void test_kfd_unsupported(void)
{
    rd_facts f;
    navi31_host(&f, WITH_DRIVER | WITH_ACCESS);
    f.kfd.present = true;
    add_cpu_node(&f);
    add_kmsg(&f, 6, "[drm] amdgpu kernel modesetting enabled.");
    add_kmsg(&f, 4, "kfd kfd: amdgpu: GC IP 0b0000 not supported in kfd");
    result r;
    assess(&f, &r);
    assert_ids(&r.fs, "driver.kfd-unsupported");
    const rd_finding *fd = get(&r.fs, "driver.kfd-unsupported");
    if (fd) {
        g_assert_cmpint(fd->severity, ==, RD_SEV_ERROR);
        g_assert_cmpstr(fd->gpu, ==, NAVI31);
        assert_n_evidence(fd, 3);
        assert_evidence(fd, 0, "no KFD topology node has location " NAVI31);
        assert_evidence(fd, 1, "kernel: kfd kfd: amdgpu: GC IP 0b0000 not supported in kfd");
        assert_evidence(fd, 2, "1002:744c is gfx1100");
        assert_contains(fd->remedy, "linux-generic-hwe-24.04");
    }
    g_assert_cmpint(rd_findings_exit_status(&r.fs), ==, RD_EXIT_ERROR);
    result_free(&r);
    rd_facts_free(&f);

    /* nodes hidden by the device cgroup explain the missing node: nothing to say */
    navi31_host(&f, WITH_DRIVER | WITH_ACCESS);
    f.kfd.present = true;
    add_cpu_node(&f);
    rd_kfd_node *hidden = ARRAY_APPEND(f.kfd.nodes, f.kfd.n_nodes);
    hidden->node_id = 1;
    hidden->error = xstrdup("EPERM: hidden by the device cgroup (container or scheduler)");
    assess(&f, &r);
    assert_ids(&r.fs, "");
    result_free(&r);
    rd_facts_free(&f);
}

/* An RX 580 in a chipset slot: the chipset's switch ports do not route AtomicOps. */
static void test_atomics_missing(void)
{
    rd_facts f;
    rd_facts_init(&f);
    rd_pci_device *d = add_port(&f, "0000:00:01.2", 0x1022, 0x1483, 4, NULL);
    d->atomic_comp32 = d->atomic_comp64 = true;
    add_port(&f, "0000:03:00.0", 0x1022, 0x43c6, 5, "0000:00:01.2");
    add_port(&f, "0000:04:04.0", 0x1022, 0x43c7, 6, "0000:03:00.0");
    d = add_pci(&f, "0000:05:00.0", 0x1002, 0x67df, 0x030000, "0000:04:04.0");
    d->revision = 0xe7;
    d->marketing_name = xstrdup("Radeon RX 580 Series");
    d->driver = xstrdup("amdgpu");
    d->pcie_type = 0;
    d->caps_readable = true;
    set_link(d, 8.0, 16, 8.0, 16);
    d->bar_sizes = xcalloc(1, sizeof(uint64_t));
    d->bar_sizes[0] = 8 * GIB;
    d->n_bar_sizes = 1;
    f.driver.module_present = true;
    rd_drm_device *drm = ARRAY_APPEND(f.drm.devices, f.drm.n_devices);
    drm->pci_address = xstrdup("0000:05:00.0");
    drm->vram_total = 8 * GIB;
    f.kfd.present = true;
    add_cpu_node(&f);
    add_kmsg(&f, 4, "kfd kfd: amdgpu: skipped device 1002:67df, PCI rejects atomics 730<0");

    result r;
    assess(&f, &r);
    /* and not driver.kfd-unsupported: the atomics finding is the reason */
    assert_ids(&r.fs, "pcie.atomics-missing");
    const rd_finding *fd = get(&r.fs, "pcie.atomics-missing");
    if (fd) {
        g_assert_cmpint(fd->severity, ==, RD_SEV_ERROR);
        g_assert_cmpstr(fd->gpu, ==, "0000:05:00.0");
        g_assert_cmpstr(fd->summary, ==,
                        "0000:05:00.0 Radeon RX 580 Series is not usable by ROCm: its PCIe path does not support "
                        "AtomicOps");
        assert_n_evidence(fd, 4);
        assert_evidence(fd, 0, "kernel: kfd kfd: amdgpu: skipped device 1002:67df, PCI rejects atomics 730<0");
        assert_evidence(fd, 1, "0000:04:04.0 (1022:43c7) on the path: AtomicOpsCap Routing-");
        assert_evidence(fd, 2, "0000:05:00.0: AtomicOpsCtl ReqEn-");
        assert_evidence(fd, 3, "gfx803 always needs PCIe atomics");
        g_assert_true(g_str_has_prefix(fd->remedy, "There is no software fix"));
        g_assert_null(fd->fix);
    }
    g_assert_cmpint(rd_findings_exit_status(&r.fs), ==, RD_EXIT_ERROR);
    result_free(&r);

    /* the same path with routing switches and no log line: KFD skipped it for another reason */
    f.pci.devices[1].atomic_routing = f.pci.devices[2].atomic_routing = true;
    free(f.driver.kmsg[0].text);
    f.driver.kmsg[0].text = xstrdup("kfd kfd: amdgpu: 67df not supported in kfd");
    assess(&f, &r);
    assert_ids(&r.fs, "driver.kfd-unsupported");
    result_free(&r);
    rd_facts_free(&f);
}

static void test_link(void)
{
    rd_facts f;
    navi31_host(&f, HEALTHY);
    /* idle GPUs drop their speed: 2.5 of 16 GT/s at full width is fine */
    set_link(find_pci(&f, NAVI31_UPSTREAM), 2.5, 16, 16.0, 16);
    set_link(find_pci(&f, NAVI31), 2.5, 16, 16.0, 16);
    result r;
    assess(&f, &r);
    assert_ids(&r.fs, "");
    result_free(&r);

    /* x4 of x16 at the slot, in a x16 root port */
    set_link(find_pci(&f, NAVI31_UPSTREAM), 16.0, 4, 16.0, 16);
    assess(&f, &r);
    assert_ids(&r.fs, "pcie.link-degraded");
    const rd_finding *fd = get(&r.fs, "pcie.link-degraded");
    if (fd) {
        g_assert_cmpint(fd->severity, ==, RD_SEV_WARNING);
        g_assert_cmpstr(fd->gpu, ==, NAVI31);
        g_assert_cmpstr(fd->summary, ==, NAVI31 " " NAVI31_NAME " runs its PCIe link at x4 of x16");
        assert_n_evidence(fd, 1);
        assert_evidence(fd, 0, NAVI31_UPSTREAM ": link x4 of x16, 16.0 GT/s of 16.0 GT/s");
        g_assert_true(g_str_has_prefix(fd->remedy, "Reseat the card"));
    }
    g_assert_cmpint(rd_findings_exit_status(&r.fs), ==, RD_EXIT_WARNING);
    result_free(&r);

    /* a slot wired x4 */
    set_link(find_pci(&f, ROOT_PORT), 16.0, 4, 16.0, 4);
    assess(&f, &r);
    assert_ids(&r.fs, "pcie.link-degraded");
    fd = get(&r.fs, "pcie.link-degraded");
    assert_n_evidence(fd, 2);
    assert_evidence(fd, 1, ROOT_PORT " (the slot's port): at most x4");
    if (fd)
        g_assert_true(g_str_has_prefix(fd->remedy, "The slot itself is wired x4: move the card to a full x16 slot"));
    result_free(&r);

    /* the endpoint's internal link does not count when a switch carries the slot */
    set_link(find_pci(&f, ROOT_PORT), 16.0, 16, 16.0, 16);
    set_link(find_pci(&f, NAVI31_UPSTREAM), 16.0, 16, 16.0, 16);
    set_link(find_pci(&f, NAVI31), 16.0, 1, 16.0, 16);
    assess(&f, &r);
    assert_ids(&r.fs, "");
    result_free(&r);
    rd_facts_free(&f);
}

static void test_bar_small(void)
{
    rd_facts f;
    navi31_host(&f, HEALTHY);
    rd_pci_device *gpu = find_pci(&f, NAVI31);
    gpu->bar_sizes[0] = 256 * MIB;
    gpu->resizable_bar = false;
    f.drm.devices[0].vram_total = 16 * GIB;
    /* a consumer board without Resizable BAR: normal, ROCm copes */
    result r;
    assess(&f, &r);
    assert_ids(&r.fs, "");
    result_free(&r);

    /* the kernel could not place the large BAR */
    add_kmsg(&f, 3, "pci 0000:03:00.0: BAR 0: no space for [mem size 0x400000000 64bit pref]");
    add_kmsg(&f, 3, "pci 0000:03:00.0: BAR 0: failed to assign [mem size 0x400000000 64bit pref]");
    assess(&f, &r);
    assert_ids(&r.fs, "pcie.bar-small");
    const rd_finding *fd = get(&r.fs, "pcie.bar-small");
    if (fd) {
        g_assert_cmpint(fd->severity, ==, RD_SEV_WARNING);
        g_assert_cmpstr(fd->gpu, ==, NAVI31);
        g_assert_cmpstr(fd->summary, ==, NAVI31 " " NAVI31_NAME ": the CPU can map only 256 MiB of its 16384 MiB VRAM");
        assert_n_evidence(fd, 2);
        assert_evidence(fd, 0, NAVI31 ": largest memory BAR 256 MiB, VRAM 16384 MiB");
        assert_evidence(fd, 1, "kernel: pci 0000:03:00.0: BAR 0: no space for [mem size 0x400000000 64bit pref]");
        g_assert_true(g_str_has_prefix(fd->remedy, "Enable \"Above 4G Decoding\""));
    }
    g_assert_cmpint(rd_findings_exit_status(&r.fs), ==, RD_EXIT_WARNING);
    result_free(&r);

    /* a log line about another device does not count */
    free(f.driver.kmsg[0].text);
    f.driver.kmsg[0].text = xstrdup("pci 0000:04:00.0: BAR 0: no space for [mem size 0x400000000 64bit pref]");
    free(f.driver.kmsg[1].text);
    f.driver.kmsg[1].text = xstrdup("pci 0000:04:00.0: BAR 0: failed to assign [mem size 0x400000000 64bit pref]");
    assess(&f, &r);
    assert_ids(&r.fs, "");
    result_free(&r);

    /* Instinct parts expect their whole memory mapped, log or not */
    for (size_t i = 0; i < f.kfd.nodes[1].n_properties; i++)
        if (streq(f.kfd.nodes[1].properties[i].key, "gfx_target_version"))
            f.kfd.nodes[1].properties[i].value = 90010;
    gpu->resizable_bar = true;
    assess(&f, &r);
    assert_ids(&r.fs, "pcie.bar-small");
    fd = get(&r.fs, "pcie.bar-small");
    assert_n_evidence(fd, 1);
    assert_evidence(fd, 0, NAVI31 ": largest memory BAR 256 MiB, VRAM 16384 MiB, Resizable BAR capability present");
    result_free(&r);

    /* a BAR as large as VRAM */
    gpu->bar_sizes[0] = 16 * GIB;
    assess(&f, &r);
    assert_ids(&r.fs, "");
    result_free(&r);
    rd_facts_free(&f);
}

static void set_user_groups(rd_facts *f, const int64_t *groups, size_t n)
{
    rd_user_facts *u = &f->access.users[0];
    free(u->groups);
    u->groups = gid_list(n, groups);
    u->n_groups = n;
}

static void test_no_access(void)
{
    rd_facts f;
    navi31_host(&f, HEALTHY);
    const int64_t groups[] = { 1000, VIDEO_GID };
    set_user_groups(&f, groups, G_N_ELEMENTS(groups));
    result r;
    assess(&f, &r);
    assert_ids(&r.fs, "kfd.no-access render.no-access");
    const rd_finding *k = get(&r.fs, "kfd.no-access");
    if (k) {
        g_assert_cmpint(k->severity, ==, RD_SEV_ERROR);
        g_assert_cmpstr(k->summary, ==, "alice cannot open /dev/kfd read-write");
        assert_n_evidence(k, 2);
        assert_evidence(k, 0, "/dev/kfd: mode 0660, owner uid 0, group render");
        assert_evidence(k, 1, "alice (uid 1000, --user) is not in group render");
        g_assert_cmpstr(k->remedy, ==, "sudo usermod -aG render,video alice, then log out and back in.");
        g_assert_cmpstr(k->fix, ==, "group");
    }
    const rd_finding *rn = get(&r.fs, "render.no-access");
    if (rn) {
        g_assert_cmpstr(rn->summary, ==, "alice cannot open the GPU render nodes read-write");
        assert_evidence(rn, 0, "/dev/dri/renderD128: mode 0660, owner uid 0, group render");
        g_assert_cmpstr(rn->remedy, ==, "sudo usermod -aG render,video alice, then log out and back in.");
    }
    g_assert_cmpint(rd_findings_exit_status(&r.fs), ==, RD_EXIT_ERROR);
    result_free(&r);
    rd_facts_free(&f);

    /* root-only nodes: a udev rule, not a group */
    navi31_host(&f, HEALTHY);
    for (size_t i = 0; i < f.access.n_nodes; i++) {
        f.access.nodes[i].mode = 0600;
        f.access.nodes[i].gid = 0;
        free(f.access.nodes[i].group);
        f.access.nodes[i].group = xstrdup("root");
    }
    assess(&f, &r);
    assert_ids(&r.fs, "kfd.no-access render.no-access");
    k = get(&r.fs, "kfd.no-access");
    if (k) {
        g_assert_true(g_str_has_prefix(k->remedy, "The node belongs to root only"));
        g_assert_cmpstr(k->fix, ==, "udev");
    }
    result_free(&r);
    rd_facts_free(&f);
}

static void test_relogin_needed(void)
{
    rd_facts f;
    navi31_host(&f, HEALTHY);
    rd_user_facts *u = &f.access.users[0];
    u->session_known = true;
    const int64_t session[] = { 1000, VIDEO_GID };
    u->session_groups = gid_list(G_N_ELEMENTS(session), session);
    u->n_session_groups = G_N_ELEMENTS(session);
    result r;
    assess(&f, &r);
    assert_ids(&r.fs, "group.relogin-needed");
    const rd_finding *fd = get(&r.fs, "group.relogin-needed");
    if (fd) {
        g_assert_cmpint(fd->severity, ==, RD_SEV_WARNING);
        g_assert_cmpstr(fd->summary, ==, "alice is in the GPU group now, but this login session predates it");
        assert_n_evidence(fd, 3);
        assert_evidence(fd, 0, "/dev/kfd: mode 0660, owner uid 0, group render");
        assert_evidence(fd, 1, "/dev/dri/renderD128: mode 0660, owner uid 0, group render");
        assert_evidence(fd, 2, "group database: yes; this session's groups: no");
        assert_contains(fd->remedy, "`newgrp render`");
    }
    g_assert_cmpint(rd_findings_exit_status(&r.fs), ==, RD_EXIT_WARNING);
    result_free(&r);
    rd_facts_free(&f);
}

static void add_acl(rd_dev_node *n, const char *tag, int64_t id, int64_t perm)
{
    rd_acl_entry *e = ARRAY_APPEND(n->acl, n->n_acl);
    e->tag = xstrdup(tag);
    e->id = id;
    e->perm = perm;
}

/* The node's fields in the evidence and in the report's access.nodes[]. */
static void test_access_acl_fields(void)
{
    rd_facts f;
    navi31_host(&f, HEALTHY);
    rd_dev_node *kfd = &f.access.nodes[0];
    g_assert_cmpstr(kfd->path, ==, "/dev/kfd");
    add_acl(kfd, "user_obj", -1, 6);
    add_acl(kfd, "user", 1001, 6);
    add_acl(kfd, "group_obj", -1, 6);
    add_acl(kfd, "mask", -1, 6);
    add_acl(kfd, "other", -1, 0);
    const int64_t groups[] = { 1000 };
    set_user_groups(&f, groups, 1);
    result r;
    assess(&f, &r);
    const rd_finding *fd = get(&r.fs, "kfd.no-access");
    g_assert_nonnull(fd);
    assert_evidence(fd, 0,
                    "/dev/kfd: mode 0660, owner uid 0, group render, "
                    "ACL user::rw-,user:1001:rw-,group::rw-,mask::rw-,other::---");

    json_object *j = rd_report_json(&f, &r.view, &r.fs, 1);
    json_object *nodes = json_object_object_get(json_object_object_get(j, "access"), "nodes");
    g_assert_cmpuint(json_object_array_length(nodes), ==, f.access.n_nodes);
    g_assert_cmpstr(
        json_object_to_json_string_ext(json_object_array_get_idx(nodes, 0),
                                       JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE),
        ==,
        "{\"path\":\"/dev/kfd\",\"role\":\"kfd\",\"exists\":true,\"mode\":\"0660\",\"uid\":0,\"gid\":992,"
        "\"group\":\"render\",\"acl\":[{\"tag\":\"user_obj\",\"id\":null,\"perm\":\"rw-\"},"
        "{\"tag\":\"user\",\"id\":1001,\"perm\":\"rw-\"},{\"tag\":\"group_obj\",\"id\":null,\"perm\":\"rw-\"},"
        "{\"tag\":\"mask\",\"id\":null,\"perm\":\"rw-\"},{\"tag\":\"other\",\"id\":null,\"perm\":\"---\"}],"
        "\"error\":null}");
    json_object_put(j);
    result_free(&r);
    rd_facts_free(&f);
}

/* rd_finding_free leaves a zeroed finding that can be freed again. */
static void test_finding_free(void)
{
    rd_findings fs = { 0 };
    rd_finding *f = rd_finding_add(&fs, "kfd.missing", RD_SEV_ERROR, "0000:03:00.0", "no %s", "kfd");
    rd_finding_evidence(f, "/dev/kfd: absent");
    rd_finding_remedy(f, "load amdgpu");
    rd_finding_set_fix(f, "modprobe");
    rd_finding_free(f);
    g_assert_null(f->id);
    g_assert_null(f->summary);
    g_assert_null(f->evidence);
    g_assert_null(f->remedy);
    g_assert_null(f->fix);
    g_assert_null(f->gpu);
    rd_findings_free(&fs);
    g_assert_cmpuint(fs.n, ==, 0);
}

static void test_world_writable(void)
{
    rd_facts f;
    navi31_host(&f, HEALTHY);
    for (size_t i = 0; i < f.access.n_nodes; i++)
        f.access.nodes[i].mode = 0666;
    const int64_t groups[] = { 1000 };
    set_user_groups(&f, groups, 1);
    result r;
    assess(&f, &r);
    assert_ids(&r.fs, "access.world-writable");
    const rd_finding *fd = get(&r.fs, "access.world-writable");
    if (fd) {
        g_assert_cmpint(fd->severity, ==, RD_SEV_INFO);
        assert_n_evidence(fd, 2);
        assert_evidence(fd, 0, "/dev/kfd: mode 0666, owner uid 0, group render");
        assert_evidence(fd, 1, "/dev/dri/renderD128: mode 0666, owner uid 0, group render");
    }
    /* information only */
    g_assert_cmpint(rd_findings_exit_status(&r.fs), ==, RD_EXIT_OK);
    result_free(&r);
    rd_facts_free(&f);
}

static void test_firmware_missing(void)
{
    rd_facts f;
    navi31_host(&f, WITH_ACCESS);
    f.driver.module_present = true;
    f.driver.initstate = xstrdup("live");
    free(f.os.id);
    f.os.id = xstrdup("debian");
    free(f.os.version_id);
    f.os.version_id = xstrdup("12");
    add_kmsg(&f, 6, "[drm] amdgpu kernel modesetting enabled.");
    add_kmsg(&f, 3, "amdgpu 0000:03:00.0: Direct firmware load for amdgpu/gc_11_0_0_pfp.bin failed with error -2");
    add_kmsg(&f, 3, "amdgpu 0000:03:00.0: amdgpu: Fatal error during GPU init");
    result r;
    assess(&f, &r);
    assert_ids(&r.fs, "gpu.no-driver driver.firmware-missing");
    const rd_finding *fw = get(&r.fs, "driver.firmware-missing");
    if (fw) {
        g_assert_cmpint(fw->severity, ==, RD_SEV_ERROR);
        assert_n_evidence(fw, 2);
        assert_evidence(fw, 0,
                        "kernel: amdgpu 0000:03:00.0: Direct firmware load for amdgpu/gc_11_0_0_pfp.bin failed "
                        "with error -2");
        assert_evidence(fw, 1, "kernel: amdgpu 0000:03:00.0: amdgpu: Fatal error during GPU init");
        assert_contains(fw->remedy, "`sudo apt install firmware-amd-graphics`");
    }
    const rd_finding *nd = get(&r.fs, "gpu.no-driver");
    if (nd) {
        assert_n_evidence(nd, 3);
        assert_evidence(nd, 0, "/sys/bus/pci/devices/0000:03:00.0/driver: absent");
    }
    g_assert_cmpint(rd_findings_exit_status(&r.fs), ==, RD_EXIT_ERROR);
    result_free(&r);

    /* Ubuntu gets linux-firmware */
    free(f.os.id);
    f.os.id = xstrdup("ubuntu");
    free(f.os.version_id);
    f.os.version_id = xstrdup("24.04");
    assess(&f, &r);
    fw = get(&r.fs, "driver.firmware-missing");
    if (fw)
        assert_contains(fw->remedy, "`sudo apt install linux-firmware`");
    result_free(&r);
    rd_facts_free(&f);
}

static void test_sorted_by_severity(void)
{
    /* warning (blacklist) is found before the error (access), reported after it */
    rd_facts f;
    navi31_host(&f, HEALTHY);
    add_modprobe(&f, "/etc/modprobe.d/blacklist.conf", 1, "blacklist", "amdgpu", "");
    for (size_t i = 0; i < f.access.n_nodes; i++)
        f.access.nodes[i].mode = 0666;
    f.access.nodes[1].mode = 0660;
    const int64_t groups[] = { 1000 };
    set_user_groups(&f, groups, 1);
    result r;
    assess(&f, &r);
    assert_ids(&r.fs, "render.no-access driver.blacklisted access.world-writable");
    g_assert_cmpint(rd_findings_exit_status(&r.fs), ==, RD_EXIT_ERROR);
    result_free(&r);
    rd_facts_free(&f);
}

static void test_exit_status(void)
{
    rd_findings fs = { 0 };
    g_assert_cmpint(rd_findings_exit_status(&fs), ==, RD_EXIT_OK);
    rd_finding_add(&fs, "a.info", RD_SEV_INFO, NULL, "info");
    g_assert_cmpint(rd_findings_exit_status(&fs), ==, RD_EXIT_OK);
    rd_finding_add(&fs, "b.warning", RD_SEV_WARNING, NULL, "warning");
    g_assert_cmpint(rd_findings_exit_status(&fs), ==, RD_EXIT_WARNING);
    rd_finding_add(&fs, "c.error", RD_SEV_ERROR, "0000:03:00.0", "error %d", 1);
    g_assert_cmpint(rd_findings_exit_status(&fs), ==, RD_EXIT_ERROR);
    rd_finding_add(&fs, "d.warning", RD_SEV_WARNING, NULL, "warning");
    rd_findings_sort(&fs);
    assert_ids(&fs, "c.error b.warning d.warning a.info");
    g_assert_cmpstr(fs.items[0].summary, ==, "error 1");
    g_assert_cmpstr(fs.items[0].gpu, ==, "0000:03:00.0");
    rd_findings_free(&fs);
    g_assert_cmpuint(fs.n, ==, 0);
}

/* ---- remedies in the host's own terms, per distribution family ---- */

typedef struct {
    const char *id, *id_like, *version_id;
    const char *firmware; /* in driver.firmware-missing's remedy */
    const char *cmdline;  /* in driver.nomodeset's remedy */
    const char *kernel;   /* in driver.kfd-unsupported's remedy */
    const char *const forbidden[12];
} distro_case;

/* clang-format off */
static const distro_case distro_cases[] = {
    { "debian", NULL, "12", "`sudo apt install firmware-amd-graphics`", "`sudo update-grub`", "backports",
      { "dnf", "zypper", "dracut", "grubby", "hwe", "grub2-mkconfig", NULL } },
    { "ubuntu", "debian", "22.04", "`sudo apt install linux-firmware`", "`sudo update-grub`",
      "linux-generic-hwe-22.04", { "dnf", "zypper", "dracut", "grubby", "grub2-mkconfig", "firmware-amd-graphics", NULL } },
    { "fedora", NULL, "41", "`sudo dnf install amd-gpu-firmware`", "grubby --update-kernel=ALL --remove-args",
      "`sudo dnf upgrade kernel`", { "apt ", "apt-", "zypper", "update-initramfs", "update-grub", "hwe", NULL } },
    { "rocky", "rhel centos fedora", "9.4", "`sudo dnf install linux-firmware`",
      "grubby --update-kernel=ALL --remove-args", "rhel 9.4 with kernel 5.14",
      { "apt ", "apt-", "zypper", "update-initramfs", "update-grub", "hwe", NULL } },
    { "sles", NULL, "15.6", "`sudo zypper install kernel-firmware-amdgpu`", "grub2-mkconfig", "sles 15.7",
      { "apt ", "apt-", "dnf", "update-initramfs", "update-grub", "hwe", "grubby", NULL } },
    { "nixos", NULL, "24.05", "/lib/firmware/amdgpu/navy_flounder_sos.bin", "boot loader's configuration",
      "a newer kernel the way this distribution provides one",
      { "apt ", "apt-", "dnf", "zypper", "update-initramfs", "update-grub", "hwe", "dracut", "grubby", NULL } },
};
/* clang-format on */

static void set_os(rd_facts *f, const distro_case *c)
{
    free(f->os.id);
    free(f->os.id_like);
    free(f->os.version_id);
    f->os.id = xstrdup(c->id);
    f->os.id_like = xstrdup_or_null(c->id_like);
    f->os.version_id = xstrdup(c->version_id);
}

static void assert_remedies_fit(const rd_findings *fs, const distro_case *c)
{
    for (size_t i = 0; i < fs->n; i++)
        for (size_t k = 0; c->forbidden[k]; k++)
            if (fs->items[i].remedy && strstr(fs->items[i].remedy, c->forbidden[k])) {
                g_test_message("%s on %s: \"%s\" names %s", fs->items[i].id, c->id, fs->items[i].remedy,
                               c->forbidden[k]);
                g_test_fail();
            }
}

static void test_remedies_per_distro(void)
{
    for (size_t i = 0; i < ELEMENTSOF(distro_cases); i++) {
        const distro_case *c = &distro_cases[i];
        result r;
        /* missing firmware (the NixOS report: navy_flounder_sos.bin) */
        rd_facts f;
        navi31_host(&f, WITH_ACCESS);
        set_os(&f, c);
        f.driver.module_present = true;
        f.driver.initstate = xstrdup("live");
        add_kmsg(&f, 3,
                 "amdgpu 0000:03:00.0: Direct firmware load for amdgpu/navy_flounder_sos.bin failed with error -2");
        add_modprobe(&f, "/etc/modprobe.d/blacklist-amdgpu.conf", 1, "blacklist", "amdgpu", "");
        free(f.driver.cmdline);
        f.driver.cmdline = xstrdup("BOOT_IMAGE=/vmlinuz ro quiet nomodeset");
        assess(&f, &r);
        const rd_finding *fw = get(&r.fs, "driver.firmware-missing");
        if (fw)
            assert_contains(fw->remedy, c->firmware);
        const rd_finding *nm = get(&r.fs, "driver.nomodeset");
        if (nm)
            assert_contains(nm->remedy, c->cmdline);
        const rd_finding *bl = get(&r.fs, "driver.blacklisted");
        if (bl)
            g_assert_cmpstr(bl->fix, ==, streq(c->id, "debian") || streq(c->id, "ubuntu") ? "modprobe" : NULL);
        assert_remedies_fit(&r.fs, c);
        result_free(&r);
        rd_facts_free(&f);

        /* a kernel whose KFD does not know the GPU */
        navi31_host(&f, WITH_DRIVER | WITH_ACCESS);
        set_os(&f, c);
        f.kfd.present = true;
        add_cpu_node(&f);
        assess(&f, &r);
        const rd_finding *ku = get(&r.fs, "driver.kfd-unsupported");
        g_assert_nonnull(ku);
        if (ku)
            assert_contains(ku->remedy, c->kernel);
        assert_remedies_fit(&r.fs, c);
        result_free(&r);
        rd_facts_free(&f);

        /* no ROCm runtime at level 2 */
        navi31_host(&f, HEALTHY);
        set_os(&f, c);
        f.runtime.ran = true;
        f.runtime.hsa_load_error = xstrdup("libhsa-runtime64.so.1: cannot open shared object file");
        assess(&f, &r);
        assert_remedies_fit(&r.fs, c);
        g_assert_true(rd_findings_has(&r.fs, "runtime.hsa-missing"));
        result_free(&r);
        rd_facts_free(&f);
    }
}

/* The HD 8790M of the Fedora report: Oland (gfx602, SI) on amdgpu. No KFD
 * supports SI: say so, with no kernel or package advice, and nothing else. */
static void test_si_never_rocm(void)
{
    rd_facts f;
    rd_facts_init(&f);
    f.os.id = xstrdup("fedora");
    f.os.version_id = xstrdup("41");
    rd_pci_device *rp = add_port(&f, ROOT_PORT, 0x8086, 0x1901, 4, NULL);
    set_link(rp, 8.0, 8, 8.0, 16);
    rd_pci_device *d = add_pci(&f, "0000:01:00.0", 0x1002, 0x6606, 0x038000, ROOT_PORT);
    d->driver = xstrdup("amdgpu");
    d->caps_readable = true;
    d->pcie_type = 0;
    f.driver.module_present = true;
    f.kfd.present = true;
    add_cpu_node(&f);
    add_kmsg(&f, 6, "kfd kfd: amdgpu: OLAND  not supported in kfd");
    result r;
    assess(&f, &r);
    assert_ids(&r.fs, "driver.kfd-unsupported os.not-validated");
    const rd_finding *fd = get(&r.fs, "driver.kfd-unsupported");
    if (fd) {
        assert_contains(fd->summary, "cannot run ROCm");
        assert_contains(fd->remedy, "Vulkan");
        assert_contains(fd->remedy, "gfx1100");
        g_assert_null(strstr(fd->remedy, "hwe"));
        g_assert_null(strstr(fd->remedy, "kernel ("));
        assert_contains(fd->evidence[1], "OLAND  not supported in kfd");
    }
    result_free(&r);
    rd_facts_free(&f);
}

static void test_os_family(void)
{
    /* clang-format off */
    static const struct {
        const char *id, *like;
        rd_os_family want;
    } cases[] = {
        { "debian", NULL, RD_OS_DEBIAN },           { "ubuntu", "debian", RD_OS_DEBIAN },
        { "linuxmint", "ubuntu debian", RD_OS_DEBIAN }, { "pop", "ubuntu debian", RD_OS_DEBIAN },
        { "rhel", "fedora", RD_OS_RHEL },           { "rocky", "rhel centos fedora", RD_OS_RHEL },
        { "almalinux", "rhel centos fedora", RD_OS_RHEL }, { "ol", "fedora", RD_OS_RHEL },
        { "centos", "rhel fedora", RD_OS_RHEL },    { "fedora", NULL, RD_OS_FEDORA },
        { "nobara", "fedora", RD_OS_FEDORA },       { "sles", "suse", RD_OS_SUSE },
        { "opensuse-leap", "suse opensuse", RD_OS_SUSE }, { "opensuse-tumbleweed", "opensuse suse", RD_OS_SUSE },
        { "nixos", NULL, RD_OS_UNKNOWN },           { "arch", NULL, RD_OS_UNKNOWN },
        { NULL, NULL, RD_OS_UNKNOWN },
    };
    /* clang-format on */
    for (size_t i = 0; i < ELEMENTSOF(cases); i++)
        g_assert_cmpstr(rd_os_family_name(rd_os_family_of(cases[i].id, cases[i].like)), ==,
                        rd_os_family_name(cases[i].want));
}

/* A release the table does not list: info, with the nearest listed one. */
static void test_os_not_validated(void)
{
    rd_facts f;
    navi31_host(&f, HEALTHY);
    free(f.os.id);
    free(f.os.version_id);
    f.os.id = xstrdup("debian");
    f.os.version_id = xstrdup("11");
    result r;
    assess(&f, &r);
    assert_ids(&r.fs, "os.not-validated");
    const rd_finding *fd = get(&r.fs, "os.not-validated");
    if (fd) {
        g_assert_cmpint(fd->severity, ==, RD_SEV_INFO);
        assert_contains(fd->remedy, "debian 12 (kernels 6.1)");
    }
    result_free(&r);
    /* Rocky against RHEL */
    free(f.os.id);
    free(f.os.version_id);
    f.os.id = xstrdup("rocky");
    f.os.id_like = xstrdup("rhel centos fedora");
    f.os.version_id = xstrdup("9.5");
    assess(&f, &r);
    fd = get(&r.fs, "os.not-validated");
    if (fd)
        assert_contains(fd->remedy, "rhel 9.");
    result_free(&r);
    /* a listed one: silent */
    free(f.os.id);
    free(f.os.version_id);
    f.os.id = xstrdup("ubuntu");
    f.os.version_id = xstrdup("24.04");
    assess(&f, &r);
    assert_ids(&r.fs, "");
    result_free(&r);
    rd_facts_free(&f);
}

/* Every gfx target with a family has its override value or an explicit
 * "none" in archs.ini; RDNA2 APUs borrow gfx1030's code like RX 6700 XT. */
static void test_archs_overrides(void)
{
    g_assert_cmpuint(knowledge.n_archs, >=, 40);
    for (size_t i = 0; i < knowledge.n_archs; i++) {
        const rd_arch *a = &knowledge.archs[i];
        if (!a->family)
            continue;
        if (!a->override_known)
            g_test_message("[%s] (family %s) has no override key", a->gfx, a->family);
        g_assert_true(a->override_known);
        if (a->override) {
            /* the value names a target of the same family */
            unsigned ma, mi, st;
            g_assert_cmpint(sscanf(a->override, "%u.%u.%u", &ma, &mi, &st), ==, 3);
            char gfx[16];
            g_assert_true(rd_gfx_name((uint64_t)ma * 10000 + mi * 100 + st, gfx, sizeof gfx));
            const rd_arch *target = rd_knowledge_arch(&knowledge, gfx);
            g_assert_nonnull(target);
            if (target)
                g_assert_cmpstr(target->family, ==, a->family);
        }
    }
    const char *rdna2[] = { "gfx1031", "gfx1032", "gfx1033", "gfx1034", "gfx1035", "gfx1036", "gfx1037" };
    for (size_t i = 0; i < ELEMENTSOF(rdna2); i++) {
        const rd_arch *a = rd_knowledge_arch(&knowledge, rdna2[i]);
        g_assert_nonnull(a);
        if (a)
            g_assert_cmpstr(a->override, ==, "10.3.0");
    }
    const char *never[] = { "gfx600", "gfx601", "gfx602", "gfx703", "gfx704" };
    for (size_t i = 0; i < ELEMENTSOF(never); i++)
        g_assert_true(rd_knowledge_arch(&knowledge, never[i])->no_kfd);
    g_assert_false(rd_knowledge_arch(&knowledge, "gfx701")->no_kfd);
    g_assert_false(rd_knowledge_arch(&knowledge, "gfx700")->no_kfd);
}

/* The assess order honours what each probe declares it reads. */
static void test_probe_order(void)
{
    g_autofree char *err = NULL;
    g_assert_cmpint(rd_probe_table_check(&rd_probe_registry, &err), ==, 0);
    /* runtime first: its causes come after it */
    const rd_probe *order[32];
    size_t n = 0;
    for (size_t i = 0; i < rd_probe_registry.n_assess; i++)
        if (!streq(rd_probe_registry.assess[i]->id, "runtime"))
            order[n++] = rd_probe_registry.assess[i];
    memmove(order + 1, order, n * sizeof(order[0]));
    for (size_t i = 0; i < rd_probe_registry.n_assess; i++)
        if (streq(rd_probe_registry.assess[i]->id, "runtime"))
            order[0] = rd_probe_registry.assess[i];
    rd_probe_table bad = { rd_probe_registry.gather, rd_probe_registry.n_gather, order, n + 1 };
    g_autofree char *err2 = NULL;
    g_assert_cmpint(rd_probe_table_check(&bad, &err2), ==, -EINVAL);
    assert_contains(err2, "probe runtime reads");
}

/* The GPU's own switch, known by its shape: trees as in the corpus's
 * lspci dumps (X570 chipset switch, PLX switch, Navi and Vega 10 cards). */
static void test_board_switch(void)
{
    rd_facts f;
    rd_facts_init(&f);
    /* Vega 64 on an x1 riser: 1022:1470 -> 1022:1471 -> 1002:687f (add all
     * first: adding moves the array) */
    add_port(&f, "0000:00:1c.0", 0x8086, 0xa2b8, 4, NULL);
    add_port(&f, "0000:01:00.0", 0x1022, 0x1470, 5, "0000:00:1c.0");
    add_port(&f, "0000:02:00.0", 0x1022, 0x1471, 6, "0000:01:00.0");
    add_pci(&f, "0000:03:00.0", 0x1002, 0x687f, 0x030000, "0000:02:00.0");
    rd_pci_device *up = find_pci(&f, "0000:01:00.0"), *down = find_pci(&f, "0000:02:00.0");
    const rd_pci_device *vega = find_pci(&f, "0000:03:00.0");
    set_link(up, 2.5, 1, 8.0, 16);
    up->children = strv_push(NULL, xstrdup("0000:02:00.0"));
    down->children = strv_push(strv_push(NULL, xstrdup("0000:03:00.0")), xstrdup("0000:03:00.1"));
    g_assert_true(rd_gpu_board_switch(&f, vega) == up);
    /* X570: the chipset's 1022 upstream port has several downstream ports */
    up->children = strv_push(up->children, xstrdup("0000:02:02.0"));
    g_assert_null(rd_gpu_board_switch(&f, vega));
    /* ... or a downstream port with another device below */
    up->children[1] = (free(up->children[1]), NULL);
    down->children = strv_push(down->children, xstrdup("0000:03:01.0"));
    g_assert_null(rd_gpu_board_switch(&f, vega));
    /* a PLX switch (0x10b5) is never the card's */
    free(down->children[2]);
    down->children[2] = NULL;
    up->vendor_id = down->vendor_id = 0x10b5;
    g_assert_null(rd_gpu_board_switch(&f, vega));
    /* facts without the children lists: the GPU vendor's own ids only */
    up->vendor_id = down->vendor_id = 0x1022;
    strv_free(up->children);
    strv_free(down->children);
    up->children = down->children = NULL;
    g_assert_null(rd_gpu_board_switch(&f, vega));
    up->vendor_id = down->vendor_id = 0x1002;
    g_assert_true(rd_gpu_board_switch(&f, vega) == up);
    rd_facts_free(&f);
}

static const rd_test_case tests[] = {
    { "/assess/gpu/none", test_no_display_device },
    { "/assess/gpu/nvidia-only", test_nvidia_only },
    { "/assess/gpu/container-without-gpu", test_container_without_gpu },
    { "/assess/os/wsl", test_wsl },
    { "/assess/healthy", test_healthy },
    { "/assess/gpu/mi300x-partitions", test_mi300x_partitions },
    { "/assess/driver/blacklisted-not-loaded", test_blacklisted_not_loaded },
    { "/assess/driver/blacklisted-install-false", test_blacklisted_install_false },
    { "/assess/driver/blacklisted-loaded", test_blacklisted_loaded },
    { "/assess/driver/blacklisted-cmdline", test_blacklisted_cmdline },
    { "/assess/driver/nomodeset", test_nomodeset },
    { "/assess/gpu/radeon-bound-si", test_radeon_bound_si },
    { "/assess/gpu/vfio-bound", test_vfio_bound },
    { "/assess/kfd/missing", test_kfd_missing },
    { "/assess/kfd/unsupported", test_kfd_unsupported },
    { "/assess/pcie/atomics-missing", test_atomics_missing },
    { "/assess/pcie/link", test_link },
    { "/assess/pcie/bar-small", test_bar_small },
    { "/assess/access/no-access", test_no_access },
    { "/assess/access/relogin-needed", test_relogin_needed },
    { "/assess/access/world-writable", test_world_writable },
    { "/assess/access/acl-fields", test_access_acl_fields },
    { "/assess/finding-free", test_finding_free },
    { "/assess/driver/firmware-missing", test_firmware_missing },
    { "/assess/sorted-by-severity", test_sorted_by_severity },
    { "/assess/exit-status", test_exit_status },
    { "/assess/distro/remedies", test_remedies_per_distro },
    { "/assess/distro/family", test_os_family },
    { "/assess/distro/not-validated", test_os_not_validated },
    { "/assess/kfd/si-never-rocm", test_si_never_rocm },
    { "/assess/probe-order", test_probe_order },
    { "/assess/archs-overrides", test_archs_overrides },
    { "/assess/pcie/board-switch", test_board_switch },
};

RD_TEST_MAIN_KNOWLEDGE(tests, true, &knowledge)
