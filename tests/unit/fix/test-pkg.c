/* SPDX-License-Identifier: MIT */
/* src/fix: the parsers of the package managers' output that rollback and
 * undo decide by: dpkg-query's status abbreviations and apt-cache
 * policy's version table (their text as dpkg 1.21 and apt 2.6 print it). */
#include <glib.h>

#include "pkg.h"
#include "util.h"
#include "testlib.h"

static void test_unfinished(void)
{
    static const char text[] = "ii \tlibc6:amd64\t2.36-9+deb12u14\n"
                               "iF \tamdgpu-dkms\t1:6.12.12.60401-2164967.24.04\n"
                               "iHR\thsa-rocr\t1.15.0.60401-83~24.04\n"
                               "iU \trocm\t6.4.1.60401-83~24.04\n"
                               "rc \tlibhsa-runtime64-1\t5.7.1-3\n"
                               "un \tnever-installed\t\n"
                               "iiR\tneeds-reinstall\t1.0\n"
                               "iW \tawaits-triggers\t1.0\n"
                               "hi \theld\t1.0\n"
                               "garbage line\n"
                               "i\tshort\t1\n";
    _cleanup_strv_free_ char **v = rd_pkg_parse_unfinished(text);
    _cleanup_free_ char *got = strv_join(v, ",");
    g_assert_cmpstr(got, ==, "amdgpu-dkms,hsa-rocr,rocm,needs-reinstall,awaits-triggers");
    g_assert_null(rd_pkg_parse_unfinished(""));
    g_assert_null(rd_pkg_parse_unfinished(NULL));
}

/* a package installed from a file next to the distribution's older version */
static const char policy_local[] = "libhsa-runtime64-1:\n"
                                   "  Installed: 5.7.1-3+site1\n"
                                   "  Candidate: 5.7.1-3+site1\n"
                                   "  Version table:\n"
                                   " *** 5.7.1-3+site1 100\n"
                                   "        100 /var/lib/dpkg/status\n"
                                   "     5.7.1-3 500\n"
                                   "        500 http://127.0.0.1:8000/distro noble/main amd64 Packages\n";

static const char policy_repo[] = "libc6:\n"
                                  "  Installed: 2.36-9+deb12u14\n"
                                  "  Candidate: 2.36-9+deb12u14\n"
                                  "  Version table:\n"
                                  " *** 2.36-9+deb12u14 500\n"
                                  "        500 http://deb.debian.org/debian bookworm/main amd64 Packages\n"
                                  "        100 /var/lib/dpkg/status\n"
                                  "     2.36-9+deb12u7 500\n"
                                  "        500 http://deb.debian.org/debian-security bookworm-security/main amd64 "
                                  "Packages\n";

static void test_policy(void)
{
    g_assert_false(rd_pkg_parse_apt_policy(policy_local, "5.7.1-3+site1"));
    g_assert_true(rd_pkg_parse_apt_policy(policy_local, "5.7.1-3"));
    /* a version is a whole field, not a prefix */
    g_assert_false(rd_pkg_parse_apt_policy(policy_local, "5.7.1"));
    g_assert_true(rd_pkg_parse_apt_policy(policy_repo, "2.36-9+deb12u14"));
    g_assert_true(rd_pkg_parse_apt_policy(policy_repo, "2.36-9+deb12u7"));
    g_assert_false(rd_pkg_parse_apt_policy(policy_repo, "2.36-9+deb12u1"));
    /* apt knows no such package: an empty answer */
    g_assert_false(rd_pkg_parse_apt_policy("", "1.0"));
    g_assert_false(rd_pkg_parse_apt_policy(NULL, "1.0"));
}

static const rd_test_case tests[] = {
    { "/pkg/parse/dpkg-unfinished", test_unfinished },
    { "/pkg/parse/apt-policy", test_policy },
};

RD_TEST_MAIN(tests, false)
