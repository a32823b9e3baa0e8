/* SPDX-License-Identifier: MIT */
/* src/report: the Prometheus and NFD renderers on hand-built GPU views
 * (values that no scenario produces: quotes in names, duplicate findings,
 * odd versions). */
#include <glib.h>

#include "facts.h"
#include "findings.h"
#include "gpus.h"
#include "report.h"
#include "report-plan.h"
#include "util.h"
#include "testlib.h"

typedef struct {
    rd_facts facts;
    rd_pci_device pci[3];
    rd_gpu gpus[3];
    rd_gpu_view view;
    rd_arch arch11, arch942;
    rd_findings findings;
} fixture;

static void fixture_init(fixture *x)
{
    memset(x, 0, sizeof *x);
    rd_facts_init(&x->facts);
    x->arch11 = (rd_arch){ .gfx = (char *)"gfx1100", .family = (char *)"gfx11" };
    x->arch942 = (rd_arch){ .gfx = (char *)"gfx1103", .family = (char *)"gfx11" };
    const char *addr[] = { "0000:03:00.0", "0000:04:00.0", "0000:64:00.0" };
    for (int i = 0; i < 3; i++) {
        x->pci[i] = (rd_pci_device){ .address = (char *)addr[i],
                                     .driver = (char *)"amdgpu",
                                     .current_link_speed = 16.0,
                                     .max_link_speed = 16.0,
                                     .current_link_width = i == 1 ? 4 : 16,
                                     .max_link_width = 16 };
        x->gpus[i] = (rd_gpu){ .pci = &x->pci[i], .link = &x->pci[i], .name = "AMD GPU" };
    }
    strcpy(x->gpus[0].gfx, "gfx1100");
    x->gpus[0].arch = &x->arch11;
    x->gpus[0].vram_bytes = 24 * (UINT64_C(1) << 30);
    x->gpus[0].name = "Radeon \"Pro\" \\ W7900\nX";
    strcpy(x->gpus[1].gfx, "gfx1100");
    x->gpus[1].arch = &x->arch11;
    x->gpus[1].vram_bytes = 20 * (UINT64_C(1) << 30) + 5;
    strcpy(x->gpus[2].gfx, "gfx1103");
    x->gpus[2].arch = &x->arch942;
    x->gpus[2].integrated = true;
    x->gpus[2].vram_bytes = 512 << 20;
    x->view = (rd_gpu_view){ .gpus = x->gpus, .n_gpus = 3 };
}

static void fixture_free(fixture *x)
{
    rd_findings_free(&x->findings);
    rd_facts_free(&x->facts);
}

static char *render(int (*fn)(FILE *, const rd_facts *, const rd_gpu_view *, const rd_findings *), fixture *x)
{
    char *buf = NULL;
    size_t size = 0;
    FILE *f = open_memstream(&buf, &size);
    g_assert_nonnull(f);
    g_assert_cmpint(fn(f, &x->facts, &x->view, &x->findings), ==, 0);
    fclose(f);
    return buf;
}

static void test_prometheus(void)
{
    fixture x;
    fixture_init(&x);
    rd_finding_add(&x.findings, "kfd.no-access", RD_SEV_ERROR, NULL, "user a");
    rd_finding_add(&x.findings, "kfd.no-access", RD_SEV_ERROR, NULL, "user b");
    rd_finding_add(&x.findings, "pcie.link-degraded", RD_SEV_WARNING, "0000:04:00.0", "x4");
    _cleanup_free_ char *out = render(rd_report_prometheus, &x);
    g_assert_nonnull(strstr(
        out,
        "\nrocm_doctor_gpu_info{gpu=\"0000:03:00.0\",pci_address=\"0000:03:00.0\",gfx=\"gfx1100\",family=\"gfx11\","
        "name=\"Radeon \\\"Pro\\\" \\\\ W7900\\nX\",driver=\"amdgpu\",integrated=\"false\"} 1\n"));
    /* the same id for the host twice: one series, counted */
    g_assert_nonnull(strstr(out, "\nrocm_doctor_finding{id=\"kfd.no-access\",severity=\"error\",gpu=\"\"} 2\n"));
    g_assert_null(strstr(strstr(out, "kfd.no-access") + 1, "kfd.no-access"));
    g_assert_nonnull(
        strstr(out, "\nrocm_doctor_finding{id=\"pcie.link-degraded\",severity=\"warning\",gpu=\"0000:04:00.0\"} 1\n"));
    g_assert_nonnull(strstr(out, "\nrocm_doctor_exit_status 2\n"));
    g_assert_nonnull(strstr(out, "\nrocm_doctor_findings{severity=\"error\"} 2\n"));
    g_assert_nonnull(strstr(out, "\nrocm_doctor_gpus 3\n"));
    g_assert_nonnull(
        strstr(out, "\nrocm_doctor_gpu_vram_bytes{gpu=\"0000:04:00.0\",pci_address=\"0000:04:00.0\"} 21474836485\n"));
    g_assert_nonnull(strstr(out, "\nrocm_doctor_gpu_pcie_link_width_lanes{gpu=\"0000:04:00.0\",pci_address=\"0000:04:"
                                 "00.0\",link=\"current\"} 4\n"));
    g_assert_nonnull(strstr(
        out, "\nrocm_doctor_gpu_pcie_link_speed_transfers_per_second{gpu=\"0000:03:00.0\",pci_address=\"0000:03:00.0\","
             "link=\"max\"} 16000000000\n"));
    g_assert_nonnull(strstr(out, "\n# TYPE rocm_doctor_gpu_kfd_nodes gauge\n"));
    fixture_free(&x);
}

/* Level 2: what the runtime double cannot produce: two HIP devices on one
 * PCI address (partitions), a device with no address, one not finished, one
 * with no code object, and nothing measured. */
static void test_prometheus_runtime(void)
{
    fixture x;
    fixture_init(&x);
    _cleanup_free_ char *level1 = render(rd_report_prometheus, &x);
    g_assert_null(strstr(level1, "rocm_doctor_gpu_kernel"));
    g_assert_null(strstr(level1, "bandwidth"));

    rd_runtime_facts *rt = &x.facts.runtime;
    rt->ran = true;
    rt->n_devices = 5;
    rt->devices = xcalloc(rt->n_devices, sizeof(rd_runtime_device));
    const char *addr[] = { "0000:03:00.0", "0000:03:00.0", NULL, "0000:04:00.0", "0000:64:00.0" };
    const char *result[] = { "ok", "wrong-result", "error", NULL, "no-code-object" };
    for (size_t i = 0; i < rt->n_devices; i++) {
        rd_runtime_device *d = &rt->devices[i];
        d->index = (int64_t)i;
        d->kfd_node = -1;
        d->pci_address = addr[i] ? xstrdup(addr[i]) : NULL;
        d->result = result[i] ? xstrdup(result[i]) : NULL;
    }
    rt->devices[0].launch_latency_us = 12.5;
    rt->devices[0].h2d_gbps = 25.25;
    rt->devices[0].d2h_gbps = 26.5;
    rt->devices[1].launch_latency_us = 7;
    _cleanup_free_ char *out = render(rd_report_prometheus, &x);
    g_assert_nonnull(
        strstr(out, "\n# TYPE rocm_doctor_gpu_kernel_ok gauge\n"
                    "rocm_doctor_gpu_kernel_ok{gpu=\"0000:03:00.0\",pci_address=\"0000:03:00.0\",hip_device=\"0\"} 1\n"
                    "rocm_doctor_gpu_kernel_ok{gpu=\"0000:03:00.0\",pci_address=\"0000:03:00.0\",hip_device=\"1\"} 0\n"
                    "rocm_doctor_gpu_kernel_ok{gpu=\"\",pci_address=\"\",hip_device=\"2\"} 0\n"
                    "rocm_doctor_gpu_kernel_ok{gpu=\"0000:04:00.0\",pci_address=\"0000:04:00.0\",hip_device=\"3\"} 0\n"
                    "# HELP rocm_doctor_gpu_kernel_launch_latency_seconds "));
    g_assert_nonnull(strstr(out, "\n# TYPE rocm_doctor_gpu_kernel_launch_latency_seconds gauge\n"
                                 "rocm_doctor_gpu_kernel_launch_latency_seconds{gpu=\"0000:03:00.0\",pci_address="
                                 "\"0000:03:00.0\",hip_device=\"0\"} "
                                 "1.2500000000000001e-05\n"
                                 "rocm_doctor_gpu_kernel_launch_latency_seconds{gpu=\"0000:03:00.0\",pci_address="
                                 "\"0000:03:00.0\",hip_device=\"1\"} "
                                 "6.9999999999999999e-06\n# HELP "));
    g_assert_nonnull(strstr(
        out,
        "\nrocm_doctor_gpu_host_to_device_bandwidth_bytes_per_second{gpu=\"0000:03:00.0\",pci_address=\"0000:03:00.0\","
        "hip_device=\"0\"} 25250000000\n# HELP "));
    g_assert_nonnull(strstr(
        out,
        "\nrocm_doctor_gpu_device_to_host_bandwidth_bytes_per_second{gpu=\"0000:03:00.0\",pci_address=\"0000:03:00.0\","
        "hip_device=\"0\"} 26500000000\n"));
    /* the untested GPU has no series at all */
    g_assert_null(strstr(out, "hip_device=\"4\""));
    g_assert_true(g_str_has_suffix(out, "hip_device=\"0\"} 26500000000\n"));

    /* level 2 ran but HIP offered no device: no per-device metric */
    rd_facts_free(&x.facts);
    rd_facts_init(&x.facts);
    x.facts.runtime.ran = true;
    _cleanup_free_ char *none = render(rd_report_prometheus, &x);
    g_assert_null(strstr(none, "rocm_doctor_gpu_kernel"));
    fixture_free(&x);
}

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

/* The plan's text quotes the repository's index (names, versions) and the
 * package manager (a reason, its output under --verbose): escaped, bounded. */
static void test_plan_untrusted_text(void)
{
    rd_plan p = { .root = xstrdup("/"), .verbose = true };
    rd_step *s = rd_plan_add_step(&p, "packages", RD_EFFECT_NOW, "%s", "ROCm packages");
    rd_pkg_set *set = xcalloc(1, sizeof *set);
    set->pm = RD_PM_APT;
    rd_pkg_change *x = ARRAY_APPEND(set->changes.items, set->changes.n);
    x->op = RD_PKG_INSTALL;
    x->name = xstrdup("rocm\x1b[2J");
    x->version = xstrdup("6.4.1\x1b]0;owned\x07\x1b[31m");
    x = ARRAY_APPEND(set->changes.items, set->changes.n);
    x->op = RD_PKG_UPGRADE;
    x->name = xstrdup("rocm-core");
    x->old_version = xstrdup("1.0");
    x->version = g_strnfill(10000, 'A');
    rd_step_packages(s, set);
    rd_not_planned *np = ARRAY_APPEND(p.not_planned, p.n_not_planned);
    np->fix = xstrdup("dnf");
    np->reason = xstrdup("the dnf dry run could not run (Error: \x1b[8mhidden\x1b[0m)");
    np->detail = xstrdup("line one\x1b[1A\rline two\n\x9b"
                         "31m");
    char *text = NULL;
    size_t size = 0;
    FILE *f = open_memstream(&text, &size);
    rd_plan_print(&p, f);
    fclose(f);
    g_assert_null(memchr(text, 0x1b, size));
    g_assert_null(memchr(text, '\r', size));
    g_assert_null(memchr(text, 0x07, size));
    g_assert_null(memchr(text, 0x9b, size));
    g_assert_nonnull(strstr(text, "     install   rocm\\x1b[2J 6.4.1\\x1b]0;owned\\x07\\x1b[31m\n"));
    /* 128 bytes of the version, then how much was left out */
    g_assert_nonnull(strstr(text, "     upgrade   rocm-core 1.0 -> AAAA"));
    g_assert_nonnull(strstr(text, "A [9872 more bytes]\n"));
    g_assert_cmpuint(size, <, 2000);
    g_assert_nonnull(strstr(text, "   dnf: the dnf dry run could not run (Error: \\x1b[8mhidden\\x1b[0m)\n"));
    g_assert_nonnull(strstr(text, "      | line one\\x1b[1A\\rline two\n"));
    free(text);
    rd_plan_free(&p);
}

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
    _cleanup_free_ char *want =
        xasprintf("%s\n", json_object_to_json_string_ext(j, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_NOSLASHESCAPE));
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
    { "/report/plan-untrusted-text", test_plan_untrusted_text },
    { "/report/renderer-table", test_renderer_table },
    { "/report/prometheus", test_prometheus },
    { "/report/prometheus-runtime", test_prometheus_runtime },
    { "/report/nfd", test_nfd },
};

RD_TEST_MAIN(tests, false)
