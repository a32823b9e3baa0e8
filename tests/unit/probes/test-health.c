/* SPDX-License-Identifier: MIT */
/* The health probe's parsers (RAS files, bad pages, gpu_metrics, AER, the
 * kernel log) and its assess step with the [health] limits. */
#include <errno.h>
#include <glib.h>
#include <stddef.h>

#include "testlib.h"
#include "config.h"
#include "health.h"
#include "util.h"

/* ---- RAS ---- */

static void test_ras_err_count(void)
{
    rd_ras_count c = { 0 };
    g_assert_cmpint(rd_ras_err_count_parse("ue: 3\nce: 12\n", 14, &c), ==, 0);
    g_assert_cmpint(c.ue, ==, 3);
    g_assert_cmpint(c.ce, ==, 12);
    g_assert_cmpint(c.de, ==, -1); /* older kernels: two lines */
    const char *aca = "ue: 0\nce: 7\nde: 2\n";
    g_assert_cmpint(rd_ras_err_count_parse(aca, strlen(aca), &c), ==, 0);
    g_assert_cmpint(c.ue, ==, 0);
    g_assert_cmpint(c.ce, ==, 7);
    g_assert_cmpint(c.de, ==, 2);
    g_assert_false(c.inaccessible);
    /* keys in any order, unknown keys ignored */
    const char *odd = "de: 1\nfoo: 9\nue: 4\n";
    g_assert_cmpint(rd_ras_err_count_parse(odd, strlen(odd), &c), ==, 0);
    g_assert_cmpint(c.ue, ==, 4);
    g_assert_cmpint(c.ce, ==, -1);
    g_assert_cmpint(c.de, ==, 1);
    const char *busy = "Query currently inaccessible\n";
    g_assert_cmpint(rd_ras_err_count_parse(busy, strlen(busy), &c), ==, 0);
    g_assert_true(c.inaccessible);
    g_assert_cmpint(c.ue, ==, -1);
    g_assert_cmpint(rd_ras_err_count_parse("", 0, &c), ==, -EINVAL);
    g_assert_cmpint(rd_ras_err_count_parse("ue: -1\n", 7, &c), ==, -EINVAL);
    g_assert_cmpint(rd_ras_err_count_parse("ue: 99999999999999999999\n", 25, &c), ==, -EINVAL);
    /* the length bounds the read: "ue: 3" cut to "ue: " */
    g_assert_cmpint(rd_ras_err_count_parse("ue: 3\n", 4, &c), ==, -EINVAL);
}

static void test_ras_features(void)
{
    int64_t m = 0;
    g_assert_cmpint(rd_ras_features_parse("feature mask: 0x3fff\n", 21, &m), ==, 0);
    g_assert_cmpint(m, ==, 0x3fff);
    /* socket id 3 in bits 31:29 is not a block */
    g_assert_cmpint(rd_ras_features_parse("feature mask: 0x60003fff\n", 25, &m), ==, 0);
    g_assert_cmpint(m, ==, 0x3fff);
    g_assert_cmpint(rd_ras_features_parse("feature mask: 0x\n", 17, &m), ==, -EINVAL);
    g_assert_cmpint(rd_ras_features_parse("feature mask: 0x123456789\n", 26, &m), ==, -EINVAL);
    g_assert_cmpint(rd_ras_features_parse("mask 0x1\n", 9, &m), ==, -EINVAL);
}

static void test_bad_pages(void)
{
    const char *t = "0x00000001 : 0x00001000 : R\n"
                    "0x00000a02 : 0x00001000 : R\n"
                    "0x00000b03 : 0x00001000 : P\n"
                    "0x00000c04 : 0x00001000 : F\n"
                    "page address : size : status\n"
                    "0x00000d05 : 0x00001000 : RR\n"
                    "0x00000e06 : 0x00001000 : ";
    rd_bad_pages b;
    rd_bad_pages_parse(t, strlen(t), &b);
    g_assert_cmpint(b.reserved, ==, 2);
    g_assert_cmpint(b.pending, ==, 1);
    g_assert_cmpint(b.failed, ==, 1);
    g_assert_cmpint(b.ignored, ==, 3);
    rd_bad_pages_parse("", 0, &b);
    g_assert_cmpint(b.reserved + b.pending + b.failed + b.ignored, ==, 0);
    /* a row cut by the length is not a row */
    rd_bad_pages_parse(t, 27, &b);
    g_assert_cmpint(b.reserved, ==, 1);
    rd_bad_pages_parse(t, 26, &b);
    g_assert_cmpint(b.reserved, ==, 0);
}

/* ---- gpu_metrics ---- */

/* Three layouts transcribed from kgd_pp_interface.h, so that the compiler,
 * not a table, places the fields: v1_0 (with its alignment hole), v1_3
 * (indep_throttle_status) and v2_2. */
struct metrics_table_header {
    uint16_t structure_size;
    uint8_t format_revision, content_revision;
};
struct gpu_metrics_v1_0 {
    struct metrics_table_header common_header;
    uint64_t system_clock_counter;
    uint16_t temperature_edge, temperature_hotspot, temperature_mem, temperature_vrgfx, temperature_vrsoc,
        temperature_vrmem;
    uint16_t average_gfx_activity, average_umc_activity, average_mm_activity, average_socket_power;
    uint32_t energy_accumulator;
    uint16_t average_gfxclk_frequency, average_socclk_frequency, average_uclk_frequency, average_vclk0_frequency,
        average_dclk0_frequency, average_vclk1_frequency, average_dclk1_frequency;
    uint16_t current_gfxclk, current_socclk, current_uclk, current_vclk0, current_dclk0, current_vclk1, current_dclk1;
    uint32_t throttle_status;
    uint16_t current_fan_speed;
    uint8_t pcie_link_width, pcie_link_speed;
};
struct gpu_metrics_v1_3 {
    struct metrics_table_header common_header;
    uint16_t temperature_edge, temperature_hotspot, temperature_mem, temperature_vrgfx, temperature_vrsoc,
        temperature_vrmem;
    uint16_t average_gfx_activity, average_umc_activity, average_mm_activity, average_socket_power;
    uint64_t energy_accumulator, system_clock_counter;
    uint16_t average_gfxclk_frequency, average_socclk_frequency, average_uclk_frequency, average_vclk0_frequency,
        average_dclk0_frequency, average_vclk1_frequency, average_dclk1_frequency;
    uint16_t current_gfxclk, current_socclk, current_uclk, current_vclk0, current_dclk0, current_vclk1, current_dclk1;
    uint32_t throttle_status;
    uint16_t current_fan_speed, pcie_link_width, pcie_link_speed, padding;
    uint32_t gfx_activity_acc, mem_activity_acc;
    uint16_t temperature_hbm[4];
    uint64_t firmware_timestamp;
    uint16_t voltage_soc, voltage_gfx, voltage_mem, padding1;
    uint64_t indep_throttle_status;
};
struct gpu_metrics_v2_2 {
    struct metrics_table_header common_header;
    uint16_t temperature_gfx, temperature_soc, temperature_core[8], temperature_l3[2];
    uint16_t average_gfx_activity, average_mm_activity;
    uint64_t system_clock_counter;
    uint16_t average_socket_power, average_cpu_power, average_soc_power, average_gfx_power, average_core_power[8];
    uint16_t average_gfxclk_frequency, average_socclk_frequency, average_uclk_frequency, average_fclk_frequency,
        average_vclk_frequency, average_dclk_frequency;
    uint16_t current_gfxclk, current_socclk, current_uclk, current_fclk, current_vclk, current_dclk, current_coreclk[8],
        current_l3clk[2];
    uint32_t throttle_status;
    uint16_t fan_pwm, padding[3];
    uint64_t indep_throttle_status;
};

/* Every layout the parser knows, from the notes' tables: sizeof and the
 * offsets of throttle_status, indep_throttle_status, accumulation_counter. */
static const struct {
    uint8_t format, content;
    size_t size;
    int throttle, indep, residency;
} layouts[] = {
    { 1, 0, sizeof(struct gpu_metrics_v1_0), offsetof(struct gpu_metrics_v1_0, throttle_status), -1, -1 },
    { 1, 1, 96, 68, -1, -1 },
    { 1, 2, 104, 68, -1, -1 },
    { 1, 3, sizeof(struct gpu_metrics_v1_3), offsetof(struct gpu_metrics_v1_3, throttle_status),
      offsetof(struct gpu_metrics_v1_3, indep_throttle_status), -1 },
    { 1, 4, 288, 40, -1, -1 },
    { 1, 5, 360, 104, -1, -1 },
    { 1, 6, 384, 128, -1, 104 },
    { 1, 6, 1664, -1, -1, 32 },
    { 1, 7, 2208, -1, -1, 40 },
    { 1, 8, 3872, -1, -1, 40 },
    { 2, 0, 120, 112, -1, -1 },
    { 2, 1, 120, 108, -1, -1 },
    { 2, 2, sizeof(struct gpu_metrics_v2_2), offsetof(struct gpu_metrics_v2_2, throttle_status),
      offsetof(struct gpu_metrics_v2_2, indep_throttle_status), -1 },
    { 2, 3, 152, 108, 120, -1 },
    { 2, 4, 168, 108, 120, -1 },
    { 3, 0, 264, -1, -1, -1 },
};

/* The notes' figures, checked against the compiler's layout. */
_Static_assert(sizeof(struct gpu_metrics_v1_0) == 80, "v1_0 size");
_Static_assert(offsetof(struct gpu_metrics_v1_0, system_clock_counter) == 8, "v1_0 hole");
_Static_assert(offsetof(struct gpu_metrics_v1_0, throttle_status) == 68, "v1_0 throttle");
_Static_assert(sizeof(struct gpu_metrics_v1_3) == 120, "v1_3 size");
_Static_assert(offsetof(struct gpu_metrics_v1_3, indep_throttle_status) == 112, "v1_3 indep");
_Static_assert(sizeof(struct gpu_metrics_v2_2) == 128, "v2_2 size");
_Static_assert(offsetof(struct gpu_metrics_v2_2, throttle_status) == 108, "v2_2 throttle");
_Static_assert(offsetof(struct gpu_metrics_v2_2, indep_throttle_status) == 120, "v2_2 indep");

static void put(uint8_t *b, size_t off, uint64_t v, size_t n)
{
    for (size_t i = 0; i < n; i++)
        b[off + i] = (uint8_t)(v >> (8 * i));
}

static uint8_t *blob(size_t i, size_t len)
{
    uint8_t *b = g_malloc0(len > layouts[i].size ? len : layouts[i].size);
    put(b, 0, layouts[i].size, 2);
    b[2] = layouts[i].format;
    b[3] = layouts[i].content;
    if (layouts[i].throttle >= 0)
        put(b, (size_t)layouts[i].throttle, 0xdeadbeef, 4);
    if (layouts[i].indep >= 0)
        put(b, (size_t)layouts[i].indep, (1ULL << 36) | 1, 8);
    if (layouts[i].residency >= 0)
        for (int k = 0; k < 6; k++)
            put(b, (size_t)layouts[i].residency + 4 * (size_t)k, k == 0 ? 1000 : 100 * (uint64_t)k, 4);
    return b;
}

static void metrics_free(rd_gpu_metrics *m)
{
    free(m->layout);
    free(m->note);
    memset(m, 0, sizeof(*m));
}

static void test_gpu_metrics_layouts(void)
{
    for (size_t i = 0; i < G_N_ELEMENTS(layouts); i++) {
        g_autofree uint8_t *b = blob(i, layouts[i].size + 16);
        rd_gpu_metrics m = { 0 };
        /* a file longer than structure_size: the header bounds the read */
        rd_gpu_metrics_parse(b, layouts[i].size + 16, &m);
        g_test_message("v%u_%u (%zu): %s", layouts[i].format, layouts[i].content, layouts[i].size,
                       m.note ? m.note : "understood");
        g_assert_true(m.understood);
        g_assert_cmpint(m.structure_size, ==, (int64_t)layouts[i].size);
        g_assert_cmpint(m.format_revision, ==, layouts[i].format);
        g_assert_cmpint(m.content_revision, ==, layouts[i].content);
        g_assert_cmpint(m.throttle_status, ==, layouts[i].throttle >= 0 ? (int64_t)0xdeadbeef : (int64_t)-1);
        g_assert_cmpint(m.has_indep_throttle, ==, layouts[i].indep >= 0);
        if (layouts[i].indep >= 0) {
            g_assert_cmpuint(m.indep_throttle_status, ==, (1ULL << 36) | 1);
            g_assert_cmpuint(rd_throttle_active(&m), ==, (1u << RD_THROTTLE_POWER) | (1u << RD_THROTTLE_THERMAL));
        }
        double share[RD_THROTTLE_N];
        g_assert_cmpint(rd_throttle_residency(&m, share), ==, layouts[i].residency >= 0);
        if (layouts[i].residency >= 0) {
            g_assert_cmpint(m.accumulation_counter, ==, 1000);
            g_assert_cmpint(m.prochot_residency, ==, 100);
            g_assert_cmpint(m.hbm_thm_residency, ==, 500);
            g_assert_cmpfloat(share[RD_THROTTLE_POWER], ==, 0.2);
            g_assert_cmpfloat(share[RD_THROTTLE_THERMAL], ==, 0.5); /* the largest of socket, VR, HBM */
            g_assert_cmpfloat(share[RD_THROTTLE_PROCHOT], ==, 0.1);
        }
        metrics_free(&m);
    }
}

static void test_gpu_metrics_not_understood(void)
{
    for (size_t i = 0; i < G_N_ELEMENTS(layouts); i++) {
        g_autofree uint8_t *b = blob(i, layouts[i].size);
        rd_gpu_metrics m = { 0 };
        /* truncated by one byte */
        rd_gpu_metrics_parse(b, layouts[i].size - 1, &m);
        g_assert_false(m.understood);
        g_assert_nonnull(strstr(m.note, "truncated"));
        g_assert_cmpint(m.throttle_status, ==, -1);
        g_assert_false(m.has_indep_throttle);
        metrics_free(&m);
        /* structure_size of no known layout for this revision */
        put(b, 0, layouts[i].size + 8, 2);
        rd_gpu_metrics_parse(b, layouts[i].size, &m);
        g_assert_false(m.understood);
        g_assert_nonnull(strstr(m.note, "does not match"));
        metrics_free(&m);
    }
    /* revisions no header defines (v1_9 is attribute-encoded: not read) */
    static const uint8_t revs[][2] = { { 1, 9 }, { 2, 5 }, { 3, 1 }, { 4, 0 }, { 0, 0 }, { 255, 255 } };
    for (size_t i = 0; i < G_N_ELEMENTS(revs); i++) {
        uint8_t b[4096] = { 0 };
        put(b, 0, sizeof b, 2);
        b[2] = revs[i][0];
        b[3] = revs[i][1];
        rd_gpu_metrics m = { 0 };
        rd_gpu_metrics_parse(b, sizeof b, &m);
        g_assert_false(m.understood);
        g_assert_nonnull(strstr(m.note, "not known to this version"));
        g_assert_cmpint(m.format_revision, ==, revs[i][0]);
        metrics_free(&m);
    }
    rd_gpu_metrics m = { 0 };
    rd_gpu_metrics_parse((const uint8_t *)"\x78\x00\x01", 3, &m);
    g_assert_false(m.understood);
    g_assert_cmpint(m.structure_size, ==, -1);
    metrics_free(&m);
}

/* ---- AER and the kernel log ---- */

static void test_aer(void)
{
    int64_t v = -1;
    const char *now = "RxErr 0\nBadTLP 3\ndev_cor_errs_bit[3] 1\nTOTAL_ERR_COR 4\n";
    g_assert_cmpint(rd_aer_total_parse(now, strlen(now), &v), ==, 0);
    g_assert_cmpint(v, ==, 4);
    const char *old = "Undefined 0\nData Link Protocol 0\nSurprise Down Error 0\nTOTAL_ERR_FATAL 2\n";
    g_assert_cmpint(rd_aer_total_parse(old, strlen(old), &v), ==, 0);
    g_assert_cmpint(v, ==, 2);
    g_assert_cmpint(rd_aer_total_parse("RxErr 0\n", 8, &v), ==, -ENOENT);
    g_assert_cmpint(rd_aer_total_parse("TOTAL_ERR_COR x\n", 16, &v), ==, -EINVAL);
}

static void classify(const char *text, const char *kind, const char *detail, int64_t count, const char *address)
{
    rd_health_event e = { 0 };
    char a[16];
    bool ok = rd_health_classify(text, &e, a);
    g_assert_cmpint(ok, ==, kind != NULL);
    if (ok) {
        g_assert_cmpstr(e.kind, ==, kind);
        g_assert_cmpstr(e.detail, ==, detail);
        g_assert_cmpint(e.count, ==, count);
        g_assert_cmpstr(a, ==, address);
    }
    free(e.kind);
    free(e.detail);
}

static void test_classify(void)
{
    classify("amdgpu 0000:65:00.0: amdgpu: GPU reset begin!", RD_HEALTH_EV_RESET, NULL, -1, "0000:65:00.0");
    classify("amdgpu 0000:65:00.0: amdgpu: GPU reset(3) succeeded!", RD_HEALTH_EV_RESET_OK, NULL, -1, "0000:65:00.0");
    classify("amdgpu 0000:85:00.0: amdgpu: GPU reset(1) failed", RD_HEALTH_EV_RESET_FAILED, NULL, -1, "0000:85:00.0");
    classify("amdgpu 0000:85:00.0: amdgpu: GPU reset(2) failed with error -110 ", RD_HEALTH_EV_RESET_FAILED, NULL, -1,
             "0000:85:00.0");
    classify("amdgpu 0000:03:00.0: amdgpu: Ring gfx_0.0.0 reset failed", RD_HEALTH_EV_RESET_FAILED, "gfx_0.0.0", -1,
             "0000:03:00.0");
    classify("[drm:amdgpu_job_timedout [amdgpu]] *ERROR* ring gfx_0.0.0 timeout, signaled seq=1, emitted seq=3",
             RD_HEALTH_EV_RING_TIMEOUT, "gfx_0.0.0", -1, "");
    classify("amdgpu 0000:03:00.0: amdgpu: ring sdma0 timeout, but soft recovered", RD_HEALTH_EV_RING_TIMEOUT, "sdma0",
             -1, "0000:03:00.0");
    classify("amdgpu 0000:0c:00.0: amdgpu: [gfxhub0] retry page fault (src_id:0 ring:0 vmid:8 pasid:32770, for "
             "process python3 pid 4100 thread python3 pid 4100)",
             RD_HEALTH_EV_PAGE_FAULT, "python3 pid 4100", -1, "0000:0c:00.0");
    classify("amdgpu 0000:03:00.0: amdgpu: MES failed to respond to msg=REMOVE_QUEUE", RD_HEALTH_EV_MES_HANG,
             "REMOVE_QUEUE", -1, "0000:03:00.0");
    classify("amdgpu 0000:03:00.0: amdgpu: SMU: I'm not done with your previous command: SMN_C2PMSG_66:0x0000000E",
             RD_HEALTH_EV_SMU_HANG, NULL, -1, "0000:03:00.0");
    classify("amdgpu 0000:65:00.0: amdgpu: {7}socket: 3, die: 0, 1000 uncorrectable hardware errors detected in "
             "total in umc block",
             RD_HEALTH_EV_RAS_UE, "umc", 1000, "0000:65:00.0");
    classify("amdgpu 0000:65:00.0: amdgpu: socket: 0, die: 1, 4 new correctable hardware errors detected in gfx "
             "block",
             RD_HEALTH_EV_RAS_CE, "gfx", 4, "0000:65:00.0");
    classify("amdgpu 0000:65:00.0: amdgpu: 2 deferred hardware errors detected in umc block", RD_HEALTH_EV_RAS_DE,
             "umc", 2, "0000:65:00.0");
    classify("amdgpu 0000:27:00.0: amdgpu: {3}poison is consumed by client 12, kick off gpu reset flow",
             RD_HEALTH_EV_POISON, NULL, -1, "0000:27:00.0");
    classify("amdgpu 0000:27:00.0: amdgpu: uncorrectable hardware error(ERREVENT_ATHUB_INTERRUPT) detected!",
             RD_HEALTH_EV_RAS_UE, "athub", -1, "0000:27:00.0");
    classify("amdgpu 0000:65:00.0: amdgpu: Saved bad pages 130 reaches threshold value 128", RD_HEALTH_EV_BAD_PAGES,
             NULL, 128, "0000:65:00.0");
    classify("amdgpu 0000:65:00.0: amdgpu: Saved bad pages(130) reaches threshold value(128).", RD_HEALTH_EV_BAD_PAGES,
             NULL, 128, "0000:65:00.0");
    classify("amdgpu 0000:65:00.0: amdgpu: RAS records:140 exceed threshold:128", RD_HEALTH_EV_BAD_PAGES, NULL, 128,
             "0000:65:00.0");
    classify("amdgpu 0000:03:00.0: amdgpu: VRAM is lost due to GPU reset!", RD_HEALTH_EV_VRAM_LOST, NULL, -1,
             "0000:03:00.0");
    /* healthy lines */
    classify("[drm] amdgpu kernel modesetting enabled.", NULL, NULL, -1, "");
    classify("amdgpu 0000:65:00.0: amdgpu: RAS INFO: ras initialized successfully, hardware ability[7fff] "
             "ras_mask[7fff]",
             NULL, NULL, -1, "");
}

/* ---- assess with limits ---- */

static void test_assess_limits(void)
{
    rd_facts f;
    rd_facts_init(&f);
    rd_health_gpu *g = ARRAY_APPEND(f.health.gpus, f.health.n_gpus);
    g->pci_address = xstrdup("0000:05:00.0");
    g->ras_exposed = true;
    rd_ras_count *c = ARRAY_APPEND(g->ras, g->n_ras);
    c->block = xstrdup("umc");
    c->ue = 0;
    c->ce = 150;
    c->de = 0;
    g->power_cap_uw = 200000000;
    g->power_cap_default_uw = 220000000;
    g->power_uw = g->power_cap_max_uw = g->vram_total = -1;
    g->bad_pages_reserved = g->bad_pages_pending = g->bad_pages_failed = g->bad_page_threshold = -1;
    rd_gpu_view v = { 0 };
    rd_knowledge k = { 0 };
    rd_assess_input in = { .facts = &f, .knowledge = &k, .gpus = &v, .config = NULL };
    rd_findings out = { 0 };
    rd_health_assess(&in, &out);
    g_assert_true(rd_findings_has(&out, "gpu.ras-correctable"));
    const rd_finding *p = rd_findings_get(&out, "gpu.power-capped");
    g_assert_nonnull(p);
    g_assert_cmpint(p->severity, ==, RD_SEV_INFO);
    rd_findings_free(&out);

    rd_config conf;
    rd_config_init(&conf);
    conf.health.correctable_errors_max = 150; /* not above */
    conf.health.power_cap_warn_percent = 95;  /* 91 % is now far below */
    in.config = &conf;
    rd_health_assess(&in, &out);
    g_assert_false(rd_findings_has(&out, "gpu.ras-correctable"));
    p = rd_findings_get(&out, "gpu.power-capped");
    g_assert_nonnull(p);
    g_assert_cmpint(p->severity, ==, RD_SEV_WARNING);
    rd_findings_free(&out);
    rd_config_free(&conf);
    rd_facts_free(&f);
}

static const rd_test_case tests[] = {
    { "/health/ras-err-count", test_ras_err_count },
    { "/health/ras-features", test_ras_features },
    { "/health/bad-pages", test_bad_pages },
    { "/health/gpu-metrics/layouts", test_gpu_metrics_layouts },
    { "/health/gpu-metrics/not-understood", test_gpu_metrics_not_understood },
    { "/health/aer", test_aer },
    { "/health/classify", test_classify },
    { "/health/assess-limits", test_assess_limits },
};

RD_TEST_MAIN(tests, false)
