/* SPDX-License-Identifier: MIT */
/* Slurm-style host lists (hostlist.h). */
#include "hostlist.h"

#include <errno.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "util.h"

/* The most digits a name's number may have to be taken as one. */
#define MAX_DIGITS 18

/* A name split at its last run of digits. */
typedef struct {
    const char *name;
    size_t prefix_len;  /* bytes before the digits */
    size_t digits;      /* 0: no number */
    const char *suffix; /* after the digits */
    uint64_t number;
} split_name;

static split_name split(const char *name)
{
    split_name s = { .name = name, .prefix_len = strlen(name), .suffix = name + strlen(name) };
    size_t end = strlen(name);
    while (end > 0 && !(name[end - 1] >= '0' && name[end - 1] <= '9'))
        end--;
    size_t start = end;
    while (start > 0 && name[start - 1] >= '0' && name[start - 1] <= '9')
        start--;
    if (end == start || end - start > MAX_DIGITS)
        return s;
    s.prefix_len = start;
    s.digits = end - start;
    s.suffix = name + end;
    s.number = 0;
    for (size_t i = start; i < end; i++)
        s.number = s.number * 10 + (uint64_t)(name[i] - '0');
    return s;
}

static bool same_frame(const split_name *a, const split_name *b)
{
    return a->digits && b->digits && a->prefix_len == b->prefix_len && strncmp(a->name, b->name, a->prefix_len) == 0 &&
           streq(a->suffix, b->suffix);
}

/* The width a number is printed with in its group: its digits when zero
 * padded ("007"), or when a padded name of that width shares its frame
 * ("100" beside "099"); else 0 (as it comes). */
static size_t width_of(const split_name *s, const split_name *all, size_t n)
{
    if (!s->digits)
        return 0;
    if (s->digits > 1 && s->name[s->prefix_len] == '0')
        return s->digits;
    for (size_t i = 0; i < n; i++)
        if (all[i].digits == s->digits && all[i].digits > 1 && all[i].name[all[i].prefix_len] == '0' &&
            same_frame(&all[i], s))
            return s->digits;
    return 0;
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

char *rd_hostlist_compress(char *const *names)
{
    size_t n = strv_length(names);
    split_name *s = xcalloc(n ? n : 1, sizeof *s);
    size_t *width = xcalloc(n ? n : 1, sizeof *width);
    bool *done = xcalloc(n ? n : 1, sizeof *done);
    uint64_t *nums = xcalloc(n ? n : 1, sizeof *nums);
    for (size_t i = 0; i < n; i++)
        s[i] = split(names[i]);
    for (size_t i = 0; i < n; i++)
        width[i] = width_of(&s[i], s, n);
    strbuf out = { 0 };
    for (size_t i = 0; i < n; i++) {
        if (done[i])
            continue;
        size_t k = 0;
        if (s[i].digits) {
            for (size_t j = i; j < n; j++)
                if (!done[j] && width[j] == width[i] && same_frame(&s[i], &s[j])) {
                    nums[k++] = s[j].number;
                    done[j] = true;
                }
        } else {
            for (size_t j = i; j < n; j++)
                if (!done[j] && streq(names[j], names[i]))
                    done[j] = true;
        }
        if (out.len)
            strbuf_append(&out, ",");
        if (!s[i].digits) {
            strbuf_append(&out, names[i]);
            continue;
        }
        qsort(nums, k, sizeof *nums, cmp_u64);
        size_t u = 0;
        for (size_t j = 0; j < k; j++)
            if (u == 0 || nums[j] != nums[u - 1])
                nums[u++] = nums[j];
        int w = (int)width[i];
        strbuf_appendn(&out, names[i], s[i].prefix_len);
        if (u == 1)
            strbuf_printf(&out, "%0*" PRIu64, w, nums[0]);
        else {
            strbuf_append(&out, "[");
            for (size_t j = 0; j < u;) {
                size_t e = j;
                while (e + 1 < u && nums[e + 1] == nums[e] + 1)
                    e++;
                strbuf_printf(&out, "%s%0*" PRIu64, j ? "," : "", w, nums[j]);
                if (e > j)
                    strbuf_printf(&out, "-%0*" PRIu64, w, nums[e]);
                j = e + 1;
            }
            strbuf_append(&out, "]");
        }
        strbuf_append(&out, s[i].suffix);
    }
    free(s);
    free(width);
    free(done);
    free(nums);
    return out.s ? strbuf_steal(&out) : xstrdup("");
}

static int parse_bound(const char *s, size_t len, uint64_t *ret)
{
    if (len == 0 || len > MAX_DIGITS)
        return -EINVAL;
    uint64_t v = 0;
    for (size_t i = 0; i < len; i++) {
        if (s[i] < '0' || s[i] > '9')
            return -EINVAL;
        v = v * 10 + (uint64_t)(s[i] - '0');
    }
    *ret = v;
    return 0;
}

/* Appends every expansion of `item` (its first bracket and the rest,
 * recursively) behind `head` to *v. */
static int expand_item(const char *head, const char *item, size_t max, char ***v, size_t *n)
{
    const char *open = strchr(item, '[');
    if (!open) {
        if (strchr(item, ']'))
            return -EINVAL;
        if (*n >= max)
            return -E2BIG;
        *v = strv_push_n(*v, n, xasprintf("%s%s", head, item));
        return 0;
    }
    const char *close = strchr(open, ']');
    if (!close || memchr(item, ']', (size_t)(open - item)) || memchr(open + 1, '[', (size_t)(close - open - 1)))
        return -EINVAL;
    _cleanup_free_ char *lead = xasprintf("%s%.*s", head, (int)(open - item), item);
    _cleanup_free_ char *body = xstrndup(open + 1, (size_t)(close - open - 1));
    if (!*body)
        return -EINVAL;
    _cleanup_strv_free_ char **parts = strv_split(body, ",");
    for (char **p = parts; p && *p; p++) {
        const char *dash = strchr(*p, '-');
        size_t lo_len = dash ? (size_t)(dash - *p) : strlen(*p);
        uint64_t lo, hi;
        if (parse_bound(*p, lo_len, &lo) < 0)
            return -EINVAL;
        hi = lo;
        if (dash && (parse_bound(dash + 1, strlen(dash + 1), &hi) < 0 || hi < lo))
            return -EINVAL;
        if (hi - lo >= max)
            return -E2BIG;
        for (uint64_t x = lo; x <= hi; x++) {
            _cleanup_free_ char *h = xasprintf("%s%0*" PRIu64, lead, (int)lo_len, x);
            int r = expand_item(h, close + 1, max, v, n);
            if (r < 0)
                return r;
        }
    }
    return 0;
}

int rd_hostlist_expand(const char *list, size_t max, char ***ret)
{
    char **v = NULL;
    size_t n = 0;
    const char *p = list;
    while (p && *p) {
        /* one item: up to a comma outside brackets */
        const char *q = p;
        int depth = 0;
        for (; *q && (depth > 0 || *q != ','); q++) {
            if (*q == '[')
                depth++;
            else if (*q == ']' && --depth < 0)
                break;
        }
        if (depth != 0) {
            strv_free(v);
            return -EINVAL;
        }
        _cleanup_free_ char *item = xstrndup(p, (size_t)(q - p));
        if (*item) {
            int r = expand_item("", item, max, &v, &n);
            if (r < 0) {
                strv_free(v);
                return r == -E2BIG ? -E2BIG : -EINVAL;
            }
        }
        p = *q ? q + 1 : q;
    }
    *ret = v ? v : xcalloc(1, sizeof(char *));
    return 0;
}
