/* SPDX-License-Identifier: MIT */
/* Small json-c helpers shared by the report, the fix plan and the journal:
 * typed reads that tolerate a missing or mistyped key, string vectors in
 * and out, and a cleanup for json objects. */
#pragma once

#include <json-c/json.h>
#include <stdbool.h>
#include <stdint.h>

static inline void rd_json_putp(json_object **j)
{
    if (*j)
        json_object_put(*j);
}
#define _cleanup_json_ __attribute__((cleanup(rd_json_putp)))

/* A string, or NULL (JSON null) for NULL or "". */
json_object *rd_json_str_or_null(const char *s);
/* A number; a number or NULL (JSON null) when negative; a double. */
json_object *rd_json_int(int64_t v);
json_object *rd_json_int_or_null(int64_t v);
json_object *rd_json_double(double v);
/* An empty array with room for n elements where json-c can make one (0.15
 * and later); on json-c 0.14 an empty array that grows as it is filled. */
json_object *rd_json_new_array(size_t n);
/* An array of the strings of a NULL-terminated vector (empty for NULL). */
json_object *rd_json_strv(char *const *v);
/* The strings of an array as a NULL-terminated vector; NULL when a is not
 * an array or is empty; elements that are not strings are skipped. */
char **rd_json_to_strv(json_object *a);

/* o[key] when o is an object holding it with that type, else NULL or the fallback. */
const char *rd_json_get_str(json_object *o, const char *key);
int64_t rd_json_get_int(json_object *o, const char *key, int64_t fallback);
bool rd_json_get_bool(json_object *o, const char *key);
json_object *rd_json_get_array(json_object *o, const char *key);

/* o[key] = value; a NULL string adds JSON null. */
void rd_json_set_str(json_object *o, const char *key, const char *s);
void rd_json_set_int(json_object *o, const char *key, int64_t v);
void rd_json_set_bool(json_object *o, const char *key, bool v);

/* o[key] = v where o does not hold key yet and key outlives o (a literal or
 * a static table's entry): no lookup and no copy of the key. */
static inline void rd_json_add(json_object *o, const char *key, json_object *v)
{
    json_object_object_add_ex(o, key, v, JSON_C_OBJECT_ADD_KEY_IS_NEW | JSON_C_OBJECT_KEY_IS_CONSTANT);
}

/* The object as pretty text with a final newline (owned by the caller):
 * the same text whatever json-c this is built with (0.14 to 0.18), empty
 * arrays and objects as [] and {}. Every JSON text rocm-doctor prints or
 * writes goes through it. */
char *rd_json_pretty(json_object *o);
/* The same without the final newline. */
char *rd_json_pretty_text(json_object *o);
