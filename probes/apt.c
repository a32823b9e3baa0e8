/* SPDX-License-Identifier: MIT */
/* apt: AMD's repository in sources.list(.d) (one-line .list and deb822
 * .sources), the signing key (keyrings, the deprecated trusted.gpg), pins in
 * preferences.d, and leftovers of install scripts (@PLACEHOLDER@). */
#include <ctype.h>
#include <fcntl.h>
#include <inttypes.h>
#include "apt.h"
#include "keyring.h"
#include "repo-url.h"
#include "config.h"
#include "distro.h"
#include "probe.h"
#include "rootfs.h"
#include "util.h"

#define MAX_TEXT (4 * 1024 * 1024)

/* hosts: AMD's host name, then optionally a configured mirror's base URL
 * ("repo.radeon.com http://mirror.example/radeon"). */
static bool is_host_uri(const char *uri, const char *hosts)
{
    const char *p = uri ? strstr(uri, "://") : NULL;
    if (!p || !hosts)
        return false;
    p += 3;
    size_t n = strcspn(hosts, " ");
    if (strncmp(p, hosts, n) == 0 && (p[n] == '/' || p[n] == 0 || p[n] == ':'))
        return true;
    return hosts[n] == ' ' && rd_url_under_mirror(hosts + n + 1, uri);
}

/* The first @WORD@ in s (WORD: upper-case letters, digits, '_'), or NULL. */
static char *find_placeholder(const char *s)
{
    for (const char *p = strchr(s, '@'); p; p = strchr(p + 1, '@')) {
        const char *q = p + 1;
        while (isupper((unsigned char)*q) || isdigit((unsigned char)*q) || *q == '_')
            q++;
        if (*q == '@' && q > p + 1)
            return xstrndup(p, (size_t)(q - p + 1));
    }
    return NULL;
}

static rd_apt_source *add_source(rd_apt_source **sources, size_t *n, const char *file, int line, const char *format)
{
    rd_apt_source *s = ARRAY_APPEND(*sources, *n);
    s->file = xstrdup(file);
    s->line = line;
    s->format = xstrdup(format);
    s->enabled = true;
    return s;
}

static void parse_one_line(char *line, const char *file, int lineno, const char *host, rd_apt_source **sources,
                           size_t *n)
{
    char *hash = strchr(line, '#');
    if (hash)
        *hash = 0;
    char *p = strstrip(line);
    if (!*p)
        return;
    _cleanup_free_ char *placeholder = find_placeholder(p);
    char *save = NULL, *type = strtok_r(p, " \t", &save);
    if (!type || (!streq(type, "deb") && !streq(type, "deb-src")))
        return;
    char *rest = save;
    _cleanup_free_ char *signed_by = NULL;
    while (rest && isspace((unsigned char)*rest))
        rest++;
    if (rest && *rest == '[') {
        char *close = strchr(rest, ']');
        if (!close)
            return;
        *close = 0;
        char *osave = NULL;
        for (char *o = strtok_r(rest + 1, " \t", &osave); o; o = strtok_r(NULL, " \t", &osave)) {
            const char *v = startswith(o, "signed-by=");
            if (v) {
                free(signed_by);
                signed_by = xstrdup(v);
            }
        }
        rest = close + 1;
    }
    save = NULL;
    char *uri = rest ? strtok_r(rest, " \t", &save) : NULL;
    char *suite = uri ? strtok_r(NULL, " \t", &save) : NULL;
    if (!uri || (!is_host_uri(uri, host) && !placeholder))
        return;
    rd_apt_source *s = add_source(sources, n, file, lineno, "one-line");
    s->type = xstrdup(type);
    s->uri = xstrdup(uri);
    s->suite = xstrdup_or_null(suite);
    for (char *c = strtok_r(NULL, " \t", &save); c; c = strtok_r(NULL, " \t", &save))
        s->components = strv_push(s->components, xstrdup(c));
    s->signed_by = TAKE_PTR(signed_by);
    s->placeholder = TAKE_PTR(placeholder);
}

typedef struct {
    int first_line, uris_line, placeholder_line;
    char *types, *uris, *suites, *components, *signed_by, *enabled, *placeholder;
} stanza;

static void stanza_flush(stanza *st, const char *file, const char *host, rd_apt_source **sources, size_t *n)
{
    if (st->uris) {
        _cleanup_strv_free_ char **uris = NULL, **suites = NULL;
        char *save = NULL;
        for (char *t = strtok_r(st->uris, " \t", &save); t; t = strtok_r(NULL, " \t", &save))
            uris = strv_push(uris, xstrdup(t));
        save = NULL;
        for (char *t = st->suites ? strtok_r(st->suites, " \t", &save) : NULL; t; t = strtok_r(NULL, " \t", &save))
            suites = strv_push(suites, xstrdup(t));
        for (size_t i = 0; uris && uris[i]; i++) {
            if (!is_host_uri(uris[i], host) && !st->placeholder)
                continue;
            for (size_t j = 0; j == 0 || (suites && suites[j]); j++) {
                rd_apt_source *s =
                    add_source(sources, n, file, st->placeholder ? st->placeholder_line : st->uris_line, "deb822");
                s->type = st->types ? xstrndup(st->types, strcspn(st->types, " \t")) : xstrdup("deb");
                s->uri = xstrdup(uris[i]);
                s->suite = suites ? xstrdup(suites[j]) : NULL;
                char *csave = NULL;
                _cleanup_free_ char *comps = xstrdup_or_null(st->components);
                for (char *c = comps ? strtok_r(comps, " \t", &csave) : NULL; c; c = strtok_r(NULL, " \t", &csave))
                    s->components = strv_push(s->components, xstrdup(c));
                /* an inline key (a multi-line field) counts as signed-by */
                s->signed_by = st->signed_by ? xstrdup(st->signed_by[0] ? st->signed_by : "(inline key)") : NULL;
                s->enabled = !st->enabled || !(streq(st->enabled, "no") || streq(st->enabled, "false"));
                s->placeholder = xstrdup_or_null(st->placeholder);
                if (!suites)
                    break;
            }
        }
    }
    free(st->types);
    free(st->uris);
    free(st->suites);
    free(st->components);
    free(st->signed_by);
    free(st->enabled);
    free(st->placeholder);
    memset(st, 0, sizeof(*st));
}

typedef struct {
    const char *file, *host;
    bool deb822;
    int lineno;
    stanza st;
    rd_apt_source **sources;
    size_t *n;
} sources_text;

static int sources_line(char *line, void *userdata)
{
    sources_text *src = userdata;
    stanza *st = &src->st;
    const char *file = src->file, *host = src->host;
    rd_apt_source **sources = src->sources;
    size_t *n = src->n;
    src->lineno++;
    if (!src->deb822) {
        parse_one_line(line, file, src->lineno, host, sources, n);
        return 0;
    }
    if (line[0] == '#')
        return 0;
    char *s = strstrip(line);
    if (!*s) {
        stanza_flush(st, file, host, sources, n);
        return 0;
    }
    if (!st->first_line)
        st->first_line = src->lineno;
    if (!st->placeholder && (st->placeholder = find_placeholder(s)))
        st->placeholder_line = src->lineno;
    if (isspace((unsigned char)line[0]))
        return 0; /* a continuation line (an inline key): nothing we need from it */
    char *colon = strchr(s, ':');
    if (!colon)
        return 0;
    *colon = 0;
    char *value = strstrip(colon + 1);
    char **slot = !strcasecmp(s, "Types")        ? &st->types
                  : !strcasecmp(s, "URIs")       ? &st->uris
                  : !strcasecmp(s, "Suites")     ? &st->suites
                  : !strcasecmp(s, "Components") ? &st->components
                  : !strcasecmp(s, "Signed-By")  ? &st->signed_by
                  : !strcasecmp(s, "Enabled")    ? &st->enabled
                                                 : NULL;
    if (slot) {
        free(*slot);
        *slot = xstrdup(value);
        if (slot == &st->uris)
            st->uris_line = src->lineno;
    }
    return 0;
}

void rd_apt_parse_sources(const char *text, const char *file, bool deb822, const char *host, rd_apt_source **sources,
                          size_t *n)
{
    sources_text src = { .file = file, .host = host, .deb822 = deb822, .sources = sources, .n = n };
    foreach_line(text, sources_line, &src);
    stanza_flush(&src.st, file, host, sources, n);
}

typedef struct {
    const char *file, *origin;
    int lineno, first;
    char *package, *pin;
    int64_t priority;
    rd_apt_pin **pins;
    size_t *n;
} pin_stanza;

/* The end of a stanza: keeps its pin when it names the origin. */
static void pin_stanza_end(pin_stanza *ps)
{
    if (ps->pin && ps->origin && strstr(ps->pin, ps->origin)) {
        rd_apt_pin *x = ARRAY_APPEND(*ps->pins, *ps->n);
        x->file = xstrdup(ps->file);
        x->line = ps->first;
        x->package = TAKE_PTR(ps->package);
        x->pin = TAKE_PTR(ps->pin);
        x->priority = ps->priority;
    }
    free(ps->package);
    free(ps->pin);
    ps->package = ps->pin = NULL;
    ps->priority = 0;
    ps->first = 0;
}

static int preferences_line(char *line, void *userdata)
{
    pin_stanza *ps = userdata;
    const char *s = strstrip(line);
    ps->lineno++;
    if (!*s) {
        pin_stanza_end(ps);
        return 0;
    }
    if (*s == '#')
        return 0;
    if (!ps->first)
        ps->first = ps->lineno;
    const char *v;
    if ((v = startswith(s, "Package:"))) {
        free(ps->package);
        ps->package = xstrdup(v + strspn(v, " \t"));
    } else if ((v = startswith(s, "Pin-Priority:"))) {
        int x;
        if (safe_atoi(v + strspn(v, " \t"), &x) == 0)
            ps->priority = x;
    } else if ((v = startswith(s, "Pin:"))) {
        free(ps->pin);
        ps->pin = xstrdup(v + strspn(v, " \t"));
    }
    return 0;
}

void rd_apt_parse_preferences(const char *text, const char *file, const char *origin, rd_apt_pin **pins, size_t *n)
{
    pin_stanza ps = { .file = file, .origin = origin, .pins = pins, .n = n };
    foreach_line(text, preferences_line, &ps);
    pin_stanza_end(&ps);
}

static rd_apt_keyring *keyring_find(rd_apt_facts *a, const char *path)
{
    for (size_t i = 0; i < a->n_keyrings; i++)
        if (streq(a->keyrings[i].path, path))
            return &a->keyrings[i];
    return NULL;
}

/* The key rocm-doctor.conf names (apt_key_fingerprint, for a site that has
 * moved to a newer AMD key): a v4 fingerprint whole, a 16-digit key id as
 * it is, the high 64 bits of a v5/v6 one. NULL when none is set. */
static char *configured_key_id(const rd_ctx *ctx)
{
    const char *fpr = ctx->config ? ctx->config->apt_key_fingerprint : NULL;
    if (!fpr)
        return NULL;
    strbuf b = { 0 };
    for (const char *c = fpr; *c; c++)
        if (isxdigit((unsigned char)*c)) {
            char u = (char)toupper((unsigned char)*c);
            strbuf_appendn(&b, &u, 1);
        }
    _cleanup_free_ char *hex = b.s ? strbuf_steal(&b) : xstrdup("");
    size_t n = strlen(hex);
    if (n == 40 || n == 16)
        return xstrdup(hex);
    if (n == 64)
        return xstrndup(hex, 16);
    return NULL;
}

/* Records path when keep_all, or when it holds the key. */
static void scan_keyring(const rd_ctx *ctx, rd_apt_facts *a, const char *path, bool legacy, bool keep_all)
{
    if (keyring_find(a, path))
        return;
    _cleanup_free_ char *data = NULL;
    size_t size = 0;
    int r = rootfs_read_file(ctx->root_fd, path, rd_root_how(ctx), MAX_TEXT, &data, &size);
    _cleanup_free_ char *configured = configured_key_id(ctx);
    /* AMD's key: a primary key whose whole fingerprint is the one the
     * tables pin (the key id only where no table names the fingerprint) */
    const rd_knowledge *kn = &ctx->knowledge;
    (void)rd_knowledge_need(kn, RD_KT_REPO_KEY, NULL);
    const char *amd = kn->repo_fingerprint  ? kn->repo_fingerprint
                      : kn->rpm.fingerprint ? kn->rpm.fingerprint
                                            : kn->apt_key_id;
    bool has = r >= 0 && (rd_keyring_has_key((const unsigned char *)data, size, amd) ||
                          rd_keyring_has_key((const unsigned char *)data, size, configured));
    if (!keep_all && !has)
        return;
    rd_apt_keyring *k = ARRAY_APPEND(a->keyrings, a->n_keyrings);
    k->path = xstrdup(path);
    k->exists = r >= 0 || r == -EISDIR;
    k->amd_key = has;
    k->legacy = legacy;
    if (r < 0 && r != -ENOENT)
        k->error = xasprintf("%s: %s", path, rootfs_strerror(r));
}

static void scan_keyring_dir(const rd_ctx *ctx, rd_apt_facts *a, const char *dir, bool legacy)
{
    _cleanup_strv_free_ char **names = NULL;
    if (rd_root_list_dir(ctx, dir, NULL, &names) < 0)
        return;
    for (size_t i = 0; names && names[i]; i++) {
        /* apt reads only *.gpg and *.asc there (a key moved aside as
         * NAME.disabled is trusted no more) */
        if (legacy && !endswith(names[i], ".gpg") && !endswith(names[i], ".asc"))
            continue;
        _cleanup_free_ char *path = xasprintf("%s/%s", dir, names[i]);
        scan_keyring(ctx, a, path, legacy, false);
    }
}

static void read_sources(const rd_ctx *ctx, rd_facts *facts, const char *path, bool deb822)
{
    rd_apt_facts *a = &facts->apt;
    _cleanup_free_ char *text = NULL;
    int r = rd_root_read_file(ctx, path, 0, &text); /* line-based: no size limit */
    rd_facts_note_unreadable(facts, path, r, "the apt repositories it may list (repo.radeon.com, signed-by)");
    if (r < 0) {
        if (r != -ENOENT && !a->error)
            a->error = xasprintf("%s: %s", path, rootfs_strerror(r));
        return;
    }
    const char *mirror = ctx->config ? ctx->config->mirror : NULL;
    _cleanup_free_ char *hosts = mirror ? xasprintf("%s %s", strempty(ctx->knowledge.apt_host), mirror)
                                        : xstrdup(strempty(ctx->knowledge.apt_host));
    rd_apt_parse_sources(text, path, deb822, hosts, &a->sources, &a->n_sources);
}

static int read_preferences(const rd_ctx *ctx, rd_facts *facts, const char *path, char **ret)
{
    int r = rd_root_read_file(ctx, path, 0, ret);
    rd_facts_note_unreadable(facts, path, r, "the apt pins it may hold (apt.pin-missing)");
    return r;
}

/* The Version: field of the Release file apt keeps for a source in
 * /var/lib/apt/lists (the URI without its scheme, '/' as '_', then
 * _dists_SUITE_InRelease or _Release); NULL when there is none. */
static char *index_version(const rd_ctx *ctx, const rd_apt_source *s)
{
    const char *u = strstr(s->uri, "://");
    if (!u || !s->suite || strchr(s->suite, '/'))
        return NULL;
    _cleanup_free_ char *name = xstrdup(u + 3);
    size_t n = strlen(name);
    while (n > 0 && name[n - 1] == '/')
        name[--n] = '\0';
    for (char *p = name; *p; p++)
        if (*p == '/')
            *p = '_';
    static const char *const kinds[] = { "InRelease", "Release" };
    for (size_t k = 0; k < ELEMENTSOF(kinds); k++) {
        _cleanup_free_ char *path = xasprintf("/var/lib/apt/lists/%s_dists_%s_%s", name, s->suite, kinds[k]);
        _cleanup_free_ char *text = NULL;
        if (rd_root_read_file(ctx, path, 1u << 20, &text) < 0)
            continue;
        for (const char *l = text; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
            const char *v = startswith(l, "Version:");
            if (!v)
                continue;
            v += strspn(v, " \t");
            size_t len = strcspn(v, " \t\r\n");
            return len > 0 && len < 32 ? xstrndup(v, len) : NULL;
        }
    }
    return NULL;
}

static void apt_gather(const rd_ctx *ctx, rd_facts *facts)
{
    rd_apt_facts *a = &facts->apt;
    int fd = rd_root_open(ctx, "/etc/apt", O_RDONLY | O_DIRECTORY);
    if (fd < 0)
        return;
    close(fd);
    a->present = true;

    read_sources(ctx, facts, "/etc/apt/sources.list", false);
    _cleanup_strv_free_ char **names = NULL;
    if (rd_root_list_dir(ctx, "/etc/apt/sources.list.d", NULL, &names) >= 0)
        for (size_t i = 0; names && names[i]; i++) {
            bool deb822 = endswith(names[i], ".sources");
            if (!deb822 && !endswith(names[i], ".list"))
                continue; /* apt ignores other names too */
            _cleanup_free_ char *path = xasprintf("/etc/apt/sources.list.d/%s", names[i]);
            read_sources(ctx, facts, path, deb822);
        }

    for (size_t i = 0; i < a->n_sources; i++) {
        const char *sb = a->sources[i].signed_by;
        if (sb && sb[0] == '/')
            scan_keyring(ctx, a, sb, false, true);
        /* only AMD's moving folders: what they serve changes (one Release
         * file each; /var/lib/apt/lists is not among the declared reads,
         * which the support bundle copies and the daemon watches, since
         * every apt update rewrites it) */
        if (a->sources[i].uri && strstr(a->sources[i].uri, "/latest"))
            a->sources[i].index_version = index_version(ctx, &a->sources[i]);
    }
    scan_keyring_dir(ctx, a, "/etc/apt/keyrings", false);
    scan_keyring_dir(ctx, a, "/usr/share/keyrings", false);
    scan_keyring(ctx, a, "/etc/apt/trusted.gpg", true, false);
    scan_keyring_dir(ctx, a, "/etc/apt/trusted.gpg.d", true);

    _cleanup_free_ char *prefs = NULL;
    if (read_preferences(ctx, facts, "/etc/apt/preferences", &prefs) >= 0)
        rd_apt_parse_preferences(prefs, "/etc/apt/preferences", ctx->knowledge.apt_pin_origin, &a->pins, &a->n_pins);
    _cleanup_strv_free_ char **pnames = NULL;
    if (rd_root_list_dir(ctx, "/etc/apt/preferences.d", NULL, &pnames) >= 0)
        for (size_t i = 0; pnames && pnames[i]; i++) {
            /* apt reads names without an extension and *.pref */
            if (strchr(pnames[i], '.') && !endswith(pnames[i], ".pref"))
                continue;
            _cleanup_free_ char *path = xasprintf("/etc/apt/preferences.d/%s", pnames[i]), *text = NULL;
            if (read_preferences(ctx, facts, path, &text) >= 0)
                rd_apt_parse_preferences(text, path, ctx->knowledge.apt_pin_origin, &a->pins, &a->n_pins);
        }
}

/* ---- assess ---- */

static char *source_text(const rd_apt_source *s)
{
    strbuf b = { 0 };
    strbuf_printf(&b, "%s:%" PRId64 ": %s %s %s", s->file, s->line, strempty(s->type), strempty(s->uri),
                  strempty(s->suite));
    for (size_t i = 0; s->components && s->components[i]; i++)
        strbuf_printf(&b, " %s", s->components[i]);
    return strbuf_steal(&b);
}

/* What an apt source names by the repository table: 1 with *m filled when
 * it is one of AMD's apt folders (on AMD's server or the mirror), else 0. */
static int source_match(const rd_assess_input *in, const rd_apt_source *s, rd_repo_match *m)
{
    const char *path = s->uri ? rd_repo_path_of(in->config ? in->config->mirror : NULL, s->uri) : NULL;
    if (!path || rd_repos_classify(in->knowledge, path, m) == 0)
        return 0;
    if (m->family != RD_REPO_APT) {
        rd_repo_match_done(m);
        return 0;
    }
    return 1;
}

/* The release line a source serves, or meant when AMD serves no such folder. */
static const rd_release *match_line(const rd_knowledge *k, const rd_repo_match *m)
{
    const rd_repo_row *row = m->row ? m->row : m->meant;
    return row ? rd_knowledge_release(k, row->release) : NULL;
}

static bool package_installed(const rd_facts *f, const char *name, const char **ret_version)
{
    for (size_t i = 0; i < f->rocm.n_packages; i++)
        if (streq(f->rocm.packages[i].name, name)) {
            *ret_version = f->rocm.packages[i].version;
            return true;
        }
    return false;
}

static void assess_repo_missing(const rd_assess_input *in, rd_findings *out)
{
    const rd_facts *f = in->facts;
    const rd_apt_facts *a = &f->apt;
    rd_finding *fd = NULL;
    for (size_t i = 0; i < a->n_sources; i++) {
        const rd_apt_source *s = &a->sources[i];
        if (!s->placeholder || !s->enabled)
            continue;
        if (!fd)
            fd = rd_finding_add(out, RD_FINDING(APT_REPO_MISSING), RD_SEV_ERROR, NULL,
                                "An apt source still holds a template placeholder: the repository does not exist "
                                "and `apt update` fails");
        _cleanup_free_ char *t = source_text(s);
        rd_finding_evidence(fd, "%s (literal %s)", t, s->placeholder);
    }
    if (fd) {
        _cleanup_free_ char *example =
            rd_repos_url(RD_AMD_REPO_BASE, rd_repos_newest(in->knowledge), RD_REPO_APT, RD_REPO_AMDGPU, NULL);
        rd_finding_remedy(fd,
                          "Replace the placeholder with the folder AMD serves for the release (e.g. %s; "
                          "`rocm-doctor list releases` shows them) or delete the file; `rocm-doctor fix` writes a "
                          "correct source.",
                          example ? example : "the driver folder of the release");
        rd_finding_set_fix(fd, "apt");
        return;
    }

    /* packages from AMD's repository with no source to update them from */
    static const struct {
        const char *package, *kind;
    } owned[] = { { "rocm-core", "rocm" }, { "amdgpu-dkms", "amdgpu" } };
    for (size_t p = 0; p < ELEMENTSOF(owned); p++) {
        const char *version;
        if (!package_installed(f, owned[p].package, &version))
            continue;
        bool found = false;
        for (size_t i = 0; i < a->n_sources && !found; i++) {
            rd_repo_match m;
            if (!a->sources[i].enabled || !source_match(in, &a->sources[i], &m))
                continue;
            found = streq(owned[p].kind, "rocm") ? m.kind == RD_REPO_ROCM
                                                 : m.kind == RD_REPO_AMDGPU || m.kind == RD_REPO_GRAPHICS;
            rd_repo_match_done(&m);
        }
        if (found)
            continue;
        if (!fd)
            fd = rd_finding_add(out, RD_FINDING(APT_REPO_MISSING), RD_SEV_WARNING, NULL,
                                "Packages from AMD's repository are installed, but apt has no source for them");
        rd_finding_evidence(fd, "/var/lib/dpkg/status: %s %s installed", owned[p].package, version);
        rd_finding_evidence(fd,
                            "no enabled source of AMD's %s repository (https://%s) in /etc/apt/sources.list or "
                            "/etc/apt/sources.list.d",
                            streq(owned[p].kind, "rocm") ? "ROCm" : "driver", strempty(in->knowledge->apt_host));
    }
    if (fd) {
        rd_finding_remedy(fd, "Add the repository back (a signed-by source in /etc/apt/sources.list.d/rocm.list "
                              "for the installed release) so updates and further ROCm packages resolve; "
                              "`rocm-doctor fix` can write it.");
        rd_finding_set_fix(fd, "apt");
    }
}

/* What assess_suite gathers over the sources for its remedy. */
typedef struct {
    rd_finding *fd;
    const char *want_first;          /* the suite the first mismatched line should name */
    const rd_release *first_release; /* the first release with packages for this OS */
    bool any_obsolete;
} suite_state;

/* The release an AMD source serves, judged for its suite, or NULL. */
static const rd_release *source_release(const rd_assess_input *in, const rd_apt_source *s, bool *ret_obsolete,
                                        bool *ret_driver)
{
    const rd_knowledge *k = in->knowledge;
    rd_repo_match m;
    if (!source_match(in, s, &m))
        return NULL;
    /* .../rocm/apt/debian (suite xenial): the layout before versioned paths */
    bool obsolete = m.kind == RD_REPO_ROCM && streq(m.version, "debian");
    /* AMD's moving folder: judged as the release it serves (apt's
     * Release file), else the newest the tables know */
    bool moving = rd_repo_match_moving(&m);
    const rd_release *served = moving && s->index_version ? rd_knowledge_release(k, s->index_version) : NULL;
    /* a release newer than the tables is not judged (tables.older-than-host) */
    const rd_release *rel = (obsolete || (moving && !served)) && k->n_releases ? &k->releases[k->n_releases - 1]
                            : served                                           ? served
                                                                               : match_line(k, &m);
    *ret_obsolete = obsolete;
    *ret_driver = m.kind != RD_REPO_ROCM;
    rd_repo_match_done(&m);
    return rel;
}

static rd_finding *suite_finding(suite_state *st, const rd_facts *f, rd_findings *out)
{
    if (!st->fd)
        st->fd = rd_finding_add(out, RD_FINDING(APT_SUITE_MISMATCH), RD_SEV_ERROR, NULL,
                                "An AMD apt source names a suite that does not fit this OS (%s %s)", f->os.id,
                                f->os.version_codename);
    return st->fd;
}

/* One source of release rel whose suite is not want (NULL: the release has
 * no packages for this OS; near: the nearest OS release it lists). */
static void suite_evidence(rd_finding *fd, const rd_facts *f, const rd_apt_source *s, const rd_release *rel,
                           const char *want, const rd_release_os *near, bool obsolete)
{
    const char *codename = f->os.version_codename;
    _cleanup_free_ char *t = source_text(s);
    if (obsolete)
        rd_finding_evidence(fd,
                            "%s: the unversioned repository of old ROCm releases (.../debian); current ones "
                            "name the release, with suite %s",
                            t, strempty(want));
    else if (want && near)
        rd_finding_evidence(fd,
                            "%s: suite %s; %s is not a release ROCm %s lists: its nearest, %s %s, uses %s "
                            "(AMD's repository has no %s suite)",
                            t, s->suite, codename, rel->line, near->id, near->version_id, want, s->suite);
    else if (want)
        rd_finding_evidence(fd, "%s: suite %s, ROCm %s on %s uses %s", t, s->suite, rel->line, codename, want);
    else
        rd_finding_evidence(fd, "%s: ROCm %s has no packages for %s %s", t, rel->line, f->os.id,
                            strempty(f->os.version_id));
}

/* One enabled AMD source against the suite its release uses on this OS. */
static void assess_source_suite(const rd_assess_input *in, const rd_apt_source *s, suite_state *st, rd_findings *out)
{
    const rd_facts *f = in->facts;
    const rd_knowledge *k = in->knowledge;
    const char *codename = f->os.version_codename;
    bool obsolete, driver;
    const rd_release *rel = source_release(in, s, &obsolete, &driver);
    if (!rel)
        return;
    const char *want = rd_knowledge_apt_suite(k, rel->latest, codename);
    /* a release without packages for an OS that a later one has (Debian
     * 13 with 6.3's sources): the first release that has them */
    const rd_release *first = !want && rd_support_lists_os(k, &f->os) ? rd_support_first_for_os(k, &f->os) : NULL;
    if (first) {
        rd_finding *fd = suite_finding(st, f, out);
        _cleanup_free_ char *t = source_text(s);
        rd_finding_evidence(fd, "%s: ROCm %s has no packages for %s %s; the first release that has is ROCm %s (%s)", t,
                            rel->line, f->os.id, strempty(f->os.version_id), first->line, first->latest);
        if (!st->first_release)
            st->first_release = first;
        return;
    }
    /* up to 5.2 only ROCm's folder has the literal suite "ubuntu"; the
     * driver's has the codename */
    if (want && driver && streq(want, "ubuntu"))
        want = codename;
    /* an OS release no line lists (Ubuntu 25.04, Debian testing): the
     * suite of the nearest one of its family */
    const rd_release_os *near = want ? NULL : rd_support_nearest_os(rel, &f->os);
    if (near && near->apt_suite)
        want = near->apt_suite;
    if (want && streq(want, s->suite) && !obsolete)
        return;
    suite_evidence(suite_finding(st, f, out), f, s, rel, want, near, obsolete);
    if (!st->want_first)
        st->want_first = want;
    st->any_obsolete |= obsolete;
}

static void suite_remedy(const suite_state *st, const rd_facts *f, const rd_knowledge *k)
{
    rd_finding *fd = st->fd;
    rd_finding_evidence(fd, "/etc/os-release: VERSION_CODENAME=%s", f->os.version_codename);
    const rd_repo_os ros = { .suite = st->want_first };
    _cleanup_free_ char *newest_url =
        rd_repos_url(RD_AMD_REPO_BASE, rd_repos_newest(k), RD_REPO_APT, RD_REPO_ROCM, &ros);
    if (st->any_obsolete && st->want_first && newest_url)
        rd_finding_remedy(fd,
                          "Replace the old line with `deb [arch=amd64 signed-by=/etc/apt/keyrings/rocm.gpg] "
                          "%s %s main` (and fix any other line named above), then `sudo apt update`.",
                          newest_url, st->want_first);
    else if (st->want_first)
        rd_finding_remedy(fd,
                          "Use the suite %s in that line (AMD's repositories use the Ubuntu codename; only "
                          "those before ROCm 5.3 used \"ubuntu\"), then `sudo apt update`.",
                          st->want_first);
    else if (st->first_release)
        rd_finding_remedy(fd,
                          "Move to ROCm %s or later, the first release with packages for %s %s (`sudo rocm-doctor fix "
                          "--only apt --release %s` writes its sources), then `sudo apt update`.",
                          st->first_release->latest, f->os.id, strempty(f->os.version_id), st->first_release->latest);
    else
        rd_finding_remedy(fd, "Point the source at a release that supports this OS (`rocm-doctor list releases` shows "
                              "the table), then `sudo apt update`.");
    rd_finding_set_fix(fd, "apt");
}

static void assess_suite(const rd_assess_input *in, rd_findings *out)
{
    const rd_facts *f = in->facts;
    if (!f->os.version_codename || !(streq_ptr(f->os.id, "ubuntu") || streq_ptr(f->os.id, "debian")))
        return;
    suite_state st = { 0 };
    for (size_t i = 0; i < f->apt.n_sources; i++) {
        const rd_apt_source *s = &f->apt.sources[i];
        if (s->enabled && !s->placeholder && s->suite)
            assess_source_suite(in, s, &st, out);
    }
    if (st.fd)
        suite_remedy(&st, f, in->knowledge);
}

static const rd_apt_keyring *keyring(const rd_apt_facts *a, const char *path)
{
    for (size_t i = 0; path && i < a->n_keyrings; i++)
        if (streq(a->keyrings[i].path, path))
            return &a->keyrings[i];
    return NULL;
}

static void assess_keys(const rd_assess_input *in, rd_findings *out)
{
    const rd_apt_facts *a = &in->facts->apt;
    const char *key_id = strempty(in->knowledge->apt_key_id);
    rd_finding *nosb = NULL, *missing = NULL;
    bool any_amd = false;
    for (size_t i = 0; i < a->n_sources; i++) {
        const rd_apt_source *s = &a->sources[i];
        if (!s->enabled || s->placeholder ||
            !(is_host_uri(s->uri, in->knowledge->apt_host) ||
              rd_url_under_mirror(in->config ? in->config->mirror : NULL, s->uri)))
            continue;
        any_amd = true;
        _cleanup_free_ char *t = source_text(s);
        if (!s->signed_by) {
            if (!nosb)
                nosb = rd_finding_add(out, RD_FINDING(APT_NO_SIGNED_BY), RD_SEV_WARNING, NULL,
                                      "AMD's apt source does not say which key signs it (no signed-by)");
            rd_finding_evidence(nosb, "%s", t);
            continue;
        }
        if (s->signed_by[0] != '/')
            continue; /* an inline key */
        const rd_apt_keyring *kr = keyring(a, s->signed_by);
        if (kr && kr->exists && kr->amd_key)
            continue;
        if (!missing)
            missing = rd_finding_add(out, RD_FINDING(APT_KEY_MISSING), RD_SEV_ERROR, NULL,
                                     "The key file AMD's apt source names does not hold AMD's key: `apt update` "
                                     "fails with NO_PUBKEY %s",
                                     key_id);
        rd_finding_evidence(missing, "%s", t);
        rd_finding_evidence(missing, "%s: %s", s->signed_by,
                            !kr || !kr->exists ? "missing"
                            : kr->error        ? kr->error
                                               : "no key "
                                                 "with that id");
    }
    _cleanup_free_ char *key_url = rd_repos_key_url(in->knowledge, RD_AMD_REPO_BASE);
    if (!key_url)
        key_url = xstrdup(strempty(in->knowledge->rpm.gpgkey));
    if (nosb) {
        rd_finding_remedy(nosb,
                          "Put the key in /etc/apt/keyrings/rocm.gpg (`wget -qO- %s "
                          "| gpg --dearmor | sudo tee /etc/apt/keyrings/rocm.gpg >/dev/null`) and add "
                          "[signed-by=/etc/apt/keyrings/rocm.gpg] to the line.",
                          key_url);
        rd_finding_set_fix(nosb, "apt");
    }
    if (missing) {
        rd_finding_remedy(missing,
                          "Download the key again into that file: `wget -qO- %s | "
                          "gpg --dearmor | sudo tee /etc/apt/keyrings/rocm.gpg >/dev/null`, then `sudo apt update`.",
                          key_url);
        rd_finding_set_fix(missing, "apt");
    }

    rd_finding *legacy = NULL;
    for (size_t i = 0; i < a->n_keyrings; i++) {
        const rd_apt_keyring *kr = &a->keyrings[i];
        if (!kr->legacy || !kr->amd_key)
            continue;
        if (!legacy)
            legacy = rd_finding_add(out, RD_FINDING(APT_KEY_DEPRECATED), any_amd ? RD_SEV_WARNING : RD_SEV_INFO, NULL,
                                    "AMD's signing key was added with apt-key, which is deprecated");
        rd_finding_evidence(legacy, "%s holds key %s", kr->path, key_id);
    }
    if (legacy) {
        rd_finding_remedy(legacy,
                          "A key in the global keyring is trusted for every repository. Keep it in "
                          "/etc/apt/keyrings/rocm.gpg, referenced with signed-by, and take it out of the "
                          "global keyring: move aside the trusted.gpg.d file (or /etc/apt/trusted.gpg) that "
                          "holds only AMD's key, which is what the fix does. From a keyring shared with "
                          "other keys, delete it with `sudo gpg --no-default-keyring --keyring FILE "
                          "--delete-keys %s` (apt-key is gone from apt 3.0).",
                          key_id);
        rd_finding_set_fix(legacy, "apt");
    }
}

static void assess_pin(const rd_assess_input *in, rd_findings *out)
{
    const rd_apt_facts *a = &in->facts->apt;
    const rd_apt_source *rocm = NULL;
    for (size_t i = 0; i < a->n_sources && !rocm; i++) {
        rd_repo_match m;
        if (!a->sources[i].enabled || a->sources[i].placeholder || !source_match(in, &a->sources[i], &m))
            continue;
        if (m.kind == RD_REPO_ROCM)
            rocm = &a->sources[i];
        rd_repo_match_done(&m);
    }
    if (!rocm)
        return;
    for (size_t i = 0; i < a->n_pins; i++)
        if (a->pins[i].priority > 500)
            return;
    rd_finding *fd = rd_finding_add(out, RD_FINDING(APT_PIN_MISSING), RD_SEV_WARNING, NULL,
                                    "AMD's repository is not pinned: the distribution's ROCm packages can mix in");
    _cleanup_free_ char *t = source_text(rocm);
    rd_finding_evidence(fd, "%s", t);
    for (size_t i = 0; i < a->n_pins; i++)
        rd_finding_evidence(fd, "%s:%" PRId64 ": Pin: %s, Pin-Priority: %" PRId64 " (not above 500)", a->pins[i].file,
                            a->pins[i].line, a->pins[i].pin, a->pins[i].priority);
    if (a->n_pins == 0)
        rd_finding_evidence(fd, "no stanza in /etc/apt/preferences(.d) pins o=%s",
                            strempty(in->knowledge->apt_pin_origin));
    rd_finding_remedy(fd,
                      "Write /etc/apt/preferences.d/rocm-pin-600 with \"Package: *\", \"Pin: release o=%s\", "
                      "\"Pin-Priority: 600\".",
                      strempty(in->knowledge->apt_pin_origin));
    rd_finding_set_fix(fd, "apt");
}

/* A source of a folder AMD does not serve (rocm/apt/6.4.0: AMD names it
 * 6.4; amdgpu/7.2/ubuntu: the driver has its own numbers from 7.0 on):
 * `apt update` fails on it. A release newer than the tables is not judged. */
static void assess_repo_path(const rd_assess_input *in, rd_findings *out)
{
    const rd_apt_facts *a = &in->facts->apt;
    const rd_knowledge *k = in->knowledge;
    rd_finding *fd = NULL;
    const char *first_meant = NULL;
    for (size_t i = 0; i < a->n_sources; i++) {
        const rd_apt_source *s = &a->sources[i];
        rd_repo_match m;
        if (!s->enabled || s->placeholder || !source_match(in, s, &m))
            continue;
        if (k->n_repos == 0) { /* no repository table (source_match loaded it): nothing is judged */
            rd_repo_match_done(&m);
            break;
        }
        bool judged = rd_repo_match_unserved(&m);
        if (judged) {
            if (!fd)
                fd = rd_finding_add(out, RD_FINDING(APT_REPO_PATH), RD_SEV_ERROR, NULL,
                                    "An apt source names a folder AMD does not serve: `apt update` fails on it "
                                    "(404 Not Found)");
            _cleanup_free_ char *t = source_text(s);
            const rd_repo_os ros = { .suite = s->suite };
            _cleanup_free_ char *want =
                m.meant ? rd_repos_url(RD_AMD_REPO_BASE, m.meant, RD_REPO_APT, m.kind, &ros) : NULL;
            if (want)
                rd_finding_evidence(fd, "%s: AMD serves the %s repository of ROCm %s at %s", t,
                                    rd_repo_kind_name(m.kind), m.meant->release, want);
            else
                rd_finding_evidence(fd, "%s: no ROCm release of the repository table (%s to %s) has this folder", t,
                                    k->repos[0].release, rd_repos_newest(k)->release);
            if (want && !first_meant)
                first_meant = m.meant->release;
        }
        rd_repo_match_done(&m);
    }
    if (!fd)
        return;
    if (first_meant)
        rd_finding_remedy(fd,
                          "Point the source at the folder named above (AMD names an X.Y.0 release's folder X.Y, and "
                          "from ROCm 7.0 the driver's folder has its own number), then `sudo apt update`; "
                          "`rocm-doctor fix` rewrites it for ROCm %s.",
                          first_meant);
    else
        rd_finding_remedy(fd, "Point the source at a release AMD serves (`rocm-doctor list releases` shows their "
                              "folders), then `sudo apt update`; `rocm-doctor fix` writes a correct source.");
    rd_finding_set_fix(fd, "apt");
}

static void apt_assess(const rd_assess_input *in, rd_findings *out)
{
    if (!in->facts->apt.present)
        return;
    assess_repo_missing(in, out);
    assess_repo_path(in, out);
    assess_suite(in, out);
    assess_keys(in, out);
    assess_pin(in, out);
}

static const char *const apt_findings[] = {
    RD_FINDING(APT_REPO_MISSING),   RD_FINDING(APT_REPO_PATH),
    RD_FINDING(APT_SUITE_MISMATCH), RD_FINDING(APT_KEY_MISSING),
    RD_FINDING(APT_KEY_DEPRECATED), RD_FINDING(APT_NO_SIGNED_BY),
    RD_FINDING(APT_PIN_MISSING),    NULL,
};

/* clang-format off */
const rd_probe rd_probe_apt = {
    .id = "apt",
    .title = "apt repositories, keys and pinning",
    .flags = 0,
    .findings = apt_findings,
    .areas = RD_STRV("apt"),
    .reads = (const rd_probe_input[]){
        { "/etc/apt/sources.list", false },
        { "/etc/apt/sources.list.d", true },
        { "/etc/apt/preferences", false },
        { "/etc/apt/preferences.d", true },
        { "/etc/apt/trusted.gpg.d", true },
        { "/etc/apt/keyrings", true },
        { "/usr/share/keyrings", true },
        { "/var/lib/dpkg/status", false },
        { NULL, false },
    },
    .gather = apt_gather,
    .assess = apt_assess,
};
/* clang-format on */
