/* SPDX-License-Identifier: MIT */
/* Which ROCm release: asked for, configured, what the host already has, or
 * for a host without ROCm the newest its OS and GPUs support. The tables
 * are an open world: a release they do not list (an old 4.x, next month's,
 * AMD's moving "latest") is still the host's release, kept as it is and
 * said so, never replaced by a release the tables happen to know. */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include "distro.h"
#include "release.h"
#include "repo-url.h"
#include "util.h"

rd_repo_family rd_release_family_of(const rd_os_facts *os)
{
    switch (rd_os_family_facts(os)) {
    case RD_OS_RHEL:
    case RD_OS_FEDORA: return RD_REPO_EL;
    case RD_OS_SUSE: return RD_REPO_SLES;
    case RD_OS_DEBIAN:
    case RD_OS_UNKNOWN:
    default: return RD_REPO_APT;
    }
}

const char *rd_release_origin_text(rd_release_origin o)
{
    switch (o) {
    case RD_RELEASE_ASKED: return "asked for with --release";
    case RD_RELEASE_CONFIGURED: return "rocm_release in rocm-doctor.conf";
    case RD_RELEASE_SOURCES: return "the release this host's AMD sources name";
    case RD_RELEASE_INSTALLED: return "the release installed on this host";
    case RD_RELEASE_NEWEST:
    default: return "the newest release that supports this OS and these GPUs";
    }
}

static bool is_digits(const char *s, size_t n)
{
    if (n == 0)
        return false;
    for (size_t i = 0; i < n; i++)
        if (s[i] < '0' || s[i] > '9')
            return false;
    return true;
}

char *rd_release_of_package_version(const char *version)
{
    if (!version)
        return NULL;
    /* an epoch ("1:6.4.1...") is not part of the release */
    const char *colon = strchr(version, ':');
    if (colon && is_digits(version, (size_t)(colon - version)))
        version = colon + 1;
    size_t at = 0, parts = 0;
    while (parts < 3) {
        size_t n = strspn(version + at, "0123456789");
        if (n == 0)
            break;
        parts++;
        at += n;
        if (parts == 3 || version[at] != '.' || !is_digits(version + at + 1, strspn(version + at + 1, "0123456789")))
            break;
        at++;
    }
    return parts >= 2 ? xstrndup(version, at) : NULL;
}

/* Fills c from what a path of AMD's layout names; false when it names no
 * ROCm release at all (not AMD's shape). */
static bool choice_from_match(const rd_knowledge *k, const rd_repo_match *m, rd_release_choice *c)
{
    const rd_repo_row *row = m->row ? m->row : m->meant;
    c->moving = streq_ptr(m->version, "latest");
    c->before_tables = m->older;
    c->after_tables = m->newer;
    if (row) {
        c->row = row;
        c->release = xstrdup(row->release);
        return true;
    }
    /* the driver's own numbers (amdgpu/30.40) name no ROCm release */
    if (m->kind == RD_REPO_AMDGPU && m->versioned && strtoul(m->version, NULL, 10) >= 20 && !c->moving)
        return false;
    (void)k;
    c->release = xstrdup(m->version);
    return m->versioned || c->moving;
}

/* One enabled AMD source of the family, ROCm's first (a driver folder
 * alone says the release only where the table maps it). */
typedef struct {
    const char *file;
    int64_t line;
    const char *url;
} source_ref;

static size_t family_sources(const rd_facts *f, rd_repo_family fam, source_ref **ret)
{
    source_ref *v = NULL;
    size_t n = 0;
    if (fam == RD_REPO_APT) {
        for (size_t i = 0; i < f->apt.n_sources; i++) {
            const rd_apt_source *s = &f->apt.sources[i];
            if (s->enabled && !s->placeholder && s->uri && streq_ptr(s->type, "deb"))
                *ARRAY_APPEND(v, n) = (source_ref){ s->file, s->line, s->uri };
        }
    } else {
        const rd_repo_config *cfg = fam == RD_REPO_EL ? &f->repos.dnf : &f->repos.zypper;
        for (size_t i = 0; i < cfg->n_repos; i++) {
            const rd_rpm_repo *r = &cfg->repos[i];
            if (r->enabled && r->url)
                *ARRAY_APPEND(v, n) = (source_ref){ r->file, r->line, r->url };
        }
    }
    *ret = v;
    return n;
}

static bool from_sources(const rd_release_input *in, rd_release_choice *c)
{
    _cleanup_free_ source_ref *v = NULL;
    size_t n = family_sources(in->facts, in->family, &v);
    const char *mirror = in->config ? in->config->mirror : NULL;
    for (int pass = 0; pass < 2; pass++)
        for (size_t i = 0; i < n; i++) {
            const char *path = rd_repo_path_of(mirror, v[i].url);
            rd_repo_match m;
            if (!path || rd_repos_classify(in->knowledge, path, &m) == 0)
                continue;
            bool kind_ok = pass == 0 ? m.kind == RD_REPO_ROCM : m.kind == RD_REPO_AMDGPU;
            bool ok = kind_ok && m.family == in->family && choice_from_match(in->knowledge, &m, c);
            rd_repo_match_done(&m);
            if (ok) {
                c->origin = RD_RELEASE_SOURCES;
                c->evidence = xasprintf("%s:%" PRId64 ": %s", v[i].file, v[i].line, v[i].url);
                return true;
            }
            free(c->release);
            *c = (rd_release_choice){ 0 };
        }
    return false;
}

static void set_release(const rd_knowledge *k, rd_release_choice *c, const char *release)
{
    c->release = xstrdup(release);
    c->row = rd_repos_find(k, release);
    const rd_repo_row *newest = rd_repos_newest(k);
    if (!c->row && newest && rd_version_compare(release, newest->release) > 0)
        c->after_tables = true;
    if (!c->row && k->n_repos && rd_version_compare(release, k->repos[0].release) < 0)
        c->before_tables = true;
}

const char *rd_release_amd_installed(const rd_facts *f)
{
    const char *path = f->rocm.default_path;
    return path && startswith(path, "/opt/") ? f->rocm.default_version : NULL;
}

static bool from_installed(const rd_release_input *in, rd_release_choice *c)
{
    const rd_facts *f = in->facts;
    const char *version = NULL, *where = NULL;
    for (size_t i = 0; i < f->rocm.n_packages && !version; i++)
        if (streq(f->rocm.packages[i].name, "rocm-core"))
            version = f->rocm.packages[i].version, where = "/var/lib/dpkg/status: rocm-core";
    for (size_t i = 0; i < f->rpm.n_packages && !version; i++)
        if (streq(f->rpm.packages[i].name, "rocm-core"))
            version = f->rpm.packages[i].version, where = "rpm database: rocm-core";
    _cleanup_free_ char *release = rd_release_of_package_version(version);
    const char *amd = release ? NULL : rd_release_amd_installed(f);
    if (amd) {
        release = rd_release_of_package_version(amd);
        version = amd;
        where = f->rocm.default_path;
    }
    if (!release)
        return false;
    set_release(in->knowledge, c, release);
    c->origin = RD_RELEASE_INSTALLED;
    c->evidence = xasprintf("%s %s", where, version);
    return true;
}

int rd_release_decide(const rd_release_input *in, rd_release_choice *ret, char **ret_reason)
{
    const rd_knowledge *k = in->knowledge;
    rd_release_choice c = { 0 };
    const char *configured = in->config ? in->config->rocm_release : NULL;
    if (in->asked || configured) {
        set_release(k, &c, in->asked ? in->asked : configured);
        c.origin = in->asked ? RD_RELEASE_ASKED : RD_RELEASE_CONFIGURED;
        c.evidence = xstrdup(in->asked ? "--release" : "rocm_release in rocm-doctor.conf");
        *ret = c;
        return 0;
    }
    if (from_sources(in, &c) || from_installed(in, &c)) {
        *ret = c;
        return 0;
    }
    _cleanup_strv_free_ char **gfx = NULL;
    size_t n = 0;
    for (size_t i = 0; in->gfx && in->gfx[i]; i++)
        if (!strv_contains(gfx, in->gfx[i])) {
            gfx = strv_push(gfx, xstrdup(in->gfx[i]));
            n++;
        }
    for (size_t i = 0; !in->gfx && in->gpus && i < in->gpus->n_gpus; i++)
        if (in->gpus->gpus[i].gfx[0] && !strv_contains(gfx, in->gpus->gpus[i].gfx)) {
            gfx = strv_push(gfx, xstrdup(in->gpus->gpus[i].gfx));
            n++;
        }
    const rd_os_facts *os = &in->facts->os;
    const char *newest = rd_knowledge_pick_release(k, os->id, os->version_id, gfx, n);
    if (!newest) {
        *ret_reason = rd_support_no_release_reason(k, os, gfx, n);
        return -ENOENT;
    }
    set_release(k, &c, newest);
    c.origin = RD_RELEASE_NEWEST;
    c.evidence = xstrdup("support.ini");
    *ret = c;
    return 0;
}

char *rd_release_outside_text(const rd_knowledge *k, const rd_release_choice *c)
{
    if (c->row)
        return NULL;
    const rd_repo_row *newest = rd_repos_newest(k);
    const char *first = k->n_repos ? k->repos[0].release : "-", *last = newest ? newest->release : "-";
    const char *date = strempty(k->repos_info.date);
    if (c->moving)
        return xasprintf("AMD's moving folder \"latest\" (%s) serves whatever release AMD published last: its "
                         "sources are left as they are (no fix writes a moving folder); pass --release (or set "
                         "rocm_release) to hold the host at one release",
                         strempty(c->evidence));
    if (c->before_tables)
        return xasprintf("ROCm %s (%s) is older than the releases rocm-doctor knows (repos.ini of %s, %s to %s): its "
                         "folders are kept as they are",
                         c->release, strempty(c->evidence), date, first, last);
    if (c->after_tables)
        return xasprintf("ROCm %s (%s) is newer than rocm-doctor's tables (repos.ini of %s, %s to %s): its folders are "
                         "kept as they are",
                         c->release, strempty(c->evidence), date, first, last);
    return xasprintf("ROCm %s (%s) is not a release of rocm-doctor's tables (repos.ini of %s, %s to %s): its folders "
                     "are kept as they are",
                     c->release, strempty(c->evidence), date, first, last);
}

void rd_release_choice_done(rd_release_choice *c)
{
    free(c->release);
    free(c->evidence);
    *c = (rd_release_choice){ 0 };
}
