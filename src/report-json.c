/* SPDX-License-Identifier: MIT */
#include "report.h"

#include "build-config.h"
#include "util.h"

static json_object *str_or_null(const char *s)
{
    return s && *s ? json_object_new_string(s) : NULL;
}

static json_object *gpu_json(const rd_gpu *g)
{
    json_object *o = json_object_new_object();
    json_object_object_add(o, "pci_address", json_object_new_string(g->pci->address));
    json_object_object_add(o, "vendor_id", json_object_new_int64(g->pci->vendor_id));
    json_object_object_add(o, "device_id", json_object_new_int64(g->pci->device_id));
    json_object_object_add(o, "revision", json_object_new_int64(g->pci->revision));
    json_object_object_add(o, "name", json_object_new_string(g->name));
    json_object_object_add(o, "gfx", str_or_null(g->gfx));
    json_object_object_add(o, "gfx_source", g->gfx[0] ? json_object_new_string(g->gfx_from_kfd ? "kfd" : "pci-id")
                                                       : NULL);
    json_object_object_add(o, "family", g->arch ? json_object_new_string(g->arch->family) : NULL);
    json_object_object_add(o, "driver", str_or_null(g->pci->driver));
    json_object_object_add(o, "integrated", json_object_new_boolean(g->integrated));
    json_object *nodes = json_object_new_array();
    for (size_t i = 0; i < g->n_kfd; i++)
        json_object_array_add(nodes, json_object_new_int64(g->kfd[i]->node_id));
    json_object_object_add(o, "kfd_nodes", nodes);
    json_object_object_add(o, "partitions", json_object_new_int64((int64_t)g->n_kfd));
    int64_t minor = g->drm ? g->drm->render_minor : -1;
    if (minor < 0 && g->n_kfd > 0)
        minor = (int64_t)rd_kfd_prop_or(g->kfd[0], "drm_render_minor", 0);
    json_object_object_add(o, "render_minor", minor > 0 ? json_object_new_int64(minor) : NULL);
    json_object_object_add(o, "vram_bytes", json_object_new_uint64(g->vram_bytes));
    json_object *link = json_object_new_object();
    json_object_object_add(link, "address", json_object_new_string(g->link->address));
    json_object_object_add(link, "current_speed_gts", json_object_new_double(g->link->current_link_speed));
    json_object_object_add(link, "max_speed_gts", json_object_new_double(g->link->max_link_speed));
    json_object_object_add(link, "current_width", json_object_new_int64(g->link->current_link_width));
    json_object_object_add(link, "max_width", json_object_new_int64(g->link->max_link_width));
    json_object_object_add(o, "link", link);
    return o;
}

static json_object *finding_json(const rd_finding *f)
{
    json_object *o = json_object_new_object();
    json_object_object_add(o, "id", json_object_new_string(f->id));
    json_object_object_add(o, "severity", json_object_new_string(rd_severity_name(f->severity)));
    json_object_object_add(o, "summary", json_object_new_string(f->summary));
    json_object *ev = json_object_new_array();
    for (size_t i = 0; f->evidence && f->evidence[i]; i++)
        json_object_array_add(ev, json_object_new_string(f->evidence[i]));
    json_object_object_add(o, "evidence", ev);
    json_object_object_add(o, "remedy", str_or_null(f->remedy));
    json_object_object_add(o, "fix", str_or_null(f->fix));
    json_object_object_add(o, "gpu", str_or_null(f->gpu));
    return o;
}

json_object *rd_report_json(const rd_facts *f, const rd_gpu_view *v, const rd_findings *fs, int level)
{
    json_object *o = json_object_new_object();
    int exit_status = rd_findings_exit_status(fs);
    size_t counts[4] = { 0 };
    for (size_t i = 0; i < fs->n; i++)
        counts[fs->items[i].severity]++;
    json_object_object_add(o, "schema", json_object_new_string(RD_REPORT_SCHEMA));
    json_object_object_add(o, "version", json_object_new_string(PACKAGE_VERSION));
    json_object_object_add(o, "level", json_object_new_int(level));
    json_object_object_add(o, "status", json_object_new_string(exit_status == 2   ? "error"
                                                               : exit_status == 1 ? "warning"
                                                                                  : "ok"));
    json_object_object_add(o, "exit_status", json_object_new_int(exit_status));

    json_object *host = json_object_new_object();
    json_object_object_add(host, "root", str_or_null(f->root));
    json_object_object_add(host, "os", str_or_null(f->os.pretty_name));
    json_object_object_add(host, "os_id", str_or_null(f->os.id));
    json_object_object_add(host, "os_version_id", str_or_null(f->os.version_id));
    json_object_object_add(host, "os_codename", str_or_null(f->os.version_codename));
    json_object_object_add(host, "kernel", str_or_null(f->os.kernel_release));
    json_object_object_add(host, "virtualization", str_or_null(f->os.virtualization));
    json_object_object_add(host, "container", str_or_null(f->os.container));
    json_object_object_add(host, "wsl", json_object_new_boolean(f->os.wsl));
    json_object_object_add(o, "host", host);

    json_object *gpus = json_object_new_array();
    for (size_t i = 0; i < v->n_gpus; i++)
        json_object_array_add(gpus, gpu_json(&v->gpus[i]));
    json_object_object_add(o, "gpus", gpus);

    json_object *access = json_object_new_object();
    json_object *users = json_object_new_array();
    for (size_t i = 0; i < f->access.n_users; i++) {
        json_object *u = json_object_new_object();
        json_object_object_add(u, "name", str_or_null(f->access.users[i].name));
        json_object_object_add(u, "source", str_or_null(f->access.users[i].source));
        json_object_object_add(u, "error", str_or_null(f->access.users[i].error));
        json_object_array_add(users, u);
    }
    json_object_object_add(access, "users_checked", users);
    json_object_object_add(access, "not_checked", str_or_null(f->access.not_checked));
    json_object_object_add(o, "access", access);

    json_object *arr = json_object_new_array();
    for (size_t i = 0; i < fs->n; i++)
        json_object_array_add(arr, finding_json(&fs->items[i]));
    json_object_object_add(o, "findings", arr);

    json_object *sum = json_object_new_object();
    json_object_object_add(sum, "errors", json_object_new_int64((int64_t)counts[RD_SEV_ERROR]));
    json_object_object_add(sum, "warnings", json_object_new_int64((int64_t)counts[RD_SEV_WARNING]));
    json_object_object_add(sum, "info", json_object_new_int64((int64_t)counts[RD_SEV_INFO]));
    json_object_object_add(o, "summary", sum);
    return o;
}
