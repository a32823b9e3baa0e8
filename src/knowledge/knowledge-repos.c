/* SPDX-License-Identifier: MIT */
/* conf/repos.ini: for each ROCm release, the folders AMD serves for it on
 * its repository server, per family (apt, EL, SLES) and kind (ROCm, the
 * amdgpu driver, graphics, the amdgpu-install package). The only code that
 * knows how AMD names its folders: writers expand a row, judges classify a
 * URL against the rows. */
#include "knowledge-private.h"

typedef struct {
    const char *name;
    rd_repo_family family;
    rd_repo_kind kind;
    size_t offset;
} path_key;

#define PK(n, fam, kind, field)                                                                                        \
    {                                                                                                                  \
        n, fam, kind, offsetof(rd_repo_row, field)                                                                     \
    }
static const path_key path_keys[] = {
    PK("apt-rocm", RD_REPO_APT, RD_REPO_ROCM, apt_rocm),
    PK("apt-amdgpu", RD_REPO_APT, RD_REPO_AMDGPU, apt_amdgpu),
    PK("apt-graphics", RD_REPO_APT, RD_REPO_GRAPHICS, apt_graphics),
    PK("apt-installer", RD_REPO_APT, RD_REPO_INSTALLER, apt_installer),
    PK("el-rocm", RD_REPO_EL, RD_REPO_ROCM, el_rocm),
    PK("el-amdgpu", RD_REPO_EL, RD_REPO_AMDGPU, el_amdgpu),
    PK("el-graphics", RD_REPO_EL, RD_REPO_GRAPHICS, el_graphics),
    PK("el-installer", RD_REPO_EL, RD_REPO_INSTALLER, el_installer),
    PK("sles-rocm", RD_REPO_SLES, RD_REPO_ROCM, sles_rocm),
    PK("sles-amdgpu", RD_REPO_SLES, RD_REPO_AMDGPU, sles_amdgpu),
    PK("sles-graphics", RD_REPO_SLES, RD_REPO_GRAPHICS, sles_graphics),
    PK("sles-installer", RD_REPO_SLES, RD_REPO_INSTALLER, sles_installer),
};

static char **path_slot(rd_repo_row *r, rd_repo_family f, rd_repo_kind kind)
{
    for (size_t i = 0; i < ELEMENTSOF(path_keys); i++)
        if (path_keys[i].family == f && path_keys[i].kind == kind)
            return (char **)((char *)r + path_keys[i].offset);
    return NULL;
}

const char *rd_repo_path(const rd_repo_row *r, rd_repo_family f, rd_repo_kind kind)
{
    char **slot = r ? path_slot((rd_repo_row *)r, f, kind) : NULL;
    return slot ? *slot : NULL;
}

const char *rd_repo_family_name(rd_repo_family f)
{
    return f == RD_REPO_APT ? "apt" : f == RD_REPO_EL ? "el" : "sles";
}

const char *rd_repo_kind_name(rd_repo_kind k)
{
    return k == RD_REPO_ROCM       ? "rocm"
           : k == RD_REPO_AMDGPU   ? "amdgpu"
           : k == RD_REPO_GRAPHICS ? "graphics"
                                   : "installer";
}

/* ---- loading ---- */

static const char *const placeholders[] = { "suite", "major", "os" };

static int placeholder_index(const char *p, size_t n)
{
    for (size_t i = 0; i < ELEMENTSOF(placeholders); i++)
        if (strlen(placeholders[i]) == n && strncmp(p, placeholders[i], n) == 0)
            return (int)i;
    return -1;
}

/* A path under the base: relative, no empty or dot components, plain
 * characters, placeholders the family has ({suite} for apt, {major} and
 * {os} for rpm). */
static int parse_path(parse_state *st, const path_key *pk, const char *value, char **slot)
{
    if (!*value || value[0] == '/' || strstr(value, "//") || strstr(value, "://"))
        return kn_fail(st,
                       xasprintf("%s \"%s\" is not a path under the repository base (rocm/apt/6.4)", pk->name, value));
    if (strspn(value, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._+~-/{}") != strlen(value))
        return kn_fail(st, xasprintf("%s \"%s\": only letters, digits, . _ + ~ - / and placeholders", pk->name, value));
    _cleanup_strv_free_ char **parts = strv_split(value, "/");
    for (size_t i = 0; parts && parts[i]; i++)
        if (streq(parts[i], ".") || streq(parts[i], ".."))
            return kn_fail(st, xasprintf("%s \"%s\": no . or .. components", pk->name, value));
    for (const char *p = strchr(value, '{'); p; p = strchr(p + 1, '{')) {
        const char *e = strchr(p, '}');
        int idx = e ? placeholder_index(p + 1, (size_t)(e - p - 1)) : -1;
        bool fits = idx == 0 ? pk->family == RD_REPO_APT : idx > 0 && pk->family != RD_REPO_APT;
        if (!fits)
            return kn_fail(st, xasprintf("%s \"%s\": placeholder at \"%.10s\" is not one of %s", pk->name, value, p,
                                         pk->family == RD_REPO_APT ? "{suite}" : "{major} {os}"));
    }
    free(*slot);
    *slot = xstrdup(value);
    return 1;
}

static char *suite_word(parse_state *st, const char *name, const char *v)
{
    if (strspn(v, "abcdefghijklmnopqrstuvwxyz") == strlen(v))
        return NULL;
    return xasprintf("%s: \"%s\" is not an apt suite like noble", name, v);
}

static char *tree_word(parse_state *st, const char *name, const char *v)
{
    if (kn_is_version(v, 1, 2))
        return NULL;
    return xasprintf("%s: \"%s\" is not an OS tree like 9.6 or 10", name, v);
}

static char *date_value(parse_state *st, const char *name, const char *value)
{
    unsigned y, m, d;
    int end = 0;
    if (sscanf(value, "%4u-%2u-%2u%n", &y, &m, &d, &end) != 3 || value[end] || strlen(value) != 10 || y < 2000 ||
        m < 1 || m > 12 || d < 1 || d > 31)
        return xasprintf("date \"%s\" is not YYYY-MM-DD", value);
    return NULL;
}

static char *driver_value(parse_state *st, const char *name, const char *value)
{
    if (kn_is_version(value, 2, 3))
        return NULL;
    return xasprintf("driver \"%s\" is not a version like 6.4 or 30.10.1", value);
}

/* The last row of [release]: a folder key of path_keys, else unknown. */
static int path_value(parse_state *st, void *obj, const char *name, const char *value)
{
    for (size_t i = 0; i < ELEMENTSOF(path_keys); i++)
        if (streq(name, path_keys[i].name))
            return parse_path(st, &path_keys[i], value, path_slot(obj, path_keys[i].family, path_keys[i].kind));
    return kn_fail(st, xasprintf("unknown key \"%s\" in [release %s]", name, ((rd_repo_row *)obj)->release));
}

static int source_value(parse_state *st, void *obj, const char *name, const char *value)
{
    rd_repo_row *r = obj;
    r->sources = strv_push(r->sources, xstrdup(value));
    return 1;
}

static int also_value(parse_state *st, void *obj, const char *name, const char *value)
{
    static const path_key also_key = { "also", RD_REPO_EL, RD_REPO_ROCM, 0 };
    rd_repo_row *r = obj;
    _cleanup_free_ char *path = NULL;
    int ok = parse_path(st, &also_key, value, &path);
    if (ok)
        r->also = strv_push(r->also, TAKE_PTR(path));
    return ok;
}

static char *key_path_value(parse_state *st, const char *name, const char *value)
{
    if (!*value || value[0] == '/' || strstr(value, "..") || strstr(value, "://"))
        return xasprintf("path \"%s\" is not a path under the repository base", value);
    return NULL;
}

/* [release X.Y.Z]: a row each, oldest first. */
static int release_row(parse_state *st, const char *section, const char *rel, void **ret)
{
    rd_knowledge *k = st->k;
    if (!kn_is_version(rel, 3, 3))
        return -1;
    rd_repo_row *last = k->n_repos ? &k->repos[k->n_repos - 1] : NULL;
    if (!last || !streq(last->release, rel)) {
        for (size_t i = 0; i < k->n_repos; i++)
            if (streq(k->repos[i].release, rel))
                return kn_fail(st, xasprintf("section [%s] appears twice", section));
        if (last && rd_version_compare(last->release, rel) >= 0)
            return kn_fail(st, xasprintf("section [%s] comes after [release %s]: releases go oldest first", section,
                                         last->release));
        last = ARRAY_APPEND(k->repos, k->n_repos);
        last->release = xstrdup(rel);
    }
    *ret = last;
    return 1;
}

#define TREES(n, f, chk)                                                                                               \
    {                                                                                                                  \
        n, KN_WORDS, offsetof(rd_repo_row, f), chk, NULL, false, true, true                                            \
    }
static const kn_key release_keys[] = {
    { "date", KN_STRING, offsetof(rd_repo_row, date), date_value },
    { "driver", KN_STRING, offsetof(rd_repo_row, driver), driver_value },
    TREES("suites", suites, suite_word),
    TREES("el-trees", el_trees, tree_word),
    TREES("sles-trees", sles_trees, tree_word),
    { "source", KN_PARSE, 0, NULL, source_value },
    { "also", KN_PARSE, 0, NULL, also_value },
    { NULL, KN_PARSE, 0, NULL, path_value }, /* apt-rocm ... sles-installer: path_keys */
};
static const kn_key key_keys[] = {
    { "path", KN_STRING, offsetof(rd_knowledge, repo_key), key_path_value },
    { "fingerprint", KN_STRING, offsetof(rd_knowledge, repo_fingerprint), kn_fingerprint_value },
};
static const kn_section repos_sections[] = {
    { "key", false, kn_whole, KN_KEYS(key_keys) },
    { "release ", true, release_row, KN_KEYS(release_keys) },
};
static const kn_rows repos_rows = { KN_KEYS(repos_sections), "neither [table], [key] nor [release X.Y.Z]" };

/* Whether one component of path is version, or its X.Y when it is X.Y.0
 * (AMD names the folder of 6.4.0 "6.4"). */
static bool path_names_version(const char *path, const char *version)
{
    _cleanup_strv_free_ char **parts = strv_split(path, "/");
    for (size_t i = 0; parts && parts[i]; i++)
        if (kn_is_version(parts[i], 2, 3) && rd_version_compare(parts[i], version) == 0)
            return true;
    return false;
}

/* The checks across one row's keys, once it is read whole. */
static char *row_problem(const rd_repo_row *r)
{
    if (!r->sources)
        return xasprintf("[release %s] needs at least one source", r->release);
    if (!r->apt_rocm && !r->el_rocm && !r->sles_rocm)
        return xasprintf("[release %s] has no ROCm folder (apt-rocm, el-rocm or sles-rocm)", r->release);
    if ((r->apt_amdgpu || r->el_amdgpu || r->sles_amdgpu) && !r->driver)
        return xasprintf("[release %s] has driver folders but no driver version", r->release);
    for (size_t i = 0; i < ELEMENTSOF(path_keys); i++) {
        const path_key *pk = &path_keys[i];
        const char *p = rd_repo_path(r, pk->family, pk->kind);
        if (!p)
            continue;
        const char *want = pk->kind == RD_REPO_AMDGPU ? r->driver : pk->kind == RD_REPO_INSTALLER ? NULL : r->release;
        if (want && !path_names_version(p, want))
            return xasprintf("[release %s] %s \"%s\" names neither %s nor its X.Y", r->release, pk->name, p, want);
        if (pk->family == RD_REPO_APT && !r->suites)
            return xasprintf("[release %s] %s needs suites", r->release, pk->name);
        if (strstr(p, "{os}") && !(pk->family == RD_REPO_EL ? r->el_trees : r->sles_trees))
            return xasprintf("[release %s] %s has {os} but no %s", r->release, pk->name,
                             pk->family == RD_REPO_EL ? "el-trees" : "sles-trees");
    }
    return NULL;
}

/* [table] and [key], which come before the releases; when [key] comes
 * after them, the whole file. */
int kn_load_repos_key(const char *path, parse_state *st, char **ret_error)
{
    rd_knowledge *k = st->k;
    st->rows_of = &repos_rows;
    st->stop_before = "release ";
    int r = kn_parse_text(path, st, ret_error);
    if (r >= 0 && (!k->repo_key || !k->repo_fingerprint) && st->pos < st->end) {
        st->stop_before = NULL;
        r = kn_parse_text(path, st, ret_error);
    }
    if (r < 0)
        return r;
    if ((r = kn_check_info(path, st->info, ret_error)) < 0)
        return r;
    if (!k->repo_key || !k->repo_fingerprint) {
        *ret_error = xasprintf("%s: [key] needs path and fingerprint", path);
        return -EINVAL;
    }
    return 0;
}

/* The release rows from where kn_load_repos_key stopped, and the checks
 * across them. */
int kn_load_repos_rows(const char *path, parse_state *st, char **ret_error)
{
    rd_knowledge *k = st->k;
    st->rows_of = &repos_rows;
    st->stop_before = NULL;
    int r = kn_parse_text(path, st, ret_error);
    if (r < 0)
        return r;
    if (k->n_repos == 0) {
        *ret_error = xasprintf("%s: no [release X.Y.Z] section", path);
        return -EINVAL;
    }
    for (size_t i = 0; i < k->n_repos; i++) {
        _cleanup_free_ char *problem = row_problem(&k->repos[i]);
        if (problem) {
            *ret_error = xasprintf("%s: %s", path, problem);
            return -EINVAL;
        }
    }
    return 0;
}

int rd_knowledge_load_repos(const char *path, rd_knowledge *k, char **ret_error)
{
    parse_state st = { .k = k, .info = &k->repos_info };
    _cleanup_free_ char *text = NULL;
    int r = kn_read_table(path, &st, &text, ret_error);
    if (r >= 0)
        r = kn_load_repos_key(path, &st, ret_error);
    if (r >= 0)
        r = kn_load_repos_rows(path, &st, ret_error);
    return r;
}

/* ---- queries ---- */

bool rd_repos_empty(const rd_knowledge *k)
{
    (void)rd_knowledge_need(k, RD_KT_REPOS, NULL);
    return k->n_repos == 0;
}

const rd_repo_row *rd_repos_find(const rd_knowledge *k, const char *release)
{
    (void)rd_knowledge_need(k, RD_KT_REPOS, NULL);
    _cleanup_free_ char *v = release ? xstrndup(release, strcspn(release, "-")) : NULL;
    if (!v || !kn_is_version(v, 2, 3))
        return NULL;
    for (size_t i = 0; i < k->n_repos; i++)
        if (rd_version_compare(k->repos[i].release, v) == 0)
            return &k->repos[i];
    return NULL;
}

char *rd_repos_unknown_release(const rd_knowledge *k, const char *release)
{
    (void)rd_knowledge_need(k, RD_KT_REPOS, NULL);
    const rd_repo_row *newest = rd_repos_newest(k);
    return xasprintf("ROCm \"%s\" is not a release of the repository table (repos.ini of %s, %s to %s): the folders "
                     "AMD serves for it are unknown; `rocm-doctor list releases` shows them",
                     strempty(release), strempty(k->repos_info.date), k->n_repos ? k->repos[0].release : "-",
                     newest ? newest->release : "-");
}

const rd_repo_row *rd_repos_newest(const rd_knowledge *k)
{
    (void)rd_knowledge_need(k, RD_KT_REPOS, NULL);
    return k->n_repos ? &k->repos[k->n_repos - 1] : NULL;
}

const rd_repo_row *rd_repos_newest_of_line(const rd_knowledge *k, const char *line)
{
    (void)rd_knowledge_need(k, RD_KT_REPOS, NULL);
    for (size_t i = k->n_repos; line && i > 0; i--) {
        const char *rest = startswith(k->repos[i - 1].release, line);
        if (rest && *rest == '.')
            return &k->repos[i - 1];
    }
    return NULL;
}

bool rd_repo_serves_suite(const rd_repo_row *r, const char *suite)
{
    return r && suite && strv_contains(r->suites, suite);
}

bool rd_repo_serves_tree(const rd_repo_row *r, rd_repo_family f, const char *tree)
{
    return r && tree && strv_contains(f == RD_REPO_EL ? r->el_trees : r->sles_trees, tree);
}

/* The tree of the release's rpm folders for this OS version: its own when
 * served, else the nearest served one of the same major (newest below,
 * else oldest above); NULL: none of that major. */
const char *rd_repo_pick_tree(const rd_repo_row *row, rd_repo_family f, const char *version)
{
    char *const *trees = f == RD_REPO_EL ? row->el_trees : row->sles_trees;
    const char *below = NULL, *above = NULL;
    size_t maj = strcspn(strempty(version), ".");
    for (size_t i = 0; version && trees && trees[i]; i++) {
        if (rd_version_compare(trees[i], version) == 0)
            return trees[i];
        if (strcspn(trees[i], ".") != maj || strncmp(trees[i], version, maj) != 0)
            continue;
        if (rd_version_compare(trees[i], version) < 0) {
            if (!below || rd_version_compare(trees[i], below) > 0)
                below = trees[i];
        } else if (!above || rd_version_compare(trees[i], above) < 0)
            above = trees[i];
    }
    return below ? below : above;
}

static char *expand(const char *tmpl, const rd_repo_os *os)
{
    const char *vals[] = { os ? os->suite : NULL, os ? os->major : NULL, os ? os->os : NULL };
    strbuf b = { 0 };
    for (const char *t = tmpl; *t;) {
        const char *e = *t == '{' ? strchr(t, '}') : NULL;
        int idx = e ? placeholder_index(t + 1, (size_t)(e - t - 1)) : -1;
        if (idx >= 0) {
            if (!vals[idx] || !*vals[idx]) {
                free(strbuf_steal(&b));
                return NULL;
            }
            strbuf_append(&b, vals[idx]);
            t = e + 1;
        } else
            strbuf_appendn(&b, t++, 1);
    }
    return strbuf_steal(&b);
}

char *rd_repos_url(const char *base, const rd_repo_row *r, rd_repo_family f, rd_repo_kind kind, const rd_repo_os *os)
{
    const char *p = rd_repo_path(r, f, kind);
    _cleanup_free_ char *e = p ? expand(p, os) : NULL;
    if (!e)
        return NULL;
    return xasprintf("%s/%s", strempty(base), e);
}

char *rd_repos_key_url(const rd_knowledge *k, const char *base)
{
    (void)rd_knowledge_need(k, RD_KT_REPO_KEY, NULL);
    return k->repo_key ? xasprintf("%s/%s", strempty(base), k->repo_key) : NULL;
}

/* ---- classifying a path ---- */

/* Matches path against a row's template: the placeholders take one
 * component each; a trailing '/' is optional on either side. */
static bool template_matches(const char *tmpl, const char *path, char *ret_vals[3])
{
    const char *t = tmpl, *u = path;
    char *v[3] = { 0 };
    bool ok = false;
    while (*t) {
        if (*t == '{') {
            const char *e = strchr(t, '}');
            int idx = e ? placeholder_index(t + 1, (size_t)(e - t - 1)) : -1;
            /* {major} stands inside a component ("el{major}"): digits only */
            size_t n = idx == 1 ? strspn(u, "0123456789") : strcspn(u, "/");
            if (idx < 0 || n == 0 || (v[idx] && (strlen(v[idx]) != n || strncmp(v[idx], u, n) != 0)))
                goto out;
            if (!v[idx])
                v[idx] = xstrndup(u, n);
            u += n;
            t = e + 1;
            continue;
        }
        if (!*u && streq(t, "/"))
            break; /* the template's trailing '/' */
        if (*t != *u)
            goto out;
        t++;
        u++;
    }
    ok = !*u || streq(u, "/");
out:
    for (size_t i = 0; i < 3; i++)
        if (ok && ret_vals)
            ret_vals[i] = v[i];
        else
            free(v[i]);
    return ok;
}

/* The family, kind, version and OS parts of one of AMD's folder shapes:
 *   rocm/apt/V   rocm/{el,rhel}N/V/main   rocm/zyp/V/main
 *   {amdgpu,graphics}/V/ubuntu   .../V/{el,rhel}/T/...   .../V/sle/T/...
 *   amdgpu-install/V/{ubuntu,el,rhel,sle}/... */
static bool shape_of(char **p, rd_repo_match *m)
{
    size_t n = strv_length(p);
    if (n < 3)
        return false;
    if (streq(p[0], "rocm")) {
        m->kind = RD_REPO_ROCM;
        m->version = xstrdup(p[2]);
        if (streq(p[1], "apt"))
            m->family = RD_REPO_APT;
        else if (streq(p[1], "zyp"))
            m->family = RD_REPO_SLES;
        else {
            /* rocm/centos8/5.0: the EL 8 folder of 5.0 and 5.1 */
            const char *maj = startswith(p[1], "rhel")     ? p[1] + 4
                              : startswith(p[1], "centos") ? p[1] + 6
                              : startswith(p[1], "el")     ? p[1] + 2
                                                           : NULL;
            if (!maj || !*maj || strspn(maj, "0123456789") != strlen(maj))
                return false;
            m->family = RD_REPO_EL;
            m->major = xstrdup(maj);
        }
        return true;
    }
    bool installer = streq(p[0], "amdgpu-install");
    if (!installer && !streq(p[0], "amdgpu") && !streq(p[0], "graphics"))
        return false;
    m->kind = installer ? RD_REPO_INSTALLER : streq(p[0], "amdgpu") ? RD_REPO_AMDGPU : RD_REPO_GRAPHICS;
    m->version = xstrdup(p[1]);
    if (streq(p[2], "ubuntu"))
        m->family = RD_REPO_APT;
    else if (streq(p[2], "el") || streq(p[2], "rhel"))
        m->family = RD_REPO_EL;
    else if (streq(p[2], "sle"))
        m->family = RD_REPO_SLES;
    else
        return false;
    if (m->family != RD_REPO_APT && n > 3) {
        m->os = xstrdup(p[3]);
        m->major = xstrndup(p[3], strcspn(p[3], "."));
    }
    return true;
}

/* The newest version the table knows for paths of this kind: driver
 * folders carry their own numbers from 7.0 on (30.10), ROCm's before. */
static bool version_newer(const rd_knowledge *k, const rd_repo_match *m)
{
    if (!kn_is_version(m->version, 1, 4) || k->n_repos == 0)
        return false;
    const rd_repo_row *newest = rd_repos_newest(k);
    if (m->kind == RD_REPO_AMDGPU) {
        unsigned long major = strtoul(m->version, NULL, 10);
        const char *max = NULL;
        for (size_t i = 0; i < k->n_repos; i++)
            if (k->repos[i].driver && (!max || rd_version_compare(k->repos[i].driver, max) > 0))
                max = k->repos[i].driver;
        /* own driver numbers (20 and up) against the newest driver's */
        if (major >= 20)
            return max && rd_version_compare(m->version, max) > 0;
    }
    return rd_version_compare(m->version, newest->release) > 0;
}

/* Older than the table's first release (5.6.1, driver 22.40.5): folders
 * AMD served before the table begins are not judged. */
static bool version_older(const rd_knowledge *k, const rd_repo_match *m)
{
    if (!kn_is_version(m->version, 1, 4) || k->n_repos == 0)
        return false;
    if (m->kind == RD_REPO_AMDGPU && strtoul(m->version, NULL, 10) >= 20) {
        const char *min = NULL;
        for (size_t i = 0; i < k->n_repos; i++)
            if (k->repos[i].driver && strtoul(k->repos[i].driver, NULL, 10) >= 20 &&
                (!min || rd_version_compare(k->repos[i].driver, min) < 0))
                min = k->repos[i].driver;
        return !min || rd_version_compare(m->version, min) < 0;
    }
    return rd_version_compare(m->version, k->repos[0].release) < 0;
}

/* The row a version names when no row serves the path: the release of that
 * number (the driver's folder named after ROCm: amdgpu/7.2), else the row
 * whose driver has it. */
static const rd_repo_row *meant_row(const rd_knowledge *k, const rd_repo_match *m)
{
    const rd_repo_row *r = kn_is_version(m->version, 2, 3) ? rd_repos_find(k, m->version) : NULL;
    for (size_t i = k->n_repos; !r && m->kind == RD_REPO_AMDGPU && i > 0; i--)
        if (k->repos[i - 1].driver && rd_version_compare(k->repos[i - 1].driver, m->version) == 0)
            r = &k->repos[i - 1];
    return r;
}

/* AMD serves its EL folders under "rhel" and "el" alike (rocm/rhel8/6.3
 * and rocm/el8/6.3; amdgpu/6.4.2/rhel/8.10 and .../el/8.10): the path with
 * "rhelN" and "rhel" components written "elN" and "el". */
static char *el_spelling(const char *path)
{
    _cleanup_strv_free_ char **parts = strv_split(path, "/");
    for (size_t i = 0; parts && parts[i]; i++)
        if (startswith(parts[i], "rhel"))
            memmove(parts[i], parts[i] + 2, strlen(parts[i] + 2) + 1);
    char *j = strv_join(parts, "/");
    if (endswith(path, "/")) {
        char *t = xasprintf("%s/", j);
        free(j);
        j = t;
    }
    return j;
}

/* Whether a template of row serves path: the placeholders' values must be
 * the row's own trees (a release serves only the OS trees it lists). */
static bool row_serves(const rd_repo_row *row, rd_repo_family f, const char *tmpl, const char *path, bool trees_too)
{
    char *v[3] = { 0 };
    bool el = f == RD_REPO_EL;
    _cleanup_free_ char *t = el ? el_spelling(tmpl) : xstrdup(tmpl), *p = el ? el_spelling(path) : xstrdup(path);
    if (!template_matches(t, p, v))
        return false;
    char *const *trees = f == RD_REPO_EL ? row->el_trees : row->sles_trees;
    bool ok = !trees_too || !v[2] || strv_contains(trees, v[2]);
    if (ok && v[1] && trees_too) {
        /* {major}: the major of one of the trees */
        bool major = false;
        for (size_t i = 0; trees && trees[i]; i++)
            major |= strcspn(trees[i], ".") == strlen(v[1]) && strncmp(trees[i], v[1], strlen(v[1])) == 0;
        ok = major;
    }
    for (size_t i = 0; i < 3; i++)
        free(v[i]);
    return ok;
}

int rd_repos_classify(const rd_knowledge *k, const char *path, rd_repo_match *ret)
{
    *ret = (rd_repo_match){ 0 };
    (void)rd_knowledge_need(k, RD_KT_REPOS, NULL);
    while (path && *path == '/')
        path++;
    _cleanup_strv_free_ char **parts = path ? strv_split(path, "/") : NULL;
    if (!parts || !shape_of(parts, ret)) {
        rd_repo_match_done(ret);
        return 0;
    }
    ret->versioned = kn_is_version(ret->version, 1, 4);
    for (size_t i = k->n_repos; i > 0 && !ret->row; i--) {
        const rd_repo_row *row = &k->repos[i - 1];
        const char *t = rd_repo_path(row, ret->family, ret->kind);
        if (t && row_serves(row, ret->family, t, path, true))
            ret->row = row;
        for (size_t j = 0; !ret->row && row->also && row->also[j]; j++)
            if (row_serves(row, ret->family, row->also[j], path, true))
                ret->row = row;
        if (!ret->row && !ret->os_row && t && row_serves(row, ret->family, t, path, false))
            ret->os_row = row;
    }
    if (ret->row)
        ret->os_row = NULL;
    if (!ret->row) {
        ret->newer = version_newer(k, ret);
        ret->older = version_older(k, ret);
        ret->meant = ret->newer || ret->older ? NULL : ret->os_row ? ret->os_row : meant_row(k, ret);
    }
    return 1;
}

bool rd_repo_match_unserved(const rd_repo_match *m)
{
    return !m->row && m->versioned && !m->newer && !m->older;
}

bool rd_repo_match_moving(const rd_repo_match *m)
{
    return streq_ptr(m->version, "latest");
}

bool rd_repos_tree_major_known(const rd_knowledge *k, rd_repo_family f, const char *major)
{
    (void)rd_knowledge_need(k, RD_KT_REPOS, NULL);
    size_t n = strlen(strempty(major));
    for (size_t i = 0; n && i < k->n_repos; i++) {
        char *const *trees = f == RD_REPO_EL ? k->repos[i].el_trees : k->repos[i].sles_trees;
        for (size_t j = 0; trees && trees[j]; j++)
            if (strcspn(trees[j], ".") == n && strncmp(trees[j], major, n) == 0)
                return true;
    }
    return false;
}

void rd_repo_match_done(rd_repo_match *m)
{
    free(m->version);
    free(m->major);
    free(m->os);
    *m = (rd_repo_match){ 0 };
}

static const rd_field repo_fields[] = {
    F(rd_repo_row, release, RD_FT_STR),        F(rd_repo_row, date, RD_FT_STR),
    F(rd_repo_row, driver, RD_FT_STR),         F(rd_repo_row, apt_rocm, RD_FT_STR),
    F(rd_repo_row, apt_amdgpu, RD_FT_STR),     F(rd_repo_row, apt_graphics, RD_FT_STR),
    F(rd_repo_row, apt_installer, RD_FT_STR),  F(rd_repo_row, el_rocm, RD_FT_STR),
    F(rd_repo_row, el_amdgpu, RD_FT_STR),      F(rd_repo_row, el_graphics, RD_FT_STR),
    F(rd_repo_row, el_installer, RD_FT_STR),   F(rd_repo_row, sles_rocm, RD_FT_STR),
    F(rd_repo_row, sles_amdgpu, RD_FT_STR),    F(rd_repo_row, sles_graphics, RD_FT_STR),
    F(rd_repo_row, sles_installer, RD_FT_STR), F(rd_repo_row, suites, RD_FT_STRV),
    F(rd_repo_row, el_trees, RD_FT_STRV),      F(rd_repo_row, sles_trees, RD_FT_STRV),
    F(rd_repo_row, also, RD_FT_STRV),          F(rd_repo_row, sources, RD_FT_STRV),
};
SCHEMA(kn_repo_schema, rd_repo_row, repo_fields);
