/* SPDX-License-Identifier: MIT */
#include "redact.h"

#include <ctype.h>
#include <strings.h>
#include "util.h"

/* Names that hold a secret when they contain one of these... */
static const char *const secret_parts[] = {
    "token",       "secret",     "passw",         "passwd",     "apikey",      "api_key",
    "api-key",     "accesskey",  "access_key",    "access-key", "privatekey",  "private_key",
    "private-key", "credential", "authorization", "cookie",     "session_key",
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

static bool value_shown(const rd_redact_policy *p, const char *name, size_t len)
{
    return p && p->value_shown && p->value_shown(name, len);
}

static bool public_host(const rd_redact_policy *p, const char *host, size_t len)
{
    for (const char *const *h = p ? p->public_hosts : NULL; h && *h; h++)
        if (strlen(*h) == len && strncasecmp(host, *h, len) == 0)
            return true;
    return false;
}

/* An environment variable's name as people write them: upper case, digits
 * and underscores, with a letter ("HF_TOKEN", not "0x1F" or "arch"). */
static bool variable_name(const char *s, size_t len)
{
    bool letter = false;
    if (len == 0 || isdigit((unsigned char)s[0]))
        return false;
    for (size_t i = 0; i < len; i++) {
        if (!isupper((unsigned char)s[i]) && !isdigit((unsigned char)s[i]) && s[i] != '_')
            return false;
        letter |= isupper((unsigned char)s[i]) != 0;
    }
    return letter;
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

/* p at "://": writes the rest of the URL as the policy allows; returns the
 * end of the URL. */
static const char *put_url(const rd_redact_policy *pol, const char *p, const char *end, strbuf *out, unsigned *count)
{
    const char *a = p + 3, *q = a, *at = NULL;
    while (q < end && !isspace((unsigned char)*q) && !strchr("/?#\"'<>", *q)) {
        if (*q == '@')
            at = q;
        q++;
    }
    strbuf_append(out, "://");
    if (at) {
        strbuf_append(out, RD_REDACTED "@");
        (*count)++;
        a = at + 1;
    }
    strbuf_appendn(out, a, (size_t)(q - a));
    const char *r = q; /* path, query and fragment */
    while (r < end && !isspace((unsigned char)*r) && !strchr("\"'<>)]", *r))
        r++;
    size_t path_len = strcspn(q, "?#");
    if (path_len > (size_t)(r - q))
        path_len = (size_t)(r - q);
    if (public_host(pol, a, (size_t)(q - a))) {
        strbuf_appendn(out, q, path_len);
        if (q + path_len < r) {
            strbuf_append(out, "?" RD_REDACTED);
            (*count)++;
        }
    } else if (r - q > 1 || (r - q == 1 && *q != '/')) {
        strbuf_append(out, "/" RD_REDACTED);
        (*count)++;
    } else
        strbuf_appendn(out, q, (size_t)(r - q));
    return r;
}

/* After the key k[0..klen) at p: redacts the value that follows when the key
 * names a secret or a variable the policy does not show. Returns where to go
 * on, or NULL when there is nothing to redact. */
static const char *put_key_value(const rd_redact_policy *pol, const char *k, size_t klen, bool command_pos,
                                 const char *p, const char *end, strbuf *out, unsigned *count)
{
    const char *s = p;
    if (s < end && (*s == '"' || *s == '\''))
        s++;
    while (s < end && (*s == ' ' || *s == '\t'))
        s++;
    bool eq = s < end && *s == '=' && !(s + 1 < end && s[1] == '=');
    bool colon = s < end && *s == ':' && !(s + 3 <= end && memcmp(s, "://", 3) == 0);
    bool variable = eq && s == p && command_pos && variable_name(k, klen) && !value_shown(pol, k, klen);
    bool secret = rd_redact_secret_name(k, klen);
    const char *v = NULL, *vend = NULL;
    if ((eq || colon) && (secret || variable)) {
        v = s + 1;
        while (v < end && (*v == ' ' || *v == '\t'))
            v++;
        /* an Authorization header's value is the rest of the line */
        vend = contains_ci(k, klen, "authorization") ? end : value_end(v, end);
    } else if (p < end && (*p == ' ' || *p == '\t') &&
               ((klen == 8 && strncasecmp(k, "password", 8) == 0) || (klen == 6 && strncasecmp(k, "passwd", 6) == 0))) {
        /* netrc and apt auth.conf: "password VALUE" */
        v = s;
        vend = value_end(v, end);
    }
    if (!v || vend == v)
        return NULL; /* nothing to hide: "password=" */
    strbuf_appendn(out, p, (size_t)(v - p));
    put_redacted_value(out, v, vend);
    (*count)++;
    return vend;
}

static void redact_line(const rd_redact_policy *pol, const char *line, const char *end, strbuf *out, unsigned *count)
{
    const char *p = line;
    while (p < end) {
        if (p + 3 <= end && memcmp(p, "://", 3) == 0) {
            p = put_url(pol, p, end, out, count);
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
        /* where a shell command (and so an assignment) can start, not
         * "root=UUID=..." */
        bool command_pos = p == line || strchr(" \t;&|(`\"'", p[-1]);
        const char *k = p;
        while (p < end && is_key_char(*p))
            p++;
        size_t klen = (size_t)(p - k);
        strbuf_appendn(out, k, klen);
        const char *next = path_part ? NULL : put_key_value(pol, k, klen, command_pos, p, end, out, count);
        if (next)
            p = next;
    }
}

typedef enum { TEXT, CONFIG, ENV } text_kind;

/* A comment line of a configuration file: "# <redacted>" when it says anything. */
static bool put_comment(const char *p, const char *end, strbuf *out, unsigned *count)
{
    const char *s = p + strspn(p, " \t");
    if (s >= end || *s != '#')
        return false;
    strbuf_appendn(out, p, (size_t)(s - p) + 1);
    const char *rest = s + 1 + strspn(s + 1, " \t#");
    if (rest < end) {
        strbuf_append(out, " " RD_REDACTED);
        (*count)++;
    }
    return true;
}

/* End of the shell word at p (quotes and backslashes honoured). */
static const char *shell_word_end(const char *p, const char *end)
{
    char quote = 0;
    for (; p < end; p++) {
        if (quote) {
            if (*p == '\\' && quote == '"' && p + 1 < end)
                p++;
            else if (*p == quote)
                quote = 0;
        } else if (*p == '\\' && p + 1 < end)
            p++;
        else if (*p == '"' || *p == '\'')
            quote = *p;
        else if (isspace((unsigned char)*p) || strchr(";&|", *p))
            break;
    }
    return p;
}

/* One line of an environment file. */
static void redact_env_line(const rd_redact_policy *pol, const char *p, const char *end, strbuf *out, unsigned *count)
{
    if (put_comment(p, end, out, count))
        return;
    const char *s = p + strspn(p, " \t");
    if (s >= end) {
        strbuf_appendn(out, p, (size_t)(end - p));
        return;
    }
    const char *name = s;
    if (end - s > 7 && memcmp(s, "export", 6) == 0 && (s[6] == ' ' || s[6] == '\t'))
        name = s + 7 + strspn(s + 7, " \t");
    const char *n = name;
    while (n < end && (isalnum((unsigned char)*n) || *n == '_'))
        n++;
    bool assignment = n > name && !isdigit((unsigned char)*name) && n < end && *n == '=';
    bool only_names = !assignment && name > s &&
                      strspn(name, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
                                   "0123456789_ \t") >= (size_t)(end - name);
    if (only_names) { /* "export NAME" */
        strbuf_appendn(out, p, (size_t)(end - p));
        return;
    }
    if (!assignment) { /* shell code, or nothing this reader knows */
        strbuf_appendn(out, p, (size_t)(s - p));
        strbuf_append(out, RD_REDACTED);
        (*count)++;
        return;
    }
    strbuf_appendn(out, p, (size_t)(n + 1 - p));
    const char *v = n + 1, *vend = shell_word_end(v, end);
    if (!value_shown(pol, name, (size_t)(n - name))) {
        if (v < end) {
            strbuf_append(out, RD_REDACTED);
            (*count)++;
        }
        return;
    }
    redact_line(pol, v, vend, out, count);
    if (vend + strspn(vend, " \t") < end) { /* more on the line: another command */
        strbuf_append(out, " " RD_REDACTED);
        (*count)++;
    }
}

static char *redact(const rd_redact_policy *pol, const char *text, text_kind kind, unsigned *count)
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
        } else if (kind == ENV)
            redact_env_line(pol, p, end, &out, count);
        else if (kind == TEXT || !put_comment(p, end, &out, count))
            redact_line(pol, p, end, &out, count);
        if (nl)
            strbuf_append(&out, "\n");
        p = nl ? nl + 1 : end;
    }
    return strbuf_steal(&out);
}

char *rd_mask_url_passwords(const char *text)
{
    strbuf out = { 0 };
    strbuf_append(&out, "");
    const char *p = strempty(text);
    for (const char *s; (s = strstr(p, "://"));) {
        const char *auth = s + 3;
        size_t an = strcspn(auth, "/ \t\r\n\"'<>");
        const char *at = NULL;
        for (size_t i = 0; i < an; i++)
            if (auth[i] == '@')
                at = auth + i; /* the last @: a password may hold one unescaped */
        const char *colon = at ? memchr(auth, ':', (size_t)(at - auth)) : NULL;
        if (!colon) {
            strbuf_appendn(&out, p, (size_t)(auth - p));
            p = auth;
            continue;
        }
        strbuf_appendn(&out, p, (size_t)(colon + 1 - p));
        strbuf_append(&out, RD_MASKED);
        p = at;
    }
    strbuf_append(&out, p);
    return strbuf_steal(&out);
}

char *rd_redact_text(const rd_redact_policy *policy, const char *text, unsigned *count)
{
    return redact(policy, text, TEXT, count);
}

char *rd_redact_env(const rd_redact_policy *policy, const char *text, unsigned *count)
{
    return redact(policy, text, ENV, count);
}

char *rd_redact_config(const rd_redact_policy *policy, const char *text, unsigned *count)
{
    return redact(policy, text, CONFIG, count);
}

void rd_redact_json(const rd_redact_policy *policy, json_object *j, unsigned *count)
{
    unsigned dummy = 0;
    if (!count)
        count = &dummy;
    switch (json_object_get_type(j)) {
    case json_type_object: {
        /* {"name": "HF_TOKEN", "value": "..."}: a variable, shown only by the
         * policy ({"name": "ppfeaturemask"}: a module parameter) */
        json_object *name = NULL, *value = NULL;
        const char *n = NULL;
        size_t n_len = 0;
        if (json_object_object_get_ex(j, "name", &name) && json_object_is_type(name, json_type_string)) {
            n = json_object_get_string(name);
            n_len = (size_t)json_object_get_string_len(name);
        }
        if (n && json_object_object_get_ex(j, "value", &value) && json_object_is_type(value, json_type_string) &&
            ((variable_name(n, n_len) && !value_shown(policy, n, n_len)) || rd_redact_secret_name(n, n_len)) &&
            json_object_get_string_len(value) > 0) {
            json_object_set_string(value, RD_REDACTED);
            (*count)++;
        }
        json_object_object_foreach (j, key, child) {
            if (json_object_is_type(child, json_type_string) && rd_redact_secret_name(key, strlen(key)) &&
                json_object_get_string_len(child) > 0 && !streq(json_object_get_string(child), RD_REDACTED)) {
                json_object_set_string(child, RD_REDACTED);
                (*count)++;
            } else
                rd_redact_json(policy, child, count);
        }
        break;
    }
    case json_type_array:
        for (size_t i = 0; i < json_object_array_length(j); i++)
            rd_redact_json(policy, json_object_array_get_idx(j, i), count);
        break;
    case json_type_string: {
        _cleanup_free_ char *r = rd_redact_text(policy, json_object_get_string(j), count);
        if (!streq(r, json_object_get_string(j)))
            json_object_set_string(j, r);
        break;
    }
    default: break;
    }
}
