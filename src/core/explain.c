/* SPDX-License-Identifier: MIT */
#include "explain.h"

#include <ctype.h>
#include <ini.h>
#include "knowledge.h"
#include "repo-url.h"
#include "util.h"
#include "catalogue.h"

/* inih hands the handler no line numbers; a reader that counts them gives
 * errors their file:line, and catches lines longer than inih reads whole. */
typedef struct {
    FILE *f;
    unsigned line;
    unsigned section_line;
    int too_long; /* the limit, when a line exceeded it */
} line_reader;

static char *read_line(char *str, int num, void *stream)
{
    line_reader *lr = stream;
    if (lr->too_long)
        return NULL;
    char *s = fgets(str, num, lr->f);
    if (!s)
        return NULL;
    lr->line++;
    size_t len = strlen(s);
    if (len > 0 && s[len - 1] != '\n' && !feof(lr->f)) {
        lr->too_long = num - 2;
        return NULL;
    }
    const char *p = s + strspn(s, " \t");
    if (*p == '[')
        lr->section_line = lr->line;
    return s;
}

typedef struct {
    rd_error_table *t;
    const char *const *known_ids;
    line_reader *lr;
    rd_error_entry *cur;
    char *error;
    unsigned error_line;
} load_state;

static int fail(load_state *st, char *msg)
{
    if (!st->error) {
        st->error = msg;
        st->error_line = st->lr->line;
    } else
        free(msg);
    return 0;
}

static bool valid_section_name(const char *s)
{
    if (!*s)
        return false;
    for (const char *p = s; *p; p++)
        if (!islower((unsigned char)*p) && !isdigit((unsigned char)*p) && *p != '-')
            return false;
    return true;
}

bool rd_finding_id_valid(const char *s)
{
    if (!s || strlen(s) > RD_FINDING_ID_MAX)
        return false;
    const char *dot = strchr(s, '.');
    if (!dot || dot == s || !dot[1])
        return false;
    for (const char *p = s; p < dot; p++)
        if (!islower((unsigned char)*p))
            return false;
    for (const char *p = dot + 1; *p; p++)
        if (!islower((unsigned char)*p) && !isdigit((unsigned char)*p) && *p != '-')
            return false;
    return true;
}

char *rd_error_normalize(const char *text)
{
    size_t len = strlen(text), o = 0;
    char *out = xmalloc(len + 1);
    bool blank = false;
    for (const char *p = text; *p; p++) {
        unsigned char c = (unsigned char)*p;
        if (c == '_' || c == '"' || c == '\'' || c == '`')
            continue;
        if (isspace(c)) {
            blank = o > 0;
            continue;
        }
        if (blank)
            out[o++] = ' ';
        blank = false;
        out[o++] = (char)(c < 128 ? tolower(c) : c);
    }
    out[o] = 0;
    return out;
}

static int parse_code(const char *value, rd_error_code *ret)
{
    const char *num;
    uint64_t v;
    if ((num = startswith(value, "hip "))) {
        num += strspn(num, " ");
        if (!isdigit((unsigned char)*num) || safe_atou64(num, 10, &v) < 0 || v == 0 || v > 999999)
            return -EINVAL;
        *ret = (rd_error_code){ RD_CODE_HIP, (uint32_t)v };
        return 0;
    }
    if ((num = startswith(value, "hsa "))) {
        num += strspn(num, " ");
        if ((num[0] != '0' || (num[1] != 'x' && num[1] != 'X')) || !isxdigit((unsigned char)num[2]) ||
            safe_atou64(num + 2, 16, &v) < 0 || v == 0 || v > UINT32_MAX)
            return -EINVAL;
        *ret = (rd_error_code){ RD_CODE_HSA, (uint32_t)v };
        return 0;
    }
    return -EINVAL;
}

static const rd_error_entry *code_owner(const rd_error_table *t, const rd_error_code *c)
{
    for (size_t i = 0; i < t->n_entries; i++)
        for (size_t k = 0; k < t->entries[i].n_codes; k++)
            if (t->entries[i].codes[k].space == c->space && t->entries[i].codes[k].value == c->value)
                return &t->entries[i];
    return NULL;
}

static void append_text(char **slot, const char *value)
{
    char *s = *slot ? xasprintf("%s %s", *slot, value) : xstrdup(value);
    free(*slot);
    *slot = s;
}

static bool known(const char *const *ids, const char *id)
{
    for (size_t i = 0; ids[i]; i++)
        if (streq(ids[i], id))
            return true;
    return false;
}

static int add_causes(load_state *st, rd_error_entry *e, const char *value)
{
    _cleanup_free_ char *copy = xstrdup(value);
    char *save = NULL;
    for (char *tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        char *id = strstrip(tok);
        if (!rd_finding_id_valid(id))
            return fail(st, xasprintf("cause \"%s\" is not a finding id (area.name)", id));
        if (st->known_ids && !known(st->known_ids, id))
            return fail(st, xasprintf("cause \"%s\" is not a known finding id", id));
        if (strv_contains(e->causes, id))
            return fail(st, xasprintf("cause %s is listed twice in [%s]", id, e->id));
        e->causes = strv_push(e->causes, xstrdup(id));
    }
    return 1;
}

static int add_info_causes(load_state *st, rd_error_entry *e, const char *value)
{
    _cleanup_free_ char *copy = xstrdup(value);
    char *save = NULL;
    for (char *tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        char *id = strstrip(tok);
        if (!strv_contains(e->causes, id))
            return fail(st, xasprintf("info cause \"%s\" is not among the causes of [%s] listed before it", id, e->id));
        if (strv_contains(e->info_causes, id))
            return fail(st, xasprintf("info cause %s is listed twice in [%s]", id, e->id));
        e->info_causes = strv_push(e->info_causes, xstrdup(id));
    }
    return 1;
}

static int handler(void *user, const char *section, const char *name, const char *value)
{
    load_state *st = user;
    rd_error_table *t = st->t;
    if (!name)
        return 1;
    if (streq(section, "table")) {
        char **slot = streq(name, "name")      ? &t->info.name
                      : streq(name, "version") ? &t->info.version
                      : streq(name, "date")    ? &t->info.date
                                               : NULL;
        if (!slot)
            return fail(st, xasprintf("unknown key \"%s\" in [table]", name));
        if (streq(name, "name") && !streq(value, "errors"))
            return fail(st, xasprintf("this is the errors table, not \"%s\"", value));
        free(*slot);
        *slot = xstrdup(value);
        return 1;
    }
    if (!valid_section_name(section))
        return fail(st, xasprintf("section [%s]: names are lower-case letters, digits and '-'", section));
    if (!st->cur || !streq(st->cur->id, section)) {
        if (rd_error_table_get(t, section))
            return fail(st, xasprintf("section [%s] appears twice", section));
        st->cur = ARRAY_APPEND(t->entries, t->n_entries);
        st->cur->id = xstrdup(section);
        st->cur->line = st->lr->section_line;
    }
    rd_error_entry *e = st->cur;

    if (streq(name, "title")) {
        if (e->title)
            return fail(st, xasprintf("[%s] has two titles", section));
        e->title = xstrdup(value);
    } else if (streq(name, "pattern")) {
        _cleanup_free_ char *n = rd_error_normalize(value);
        size_t solid = 0;
        for (const char *p = n; *p; p++)
            solid += *p != '*' && *p != ' ';
        if (solid < 4)
            return fail(st, xasprintf("pattern \"%s\" is too short to identify a message", value));
        if (n[0] == '*')
            return fail(st, xasprintf("pattern \"%s\" starts with '*'", value));
        e->patterns = strv_push(e->patterns, xstrdup(value));
        e->normalized = strv_push(e->normalized, TAKE_PTR(n));
    } else if (streq(name, "code")) {
        rd_error_code c;
        if (parse_code(value, &c) < 0)
            return fail(st, xasprintf("code \"%s\" is not \"hip N\" (decimal) or \"hsa 0xN\" (hexadecimal)", value));
        const rd_error_entry *owner = code_owner(t, &c);
        if (owner)
            return fail(st, xasprintf("code \"%s\" is already listed in [%s]", value, owner->id));
        *ARRAY_APPEND(e->codes, e->n_codes) = c;
    } else if (streq(name, "meaning")) {
        append_text(&e->meaning, value);
    } else if (streq(name, "causes")) {
        return add_causes(st, e, value);
    } else if (streq(name, "info-causes")) {
        return add_info_causes(st, e, value);
    } else if (streq(name, "domain")) {
        rd_error_domain d = RD_DOMAIN_NONE;
        for (int i = RD_DOMAIN_RUNTIME; i <= RD_DOMAIN_CONTAINER && !d; i++)
            if (streq(value, rd_error_domain_name((rd_error_domain)i)))
                d = (rd_error_domain)i;
        if (!d)
            return fail(st, xasprintf("domain \"%s\" is not runtime, packages, kernel, python or container", value));
        if (e->domain)
            return fail(st, xasprintf("[%s] has two domains", section));
        e->domain = d;
    } else
        return fail(st, xasprintf("unknown key \"%s\" in [%s]", name, section));
    return 1;
}

int rd_error_table_load(const char *path, const char *const *known_ids, rd_error_table *ret, char **ret_error)
{
    rd_error_table t = { 0 };
    FILE *f = fopen_regular(path);
    if (!f) {
        int err = errno;
        *ret_error = xasprintf("%s: %s", path, strerror(err));
        return -err;
    }
    line_reader lr = { .f = f };
    load_state st = { .t = &t, .known_ids = known_ids, .lr = &lr };
    int line = ini_parse_stream(read_line, &lr, handler, &st);
    bool read_error = ferror(f);
    fclose(f);

    char *msg = NULL;
    if (read_error)
        msg = xasprintf("%s: cannot read the file", path);
    else if (lr.too_long && (!st.error || st.error_line >= lr.line))
        msg = xasprintf("%s:%u: line longer than %d characters", path, lr.line, lr.too_long);
    else if (st.error)
        msg = xasprintf("%s:%u: %s", path, st.error_line, st.error);
    else if (line > 0)
        msg = xasprintf("%s:%d: syntax error (expected [section] or key = value)", path, line);
    else if (line < 0)
        msg = xasprintf("%s: cannot parse", path);
    else if (!t.info.name || !t.info.version || !t.info.date)
        msg = xasprintf("%s: the [table] section must state name, version and date", path);
    else if (t.n_entries == 0)
        msg = xasprintf("%s: no errors are listed", path);
    for (size_t i = 0; !msg && i < t.n_entries; i++) {
        const rd_error_entry *e = &t.entries[i];
        const char *missing = !e->title                         ? "a title"
                              : !e->patterns && e->n_codes == 0 ? "a pattern or a code"
                              : !e->meaning                     ? "a meaning"
                              : !e->causes                      ? "causes"
                              : !e->domain ? "a domain (runtime, packages, kernel, python or container)"
                                           : NULL;
        if (missing)
            msg = xasprintf("%s:%u: [%s] needs %s", path, e->line, e->id, missing);
    }
    free(st.error);
    if (msg) {
        rd_error_table_free(&t);
        *ret_error = msg;
        return -EINVAL;
    }
    *ret = t;
    return 0;
}

void rd_error_table_free(rd_error_table *t)
{
    for (size_t i = 0; i < t->n_entries; i++) {
        rd_error_entry *e = &t->entries[i];
        free(e->id);
        free(e->title);
        strv_free(e->patterns);
        strv_free(e->normalized);
        free(e->codes);
        free(e->meaning);
        strv_free(e->causes);
        strv_free(e->info_causes);
    }
    free(t->entries);
    free(t->info.name);
    free(t->info.version);
    free(t->info.date);
    memset(t, 0, sizeof(*t));
}

const rd_error_entry *rd_error_table_get(const rd_error_table *t, const char *id)
{
    for (size_t i = 0; i < t->n_entries; i++)
        if (streq(t->entries[i].id, id))
            return &t->entries[i];
    return NULL;
}

/* ---- matching ---- */

static bool is_word(char c)
{
    return isalnum((unsigned char)c);
}

/* The end of a match of pat at text[i], or -1. '*' takes a run of
 * non-blank characters, as long as the rest still matches. */
static ssize_t match_at(const char *text, size_t i, const char *pat, bool word_end)
{
    for (const char *p = pat; *p; p++) {
        if (*p == '*') {
            size_t j = i;
            while (text[j] && text[j] != ' ')
                j++;
            for (size_t k = j + 1; k-- > i;) {
                ssize_t r = match_at(text, k, p + 1, word_end);
                if (r >= 0)
                    return r;
            }
            return -1;
        }
        if (text[i] != *p)
            return -1;
        i++;
    }
    if (word_end && is_word(text[i]))
        return -1;
    return (ssize_t)i;
}

static bool find_pattern(const char *text, const char *pat, size_t *ret_start, size_t *ret_end)
{
    size_t plen = strlen(pat);
    bool word_start = is_word(pat[0]), word_end = plen > 0 && is_word(pat[plen - 1]);
    for (size_t i = 0; text[i]; i++) {
        if (text[i] != pat[0] || (word_start && i > 0 && is_word(text[i - 1])))
            continue;
        ssize_t end = match_at(text, i, pat, word_end);
        if (end >= 0) {
            *ret_start = i;
            *ret_end = (size_t)end;
            return true;
        }
    }
    return false;
}

typedef struct {
    size_t start, end;
} span;

static bool all_digits(const char *s, size_t n, bool hex)
{
    for (size_t i = 0; i < n; i++)
        if (!(hex ? isxdigit((unsigned char)s[i]) : isdigit((unsigned char)s[i])))
            return false;
    return n > 0;
}

static bool number_sep(char c)
{
    return c == '.' || c == ':' || c == '-' || c == '/' || c == ',';
}

/* Keeps, per entry, the earliest (then longest) match. */
static void offer(rd_error_match *best, const rd_error_entry *e, size_t start, size_t end, char *how)
{
    if (!best->entry || start < best->start || (start == best->start && end > best->end)) {
        free(best->how);
        *best = (rd_error_match){ e, start, end, how };
    } else
        free(how);
}

static void match_codes(const rd_error_table *t, const char *text, rd_error_match *best)
{
    span *tokens = NULL;
    size_t n = 0;
    bool hsa_context = false;
    for (size_t i = 0; text[i];) {
        if (!is_word(text[i])) {
            i++;
            continue;
        }
        size_t s = i;
        while (is_word(text[i]))
            i++;
        *ARRAY_APPEND(tokens, n) = (span){ s, i };
        hsa_context |= startswith(text + s, "hsa") != NULL;
    }
    for (size_t k = 0; k < n; k++) {
        const char *tok = text + tokens[k].start;
        size_t len = tokens[k].end - tokens[k].start;
        rd_error_code c;
        if (len > 2 && len <= 10 && tok[0] == '0' && tok[1] == 'x' && all_digits(tok + 2, len - 2, true)) {
            _cleanup_free_ char *hex = xstrndup(tok + 2, len - 2);
            uint64_t v;
            if (safe_atou64(hex, 16, &v) < 0 || (v < 0x1000 && !hsa_context))
                continue;
            c = (rd_error_code){ RD_CODE_HSA, (uint32_t)v };
        } else if (len <= 6 && all_digits(tok, len, false)) {
            size_t s = tokens[k].start, e = tokens[k].end;
            /* a part of a time stamp, version or address is no error code */
            if (s > 0 && number_sep(text[s - 1]))
                continue;
            if (number_sep(text[e]) && isdigit((unsigned char)text[e + 1]))
                continue;
            bool hip = false;
            for (size_t b = k > 4 ? k - 4 : 0; b < k && !hip; b++)
                hip = startswith(text + tokens[b].start, "hip") != NULL;
            if (!hip)
                continue;
            uint64_t v;
            _cleanup_free_ char *dec = xstrndup(tok, len);
            if (safe_atou64(dec, 10, &v) < 0)
                continue;
            c = (rd_error_code){ RD_CODE_HIP, (uint32_t)v };
        } else
            continue;
        for (size_t i = 0; i < t->n_entries; i++)
            for (size_t j = 0; j < t->entries[i].n_codes; j++)
                if (t->entries[i].codes[j].space == c.space && t->entries[i].codes[j].value == c.value)
                    offer(&best[i], &t->entries[i], tokens[k].start, tokens[k].end,
                          c.space == RD_CODE_HIP ? xasprintf("HIP error %u", c.value)
                                                 : xasprintf("HSA status 0x%X", c.value));
    }
    free(tokens);
}

void rd_error_match_text(const rd_error_table *t, const char *text, rd_error_matches *ret)
{
    _cleanup_free_ char *norm = rd_error_normalize(text);
    rd_error_match *best = xcalloc(t->n_entries ? t->n_entries : 1, sizeof(*best));
    for (size_t i = 0; i < t->n_entries; i++) {
        const rd_error_entry *e = &t->entries[i];
        for (size_t k = 0; e->normalized && e->normalized[k]; k++) {
            size_t s, end;
            if (find_pattern(norm, e->normalized[k], &s, &end))
                /* a pattern with a wildcard is shown as the text it matched */
                offer(&best[i], e, s, end,
                      strchr(e->patterns[k], '*') ? xstrndup(norm + s, end - s) : xstrdup(e->patterns[k]));
        }
    }
    match_codes(t, norm, best);

    rd_error_matches m = { 0 };
    for (size_t i = 0; i < t->n_entries; i++) {
        if (!best[i].entry)
            continue;
        bool inside = false;
        for (size_t k = 0; k < t->n_entries && !inside; k++)
            inside = k != i && best[k].entry && best[k].start <= best[i].start && best[i].end <= best[k].end &&
                     best[k].end - best[k].start > best[i].end - best[i].start;
        if (inside)
            continue;
        /* in text order; entries at the same place keep the table's order */
        size_t at = m.n;
        while (at > 0 && m.items[at - 1].start > best[i].start)
            at--;
        ARRAY_APPEND(m.items, m.n);
        memmove(&m.items[at + 1], &m.items[at], (m.n - 1 - at) * sizeof(*m.items));
        m.items[at] = best[i];
        best[i].how = NULL;
    }
    for (size_t i = 0; i < t->n_entries; i++)
        free(best[i].how);
    free(best);
    *ret = m;
}

void rd_error_matches_free(rd_error_matches *m)
{
    for (size_t i = 0; i < m->n; i++)
        free(m->items[i].how);
    free(m->items);
    *m = (rd_error_matches){ 0 };
}

/* ---- causes ---- */

const char *rd_error_domain_name(rd_error_domain d)
{
    switch (d) {
    case RD_DOMAIN_RUNTIME: return "runtime";
    case RD_DOMAIN_PACKAGES: return "packages";
    case RD_DOMAIN_KERNEL: return "kernel";
    case RD_DOMAIN_PYTHON: return "python";
    case RD_DOMAIN_CONTAINER: return "container";
    default: return NULL;
    }
}

size_t rd_explain_pick(const rd_error_entry *e, const rd_findings *fs, const rd_finding ***ret)
{
    const rd_finding **out = NULL;
    size_t n = 0;
    /* no AMD GPU here: a message of the GPU runtime and driver whose causes
     * do not name it did not come from this host's GPU, and gpu.none is the
     * one answer; where the table names it (hipErrorNoDevice), it comes
     * first in the table's order. Messages of the package managers, DKMS,
     * Python and containers have their causes on this host, GPU or not. */
    bool hardware = e->domain == RD_DOMAIN_RUNTIME;
    for (size_t i = 0; hardware && !strv_contains(e->causes, RD_FINDING(GPU_NONE)) && i < fs->n; i++)
        if (streq(fs->items[i].id, RD_FINDING(GPU_NONE)) && fs->items[i].severity >= RD_SEV_WARNING) {
            *ARRAY_APPEND(out, n) = &fs->items[i];
            *ret = out;
            return n;
        }
    for (size_t c = 0; e->causes && e->causes[c]; c++)
        for (size_t i = 0; i < fs->n; i++)
            if (streq(fs->items[i].id, e->causes[c]) &&
                (fs->items[i].severity >= RD_SEV_WARNING ||
                 (fs->items[i].severity == RD_SEV_INFO && strv_contains(e->info_causes, e->causes[c]))))
                *ARRAY_APPEND(out, n) = &fs->items[i];
    *ret = out;
    return n;
}

int rd_explain_exit_status(const rd_finding *const *picked, size_t n)
{
    int status = RD_EXIT_OK;
    for (size_t i = 0; i < n; i++) {
        if (picked[i]->severity == RD_SEV_ERROR)
            return RD_EXIT_ERROR;
        if (picked[i]->severity == RD_SEV_WARNING || picked[i]->severity == RD_SEV_INFO)
            status = RD_EXIT_WARNING;
    }
    return status;
}

/* ---- URLs in the message ---- */

static rd_finding *finding_of(rd_findings *fs, const char *id)
{
    for (size_t i = 0; i < fs->n; i++)
        if (streq(fs->items[i].id, id))
            return &fs->items[i];
    return NULL;
}

/* One URL of the message: the folder (cut at apt's "/dists/SUITE" and dnf's
 * "/repodata"), and the apt suite (from "/dists/SUITE", else the word after
 * the URL as apt prints it: "https://... jammy Release"). */
static void message_url(const char *start, size_t n, const char *after, char **ret_url, char **ret_suite)
{
    char *url = xstrndup(start, n);
    char *suite = NULL;
    char *cut = strstr(url, "/dists/");
    if (cut) {
        suite = xstrndup(cut + 7, strcspn(cut + 7, "/"));
        *cut = 0;
    } else if ((cut = strstr(url, "/repodata")))
        *cut = 0;
    while (*url && endswith(url, "/"))
        url[strlen(url) - 1] = 0;
    if (!suite) {
        after += strspn(after, " \t");
        size_t w = strspn(after, "abcdefghijklmnopqrstuvwxyz");
        if (w > 0 && (!after[w] || strchr(" \t'\"", after[w])))
            suite = xstrndup(after, w);
    }
    *ret_url = url;
    *ret_suite = suite;
}

size_t rd_explain_message_urls(const rd_knowledge *k, const char *mirror, const char *text, rd_findings *fs)
{
    static const char *const ids[] = { RD_FINDING(APT_REPO_PATH), RD_FINDING(DNF_REPO_PATH),
                                       RD_FINDING(ZYPPER_REPO_PATH) };
    size_t found = 0;
    for (const char *p = text; k && !rd_repos_empty(k) && p && (p = strstr(p, "http")); p++) {
        if (!startswith(p, "https://") && !startswith(p, "http://"))
            continue;
        size_t n = strcspn(p, " \t\n'\"<>[](),");
        _cleanup_free_ char *url = NULL, *suite = NULL;
        message_url(p, n, p + n, &url, &suite);
        const char *path = rd_repo_path_of(mirror, url);
        rd_repo_match m;
        if (!path || rd_repos_classify(k, path, &m) == 0)
            continue;
        if (rd_repo_match_unserved(&m)) {
            const char *id = ids[m.family];
            rd_finding *f = finding_of(fs, id);
            if (!f)
                f = rd_finding_add(fs, id, RD_SEV_ERROR, NULL,
                                   "The message names a folder AMD does not serve: the package manager fails on it "
                                   "(404 Not Found)");
            /* the tree AMD serves nearest to the one the URL names */
            const char *tree = m.meant && m.os ? rd_repo_pick_tree(m.meant, m.family, m.os) : NULL;
            _cleanup_free_ char *major = tree ? xstrndup(tree, strcspn(tree, ".")) : xstrdup_or_null(m.major);
            const rd_repo_os ros = { .suite = suite, .major = major, .os = tree ? tree : m.os };
            _cleanup_free_ char *want =
                m.meant ? rd_repos_url(RD_AMD_REPO_BASE, m.meant, m.family, m.kind, &ros) : NULL;
            _cleanup_free_ char *want_bare = want ? xstrndup(want, strlen(want) - endswith(want, "/")) : NULL;
            _cleanup_free_ char *canonical = rd_repo_canonical(mirror, url);
            if (want && !streq(want_bare, canonical))
                rd_finding_evidence(f, "the message names %s: AMD serves the %s repository of ROCm %s at %s", url,
                                    rd_repo_kind_name(m.kind), m.meant->release, want);
            else
                rd_finding_evidence(f,
                                    "the message names %s: no release of the repository table (%s to %s) has "
                                    "this folder",
                                    url, k->repos[0].release, rd_repos_newest(k)->release);
            if (!f->remedy)
                rd_finding_remedy(f, "Point the source at the folder AMD serves (named above; `rocm-doctor list "
                                     "releases` shows every release's), then update the package index; "
                                     "`rocm-doctor fix` rewrites a source of this host that names it.");
            found++;
        }
        rd_repo_match_done(&m);
        p += n ? n - 1 : 0;
    }
    return found;
}
