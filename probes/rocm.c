/* SPDX-License-Identifier: MIT */
/* ROCm user space: every installation (/opt/rocm-*, /opt/rocm, a
 * distribution's packages under /usr), its version, runtime libraries and
 * rocBLAS kernels per gfx; where /opt/rocm points; PATH and the loader
 * configuration; and the release table's verdict on GPUs, driver and kernel. */
#include <ctype.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <sys/stat.h>
#include "rocm.h"
#include "dpkg.h"
#include "config.h"
#include "distro.h"
#include "probe.h"
#include "repo-url.h"
#include "release.h"
#include "util.h"

#define MAX_TEXT (1024 * 1024)

static const char *const runtime_libraries[] = {
    "libhsa-runtime64.so.1", "libamdhip64.so", "libamdhip64.so.5", "libamdhip64.so.6",
    "libamdhip64.so.7",      "libhiprtc.so",   "libhiprtc.so.6",   "libhiprtc.so.7",
};

/* Where distributions put ROCm's libraries: Debian/Ubuntu, Fedora/SUSE, Arch. */
static const char *const distribution_lib_dirs[] = {
    "/usr/lib/x86_64-linux-gnu",
    "/usr/lib64",
    "/usr/lib",
};

/* dpkg packages whose versions say which ROCm and driver are installed. */
static const char *const watched_packages[] = {
    "rocm-core",
    "rocm-hip-runtime",
    "hip-runtime-amd",
    "hsa-rocr",
    "rocminfo",
    "amdgpu-dkms",
    "amdgpu-install",
    "libhsa-runtime64-1",
    "libamdhip64-5",
    "libamdhip64-6",
    /* rpm names of the distributions' ROCm: Fedora, openSUSE */
    "rocm-runtime",
    "rocm-hip",
    "hsa-runtime",
};

bool rd_rocblas_file_gfx(const char *name, char *buf, size_t size)
{
    /* the last "gfx" followed by a digit: file names may carry "gfx" elsewhere */
    const char *found = NULL;
    for (const char *p = strstr(name, "gfx"); p; p = strstr(p + 3, "gfx"))
        if (isdigit((unsigned char)p[3]))
            found = p;
    if (!found)
        return false;
    size_t n = 3;
    while (found[n] && isxdigit((unsigned char)found[n]) && !isupper((unsigned char)found[n]))
        n++;
    if (n < 6 || n > 8 || n + 1 > size)
        return false;
    memcpy(buf, found, n);
    buf[n] = 0;
    return true;
}

static bool want_package(const char *name)
{
    /* asked for each of the host's packages: the first byte rules out most */
    for (size_t i = 0; i < ELEMENTSOF(watched_packages); i++)
        if (name[0] == watched_packages[i][0] && streq(name, watched_packages[i]))
            return true;
    return false;
}

char *rd_kernel_series(const char *release)
{
    unsigned a, b;
    if (!release || sscanf(release, "%u.%u", &a, &b) != 2)
        return NULL;
    return xasprintf("%u.%u", a, b);
}

static bool root_exists(const rd_ctx *ctx, const char *path, bool directory)
{
    int fd = rd_root_open(ctx, path, O_PATH | (directory ? O_DIRECTORY : 0));
    if (fd < 0)
        return false;
    close(fd);
    return true;
}

static char *first_line(const char *text)
{
    _cleanup_free_ char *s = xstrndup(text, strcspn(text, "\n"));
    return xstrdup(strstrip(s));
}

static void scan_rocblas(const rd_ctx *ctx, rd_rocm_install *in, const char *dir)
{
    _cleanup_strv_free_ char **names = NULL;
    if (rd_root_list_dir(ctx, dir, NULL, &names) < 0)
        return;
    in->rocblas_dir = xstrdup(dir);
    for (size_t i = 0; names && names[i]; i++) {
        char gfx[16];
        if (rd_rocblas_file_gfx(names[i], gfx, sizeof gfx) && !strv_contains(in->rocblas_gfx, gfx))
            in->rocblas_gfx = strv_push(in->rocblas_gfx, xstrdup(gfx));
    }
    /* sorted, so facts and evidence read the same on every host */
    size_t n = strv_length(in->rocblas_gfx);
    for (size_t i = 1; i < n; i++)
        for (size_t j = i; j > 0 && strcmp(in->rocblas_gfx[j - 1], in->rocblas_gfx[j]) > 0; j--) {
            char *t = in->rocblas_gfx[j];
            in->rocblas_gfx[j] = in->rocblas_gfx[j - 1];
            in->rocblas_gfx[j - 1] = t;
        }
}

static void scan_libraries(const rd_ctx *ctx, rd_rocm_install *in)
{
    for (size_t i = 0; i < ELEMENTSOF(runtime_libraries); i++) {
        _cleanup_free_ char *p = xasprintf("%s/%s", in->lib_dir, runtime_libraries[i]);
        if (root_exists(ctx, p, false))
            in->libraries = strv_push(in->libraries, xstrdup(runtime_libraries[i]));
    }
    in->runtime = strv_contains(in->libraries, "libhsa-runtime64.so.1");
}

static void gather_opt_install(const rd_ctx *ctx, rd_rocm_facts *r, const char *path, const char *suffix)
{
    rd_rocm_install *in = ARRAY_APPEND(r->installs, r->n_installs);
    in->path = xstrdup(path);
    in->kind = xstrdup("opt");
    _cleanup_free_ char *info = xasprintf("%s/.info/version", path), *text = NULL, *v = NULL;
    if (rd_root_read_file(ctx, info, 4096, &text) >= 0 && *(v = first_line(text))) {
        in->version = xstrndup(v, strcspn(v, "-"));
        in->version_source = xasprintf("%s: %s", info, v);
    } else if (suffix && isdigit((unsigned char)suffix[0])) {
        in->version = xstrdup(suffix);
        in->version_source = xasprintf("directory name %s", path);
    }
    in->lib_dir = xasprintf("%s/lib", path);
    _cleanup_free_ char *bin = xasprintf("%s/bin", path);
    in->has_bin = root_exists(ctx, bin, true);
    scan_libraries(ctx, in);
    _cleanup_free_ char *rb = xasprintf("%s/lib/rocblas/library", path);
    scan_rocblas(ctx, in, rb);
}

static const char *package_version(const rd_rocm_facts *r, const char *name)
{
    for (size_t i = 0; i < r->n_packages; i++)
        if (streq(r->packages[i].name, name))
            return r->packages[i].version;
    return NULL;
}

/* Where a package was seen, for evidence lines. */
static const char *package_source(const rd_rocm_facts *r, const char *name)
{
    for (size_t i = 0; i < r->n_packages; i++)
        if (streq(r->packages[i].name, name))
            return r->packages[i].source ? r->packages[i].source : "/var/lib/dpkg/status";
    return "/var/lib/dpkg/status";
}

static void gather_distribution(const rd_ctx *ctx, rd_rocm_facts *r)
{
    for (size_t i = 0; i < ELEMENTSOF(distribution_lib_dirs); i++) {
        _cleanup_free_ char *hsa = xasprintf("%s/libhsa-runtime64.so.1", distribution_lib_dirs[i]);
        if (!root_exists(ctx, hsa, false))
            continue;
        rd_rocm_install *in = ARRAY_APPEND(r->installs, r->n_installs);
        in->path = xstrdup("/usr");
        in->kind = xstrdup("distribution");
        in->lib_dir = xstrdup(distribution_lib_dirs[i]);
        /* Debian's and openSUSE's libhsa-runtime64-1, Fedora's rocm-runtime */
        const char *pkg = package_version(r, "libhsa-runtime64-1") ? "libhsa-runtime64-1" : "rocm-runtime";
        const char *v = package_version(r, pkg);
        if (v) {
            /* "5.2.3-3": drop an epoch and the Debian revision */
            const char *colon = strchr(v, ':');
            const char *start = colon ? colon + 1 : v;
            in->version = xstrndup(start, strcspn(start, "-~+"));
            in->version_source = xasprintf("%s: %s %s", package_source(r, pkg), pkg, v);
        }
        scan_libraries(ctx, in);
        _cleanup_free_ char *rb = xasprintf("%s/rocblas", distribution_lib_dirs[i]);
        _cleanup_strv_free_ char **sub = NULL;
        if (rd_root_list_dir(ctx, rb, NULL, &sub) >= 0)
            for (size_t j = 0; sub && sub[j] && !in->rocblas_dir; j++) {
                _cleanup_free_ char *lib =
                    streq(sub[j], "library") ? xasprintf("%s/library", rb) : xasprintf("%s/%s/library", rb, sub[j]);
                if (root_exists(ctx, lib, true))
                    scan_rocblas(ctx, in, lib);
            }
        return; /* the first directory is the one the loader uses */
    }
}

/* One shell word from p (quotes removed, the escapes of double quotes
 * undone), ending at unquoted blank space or an operator or comment. */
static char *shell_word(const char *p)
{
    strbuf b = { 0 };
    strbuf_append(&b, "");
    for (char q = 0; *p; p++) {
        if (q) {
            if (*p == q)
                q = 0;
            else if (q == '"' && *p == '\\' && p[1])
                strbuf_appendn(&b, ++p, 1);
            else
                strbuf_appendn(&b, p, 1);
        } else if (*p == '"' || *p == '\'')
            q = *p;
        else if (isspace((unsigned char)*p) || strchr(";&|#()<>`", *p))
            break;
        else
            strbuf_appendn(&b, p, 1);
    }
    return strbuf_steal(&b);
}

/* The /opt/rocm entries of every PATH=VALUE assignment on a line (shell,
 * pam_env or environment.d syntax). */
static char **path_dirs(const char *line)
{
    char **dirs = NULL;
    size_t n = 0;
    for (const char *p = line; (p = strstr(p, "PATH=")); p += 5) {
        if (p > line && (isalnum((unsigned char)p[-1]) || p[-1] == '_'))
            continue; /* LD_LIBRARY_PATH=, ROCM_PATH= */
        _cleanup_free_ char *value = shell_word(p + 5);
        _cleanup_strv_free_ char **parts = strv_split(value, ":");
        for (size_t i = 0; parts && parts[i]; i++)
            if (startswith(parts[i], "/opt/rocm"))
                dirs = strv_push_n(dirs, &n, xstrdup(parts[i]));
    }
    return dirs;
}

/* A configuration file read line by line: its name and the line number. */
typedef struct {
    const char *file;
    int lineno;
    rd_rocm_facts *r;
} conf_lines;

/* Each line of text that is not a comment, names PATH and /opt/rocm: its
 * file, line and the ROCm entries it sets. */
static int path_line(char *line, void *userdata)
{
    conf_lines *c = userdata;
    c->lineno++;
    const char *s = line;
    while (isspace((unsigned char)*s))
        s++;
    if (*s != '#' && strstr(s, "PATH") && strstr(s, "/opt/rocm")) {
        rd_path_dropin *d = ARRAY_APPEND(c->r->path_dropin_dirs, c->r->n_path_dropin_dirs);
        *d = (rd_path_dropin){ .file = xstrdup(c->file), .line = c->lineno, .dirs = path_dirs(s) };
    }
    return 0;
}

static void path_lines(const char *text, const char *file, rd_rocm_facts *r)
{
    conf_lines c = { file, 0, r };
    foreach_line(text, path_line, &c);
}

/* Each directory of an ld.so.conf file that names rocm, without its
 * comment; include lines are not directories. */
static int ld_conf_line(char *line, void *userdata)
{
    conf_lines *c = userdata;
    c->lineno++;
    line[strcspn(line, "#")] = 0;
    char *s = strstrip(line);
    s[strcspn(s, " \t")] = 0;
    if (*s && !streq(s, "include") && strstr(s, "rocm")) {
        rd_ld_conf_dir *d = ARRAY_APPEND(c->r->ld_conf_dirs, c->r->n_ld_conf_dirs);
        *d = (rd_ld_conf_dir){ .file = xstrdup(c->file), .line = c->lineno, .dir = xstrdup(s) };
    }
    return 0;
}

static void ld_conf_lines(const char *text, const char *file, rd_rocm_facts *r)
{
    conf_lines c = { file, 0, r };
    foreach_line(text, ld_conf_line, &c);
}

static void scan_dir(const rd_ctx *ctx, const char *dir, const char *suffix, rd_rocm_facts *r,
                     void (*scan)(const char *text, const char *file, rd_rocm_facts *r))
{
    _cleanup_strv_free_ char **names = NULL;
    if (rd_root_list_dir(ctx, dir, suffix, &names) < 0)
        return;
    for (size_t i = 0; names && names[i]; i++) {
        _cleanup_free_ char *path = xasprintf("%s/%s", dir, names[i]), *text = NULL;
        if (rd_root_read_file(ctx, path, 0, &text) >= 0) /* line-based: no size limit */
            scan(text, path, r);
    }
}

/* /opt/NAME (path) is an install: a directory, not a link among the
 * versions (rocm-6 -> rocm-6.2.4 is not another install). */
static bool opt_install_dir(const rd_ctx *ctx, int opt, const char *name, const char *path)
{
    struct stat st;
    return fstatat(opt, name, &st, AT_SYMLINK_NOFOLLOW) == 0 && !S_ISLNK(st.st_mode) && root_exists(ctx, path, true);
}

/* Where /opt/rocm leads, every link followed inside the root; named under
 * /opt while it stays in /opt's tree, so that it compares with the
 * /opt/rocm-* installs also where /opt itself is a link. */
static int resolve_opt_rocm(const rd_ctx *ctx, char **ret)
{
    _cleanup_free_ char *path = NULL, *opt = NULL;
    int r = rd_root_resolve(ctx, "/opt/rocm", &path);
    if (r < 0)
        return r;
    const char *rest = NULL;
    if (rd_root_resolve(ctx, "/opt", &opt) >= 0 && !streq(opt, "/opt") && (rest = startswith(path, opt)) &&
        *rest == '/')
        *ret = xasprintf("/opt%s", rest);
    else
        *ret = TAKE_PTR(path);
    return 0;
}

static void rocm_gather(const rd_ctx *ctx, rd_facts *facts)
{
    rd_rocm_facts *r = &facts->rocm;
    r->checked = true;

    _cleanup_free_ char *status = NULL;
    /* one read sized to the file, however large */
    int q = rd_root_read_file(ctx, "/var/lib/dpkg/status", 0, &status);
    rd_facts_note_unreadable(facts, "/var/lib/dpkg/status", q, "the installed ROCm packages and their versions");
    if (q >= 0)
        rd_dpkg_status_parse(status, want_package, &r->packages, &r->n_packages);
    /* the rpm database (packages-rpm, gathered before) counts as dpkg's does */
    for (size_t i = 0; i < facts->rpm.n_packages; i++)
        if (want_package(facts->rpm.packages[i].name)) {
            rd_package *pk = ARRAY_APPEND(r->packages, r->n_packages);
            pk->name = xstrdup(facts->rpm.packages[i].name);
            pk->version = xstrdup(facts->rpm.packages[i].version);
            pk->source = xstrdup("rpm database");
        }

    /* /opt/rocm: a link (often through /etc/alternatives) or a directory */
    _cleanup_free_ char *resolved = NULL;
    _cleanup_close_ int opt = rd_root_open(ctx, "/opt", O_RDONLY | O_DIRECTORY);
    char target[PATH_MAX];
    ssize_t k = opt >= 0 ? readlinkat(opt, "rocm", target, sizeof target - 1) : -1;
    if (k >= 0) {
        if (resolve_opt_rocm(ctx, &resolved) < 0 || !root_exists(ctx, resolved, true)) {
            r->opt_rocm_dangling = true;
            target[k] = 0;
            r->opt_rocm = xasprintf("-> %s (missing)", target);
            free(resolved);
            resolved = NULL;
        } else
            r->opt_rocm = xasprintf("-> %s", resolved);
    } else if (root_exists(ctx, "/opt/rocm", true))
        r->opt_rocm = xstrdup("directory");

    _cleanup_strv_free_ char **names = NULL;
    if (opt >= 0 && rd_root_list_dir(ctx, "/opt", NULL, &names) >= 0)
        for (size_t i = 0; names && names[i]; i++) {
            const char *suffix = startswith(names[i], "rocm-");
            if (!suffix && !(streq(names[i], "rocm") && streq_ptr(r->opt_rocm, "directory")))
                continue;
            _cleanup_free_ char *path = xasprintf("/opt/%s", names[i]);
            if (opt_install_dir(ctx, opt, names[i], path))
                gather_opt_install(ctx, r, path, suffix);
        }
    gather_distribution(ctx, r);

    /* which one is in use */
    const rd_rocm_install *def = NULL;
    for (size_t i = 0; i < r->n_installs && !def; i++)
        if ((resolved && streq(r->installs[i].path, resolved)) ||
            (streq_ptr(r->opt_rocm, "directory") && streq(r->installs[i].path, "/opt/rocm")))
            def = &r->installs[i];
    size_t n_opt = 0;
    for (size_t i = 0; i < r->n_installs; i++)
        n_opt += streq(r->installs[i].kind, "opt");
    for (size_t i = 0; i < r->n_installs && !def && !r->opt_rocm; i++)
        if (streq(r->installs[i].kind, "opt") && n_opt == 1)
            def = &r->installs[i];
    for (size_t i = 0; i < r->n_installs && !def && !r->opt_rocm; i++)
        if (streq(r->installs[i].kind, "distribution"))
            def = &r->installs[i];
    if (def) {
        r->default_version = xstrdup_or_null(def->version);
        r->default_path = xstrdup(def->path);
    }

    const char *path = getenv("PATH");
    r->path_env = xstrdup_or_null(path);
    scan_dir(ctx, "/etc/profile.d", ".sh", r, path_lines);
    _cleanup_free_ char *env = NULL;
    if (rd_root_read_file(ctx, "/etc/environment", 0, &env) >= 0)
        path_lines(env, "/etc/environment", r);
    scan_dir(ctx, "/etc/environment.d", ".conf", r, path_lines);
    scan_dir(ctx, "/etc/ld.so.conf.d", ".conf", r, ld_conf_lines);
}

/* ---- assess ---- */

static const rd_rocm_install *default_install(const rd_rocm_facts *r)
{
    for (size_t i = 0; r->default_path && i < r->n_installs; i++)
        if (streq(r->installs[i].path, r->default_path))
            return &r->installs[i];
    return NULL;
}

static bool has_discrete(const rd_gpu_view *v)
{
    for (size_t i = 0; i < v->n_gpus; i++)
        if (!v->gpus[i].integrated)
            return true;
    return false;
}

/* GPUs the user means to compute on: an iGPU next to a dGPU is apu.igpu-conflict's business. */
static bool gpu_counts(const rd_gpu_view *v, const rd_gpu *g)
{
    /* a GPU no KFD supports has driver.kfd-unsupported: no ROCm release or
     * kernel set question applies to it */
    if (g->arch && g->arch->no_kfd)
        return false;
    return g->gfx[0] && !(g->integrated && has_discrete(v));
}

static bool path_has(const char *path_env, const char *dir)
{
    _cleanup_free_ char *copy = xstrdup(path_env);
    char *save = NULL;
    for (char *t = strtok_r(copy, ":", &save); t; t = strtok_r(NULL, ":", &save)) {
        size_t n = strlen(t);
        while (n > 1 && t[n - 1] == '/')
            t[--n] = 0;
        if (streq(t, dir))
            return true;
    }
    return false;
}

/* The release to install, by the one release decision: the host's own
 * sources or packages where it has them, else the newest for its OS and
 * GPUs. *ret_why says which. */
static char *release_hint(const rd_assess_input *in, const char **ret_why)
{
    /* an iGPU beside a discrete GPU does not count */
    _cleanup_strv_free_ char **gfx = xcalloc(1, sizeof(char *));
    for (size_t i = 0; i < in->gpus->n_gpus; i++)
        if (gpu_counts(in->gpus, &in->gpus->gpus[i]) && !strv_contains(gfx, in->gpus->gpus[i].gfx))
            gfx = strv_push(gfx, xstrdup(in->gpus->gpus[i].gfx));
    const rd_release_input ri = {
        .facts = in->facts,
        .knowledge = in->knowledge,
        .config = in->config,
        .gpus = in->gpus,
        .gfx = gfx,
        .family = rd_release_family_of(&in->facts->os),
    };
    rd_release_choice c = { 0 };
    _cleanup_free_ char *reason = NULL;
    if (rd_release_decide(&ri, &c, &reason) < 0)
        return NULL;
    char *rel = c.moving ? NULL : TAKE_PTR(c.release);
    *ret_why = rd_release_origin_text(c.origin);
    rd_release_choice_done(&c);
    return rel;
}

static bool install_intended(const rd_assess_input *in)
{
    const rd_facts *f = in->facts;
    if (f->rocm.opt_rocm_dangling || package_version(&f->rocm, "rocm-core") ||
        package_version(&f->rocm, "hip-runtime-amd"))
        return true;
    for (size_t i = 0; i < f->rocm.n_installs; i++)
        if (!f->rocm.installs[i].runtime)
            return true;
    for (size_t i = 0; i < f->apt.n_sources; i++) {
        const char *path = f->apt.sources[i].enabled && f->apt.sources[i].uri
                               ? rd_repo_path_of(in->config ? in->config->mirror : NULL, f->apt.sources[i].uri)
                               : NULL;
        rd_repo_match m;
        if (!path || rd_repos_classify(in->knowledge, path, &m) == 0)
            continue;
        bool rocm = m.family == RD_REPO_APT && m.kind == RD_REPO_ROCM;
        rd_repo_match_done(&m);
        if (rocm)
            return true;
    }
    return false;
}

/* How to install ROCm with the host's own package manager. */
static char *install_cmd(const rd_os_facts *os)
{
    switch (rd_os_family_facts(os)) {
    case RD_OS_DEBIAN:
        return xstrdup("add AMD's repository and run `sudo apt install rocm` (or `amdgpu-install --usecase=rocm`)");
    case RD_OS_RHEL:
        return xstrdup("add AMD's repository (/etc/yum.repos.d/rocm.repo) and run `sudo dnf install rocm` (or "
                       "`amdgpu-install --usecase=rocm`)");
    case RD_OS_SUSE:
        return xstrdup("add AMD's repository (/etc/zypp/repos.d/rocm.repo) and run `sudo zypper install rocm` (or "
                       "`amdgpu-install --usecase=rocm`)");
    case RD_OS_FEDORA: return xstrdup("Fedora packages ROCm itself: `sudo dnf install rocminfo rocm-hip rocm-opencl`");
    case RD_OS_UNKNOWN:
    default:
        return xstrdup("with the distribution's own ROCm packages if it has them, else AMD's release for the "
                       "nearest supported distribution");
    }
}

static const char *remove_cmd(const rd_os_facts *os)
{
    switch (rd_os_family_facts(os)) {
    case RD_OS_DEBIAN: return "`sudo apt autoremove --purge rocm<VERSION>`";
    case RD_OS_RHEL:
    case RD_OS_FEDORA: return "`sudo dnf remove rocm<VERSION>`";
    case RD_OS_SUSE: return "`sudo zypper remove rocm<VERSION>`";
    case RD_OS_UNKNOWN:
    default: return "the package manager that installed them";
    }
}

static void assess_not_installed(const rd_assess_input *in, rd_findings *out)
{
    const rd_facts *f = in->facts;
    for (size_t i = 0; i < f->rocm.n_installs; i++)
        if (f->rocm.installs[i].runtime)
            return;
    /* ROCm from Python wheels is an installation too (the wheels probe
     * judges it) */
    for (size_t i = 0; i < f->wheels.n_installs; i++)
        if (f->wheels.installs[i].runtime)
            return;
    bool intended = install_intended(in);
    rd_finding *fd = rd_finding_add(out, RD_FINDING(ROCM_NOT_INSTALLED), intended ? RD_SEV_WARNING : RD_SEV_INFO, NULL,
                                    intended ? "ROCm is meant to be installed here, but no installation has its runtime"
                                             : "No ROCm user space is installed on this host");
    if (f->rocm.opt_rocm)
        rd_finding_evidence(fd, "/opt/rocm %s", f->rocm.opt_rocm);
    else
        rd_finding_evidence(fd, "/opt/rocm: absent");
    for (size_t i = 0; i < f->rocm.n_installs; i++)
        rd_finding_evidence(fd, "%s: no %s/libhsa-runtime64.so.1", f->rocm.installs[i].path,
                            f->rocm.installs[i].lib_dir);
    rd_finding_evidence(fd, "no libhsa-runtime64.so.1 in /usr/lib/x86_64-linux-gnu, /usr/lib64 or /usr/lib");
    for (size_t i = 0; i < f->rocm.n_packages; i++)
        rd_finding_evidence(fd, "%s: %s %s installed", package_source(&f->rocm, f->rocm.packages[i].name),
                            f->rocm.packages[i].name, f->rocm.packages[i].version);
    const char *why = NULL;
    _cleanup_free_ char *rel = release_hint(in, &why);
    _cleanup_free_ char *how = install_cmd(&f->os);
    if (rel)
        rd_finding_remedy(fd,
                          "Install ROCm %s (%s): %s. "
                          "Containers with ROCm inside (docker run --device=/dev/kfd --device=/dev/dri ...) and "
                          "PyTorch's ROCm wheels need only the kernel driver on the host.",
                          rel, why, how);
    else
        rd_finding_remedy(fd,
                          "Install a ROCm release that supports this OS and these GPUs (see `rocm-doctor list "
                          "releases`): %s. Containers with ROCm inside and PyTorch's ROCm wheels need only the "
                          "kernel driver on the host.",
                          how);
    /* the apt fix writes AMD's apt repository: only where apt is the package manager */
    if (intended && rd_os_family_facts(&f->os) == RD_OS_DEBIAN)
        rd_finding_set_fix(fd, "apt");
}

static void assess_multiple(const rd_assess_input *in, rd_findings *out)
{
    const rd_rocm_facts *r = &in->facts->rocm;
    const rd_rocm_install *def = default_install(r);
    size_t n_versions = 0;
    for (size_t i = 0; i < r->n_installs; i++) {
        bool seen = false;
        for (size_t j = 0; j < i; j++)
            seen |= streq_ptr(r->installs[j].version, r->installs[i].version);
        n_versions += !seen;
    }
    if (n_versions < 2)
        return;

    /* Side by side is normal; it hurts when parts of the system pick different ones. */
    char **conflicts = NULL;
    bool distro = false, opt = false;
    for (size_t i = 0; i < r->n_installs; i++) {
        distro |= streq(r->installs[i].kind, "distribution") && r->installs[i].runtime;
        opt |= streq(r->installs[i].kind, "opt") && r->installs[i].runtime;
    }
    if (distro && opt)
        conflicts = strv_push(conflicts, xstrdup("the distribution's ROCm libraries in /usr and AMD's in /opt are "
                                                 "both on the loader's path"));
    for (size_t i = 0; def && i < r->n_ld_conf_dirs; i++)
        for (size_t j = 0; j < r->n_installs; j++) {
            const rd_rocm_install *o = &r->installs[j];
            if (o == def || !streq(o->kind, "opt"))
                continue;
            const rd_ld_conf_dir *l = &r->ld_conf_dirs[i];
            const char *rest = l->dir ? startswith(l->dir, o->path) : NULL;
            if (rest && (*rest == '/' || !*rest))
                conflicts =
                    strv_push(conflicts, xasprintf("%s:%" PRId64 ": %s (the loader finds %s, /opt/rocm is %s)", l->file,
                                                   l->line, l->dir, strempty(o->version), strempty(def->version)));
        }
    for (size_t j = 0; def && r->path_env && j < r->n_installs; j++) {
        const rd_rocm_install *o = &r->installs[j];
        _cleanup_free_ char *bin = xasprintf("%s/bin", o->path);
        if (o != def && streq(o->kind, "opt") && path_has(r->path_env, bin))
            conflicts = strv_push(conflicts, xasprintf("PATH (process environment) has %s: ROCm %s's tools, while "
                                                       "/opt/rocm is %s",
                                                       bin, strempty(o->version), strempty(def->version)));
    }

    rd_finding *fd =
        rd_finding_add(out, RD_FINDING(ROCM_MULTIPLE_VERSIONS), conflicts ? RD_SEV_WARNING : RD_SEV_INFO, NULL,
                       conflicts ? "Several ROCm versions are installed and the system mixes them"
                                 : "Several ROCm versions are installed side by side");
    for (size_t i = 0; i < r->n_installs; i++)
        rd_finding_evidence(fd, "%s: ROCm %s (%s)%s", r->installs[i].path, strempty(r->installs[i].version),
                            strempty(r->installs[i].version_source), &r->installs[i] == def ? ", in use" : "");
    if (r->opt_rocm)
        rd_finding_evidence(fd, "/opt/rocm %s", r->opt_rocm);
    for (size_t i = 0; conflicts && conflicts[i]; i++)
        rd_finding_evidence(fd, "%s", conflicts[i]);
    if (conflicts)
        rd_finding_remedy(fd,
                          "Use one version everywhere: remove the ones you do not need (%s or `sudo "
                          "amdgpu-install --uninstall --rocmrelease=<VERSION>`), "
                          "or point /opt/rocm, /etc/ld.so.conf.d and PATH at the same one (`sudo update-alternatives "
                          "--config rocm`, then `sudo ldconfig`).",
                          remove_cmd(&in->facts->os));
    else
        rd_finding_remedy(fd, "Nothing to do while /opt/rocm, the loader and PATH agree; select another with "
                              "`sudo update-alternatives --config rocm`.");
    strv_free(conflicts);
}

static void assess_path(const rd_assess_input *in, rd_findings *out)
{
    const rd_rocm_facts *r = &in->facts->rocm;
    const rd_rocm_install *def = default_install(r);
    if (!def || !streq(def->kind, "opt") || !def->has_bin || !r->path_env || r->n_path_dropin_dirs)
        return;
    _cleanup_free_ char *bin = xasprintf("%s/bin", def->path);
    if (path_has(r->path_env, bin) || path_has(r->path_env, "/opt/rocm/bin"))
        return;
    rd_finding *fd = rd_finding_add(out, RD_FINDING(PATH_ROCM_BIN_MISSING), RD_SEV_WARNING, NULL,
                                    "ROCm's tools (rocminfo, hipcc, amd-smi) are not on PATH");
    rd_finding_evidence(fd, "PATH (process environment): %s", r->path_env);
    rd_finding_evidence(fd, "ROCm %s is in %s, /opt/rocm %s", strempty(def->version), def->path,
                        r->opt_rocm ? r->opt_rocm : "absent");
    rd_finding_evidence(fd, "no /etc/profile.d/*.sh, /etc/environment or /etc/environment.d line adds it");
    rd_finding_remedy(fd,
                      "Add it for every login: `echo 'export PATH=$PATH:/opt/rocm/bin' | sudo tee "
                      "/etc/profile.d/rocm.sh`, then log in again (or run /opt/rocm/bin/rocminfo by its full path).");
}

static void join_list(strbuf *b, char *const *v)
{
    for (size_t i = 0; v && v[i]; i++)
        strbuf_printf(b, "%s%s", i ? ", " : "", v[i]);
    if (!v || !v[0])
        strbuf_append(b, "none");
}

static char *gfx_of_override(const char *ov)
{
    unsigned a, b, c;
    if (!ov || sscanf(ov, "%u.%u.%u", &a, &b, &c) != 3)
        return NULL;
    char buf[16];
    return rd_gfx_name((uint64_t)a * 10000 + b * 100 + c, buf, sizeof buf) ? xstrdup(buf) : NULL;
}

static int64_t gpu_node(const rd_gpu *g)
{
    return g->n_kfd > 0 ? g->kfd[0]->node_id : -1;
}

/* The override that applies to KFD node `node`: the per-node variable,
 * else the global one; of each, the first definition, as the environment
 * checks take it (rd_env_override_target). */
static const rd_env_var *node_override(const rd_facts *f, int64_t node)
{
    char name[64];
    snprintf(name, sizeof name, "HSA_OVERRIDE_GFX_VERSION_%" PRId64, node);
    const rd_env_var *per = NULL, *global = NULL;
    for (size_t i = 0; i < f->env.n_vars; i++) {
        const rd_env_var *v = &f->env.vars[i];
        if (streq_ptr(v->name, name) && !per)
            per = v;
        else if (streq_ptr(v->name, "HSA_OVERRIDE_GFX_VERSION") && !global)
            global = v;
    }
    return per ? per : global;
}

static void assess_no_kernels(const rd_assess_input *in, rd_findings *out)
{
    const rd_rocm_install *def = default_install(&in->facts->rocm);
    if (!def || !def->rocblas_dir)
        return;
    for (size_t i = 0; i < in->gpus->n_gpus; i++) {
        const rd_gpu *g = &in->gpus->gpus[i];
        if (!gpu_counts(in->gpus, g) || strv_contains(def->rocblas_gfx, g->gfx))
            continue;
        _cleanup_free_ char *family_gfx = g->arch ? gfx_of_override(g->arch->override) : NULL;
        const rd_env_var *ov = gpu_node(g) >= 0 ? node_override(in->facts, gpu_node(g)) : NULL;
        _cleanup_free_ char *ov_used = ov ? gfx_of_override(ov->value) : NULL;
        if (ov_used && family_gfx && streq(ov_used, family_gfx) && strv_contains(def->rocblas_gfx, ov_used)) {
            /* the same-family override makes the GPU run code that is there */
            rd_finding *fd = rd_finding_add(out, RD_FINDING(ARCH_NO_KERNELS), RD_SEV_INFO, g->pci->address,
                                            "ROCm %s has no rocBLAS kernels for %s (%s); it runs %s's through "
                                            "the override",
                                            strempty(def->version), g->gfx, g->name, ov_used);
            if (ov->line > 0)
                rd_finding_evidence(fd, "%s:%" PRId64 ": %s=%s", ov->source, ov->line, ov->name, ov->value);
            else
                rd_finding_evidence(fd, "%s: %s=%s", ov->source, ov->name, ov->value);
            rd_finding_remedy(fd,
                              "Check it with `rocm-doctor verify`; a ROCm build with %s kernels needs no "
                              "override.",
                              g->gfx);
            continue;
        }
        rd_finding *fd = rd_finding_add(out, RD_FINDING(ARCH_NO_KERNELS), RD_SEV_ERROR, g->pci->address,
                                        "ROCm %s has no rocBLAS kernels for %s (%s): hipErrorNoBinaryForGpu, "
                                        "\"invalid device function\"",
                                        strempty(def->version), g->gfx, g->name);
        strbuf b = { 0 };
        join_list(&b, def->rocblas_gfx);
        rd_finding_evidence(fd, "%s: kernel files for %s", def->rocblas_dir, b.s);
        free(b.s);
        rd_finding_evidence(fd, "%s %s: %s%s", g->pci->address, g->name, g->gfx,
                            g->gfx_from_kfd ? " (KFD gfx_target_version)" : " (PCI id table)");
        _cleanup_free_ char *ov_gfx = g->arch ? gfx_of_override(g->arch->override) : NULL;
        int64_t node = gpu_node(g);
        if (ov_gfx && !streq(ov_gfx, g->gfx) && strv_contains(def->rocblas_gfx, ov_gfx) && node >= 0) {
            rd_finding_remedy(fd,
                              "Use a ROCm build that has %s kernels. Unofficially, GPUs of family %s run %s's "
                              "kernels: set HSA_OVERRIDE_GFX_VERSION_%" PRId64 "=%s for this GPU only (KFD node "
                              "%" PRId64 "), never globally, and check the result with `rocm-doctor verify`.",
                              g->gfx, g->arch->family, ov_gfx, node, g->arch->override, node);
            /* the env fix writes that per-node value when allow_overrides is on */
            rd_finding_set_fix(fd, "env");
        } else
            rd_finding_remedy(fd,
                              "Use a ROCm release or build that has %s kernels (PyTorch: a wheel built for %s, "
                              "or PYTORCH_ROCM_ARCH=%s for a source build).",
                              g->gfx, g->gfx, g->gfx);
    }
}

/* The release line of the installation in use; past the table's end, the
 * newest line it knows (the table may lag behind a new release). */
static const rd_release *installed_release(const rd_assess_input *in, bool *ret_beyond)
{
    const rd_knowledge *k = in->knowledge;
    const rd_rocm_install *def = default_install(&in->facts->rocm);
    *ret_beyond = false;
    if (!def || !streq(def->kind, "opt") || !def->version || k->n_releases == 0)
        return NULL;
    const rd_release *rel = rd_knowledge_release(k, def->version);
    if (!rel && rd_version_compare(def->version, k->releases[k->n_releases - 1].latest) > 0) {
        *ret_beyond = true;
        rel = &k->releases[k->n_releases - 1];
    }
    return rel;
}

static void assess_unsupported(const rd_assess_input *in, rd_findings *out)
{
    bool beyond;
    const rd_release *rel = installed_release(in, &beyond);
    if (!rel)
        return;
    const rd_table_info *t = &in->knowledge->support_info;
    for (size_t i = 0; i < in->gpus->n_gpus; i++) {
        const rd_gpu *g = &in->gpus->gpus[i];
        if (!gpu_counts(in->gpus, g) || rd_release_supports(rel, g->gfx))
            continue;
        bool deprecated = rd_release_deprecates(rel, g->gfx);
        rd_finding *fd = rd_finding_add(out, RD_FINDING(ARCH_UNSUPPORTED), deprecated ? RD_SEV_INFO : RD_SEV_WARNING,
                                        g->pci->address,
                                        deprecated ? "%s (%s) is deprecated in ROCm %s: it works, but not for long"
                                                   : "%s (%s) is not officially supported by ROCm %s",
                                        g->name, g->gfx, rel->line);
        strbuf b = { 0 };
        join_list(&b, rel->gfx);
        rd_finding_evidence(fd, "support.ini %s (%s): ROCm %s supports %s%s", strempty(t->version), strempty(t->date),
                            rel->line, b.s, beyond ? " (the newest release the table knows)" : "");
        free(b.s);
        rd_finding_evidence(fd, "%s: %s", g->pci->address, g->gfx);
        if (g->integrated)
            rd_finding_remedy(fd, "ROCm does not support integrated GPUs officially; expect gaps, or use a "
                                  "supported discrete GPU.");
        else if (g->arch && g->arch->override)
            rd_finding_remedy(fd,
                              "Expect missing kernels and no fixes for it. Family %s GPUs often run with "
                              "HSA_OVERRIDE_GFX_VERSION_%" PRId64 "=%s set for this GPU only; see arch.no-kernels "
                              "if rocBLAS lacks its kernels.",
                              g->arch->family, gpu_node(g), g->arch->override);
        else
            rd_finding_remedy(fd, "Expect missing kernels and no fixes for it; a supported GPU is the reliable way.");
    }
}

static int months_of(const char *date)
{
    unsigned y, m;
    return date && sscanf(date, "%u-%u", &y, &m) == 2 ? (int)(y * 12 + m) : 0;
}

/* The driver folder AMD serves for release on this host's family (the
 * repository table), as a URL; NULL when the table has none. */
static char *driver_folder(const rd_knowledge *k, const rd_os_facts *os, const char *release)
{
    const rd_repo_row *row = rd_repos_find(k, release);
    rd_os_family fam = rd_os_family_facts(os);
    rd_repo_family rf = fam == RD_OS_RHEL ? RD_REPO_EL : fam == RD_OS_SUSE ? RD_REPO_SLES : RD_REPO_APT;
    /* the tree AMD serves nearest to this OS release (6.4.4 has no 9.7) */
    const char *tree = !row || rf == RD_REPO_APT ? NULL : rd_repo_pick_tree(row, rf, os->version_id);
    const char *v = tree ? tree : os->version_id;
    _cleanup_free_ char *major = v ? xstrndup(v, strcspn(v, ".")) : NULL;
    const rd_repo_os ros = { .suite = os->version_codename, .major = major, .os = v };
    return row ? rd_repos_url(RD_AMD_REPO_BASE, row, rf, RD_REPO_AMDGPU, &ros) : NULL;
}

static void assess_userspace_mismatch(const rd_assess_input *in, rd_findings *out)
{
    const rd_facts *f = in->facts;
    const rd_knowledge *k = in->knowledge;
    const rd_rocm_install *def = default_install(&f->rocm);
    if (!f->driver.version || !def || !def->version)
        return;
    const rd_release *drv = rd_knowledge_release_by_dkms(k, f->driver.version);
    const rd_release *us = rd_knowledge_release(k, def->version);
    if (!drv || !us)
        return;
    bool outside;
    char how[96];
    if (us->window_kind == RD_WINDOW_RELEASES) {
        long d = labs((long)(drv - k->releases) - (long)(us - k->releases));
        outside = d > (long)us->window;
        snprintf(how, sizeof how, "%ld release%s apart, %u allowed", d, d == 1 ? "" : "s", us->window);
    } else {
        int d = abs(months_of(drv->date) - months_of(us->date));
        outside = d > (int)us->window;
        snprintf(how, sizeof how, "%d months apart, %u allowed", d, us->window);
    }
    if (!outside)
        return;
    rd_finding *fd = rd_finding_add(out, RD_FINDING(DRIVER_USERSPACE_MISMATCH), RD_SEV_WARNING, NULL,
                                    "The amdgpu-dkms driver (from ROCm %s) and ROCm %s user space are too far apart",
                                    drv->line, def->version);
    rd_finding_evidence(fd, "/sys/module/amdgpu/version: %s (amdgpu-dkms of ROCm %s)", f->driver.version, drv->line);
    rd_finding_evidence(fd, "%s", strempty(def->version_source));
    rd_finding_evidence(fd, "support.ini %s: %s", strempty(k->support_info.version), how);
    _cleanup_free_ char *url = driver_folder(k, &f->os, us->latest);
    rd_finding_remedy(fd,
                      "Install the amdgpu-dkms of ROCm %s (AMD's driver repository %s), or a ROCm user space "
                      "close to the driver; then reboot.",
                      us->latest, url ? url : "of that release, `rocm-doctor list releases`");
}

/* Whether the running kernel series is outside what rel was validated with
 * here: not in the host's own row; on a release the table does not list,
 * newer than the newest kernel of the nearest row of its family (or of any
 * row, for a family the table has none of). */
static bool kernel_outside(const rd_release *rel, const rd_os_facts *o, const char *series,
                           const rd_release_os **ret_row, bool *ret_nearest, const char **ret_newest)
{
    const rd_release_os *row = rd_support_os_for(rel, o, ret_nearest);
    *ret_row = row;
    *ret_newest = NULL;
    if (row && !*ret_nearest)
        return !strv_contains(row->kernels, series);
    const rd_release_os *from = row;
    const char *newest = rd_support_newest_kernel(rel, row, &from);
    *ret_row = from;
    *ret_newest = newest;
    return newest && rd_version_compare(series, newest) > 0;
}

static void assess_kernel(const rd_assess_input *in, rd_findings *out)
{
    const rd_facts *f = in->facts;
    bool beyond, nearest;
    const rd_release *rel = installed_release(in, &beyond);
    if (!rel || !f->os.kernel_release)
        return;
    _cleanup_free_ char *series = rd_kernel_series(f->os.kernel_release);
    const rd_release_os *os;
    const char *newest;
    if (!series || !kernel_outside(rel, &f->os, series, &os, &nearest, &newest) || !os)
        return;
    bool dkms = f->driver.version || f->boot.dkms_amdgpu;
    rd_finding *fd;
    if (!nearest)
        fd = rd_finding_add(out, RD_FINDING(KERNEL_UNSUPPORTED), dkms ? RD_SEV_WARNING : RD_SEV_INFO, NULL,
                            "Kernel %s is not one ROCm %s was validated with on %s %s", series, rel->line, f->os.id,
                            f->os.version_id);
    else
        fd = rd_finding_add(out, RD_FINDING(KERNEL_UNSUPPORTED), dkms ? RD_SEV_WARNING : RD_SEV_INFO, NULL,
                            "Kernel %s is newer than any kernel ROCm %s was validated with (%s on %s %s)", series,
                            rel->line, newest, os->id, os->version_id);
    strbuf b = { 0 };
    join_list(&b, os->kernels);
    rd_finding_evidence(fd, "/proc/sys/kernel/osrelease: %s", f->os.kernel_release);
    rd_finding_evidence(fd, "support.ini %s: ROCm %s on %s %s: kernels %s",
                        strempty(in->knowledge->support_info.version), rel->line, os->id, os->version_id, b.s);
    free(b.s);
    if (nearest)
        rd_finding_evidence(fd,
                            "/etc/os-release: ID=%s VERSION_ID=%s is not listed; judged by %s %s, the nearest "
                            "release ROCm %s lists%s",
                            strempty(f->os.id), strempty(f->os.version_id), os->id, os->version_id, rel->line,
                            rd_os_family_of(os->id, NULL) == rd_os_family_facts(&f->os) ? " of its family"
                                                                                        : " (none of its family)");
    if (dkms)
        rd_finding_remedy(fd, "The amdgpu-dkms driver may not build or load on this kernel (see "
                              "/var/lib/dkms/amdgpu/*/build/make.log): boot a validated kernel, or use the inbox "
                              "driver (`amdgpu-install --usecase=rocm --no-dkms`).");
    else
        rd_finding_remedy(fd, "The inbox driver usually works; if KFD misbehaves, boot a validated kernel.");
}

/* The newest release the tables know: the repository table's, else the
 * support table's. */
static const char *tables_newest(const rd_knowledge *k)
{
    const rd_repo_row *row = rd_repos_newest(k);
    if (row)
        return row->release;
    return k->n_releases ? k->releases[k->n_releases - 1].latest : NULL;
}

/* The evidence of one AMD repository URL that names a release newer than
 * the tables; NULL when it does not. */
static char *newer_url(const rd_assess_input *in, const char *where, const char *url)
{
    const char *path = url ? rd_repo_path_of(in->config ? in->config->mirror : NULL, url) : NULL;
    rd_repo_match m;
    if (!path || rd_repos_classify(in->knowledge, path, &m) == 0)
        return NULL;
    char *e = m.newer
                  ? xasprintf("%s: %s names %s %s", where, url, m.kind == RD_REPO_AMDGPU ? "driver" : "ROCm", m.version)
                  : NULL;
    rd_repo_match_done(&m);
    return e;
}

/* This host runs or names a ROCm release newer than the tables (a release
 * that came out after them): said once, as information, and the checks
 * that compare releases leave that release alone. */
/* Whether the host names a release at all: ROCm in /opt, or a source on
 * AMD's server (or the mirror). Only then are the tables' releases read. */
static bool names_a_release(const rd_assess_input *in, const rd_rocm_install *def)
{
    const rd_facts *f = in->facts;
    const char *mirror = in->config ? in->config->mirror : NULL;
    if (def && streq_ptr(def->kind, "opt") && def->version)
        return true;
    for (size_t i = 0; i < f->apt.n_sources; i++) {
        const rd_apt_source *src = &f->apt.sources[i];
        if (src->enabled && !src->placeholder && src->uri && rd_repo_path_of(mirror, src->uri))
            return true;
    }
    const rd_repo_config *cfgs[] = { &f->repos.dnf, &f->repos.zypper };
    for (size_t c = 0; c < ELEMENTSOF(cfgs); c++)
        for (size_t i = 0; i < cfgs[c]->n_repos; i++) {
            const rd_rpm_repo *r = &cfgs[c]->repos[i];
            if (r->amd && r->enabled && r->url && rd_repo_path_of(mirror, r->url))
                return true;
        }
    return false;
}

static void assess_tables_older(const rd_assess_input *in, rd_findings *out)
{
    const rd_facts *f = in->facts;
    const rd_knowledge *k = in->knowledge;
    const rd_rocm_install *def = default_install(&f->rocm);
    if (!names_a_release(in, def))
        return;
    const char *newest = tables_newest(k);
    if (!newest)
        return;
    char **ev = NULL;
    if (def && streq_ptr(def->kind, "opt") && def->version && rd_version_compare(def->version, newest) > 0)
        ev = strv_push(ev,
                       xasprintf("%s: ROCm %s", def->version_source ? def->version_source : "/opt/rocm", def->version));
    for (size_t i = 0; i < f->apt.n_sources; i++) {
        const rd_apt_source *src = &f->apt.sources[i];
        _cleanup_free_ char *where = xasprintf("%s:%" PRId64, src->file, src->line);
        char *e = src->enabled && !src->placeholder ? newer_url(in, where, src->uri) : NULL;
        if (e)
            ev = strv_push(ev, e);
    }
    const rd_repo_config *cfgs[] = { &f->repos.dnf, &f->repos.zypper };
    for (size_t c = 0; c < ELEMENTSOF(cfgs); c++)
        for (size_t i = 0; i < cfgs[c]->n_repos; i++) {
            const rd_rpm_repo *r = &cfgs[c]->repos[i];
            _cleanup_free_ char *where = xasprintf("%s:%" PRId64, r->file, r->line);
            char *e = r->amd && r->enabled ? newer_url(in, where, r->url) : NULL;
            if (e)
                ev = strv_push(ev, e);
        }
    if (!ev)
        return;
    rd_finding *fd = rd_finding_add(out, RD_FINDING(TABLES_OLDER_THAN_HOST), RD_SEV_INFO, NULL,
                                    "This host uses a ROCm release newer than rocm-doctor's tables (of %s, newest %s)",
                                    strempty(k->repos_info.date ? k->repos_info.date : k->support_info.date), newest);
    for (size_t i = 0; ev[i]; i++)
        rd_finding_evidence(fd, "%s", ev[i]);
    strv_free(ev);
    rd_finding_remedy(fd, "Nothing is wrong with the host for that: the checks that compare releases leave a release "
                          "they do not know alone. A newer rocm-doctor knows it.");
}

/* One enabled source of AMD's (on its server or the mirror), of any
 * package manager. */
typedef struct {
    char *where; /* file:line */
    const char *url;
    const char *index_version; /* apt: what a moving folder serves today */
} amd_source;

static size_t amd_sources(const rd_assess_input *in, amd_source **ret)
{
    const rd_facts *f = in->facts;
    const char *mirror = in->config ? in->config->mirror : NULL;
    amd_source *v = NULL;
    size_t n = 0;
    for (size_t i = 0; i < f->apt.n_sources; i++) {
        const rd_apt_source *s = &f->apt.sources[i];
        if (s->enabled && !s->placeholder && s->uri && rd_repo_path_of(mirror, s->uri))
            *ARRAY_APPEND(v, n) = (amd_source){ xasprintf("%s:%" PRId64, s->file, s->line), s->uri, s->index_version };
    }
    const rd_repo_config *cfgs[] = { &f->repos.dnf, &f->repos.zypper };
    for (size_t c = 0; c < ELEMENTSOF(cfgs); c++)
        for (size_t i = 0; i < cfgs[c]->n_repos; i++) {
            const rd_rpm_repo *r = &cfgs[c]->repos[i];
            if (r->enabled && r->amd && r->url && rd_repo_path_of(NULL, r->url))
                *ARRAY_APPEND(v, n) =
                    (amd_source){ xasprintf("%s:%" PRId64, r->file, r->baseurl_line > 0 ? r->baseurl_line : r->line),
                                  r->url, NULL };
        }
    *ret = v;
    return n;
}

static void amd_sources_free(amd_source *v, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(v[i].where);
    free(v);
}

/* The open world of AMD's folders: every source on AMD's server (or the
 * mirror) is a release of the tables, a moving folder, a release older
 * than the tables, one newer (tables.older-than-host), or a folder the
 * tables do not know; none is passed over in silence. */
static void assess_open_world(const rd_assess_input *in, rd_findings *out)
{
    const rd_knowledge *k = in->knowledge;
    const char *mirror = in->config ? in->config->mirror : NULL;
    amd_source *v = NULL;
    size_t n = amd_sources(in, &v);
    if (n > 0 && rd_repos_empty(k)) {
        amd_sources_free(v, n);
        return;
    }
    /* evidence first: a finding's pointer moves when another is added */
    _cleanup_strv_free_ char **moving = NULL, **old = NULL, **unknown = NULL;
    for (size_t i = 0; i < n; i++) {
        const char *path = rd_repo_path_of(mirror, v[i].url);
        rd_repo_match m;
        int c = rd_repos_classify(k, path, &m);
        if (c > 0 && rd_repo_match_moving(&m))
            moving = strv_push(moving, v[i].index_version
                                           ? xasprintf("%s: %s (serves ROCm %s today, by the index apt fetched last)",
                                                       v[i].where, v[i].url, v[i].index_version)
                                           : xasprintf("%s: %s", v[i].where, v[i].url));
        else if (c > 0 && m.older)
            old = strv_push(old, xasprintf("%s: %s names %s %s", v[i].where, v[i].url,
                                           m.kind == RD_REPO_AMDGPU ? "driver" : "ROCm", m.version));
        else if (c == 0 ||
                 (!m.row && !m.meant && !m.os_row && !m.newer && !m.versioned && !streq_ptr(m.version, "debian")))
            unknown = strv_push(unknown, xasprintf("%s: %s", v[i].where, v[i].url));
        if (c > 0)
            rd_repo_match_done(&m);
    }
    amd_sources_free(v, n);
    rd_finding *fd;
    if (moving) {
        fd = rd_finding_add(out, RD_FINDING(ROCM_RELEASE_MOVING), RD_SEV_INFO, NULL,
                            "This host follows AMD's moving \"latest\" folder: it changes ROCm release at every "
                            "upgrade");
        for (size_t i = 0; moving[i]; i++)
            rd_finding_evidence(fd, "%s", moving[i]);
        rd_os_family fam = rd_os_family_facts(&in->facts->os);
        const char *fix = fam == RD_OS_RHEL ? "dnf" : fam == RD_OS_SUSE ? "zypper" : "apt";
        rd_finding_remedy(fd,
                          "Nothing is broken by it, but every upgrade may bring another release (and a driver that "
                          "the GPUs or the kernel do not support). To stay on one release, name it: `sudo rocm-doctor "
                          "fix --only %s --release X.Y.Z` writes that release's folders.",
                          fix);
    }
    if (old) {
        fd = rd_finding_add(out, RD_FINDING(ROCM_RELEASE_UNSUPPORTED), RD_SEV_WARNING, NULL,
                            "An AMD source names a ROCm release older than any rocm-doctor supports (%s and later)",
                            k->repos[0].release);
        for (size_t i = 0; old[i]; i++)
            rd_finding_evidence(fd, "%s", old[i]);
        rd_finding_remedy(fd, "AMD no longer supports that release and rocm-doctor does not judge it; its repository "
                              "fix keeps the folders as they are. Moving to a supported release (`rocm-doctor list "
                              "releases`) is a deliberate upgrade: pass --release to choose one.");
    }
    if (unknown) {
        fd = rd_finding_add(out, RD_FINDING(TABLES_FOLDER_UNKNOWN), RD_SEV_INFO, NULL,
                            "A folder on AMD's repository server that rocm-doctor's tables (of %s) do not know",
                            strempty(k->repos_info.date));
        for (size_t i = 0; unknown[i]; i++)
            rd_finding_evidence(fd, "%s", unknown[i]);
        rd_finding_remedy(fd, "rocm-doctor does not judge what it does not know and never rewrites it to a guess. If "
                              "`apt update` (or dnf, zypper) fetches it, it is fine; a newer rocm-doctor may know it.");
    }
}

static void rocm_assess(const rd_assess_input *in, rd_findings *out)
{
    if (!in->facts->rocm.checked)
        return;
    if (in->gpus->n_gpus > 0)
        assess_not_installed(in, out);
    assess_multiple(in, out);
    assess_path(in, out);
    assess_tables_older(in, out);
    assess_open_world(in, out);
    if (in->gpus->n_gpus == 0)
        return;
    assess_no_kernels(in, out);
    assess_unsupported(in, out);
    assess_userspace_mismatch(in, out);
    assess_kernel(in, out);
}

static const char *const rocm_findings[] = {
    RD_FINDING(ROCM_NOT_INSTALLED),       RD_FINDING(ROCM_MULTIPLE_VERSIONS), RD_FINDING(PATH_ROCM_BIN_MISSING),
    RD_FINDING(ARCH_NO_KERNELS),          RD_FINDING(ARCH_UNSUPPORTED),       RD_FINDING(DRIVER_USERSPACE_MISMATCH),
    RD_FINDING(KERNEL_UNSUPPORTED),       RD_FINDING(TABLES_OLDER_THAN_HOST), RD_FINDING(ROCM_RELEASE_MOVING),
    RD_FINDING(ROCM_RELEASE_UNSUPPORTED), RD_FINDING(TABLES_FOLDER_UNKNOWN),  NULL,
};

/* clang-format off */
const rd_probe rd_probe_rocm = {
    .id = "rocm",
    .title = "ROCm installations, PATH, libraries and kernels per gfx",
    .flags = 0,
    .findings = rocm_findings,
    .areas = RD_STRV("rocm"),
    .reads = (const rd_probe_input[]){
        { "/etc/ld.so.conf.d", true },
        { "/opt", true },
        { "/var/lib/dpkg/status", false },
        { NULL, false },
    },
    .gather = rocm_gather,
    .assess = rocm_assess,
};
/* clang-format on */
