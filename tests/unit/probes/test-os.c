/* SPDX-License-Identifier: MIT */
/* rd_os_release_get: os-release(5) values. */
#include <glib.h>

#include "os.h"
#include "util.h"
#include "testlib.h"
#include "assess-lib.h"

static void assert_value(const char *text, const char *key, const char *expected)
{
    g_autofree char *v = rd_os_release_get(text, key);
    g_assert_cmpstr(v, ==, expected);
}

static const char ubuntu[] = "PRETTY_NAME=\"Ubuntu 24.04.1 LTS\"\n"
                             "NAME=\"Ubuntu\"\n"
                             "VERSION_ID=\"24.04\"\n"
                             "VERSION=\"24.04.1 LTS (Noble Numbat)\"\n"
                             "VERSION_CODENAME=noble\n"
                             "ID=ubuntu\n"
                             "ID_LIKE=debian\n"
                             "HOME_URL=\"https://www.ubuntu.com/\"\n"
                             "UBUNTU_CODENAME=noble\n";

static void test_ubuntu(void)
{
    assert_value(ubuntu, "ID", "ubuntu");
    assert_value(ubuntu, "ID_LIKE", "debian");
    assert_value(ubuntu, "VERSION_ID", "24.04");
    assert_value(ubuntu, "VERSION_CODENAME", "noble");
    assert_value(ubuntu, "PRETTY_NAME", "Ubuntu 24.04.1 LTS");
    assert_value(ubuntu, "HOME_URL", "https://www.ubuntu.com/");
    assert_value(ubuntu, "BUILD_ID", NULL);
}

static void test_prefix_collision(void)
{
    /* ID must not match ID_LIKE or VERSION_ID, whichever comes first */
    static const char text[] = "ID_LIKE=\"rhel centos fedora\"\n"
                               "VERSION_ID=\"9.4\"\n"
                               "IDX=wrong\n"
                               "ID=\"rocky\"\n";
    assert_value(text, "ID", "rocky");
    assert_value(text, "ID_LIKE", "rhel centos fedora");
    assert_value(text, "VERSION_ID", "9.4");
    assert_value(text, "VERSION", NULL);
    assert_value(text, "I", NULL);
    assert_value("ID_LIKE=debian\n", "ID", NULL);
}

static void test_quoting(void)
{
    assert_value("NAME='Single Quoted'\n", "NAME", "Single Quoted");
    assert_value("NAME=\"a \\\"quoted\\\" word\"\n", "NAME", "a \"quoted\" word");
    assert_value("NAME=\"back\\\\slash \\$dollar \\`tick\"\n", "NAME", "back\\slash $dollar `tick");
    /* shell escapes apply inside double quotes only */
    assert_value("NAME='no \\escape'\n", "NAME", "no \\escape");
    assert_value("NAME=bare\\value\n", "NAME", "bare\\value");
    /* mismatched quotes are kept as written */
    assert_value("NAME=\"open\n", "NAME", "\"open");
    assert_value("NAME='mixed\"\n", "NAME", "'mixed\"");
    assert_value("NAME=\"\"\n", "NAME", "");
    assert_value("NAME=\"\n", "NAME", "\"");
    /* a trailing backslash has nothing to escape */
    assert_value("NAME=\"end\\\"\n", "NAME", "end\\");
    assert_value("NAME=\n", "NAME", "");
}

static void test_whitespace(void)
{
    assert_value("ID=debian   \n", "ID", "debian");
    assert_value("ID=\"debian\"  \t\n", "ID", "debian");
    assert_value("  ID=arch\n", "ID", "arch");
    assert_value("ID=fedora", "ID", "fedora");
    assert_value("NAME=x\nID=fedora", "ID", "fedora");
    assert_value("ID=crlf\r\n", "ID", "crlf");
    /* a space before "=" is not os-release syntax */
    assert_value("ID =debian\n", "ID", NULL);
}

static void test_comments_and_first_wins(void)
{
    assert_value("#ID=commented\nID=real\n", "ID", "real");
    assert_value("ID=first\nID=second\n", "ID", "first");
}

static void test_missing_and_empty(void)
{
    assert_value("", "ID", NULL);
    assert_value("\n\n\n", "ID", NULL);
    assert_value("ID", "ID", NULL);
    assert_value("garbage without equals\n", "ID", NULL);
}

static void test_binary(void)
{
    static const char with_nul[] = "NAME=x\n\0ID=hidden\n";
    assert_value(with_nul, "ID", NULL);
    assert_value("ID=\xff\xfe\n", "ID", "\xff\xfe");
    assert_value("\xff\xff\xff\nID=ok\n", "ID", "ok");
}

static void test_oversized(void)
{
    g_autofree char *big = g_strnfill(1 << 20, 'a');
    g_autofree char *text = g_strconcat("PRETTY_NAME=\"", big, "\"\nID=last\n", NULL);
    g_autofree char *v = rd_os_release_get(text, "PRETTY_NAME");
    g_assert_nonnull(v);
    g_assert_cmpuint(strlen(v), ==, 1 << 20);
    g_assert_true(v[0] == 'a' && v[(1 << 20) - 1] == 'a');
    assert_value(text, "ID", "last");
}

/* ---- the assess rules, facts in, findings out (the whole probe table) ---- */

static void test_wsl(void)
{
    rd_facts f;
    rd_facts_init(&f);
    f.os.wsl = true;
    f.os.wsl_evidence = xstrdup("/proc/version: Linux version 5.15.153.1-microsoft-standard-WSL2");
    result r;
    assess(&f, &r);
    assert_ids(&r.fs, "host.wsl");
    const rd_finding *fd = get(&r.fs, "host.wsl");
    assert_n_evidence(fd, 1);
    assert_evidence(fd, 0, "/proc/version: Linux version 5.15.153.1-microsoft-standard-WSL2");
    if (fd)
        g_assert_cmpint(fd->severity, ==, RD_SEV_ERROR);
    g_assert_cmpint(rd_findings_exit_status(&r.fs), ==, RD_EXIT_ERROR);
    result_free(&r);
    rd_facts_free(&f);
}

/* A release the table does not list: info, with the nearest listed one. */
static void test_os_not_validated(void)
{
    rd_facts f;
    navi31_host(&f, HEALTHY);
    free(f.os.id);
    free(f.os.version_id);
    f.os.id = xstrdup("debian");
    f.os.version_id = xstrdup("11");
    result r;
    assess(&f, &r);
    assert_ids(&r.fs, "os.not-validated");
    const rd_finding *fd = get(&r.fs, "os.not-validated");
    if (fd) {
        g_assert_cmpint(fd->severity, ==, RD_SEV_INFO);
        assert_contains(fd->remedy, "debian 12 (kernels 6.1)");
    }
    result_free(&r);
    /* Rocky against RHEL */
    free(f.os.id);
    free(f.os.version_id);
    f.os.id = xstrdup("rocky");
    f.os.id_like = xstrdup("rhel centos fedora");
    f.os.version_id = xstrdup("9.5");
    assess(&f, &r);
    fd = get(&r.fs, "os.not-validated");
    if (fd)
        assert_contains(fd->remedy, "rhel 9.");
    result_free(&r);
    /* a listed one: silent */
    free(f.os.id);
    free(f.os.version_id);
    f.os.id = xstrdup("ubuntu");
    f.os.version_id = xstrdup("24.04");
    assess(&f, &r);
    assert_ids(&r.fs, "");
    result_free(&r);
    rd_facts_free(&f);
}

static const rd_test_case tests[] = {
    { "/os/release/ubuntu", test_ubuntu },
    { "/os/release/prefix-collision", test_prefix_collision },
    { "/os/release/quoting", test_quoting },
    { "/os/release/whitespace", test_whitespace },
    { "/os/release/comments-first-wins", test_comments_and_first_wins },
    { "/os/release/missing", test_missing_and_empty },
    { "/os/release/binary", test_binary },
    { "/os/release/oversized", test_oversized },
    { "/assess/os/wsl", test_wsl },
    { "/assess/distro/not-validated", test_os_not_validated },
};

RD_TEST_MAIN_KNOWLEDGE(tests, true, &knowledge)
