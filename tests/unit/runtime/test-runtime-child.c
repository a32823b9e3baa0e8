/* SPDX-License-Identifier: MIT */
/* src/runtime: the runtime child's helpers, an agent's ISA name to its gfx
 * target and HSA's status codes to their names. */
#include <glib.h>

#include "hsa-loader.h"
#include "runtime.h"
#include "testlib.h"

static void test_isa_gfx(void)
{
    char buf[32];
    g_assert_true(rd_runtime_isa_gfx("amdgcn-amd-amdhsa--gfx90a:sramecc+:xnack-", buf, sizeof buf));
    g_assert_cmpstr(buf, ==, "gfx90a");
    g_assert_true(rd_runtime_isa_gfx("amdgcn-amd-amdhsa--gfx1100", buf, sizeof buf));
    g_assert_cmpstr(buf, ==, "gfx1100");
    g_assert_false(rd_runtime_isa_gfx("x86_64-unknown-linux", buf, sizeof buf));
    g_assert_false(rd_runtime_isa_gfx(NULL, buf, sizeof buf));
}

static void test_hsa_status_name(void)
{
    g_assert_cmpstr(rd_hsa_status_name(0x1008), ==, "HSA_STATUS_ERROR_OUT_OF_RESOURCES");
    g_assert_cmpstr(rd_hsa_status_name(43), ==, "HSA_STATUS_ERROR_MEMORY_FAULT");
    g_assert_null(rd_hsa_status_name(0x7777));
}

static const rd_test_case tests[] = {
    { "/runtime-child/isa-gfx", test_isa_gfx },
    { "/runtime-child/hsa-status-name", test_hsa_status_name },
};

RD_TEST_MAIN(tests, false)
