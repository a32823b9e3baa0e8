/* SPDX-License-Identifier: MIT */
/* src/core/distro.c: the distribution family of os-release's ID and
 * ID_LIKE, its name and its package manager. */
#include <glib.h>

#include "distro.h"
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

static const rd_test_case tests[] = {
    { "/distro/family", test_family },
};

RD_TEST_MAIN(tests, false)
