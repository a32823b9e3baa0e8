/* SPDX-License-Identifier: MIT */
/* The parsers of the rpm probes: .repo files (variables, sections,
 * duplicates, garbage, size) and the rpm query, kernel-devel matching, and
 * which folder of a tree is its rpm database. */
#include <fcntl.h>
#include <glib.h>
#include <glib/gstdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "context.h"
#include "facts-json.h"
#include "rpm.h"
#include "util.h"
#include "testlib.h"

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

/* A file in folder dir of the tree (made with its parents). */
static void put_in(const char *top, const char *dir, const char *name)
{
    g_autofree char *d = g_build_filename(top, dir, NULL);
    g_assert_cmpint(g_mkdir_with_parents(d, 0755), ==, 0);
    g_autofree char *f = g_build_filename(d, name, NULL);
    g_assert_true(g_file_set_contents(f, "", 0, NULL));
}

/* A symbolic link name -> target in folder dir of the tree. */
static void link_in(const char *top, const char *dir, const char *name, const char *target)
{
    g_autofree char *d = g_build_filename(top, dir, NULL);
    g_assert_cmpint(g_mkdir_with_parents(d, 0755), ==, 0);
    g_autofree char *l = g_build_filename(d, name, NULL);
    g_assert_cmpint(symlink(target, l), ==, 0);
}

static const char *dbpath_of(const char *top)
{
    int fd = open(top, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    g_assert_cmpint(fd, >=, 0);
    const char *db = rd_rpm_dbpath_at(fd, 0);
    close(fd);
    return db;
}

static char *fresh_tree(void)
{
    char *top = g_dir_make_tmp("rd-rpmdb-XXXXXX", NULL);
    g_assert_nonnull(top);
    return top;
}

static void remove_tree(char *top)
{
    g_autofree char *cmd = g_strdup_printf("rm -rf '%s'", top);
    g_assert_cmpint(system(cmd), ==, 0);
    g_free(top);
}

/* The tree's rpm database: /usr/lib/sysimage/rpm before /var/lib/rpm, a
 * folder with nothing but dot-files (rpm's lock) is none, and a link is
 * followed inside the tree. */
static void test_dbpath(void)
{
    char *t = fresh_tree();
    g_assert_null(dbpath_of(t));
    put_in(t, "var/lib/rpm", "rpmdb.sqlite");
    g_assert_cmpstr(dbpath_of(t), ==, "/var/lib/rpm");
    put_in(t, "usr/lib/sysimage/rpm", ".rpm.lock");
    g_assert_cmpstr(dbpath_of(t), ==, "/var/lib/rpm");
    put_in(t, "usr/lib/sysimage/rpm", "rpmdb.sqlite");
    g_assert_cmpstr(dbpath_of(t), ==, "/usr/lib/sysimage/rpm");
    remove_tree(t);

    /* Fedora 36 on: /var/lib/rpm a link to it; SUSE: sysimage alone */
    t = fresh_tree();
    put_in(t, "usr/lib/sysimage/rpm", "Packages.db");
    g_assert_cmpstr(dbpath_of(t), ==, "/usr/lib/sysimage/rpm");
    link_in(t, "var/lib", "rpm", "../../usr/lib/sysimage/rpm");
    g_assert_cmpstr(dbpath_of(t), ==, "/usr/lib/sysimage/rpm");
    remove_tree(t);

    /* an absolute link: followed inside the tree, never to the host's */
    t = fresh_tree();
    put_in(t, "var/lib/rpm", "Packages");
    link_in(t, "usr/lib/sysimage", "rpm", "/var/lib/rpm");
    g_assert_cmpstr(dbpath_of(t), ==, "/usr/lib/sysimage/rpm");
    remove_tree(t);
}

static const rd_test_case tests[] = {
    { "/rpm/repo/expand", test_expand },
    { "/rpm/repo/parse", test_repo_parse },
    { "/rpm/repo/garbage", test_repo_garbage },
    { "/rpm/repo/many", test_repo_many },
    /* the rpm query */
    { "/rpm/query", test_rpm_query },
    { "/rpm/kernel-devel", test_kernel_devel },
    { "/rpm/dbpath", test_dbpath },
};

RD_TEST_MAIN(tests, false)
