/* SPDX-License-Identifier: MIT */
/* rd_kfd_parse_properties: the topology "properties" file format. */
#include <glib.h>

#include "kfd.h"
#include "util.h"
#include "testlib.h"

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

static const rd_test_case tests[] = {
    { "/kfd/properties/navi31", test_navi31 },
    { "/kfd/properties/mi300x-cpx", test_mi300x_cpx },
    { "/kfd/properties/unknown-keys-in-order", test_unknown_keys_in_order },
    { "/kfd/properties/extremes", test_extremes },
    { "/kfd/properties/malformed-lines", test_malformed_lines },
    { "/kfd/properties/binary", test_binary },
    { "/kfd/properties/empty", test_empty },
    { "/kfd/properties/line-limit", test_line_limit },
};

RD_TEST_MAIN(tests, true)
