/* SPDX-License-Identifier: MIT */
/* apt: AMD's repository for one ROCm release as a deb822 .sources file with
 * Signed-By, the key in /etc/apt/keyrings (checked against the configured
 * fingerprint first), and the 600 pin. Old one-line .list files and keys
 * that apt-key left in trusted.gpg(.d) are moved aside. Never apt-key. */
#include <fcntl.h>
#include <sys/stat.h>
#include "fixes.h"
#include "gpg.h"
#include "repo-url.h"
#include "util.h"

#define SOURCES_FILE "/etc/apt/sources.list.d/rocm.sources"
#define PIN_FILE "/etc/apt/preferences.d/rocm-pin-600"
#define KEYRING "/etc/apt/keyrings/rocm.gpg"
/* AMD's ROCm signing key ("AMD MLSE DevOps"): the long key id, used when
 * the configuration names no full fingerprint. */
#define ROCM_KEY_ID "9386B48A1A693C5C"
#define ROCM_KEY_URL_DOC "https://repo.radeon.com/rocm/rocm.gpg.key"

/* The key to install: from --key-file or apt_key_file, else downloaded
 * from apt_key_url; checked against the fingerprint, dearmored. */
static int load_key(const rd_fix_input *in, char **ret, size_t *ret_size, char **ret_source, char **ret_reason)
{
    const char *file = in->key_file ? in->key_file : in->config ? in->config->apt_key_file : NULL;
    const char *url = in->config ? in->config->apt_key_url : NULL;
    const char *want = in->config && in->config->apt_key_fingerprint ? in->config->apt_key_fingerprint : ROCM_KEY_ID;
    _cleanup_gpg_ rd_gpg g = { 0 };
    int r = rd_gpg_begin(&g, ret_reason);
    if (r < 0)
        return r;
    _cleanup_free_ char *downloaded = NULL;
    if (!file && url) {
        downloaded = xasprintf("%s/downloaded.key", g.home);
        char *argv[] = { (char *)"curl", (char *)"-fsSL", (char *)"--proto", (char *)"=https", (char *)"--max-time",
                         (char *)"60",   (char *)"-o",    downloaded,        (char *)url,      NULL };
        _cleanup_free_ char *out = NULL;
        r = rd_fix_spawn(argv, &out);
        if (r != 0) {
            *ret_reason = xasprintf("cannot download the key from %s: %s", url,
                                    r < 0         ? strerror(-r)
                                    : out && *out ? out
                                                  : "curl failed");
            return -EIO;
        }
        file = downloaded;
    }
    _cleanup_strv_free_ char **fprs = NULL;
    r = rd_gpg_fingerprints(&g, file, &fprs, ret_reason);
    if (r < 0) {
        return r;
    }
    for (size_t i = 0; fprs[i]; i++)
        if (!rd_gpg_fpr_matches(fprs[i], want)) {
            *ret_reason = xasprintf("%s holds key %s, not the expected %s: not installed", downloaded ? url : file,
                                    fprs[i], want);
            return -EPERM;
        }
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
    if (rd_fix_read(in->root_fd, path, &content, &size, NULL) < 0 ||
        rd_gpg_fingerprints_of(content, size, endswith(path, ".asc"), &fprs, &reason) < 0)
        return NULL;
    return fprs;
}

/* Whether a keyring file in the root holds AMD's key, and only it. */
static int keyring_has_rocm(const rd_fix_input *in, const char *path, const char *want, bool *ret_only)
{
    _cleanup_strv_free_ char **fprs = root_keyring_fingerprints(in, path);
    if (!fprs)
        return 0;
    size_t n = 0, match = 0;
    for (; fprs[n]; n++)
        match += rd_gpg_fpr_matches(fprs[n], want);
    *ret_only = match == n;
    return match > 0;
}

static bool valid_release(const char *s)
{
    return *s && strspn(s, "0123456789.") == strlen(s) && s[0] != '.';
}

/* The release in an enabled AMD source of kind ("rocm/apt", "amdgpu",
 * "graphics"), or NULL; *ret_any: such a source exists at all. */
static char *source_release(const rd_fix_input *in, const char *kind, bool *ret_any)
{
    const rd_apt_facts *a = &in->facts->apt;
    _cleanup_free_ char *needle = xasprintf("repo.radeon.com/%s/", kind);
    const char *mirror = in->config ? in->config->mirror : NULL;
    char *found = NULL;
    for (size_t i = 0; i < a->n_sources; i++) {
        const rd_apt_source *src = &a->sources[i];
        _cleanup_free_ char *uri = rd_repo_canonical(mirror, src->uri);
        const char *at = src->enabled && !src->placeholder && uri ? strstr(uri, needle) : NULL;
        if (!at || !streq_ptr(src->type, "deb"))
            continue;
        if (ret_any)
            *ret_any = true;
        at += strlen(needle);
        _cleanup_free_ char *v = xstrndup(at, strcspn(at, "/"));
        if (!found && valid_release(v))
            found = TAKE_PTR(v);
    }
    return found;
}

/* A release this OS has packages of: the one the host's AMD source names,
 * else the ROCm installed under /opt, so that fixing the repository does
 * not upgrade ROCm behind the person's back. */
static char *current_release(const rd_fix_input *in)
{
    const char *codename = in->facts->os.version_codename;
    _cleanup_free_ char *v = source_release(in, "rocm/apt", NULL);
    if (v && rd_knowledge_apt_suite(in->knowledge, v, codename))
        return TAKE_PTR(v);
    const char *installed = in->facts->rocm.default_version;
    if (installed && valid_release(installed) && rd_knowledge_apt_suite(in->knowledge, installed, codename))
        return xstrdup(installed);
    return NULL;
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

/* The release to install: configured, already in use, or the newest the
 * support table knows for every GPU here; and its apt suite. */
static int pick_release(const rd_fix_input *in, char **ret_current, const char **ret_release, const char **ret_suite,
                        char **ret_reason)
{
    const rd_os_facts *os = &in->facts->os;
    const char *release = in->release ? in->release : in->config ? in->config->rocm_release : NULL;
    _cleanup_free_ char *current = release ? NULL : current_release(in);
    if (current)
        release = current;
    if (!release) {
        _cleanup_strv_free_ char **gfx = NULL;
        size_t n = 0;
        for (size_t i = 0; i < in->gpus->n_gpus; i++)
            if (in->gpus->gpus[i].gfx[0]) {
                gfx = strv_push(gfx, xstrdup(in->gpus->gpus[i].gfx));
                n++;
            }
        release = rd_knowledge_pick_release(in->knowledge, os->id, os->version_id, gfx, n);
    }
    if (!release) {
        *ret_reason = xasprintf("no ROCm release is known to support every GPU here on %s %s: set rocm_release in "
                                "the [fix] section of rocm-doctor.conf",
                                os->id ? os->id : "this OS", strempty(os->version_id));
        return -ENOENT;
    }
    if (!valid_release(release)) {
        *ret_reason = xasprintf("rocm_release \"%s\" is not a release number such as 6.2.4", release);
        return -EINVAL;
    }
    if (!os->version_codename) {
        *ret_reason = xstrdup("the OS release codename is unknown (/etc/os-release has no VERSION_CODENAME)");
        return -ENOENT;
    }
    const char *suite = rd_knowledge_apt_suite(in->knowledge, release, os->version_codename);
    *ret_suite = suite ? suite : startswith(release, "5.") ? "ubuntu" : os->version_codename;
    *ret_release = release;
    *ret_current = TAKE_PTR(current);
    return 0;
}

/* The key first: without a usable key nothing else is worth writing. */
static int plan_key(const rd_fix_input *in, rd_plan *p, rd_step *s, char **ret_source, char **ret_reason)
{
    rd_snapshot *ks;
    int r = rd_plan_snapshot(p, in, KEYRING, &ks, ret_reason);
    if (r < 0)
        return r;
    if (!in->key_file && !(in->config && (in->config->apt_key_file || in->config->apt_key_url))) {
        if (ks->exists)
            return 0;
        *ret_reason = xasprintf("no signing key: pass --key-file FILE (AMD's key is published at %s; check its "
                                "fingerprint) or set apt_key_file or apt_key_url in the configuration",
                                ROCM_KEY_URL_DOC);
        return -ENOKEY;
    }
    _cleanup_free_ char *key = NULL;
    size_t key_size = 0;
    r = load_key(in, &key, &key_size, ret_source, ret_reason);
    if (r < 0)
        return r;
    r = rd_step_write(p, s, in, KEYRING, key, key_size, 0644, ret_reason);
    return r < 0 ? r : 0;
}

/* The deb822 sources (ROCm, and the graphics and driver repositories when
 * asked or already used) and the pin. */
static int plan_sources(const rd_fix_input *in, rd_plan *p, rd_step *s, const char *release, const char *suite,
                        char **ret_reason)
{
    const char *codename = in->facts->os.version_codename;
    const char *base = rd_repo_base(in->config);
    bool mirror = in->config && in->config->mirror;
    strbuf src = { 0 };
    strbuf_printf(&src,
                  RD_FIX_HEADER_LINE "# ROCm %s from AMD's repository%s.\n"
                                     "Types: deb\nURIs: %s/rocm/apt/%s\nSuites: %s\nComponents: main\n"
                                     "Architectures: amd64\nSigned-By: " KEYRING "\n",
                  release, mirror ? " (through the configured mirror)" : "", base, release, suite);
    bool had_graphics = false, had_driver = false;
    free(source_release(in, "graphics", &had_graphics));
    free(source_release(in, "amdgpu", &had_driver));
    if ((in->config && in->config->apt_graphics) || had_graphics)
        strbuf_printf(&src,
                      "\nTypes: deb\nURIs: %s/graphics/%s/ubuntu\nSuites: %s\n"
                      "Components: main\nArchitectures: amd64\nSigned-By: " KEYRING "\n",
                      base, release, codename);
    if ((in->config && in->config->apt_driver) || had_driver || rd_fix_wants_driver(in))
        strbuf_printf(&src,
                      "\nTypes: deb\nURIs: %s/amdgpu/%s/ubuntu\nSuites: %s\n"
                      "Components: main\nArchitectures: amd64\nSigned-By: " KEYRING "\n",
                      base, release, codename);
    _cleanup_free_ char *sources = strbuf_steal(&src);
    int r = rd_step_write(p, s, in, SOURCES_FILE, sources, strlen(sources), 0644, ret_reason);
    if (r < 0)
        return r;
    static const char pin[] = RD_FIX_HEADER_LINE "# AMD's packages win over the distribution's ROCm packages.\n"
                                                 "Package: *\nPin: release o=repo.radeon.com\nPin-Priority: 600\n";
    r = rd_step_write(p, s, in, PIN_FILE, pin, sizeof pin - 1, 0644, ret_reason);
    return r < 0 ? r : 0;
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
    _cleanup_close_ int dfd = rd_fix_open_dir(in->root_fd, dir, NULL);
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
        if (rd_fix_read(in->root_fd, path, &content, NULL, NULL) < 0 ||
            (!strstr(content, "repo.radeon.com") && !(mirror && strstr(content, mirror))))
            continue;
        int r = rd_step_move_aside(p, s, in, path, ret_reason);
        if (r < 0)
            return r;
    }
    _cleanup_free_ char *main_list = NULL;
    if (rd_fix_read(in->root_fd, "/etc/apt/sources.list", &main_list, NULL, NULL) >= 0 &&
        strstr(main_list, "repo.radeon.com"))
        strbuf_printf(notes, "/etc/apt/sources.list also names repo.radeon.com: remove those lines by hand");
    return 0;
}

/* Keys that apt-key added: moved aside when they hold only AMD's key. */
static int plan_old_keys(const rd_fix_input *in, rd_plan *p, rd_step *s, strbuf *notes, char **ret_reason)
{
    const char *want = in->config && in->config->apt_key_fingerprint ? in->config->apt_key_fingerprint : ROCM_KEY_ID;
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

static int apt_plan(const rd_fix_input *in, rd_plan *p, char **ret_reason)
{
    /* setup adds the repository of the host's own package manager only */
    if (in->setup && rd_os_family_facts(&in->facts->os) != RD_OS_DEBIAN)
        return 0;
    _cleanup_free_ char *current = NULL, *key_source = NULL;
    const char *release, *suite;
    int r = pick_release(in, &current, &release, &suite, ret_reason);
    if (r < 0)
        return r;
    rd_step *s = rd_plan_add_step(p, "apt", RD_EFFECT_NOW, "AMD's apt repository for ROCm %s (%s)", release, suite);
    rd_step_address_findings(s, in, "apt");
    strbuf notes = { 0 };
    if ((r = plan_key(in, p, s, &key_source, ret_reason)) < 0 ||
        (r = plan_sources(in, p, s, release, suite, ret_reason)) < 0 ||
        (r = plan_old_sources(in, p, s, &notes, ret_reason)) < 0 ||
        (r = plan_old_keys(in, p, s, &notes, ret_reason)) < 0) {
        free(notes.s);
        return r;
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
