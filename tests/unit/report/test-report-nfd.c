/* SPDX-License-Identifier: MIT */
/* report-nfd.c: the Node Feature Discovery labels on hand-built GPU views. */
#include <glib.h>

#include "report.h"
#include "report-fixture.h"
#include "util.h"
#include "testlib.h"

static void test_nfd(void)
{
    fixture x;
    fixture_init(&x);
    x.facts.rocm.default_version = xstrdup("6.2.4");
    _cleanup_free_ char *out = render(rd_report_nfd, &x);
    /* the iGPU's carve-out does not count next to discrete GPUs; gfx and family once each */
    g_assert_cmpstr(strchr(out, '\n') + 1, ==,
                    "rocm-doctor.feature.node.kubernetes.io/health=ok\n"
                    "rocm-doctor.feature.node.kubernetes.io/gpu.count=3\n"
                    "rocm-doctor.feature.node.kubernetes.io/gpu.gfx.gfx1100=true\n"
                    "rocm-doctor.feature.node.kubernetes.io/gpu.gfx.gfx1103=true\n"
                    "rocm-doctor.feature.node.kubernetes.io/gpu.family.gfx11=true\n"
                    "rocm-doctor.feature.node.kubernetes.io/gpu.vram-gib=20\n"
                    "rocm-doctor.feature.node.kubernetes.io/rocm.version=6.2.4\n");
    free(out);
    /* a value a label cannot carry is left out, not mangled */
    free(x.facts.rocm.default_version);
    x.facts.rocm.default_version = xstrdup("6.2 (beta)");
    rd_finding_add(&x.findings, "pcie.link-degraded", RD_SEV_WARNING, "0000:04:00.0", "x4");
    out = render(rd_report_nfd, &x);
    g_assert_null(strstr(out, "rocm.version"));
    g_assert_nonnull(strstr(out, "/health=warning\n"));
    fixture_free(&x);
}

static const rd_test_case tests[] = {
    { "/report-nfd/labels", test_nfd },
};

RD_TEST_MAIN(tests, false)
