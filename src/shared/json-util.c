/* SPDX-License-Identifier: MIT */
#include "json-util.h"
#include <limits.h>

#include "util.h"

json_object *rd_json_str_or_null(const char *s)
{
    return s && *s ? json_object_new_string(s) : NULL;
}

/* An integer's digits, written straight into the output: json-c's own
 * serializer goes through snprintf, the larger part of a number's cost in
 * a report of a few hundred of them. The text is the same. */
static int int_to_json(json_object *o, struct printbuf *pb, int level, int flags)
{
    (void)level;
    (void)flags;
    char buf[24], *p = buf + sizeof buf;
    int64_t v = json_object_get_int64(o);
    uint64_t u = v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
    do
        *--p = (char)('0' + u % 10);
    while ((u /= 10) > 0);
    if (v < 0)
        *--p = '-';
    return printbuf_memappend(pb, p, (int)(buf + sizeof buf - p));
}

json_object *rd_json_int(int64_t v)
{
    json_object *o = json_object_new_int64(v);
    json_object_set_serializer(o, int_to_json, NULL, NULL);
    return o;
}

json_object *rd_json_int_or_null(int64_t v)
{
    return v >= 0 ? rd_json_int(v) : NULL;
}

json_object *rd_json_double(double v)
{
    /* 0.0 as json-c prints it, without a trip through printf */
    return v == 0 ? json_object_new_double_s(0, "0.0") : json_object_new_double(v);
}

json_object *rd_json_new_array(size_t n)
{
#ifdef RD_HAVE_JSON_ARRAY_EXT
    return json_object_new_array_ext(n > INT_MAX ? INT_MAX : (int)n);
#else
    (void)n;
    return json_object_new_array();
#endif
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

/* A value that holds no other: json-c's own text for it (a string escaped as
 * json-c escapes, but '/' kept). */
static void pretty_leaf(strbuf *b, json_object *o)
{
    strbuf_append(b, o ? json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE)
                       : "null");
}

static void pretty_indent(strbuf *b, unsigned level)
{
    for (unsigned i = 0; i < level; i++)
        strbuf_append(b, "  ");
}

/* json-c's pretty layout, written here so that it is the same text on every
 * json-c: members one to a line, two spaces a level, "key":value; an empty
 * array or object is [] or {} (json-c 0.18 prints that, 0.14 to 0.17 spread
 * it over two lines). */
static void pretty_value(strbuf *b, json_object *o, unsigned level)
{
    json_type t = o ? json_object_get_type(o) : json_type_null;
    if (t == json_type_array) {
        size_t n = json_object_array_length(o);
        if (n == 0) {
            strbuf_append(b, "[]");
            return;
        }
        strbuf_append(b, "[\n");
        for (size_t i = 0; i < n; i++) {
            pretty_indent(b, level + 1);
            pretty_value(b, json_object_array_get_idx(o, i), level + 1);
            strbuf_append(b, i + 1 < n ? ",\n" : "\n");
        }
        pretty_indent(b, level);
        strbuf_append(b, "]");
    } else if (t == json_type_object) {
        if (json_object_object_length(o) == 0) {
            strbuf_append(b, "{}");
            return;
        }
        strbuf_append(b, "{\n");
        bool first = true;
        json_object_object_foreach (o, key, val) {
            if (!first)
                strbuf_append(b, ",\n");
            first = false;
            pretty_indent(b, level + 1);
            _cleanup_json_ json_object *k = json_object_new_string(key);
            pretty_leaf(b, k);
            strbuf_append(b, ":");
            pretty_value(b, val, level + 1);
        }
        strbuf_append(b, "\n");
        pretty_indent(b, level);
        strbuf_append(b, "}");
    } else
        pretty_leaf(b, o);
}

char *rd_json_pretty_text(json_object *o)
{
    strbuf b = { 0 };
    pretty_value(&b, o, 0);
    return strbuf_steal(&b);
}

char *rd_json_pretty(json_object *o)
{
    strbuf b = { 0 };
    pretty_value(&b, o, 0);
    strbuf_append(&b, "\n");
    return strbuf_steal(&b);
}
