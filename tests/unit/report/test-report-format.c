/* SPDX-License-Identifier: MIT */
/* report-format.c: --format's names, and each renderer of the table writing
 * what its renderer writes. */
#include <glib.h>

#include "json-util.h"
#include "report.h"
#include "report-fixture.h"
#include "util.h"
#include "testlib.h"

/* The renderers' table: --format's names in rd_format's order, and each
 * renderer, through its one signature, writes what its builder writes. */
static char *render_as(rd_format fmt, fixture *x, bool color)
{
    char *buf = NULL;
    size_t size = 0;
    FILE *f = open_memstream(&buf, &size);
    g_assert_nonnull(f);
    const rd_report_input in = {
        .facts = &x->facts, .view = &x->view, .findings = &x->findings, .level = 1, .color = color
    };
    g_assert_cmpint(rd_renderers[fmt].write(f, &in), ==, 0);
    fclose(f);
    return buf;
}

/* The Prometheus check timestamp is read from the clock at each rendering;
 * two renderings compare equal once it is blanked. */
static void blank_timestamp(char *text)
{
    static const char key[] = "\nrocm_doctor_last_check_timestamp_seconds ";
    char *p = strstr(text, key);
    g_assert_nonnull(p);
    for (p += sizeof key - 1; *p != '\n' && *p != '\0'; p++)
        *p = 'T';
}

static void test_renderer_table(void)
{
    static const char *const names[] = { "text", "json", "prometheus", "nfd" };
    for (size_t i = 0; i < RD_FORMAT_MAX; i++) {
        g_assert_cmpstr(rd_renderers[i].name, ==, names[i]);
        g_assert_cmpint(rd_format_from_name(names[i]), ==, (int)i);
    }
    g_assert_cmpint(rd_format_from_name("yaml"), ==, -EINVAL);
    g_assert_cmpint(rd_format_from_name(NULL), ==, -EINVAL);

    fixture x;
    fixture_init(&x);
    rd_finding_add(&x.findings, "kfd.no-access", RD_SEV_ERROR, NULL, "user a");
    _cleanup_free_ char *prom = render(rd_report_prometheus, &x), *nfd = render(rd_report_nfd, &x);
    _cleanup_free_ char *prom2 = render_as(RD_FORMAT_PROMETHEUS, &x, false),
                        *nfd2 = render_as(RD_FORMAT_NFD, &x, false);
    blank_timestamp(prom);
    blank_timestamp(prom2);
    g_assert_cmpstr(prom2, ==, prom);
    g_assert_cmpstr(nfd2, ==, nfd);

    json_object *j = rd_report_json(&x.facts, &x.view, &x.findings, 1);
    _cleanup_free_ char *want = rd_json_pretty(j);
    json_object_put(j);
    _cleanup_free_ char *json = render_as(RD_FORMAT_JSON, &x, false);
    g_assert_cmpstr(json, ==, want);

    char *buf = NULL;
    size_t size = 0;
    FILE *f = open_memstream(&buf, &size);
    rd_report_text(f, &x.facts, &x.view, &x.findings, true);
    fclose(f);
    _cleanup_free_ char *text_want = buf;
    _cleanup_free_ char *text = render_as(RD_FORMAT_TEXT, &x, true);
    g_assert_cmpstr(text, ==, text_want);
    g_assert_nonnull(strstr(text, "kfd.no-access"));
    g_assert_nonnull(strstr(text, "\x1b["));
    fixture_free(&x);
}

static const rd_test_case tests[] = {
    { "/report-format/renderer-table", test_renderer_table },
};

RD_TEST_MAIN(tests, false)
