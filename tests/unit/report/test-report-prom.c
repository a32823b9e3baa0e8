/* SPDX-License-Identifier: MIT */
/* report-prom.c: the Prometheus text on hand-built GPU views (quotes in
 * names, duplicate findings, level 2's runtime series). */
#include <glib.h>

#include "report.h"
#include "report-fixture.h"
#include "util.h"
#include "testlib.h"

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

static const rd_test_case tests[] = {
    { "/report-prom/prometheus", test_prometheus },
    { "/report-prom/runtime", test_prometheus_runtime },
};

RD_TEST_MAIN(tests, false)
