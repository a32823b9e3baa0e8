/* SPDX-License-Identifier: MIT */
/* The helpers of assess-lib.h. */
#include "assess-lib.h"

rd_knowledge knowledge;

/* ---- building facts ---- */

rd_pci_device *add_pci(rd_facts *f, const char *address, int64_t vendor, int64_t device, int64_t class_code,
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

rd_pci_device *add_port(rd_facts *f, const char *address, int64_t vendor, int64_t device, int type, const char *parent)
{
    rd_pci_device *d = add_pci(f, address, vendor, device, 0x060400, parent);
    d->pcie_type = type;
    d->caps_readable = true;
    return d;
}

void set_link(rd_pci_device *d, double cur_speed, int64_t cur_width, double max_speed, int64_t max_width)
{
    d->current_link_speed = cur_speed;
    d->current_link_width = cur_width;
    d->max_link_speed = max_speed;
    d->max_link_width = max_width;
}

void add_cpu_node(rd_facts *f)
{
    rd_kfd_node *n = ARRAY_APPEND(f->kfd.nodes, f->kfd.n_nodes);
    n->node_id = (int64_t)f->kfd.n_nodes - 1;
    rd_test_kv_add(n, "cpu_cores_count", 32);
    rd_test_kv_add(n, "simd_count", 0);
    rd_test_kv_add(n, "gfx_target_version", 0);
}

rd_kfd_node *add_gpu_node(rd_facts *f, uint64_t location_id, uint64_t gfx_target_version, uint64_t device_id)
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

void add_kmsg(rd_facts *f, int64_t priority, const char *text)
{
    rd_kmsg_record *k = ARRAY_APPEND(f->driver.kmsg, f->driver.n_kmsg);
    k->priority = priority;
    k->seq = f->driver.n_kmsg;
    k->text = xstrdup(text);
}

void add_modprobe(rd_facts *f, const char *file, int64_t line, const char *directive, const char *module,
                  const char *args)
{
    rd_modprobe_line *l = ARRAY_APPEND(f->driver.modprobe, f->driver.n_modprobe);
    l->file = xstrdup(file);
    l->line = line;
    l->directive = xstrdup(directive);
    l->module = xstrdup(module);
    l->args = xstrdup(args);
}

rd_dev_node *add_dev_node(rd_facts *f, const char *path, const char *role, int64_t mode, int64_t gid, const char *group)
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

int64_t *gid_list(size_t n, const int64_t *src)
{
    int64_t *v = xcalloc(n, sizeof(int64_t));
    memcpy(v, src, n * sizeof(int64_t));
    return v;
}

rd_user_facts *add_user(rd_facts *f, const char *name, int64_t uid, const int64_t *groups, size_t n_groups)
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

/* An RX 7900 XTX behind its on-board AMD switch, on a CPU root port that
 * completes AtomicOps: root port -> upstream -> downstream -> GPU. */
void navi31_host(rd_facts *f, unsigned what)
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

rd_pci_device *find_pci(rd_facts *f, const char *address)
{
    for (size_t i = 0; i < f->pci.n_devices; i++)
        if (streq(f->pci.devices[i].address, address))
            return &f->pci.devices[i];
    g_assert_not_reached();
    return NULL;
}

void set_user_groups(rd_facts *f, const int64_t *groups, size_t n)
{
    rd_user_facts *u = &f->access.users[0];
    free(u->groups);
    u->groups = gid_list(n, groups);
    u->n_groups = n;
}

/* ---- checking findings ---- */

void assess(const rd_facts *f, result *r)
{
    rd_assess(&rd_probe_registry, f, &knowledge, &r->view, &r->fs);
    /* every finding is a catalogue row, reported with at most the row's
     * severity (the ids a probe composes, dnf.* and zypper.*, too) */
    for (size_t i = 0; i < r->fs.n; i++) {
        const rd_finding_def *d = rd_finding_lookup(r->fs.items[i].id);
        if (!d)
            g_test_message("%s is not in the finding catalogue", r->fs.items[i].id);
        g_assert_nonnull(d);
        g_assert_cmpint(r->fs.items[i].severity, <=, d->severity);
    }
}

void result_free(result *r)
{
    rd_findings_free(&r->fs);
    rd_gpu_view_free(&r->view);
}

char *ids_of(const rd_findings *fs)
{
    GString *s = g_string_new(NULL);
    for (size_t i = 0; i < fs->n; i++)
        g_string_append_printf(s, "%s%s", i ? " " : "", fs->items[i].id);
    return g_string_free(s, FALSE);
}

/* The findings in order, as a space-separated list of ids. */
void assert_ids(const rd_findings *fs, const char *expected)
{
    g_autofree char *got = ids_of(fs);
    g_assert_cmpstr(got, ==, expected);
}

const rd_finding *get(const rd_findings *fs, const char *id)
{
    const rd_finding *f = rd_findings_get(fs, id);
    if (!f) {
        g_test_message("finding %s missing", id);
        g_test_fail();
    }
    return f;
}

void assert_evidence(const rd_finding *f, size_t index, const char *expected)
{
    if (!f)
        return;
    g_assert_cmpuint(strv_length(f->evidence), >, index);
    if (strv_length(f->evidence) > index)
        g_assert_cmpstr(f->evidence[index], ==, expected);
}

void assert_n_evidence(const rd_finding *f, size_t n)
{
    if (f)
        g_assert_cmpuint(strv_length(f->evidence), ==, n);
}

void assert_contains(const char *haystack, const char *needle)
{
    if (!haystack || !strstr(haystack, needle)) {
        g_test_message("\"%s\" does not contain \"%s\"", strempty(haystack), needle);
        g_test_fail();
    }
}
