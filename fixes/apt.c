/* SPDX-License-Identifier: MIT */
/* apt: AMD's repository for one ROCm release as a deb822 .sources file with
 * Signed-By, the key in /etc/apt/keyrings (checked against the configured
 * fingerprint first), and the 600 pin. Old one-line .list files and keys
 * that apt-key left in trusted.gpg(.d) are moved aside. Never apt-key. */
#include <fcntl.h>
#include <sys/stat.h>
#include "fixes.h"
#include "gpg.h"
#include "installer.h"
#include "keyring.h"
#include "pkg.h"
#include "redact.h"
#include "release.h"
#include "repo-url.h"
#include "util.h"

#define SOURCES_FILE "/etc/apt/sources.list.d/rocm.sources"
#define PIN_FILE "/etc/apt/preferences.d/rocm-pin-600"
#define KEYRING "/etc/apt/keyrings/rocm.gpg"
/* the mirror's login: apt reads it from here (as root; 0600) */
#define AUTH_FILE "/etc/apt/auth.conf.d/rocm-doctor.conf"
/* AMD's ROCm signing key ("AMD MLSE DevOps"): the long key id, used when
 * the configuration names no full fingerprint. */
#define ROCM_KEY_ID "9386B48A1A693C5C"

/* The fingerprint the key must have: the configured one, else the one the
 * repository table pins, else AMD's long key id. */
static const char *wanted_fingerprint(const rd_fix_input *in)
{
    if (in->config && in->config->apt_key_fingerprint)
        return in->config->apt_key_fingerprint;
    return in->knowledge->repo_fingerprint ? in->knowledge->repo_fingerprint : ROCM_KEY_ID;
}

/* The key to install: from --key-file or key_file, else downloaded over
 * HTTPS from key_url, else from where the repository table says AMD
 * publishes it (under the configured mirror when there is one); checked
 * against the fingerprint, dearmored. */
static int load_key(const rd_fix_input *in, char **ret, size_t *ret_size, char **ret_source, char **ret_reason)
{
    const char *file = in->key_file ? in->key_file : in->config ? in->config->apt_key_file : NULL;
    _cleanup_free_ char *table_url = rd_repos_key_url(in->knowledge, rd_repo_base(in->config));
    const char *url = in->config && in->config->apt_key_url ? in->config->apt_key_url : table_url;
    const char *want = wanted_fingerprint(in);
    _cleanup_gpg_ rd_gpg g = { 0 };
    int r = rd_gpg_begin(&g, ret_reason);
    if (r < 0)
        return r;
    _cleanup_free_ char *downloaded = NULL;
    if (!file && !url) {
        *ret_reason = xstrdup("no signing key: pass --key-file FILE, or set key_file or key_url in the [fix] section "
                              "of the configuration (repos.ini names no key)");
        return -ENOKEY;
    }
    if (!file) {
        r = rd_gpg_download(&g, url, &downloaded, ret_reason);
        if (r < 0)
            return r;
        file = downloaded;
    }
    _cleanup_strv_free_ char **fprs = NULL;
    r = rd_gpg_fingerprints(&g, file, &fprs, ret_reason);
    if (r < 0) {
        return r;
    }
    for (size_t i = 0; fprs[i]; i++)
        if (!rd_gpg_fpr_matches(fprs[i], want)) {
            *ret_reason =
                xasprintf("%s holds key %s, not the expected %s%s: not installed", downloaded ? url : file, fprs[i],
                          want, in->config && in->config->apt_key_fingerprint ? "" : " (AMD's, pinned in repos.ini)");
            return -EPERM;
        }
    r = rd_gpg_key_usable(&g, file, downloaded ? url : file, ret_reason);
    if (r < 0)
        return r;
    _cleanup_free_ char *raw = NULL;
    size_t raw_size = 0;
    r = read_file_at(AT_FDCWD, file, 1u << 20, &raw, &raw_size);
    if (r < 0) {
        *ret_reason = xasprintf("cannot read %s: %s", file, strerror(-r));
        return r;
    }
    if (startswith(raw, "-----BEGIN PGP")) {
        _cleanup_free_ char *bin = xasprintf("%s/key.gpg", g.home);
        char *argv[] = { (char *)"gpg",       (char *)"--homedir", g.home, (char *)"--batch", (char *)"--no-tty",
                         (char *)"--dearmor", (char *)"-o",        bin,    (char *)file,      NULL };
        _cleanup_free_ char *out = NULL;
        if (rd_fix_spawn(argv, &out) != 0) {
            *ret_reason = xasprintf("gpg --dearmor %s failed: %s", file, strempty(out));
            return -EIO;
        }
        free(raw);
        raw = NULL;
        r = read_file_at(AT_FDCWD, bin, 1u << 20, &raw, &raw_size);
        if (r < 0) {
            *ret_reason = xasprintf("cannot read the dearmored key: %s", strerror(-r));
            return r;
        }
    }
    *ret_source = xstrdup(downloaded ? url : file);
    *ret = TAKE_PTR(raw);
    *ret_size = raw_size;
    return 0;
}

/* The primary-key fingerprints in a keyring file in the root; NULL when
 * it cannot be read or holds no key. */
static char **root_keyring_fingerprints(const rd_fix_input *in, const char *path)
{
    _cleanup_free_ char *content = NULL, *reason = NULL;
    size_t size = 0;
    char **fprs = NULL;
    if (rd_fix_read(in->ctx->root_fd, path, &content, &size, NULL) < 0 ||
        rd_gpg_fingerprints_of(content, size, endswith(path, ".asc"), &fprs, &reason) < 0)
        return NULL;
    return fprs;
}

/* Whether a keyring file in the root holds AMD's key, and only it. */
static int keyring_has_rocm(const rd_fix_input *in, const char *path, const char *want, bool *ret_only)
{
    /* a keyring whose signatures never name the key's id cannot hold it:
     * no gpg run for each of the distribution's own keyrings */
    _cleanup_free_ char *content = NULL;
    size_t size = 0;
    char id[17] = "";
    size_t wl = strlen(want);
    if (wl >= 16)
        memcpy(id, want + wl - 16, 16);
    if (rd_fix_read(in->ctx->root_fd, path, &content, &size, NULL) < 0 ||
        (wl >= 16 && !strchr(want, ' ') && !rd_keyring_has_key((const unsigned char *)content, size, id)))
        return 0;
    _cleanup_strv_free_ char **fprs = root_keyring_fingerprints(in, path);
    if (!fprs)
        return 0;
    size_t n = 0, match = 0;
    for (; fprs[n]; n++)
        match += rd_gpg_fpr_matches(fprs[n], want);
    *ret_only = match == n;
    return match > 0;
}

/* Whether the host has an enabled AMD source of this kind (the driver's:
 * the plan keeps writing it). */
static bool has_source_of_kind(const rd_fix_input *in, rd_repo_kind kind)
{
    const rd_apt_facts *a = &in->facts->apt;
    const char *mirror = in->config ? in->config->mirror : NULL;
    bool found = false;
    for (size_t i = 0; i < a->n_sources && !found; i++) {
        const rd_apt_source *src = &a->sources[i];
        const char *path = src->enabled && !src->placeholder ? rd_repo_path_of(mirror, src->uri) : NULL;
        rd_repo_match m;
        if (!path || !streq_ptr(src->type, "deb") || rd_repos_classify(in->knowledge, path, &m) == 0)
            continue;
        found = m.family == RD_REPO_APT && m.kind == kind;
        rd_repo_match_done(&m);
    }
    return found;
}

/* A keyring of apt-key's that the check found AMD's key in, holding that
 * one key only (so moving it aside drops no other repository's key). */
static bool legacy_keyring_only_amd(const rd_fix_input *in, const char *path)
{
    const rd_apt_facts *a = &in->facts->apt;
    bool amd = false;
    for (size_t i = 0; i < a->n_keyrings; i++)
        amd |= streq_ptr(a->keyrings[i].path, path) && a->keyrings[i].legacy && a->keyrings[i].amd_key;
    if (!amd)
        return false;
    _cleanup_strv_free_ char **fprs = root_keyring_fingerprints(in, path);
    return fprs && fprs[0] && !fprs[1];
}

/* The apt suite of a release of the table on this OS. */
static int table_suite(const rd_fix_input *in, const rd_repo_row *row, const char **ret_suite, char **ret_reason)
{
    const rd_os_facts *os = &in->facts->os;
    const rd_knowledge *k = in->knowledge;
    if (!os->version_codename) {
        *ret_reason = xstrdup("the OS release codename is unknown (/etc/os-release has no VERSION_CODENAME)");
        return -ENOENT;
    }
    const char *suite = rd_knowledge_apt_suite(k, row->release, os->version_codename);
    if (!suite) {
        /* a release the support table does not list (Ubuntu 25.10, Debian
         * testing): the suite of the nearest one of its family */
        const rd_release *line = rd_knowledge_release(k, row->release);
        const rd_release_os *near = line ? rd_support_nearest_os(line, os) : NULL;
        suite = near ? near->apt_suite : NULL;
    }
    if (!suite)
        suite = os->version_codename;
    if (!rd_repo_serves_suite(row, suite)) {
        _cleanup_free_ char *list = strv_join(row->suites, " ");
        *ret_reason = xasprintf("ROCm %s's apt repository serves the suites %s, not %s (%s %s)", row->release,
                                strempty(list), suite, strempty(os->id), strempty(os->version_id));
        return -ENOENT;
    }
    *ret_suite = suite;
    return 0;
}

/* The key first: without a usable key nothing else is worth writing. */
static int plan_key(const rd_fix_input *in, rd_plan *p, rd_step *s, char **ret_source, char **ret_reason)
{
    rd_snapshot *ks;
    int r = rd_plan_snapshot(p, in, KEYRING, &ks, ret_reason);
    if (r < 0)
        return r;
    /* a keyring already in place is kept unless a key is named */
    if (!in->key_file && !(in->config && (in->config->apt_key_file || in->config->apt_key_url)) && ks->exists)
        return 0;
    _cleanup_free_ char *key = NULL;
    size_t key_size = 0;
    r = load_key(in, &key, &key_size, ret_source, ret_reason);
    if (r < 0)
        return r;
    r = rd_step_write(p, s, in, KEYRING, key, key_size, 0644, ret_reason);
    return r < 0 ? r : 0;
}

/* One deb822 stanza; a blank line before every stanza but the first. */
static void source_stanza(strbuf *b, bool first, const char *uri, const char *suite, const char *components)
{
    strbuf_printf(b,
                  "%sTypes: deb\nURIs: %s\nSuites: %s\nComponents: %s\nArchitectures: amd64\nSigned-By: " KEYRING "\n",
                  first ? "" : "\n", uri, suite, components ? components : "main");
}

/* The login of a mirror URL that had one: never in the sources file
 * (0644), in apt's auth.conf.d (0600), for the mirror's scheme, host, port
 * and path; apt sends it over http only when the entry names http://. */
static int plan_auth(const rd_fix_input *in, rd_plan *p, rd_step *s, char **ret_reason)
{
    const rd_config *c = in->config;
    if (!c || !c->mirror || !c->mirror_login)
        return 0;
    static const char head[] = RD_FIX_HEADER_LINE "# The login of the configured mirror (rocm-doctor.conf).\n";
    _cleanup_free_ char *content =
        xasprintf("%smachine %s login %s password %s\n", head, c->mirror, c->mirror_login, c->mirror_secret);
    _cleanup_free_ char *shown =
        xasprintf("%smachine %s login %s password " RD_MASKED "\n", head, c->mirror, c->mirror_login);
    int r = rd_step_write_secret(p, s, in, AUTH_FILE, content, shown, ret_reason);
    return r < 0 ? r : 0;
}

/* The folders to write: ROCm's, the graphics repository where the release
 * has one (7.x), and the driver's when asked for or already used; NULL
 * when the release has no apt repository. */
static char **wanted_uris(const rd_fix_input *in, const rd_repo_row *row, const char *suite)
{
    const char *base = rd_repo_base(in->config);
    const rd_repo_os os = { .suite = suite };
    char *rocm = rd_repos_url(base, row, RD_REPO_APT, RD_REPO_ROCM, &os);
    if (!rocm)
        return NULL;
    char **v = strv_push(NULL, rocm);
    bool had_driver = has_source_of_kind(in, RD_REPO_AMDGPU);
    char *graphics = rd_repos_url(base, row, RD_REPO_APT, RD_REPO_GRAPHICS, &os);
    char *driver = rd_repos_url(base, row, RD_REPO_APT, RD_REPO_AMDGPU, &os);
    /* from 7.0 ROCm's packages need the graphics repository's (libdrm):
     * AMD's instructions list it beside ROCm's, as the rpm files do */
    if (graphics)
        v = strv_push(v, TAKE_PTR(graphics));
    if (driver && ((in->config && in->config->apt_driver) || had_driver || rd_fix_wants_driver(in)))
        v = strv_push(v, TAKE_PTR(driver));
    free(graphics);
    free(driver);
    return v;
}

static bool same_folder(const char *a, const char *b)
{
    size_t na = strlen(a) - endswith(a, "/"), nb = strlen(b) - endswith(b, "/");
    return na == nb && strncmp(a, b, na) == 0;
}

/* Whether the host's own sources already are what this plan would write,
 * in whatever files and form (amdgpu-install's rocm.list and amdgpu.list,
 * extra architectures such as arch=amd64,i386): every wanted folder an
 * enabled deb source with the suite and component main, signed by a keyring
 * that holds AMD's key; no enabled source of AMD's server for another
 * folder; a pin above 500 for AMD's origin. Such a host is left alone. */
static bool already_right(const rd_fix_input *in, char *const *uris, const char *suite)
{
    const rd_apt_facts *a = &in->facts->apt;
    const char *mirror = in->config ? in->config->mirror : NULL;
    for (size_t w = 0; uris && uris[w]; w++) {
        bool found = false;
        for (size_t i = 0; i < a->n_sources && !found; i++) {
            const rd_apt_source *src = &a->sources[i];
            if (!src->enabled || !streq_ptr(src->type, "deb") || !src->uri || !same_folder(src->uri, uris[w]) ||
                !streq_ptr(src->suite, suite) || !strv_contains(src->components, "main") || !src->signed_by)
                continue;
            for (size_t k = 0; k < a->n_keyrings && !found; k++)
                found = streq(a->keyrings[k].path, src->signed_by) && a->keyrings[k].exists && a->keyrings[k].amd_key;
        }
        if (!found)
            return false;
    }
    for (size_t i = 0; i < a->n_sources; i++) {
        const rd_apt_source *src = &a->sources[i];
        if (!src->enabled || !src->uri || !rd_repo_path_of(mirror, src->uri))
            continue;
        bool wanted = false;
        for (size_t w = 0; uris && uris[w] && !wanted; w++)
            wanted = same_folder(src->uri, uris[w]);
        if (!wanted)
            return false;
    }
    for (size_t i = 0; i < a->n_pins; i++)
        if (a->pins[i].priority > 500)
            return true;
    return false;
}

/* The 600 pin of AMD's origin. */
static int plan_pin(const rd_fix_input *in, rd_plan *p, rd_step *s, char **ret_reason)
{
    static const char pin[] = RD_FIX_HEADER_LINE "# AMD's packages win over the distribution's ROCm packages.\n"
                                                 "Package: *\nPin: release o=repo.radeon.com\nPin-Priority: 600\n";
    int r = rd_step_write(p, s, in, PIN_FILE, pin, sizeof pin - 1, 0644, ret_reason);
    return r < 0 ? r : 0;
}

/* The deb822 sources, all with the suite AMD serves this OS under (Debian:
 * an Ubuntu suite), and the pin. */
static int plan_sources(const rd_fix_input *in, rd_plan *p, rd_step *s, const rd_repo_row *row, const char *suite,
                        char *const *uris, char **ret_reason)
{
    bool mirror = in->config && in->config->mirror;
    strbuf src = { 0 };
    strbuf_printf(&src, RD_FIX_HEADER_LINE "# ROCm %s from AMD's repository%s.\n", row->release,
                  mirror ? " (through the configured mirror)" : "");
    for (size_t i = 0; uris[i]; i++)
        source_stanza(&src, i == 0, uris[i], suite, NULL);
    _cleanup_free_ char *sources = strbuf_steal(&src);
    int r = rd_step_write(p, s, in, SOURCES_FILE, sources, strlen(sources), 0644, ret_reason);
    if (r < 0)
        return r;
    return plan_pin(in, p, s, ret_reason);
}

static bool has_suffix(const char *name, const void *suffixes)
{
    const char *const *sv = suffixes;
    return name[0] != '.' && (endswith(name, sv[0]) || endswith(name, sv[1]));
}

/* The names in dir (of the root) ending in one of two suffixes. */
static char **list_names(const rd_fix_input *in, const char *dir, const char *suffix1, const char *suffix2)
{
    const char *const suffixes[] = { suffix1, suffix2 };
    _cleanup_close_ int dfd = rd_fix_open_dir(in->ctx->root_fd, dir, NULL);
    return dfd >= 0 ? dir_names(dfd, has_suffix, suffixes, NULL) : NULL;
}

/* Old one-line entries and other files that point at repo.radeon.com. */
static int plan_old_sources(const rd_fix_input *in, rd_plan *p, rd_step *s, strbuf *notes, char **ret_reason)
{
    _cleanup_strv_free_ char **names = list_names(in, "/etc/apt/sources.list.d", ".list", ".sources");
    for (size_t i = 0; names && names[i]; i++) {
        _cleanup_free_ char *path = xasprintf("/etc/apt/sources.list.d/%s", names[i]);
        if (streq(path, SOURCES_FILE))
            continue;
        _cleanup_free_ char *content = NULL;
        const char *mirror = in->config ? in->config->mirror : NULL;
        if (rd_fix_read(in->ctx->root_fd, path, &content, NULL, NULL) < 0 ||
            (!strstr(content, "repo.radeon.com") && !(mirror && strstr(content, mirror))))
            continue;
        int r = rd_step_move_aside(p, s, in, path, ret_reason);
        if (r < 0)
            return r;
    }
    _cleanup_free_ char *main_list = NULL;
    if (rd_fix_read(in->ctx->root_fd, "/etc/apt/sources.list", &main_list, NULL, NULL) >= 0 &&
        strstr(main_list, "repo.radeon.com"))
        strbuf_printf(notes, "/etc/apt/sources.list also names repo.radeon.com: remove those lines by hand");
    return 0;
}

/* Keys that apt-key added: moved aside when they hold only AMD's key. */
static int plan_old_keys(const rd_fix_input *in, rd_plan *p, rd_step *s, strbuf *notes, char **ret_reason)
{
    const char *want = wanted_fingerprint(in);
    _cleanup_strv_free_ char **names = list_names(in, "/etc/apt/trusted.gpg.d", ".gpg", ".asc");
    int r = 0;
    for (size_t i = 0; names && names[i] && r >= 0; i++) {
        _cleanup_free_ char *path = xasprintf("/etc/apt/trusted.gpg.d/%s", names[i]);
        bool only = false;
        if (!keyring_has_rocm(in, path, want, &only) && !legacy_keyring_only_amd(in, path))
            continue;
        if (only || legacy_keyring_only_amd(in, path))
            r = rd_step_move_aside(p, s, in, path, ret_reason);
        else
            strbuf_printf(notes, "%s%s holds AMD's key among others: left alone", notes->len ? "; " : "", path);
    }
    bool only = false;
    if (r >= 0 && keyring_has_rocm(in, "/etc/apt/trusted.gpg", want, &only)) {
        if (only)
            r = rd_step_move_aside(p, s, in, "/etc/apt/trusted.gpg", ret_reason);
        else
            strbuf_printf(notes,
                          "%s/etc/apt/trusted.gpg (apt-key's keyring) holds AMD's key among others: "
                          "left alone; apt trusts it for every repository",
                          notes->len ? "; " : "");
    }
    return r < 0 ? r : 0;
}

/* ---- sources that are partly right: edited where they are ---- */

/* One AMD line of a one-line .list file: where its folder and suite are in
 * the line, and what they become. */
typedef struct {
    const rd_apt_source *src;
    rd_repo_kind kind;
    char *want; /* the folder it should name */
} amd_line;

/* The byte offsets of the URI and the suite in a one-line entry
 * ("deb [opts] URI SUITE COMPONENTS"): false when it has no such shape. */
static bool line_fields(const char *line, size_t *uri_at, size_t *suite_end)
{
    size_t i = strspn(line, " \t");
    i += strcspn(line + i, " \t"); /* the type */
    i += strspn(line + i, " \t");
    if (line[i] == '[') {
        const char *close = strchr(line + i, ']');
        if (!close)
            return false;
        i = (size_t)(close - line) + 1;
        i += strspn(line + i, " \t");
    }
    *uri_at = i;
    i += strcspn(line + i, " \t");
    i += strspn(line + i, " \t");
    size_t suite_len = strcspn(line + i, " \t#");
    if (!suite_len)
        return false;
    *suite_end = i + suite_len;
    return true;
}

/* The line with its URI and suite replaced (a new string); NULL when the
 * line has no such shape. */
static char *line_with(const char *line, const char *uri, const char *suite)
{
    size_t at, end;
    if (!line_fields(line, &at, &end))
        return NULL;
    return xasprintf("%.*s%s %s%s", (int)at, line, uri, suite, line + end);
}

static bool signed_by_amd(const rd_fix_input *in, const char *path)
{
    const rd_apt_facts *a = &in->facts->apt;
    for (size_t k = 0; path && k < a->n_keyrings; k++)
        if (streq(a->keyrings[k].path, path) && a->keyrings[k].exists && a->keyrings[k].amd_key)
            return true;
    return false;
}

/* The host's enabled AMD sources, when every one of them can be set right
 * in place: a one-line entry of a .list file, of a kind this plan wants,
 * component main, signed by a keyring that holds AMD's key. NULL (and *n
 * 0) when there are none or one cannot. */
static amd_line *amd_lines(const rd_fix_input *in, const rd_repo_row *row, const char *suite, char *const *uris,
                           size_t *ret_n)
{
    const rd_apt_facts *a = &in->facts->apt;
    const char *mirror = in->config ? in->config->mirror : NULL;
    const rd_repo_os os = { .suite = suite };
    amd_line *v = NULL;
    size_t n = 0;
    bool ok = true;
    for (size_t i = 0; i < a->n_sources && ok; i++) {
        const rd_apt_source *src = &a->sources[i];
        const char *path = src->enabled && src->uri ? rd_repo_path_of(mirror, src->uri) : NULL;
        if (!path)
            continue;
        rd_repo_match m;
        ok = streq_ptr(src->format, "one-line") && endswith(src->file, ".list") && !src->placeholder &&
             strv_contains(src->components, "main") && signed_by_amd(in, src->signed_by) &&
             rd_repos_classify(in->knowledge, path, &m) > 0;
        if (!ok)
            break;
        char *want =
            m.family == RD_REPO_APT ? rd_repos_url(rd_repo_base(in->config), row, RD_REPO_APT, m.kind, &os) : NULL;
        bool wanted = false;
        for (size_t w = 0; want && uris[w] && !wanted; w++)
            wanted = same_folder(want, uris[w]);
        ok = wanted;
        if (ok) {
            v = xrealloc(v, (n + 1) * sizeof *v);
            v[n++] = (amd_line){ src, m.kind, TAKE_PTR(want) };
        }
        free(want);
        rd_repo_match_done(&m);
    }
    if (!ok) {
        for (size_t i = 0; i < n; i++)
            free(v[i].want);
        free(v);
        v = NULL, n = 0;
    }
    *ret_n = n;
    return v;
}

/* The lines of one file with its AMD lines set right and, in the file of
 * ROCm's line, the wanted folders no line names added after it. */
static char *edited_file(const char *content, const amd_line *v, size_t n, const char *file, char *const *uris,
                         const char *suite)
{
    strbuf b = { 0 };
    int64_t number = 0;
    bool added = false;
    for (const char *at = content; *at;) {
        size_t len = strcspn(at, "\n");
        _cleanup_free_ char *orig = xstrndup(at, len), *line = xstrdup(orig);
        at += len + (at[len] == '\n');
        number++;
        bool rocm = false;
        for (size_t i = 0; i < n; i++) {
            if (!streq(v[i].src->file, file) || v[i].src->line != number)
                continue;
            char *edited = line_with(orig, v[i].want, suite);
            if (edited)
                free(line), line = edited;
            rocm |= v[i].kind == RD_REPO_ROCM && streq_ptr(v[i].src->type, "deb");
        }
        strbuf_printf(&b, "%s\n", line);
        for (size_t w = 0; rocm && !added && uris[w]; w++) {
            bool named = false;
            for (size_t i = 0; i < n && !named; i++)
                named = same_folder(v[i].want, uris[w]) && streq_ptr(v[i].src->type, "deb");
            _cleanup_free_ char *line_added = named ? NULL : line_with(orig, uris[w], suite);
            if (line_added)
                strbuf_printf(&b, "%s\n", line_added);
        }
        added |= rocm;
    }
    strbuf_append(&b, "");
    if (b.len && !endswith(content, "\n"))
        b.s[--b.len] = '\0'; /* as the file ended */
    return strbuf_steal(&b);
}

/* Sources that name AMD's server in .list files, each of which can be set
 * right where it is: only the lines that are wrong change, in their own
 * file (amdgpu-install's rocm.list and amdgpu.list keep their form and
 * architectures); a missing pin is added. *ret_done: planned so. */
static int plan_in_place(const rd_fix_input *in, rd_plan *p, rd_step *s, const rd_repo_row *row, const char *suite,
                         char *const *uris, bool *ret_done, char **ret_reason)
{
    *ret_done = false;
    size_t n = 0;
    amd_line *v = amd_lines(in, row, suite, uris, &n);
    bool has_rocm = false;
    for (size_t i = 0; i < n; i++)
        has_rocm |= v[i].kind == RD_REPO_ROCM && streq_ptr(v[i].src->type, "deb");
    int r = 0;
    for (size_t i = 0; has_rocm && i < n && r >= 0; i++) {
        bool first = true;
        for (size_t j = 0; j < i; j++)
            first &= !streq(v[j].src->file, v[i].src->file);
        _cleanup_free_ char *content = NULL, *edited = NULL;
        if (!first || rd_fix_read(in->ctx->root_fd, v[i].src->file, &content, NULL, NULL) < 0)
            continue;
        edited = edited_file(content, v, n, v[i].src->file, uris, suite);
        if (!streq(edited, content))
            r = rd_step_write(p, s, in, v[i].src->file, edited, strlen(edited), 0644, ret_reason);
    }
    bool pinned = false;
    for (size_t i = 0; i < in->facts->apt.n_pins; i++)
        pinned |= in->facts->apt.pins[i].priority > 500;
    if (has_rocm && r >= 0 && !pinned)
        r = plan_pin(in, p, s, ret_reason);
    for (size_t i = 0; i < n; i++)
        free(v[i].want);
    free(v);
    *ret_done = has_rocm && r >= 0;
    return r < 0 ? r : 0;
}

/* ---- a release outside the tables: the host's own folders kept ---- */

/* The host's enabled AMD sources as they are (folder, suite, components),
 * each once. */
typedef struct {
    char *uri, *suite, *components;
    bool signed_ok;
} kept_source;

static void kept_free(kept_source *v, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        free(v[i].uri);
        free(v[i].suite);
        free(v[i].components);
    }
    free(v);
}

static size_t kept_sources(const rd_fix_input *in, kept_source **ret)
{
    const rd_apt_facts *a = &in->facts->apt;
    const char *mirror = in->config ? in->config->mirror : NULL;
    kept_source *v = NULL;
    size_t n = 0;
    for (size_t i = 0; i < a->n_sources; i++) {
        const rd_apt_source *src = &a->sources[i];
        if (!src->enabled || src->placeholder || !streq_ptr(src->type, "deb") || !src->uri || !src->suite ||
            !rd_repo_path_of(mirror, src->uri))
            continue;
        bool seen = false;
        for (size_t j = 0; j < n && !seen; j++)
            seen = same_folder(v[j].uri, src->uri) && streq(v[j].suite, src->suite);
        if (seen)
            continue;
        _cleanup_free_ char *comps = strv_join(src->components, " ");
        *ARRAY_APPEND(v, n) = (kept_source){
            .uri = xstrdup(src->uri),
            .suite = xstrdup(src->suite),
            .components = xstrdup(comps && *comps ? comps : "main"),
            .signed_ok = signed_by_amd(in, src->signed_by),
        };
    }
    *ret = v;
    return n;
}

/* The key, Signed-By and the pin for the folders the host has: nothing
 * writes another release's folders. */
/* Writes the given folders as rocm.sources with Signed-By, the key and the
 * pin, and moves the old files aside; nothing when every one is already
 * signed by AMD's key and pinned. */
static int write_folders(const rd_fix_input *in, rd_plan *p, const kept_source *v, size_t n, const char *release,
                         const char *title, const char *header, const char *why, bool moving, char **ret_reason)
{
    bool all_signed = true, pinned = false;
    for (size_t i = 0; i < n; i++)
        all_signed &= v[i].signed_ok;
    for (size_t i = 0; i < in->facts->apt.n_pins; i++)
        pinned |= in->facts->apt.pins[i].priority > 500;
    rd_step *s = rd_plan_add_step(p, "apt", RD_EFFECT_NOW, "AMD's apt repository for ROCm %s (%s)", release, title);
    rd_step_address_findings(s, in, "apt");
    _cleanup_free_ char *key_source = NULL;
    strbuf notes = { 0 };
    int r = plan_auth(in, p, s, ret_reason);
    if (r >= 0 && moving) {
        /* no fix writes a moving folder: the key and the pin only */
        if ((r = plan_key(in, p, s, &key_source, ret_reason)) >= 0 && !pinned)
            r = plan_pin(in, p, s, ret_reason);
    } else if (r >= 0 && !(all_signed && pinned)) {
        strbuf src = { 0 };
        strbuf_printf(&src, RD_FIX_HEADER_LINE "# ROCm %s from AMD's repository: %s.\n", release, header);
        for (size_t i = 0; i < n; i++)
            source_stanza(&src, i == 0, v[i].uri, v[i].suite, v[i].components);
        _cleanup_free_ char *sources = strbuf_steal(&src);
        if ((r = plan_key(in, p, s, &key_source, ret_reason)) >= 0 &&
            (r = rd_step_write(p, s, in, SOURCES_FILE, sources, strlen(sources), 0644, ret_reason)) >= 0 &&
            (r = plan_pin(in, p, s, ret_reason)) >= 0)
            r = plan_old_sources(in, p, s, &notes, ret_reason);
    }
    if (r >= 0)
        r = plan_old_keys(in, p, s, &notes, ret_reason);
    if (r < 0) {
        free(notes.s);
        return r;
    }
    if (rd_step_changes(s))
        s->note =
            xasprintf("%s. Run `apt-get update`%s", why, key_source ? "" : "; the key already in " KEYRING " is kept");
    rd_plan_drop_empty_step(p);
    if (notes.len)
        *ret_reason = strbuf_steal(&notes);
    return 0;
}

/* The key, Signed-By and the pin for the folders the host has: nothing
 * writes another release's folders. */
static int plan_keep(const rd_fix_input *in, rd_plan *p, const rd_release_choice *c, char **ret_reason)
{
    kept_source *v = NULL;
    size_t n = kept_sources(in, &v);
    _cleanup_free_ char *why = rd_release_outside_text(in->knowledge, c);
    if (n == 0) {
        kept_free(v, n);
        if (c->row)
            *ret_reason = xasprintf("ROCm %s's apt folders (suite \"ubuntu\" for ROCm's, codenames for the driver's) "
                                    "are kept where a host has them; rocm-doctor writes none for releases before 5.3",
                                    c->release);
        else if (c->origin == RD_RELEASE_ASKED || c->origin == RD_RELEASE_CONFIGURED)
            *ret_reason = rd_repos_unknown_release(in->knowledge, c->release);
        else
            *ret_reason = xasprintf("%s; this host has no AMD source to keep, and no release is written in its "
                                    "place: pass --release (or set rocm_release) to choose one",
                                    why);
        return -ENOENT;
    }
    if (!why)
        why = xasprintf("ROCm %s (%s): the host's folders are kept as they are", c->release, strempty(c->evidence));
    int r = write_folders(in, p, v, n, c->release, "the host's folders kept", "the folders this host had", why,
                          c->moving, ret_reason);
    kept_free(v, n);
    return r;
}

/* How much a line of apt's output says about a folder's signature: 2 when
 * it names the key (apt 2's "GPG error: ... NO_PUBKEY", apt 3's "OpenPGP
 * signature verification failed: ... Missing key"), 1 when it only says the
 * folder is not signed, else 0. */
static int signature_line_rank(const char *line)
{
    if (strstr(line, "GPG error") || strstr(line, "NO_PUBKEY") ||
        strstr(line, "OpenPGP signature verification failed") || strstr(line, "Missing key"))
        return 2;
    return strstr(line, "not signed") ? 1 : 0;
}

/* The line of apt's output that names one of the folders v (the one that
 * says most about its signature, else the first), shortened at a word, or
 * NULL. */
static char *line_naming(const char *out, const kept_source *v, size_t n)
{
    _cleanup_free_ char *best = NULL;
    int best_rank = -1;
    for (const char *l = out; l && *l; l += strcspn(l, "\n"), l += *l == '\n') {
        _cleanup_free_ char *line = xstrndup(l, strcspn(l, "\n"));
        bool names = false;
        for (size_t i = 0; i < n && !names; i++)
            names = strstr(line, v[i].uri) != NULL;
        int rank = names ? signature_line_rank(line) : -1;
        if (rank > best_rank) {
            free(best);
            best = xstrdup(strstrip(line));
            best_rank = rank;
        }
    }
    return best ? str_cut_words(best, 400) : NULL;
}

/* Folders read from an installer count only once apt fetches their signed
 * indexes under AMD's pinned key: apt-get update with only the root's own
 * configuration and these folders' files laid over it. A failure that
 * names one of them refuses them; one elsewhere (another source, no
 * network under --root) is left to the packages step's dry run. */
static int verify_installer_folders(const rd_fix_input *in, const rd_plan *p, const kept_source *v, size_t n,
                                    const char *release, const char *installer_url, char **ret_reason)
{
    _cleanup_free_ char *ov = NULL, *err = NULL;
    int r = rd_plan_overlay(p, in, RD_PM_APT, &ov, ret_reason);
    if (r < 0)
        return r;
    rd_pkg_changes c = { 0 };
    r = rd_pkg_dry_run(RD_PM_APT, in->ctx->root, ov, NULL, NULL, &c, &err);
    rd_overlay_remove(ov);
    rd_pkg_changes_free(&c);
    if (r >= 0)
        return 0;
    _cleanup_free_ char *line = line_naming(strempty(err), v, n);
    if (!line)
        return 0;
    *ret_reason = xasprintf("ROCm %s's folders, read from AMD's installer package %s, are not planned: apt cannot "
                            "fetch their indexes signed by AMD's key (fingerprint %s): %s",
                            release, installer_url, wanted_fingerprint(in), line);
    return -EBADMSG;
}

/* A release newer than the tables, asked for: the folders AMD's own
 * installer package of that release names for this OS. */
static int plan_installer(const rd_fix_input *in, rd_plan *p, const rd_release_choice *c, char **ret_reason)
{
    _cleanup_installer_info_ rd_installer_info info = { 0 };
    int r = rd_installer_read(in->config, in->knowledge, &in->facts->os, c->release, &info, ret_reason);
    if (r < 0)
        return r;
    bool driver =
        (in->config && in->config->apt_driver) || has_source_of_kind(in, RD_REPO_AMDGPU) || rd_fix_wants_driver(in);
    kept_source *v = NULL;
    size_t n = 0;
    for (size_t i = 0; i < info.n_repos; i++) {
        const rd_installer_repo *ir = &info.repos[i];
        if (ir->family != RD_REPO_APT || !ir->suite || (ir->kind == RD_REPO_AMDGPU && !driver))
            continue;
        _cleanup_free_ char *comps = strv_join(ir->components, " ");
        *ARRAY_APPEND(v, n) = (kept_source){
            .uri = xstrdup(ir->url),
            .suite = xstrdup(ir->suite),
            .components = xstrdup(comps && *comps ? comps : "main"),
        };
    }
    if (n == 0) {
        free(v);
        *ret_reason = xasprintf("%s names no apt folder of ROCm %s", info.installer_url, c->release);
        return -EBADMSG;
    }
    const rd_repo_row *newest = rd_repos_newest(in->knowledge);
    _cleanup_free_ char *why = xasprintf(
        "ROCm %s is newer than rocm-doctor's tables (repos.ini of %s): its folders were read from AMD's installer "
        "package %s, and count only once apt fetches their indexes signed by AMD's key; what the tables cannot "
        "know of it (its gfx targets, kernel range) is taken from ROCm %s",
        c->release, strempty(in->knowledge->repos_info.date), info.installer_url, newest ? newest->release : "-");
    _cleanup_free_ char *header = xasprintf("the folders its installer package names (%s)", info.installer_url);
    {
        /* the same files planned alone first: apt must take them */
        _cleanup_(rd_plan_free) rd_plan trial = { .root = xstrdup(p->root) };
        _cleanup_free_ char *notes = NULL;
        r = write_folders(in, &trial, v, n, c->release, "from AMD's installer package", header, why, false, &notes);
        if (r >= 0)
            r = verify_installer_folders(in, &trial, v, n, c->release, info.installer_url, ret_reason);
        else
            *ret_reason = TAKE_PTR(notes);
        if (r < 0) {
            kept_free(v, n);
            return r;
        }
    }
    r = write_folders(in, p, v, n, c->release, "from AMD's installer package", header, why, false, ret_reason);
    kept_free(v, n);
    return r;
}

static int apt_plan(const rd_fix_input *in, rd_plan *p, char **ret_reason)
{
    /* setup adds the repository of the host's own package manager only */
    if (in->setup && rd_os_family_facts(&in->facts->os) != RD_OS_DEBIAN)
        return 0;
    _cleanup_(rd_release_choice_done) rd_release_choice choice = { 0 };
    int r = rd_fix_release(in, RD_REPO_APT, &choice, ret_reason);
    if (r < 0)
        return r;
    /* 5.0 to 5.2: the ROCm folder's suite is "ubuntu", the driver's the
     * codename; such hosts keep what they have */
    const rd_release *line = choice.row ? rd_knowledge_release(in->knowledge, choice.row->release) : NULL;
    if (!choice.row && choice.after_tables &&
        (choice.origin == RD_RELEASE_ASKED || choice.origin == RD_RELEASE_CONFIGURED))
        return plan_installer(in, p, &choice, ret_reason);
    if (!choice.row || (line && line->apt_suite_ubuntu))
        return plan_keep(in, p, &choice, ret_reason);
    _cleanup_free_ char *key_source = NULL;
    const rd_repo_row *row = choice.row;
    const char *suite = NULL;
    if ((r = table_suite(in, row, &suite, ret_reason)) < 0)
        return r;
    _cleanup_strv_free_ char **uris = wanted_uris(in, row, suite);
    if (!uris) {
        *ret_reason = xasprintf("repos.ini has no apt repository of ROCm %s", row->release);
        return -ENOENT;
    }
    /* a host set up right (by amdgpu-install, by hand) keeps its files; only
     * a key apt-key left behind is still taken out */
    bool right = already_right(in, uris, suite);
    rd_step *s =
        rd_plan_add_step(p, "apt", RD_EFFECT_NOW, "AMD's apt repository for ROCm %s (%s)", row->release, suite);
    rd_step_address_findings(s, in, "apt");
    /* the mirror's login, whatever form the sources have */
    if ((r = plan_auth(in, p, s, ret_reason)) < 0)
        return r;
    strbuf notes = { 0 };
    if (right && (r = plan_old_keys(in, p, s, &notes, ret_reason)) < 0) {
        free(notes.s);
        return r;
    }
    bool in_place = false;
    if (!right && (r = plan_in_place(in, p, s, row, suite, uris, &in_place, ret_reason)) < 0) {
        free(notes.s);
        return r;
    }
    if (in_place && (r = plan_old_keys(in, p, s, &notes, ret_reason)) < 0) {
        free(notes.s);
        return r;
    }
    if (!right && !in_place &&
        ((r = plan_key(in, p, s, &key_source, ret_reason)) < 0 ||
         (r = plan_sources(in, p, s, row, suite, uris, ret_reason)) < 0 ||
         (r = plan_old_sources(in, p, s, &notes, ret_reason)) < 0 ||
         (r = plan_old_keys(in, p, s, &notes, ret_reason)) < 0)) {
        free(notes.s);
        return r;
    }
    if (right && !rd_step_changes(s) && !in->setup && rd_fix_has_finding(in, RD_FINDING(ROCM_NOT_INSTALLED))) {
        free(notes.s);
        *ret_reason = xasprintf("AMD's apt repository for ROCm %s (%s) is already set up here; `rocm-doctor setup` "
                                "installs ROCm from it",
                                row->release, suite);
        rd_plan_drop_empty_step(p);
        return 0;
    }
    if (rd_step_changes(s) && !in->setup)
        s->note = xasprintf("run `apt-get update`, then install what you need (for example `apt-get install "
                            "rocm`)%s",
                            key_source ? "" : "; the key already in " KEYRING " is kept");
    rd_plan_drop_empty_step(p);
    if (notes.len)
        *ret_reason = strbuf_steal(&notes);
    return 0;
}

const rd_fix rd_fix_apt = {
    .id = "apt",
    .title = "AMD's apt repository",
    .on_request = true,
    .setup = true,
    .plan = apt_plan,
};
