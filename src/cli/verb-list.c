/* SPDX-License-Identifier: MIT */
/* list: the knowledge the checks use. archs (gfx targets with their family,
 * APU flag, PCIe atomics rule, override and support), releases (the support
 * matrix), checks (every probe and the findings it can report), fixes
 * (every fix id, what `fix --only` accepts besides finding ids), gpus (the
 * products of health.ini [vram] with their target, memory and support). */
#include <stdio.h>
#include "cli.h"
#include "json-util.h"
#include "context.h"
#include "fixes.h"
#include "registry.h"
#include "util.h"

static const char *atomics_name(rd_atomics_rule r)
{
    switch (r) {
    case RD_ATOMICS_REQUIRED: return "required";
    case RD_ATOMICS_NOT_REQUIRED: return "not-required";
    case RD_ATOMICS_FIRMWARE: return "firmware";
    default: return "unknown";
    }
}

static json_object *table_json(const rd_table_info *t)
{
    json_object *o = json_object_new_object();
    json_object_object_add(o, "name", t->name ? json_object_new_string(t->name) : NULL);
    json_object_object_add(o, "version", t->version ? json_object_new_string(t->version) : NULL);
    json_object_object_add(o, "date", t->date ? json_object_new_string(t->date) : NULL);
    return o;
}

/* Release lines that support (or deprecate) gfx, oldest first. */
static char **lines_with(const rd_knowledge *k, const char *gfx, bool deprecated)
{
    char **v = NULL;
    for (size_t i = 0; i < k->n_releases; i++)
        if (deprecated ? rd_release_deprecates(&k->releases[i], gfx) : rd_release_supports(&k->releases[i], gfx))
            v = strv_push(v, xstrdup(k->releases[i].line));
    return v;
}

/* "6.4-7.1", "5.6-6.4 d6.4" (deprecated up to), "-" */
static char *rocm_lines(const rd_knowledge *k, const char *gfx)
{
    char **sup = gfx ? lines_with(k, gfx, false) : NULL, **dep = gfx ? lines_with(k, gfx, true) : NULL;
    strbuf b = { 0 };
    size_t ns = strv_length(sup);
    if (ns == 1)
        strbuf_printf(&b, "%s", sup[0]);
    else if (ns > 1)
        strbuf_printf(&b, "%s-%s", sup[0], sup[ns - 1]);
    if (dep)
        strbuf_printf(&b, "%sd%s", ns ? " " : "", dep[strv_length(dep) - 1]);
    if (!b.s)
        strbuf_append(&b, "-");
    strv_free(sup);
    strv_free(dep);
    return strbuf_steal(&b);
}

static void print_table_header(const char *file, const rd_table_info *t)
{
    if (t->name)
        printf("# %s: table %s, version %s, %s\n", file, t->name, t->version, t->date);
    else
        printf("# %s: absent\n", file);
}

static int list_archs(const rd_knowledge *k, bool json)
{
    if (json) {
        json_object *root = json_object_new_object();
        json_object *tables = json_object_new_array();
        json_object_array_add(tables, table_json(&k->archs_info));
        json_object_array_add(tables, table_json(&k->support_info));
        json_object_object_add(root, "tables", tables);
        json_object *archs = json_object_new_array();
        for (size_t i = 0; i < k->n_archs; i++) {
            const rd_arch *a = &k->archs[i];
            json_object *o = json_object_new_object();
            json_object_object_add(o, "gfx", json_object_new_string(a->gfx));
            json_object_object_add(o, "gfx_target_version", json_object_new_int64(a->gfx_target_version));
            json_object_object_add(o, "codename", a->codename ? json_object_new_string(a->codename) : NULL);
            json_object_object_add(o, "family", json_object_new_string(a->family));
            json_object_object_add(o, "apu", json_object_new_boolean(a->apu));
            json_object_object_add(o, "atomics", json_object_new_string(atomics_name(a->atomics)));
            json_object_object_add(o, "atomics_min_firmware",
                                   a->atomics == RD_ATOMICS_FIRMWARE ? json_object_new_int64(a->atomics_fw) : NULL);
            json_object_object_add(o, "override", a->override ? json_object_new_string(a->override) : NULL);
            char **sup = lines_with(k, a->gfx, false), **dep = lines_with(k, a->gfx, true);
            json_object_object_add(o, "supported_in", rd_json_strv(sup));
            json_object_object_add(o, "deprecated_in", rd_json_strv(dep));
            strv_free(sup);
            strv_free(dep);
            json_object_array_add(archs, o);
        }
        json_object_object_add(root, "archs", archs);
        return rd_cli_print_json(root) < 0 ? rd_fail("cannot write to standard output") : 0;
    }

    print_table_header("archs.ini", &k->archs_info);
    print_table_header("support.ini", &k->support_info);
    printf("%-7s %-6s %-7s %-3s %-6s %-8s %-14s %s\n", "GFX", "TARGET", "FAMILY", "APU", "ATOM", "OVERRIDE",
           "ROCM", "CODENAME");
    for (size_t i = 0; i < k->n_archs; i++) {
        const rd_arch *a = &k->archs[i];
        char atomics[16];
        if (a->atomics == RD_ATOMICS_FIRMWARE)
            snprintf(atomics, sizeof atomics, "fw<%u", a->atomics_fw);
        else
            snprintf(atomics, sizeof atomics, "%s", a->atomics == RD_ATOMICS_REQUIRED ? "yes" : "no");
        _cleanup_free_ char *rocm = rocm_lines(k, a->gfx);
        /* the codename takes what is left of 80 columns */
        const char *cn = strempty(a->codename);
        size_t room = 80 - 59;
        printf("%-7s %-6u %-7s %-3s %-6s %-8s %-14s %.*s%s\n", a->gfx, a->gfx_target_version, a->family,
               a->apu ? "yes" : "no", atomics, a->override ? a->override : "-", rocm,
               (int)(strlen(cn) > room ? room - 3 : strlen(cn)), cn, strlen(cn) > room ? "..." : "");
    }
    printf("\nATOM: a discrete GPU needs PCIe AtomicOps (fw<N: unless its MEC firmware is\n"
           "N or newer). ROCM: release lines that support it officially; dX: deprecated\n"
           "up to X (support.ini). `--json` gives every field in full.\n");
    return fflush(stdout) != 0 ? rd_fail("cannot write to standard output") : 0;
}

static int list_releases(const rd_knowledge *k, bool json)
{
    if (json) {
        json_object *root = json_object_new_object();
        json_object_object_add(root, "table", table_json(&k->support_info));
        json_object *rels = json_object_new_array();
        for (size_t i = 0; i < k->n_releases; i++) {
            const rd_release *r = &k->releases[i];
            json_object *o = json_object_new_object();
            json_object_object_add(o, "release", json_object_new_string(r->line));
            json_object_object_add(o, "latest", json_object_new_string(r->latest));
            json_object_object_add(o, "date", json_object_new_string(r->date));
            json_object_object_add(o, "gfx", rd_json_strv(r->gfx));
            json_object_object_add(o, "deprecated", rd_json_strv(r->deprecated));
            json_object_object_add(o, "apt_suite", json_object_new_string(r->apt_suite_ubuntu ? "ubuntu" : "codename"));
            json_object_object_add(o, "dkms", r->dkms ? json_object_new_string(r->dkms) : NULL);
            json_object *w = json_object_new_object();
            json_object_object_add(w, r->window_kind == RD_WINDOW_RELEASES ? "releases" : "months",
                                   json_object_new_int64(r->window));
            json_object_object_add(o, "window", w);
            json_object *oses = json_object_new_array();
            for (size_t j = 0; j < r->n_os; j++) {
                json_object *x = json_object_new_object();
                json_object_object_add(x, "id", json_object_new_string(r->os[j].id));
                json_object_object_add(x, "version_id", json_object_new_string(r->os[j].version_id));
                json_object_object_add(x, "codename", r->os[j].codename ? json_object_new_string(r->os[j].codename) : NULL);
                json_object_object_add(x, "apt_suite", r->os[j].apt_suite ? json_object_new_string(r->os[j].apt_suite) : NULL);
                json_object_object_add(x, "kernels", rd_json_strv(r->os[j].kernels));
                json_object_array_add(oses, x);
            }
            json_object_object_add(o, "os", oses);
            json_object_array_add(rels, o);
        }
        json_object_object_add(root, "releases", rels);
        return rd_cli_print_json(root) < 0 ? rd_fail("cannot write to standard output") : 0;
    }
    print_table_header("support.ini", &k->support_info);
    for (size_t i = 0; i < k->n_releases; i++) {
        const rd_release *r = &k->releases[i];
        printf("\nROCm %s (latest %s, %s), amdgpu-dkms %s, driver window %u %s\n", r->line, r->latest, r->date,
               r->dkms ? r->dkms : "-", r->window, r->window_kind == RD_WINDOW_RELEASES ? "releases" : "months");
        printf("  gfx:");
        for (size_t j = 0; r->gfx && r->gfx[j]; j++)
            printf(" %s", r->gfx[j]);
        for (size_t j = 0; r->deprecated && r->deprecated[j]; j++)
            printf(" %s(deprecated)", r->deprecated[j]);
        printf("\n");
        for (size_t j = 0; j < r->n_os; j++) {
            printf("  %s %s", r->os[j].id, r->os[j].version_id);
            if (r->os[j].apt_suite)
                printf(", apt suite %s", r->apt_suite_ubuntu ? "ubuntu" : r->os[j].apt_suite);
            printf(", kernels");
            for (size_t m = 0; r->os[j].kernels && r->os[j].kernels[m]; m++)
                printf(" %s", r->os[j].kernels[m]);
            printf("\n");
        }
    }
    return fflush(stdout) != 0 ? rd_fail("cannot write to standard output") : 0;
}

#define CONFIG_TITLE "GPU count expected by rocm-doctor.conf (expected_gpus)"

static int list_checks(bool json)
{
    if (json) {
        json_object *arr = json_object_new_array();
        for (size_t i = 0; i < rd_probe_registry.n_gather; i++) {
            const rd_probe *p = rd_probe_registry.gather[i];
            json_object *o = json_object_new_object();
            json_object_object_add(o, "id", json_object_new_string(p->id));
            json_object_object_add(o, "title", json_object_new_string(p->title));
            json_object_object_add(o, "level", json_object_new_int((p->flags & RD_PROBE_LEVEL2) ? 2 : 1));
            json_object *f = json_object_new_array();
            for (size_t j = 0; p->findings && p->findings[j]; j++)
                json_object_array_add(f, json_object_new_string(p->findings[j]));
            json_object_object_add(o, "findings", f);
            /* the OS files it reads, under --root: what a container must
             * mount (contrib/kubernetes) */
            json_object *reads = json_object_new_array();
            for (size_t j = 0; p->reads && p->reads[j].path; j++) {
                json_object *in = json_object_new_object();
                json_object_object_add(in, "path", json_object_new_string(p->reads[j].path));
                json_object_object_add(in, "directory", json_object_new_boolean(p->reads[j].is_dir));
                json_object_array_add(reads, in);
            }
            json_object_object_add(o, "reads", reads);
            json_object_array_add(arr, o);
        }
        json_object *cfg = json_object_new_object();
        json_object_object_add(cfg, "id", json_object_new_string("config"));
        json_object_object_add(cfg, "title", json_object_new_string(CONFIG_TITLE));
        json_object_object_add(cfg, "level", json_object_new_int(1));
        json_object *cf = json_object_new_array();
        json_object_array_add(cf, json_object_new_string(RD_CONFIG_FINDING));
        json_object_object_add(cfg, "findings", cf);
        json_object_object_add(cfg, "reads", json_object_new_array());
        json_object_array_add(arr, cfg);
        json_object *root = json_object_new_object();
        json_object_object_add(root, "checks", arr);
        return rd_cli_print_json(root) < 0 ? rd_fail("cannot write to standard output") : 0;
    }
    for (size_t i = 0; i < rd_probe_registry.n_gather; i++) {
        const rd_probe *p = rd_probe_registry.gather[i];
        printf("%-10s %s%s\n", p->id, p->title, (p->flags & RD_PROBE_LEVEL2) ? " (level 2)" : "");
        for (size_t j = 0; p->findings && p->findings[j]; j++)
            printf("           %s\n", p->findings[j]);
    }
    /* not a probe: the configuration's expectation, checked after them */
    printf("%-10s %s\n           %s\n", "config", CONFIG_TITLE, RD_CONFIG_FINDING);
    return fflush(stdout) != 0 ? rd_fail("cannot write to standard output") : 0;
}

/* conf/packages.ini: what setup installs, per use case and package manager. */
static int list_usecases(const rd_knowledge *k, bool json)
{
    const rd_packages_table *t = &k->packages;
    static const char *const pms[] = { "apt", "dnf", "zypper" };
    if (json) {
        json_object *arr = json_object_new_array();
        for (size_t i = 0; i < t->n_usecases; i++) {
            const rd_usecase *u = &t->usecases[i];
            json_object *o = json_object_new_object();
            json_object_object_add(o, "usecase", json_object_new_string(u->name));
            json_object_object_add(o, "summary", u->summary ? json_object_new_string(u->summary) : NULL);
            json_object_object_add(o, "since", u->since ? json_object_new_string(u->since) : NULL);
            json_object_object_add(o, "driver", json_object_new_boolean(u->driver));
            json_object_object_add(o, "default", json_object_new_boolean(strv_contains(t->default_usecases, u->name)));
            json_object *pk = json_object_new_object();
            for (size_t m = 0; m < ELEMENTSOF(pms); m++)
                json_object_object_add(pk, pms[m], rd_json_strv(rd_usecase_packages(u, pms[m])));
            json_object_object_add(o, "packages", pk);
            json_object_array_add(arr, o);
        }
        json_object *root = json_object_new_object();
        json_object_object_add(root, "table", json_object_new_string(strempty(t->info.name)));
        json_object_object_add(root, "usecases", arr);
        return rd_cli_print_json(root) < 0 ? rd_fail("cannot write to standard output") : 0;
    }
    if (!t->n_usecases)
        printf("packages.ini is missing: setup has nothing to install\n");
    else
        printf("packages.ini %s (%s)\n", strempty(t->info.version), strempty(t->info.date));
    for (size_t i = 0; i < t->n_usecases; i++) {
        const rd_usecase *u = &t->usecases[i];
        printf("\n%s%s: %s\n", u->name, strv_contains(t->default_usecases, u->name) ? " (default)" : "",
               strempty(u->summary));
        for (size_t m = 0; m < ELEMENTSOF(pms); m++) {
            char *const *v = rd_usecase_packages(u, pms[m]);
            printf("  %-7s", pms[m]);
            for (size_t j = 0; v && v[j]; j++)
                printf(" %s", v[j]);
            printf("%s\n", v && v[0] ? "" : " -");
        }
    }
    return fflush(stdout) != 0 ? rd_fail("cannot write to standard output") : 0;
}

/* conf/health.ini [vram]: one product per name and memory, with its ids
 * ("744c.c8"; several revisions of one device as "1586.c1/c3"). */
typedef struct {
    const rd_product_memory *first, *last;
    strbuf ids;
    json_object *json_ids;
} gpu_row;

static gpu_row *gpu_rows(const rd_knowledge *k, size_t *ret_n)
{
    gpu_row *rows = NULL;
    size_t n = 0;
    for (size_t i = 0; i < k->n_product_memory; i++) {
        const rd_product_memory *p = &k->product_memory[i];
        gpu_row *r = NULL;
        for (size_t j = 0; j < n && !r; j++)
            if (streq(rows[j].first->product, p->product) && rows[j].first->vram_bytes == p->vram_bytes)
                r = &rows[j];
        const rd_product_memory *prev = r ? r->last : NULL;
        if (!r) {
            r = ARRAY_APPEND(rows, n);
            r->first = p;
            r->json_ids = json_object_new_array();
        }
        r->last = p;
        if (prev && prev->device_id == p->device_id && prev->revision >= 0 && p->revision >= 0)
            strbuf_printf(&r->ids, "/%02x", (unsigned)p->revision);
        else {
            strbuf_printf(&r->ids, "%s%04x", r->ids.s ? " " : "", p->device_id);
            if (p->revision >= 0)
                strbuf_printf(&r->ids, ".%02x", (unsigned)p->revision);
        }
        json_object *id = json_object_new_object();
        char dev[8], rev[4];
        snprintf(dev, sizeof dev, "%04x", p->device_id);
        snprintf(rev, sizeof rev, "%02x", (unsigned)(p->revision & 0xff));
        json_object_object_add(id, "vendor_id", json_object_new_string("1002"));
        json_object_object_add(id, "device_id", json_object_new_string(dev));
        json_object_object_add(id, "revision", p->revision >= 0 ? json_object_new_string(rev) : NULL);
        json_object_array_add(r->json_ids, id);
    }
    *ret_n = n;
    return rows;
}


static void left_out_key(const rd_product_left_out *l, char *buf, size_t size)
{
    if (l->revision >= 0)
        snprintf(buf, size, "%04x.%02x", l->device_id, (unsigned)l->revision);
    else
        snprintf(buf, size, "%04x", l->device_id);
}

static json_object *gpus_json(const rd_knowledge *k, gpu_row *rows, size_t n)
{
    json_object *root = json_object_new_object();
    json_object *tables = json_object_new_array();
    json_object_array_add(tables, table_json(&k->health_info));
    json_object_array_add(tables, table_json(&k->pci_ids_info));
    json_object_array_add(tables, table_json(&k->support_info));
    json_object_object_add(root, "tables", tables);
    json_object *arr = json_object_new_array();
    for (size_t i = 0; i < n; i++) {
        const rd_product_memory *p = rows[i].first;
        const char *gfx = rd_knowledge_gfx_for_pci_id(k, p->device_id);
        json_object *o = json_object_new_object();
        json_object_object_add(o, "name", json_object_new_string(p->product));
        json_object_object_add(o, "pci_ids", rows[i].json_ids);
        rows[i].json_ids = NULL;
        json_object_object_add(o, "gfx", gfx ? json_object_new_string(gfx) : NULL);
        json_object_object_add(o, "vram_gib", p->vram_bytes ? json_object_new_int64((int64_t)(p->vram_bytes >> 30)) : NULL);
        json_object_object_add(o, "shared_memory", json_object_new_boolean(!p->vram_bytes));
        char **sup = gfx ? lines_with(k, gfx, false) : NULL, **dep = gfx ? lines_with(k, gfx, true) : NULL;
        json_object_object_add(o, "supported_in", rd_json_strv(sup));
        json_object_object_add(o, "deprecated_in", rd_json_strv(dep));
        strv_free(sup);
        strv_free(dep);
        json_object_array_add(arr, o);
    }
    json_object_object_add(root, "gpus", arr);
    json_object *left = json_object_new_array();
    for (size_t i = 0; i < k->n_product_left_out; i++) {
        const rd_product_left_out *l = &k->product_left_out[i];
        char key[16];
        left_out_key(l, key, sizeof key);
        json_object *o = json_object_new_object();
        json_object_object_add(o, "pci_id", json_object_new_string(key));
        json_object_object_add(o, "reason", json_object_new_string(l->reason));
        json_object_array_add(left, o);
    }
    json_object_object_add(root, "left_out", left);
    return root;
}

static int list_gpus(const rd_knowledge *k, bool json)
{
    size_t n;
    gpu_row *rows = gpu_rows(k, &n);
    int r = 0;
    if (json)
        r = rd_cli_print_json(gpus_json(k, rows, n)) < 0 ? rd_fail("cannot write to standard output") : 0;
    else {
        print_table_header("health.ini", &k->health_info);
        print_table_header("pci-ids.ini", &k->pci_ids_info);
        print_table_header("support.ini", &k->support_info);
        int w = 6;
        for (size_t i = 0; i < n; i++)
            if ((int)strlen(rows[i].ids.s) > w)
                w = (int)strlen(rows[i].ids.s);
        printf("%-*s %-8s %-7s %-12s %s\n", w, "PCI ID", "GFX", "VRAM", "ROCM", "NAME");
        for (size_t i = 0; i < n; i++) {
            const rd_product_memory *p = rows[i].first;
            const char *gfx = rd_knowledge_gfx_for_pci_id(k, p->device_id);
            char vram[24] = "shared";
            if (p->vram_bytes)
                snprintf(vram, sizeof vram, "%" PRIu64 " GiB", p->vram_bytes >> 30);
            _cleanup_free_ char *rocm = rocm_lines(k, gfx);
            printf("%-*s %-8s %-7s %-12s %s\n", w, rows[i].ids.s, gfx ? gfx : "-", vram, rocm, p->product);
        }
        if (k->n_product_left_out)
            printf("\nLeft out on purpose (no memory size to judge by):\n");
        for (size_t i = 0; i < k->n_product_left_out; i++) {
            const rd_product_left_out *l = &k->product_left_out[i];
            char key[16];
            left_out_key(l, key, sizeof key);
            printf("%-*s %s\n", w, key, l->reason);
        }
        printf("\nPCI ID: device ids of vendor 1002, .REV a revision (c8/cc: two revisions).\n"
               "VRAM: what gpu.vram-missing expects; shared: an integrated GPU (system RAM).\n"
               "ROCM: release lines that support its target officially; dX: deprecated up\n"
               "to X (support.ini). `--json` gives every field in full.\n");
        r = fflush(stdout) != 0 ? rd_fail("cannot write to standard output") : 0;
    }
    for (size_t i = 0; i < n; i++) {
        free(rows[i].ids.s);
        json_object_put(rows[i].json_ids);
    }
    free(rows);
    return r;
}

static int list_fixes(bool json)
{
    if (json) {
        json_object *arr = json_object_new_array();
        for (size_t i = 0; i < rd_fix_registry.n_fixes; i++) {
            const rd_fix *x = rd_fix_registry.fixes[i];
            json_object *o = json_object_new_object();
            json_object_object_add(o, "id", json_object_new_string(x->id));
            json_object_object_add(o, "title", json_object_new_string(x->title));
            json_object_array_add(arr, o);
        }
        json_object *root = json_object_new_object();
        json_object_object_add(root, "fixes", arr);
        return rd_cli_print_json(root) < 0 ? rd_fail("cannot write to standard output") : 0;
    }
    for (size_t i = 0; i < rd_fix_registry.n_fixes; i++)
        printf("%-10s %s\n", rd_fix_registry.fixes[i]->id, rd_fix_registry.fixes[i]->title);
    return fflush(stdout) != 0 ? rd_fail("cannot write to standard output") : 0;
}

int rd_verb_list(const rd_options *o, char **args, size_t n_args)
{
    int r;
    if (o->format_set && o->format != RD_FORMAT_TEXT && o->format != RD_FORMAT_JSON)
        return rd_usage_error("%s", "list prints text or json");
    if (n_args == 0)
        return rd_usage_error("%s", "list needs what to list: archs, releases, gpus, checks, fixes or usecases");
    if (n_args > 1)
        return rd_usage_error("unexpected argument \"%s\"", args[1]);
    bool json = o->format == RD_FORMAT_JSON;
    if (streq(args[0], "checks"))
        return list_checks(json);
    if (streq(args[0], "fixes"))
        return list_fixes(json);
    if (!streq(args[0], "archs") && !streq(args[0], "releases") && !streq(args[0], "usecases") &&
        !streq(args[0], "gpus"))
        return rd_usage_error("cannot list \"%s\": archs, releases, gpus, checks, fixes or usecases", args[0]);

    rd_knowledge k = { 0 };
    _cleanup_free_ char *err = NULL;
    if (rd_knowledge_load(rd_data_dir(), &k, &err) < 0)
        return rd_fail("%s", err);
    r = streq(args[0], "archs")      ? list_archs(&k, json)
        : streq(args[0], "usecases") ? list_usecases(&k, json)
        : streq(args[0], "gpus")     ? list_gpus(&k, json)
                                     : list_releases(&k, json);
    rd_knowledge_free(&k);
    return r;
}
