/* SPDX-License-Identifier: MIT */
/* PCI: every display device and every bridge between it and the root port,
 * through libpci pinned to sysfs; link state; AtomicOps along the path. */
#include "pci.h"

#include <ctype.h>
#include <inttypes.h>
#include <fcntl.h>
#include <limits.h>
#include <setjmp.h>
#include <pci/pci.h>
#include "distro.h"
#include "probe.h"
#include "util.h"

#define PCI_VENDOR_AMD_GPU 0x1002

#define PCIE_TYPE_ENDPOINT 0
#define PCIE_TYPE_LEGACY_ENDPOINT 1
#define PCIE_TYPE_ROOT_PORT 4
#define PCIE_TYPE_UPSTREAM 5
#define PCIE_TYPE_DOWNSTREAM 6
#define PCIE_TYPE_PCIE_TO_PCI 7

static uint16_t rd16(const uint8_t *c, size_t off)
{
    return (uint16_t)(c[off] | c[off + 1] << 8);
}
static uint32_t rd32(const uint8_t *c, size_t off)
{
    return rd16(c, off) | (uint32_t)rd16(c, off + 2) << 16;
}

int rd_pci_parse_caps(const uint8_t *cfg, size_t len, rd_pcie_caps *ret)
{
    rd_pcie_caps c = { 0 };
    if (len < 64)
        return -EINVAL;
    if (rd16(cfg, 0) == 0xffff || rd16(cfg, 0) == 0)
        return -ENODEV;
    if (rd16(cfg, 0x06) & 0x10) { /* status: capabilities list */
        size_t ptr = cfg[0x34] & 0xfc;
        for (int guard = 0; ptr >= 0x40 && ptr + 2 <= len && ptr < 0x100 && guard < 48; guard++) {
            uint8_t id = cfg[ptr], next = cfg[ptr + 1] & 0xfc;
            if (id == 0x10 && !c.has_exp && ptr + 0x14 <= len) {
                uint16_t flags = rd16(cfg, ptr + 2);
                c.has_exp = true;
                c.version = flags & 0xf;
                c.type = (flags >> 4) & 0xf;
                c.lnkcap = rd32(cfg, ptr + 0x0c);
                c.lnksta = rd16(cfg, ptr + 0x12);
                if (c.version >= 2 && ptr + 0x2a <= len) {
                    c.devcap2 = rd32(cfg, ptr + 0x24);
                    c.devctl2 = rd16(cfg, ptr + 0x28);
                }
            }
            ptr = next;
        }
    }
    if (len >= 0x104) {
        size_t ptr = 0x100;
        for (int guard = 0; ptr >= 0x100 && ptr + 4 <= len && guard < 96; guard++) {
            uint32_t h = rd32(cfg, ptr);
            if (h == 0 || h == 0xffffffff)
                break;
            if ((h & 0xffff) == 0x15)
                c.resizable_bar = true;
            ptr = (h >> 20) & 0xffc;
        }
    }
    *ret = c;
    return 0;
}

double rd_parse_link_speed(const char *s)
{
    if (!s)
        return 0;
    char *end;
    double v = strtod(s, &end);
    if (end == s || !(v > 0 && v <= 1000))
        return 0;
    while (*end == ' ')
        end++;
    return startswith(end, "GT/s") ? v : 0;
}

int rd_amdgpu_ids_parse_line(const char *line, unsigned *ret_device, unsigned *ret_revision, char **ret_name)
{
    while (*line == ' ' || *line == '\t')
        line++;
    if (!*line || *line == '#' || *line == '\n')
        return 0;
    /* the version line ("1.0.0") is the only one without commas */
    if (!strchr(line, ','))
        return isdigit((unsigned char)*line) ? 0 : -EINVAL;
    unsigned dev, rev;
    int n = 0;
    if (sscanf(line, "%x ,%n", &dev, &n) != 1 || n == 0)
        return -EINVAL;
    const char *p = line + n;
    int m = 0;
    if (sscanf(p, " %x ,%n", &rev, &m) != 1 || m == 0)
        return -EINVAL;
    p += m;
    while (*p == ' ' || *p == '\t')
        p++;
    size_t len = strcspn(p, "\r\n");
    while (len > 0 && (p[len - 1] == ' ' || p[len - 1] == '\t'))
        len--;
    if (len == 0 || dev > 0xffff || rev > 0xff)
        return -EINVAL;
    *ret_device = dev;
    *ret_revision = rev;
    *ret_name = xstrndup(p, len);
    return 1;
}

typedef struct {
    unsigned device, revision;
    char *name;
} ids_lookup;

static int ids_line(char *line, void *userdata)
{
    ids_lookup *q = userdata;
    unsigned d, r;
    char *name = NULL;
    if (strlen(line) >= 256 || rd_amdgpu_ids_parse_line(line, &d, &r, &name) != 1)
        return 0;
    if (d == q->device && r == q->revision) {
        q->name = name;
        return 1;
    }
    free(name);
    return 0;
}

char *rd_amdgpu_ids_lookup(const char *text, unsigned device, unsigned revision)
{
    ids_lookup q = { device, revision, NULL };
    foreach_line(text, ids_line, &q);
    return q.name;
}

/* libpci's error hook must not return (its default exits the process). */
static jmp_buf pci_jump;
static char pci_error_msg[256];

static void __attribute__((noreturn, format(printf, 1, 2))) pci_error_hook(char *msg, ...)
{
    va_list ap;
    va_start(ap, msg);
    vsnprintf(pci_error_msg, sizeof pci_error_msg, msg, ap);
    va_end(ap);
    longjmp(pci_jump, 1);
}

static void __attribute__((format(printf, 1, 2))) pci_quiet_hook(char *msg, ...)
{
    (void)msg;
}

static char *sysfs_attr(const char *address, const char *attr)
{
    _cleanup_free_ char *path = xasprintf("/sys/bus/pci/devices/%s/%s", address, attr);
    char *v = NULL;
    if (read_line_at(AT_FDCWD, path, &v) < 0)
        return NULL;
    return v;
}

static int64_t sysfs_int(const char *address, const char *attr)
{
    _cleanup_free_ char *v = sysfs_attr(address, attr);
    int i;
    return v && safe_atoi(v, &i) == 0 ? i : 0;
}

/* Upstream PCI addresses from the sysfs path, nearest first. */
static char **pci_ancestors(const char *address)
{
    _cleanup_free_ char *link = xasprintf("/sys/bus/pci/devices/%s", address);
    char target[PATH_MAX];
    ssize_t n = readlink(link, target, sizeof target - 1);
    if (n <= 0)
        return NULL;
    target[n] = 0;
    char **up = NULL;
    char *save = NULL;
    char **all = NULL;
    for (char *tok = strtok_r(target, "/", &save); tok; tok = strtok_r(NULL, "/", &save)) {
        unsigned a, b, c, d;
        if (rd_pci_parse_address(tok, &a, &b, &c, &d))
            all = strv_push(all, xstrdup(tok));
    }
    size_t len = strv_length(all);
    for (size_t i = len >= 1 ? len - 1 : 0; i-- > 0;)
        up = strv_push(up, xstrdup(all[i]));
    strv_free(all);
    return up;
}

static bool is_pci_address(const char *name, const void *userdata)
{
    unsigned a, b, c, d;
    return rd_pci_parse_address(name, &a, &b, &c, &d);
}

/* The functions directly below a bridge: the PCI addresses among its sysfs
 * directory's entries (what the GPU's on-board switch rule needs). */
static char **pci_children(const char *address)
{
    _cleanup_free_ char *path = xasprintf("/sys/bus/pci/devices/%s", address);
    _cleanup_close_ int dfd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    int r = dfd < 0 ? -errno : 0;
    char **kids = dfd >= 0 ? dir_names(dfd, is_pci_address, NULL, &r) : NULL;
    if (r < 0)
        return NULL;
    return kids ? kids : xcalloc(1, sizeof(char *));
}

static struct pci_dev *find_dev(struct pci_access *pacc, const char *address)
{
    unsigned d, b, s, f;
    if (!rd_pci_parse_address(address, &d, &b, &s, &f))
        return NULL;
    for (struct pci_dev *p = pacc->devices; p; p = p->next)
        if ((unsigned)p->domain == d && p->bus == b && p->dev == s && p->func == f)
            return p;
    return NULL;
}

static bool hex4(const char *p, const char *end, unsigned *ret)
{
    unsigned v = 0;
    if (end - p < 4)
        return false;
    for (int i = 0; i < 4; i++) {
        int d = unhexchar(p[i]);
        if (d < 0)
            return false;
        v = v << 4 | (unsigned)d;
    }
    *ret = v;
    return true;
}

static char *id_name(const char *p, const char *eol)
{
    while (p < eol && (*p == ' ' || *p == '\t'))
        p++;
    const char *e = eol;
    while (e > p && (e[-1] == ' ' || e[-1] == '\r'))
        e--;
    return e > p ? xstrndup(p, (size_t)(e - p)) : NULL;
}

void rd_pci_ids_lookup(const char *text, size_t len, unsigned vendor, unsigned device, char **ret_vendor,
                       char **ret_device)
{
    const char *p = text, *end = text + len;
    bool in_vendor = false;
    char *vname = NULL, *dname = NULL;
    while (p < end) {
        const char *eol = memchr(p, '\n', (size_t)(end - p));
        if (!eol)
            eol = end;
        unsigned id;
        if (p[0] == 'C' && p + 1 < eol && p[1] == ' ')
            break; /* the class list follows the vendors */
        if (p[0] != '\t' && p[0] != '#' && hex4(p, eol, &id)) {
            if (in_vendor)
                break;
            if (id == vendor) {
                in_vendor = true;
                vname = id_name(p + 4, eol);
            }
        } else if (in_vendor && p[0] == '\t' && p + 1 < eol && p[1] != '\t' && hex4(p + 1, eol, &id) && id == device) {
            dname = id_name(p + 5, eol);
            break;
        }
        p = eol + 1;
    }
    *ret_vendor = vname;
    *ret_device = dname;
}

/* Display controllers, and AMD's accelerators that present themselves as
 * "processing accelerators" (class 0x12: MI300X and later). */
static bool is_gpu_class(unsigned vendor, unsigned base_class)
{
    return base_class == 0x03 || (vendor == 0x1002 && base_class == 0x12);
}

typedef struct {
    const char *amdgpu_ids;
    const char *pci_ids;
    size_t pci_ids_len;
} name_db;

/* How much of a function's config space the findings read: none for the
 * devices they only name (another vendor's GPU: its ids and class come from
 * sysfs), the first 256 bytes for the bridges above an AMD GPU (the PCI
 * Express capability: port type, AtomicOps routing and completion), and the
 * extended space for the AMD GPU itself (Resizable BAR, the evidence of
 * pcie.bar-small). Each config read may trap to the hypervisor on a VM, so
 * a 4 KiB read costs milliseconds there. */
enum {
    CFG_NONE = 0,
    CFG_STANDARD = 256,
    CFG_EXTENDED = 4096,
};

static void fill_device(struct pci_access *pacc, struct pci_dev *p, rd_pci_device *d, const name_db *names,
                        size_t cfg_bytes)
{
    pci_fill_info(p, PCI_FILL_IDENT | PCI_FILL_CLASS | PCI_FILL_SIZES | PCI_FILL_BASES | PCI_FILL_DRIVER);
    d->address = xasprintf("%04x:%02x:%02x.%x", p->domain, p->bus, p->dev, p->func);
    d->vendor_id = p->vendor_id;
    d->device_id = p->device_id;
    uint64_t v;
    _cleanup_free_ char *cls = sysfs_attr(d->address, "class");
    d->class_code = cls && safe_atou64(cls, 16, &v) == 0 ? (int64_t)v : (int64_t)p->device_class << 8;
    d->display = is_gpu_class(p->vendor_id, (unsigned)(d->class_code >> 16));
    _cleanup_free_ char *rev = sysfs_attr(d->address, "revision");
    _cleanup_free_ char *sv = sysfs_attr(d->address, "subsystem_vendor");
    _cleanup_free_ char *sd = sysfs_attr(d->address, "subsystem_device");
    d->revision = rev && safe_atou64(rev, 16, &v) == 0 ? (int64_t)v : 0;
    d->subsystem_vendor_id = sv && safe_atou64(sv, 16, &v) == 0 ? (int64_t)v : 0;
    d->subsystem_device_id = sd && safe_atou64(sd, 16, &v) == 0 ? (int64_t)v : 0;
    const char *drv = pci_get_string_property(p, PCI_FILL_DRIVER);
    d->driver = drv && *drv ? xstrdup(drv) : NULL;
    d->numa_node = -1;
    _cleanup_free_ char *numa = sysfs_attr(d->address, "numa_node");
    int numa_v;
    if (numa && safe_atoi(numa, &numa_v) == 0)
        d->numa_node = numa_v;

    if (d->display) {
        if (names->pci_ids)
            rd_pci_ids_lookup(names->pci_ids, names->pci_ids_len, p->vendor_id, p->device_id, &d->vendor_name,
                              &d->device_name);
        if (d->vendor_id == 0x1002 && names->amdgpu_ids)
            d->marketing_name = rd_amdgpu_ids_lookup(names->amdgpu_ids, (unsigned)d->device_id, (unsigned)d->revision);
        for (int i = 0; i < 6; i++)
            if (p->size[i] && !(p->base_addr[i] & PCI_BASE_ADDRESS_SPACE_IO)) {
                d->bar_sizes = xrealloc(d->bar_sizes, (d->n_bar_sizes + 1) * sizeof(uint64_t));
                d->bar_sizes[d->n_bar_sizes++] = p->size[i];
            }
    }

    uint8_t cfg[CFG_EXTENDED];
    size_t len = 0;
    /* an unprivileged read of the sysfs config file gets 64 bytes */
    static const size_t tries[] = { CFG_EXTENDED, CFG_STANDARD, 64 };
    for (size_t i = 0; i < ELEMENTSOF(tries) && !len; i++)
        if (tries[i] <= cfg_bytes && pci_read_block(p, 0, cfg, (int)tries[i]))
            len = tries[i];
    rd_pcie_caps caps;
    d->pcie_type = -1;
    d->caps_readable = len > 64;
    if (len && rd_pci_parse_caps(cfg, len, &caps) == 0 && caps.has_exp) {
        d->pcie_type = caps.type;
        d->atomic_routing = caps.devcap2 & RD_DEVCAP2_ATOMIC_ROUTE;
        d->atomic_comp32 = caps.devcap2 & RD_DEVCAP2_ATOMIC_COMP32;
        d->atomic_comp64 = caps.devcap2 & RD_DEVCAP2_ATOMIC_COMP64;
        d->atomic_comp128 = caps.devcap2 & RD_DEVCAP2_ATOMIC_COMP128;
        d->atomic_requester = caps.devctl2 & RD_DEVCTL2_ATOMIC_REQ;
        d->atomic_egress_blocking = caps.devctl2 & RD_DEVCTL2_ATOMIC_EGRESS_BLOCK;
        d->resizable_bar = caps.resizable_bar;
    }
    _cleanup_free_ char *cs = sysfs_attr(d->address, "current_link_speed");
    _cleanup_free_ char *ms = sysfs_attr(d->address, "max_link_speed");
    d->current_link_speed = rd_parse_link_speed(cs);
    d->max_link_speed = rd_parse_link_speed(ms);
    d->current_link_width = sysfs_int(d->address, "current_link_width");
    d->max_link_width = sysfs_int(d->address, "max_link_width");
}

static void pci_gather(const rd_ctx *ctx, rd_facts *facts)
{
    rd_pci_facts *pf = &facts->pci;
    struct pci_access *pacc = pci_alloc();
    if (!pacc) {
        pf->error = xstrdup("libpci: cannot allocate");
        return;
    }
    _cleanup_free_ char *amdgpu_ids = NULL, *pci_ids = NULL;
    name_db names = { 0 };

    pacc->method = PCI_ACCESS_SYS_BUS_PCI;
    pacc->error = pci_error_hook;
    pacc->warning = pci_quiet_hook;
    pacc->debug = pci_quiet_hook;
    pacc->numeric_ids = 1;

    if (setjmp(pci_jump)) {
        pf->error = xasprintf("libpci: %s", pci_error_msg);
        goto out;
    }
    pci_init(pacc);
    pci_scan_bus(pacc);

    for (struct pci_dev *p = pacc->devices; p; p = p->next) {
        pci_fill_info(p, PCI_FILL_IDENT | PCI_FILL_CLASS);
        if (!is_gpu_class(p->vendor_id, p->device_class >> 8))
            continue;
        /* names come from the inspected OS's databases, read once and only
         * when there is something to name */
        if (!names.pci_ids) {
            static const char *const id_files[] = { "/usr/share/misc/pci.ids", "/usr/share/hwdata/pci.ids",
                                                    "/usr/share/pci.ids" };
            for (size_t i = 0; i < ELEMENTSOF(id_files) && !pci_ids; i++)
                if (rd_root_read_file(ctx, id_files[i], 64 * 1024 * 1024, &pci_ids) < 0)
                    pci_ids = NULL;
            (void)rd_root_read_file(ctx, "/usr/share/libdrm/amdgpu.ids", 4 * 1024 * 1024, &amdgpu_ids);
            names.pci_ids = pci_ids ? pci_ids : "";
            names.pci_ids_len = pci_ids ? strlen(pci_ids) : 0;
            names.amdgpu_ids = amdgpu_ids;
        }
        rd_pci_device *d = ARRAY_APPEND(pf->devices, pf->n_devices);
        fill_device(pacc, p, d, &names, p->vendor_id == PCI_VENDOR_AMD_GPU ? CFG_EXTENDED : CFG_NONE);
    }
    /* the bridges on each display device's path, once each; config space
     * only for those above an AMD GPU */
    size_t n_display = pf->n_devices;
    char ***paths = xcalloc(n_display + 1, sizeof(char **));
    _cleanup_strv_free_ char **amd_path = NULL;
    for (size_t i = 0; i < n_display; i++) {
        paths[i] = pci_ancestors(pf->devices[i].address);
        for (size_t j = 0; pf->devices[i].vendor_id == PCI_VENDOR_AMD_GPU && paths[i] && paths[i][j]; j++)
            amd_path = strv_push(amd_path, xstrdup(paths[i][j]));
    }
    for (size_t i = 0; i < n_display; i++) {
        char **up = paths[i];
        if (up && up[0])
            pf->devices[i].parent = xstrdup(up[0]);
        for (size_t j = 0; up && up[j]; j++) {
            if (rd_pci_find(facts, up[j]))
                continue;
            struct pci_dev *p = find_dev(pacc, up[j]);
            if (!p)
                break;
            rd_pci_device *d = ARRAY_APPEND(pf->devices, pf->n_devices);
            fill_device(pacc, p, d, &names, strv_contains(amd_path, up[j]) ? CFG_STANDARD : CFG_NONE);
            d->children = pci_children(up[j]);
            if (up[j + 1])
                d->parent = xstrdup(up[j + 1]);
        }
    }
    for (size_t i = 0; i < n_display; i++)
        strv_free(paths[i]);
    free(paths);
out:
    pci_cleanup(pacc);
}

static const char *short_vendor(const rd_pci_device *d)
{
    switch (d->vendor_id) {
    case 0x10de: return "NVIDIA";
    case 0x8086: return "Intel";
    case 0x1002: return "AMD";
    case 0x1a03: return "ASPEED";
    case 0x102b: return "Matrox";
    case 0x1af4: return "virtio";
    case 0x1234: return "QEMU";
    case 0x15ad: return "VMware";
    default: return d->vendor_name ? d->vendor_name : "unknown vendor";
    }
}

static void assess_none(const rd_assess_input *in, rd_findings *out)
{
    const rd_facts *f = in->facts;
    if (f->os.wsl)
        return; /* host.wsl says what applies instead */
    rd_finding *fd =
        rd_finding_add(out, RD_FINDING(GPU_NONE), RD_SEV_ERROR, NULL, "No AMD GPU is visible on this host");
    size_t others = 0;
    for (size_t i = 0; i < f->pci.n_devices; i++) {
        const rd_pci_device *d = &f->pci.devices[i];
        if (!d->display)
            continue;
        others++;
        rd_finding_evidence(fd, "%s %s (%04x:%04x), driver %s", short_vendor(d),
                            d->device_name ? d->device_name : "display device", (unsigned)d->vendor_id,
                            (unsigned)d->device_id, d->driver ? d->driver : "none");
    }
    if (f->pci.error)
        rd_finding_evidence(fd, "PCI scan incomplete: %s", f->pci.error);
    else if (others == 0)
        rd_finding_evidence(fd, "no display-class PCI device in /sys/bus/pci/devices");
    if (f->os.container)
        rd_finding_remedy(fd,
                          "This is a %s container: if the host has an AMD GPU, start the container with "
                          "--device=/dev/kfd --device=/dev/dri and --group-add with the host's numeric "
                          "gid of those nodes.",
                          f->os.container);
    else if (others > 0)
        rd_finding_remedy(fd, "ROCm needs an AMD GPU; the GPUs here are served by other stacks. Nothing to "
                              "fix if this host is not meant to run ROCm.");
    else
        rd_finding_remedy(fd, "Install an AMD GPU or, in a VM, pass one through; nothing to fix if this host "
                              "is not meant to run ROCm.");
}

static bool atomics_rejected_in_log(const rd_facts *f, const rd_pci_device *d, const char **ret_line)
{
    char id[16];
    snprintf(id, sizeof id, "%04x:%04x", (unsigned)d->vendor_id, (unsigned)d->device_id);
    for (size_t i = 0; i < f->driver.n_kmsg; i++) {
        const char *t = f->driver.kmsg[i].text;
        if (!t || !(strstr(t, "PCI rejects atomics") || strstr(t, "PCIE atomic ops is not supported")))
            continue;
        /* the kfd line names vendor:device but not the address */
        if (strcasestr(t, id) || strstr(t, d->address) || !strstr(t, "skipped device")) {
            *ret_line = t;
            return true;
        }
    }
    return false;
}

/* The kernel's pci_enable_atomic_ops_to_root() rules, applied to the facts:
 * switch ports must route AtomicOps, the root port must complete 32- and
 * 64-bit ones, an upstream port must not block them on egress. */
static const rd_pci_device *atomics_blocker(const rd_facts *f, const rd_pci_device *gpu, bool *ret_unknown,
                                            const char **ret_why)
{
    *ret_unknown = false;
    const rd_pci_device *p = rd_pci_find(f, gpu->parent);
    if (!gpu->caps_readable) {
        *ret_unknown = true;
        return NULL;
    }
    for (int depth = 0; p && depth < 16; depth++) {
        if (!p->caps_readable) {
            *ret_unknown = true;
            return NULL;
        }
        switch (p->pcie_type) {
        case PCIE_TYPE_UPSTREAM:
        case PCIE_TYPE_DOWNSTREAM:
            if (!p->atomic_routing) {
                *ret_why = "AtomicOpsCap Routing-";
                return p;
            }
            if (p->pcie_type == PCIE_TYPE_UPSTREAM && p->atomic_egress_blocking) {
                *ret_why = "AtomicOpsCtl EgressBlck+";
                return p;
            }
            break;
        case PCIE_TYPE_ROOT_PORT:
            if (!p->atomic_comp32 || !p->atomic_comp64) {
                *ret_why = "AtomicOpsCap 32bit/64bit completer missing";
                return p;
            }
            return NULL;
        case PCIE_TYPE_PCIE_TO_PCI:
        case -1: *ret_why = "conventional PCI on the path"; return p;
        default: break;
        }
        p = rd_pci_find(f, p->parent);
    }
    /* no root port seen: a device on a root bus without one (VM, RCiEP) */
    *ret_unknown = p == NULL && !gpu->atomic_requester;
    return NULL;
}

static void assess_atomics(const rd_assess_input *in, const rd_gpu *g, rd_findings *out)
{
    const rd_facts *f = in->facts;
    if (g->n_kfd > 0 || g->integrated || !streq_ptr(g->pci->driver, "amdgpu"))
        return;
    /* no KFD takes it anyway: driver.kfd-unsupported says so, atomics or not */
    if (g->arch && g->arch->no_kfd)
        return;
    const char *line = NULL, *why = NULL;
    bool logged = atomics_rejected_in_log(f, g->pci, &line);
    bool unknown;
    const rd_pci_device *blocker = atomics_blocker(f, g->pci, &unknown, &why);
    const rd_arch *a = g->arch;
    bool needs = !a || a->atomics != RD_ATOMICS_NOT_REQUIRED;
    if (!logged && !(blocker && needs))
        return;
    rd_finding *fd = rd_finding_add(out, RD_FINDING(PCIE_ATOMICS_MISSING), RD_SEV_ERROR, g->pci->address,
                                    "%s %s is not usable by ROCm: its PCIe path does not support AtomicOps",
                                    g->pci->address, g->name);
    if (line)
        rd_finding_evidence(fd, "kernel: %s", line);
    if (blocker)
        rd_finding_evidence(fd, "%s (%04x:%04x) on the path: %s", blocker->address, (unsigned)blocker->vendor_id,
                            (unsigned)blocker->device_id, why);
    if (g->pci->caps_readable)
        rd_finding_evidence(fd, "%s: AtomicOpsCtl ReqEn%c", g->pci->address, g->pci->atomic_requester ? '+' : '-');
    if (a && a->atomics == RD_ATOMICS_FIRMWARE)
        rd_finding_evidence(fd, "%s needs PCIe atomics unless its MEC firmware is %u or newer", a->gfx, a->atomics_fw);
    else if (a && a->atomics == RD_ATOMICS_REQUIRED)
        rd_finding_evidence(fd, "%s always needs PCIe atomics", a->gfx);
    rd_finding_remedy(fd,
                      "There is no software fix: move the GPU to a slot wired to the CPU's root port "
                      "(not a chipset slot, Thunderbolt or an old PCIe switch), or use a platform whose "
                      "root complex supports PCIe AtomicOps.%s",
                      a && a->atomics == RD_ATOMICS_FIRMWARE ? " A newer linux-firmware may also lift the need." : "");
}

static void assess_link(const rd_gpu *g, const rd_facts *f, rd_findings *out)
{
    const rd_pci_device *l = g->link;
    if (g->integrated || l->current_link_width <= 0 || l->max_link_width <= 0)
        return;
    /* AMD GPUs drop their link speed when idle; only a narrower link is a fault */
    if (l->current_link_width >= l->max_link_width)
        return;
    rd_finding *fd = rd_finding_add(out, RD_FINDING(PCIE_LINK_DEGRADED), RD_SEV_WARNING, g->pci->address,
                                    "%s %s runs its PCIe link at x%" PRId64 " of x%" PRId64, g->pci->address, g->name,
                                    l->current_link_width, l->max_link_width);
    rd_finding_evidence(fd, "%s: link x%" PRId64 " of x%" PRId64 ", %.1f GT/s of %.1f GT/s", l->address,
                        l->current_link_width, l->max_link_width, l->current_link_speed, l->max_link_speed);
    const rd_pci_device *port = rd_pci_find(f, l->parent);
    if (port && port->max_link_width > 0 && port->max_link_width <= l->current_link_width) {
        rd_finding_evidence(fd, "%s (the slot's port): at most x%" PRId64, port->address, port->max_link_width);
        rd_finding_remedy(fd,
                          "The slot itself is wired x%" PRId64 ": move the card to a full x%" PRId64
                          " slot for full host-device bandwidth.",
                          port->max_link_width, l->max_link_width);
    } else
        rd_finding_remedy(fd, "Reseat the card, check the riser or cable, and check the firmware setup for "
                              "lane sharing (M.2 slots often take lanes from a x16 slot).");
}

/* A BAR smaller than VRAM is normal on consumer boards without Resizable BAR
 * and ROCm copes; it is a fault when the kernel could not place the BAR, and
 * Instinct parts expect their whole memory mapped. */
static void assess_bar(const rd_assess_input *in, const rd_gpu *g, rd_findings *out)
{
    if (g->integrated || !g->vram_bytes || g->pci->n_bar_sizes == 0)
        return;
    uint64_t largest = 0;
    for (size_t i = 0; i < g->pci->n_bar_sizes; i++)
        if (g->pci->bar_sizes[i] > largest)
            largest = g->pci->bar_sizes[i];
    const char *log = NULL;
    for (size_t i = 0; i < in->facts->driver.n_kmsg && !log; i++) {
        const char *t = in->facts->driver.kmsg[i].text;
        if (strstr(t, g->pci->address) && strstr(t, "BAR") && (strstr(t, "no space") || strstr(t, "failed to assign")))
            log = t;
    }
    bool instinct = g->arch && (startswith(g->arch->family, "gfx9.4") || startswith(g->arch->family, "gfx9.5") ||
                                streq(g->arch->gfx, "gfx90a") || streq(g->arch->gfx, "gfx908"));
    if (largest >= g->vram_bytes || (!log && !instinct))
        return;
    rd_finding *fd = rd_finding_add(out, RD_FINDING(PCIE_BAR_SMALL), RD_SEV_WARNING, g->pci->address,
                                    "%s %s: the CPU can map only %" PRIu64 " MiB of its %" PRIu64 " MiB VRAM",
                                    g->pci->address, g->name, largest >> 20, g->vram_bytes >> 20);
    rd_finding_evidence(fd, "%s: largest memory BAR %" PRIu64 " MiB, VRAM %" PRIu64 " MiB%s", g->pci->address,
                        largest >> 20, g->vram_bytes >> 20,
                        g->pci->resizable_bar ? ", Resizable BAR capability present" : "");
    if (log)
        rd_finding_evidence(fd, "kernel: %s", log);
    rd_finding_remedy(fd, "Enable \"Above 4G Decoding\" and \"Resizable BAR\" (Re-Size BAR Support) in the "
                          "firmware setup, then reboot.");
}

static void assess_binding(const rd_assess_input *in, const rd_gpu *g, rd_findings *out)
{
    const rd_facts *f = in->facts;
    const rd_pci_device *p = g->pci;
    if (!p->driver) {
        /* with the module absent, driver.not-loaded is the cause to report;
         * a kernel too old for the target, driver.kernel-too-old */
        const char *min = NULL;
        if (!f->driver.module_present ||
            (g->gfx[0] && f->os.kernel_release &&
             rd_packages_kernel_serves(&in->knowledge->packages, g->gfx, &f->os, &min) == RD_KERNEL_TOO_OLD))
            return;
        rd_finding *fd = rd_finding_add(out, RD_FINDING(GPU_NO_DRIVER), RD_SEV_ERROR, p->address,
                                        "%s %s has no driver bound although amdgpu is loaded", p->address, g->name);
        rd_finding_evidence(fd, "/sys/bus/pci/devices/%s/driver: absent", p->address);
        for (size_t i = 0; i < f->driver.n_kmsg; i++)
            if (strstr(f->driver.kmsg[i].text, p->address))
                rd_finding_evidence(fd, "kernel: %s", f->driver.kmsg[i].text);
        rd_finding_remedy(fd, "amdgpu refused or failed to initialise this GPU: read `sudo dmesg | grep -i "
                              "amdgpu` for the reason (firmware, unsupported device, probe error).");
        return;
    }
    if (streq(p->driver, "radeon")) {
        const char *family = g->arch ? g->arch->family : NULL;
        const char *opt = streq_ptr(family, "gfx6") ? "si" : streq_ptr(family, "gfx7") ? "cik" : NULL;
        rd_finding *fd =
            rd_finding_add(out, RD_FINDING(GPU_RADEON_BOUND), RD_SEV_ERROR, p->address,
                           "%s %s is driven by the legacy radeon driver, which ROCm cannot use", p->address, g->name);
        rd_finding_evidence(fd, "/sys/bus/pci/devices/%s/driver -> radeon", p->address);
        if (g->gfx[0])
            rd_finding_evidence(fd, "%04x:%04x is %s (%s)", (unsigned)p->vendor_id, (unsigned)p->device_id, g->gfx,
                                family ? family : "unknown family");
        if (opt) {
            const rd_distro *d = rd_distro_of(&f->os);
            bool never = g->arch && g->arch->no_kfd;
            _cleanup_free_ char *initramfs = d->initramfs
                                                 ? xasprintf("run `%s`", d->initramfs)
                                                 : xstrdup("rebuild the initramfs the way this distribution does");
            rd_finding_remedy(fd,
                              "Hand the card to amdgpu: write \"options amdgpu %s_support=1\" and "
                              "\"options radeon %s_support=0\" to /etc/modprobe.d/amdgpu-%s.conf, %s and "
                              "reboot. Do not blacklist amdgpu.%s",
                              opt, opt, opt, initramfs,
                              never ? " That gives it amdgpu's graphics (Vulkan through RADV), but this GPU cannot "
                                      "run ROCm on either driver: no kernel's KFD supports its generation; ROCm "
                                      "needs a GCN5 (Vega) or newer GPU."
                                    : "");
            if (rd_distro_debian_tools(&f->os))
                rd_finding_set_fix(fd, "modprobe");
        } else
            rd_finding_remedy(fd, "amdgpu does not drive this generation; ROCm needs a GCN 3 (gfx8) or newer GPU.");
        return;
    }
    if (streq(p->driver, "vfio-pci")) {
        rd_finding *fd =
            rd_finding_add(out, RD_FINDING(GPU_VFIO_BOUND), RD_SEV_WARNING, p->address,
                           "%s %s is bound to vfio-pci (reserved for a VM), not amdgpu", p->address, g->name);
        rd_finding_evidence(fd, "/sys/bus/pci/devices/%s/driver -> vfio-pci", p->address);
        rd_finding_remedy(fd,
                          "If this GPU is meant for ROCm on this host, remove %04x:%04x from vfio-pci.ids= "
                          "(kernel command line or /etc/modprobe.d) and reboot.",
                          (unsigned)p->vendor_id, (unsigned)p->device_id);
    }
}

static void pci_assess(const rd_assess_input *in, rd_findings *out)
{
    if (in->gpus->n_gpus == 0) {
        assess_none(in, out);
        return;
    }
    for (size_t i = 0; i < in->gpus->n_gpus; i++) {
        const rd_gpu *g = &in->gpus->gpus[i];
        assess_binding(in, g, out);
        assess_atomics(in, g, out);
        assess_link(g, in->facts, out);
        assess_bar(in, g, out);
    }
}

static const char *const pci_findings[] = { RD_FINDING(GPU_NONE),
                                            RD_FINDING(GPU_NO_DRIVER),
                                            RD_FINDING(GPU_RADEON_BOUND),
                                            RD_FINDING(GPU_VFIO_BOUND),
                                            RD_FINDING(PCIE_ATOMICS_MISSING),
                                            RD_FINDING(PCIE_LINK_DEGRADED),
                                            RD_FINDING(PCIE_BAR_SMALL),
                                            NULL };

const rd_probe rd_probe_pci = {
    .id = "pci",
    .findings = pci_findings,
    .title = "PCI devices, links and AtomicOps",
    .areas = RD_STRV("pci"),
    .uevents = RD_STRV("pci", "drm", "kfd"),
    .gather = pci_gather,
    .assess = pci_assess,
};
