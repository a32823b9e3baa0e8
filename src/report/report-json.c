/* SPDX-License-Identifier: MIT */
#include "report.h"

#include "build-config.h"
#include "json-util.h"
#include "report-health.h"
#include "report-runtime.h"
#include "util.h"

static json_object *gpu_json(const rd_facts *f, const rd_gpu *g)
{
    json_object *o = json_object_new_object();
    json_object_object_add(o, "pci_address", json_object_new_string(g->pci->address));
    json_object_object_add(o, "vendor_id", json_object_new_int64(g->pci->vendor_id));
    json_object_object_add(o, "device_id", json_object_new_int64(g->pci->device_id));
    json_object_object_add(o, "revision", json_object_new_int64(g->pci->revision));
    json_object_object_add(o, "name", json_object_new_string(g->name));
    json_object_object_add(o, "gfx", rd_json_str_or_null(g->gfx));
    json_object_object_add(o, "gfx_source",
                           g->gfx[0] ? json_object_new_string(g->gfx_from_kfd ? "kfd" : "pci-id") : NULL);
    json_object_object_add(o, "family", g->arch ? json_object_new_string(g->arch->family) : NULL);
    json_object_object_add(o, "driver", rd_json_str_or_null(g->pci->driver));
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
    json_object_object_add(o, "health", rd_report_health_json(f, g));
    return o;
}

/* access.nodes[]: the device node as the access findings judged it. */
static json_object *access_node_json(const rd_dev_node *n)
{
    json_object *o = json_object_new_object();
    char mode[8], perm[4];
    rd_dev_node_mode(n, mode);
    json_object_object_add(o, "path", rd_json_str_or_null(n->path));
    json_object_object_add(o, "role", rd_json_str_or_null(n->role));
    json_object_object_add(o, "exists", json_object_new_boolean(n->exists));
    json_object_object_add(o, "mode", n->exists ? json_object_new_string(mode) : NULL);
    json_object_object_add(o, "uid", n->exists ? json_object_new_int64(n->uid) : NULL);
    json_object_object_add(o, "gid", n->exists ? json_object_new_int64(n->gid) : NULL);
    json_object_object_add(o, "group", rd_json_str_or_null(n->group));
    json_object *acl = json_object_new_array();
    for (size_t i = 0; i < n->n_acl; i++) {
        json_object *e = json_object_new_object();
        bool has_id = streq_ptr(n->acl[i].tag, "user") || streq_ptr(n->acl[i].tag, "group");
        rd_acl_perm(n->acl[i].perm, perm);
        json_object_object_add(e, "tag", rd_json_str_or_null(n->acl[i].tag));
        json_object_object_add(e, "id", has_id ? json_object_new_int64(n->acl[i].id) : NULL);
        json_object_object_add(e, "perm", json_object_new_string(perm));
        json_object_array_add(acl, e);
    }
    json_object_object_add(o, "acl", acl);
    json_object_object_add(o, "error", rd_json_str_or_null(n->error));
    return o;
}

json_object *rd_finding_to_json(const rd_finding *f)
{
    json_object *o = json_object_new_object();
    json_object_object_add(o, "id", json_object_new_string(f->id));
    json_object_object_add(o, "severity", json_object_new_string(rd_severity_name(f->severity)));
    json_object_object_add(o, "summary", json_object_new_string(f->summary));
    json_object_object_add(o, "evidence", rd_json_strv(f->evidence));
    json_object_object_add(o, "remedy", rd_json_str_or_null(f->remedy));
    json_object_object_add(o, "fix", rd_json_str_or_null(f->fix));
    json_object_object_add(o, "gpu", rd_json_str_or_null(f->gpu));
    return o;
}

/* ROCm as Python wheels, one object per site-packages that holds them. */
static json_object *wheels_json(const rd_wheel_facts *wf)
{
    json_object *arr = json_object_new_array();
    for (size_t i = 0; i < wf->n_installs; i++) {
        const rd_wheel_install *w = &wf->installs[i];
        json_object *j = json_object_new_object();
        json_object_object_add(j, "site_packages", rd_json_str_or_null(w->site_packages));
        json_object_object_add(j, "source", rd_json_str_or_null(w->source));
        json_object_object_add(j, "prefix", rd_json_str_or_null(w->prefix));
        json_object_object_add(j, "version", rd_json_str_or_null(w->version));
        json_object_object_add(j, "family", rd_json_str_or_null(w->family));
        json_object_object_add(j, "gfx", rd_json_strv(w->gfx));
        json_object_object_add(j, "lib_dir", rd_json_str_or_null(w->lib_dir));
        json_object_object_add(j, "hip_library", rd_json_str_or_null(w->hip_library));
        json_object_object_add(j, "dists", rd_json_strv(w->dists));
        json_object_array_add(arr, j);
    }
    return arr;
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
    json_object_object_add(o, "status",
                           json_object_new_string(exit_status == 2   ? "error"
                                                  : exit_status == 1 ? "warning"
                                                                     : "ok"));
    json_object_object_add(o, "exit_status", json_object_new_int(exit_status));

    json_object *host = json_object_new_object();
    json_object_object_add(host, "root", rd_json_str_or_null(f->root));
    json_object_object_add(host, "os", rd_json_str_or_null(f->os.pretty_name));
    json_object_object_add(host, "os_id", rd_json_str_or_null(f->os.id));
    json_object_object_add(host, "os_version_id", rd_json_str_or_null(f->os.version_id));
    json_object_object_add(host, "os_codename", rd_json_str_or_null(f->os.version_codename));
    json_object_object_add(host, "kernel", rd_json_str_or_null(f->os.kernel_release));
    json_object_object_add(host, "virtualization", rd_json_str_or_null(f->os.virtualization));
    json_object_object_add(host, "container", rd_json_str_or_null(f->os.container));
    json_object_object_add(host, "wsl", json_object_new_boolean(f->os.wsl));
    json_object_object_add(o, "host", host);

    json_object *gpus = json_object_new_array();
    for (size_t i = 0; i < v->n_gpus; i++)
        json_object_array_add(gpus, gpu_json(f, &v->gpus[i]));
    json_object_object_add(o, "gpus", gpus);

    json_object *access = json_object_new_object();
    json_object *users = json_object_new_array();
    for (size_t i = 0; i < f->access.n_users; i++) {
        json_object *u = json_object_new_object();
        json_object_object_add(u, "name", rd_json_str_or_null(f->access.users[i].name));
        json_object_object_add(u, "source", rd_json_str_or_null(f->access.users[i].source));
        json_object_object_add(u, "error", rd_json_str_or_null(f->access.users[i].error));
        json_object_array_add(users, u);
    }
    json_object_object_add(access, "users_checked", users);
    json_object *nodes = json_object_new_array();
    for (size_t i = 0; i < f->access.n_nodes; i++)
        json_object_array_add(nodes, access_node_json(&f->access.nodes[i]));
    json_object_object_add(access, "nodes", nodes);
    json_object_object_add(access, "not_checked", rd_json_str_or_null(f->access.not_checked));
    json_object_object_add(o, "access", access);

    json_object_object_add(o, "runtime", rd_report_runtime_json(f));
    json_object_object_add(o, "wheels", wheels_json(&f->wheels));

    json_object *arr = json_object_new_array();
    for (size_t i = 0; i < fs->n; i++)
        json_object_array_add(arr, rd_finding_to_json(&fs->items[i]));
    json_object_object_add(o, "findings", arr);

    json_object *sum = json_object_new_object();
    json_object_object_add(sum, "errors", json_object_new_int64((int64_t)counts[RD_SEV_ERROR]));
    json_object_object_add(sum, "warnings", json_object_new_int64((int64_t)counts[RD_SEV_WARNING]));
    json_object_object_add(sum, "info", json_object_new_int64((int64_t)counts[RD_SEV_INFO]));
    json_object_object_add(o, "summary", sum);
    return o;
}

/* ---------------------------------------------------------------------- */
/* Level 2 */

static json_object *positive_double_or_null(double v)
{
    return v > 0 ? json_object_new_double(v) : NULL;
}

/* One HSA agent of runtime.hsa.agents[], with its memory pools. */
static json_object *runtime_agent_json(const rd_runtime_agent *a)
{
    json_object *j = json_object_new_object();
    json_object_object_add(j, "name", rd_json_str_or_null(a->name));
    json_object_object_add(j, "type", rd_json_str_or_null(a->type));
    json_object_object_add(j, "product_name", rd_json_str_or_null(a->product_name));
    json_object_object_add(j, "isa", rd_json_str_or_null(a->isa));
    json_object_object_add(j, "kfd_node", rd_json_int_or_null(a->kfd_node));
    json_object_object_add(j, "pci_address", rd_json_str_or_null(a->pci_address));
    json_object_object_add(j, "compute_units", rd_json_int_or_null(a->compute_units));
    json_object *pools = json_object_new_array();
    for (size_t k = 0; k < a->n_pools; k++) {
        json_object *p = json_object_new_object();
        json_object_object_add(p, "segment", rd_json_str_or_null(a->pools[k].segment));
        json_object_object_add(p, "size_bytes", json_object_new_uint64(a->pools[k].size));
        json_object_object_add(p, "coarse_grained", json_object_new_boolean(a->pools[k].coarse_grained));
        json_object_object_add(p, "fine_grained", json_object_new_boolean(a->pools[k].fine_grained));
        json_object_object_add(p, "kernarg", json_object_new_boolean(a->pools[k].kernarg));
        json_object_array_add(pools, p);
    }
    json_object_object_add(j, "memory_pools", pools);
    return j;
}

/* runtime.hsa: the HSA runtime's library, status and agents. */
static json_object *runtime_hsa_json(const rd_runtime_facts *rt)
{
    json_object *hsa = json_object_new_object();
    json_object_object_add(hsa, "library", rd_json_str_or_null(rt->hsa_library));
    json_object_object_add(hsa, "load_error", rd_json_str_or_null(rt->hsa_load_error));
    json_object_object_add(hsa, "init_status", rd_json_str_or_null(rt->hsa_init_status_name));
    json_object_object_add(hsa, "init_status_code", rd_json_int_or_null(rt->hsa_init_status));
    json_object_object_add(hsa, "init_status_string", rd_json_str_or_null(rt->hsa_init_status_string));
    json_object_object_add(hsa, "version", rd_json_str_or_null(rt->hsa_version));
    json_object *agents = json_object_new_array();
    for (size_t i = 0; i < rt->n_agents; i++)
        json_object_array_add(agents, runtime_agent_json(&rt->agents[i]));
    json_object_object_add(hsa, "agents", agents);
    return hsa;
}

/* runtime.hip: the HIP runtime's library, version and status. */
static json_object *runtime_hip_json(const rd_runtime_facts *rt)
{
    char ver[32];
    json_object *hip = json_object_new_object();
    json_object_object_add(hip, "library", rd_json_str_or_null(rt->hip_library));
    json_object_object_add(hip, "load_error", rd_json_str_or_null(rt->hip_load_error));
    rd_hip_version_string(rt->hip_runtime_version, ver, sizeof ver);
    json_object_object_add(hip, "runtime_version", rt->hip_runtime_version > 0 ? json_object_new_string(ver) : NULL);
    json_object_object_add(hip, "code_object_version", rd_json_int_or_null(rt->hip_code_object_version));
    json_object_object_add(hip, "init_status", rd_json_str_or_null(rt->hip_init_status_name));
    json_object_object_add(hip, "device_count_status", rd_json_str_or_null(rt->hip_device_count_status_name));
    json_object_object_add(hip, "device_count", rd_json_int_or_null(rt->hip_device_count));
    json_object_object_add(hip, "hiprtc_library", rd_json_str_or_null(rt->hiprtc_library));
    return hip;
}

/* One HIP device of runtime.devices[]: its test result and figures. */
static json_object *runtime_device_json(const rd_runtime_device *d)
{
    json_object *j = json_object_new_object();
    json_object_object_add(j, "index", json_object_new_int64(d->index));
    json_object_object_add(j, "pci_address", rd_json_str_or_null(d->pci_address));
    json_object_object_add(j, "name", rd_json_str_or_null(d->name));
    json_object_object_add(j, "gfx", rd_json_str_or_null(d->gfx));
    json_object_object_add(j, "isa", rd_json_str_or_null(d->isa));
    json_object_object_add(j, "kfd_node", rd_json_int_or_null(d->kfd_node));
    json_object_object_add(j, "code_object", rd_json_str_or_null(d->code_object));
    json_object_object_add(j, "code_object_version",
                           d->code_object ? rd_json_int_or_null(d->code_object_version) : NULL);
    json_object_object_add(j, "code_object_fallback", rd_json_str_or_null(d->code_object_fallback));
    json_object_object_add(j, "result", rd_json_str_or_null(d->result));
    json_object_object_add(j, "error_call", rd_json_str_or_null(d->error_call));
    json_object_object_add(j, "error", rd_json_str_or_null(d->error_name));
    json_object_object_add(j, "error_code", d->error_name ? json_object_new_int64(d->error_code) : NULL);
    json_object_object_add(j, "mismatch", rd_json_str_or_null(d->mismatch));
    json_object_object_add(j, "launch_latency_us", positive_double_or_null(d->launch_latency_us));
    json_object_object_add(j, "h2d_gbps", positive_double_or_null(d->h2d_gbps));
    json_object_object_add(j, "d2h_gbps", positive_double_or_null(d->d2h_gbps));
    json_object_object_add(j, "hiprtc", rd_json_str_or_null(d->hiprtc));
    json_object_object_add(j, "hiprtc_error", rd_json_str_or_null(d->hiprtc_error));
    return j;
}

/* runtime.child: how the level 2 child process ended. */
static json_object *runtime_child_json(const rd_runtime_facts *rt)
{
    json_object *child = json_object_new_object();
    json_object_object_add(child, "status", rd_json_str_or_null(rt->child_status));
    json_object_object_add(child, "exit_code", rd_json_int_or_null(rt->child_exit_code));
    json_object_object_add(child, "signal", rd_json_str_or_null(rt->child_signal_name));
    json_object_object_add(child, "unkillable", json_object_new_boolean(rt->child_unkillable));
    json_object_object_add(child, "stage", rd_json_str_or_null(rt->child_stage));
    json_object_object_add(child, "stage_device", rd_json_int_or_null(rt->child_stage_device));
    json_object_object_add(child, "output", rd_json_str_or_null(rt->child_output));
    json_object_object_add(child, "elapsed_s", json_object_new_double(rt->elapsed_s));
    json_object_object_add(child, "timeout_s", json_object_new_int64(rt->timeout_s));
    json_object_object_add(child, "error", rd_json_str_or_null(rt->error));
    return child;
}

json_object *rd_report_runtime_json(const rd_facts *f)
{
    const rd_runtime_facts *rt = &f->runtime;
    if (!rt->ran)
        return NULL;
    json_object *o = json_object_new_object();
    json_object_object_add(o, "rocm_path", rd_json_str_or_null(rt->rocm_path));
    json_object_object_add(o, "hsa", runtime_hsa_json(rt));
    json_object_object_add(o, "hip", runtime_hip_json(rt));
    json_object *devs = json_object_new_array();
    for (size_t i = 0; i < rt->n_devices; i++)
        json_object_array_add(devs, runtime_device_json(&rt->devices[i]));
    json_object_object_add(o, "devices", devs);
    json_object_object_add(o, "child", runtime_child_json(rt));
    return o;
}
