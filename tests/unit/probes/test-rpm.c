/* SPDX-License-Identifier: MIT */
/* Distribution families, the rpm part of the support table (loader,
 * templates, malformed lines with file:line), the rpm query and .repo
 * parsers, and kernel-devel matching. */
#include <glib.h>
#include <glib/gstdio.h>

#include "distro.h"
#include "facts-json.h"
#include "knowledge.h"
#include "rpm.h"
#include "wheels.h"
#include "util.h"
#include "testlib.h"

static void test_family(void)
{
    /* clang-format off */
    static const struct {
        const char *id, *like;
        rd_os_family want;
    } cases[] = {
        { "ubuntu", "debian", RD_OS_DEBIAN },     { "debian", NULL, RD_OS_DEBIAN },
        { "linuxmint", "ubuntu debian", RD_OS_DEBIAN }, { "pop", "ubuntu debian", RD_OS_DEBIAN },
        { "rhel", "fedora", RD_OS_RHEL },         { "rocky", "rhel centos fedora", RD_OS_RHEL },
        { "almalinux", "rhel centos fedora", RD_OS_RHEL }, { "ol", "fedora", RD_OS_RHEL },
        { "centos", "rhel fedora", RD_OS_RHEL },  { "fedora", NULL, RD_OS_FEDORA },
        { "sles", "suse", RD_OS_SUSE },           { "opensuse-leap", "suse opensuse", RD_OS_SUSE },
        { "someel", "rhel fedora", RD_OS_RHEL },  { "neon", "ubuntu debian", RD_OS_DEBIAN },
        { "arch", NULL, RD_OS_UNKNOWN },          { NULL, NULL, RD_OS_UNKNOWN },
        { "x", "  ", RD_OS_UNKNOWN },
    };
    /* clang-format on */
    for (size_t i = 0; i < G_N_ELEMENTS(cases); i++)
        g_assert_cmpint(rd_os_family_of(cases[i].id, cases[i].like), ==, cases[i].want);
    g_assert_cmpstr(rd_os_family_name(RD_OS_RHEL), ==, "rhel");
    g_assert_cmpstr(rd_os_family_name(RD_OS_UNKNOWN), ==, "unknown");
    g_assert_cmpstr(rd_os_package_manager(RD_OS_SUSE), ==, "zypper");
    g_assert_cmpstr(rd_os_package_manager(RD_OS_FEDORA), ==, "dnf");
    g_assert_null(rd_os_package_manager(RD_OS_UNKNOWN));
}

static rd_knowledge shipped;

static void test_shipped_rpm(void)
{
    g_assert_cmpstr(shipped.rpm.host, ==, "repo.radeon.com");
    g_assert_cmpstr(shipped.rpm.fingerprint, ==, "CA8BB4727A47B4D09B4EE8969386B48A1A693C5C");
    g_autofree char *name = rd_rpm_key_name(shipped.rpm.fingerprint);
    g_assert_cmpstr(name, ==, "gpg-pubkey-1a693c5c");
    g_assert_true(strv_contains(shipped.rpm.crb_repos, "crb"));
    g_assert_true(strv_contains(shipped.rpm.epel_packages, "perl-URI-Encode"));

    const rd_release *r60 = rd_knowledge_release(&shipped, "6.0.2");
    g_assert_cmpstr(r60->el_rocm, ==, "https://repo.radeon.com/rocm/rhel{major}/{rocm}/main");
    const rd_release *r71 = rd_knowledge_release(&shipped, "7.1.0");
    g_assert_cmpstr(r71->amdgpu, ==, "30.20.0");
    g_assert_nonnull(r71->el_graphics);
    /* Debian 13 uses noble from 7.1 on; a rebuild is judged as RHEL */
    g_assert_cmpstr(rd_knowledge_apt_suite(&shipped, "7.1.0", "trixie"), ==, "noble");
    g_assert_null(rd_knowledge_apt_suite(&shipped, "7.0.2", "trixie"));
    const rd_release_os *o = rd_release_find_os(r71, "rocky", "9.6");
    g_assert_nonnull(o);
    g_assert_cmpstr(o->id, ==, "rhel");
    g_assert_cmpstr(o->tree, ==, "9.6");
    g_assert_cmpstr(rd_release_find_os(r71, "rhel", "10.0")->tree, ==, "10");
    g_assert_null(rd_release_find_os(r71, "fedora", "42"));
    g_assert_nonnull(rd_release_find_os(rd_knowledge_release(&shipped, "6.4.3"), "opensuse-leap", "15.6"));
}

static void test_templates(void)
{
    char *v[4];
    g_assert_cmpint(rd_repo_template_match("https://repo.radeon.com/rocm/el{major}/{rocm}/main",
                                           "https://repo.radeon.com/rocm/el8/6.4.3/main/", v),
                    ==, 1);
    g_assert_cmpstr(v[0], ==, "6.4.3");
    g_assert_null(v[1]);
    g_assert_cmpstr(v[2], ==, "8");
    g_assert_null(v[3]);
    for (int i = 0; i < 4; i++)
        free(v[i]);
    g_assert_cmpint(rd_repo_template_match("https://repo.radeon.com/rocm/el{major}/{rocm}/main",
                                           "https://repo.radeon.com/rocm/rhel9/6.3.4/main", v),
                    ==, 0);
    g_assert_cmpint(rd_repo_template_match("https://repo.radeon.com/amdgpu/{amdgpu}/sle/{os}/main/x86_64/",
                                           "https://repo.radeon.com/amdgpu/6.4.3/sle/15.5/main/x86_64", v),
                    ==, 1);
    g_assert_cmpstr(v[1], ==, "6.4.3");
    g_assert_cmpstr(v[3], ==, "15.5");
    for (int i = 0; i < 4; i++)
        free(v[i]);
    /* an empty $amdgpudistro leaves "//": no match */
    g_assert_cmpint(rd_repo_template_match("https://repo.radeon.com/amdgpu/{amdgpu}/el/{os}/main/x86_64/",
                                           "https://repo.radeon.com/amdgpu/21.40/el//main/x86_64/", v),
                    ==, 0);
    const char *vals[4] = { "7.0.2", "30.10.2", "9", "9.6" };
    g_autofree char *url =
        rd_repo_template_expand("https://repo.radeon.com/amdgpu/{amdgpu}/el/{os}/main/x86_64/", vals);
    g_assert_cmpstr(url, ==, "https://repo.radeon.com/amdgpu/30.10.2/el/9.6/main/x86_64/");
}

static const rd_repo_var vars[] = { { "releasever", "9" }, { "basearch", "x86_64" }, { "amdgpudistro", "" } };

static void test_expand(void)
{
    g_autofree char *a = rd_repo_expand("https://x/el$releasever/${basearch}/$unknown/$", vars, 3);
    g_assert_cmpstr(a, ==, "https://x/el9/x86_64/$unknown/$");
    g_autofree char *b = rd_repo_expand("a/$amdgpudistro/b", vars, 3);
    g_assert_cmpstr(b, ==, "a//b");
}

static void test_repo_parse(void)
{
    static const char text[] = "# comment\r\n"
                               "[rocm]\r\n"
                               "name=ROCm 7.0.2 repository\r\n"
                               "baseurl=https://repo.radeon.com/rocm/el$releasever/7.0.2/main\r\n"
                               "enabled=1\r\n"
                               "gpgcheck=0\r\n"
                               "\r\n"
                               "[mirrors]\n"
                               "baseurl=\n"
                               "  https://a.example/one\n"
                               "  https://b.example/two\n"
                               "enabled=false\n"
                               "[nourl]\n"
                               "name=x\n"
                               "[rocm]\n"
                               "gpgkey=file:///etc/pki/rpm-gpg/RPM-GPG-KEY-rocm\n";
    rd_repos_facts repos = { 0 };
    rd_repo_config *cfg = &repos.dnf;
    rd_repo_parse(cfg, "/etc/yum.repos.d/t.repo", text, sizeof text - 1, vars, 3, "repo.radeon.com");
    g_assert_cmpuint(cfg->n_repos, ==, 3);
    rd_rpm_repo *r = &cfg->repos[0];
    g_assert_cmpstr(r->id, ==, "rocm");
    g_assert_cmpint(r->line, ==, 2);
    g_assert_cmpint(r->baseurl_line, ==, 4);
    g_assert_cmpstr(r->url, ==, "https://repo.radeon.com/rocm/el9/7.0.2/main");
    g_assert_true(r->amd);
    g_assert_true(r->enabled);
    g_assert_cmpstr(r->gpgcheck, ==, "0");
    g_assert_cmpstr(r->gpgkey, ==, "file:///etc/pki/rpm-gpg/RPM-GPG-KEY-rocm");
    g_assert_cmpstr(cfg->repos[1].url, ==, "https://a.example/one");
    g_assert_false(cfg->repos[1].enabled);
    g_assert_false(cfg->repos[1].amd);
    g_assert_cmpstr(cfg->repos[2].id, ==, "nourl");
    g_assert_null(cfg->repos[2].url);
    g_assert_cmpuint(strv_length(cfg->problems), ==, 2);
    g_assert_cmpstr(cfg->problems[0], ==,
                    "/etc/yum.repos.d/t.repo:15: [rocm] again (first at line 2): the client "
                    "takes one of them");
    g_assert_cmpstr(cfg->problems[1], ==,
                    "/etc/yum.repos.d/t.repo:13: [nourl] has no baseurl, mirrorlist or "
                    "metalink");
    rd_struct_free(&rd_repos_facts_schema, &repos);
}

/* A file at the 1 MiB cap with tens of thousands of sections: parsed in
 * n log n (the duplicate check used to compare every header with every one
 * seen before it, hours for this file; the test's timeout catches that),
 * and the duplicate at the end still found with its first line. */
static void test_repo_many(void)
{
    GString *s = g_string_new(NULL);
    size_t n = 0;
    while (s->len < 1000 * 1000)
        g_string_append_printf(s, "[s%zu]\nbaseurl=https://repo.radeon.com/rocm/el9/%zu/main\n", n, n), n++;
    g_string_append(s, "[s7]\nname=again\n");
    rd_repos_facts repos = { 0 };
    rd_repo_parse(&repos.dnf, "/m.repo", s->str, s->len, vars, 3, "repo.radeon.com");
    g_assert_cmpuint(repos.dnf.n_repos, ==, n);
    g_assert_cmpint(repos.dnf.repos[n - 1].line, ==, (int64_t)(2 * n - 1));
    g_assert_cmpstr(repos.dnf.repos[7].name, ==, "again");
    g_assert_cmpuint(strv_length(repos.dnf.problems), ==, 1);
    g_autofree char *want = g_strdup_printf("/m.repo:%zu: [s7] again (first at line 15): the client takes one of "
                                            "them",
                                            2 * n + 1);
    g_assert_cmpstr(repos.dnf.problems[0], ==, want);
    rd_struct_free(&rd_repos_facts_schema, &repos);

    /* 1 MB of empty sections: no repository, nothing to report */
    g_string_truncate(s, 0);
    for (n = 0; s->len < 1000 * 1000; n++)
        g_string_append_printf(s, "[e%zu]\n", n);
    rd_repos_facts empty = { 0 };
    rd_repo_parse(&empty.dnf, "/e.repo", s->str, s->len, vars, 3, "repo.radeon.com");
    g_assert_cmpuint(empty.dnf.n_repos, ==, 0);
    g_assert_null(empty.dnf.problems);
    rd_struct_free(&rd_repos_facts_schema, &empty);
    g_string_free(s, TRUE);
}

static void test_repo_garbage(void)
{
    static const char bin[] = "\x7f"
                              "ELF\x02\x01\x00\x00garbage\n[a]\nbaseurl=https://x/\n";
    rd_repos_facts repos = { 0 };
    rd_repo_parse(&repos.dnf, "/g.repo", bin, sizeof bin - 1, vars, 3, "repo.radeon.com");
    g_assert_nonnull(repos.dnf.problems);
    g_assert_cmpstr(repos.dnf.problems[0], ==, "/g.repo:1: binary data (a NUL byte): not a repository file");
    rd_struct_free(&rd_repos_facts_schema, &repos);

    /* a line longer than inih takes is cut, said, and the rest still parsed */
    g_autofree char *longline =
        g_strdup_printf("[l]\nname=%0300d\nbaseurl=https://repo.radeon.com/rocm/zyp/6.4.3/main\n", 0);
    rd_repos_facts r2 = { 0 };
    rd_repo_parse(&r2.zypper, "/l.repo", longline, strlen(longline), vars, 3, "repo.radeon.com");
    g_assert_cmpuint(r2.zypper.n_repos, ==, 1);
    g_assert_true(r2.zypper.repos[0].amd);
    g_assert_cmpstr(r2.zypper.problems[0], ==, "/l.repo:2: line longer than 200 characters: read only in part");
    rd_struct_free(&rd_repos_facts_schema, &r2);
}

static void test_rpm_query(void)
{
    static const char out[] = "rocm-core\t7.0.2.70002-56.el9\tx86_64\tROCm core\n"
                              "bash\t5.1.8-9.el9\tx86_64\tThe GNU Bourne Again shell\n"
                              "gpg-pubkey\t1a693c5c-5d438912\t(none)\tgpg(James Adrian Edwards)\n"
                              "perl-URI-Encode\t1.1.1-1.el9\tnoarch\tx\n"
                              "truncated-line\n";
    char *extra[] = { (char *)"perl-URI-Encode", NULL };
    rd_rpm_package *pk = NULL;
    size_t n = 0;
    rd_rpm_parse_query(out, extra, &pk, &n);
    g_assert_cmpuint(n, ==, 3);
    g_assert_cmpstr(pk[0].name, ==, "rocm-core");
    g_assert_cmpstr(pk[0].version, ==, "7.0.2.70002-56.el9");
    g_assert_null(pk[0].summary);
    g_assert_cmpstr(pk[1].version, ==, "1a693c5c-5d438912");
    g_assert_null(pk[1].arch);
    g_assert_cmpstr(pk[1].summary, ==, "gpg(James Adrian Edwards)");
    g_assert_cmpstr(pk[2].name, ==, "perl-URI-Encode");
    rd_rpm_facts f = { .packages = pk, .n_packages = n };
    rd_struct_free(&rd_rpm_facts_schema, &f);
}

static void test_kernel_devel(void)
{
    rd_rpm_package el = { (char *)"kernel-devel", (char *)"5.14.0-570.12.1.el9_6", (char *)"x86_64", NULL };
    g_assert_true(rd_kernel_devel_matches(&el, "5.14.0-570.12.1.el9_6.x86_64"));
    g_assert_false(rd_kernel_devel_matches(&el, "5.14.0-503.40.1.el9_5.x86_64"));
    rd_rpm_package suse = { (char *)"kernel-default-devel", (char *)"6.4.0-150600.23.25.1", (char *)"x86_64", NULL };
    g_assert_true(rd_kernel_devel_matches(&suse, "6.4.0-150600.23.25-default"));
    g_assert_false(rd_kernel_devel_matches(&suse, "6.4.0-150600.23.30-default"));
    rd_rpm_package other = { (char *)"kernel-headers", (char *)"5.14.0-570.12.1.el9_6", (char *)"x86_64", NULL };
    g_assert_false(rd_kernel_devel_matches(&other, "5.14.0-570.12.1.el9_6.x86_64"));
    g_autofree char *a = rd_kernel_devel_package(RD_OS_DEBIAN, "ubuntu", "6.8.0-51-generic");
    g_autofree char *b = rd_kernel_devel_package(RD_OS_RHEL, "ol", "5.15.0-300.163.18.el9uek.x86_64");
    g_autofree char *c = rd_kernel_devel_package(RD_OS_SUSE, "sles", "6.4.0-150600.23.25-default");
    g_assert_cmpstr(a, ==, "linux-headers-6.8.0-51-generic");
    g_assert_cmpstr(b, ==, "kernel-uek-devel-5.15.0-300.163.18.el9uek.x86_64");
    g_assert_cmpstr(c, ==, "kernel-default-devel");
}

/* ---- malformed [rpm] parts of support.ini: file:line ---- */

/* clang-format off */
static const struct {
    const char *text, *error;
} malformed[] = {
    { "[rpm]\nhost = repo.radeon.com/x\n", ":7: host \"repo.radeon.com/x\" is not a host name" },
    { "[rpm]\nfingerprint = 9386B48A1A693C5C\n", ":7: fingerprint \"9386B48A1A693C5C\" is not 40 upper-case hex digits" },
    { "[rpm]\nfingerprint = ca8bb4727a47b4d09b4ee8969386b48a1a693c5c\n", ":7: fingerprint" },
    { "[rpm]\ngpgkey = http://repo.radeon.com/rocm/rocm.gpg.key\n", ":7: gpgkey \"http://repo.radeon.com/rocm/rocm.gpg.key\" is not an https:// URL" },
    { "[rpm]\ncolour = blue\n", ":7: unknown key \"colour\" in [rpm]" },
    { "[rpm]\ncrb-repos =\n", ":7: crb-repos is empty" },
    { "[rocm 6.2]\nel-rocm = https://repo.radeon.com/rocm/el{distro}/{rocm}/main\n", ":7: el-rocm \"https://repo.radeon.com/rocm/el{distro}/{rocm}/main\": unknown placeholder" },
    { "[rocm 6.2]\nsles-rocm = https://repo.radeon.com/rocm/zyp/{rocm/main\n", ":7: sles-rocm" },
    { "[rocm 6.2]\namdgpu = thirty\n", ":7: amdgpu \"thirty\" is not a driver repository version like 30.20.1" },
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

static void test_malformed(void)
{
    g_autofree char *dir = g_dir_make_tmp("rocm-doctor-platforms-XXXXXX", NULL);
    g_autofree char *path = g_build_filename(dir, "support.ini", NULL);
    for (size_t i = 0; i < G_N_ELEMENTS(malformed); i++) {
        g_autofree char *text = g_strdup_printf("[table]\nname = support\nversion = 1\ndate = 2026-11-30\n\n%s"
                                                "[apt]\nhost = repo.radeon.com\nkey-id = 9386B48A1A693C5C\n"
                                                "pin-origin = repo.radeon.com\n"
                                                "[rocm 7.0]\nlatest = 7.0.2\ndate = 2025-09\ngfx = gfx942\n"
                                                "window = months 12\nos = rhel 9.6 - kernels 5.14\n",
                                                malformed[i].text);
        assert_load_fails(rd_knowledge_load_support, path, text, malformed[i].error, i);
    }
    /* templates without [rpm] */
    g_autofree char *text = g_strdup("[table]\nname = support\nversion = 1\ndate = 2026-11-30\n"
                                     "[apt]\nhost = repo.radeon.com\nkey-id = 9386B48A1A693C5C\n"
                                     "pin-origin = repo.radeon.com\n[rocm 7.0]\nlatest = 7.0.2\ndate = 2025-09\n"
                                     "gfx = gfx942\nwindow = months 12\nos = rhel 9.6 - kernels 5.14\n"
                                     "el-rocm = https://repo.radeon.com/rocm/el{major}/{rocm}/main\n");
    g_assert_true(g_file_set_contents(path, text, -1, NULL));
    rd_knowledge k = { 0 };
    char *err = NULL;
    g_assert_cmpint(rd_knowledge_load_archs(SRCDIR "/conf/archs.ini", &k, &err), ==, 0);
    g_assert_cmpint(rd_knowledge_load_support(path, &k, &err), <, 0);
    g_assert_true(g_str_has_suffix(err, "rpm repositories need an [rpm] section with host, fingerprint and gpgkey"));
    free(err);
    rd_knowledge_free(&k);
    g_unlink(path);
    g_rmdir(dir);
}

/* ---- ROCm Python wheels ---- */

static void test_wheel_metadata(void)
{
    static const struct {
        const char *text, *name, *version; /* name NULL: -EINVAL */
    } cases[] = {
        { "Metadata-Version: 2.1\nName: rocm-sdk-core\nVersion: 7.1.0\nSummary: x\n", "rocm-sdk-core", "7.1.0" },
        /* CRLF, and a nightly's version */
        { "Metadata-Version: 2.1\r\nName: rocm\r\nVersion: 7.14.0a20260612\r\n", "rocm", "7.14.0a20260612" },
        /* the headers end at the first empty line: the description is not read */
        { "Name: rocm-sdk-core\nVersion: 6.5.0rc20250610\n\nVersion: 9.9.9\nName: other\n", "rocm-sdk-core",
          "6.5.0rc20250610" },
        /* the first of a repeated header counts */
        { "Name: rocm\nName: torch\nVersion: 7.10.0.dev0\n", "rocm", "7.10.0.dev0" },
        { "Name: rocm-sdk-core\n\nVersion: 7.1.0\n", NULL, NULL },
        { "Version: 7.1.0\n", NULL, NULL },
        { "Name: rocm sdk\nVersion: 7.1.0\n", NULL, NULL },
        { "Name: rocm\nVersion: \n", NULL, NULL },
        { "Name: rocm\nVersion: 7.1.0\x1b[31m\n", NULL, NULL },
        { "", NULL, NULL },
    };
    for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
        char *name = NULL, *version = NULL;
        int r = rd_wheel_metadata_parse(cases[i].text, &name, &version);
        if (!cases[i].name) {
            g_assert_cmpint(r, ==, -EINVAL);
            g_assert_null(name);
            continue;
        }
        g_assert_cmpint(r, ==, 0);
        g_assert_cmpstr(name, ==, cases[i].name);
        g_assert_cmpstr(version, ==, cases[i].version);
        free(name);
        free(version);
    }
}

static void test_wheel_names(void)
{
    static const struct {
        const char *name, *norm;
        bool rocm;
    } cases[] = {
        { "rocm_sdk_libraries_gfx94X_dcgpu", "rocm-sdk-libraries-gfx94x-dcgpu", true },
        { "Rocm.SDK__core", "rocm-sdk-core", true },
        { "rocm", "rocm", true },
        { "rocm_sdk", "rocm-sdk", true },
        { "rocm-profiler", "rocm-profiler", true },
        { "rocm_sdk_device_gfx942", "rocm-sdk-device-gfx942", true },
        { "rocmlib", "rocmlib", false },
        { "pytorch_triton_rocm", "pytorch-triton-rocm", false },
        { "torch", "torch", false },
        { "", "", false },
    };
    for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
        g_autofree char *n = rd_wheel_normalize(cases[i].name);
        g_assert_cmpstr(n, ==, cases[i].norm);
        g_assert_cmpint(rd_wheel_is_rocm_dist(n), ==, cases[i].rocm);
    }
}

static void test_wheel_family(void)
{
    static const struct {
        const char *dist;
        int r;
        const char *family; /* NULL: none */
        const char *gfx;    /* space-separated; NULL: none */
    } cases[] = {
        { "rocm-sdk-libraries-gfx94X-dcgpu", 0, "gfx94X-dcgpu", "gfx942" },
        { "rocm_sdk_libraries_gfx110x_all", 0, "gfx110X-all", "gfx1100 gfx1101 gfx1102 gfx1103" },
        { "rocm-sdk-libraries-gfx110X-dgpu", 0, "gfx110X-dgpu", "gfx1100 gfx1101 gfx1102" },
        { "rocm-sdk-libraries-gfx950-dcgpu", 0, "gfx950-dcgpu", "gfx950" },
        { "rocm-sdk-libraries-gfx1151", 0, "gfx1151", "gfx1151" },
        /* a target the table lacks is a family of its own */
        { "rocm-sdk-libraries-gfx1201", 0, "gfx1201", "gfx1201" },
        /* a family the table lacks: named, its targets unknown */
        { "rocm-sdk-libraries-gfx13X-all", 0, "gfx13x-all", NULL },
        { "rocm_sdk_device_gfx942", 0, NULL, "gfx942" },
        { "rocm-sdk-device-gfx90a", 0, NULL, "gfx90a" },
        { "rocm-sdk-core", -ENOENT, NULL, NULL },
        { "rocm-sdk-libraries", -ENOENT, NULL, NULL },
        { "rocm-sdk-device-notagfx", -ENOENT, NULL, NULL },
        { "rocm", -ENOENT, NULL, NULL },
        { "rocm-sdk-libraries-gfx94X dcgpu", -EINVAL, NULL, NULL },
    };
    for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
        char *family = NULL, **gfx = NULL;
        int r = rd_wheel_family_parse(&shipped, cases[i].dist, &family, &gfx);
        if (r != cases[i].r)
            g_error("case %s: %d, want %d", cases[i].dist, r, cases[i].r);
        if (r < 0)
            continue;
        g_assert_cmpstr(family, ==, cases[i].family);
        g_autofree char *joined = gfx ? g_strjoinv(" ", gfx) : NULL;
        g_assert_cmpstr(joined, ==, cases[i].gfx);
        free(family);
        strv_free(gfx);
    }
}

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
    { "/platforms/family", test_family },
    { "/platforms/support/shipped-rpm", test_shipped_rpm },
    { "/platforms/support/templates", test_templates },
    { "/platforms/support/malformed", test_malformed },
    { "/platforms/repo/expand", test_expand },
    { "/platforms/repo/parse", test_repo_parse },
    { "/platforms/repo/garbage", test_repo_garbage },
    { "/platforms/repo/many", test_repo_many },
    { "/platforms/rpm/query", test_rpm_query },
    { "/platforms/rpm/kernel-devel", test_kernel_devel },
    { "/platforms/wheels/metadata", test_wheel_metadata },
    { "/platforms/wheels/names", test_wheel_names },
    { "/platforms/wheels/family", test_wheel_family },
    { "/platforms/wheels/table", test_wheel_table },
};

RD_TEST_MAIN_KNOWLEDGE(tests, false, &shipped)
