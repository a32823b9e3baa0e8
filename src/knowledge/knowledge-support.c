/* SPDX-License-Identifier: MIT */
/* conf/support.ini: ROCm releases, the OS releases and kernels each was
 * validated with, and the apt and rpm repositories. */
#include "knowledge-private.h"

#include <ctype.h>
#include "distro.h"

static char *gfx_of_archs(parse_state *st, const char *name, const char *v)
{
    if (rd_knowledge_arch(st->k, v))
        return NULL;
    return xasprintf("%s: \"%s\" is not a gfx target of archs.ini", name, v);
}

/* ID VERSION_ID CODENAME [suite SUITE] [tree TREE] kernels SERIES... */
static int parse_os_line(parse_state *st, void *obj, const char *name, const char *value)
{
    rd_release *r = obj;
    _cleanup_strv_free_ char **w = strv_split(value, " \t");
    size_t n = strv_length(w), i = 3;
    if (n < 5)
        return kn_fail(st,
                       xasprintf("os \"%s\": expected ID VERSION_ID CODENAME [suite SUITE] kernels SERIES...", value));
    const char *suite = NULL;
    if (streq(w[i], "suite")) {
        if (i + 1 >= n)
            return kn_fail(st, xasprintf("os \"%s\": \"suite\" needs a suite name", value));
        suite = w[i + 1];
        i += 2;
    }
    const char *tree = NULL;
    if (i < n && streq(w[i], "tree")) {
        if (i + 1 >= n || !kn_is_version(w[i + 1], 1, 2))
            return kn_fail(st, xasprintf("os \"%s\": \"tree\" needs an OS version like 9.6 or 10", value));
        tree = w[i + 1];
        i += 2;
    }
    if (i >= n || !streq(w[i], "kernels") || i + 1 >= n)
        return kn_fail(st, xasprintf("os \"%s\": expected \"kernels\" and at least one kernel series", value));
    if (!kn_is_version(w[1], 1, 3))
        return kn_fail(st, xasprintf("os \"%s\": VERSION_ID \"%s\" is not a version", value, w[1]));
    for (size_t k = i + 1; k < n; k++)
        if (!kn_is_version(w[k], 2, 2))
            return kn_fail(st, xasprintf("os \"%s\": \"%s\" is not a kernel series like 6.8", value, w[k]));
    for (size_t k = 0; k < r->n_os; k++)
        if (streq(r->os[k].id, w[0]) && streq(r->os[k].version_id, w[1]))
            return kn_fail(st, xasprintf("os %s %s is listed twice in [rocm %s]", w[0], w[1], r->line));
    bool apt = !streq(w[2], "-");
    rd_release_os *o = ARRAY_APPEND(r->os, r->n_os);
    o->id = xstrdup(w[0]);
    o->version_id = xstrdup(w[1]);
    o->codename = apt ? xstrdup(w[2]) : NULL;
    o->apt_suite = apt ? xstrdup(suite ? suite : w[2]) : NULL;
    o->tree = xstrdup(tree ? tree : w[1]);
    for (size_t k = i + 1; k < n; k++)
        o->kernels = strv_push(o->kernels, xstrdup(w[k]));
    return 1;
}

static const char *const template_names[] = { "rocm", "amdgpu", "major", "os" };

/* A baseurl template: https://HOST/..., placeholders only from
 * template_names, braces paired, no white space. */
static int parse_template(parse_state *st, void *obj, const char *name, const char *value)
{
    char **ret = &((rd_rpm_info *)obj)->gpgkey;
    if (!startswith(value, "https://") || strpbrk(value, " \t"))
        return kn_fail(st, xasprintf("%s \"%s\" is not an https:// URL", name, value));
    for (const char *p = strchr(value, '{'); p; p = strchr(p + 1, '{')) {
        const char *e = strchr(p, '}');
        bool known = false;
        for (size_t i = 0; e && i < ELEMENTSOF(template_names); i++)
            known |= strlen(template_names[i]) == (size_t)(e - p - 1) &&
                     strncmp(p + 1, template_names[i], (size_t)(e - p - 1)) == 0;
        if (!known)
            return kn_fail(st, xasprintf("%s \"%s\": unknown placeholder at \"%.12s\" (known: {rocm} {amdgpu} {major} "
                                         "{os})",
                                         name, value, p));
    }
    if (strchr(value, '}') && !strchr(value, '{'))
        return kn_fail(st, xasprintf("%s \"%s\": a '}' without '{'", name, value));
    free(*ret);
    *ret = xstrdup(value);
    return 1;
}

static char *host_value(parse_state *st, const char *name, const char *value)
{
    if (!*value || strpbrk(value, "/: \t"))
        return xasprintf("host \"%s\" is not a host name", value);
    return NULL;
}

static char *key_id_value(parse_state *st, const char *name, const char *value)
{
    uint64_t id;
    if (strlen(value) != 16 || safe_atou64(value, 16, &id) < 0)
        return xasprintf("key-id \"%s\" is not a 16-digit hex key id", value);
    return NULL;
}

/* The release of a [rocm X.Y] section: a new one when the section starts,
 * refused when it repeats or comes out of order. */
static int release_row(parse_state *st, const char *section, const char *line, void **ret)
{
    rd_knowledge *k = st->k;
    if (!kn_is_version(line, 2, 2))
        return -1;
    if (!st->release || !streq(st->release->line, line)) {
        for (size_t i = 0; i < k->n_releases; i++)
            if (streq(k->releases[i].line, line))
                return kn_fail(st, xasprintf("section [%s] appears twice", section));
        if (k->n_releases > 0 && rd_version_compare(k->releases[k->n_releases - 1].line, line) >= 0)
            return kn_fail(st, xasprintf("section [%s] comes after [rocm %s]: releases go oldest first", section,
                                         k->releases[k->n_releases - 1].line));
        st->release = ARRAY_APPEND(k->releases, k->n_releases);
        st->release->line = xstrdup(line);
    }
    *ret = st->release;
    return 1;
}

static int latest_value(parse_state *st, void *obj, const char *name, const char *value)
{
    rd_release *r = obj;
    const char *rest = startswith(value, r->line);
    if (!kn_is_version(value, 3, 3) || !rest || *rest != '.')
        return kn_fail(st, xasprintf("latest \"%s\" is not a %s.N release", value, r->line));
    free(r->latest);
    r->latest = xstrdup(value);
    return 1;
}

static char *month_value(parse_state *st, const char *name, const char *value)
{
    unsigned y, m;
    int end = 0;
    if (sscanf(value, "%4u-%2u%n", &y, &m, &end) != 2 || value[end] || strlen(value) != 7 || y < 2000 || m < 1 ||
        m > 12)
        return xasprintf("date \"%s\" is not YYYY-MM", value);
    return NULL;
}

static int apt_suite_value(parse_state *st, void *obj, const char *name, const char *value)
{
    rd_release *r = obj;
    if (streq(value, "ubuntu"))
        r->apt_suite_ubuntu = true;
    else if (streq(value, "codename"))
        r->apt_suite_ubuntu = false;
    else
        return kn_fail(st, xasprintf("apt-suite must be codename or ubuntu, not \"%s\"", value));
    return 1;
}

static char *dkms_value(parse_state *st, const char *name, const char *value)
{
    if (!kn_is_version(value, 2, 3))
        return xasprintf("dkms \"%s\" is not a driver version like 6.8.5", value);
    return NULL;
}

static int window_value(parse_state *st, void *obj, const char *name, const char *value)
{
    rd_release *r = obj;
    const char *n;
    uint64_t v;
    if ((n = startswith(value, "releases ")) && safe_atou64(n, 10, &v) == 0 && v <= 100)
        r->window_kind = RD_WINDOW_RELEASES;
    else if ((n = startswith(value, "months ")) && safe_atou64(n, 10, &v) == 0 && v <= 1200)
        r->window_kind = RD_WINDOW_MONTHS;
    else
        return kn_fail(st, xasprintf("window must be \"releases N\" or \"months N\", not \"%s\"", value));
    r->window = (uint32_t)v;
    return 1;
}

/* The last row of [rocm X.Y]: the folder keys that moved to repos.ini, else unknown. */
static int moved_key(parse_state *st, void *obj, const char *name, const char *value)
{
    static const char *const moved[] = { "el-rocm", "el-amdgpu", "el-graphics", "sles-rocm", "sles-amdgpu", "amdgpu" };
    for (size_t i = 0; i < ELEMENTSOF(moved); i++)
        if (streq(name, moved[i]))
            return kn_fail(
                st, xasprintf("\"%s\" moved to repos.ini: the folders AMD serves are listed per release there", name));
    return kn_fail(st, xasprintf("unknown key \"%s\" in [rocm %s]", name, ((rd_release *)obj)->line));
}

static int rpm_of(parse_state *st, const char *section, const char *arg, void **ret)
{
    *ret = &st->k->rpm;
    return 1;
}

#define WORDS(n, f)                                                                                                    \
    {                                                                                                                  \
        n, KN_WORDS, offsetof(rd_rpm_info, f), NULL, NULL, false, true                                                 \
    }
static const kn_key rpm_keys[] = {
    { "host", KN_STRING, offsetof(rd_rpm_info, host), host_value },
    { "fingerprint", KN_STRING, offsetof(rd_rpm_info, fingerprint), kn_fingerprint_value },
    { "gpgkey", KN_PARSE, 0, NULL, parse_template },
    WORDS("crb-repos", crb_repos),
    WORDS("epel-repos", epel_repos),
    WORDS("crb-packages", crb_packages),
    WORDS("epel-packages", epel_packages),
    WORDS("sles-modules", sles_modules),
    WORDS("sles-repos", sles_repos),
};
static const kn_key apt_keys[] = {
    KN_STR("host", rd_knowledge, apt_host),
    { "key-id", KN_STRING, offsetof(rd_knowledge, apt_key_id), key_id_value },
    KN_STR("pin-origin", rd_knowledge, apt_pin_origin),
};
#define GFX(n, f)                                                                                                      \
    {                                                                                                                  \
        n, KN_WORDS, offsetof(rd_release, f), gfx_of_archs, NULL, false, true, true                                    \
    }
static const kn_key release_keys[] = {
    { "latest", KN_PARSE, 0, NULL, latest_value },
    { "date", KN_STRING, offsetof(rd_release, date), month_value },
    GFX("gfx", gfx),
    GFX("deprecated", deprecated),
    { "apt-suite", KN_PARSE, 0, NULL, apt_suite_value },
    { "dkms", KN_STRING, offsetof(rd_release, dkms), dkms_value },
    { "window", KN_PARSE, 0, NULL, window_value },
    { "os", KN_PARSE, 0, NULL, parse_os_line },
    { NULL, KN_PARSE, 0, NULL, moved_key },
};
static const kn_section support_sections[] = {
    { "rpm", false, rpm_of, KN_KEYS(rpm_keys) },
    { "apt", false, kn_whole, KN_KEYS(apt_keys) },
    { "rocm ", true, release_row, KN_KEYS(release_keys) },
};
static const kn_rows support_rows = { KN_KEYS(support_sections), "neither [table], [apt], [rpm] nor [rocm X.Y]" };

int rd_knowledge_load_support(const char *path, rd_knowledge *k, char **ret_error)
{
    parse_state st = { .k = k, .rows_of = &support_rows, .info = &k->support_info };
    int r = kn_load_table(path, &st, ret_error);
    if (r < 0)
        return r;
    if (!k->apt_host || !k->apt_key_id || !k->apt_pin_origin) {
        *ret_error = xasprintf("%s: [apt] needs host, key-id and pin-origin", path);
        return -EINVAL;
    }
    if (k->n_releases == 0) {
        *ret_error = xasprintf("%s: no [rocm X.Y] section", path);
        return -EINVAL;
    }
    for (size_t i = 0; i < k->n_releases; i++) {
        const rd_release *rel = &k->releases[i];
        if (!rel->latest || !rel->date || !rel->gfx || !rel->window || rel->n_os == 0) {
            *ret_error =
                xasprintf("%s: [rocm %s] needs latest, date, gfx, window and at least one os", path, rel->line);
            return -EINVAL;
        }
    }
    return 0;
}

/* "6.2.4-139" belongs to line "6.2": its first two components match. */
static bool in_line(const char *version, const char *line)
{
    const char *rest = startswith(strempty(version), line);
    return rest && (!*rest || *rest == '.' || *rest == '-');
}

const rd_release *rd_knowledge_release(const rd_knowledge *k, const char *version)
{
    for (size_t i = 0; version && i < k->n_releases; i++)
        if (in_line(version, k->releases[i].line))
            return &k->releases[i];
    return NULL;
}

const rd_release *rd_knowledge_release_by_dkms(const rd_knowledge *k, const char *driver_version)
{
    for (size_t i = 0; driver_version && i < k->n_releases; i++)
        if (k->releases[i].dkms && in_line(driver_version, k->releases[i].dkms))
            return &k->releases[i];
    return NULL;
}

static const rd_release_os *find_os_exact(const rd_release *r, const char *id, const char *version_id)
{
    for (size_t i = 0; id && version_id && i < r->n_os; i++)
        if (streq(r->os[i].id, id) && (streq(r->os[i].version_id, version_id) ||
                                       /* "24.04" in the table covers "24.04.2" */
                                       in_line(version_id, r->os[i].version_id)))
            return &r->os[i];
    return NULL;
}

const rd_release_os *rd_release_find_os(const rd_release *r, const char *id, const char *version_id)
{
    const rd_release_os *o = find_os_exact(r, id, version_id);
    if (o || !id)
        return o;
    /* a rebuild the table does not list is judged as its family's reference */
    rd_os_family fam = rd_os_family_of(id, NULL);
    const char *ref = fam == RD_OS_RHEL ? "rhel" : fam == RD_OS_SUSE ? "sles" : NULL;
    if (ref && !streq(id, ref))
        return find_os_exact(r, ref, version_id);
    return NULL;
}

char *rd_rpm_key_name(const char *fingerprint)
{
    size_t n = strlen(strempty(fingerprint));
    if (n < 8)
        return NULL;
    char *s = xasprintf("gpg-pubkey-%s", fingerprint + n - 8);
    for (char *p = s; *p; p++)
        *p = (char)tolower((unsigned char)*p);
    return s;
}

bool rd_release_supports(const rd_release *r, const char *gfx)
{
    return gfx && strv_contains(r->gfx, gfx);
}

bool rd_release_deprecates(const rd_release *r, const char *gfx)
{
    return gfx && strv_contains(r->deprecated, gfx);
}

const char *rd_knowledge_pick_release(const rd_knowledge *k, const char *os_id, const char *os_version_id,
                                      char *const *gfx, size_t n_gfx)
{
    for (size_t i = k->n_releases; i > 0; i--) {
        const rd_release *r = &k->releases[i - 1];
        if (!rd_release_find_os(r, os_id, os_version_id))
            continue;
        bool all = true;
        for (size_t j = 0; all && j < n_gfx; j++)
            all = rd_release_supports(r, gfx[j]) || rd_release_deprecates(r, gfx[j]);
        if (all)
            return r->latest;
    }
    return NULL;
}

const char *rd_knowledge_apt_suite(const rd_knowledge *k, const char *release, const char *codename)
{
    const rd_release *r = rd_knowledge_release(k, release);
    if (!r)
        return NULL;
    if (r->apt_suite_ubuntu)
        return "ubuntu";
    for (size_t i = 0; codename && i < r->n_os; i++)
        if (streq_ptr(r->os[i].codename, codename))
            return r->os[i].apt_suite;
    return NULL;
}

/* The row of the table nearest to this release: the same ID, else the same
 * family (Rocky, Alma and Oracle Linux against RHEL); the newest version not
 * above this one, else the oldest above it. */
const rd_release_os *rd_support_nearest_os(const rd_release *rel, const rd_os_facts *o)
{
    const rd_release_os *below = NULL, *above = NULL;
    rd_os_family fam = rd_os_family_facts(o);
    for (int pass = 0; pass < 2 && !below && !above; pass++)
        for (size_t i = 0; i < rel->n_os; i++) {
            const rd_release_os *r = &rel->os[i];
            bool same =
                pass == 0 ? streq_ptr(r->id, o->id) : fam != RD_OS_UNKNOWN && rd_os_family_of(r->id, NULL) == fam;
            if (!same)
                continue;
            if (!o->version_id || rd_version_compare(r->version_id, o->version_id) <= 0) {
                if (!below || rd_version_compare(r->version_id, below->version_id) > 0)
                    below = r;
            } else if (!above || rd_version_compare(r->version_id, above->version_id) < 0)
                above = r;
        }
    return below ? below : above;
}

const rd_release_os *rd_support_os_for(const rd_release *rel, const rd_os_facts *os, bool *ret_nearest)
{
    const rd_release_os *own = rd_release_find_os(rel, os->id, os->version_id);
    *ret_nearest = !own;
    return own ? own : rd_support_nearest_os(rel, os);
}

const char *rd_support_newest_kernel(const rd_release *rel, const rd_release_os *row, const rd_release_os **ret_row)
{
    const char *newest = NULL;
    for (size_t i = 0; i < rel->n_os; i++) {
        const rd_release_os *r = &rel->os[i];
        if (row && r != row)
            continue;
        for (char **k = r->kernels; k && *k; k++)
            if (!newest || rd_version_compare(*k, newest) > 0) {
                newest = *k;
                if (ret_row)
                    *ret_row = r;
            }
    }
    return newest;
}

char *rd_support_validated_kernels(const rd_release *rel, const rd_os_facts *os)
{
    bool nearest;
    const rd_release_os *row = rd_support_os_for(rel, os, &nearest);
    if (!row || !row->kernels || !row->kernels[0])
        return NULL;
    strbuf b = { 0 };
    strbuf_printf(&b, "ROCm %s was validated on %s %s with kernel", rel->line, row->id, row->version_id);
    for (size_t i = 0; row->kernels[i]; i++)
        strbuf_printf(&b, "%s %s", i == 0 ? (row->kernels[1] ? "s" : "") : ",", row->kernels[i]);
    if (nearest)
        strbuf_printf(&b, " (the nearest release it lists to %s %s)", strempty(os->id),
                      os->version_id ? os->version_id : strempty(os->version_codename));
    return strbuf_steal(&b);
}

static const rd_field os_fields[] = {
    F(rd_release_os, id, RD_FT_STR),       F(rd_release_os, version_id, RD_FT_STR),
    F(rd_release_os, codename, RD_FT_STR), F(rd_release_os, apt_suite, RD_FT_STR),
    F(rd_release_os, tree, RD_FT_STR),     F(rd_release_os, kernels, RD_FT_STRV),
};
static SCHEMA(os_schema, rd_release_os, os_fields);
static const rd_field release_fields[] = {
    F(rd_release, line, RD_FT_STR),      F(rd_release, latest, RD_FT_STR),      F(rd_release, date, RD_FT_STR),
    F(rd_release, gfx, RD_FT_STRV),      F(rd_release, deprecated, RD_FT_STRV), F(rd_release, dkms, RD_FT_STR),
    FA(rd_release, os, n_os, os_schema),
};
SCHEMA(kn_release_schema, rd_release, release_fields);
static const rd_field rpm_fields[] = {
    F(rd_rpm_info, host, RD_FT_STR),           F(rd_rpm_info, fingerprint, RD_FT_STR),
    F(rd_rpm_info, gpgkey, RD_FT_STR),         F(rd_rpm_info, crb_repos, RD_FT_STRV),
    F(rd_rpm_info, epel_repos, RD_FT_STRV),    F(rd_rpm_info, crb_packages, RD_FT_STRV),
    F(rd_rpm_info, epel_packages, RD_FT_STRV), F(rd_rpm_info, sles_modules, RD_FT_STRV),
    F(rd_rpm_info, sles_repos, RD_FT_STRV),
};
SCHEMA(kn_rpm_schema, rd_rpm_info, rpm_fields);

bool rd_support_lists_os(const rd_knowledge *k, const rd_os_facts *os)
{
    for (size_t i = 0; i < k->n_releases; i++)
        if (rd_release_find_os(&k->releases[i], os->id, os->version_id))
            return true;
    return false;
}

const rd_release *rd_support_first_for_os(const rd_knowledge *k, const rd_os_facts *os)
{
    for (size_t i = 0; i < k->n_releases; i++)
        if (rd_release_find_os(&k->releases[i], os->id, os->version_id))
            return &k->releases[i];
    return NULL;
}

char *rd_support_no_release_reason(const rd_knowledge *k, const rd_os_facts *os, char *const *gfx, size_t n_gfx)
{
    const char *id = os->id ? os->id : "this OS";
    const char *ver = strempty(os->version_id);
    if (!rd_support_lists_os(k, os))
        for (size_t i = k->n_releases; i > 0; i--) {
            const rd_release *r = &k->releases[i - 1];
            const rd_release_os *near = rd_support_nearest_os(r, os);
            bool all = near != NULL;
            for (size_t j = 0; all && j < n_gfx; j++)
                all = rd_release_supports(r, gfx[j]) || rd_release_deprecates(r, gfx[j]);
            if (all)
                return xasprintf("AMD ships no ROCm for %s %s; the nearest release of it that AMD ships for is %s %s "
                                 "(ROCm %s, whose packages are built for it): choose that with `--release %s` (or "
                                 "rocm_release = %s in the [fix] section of rocm-doctor.conf)",
                                 id, ver, near->id, near->version_id, r->latest, r->latest, r->latest);
        }
    return xasprintf("no ROCm release is known to support every GPU here on %s %s: choose one with `--release "
                     "VERSION` (or rocm_release in the [fix] section of rocm-doctor.conf); `rocm-doctor list releases` "
                     "shows them",
                     id, ver);
}
