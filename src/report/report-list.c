/* SPDX-License-Identifier: MIT */
/* list: the knowledge the checks use, as text and as JSON. archs (gfx
 * targets with their family, APU flag, PCIe atomics rule, override and
 * support), releases (the support matrix), checks (every probe and the
 * findings it can report), usecases (what setup installs), gpus (the
 * products of health.ini [vram] with their target, memory and support),
 * fixes (every fix id, what `fix --only` accepts besides finding ids). */
#include <inttypes.h>
#include "report-list.h"
#include "json-util.h"
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
    rd_json_set_str(o, "name", t->name);
    rd_json_set_str(o, "version", t->version);
    rd_json_set_str(o, "date", t->date);
    return o;
}

/* [table_json(infos[0]), ...] */
static json_object *tables_json(const rd_table_info *const *infos, size_t n)
{
    json_object *a = json_object_new_array();
    for (size_t i = 0; i < n; i++)
        json_object_array_add(a, table_json(infos[i]));
    return a;
}

static void print_table_header(FILE *out, const char *file, const rd_table_info *t)
{
    if (t->name)
        fprintf(out, "# %s: table %s, version %s, %s\n", file, t->name, t->version, t->date);
    else
        fprintf(out, "# %s: absent\n", file);
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

/* o.supported_in and o.deprecated_in: the release lines of gfx (none for NULL). */
static void add_rocm_lines_json(json_object *o, const rd_knowledge *k, const char *gfx)
{
    _cleanup_strv_free_ char **sup = gfx ? lines_with(k, gfx, false) : NULL;
    _cleanup_strv_free_ char **dep = gfx ? lines_with(k, gfx, true) : NULL;
    rd_json_add(o, "supported_in", rd_json_strv(sup));
    rd_json_add(o, "deprecated_in", rd_json_strv(dep));
}

/* ---- archs ---- */

static json_object *archs_json(const rd_list_input *in)
{
    const rd_knowledge *k = in->knowledge;
    json_object *root = json_object_new_object();
    const rd_table_info *infos[] = { &k->archs_info, &k->support_info };
    rd_json_add(root, "tables", tables_json(infos, ELEMENTSOF(infos)));
    json_object *archs = json_object_new_array();
    for (size_t i = 0; i < k->n_archs; i++) {
        const rd_arch *a = &k->archs[i];
        json_object *o = json_object_new_object();
        rd_json_set_str(o, "gfx", a->gfx);
        rd_json_set_int(o, "gfx_target_version", a->gfx_target_version);
        rd_json_set_str(o, "codename", a->codename);
        rd_json_set_str(o, "family", a->family);
        rd_json_set_bool(o, "apu", a->apu);
        rd_json_set_str(o, "atomics", atomics_name(a->atomics));
        rd_json_add(o, "atomics_min_firmware",
                    a->atomics == RD_ATOMICS_FIRMWARE ? json_object_new_int64(a->atomics_fw) : NULL);
        rd_json_set_str(o, "override", a->override);
        add_rocm_lines_json(o, k, a->gfx);
        json_object_array_add(archs, o);
    }
    rd_json_add(root, "archs", archs);
    return root;
}

static void archs_text(FILE *out, const rd_list_input *in)
{
    const rd_knowledge *k = in->knowledge;
    print_table_header(out, "archs.ini", &k->archs_info);
    print_table_header(out, "support.ini", &k->support_info);
    fprintf(out, "%-7s %-6s %-7s %-3s %-6s %-8s %-14s %s\n", "GFX", "TARGET", "FAMILY", "APU", "ATOM", "OVERRIDE",
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
        fprintf(out, "%-7s %-6u %-7s %-3s %-6s %-8s %-14s %.*s%s\n", a->gfx, a->gfx_target_version, a->family,
                a->apu ? "yes" : "no", atomics, a->override ? a->override : "-", rocm,
                (int)(strlen(cn) > room ? room - 3 : strlen(cn)), cn, strlen(cn) > room ? "..." : "");
    }
    fprintf(out, "\nATOM: a discrete GPU needs PCIe AtomicOps (fw<N: unless its MEC firmware is\n"
                 "N or newer). ROCM: release lines that support it officially; dX: deprecated\n"
                 "up to X (support.ini). `--json` gives every field in full.\n");
}

/* ---- releases ---- */

static json_object *release_json(const rd_release *r)
{
    json_object *o = json_object_new_object();
    rd_json_set_str(o, "release", r->line);
    rd_json_set_str(o, "latest", r->latest);
    rd_json_set_str(o, "date", r->date);
    rd_json_add(o, "gfx", rd_json_strv(r->gfx));
    rd_json_add(o, "deprecated", rd_json_strv(r->deprecated));
    rd_json_set_str(o, "apt_suite", r->apt_suite_ubuntu ? "ubuntu" : "codename");
    rd_json_set_str(o, "dkms", r->dkms);
    json_object *w = json_object_new_object();
    rd_json_set_int(w, r->window_kind == RD_WINDOW_RELEASES ? "releases" : "months", r->window);
    rd_json_add(o, "window", w);
    json_object *oses = json_object_new_array();
    for (size_t j = 0; j < r->n_os; j++) {
        json_object *x = json_object_new_object();
        rd_json_set_str(x, "id", r->os[j].id);
        rd_json_set_str(x, "version_id", r->os[j].version_id);
        rd_json_set_str(x, "codename", r->os[j].codename);
        rd_json_set_str(x, "apt_suite", r->os[j].apt_suite);
        rd_json_add(x, "kernels", rd_json_strv(r->os[j].kernels));
        json_object_array_add(oses, x);
    }
    rd_json_add(o, "os", oses);
    return o;
}

/* One row of repos.ini: per family, the folders of each kind. */
static json_object *repo_row_json(const rd_repo_row *r)
{
    json_object *o = json_object_new_object();
    rd_json_set_str(o, "release", r->release);
    rd_json_set_str(o, "date", r->date);
    rd_json_set_str(o, "driver", r->driver);
    for (int f = 0; f < RD_REPO_N_FAMILIES; f++) {
        json_object *fam = json_object_new_object();
        for (int kind = 0; kind < RD_REPO_N_KINDS; kind++)
            rd_json_set_str(fam, rd_repo_kind_name((rd_repo_kind)kind),
                            rd_repo_path(r, (rd_repo_family)f, (rd_repo_kind)kind));
        char *const *list = f == RD_REPO_APT ? r->suites : f == RD_REPO_EL ? r->el_trees : r->sles_trees;
        rd_json_add(fam, f == RD_REPO_APT ? "suites" : "trees", rd_json_strv(list));
        rd_json_add(o, rd_repo_family_name((rd_repo_family)f), fam);
    }
    rd_json_add(o, "sources", rd_json_strv(r->sources));
    return o;
}

static json_object *releases_json(const rd_list_input *in)
{
    const rd_knowledge *k = in->knowledge;
    json_object *root = json_object_new_object();
    rd_json_add(root, "table", table_json(&k->support_info));
    json_object *rels = json_object_new_array();
    for (size_t i = 0; i < k->n_releases; i++)
        json_object_array_add(rels, release_json(&k->releases[i]));
    rd_json_add(root, "releases", rels);
    rd_json_add(root, "repositories_table", table_json(&k->repos_info));
    json_object *repos = json_object_new_array();
    for (size_t i = 0; i < k->n_repos; i++)
        json_object_array_add(repos, repo_row_json(&k->repos[i]));
    rd_json_add(root, "repositories", repos);
    return root;
}

/* " a b c" ("" for none); each with suffix after it */
static void print_words(FILE *out, char *const *v, const char *suffix)
{
    for (size_t j = 0; v && v[j]; j++)
        fprintf(out, " %s%s", v[j], suffix);
}

static void releases_text(FILE *out, const rd_list_input *in)
{
    const rd_knowledge *k = in->knowledge;
    print_table_header(out, "support.ini", &k->support_info);
    print_table_header(out, "repos.ini", &k->repos_info);
    for (size_t i = 0; i < k->n_releases; i++) {
        const rd_release *r = &k->releases[i];
        fprintf(out, "\nROCm %s (latest %s, %s), amdgpu-dkms %s, driver window %u %s\n", r->line, r->latest, r->date,
                r->dkms ? r->dkms : "-", r->window, r->window_kind == RD_WINDOW_RELEASES ? "releases" : "months");
        fprintf(out, "  gfx:");
        print_words(out, r->gfx, "");
        print_words(out, r->deprecated, "(deprecated)");
        fprintf(out, "\n");
        for (size_t j = 0; j < r->n_os; j++) {
            fprintf(out, "  %s %s", r->os[j].id, r->os[j].version_id);
            if (r->os[j].apt_suite)
                fprintf(out, ", apt suite %s", r->apt_suite_ubuntu ? "ubuntu" : r->os[j].apt_suite);
            fprintf(out, ", kernels");
            print_words(out, r->os[j].kernels, "");
            fprintf(out, "\n");
        }
        for (size_t j = 0; j < k->n_repos; j++) {
            const rd_repo_row *row = &k->repos[j];
            const char *rest = startswith(row->release, r->line);
            if (!rest || *rest != '.')
                continue;
            fprintf(out, "  %s (%s)%s%s:", row->release, row->date ? row->date : "date not known",
                    row->driver ? ", driver " : "", row->driver ? row->driver : "");
            for (int kind = 0; kind < RD_REPO_INSTALLER; kind++) {
                const char *path = rd_repo_path(row, RD_REPO_APT, (rd_repo_kind)kind);
                if (!path)
                    path = rd_repo_path(row, RD_REPO_EL, (rd_repo_kind)kind);
                if (path)
                    fprintf(out, "%s %s", kind ? "," : "", path);
            }
            fprintf(out, "\n");
        }
    }
}

/* ---- checks ---- */

#define CONFIG_TITLE "GPU count expected by rocm-doctor.conf (expected_gpus)"

static json_object *check_json(const char *id, const char *title, int level, const char *const *findings,
                               const rd_probe_input *reads)
{
    json_object *o = json_object_new_object();
    rd_json_set_str(o, "id", id);
    rd_json_set_str(o, "title", title);
    rd_json_set_int(o, "level", level);
    rd_json_add(o, "findings", rd_json_strv((char *const *)findings));
    /* the OS files it reads, under --root: what a container must mount
     * (contrib/kubernetes) */
    json_object *a = json_object_new_array();
    for (size_t j = 0; reads && reads[j].path; j++) {
        json_object *r = json_object_new_object();
        rd_json_set_str(r, "path", reads[j].path);
        rd_json_set_bool(r, "directory", reads[j].is_dir);
        json_object_array_add(a, r);
    }
    rd_json_add(o, "reads", a);
    return o;
}

static json_object *checks_json(const rd_list_input *in)
{
    json_object *arr = json_object_new_array();
    for (size_t i = 0; i < in->probes->n_gather; i++) {
        const rd_probe *p = in->probes->gather[i];
        json_object_array_add(arr,
                              check_json(p->id, p->title, (p->flags & RD_PROBE_LEVEL2) ? 2 : 1, p->findings, p->reads));
    }
    json_object_array_add(arr, check_json("config", CONFIG_TITLE, 1, RD_STRV(RD_CONFIG_FINDING), NULL));
    json_object *root = json_object_new_object();
    rd_json_add(root, "checks", arr);
    return root;
}

static void checks_text(FILE *out, const rd_list_input *in)
{
    for (size_t i = 0; i < in->probes->n_gather; i++) {
        const rd_probe *p = in->probes->gather[i];
        fprintf(out, "%-10s %s%s\n", p->id, p->title, (p->flags & RD_PROBE_LEVEL2) ? " (level 2)" : "");
        for (size_t j = 0; p->findings && p->findings[j]; j++)
            fprintf(out, "           %s\n", p->findings[j]);
    }
    /* not a probe: the configuration's expectation, checked after them */
    fprintf(out, "%-10s %s\n           %s\n", "config", CONFIG_TITLE, RD_CONFIG_FINDING);
}

/* ---- usecases: conf/packages.ini, what setup installs ---- */

static const char *const package_managers[] = { "apt", "dnf", "zypper" };

static json_object *usecases_json(const rd_list_input *in)
{
    const rd_packages_table *t = &in->knowledge->packages;
    json_object *arr = json_object_new_array();
    for (size_t i = 0; i < t->n_usecases; i++) {
        const rd_usecase *u = &t->usecases[i];
        json_object *o = json_object_new_object();
        rd_json_set_str(o, "usecase", u->name);
        rd_json_set_str(o, "summary", u->summary);
        rd_json_set_str(o, "since", u->since);
        rd_json_set_bool(o, "driver", u->driver);
        rd_json_set_bool(o, "default", strv_contains(t->default_usecases, u->name));
        json_object *pk = json_object_new_object();
        for (size_t m = 0; m < ELEMENTSOF(package_managers); m++)
            rd_json_add(pk, package_managers[m], rd_json_strv(rd_usecase_packages(u, package_managers[m])));
        rd_json_add(o, "packages", pk);
        json_object_array_add(arr, o);
    }
    json_object *root = json_object_new_object();
    rd_json_set_str(root, "table", strempty(t->info.name));
    rd_json_add(root, "usecases", arr);
    return root;
}

static void usecases_text(FILE *out, const rd_list_input *in)
{
    const rd_packages_table *t = &in->knowledge->packages;
    if (!t->n_usecases)
        fprintf(out, "packages.ini is missing: setup has nothing to install\n");
    else
        fprintf(out, "packages.ini %s (%s)\n", strempty(t->info.version), strempty(t->info.date));
    for (size_t i = 0; i < t->n_usecases; i++) {
        const rd_usecase *u = &t->usecases[i];
        fprintf(out, "\n%s%s: %s\n", u->name, strv_contains(t->default_usecases, u->name) ? " (default)" : "",
                strempty(u->summary));
        for (size_t m = 0; m < ELEMENTSOF(package_managers); m++) {
            char *const *v = rd_usecase_packages(u, package_managers[m]);
            fprintf(out, "  %-7s", package_managers[m]);
            print_words(out, v, "");
            fprintf(out, "%s\n", v && v[0] ? "" : " -");
        }
    }
}

/* ---- gpus: conf/health.ini [vram] ---- */

/* One product per name and memory, with its ids ("744c.c8"; several
 * revisions of one device as "1586.c1/c3"). */
typedef struct {
    const rd_product_memory *first, *last;
    strbuf ids;
    json_object *json_ids;
} gpu_row;

static json_object *pci_id_json(const rd_product_memory *p)
{
    json_object *id = json_object_new_object();
    char dev[8], rev[4];
    snprintf(dev, sizeof dev, "%04x", p->device_id);
    snprintf(rev, sizeof rev, "%02x", (unsigned)(p->revision & 0xff));
    rd_json_set_str(id, "vendor_id", "1002");
    rd_json_set_str(id, "device_id", dev);
    rd_json_set_str(id, "revision", p->revision >= 0 ? rev : NULL);
    return id;
}

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
        json_object_array_add(r->json_ids, pci_id_json(p));
    }
    *ret_n = n;
    return rows;
}

static void gpu_rows_free(gpu_row *rows, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        free(rows[i].ids.s);
        json_object_put(rows[i].json_ids);
    }
    free(rows);
}

static void left_out_key(const rd_product_left_out *l, char *buf, size_t size)
{
    if (l->revision >= 0)
        snprintf(buf, size, "%04x.%02x", l->device_id, (unsigned)l->revision);
    else
        snprintf(buf, size, "%04x", l->device_id);
}

static json_object *gpus_json(const rd_list_input *in)
{
    const rd_knowledge *k = in->knowledge;
    size_t n;
    gpu_row *rows = gpu_rows(k, &n);
    json_object *root = json_object_new_object();
    const rd_table_info *infos[] = { &k->health_info, &k->pci_ids_info, &k->support_info };
    rd_json_add(root, "tables", tables_json(infos, ELEMENTSOF(infos)));
    json_object *arr = json_object_new_array();
    for (size_t i = 0; i < n; i++) {
        const rd_product_memory *p = rows[i].first;
        const char *gfx = rd_knowledge_gfx_for_pci_id(k, p->device_id);
        json_object *o = json_object_new_object();
        rd_json_set_str(o, "name", p->product);
        rd_json_add(o, "pci_ids", TAKE_PTR(rows[i].json_ids));
        rd_json_set_str(o, "gfx", gfx);
        rd_json_add(o, "vram_gib", p->vram_bytes ? json_object_new_int64((int64_t)(p->vram_bytes >> 30)) : NULL);
        rd_json_set_bool(o, "shared_memory", !p->vram_bytes);
        add_rocm_lines_json(o, k, gfx);
        json_object_array_add(arr, o);
    }
    rd_json_add(root, "gpus", arr);
    json_object *left = json_object_new_array();
    for (size_t i = 0; i < k->n_product_left_out; i++) {
        const rd_product_left_out *l = &k->product_left_out[i];
        char key[16];
        left_out_key(l, key, sizeof key);
        json_object *o = json_object_new_object();
        rd_json_set_str(o, "pci_id", key);
        rd_json_set_str(o, "reason", l->reason);
        json_object_array_add(left, o);
    }
    rd_json_add(root, "left_out", left);
    gpu_rows_free(rows, n);
    return root;
}

static void gpus_text(FILE *out, const rd_list_input *in)
{
    const rd_knowledge *k = in->knowledge;
    size_t n;
    gpu_row *rows = gpu_rows(k, &n);
    print_table_header(out, "health.ini", &k->health_info);
    print_table_header(out, "pci-ids.ini", &k->pci_ids_info);
    print_table_header(out, "support.ini", &k->support_info);
    int w = 6;
    for (size_t i = 0; i < n; i++)
        if ((int)strlen(rows[i].ids.s) > w)
            w = (int)strlen(rows[i].ids.s);
    fprintf(out, "%-*s %-8s %-7s %-12s %s\n", w, "PCI ID", "GFX", "VRAM", "ROCM", "NAME");
    for (size_t i = 0; i < n; i++) {
        const rd_product_memory *p = rows[i].first;
        const char *gfx = rd_knowledge_gfx_for_pci_id(k, p->device_id);
        char vram[24] = "shared";
        if (p->vram_bytes)
            snprintf(vram, sizeof vram, "%" PRIu64 " GiB", p->vram_bytes >> 30);
        _cleanup_free_ char *rocm = rocm_lines(k, gfx);
        fprintf(out, "%-*s %-8s %-7s %-12s %s\n", w, rows[i].ids.s, gfx ? gfx : "-", vram, rocm, p->product);
    }
    if (k->n_product_left_out)
        fprintf(out, "\nLeft out on purpose (no memory size to judge by):\n");
    for (size_t i = 0; i < k->n_product_left_out; i++) {
        const rd_product_left_out *l = &k->product_left_out[i];
        char key[16];
        left_out_key(l, key, sizeof key);
        fprintf(out, "%-*s %s\n", w, key, l->reason);
    }
    fprintf(out, "\nPCI ID: device ids of vendor 1002, .REV a revision (c8/cc: two revisions).\n"
                 "VRAM: what gpu.vram-missing expects; shared: an integrated GPU (system RAM).\n"
                 "ROCM: release lines that support its target officially; dX: deprecated up\n"
                 "to X (support.ini). `--json` gives every field in full.\n");
    gpu_rows_free(rows, n);
}

/* ---- fixes ---- */

static json_object *fixes_json(const rd_list_input *in)
{
    json_object *arr = json_object_new_array();
    for (size_t i = 0; i < in->fixes->n_fixes; i++) {
        const rd_fix *x = in->fixes->fixes[i];
        json_object *o = json_object_new_object();
        rd_json_set_str(o, "id", x->id);
        rd_json_set_str(o, "title", x->title);
        json_object_array_add(arr, o);
    }
    json_object *root = json_object_new_object();
    rd_json_add(root, "fixes", arr);
    return root;
}

static void fixes_text(FILE *out, const rd_list_input *in)
{
    for (size_t i = 0; i < in->fixes->n_fixes; i++)
        fprintf(out, "%-10s %s\n", in->fixes->fixes[i]->id, in->fixes->fixes[i]->title);
}

/* ---- releases --server ---- */

/* The server's releases that repos.ini has no row for. */
static char **not_in_tables(const rd_list_input *in)
{
    char **v = NULL;
    for (size_t i = 0; in->server_releases && in->server_releases[i]; i++)
        if (!rd_repos_find(in->knowledge, in->server_releases[i]))
            v = strv_push(v, xstrdup(in->server_releases[i]));
    return v;
}

static json_object *server_releases_json(const rd_list_input *in)
{
    _cleanup_strv_free_ char **missing = not_in_tables(in);
    json_object *root = json_object_new_object();
    rd_json_set_str(root, "server", in->server);
    rd_json_add(root, "releases", rd_json_strv(in->server_releases));
    rd_json_add(root, "not_in_tables", rd_json_strv(missing));
    rd_json_add(root, "repositories_table", table_json(&in->knowledge->repos_info));
    return root;
}

static void server_releases_text(FILE *out, const rd_list_input *in)
{
    _cleanup_strv_free_ char **missing = not_in_tables(in);
    fprintf(out, "Releases on %s that the tables lack (repos.ini of %s):", in->server,
            in->knowledge->repos_info.date ? in->knowledge->repos_info.date : "unknown date");
    if (!missing)
        fprintf(out, " none");
    print_words(out, missing, "");
    fprintf(out, "\n");
}

/* clang-format off */
static const struct {
    json_object *(*json)(const rd_list_input *in);
    void (*text)(FILE *out, const rd_list_input *in);
} lists[] = {
    [RD_LIST_ARCHS]    = { archs_json,    archs_text },
    [RD_LIST_RELEASES] = { releases_json, releases_text },
    [RD_LIST_CHECKS]   = { checks_json,   checks_text },
    [RD_LIST_USECASES] = { usecases_json, usecases_text },
    [RD_LIST_GPUS]     = { gpus_json,     gpus_text },
    [RD_LIST_FIXES]    = { fixes_json,    fixes_text },
    [RD_LIST_SERVER_RELEASES] = { server_releases_json, server_releases_text },
};
/* clang-format on */

void rd_report_list_text(FILE *out, rd_list_kind kind, const rd_list_input *in)
{
    lists[kind].text(out, in);
}

json_object *rd_report_list_json(rd_list_kind kind, const rd_list_input *in)
{
    return lists[kind].json(in);
}
