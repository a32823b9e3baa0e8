/* SPDX-License-Identifier: MIT */
/* dnf and zypper: AMD's repositories for one ROCm release as whole .repo
 * files (rocm.repo, amdgpu.repo) with gpgcheck=1 and the key in
 * /etc/pki/rpm-gpg, the key checked against the configured fingerprint with
 * gpg first and imported with `rpm --import` (undone with `rpm -e
 * gpg-pubkey-XXXXXXXX`; under --root the engine runs commands at the tree's
 * first boot). CRB is enabled (`dnf config-manager --set-enabled`, undo
 * recorded) only when allowed_fixes lists "crb". Other files naming repo.radeon.com are moved
 * aside. Enabling CRB/EPEL and installing kernel-devel are the admin's:
 * planned as notes with the command, never run. */
#include <fcntl.h>
#include <fnmatch.h>
#include "fixes.h"
#include "distro.h"
#include "gpg.h"
#include "installer.h"
#include "repo-url.h"
#include "redact.h"
#include "release.h"
#include "util.h"

#define KEY_FILE RD_RPM_KEY_FILE

typedef struct {
    const char *id;  /* "dnf", "zypper" */
    const char *dir; /* /etc/yum.repos.d, /etc/zypp/repos.d */
    bool zypper;
} manager;

static const manager dnf = { "dnf", "/etc/yum.repos.d", false };
static const manager zypper = { "zypper", "/etc/zypp/repos.d", true };

/* The fingerprint of the one key in a key file; a file of several keys, or
 * a key revoked or expired, is refused. shown: the file as the reason
 * names it. */
static int key_fingerprint(const char *file, const char *shown, char **ret_fpr, char **ret_reason)
{
    _cleanup_gpg_ rd_gpg g = { 0 };
    int r = rd_gpg_begin(&g, ret_reason);
    if (r < 0)
        return r;
    _cleanup_strv_free_ char **fprs = NULL;
    r = rd_gpg_fingerprints(&g, file, &fprs, ret_reason);
    if (r < 0)
        return r;
    if (strv_length(fprs) != 1) {
        *ret_reason = xasprintf("%s holds %zu keys; one key, AMD's, is expected", file, strv_length(fprs));
        return -EINVAL;
    }
    if ((r = rd_gpg_key_usable(&g, file, shown, ret_reason)) < 0)
        return r;
    *ret_fpr = TAKE_PTR(fprs[0]);
    return 0;
}

static bool key_imported(const rd_facts *f, const char *fpr)
{
    size_t n = strlen(fpr);
    _cleanup_free_ char *lo = xstrdup(fpr + (n >= 8 ? n - 8 : 0));
    for (char *p = lo; *p; p++)
        *p = (char)(*p >= 'A' && *p <= 'Z' ? *p + 32 : *p);
    for (size_t i = 0; i < f->rpm.n_packages; i++)
        if (streq(f->rpm.packages[i].name, "gpg-pubkey") && startswith(f->rpm.packages[i].version, lo))
            return true;
    return false;
}

/* zypper's credentials for the mirror (a repository's baseurl names it) */
#define ZYPP_CREDENTIALS_NAME "rocm-doctor"
#define ZYPP_CREDENTIALS "/etc/zypp/credentials.d/" ZYPP_CREDENTIALS_NAME

/* One repository; with the mirror's login (secret: its password, or
 * RD_MASKED for what a plan shows) dnf's username= and password=, zypper's
 * ?credentials= naming its credentials file. */
static char *section(const char *id, const char *name, const char *url, bool zypp, const rd_config *c,
                     const char *secret)
{
    bool login = c && c->mirror_login;
    _cleanup_free_ char *dnf_login =
        login && !zypp ? xasprintf("username=%s\npassword=%s\n", c->mirror_login, secret) : xstrdup("");
    return xasprintf("[%s]\nname=%s\nbaseurl=%s%s\nenabled=1\n%sgpgcheck=1\ngpgkey=file://" KEY_FILE "\n%s", id, name,
                     url, login && zypp ? "?credentials=" ZYPP_CREDENTIALS_NAME : "",
                     zypp ? "autorefresh=1\n" : "priority=50\n", dnf_login);
}

/* The text of rocm.repo and amdgpu.repo for this release and OS: the
 * folders of the repository table, for the tree AMD serves this OS under. */
static int repo_texts(const rd_fix_input *in, const manager *m, const rd_repo_row *row, const char *secret,
                      char **ret_rocm, char **ret_amdgpu, char **ret_reason)
{
    const rd_os_facts *os = &in->facts->os;
    rd_repo_family fam = m->zypper ? RD_REPO_SLES : RD_REPO_EL;
    /* the OS version to look for: the host's, or on a release the support
     * table does not list, the nearest one of its family */
    const rd_release *line = rd_knowledge_release(in->knowledge, row->release);
    bool nearest = false;
    const rd_release_os *o = line ? rd_support_os_for(line, os, &nearest) : NULL;
    const char *v = o && nearest ? o->tree : os->version_id;
    const char *tree = rd_repo_pick_tree(row, fam, v);
    _cleanup_free_ char *major = xstrndup(strempty(tree ? tree : v), strcspn(strempty(tree ? tree : v), "."));
    const rd_repo_os ros = { .major = major, .os = tree };
    const char *base = rd_repo_base(in->config);
    _cleanup_free_ char *u_rocm = rd_repos_url(base, row, fam, RD_REPO_ROCM, &ros);
    _cleanup_free_ char *u_gpu = rd_repos_url(base, row, fam, RD_REPO_AMDGPU, &ros);
    _cleanup_free_ char *u_gfx = rd_repos_url(base, row, fam, RD_REPO_GRAPHICS, &ros);
    if (!u_rocm || !u_gpu) {
        _cleanup_free_ char *trees = strv_join(fam == RD_REPO_EL ? row->el_trees : row->sles_trees, " ");
        *ret_reason = xasprintf("ROCm %s has no %s repositories for %s %s (repos.ini: %s trees %s)", row->release,
                                m->id, strempty(os->id), strempty(os->version_id), rd_repo_family_name(fam),
                                trees && *trees ? trees : "none");
        return -ENOENT;
    }
    const char *version = row->release;
    strbuf b = { 0 };
    strbuf_printf(&b, RD_FIX_HEADER_LINE "# ROCm %s from AMD's repository.\n", version);
    bool seven = u_gfx != NULL;
    _cleanup_free_ char *id = seven && !m->zypper ? xstrdup("rocm") : xasprintf("ROCm-%s", version);
    _cleanup_free_ char *name = xasprintf("ROCm %s repository", version);
    _cleanup_free_ char *s1 = section(id, name, u_rocm, m->zypper, in->config, secret);
    strbuf_append(&b, s1);
    if (u_gfx) {
        _cleanup_free_ char *n = xasprintf("AMD Graphics %s repository", version);
        _cleanup_free_ char *s2 = section("amdgraphics", n, u_gfx, m->zypper, in->config, secret);
        strbuf_printf(&b, "\n%s", s2);
    }
    *ret_rocm = strbuf_steal(&b);
    _cleanup_free_ char *s3 = section("amdgpu", "amdgpu", u_gpu, m->zypper, in->config, secret);
    *ret_amdgpu = xasprintf(RD_FIX_HEADER_LINE "# The amdgpu driver (amdgpu-dkms) for ROCm %s.\n%s", version, s3);
    return 0;
}

static int plan_key(const rd_fix_input *in, rd_plan *p, rd_step *s, char **ret_reason)
{
    const char *want = in->config && in->config->apt_key_fingerprint ? in->config->apt_key_fingerprint
                       : in->knowledge->repo_fingerprint             ? in->knowledge->repo_fingerprint
                                                                     : in->knowledge->rpm.fingerprint;
    const char *file = in->key_file ? in->key_file : in->config ? in->config->apt_key_file : NULL;
    rd_snapshot *ks;
    int r = rd_plan_snapshot(p, in, KEY_FILE, &ks, ret_reason);
    if (r < 0)
        return r;
    bool named = file || (in->config && in->config->apt_key_url);
    _cleanup_free_ char *table_url = rd_repos_key_url(in->knowledge, rd_repo_base(in->config));
    const char *url = in->config && in->config->apt_key_url ? in->config->apt_key_url : table_url;
    _cleanup_gpg_ rd_gpg g = { 0 };
    _cleanup_free_ char *downloaded = NULL;
    if (!file && (named || !ks->exists)) {
        if (!url) {
            *ret_reason = xstrdup("no signing key: pass --key-file FILE or set key_file or key_url in the [fix] "
                                  "section of the configuration");
            return -ENOKEY;
        }
        if ((r = rd_gpg_begin(&g, ret_reason)) < 0 || (r = rd_gpg_download(&g, url, &downloaded, ret_reason)) < 0)
            return r;
        file = downloaded;
    }
    _cleanup_free_ char *fpr = NULL, *data = NULL;
    size_t size = 0;
    if (file) {
        r = key_fingerprint(file, downloaded ? url : file, &fpr, ret_reason);
        if (r < 0)
            return r;
        if (!rd_gpg_fpr_matches(fpr, want)) {
            *ret_reason = xasprintf(
                "%s holds key %s, not the expected %s%s: not installed", downloaded ? url : file, fpr, strempty(want),
                in->config && in->config->apt_key_fingerprint ? "" : " (AMD's, pinned in repos.ini)");
            return -EPERM;
        }
        r = read_file_at(AT_FDCWD, file, 1u << 20, &data, &size);
        if (r < 0) {
            *ret_reason = xasprintf("cannot read %s: %s", file, strerror(-r));
            return r;
        }
        r = rd_step_write(p, s, in, KEY_FILE, data, size, 0644, ret_reason);
        if (r < 0)
            return r;
    } else
        fpr = xstrdup(strempty(want));
    if (key_imported(in->facts, fpr))
        return 0;
    _cleanup_free_ char *name = xasprintf("gpg-pubkey-%s", fpr + (strlen(fpr) >= 8 ? strlen(fpr) - 8 : 0));
    for (char *c = name; *c; c++)
        *c = (char)(*c >= 'A' && *c <= 'Z' ? *c + 32 : *c);
    /* as run on the system itself: the engine runs it now for "/", and at
     * the first boot of a --root tree */
    rd_step_command(s, rd_strv_new("rpm", "--import", KEY_FILE, NULL),
                    rd_strv_new("rpm", "-e", "--allmatches", name, NULL));
    return 0;
}

/* A .repo file other than the two this fix writes. */
static bool other_repo_file(const char *name, const void *userdata)
{
    return dir_name_visible(name, ".repo") && !streq(name, "rocm.repo") && !streq(name, "amdgpu.repo");
}

/* Other files in the repository directory that name AMD's host. */
static int move_others(const rd_fix_input *in, rd_plan *p, rd_step *s, const manager *m, char **ret_reason)
{
    _cleanup_close_ int dfd = rd_fix_open_dir(in->ctx->root_fd, m->dir, NULL);
    _cleanup_strv_free_ char **names = dfd >= 0 ? dir_names(dfd, other_repo_file, NULL, NULL) : NULL;
    for (size_t i = 0; names && names[i]; i++) {
        _cleanup_free_ char *path = xasprintf("%s/%s", m->dir, names[i]), *content = NULL;
        const char *mirror = in->config ? in->config->mirror : NULL;
        if (rd_fix_read(in->ctx->root_fd, path, &content, NULL, NULL) < 0 ||
            (!strstr(content, strempty(in->knowledge->rpm.host)) && !(mirror && strstr(content, mirror))))
            continue;
        int r = rd_step_move_aside(p, s, in, path, ret_reason);
        if (r < 0)
            return r;
    }
    return 0;
}

/* dnf's option: the id allowed_fixes lists to let it enable CRB. */
static const char *const dnf_options[] = { "crb", NULL };

/* A disabled CRB/PowerTools repository of the host, enabled only when the
 * configuration lists "crb" among allowed_fixes. Returns whether planned. */
static bool plan_crb(const rd_fix_input *in, rd_step *s)
{
    if (!in->config || !strv_contains(in->config->allowed_fixes, dnf_options[0]))
        return false;
    const rd_repo_config *c = &in->facts->repos.dnf;
    for (size_t i = 0; i < c->n_repos; i++)
        for (size_t j = 0; in->knowledge->rpm.crb_repos && in->knowledge->rpm.crb_repos[j]; j++)
            if (!c->repos[i].enabled && fnmatch(in->knowledge->rpm.crb_repos[j], c->repos[i].id, 0) == 0) {
                rd_step_command(s, rd_strv_new("dnf", "config-manager", "--set-enabled", c->repos[i].id, NULL),
                                rd_strv_new("dnf", "config-manager", "--set-disabled", c->repos[i].id, NULL));
                return true;
            }
    return false;
}

static bool repo_enabled(const rd_repo_config *cfg, char *const *patterns)
{
    for (size_t i = 0; i < cfg->n_repos; i++)
        for (size_t j = 0; patterns && patterns[j]; j++)
            if (cfg->repos[i].enabled && fnmatch(patterns[j], cfg->repos[i].id, 0) == 0)
                return true;
    return false;
}

/* The prerequisites AMD's instructions add that this host lacks: CRB and
 * EPEL on EL (dnf), SUSE's modules and repositories on SLES (zypper). The
 * plan names them with their commands; it never enables them itself (but
 * CRB when allowed_fixes lists "crb"). */
static void prereq_notes(const rd_fix_input *in, const manager *m, bool crb, strbuf *b)
{
    const rd_rpm_info *info = &in->knowledge->rpm;
    const rd_os_family fam = rd_os_family_facts(&in->facts->os);
    if (!m->zypper && fam == RD_OS_RHEL) {
        const rd_repo_config *cfg = &in->facts->repos.dnf;
        bool no_crb = !crb && !repo_enabled(cfg, info->crb_repos), no_epel = !repo_enabled(cfg, info->epel_repos);
        if (!no_crb && !no_epel)
            return;
        _cleanup_free_ char *c = no_crb ? rd_distro_crb_hint(&in->facts->os) : xstrdup("");
        _cleanup_free_ char *e = no_epel ? rd_distro_epel_hint(&in->facts->os) : xstrdup("");
        strbuf_printf(b,
                      "%sThis host has no enabled %s%s%s repository, which ROCm's packages need: enable it yourself "
                      "before installing (rocm-doctor does not change the distribution's repositories). %s%s",
                      b->s ? "\n" : "", no_crb ? "CRB" : "", no_crb && no_epel ? " or " : "", no_epel ? "EPEL" : "", c,
                      e);
        while (b->len > 0 && b->s[b->len - 1] == ' ')
            b->s[--b->len] = '\0';
    } else if (m->zypper && fam == RD_OS_SUSE && !repo_enabled(&in->facts->repos.zypper, info->sles_repos) &&
               info->sles_modules) {
        strbuf mods = { 0 };
        for (size_t i = 0; info->sles_modules[i]; i++)
            strbuf_printf(&mods, "%s`sudo SUSEConnect -p %s/%s/x86_64`", i ? ", " : "", info->sles_modules[i],
                          strempty(in->facts->os.version_id));
        _cleanup_free_ char *list = strbuf_steal(&mods);
        strbuf_printf(b,
                      "%sThis host has none of the SUSE repositories ROCm's packages need (perl, Education, "
                      "science): add the modules AMD's instructions list yourself: %s.",
                      b->s ? "\n" : "", strempty(list));
    }
}

static void notes(const rd_fix_input *in, const manager *m, rd_step *s, bool crb, const char *outside)
{
    strbuf b = { 0 };
    if (outside)
        strbuf_printf(&b, "%s.", outside);
    prereq_notes(in, m, crb, &b);
    for (size_t i = 0; i < in->findings->n; i++) {
        const rd_finding *f = &in->findings->items[i];
        if (streq(f->id, RD_FINDING(KERNEL_DEVEL_MISSING)) && in->facts->kernel_devel.wanted && !in->setup)
            strbuf_printf(&b,
                          "%sInstall the running kernel's headers: `sudo %s install %s`, then `sudo dkms "
                          "autoinstall` or reboot (`rocm-doctor setup` plans both).",
                          b.s ? "\n" : "", m->id, in->facts->kernel_devel.wanted);
    }
    strbuf_printf(&b, "%s`sudo %s` reads the new files.", b.s ? "\n" : "",
                  m->zypper ? "zypper refresh" : "dnf clean all");
    s->note = strbuf_steal(&b);
}

/* A release outside the tables: the host's own AMD repositories, kept as
 * they are (baseurl, id), written whole with gpgcheck=1 and the key; the
 * driver's in amdgpu.repo, the rest in rocm.repo. */
static int kept_texts(const rd_fix_input *in, const manager *m, const rd_release_choice *c, const char *secret,
                      char **ret_rocm, char **ret_amdgpu, char **ret_reason)
{
    const rd_repo_config *cfg = m->zypper ? &in->facts->repos.zypper : &in->facts->repos.dnf;
    if (c->moving) {
        /* no fix writes a moving folder */
        *ret_reason = rd_release_outside_text(in->knowledge, c);
        return -ENOENT;
    }
    strbuf rocm = { 0 }, amdgpu = { 0 };
    size_t n = 0;
    for (size_t i = 0; i < cfg->n_repos; i++) {
        const rd_rpm_repo *r = &cfg->repos[i];
        const char *path = r->amd && r->enabled && r->url ? rd_repo_path_of(NULL, r->url) : NULL;
        if (!path || !r->id)
            continue;
        rd_repo_match mt;
        bool driver = rd_repos_classify(in->knowledge, path, &mt) > 0 && mt.kind == RD_REPO_AMDGPU;
        rd_repo_match_done(&mt);
        _cleanup_free_ char *url = rd_repo_on_base(in->config, r->url);
        _cleanup_free_ char *sec = section(r->id, r->name ? r->name : r->id, url, m->zypper, in->config, secret);
        strbuf *b = driver ? &amdgpu : &rocm;
        strbuf_printf(b, "%s%s", b->len ? "\n" : "", sec);
        n++;
    }
    if (n == 0) {
        free(rocm.s);
        free(amdgpu.s);
        _cleanup_free_ char *why = rd_release_outside_text(in->knowledge, c);
        if (c->origin == RD_RELEASE_ASKED || c->origin == RD_RELEASE_CONFIGURED)
            *ret_reason = rd_repos_unknown_release(in->knowledge, c->release);
        else
            *ret_reason = xasprintf("%s; this host has no AMD repository to keep, and no release is written in its "
                                    "place: pass --release (or set rocm_release) to choose one",
                                    why);
        return -ENOENT;
    }
    _cleanup_free_ char *r1 = strbuf_steal(&rocm), *r2 = strbuf_steal(&amdgpu);
    *ret_rocm = r1 ? xasprintf(RD_FIX_HEADER_LINE "# ROCm %s from AMD's repository: the folders this host had.\n%s",
                               c->release, r1)
                   : NULL;
    *ret_amdgpu = r2 ? xasprintf(RD_FIX_HEADER_LINE "# The amdgpu driver: the folders this host had.\n%s", r2) : NULL;
    return 0;
}

/* The texts of rocm.repo and amdgpu.repo for the release chosen: the
 * table's folders, or outside the tables the host's own; NULL: that file
 * is not written. */
/* A release newer than the tables, asked for: the folders AMD's own
 * installer package of that release names for this OS, each a section. */
static int installer_texts(const rd_fix_input *in, const manager *m, const rd_release_choice *c, const char *secret,
                           char **ret_rocm, char **ret_amdgpu, char **ret_from, char **ret_reason)
{
    _cleanup_installer_info_ rd_installer_info info = { 0 };
    int r = rd_installer_read(in->config, in->knowledge, &in->facts->os, c->release, &info, ret_reason);
    if (r < 0)
        return r;
    rd_repo_family fam = m->zypper ? RD_REPO_SLES : RD_REPO_EL;
    strbuf rocm = { 0 }, amdgpu = { 0 };
    for (size_t i = 0; i < info.n_repos; i++) {
        const rd_installer_repo *ir = &info.repos[i];
        if (ir->family != fam)
            continue;
        const char *id = ir->kind == RD_REPO_AMDGPU ? "amdgpu" : ir->kind == RD_REPO_GRAPHICS ? "amdgraphics" : "rocm";
        _cleanup_free_ char *name = xasprintf("%s %s repository", id, c->release);
        _cleanup_free_ char *sec = section(id, name, ir->url, m->zypper, in->config, secret);
        strbuf *b = ir->kind == RD_REPO_AMDGPU ? &amdgpu : &rocm;
        strbuf_printf(b, "%s%s", b->len ? "\n" : "", sec);
    }
    _cleanup_free_ char *r1 = strbuf_steal(&rocm), *r2 = strbuf_steal(&amdgpu);
    if (!r1) {
        *ret_reason = xasprintf("%s names no %s folder of ROCm %s", info.installer_url, m->id, c->release);
        return -EBADMSG;
    }
    *ret_rocm = xasprintf(RD_FIX_HEADER_LINE "# ROCm %s from AMD's repository: the folders its installer package names "
                                             "(%s).\n%s",
                          c->release, info.installer_url, r1);
    *ret_amdgpu = r2 ? xasprintf(RD_FIX_HEADER_LINE "# The amdgpu driver for ROCm %s (%s).\n%s", c->release,
                                 info.installer_url, r2)
                     : NULL;
    if (ret_from)
        *ret_from = xstrdup(info.installer_url);
    return 0;
}

static bool from_installer(const rd_release_choice *c)
{
    return !c->row && c->after_tables && (c->origin == RD_RELEASE_ASKED || c->origin == RD_RELEASE_CONFIGURED);
}

/* ret_from (may be NULL): the installer package the folders came from,
 * for a release newer than the tables. */
static int texts(const rd_fix_input *in, const manager *m, const rd_release_choice *c, const char *secret,
                 char **ret_rocm, char **ret_amdgpu, char **ret_from, char **ret_reason)
{
    return c->row              ? repo_texts(in, m, c->row, secret, ret_rocm, ret_amdgpu, ret_reason)
           : from_installer(c) ? installer_texts(in, m, c, secret, ret_rocm, ret_amdgpu, ret_from, ret_reason)
                               : kept_texts(in, m, c, secret, ret_rocm, ret_amdgpu, ret_reason);
}

static int write_one(rd_plan *p, rd_step *s, const rd_fix_input *in, const char *path, const char *text,
                     const char *shown, char **ret_reason)
{
    if (!text)
        return 0;
    int r = shown ? rd_step_write_secret(p, s, in, path, text, shown, ret_reason)
                  : rd_step_write(p, s, in, path, text, strlen(text), 0644, ret_reason);
    return r < 0 ? r : 0;
}

/* The two .repo files; with the mirror's login, dnf's at 0600 (they hold
 * the password), zypper's credentials file at 0600 beside 0644 ones. */
static int write_repos(const rd_fix_input *in, rd_plan *p, rd_step *s, const manager *m, const rd_release_choice *ch,
                       const char *p1, const char *rocm, const char *p2, const char *amdgpu, char **ret_reason)
{
    const rd_config *c = in->config;
    int r;
    if (!c || !c->mirror_login || m->zypper) {
        if ((r = write_one(p, s, in, p1, rocm, NULL, ret_reason)) < 0 ||
            (r = write_one(p, s, in, p2, amdgpu, NULL, ret_reason)) < 0)
            return r;
    }
    if (!c || !c->mirror_login)
        return 0;
    if (m->zypper) {
        _cleanup_free_ char *cred =
            xasprintf(RD_FIX_HEADER_LINE "username=%s\npassword=%s\n", c->mirror_login, c->mirror_secret);
        _cleanup_free_ char *shown =
            xasprintf(RD_FIX_HEADER_LINE "username=%s\npassword=" RD_MASKED "\n", c->mirror_login);
        r = rd_step_write_secret(p, s, in, ZYPP_CREDENTIALS, cred, shown, ret_reason);
        return r < 0 ? r : 0;
    }
    _cleanup_free_ char *rocm_shown = NULL, *amdgpu_shown = NULL;
    if ((r = texts(in, m, ch, RD_MASKED, &rocm_shown, &amdgpu_shown, NULL, ret_reason)) < 0 ||
        (r = write_one(p, s, in, p1, rocm, rocm_shown, ret_reason)) < 0 ||
        (r = write_one(p, s, in, p2, amdgpu, amdgpu_shown, ret_reason)) < 0)
        return r;
    return 0;
}

static int plan_manager(const rd_fix_input *in, rd_plan *p, char **ret_reason, const manager *m)
{
    /* setup adds the repository of the host's own package manager; Fedora
     * packages ROCm itself */
    rd_os_family fam = rd_os_family_facts(&in->facts->os);
    if (in->setup && (m->zypper ? fam != RD_OS_SUSE : fam != RD_OS_RHEL))
        return 0;
    _cleanup_(rd_release_choice_done) rd_release_choice ch = { 0 };
    int r = rd_fix_release(in, m->zypper ? RD_REPO_SLES : RD_REPO_EL, &ch, ret_reason);
    if (r < 0)
        return r;
    _cleanup_free_ char *rocm = NULL, *amdgpu = NULL, *from = NULL;
    const rd_config *c = in->config;
    bool login = c && c->mirror_login;
    r = texts(in, m, &ch, login ? c->mirror_secret : NULL, &rocm, &amdgpu, &from, ret_reason);
    if (r < 0)
        return r;
    const rd_repo_row *newest = rd_repos_newest(in->knowledge);
    _cleanup_free_ char *outside =
        from_installer(&ch)
            ? xasprintf("ROCm %s is newer than rocm-doctor's tables (repos.ini of %s): its folders were read from "
                        "AMD's installer package %s, and count only once %s fetches their metadata signed by AMD's "
                        "key; what the tables cannot know of it (its gfx targets, kernel range) is taken from ROCm %s",
                        ch.release, strempty(in->knowledge->repos_info.date), strempty(from), m->id,
                        newest ? newest->release : "-")
            : rd_release_outside_text(in->knowledge, &ch);
    rd_step *s =
        ch.row ? rd_plan_add_step(p, m->id, RD_EFFECT_NOW, "AMD's %s repositories for ROCm %s (%s %s)", m->id,
                                  ch.release, strempty(in->facts->os.id), strempty(in->facts->os.version_id))
        : from_installer(&ch)
            ? rd_plan_add_step(p, m->id, RD_EFFECT_NOW,
                               "AMD's %s repositories for ROCm %s (from AMD's installer package)", m->id, ch.release)
            : rd_plan_add_step(p, m->id, RD_EFFECT_NOW, "AMD's %s repositories for ROCm %s (the host's folders kept)",
                               m->id, ch.release);
    rd_step_address_findings(s, in, m->id);
    if ((r = plan_key(in, p, s, ret_reason)) < 0)
        return r;
    _cleanup_free_ char *p1 = xasprintf("%s/rocm.repo", m->dir), *p2 = xasprintf("%s/amdgpu.repo", m->dir);
    if ((r = write_repos(in, p, s, m, &ch, p1, rocm, p2, amdgpu, ret_reason)) < 0 ||
        (r = move_others(in, p, s, m, ret_reason)) < 0)
        return r;
    bool crb = !m->zypper && plan_crb(in, s);
    if (rd_step_changes(s) || s->n_actions > 0)
        notes(in, m, s, crb, outside);
    rd_plan_drop_empty_step(p);
    return 0;
}

static int dnf_plan(const rd_fix_input *in, rd_plan *p, char **ret_reason)
{
    return plan_manager(in, p, ret_reason, &dnf);
}

static int zypper_plan(const rd_fix_input *in, rd_plan *p, char **ret_reason)
{
    return plan_manager(in, p, ret_reason, &zypper);
}

const rd_fix rd_fix_dnf = {
    .id = "dnf",
    .title = "AMD's dnf repositories and signing key",
    .on_request = true,
    .setup = true,
    .options = dnf_options,
    .plan = dnf_plan,
};

const rd_fix rd_fix_zypper = {
    .id = "zypper",
    .title = "AMD's zypper repositories and signing key",
    .on_request = true,
    .setup = true,
    .plan = zypper_plan,
};
