/* SPDX-License-Identifier: MIT */
/* src/shared/json-util.c: JSON numbers written by hand, as json-c writes
 * them. */
#include <glib.h>

#include "json-util.h"
#include "util.h"
#include "testlib.h"

/* ---- JSON numbers: written by hand, as json-c writes them ---- */

static void test_json_numbers(void)
{
    static const int64_t values[] = { 0, 1, -1, 9, 10, 99, 100, -100, 123456789, 750000000, INT64_MAX, INT64_MIN };
    for (size_t i = 0; i < G_N_ELEMENTS(values); i++) {
        json_object *mine = rd_json_int(values[i]);
        json_object *theirs = json_object_new_int64(values[i]);
        g_assert_cmpstr(json_object_to_json_string_ext(mine, JSON_C_TO_STRING_PLAIN), ==,
                        json_object_to_json_string_ext(theirs, JSON_C_TO_STRING_PLAIN));
        g_assert_cmpint(json_object_get_int64(mine), ==, values[i]);
        json_object_put(mine);
        json_object_put(theirs);
    }
    g_assert_null(rd_json_int_or_null(-1));

    /* inside an object, pretty, with constant keys */
    json_object *o = json_object_new_object();
    rd_json_add(o, "power_uw", rd_json_int_or_null(142000000));
    rd_json_add(o, "share", rd_json_double(0));
    rd_json_add(o, "half", rd_json_double(0.5));
    g_assert_cmpstr(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN), ==,
                    "{\"power_uw\":142000000,\"share\":0.0,\"half\":0.5}");
    g_assert_cmpint(json_object_get_int64(json_object_object_get(o, "power_uw")), ==, 142000000);
    g_assert_true(json_object_get_double(json_object_object_get(o, "share")) == 0);
    json_object_put(o);
}

/* ---- the pretty text: the same on every json-c ---- */

static void test_json_pretty(void)
{
    json_object *o = json_object_new_object();
    rd_json_add(o, "empty_array", json_object_new_array());
    rd_json_add(o, "empty_object", json_object_new_object());
    json_object *a = json_object_new_array();
    json_object_array_add(a, rd_json_int(1));
    json_object_array_add(a, NULL);
    json_object *in = json_object_new_object();
    rd_json_add(in, "path", json_object_new_string("/dev/kfd \"x\"\n\x01"));
    rd_json_add(in, "acl", json_object_new_array());
    json_object_array_add(a, in);
    rd_json_add(o, "list", a);
    rd_json_add(o, "on", json_object_new_boolean(true));
    rd_json_add(o, "share", rd_json_double(0.5));
    json_object_object_add(o, "k\"ey", NULL);
    /* json-c 0.14 to 0.17 print the empty ones over two lines, 0.18 as []
     * and {}: this text is neither's own, it is ours on all of them */
    static const char want[] = "{\n"
                               "  \"empty_array\":[],\n"
                               "  \"empty_object\":{},\n"
                               "  \"list\":[\n"
                               "    1,\n"
                               "    null,\n"
                               "    {\n"
                               "      \"path\":\"/dev/kfd \\\"x\\\"\\n\\u0001\",\n"
                               "      \"acl\":[]\n"
                               "    }\n"
                               "  ],\n"
                               "  \"on\":true,\n"
                               "  \"share\":0.5,\n"
                               "  \"k\\\"ey\":null\n"
                               "}\n";
    g_autofree char *text = rd_json_pretty(o);
    g_assert_cmpstr(text, ==, want);
    g_autofree char *bare = rd_json_pretty_text(o);
    g_assert_cmpuint(strlen(bare), ==, strlen(want) - 1);
    /* it reads back as the same value */
    json_object *back = json_tokener_parse(text);
    g_assert_nonnull(back);
    g_assert_true(json_object_equal(back, o));
    json_object_put(back);
    json_object_put(o);
    json_object *e = json_object_new_array();
    g_autofree char *empty = rd_json_pretty(e);
    g_assert_cmpstr(empty, ==, "[]\n");
    json_object_put(e);
}

static const rd_test_case tests[] = {
    { "/util/json-numbers", test_json_numbers },
    { "/util/json-pretty", test_json_pretty },
};

RD_TEST_MAIN(tests, false)
