/* SPDX-License-Identifier: MIT */
/* src/core's knowledge tables the probes judge by: the support matrix
 * (loader, look-ups, the rpm part and its URL templates, malformed tables
 * with file:line) and the wheels table (families by target, malformed
 * lines). */
#include <glib.h>
#include <glib/gstdio.h>

#include "knowledge.h"
#include "util.h"
#include "testlib.h"

static rd_knowledge shipped;

/* ---- the shipped table ---- */

static void test_shipped_support(void)
{
    g_assert_cmpstr(shipped.support_info.name, ==, "support");
    g_assert_nonnull(shipped.support_info.version);
    g_assert_nonnull(shipped.support_info.date);
    g_assert_cmpstr(shipped.apt_host, ==, "repo.radeon.com");
    g_assert_cmpstr(shipped.apt_key_id, ==, "9386B48A1A693C5C");
    g_assert_cmpuint(shipped.n_releases, >=, 8);
    for (size_t i = 1; i < shipped.n_releases; i++)
        g_assert_cmpint(rd_version_compare(shipped.releases[i - 1].line, shipped.releases[i].line), <, 0);

    const rd_release *r = rd_knowledge_release(&shipped, "6.2.4-139");
    g_assert_nonnull(r);
    g_assert_cmpstr(r->line, ==, "6.2");
    g_assert_cmpstr(r->latest, ==, "6.2.4");
    g_assert_true(rd_release_supports(r, "gfx1100"));
    g_assert_false(rd_release_supports(r, "gfx1031"));
    g_assert_true(rd_release_deprecates(r, "gfx906"));
    g_assert_false(r->apt_suite_ubuntu);
    g_assert_null(rd_knowledge_release(&shipped, "6.10.1")); /* not the 6.1 line */
    g_assert_null(rd_knowledge_release(&shipped, NULL));
    /* 5.7 names the codename (rocm/apt/5.7 jammy, ROCm/ROCm#4575) */
    g_assert_false(rd_knowledge_release(&shipped, "5.7")->apt_suite_ubuntu);

    g_assert_cmpstr(rd_knowledge_release_by_dkms(&shipped, "6.8.5")->line, ==, "6.2");
    g_assert_cmpstr(rd_knowledge_release_by_dkms(&shipped, "6.3.6")->line, ==, "6.0");
    g_assert_cmpstr(rd_knowledge_release_by_dkms(&shipped, "30.20.1")->line, ==, "7.1");
    g_assert_null(rd_knowledge_release_by_dkms(&shipped, "6.8.0"));

    const rd_release_os *os = rd_release_find_os(r, "ubuntu", "24.04");
    g_assert_nonnull(os);
    g_assert_cmpstr(os->codename, ==, "noble");
    g_assert_true(strv_contains(os->kernels, "6.8"));
    g_assert_nonnull(rd_release_find_os(r, "ubuntu", "24.04.2"));
    g_assert_null(rd_release_find_os(r, "ubuntu", "23.10"));
    g_assert_null(rd_release_find_os(r, "debian", "12")); /* Debian 12 came with 6.3 */
    os = rd_release_find_os(rd_knowledge_release(&shipped, "6.3.3"), "debian", "12");
    g_assert_nonnull(os);
    g_assert_cmpstr(os->codename, ==, "bookworm");
    g_assert_cmpstr(os->apt_suite, ==, "jammy");
    os = rd_release_find_os(r, "rhel", "9.4");
    g_assert_nonnull(os);
    g_assert_null(os->codename);
    g_assert_null(os->apt_suite);
}

static void test_pick_release(void)
{
    char gfx1100_s[] = "gfx1100", gfx906_s[] = "gfx906", gfx1031_s[] = "gfx1031", gfx942_s[] = "gfx942",
         gfx1030_s[] = "gfx1030";
    char *gfx1100[] = { gfx1100_s, NULL };
    char *gfx906[] = { gfx906_s, NULL };
    char *gfx1031[] = { gfx1031_s, NULL };
    char *mixed[] = { gfx942_s, gfx1030_s, NULL };
    const rd_release *newest = &shipped.releases[shipped.n_releases - 1];
    g_assert_cmpstr(rd_knowledge_pick_release(&shipped, "ubuntu", "24.04", gfx1100, 1), ==, newest->latest);
    /* gfx906 is deprecated through 6.4 and gone after it */
    g_assert_cmpstr(rd_knowledge_pick_release(&shipped, "ubuntu", "22.04", gfx906, 1), ==, "6.4.3");
    g_assert_cmpstr(rd_knowledge_pick_release(&shipped, "ubuntu", "20.04", gfx1100, 1), ==, "6.1.2");
    /* RHEL 9.4 is listed again from 7.1 (7.1.1's OS list); 9.3 last in 6.0 */
    g_assert_cmpstr(rd_knowledge_pick_release(&shipped, "rhel", "9.4", mixed, 2), ==, newest->latest);
    g_assert_cmpstr(rd_knowledge_pick_release(&shipped, "rhel", "9.3", mixed, 2), ==, "6.0.2");
    g_assert_cmpstr(rd_knowledge_pick_release(&shipped, "debian", "12", mixed, 2), ==, newest->latest);
    g_assert_null(rd_knowledge_pick_release(&shipped, "ubuntu", "24.04", gfx1031, 1));
    g_assert_null(rd_knowledge_pick_release(&shipped, "fedora", "41", gfx1100, 1));
    g_assert_null(rd_knowledge_pick_release(&shipped, NULL, NULL, gfx1100, 1));
    g_assert_cmpstr(rd_knowledge_pick_release(&shipped, "ubuntu", "24.04", NULL, 0), ==, newest->latest);
}

static void test_apt_suite(void)
{
    g_assert_cmpstr(rd_knowledge_apt_suite(&shipped, "6.2.4", "noble"), ==, "noble");
    g_assert_cmpstr(rd_knowledge_apt_suite(&shipped, "6.2", "jammy"), ==, "jammy");
    g_assert_cmpstr(rd_knowledge_apt_suite(&shipped, "5.7.1", "jammy"), ==, "jammy");
    g_assert_cmpstr(rd_knowledge_apt_suite(&shipped, "6.3.3", "bookworm"), ==, "jammy");
    g_assert_null(rd_knowledge_apt_suite(&shipped, "6.2.4", "bookworm"));
    g_assert_null(rd_knowledge_apt_suite(&shipped, "6.1.3", "noble"));
    g_assert_null(rd_knowledge_apt_suite(&shipped, "4.5", "focal"));
    g_assert_null(rd_knowledge_apt_suite(&shipped, NULL, "noble"));
}

static void test_version_compare(void)
{
    g_assert_cmpint(rd_version_compare("6.10", "6.9"), >, 0);
    g_assert_cmpint(rd_version_compare("6.2.4", "6.2.4-139"), ==, 0);
    g_assert_cmpint(rd_version_compare("6.2", "6.2.0"), ==, 0);
    g_assert_cmpint(rd_version_compare("5.7.1", "6.0"), <, 0);
    g_assert_cmpint(rd_version_compare("30.20", "6.14.14"), >, 0);
    g_assert_cmpint(rd_version_compare(NULL, "1"), <, 0);
    g_assert_cmpint(rd_version_compare("latest", "6.0"), <, 0);
}

/* ---- malformed tables ---- */

static const char small_archs[] = "[table]\nname = archs\nversion = 1\ndate = 2026-01-01\n"
                                  "[gfx90a]\ngfx_target_version = 90010\nfamily = gfx9\natomics = not-required\n"
                                  "[gfx906]\ngfx_target_version = 90006\nfamily = gfx9\natomics = not-required\n"
                                  "[gfx1100]\ngfx_target_version = 110000\nfamily = gfx11\natomics = firmware 509\n";

static const char small_pci_ids[] =
    "[table]\nname = pci-ids\nversion = 1\ndate = 2026-01-01\n[pci-ids]\n744c = gfx1100\n";

/* Lines are numbered in the comments: errors must name them. */
static const char good_support[] = "[table]\n"                                          /* 1 */
                                   "name = support\n"                                   /* 2 */
                                   "version = 4\n"                                      /* 3 */
                                   "date = 2026-02-01\n"                                /* 4 */
                                   "[apt]\n"                                            /* 5 */
                                   "host = repo.radeon.com\n"                           /* 6 */
                                   "key-id = 9386B48A1A693C5C\n"                        /* 7 */
                                   "pin-origin = repo.radeon.com\n"                     /* 8 */
                                   "[rocm 6.2]\n"                                       /* 9 */
                                   "latest = 6.2.4\n"                                   /* 10 */
                                   "date = 2024-08\n"                                   /* 11 */
                                   "gfx = gfx90a gfx1100\n"                             /* 12 */
                                   "deprecated = gfx906\n"                              /* 13 */
                                   "apt-suite = codename\n"                             /* 14 */
                                   "dkms = 6.8.5\n"                                     /* 15 */
                                   "window = releases 2\n"                              /* 16 */
                                   "os = ubuntu 24.04 noble kernels 6.8\n"              /* 17 */
                                   "os = debian 12 bookworm suite jammy kernels 6.1\n"; /* 18 */

static void test_good_support(rd_test_tmpdir *t, gconstpointer data)
{
    rd_test_write_file(t->dir, "archs.ini", small_archs);
    rd_test_write_file(t->dir, "pci-ids.ini", small_pci_ids);
    rd_test_write_file(t->dir, "support.ini", good_support);
    rd_knowledge k;
    g_autofree char *err = NULL;
    g_assert_cmpint(rd_knowledge_load(t->dir, &k, &err), ==, 0);
    g_assert_cmpstr(k.support_info.version, ==, "4");
    g_assert_cmpuint(k.n_releases, ==, 1);
    g_assert_cmpstr(k.releases[0].dkms, ==, "6.8.5");
    g_assert_cmpint(k.releases[0].window_kind, ==, RD_WINDOW_RELEASES);
    g_assert_cmpuint(k.releases[0].window, ==, 2);
    g_assert_cmpuint(k.releases[0].n_os, ==, 2);
    g_assert_cmpstr(k.releases[0].os[1].apt_suite, ==, "jammy");
    g_assert_cmpstr(rd_knowledge_apt_suite(&k, "6.2.4", "bookworm"), ==, "jammy");
    rd_knowledge_free(&k);
    g_assert_null(k.releases);
}

static void test_absent_support(rd_test_tmpdir *t, gconstpointer data)
{
    rd_test_write_file(t->dir, "archs.ini", small_archs);
    rd_test_write_file(t->dir, "pci-ids.ini", small_pci_ids);
    rd_knowledge k;
    g_autofree char *err = NULL;
    g_assert_cmpint(rd_knowledge_load(t->dir, &k, &err), ==, 0);
    g_assert_cmpuint(k.n_releases, ==, 0);
    char gfx_s[] = "gfx1100";
    char *gfx[] = { gfx_s, NULL };
    g_assert_null(rd_knowledge_pick_release(&k, "ubuntu", "24.04", gfx, 1));
    g_assert_null(rd_knowledge_apt_suite(&k, "6.2.4", "noble"));
    rd_knowledge_free(&k);
}

typedef struct {
    const char *find, *replace; /* one edit of good_support */
    const char *message;        /* what follows "<dir>/support.ini" */
} malformed_case;

static const malformed_case malformed[] = {
    { "[rocm 6.2]\n", "[rocm six]\n", ":10: section [rocm six] is neither [table], [apt], [rpm] nor [rocm X.Y]" },
    { "gfx = gfx90a gfx1100\n", "gfx = gfx90a gfx9999\n", ":12: gfx: \"gfx9999\" is not a gfx target of archs.ini" },
    { "deprecated = gfx906\n", "deprecated = gfx906 gfx906\n", ":13: deprecated: gfx906 is listed twice" },
    { "latest = 6.2.4\n", "latest = 6.3.1\n", ":10: latest \"6.3.1\" is not a 6.2.N release" },
    { "date = 2024-08\n", "date = August 2024\n", ":11: date \"August 2024\" is not YYYY-MM" },
    { "apt-suite = codename\n", "apt-suite = noble\n", ":14: apt-suite must be codename or ubuntu, not \"noble\"" },
    { "dkms = 6.8.5\n", "dkms = 6.8.5a\n", ":15: dkms \"6.8.5a\" is not a driver version like 6.8.5" },
    { "window = releases 2\n", "window = 2 releases\n",
      ":16: window must be \"releases N\" or \"months N\", not \"2 releases\"" },
    { "os = ubuntu 24.04 noble kernels 6.8\n", "os = ubuntu 24.04 noble 6.8\n",
      ":17: os \"ubuntu 24.04 noble 6.8\": expected ID VERSION_ID CODENAME [suite SUITE] kernels SERIES..." },
    { "os = ubuntu 24.04 noble kernels 6.8\n", "os = ubuntu 24.04 noble kernels 6\n",
      ":17: os \"ubuntu 24.04 noble kernels 6\": \"6\" is not a kernel series like 6.8" },
    { "os = debian 12 bookworm suite jammy kernels 6.1\n", "os = ubuntu 24.04 noble kernels 6.11\n",
      ":18: os ubuntu 24.04 is listed twice in [rocm 6.2]" },
    { "key-id = 9386B48A1A693C5C\n", "key-id = 1A693C5C\n", ":7: key-id \"1A693C5C\" is not a 16-digit hex key id" },
    { "host = repo.radeon.com\n", "mirror = repo.radeon.com\n", ":6: unknown key \"mirror\" in [apt]" },
    { "dkms = 6.8.5\n", "driver = 6.8.5\n", ":15: unknown key \"driver\" in [rocm 6.2]" },
    { "date = 2026-02-01\n", "", ": the [table] section must state name, version and date" },
    { "host = repo.radeon.com\n", "", ": [apt] needs host, key-id and pin-origin" },
    { "window = releases 2\n", "", ": [rocm 6.2] needs latest, date, gfx, window and at least one os" },
    { "gfx = gfx90a gfx1100\n", "gfx = gfx90a\n[rocm 6.1]\nlatest = 6.1.3\n",
      ":14: section [rocm 6.1] comes after [rocm 6.2]: releases go oldest first" },
    { "[rocm 6.2]\nlatest", "version 6.2\n[rocm 6.2]\nlatest", ":9: syntax error (expected [section] or key = value)" },
};

static void test_malformed_support(rd_test_tmpdir *t, gconstpointer data)
{
    rd_test_write_file(t->dir, "archs.ini", small_archs);
    rd_test_write_file(t->dir, "pci-ids.ini", small_pci_ids);
    for (size_t i = 0; i < G_N_ELEMENTS(malformed); i++) {
        const malformed_case *c = &malformed[i];
        const char *at = strstr(good_support, c->find);
        g_assert_nonnull(at);
        g_autofree char *text =
            g_strdup_printf("%.*s%s%s", (int)(at - good_support), good_support, c->replace, at + strlen(c->find));
        rd_test_write_file(t->dir, "support.ini", text);
        rd_knowledge k;
        g_autofree char *err = NULL;
        g_assert_cmpint(rd_knowledge_load(t->dir, &k, &err), ==, -EINVAL);
        g_autofree char *want = g_strdup_printf("%s/support.ini%s", t->dir, c->message);
        g_assert_cmpstr(err, ==, want);
    }
}

/* ---- the rpm part ---- */

static void test_shipped_rpm(void)
{
    g_assert_cmpstr(shipped.rpm.host, ==, "repo.radeon.com");
    g_assert_cmpstr(shipped.rpm.fingerprint, ==, "CA8BB4727A47B4D09B4EE8969386B48A1A693C5C");
    g_autofree char *name = rd_rpm_key_name(shipped.rpm.fingerprint);
    g_assert_cmpstr(name, ==, "gpg-pubkey-1a693c5c");
    g_assert_true(strv_contains(shipped.rpm.crb_repos, "crb"));
    g_assert_true(strv_contains(shipped.rpm.epel_packages, "perl-URI-Encode"));

    const rd_release *r71 = rd_knowledge_release(&shipped, "7.1.0");
    /* Debian 13 uses noble from 7.0.2 on (ROCm/amdgpu-docs@56bbe3b), none
     * before; ROCm 5.0 to 5.2's apt folder has the literal suite "ubuntu";
     * a rebuild is judged as RHEL */
    g_assert_cmpstr(rd_knowledge_apt_suite(&shipped, "7.1.0", "trixie"), ==, "noble");
    g_assert_cmpstr(rd_knowledge_apt_suite(&shipped, "7.0.2", "trixie"), ==, "noble");
    g_assert_null(rd_knowledge_apt_suite(&shipped, "6.4.4", "trixie"));
    g_assert_cmpstr(rd_knowledge_apt_suite(&shipped, "5.1.3", "focal"), ==, "ubuntu");
    g_assert_cmpstr(rd_knowledge_apt_suite(&shipped, "5.6.1", "jammy"), ==, "jammy");
    const rd_release_os *o = rd_release_find_os(r71, "rocky", "9.6");
    g_assert_nonnull(o);
    g_assert_cmpstr(o->id, ==, "rhel");
    g_assert_cmpstr(o->tree, ==, "9.6");
    g_assert_cmpstr(rd_release_find_os(r71, "rhel", "10.0")->tree, ==, "10");
    g_assert_null(rd_release_find_os(r71, "fedora", "42"));
    g_assert_nonnull(rd_release_find_os(rd_knowledge_release(&shipped, "6.4.3"), "opensuse-leap", "15.6"));
}

/* ---- malformed [rpm] parts of support.ini: file:line ---- */

/* clang-format off */
static const struct {
    const char *text, *error;
} malformed_rpm[] = {
    { "[rpm]\nhost = repo.radeon.com/x\n", ":7: host \"repo.radeon.com/x\" is not a host name" },
    { "[rpm]\nfingerprint = 9386B48A1A693C5C\n", ":7: fingerprint \"9386B48A1A693C5C\" is not 40 upper-case hex digits" },
    { "[rpm]\nfingerprint = ca8bb4727a47b4d09b4ee8969386b48a1a693c5c\n", ":7: fingerprint" },
    { "[rpm]\ngpgkey = http://repo.radeon.com/rocm/rocm.gpg.key\n", ":7: gpgkey \"http://repo.radeon.com/rocm/rocm.gpg.key\" is not an https:// URL" },
    { "[rpm]\ncolour = blue\n", ":7: unknown key \"colour\" in [rpm]" },
    { "[rpm]\ncrb-repos =\n", ":7: crb-repos is empty" },
    { "[rocm 6.2]\nel-rocm = https://repo.radeon.com/rocm/el{major}/{rocm}/main\n", ":7: \"el-rocm\" moved to repos.ini" },
    { "[rocm 6.2]\namdgpu = 30.20\n", ":7: \"amdgpu\" moved to repos.ini" },
    { "[rocm 6.2]\nos = rhel 10.0 - tree ten kernels 6.12\n", ":7: os \"rhel 10.0 - tree ten kernels 6.12\": \"tree\" needs an OS version like 9.6 or 10" },
};
/* clang-format on */

/* Writes text to path; loading it (after archs.ini) fails with a message
 * that starts with path and then error. */
static void assert_load_fails(int (*load)(const char *, rd_knowledge *, char **), const char *path, const char *text,
                              const char *error, size_t i)
{
    g_assert_true(g_file_set_contents(path, text, -1, NULL));
    rd_knowledge k = { 0 };
    char *err = NULL;
    g_assert_cmpint(rd_knowledge_load_archs(SRCDIR "/conf/archs.ini", &k, &err), ==, 0);
    g_assert_cmpint(load(path, &k, &err), ==, -EINVAL);
    g_autofree char *want = g_strconcat(path, error, NULL);
    if (!g_str_has_prefix(err, want))
        g_error("case %zu: got \"%s\", want a message starting \"%s\"", i, err, want);
    free(err);
    rd_knowledge_free(&k);
}

static void test_malformed_rpm(void)
{
    g_autofree char *dir = g_dir_make_tmp("rocm-doctor-support-XXXXXX", NULL);
    g_autofree char *path = g_build_filename(dir, "support.ini", NULL);
    for (size_t i = 0; i < G_N_ELEMENTS(malformed_rpm); i++) {
        g_autofree char *text = g_strdup_printf("[table]\nname = support\nversion = 1\ndate = 2026-11-30\n\n%s"
                                                "[apt]\nhost = repo.radeon.com\nkey-id = 9386B48A1A693C5C\n"
                                                "pin-origin = repo.radeon.com\n"
                                                "[rocm 7.0]\nlatest = 7.0.2\ndate = 2025-09\ngfx = gfx942\n"
                                                "window = months 12\nos = rhel 9.6 - kernels 5.14\n",
                                                malformed_rpm[i].text);
        assert_load_fails(rd_knowledge_load_support, path, text, malformed_rpm[i].error, i);
    }
    g_unlink(path);
    g_rmdir(dir);
}

/* ---- the wheels table ---- */

static void test_wheel_table(void)
{
    g_assert_cmpstr(shipped.wheels_info.name, ==, "wheels");
    g_assert_cmpstr(rd_knowledge_wheel_family_for(&shipped, "gfx942")->name, ==, "gfx94X-dcgpu");
    g_assert_cmpstr(rd_knowledge_wheel_family_for(&shipped, "gfx1101")->name, ==, "gfx110X-all");
    g_assert_cmpstr(rd_knowledge_wheel_family_for(&shipped, "gfx1103")->name, ==, "gfx110X-all");
    g_assert_cmpstr(rd_knowledge_wheel_family_for(&shipped, "gfx1151")->name, ==, "gfx1151");
    g_assert_cmpstr(rd_knowledge_wheel_family_for(&shipped, "gfx1201")->name, ==, "gfx120X-all");
    /* families that are only build options are no answer */
    g_assert_null(rd_knowledge_wheel_family_for(&shipped, "gfx1030"));
    g_assert_null(rd_knowledge_wheel_family_for(&shipped, "gfx90a"));
    g_assert_cmpstr(rd_knowledge_wheel_family(&shipped, "GFX94x-DCGPU")->name, ==, "gfx94X-dcgpu");
    g_assert_cmpstr(shipped.wheel_index, ==, "https://rocm.nightlies.amd.com/v2/{family}/");

    static const struct {
        const char *text, *error;
    } bad[] = {
        { "[family gfx94X-dcgpu]\ngfx = gfx942 mi300\n", ":12: \"mi300\" is not a gfx target name" },
        { "[family gfx94X-dcgpu]\ngfx = gfx942\nindex = maybe\n", ":13: index must be yes or no" },
        { "[family gfx94X-dcgpu]\ngfx = gfx942\ncolour = red\n", ":13: unknown key \"colour\"" },
        { "[family a]\ngfx = gfx942\n[family b]\ngfx = gfx942\n[family a]\ngfx = gfx90a\n",
          ":16: section [family a] appears twice" },
        { "[families]\nx = y\n", ":12: unknown section [families]" },
        { "[family x]\nindex = yes\n", ": [family x] has no gfx" },
    };
    g_autofree char *dir = g_dir_make_tmp("rocm-doctor-wheels-XXXXXX", NULL);
    g_autofree char *path = g_build_filename(dir, "wheels.ini", NULL);
    for (size_t i = 0; i < G_N_ELEMENTS(bad); i++) {
        g_autofree char *text = g_strdup_printf("[table]\nname = wheels\nversion = 1\ndate = 2026-12-01\n\n"
                                                "[index]\nurl = https://example.invalid/{family}/\n"
                                                "packages = rocm\n\n\n%s",
                                                bad[i].text);
        assert_load_fails(rd_knowledge_load_wheels, path, text, bad[i].error, i);
    }
    g_unlink(path);
    g_rmdir(dir);
}

static const rd_test_case tests[] = {
    { "/support/shipped", test_shipped_support },
    { "/support/pick-release", test_pick_release },
    { "/support/apt-suite", test_apt_suite },
    { "/support/version-compare", test_version_compare },
    /* the rpm part */
    { "/support/rpm/shipped-rpm", test_shipped_rpm },
    { "/support/rpm/malformed", test_malformed_rpm },
    /* the wheels table */
    { "/wheels/table", test_wheel_table },
};

int main(int argc, char **argv)
{
    rd_test_init(&argc, &argv, false);
    rd_test_load_knowledge(&shipped);
    rd_test_add_all(tests, G_N_ELEMENTS(tests));
    RD_TEST_ADD_TMP("/support/good", test_good_support);
    RD_TEST_ADD_TMP("/support/absent", test_absent_support);
    RD_TEST_ADD_TMP("/support/malformed", test_malformed_support);
    int r = g_test_run();
    rd_knowledge_free(&shipped);
    return r;
}
