/* SPDX-License-Identifier: MIT */
#include "json-util.h"

#include "util.h"

json_object *rd_json_str_or_null(const char *s)
{
    return s && *s ? json_object_new_string(s) : NULL;
}

json_object *rd_json_int_or_null(int64_t v)
{
    return v >= 0 ? json_object_new_int64(v) : NULL;
}

json_object *rd_json_strv(char *const *v)
{
    json_object *a = json_object_new_array();
    for (size_t i = 0; v && v[i]; i++)
        json_object_array_add(a, json_object_new_string(v[i]));
    return a;
}

char **rd_json_to_strv(json_object *a)
{
    if (!a || !json_object_is_type(a, json_type_array))
        return NULL;
    size_t n = json_object_array_length(a), k = 0;
    char **v = xcalloc(n + 1, sizeof(char *));
    for (size_t i = 0; i < n; i++) {
        json_object *e = json_object_array_get_idx(a, i);
        if (json_object_is_type(e, json_type_string))
            v[k++] = xstrdup(json_object_get_string(e));
    }
    if (k == 0) {
        free(v);
        return NULL;
    }
    return v;
}

static json_object *get_typed(json_object *o, const char *key, json_type type)
{
    json_object *v;
    if (!o || !json_object_is_type(o, json_type_object) || !json_object_object_get_ex(o, key, &v) ||
        !json_object_is_type(v, type))
        return NULL;
    return v;
}

const char *rd_json_get_str(json_object *o, const char *key)
{
    json_object *v = get_typed(o, key, json_type_string);
    return v ? json_object_get_string(v) : NULL;
}

int64_t rd_json_get_int(json_object *o, const char *key, int64_t fallback)
{
    json_object *v = get_typed(o, key, json_type_int);
    return v ? json_object_get_int64(v) : fallback;
}

bool rd_json_get_bool(json_object *o, const char *key)
{
    json_object *v = get_typed(o, key, json_type_boolean);
    return v && json_object_get_boolean(v);
}

json_object *rd_json_get_array(json_object *o, const char *key)
{
    return get_typed(o, key, json_type_array);
}

void rd_json_set_str(json_object *o, const char *key, const char *s)
{
    json_object_object_add(o, key, s ? json_object_new_string(s) : NULL);
}

void rd_json_set_int(json_object *o, const char *key, int64_t v)
{
    json_object_object_add(o, key, json_object_new_int64(v));
}

void rd_json_set_bool(json_object *o, const char *key, bool v)
{
    json_object_object_add(o, key, json_object_new_boolean(v));
}

char *rd_json_pretty(json_object *o)
{
    return xasprintf("%s\n",
                     json_object_to_json_string_ext(o, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_NOSLASHESCAPE));
}
