/* SPDX-License-Identifier: MIT */
/* conf/repos.ini, the repository table: the URLs it gives are the ones
 * public apt, dnf and zypper logs show AMD serving (each case cites its
 * log), the folders logs show failing are not in it, and the loader
 * refuses malformed rows naming file and line. Also: the knowledge tables
 * agree with each other (every release support.ini names has its rows). */
#include <glib.h>
#include <glib/gstdio.h>

#include "knowledge.h"
#include "util.h"
#include "testlib.h"

#define BASE "https://repo.radeon.com"

static rd_knowledge shipped;

typedef struct {
    const char *release;
    rd_repo_family family;
    rd_repo_kind kind;
    const char *suite, *major, *os;
    const char *url; /* as the log shows it */
    const char *log;
} log_case;

/* clang-format off */
static const log_case served[] = {
    { "5.7.0", RD_REPO_APT, RD_REPO_ROCM, "jammy", NULL, NULL, BASE "/rocm/apt/5.7",
      "https://github.com/ROCm/ROCm/issues/4575 Hit:11 https://repo.radeon.com/rocm/apt/5.7 jammy InRelease" },
    { "6.0.1", RD_REPO_APT, RD_REPO_AMDGPU, "jammy", NULL, NULL, BASE "/amdgpu/6.0.1/ubuntu",
      "https://github.com/ROCm/ROCm/issues/2451 https://repo.radeon.com/amdgpu/6.0.1/ubuntu jammy/main" },
    { "6.0.2", RD_REPO_APT, RD_REPO_ROCM, "jammy", NULL, NULL, BASE "/rocm/apt/6.0.2",
      "https://github.com/ROCm/ROCm/issues/2934 https://repo.radeon.com/rocm/apt/6.0.2 jammy InRelease" },
    { "6.1.2", RD_REPO_APT, RD_REPO_ROCM, "jammy", NULL, NULL, BASE "/rocm/apt/6.1.2",
      "https://github.com/ROCm/ROCm/issues/3306 Get:3 https://repo.radeon.com/rocm/apt/6.1.2 jammy/main" },
    { "6.2.0", RD_REPO_APT, RD_REPO_AMDGPU, "jammy", NULL, NULL, BASE "/amdgpu/6.2/ubuntu",
      "https://github.com/ROCm/ROCm/issues/3563 Hit:1 https://repo.radeon.com/amdgpu/6.2/ubuntu jammy InRelease" },
    { "6.2.4", RD_REPO_EL, RD_REPO_ROCM, NULL, "8", "8.10", BASE "/rocm/el8/6.2.4/main",
      "https://github.com/ROCm/rocm-install-on-linux/issues/350 baseurl https://repo.radeon.com/rocm/el8/6.2.4/main" },
    { "6.2.0", RD_REPO_SLES, RD_REPO_ROCM, NULL, "15", "15.5", BASE "/rocm/zyp/6.2/main",
      "https://github.com/ROCm/rocm-install-on-linux/pull/287 rocm-6.2.0.60200-sles155 resolved by zypper" },
    { "6.3.2", RD_REPO_APT, RD_REPO_AMDGPU, "noble", NULL, NULL, BASE "/amdgpu/6.3.2/ubuntu",
      "https://github.com/ROCm/ROCm/issues/4358 Get:1 https://repo.radeon.com/amdgpu/6.3.2/ubuntu noble InRelease" },
    { "6.4.0", RD_REPO_APT, RD_REPO_ROCM, "jammy", NULL, NULL, BASE "/rocm/apt/6.4",
      "https://github.com/ROCm/ROCm/issues/4691 rocm/apt/6.4.0 404; rocm/apt/6.4 jammy works" },
    { "6.4.1", RD_REPO_APT, RD_REPO_ROCM, "noble", NULL, NULL, BASE "/rocm/apt/6.4.1",
      "https://github.com/ROCm/ROCm/issues/4812 Hit:9 https://repo.radeon.com/rocm/apt/6.4.1 noble InRelease" },
    { "6.4.1", RD_REPO_SLES, RD_REPO_ROCM, NULL, "15", "15.6", BASE "/rocm/zyp/6.4.1/main",
      "spack/spack-packages aqlprofile: rocm/zyp/6.4.1/main/hsa-amd-aqlprofile6.4.1-...-sles156 (sha256 pinned)" },
    { "6.4.4", RD_REPO_EL, RD_REPO_ROCM, NULL, "9", "9.6", BASE "/rocm/el9/6.4.4/main",
      "https://github.com/ROCm/ROCm/issues/5954 ROCm 6.4.4 repository 3.5 MB/s (rocm/el9/6.4.4/main)" },
    { "7.0.0", RD_REPO_APT, RD_REPO_AMDGPU, "noble", NULL, NULL, BASE "/amdgpu/30.10/ubuntu",
      "https://github.com/ROCm/ROCm/issues/5361 Hit:6 https://repo.radeon.com/amdgpu/30.10/ubuntu noble InRelease" },
    { "7.0.0", RD_REPO_APT, RD_REPO_GRAPHICS, "noble", NULL, NULL, BASE "/graphics/7.0/ubuntu",
      "https://github.com/ROCm/ROCm/issues/5361 Hit:8 https://repo.radeon.com/graphics/7.0/ubuntu noble InRelease" },
    { "7.0.1", RD_REPO_EL, RD_REPO_GRAPHICS, NULL, "9", "9.6", BASE "/graphics/7.0.1/el/9.6/main/x86_64/",
      "docs-7.0.1 package-manager-rl.html [amdgraphics] baseurl=https://repo.radeon.com/graphics/7.0.1/el/9.6/main/x86_64/" },
    { "7.0.2", RD_REPO_APT, RD_REPO_AMDGPU, "noble", NULL, NULL, BASE "/amdgpu/30.10.2/ubuntu",
      "https://github.com/ROCm/ROCm/issues/5509 Hit:3 https://repo.radeon.com/amdgpu/30.10.2/ubuntu noble InRelease" },
    { "7.1.0", RD_REPO_APT, RD_REPO_AMDGPU, "noble", NULL, NULL, BASE "/amdgpu/30.20/ubuntu",
      "https://github.com/ROCm/ROCm/issues/5671 (Debian 13) Hit:5 https://repo.radeon.com/amdgpu/30.20/ubuntu noble" },
    { "7.1.0", RD_REPO_APT, RD_REPO_ROCM, "noble", NULL, NULL, BASE "/rocm/apt/7.1",
      "https://github.com/ROCm/ROCm/issues/5671 (Debian 13) Hit:6 https://repo.radeon.com/rocm/apt/7.1 noble" },
    { "7.1.0", RD_REPO_EL, RD_REPO_GRAPHICS, NULL, "9", "9.6", BASE "/graphics/7.1/el/9.6/main/x86_64/",
      "https://github.com/ROCm/rocm-install-on-linux/issues/628 graphics/7.1/el/9.6/main/x86_64/ beside rocm/el9/7.1/main" },
    { "7.1.1", RD_REPO_APT, RD_REPO_ROCM, "noble", NULL, NULL, BASE "/rocm/apt/7.1.1",
      "https://github.com/ROCm/ROCm/issues/5797 600 https://repo.radeon.com/rocm/apt/7.1.1 noble/main amd64 Packages" },
    { "7.2.0", RD_REPO_APT, RD_REPO_AMDGPU, "noble", NULL, NULL, BASE "/amdgpu/30.30/ubuntu",
      "https://github.com/ROCm/ROCm/issues/5968 Hit:10 https://repo.radeon.com/amdgpu/30.30/ubuntu noble InRelease" },
    { "7.2.0", RD_REPO_APT, RD_REPO_ROCM, "noble", NULL, NULL, BASE "/rocm/apt/7.2",
      "https://github.com/ROCm/ROCm/issues/5968 Get:11 https://repo.radeon.com/rocm/apt/7.2 noble InRelease" },
    { "7.2.1", RD_REPO_EL, RD_REPO_AMDGPU, NULL, "9", "9.7", BASE "/amdgpu/30.30.1/el/9.7/main/x86_64/",
      "https://github.com/ROCm/ROCm/issues/6140 amdgpu/30.30.1/el/$amdgpudistro/main/x86_64 works on 9.7" },
    { "7.2.1", RD_REPO_SLES, RD_REPO_ROCM, NULL, "15", "15.7", BASE "/rocm/zyp/7.2.1/main",
      "https://github.com/ROCm/ROCm/issues/6144 baseurl=https://repo.radeon.com/rocm/zyp/7.2.1/main" },
    { "7.2.1", RD_REPO_SLES, RD_REPO_GRAPHICS, NULL, "15", "15.7", BASE "/graphics/7.2.1/sle/15.7/main/x86_64/",
      "https://github.com/ROCm/ROCm/issues/6144 graphics/7.2.1/sle/15.7/main/x86_64/" },
    { "7.2.4", RD_REPO_EL, RD_REPO_AMDGPU, NULL, "9", "9.7", BASE "/amdgpu/30.30.4/el/9.7/main/x86_64/",
      "log: amdgpu/30.30.4/el/9.7/main/x86_64/amdgpu-dkms-firmware-30.30.4.0.30300400-2341068.el9.noarch.rpm" },
};

/* Folders logs show failing (404), and the folder AMD serves instead. */
typedef struct {
    const char *path;
    rd_repo_family family;
    rd_repo_kind kind;
    const char *meant;     /* the release the path meant */
    const char *served;    /* what the table serves for it (apt: no suite needed) */
    const char *log;
} missing_case;

static const missing_case missing[] = {
    { "rocm/apt/6.4.0", RD_REPO_APT, RD_REPO_ROCM, "6.4.0", BASE "/rocm/apt/6.4",
      "https://github.com/ROCm/ROCm/issues/4691 Err:7 https://repo.radeon.com/rocm/apt/6.4.0 jammy Release 404" },
    { "amdgpu/7.1/ubuntu", RD_REPO_APT, RD_REPO_AMDGPU, "7.1.0", BASE "/amdgpu/30.20/ubuntu",
      "https://github.com/ROCm/ROCm/issues/5625 Err:22 https://repo.radeon.com/amdgpu/7.1/ubuntu noble Release 404" },
    { "amdgpu/7.2/ubuntu", RD_REPO_APT, RD_REPO_AMDGPU, "7.2.0", BASE "/amdgpu/30.30/ubuntu",
      "https://github.com/ROCm/ROCm/issues/5968 Err:15 https://repo.radeon.com/amdgpu/7.2/ubuntu noble Release 404" },
    { "rocm/el9/7.1.0/main", RD_REPO_EL, RD_REPO_ROCM, "7.1.0", NULL,
      "the 7.1.0 tree by the X.Y.0 rule (rocm/el9/7.1/main is served: rocm-install-on-linux#628)" },
    { "amdgpu/6.4.4/el/9.7/main/x86_64", RD_REPO_EL, RD_REPO_AMDGPU, "6.4.4", NULL,
      "https://github.com/ROCm/ROCm/issues/5954 Status code: 404 for .../amdgpu/6.4.4/el/9.7/main/x86_64" },
    { "amdgpu/30.10.1/el/9.7/main/x86_64", RD_REPO_EL, RD_REPO_AMDGPU, "7.0.1", NULL,
      "https://github.com/ROCm/ROCm/issues/5954 Status code: 404 for .../amdgpu/30.10.1/el/9.7/main/x86_64" },
    { "amdgpu/6.1.1/sle/20240524/main/x86_64", RD_REPO_SLES, RD_REPO_AMDGPU, "6.1.1", NULL,
      "https://github.com/ROCm/ROCm/issues/3191 .../amdgpu/6.1.1/sle/20240524/main/x86_64 404" },
};
/* clang-format on */

static void test_served(void)
{
    const char *releases[G_N_ELEMENTS(served)];
    size_t n_releases = 0;
    bool families[RD_REPO_N_FAMILIES] = { false };
    for (size_t i = 0; i < G_N_ELEMENTS(served); i++) {
        const log_case *c = &served[i];
        const rd_repo_row *row = rd_repos_find(&shipped, c->release);
        if (!row)
            g_error("case %zu (%s): no row for %s", i, c->log, c->release);
        const rd_repo_os os = { c->suite, c->major, c->os };
        g_autofree char *url = rd_repos_url(BASE, row, c->family, c->kind, &os);
        if (g_strcmp0(url, c->url) != 0)
            g_error("case %zu (%s): the table gives %s", i, c->log, url);
        /* and a URL of that folder is recognised as served by that row */
        rd_repo_match m;
        g_assert_cmpint(rd_repos_classify(&shipped, c->url + strlen(BASE) + 1, &m), ==, 1);
        if (m.row != row)
            g_error("case %zu (%s): classified as %s", i, c->log, m.row ? m.row->release : "not served");
        g_assert_cmpint(m.family, ==, c->family);
        g_assert_cmpint(m.kind, ==, c->kind);
        rd_repo_match_done(&m);
        bool seen = false;
        for (size_t j = 0; j < n_releases; j++)
            seen |= streq(releases[j], c->release);
        if (!seen)
            releases[n_releases++] = c->release;
        families[c->family] = true;
    }
    g_assert_cmpuint(n_releases, >=, 12);
    for (int f = 0; f < RD_REPO_N_FAMILIES; f++)
        g_assert_true(families[f]);
}

/* Debian, the fourth family: AMD serves it through an Ubuntu suite, which
 * the support table maps (ROCm/ROCm#5577: Debian 13 with rocm/apt/7.0.2
 * noble and amdgpu/30.10.2/ubuntu noble; #5671: Debian 13 on 7.1). */
static void test_debian(void)
{
    const char *suite = rd_knowledge_apt_suite(&shipped, "7.1.0", "trixie");
    g_assert_cmpstr(suite, ==, "noble");
    const rd_repo_row *row = rd_repos_find(&shipped, "7.1.0");
    g_assert_true(rd_repo_serves_suite(row, suite));
    g_assert_false(rd_repo_serves_suite(row, "trixie"));
    g_assert_false(rd_repo_serves_suite(row, "bookworm"));
    g_assert_cmpstr(rd_knowledge_apt_suite(&shipped, "7.2.3", "bookworm"), ==, "jammy");
    g_assert_true(rd_repo_serves_suite(rd_repos_find(&shipped, "7.2.3"), "jammy"));
}

static void test_missing(void)
{
    for (size_t i = 0; i < G_N_ELEMENTS(missing); i++) {
        const missing_case *c = &missing[i];
        rd_repo_match m;
        g_assert_cmpint(rd_repos_classify(&shipped, c->path, &m), ==, 1);
        if (m.row)
            g_error("case %zu (%s): %s is in the table (row %s)", i, c->log, c->path, m.row->release);
        g_assert_false(m.newer);
        g_assert_true(m.versioned);
        g_assert_cmpint(m.family, ==, c->family);
        g_assert_cmpint(m.kind, ==, c->kind);
        g_assert_nonnull(m.meant);
        g_assert_cmpstr(m.meant->release, ==, c->meant);
        if (c->served) {
            g_autofree char *url = rd_repos_url(BASE, m.meant, c->family, c->kind, NULL);
            g_assert_cmpstr(url, ==, c->served);
        }
        rd_repo_match_done(&m);
    }
}

static void test_classify(void)
{
    rd_repo_match m;
    /* newer than the table: not judged */
    g_assert_cmpint(rd_repos_classify(&shipped, "rocm/apt/7.3", &m), ==, 1);
    g_assert_null(m.row);
    g_assert_true(m.newer);
    rd_repo_match_done(&m);
    g_assert_cmpint(rd_repos_classify(&shipped, "amdgpu/30.40/ubuntu", &m), ==, 1);
    g_assert_true(m.newer);
    rd_repo_match_done(&m);
    g_assert_cmpint(rd_repos_classify(&shipped, "amdgpu/30.30.3/ubuntu", &m), ==, 1);
    g_assert_cmpstr(m.row->release, ==, "7.2.3");
    g_assert_false(m.newer);
    rd_repo_match_done(&m);
    /* aliases: "latest", the old unversioned layout */
    g_assert_cmpint(rd_repos_classify(&shipped, "rocm/apt/latest", &m), ==, 1);
    g_assert_false(m.versioned);
    rd_repo_match_done(&m);
    g_assert_cmpint(rd_repos_classify(&shipped, "rocm/apt/debian/", &m), ==, 1);
    g_assert_cmpstr(m.version, ==, "debian");
    g_assert_false(m.versioned);
    rd_repo_match_done(&m);
    /* rhel and el spellings are both served; the trees must be the row's */
    g_assert_cmpint(rd_repos_classify(&shipped, "rocm/rhel9/7.1.1/main/", &m), ==, 1);
    g_assert_cmpstr(m.row->release, ==, "7.1.1");
    g_assert_cmpstr(m.major, ==, "9");
    rd_repo_match_done(&m);
    g_assert_cmpint(rd_repos_classify(&shipped, "amdgpu/30.10.2/el/8/main/x86_64/", &m), ==, 1);
    g_assert_cmpstr(m.row->release, ==, "7.0.2");
    g_assert_cmpstr(m.os, ==, "8");
    rd_repo_match_done(&m);
    /* the trailing '/' of AMD's baseurls is optional, as dnf takes it */
    g_assert_cmpint(rd_repos_classify(&shipped, "amdgpu/30.10.2/el/9.6/main/x86_64", &m), ==, 1);
    g_assert_cmpstr(m.row->release, ==, "7.0.2");
    rd_repo_match_done(&m);
    g_assert_cmpint(rd_repos_classify(&shipped, "amdgpu/30.10.2/el/8.10/main/x86_64/", &m), ==, 1);
    g_assert_null(m.row);
    rd_repo_match_done(&m);
    /* a driver hotfix folder listed as "also" */
    g_assert_cmpint(rd_repos_classify(&shipped, "amdgpu/6.4.2.1/ubuntu", &m), ==, 1);
    g_assert_cmpstr(m.row->release, ==, "6.4.2");
    rd_repo_match_done(&m);
    /* not AMD's repository shapes */
    g_assert_cmpint(rd_repos_classify(&shipped, "rocm/manylinux/rocm-rel-7.1/", &m), ==, 0);
    g_assert_cmpint(rd_repos_classify(&shipped, "ubuntu/dists", &m), ==, 0);
    g_assert_cmpint(rd_repos_classify(&shipped, NULL, &m), ==, 0);
}

static void test_find(void)
{
    g_assert_cmpstr(rd_repos_find(&shipped, "6.4")->release, ==, "6.4.0");
    g_assert_cmpstr(rd_repos_find(&shipped, "6.4.1-83")->release, ==, "6.4.1");
    g_assert_null(rd_repos_find(&shipped, "7.3.0"));
    g_assert_null(rd_repos_find(&shipped, "six"));
    g_assert_null(rd_repos_find(&shipped, NULL));
    g_assert_cmpstr(rd_repos_newest_of_line(&shipped, "7.2")->release, ==, "7.2.4");
    g_assert_cmpstr(rd_repos_newest(&shipped)->release, ==, "7.2.4");
    g_autofree char *key = rd_repos_key_url(&shipped, BASE);
    g_assert_cmpstr(key, ==, BASE "/rocm/rocm.gpg.key");
    g_assert_cmpstr(shipped.repo_fingerprint, ==, "CA8BB4727A47B4D09B4EE8969386B48A1A693C5C");
    /* trees: own, else the nearest of the same major */
    const rd_repo_row *r = rd_repos_find(&shipped, "7.2.3");
    g_assert_cmpstr(rd_repo_pick_tree(r, RD_REPO_EL, "9.7"), ==, "9.7");
    g_assert_cmpstr(rd_repo_pick_tree(r, RD_REPO_EL, "8.10"), ==, "8");
    g_assert_cmpstr(rd_repo_pick_tree(r, RD_REPO_EL, "10.1"), ==, "10");
    g_assert_cmpstr(rd_repo_pick_tree(r, RD_REPO_SLES, "15.6"), ==, "15.7");
    g_assert_null(rd_repo_pick_tree(r, RD_REPO_EL, "7.9"));
    g_assert_cmpstr(rd_repo_pick_tree(rd_repos_find(&shipped, "6.4.4"), RD_REPO_EL, "9.7"), ==, "9.6");
    /* a path that needs an OS part the caller lacks gives no URL */
    g_assert_null(rd_repos_url(BASE, r, RD_REPO_EL, RD_REPO_AMDGPU, NULL));
    /* a release with apt folders only */
    g_assert_null(rd_repo_path(rd_repos_find(&shipped, "6.2.3"), RD_REPO_EL, RD_REPO_ROCM));
}

/* The tables agree: every release line of support.ini has its latest
 * release in the repository table, every OS it lists is served by that
 * release (apt: its suite; EL and SLES: a tree of its major), and every
 * use case of packages.ini names packages for each family. */
static void test_tables_agree(void)
{
    g_assert_cmpuint(shipped.n_repos, >=, 30);
    for (size_t i = 0; i < shipped.n_releases; i++) {
        const rd_release *rel = &shipped.releases[i];
        if (rd_version_compare(rel->line, "5.7") < 0)
            continue; /* the table starts at 5.7 */
        const rd_repo_row *row = rd_repos_find(&shipped, rel->latest);
        if (!row)
            g_error("support.ini [rocm %s] latest %s has no [release] in repos.ini", rel->line, rel->latest);
        for (size_t j = 0; j < rel->n_os; j++) {
            const rd_release_os *o = &rel->os[j];
            if (o->apt_suite) {
                if (!rd_repo_serves_suite(row, rel->apt_suite_ubuntu ? "ubuntu" : o->apt_suite))
                    g_error("ROCm %s on %s %s: suite %s is not served (repos.ini suites)", row->release, o->id,
                            o->version_id, o->apt_suite);
                continue;
            }
            rd_repo_family f = streq(o->id, "sles") ? RD_REPO_SLES : RD_REPO_EL;
            if (!rd_repo_pick_tree(row, f, o->version_id))
                g_error("ROCm %s on %s %s: no %s tree of that major in repos.ini", row->release, o->id, o->version_id,
                        rd_repo_family_name(f));
        }
    }
    const rd_packages_table *t = &shipped.packages;
    g_assert_cmpuint(t->n_usecases, >, 0);
    for (size_t i = 0; i < t->n_usecases; i++) {
        g_assert_nonnull(t->usecases[i].apt);
        g_assert_nonnull(t->usecases[i].dnf);
        g_assert_nonnull(t->usecases[i].zypper);
        g_assert_true(!t->usecases[i].since || rd_version_compare(t->usecases[i].since, "5.7") <= 0 ||
                      rd_repos_find(&shipped, t->usecases[i].since) ||
                      rd_repos_newest_of_line(&shipped, t->usecases[i].since));
    }
    /* and the other way: every row's line is in the support table */
    for (size_t i = 0; i < shipped.n_repos; i++)
        if (!rd_knowledge_release(&shipped, shipped.repos[i].release))
            g_error("repos.ini [release %s] has no line in support.ini", shipped.repos[i].release);
}

/* ---- malformed tables: file:line ---- */

/* clang-format off */
static const struct {
    const char *text, *error;
} malformed[] = {
    { "[release 6.4]\nsource = x\n", ":9: section [release 6.4] is neither [table], [key] nor [release X.Y.Z]" },
    { "[release 6.4.0]\napt-rocm = /rocm/apt/6.4\n", ":9: apt-rocm \"/rocm/apt/6.4\" is not a path under the repository base" },
    { "[release 6.4.0]\napt-rocm = https://repo.radeon.com/rocm/apt/6.4\n", ":9: apt-rocm \"https://repo.radeon.com/rocm/apt/6.4\" is not a path" },
    { "[release 6.4.0]\napt-rocm = rocm/apt/{rocm}\n", ":9: apt-rocm \"rocm/apt/{rocm}\": placeholder at \"{rocm}\" is not one of {suite}" },
    { "[release 6.4.0]\nel-rocm = rocm/el{suite}/6.4/main\n", ":9: el-rocm \"rocm/el{suite}/6.4/main\": placeholder at" },
    { "[release 6.4.0]\napt-rocm = rocm/apt/../6.4\n", ":9: apt-rocm \"rocm/apt/../6.4\": no . or .. components" },
    { "[release 6.4.0]\napt-rocm = rocm/apt/6.4;rm\n", ":9: apt-rocm \"rocm/apt/6.4;rm\": only letters" },
    { "[release 6.4.0]\ndate = April\n", ":9: date \"April\" is not YYYY-MM-DD" },
    { "[release 6.4.0]\ndriver = thirty\n", ":9: driver \"thirty\" is not a version" },
    { "[release 6.4.0]\nsuites = Noble\n", ":9: suites: \"Noble\" is not an apt suite" },
    { "[release 6.4.0]\nel-trees = 9.6 9.6\n", ":9: el-trees: 9.6 is listed twice" },
    { "[release 6.4.0]\ncolour = blue\n", ":9: unknown key \"colour\" in [release 6.4.0]" },
    { "[release 7.0.0]\nsource = x\n[release 6.4.0]\nsource = y\n", ":11: section [release 6.4.0] comes after [release 7.0.0]" },
    { "[key]\nfingerprint = 9386B48A1A693C5C\n", ":9: fingerprint \"9386B48A1A693C5C\" is not 40 upper-case hex digits" },
    /* across a row, once read whole */
    { "[release 6.4.0]\nsource = x\napt-rocm = rocm/apt/6.4.0.1\n", ": [release 6.4.0] apt-rocm \"rocm/apt/6.4.0.1\" names neither 6.4.0 nor its X.Y" },
    { "[release 7.2.0]\nsource = x\ndriver = 30.30\napt-rocm = rocm/apt/7.2\napt-amdgpu = amdgpu/7.2/ubuntu\nsuites = noble\n", ": [release 7.2.0] apt-amdgpu \"amdgpu/7.2/ubuntu\" names neither 30.30" },
    { "[release 6.4.0]\nsource = x\napt-rocm = rocm/apt/6.4\n", ": [release 6.4.0] apt-rocm needs suites" },
    { "[release 6.4.0]\nsource = x\nel-rocm = rocm/el{major}/6.4/main\nel-amdgpu = amdgpu/6.4/el/{os}/main/x86_64\nel-trees = 9.6\n", ": [release 6.4.0] has driver folders but no driver version" },
    { "[release 6.4.0]\nsource = x\ndriver = 6.4\nel-rocm = rocm/el{major}/6.4/main\nel-amdgpu = amdgpu/6.4/el/{os}/main/x86_64\n", ": [release 6.4.0] el-amdgpu has {os} but no el-trees" },
    { "[release 6.4.0]\ndriver = 6.4\napt-rocm = rocm/apt/6.4\nsuites = noble\n", ": [release 6.4.0] needs at least one source" },
};
/* clang-format on */

static void test_malformed(void)
{
    g_autofree char *dir = g_dir_make_tmp("rocm-doctor-repos-XXXXXX", NULL);
    g_autofree char *path = g_build_filename(dir, "repos.ini", NULL);
    for (size_t i = 0; i < G_N_ELEMENTS(malformed); i++) {
        g_autofree char *text = g_strdup_printf("[table]\nname = repos\nversion = 1\ndate = 2026-12-06\n"
                                                "[key]\npath = rocm/rocm.gpg.key\n"
                                                "fingerprint = CA8BB4727A47B4D09B4EE8969386B48A1A693C5C\n%s",
                                                malformed[i].text);
        g_assert_true(g_file_set_contents(path, text, -1, NULL));
        rd_knowledge k = { 0 };
        char *err = NULL;
        g_assert_cmpint(rd_knowledge_load_repos(path, &k, &err), ==, -EINVAL);
        g_autofree char *want = g_strconcat(path, malformed[i].error, NULL);
        if (!g_str_has_prefix(err, want))
            g_error("case %zu: got \"%s\", want a message starting \"%s\"", i, err, want);
        free(err);
        rd_knowledge_free(&k);
    }
    g_unlink(path);
    g_rmdir(dir);
}

static const rd_test_case tests[] = {
    { "/repos/served-as-logged", test_served },
    { "/repos/debian-through-ubuntu-suites", test_debian },
    { "/repos/missing-as-logged", test_missing },
    { "/repos/classify", test_classify },
    { "/repos/find", test_find },
    { "/repos/tables-agree", test_tables_agree },
    { "/repos/malformed", test_malformed },
};

int main(int argc, char **argv)
{
    rd_test_init(&argc, &argv, false);
    rd_test_load_knowledge(&shipped);
    rd_test_add_all(tests, G_N_ELEMENTS(tests));
    int r = g_test_run();
    rd_knowledge_free(&shipped);
    return r;
}
