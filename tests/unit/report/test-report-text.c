/* SPDX-License-Identifier: MIT */
/* report-text.c: the HIP runtime version as the report writes it. */
#include <glib.h>

#include "report-runtime.h"
#include "testlib.h"

static void test_hip_version_string(void)
{
    char buf[32];
    rd_hip_version_string(50221153, buf, sizeof buf);
    g_assert_cmpstr(buf, ==, "5.2.21153");
    rd_hip_version_string(60241134, buf, sizeof buf);
    g_assert_cmpstr(buf, ==, "6.2.41134");
}

static const rd_test_case tests[] = {
    { "/report-text/hip-version-string", test_hip_version_string },
};

RD_TEST_MAIN(tests, false)
