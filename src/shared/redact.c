/* SPDX-License-Identifier: MIT */
#include "redact.h"

#include <ctype.h>
#include <strings.h>
#include "util.h"

/* Names that hold a secret when they contain one of these... */
static const char *const secret_parts[] = {
    "token", "secret", "passw", "passwd", "apikey", "api_key", "api-key", "accesskey",
    "access_key", "access-key", "privatekey", "private_key", "private-key", "credential",
    "authorization", "cookie", "session_key",
};
/* ...or are exactly one of these (too short to match inside other names:
 * "sig" would hit apt's signed-by). */
static const char *const secret_names[] = { "pass", "pwd", "pw", "sig", "signature", "auth" };

static bool contains_ci(const char *s, size_t len, const char *part)
{
    size_t pl = strlen(part);
    for (size_t i = 0; i + pl <= len; i++)
        if (strncasecmp(s + i, part, pl) == 0)
            return true;
    return false;
}

bool rd_redact_secret_name(const char *name, size_t len)
{
    for (size_t i = 0; i < ELEMENTSOF(secret_parts); i++)
        if (contains_ci(name, len, secret_parts[i]))
            return true;
    for (size_t i = 0; i < ELEMENTSOF(secret_names); i++)
        if (strlen(secret_names[i]) == len && strncasecmp(name, secret_names[i], len) == 0)
            return true;
    return false;
}

static bool is_key_char(char c)
{
    return isalnum((unsigned char)c) || c == '_' || c == '-' || c == '.';
}

/* End of a value that starts at p: a quoted string through its closing quote,
 * else up to whitespace or a separator of query strings and lists. */
static const char *value_end(const char *p, const char *end)
{
    if (p < end && (*p == '"' || *p == '\'')) {
        const char *q = memchr(p + 1, *p, (size_t)(end - p - 1));
        return q ? q + 1 : end;
    }
    while (p < end && !isspace((unsigned char)*p) && !strchr("&;,\"'", *p))
        p++;
    return p;
}

static void put_redacted_value(strbuf *out, const char *v, const char *vend)
{
    if (vend > v && (*v == '"' || *v == '\'')) {
        strbuf_appendn(out, v, 1);
        strbuf_append(out, RD_REDACTED);
        if (vend - v >= 2 && vend[-1] == *v)
            strbuf_appendn(out, v, 1);
    } else
        strbuf_append(out, RD_REDACTED);
}

static void redact_line(const char *line, const char *end, strbuf *out, unsigned *count)
{
    const char *p = line;
    while (p < end) {
        /* scheme://userinfo@host: drop the userinfo */
        if (p + 3 <= end && memcmp(p, "://", 3) == 0) {
            const char *a = p + 3, *q = a, *at = NULL;
            while (q < end && !isspace((unsigned char)*q) && !strchr("/?#\"'<>", *q)) {
                if (*q == '@')
                    at = q;
                q++;
            }
            strbuf_append(out, "://");
            if (at && at > a) {
                strbuf_append(out, RD_REDACTED);
                (*count)++;
                p = at;
            } else
                p = a;
            continue;
        }
        if (!is_key_char(*p)) {
            strbuf_appendn(out, p, 1);
            p++;
            continue;
        }
        /* a word: a key when followed by = or : (not ://), maybe after a
         * quote; a path component ("/etc/passwd: ...") is not a key */
        bool path_part = p > line && p[-1] == '/';
        const char *k = p;
        while (p < end && is_key_char(*p))
            p++;
        size_t klen = (size_t)(p - k);
        strbuf_appendn(out, k, klen);
        bool secret = !path_part && rd_redact_secret_name(k, klen);
        const char *s = p;
        if (s < end && (*s == '"' || *s == '\''))
            s++;
        while (s < end && (*s == ' ' || *s == '\t'))
            s++;
        bool sep = s < end && (*s == '=' || (*s == ':' && !(s + 3 <= end && memcmp(s, "://", 3) == 0)));
        if (!secret)
            continue;
        if (sep) {
            s++;
            while (s < end && (*s == ' ' || *s == '\t'))
                s++;
            /* an Authorization header's value is the rest of the line */
            const char *vend = contains_ci(k, klen, "authorization") ? end : value_end(s, end);
            if (vend == s)
                continue; /* nothing to hide: "password=" */
            strbuf_appendn(out, p, (size_t)(s - p));
            put_redacted_value(out, s, vend);
            (*count)++;
            p = vend;
        } else if (p < end && (*p == ' ' || *p == '\t') && (klen == 8 || klen == 6) &&
                   (strncasecmp(k, "password", 8) == 0 || strncasecmp(k, "passwd", 6) == 0)) {
            /* netrc and apt auth.conf: "password VALUE" */
            while (s < end && (*s == ' ' || *s == '\t'))
                s++;
            const char *vend = value_end(s, end);
            if (vend == s)
                continue;
            strbuf_appendn(out, p, (size_t)(s - p));
            put_redacted_value(out, s, vend);
            (*count)++;
            p = vend;
        }
    }
}

char *rd_redact_text(const char *text, unsigned *count)
{
    unsigned dummy = 0;
    if (!count)
        count = &dummy;
    strbuf out = { 0 };
    strbuf_append(&out, "");
    bool in_key = false;
    const char *p = text;
    while (*p) {
        const char *nl = strchr(p, '\n');
        const char *end = nl ? nl : p + strlen(p);
        size_t len = (size_t)(end - p);
        bool begin = contains_ci(p, len, "-----BEGIN") && contains_ci(p, len, "PRIVATE KEY-----");
        if (begin && !in_key) {
            in_key = true;
            strbuf_append(&out, "-----" RD_REDACTED " private key-----");
            (*count)++;
        } else if (in_key) {
            if (contains_ci(p, len, "-----END"))
                in_key = false;
            p = nl ? nl + 1 : end;
            continue;
        } else
            redact_line(p, end, &out, count);
        if (nl)
            strbuf_append(&out, "\n");
        p = nl ? nl + 1 : end;
    }
    return strbuf_steal(&out);
}

void rd_redact_json(json_object *j, unsigned *count)
{
    unsigned dummy = 0;
    if (!count)
        count = &dummy;
    switch (json_object_get_type(j)) {
    case json_type_object: {
        /* {"name": "HF_TOKEN", "value": "..."}: the name says the value is secret */
        json_object *name = NULL, *value = NULL;
        if (json_object_object_get_ex(j, "name", &name) && json_object_is_type(name, json_type_string) &&
            json_object_object_get_ex(j, "value", &value) && json_object_is_type(value, json_type_string) &&
            rd_redact_secret_name(json_object_get_string(name), (size_t)json_object_get_string_len(name)) &&
            json_object_get_string_len(value) > 0) {
            json_object_set_string(value, RD_REDACTED);
            (*count)++;
        }
        json_object_object_foreach(j, key, child) {
            if (json_object_is_type(child, json_type_string) && rd_redact_secret_name(key, strlen(key)) &&
                json_object_get_string_len(child) > 0 && !streq(json_object_get_string(child), RD_REDACTED)) {
                json_object_set_string(child, RD_REDACTED);
                (*count)++;
            } else
                rd_redact_json(child, count);
        }
        break;
    }
    case json_type_array:
        for (size_t i = 0; i < json_object_array_length(j); i++)
            rd_redact_json(json_object_array_get_idx(j, i), count);
        break;
    case json_type_string: {
        _cleanup_free_ char *r = rd_redact_text(json_object_get_string(j), count);
        if (!streq(r, json_object_get_string(j)))
            json_object_set_string(j, r);
        break;
    }
    default:
        break;
    }
}
