/* SPDX-License-Identifier: MIT */
#include "slurm-job.h"

#include <fcntl.h>
#include <inttypes.h>
#include <strings.h>
#include <sys/stat.h>
#include "json-util.h"
#include "rootfs.h"
#include "slurm-conf.h"
#include "util.h"
#include "catalogue.h"

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The node's GPU devices in Slurm's index order, as PCI addresses. */
static char **device_order(const rd_facts *f, const rd_gpu_view *v)
{
    char **order = NULL;
    size_t n = 0;
    const rd_slurm_facts *s = &f->slurm;
    for (size_t i = 0; i < s->n_gres; i++) {
        const rd_slurm_gres *g = &s->gres[i];
        if (!g->name || strcasecmp(g->name, "gpu") != 0 || !rd_slurm_hostlist_has(g->node_name, s->node_name))
            continue;
        for (char **file = g->files; file && *file; file++)
            for (size_t j = 0; j < v->n_gpus; j++)
                if (v->gpus[j].drm && streq_ptr(v->gpus[j].drm->render, *file))
                    order = strv_push_n(order, &n, xstrdup(v->gpus[j].pci->address));
    }
    if (order)
        return order;
    for (size_t j = 0; j < v->n_gpus; j++)
        order = strv_push_n(order, &n, xstrdup(v->gpus[j].pci->address));
    if (n > 1)
        qsort(order, n, sizeof(char *), cmp_str);
    return order;
}

static int from_indices(const rd_facts *f, const rd_gpu_view *v, const char *list, char ***ret, char **ret_error)
{
    _cleanup_strv_free_ char **order = device_order(f, v);
    _cleanup_strv_free_ char **items = strv_split(list, ",");
    size_t n_order = strv_length(order);
    for (char **it = items; it && *it; it++) {
        char *end;
        errno = 0;
        unsigned long i = strtoul(*it, &end, 10);
        if (errno || *end || end == *it || i >= n_order) {
            *ret_error = xasprintf("SLURM_JOB_GPUS=%s: %s names none of this node's %zu GPUs", list, *it, n_order);
            return -EINVAL;
        }
        if (!strv_contains(*ret, order[i]))
            *ret = strv_push(*ret, xstrdup(order[i]));
    }
    return 0;
}

static int from_visible(const rd_facts *f, const rd_gpu_view *v, const rd_knowledge *k, const char *name,
                        const char *value, char ***ret, char **ret_error)
{
    rd_agent *agents = NULL;
    size_t n = 0;
    rd_agents_build(f, v, k, &agents, &n);
    bool *keep = xcalloc(n + 1, sizeof(bool));
    char *bad = NULL;
    rd_visible_devices_apply(value, agents, n, keep, &bad);
    int r = 0;
    if (bad) {
        *ret_error = xasprintf("%s=%s: %s names none of this node's GPUs", name, value, bad);
        r = -EINVAL;
    }
    for (size_t i = 0; r == 0 && i < n; i++)
        if (keep[i] && agents[i].pci_address && !strv_contains(*ret, agents[i].pci_address))
            *ret = strv_push(*ret, xstrdup(agents[i].pci_address));
    free(bad);
    free(keep);
    free(agents);
    return r;
}

int rd_slurm_job_gpus(const rd_facts *f, const rd_gpu_view *v, const rd_knowledge *k, const rd_slurm_job_env *env,
                      char ***ret, char **ret_error)
{
    char **out = NULL;
    int r = 0;
    if (env->job_gpus && *env->job_gpus)
        r = from_indices(f, v, env->job_gpus, &out, ret_error);
    else if (env->rocr_visible && *env->rocr_visible)
        r = from_visible(f, v, k, "ROCR_VISIBLE_DEVICES", env->rocr_visible, &out, ret_error);
    else if (env->device_ordinal && *env->device_ordinal)
        r = from_visible(f, v, k, "GPU_DEVICE_ORDINAL", env->device_ordinal, &out, ret_error);
    if (r < 0) {
        strv_free(out);
        return r;
    }
    size_t n = strv_length(out);
    if (n > 1)
        qsort(out, n, sizeof(char *), cmp_str);
    *ret = out;
    return 0;
}

/* The counters, each with the finding id that reports it. */
static const struct {
    const char *key, *id, *what;
} counters[] = {
    { "ras_uncorrectable", RD_FINDING(GPU_RAS_UNCORRECTABLE), "RAS uncorrectable errors" },
    { "retired_pages", RD_FINDING(GPU_RETIRED_PAGES), "retired VRAM pages" },
    { "resets", RD_FINDING(GPU_RESET_SEEN), "GPU resets" },
    { "ras_correctable", RD_FINDING(GPU_RAS_CORRECTABLE), "RAS correctable errors" },
};

static int64_t counter(const rd_health_gpu *g, size_t which)
{
    switch (which) {
    case 0: return rd_health_ras_total(g, 'u');
    case 1: return rd_health_retired_pages(g);
    case 2: return (int64_t)rd_health_event_count(g, "reset");
    default: return rd_health_ras_total(g, 'c');
    }
}

json_object *rd_slurm_counters_json(const rd_facts *f, const char *job, char *const *addresses)
{
    json_object *o = json_object_new_object(), *gpus = json_object_new_array();
    json_object_object_add(o, "job", json_object_new_string(strempty(job)));
    for (char *const *a = addresses; a && *a; a++) {
        const rd_health_gpu *g = rd_health_gpu_find(&f->health, *a);
        json_object *e = json_object_new_object();
        json_object_object_add(e, "pci_address", json_object_new_string(*a));
        for (size_t i = 0; i < ELEMENTSOF(counters); i++)
            json_object_object_add(e, counters[i].key, json_object_new_int64(g ? counter(g, i) : -1));
        json_object_array_add(gpus, e);
    }
    json_object_object_add(o, "gpus", gpus);
    return o;
}

void rd_slurm_counters_grown(json_object *saved, const rd_facts *f, char ***ret_ids, char ***ret_evidence)
{
    json_object *gpus;
    if (!json_object_object_get_ex(saved, "gpus", &gpus) || !json_object_is_type(gpus, json_type_array))
        return;
    for (size_t i = 0; i < ELEMENTSOF(counters); i++)
        for (size_t j = 0; j < json_object_array_length(gpus); j++) {
            json_object *e = json_object_array_get_idx(gpus, j);
            const char *addr = rd_json_get_str(e, "pci_address");
            const rd_health_gpu *g = addr ? rd_health_gpu_find(&f->health, addr) : NULL;
            int64_t before = rd_json_get_int(e, counters[i].key, -1), now = g ? counter(g, i) : -1;
            if (before < 0 || now <= before)
                continue;
            if (!strv_contains(*ret_ids, counters[i].id))
                *ret_ids = strv_push(*ret_ids, xstrdup(counters[i].id));
            *ret_evidence = strv_push(*ret_evidence,
                                      xasprintf("%s: %s %" PRId64 " -> %" PRId64, addr, counters[i].what, before, now));
        }
}

bool rd_slurm_job_id_valid(const char *job)
{
    return job && *job && strspn(job, "0123456789_") == strlen(job);
}

char *rd_slurm_job_state_dir(const char *job)
{
    const char *base = secure_getenv("ROCM_DOCTOR_SLURM_STATE_DIR");
    return xasprintf("%s/%s", base && *base ? base : "/run/rocm-doctor/slurm", job);
}

static int mkdir_p(const char *path)
{
    _cleanup_free_ char *p = xstrdup(path);
    for (char *s = p + 1; *s; s++)
        if (*s == '/') {
            *s = 0;
            if (mkdir(p, 0755) < 0 && errno != EEXIST)
                return -errno;
            *s = '/';
        }
    return mkdir(p, 0700) < 0 && errno != EEXIST ? -errno : 0;
}

int rd_slurm_counters_save(const char *dir, json_object *saved, char **ret_what)
{
    int r = mkdir_p(dir);
    if (r < 0) {
        *ret_what = xstrdup(dir);
        return r;
    }
    _cleanup_close_ int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    _cleanup_free_ char *text = rd_json_pretty(saved);
    r = dfd < 0 ? -errno : write_atomic_at(dfd, "counters.json", text, strlen(text), 0600, (uid_t)-1, (gid_t)-1);
    if (r < 0)
        *ret_what = xasprintf("%s/counters.json", dir);
    return r;
}

int rd_slurm_counters_load(const char *dir, json_object **ret)
{
    _cleanup_free_ char *path = xasprintf("%s/counters.json", dir);
    _cleanup_free_ char *text = NULL;
    size_t size;
    int r = read_file_at(AT_FDCWD, path, 16u << 20, &text, &size);
    if (r < 0)
        return r;
    *ret = json_tokener_parse(text);
    return *ret ? 0 : -EBADMSG;
}

void rd_slurm_counters_drop(const char *dir)
{
    _cleanup_free_ char *path = xasprintf("%s/counters.json", dir);
    if (unlink(path) < 0 && errno == EISDIR)
        (void)rmdir(path);
    (void)rmdir(dir);
}
