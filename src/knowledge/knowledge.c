/* SPDX-License-Identifier: MIT */
/* The knowledge tables: the row-table engine every loader is written in,
 * loading the tables now or on first use, and freeing. One file per
 * table: knowledge-archs.c (archs.ini, pci-ids.ini), -support.c,
 * -health.c, -wheels.c, -packages.c, -repos.c. */
#include "knowledge-private.h"

#include <fcntl.h>
#include <sys/stat.h>

int kn_fail(parse_state *st, char *msg)
{
    if (!st->error)
        st->error = msg;
    else
        free(msg);
    return 0; /* inih reports the line of the first handler error */
}

int kn_parse_bool(const char *v, bool *ret)
{
    if (streq(v, "yes") || streq(v, "true") || streq(v, "1"))
        *ret = true;
    else if (streq(v, "no") || streq(v, "false") || streq(v, "0"))
        *ret = false;
    else
        return -EINVAL;
    return 0;
}

/* ---- the row table engine ---- */

int kn_whole(parse_state *st, const char *section, const char *arg, void **ret)
{
    *ret = st->k;
    return 1;
}

static int apply_key(parse_state *st, const kn_key *key, void *obj, const char *name, const char *value)
{
    void *field = (char *)obj + key->offset;
    char *e = NULL;
    switch (key->type) {
    case KN_STRING: {
        if (key->check && (e = key->check(st, name, value)))
            return kn_fail(st, e);
        char **slot = field;
        free(*slot);
        *slot = xstrdup(value);
        return 1;
    }
    case KN_BOOL:
        if (kn_parse_bool(value, field) < 0)
            return kn_fail(st, xasprintf("%s must be yes or no, not \"%s\"", name, value));
        return 1;
    case KN_WORDS: {
        _cleanup_strv_free_ char **v = strv_split(value, key->commas ? " \t," : " \t");
        if (!v && key->nonempty)
            return kn_fail(st, xasprintf("%s is empty", name));
        for (size_t i = 0; v && v[i]; i++) {
            if (key->check && (e = key->check(st, name, v[i])))
                return kn_fail(st, e);
            if (key->unique && strv_contains(v + i + 1, v[i]))
                return kn_fail(st, xasprintf("%s: %s is listed twice", name, v[i]));
        }
        char ***slot = field;
        strv_free(*slot);
        *slot = TAKE_PTR(v);
        return 1;
    }
    case KN_PARSE: return key->parse(st, obj, name, value);
    }
    return 0;
}

static char *unknown_section(const kn_rows *t, const char *section)
{
    if (t->sections_are)
        return xasprintf("section [%s] is %s", section, t->sections_are);
    return xasprintf("unknown section [%s]", section);
}

/* [table], which every table has: its name, version and date. */
static int info_of(parse_state *st, const char *section, const char *arg, void **ret)
{
    *ret = st->info;
    return 1;
}
static const kn_key info_keys[] = {
    KN_STR("name", rd_table_info, name),
    KN_STR("version", rd_table_info, version),
    KN_STR("date", rd_table_info, date),
};
static const kn_section info_section = { "table", false, info_of, KN_KEYS(info_keys) };

/* inih's handler: [table], then the table's own sections. */
static int rows_handler(void *user, const char *section, const char *name, const char *value)
{
    parse_state *st = user;
    const kn_rows *t = st->rows_of;
    if (!name) /* a new section (INI_CALL_HANDLER_ON_NEW_SECTION builds) */
        return 1;
    for (size_t i = 0; i <= t->n_sections; i++) {
        const kn_section *sec = i == 0 ? &info_section : &t->sections[i - 1];
        const char *arg = sec->per_row ? startswith(section, sec->name) : NULL;
        if (sec->per_row ? !arg : !streq(section, sec->name))
            continue;
        void *obj = NULL;
        int r = sec->object(st, section, arg, &obj);
        if (r < 0)
            break;
        if (r == 0)
            return 0;
        for (size_t j = 0; j < sec->n_keys; j++)
            if (!sec->keys[j].name || streq(sec->keys[j].name, name))
                return apply_key(st, &sec->keys[j], obj, name, value);
        return kn_fail(st, xasprintf("unknown key \"%s\" in [%s]%s", name, section, strempty(sec->unknown_key_hint)));
    }
    return kn_fail(st, unknown_section(t, section));
}

/* "6", "6.8", "6.8.5", "30.20": dotted decimal numbers, nothing else. */
bool kn_is_version(const char *s, int min_parts, int max_parts)
{
    int parts = 0;
    while (*s) {
        if (!(*s >= '0' && *s <= '9'))
            return false;
        while (*s >= '0' && *s <= '9')
            s++;
        parts++;
        if (*s == '.') {
            s++;
            if (!*s)
                return false;
        } else if (*s)
            return false;
    }
    return parts >= min_parts && parts <= max_parts;
}

bool kn_is_fingerprint(const char *s)
{
    return strlen(s) == 40 && strspn(s, "0123456789ABCDEF") == 40;
}

char *kn_fingerprint_value(parse_state *st, const char *name, const char *value)
{
    if (kn_is_fingerprint(value))
        return NULL;
    return xasprintf("fingerprint \"%s\" is not 40 upper-case hex digits", value);
}

/* inih's reader over the text in memory, as fgets reads a file (a line
 * longer than the buffer comes in pieces); NULL at the end, and before a
 * section whose name starts with st->stop_before. */
static char *text_reader(char *buf, int size, void *user)
{
    parse_state *st = user;
    if (st->pos >= st->end || size < 2)
        return NULL;
    if (st->stop_before && st->pos[0] == '[' && startswith(st->pos + 1, st->stop_before) &&
        (st->pos == st->start || st->pos[-1] == '\n'))
        return NULL;
    const char *nl = memchr(st->pos, '\n', (size_t)(st->end - st->pos));
    size_t len = nl ? (size_t)(nl - st->pos) + 1 : (size_t)(st->end - st->pos);
    if (len > (size_t)size - 1)
        len = (size_t)size - 1;
    memcpy(buf, st->pos, len);
    buf[len] = 0;
    if (buf[len - 1] == '\n')
        st->line++;
    st->pos += len;
    return buf;
}

int kn_parse_text(const char *path, parse_state *st, char **ret_error)
{
    unsigned before = st->line;
    int line = ini_parse_stream(text_reader, st, rows_handler, st);
    if (line != 0 || st->error) {
        if (line > 0)
            *ret_error = xasprintf("%s:%u: %s", path, before + (unsigned)line,
                                   st->error ? st->error : "syntax error (expected [section] or key = value)");
        else
            *ret_error = xasprintf("%s: %s", path, st->error ? st->error : "cannot parse");
        free(st->error);
        st->error = NULL;
        return -EINVAL;
    }
    return 0;
}

int kn_read_table(const char *path, parse_state *st, char **ret_text, char **ret_error)
{
    size_t size;
    int r = read_file_at(AT_FDCWD, path, 64u << 20, ret_text, &size);
    if (r < 0) {
        *ret_error = xasprintf("%s: %s", path, strerror(-r));
        return r;
    }
    st->start = st->pos = *ret_text;
    st->end = *ret_text + size;
    st->line = 0;
    return 0;
}

int kn_check_info(const char *path, const rd_table_info *info, char **ret_error)
{
    if (!info->name || !info->version || !info->date) {
        *ret_error = xasprintf("%s: the [table] section must state name, version and date", path);
        return -EINVAL;
    }
    return 0;
}

int kn_load_table(const char *path, parse_state *st, char **ret_error)
{
    _cleanup_free_ char *text = NULL;
    int r = kn_read_table(path, st, &text, ret_error);
    if (r >= 0)
        r = kn_parse_text(path, st, ret_error);
    if (r >= 0)
        r = kn_check_info(path, st->info, ret_error);
    st->start = st->pos = st->end = NULL;
    return r;
}

/* ---- the tables, loaded now or on first use ---- */

static int load_repos_key(const char *path, rd_knowledge *k, char **ret_error);
static int load_repos_rows(const char *path, rd_knowledge *k, char **ret_error);

/* In the order they load: support.ini's gfx lists name archs.ini's
 * targets, the rows of repos.ini continue where its [key] stopped. */
static const struct {
    unsigned bit, needs;
    const char *file;
    bool optional; /* absent: the table is empty, its checks are skipped */
    int (*load)(const char *path, rd_knowledge *k, char **ret_error);
} tables[] = {
    { RD_KT_ARCHS, 0, "archs.ini", false, rd_knowledge_load_archs },
    { RD_KT_PCI_IDS, 0, "pci-ids.ini", false, rd_knowledge_load_pci_ids },
    { RD_KT_SUPPORT, RD_KT_ARCHS, "support.ini", true, rd_knowledge_load_support },
    { RD_KT_HEALTH, 0, "health.ini", true, rd_knowledge_load_health },
    { RD_KT_WHEELS, 0, "wheels.ini", true, rd_knowledge_load_wheels },
    { RD_KT_PACKAGES, 0, "packages.ini", true, rd_knowledge_load_packages },
    { RD_KT_REPO_KEY, 0, "repos.ini", true, load_repos_key },
    { RD_KT_REPOS, RD_KT_REPO_KEY, "repos.ini", true, load_repos_rows },
};

static int load_repos_key(const char *path, rd_knowledge *k, char **ret_error)
{
    parse_state st = { .k = k, .info = &k->repos_info };
    int r = kn_read_table(path, &st, &k->lazy->repos_text, ret_error);
    if (r >= 0)
        r = kn_load_repos_key(path, &st, ret_error);
    k->lazy->repos_pos = (size_t)(st.pos - st.start);
    k->lazy->repos_line = st.line;
    return r;
}

static int load_repos_rows(const char *path, rd_knowledge *k, char **ret_error)
{
    struct kn_lazy *l = k->lazy;
    if (!l->repos_text) /* the first step failed: its error stands */
        return 0;
    parse_state st = { .k = k, .info = &k->repos_info, .line = l->repos_line };
    st.start = l->repos_text;
    st.pos = l->repos_text + l->repos_pos;
    st.end = l->repos_text + strlen(l->repos_text);
    int r = kn_load_repos_rows(path, &st, ret_error);
    free(l->repos_text);
    l->repos_text = NULL;
    return r;
}

int rd_knowledge_need(const rd_knowledge *ck, unsigned want, char **ret_error)
{
    rd_knowledge *k = (rd_knowledge *)ck; /* what its readers see is filled, never changed */
    struct kn_lazy *l = k->lazy;
    if (!l)
        return 0;
    for (size_t i = 0; i < ELEMENTSOF(tables); i++)
        if (want & tables[i].bit)
            want |= tables[i].needs;
    int ret = 0;
    _cleanup_free_ char *first = NULL; /* this call's first error */
    for (size_t i = 0; i < ELEMENTSOF(tables); i++) {
        if (!(want & tables[i].bit) || (l->loaded & tables[i].bit))
            continue;
        l->loaded |= tables[i].bit; /* parsed once, whatever comes of it */
        _cleanup_free_ char *path = xasprintf("%s/%s", l->dir, tables[i].file);
        struct stat st;
        if (tables[i].optional && stat(path, &st) < 0 && errno == ENOENT)
            continue;
        char *err = NULL;
        int r = tables[i].load(path, k, &err);
        if (r < 0 && ret == 0) {
            ret = r;
            first = xstrdup(err);
        }
        if (r < 0 && !l->error) {
            l->error = err;
            l->error_code = r;
        } else
            free(err);
    }
    if (ret < 0 && ret_error)
        *ret_error = TAKE_PTR(first);
    return ret;
}

int rd_knowledge_error(const rd_knowledge *k, char **ret_error)
{
    if (!k->lazy || !k->lazy->error)
        return 0;
    *ret_error = xstrdup(k->lazy->error);
    return k->lazy->error_code;
}

int rd_knowledge_open(const char *dir, unsigned now, rd_knowledge *ret, char **ret_error)
{
    rd_knowledge k = { 0 };
    k.lazy = xcalloc(1, sizeof(*k.lazy));
    k.lazy->dir = xstrdup(dir);
    int r = rd_knowledge_need(&k, now, ret_error);
    if (r < 0) {
        rd_knowledge_free(&k);
        return r;
    }
    *ret = k;
    return 0;
}

int rd_knowledge_load(const char *dir, rd_knowledge *ret, char **ret_error)
{
    int r = rd_knowledge_open(dir, RD_KT_ALL, ret, ret_error);
    if (r < 0)
        return r;
    /* all loaded: nothing left for first use */
    free(ret->lazy->dir);
    free(ret->lazy->repos_text);
    free(ret->lazy);
    ret->lazy = NULL;
    return 0;
}

int rd_version_compare(const char *a, const char *b)
{
    const char *p = strempty(a), *q = strempty(b);
    for (;;) {
        bool pe = !*p || *p == '-', qe = !*q || *q == '-';
        if (pe && qe)
            return 0;
        uint64_t x = 0, y = 0;
        while (*p >= '0' && *p <= '9' && x < UINT64_MAX / 10)
            x = x * 10 + (uint64_t)(*p++ - '0');
        while (*q >= '0' && *q <= '9' && y < UINT64_MAX / 10)
            y = y * 10 + (uint64_t)(*q++ - '0');
        if (x != y)
            return x < y ? -1 : 1;
        /* skip the separator; anything else ends the comparable part */
        if (*p == '.')
            p++;
        else if (*p && *p != '-')
            p = "";
        if (*q == '.')
            q++;
        else if (*q && *q != '-')
            q = "";
    }
}

int rd_kernel_at_least(const rd_os_facts *os, const char *v)
{
    if (!os->kernel_release)
        return -1;
    return rd_version_compare(os->kernel_release, v) >= 0;
}

static const rd_field table_info_fields[] = {
    F(rd_table_info, name, RD_FT_STR),
    F(rd_table_info, version, RD_FT_STR),
    F(rd_table_info, date, RD_FT_STR),
};
SCHEMA(kn_table_info_schema, rd_table_info, table_info_fields);

static const rd_field knowledge_fields[] = {
    FA(rd_knowledge, archs, n_archs, kn_arch_schema),
    FA(rd_knowledge, pci_ids, n_pci_ids, kn_pci_id_schema),
    FA(rd_knowledge, apu_pci_ids, n_apu_pci_ids, kn_pci_id_schema),
    FS(rd_knowledge, archs_info, kn_table_info_schema),
    FS(rd_knowledge, pci_ids_info, kn_table_info_schema),
    FA(rd_knowledge, releases, n_releases, kn_release_schema),
    F(rd_knowledge, apt_host, RD_FT_STR),
    F(rd_knowledge, apt_key_id, RD_FT_STR),
    F(rd_knowledge, apt_pin_origin, RD_FT_STR),
    FS(rd_knowledge, rpm, kn_rpm_schema),
    FS(rd_knowledge, support_info, kn_table_info_schema),
    FA(rd_knowledge, product_memory, n_product_memory, kn_product_memory_schema),
    FA(rd_knowledge, product_left_out, n_product_left_out, kn_product_left_out_schema),
    FA(rd_knowledge, firmware_bad, n_firmware_bad, kn_firmware_bad_schema),
    FS(rd_knowledge, health_info, kn_table_info_schema),
    FA(rd_knowledge, wheel_families, n_wheel_families, kn_wheel_family_schema),
    F(rd_knowledge, wheel_index, RD_FT_STR),
    F(rd_knowledge, wheel_packages, RD_FT_STR),
    F(rd_knowledge, wheel_release, RD_FT_STR),
    FS(rd_knowledge, wheels_info, kn_table_info_schema),
    FS(rd_knowledge, packages, kn_packages_schema),
    FA(rd_knowledge, repos, n_repos, kn_repo_schema),
    F(rd_knowledge, repo_key, RD_FT_STR),
    F(rd_knowledge, repo_fingerprint, RD_FT_STR),
    FS(rd_knowledge, repos_info, kn_table_info_schema),
};
static SCHEMA(knowledge_schema, rd_knowledge, knowledge_fields);

void rd_knowledge_free(rd_knowledge *k)
{
    if (k->lazy) {
        free(k->lazy->dir);
        free(k->lazy->error);
        free(k->lazy->repos_text);
        free(k->lazy);
        k->lazy = NULL;
    }
    rd_struct_free(&knowledge_schema, k);
}
