/* SPDX-License-Identifier: MIT */
/* ROCm installed as Python wheels (AMD's TheRock build): the distributions
 * rocm, rocm-sdk-core, rocm-sdk-libraries-<family> and rocm-sdk-device-<gfx>
 * in the site-packages of the environment named by --python, of the active
 * virtual or conda environment, and of the system's Python. Read from the
 * files pip leaves (*.dist-info/METADATA, _rocm_sdk_core/lib), never by
 * running Python. Layout and names: ROCm/TheRock RELEASES.md,
 * docs/packaging/python_packaging.md and
 * build_tools/packaging/python/templates/rocm/src/rocm_sdk/_dist_info.py;
 * the families' targets are in conf/wheels.ini. */
#include <ctype.h>
#include <fcntl.h>
#include <inttypes.h>
#include <strings.h>
#include <sys/stat.h>
#include "wheels.h"
#include "env.h"
#include "facts-json.h"
#include "probe.h"
#include "util.h"

/* Where the system's Python keeps its packages: lib/python3.X/site-packages
 * (Fedora, SUSE, Arch, pip's default), lib/python3/dist-packages (Debian's
 * packages) and /usr/local/lib/python3.X/dist-packages (pip on Debian). */
static const char *const system_prefixes[] = { "/usr", "/usr/local" };
static const char *const lib_dirs[] = { "lib", "lib64" };
static const char *const package_dirs[] = { "site-packages", "dist-packages" };

/* ---- parsers ---- */

char *rd_wheel_normalize(const char *name)
{
    /* PEP 503: lower case, runs of -, _ and . as one - */
    strbuf b = { 0 };
    strbuf_append(&b, "");
    for (const char *p = name; *p;) {
        if (*p == '-' || *p == '_' || *p == '.') {
            while (*p == '-' || *p == '_' || *p == '.')
                p++;
            strbuf_append(&b, "-");
            continue;
        }
        char ch = (char)tolower((unsigned char)*p++);
        strbuf_appendn(&b, &ch, 1);
    }
    return strbuf_steal(&b);
}

bool rd_wheel_is_rocm_dist(const char *normalized)
{
    return streq(normalized, "rocm") || streq(normalized, "rocm-sdk") || startswith(normalized, "rocm-sdk-") ||
           streq(normalized, "rocm-profiler");
}

typedef struct {
    char *name, *version;
} metadata_state;

static int metadata_line(char *line, void *userdata)
{
    metadata_state *m = userdata;
    size_t n = strlen(line);
    if (n > 0 && line[n - 1] == '\r')
        line[--n] = 0;
    if (n == 0) /* the headers end at the first empty line; the description follows */
        return 1;
    const char *v;
    if ((v = startswith(line, "Name:")) && !m->name)
        m->name = xstrdup(strstrip((char *)v));
    else if ((v = startswith(line, "Version:")) && !m->version)
        m->version = xstrdup(strstrip((char *)v));
    return 0;
}

static bool valid_token(const char *s)
{
    if (!s || !*s || strlen(s) > 128)
        return false;
    for (; *s; s++)
        if (!isalnum((unsigned char)*s) && !strchr("-_.+!", *s))
            return false;
    return true;
}

static int metadata_finish(metadata_state *m, char **ret_name, char **ret_version)
{
    if (!valid_token(m->name) || !valid_token(m->version)) {
        free(m->name);
        free(m->version);
        return -EINVAL;
    }
    *ret_name = m->name;
    *ret_version = m->version;
    return 0;
}

int rd_wheel_metadata_parse(const char *text, char **ret_name, char **ret_version)
{
    metadata_state m = { 0 };
    (void)foreach_line(text, metadata_line, &m);
    return metadata_finish(&m, ret_name, ret_version);
}

static bool is_gfx_target(const char *s)
{
    size_t n = strlen(s);
    if (n < 6 || n > 8 || !startswith(s, "gfx"))
        return false;
    for (const char *p = s + 3; *p; p++)
        if (!isdigit((unsigned char)*p) && !(*p >= 'a' && *p <= 'f'))
            return false;
    return true;
}

int rd_wheel_family_parse(const rd_knowledge *k, const char *dist, char **ret_family, char ***ret_gfx)
{
    _cleanup_free_ char *norm = rd_wheel_normalize(dist);
    const char *rest;
    if ((rest = startswith(norm, "rocm-sdk-device-")) && is_gfx_target(rest)) {
        *ret_family = NULL;
        *ret_gfx = strv_push(NULL, xstrdup(rest));
        return 0;
    }
    if (!(rest = startswith(norm, "rocm-sdk-libraries-")) || !*rest)
        return -ENOENT;
    const rd_wheel_family *f = rd_knowledge_wheel_family(k, rest);
    char **gfx = NULL;
    if (f)
        for (size_t i = 0; f->gfx && f->gfx[i]; i++)
            gfx = strv_push(gfx, xstrdup(f->gfx[i]));
    else if (is_gfx_target(rest)) /* each target is also a family of its own name */
        gfx = strv_push(gfx, xstrdup(rest));
    else if (!valid_token(rest))
        return -EINVAL;
    *ret_family = xstrdup(f ? f->name : rest);
    *ret_gfx = gfx;
    return 0;
}

/* ---- gather ---- */

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Sorted, each string once: n log n for a site-packages of any size. */
static void sort_unique(char **v, size_t n)
{
    if (!v)
        return;
    qsort(v, n, sizeof *v, cmp_str);
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (k > 0 && streq(v[k - 1], v[i]))
            free(v[i]);
        else
            v[k++] = v[i];
    v[k] = NULL;
}

/* What one site-packages adds up to while its distributions are read: the
 * lists' lengths, so that each append is O(1), and the families, joined
 * once at the end. */
typedef struct {
    size_t n_dists, n_gfx, n_families;
    char **families;
} dist_lists;

/* One ROCm distribution of site-packages sp: its METADATA into w. Returns
 * its normalized name when it is one of ROCm's, else NULL. */
static char *read_dist(const rd_ctx *ctx, rd_wheel_install *w, dist_lists *l, const char *sp, const char *dist_info,
                       bool *ret_core)
{
    _cleanup_free_ char *dir_name = xstrndup(dist_info, strcspn(dist_info, "-"));
    char *norm = rd_wheel_normalize(dir_name);
    if (!rd_wheel_is_rocm_dist(norm)) {
        free(norm);
        return NULL;
    }
    _cleanup_free_ char *meta = xasprintf("%s/%s/METADATA", sp, dist_info), *name = NULL, *version = NULL;
    metadata_state m = { 0 };
    int q = rd_root_read_lines(ctx, meta, metadata_line, &m);
    if (q < 0) {
        free(m.name);
        free(m.version);
    }
    if (q < 0 || metadata_finish(&m, &name, &version) < 0) {
        w->dists = strv_push_n(w->dists, &l->n_dists, xasprintf("%s (no readable METADATA)", dir_name));
        return norm;
    }
    w->dists = strv_push_n(w->dists, &l->n_dists, xasprintf("%s %s", name, version));
    bool core = streq(norm, "rocm-sdk-core");
    if (core || (streq(norm, "rocm") && !*ret_core) || !w->version) {
        free(w->version);
        free(w->version_source);
        w->version = xstrdup(version);
        w->version_source = TAKE_PTR(meta);
        *ret_core |= core;
    }
    char *family = NULL, **gfx = NULL;
    if (rd_wheel_family_parse(&ctx->knowledge, name, &family, &gfx) == 0) {
        if (family)
            l->families = strv_push_n(l->families, &l->n_families, TAKE_PTR(family));
        for (size_t i = 0; gfx && gfx[i]; i++)
            w->gfx = strv_push_n(w->gfx, &l->n_gfx, xstrdup(gfx[i])); /* made unique at the end */
        strv_free(gfx);
    }
    return norm;
}

/* _rocm_sdk_core/lib and the HIP runtime in it (the wheels hold only the
 * SONAME files: libamdhip64.so.7; a plain libamdhip64.so also counts). */
static void read_lib_dir(const rd_ctx *ctx, rd_wheel_install *w, const char *sp)
{
    _cleanup_free_ char *lib = xasprintf("%s/_rocm_sdk_core/lib", sp);
    _cleanup_strv_free_ char **names = NULL;
    if (rd_root_list_dir(ctx, lib, NULL, &names) < 0)
        return;
    w->lib_dir = TAKE_PTR(lib);
    for (size_t i = 0; names && names[i]; i++)
        if (startswith(names[i], "libamdhip64.so") && (!w->hip_library || strlen(names[i]) > strlen(w->hip_library))) {
            free(w->hip_library);
            w->hip_library = xstrdup(names[i]);
        }
    w->runtime = w->hip_library != NULL;
}

/* __version__ = "7.1.0" of rocm_sdk/_dist_info.py, for an install whose
 * METADATA said nothing. */
static void read_dist_info_py(const rd_ctx *ctx, rd_wheel_install *w, const char *sp)
{
    _cleanup_free_ char *path = xasprintf("%s/rocm_sdk/_dist_info.py", sp), *text = NULL;
    if (rd_root_read_file(ctx, path, 256 * 1024, &text) < 0)
        return;
    const char *p = strstr(text, "__version__");
    const char *q = p ? strpbrk(p, "\"'\n") : NULL;
    if (!q || *q == '\n')
        return;
    size_t n = strcspn(q + 1, "\"'\n");
    _cleanup_free_ char *v = xstrndup(q + 1, n);
    if (!valid_token(v))
        return;
    w->version = TAKE_PTR(v);
    w->version_source = TAKE_PTR(path);
}

/* torch's dist-info in site-packages sp: its version and, for a URL or
 * file install, the URL pip recorded (PEP 610 direct_url.json). */
static void read_torch_dist(const rd_ctx *ctx, rd_wheel_install *w, const char *sp, const char *dist_info)
{
    _cleanup_free_ char *meta = xasprintf("%s/%s/METADATA", sp, dist_info), *name = NULL, *version = NULL;
    metadata_state m = { 0 };
    if (rd_root_read_lines(ctx, meta, metadata_line, &m) < 0 || metadata_finish(&m, &name, &version) < 0) {
        free(m.name);
        free(m.version);
        return;
    }
    free(w->torch_version);
    w->torch_version = TAKE_PTR(version);
    _cleanup_free_ char *du = xasprintf("%s/%s/direct_url.json", sp, dist_info), *text = NULL;
    if (rd_root_read_file(ctx, du, 64 * 1024, &text) < 0)
        return;
    json_object *j = json_tokener_parse(text), *url = NULL;
    if (j && json_object_object_get_ex(j, "url", &url) && json_object_is_type(url, json_type_string)) {
        free(w->torch_direct_url);
        w->torch_direct_url = xstrdup(json_object_get_string(url));
    }
    json_object_put(j);
}

static void scan_site_packages(const rd_ctx *ctx, rd_wheel_facts *wf, const char *sp, const char *source,
                               const char *prefix)
{
    _cleanup_strv_free_ char **names = NULL;
    if (rd_root_list_dir(ctx, sp, ".dist-info", &names) < 0)
        return;
    rd_wheel_install w = { 0 };
    dist_lists lists = { 0 };
    bool core = false;
    for (size_t i = 0; names && names[i]; i++) {
        if (startswith(names[i], "torch-"))
            read_torch_dist(ctx, &w, sp, names[i]);
        free(read_dist(ctx, &w, &lists, sp, names[i], &core));
    }
    if (lists.families) {
        strbuf b = { 0 };
        for (size_t i = 0; i < lists.n_families; i++)
            strbuf_printf(&b, "%s%s", i ? ", " : "", lists.families[i]);
        w.family = strbuf_steal(&b);
        strv_free(lists.families);
    }
    if (!w.dists) {
        rd_struct_free(&rd_wheel_install_schema, &w);
        return;
    }
    w.site_packages = xstrdup(sp);
    w.source = xstrdup(source);
    w.prefix = xstrdup(prefix);
    read_lib_dir(ctx, &w, sp);
    if (!w.version)
        read_dist_info_py(ctx, &w, sp);
    sort_unique(w.gfx, lists.n_gfx);
    *ARRAY_APPEND(wf->installs, wf->n_installs) = w;
}

typedef struct {
    dev_t dev;
    ino_t ino;
} dir_id;

/* Every site-packages of an environment prefix, each directory once
 * (lib64 is often a link to lib). */
static void scan_prefix(const rd_ctx *ctx, rd_wheel_facts *wf, const char *prefix, const char *source, dir_id **seen,
                        size_t *n_seen)
{
    for (size_t l = 0; l < ELEMENTSOF(lib_dirs); l++) {
        _cleanup_free_ char *lib = xasprintf("%s/%s", root_prefix(prefix), lib_dirs[l]);
        _cleanup_strv_free_ char **names = NULL;
        if (rd_root_list_dir(ctx, lib, NULL, &names) < 0)
            continue;
        for (size_t i = 0; names && names[i]; i++) {
            if (!startswith(names[i], "python3"))
                continue;
            for (size_t k = 0; k < ELEMENTSOF(package_dirs); k++) {
                _cleanup_free_ char *sp = xasprintf("%s/%s/%s", lib, names[i], package_dirs[k]);
                _cleanup_close_ int fd = rd_root_open(ctx, sp, O_RDONLY | O_DIRECTORY);
                struct stat st;
                if (fd < 0 || fstat(fd, &st) < 0)
                    continue;
                bool dup = false;
                for (size_t s = 0; s < *n_seen && !dup; s++)
                    dup = (*seen)[s].dev == st.st_dev && (*seen)[s].ino == st.st_ino;
                if (dup)
                    continue;
                *ARRAY_APPEND(*seen, *n_seen) = (dir_id){ st.st_dev, st.st_ino };
                scan_site_packages(ctx, wf, sp, source, prefix);
            }
        }
    }
}

/* --python PATH: an environment directory, or a python executable in its
 * bin/ (the path as given: a venv's python is a link to the system's). */
static char *python_prefix(const rd_ctx *ctx, const char *path)
{
    _cleanup_close_ int fd = rd_root_open(ctx, path, O_RDONLY | O_DIRECTORY);
    if (fd >= 0)
        return xstrdup(path);
    _cleanup_free_ char *copy = xstrdup(path);
    size_t n = strlen(copy);
    while (n > 1 && copy[n - 1] == '/')
        copy[--n] = 0;
    char *slash = strrchr(copy, '/');
    if (!slash || slash == copy)
        return NULL;
    *slash = 0;
    slash = strrchr(copy, '/');
    if (!slash || !streq(slash + 1, "bin"))
        return NULL;
    *slash = 0;
    return xstrdup(*copy ? copy : "/");
}

static void wheels_gather(const rd_ctx *ctx, rd_facts *facts)
{
    rd_wheel_facts *wf = &facts->wheels;
    wf->checked = true;
    dir_id *seen = NULL;
    size_t n_seen = 0;
    if (ctx->python) {
        _cleanup_free_ char *prefix = python_prefix(ctx, ctx->python);
        if (prefix)
            scan_prefix(ctx, wf, prefix, "--python", &seen, &n_seen);
        else
            wf->error = xasprintf("--python %s: neither an environment directory nor a python in a bin/ directory",
                                  ctx->python);
    }
    static const char *const env_vars[] = { "VIRTUAL_ENV", "CONDA_PREFIX" };
    for (size_t i = 0; i < ELEMENTSOF(env_vars); i++) {
        const char *v = getenv(env_vars[i]);
        if (v && v[0] == '/')
            scan_prefix(ctx, wf, v, env_vars[i], &seen, &n_seen);
    }
    for (size_t i = 0; i < ELEMENTSOF(system_prefixes); i++)
        scan_prefix(ctx, wf, system_prefixes[i], "system", &seen, &n_seen);
    free(seen);
}

/* ---- assess ---- */

static bool has_discrete(const rd_gpu_view *v)
{
    for (size_t i = 0; i < v->n_gpus; i++)
        if (!v->gpus[i].integrated)
            return true;
    return false;
}

/* The GPU runs the wheels' code for its own target, or for the target its
 * HSA_OVERRIDE_GFX_VERSION names. */
static bool gpu_covered(const rd_facts *f, const rd_wheel_install *w, const rd_gpu *g)
{
    if (strv_contains(w->gfx, g->gfx))
        return true;
    char over[16] = "";
    if (g->n_kfd > 0)
        rd_env_override_target(&f->env, g->kfd[0]->node_id, over, sizeof over);
    return *over && strv_contains(w->gfx, over);
}

/* What becomes of torch in w's environment: from the family's index where it
 * came from there or is absent; else from the index it came from, AMD's
 * release wheels or pytorch.org's, which this environment's files tell. */
static char *torch_hint(const rd_knowledge *k, const rd_wheel_install *w)
{
    /* TheRock's own torch builds ("2.9.1+rocmsdk20260116") go with its wheels */
    if (!w->torch_version || strstr(w->torch_version, "+rocmsdk"))
        return xstrdup("and torch from the same index");
    (void)rd_knowledge_need(k, RD_KT_WHEELS, NULL);
    rd_torch_origin o;
    rd_torch_origin_of(w->torch_version, w->torch_direct_url, &o);
    const char *said = o.certain ? "says" : "suggests";
    const char *from = streq(o.from, "direct_url.json") ? "direct_url.json" : "version's local tag";
    if (o.index == RD_TORCH_INDEX_AMD_RELEASE && *o.series && k->wheel_release) {
        const char *ph = strstr(k->wheel_release, "{series}");
        unsigned ma, mi, pa = 0;
        char series[32];
        if (!ph || sscanf(o.series, "%u.%u.%u", &ma, &mi, &pa) < 2)
            return xstrdup("and torch from the same index");
        if (pa == 0)
            snprintf(series, sizeof series, "%u.%u", ma, mi);
        else
            snprintf(series, sizeof series, "%u.%u.%u", ma, mi, pa);
        return xasprintf("and torch %s from where it came from, AMD's release wheels %.*s%s%s (its %s %s so), "
                         "not from that index",
                         w->torch_version, (int)(ph - k->wheel_release), k->wheel_release, series,
                         ph + strlen("{series}"), from, said);
    }
    if (o.index == RD_TORCH_INDEX_PYTORCH || o.index == RD_TORCH_INDEX_PYTORCH_NIGHTLY)
        return xasprintf("and torch %s from where it came from, https://download.pytorch.org/whl/%srocm%s (its %s "
                         "%s so), not from that index",
                         w->torch_version, o.index == RD_TORCH_INDEX_PYTORCH_NIGHTLY ? "nightly/" : "", o.series, from,
                         said);
    return xasprintf("and torch from the same index (assumed: torch %s does not say where it came from)",
                     w->torch_version);
}

/* "pip install ..." for the family that holds gfx, in w's environment. */
static char *install_hint(const rd_knowledge *k, const rd_wheel_install *w, const char *gfx)
{
    const rd_wheel_family *fam = rd_knowledge_wheel_family_for(k, gfx);
    if (!fam || !k->wheel_index)
        return NULL;
    strbuf url = { 0 };
    const char *t = k->wheel_index, *ph = strstr(t, "{family}");
    strbuf_appendn(&url, t, (size_t)(ph - t));
    strbuf_printf(&url, "%s%s", fam->name, ph + strlen("{family}"));
    _cleanup_free_ char *python =
        streq_ptr(w->source, "system") ? xstrdup("python3") : xasprintf("%s/bin/python", w->prefix);
    _cleanup_free_ char *torch = torch_hint(k, w);
    char *s = xasprintf("%s (%s): `%s -m pip install --force-reinstall --index-url %s \"%s\"`, %s", fam->name, gfx,
                        python, url.s, k->wheel_packages ? k->wheel_packages : "rocm[libraries]", torch);
    free(url.s);
    return s;
}

static void no_kernels_finding(const rd_assess_input *in, const rd_wheel_install *w, const rd_gpu *first,
                               const char *addresses, size_t n, rd_findings *out)
{
    (void)rd_knowledge_need(in->knowledge, RD_KT_WHEELS, NULL);
    strbuf targets = { 0 };
    for (size_t i = 0; w->gfx && w->gfx[i]; i++)
        strbuf_printf(&targets, "%s%s", i ? " " : "", w->gfx[i]);
    rd_finding *fd =
        rd_finding_add(out, RD_FINDING(ARCH_NO_KERNELS), RD_SEV_ERROR, n == 1 ? first->pci->address : NULL,
                       "The ROCm %s wheels in %s are built for %s: no kernels for %s (%s)", strempty(w->version),
                       w->prefix, w->family ? w->family : targets.s, first->name, first->gfx);
    for (size_t i = 0; w->dists && w->dists[i]; i++)
        if (strstr(w->dists[i], "libraries") || strstr(w->dists[i], "device"))
            rd_finding_evidence(fd, "%s: %s", w->site_packages, w->dists[i]);
    rd_finding_evidence(fd, "wheel targets (conf/wheels.ini %s): %s", strempty(in->knowledge->wheels_info.version),
                        targets.s);
    rd_finding_evidence(fd, "%zu GPU%s %s: %s", n, n == 1 ? "" : "s", addresses, first->gfx);
    free(targets.s);
    _cleanup_free_ char *hint = install_hint(in->knowledge, w, first->gfx);
    if (hint)
        rd_finding_remedy(fd,
                          "Install the wheels of family %s (hipErrorNoBinaryForGpu, \"invalid device "
                          "function\" until then).",
                          hint);
    else
        rd_finding_remedy(fd,
                          "No published wheel family holds %s: use a ROCm release from the distribution's "
                          "packages, or build TheRock for it.",
                          first->gfx);
}

static void assess_kernels(const rd_assess_input *in, const rd_wheel_install *w, rd_findings *out)
{
    const rd_gpu_view *v = in->gpus;
    bool dgpu = has_discrete(v);
    if (!w->gfx)
        return;
    for (size_t i = 0; i < v->n_gpus; i++) {
        const rd_gpu *g = &v->gpus[i];
        if (!g->gfx[0] || (g->arch && g->arch->no_kfd) || (g->integrated && dgpu) || gpu_covered(in->facts, w, g))
            continue;
        bool earlier = false; /* one finding per target: the first GPU of it */
        for (size_t j = 0; j < i && !earlier; j++)
            earlier = streq(v->gpus[j].gfx, g->gfx) && !gpu_covered(in->facts, w, &v->gpus[j]);
        if (earlier)
            continue;
        strbuf addrs = { 0 };
        size_t n = 0;
        for (size_t j = i; j < v->n_gpus; j++)
            if (streq(v->gpus[j].gfx, g->gfx) && !gpu_covered(in->facts, w, &v->gpus[j]))
                strbuf_printf(&addrs, "%s%s", n++ ? ", " : "", v->gpus[j].pci->address);
        no_kernels_finding(in, w, g, addrs.s, n, out);
        free(addrs.s);
    }
}

/* "7.1.0" of "7.1.0rc20250610", "7.10.0.dev0": the release numbers. */
static char *release_of(const char *v)
{
    size_t n = strspn(v, "0123456789.");
    while (n > 0 && v[n - 1] == '.')
        n--;
    return xstrndup(v, n);
}

static const rd_rocm_install *system_install(const rd_rocm_facts *r)
{
    for (size_t i = 0; r->default_path && i < r->n_installs; i++)
        if (streq(r->installs[i].path, r->default_path) && r->installs[i].version)
            return &r->installs[i];
    for (size_t i = 0; i < r->n_installs; i++)
        if (r->installs[i].runtime && r->installs[i].version)
            return &r->installs[i];
    return NULL;
}

static void assess_versions(const rd_assess_input *in, const rd_wheel_install *w, rd_findings *out)
{
    const rd_rocm_facts *r = &in->facts->rocm;
    const rd_rocm_install *sys = system_install(r);
    if (!sys || !w->version)
        return;
    _cleanup_free_ char *wrel = release_of(w->version), *srel = release_of(sys->version);
    if (!*wrel || rd_version_compare(wrel, srel) == 0)
        return;
    rd_finding *fd = rd_finding_add(
        out, RD_FINDING(ROCM_MULTIPLE_VERSIONS), RD_SEV_WARNING, NULL,
        "ROCm %s as wheels in %s and ROCm %s in %s: Python there loads %s %s runtime", w->version, w->prefix,
        sys->version, sys->path, w->runtime ? "the wheels'" : "the system's", w->runtime ? w->version : sys->version);
    rd_finding_evidence(fd, "%s: Version: %s", strempty(w->version_source), w->version);
    rd_finding_evidence(fd, "%s: ROCm %s (%s)", sys->path, sys->version, strempty(sys->version_source));
    if (w->runtime)
        rd_finding_evidence(fd, "%s/%s: the wheels' HIP runtime, which rocm_sdk preloads in that environment",
                            w->lib_dir, w->hip_library);
    else
        rd_finding_evidence(fd, "%s: no libamdhip64 in the wheels: the loader's path decides",
                            w->lib_dir ? w->lib_dir : "_rocm_sdk_core/lib");
    for (size_t i = 0; i < r->n_ld_conf_dirs; i++)
        rd_finding_evidence(fd, "%s:%" PRId64 ": %s (programs that find libamdhip64 through the loader get ROCm %s)",
                            r->ld_conf_dirs[i].file, r->ld_conf_dirs[i].line, r->ld_conf_dirs[i].dir, sys->version);
    rd_finding_remedy(fd,
                      "Keep the two apart: in that environment, do not put %s/lib on LD_LIBRARY_PATH or build "
                      "extensions against it; or install the wheels of ROCm %s there (or the system's ROCm %s), "
                      "so that every part uses one version.",
                      sys->path, srel, wrel);
}

static void wheels_assess(const rd_assess_input *in, rd_findings *out)
{
    const rd_wheel_facts *wf = &in->facts->wheels;
    for (size_t i = 0; i < wf->n_installs; i++) {
        const rd_wheel_install *w = &wf->installs[i];
        if (in->gpus->n_gpus > 0)
            assess_kernels(in, w, out);
        assess_versions(in, w, out);
    }
}

static const char *const wheels_findings[] = { RD_FINDING(ARCH_NO_KERNELS), RD_FINDING(ROCM_MULTIPLE_VERSIONS), NULL };

/* clang-format off */
const rd_probe rd_probe_wheels = {
    .id = "wheels",
    .title = "ROCm as Python wheels: version, GPU family, runtime",
    .flags = 0,
    .findings = wheels_findings,
    .areas = RD_STRV("wheels"),
    .reads = (const rd_probe_input[]){
        { "/usr/lib/python3/dist-packages", true },
        { "/usr/local/lib", true },
        { NULL, false },
    },
    .gather = wheels_gather,
    .assess = wheels_assess,
};
/* clang-format on */
