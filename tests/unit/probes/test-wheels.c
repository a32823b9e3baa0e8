/* SPDX-License-Identifier: MIT */
/* The parsers of the wheels probe: a wheel's METADATA, distribution names,
 * and the gfx family a ROCm wheel's name is built for. */
#include <glib.h>

#include "knowledge.h"
#include "wheels.h"
#include "util.h"
#include "testlib.h"

static rd_knowledge shipped;

static void test_wheel_metadata(void)
{
    static const struct {
        const char *text, *name, *version; /* name NULL: -EINVAL */
    } cases[] = {
        { "Metadata-Version: 2.1\nName: rocm-sdk-core\nVersion: 7.1.0\nSummary: x\n", "rocm-sdk-core", "7.1.0" },
        /* CRLF, and a nightly's version */
        { "Metadata-Version: 2.1\r\nName: rocm\r\nVersion: 7.14.0a20260612\r\n", "rocm", "7.14.0a20260612" },
        /* the headers end at the first empty line: the description is not read */
        { "Name: rocm-sdk-core\nVersion: 6.5.0rc20250610\n\nVersion: 9.9.9\nName: other\n", "rocm-sdk-core",
          "6.5.0rc20250610" },
        /* the first of a repeated header counts */
        { "Name: rocm\nName: torch\nVersion: 7.10.0.dev0\n", "rocm", "7.10.0.dev0" },
        { "Name: rocm-sdk-core\n\nVersion: 7.1.0\n", NULL, NULL },
        { "Version: 7.1.0\n", NULL, NULL },
        { "Name: rocm sdk\nVersion: 7.1.0\n", NULL, NULL },
        { "Name: rocm\nVersion: \n", NULL, NULL },
        { "Name: rocm\nVersion: 7.1.0\x1b[31m\n", NULL, NULL },
        { "", NULL, NULL },
    };
    for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
        char *name = NULL, *version = NULL;
        int r = rd_wheel_metadata_parse(cases[i].text, &name, &version);
        if (!cases[i].name) {
            g_assert_cmpint(r, ==, -EINVAL);
            g_assert_null(name);
            continue;
        }
        g_assert_cmpint(r, ==, 0);
        g_assert_cmpstr(name, ==, cases[i].name);
        g_assert_cmpstr(version, ==, cases[i].version);
        free(name);
        free(version);
    }
}

static void test_wheel_names(void)
{
    static const struct {
        const char *name, *norm;
        bool rocm;
    } cases[] = {
        { "rocm_sdk_libraries_gfx94X_dcgpu", "rocm-sdk-libraries-gfx94x-dcgpu", true },
        { "Rocm.SDK__core", "rocm-sdk-core", true },
        { "rocm", "rocm", true },
        { "rocm_sdk", "rocm-sdk", true },
        { "rocm-profiler", "rocm-profiler", true },
        { "rocm_sdk_device_gfx942", "rocm-sdk-device-gfx942", true },
        { "rocmlib", "rocmlib", false },
        { "pytorch_triton_rocm", "pytorch-triton-rocm", false },
        { "torch", "torch", false },
        { "", "", false },
    };
    for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
        g_autofree char *n = rd_wheel_normalize(cases[i].name);
        g_assert_cmpstr(n, ==, cases[i].norm);
        g_assert_cmpint(rd_wheel_is_rocm_dist(n), ==, cases[i].rocm);
    }
}

static void test_wheel_family(void)
{
    static const struct {
        const char *dist;
        int r;
        const char *family; /* NULL: none */
        const char *gfx;    /* space-separated; NULL: none */
    } cases[] = {
        { "rocm-sdk-libraries-gfx94X-dcgpu", 0, "gfx94X-dcgpu", "gfx942" },
        { "rocm_sdk_libraries_gfx110x_all", 0, "gfx110X-all", "gfx1100 gfx1101 gfx1102 gfx1103" },
        { "rocm-sdk-libraries-gfx110X-dgpu", 0, "gfx110X-dgpu", "gfx1100 gfx1101 gfx1102" },
        { "rocm-sdk-libraries-gfx950-dcgpu", 0, "gfx950-dcgpu", "gfx950" },
        { "rocm-sdk-libraries-gfx1151", 0, "gfx1151", "gfx1151" },
        /* a target the table lacks is a family of its own */
        { "rocm-sdk-libraries-gfx1201", 0, "gfx1201", "gfx1201" },
        /* a family the table lacks: named, its targets unknown */
        { "rocm-sdk-libraries-gfx13X-all", 0, "gfx13x-all", NULL },
        { "rocm_sdk_device_gfx942", 0, NULL, "gfx942" },
        { "rocm-sdk-device-gfx90a", 0, NULL, "gfx90a" },
        { "rocm-sdk-core", -ENOENT, NULL, NULL },
        { "rocm-sdk-libraries", -ENOENT, NULL, NULL },
        { "rocm-sdk-device-notagfx", -ENOENT, NULL, NULL },
        { "rocm", -ENOENT, NULL, NULL },
        { "rocm-sdk-libraries-gfx94X dcgpu", -EINVAL, NULL, NULL },
    };
    for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
        char *family = NULL, **gfx = NULL;
        int r = rd_wheel_family_parse(&shipped, cases[i].dist, &family, &gfx);
        if (r != cases[i].r)
            g_error("case %s: %d, want %d", cases[i].dist, r, cases[i].r);
        if (r < 0)
            continue;
        g_assert_cmpstr(family, ==, cases[i].family);
        g_autofree char *joined = gfx ? g_strjoinv(" ", gfx) : NULL;
        g_assert_cmpstr(joined, ==, cases[i].gfx);
        free(family);
        strv_free(gfx);
    }
}

static const rd_test_case tests[] = {
    { "/wheels/metadata", test_wheel_metadata },
    { "/wheels/names", test_wheel_names },
    { "/wheels/family", test_wheel_family },
};

RD_TEST_MAIN_KNOWLEDGE(tests, false, &shipped)
