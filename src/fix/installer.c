/* SPDX-License-Identifier: MIT */
#include "installer.h"

#include <fcntl.h>
#include <sys/stat.h>
#include "distro.h"
#include "download.h"
#include "fix.h"
#include "repo-url.h"
#include "rootfs.h"
#include "util.h"

#define INDEX_MAX_BYTES (4 << 20)    /* a directory index */
#define PACKAGE_MAX_BYTES (64 << 20) /* AMD's installer is some 20 KiB */
#define INDEX_TIME_S 60
#define PACKAGE_TIME_S 120
#define SOURCES_MAX_BYTES (1 << 20) /* one repository file */

/* ---- parsers ---- */

static bool name_char(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' || c == '_' ||
           c == '-' || c == '+' || c == '~';
}

char **rd_installer_index_names(const char *html)
{
    char **v = NULL;
    size_t n = 0;
    for (const char *p = html; p && (p = strcasestr(p, "href="));) {
        p += 5;
        char quote = *p == '"' || *p == '\'' ? *p++ : 0;
        size_t len = quote ? strcspn(p, quote == '"' ? "\"" : "'") : strcspn(p, " \t\r\n>");
        _cleanup_free_ char *value = xstrndup(p, len);
        p += len;
        const char *name = value;
        while (startswith(name, "./"))
            name += 2;
        size_t nl = strlen(name);
        bool dir = nl > 0 && name[nl - 1] == '/';
        size_t body = dir ? nl - 1 : nl;
        if (body == 0 || streq(name, "../") || name[0] == '.')
            continue;
        bool ok = true;
        for (size_t i = 0; i < body && ok; i++)
            ok = name_char(name[i]);
        if (ok && !strv_contains(v, name))
            v = strv_push_n(v, &n, xstrdup(name));
    }
    return v;
}

/* "7.3" and "7.3.0" are 7.3.0; NULL for a name that is not 2 to 4 numbers. */
static char *release_of(const char *name)
{
    size_t dots = 0, len = strlen(name);
    if (len == 0 || name[0] == '.' || name[len - 1] == '.')
        return NULL;
    for (const char *s = name; *s; s++) {
        if (*s == '.') {
            if (s[1] == '.')
                return NULL;
            dots++;
        } else if (*s < '0' || *s > '9')
            return NULL;
    }
    if (dots < 1 || dots > 3)
        return NULL;
    return dots == 1 ? xasprintf("%s.0", name) : xstrdup(name);
}

static int compare_versions(const void *a, const void *b)
{
    return rd_version_compare(*(char *const *)a, *(char *const *)b);
}

/* The subfolders among an index's names, without their '/'. */
static char **folders_of(char *const *names)
{
    char **v = NULL;
    size_t n = 0;
    for (size_t i = 0; names && names[i]; i++)
        if (endswith(names[i], "/"))
            v = strv_push_n(v, &n, xstrndup(names[i], strlen(names[i]) - 1));
    return v;
}

static void repo_done(rd_installer_repo *r)
{
    free(r->url);
    free(r->suite);
    strv_free(r->components);
    free(r->file);
}

/* One of AMD's folders named in a repository file: mapped to the base and
 * classified; false when it is none of AMD's (or the installer's own). */
static bool add_repo(const rd_config *config, const rd_knowledge *k, const char *file, const char *url,
                     const char *suite, char **components, rd_installer_repo **repos, size_t *n_repos)
{
    const char *path = rd_repo_path_of(NULL, url);
    if (!path || !*path)
        return false;
    rd_repo_match m;
    if (rd_repos_classify(k, path, &m) <= 0)
        return false;
    rd_repo_family family = m.family;
    rd_repo_kind kind = m.kind;
    rd_repo_match_done(&m);
    if (kind == RD_REPO_INSTALLER)
        return false;
    *repos = xrealloc(*repos, (*n_repos + 1) * sizeof **repos);
    (*repos)[(*n_repos)++] = (rd_installer_repo){
        .family = family,
        .kind = kind,
        .url = xasprintf("%s/%s", rd_repo_base(config), path),
        .suite = xstrdup_or_null(suite),
        .components = components,
        .file = xstrdup(file),
    };
    return true;
}

/* deb [options] URL SUITE COMPONENT... */
static void parse_apt_line(const rd_config *config, const rd_knowledge *k, const char *file, char *line,
                           rd_installer_repo **repos, size_t *n_repos)
{
    line[strcspn(line, "#")] = 0;
    _cleanup_strv_free_ char **w = strv_split(line, " \t\r");
    size_t n = strv_length(w), i = 1;
    if (n < 3 || !streq(w[0], "deb"))
        return;
    if (w[i][0] == '[') {
        while (i < n && !endswith(w[i], "]"))
            i++;
        i++;
    }
    if (i + 1 >= n)
        return;
    char **components = NULL;
    size_t nc = 0;
    for (size_t j = i + 2; j < n; j++)
        components = strv_push_n(components, &nc, xstrdup(w[j]));
    if (!add_repo(config, k, file, w[i], w[i + 1], components, repos, n_repos))
        strv_free(components);
}

typedef struct {
    char *baseurl;
    bool enabled;
} repo_section;

static void flush_section(const rd_config *config, const rd_knowledge *k, const char *file, repo_section *s,
                          rd_installer_repo **repos, size_t *n_repos)
{
    if (s->baseurl && s->enabled)
        (void)add_repo(config, k, file, s->baseurl, NULL, NULL, repos, n_repos);
    free(s->baseurl);
    *s = (repo_section){ .enabled = true };
}

void rd_installer_parse_sources(const rd_config *config, const rd_knowledge *k, const char *file, const char *text,
                                rd_installer_repo **repos, size_t *n_repos)
{
    bool apt = endswith(file, ".list");
    _cleanup_strv_free_ char **lines = strv_split(text, "\n");
    repo_section s = { .enabled = true };
    bool in_section = false;
    for (size_t i = 0; lines && lines[i]; i++) {
        char *l = strstrip(lines[i]);
        if (apt) {
            parse_apt_line(config, k, file, l, repos, n_repos);
            continue;
        }
        if (*l == '#' || *l == ';' || !*l)
            continue;
        if (*l == '[') {
            if (in_section)
                flush_section(config, k, file, &s, repos, n_repos);
            in_section = true;
            continue;
        }
        char *eq = strchr(l, '=');
        if (!eq || !in_section)
            continue;
        *eq = 0;
        const char *key = strstrip(l);
        char *value = strstrip(eq + 1);
        if (streq(key, "baseurl") && !s.baseurl)
            s.baseurl = xstrndup(value, strcspn(value, " \t,"));
        else if (streq(key, "enabled"))
            s.enabled = !streq(value, "0") && strcasecmp(value, "no") != 0 && strcasecmp(value, "false") != 0;
    }
    if (in_section)
        flush_section(config, k, file, &s, repos, n_repos);
    else
        free(s.baseurl);
}

void rd_installer_info_done(rd_installer_info *info)
{
    for (size_t i = 0; i < info->n_repos; i++)
        repo_done(&info->repos[i]);
    free(info->repos);
    free(info->release);
    free(info->folder);
    free(info->installer_url);
    *info = (rd_installer_info){ 0 };
}

/* ---- where AMD keeps its installers: read from repos.ini ---- */

/* The layout of the installer folders, from the newest release of the
 * table that has an installer path for the family: its top folder
 * ("amdgpu-install"), the OS folders ("ubuntu"; the installer's "rhel"
 * then the driver folders' "el"; "sle"), the package name's prefix and
 * suffix ("amdgpu-install_" "_all.deb"). A release the table lacks is laid
 * out as the newest it knows. */
typedef struct {
    char *top;
    char **os_dirs;
    char *prefix, *suffix;
} layout;

static void layout_done(layout *l)
{
    free(l->top);
    strv_free(l->os_dirs);
    free(l->prefix);
    free(l->suffix);
}

/* path's n-th '/'-separated part; NULL past the end */
static char *part_of(const char *path, size_t n)
{
    _cleanup_strv_free_ char **parts = path ? strv_split(path, "/") : NULL;
    for (size_t i = 0; parts && parts[i]; i++)
        if (i == n)
            return xstrdup(parts[i]);
    return NULL;
}

static int layout_of(const rd_knowledge *k, rd_repo_family family, layout *ret, char **ret_reason)
{
    *ret = (layout){ 0 };
    const char *path = NULL, *driver = NULL;
    for (size_t i = k ? k->n_repos : 0; i > 0 && !path; i--) {
        path = rd_repo_path(&k->repos[i - 1], family, RD_REPO_INSTALLER);
        driver = rd_repo_path(&k->repos[i - 1], family, RD_REPO_AMDGPU);
    }
    _cleanup_free_ char *file = part_of(path, 4), *os_dir = part_of(path, 2), *drv_dir = part_of(driver, 2);
    ret->top = part_of(path, 0);
    if (!ret->top || !os_dir || !file || strchr(ret->top, '{') || strchr(os_dir, '{')) {
        layout_done(ret);
        *ret_reason = xasprintf("repos.ini names no installer package for %s", rd_repo_family_name(family));
        return -ENOENT;
    }
    ret->os_dirs = strv_push(NULL, xstrdup(os_dir));
    if (drv_dir && !strchr(drv_dir, '{') && !streq(drv_dir, os_dir))
        ret->os_dirs = strv_push(ret->os_dirs, TAKE_PTR(drv_dir));
    if (family == RD_REPO_APT) {
        /* NAME_VERSION_ARCH.deb */
        const char *us = strchr(file, '_'), *last = strrchr(file, '_');
        ret->prefix = xstrndup(file, us ? (size_t)(us - file) + 1 : 0);
        ret->suffix = xstrdup(last ? last : ".deb");
    } else {
        /* NAME-VERSION-RELEASE.ARCH.rpm: the name ends at the first "-<digit>" */
        size_t n = 0;
        while (file[n] && !(file[n] == '-' && file[n + 1] >= '0' && file[n + 1] <= '9'))
            n++;
        ret->prefix = xstrndup(file, file[n] ? n + 1 : 0);
        const char *dot = strrchr(file, '.');
        while (dot && dot > file && dot[-1] != '.')
            dot--;
        ret->suffix = xstrdup(dot && dot > file ? dot - 1 : ".rpm");
    }
    return 0;
}

/* The top folder alone (for the index of releases): any family's. */
static int top_of(const rd_knowledge *k, char **ret, char **ret_reason)
{
    for (int f = 0; f < RD_REPO_N_FAMILIES; f++) {
        layout l;
        _cleanup_free_ char *why = NULL;
        if (layout_of(k, (rd_repo_family)f, &l, &why) == 0) {
            *ret = TAKE_PTR(l.top);
            layout_done(&l);
            return 0;
        }
    }
    *ret_reason = xstrdup("repos.ini names no installer package: the server's releases cannot be listed");
    return -ENOENT;
}

/* ---- the server ---- */

typedef struct {
    const rd_config *config;
    const char *base;
    const char *top; /* the installers' folder under base */
    rd_download_opts dl;
    rd_scratch scratch;
    unsigned n_files;
} server;

static int server_begin(server *s, const rd_config *config, const char *top, char **ret_reason)
{
    *s = (server){ .config = config, .base = rd_repo_base(config), .top = top };
    s->dl = (rd_download_opts){
        .proto = rd_download_proto_of(s->base),
        .login = config ? config->mirror_login : NULL,
        .secret = config ? config->mirror_secret : NULL,
    };
    return rd_scratch_begin(&s->scratch, "installer", ret_reason);
}

static void server_end(server *s)
{
    rd_scratch_end(&s->scratch);
}

/* base/TOP/REL/ (REL a path under it, "" for the top) */
static char *installer_url(const server *s, const char *rel)
{
    return *rel ? xasprintf("%s/%s/%s/", s->base, s->top, rel) : xasprintf("%s/%s/", s->base, s->top);
}

/* Why a download failed, in words that say whether the server was reached. */
static char *download_reason(const char *what, const char *url, int r, const char *why)
{
    switch (r) {
    case -EHOSTUNREACH:
    case -ETIMEDOUT:
    case -EPROTO:
    case -EPROTONOSUPPORT: return xasprintf("cannot reach the repository server for %s (%s): %s", what, url, why);
    case -ENOENT: return xasprintf("%s is not on the repository server (%s: 404)", what, url);
    default: return xasprintf("cannot download %s from %s: %s", what, url, why);
    }
}

static int fetch(server *s, const char *url, const char *what, int64_t max_bytes, int64_t max_time_s, char **ret_path,
                 char **ret_reason)
{
    _cleanup_free_ char *path = xasprintf("%s/%u", s->scratch.dir, s->n_files++), *why = NULL;
    rd_download_opts o = s->dl;
    o.max_bytes = max_bytes;
    o.max_time_s = max_time_s;
    int r = rd_download(url, path, &o, &why);
    if (r < 0) {
        *ret_reason = download_reason(what, url, r, why);
        return r;
    }
    *ret_path = TAKE_PTR(path);
    return 0;
}

/* The names an index links to. */
static int fetch_index(server *s, const char *url, const char *what, char ***ret_names, char **ret_reason)
{
    _cleanup_free_ char *path = NULL, *html = NULL;
    int r = fetch(s, url, what, INDEX_MAX_BYTES, INDEX_TIME_S, &path, ret_reason);
    if (r < 0)
        return r;
    if ((r = read_file_at(AT_FDCWD, path, INDEX_MAX_BYTES, &html, NULL)) < 0) {
        *ret_reason = xasprintf("cannot read the index %s: %s", url, strerror(-r));
        return r;
    }
    *ret_names = rd_installer_index_names(html);
    return 0;
}

/* The releases among the names of the installers' index, sorted, once each. */
static char **releases_of(char *const *names)
{
    char **v = NULL;
    size_t n = 0;
    _cleanup_strv_free_ char **dirs = folders_of(names);
    for (size_t i = 0; dirs && dirs[i]; i++) {
        char *rel = release_of(dirs[i]);
        if (rel && !strv_contains(v, rel))
            v = strv_push_n(v, &n, rel);
        else
            free(rel);
    }
    if (n > 1)
        qsort(v, n, sizeof *v, compare_versions);
    return v;
}

int rd_installer_list_releases(const rd_config *config, const rd_knowledge *k, char ***ret_releases, char **ret_reason)
{
    _cleanup_free_ char *top = NULL;
    int r = top_of(k, &top, ret_reason);
    if (r < 0)
        return r;
    server s;
    r = server_begin(&s, config, top, ret_reason);
    if (r < 0)
        return r;
    _cleanup_free_ char *url = installer_url(&s, "");
    _cleanup_strv_free_ char **names = NULL;
    r = fetch_index(&s, url, "the index of AMD's installers", &names, ret_reason);
    server_end(&s);
    if (r < 0)
        return r;
    *ret_releases = releases_of(names);
    return 0;
}

/* ---- the release's package for this OS ---- */

/* The folder of `release` in the index: its own name, as AMD writes it. */
static const char *release_folder(char *const *dirs, const char *release)
{
    for (size_t i = 0; dirs && dirs[i]; i++) {
        _cleanup_free_ char *rel = release_of(dirs[i]);
        if (rel && streq(rel, release))
            return dirs[i];
    }
    return NULL;
}

/* The OS tree of the installers for an OS version: the table's rule for
 * its own folders (its own tree, else the nearest of the same major). */
static const char *pick_tree(char **trees, rd_repo_family family, const char *version)
{
    const rd_repo_row listed = { .el_trees = trees, .sles_trees = trees };
    return rd_repo_pick_tree(&listed, family, version);
}

/* The installer package among a folder's names: the newest by name. */
static const char *pick_package(char *const *names, const char *prefix, const char *suffix, const char *prefer)
{
    const char *best = NULL;
    for (int pass = 0; pass < 2 && !best; pass++)
        for (size_t i = 0; names && names[i]; i++) {
            if (!startswith(names[i], prefix) || !endswith(names[i], suffix))
                continue;
            if (pass == 0 && prefer && !strstr(names[i], prefer))
                continue;
            if (!best || strverscmp(names[i], best) > 0)
                best = names[i];
        }
    return best;
}

/* The apt suite of AMD's installers for this host: Ubuntu's codename;
 * Debian's from support.ini (the newest release that lists its codename). */
static const char *apt_suite(const rd_knowledge *k, const rd_os_facts *os)
{
    if (rd_os_is_ubuntu(os))
        return os->version_codename;
    for (size_t i = k ? k->n_releases : 0; i > 0; i--) {
        const rd_release *rel = &k->releases[i - 1];
        for (size_t j = 0; !rel->apt_suite_ubuntu && j < rel->n_os; j++)
            if (streq_ptr(rel->os[j].id, os->id) && streq_ptr(rel->os[j].codename, os->version_codename) &&
                rel->os[j].apt_suite)
                return rel->os[j].apt_suite;
    }
    return NULL;
}

typedef struct {
    rd_repo_family family;
    const char *pretty;   /* "Ubuntu jammy", "EL 9.6" */
    const char *conf_dir; /* where the package keeps its repository files */
    const char *suffix;   /* of those files */
} os_kind;

/* The folder under the release's with the installer for this OS, its URL
 * in *ret_dir_url and the package's name in *ret_package. */
static int find_package(server *s, const rd_knowledge *k, const rd_os_facts *os, const os_kind *ok, const layout *lay,
                        const char *release, const char *folder, char **ret_dir_url, char **ret_package,
                        char **ret_reason)
{
    _cleanup_free_ char *rel_url = installer_url(s, folder);
    _cleanup_free_ char *what = xasprintf("ROCm %s's installers", release);
    _cleanup_strv_free_ char **names = NULL;
    _cleanup_strv_free_ char **tops = NULL;
    int r = fetch_index(s, rel_url, what, &names, ret_reason);
    if (r < 0)
        return r;
    tops = folders_of(names);
    _cleanup_free_ char *dir_url = NULL;
    const char *prefer = NULL;
    _cleanup_free_ char *prefer_buf = NULL;
    if (ok->family == RD_REPO_APT) {
        const char *suite = apt_suite(k, os);
        if (!suite) {
            *ret_reason = xasprintf("no Ubuntu suite of AMD's is known for %s %s (%s): support.ini lists none",
                                    strempty(os->id), strempty(os->version_id), strempty(os->version_codename));
            return -ENOENT;
        }
        _cleanup_free_ char *ubuntu_url = xasprintf("%s%s/", rel_url, lay->os_dirs[0]);
        _cleanup_strv_free_ char **suites_names = NULL;
        _cleanup_strv_free_ char **suites = NULL;
        if (strv_contains(tops, lay->os_dirs[0]) && fetch_index(s, ubuntu_url, what, &suites_names, ret_reason) == 0)
            suites = folders_of(suites_names);
        free(*ret_reason);
        *ret_reason = NULL;
        if (!strv_contains(suites, suite)) {
            _cleanup_free_ char *has = suites ? strv_join(suites, " ") : xstrdup("none");
            *ret_reason = xasprintf("ROCm %s has no installer for the apt suite %s on %s (its Ubuntu suites: %s)",
                                    release, suite, s->base, has);
            return -ENOENT;
        }
        dir_url = xasprintf("%s%s/", ubuntu_url, suite);
    } else {
        /* EL: the installers' rhel/ and the driver folders' el/ (AMD serves both) */
        char *const *cands = lay->os_dirs;
        _cleanup_strv_free_ char **seen = NULL;
        for (size_t i = 0; cands[i] && !dir_url; i++) {
            if (!strv_contains(tops, cands[i]))
                continue;
            _cleanup_free_ char *u = xasprintf("%s%s/", rel_url, cands[i]);
            _cleanup_strv_free_ char **tn = NULL;
            _cleanup_strv_free_ char **trees = NULL;
            if (fetch_index(s, u, what, &tn, ret_reason) < 0) {
                free(*ret_reason);
                *ret_reason = NULL;
                continue;
            }
            trees = folders_of(tn);
            const char *tree = pick_tree(trees, ok->family, os->version_id);
            if (tree)
                dir_url = xasprintf("%s%s/", u, tree);
            for (size_t j = 0; trees && trees[j]; j++)
                seen = strv_push(seen, xasprintf("%s/%s", cands[i], trees[j]));
        }
        if (!dir_url) {
            _cleanup_free_ char *has = seen ? strv_join(seen, " ") : xstrdup("none");
            *ret_reason =
                xasprintf("ROCm %s has no installer for %s on %s (its trees: %s)", release, ok->pretty, s->base, has);
            return -ENOENT;
        }
        if (ok->family == RD_REPO_EL && os->version_id)
            prefer = prefer_buf = xasprintf(".el%.*s.", (int)strcspn(os->version_id, "."), os->version_id);
    }
    _cleanup_strv_free_ char **files = NULL;
    if ((r = fetch_index(s, dir_url, what, &files, ret_reason)) < 0)
        return r;
    const char *pkg = pick_package(files, lay->prefix, lay->suffix, prefer);
    if (!pkg) {
        *ret_reason = xasprintf("%s holds no installer package (%s*%s)", dir_url, lay->prefix, lay->suffix);
        return -ENOENT;
    }
    *ret_dir_url = TAKE_PTR(dir_url);
    *ret_package = xstrdup(pkg);
    return 0;
}

/* ---- the package's files, without its scripts ---- */

/* The data member of a .deb (an ar archive) written to *ret_path. */
static int deb_data(const char *deb, const char *dir, char **ret_path, char **ret_reason)
{
    _cleanup_free_ char *data = NULL;
    size_t size = 0;
    int r = read_file_at(AT_FDCWD, deb, PACKAGE_MAX_BYTES, &data, &size);
    if (r < 0) {
        *ret_reason = xasprintf("cannot read the downloaded package: %s", strerror(-r));
        return r;
    }
    if (size < 8 || memcmp(data, "!<arch>\n", 8) != 0) {
        *ret_reason = xstrdup("the package is not a .deb (no ar archive)");
        return -EBADMSG;
    }
    size_t off = 8;
    while (off + 60 <= size) {
        const char *h = data + off;
        if (h[58] != '`' || h[59] != '\n')
            break;
        char name[17], sz[11];
        memcpy(name, h, 16);
        name[16] = 0;
        memcpy(sz, h + 48, 10);
        sz[10] = 0;
        char *end = NULL;
        unsigned long long m = strtoull(sz, &end, 10);
        if (end == sz || m > size - off - 60) {
            *ret_reason = xasprintf("the package is truncated: its member %s claims %llu bytes, %zu are there",
                                    strstrip(name), m, size - off - 60);
            return -EBADMSG;
        }
        strstrip(name);
        size_t nl = strlen(name);
        if (nl > 0 && name[nl - 1] == '/')
            name[--nl] = 0;
        if (startswith(name, "data.tar")) {
            bool known = streq(name, "data.tar") || streq(name, "data.tar.gz") || streq(name, "data.tar.xz") ||
                         streq(name, "data.tar.zst") || streq(name, "data.tar.bz2");
            if (!known) {
                *ret_reason = xasprintf("the package's member %s is none of the tar formats dpkg writes", name);
                return -EBADMSG;
            }
            _cleanup_free_ char *path = xasprintf("%s/%s", dir, name);
            _cleanup_close_ int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
            r = dfd < 0 ? -errno : write_atomic_at(dfd, name, h + 60, (size_t)m, 0600, getuid(), getgid());
            if (r < 0) {
                *ret_reason = xasprintf("cannot write %s: %s", path, strerror(-r));
                return r;
            }
            *ret_path = TAKE_PTR(path);
            return 0;
        }
        off += 60 + (size_t)m + (m & 1);
    }
    *ret_reason = xstrdup(off + 60 > size && off < size ? "the package is truncated (a partial ar header)"
                                                        : "the package holds no data.tar member");
    return -EBADMSG;
}

/* tar extracts the members under conf_dir (and nothing else) into dest;
 * GNU tar detects the compression and calls xz, gzip or zstd. */
static int untar(const char *archive, const char *dest, const char *conf_dir, char **ret_reason)
{
    _cleanup_free_ char *pattern = xasprintf("*%s/*", conf_dir + 1), *out = NULL;
    char *argv[] = { (char *)"tar",
                     (char *)"-x",
                     (char *)"-f",
                     (char *)archive,
                     (char *)"-C",
                     (char *)dest,
                     (char *)"--no-same-owner",
                     (char *)"--no-same-permissions",
                     (char *)"--no-overwrite-dir",
                     (char *)"--wildcards",
                     pattern,
                     NULL };
    int r = rd_fix_spawn(argv, &out);
    if (r == 0)
        return 0;
    if (r < 0 || r == 127) {
        *ret_reason = xasprintf("cannot run tar: %s", r < 0 ? strerror(-r) : strempty(out));
        return r < 0 ? r : -ENOEXEC;
    }
    if (out && strstr(out, "Not found in archive"))
        *ret_reason = xasprintf("the package holds no %s", conf_dir);
    else
        *ret_reason = xasprintf("tar cannot read the package's files: %s", out && *out ? out : "tar failed");
    return -EBADMSG;
}

/* The .rpm's payload as a tar archive (rpm2archive), else as cpio
 * (rpm2cpio) extracted with cpio. */
static int rpm_extract(const char *rpm, const char *dest, const char *conf_dir, char **ret_reason)
{
    _cleanup_free_ char *out = NULL, *tar = xasprintf("%s.tar", rpm);
    char *argv[] = { (char *)"rpm2archive", (char *)"-n", (char *)rpm, NULL };
    int r = rd_fix_spawn(argv, &out);
    if (r == 0 && access(tar, F_OK) == 0)
        return untar(tar, dest, conf_dir, ret_reason);
    /* no rpm2archive, or one without -n (before rpm 4.15), or a package it
     * cannot read: rpm2cpio into a file, cpio out of it (through sh for the
     * redirections; the paths are arguments, never part of the script) */
    _cleanup_free_ char *first =
        r == 127 || r < 0 ? NULL
                          : xasprintf("rpm2archive cannot read the package: %s", out && *out ? out : "it failed");
    _cleanup_free_ char *cpio = xasprintf("%s.cpio", rpm), *pattern = xasprintf("*%s/*", conf_dir + 1);
    char *to_cpio[] = { (char *)"sh", (char *)"-c", (char *)"rpm2cpio \"$1\" > \"$2\"", (char *)"sh", (char *)rpm,
                        cpio,         NULL };
    char *from_cpio[] = {
        (char *)"sh", (char *)"-c", (char *)"cd \"$1\" && cpio -i -d --quiet --no-absolute-filenames \"$3\" < \"$2\"",
        (char *)"sh", (char *)dest, cpio,
        pattern,      NULL
    };
    const char *tool = "rpm2cpio";
    free(out);
    out = NULL;
    if ((r = rd_fix_spawn(to_cpio, &out)) == 0) {
        tool = "cpio";
        free(out);
        out = NULL;
        r = rd_fix_spawn(from_cpio, &out);
    }
    if (r == 0)
        return 0;
    _cleanup_free_ char *second = xasprintf("%s cannot read the package: %s", tool, out && *out ? out : "it failed");
    *ret_reason = first ? xasprintf("%s; %s", first, second) : TAKE_PTR(second);
    return r == 127 && !first ? -ENOEXEC : -EBADMSG;
}

/* dnf variables AMD's .repo files may carry, as the installer's scripts
 * would set them: amdgpudistro (the OS tree), basearch, releasever. */
static char *expand_vars(const char *text, const char *tree, const rd_os_facts *os, rd_repo_family family)
{
    _cleanup_free_ char *major = xstrndup(strempty(os->version_id), strcspn(strempty(os->version_id), "."));
    const struct {
        const char *name, *value;
    } vars[] = {
        { "amdgpudistro", tree },
        { "basearch", "x86_64" },
        { "releasever", family == RD_REPO_SLES ? strempty(os->version_id) : major },
    };
    strbuf b = { 0 };
    strbuf_append(&b, "");
    for (const char *p = text; *p;) {
        bool done = false;
        for (size_t i = 0; *p == '$' && !done && i < ELEMENTSOF(vars); i++) {
            size_t n = strlen(vars[i].name);
            if (strncmp(p + 1, vars[i].name, n) == 0 && !name_char(p[1 + n])) {
                strbuf_append(&b, vars[i].value);
                p += 1 + n;
                done = true;
            } else if (p[1] == '{' && strncmp(p + 2, vars[i].name, n) == 0 && p[2 + n] == '}') {
                strbuf_append(&b, vars[i].value);
                p += 3 + n;
                done = true;
            }
        }
        if (!done)
            strbuf_appendn(&b, p++, 1);
    }
    return strbuf_steal(&b);
}

/* The repository files under dest's conf_dir, parsed into info. */
static int read_sources(const rd_config *config, const rd_knowledge *k, const rd_os_facts *os, const os_kind *ok,
                        const char *dest, const char *tree, rd_installer_info *info, char **ret_reason)
{
    _cleanup_close_ int fd = open(dest, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) {
        *ret_reason = xasprintf("cannot open %s: %s", dest, strerror(errno));
        return -errno;
    }
    _cleanup_strv_free_ char **names = NULL;
    int r = rootfs_list_dir(fd, ok->conf_dir, ROOTFS_BENEATH, ok->suffix, &names, NULL);
    if (r < 0) {
        *ret_reason = xasprintf("the package holds no %s", ok->conf_dir);
        return -EBADMSG;
    }
    for (size_t i = 0; names && names[i]; i++) {
        /* amdgpu-proprietary: the closed-source graphics AMD ships separately */
        if (strstr(names[i], "proprietary"))
            continue;
        _cleanup_free_ char *file = xasprintf("%s/%s", ok->conf_dir, names[i]), *text = NULL;
        if (rootfs_read_file(fd, file, ROOTFS_BENEATH, SOURCES_MAX_BYTES, &text, NULL) < 0)
            continue; /* a link, a directory: not one of the package's repository files */
        _cleanup_free_ char *expanded = expand_vars(text, tree, os, ok->family);
        rd_installer_parse_sources(config, k, file, expanded, &info->repos, &info->n_repos);
    }
    if (info->n_repos == 0) {
        *ret_reason = xasprintf("the package's %s names none of AMD's repository folders", ok->conf_dir);
        return -EBADMSG;
    }
    return 0;
}

/* What AMD's installer package looks like for the OS's family; *ret_pretty
 * holds the name ret->pretty points to. -EOPNOTSUPP for a family AMD ships
 * none for. */
static int os_kind_of(const rd_os_facts *os, os_kind *ret, char **ret_pretty, char **ret_reason)
{
    switch (rd_os_family_facts(os)) {
    case RD_OS_DEBIAN:
        *ret_pretty = xasprintf("%s %s", strempty(os->id), strempty(os->version_codename));
        *ret = (os_kind){ RD_REPO_APT, *ret_pretty, "/etc/apt/sources.list.d", ".list" };
        return 0;
    case RD_OS_RHEL:
        *ret_pretty = xasprintf("EL %s", strempty(os->version_id));
        *ret = (os_kind){ RD_REPO_EL, *ret_pretty, "/etc/yum.repos.d", ".repo" };
        return 0;
    case RD_OS_SUSE:
        *ret_pretty = xasprintf("SLES %s", strempty(os->version_id));
        *ret = (os_kind){ RD_REPO_SLES, *ret_pretty, "/etc/zypp/repos.d", ".repo" };
        return 0;
    default:
        *ret_reason = xasprintf("AMD ships no installer package for %s", os->pretty_name ? os->pretty_name
                                                                         : os->id        ? os->id
                                                                                         : "an OS without os-release");
        return -EOPNOTSUPP;
    }
}

/* The installers' folder of release want on the server (*ret_folder points
 * into *ret_dirs); -ENOENT naming the releases it has. */
static int installer_folder(server *s, const layout *lay, const char *want, char ***ret_dirs, const char **ret_folder,
                            char **ret_reason)
{
    _cleanup_free_ char *top = installer_url(s, "");
    _cleanup_strv_free_ char **names = NULL;
    int r = fetch_index(s, top, "the index of AMD's installers", &names, ret_reason);
    if (r < 0)
        return r;
    *ret_dirs = folders_of(names);
    *ret_folder = release_folder(*ret_dirs, want);
    if (!*ret_folder) {
        _cleanup_strv_free_ char **has = releases_of(names);
        _cleanup_free_ char *list = has ? strv_join(has, " ") : xstrdup("none");
        *ret_reason = xasprintf("ROCm %s is not on %s: %s/ has no folder for it (its releases: %s)", want, s->base,
                                lay->top, list);
        return -ENOENT;
    }
    return 0;
}

/* The package at path unpacked into dest: its repository files under
 * ok->conf_dir. */
static int unpack_installer(const os_kind *ok, const char *path, const char *scratch_dir, const char *dest,
                            char **reason)
{
    if (ok->family != RD_REPO_APT)
        return rpm_extract(path, dest, ok->conf_dir, reason);
    _cleanup_free_ char *data = NULL;
    int r = deb_data(path, scratch_dir, &data, reason);
    return r < 0 ? r : untar(data, dest, ok->conf_dir, reason);
}

/* The tree the package was picked from, for $amdgpudistro: the last folder
 * of dir_url ("el9.6" of ".../rhel/el9.6/"); NULL for apt. */
static char *tree_of(const os_kind *ok, const char *dir_url)
{
    if (ok->family == RD_REPO_APT)
        return NULL;
    size_t n = strlen(dir_url);
    const char *end = dir_url + n - 1, *start = end;
    while (start > dir_url && start[-1] != '/')
        start--;
    return xstrndup(start, (size_t)(end - start));
}

int rd_installer_read(const rd_config *config, const rd_knowledge *k, const rd_os_facts *os, const char *release,
                      rd_installer_info *ret, char **ret_reason)
{
    *ret = (rd_installer_info){ 0 };
    _cleanup_free_ char *want = release ? release_of(release) : NULL;
    if (!want) {
        *ret_reason = xasprintf("\"%s\" is not a ROCm release number (X.Y or X.Y.Z)", strempty(release));
        return -EINVAL;
    }
    os_kind ok = { 0 };
    _cleanup_free_ char *pretty = NULL;
    int r = os_kind_of(os, &ok, &pretty, ret_reason);
    if (r < 0)
        return r;
    _cleanup_(layout_done) layout lay = { 0 };
    if ((r = layout_of(k, ok.family, &lay, ret_reason)) < 0)
        return r;
    _cleanup_(server_end) server s;
    if ((r = server_begin(&s, config, lay.top, ret_reason)) < 0)
        return r;
    _cleanup_strv_free_ char **dirs = NULL;
    const char *folder = NULL;
    if ((r = installer_folder(&s, &lay, want, &dirs, &folder, ret_reason)) < 0)
        return r;
    _cleanup_free_ char *dir_url = NULL, *package = NULL, *path = NULL;
    if ((r = find_package(&s, k, os, &ok, &lay, want, folder, &dir_url, &package, ret_reason)) < 0)
        return r;
    _cleanup_free_ char *pkg_url = xasprintf("%s%s", dir_url, package);
    _cleanup_free_ char *what = xasprintf("ROCm %s's installer", want);
    if ((r = fetch(&s, pkg_url, what, PACKAGE_MAX_BYTES, PACKAGE_TIME_S, &path, ret_reason)) < 0)
        return r;
    _cleanup_free_ char *dest = xasprintf("%s/root", s.scratch.dir);
    if (mkdir(dest, 0700) < 0) {
        *ret_reason = xasprintf("cannot create %s: %s", dest, strerror(errno));
        return -errno;
    }
    _cleanup_free_ char *reason = NULL;
    r = unpack_installer(&ok, path, s.scratch.dir, dest, &reason);
    _cleanup_free_ char *tree = tree_of(&ok, dir_url);
    if (r >= 0)
        r = read_sources(config, k, os, &ok, dest, tree, ret, &reason);
    if (r < 0) {
        rd_installer_info_done(ret);
        *ret_reason = xasprintf("%s: %s", pkg_url, reason);
        return r;
    }
    ret->release = TAKE_PTR(want);
    ret->folder = xstrdup(folder);
    ret->installer_url = TAKE_PTR(pkg_url);
    return 0;
}
