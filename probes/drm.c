/* SPDX-License-Identifier: MIT */
/* DRM: card and render nodes per GPU (drmGetDevices2) and the GPU's amdgpu
 * sysfs attributes (libudev). */
#include <fcntl.h>
#include <libudev.h>
#include <sys/sysmacros.h>
#include <xf86drm.h>
#include "probe.h"
#include "util.h"

static char *attr(struct udev_device *d, const char *name)
{
    const char *v = udev_device_get_sysattr_value(d, name);
    if (!v)
        return NULL;
    char *s = xstrdup(v);
    char *t = strstrip(s);
    if (t != s)
        memmove(s, t, strlen(t) + 1);
    return s;
}

static void fill_from_sysfs(struct udev *u, rd_drm_device *d)
{
    _cleanup_free_ char *syspath = xasprintf("/sys/bus/pci/devices/%s", d->pci_address);
    struct udev_device *pci = udev_device_new_from_syspath(u, syspath);
    if (!pci)
        return;
    const char *drv = udev_device_get_driver(pci);
    d->driver = xstrdup_or_null(drv);
    d->product_name = attr(pci, "product_name");
    d->unique_id = attr(pci, "unique_id");
    _cleanup_free_ char *vram = attr(pci, "mem_info_vram_total");
    uint64_t v;
    if (vram && safe_atou64(vram, 10, &v) == 0)
        d->vram_total = v;
    _cleanup_free_ char *gtt = attr(pci, "mem_info_gtt_total");
    if (gtt && safe_atou64(gtt, 10, &v) == 0)
        d->gtt_total = v;
    _cleanup_free_ char *ma = attr(pci, "ip_discovery/die/0/GC/0/major");
    _cleanup_free_ char *mi = attr(pci, "ip_discovery/die/0/GC/0/minor");
    _cleanup_free_ char *rv = attr(pci, "ip_discovery/die/0/GC/0/revision");
    if (ma && mi && rv)
        d->gc_version = xasprintf("%s.%s.%s", ma, mi, rv);
    udev_device_unref(pci);
}

static int64_t minor_of(const char *node)
{
    const char *p = node ? strrchr(node, 'D') : NULL;
    int v;
    return p && safe_atoi(p + 1, &v) == 0 ? v : -1;
}

static void drm_gather(const rd_ctx *ctx, rd_facts *facts)
{
    rd_drm_facts *df = &facts->drm;
    struct udev *u = udev_new();
    /* Each call walks every node of /dev/dri and reads its sysfs device
     * several times, so one call with room to spare, and a second only
     * when more devices than that turn up. */
    int cap = 256, n;
    drmDevicePtr *devs = NULL;
    for (;;) {
        devs = xcalloc((size_t)cap, sizeof(drmDevicePtr));
        n = drmGetDevices2(0, devs, cap);
        if (n <= cap)
            break;
        for (int i = 0; i < cap; i++)
            drmFreeDevice(&devs[i]);
        free(devs);
        cap = n;
    }
    if (n < 0 && n != -ENOENT) {
        df->error = xasprintf("drmGetDevices2: %s", strerror(-n));
    } else if (n > 0) {
        int got = n;
        for (int i = 0; i < got; i++) {
            drmDevicePtr dv = devs[i];
            rd_drm_device *d = ARRAY_APPEND(df->devices, df->n_devices);
            d->render_minor = -1;
            if (dv->bustype == DRM_BUS_PCI)
                d->pci_address = xasprintf("%04x:%02x:%02x.%x", dv->businfo.pci->domain, dv->businfo.pci->bus,
                                           dv->businfo.pci->dev, dv->businfo.pci->func);
            if (dv->available_nodes & (1 << DRM_NODE_PRIMARY))
                d->card = xstrdup(dv->nodes[DRM_NODE_PRIMARY]);
            if (dv->available_nodes & (1 << DRM_NODE_RENDER)) {
                d->render = xstrdup(dv->nodes[DRM_NODE_RENDER]);
                d->render_minor = minor_of(d->render);
            }
            if (d->pci_address && u)
                fill_from_sysfs(u, d);
        }
        drmFreeDevices(devs, got);
    }
    free(devs);
    /* Partition render nodes (MI300 CPX) hang off platform devices; the KFD
     * topology names them (drm_render_minor), which is where access looks. */
    if (u)
        udev_unref(u);
    else if (!df->error)
        df->error = xstrdup("libudev: cannot initialise");
}

const rd_probe rd_probe_drm = {
    .id = "drm",
    .title = "DRM card and render nodes",
    .areas = RD_STRV("drm"),
    .uevents = RD_STRV("pci", "drm", "kfd"),
    .gather = drm_gather,
    .assess = NULL,
};
