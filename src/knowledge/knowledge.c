/* SPDX-License-Identifier: MIT */
/* The knowledge tables: loading them all, the parts every table loader
 * shares, and freeing. One file per table: knowledge-archs.c (archs.ini,
 * pci-ids.ini), -support.c, -health.c, -wheels.c, -packages.c, -repos.c. */
#include "knowledge-private.h"

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

/* A string key of a fixed section: slot NULL is a key the section lacks. */
int kn_string_key(parse_state *st, const char *section, const char *name, const char *value, char **slot)
{
    if (!slot)
        return kn_fail(st, xasprintf("unknown key \"%s\" in [%s]", name, section));
    free(*slot);
    *slot = xstrdup(value);
    return 1;
}

int kn_table_key(parse_state *st, const char *name, const char *value)
{
    return kn_string_key(st, "table", name, value,
                         streq(name, "name")      ? &st->info->name
                         : streq(name, "version") ? &st->info->version
                         : streq(name, "date")    ? &st->info->date
                                                  : NULL);
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

/* What every table shares: [table] (name, version, date), then its own rows. */
static int table_handler(void *user, const char *section, const char *name, const char *value)
{
    parse_state *st = user;
    if (!name) /* a new section (INI_CALL_HANDLER_ON_NEW_SECTION builds) */
        return 1;
    if (streq(section, "table"))
        return kn_table_key(st, name, value);
    return st->rows(user, section, name, value);
}

int kn_load_table(const char *path, parse_state *st, ini_handler h, char **ret_error)
{
    st->rows = h;
    FILE *f = fopen_regular(path);
    if (!f) {
        int err = errno;
        *ret_error = xasprintf("%s: %s", path, strerror(err));
        return -err;
    }
    int line = ini_parse_file(f, table_handler, st);
    fclose(f);
    if (line != 0 || st->error) {
        if (line > 0)
            *ret_error = xasprintf("%s:%d: %s", path, line,
                                   st->error ? st->error : "syntax error (expected [section] or key = value)");
        else
            *ret_error = xasprintf("%s: %s", path, st->error ? st->error : "cannot parse");
        free(st->error);
        return -EINVAL;
    }
    if (!st->info->name || !st->info->version || !st->info->date) {
        *ret_error = xasprintf("%s: the [table] section must state name, version and date", path);
        return -EINVAL;
    }
    return 0;
}

int rd_knowledge_load(const char *dir, rd_knowledge *ret, char **ret_error)
{
    rd_knowledge k = { 0 };
    _cleanup_free_ char *archs = xasprintf("%s/archs.ini", dir);
    _cleanup_free_ char *ids = xasprintf("%s/pci-ids.ini", dir);
    _cleanup_free_ char *support = xasprintf("%s/support.ini", dir);
    _cleanup_free_ char *health = xasprintf("%s/health.ini", dir);
    _cleanup_free_ char *wheels = xasprintf("%s/wheels.ini", dir);
    _cleanup_free_ char *packages = xasprintf("%s/packages.ini", dir);
    _cleanup_free_ char *repos = xasprintf("%s/repos.ini", dir);
    int r = rd_knowledge_load_archs(archs, &k, ret_error);
    if (r >= 0)
        r = rd_knowledge_load_pci_ids(ids, &k, ret_error);
    /* Without the support matrix the release checks are skipped; a present
     * but malformed one is an error like any table. */
    struct stat st;
    if (r >= 0 && (stat(support, &st) == 0 || errno != ENOENT))
        r = rd_knowledge_load_support(support, &k, ret_error);
    if (r >= 0 && (stat(health, &st) == 0 || errno != ENOENT))
        r = rd_knowledge_load_health(health, &k, ret_error);
    if (r >= 0 && (stat(wheels, &st) == 0 || errno != ENOENT))
        r = rd_knowledge_load_wheels(wheels, &k, ret_error);
    if (r >= 0 && (stat(packages, &st) == 0 || errno != ENOENT))
        r = rd_knowledge_load_packages(packages, &k, ret_error);
    if (r >= 0 && (stat(repos, &st) == 0 || errno != ENOENT))
        r = rd_knowledge_load_repos(repos, &k, ret_error);
    if (r < 0) {
        rd_knowledge_free(&k);
        return r;
    }
    *ret = k;
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
    rd_struct_free(&knowledge_schema, k);
}
