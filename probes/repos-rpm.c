/* SPDX-License-Identifier: MIT */
/* dnf and zypper repositories: the .repo files of /etc/yum.repos.d and
 * /etc/zypp/repos.d (INI, read with inih), $releasever, $basearch and
 * the variable files expanded as the clients do, and the verdict on AMD's
 * repositories: missing, for another OS release, signature checks off, key
 * not there, prerequisite repositories (CRB, EPEL) off. */
#include <ctype.h>
#include <search.h>
#include <stdarg.h>
#include <stdio.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <inttypes.h>
#include <ini.h>
#include <sys/utsname.h>
#include "config.h"
#include "distro.h"
#include "rpm.h"
#include "probe.h"
#include "repo-url.h"
#include "rootfs.h"
#include "util.h"

#define REPO_FILE_MAX (1024u * 1024)

/* ---- parsing ---- */

typedef struct {
    const char *text, *end, *pos;
    int lineno;
    int long_line; /* first line longer than inih takes */
    int nul_line;  /* first line with a NUL byte */
} line_reader;

static char *reader_next(char *str, int num, void *stream)
{
    line_reader *r = stream;
    if (r->pos >= r->end)
        return NULL;
    const char *nl = memchr(r->pos, '\n', (size_t)(r->end - r->pos));
    size_t len = nl ? (size_t)(nl - r->pos) : (size_t)(r->end - r->pos);
    r->lineno++;
    if (len >= (size_t)num - 1 && !r->long_line)
        r->long_line = r->lineno;
    if (memchr(r->pos, 0, len) && !r->nul_line)
        r->nul_line = r->lineno;
    size_t n = len < (size_t)num - 2 ? len : (size_t)num - 2;
    memcpy(str, r->pos, n);
    str[n] = '\n';
    str[n + 1] = 0;
    r->pos = nl ? nl + 1 : r->end;
    return str;
}

typedef struct {
    rd_repo_config *cfg;
    const char *file;
    line_reader *reader;
    const rd_repo_var *vars;
    size_t n_vars;
    const char *host;
    rd_rpm_repo *current;
    char *first_error;
    void *by_id;       /* tsearch tree of this file's repos, by id */
    size_t n_problems; /* cfg->problems' length: a file of duplicates appends in linear time */
} parse_ctx;

/* An id and where it points (a repo's index, a header's line): the sections
 * of one file are looked up in a balanced tree, so a file of n sections
 * costs n log n however the ids are chosen. */
typedef struct {
    char *id;
    size_t value;
} id_entry;

static int id_cmp(const void *a, const void *b)
{
    return strcmp(((const id_entry *)a)->id, ((const id_entry *)b)->id);
}

static void id_entry_free(void *p)
{
    id_entry *e = p;
    free(e->id);
    free(e);
}

static bool id_find(void *const *tree, const char *id, size_t *ret)
{
    id_entry key = { .id = (char *)id };
    id_entry *const *e = tfind(&key, tree, id_cmp);
    if (e)
        *ret = (*e)->value;
    return e != NULL;
}

static void id_add(void **tree, const char *id, size_t value)
{
    id_entry *e = xmalloc(sizeof *e);
    *e = (id_entry){ .id = xstrdup(id), .value = value };
    id_entry **r = tsearch(e, tree, id_cmp);
    if (!r)
        abort(); /* out of memory, as xmalloc */
    if (*r != e)
        id_entry_free(e);
}

/* host: AMD's host name, then optionally a configured mirror's base URL
 * ("repo.radeon.com http://mirror.example/radeon"). */
static bool url_on_host(const char *url, const char *host)
{
    const char *p = url ? strstr(url, "://") : NULL;
    if (!p || !host)
        return false;
    p += 3;
    size_t n = strcspn(host, " ");
    return strncmp(p, host, n) == 0 && (p[n] == '/' || p[n] == 0 || p[n] == ':');
}

char *rd_repo_expand(const char *s, const rd_repo_var *vars, size_t n_vars)
{
    strbuf b = { 0 };
    strbuf_append(&b, "");
    for (const char *p = s; *p;) {
        if (*p != '$') {
            strbuf_appendn(&b, p++, 1);
            continue;
        }
        bool brace = p[1] == '{';
        const char *name = p + 1 + brace;
        size_t n = 0;
        while (isalnum((unsigned char)name[n]) || name[n] == '_')
            n++;
        const char *value = NULL;
        for (size_t i = 0; n && i < n_vars && !value; i++)
            if (strlen(vars[i].name) == n && strncmp(vars[i].name, name, n) == 0)
                value = vars[i].value;
        if (!value || (brace && name[n] != '}')) {
            strbuf_appendn(&b, p++, 1); /* unknown: left as written, as dnf does */
            continue;
        }
        strbuf_append(&b, value);
        p = name + n + brace;
    }
    return strbuf_steal(&b);
}

static void __attribute__((format(printf, 3, 4))) problem(parse_ctx *pc, int line, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    _cleanup_free_ char *msg = xvasprintf(fmt, ap);
    va_end(ap);
    pc->cfg->problems = strv_push_n(pc->cfg->problems, &pc->n_problems, xasprintf("%s:%d: %s", pc->file, line, msg));
}

static rd_rpm_repo *find_repo(parse_ctx *pc, const char *id)
{
    size_t i;
    return id_find(&pc->by_id, id, &i) ? &pc->cfg->repos[i] : NULL;
}

static int repo_handler(void *user, const char *section, const char *name, const char *value)
{
    parse_ctx *pc = user;
    int line = pc->reader->lineno;
    if (!pc->current || !streq(pc->current->id, section)) {
        pc->current = find_repo(pc, section);
        if (!pc->current) {
            id_add(&pc->by_id, section, pc->cfg->n_repos);
            pc->current = ARRAY_APPEND(pc->cfg->repos, pc->cfg->n_repos);
            pc->current->file = xstrdup(pc->file);
            pc->current->id = xstrdup(section);
            pc->current->line = line; /* the first key; section_lines() finds the header */
            pc->current->enabled = true;
        }
    }
    rd_rpm_repo *r = pc->current;
    bool is_base = !strcasecmp(name, "baseurl");
    if (is_base || !strcasecmp(name, "mirrorlist") || !strcasecmp(name, "metalink")) {
        /* the first URL counts (later ones and continuation lines are mirrors);
         * a baseurl wins over a mirrorlist */
        if (!r->baseurl || !*r->baseurl || (is_base && r->baseurl_line == 0)) {
            free(r->baseurl);
            r->baseurl = xstrndup(value, strcspn(value, " \t,"));
            r->baseurl_line = is_base ? line : 0;
        }
    } else if (!strcasecmp(name, "name")) {
        free(r->name);
        r->name = xstrdup(value);
    } else if (!strcasecmp(name, "enabled"))
        r->enabled = !(streq(value, "0") || !strcasecmp(value, "no") || !strcasecmp(value, "false") ||
                       !strcasecmp(value, "off"));
    else if (!strcasecmp(name, "gpgcheck")) {
        free(r->gpgcheck);
        r->gpgcheck = xstrdup(value);
    } else if (!strcasecmp(name, "gpgkey")) {
        free(r->gpgkey);
        r->gpgkey = xstrndup(value, strcspn(value, " \t,"));
    }
    return 1;
}

/* The line of each [section] header (inih does not give it), and headers
 * that appear twice (inih merges them silently). */
static void section_lines(parse_ctx *pc, const char *text, size_t size)
{
    rd_repo_config *cfg = pc->cfg;
    void *seen = NULL;
    int lineno = 0;
    for (const char *p = text, *end = text + size; p < end;) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        size_t len = nl ? (size_t)(nl - p) : (size_t)(end - p);
        lineno++;
        while (len && isspace((unsigned char)*p))
            p++, len--;
        const char *close = len && *p == '[' ? memchr(p, ']', len) : NULL;
        if (close) {
            _cleanup_free_ char *id = xstrndup(p + 1, (size_t)(close - p - 1));
            size_t i, first_line;
            bool has_repo = id_find(&pc->by_id, id, &i);
            if (!id_find(&seen, id, &first_line))
                id_add(&seen, id, (size_t)lineno);
            else if (has_repo)
                problem(pc, lineno, "[%s] again (first at line %" PRId64 "): the client takes one of them", id,
                        cfg->repos[i].line);
            if (has_repo && cfg->repos[i].line >= lineno)
                cfg->repos[i].line = lineno;
        }
        p = nl ? nl + 1 : end;
    }
    tdestroy(seen, id_entry_free);
}

void rd_repo_parse(rd_repo_config *cfg, const char *file, const char *text, size_t size, const rd_repo_var *vars,
                   size_t n_vars, const char *host)
{
    line_reader rd = { .text = text, .end = text + size, .pos = text };
    parse_ctx pc = { .cfg = cfg,
                     .file = file,
                     .reader = &rd,
                     .vars = vars,
                     .n_vars = n_vars,
                     .host = host,
                     .n_problems = strv_length(cfg->problems) };
    size_t first = cfg->n_repos;
    int err = ini_parse_stream(reader_next, &rd, repo_handler, &pc);
    if (rd.nul_line)
        problem(&pc, rd.nul_line, "%s", "binary data (a NUL byte): not a repository file");
    else if (err > 0)
        problem(&pc, err, "%s", "not \"[id]\" nor \"key=value\": the client rejects the file");
    if (rd.long_line)
        problem(&pc, rd.long_line, "%s", "line longer than 200 characters: read only in part");
    section_lines(&pc, text, size);
    tdestroy(pc.by_id, id_entry_free);
    for (size_t i = first; i < cfg->n_repos; i++) {
        rd_rpm_repo *r = &cfg->repos[i];
        if (!r->baseurl) {
            problem(&pc, (int)r->line, "[%s] has no baseurl, mirrorlist or metalink", r->id);
            continue;
        }
        r->url = rd_repo_expand(r->baseurl, vars, n_vars);
        r->amd = url_on_host(r->url, host);
        const char *mirror = strchr(host, ' ');
        if (!r->amd && mirror && rd_url_under_mirror(mirror + 1, r->url)) {
            /* the mirror stands for AMD's server: judged as AMD's URL */
            char *canonical = rd_repo_canonical(mirror + 1, r->url);
            free(r->url);
            r->url = canonical;
            r->amd = true;
        }
    }
}

/* ---- gather ---- */

typedef struct {
    char *names[32], *values[32];
    size_t n;
} var_table;

static void vars_add(var_table *t, const char *name, const char *value)
{
    for (size_t i = 0; i < t->n; i++)
        if (streq(t->names[i], name)) {
            free(t->values[i]);
            t->values[i] = xstrdup(value);
            return;
        }
    if (t->n < ELEMENTSOF(t->names)) {
        t->names[t->n] = xstrdup(name);
        t->values[t->n++] = xstrdup(value);
    }
}

static void vars_free(var_table *t)
{
    for (size_t i = 0; i < t->n; i++)
        free(t->names[i]), free(t->values[i]);
}

static void vars_read_dir(const rd_ctx *ctx, var_table *t, const char *dir)
{
    _cleanup_strv_free_ char **names = NULL;
    if (rd_root_list_dir(ctx, dir, NULL, &names) < 0)
        return;
    for (size_t i = 0; names && names[i]; i++) {
        _cleanup_free_ char *path = xasprintf("%s/%s", dir, names[i]), *text = NULL;
        if (rd_root_read_file(ctx, path, 4096, &text) < 0)
            continue;
        text[strcspn(text, "\n")] = 0;
        vars_add(t, names[i], strstrip(text));
    }
}

static char *main_gpgcheck(const rd_ctx *ctx)
{
    _cleanup_free_ char *text = NULL;
    if (rd_root_read_file(ctx, "/etc/dnf/dnf.conf", 256 * 1024, &text) < 0 &&
        rd_root_read_file(ctx, "/etc/yum.conf", 256 * 1024, &text) < 0)
        return NULL;
    bool in_main = false;
    char *save = NULL;
    for (char *l = strtok_r(text, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
        char *s = strstrip(l);
        if (*s == '[')
            in_main = startswith(s, "[main]") != NULL;
        else if (in_main && startswith(s, "gpgcheck")) {
            char *eq = strchr(s, '=');
            if (eq)
                return xstrdup(strstrip(eq + 1));
        }
    }
    return NULL;
}

static void gather_one(const rd_ctx *ctx, const rd_facts *facts, rd_repo_config *cfg, const char *manager,
                       const char *dir, const char *const *var_dirs)
{
    cfg->manager = xstrdup(manager);
    _cleanup_close_ int fd = rd_root_open(ctx, dir, O_RDONLY | O_DIRECTORY);
    if (fd < 0)
        return;
    cfg->present = true;
    var_table vars = { 0 };
    struct utsname u;
    const char *arch = uname(&u) == 0 ? u.machine : "x86_64";
    cfg->basearch = xstrdup(streq(arch, "i686") || streq(arch, "i586") ? "i386" : arch);
    /* dnf on EL takes the major version (redhat-release provides
     * system-release(releasever) = 9); Fedora and zypper the VERSION_ID */
    const char *v = strempty(facts->os.version_id);
    rd_os_family fam = rd_os_family_of(facts->os.id, facts->os.id_like);
    cfg->releasever = fam == RD_OS_RHEL ? xstrndup(v, strcspn(v, ".")) : xstrdup(v);
    vars_add(&vars, "releasever", cfg->releasever);
    vars_add(&vars, "basearch", cfg->basearch);
    vars_add(&vars, "arch", arch);
    for (size_t i = 0; var_dirs[i]; i++)
        vars_read_dir(ctx, &vars, var_dirs[i]);
    for (size_t i = 0; i < vars.n; i++)
        if (streq(vars.names[i], "releasever")) {
            free(cfg->releasever);
            cfg->releasever = xstrdup(vars.values[i]);
        }
    rd_repo_var rv[32];
    for (size_t i = 0; i < vars.n; i++)
        rv[i] = (rd_repo_var){ vars.names[i], vars.values[i] };
    if (streq(manager, "dnf"))
        cfg->main_gpgcheck = main_gpgcheck(ctx);

    _cleanup_strv_free_ char **names = NULL;
    const char *mirror = ctx->config ? ctx->config->mirror : NULL;
    _cleanup_free_ char *hosts = mirror ? xasprintf("%s %s", strempty(ctx->knowledge.rpm.host), mirror)
                                        : xstrdup(strempty(ctx->knowledge.rpm.host));
    if (rd_root_list_dir(ctx, dir, ".repo", &names) >= 0)
        for (size_t i = 0; names && names[i]; i++) {
            _cleanup_free_ char *path = xasprintf("%s/%s", dir, names[i]), *text = NULL;
            size_t size = 0;
            int r = rootfs_read_file(ctx->root_fd, path, rd_root_how(ctx), REPO_FILE_MAX, &text, &size);
            if (r == -EFBIG || r == -E2BIG)
                cfg->problems = strv_push(cfg->problems, xasprintf("%s: larger than %u KiB: not read (not a "
                                                                   "repository file)",
                                                                   path, REPO_FILE_MAX / 1024));
            else if (r < 0)
                cfg->problems = strv_push(cfg->problems, xasprintf("%s: %s", path, rootfs_strerror(r)));
            else
                rd_repo_parse(cfg, path, text, size, rv, vars.n, hosts);
        }
    /* gpgkey=file:///etc/pki/rpm-gpg/...: is it there? O_PATH: an existence
     * test never opens a FIFO or device for reading, and only a regular file
     * is a key rpm can import */
    for (size_t i = 0; i < cfg->n_repos; i++) {
        rd_rpm_repo *r = &cfg->repos[i];
        const char *path = r->gpgkey ? startswith(r->gpgkey, "file://") : NULL;
        if (!r->amd || !path)
            continue;
        _cleanup_free_ char *expanded = rd_repo_expand(path, rv, vars.n);
        _cleanup_close_ int kf = rd_root_open(ctx, expanded, O_PATH);
        struct stat st;
        r->gpgkey_missing = kf < 0 || fstat(kf, &st) < 0 || !S_ISREG(st.st_mode);
    }
    vars_free(&vars);
}

static void repos_gather(const rd_ctx *ctx, rd_facts *facts)
{
    static const char *const dnf_vars[] = { "/etc/yum/vars", "/etc/dnf/vars", NULL };
    static const char *const zypp_vars[] = { "/etc/zypp/vars.d", NULL };
    gather_one(ctx, facts, &facts->repos.dnf, "dnf", "/etc/yum.repos.d", dnf_vars);
    gather_one(ctx, facts, &facts->repos.zypper, "zypper", "/etc/zypp/repos.d", zypp_vars);
}

/* ---- assess ---- */

typedef struct {
    const rd_assess_input *in;
    const rd_repo_config *cfg;
    const char *pm; /* "dnf", "zypper": finding prefix, fix id, the command in remedies */
    rd_os_family fam;
} repo_check;

static char *finding_id(const repo_check *c, const char *what)
{
    return xasprintf("%s.%s", c->pm, what);
}

static bool is_off(const char *v)
{
    return v && (streq(v, "0") || !strcasecmp(v, "no") || !strcasecmp(v, "false") || !strcasecmp(v, "off"));
}

static bool is_on(const char *v)
{
    return v && (streq(v, "1") || !strcasecmp(v, "yes") || !strcasecmp(v, "true") || !strcasecmp(v, "on"));
}

static char *repo_text(const rd_rpm_repo *r)
{
    return xasprintf("%s:%" PRId64 ": [%s] baseurl=%s%s%s", r->file, r->baseurl_line ? r->baseurl_line : r->line, r->id,
                     strempty(r->baseurl), r->url && !streq(r->url, strempty(r->baseurl)) ? " -> " : "",
                     r->url && !streq(r->url, strempty(r->baseurl)) ? r->url : "");
}

static const rd_rpm_package *rpm_package(const rd_facts *f, const char *name)
{
    for (size_t i = 0; i < f->rpm.n_packages; i++)
        if (streq(f->rpm.packages[i].name, name))
            return &f->rpm.packages[i];
    return NULL;
}

/* AMD's rocm-core has a fourth version component (6.2.4.60204); a
 * distribution's does not (Fedora's 6.0.2-1.fc41). */
static bool amd_version(const char *v)
{
    int dots = 0;
    for (const char *p = v; p && *p && *p != '-'; p++)
        dots += *p == '.';
    return dots >= 3;
}

static size_t enabled_amd(const repo_check *c, const rd_rpm_repo **ret_first)
{
    size_t n = 0;
    for (size_t i = 0; i < c->cfg->n_repos; i++)
        if (c->cfg->repos[i].amd && c->cfg->repos[i].enabled) {
            if (n++ == 0 && ret_first)
                *ret_first = &c->cfg->repos[i];
        }
    return n;
}

static void assess_invalid(const repo_check *c, rd_findings *out)
{
    if (!c->cfg->problems)
        return;
    _cleanup_free_ char *id = finding_id(c, "repo-invalid");
    rd_finding *fd = rd_finding_add(out, id, RD_SEV_WARNING, NULL,
                                    "A %s repository file is not what %s can read as written", c->pm, c->pm);
    rd_finding_evidence_all(fd, c->cfg->problems);
    rd_finding_remedy(fd,
                      "Correct or remove the lines named above: one [id] section per repository, each with a "
                      "baseurl; `sudo %s repolist` shows what the client makes of them.",
                      c->pm);
}

static void assess_missing(const repo_check *c, rd_findings *out)
{
    const rd_facts *f = c->in->facts;
    if (enabled_amd(c, NULL) > 0)
        return;
    static const char *const owned[] = { "rocm-core", "amdgpu-dkms", "hip-runtime-amd" };
    _cleanup_free_ char *id = finding_id(c, "repo-missing");
    rd_finding *fd = NULL;
    for (size_t i = 0; i < ELEMENTSOF(owned); i++) {
        const rd_rpm_package *pk = rpm_package(f, owned[i]);
        if (!pk || (streq(owned[i], "rocm-core") && !amd_version(pk->version)))
            continue;
        if (!fd)
            fd = rd_finding_add(out, id, RD_SEV_WARNING, NULL,
                                "Packages from AMD's repository are installed, but %s has no enabled repository "
                                "for them",
                                c->pm);
        rd_finding_evidence(fd, "rpm database: %s %s installed", pk->name, pk->version);
    }
    if (!fd && f->rocm.opt_rocm_dangling) {
        fd = rd_finding_add(out, id, RD_SEV_WARNING, NULL,
                            "ROCm is meant to be installed here (/opt/rocm is left), but %s has no enabled AMD "
                            "repository",
                            c->pm);
        rd_finding_evidence(fd, "/opt/rocm %s", strempty(f->rocm.opt_rocm));
    }
    if (!fd)
        return;
    for (size_t i = 0; i < c->cfg->n_repos; i++)
        if (c->cfg->repos[i].amd) {
            _cleanup_free_ char *t = repo_text(&c->cfg->repos[i]);
            rd_finding_evidence(fd, "%s: enabled=0", t);
        }
    rd_finding_evidence(fd, "no enabled repository on https://%s in %s", strempty(c->in->knowledge->rpm.host),
                        streq(c->pm, "dnf") ? "/etc/yum.repos.d" : "/etc/zypp/repos.d");
    rd_finding_remedy(fd,
                      "Add AMD's repositories back for the installed release (`rocm-doctor fix` writes %s "
                      "files with gpgcheck=1), then `sudo %s %s`.",
                      streq(c->pm, "dnf") ? "/etc/yum.repos.d/rocm.repo and amdgpu.repo" : "/etc/zypp/repos.d", c->pm,
                      streq(c->pm, "dnf") ? "clean all" : "refresh");
    rd_finding_set_fix(fd, c->pm);
}

/* Which OS release an AMD baseurl is for: *ret_os "9.6"/"15.5", or
 * *ret_major "8" (rocm trees name only the major). Only folders the
 * repository table knows AMD serves; the others are dnf.repo-path's. */
static bool repo_os(const repo_check *c, const char *url, char **ret_major, char **ret_os)
{
    const char *path = rd_repo_path_of(NULL, url);
    rd_repo_match m;
    if (!path || rd_repos_classify(c->in->knowledge, path, &m) == 0)
        return false;
    /* AMD's moving folders (rocm/el8/latest/main) are judged like any */
    bool ok = (m.row || m.os_row || rd_repo_match_moving(&m)) &&
              m.family == (streq(c->pm, "dnf") ? RD_REPO_EL : RD_REPO_SLES) && (m.major || m.os);
    if (ok) {
        *ret_major = m.os ? NULL : TAKE_PTR(m.major);
        *ret_os = TAKE_PTR(m.os);
    }
    rd_repo_match_done(&m);
    return ok;
}

/* A repository of a folder AMD does not serve (rocm/el9/7.1.0/main: AMD
 * names an X.Y.0 folder X.Y; amdgpu/6.4.4/el/9.7: no 9.7 tree for that
 * release): the client fails on it with 404. */
static void assess_path(const repo_check *c, rd_findings *out)
{
    const rd_knowledge *k = c->in->knowledge;
    const rd_os_facts *os = &c->in->facts->os;
    rd_repo_family fam = streq(c->pm, "dnf") ? RD_REPO_EL : RD_REPO_SLES;
    _cleanup_free_ char *id = finding_id(c, "repo-path");
    rd_finding *fd = NULL;
    for (size_t i = 0; i < c->cfg->n_repos; i++) {
        const rd_rpm_repo *r = &c->cfg->repos[i];
        const char *path = r->amd && r->enabled && r->url ? rd_repo_path_of(NULL, r->url) : NULL;
        rd_repo_match m;
        if (!path || rd_repos_empty(k)) /* no repository table: nothing is judged */
            continue;
        if (rd_repos_classify(k, path, &m) == 0)
            continue;
        /* a tree no release has (a rolling release's $releasever: el42,
         * sle/20250601) is the OS's mismatch, not the folder's */
        bool foreign_tree = m.os_row && !rd_repos_tree_major_known(k, fam, m.major);
        if (rd_repo_match_unserved(&m) && m.family == fam && !foreign_tree) {
            if (!fd)
                fd = rd_finding_add(out, id, RD_SEV_ERROR, NULL,
                                    "An AMD repository names a folder AMD does not serve: %s fails on it (404)", c->pm);
            const char *tree = m.meant ? rd_repo_pick_tree(m.meant, fam, os->version_id) : NULL;
            if (!tree)
                tree = m.os;
            _cleanup_free_ char *major = tree ? xstrndup(tree, strcspn(tree, ".")) : xstrdup_or_null(m.major);
            const rd_repo_os ros = { .major = major ? major : m.major, .os = tree };
            _cleanup_free_ char *want = m.meant ? rd_repos_url(RD_AMD_REPO_BASE, m.meant, fam, m.kind, &ros) : NULL;
            _cleanup_free_ char *t = repo_text(r);
            if (want && rd_repo_path_of(NULL, want) && streq(rd_repo_path_of(NULL, want), path))
                rd_finding_evidence(fd, "%s: ROCm %s has no %s tree %s", t, m.meant->release, c->pm, strempty(m.os));
            else if (want)
                rd_finding_evidence(fd, "%s: AMD serves the %s repository of ROCm %s%s%s at %s", t,
                                    rd_repo_kind_name(m.kind), m.meant->release, tree ? " for " : "", tree ? tree : "",
                                    want);
            else
                rd_finding_evidence(fd, "%s: no ROCm release of the repository table (%s to %s) has this folder", t,
                                    k->repos[0].release, rd_repos_newest(k)->release);
        }
        rd_repo_match_done(&m);
    }
    if (!fd)
        return;
    rd_finding_remedy(fd,
                      "Point the baseurl at the folder named above (AMD names an X.Y.0 release's folder X.Y; from "
                      "ROCm 7.0 the driver's folder has its own number; a release serves only the OS trees it "
                      "lists), then `sudo %s %s`; `rocm-doctor fix` rewrites the file.",
                      c->pm, streq(c->pm, "dnf") ? "clean all" : "refresh");
    rd_finding_set_fix(fd, c->pm);
}

/* Whether the table lists this OS release in any ROCm release. */
static bool host_listed(const rd_knowledge *k, const rd_os_facts *os)
{
    for (size_t i = 0; i < k->n_releases; i++)
        if (rd_release_find_os(&k->releases[i], os->id, os->version_id))
            return true;
    return false;
}

/* Whether AMD's layout has trees of this major for the family: the majors of
 * the table's rows (EL 8, 9, 10; SLES 15). A rolling release's version
 * (Tumbleweed's snapshot date 20250601) or Fedora's (42) names none. */
static bool tree_major_known(const rd_knowledge *k, rd_os_family fam, const char *major)
{
    for (size_t i = 0; i < k->n_releases; i++)
        for (size_t j = 0; j < k->releases[i].n_os; j++) {
            const rd_release_os *r = &k->releases[i].os[j];
            const char *v = r->tree ? r->tree : r->version_id;
            if (rd_os_family_of(r->id, NULL) == fam && v && strlen(major) == strcspn(v, ".") &&
                strncmp(v, major, strlen(major)) == 0)
                return true;
        }
    return false;
}

typedef struct {
    const char *major;            /* the EL major the trees must have */
    const char *version;          /* the SLES tree, when it must be one */
    const rd_release_os *nearest; /* the row judging an unlisted release */
    const rd_release *rel;
} release_want;

/* What an AMD tree must be on this host: its own release when the table
 * lists it; on a release it does not list, the nearest row of its family
 * (an EL major; any SLES 15 tree) and failing that its own version. */
static void release_wanted(const repo_check *c, release_want *w, char **ret_major)
{
    const rd_knowledge *k = c->in->knowledge;
    const rd_os_facts *os = &c->in->facts->os;
    *w = (release_want){ 0 };
    w->rel = k->n_releases ? &k->releases[k->n_releases - 1] : NULL;
    if (!host_listed(k, os) && w->rel)
        w->nearest = rd_support_nearest_os(w->rel, os);
    const char *v = w->nearest ? (w->nearest->tree ? w->nearest->tree : w->nearest->version_id) : os->version_id;
    *ret_major = xstrndup(v, strcspn(v, "."));
    w->major = *ret_major;
    w->version = w->nearest ? NULL : os->version_id;
}

static void release_remedy(const repo_check *c, const release_want *w, rd_finding *fd)
{
    const rd_os_facts *os = &c->in->facts->os;
    rd_finding_evidence(fd, "/etc/os-release: ID=%s VERSION_ID=%s", strempty(os->id), strempty(os->version_id));
    _cleanup_free_ char *near =
        w->nearest ? xasprintf("the %s tree (%s %s, the nearest release ROCm %s lists: "
                               "AMD publishes no tree for %s %s)",
                               c->pm[0] == 'z' ? w->nearest->version_id : w->major, w->nearest->id,
                               w->nearest->version_id, w->rel->line, strempty(os->id), strempty(os->version_id))
                   : xstrdup("this release's tree");
    if (w->nearest)
        rd_finding_evidence(fd, "support.ini: %s %s is not listed; the nearest listed release is %s %s",
                            strempty(os->id), strempty(os->version_id), w->nearest->id, w->nearest->version_id);
    rd_finding_remedy(fd,
                      "Point the baseurl at %s, never at a variable such as $releasever (packages built for "
                      "another release fail with \"nothing provides ...\" or do not load; a tree that does not "
                      "exist fails with 404), then `sudo %s %s`; `rocm-doctor fix` rewrites the file.",
                      near, c->pm, streq(c->pm, "dnf") ? "clean all" : "refresh");
    rd_finding_set_fix(fd, c->pm);
}

static void assess_release(const repo_check *c, rd_findings *out)
{
    const rd_os_facts *os = &c->in->facts->os;
    if (!os->version_id)
        return;
    release_want w;
    _cleanup_free_ char *want_major = NULL;
    release_wanted(c, &w, &want_major);
    _cleanup_free_ char *id = finding_id(c, "release-mismatch");
    rd_finding *fd = NULL;
    for (size_t i = 0; i < c->cfg->n_repos; i++) {
        const rd_rpm_repo *r = &c->cfg->repos[i];
        _cleanup_free_ char *major = NULL, *tree = NULL;
        if (!r->amd || !r->enabled || !repo_os(c, r->url, &major, &tree))
            continue;
        _cleanup_free_ char *tree_major = tree ? xstrndup(tree, strcspn(tree, ".")) : NULL;
        const char *m = tree_major ? tree_major : major;
        rd_os_family layout = streq(c->pm, "zypper") ? RD_OS_SUSE : RD_OS_RHEL;
        bool unknown = m && !tree_major_known(c->in->knowledge, layout, m);
        /* SLES trees are per service pack: 15.5 is not 15.6 */
        bool wrong = unknown ||
                     (c->fam != RD_OS_SUSE &&
                      ((major && !streq(major, w.major)) || (tree_major && !streq(tree_major, w.major)))) ||
                     (c->fam == RD_OS_SUSE && tree && w.version && !streq(tree, w.version));
        if (!wrong)
            continue;
        if (!fd)
            fd = rd_finding_add(out, id, RD_SEV_ERROR, NULL,
                                "An AMD repository is for another OS release than this %s %s", strempty(os->id),
                                os->version_id);
        _cleanup_free_ char *t = repo_text(r);
        rd_finding_evidence(fd, "%s: the %s%s tree%s", t, tree ? "" : "EL", tree ? tree : major,
                            unknown ? ", which AMD's server does not have (no such release in its layout)" : "");
    }
    if (fd)
        release_remedy(c, &w, fd);
}

static bool repo_gpgcheck_on(const repo_check *c, const rd_rpm_repo *r)
{
    if (r->gpgcheck)
        return !is_off(r->gpgcheck);
    /* unset: dnf takes [main] (its own default is off), zypper checks */
    return streq(c->pm, "zypper") || is_on(c->cfg->main_gpgcheck);
}

static void assess_gpg(const repo_check *c, rd_findings *out)
{
    const rd_facts *f = c->in->facts;
    const rd_knowledge *k = c->in->knowledge;
    _cleanup_free_ char *off_id = finding_id(c, "gpgcheck-off"), *key_id = finding_id(c, "key-missing");
    _cleanup_free_ char *keyname = rd_rpm_key_name(k->rpm.fingerprint);
    rd_finding *off = NULL, *key = NULL;
    bool imported = false;
    for (size_t i = 0; i < f->rpm.n_packages && keyname; i++)
        imported |= streq(f->rpm.packages[i].name, "gpg-pubkey") &&
                    startswith(f->rpm.packages[i].version, keyname + strlen("gpg-pubkey-")) != NULL;
    bool any_checked = false;
    for (size_t i = 0; i < c->cfg->n_repos; i++) {
        const rd_rpm_repo *r = &c->cfg->repos[i];
        if (!r->amd || !r->enabled)
            continue;
        _cleanup_free_ char *t = repo_text(r);
        if (!repo_gpgcheck_on(c, r)) {
            if (!off)
                off = rd_finding_add(out, off_id, RD_SEV_WARNING, NULL,
                                     "An AMD repository is used without signature checks");
            rd_finding_evidence(off, "%s: gpgcheck=%s", t,
                                r->gpgcheck             ? r->gpgcheck
                                : c->cfg->main_gpgcheck ? c->cfg->main_gpgcheck
                                                        : "(not set; dnf's default is off)");
            continue;
        }
        any_checked = true;
        if (r->gpgkey && !r->gpgkey_missing)
            continue;
        if (!key)
            key = rd_finding_add(out, key_id, RD_SEV_ERROR, NULL,
                                 "AMD's signing key is not where the repository says: installs fail with \"%s\"",
                                 streq(c->pm, "dnf") ? "GPG check FAILED" : "Signature verification failed");
        rd_finding_evidence(key, "%s: %s%s", t, r->gpgkey ? "gpgkey=" : "no gpgkey", r->gpgkey ? r->gpgkey : "");
        if (r->gpgkey_missing)
            rd_finding_evidence(key, "%s: missing", startswith(r->gpgkey, "file://"));
    }
    if (any_checked && !imported && f->rpm.queried && !key) {
        key = rd_finding_add(out, key_id, RD_SEV_WARNING, NULL,
                             "AMD's signing key is not imported into the rpm database: unattended installs stop at "
                             "the key prompt or fail with \"%s\"",
                             streq(c->pm, "dnf") ? "GPG check FAILED" : "Signature verification failed");
        rd_finding_evidence(key, "rpm -q gpg-pubkey: no %s-* (fingerprint %s)", keyname, k->rpm.fingerprint);
    }
    if (off) {
        rd_finding_remedy(off,
                          "Set gpgcheck=1 and gpgkey=%s in the section, and import the key "
                          "(`sudo rpm --import %s` after checking its fingerprint %s).",
                          k->rpm.gpgkey, k->rpm.gpgkey, k->rpm.fingerprint);
        rd_finding_set_fix(off, c->pm);
    }
    if (key) {
        rd_finding_remedy(key,
                          "Download AMD's key (%s), check its fingerprint %s with `gpg --show-keys`, import it "
                          "with `sudo rpm --import FILE` and name it in gpgkey=; `rocm-doctor fix --key-file "
                          "FILE` does all of it.",
                          k->rpm.gpgkey, k->rpm.fingerprint);
        rd_finding_set_fix(key, c->pm);
    }
}

static bool repo_matches_any(const rd_repo_config *cfg, char *const *patterns, const rd_rpm_repo **ret_disabled)
{
    for (size_t i = 0; i < cfg->n_repos; i++)
        for (size_t j = 0; patterns && patterns[j]; j++)
            if (fnmatch(patterns[j], cfg->repos[i].id, 0) == 0) {
                if (cfg->repos[i].enabled)
                    return true;
                *ret_disabled = &cfg->repos[i];
            }
    return false;
}

static char *join(char *const *v)
{
    strbuf b = { 0 };
    strbuf_append(&b, "");
    for (size_t i = 0; v && v[i]; i++)
        strbuf_printf(&b, "%s%s", i ? ", " : "", v[i]);
    return strbuf_steal(&b);
}

static bool packages_installed(const rd_facts *f, char *const *names)
{
    for (size_t i = 0; names && names[i]; i++)
        if (!rpm_package(f, names[i]))
            return false;
    return names != NULL;
}

static void assess_prereq(const repo_check *c, rd_findings *out)
{
    const rd_facts *f = c->in->facts;
    const rd_rpm_info *info = &c->in->knowledge->rpm;
    const rd_rpm_repo *rocm = NULL;
    for (size_t i = 0; i < c->cfg->n_repos && !rocm; i++) {
        const rd_rpm_repo *r = &c->cfg->repos[i];
        if (r->amd && r->enabled && r->url && strstr(r->url, "/rocm/"))
            rocm = r;
    }
    /* judged only where the rpm database says what is installed: a package
     * ROCm needs that is installed is not missing, whatever the repositories */
    if (!rocm || c->fam != RD_OS_RHEL || !f->rpm.queried)
        return;
    struct {
        const char *what;
        char **repos, **packages;
    } need[] = { { "CRB (PowerTools on EL8)", info->crb_repos, info->crb_packages },
                 { "EPEL", info->epel_repos, info->epel_packages } };
    rd_finding *fd = NULL;
    bool crb_missing = false;
    for (size_t i = 0; i < ELEMENTSOF(need); i++) {
        const rd_rpm_repo *disabled = NULL;
        if (repo_matches_any(c->cfg, need[i].repos, &disabled) || packages_installed(f, need[i].packages))
            continue;
        if (!fd) {
            _cleanup_free_ char *t = repo_text(rocm);
            fd = rd_finding_add(out, RD_FINDING(DNF_PREREQ_REPO_MISSING), RD_SEV_WARNING, NULL,
                                "ROCm needs packages from repositories that are not enabled here");
            rd_finding_evidence(fd, "%s", t);
        }
        crb_missing |= i == 0;
        _cleanup_free_ char *pk = join(need[i].packages);
        if (disabled)
            rd_finding_evidence(fd, "%s:%" PRId64 ": [%s] enabled=0 (%s; ROCm's hip needs %s from it)", disabled->file,
                                disabled->line, disabled->id, need[i].what, pk);
        else
            rd_finding_evidence(fd, "no %s repository in /etc/yum.repos.d (ROCm's hip needs %s from it)", need[i].what,
                                pk);
    }
    if (!fd)
        return;
    _cleanup_free_ char *crb = rd_distro_crb_hint(&f->os), *epel = rd_distro_epel_hint(&f->os);
    rd_finding_remedy(fd, "%s%s(otherwise `dnf install rocm` fails with \"nothing provides perl-...\").",
                      crb_missing ? crb : "", packages_installed(f, info->epel_packages) ? "" : epel);
    rd_finding_set_fix(fd, "dnf");
}

static void assess_manager(const rd_assess_input *in, rd_findings *out, const rd_repo_config *cfg)
{
    if (!cfg->present)
        return;
    repo_check c = { in, cfg, cfg->manager, rd_os_family_of(in->facts->os.id, in->facts->os.id_like) };
    /* a dnf tree on a SUSE host (or the other way) is not what the host uses */
    bool is_dnf = streq(cfg->manager, "dnf");
    if (is_dnf ? c.fam == RD_OS_SUSE || c.fam == RD_OS_DEBIAN : c.fam != RD_OS_SUSE && c.fam != RD_OS_UNKNOWN)
        return;
    assess_invalid(&c, out);
    assess_missing(&c, out);
    assess_path(&c, out);
    assess_release(&c, out);
    assess_gpg(&c, out);
    if (is_dnf)
        assess_prereq(&c, out);
}

static void repos_assess(const rd_assess_input *in, rd_findings *out)
{
    assess_manager(in, out, &in->facts->repos.dnf);
    assess_manager(in, out, &in->facts->repos.zypper);
}

static const char *const repos_findings[] = {
    RD_FINDING(DNF_REPO_INVALID),        RD_FINDING(DNF_REPO_MISSING),
    RD_FINDING(DNF_REPO_PATH),           RD_FINDING(DNF_RELEASE_MISMATCH),
    RD_FINDING(DNF_GPGCHECK_OFF),        RD_FINDING(DNF_KEY_MISSING),
    RD_FINDING(DNF_PREREQ_REPO_MISSING), RD_FINDING(ZYPPER_REPO_INVALID),
    RD_FINDING(ZYPPER_REPO_MISSING),     RD_FINDING(ZYPPER_REPO_PATH),
    RD_FINDING(ZYPPER_RELEASE_MISMATCH), RD_FINDING(ZYPPER_GPGCHECK_OFF),
    RD_FINDING(ZYPPER_KEY_MISSING),      NULL,
};

/* clang-format off */
const rd_probe rd_probe_repos_rpm = {
    .id = "repos-rpm",
    .title = "dnf and zypper repositories and keys",
    .flags = 0,
    .findings = repos_findings,
    .areas = RD_STRV("repos"),
    .reads = (const rd_probe_input[]){
        { "/etc/yum.repos.d", true },
        { "/etc/zypp/repos.d", true },
        { "/etc/dnf/dnf.conf", false },
        { "/etc/yum.conf", false },
        { "/etc/yum/vars", true },
        { "/etc/dnf/vars", true },
        { "/etc/zypp/vars.d", true },
        { NULL, false },
    },
    .gather = repos_gather,
    .assess = repos_assess,
};
/* clang-format on */
