/* SPDX-License-Identifier: MIT */
#include "slurm-conf.h"

#include <ctype.h>
#include <strings.h>
#include "util.h"

/* One logical line from text + *pos: continuation lines joined, comments
 * dropped ("\#" kept as '#'); *lines counts the physical lines. */
static char *logical_line(const char *text, size_t size, size_t *pos, unsigned *lines)
{
    strbuf b = { 0 };
    strbuf_append(&b, "");
    size_t i = *pos;
    bool comment = false;
    (*lines)++;
    while (i < size && text[i] != '\n') {
        char c = text[i];
        if (c == '\\' && i + 1 < size && text[i + 1] == '\n') {
            i += 2;
            (*lines)++;
            continue;
        }
        if (c == '\\' && i + 1 < size && text[i + 1] == '#') {
            if (!comment)
                strbuf_append(&b, "#");
            i += 2;
            continue;
        }
        if (c == '#')
            comment = true;
        if (!comment && c != '\0')
            strbuf_appendn(&b, &c, 1);
        i++;
    }
    *pos = i;
    return strbuf_steal(&b);
}

static bool is_blank(char c)
{
    return c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v';
}

/* The next Key=Value token of *p, its value unquoted in place; NULL at the
 * end. A token without '=' is returned with *ret_value NULL. */
static char *next_token(char **p, char **ret_value)
{
    char *s = *p;
    while (is_blank(*s))
        s++;
    if (!*s)
        return NULL;
    char *key = s, *out = s, *value = NULL;
    bool quoted = false;
    for (; *s && (quoted || !is_blank(*s)); s++) {
        if (*s == '=' && !value) {
            *out++ = 0;
            value = out;
            continue;
        }
        if (*s == '"' && value) {
            quoted = !quoted;
            continue;
        }
        *out++ = *s;
    }
    if (*s)
        s++;
    *out = 0;
    *p = s;
    *ret_value = value;
    return key;
}

static int parse_pairs(char *l, rd_slurm_line *ret)
{
    char *cur = l, *value;
    for (char *key; (key = next_token(&cur, &value));) {
        if (!value) {
            if (ret->n_pairs == 0 && !ret->include && strcasecmp(key, "include") == 0) {
                while (is_blank(*cur))
                    cur++;
                size_t n = strlen(cur);
                while (n > 0 && is_blank(cur[n - 1]))
                    cur[--n] = 0;
                if (!*cur)
                    return -EINVAL;
                ret->include = cur;
                return 0;
            }
            return -EINVAL;
        }
        if (!*key)
            return -EINVAL;
        rd_slurm_pair *pr = ARRAY_APPEND(ret->pairs, ret->n_pairs);
        pr->key = key;
        pr->value = value;
    }
    return 0;
}

int rd_slurm_conf_parse(const char *text, size_t size, int (*on_line)(const rd_slurm_line *l, void *userdata),
                        void *userdata)
{
    unsigned line = 0;
    for (size_t pos = 0; pos < size;) {
        rd_slurm_line l = { .line = line + 1 };
        _cleanup_free_ char *buf = logical_line(text, size, &pos, &line);
        if (pos < size)
            pos++; /* the newline */
        const char *s = buf;
        while (is_blank(*s))
            s++;
        if (!*s)
            continue;
        _cleanup_free_ char *copy = xstrdup(s);
        if (parse_pairs(buf, &l) < 0) {
            free(l.pairs);
            l = (rd_slurm_line){ .line = l.line, .error = copy };
        }
        int r = on_line(&l, userdata);
        free(l.pairs);
        if (r)
            return r;
    }
    return 0;
}

const char *rd_slurm_line_get(const rd_slurm_line *l, const char *key)
{
    const char *v = NULL;
    for (size_t i = 0; i < l->n_pairs; i++)
        if (strcasecmp(l->pairs[i].key, key) == 0)
            v = l->pairs[i].value;
    return v;
}

typedef struct {
    char **names;
    size_t n;
    char *error;
} expansion;

/* why: "bad range", ...; where: the text it was found after */
static int expand_fail(expansion *x, const char *why, const char *where)
{
    if (!x->error)
        x->error = xasprintf("%s after \"%s\"", why, where);
    return -EINVAL;
}

static bool parse_bound(const char *s, const char *end, unsigned long *ret)
{
    if (s == end || end - s > 9)
        return false;
    unsigned long v = 0;
    for (; s < end; s++) {
        if (!isdigit((unsigned char)*s))
            return false;
        v = v * 10 + (unsigned long)(*s - '0');
    }
    *ret = v;
    return true;
}

static int expand_item(expansion *x, const char *prefix, const char *rest);

/* Each number of the range list in [ranges, close) appended to prefix, then the rest expanded. */
static int expand_ranges(expansion *x, const char *prefix, const char *ranges, const char *close)
{
    for (const char *r = ranges; r < close;) {
        const char *comma = memchr(r, ',', (size_t)(close - r));
        const char *end = comma ? comma : close;
        const char *dash = memchr(r, '-', (size_t)(end - r));
        unsigned long lo, hi;
        if (!parse_bound(r, dash ? dash : end, &lo) || (dash && !parse_bound(dash + 1, end, &hi)))
            return expand_fail(x, "a bad range", prefix);
        if (!dash)
            hi = lo;
        int width = (*r == '0' && (dash ? dash : end) - r > 1) ? (int)((dash ? dash : end) - r) : 0;
        if (hi < lo)
            return expand_fail(x, "a range that runs backwards", prefix);
        if (hi - lo >= RD_SLURM_LIST_MAX - x->n)
            return expand_fail(x, "more than 256 names", prefix);
        for (unsigned long v = lo; v <= hi; v++) {
            _cleanup_free_ char *p = xasprintf("%s%0*lu", prefix, width, v);
            int e = expand_item(x, p, close + 1);
            if (e < 0)
                return e;
        }
        r = comma ? comma + 1 : close;
    }
    return 0;
}

static int expand_item(expansion *x, const char *prefix, const char *rest)
{
    const char *open = strchr(rest, '[');
    if (!open) {
        if (strchr(rest, ']'))
            return expand_fail(x, "a ']' without '['", rest);
        if (x->n >= RD_SLURM_LIST_MAX)
            return expand_fail(x, "more than 256 names", prefix);
        x->names = strv_push_n(x->names, &x->n, xasprintf("%s%s", prefix, rest));
        return 0;
    }
    const char *close = strchr(open, ']');
    if (!close || memchr(open + 1, '[', (size_t)(close - open - 1)) || close == open + 1)
        return expand_fail(x, "an unbalanced '['", rest);
    _cleanup_free_ char *head = xasprintf("%s%.*s", prefix, (int)(open - rest), rest);
    return expand_ranges(x, head, open + 1, close);
}

/* Calls fn for each non-empty item of a Slurm list, split at the commas
 * outside brackets ("gpu[01-04,07],login1"); a non-zero return of fn stops
 * the walk and is returned. */
static int list_each(const char *spec, int (*fn)(const char *item, void *userdata), void *userdata)
{
    int depth = 0;
    const char *start = spec;
    for (const char *s = spec;; s++) {
        if (*s == '[')
            depth++;
        else if (*s == ']')
            depth--;
        if ((*s == ',' && depth <= 0) || !*s) {
            _cleanup_free_ char *item = xstrndup(start, (size_t)(s - start));
            int r = *item ? fn(item, userdata) : 0;
            if (r != 0)
                return r;
            start = s + 1;
            depth = 0;
        }
        if (!*s)
            return 0;
    }
}

static int expand_list_item(const char *item, void *userdata)
{
    return expand_item(userdata, "", item);
}

int rd_slurm_list_expand(const char *spec, char ***ret, char **ret_error)
{
    expansion x = { 0 };
    int r = list_each(spec, expand_list_item, &x);
    if (r < 0) {
        strv_free(x.names);
        *ret_error = x.error;
        return r;
    }
    *ret = x.names;
    return 0;
}

/* The most bracket groups one host name pattern may have ("r[1-4]n[1-8]" has
 * two): more is no host list Slurm writes. */
#define HOST_GROUPS_MAX 16

typedef struct {
    const char *host;
    size_t host_len;
    unsigned char *memo; /* [group][host offset]: 0 unknown, 1 no, 2 yes */
} host_match;

static bool item_matches(host_match *m, const char *item, size_t group, const char *host);

/* Whether one range list [open+1, close) takes a prefix of digits, and the
 * rest of item and host then match. */
static bool ranges_match(host_match *m, const char *open, const char *close, size_t group, const char *digits)
{
    size_t run = strspn(digits, "0123456789");
    for (const char *r = open + 1; r < close;) {
        const char *comma = memchr(r, ',', (size_t)(close - r));
        const char *end = comma ? comma : close;
        const char *dash = memchr(r, '-', (size_t)(end - r));
        const char *lo_end = dash ? dash : end;
        unsigned long lo, hi;
        if (!parse_bound(r, lo_end, &lo) || (dash && !parse_bound(dash + 1, end, &hi)))
            return false;
        if (!dash)
            hi = lo;
        int width = (*r == '0' && lo_end - r > 1) ? (int)(lo_end - r) : 0;
        unsigned long v = 0;
        for (size_t k = 1; k <= run && k <= 9; k++) {
            v = v * 10 + (unsigned long)(digits[k - 1] - '0');
            char buf[32];
            int n = snprintf(buf, sizeof buf, "%0*lu", width, v);
            if (v >= lo && v <= hi && n == (int)k && memcmp(buf, digits, k) == 0 &&
                item_matches(m, close + 1, group + 1, digits + k))
                return true;
        }
        r = comma ? comma + 1 : close;
    }
    return false;
}

/* Whether the host from host on matches the pattern item (the rest of one
 * host list entry, after group bracket groups); memoized on (group, host
 * offset), so the work is bounded by groups x host length x ranges. */
static bool item_matches(host_match *m, const char *item, size_t group, const char *host)
{
    const char *open = strchr(item, '[');
    if (!open)
        return !strchr(item, ']') && streq(item, host);
    if (group >= HOST_GROUPS_MAX)
        return false;
    unsigned char *seen = &m->memo[group * (m->host_len + 1) + (size_t)(host - m->host)];
    if (*seen)
        return *seen == 2;
    size_t plen = (size_t)(open - item);
    const char *close = strchr(open, ']');
    bool ok = strncmp(item, host, plen) == 0 && strnlen(host, plen) == plen && close &&
              !memchr(open + 1, '[', (size_t)(close - open - 1)) && ranges_match(m, open, close, group, host + plen);
    *seen = ok ? 2 : 1;
    return ok;
}

static int host_item_matches(const char *item, void *userdata)
{
    const char *host = userdata;
    size_t len = strlen(host);
    _cleanup_free_ unsigned char *memo = xcalloc(HOST_GROUPS_MAX * (len + 1), 1);
    host_match m = { .host = host, .host_len = len, .memo = memo };
    return item_matches(&m, item, 0, host);
}

bool rd_slurm_hostlist_has(const char *spec, const char *host)
{
    if (!spec || strcasecmp(spec, "ALL") == 0 || strcasecmp(spec, "DEFAULT") == 0)
        return true;
    if (!host)
        return false;
    return list_each(spec, host_item_matches, (void *)host) > 0;
}

int rd_slurm_cpulist_parse(const char *spec, bool *bits, size_t max)
{
    memset(bits, 0, max * sizeof(bool));
    const char *s = spec;
    if (!*s)
        return -EINVAL;
    for (;;) {
        const char *end = s + strcspn(s, ",");
        const char *dash = memchr(s, '-', (size_t)(end - s));
        unsigned long lo, hi;
        if (!parse_bound(s, dash ? dash : end, &lo) || (dash && !parse_bound(dash + 1, end, &hi)))
            return -EINVAL;
        if (!dash)
            hi = lo;
        if (hi < lo || hi >= max)
            return -EINVAL;
        for (unsigned long v = lo; v <= hi; v++)
            bits[v] = true;
        if (!*end)
            return 0;
        s = end + 1;
    }
}
