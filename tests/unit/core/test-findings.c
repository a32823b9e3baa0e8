/* SPDX-License-Identifier: MIT */
/* src/core/findings.c: a finding freed, findings sorted by severity (as
 * rd_assess leaves them), and the exit status they give. */
#include <glib.h>

#include "assess-lib.h"
#include "testlib.h"

/* rd_finding_free leaves a zeroed finding that can be freed again. */
static void test_finding_free(void)
{
    rd_findings fs = { 0 };
    rd_finding *f = rd_finding_add(&fs, "kfd.missing", RD_SEV_ERROR, "0000:03:00.0", "no %s", "kfd");
    rd_finding_evidence(f, "/dev/kfd: absent");
    rd_finding_remedy(f, "load amdgpu");
    rd_finding_set_fix(f, "modprobe");
    rd_finding_free(f);
    g_assert_null(f->id);
    g_assert_null(f->summary);
    g_assert_null(f->evidence);
    g_assert_null(f->remedy);
    g_assert_null(f->fix);
    g_assert_null(f->gpu);
    rd_findings_free(&fs);
    g_assert_cmpuint(fs.n, ==, 0);
}

static void test_sorted_by_severity(void)
{
    /* warning (blacklist) is found before the error (access), reported after it */
    rd_facts f;
    navi31_host(&f, HEALTHY);
    add_modprobe(&f, "/etc/modprobe.d/blacklist.conf", 1, "blacklist", "amdgpu", "");
    for (size_t i = 0; i < f.access.n_nodes; i++)
        f.access.nodes[i].mode = 0666;
    f.access.nodes[1].mode = 0660;
    const int64_t groups[] = { 1000 };
    set_user_groups(&f, groups, 1);
    result r;
    assess(&f, &r);
    assert_ids(&r.fs, "render.no-access driver.blacklisted access.world-writable");
    g_assert_cmpint(rd_findings_exit_status(&r.fs), ==, RD_EXIT_ERROR);
    result_free(&r);
    rd_facts_free(&f);
}

static void test_exit_status(void)
{
    rd_findings fs = { 0 };
    g_assert_cmpint(rd_findings_exit_status(&fs), ==, RD_EXIT_OK);
    rd_finding_add(&fs, "a.info", RD_SEV_INFO, NULL, "info");
    g_assert_cmpint(rd_findings_exit_status(&fs), ==, RD_EXIT_OK);
    rd_finding_add(&fs, "b.warning", RD_SEV_WARNING, NULL, "warning");
    g_assert_cmpint(rd_findings_exit_status(&fs), ==, RD_EXIT_WARNING);
    rd_finding_add(&fs, "c.error", RD_SEV_ERROR, "0000:03:00.0", "error %d", 1);
    g_assert_cmpint(rd_findings_exit_status(&fs), ==, RD_EXIT_ERROR);
    rd_finding_add(&fs, "d.warning", RD_SEV_WARNING, NULL, "warning");
    rd_findings_sort(&fs);
    assert_ids(&fs, "c.error b.warning d.warning a.info");
    g_assert_cmpstr(fs.items[0].summary, ==, "error 1");
    g_assert_cmpstr(fs.items[0].gpu, ==, "0000:03:00.0");
    rd_findings_free(&fs);
    g_assert_cmpuint(fs.n, ==, 0);
}

static const rd_test_case tests[] = {
    { "/assess/finding-free", test_finding_free },
    { "/assess/sorted-by-severity", test_sorted_by_severity },
    { "/assess/exit-status", test_exit_status },
};

RD_TEST_MAIN_KNOWLEDGE(tests, true, &knowledge)
