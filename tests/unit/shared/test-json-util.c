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

static const rd_test_case tests[] = {
    { "/util/json-numbers", test_json_numbers },
};

RD_TEST_MAIN(tests, false)
