/* SPDX-License-Identifier: MIT */
/* rd_kfd_parse_properties: the topology "properties" file format. */
#include <glib.h>

#include "kfd.h"
#include "util.h"
#include "testlib.h"
#include "assess-lib.h"

typedef struct {
    rd_kv *kv;
    size_t n, bad;
    int r;
} parsed;

static parsed parse(const char *text)
{
    parsed p = { .bad = 9999 };
    p.r = rd_kfd_parse_properties(text, &p.kv, &p.n, &p.bad);
    return p;
}

static void parsed_free(parsed *p)
{
    for (size_t i = 0; p->r == 0 && i < p->n; i++)
        free(p->kv[i].key);
    if (p->r == 0)
        free(p->kv);
}

static uint64_t value_of(const parsed *p, const char *key)
{
    for (size_t i = 0; i < p->n; i++)
        if (streq(p->kv[i].key, key))
            return p->kv[i].value;
    g_error("key %s missing", key);
    return 0;
}

static bool has_key(const parsed *p, const char *key)
{
    for (size_t i = 0; i < p->n; i++)
        if (streq(p->kv[i].key, key))
            return true;
    return false;
}

/* RX 7900 XTX, node 1 of a real machine */
static const char navi31_node[] = "cpu_cores_count 0\n"
                                  "simd_count 192\n"
                                  "mem_banks_count 1\n"
                                  "caches_count 206\n"
                                  "io_links_count 1\n"
                                  "p2p_links_count 5\n"
                                  "cpu_core_id_base 0\n"
                                  "simd_id_base 2147488032\n"
                                  "max_waves_per_simd 16\n"
                                  "lds_size_in_kb 64\n"
                                  "gds_size_in_kb 0\n"
                                  "num_gws 64\n"
                                  "wave_front_size 32\n"
                                  "array_count 12\n"
                                  "simd_arrays_per_engine 2\n"
                                  "cu_per_simd_array 8\n"
                                  "simd_per_cu 2\n"
                                  "max_slots_scratch_cu 32\n"
                                  "gfx_target_version 110000\n"
                                  "vendor_id 4098\n"
                                  "device_id 29772\n"
                                  "location_id 34304\n"
                                  "domain 0\n"
                                  "drm_render_minor 128\n"
                                  "hive_id 0\n"
                                  "num_sdma_engines 2\n"
                                  "num_sdma_xgmi_engines 0\n"
                                  "num_sdma_queues_per_engine 6\n"
                                  "num_cp_queues 8\n"
                                  "max_engine_clk_fcompute 2482\n"
                                  "local_mem_size 0\n"
                                  "fw_version 2140\n"
                                  "capability 671588992\n"
                                  "debug_prop 1495\n"
                                  "sdma_fw_version 20\n"
                                  "unique_id 11673270660693242239\n"
                                  "num_xcc 1\n"
                                  "max_engine_clk_ccompute 2400"; /* sysfs files end without a newline here */

static void test_navi31(void)
{
    parsed p = parse(navi31_node);
    g_assert_cmpint(p.r, ==, 0);
    g_assert_cmpuint(p.n, ==, 38);
    g_assert_cmpuint(p.bad, ==, 0);
    g_assert_cmpstr(p.kv[0].key, ==, "cpu_cores_count");
    g_assert_cmpuint(p.kv[0].value, ==, 0);
    g_assert_cmpstr(p.kv[37].key, ==, "max_engine_clk_ccompute");
    g_assert_cmpuint(p.kv[37].value, ==, 2400);
    g_assert_cmpuint(value_of(&p, "simd_count"), ==, 192);
    g_assert_cmpuint(value_of(&p, "gfx_target_version"), ==, 110000);
    g_assert_cmpuint(value_of(&p, "vendor_id"), ==, 4098);
    g_assert_cmpuint(value_of(&p, "device_id"), ==, 29772);   /* 0x744c */
    g_assert_cmpuint(value_of(&p, "location_id"), ==, 34304); /* 86:00.0 */
    g_assert_cmpuint(value_of(&p, "drm_render_minor"), ==, 128);
    g_assert_cmpuint(value_of(&p, "simd_id_base"), ==, 2147488032u);
    g_assert_cmpuint(value_of(&p, "unique_id"), ==, UINT64_C(11673270660693242239));
    parsed_free(&p);
}

/* MI300X in CPX mode: one of eight partition nodes */
static const char mi300x_cpx_node[] = "cpu_cores_count 0\n"
                                      "simd_count 152\n"
                                      "mem_banks_count 1\n"
                                      "caches_count 80\n"
                                      "io_links_count 63\n"
                                      "p2p_links_count 1\n"
                                      "cpu_core_id_base 0\n"
                                      "simd_id_base 2147488064\n"
                                      "max_waves_per_simd 8\n"
                                      "lds_size_in_kb 64\n"
                                      "gds_size_in_kb 0\n"
                                      "num_gws 64\n"
                                      "wave_front_size 64\n"
                                      "array_count 4\n"
                                      "simd_arrays_per_engine 1\n"
                                      "cu_per_simd_array 10\n"
                                      "simd_per_cu 4\n"
                                      "max_slots_scratch_cu 32\n"
                                      "gfx_target_version 90402\n"
                                      "vendor_id 4098\n"
                                      "device_id 29857\n"
                                      "location_id 1280\n"
                                      "domain 0\n"
                                      "drm_render_minor 128\n"
                                      "hive_id 15188982192727901047\n"
                                      "num_sdma_engines 2\n"
                                      "num_sdma_xgmi_engines 0\n"
                                      "num_sdma_queues_per_engine 8\n"
                                      "num_cp_queues 24\n"
                                      "max_engine_clk_fcompute 2100\n"
                                      "local_mem_size 0\n"
                                      "fw_version 177\n"
                                      "capability 2893521536\n"
                                      "debug_prop 1511\n"
                                      "sdma_fw_version 24\n"
                                      "unique_id 16404946649897475633\n"
                                      "num_xcc 1\n"
                                      "max_engine_clk_ccompute 2750\n";

static void test_mi300x_cpx(void)
{
    parsed p = parse(mi300x_cpx_node);
    g_assert_cmpint(p.r, ==, 0);
    g_assert_cmpuint(p.n, ==, 38);
    g_assert_cmpuint(p.bad, ==, 0);
    g_assert_cmpuint(value_of(&p, "gfx_target_version"), ==, 90402);
    g_assert_cmpuint(value_of(&p, "device_id"), ==, 29857); /* 0x74a1 */
    g_assert_cmpuint(value_of(&p, "location_id"), ==, 1280);
    g_assert_cmpuint(value_of(&p, "io_links_count"), ==, 63);
    g_assert_cmpuint(value_of(&p, "capability"), ==, 2893521536u);
    /* both above INT64_MAX: must not be clamped or wrapped through a signed type */
    g_assert_cmpuint(value_of(&p, "hive_id"), ==, UINT64_C(15188982192727901047));
    g_assert_cmpuint(value_of(&p, "unique_id"), ==, UINT64_C(16404946649897475633));
    g_assert_cmpuint(value_of(&p, "unique_id"), >, (uint64_t)INT64_MAX);
    parsed_free(&p);
}

static void test_unknown_keys_in_order(void)
{
    parsed p = parse("zeta_future_key 3\n"
                     "simd_count 4\n"
                     "alpha_new 5\n"
                     "lds_Wsize_in_kb 64\n" /* a real typo some kernels shipped */
                     "simd_count 6\n");
    g_assert_cmpint(p.r, ==, 0);
    g_assert_cmpuint(p.n, ==, 5);
    g_assert_cmpuint(p.bad, ==, 0);
    g_assert_cmpstr(p.kv[0].key, ==, "zeta_future_key");
    g_assert_cmpuint(p.kv[0].value, ==, 3);
    g_assert_cmpstr(p.kv[1].key, ==, "simd_count");
    g_assert_cmpstr(p.kv[2].key, ==, "alpha_new");
    g_assert_cmpstr(p.kv[3].key, ==, "lds_Wsize_in_kb");
    g_assert_cmpuint(p.kv[3].value, ==, 64);
    /* duplicates are kept as written; the first one wins in look-ups */
    g_assert_cmpstr(p.kv[4].key, ==, "simd_count");
    g_assert_cmpuint(p.kv[4].value, ==, 6);
    g_assert_false(has_key(&p, "lds_size_in_kb"));
    parsed_free(&p);
}

static void test_extremes(void)
{
    parsed p = parse("max 18446744073709551615\n"
                     "over 18446744073709551616\n"
                     "thirty 123456789012345678901234567890\n"
                     "zero 0\n"
                     "leading_zeros 000042\n");
    g_assert_cmpint(p.r, ==, 0);
    g_assert_cmpuint(p.n, ==, 3);
    g_assert_cmpuint(p.bad, ==, 2);
    g_assert_cmpuint(value_of(&p, "max"), ==, UINT64_MAX);
    g_assert_false(has_key(&p, "over"));
    g_assert_false(has_key(&p, "thirty"));
    g_assert_cmpuint(value_of(&p, "zero"), ==, 0);
    g_assert_cmpuint(value_of(&p, "leading_zeros"), ==, 42);
    parsed_free(&p);
}

static void test_malformed_lines(void)
{
    parsed p = parse("good 1\n"
                     "\n"
                     "novalue\n"
                     "trailing_space_only \n"
                     "negative -1\n"
                     "hex 0x1f\n"
                     "plus +5\n"
                     "tab\t7\n"
                     "key 5 extra\n"
                     "   \n"
                     " indented 3\n"
                     "dash-key 9\n"
                     "\n"
                     "good2    22\n");
    g_assert_cmpint(p.r, ==, 0);
    g_assert_cmpuint(p.n, ==, 2);
    g_assert_cmpstr(p.kv[0].key, ==, "good");
    g_assert_cmpuint(p.kv[0].value, ==, 1);
    g_assert_cmpstr(p.kv[1].key, ==, "good2");
    g_assert_cmpuint(p.kv[1].value, ==, 22);
    /* blank lines are not malformed; the other ten are */
    g_assert_cmpuint(p.bad, ==, 10);
    parsed_free(&p);
}

static void test_binary(void)
{
    /* the NUL ends the text as far as a C string goes */
    static const char with_nul[] = "a 1\n\0b 2\n";
    parsed p = parse(with_nul);
    g_assert_cmpint(p.r, ==, 0);
    g_assert_cmpuint(p.n, ==, 1);
    g_assert_cmpstr(p.kv[0].key, ==, "a");
    parsed_free(&p);

    p = parse("\xff\xfe 1\nkey\xff 2\nk \xff\n\x01\x02\x03\nok 3\n");
    g_assert_cmpint(p.r, ==, 0);
    g_assert_cmpuint(p.n, ==, 1);
    g_assert_cmpstr(p.kv[0].key, ==, "ok");
    g_assert_cmpuint(p.kv[0].value, ==, 3);
    g_assert_cmpuint(p.bad, ==, 4);
    parsed_free(&p);
}

static void test_empty(void)
{
    parsed p = parse("");
    g_assert_cmpint(p.r, ==, 0);
    g_assert_cmpuint(p.n, ==, 0);
    g_assert_null(p.kv);
    g_assert_cmpuint(p.bad, ==, 0);
    parsed_free(&p);

    p = parse("\n\n\n");
    g_assert_cmpint(p.r, ==, 0);
    g_assert_cmpuint(p.n, ==, 0);
    g_assert_cmpuint(p.bad, ==, 0);
    parsed_free(&p);

    /* the bad-line count is optional */
    rd_kv *kv = NULL;
    size_t n = 99;
    g_assert_cmpint(rd_kfd_parse_properties("x 1\ny\n", &kv, &n, NULL), ==, 0);
    g_assert_cmpuint(n, ==, 1);
    free(kv[0].key);
    free(kv);
}

static char *lines(size_t count, bool blank)
{
    GString *s = g_string_new(NULL);
    for (size_t i = 0; i < count; i++) {
        if (blank)
            g_string_append_c(s, '\n');
        else
            g_string_append_printf(s, "key_%zu %zu\n", i, i);
    }
    return g_string_free(s, FALSE);
}

static void test_line_limit(void)
{
    g_autofree char *at_limit = lines(1024, false);
    parsed p = parse(at_limit);
    g_assert_cmpint(p.r, ==, 0);
    g_assert_cmpuint(p.n, ==, 1024);
    g_assert_cmpstr(p.kv[1023].key, ==, "key_1023");
    g_assert_cmpuint(p.kv[1023].value, ==, 1023);
    parsed_free(&p);

    g_autofree char *over = lines(1025, false);
    rd_kv *kv = (rd_kv *)0x1;
    size_t n = 77, bad = 88;
    g_assert_cmpint(rd_kfd_parse_properties(over, &kv, &n, &bad), ==, -E2BIG);
    /* outputs are untouched on failure */
    g_assert_true(kv == (rd_kv *)0x1);
    g_assert_cmpuint(n, ==, 77);
    g_assert_cmpuint(bad, ==, 88);

    /* blank lines count too: a file of newlines cannot make the parser spin */
    g_autofree char *blanks = lines(100000, true);
    g_assert_cmpint(rd_kfd_parse_properties(blanks, &kv, &n, &bad), ==, -E2BIG);

    g_autofree char *huge_line = g_strnfill(1 << 20, 'k');
    p = parse(huge_line);
    g_assert_cmpint(p.r, ==, 0);
    g_assert_cmpuint(p.n, ==, 0);
    g_assert_cmpuint(p.bad, ==, 1);
    parsed_free(&p);
}

/* ---- the assess rules, facts in, findings out (the whole probe table) ---- */

static void test_kfd_missing(void)
{
    rd_facts f;
    navi31_host(&f, WITH_DRIVER | WITH_ACCESS);
    f.access.nodes[0].exists = false; /* /dev/kfd */
    add_kmsg(&f, 6, "[drm] amdgpu kernel modesetting enabled.");
    add_kmsg(&f, 3, "kfd kfd: error getting iommu info. is the iommu enabled?");
    result r;
    assess(&f, &r);
    assert_ids(&r.fs, "kfd.missing");
    const rd_finding *fd = get(&r.fs, "kfd.missing");
    if (fd) {
        g_assert_cmpint(fd->severity, ==, RD_SEV_ERROR);
        g_assert_cmpstr(fd->summary, ==, "amdgpu drives 1 GPU but the compute interface (KFD) is missing");
        assert_n_evidence(fd, 3);
        assert_evidence(fd, 0, "/sys/class/kfd/kfd: absent");
        assert_evidence(fd, 1, "/dev/kfd: absent");
        assert_evidence(fd, 2, "kernel: kfd kfd: error getting iommu info. is the iommu enabled?");
        g_assert_true(g_str_has_prefix(fd->remedy, "This kernel was built without KFD"));
    }
    g_assert_cmpint(rd_findings_exit_status(&r.fs), ==, RD_EXIT_ERROR);
    result_free(&r);
    rd_facts_free(&f);

    /* a container that was not given /dev/kfd, on a host with KFD: one cause,
     * one finding, and it is the container's */
    navi31_host(&f, HEALTHY);
    f.os.container = xstrdup("podman");
    f.access.nodes[0].exists = false;
    assess(&f, &r);
    assert_ids(&r.fs, "container.devices-missing");
    fd = get(&r.fs, "container.devices-missing");
    if (fd)
        assert_contains(fd->remedy, "podman run --device=/dev/kfd --device=/dev/dri");
    result_free(&r);

    /* ... on a host without KFD: the host's cause alone */
    f.kfd.present = false;
    assess(&f, &r);
    assert_ids(&r.fs, "kfd.missing");
    fd = get(&r.fs, "kfd.missing");
    if (fd)
        g_assert_true(g_str_has_prefix(fd->remedy, "The host's kernel has no KFD"));
    result_free(&r);
    rd_facts_free(&f);
}

static void test_kfd_unsupported(void)
{
    rd_facts f;
    navi31_host(&f, WITH_DRIVER | WITH_ACCESS);
    f.kfd.present = true;
    add_cpu_node(&f);
    add_kmsg(&f, 6, "[drm] amdgpu kernel modesetting enabled.");
    add_kmsg(&f, 4, "kfd kfd: amdgpu: GC IP 0b0000 not supported in kfd");
    result r;
    assess(&f, &r);
    assert_ids(&r.fs, "driver.kfd-unsupported");
    const rd_finding *fd = get(&r.fs, "driver.kfd-unsupported");
    if (fd) {
        g_assert_cmpint(fd->severity, ==, RD_SEV_ERROR);
        g_assert_cmpstr(fd->gpu, ==, NAVI31);
        assert_n_evidence(fd, 3);
        assert_evidence(fd, 0, "no KFD topology node has location " NAVI31);
        assert_evidence(fd, 1, "kernel: kfd kfd: amdgpu: GC IP 0b0000 not supported in kfd");
        assert_evidence(fd, 2, "1002:744c is gfx1100");
        assert_contains(fd->remedy, "linux-generic-hwe-24.04");
    }
    g_assert_cmpint(rd_findings_exit_status(&r.fs), ==, RD_EXIT_ERROR);
    result_free(&r);
    rd_facts_free(&f);

    /* nodes hidden by the device cgroup explain the missing node: nothing to say */
    navi31_host(&f, WITH_DRIVER | WITH_ACCESS);
    f.kfd.present = true;
    add_cpu_node(&f);
    rd_kfd_node *hidden = ARRAY_APPEND(f.kfd.nodes, f.kfd.n_nodes);
    hidden->node_id = 1;
    hidden->error = xstrdup("EPERM: hidden by the device cgroup (container or scheduler)");
    assess(&f, &r);
    assert_ids(&r.fs, "");
    result_free(&r);
    rd_facts_free(&f);
}

/* The HD 8790M of the Fedora report: Oland (gfx602, SI) on amdgpu. No KFD
 * supports SI: say so, with no kernel or package advice, and nothing else. */
static void test_si_never_rocm(void)
{
    rd_facts f;
    rd_facts_init(&f);
    f.os.id = xstrdup("fedora");
    f.os.version_id = xstrdup("41");
    rd_pci_device *rp = add_port(&f, ROOT_PORT, 0x8086, 0x1901, 4, NULL);
    set_link(rp, 8.0, 8, 8.0, 16);
    rd_pci_device *d = add_pci(&f, "0000:01:00.0", 0x1002, 0x6606, 0x038000, ROOT_PORT);
    d->driver = xstrdup("amdgpu");
    d->caps_readable = true;
    d->pcie_type = 0;
    f.driver.module_present = true;
    f.kfd.present = true;
    add_cpu_node(&f);
    add_kmsg(&f, 6, "kfd kfd: amdgpu: OLAND  not supported in kfd");
    result r;
    assess(&f, &r);
    assert_ids(&r.fs, "driver.kfd-unsupported os.not-validated");
    const rd_finding *fd = get(&r.fs, "driver.kfd-unsupported");
    if (fd) {
        assert_contains(fd->summary, "cannot run ROCm");
        assert_contains(fd->remedy, "Vulkan");
        assert_contains(fd->remedy, "gfx1100");
        g_assert_null(strstr(fd->remedy, "hwe"));
        g_assert_null(strstr(fd->remedy, "kernel ("));
        assert_contains(fd->evidence[1], "OLAND  not supported in kfd");
    }
    result_free(&r);
    rd_facts_free(&f);
}

static const rd_test_case tests[] = {
    { "/kfd/properties/navi31", test_navi31 },
    { "/kfd/properties/mi300x-cpx", test_mi300x_cpx },
    { "/kfd/properties/unknown-keys-in-order", test_unknown_keys_in_order },
    { "/kfd/properties/extremes", test_extremes },
    { "/kfd/properties/malformed-lines", test_malformed_lines },
    { "/kfd/properties/binary", test_binary },
    { "/kfd/properties/empty", test_empty },
    { "/kfd/properties/line-limit", test_line_limit },
    { "/assess/kfd/missing", test_kfd_missing },
    { "/assess/kfd/unsupported", test_kfd_unsupported },
    { "/assess/kfd/si-never-rocm", test_si_never_rocm },
};

RD_TEST_MAIN_KNOWLEDGE(tests, true, &knowledge)
