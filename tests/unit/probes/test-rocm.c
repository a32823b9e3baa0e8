/* SPDX-License-Identifier: MIT */
/* The support matrix (loader, look-ups, malformed tables with file:line), the
 * parsers of the rocm, apt and boot probes, the facts' JSON round trip, and
 * their assess rules (facts in, findings out). */
#include <glib.h>
#include <glib/gstdio.h>

#include "testlib.h"
#include "check.h"
#include "registry.h"
#include "apt.h"
#include "boot.h"
#include "rocm.h"
#include "facts-json.h"
#include "knowledge.h"
#include "util.h"

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
    g_assert_true(rd_knowledge_release(&shipped, "5.7")->apt_suite_ubuntu);

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
    g_assert_cmpstr(rd_knowledge_pick_release(&shipped, "ubuntu", "20.04", gfx1100, 1), ==, "6.1.3");
    g_assert_cmpstr(rd_knowledge_pick_release(&shipped, "rhel", "9.4", mixed, 2), ==, "6.2.4");
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
    g_assert_cmpstr(rd_knowledge_apt_suite(&shipped, "5.7.1", "jammy"), ==, "ubuntu");
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

/* ---- parsers ---- */

static void assert_rocblas(const char *name, const char *want)
{
    char buf[16] = "";
    g_assert_cmpint(rd_rocblas_file_gfx(name, buf, sizeof buf), ==, want != NULL);
    if (want)
        g_assert_cmpstr(buf, ==, want);
}

static void test_rocblas_names(void)
{
    assert_rocblas("TensileLibrary_lazy_gfx90a.dat", "gfx90a");
    assert_rocblas("Kernels.so-000-gfx1030.hsaco", "gfx1030");
    assert_rocblas("Kernels.so-001-gfx90a-xnack+.hsaco", "gfx90a");
    assert_rocblas("TensileLibrary_Type_HH_Contraction_l_Ailk_Bljk_Cijk_Dijk_gfx1100.co", "gfx1100");
    assert_rocblas("TensileLibrary_gfx942.co", "gfx942");
    assert_rocblas("TensileLibrary_fallback_gfx1201.hsaco", "gfx1201");
    assert_rocblas("TensileManifest.txt", NULL);
    assert_rocblas("gfxinfo", NULL);
    assert_rocblas("foo_gfx1.dat", NULL);
}

static bool want_any(const char *name)
{
    return g_str_has_prefix(name, "rocm") || streq(name, "amdgpu-dkms");
}

static void test_dpkg_status(void)
{
    static const char text[] = "Package: rocm-core\n"
                               "Status: install ok installed\n"
                               "Version: 6.2.4.60204-139~24.04\n"
                               "Description: ROCm core\n"
                               " continued description\n"
                               "\n"
                               "Package: rocm-core5.7.1\n"
                               "Status: deinstall ok config-files\n"
                               "Version: 5.7.1.50701-98~22.04\n"
                               "\n"
                               "Package: bash\n"
                               "Status: install ok installed\n"
                               "Version: 5.2.21-2ubuntu4\n"
                               "\n"
                               "Package: amdgpu-dkms\n"
                               "Status: install ok half-installed\n"
                               "Version: 1:6.8.5.60204-2041575.24.04\n"
                               "\n"
                               "Package: rocminfo\n"
                               "Version:   1.0.0.60204-139~24.04  \n"
                               "Status: install ok installed";
    rd_package *p = NULL;
    size_t n = 0;
    rd_dpkg_status_parse(text, want_any, &p, &n);
    g_assert_cmpuint(n, ==, 2);
    g_assert_cmpstr(p[0].name, ==, "rocm-core");
    g_assert_cmpstr(p[0].version, ==, "6.2.4.60204-139~24.04");
    g_assert_cmpstr(p[1].name, ==, "rocminfo");
    g_assert_cmpstr(p[1].version, ==, "1.0.0.60204-139~24.04");
    for (size_t i = 0; i < n; i++) {
        free(p[i].name);
        free(p[i].version);
    }
    free(p);
}

static void free_sources(rd_apt_source *s, size_t n)
{
    rd_apt_facts a = { .sources = s, .n_sources = n };
    rd_struct_free(&rd_apt_facts_schema, &a);
}

static void test_sources_one_line(void)
{
    static const char text[] =
        "# deb https://repo.radeon.com/rocm/apt/6.0 jammy main\n" /* 1 */
        "deb [arch=amd64 signed-by=/etc/apt/keyrings/rocm.gpg] https://repo.radeon.com/rocm/apt/6.2.4 noble main\n"
        "deb http://archive.ubuntu.com/ubuntu noble main universe\n"                     /* 3 */
        "deb-src https://repo.radeon.com/amdgpu/6.2.4/ubuntu noble main # sources too\n" /* 4 */
        "\n"                                                                             /* 5 */
        "deb https://repo.radeon.com/amdgpu/@AMDGPUVER@/ubuntu noble main\n"             /* 6 */
        "deb http://mirror.example.com/@DISTRO@ stable main\n"                           /* 7 */
        "deb https://repo.radeon.com.evil.example/rocm/apt/6.2 noble main\n"             /* 8 */
        "deb [ signed-by=/usr/share/keyrings/rocm.gpg ] https://repo.radeon.com/rocm/apt/latest ubuntu main";
    rd_apt_source *s = NULL;
    size_t n = 0;
    rd_apt_parse_sources(text, "/etc/apt/sources.list", false, "repo.radeon.com", &s, &n);
    g_assert_cmpuint(n, ==, 5);
    g_assert_cmpint(s[0].line, ==, 2);
    g_assert_cmpstr(s[0].type, ==, "deb");
    g_assert_cmpstr(s[0].uri, ==, "https://repo.radeon.com/rocm/apt/6.2.4");
    g_assert_cmpstr(s[0].suite, ==, "noble");
    g_assert_cmpstr(s[0].components[0], ==, "main");
    g_assert_null(s[0].components[1]);
    g_assert_cmpstr(s[0].signed_by, ==, "/etc/apt/keyrings/rocm.gpg");
    g_assert_true(s[0].enabled);
    g_assert_null(s[0].placeholder);
    g_assert_cmpstr(s[0].format, ==, "one-line");
    g_assert_cmpint(s[1].line, ==, 4);
    g_assert_cmpstr(s[1].type, ==, "deb-src");
    g_assert_null(s[1].signed_by);
    g_assert_null(s[1].components[1]); /* the comment is not a component */
    g_assert_cmpint(s[2].line, ==, 6);
    g_assert_cmpstr(s[2].placeholder, ==, "@AMDGPUVER@");
    g_assert_cmpint(s[3].line, ==, 7);
    g_assert_cmpstr(s[3].placeholder, ==, "@DISTRO@");
    g_assert_cmpint(s[4].line, ==, 9);
    g_assert_cmpstr(s[4].signed_by, ==, "/usr/share/keyrings/rocm.gpg");
    g_assert_cmpstr(s[4].suite, ==, "ubuntu");
    free_sources(s, n);
}

static void test_sources_deb822(void)
{
    static const char text[] = "# ROCm\n"                                                  /* 1 */
                               "Types: deb\n"                                              /* 2 */
                               "URIs: https://repo.radeon.com/rocm/apt/6.3.3\n"            /* 3 */
                               "Suites: jammy noble\n"                                     /* 4 */
                               "Components: main\n"                                        /* 5 */
                               "Signed-By: /etc/apt/keyrings/rocm.gpg\n"                   /* 6 */
                               "\n"                                                        /* 7 */
                               "Types: deb deb-src\n"                                      /* 8 */
                               "URIs: https://repo.radeon.com/amdgpu/6.3.3/ubuntu\n"       /* 9 */
                               "Suites: noble\n"                                           /* 10 */
                               "Components: main\n"                                        /* 11 */
                               "Enabled: no\n"                                             /* 12 */
                               "Signed-By:\n"                                              /* 13 */
                               " -----BEGIN PGP PUBLIC KEY BLOCK-----\n"                   /* 14 */
                               " .\n"                                                      /* 15 */
                               " mQINBFxxxx\n"                                             /* 16 */
                               " -----END PGP PUBLIC KEY BLOCK-----\n"                     /* 17 */
                               "\n"                                                        /* 18 */
                               "Types: deb\n"                                              /* 19 */
                               "URIs: http://archive.ubuntu.com/ubuntu/\n"                 /* 20 */
                               "Suites: noble\n"                                           /* 21 */
                               "Components: main\n"                                        /* 22 */
                               "\n"                                                        /* 23 */
                               "Types: deb\n"                                              /* 24 */
                               "URIs: https://repo.radeon.com/graphics/@ROCMVER@/ubuntu\n" /* 25 */
                               "Suites: noble\n";                                          /* 26 */
    rd_apt_source *s = NULL;
    size_t n = 0;
    rd_apt_parse_sources(text, "/etc/apt/sources.list.d/rocm.sources", true, "repo.radeon.com", &s, &n);
    g_assert_cmpuint(n, ==, 4);
    g_assert_cmpstr(s[0].suite, ==, "jammy");
    g_assert_cmpstr(s[1].suite, ==, "noble");
    g_assert_cmpint(s[0].line, ==, 3);
    g_assert_cmpstr(s[0].format, ==, "deb822");
    g_assert_cmpstr(s[0].signed_by, ==, "/etc/apt/keyrings/rocm.gpg");
    g_assert_true(s[0].enabled);
    g_assert_cmpstr(s[2].uri, ==, "https://repo.radeon.com/amdgpu/6.3.3/ubuntu");
    g_assert_cmpstr(s[2].type, ==, "deb");
    g_assert_false(s[2].enabled);
    g_assert_cmpstr(s[2].signed_by, ==, "(inline key)");
    g_assert_cmpint(s[3].line, ==, 25);
    g_assert_cmpstr(s[3].placeholder, ==, "@ROCMVER@");
    g_assert_null(s[3].signed_by);
    free_sources(s, n);
}

static void test_preferences(void)
{
    static const char text[] = "Package: *\n"                     /* 1 */
                               "Pin: release o=repo.radeon.com\n" /* 2 */
                               "Pin-Priority: 600\n"              /* 3 */
                               "\n"                               /* 4 */
                               "# snap\n"                         /* 5 */
                               "Package: snapd\n"                 /* 6 */
                               "Pin: release a=*\n"               /* 7 */
                               "Pin-Priority: -10\n"              /* 8 */
                               "\n"                               /* 9 */
                               "Package: rocm*\n"                 /* 10 */
                               "Pin: origin repo.radeon.com\n"    /* 11 */
                               "Pin-Priority: 400";               /* 12 */
    rd_apt_pin *p = NULL;
    size_t n = 0;
    rd_apt_parse_preferences(text, "/etc/apt/preferences.d/rocm-pin-600", "repo.radeon.com", &p, &n);
    g_assert_cmpuint(n, ==, 2);
    g_assert_cmpint(p[0].line, ==, 1);
    g_assert_cmpstr(p[0].package, ==, "*");
    g_assert_cmpint(p[0].priority, ==, 600);
    g_assert_cmpint(p[1].line, ==, 10);
    g_assert_cmpstr(p[1].pin, ==, "origin repo.radeon.com");
    g_assert_cmpint(p[1].priority, ==, 400);
    rd_apt_facts a = { .pins = p, .n_pins = n };
    rd_struct_free(&rd_apt_facts_schema, &a);
}

static void test_keyring(void)
{
    /* a signature packet's unhashed area with the issuer subpacket (type 16) */
    static const unsigned char binary[] = {
        0xc2, 0x1c, 0x04, 0x13, 0x01, 0x08, 0x00, 0x06, 0x05, 0x02, 0x5d, 0x24, 0x8c, 0x40,
        0x00, 0x0a, 0x09, 0x10, 0x93, 0x86, 0xb4, 0x8a, 0x1a, 0x69, 0x3c, 0x5c, 0x5a, 0x3c,
    };
    g_assert_true(rd_keyring_has_key(binary, sizeof binary, "9386B48A1A693C5C"));
    g_assert_true(rd_keyring_has_key(binary, sizeof binary, "9386b48a1a693c5c"));
    g_assert_false(rd_keyring_has_key(binary, sizeof binary, "871920D1991BC93C"));
    g_assert_false(rd_keyring_has_key(binary, sizeof binary, "9386B48A"));
    g_assert_false(rd_keyring_has_key(binary, 10, "9386B48A1A693C5C"));

    g_autofree char *b64 = g_base64_encode(binary, sizeof binary);
    g_autofree char *armored = g_strdup_printf("-----BEGIN PGP PUBLIC KEY BLOCK-----\n"
                                               "Comment: test\n"
                                               "\n"
                                               "%.20s\n%s\n=AbCd\n"
                                               "-----END PGP PUBLIC KEY BLOCK-----\n",
                                               b64, b64 + 20);
    g_assert_true(rd_keyring_has_key((const unsigned char *)armored, strlen(armored), "9386B48A1A693C5C"));
    g_assert_false(rd_keyring_has_key((const unsigned char *)armored, strlen(armored), "871920D1991BC93C"));
    /* the armored text itself does not hold the raw bytes */
    g_assert_null(memmem(armored, strlen(armored), binary + 18, 8));
}

static void test_boot_kmsg(void)
{
    g_assert_true(
        rd_boot_kmsg_relevant("Lockdown: modprobe: unsigned module loading is restricted; see man kernel_lockdown.7"));
    g_assert_true(rd_boot_kmsg_relevant(
        "amdgpu: module verification failed: signature and/or required key missing - tainting kernel"));
    g_assert_true(rd_boot_kmsg_relevant("PKCS#7 signature not signed with a trusted key"));
    g_assert_false(rd_boot_kmsg_relevant("[drm] amdgpu kernel modesetting enabled."));
    g_autofree char *s = rd_kernel_series("6.8.0-45-generic");
    g_assert_cmpstr(s, ==, "6.8");
    g_autofree char *s2 = rd_kernel_series("5.15.167.4-microsoft-standard-WSL2");
    g_assert_cmpstr(s2, ==, "5.15");
    g_assert_null(rd_kernel_series("garbage"));
}

/* ---- facts: JSON round trip ---- */

static void fill_compat_facts(rd_facts *f)
{
    rd_facts_init(f);
    rd_rocm_facts *r = &f->rocm;
    r->checked = true;
    r->default_version = xstrdup("6.2.4");
    r->default_path = xstrdup("/opt/rocm-6.2.4");
    rd_rocm_install *in = ARRAY_APPEND(r->installs, r->n_installs);
    in->path = xstrdup("/opt/rocm-6.2.4");
    in->kind = xstrdup("opt");
    in->version = xstrdup("6.2.4");
    in->version_source = xstrdup("/opt/rocm-6.2.4/.info/version: 6.2.4-139");
    in->lib_dir = xstrdup("/opt/rocm-6.2.4/lib");
    in->libraries = strv_push(strv_push(NULL, xstrdup("libhsa-runtime64.so.1")), xstrdup("libamdhip64.so"));
    in->runtime = true;
    in->has_bin = true;
    in->rocblas_dir = xstrdup("/opt/rocm-6.2.4/lib/rocblas/library");
    in->rocblas_gfx = strv_push(strv_push(NULL, xstrdup("gfx90a")), xstrdup("gfx942"));
    r->opt_rocm = xstrdup("-> /opt/rocm-6.2.4");
    r->path_env = xstrdup("/usr/bin:/bin");
    rd_ld_conf_dir *l = ARRAY_APPEND(r->ld_conf_dirs, r->n_ld_conf_dirs);
    *l = (rd_ld_conf_dir){ xstrdup("/etc/ld.so.conf.d/rocm.conf"), 1, xstrdup("/opt/rocm-6.1.3/lib") };
    rd_package *p = ARRAY_APPEND(r->packages, r->n_packages);
    p->name = xstrdup("rocm-core");
    p->version = xstrdup("6.2.4.60204-139~24.04");

    rd_apt_source *s = ARRAY_APPEND(f->apt.sources, f->apt.n_sources);
    f->apt.present = true;
    s->file = xstrdup("/etc/apt/sources.list.d/rocm.list");
    s->line = 3;
    s->format = xstrdup("one-line");
    s->type = xstrdup("deb");
    s->uri = xstrdup("https://repo.radeon.com/rocm/apt/6.2.4");
    s->suite = xstrdup("jammy");
    s->components = strv_push(NULL, xstrdup("main"));
    s->enabled = true;
    rd_apt_keyring *k = ARRAY_APPEND(f->apt.keyrings, f->apt.n_keyrings);
    k->path = xstrdup("/etc/apt/trusted.gpg");
    k->exists = k->amd_key = k->legacy = true;
    rd_apt_pin *pin = ARRAY_APPEND(f->apt.pins, f->apt.n_pins);
    pin->file = xstrdup("/etc/apt/preferences.d/rocm-pin-600");
    pin->line = 1;
    pin->package = xstrdup("*");
    pin->pin = xstrdup("release o=repo.radeon.com");
    pin->priority = 400;

    f->boot.secure_boot = 1;
    f->boot.secure_boot_evidence = xstrdup("SecureBoot: 1");
    f->boot.lockdown = xstrdup("integrity");
    f->boot.dkms_amdgpu = strv_push(NULL, xstrdup("6.8.5-2041575.24.04"));
    f->boot.dkms_built = strv_push(NULL, xstrdup("6.8.5-2041575.24.04 for 6.8.0-45-generic"));
    f->boot.dkms_tried = strv_push(NULL, xstrdup("6.8.5-2041575.24.04 for 6.8.0-45-generic"));
    f->boot.mok_key = xstrdup("/var/lib/dkms/mok.pub");
    f->boot.kmsg = strv_push(NULL, xstrdup("Lockdown: modprobe: unsigned module loading is restricted"));
}

static void test_round_trip(void)
{
    rd_facts f;
    fill_compat_facts(&f);
    rd_path_dropin *d = ARRAY_APPEND(f.rocm.path_dropin_dirs, f.rocm.n_path_dropin_dirs);
    *d = (rd_path_dropin){ xstrdup("/etc/profile.d/rocm.sh"), 2, strv_push(NULL, xstrdup("/opt/rocm/bin")) };
    json_object *j = rd_facts_to_json(&f);
    g_autofree char *text = g_strdup(json_object_to_json_string(j));
    json_object_put(j);
    rd_facts back;
    g_autofree char *err = NULL;
    g_assert_cmpint(rd_facts_from_json_string(text, &back, &err), ==, 0);
    g_assert_null(err);
    g_assert_true(back.rocm.checked);
    g_assert_cmpstr(back.rocm.default_version, ==, "6.2.4");
    g_assert_cmpuint(back.rocm.n_installs, ==, 1);
    g_assert_cmpstr(back.rocm.installs[0].rocblas_gfx[1], ==, "gfx942");
    g_assert_true(back.rocm.installs[0].has_bin);
    g_assert_cmpstr(back.rocm.packages[0].version, ==, "6.2.4.60204-139~24.04");
    g_assert_cmpuint(back.rocm.n_ld_conf_dirs, ==, 1);
    g_assert_cmpstr(back.rocm.ld_conf_dirs[0].file, ==, "/etc/ld.so.conf.d/rocm.conf");
    g_assert_cmpint(back.rocm.ld_conf_dirs[0].line, ==, 1);
    g_assert_cmpstr(back.rocm.ld_conf_dirs[0].dir, ==, "/opt/rocm-6.1.3/lib");
    g_assert_cmpuint(back.rocm.n_path_dropin_dirs, ==, 1);
    g_assert_cmpint(back.rocm.path_dropin_dirs[0].line, ==, 2);
    g_assert_cmpstr(back.rocm.path_dropin_dirs[0].dirs[0], ==, "/opt/rocm/bin");
    g_assert_cmpint(back.apt.sources[0].line, ==, 3);
    g_assert_cmpstr(back.apt.sources[0].components[0], ==, "main");
    g_assert_true(back.apt.keyrings[0].legacy);
    g_assert_cmpint(back.apt.pins[0].priority, ==, 400);
    g_assert_cmpint(back.boot.secure_boot, ==, 1);
    g_assert_cmpstr(back.boot.dkms_built[0], ==, "6.8.5-2041575.24.04 for 6.8.0-45-generic");
    g_assert_cmpstr(back.boot.dkms_tried[0], ==, "6.8.5-2041575.24.04 for 6.8.0-45-generic");
    /* and once more: the second serialization is the first */
    json_object *j2 = rd_facts_to_json(&back);
    g_assert_cmpstr(json_object_to_json_string(j2), ==, text);
    json_object_put(j2);
    rd_facts_free(&back);
    rd_facts_free(&f);
}

/* ---- assess ---- */

/* An RX 7900 XTX bound to amdgpu (gfx1100 from the PCI id table). */
static void add_gpu(rd_facts *f)
{
    rd_pci_device *d = ARRAY_APPEND(f->pci.devices, f->pci.n_devices);
    d->address = xstrdup("0000:03:00.0");
    d->vendor_id = 0x1002;
    d->device_id = 0x744c;
    d->class_code = 0x030000;
    d->display = true;
    d->driver = xstrdup("amdgpu");
    d->pcie_type = -1;
    d->numa_node = -1;
    f->driver.module_present = true;
    f->driver.initstate = xstrdup("live");
}

static char *assess_ids(const rd_facts *f)
{
    rd_gpu_view view;
    rd_findings fs;
    rd_assess(&rd_probe_registry, f, &shipped, &view, &fs);
    strbuf b = { 0 };
    for (size_t i = 0; i < fs.n; i++)
        if (g_str_has_prefix(fs.items[i].id, "rocm.") || g_str_has_prefix(fs.items[i].id, "apt.") ||
            g_str_has_prefix(fs.items[i].id, "arch.") || g_str_has_prefix(fs.items[i].id, "path.") ||
            streq(fs.items[i].id, "driver.userspace-mismatch") || streq(fs.items[i].id, "kernel.unsupported") ||
            streq(fs.items[i].id, "driver.secure-boot-dkms") || streq(fs.items[i].id, "driver.dkms-build-failed"))
            strbuf_printf(&b, "%s%s:%s", b.len ? " " : "", fs.items[i].id, rd_severity_name(fs.items[i].severity));
    rd_findings_free(&fs);
    rd_gpu_view_free(&view);
    return b.s ? strbuf_steal(&b) : xstrdup("");
}

static void set_rocm(rd_facts *f, const char *version)
{
    rd_rocm_install *in = f->rocm.installs;
    free(in->version);
    in->version = xstrdup(version);
    free(f->rocm.default_version);
    f->rocm.default_version = xstrdup(version);
}

/* test_assess_rules: each apt and path finding fixed, then the key missing */
static void assess_apt_fixed(rd_facts *f)
{
    /* fix them one by one */
    f->rocm.installs[0].rocblas_gfx = strv_push(f->rocm.installs[0].rocblas_gfx, xstrdup("gfx1100"));
    free(f->apt.sources[0].suite);
    f->apt.sources[0].suite = xstrdup("noble");
    f->apt.sources[0].signed_by = xstrdup("/etc/apt/keyrings/rocm.gpg");
    f->apt.keyrings[0].legacy = false;
    free(f->apt.keyrings[0].path);
    f->apt.keyrings[0].path = xstrdup("/etc/apt/keyrings/rocm.gpg");
    f->apt.pins[0].priority = 600;
    free(f->rocm.path_env);
    f->rocm.path_env = xstrdup("/usr/bin:/opt/rocm-6.2.4/bin/");
    g_autofree char *clean = assess_ids(f);
    g_assert_cmpstr(clean, ==, "");

    /* the key file lacks the key */
    f->apt.keyrings[0].amd_key = false;
    g_autofree char *nokey = assess_ids(f);
    g_assert_cmpstr(nokey, ==, "apt.key-missing:error");
    f->apt.keyrings[0].amd_key = true;
}

/* test_assess_rules: the driver/user-space window */
static void assess_driver_window(rd_facts *f)
{
    /* driver/user-space window: 2 release lines before 6.4 */
    f->driver.version = xstrdup("6.3.6"); /* ROCm 6.0's */
    g_autofree char *w2 = assess_ids(f);
    g_assert_cmpstr(w2, ==, ""); /* 6.0 vs 6.2: 2 apart */
    free(f->driver.version);
    f->driver.version = xstrdup("6.2.4"); /* ROCm 5.7's */
    g_autofree char *w3 = assess_ids(f);
    g_assert_cmpstr(w3, ==, "driver.userspace-mismatch:warning");
    /* from 6.4 on: 12 months. 6.2 (2024-08) vs 6.4 (2025-04) is fine, 6.0 (2023-12) is not */
    set_rocm(f, "6.4.3");
    free(f->driver.version);
    f->driver.version = xstrdup("6.8.5");
    g_autofree char *m8 = assess_ids(f);
    g_assert_cmpstr(m8, ==, "");
    free(f->driver.version);
    f->driver.version = xstrdup("6.3.6");
    g_autofree char *m16 = assess_ids(f);
    g_assert_cmpstr(m16, ==, "driver.userspace-mismatch:warning");
    free(f->driver.version);
    f->driver.version = NULL;
}

/* test_assess_rules: Secure Boot with the DKMS driver */
static void assess_secure_boot(rd_facts *f)
{
    /* Secure Boot: amdgpu absent and DKMS present */
    f->driver.module_present = false;
    g_autofree char *sb = assess_ids(f);
    g_assert_cmpstr(sb, ==, "driver.secure-boot-dkms:error");
    f->boot.secure_boot = 0;
    g_autofree char *nosb = assess_ids(f);
    g_assert_cmpstr(nosb, ==, "");
    f->boot.secure_boot = 1;
    /* loaded: only a rejection naming amdgpu means the DKMS one was refused */
    f->driver.module_present = true;
    f->boot.kmsg = strv_push(f->boot.kmsg, xstrdup("Loading of module with unavailable key is rejected: amdgpu"));
    g_autofree char *inbox = assess_ids(f);
    g_assert_cmpstr(inbox, ==, "driver.secure-boot-dkms:error");
    f->driver.version = xstrdup("6.8.5"); /* the DKMS driver itself runs */
    g_autofree char *dkms_runs = assess_ids(f);
    g_assert_cmpstr(dkms_runs, ==, "");
    free(f->driver.version);
    f->driver.version = NULL;
    f->boot.secure_boot = 0;
}

/* test_assess_rules: releases newer and older than the table, unchecked facts */
static void assess_release_lines(rd_facts *f)
{
    /* a release newer than the table: judged by the newest line it knows */
    set_rocm(f, "9.0.1");
    g_autofree char *future = assess_ids(f);
    g_assert_cmpstr(future, ==, "");
    /* ROCm 5.6 did not support gfx1100, nor list Ubuntu 24.04: its 6.8 kernel is
     * newer than any 5.6 was validated with on 22.04, the nearest Ubuntu it lists */
    set_rocm(f, "5.6.1");
    g_autofree char *old = assess_ids(f);
    g_assert_cmpstr(old, ==, "arch.unsupported:warning kernel.unsupported:warning");

    /* facts that predate the rocm probe say nothing about ROCm */
    f->rocm.checked = false;
    set_rocm(f, "6.2.4");
    f->rocm.installs[0].runtime = false;
    g_autofree char *unchecked = assess_ids(f);
    g_assert_cmpstr(unchecked, ==, "");
    f->rocm.checked = true;
    g_autofree char *broken = assess_ids(f);
    g_assert_cmpstr(broken, ==, "rocm.not-installed:warning");
}

/* test_assess_rules: a DKMS build that failed for the running kernel, and a
 * kernel on a release the table does not list, judged by the nearest one */
static void assess_dkms_unlisted(rd_facts *f)
{
    set_rocm(f, "7.0.2");
    f->rocm.installs[0].runtime = true;
    free(f->os.version_id);
    f->os.version_id = xstrdup("25.10");
    free(f->os.kernel_release);
    f->os.kernel_release = xstrdup("6.17.0-6-generic");
    f->kernel_devel.checked = true;
    f->kernel_devel.build_dir = xstrdup("/lib/modules/6.17.0-6-generic/build");
    f->boot.secure_boot = 0;
    /* DKMS never tried this kernel: nothing about the build; 6.17 is newer than 24.04's 6.14 */
    g_autofree char *untried = assess_ids(f);
    g_assert_cmpstr(untried, ==, "kernel.unsupported:warning");
    strv_free(f->boot.dkms_tried);
    f->boot.dkms_tried = strv_push(NULL, xstrdup("6.8.5-2041575.24.04 for 6.17.0-6-generic"));
    g_autofree char *failed = assess_ids(f);
    g_assert_cmpstr(failed, ==, "driver.dkms-build-failed:warning kernel.unsupported:warning");
    f->driver.module_present = false;
    g_autofree char *unloaded = assess_ids(f);
    g_assert_cmpstr(unloaded, ==, "driver.dkms-build-failed:error kernel.unsupported:warning");
    f->driver.module_present = true;
    /* built after all (a later run): no failure */
    f->boot.dkms_built = strv_push(f->boot.dkms_built, xstrdup("6.8.5-2041575.24.04 for 6.17.0-6-generic"));
    g_autofree char *built = assess_ids(f);
    g_assert_cmpstr(built, ==, "kernel.unsupported:warning");
    /* a kernel the nearest release lists is not judged */
    free(f->os.kernel_release);
    f->os.kernel_release = xstrdup("6.14.0-15-generic");
    g_autofree char *listed = assess_ids(f);
    g_assert_cmpstr(listed, ==, "");
}

static void test_assess_rules(void)
{
    rd_facts f;
    fill_compat_facts(&f);
    add_gpu(&f);
    f.os.id = xstrdup("ubuntu");
    f.os.version_id = xstrdup("24.04");
    f.os.version_codename = xstrdup("noble");
    f.os.kernel_release = xstrdup("6.8.0-45-generic");

    /* the facts above: rocBLAS lacks gfx1100, jammy on noble, key in trusted.gpg without
     * signed-by, pin at 400, a stale 6.1.3 in ld.so.conf (but no second install), no
     * /opt/rocm/bin on PATH, Secure Boot on with DKMS but amdgpu loaded and no rejection */
    g_autofree char *ids = assess_ids(&f);
    g_assert_cmpstr(ids, ==,
                    "arch.no-kernels:error apt.suite-mismatch:error path.rocm-bin-missing:warning "
                    "apt.no-signed-by:warning apt.key-deprecated:warning apt.pin-missing:warning");

    assess_apt_fixed(&f);
    assess_driver_window(&f);
    assess_secure_boot(&f);
    assess_release_lines(&f);
    assess_dkms_unlisted(&f);
    rd_facts_free(&f);
}

static const rd_test_case tests[] = {
    { "/compat/support/shipped", test_shipped_support },
    { "/compat/support/pick-release", test_pick_release },
    { "/compat/support/apt-suite", test_apt_suite },
    { "/compat/support/version-compare", test_version_compare },
    { "/compat/parse/rocblas", test_rocblas_names },
    { "/compat/parse/dpkg-status", test_dpkg_status },
    { "/compat/parse/sources-one-line", test_sources_one_line },
    { "/compat/parse/sources-deb822", test_sources_deb822 },
    { "/compat/parse/preferences", test_preferences },
    { "/compat/parse/keyring", test_keyring },
    { "/compat/parse/boot-kmsg", test_boot_kmsg },
    { "/compat/facts/round-trip", test_round_trip },
    { "/compat/assess/rules", test_assess_rules },
};

int main(int argc, char **argv)
{
    rd_test_init(&argc, &argv, false);
    rd_test_load_knowledge(&shipped);
    rd_test_add_all(tests, G_N_ELEMENTS(tests));
    RD_TEST_ADD_TMP("/compat/support/good", test_good_support);
    RD_TEST_ADD_TMP("/compat/support/absent", test_absent_support);
    RD_TEST_ADD_TMP("/compat/support/malformed", test_malformed_support);
    int r = g_test_run();
    rd_knowledge_free(&shipped);
    return r;
}
