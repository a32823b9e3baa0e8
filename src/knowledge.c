/* SPDX-License-Identifier: MIT */
#include "knowledge.h"

#include <ini.h>
#include "util.h"

typedef struct {
    rd_knowledge *k;
    rd_table_info *info;
    rd_arch *current;    /* archs.ini: the section being read */
    bool in_table;
    bool pci_ids;        /* which table this is */
    char *error;         /* first error, without the file:line prefix */
} parse_state;

static int fail(parse_state *st, char *msg)
{
    if (!st->error)
        st->error = msg;
    else
        free(msg);
    return 0; /* inih reports the line of the first handler error */
}

static int parse_bool(const char *v, bool *ret)
{
    if (streq(v, "yes") || streq(v, "true") || streq(v, "1"))
        *ret = true;
    else if (streq(v, "no") || streq(v, "false") || streq(v, "0"))
        *ret = false;
    else
        return -EINVAL;
    return 0;
}

static int table_key(parse_state *st, const char *name, const char *value)
{
    char **slot = streq(name, "name") ? &st->info->name
                : streq(name, "version") ? &st->info->version
                : streq(name, "date") ? &st->info->date : NULL;
    if (!slot)
        return fail(st, xasprintf("unknown key \"%s\" in [table]", name));
    free(*slot);
    *slot = xstrdup(value);
    return 1;
}

static int archs_handler(void *user, const char *section, const char *name, const char *value)
{
    parse_state *st = user;
    if (!name) { /* new section (INI_CALL_HANDLER_ON_NEW_SECTION builds) */
        return 1;
    }
    if (streq(section, "table"))
        return table_key(st, name, value);
    if (!startswith(section, "gfx") || strlen(section) < 6 || strlen(section) > 8)
        return fail(st, xasprintf("section [%s] is not a gfx target name", section));

    if (!st->current || !streq(st->current->gfx, section)) {
        for (size_t i = 0; i < st->k->n_archs; i++)
            if (streq(st->k->archs[i].gfx, section)) {
                if (st->current != &st->k->archs[i])
                    return fail(st, xasprintf("section [%s] appears twice", section));
            }
        st->current = ARRAY_APPEND(st->k->archs, st->k->n_archs);
        st->current->gfx = xstrdup(section);
    }
    rd_arch *a = st->current;

    if (streq(name, "gfx_target_version")) {
        uint64_t v;
        char expect[16];
        if (safe_atou64(value, 10, &v) < 0 || v > 999999 || !rd_gfx_name(v, expect, sizeof expect))
            return fail(st, xasprintf("gfx_target_version \"%s\" is not a decimal target version", value));
        if (!streq(expect, section))
            return fail(st, xasprintf("gfx_target_version %s is %s, not %s", value, expect, section));
        a->gfx_target_version = (uint32_t)v;
    } else if (streq(name, "codename")) {
        free(a->codename);
        a->codename = xstrdup(value);
    } else if (streq(name, "family")) {
        free(a->family);
        a->family = xstrdup(value);
    } else if (streq(name, "apu")) {
        if (parse_bool(value, &a->apu) < 0)
            return fail(st, xasprintf("apu must be yes or no, not \"%s\"", value));
    } else if (streq(name, "atomics")) {
        const char *fw;
        uint64_t v;
        if (streq(value, "required"))
            a->atomics = RD_ATOMICS_REQUIRED;
        else if (streq(value, "not-required"))
            a->atomics = RD_ATOMICS_NOT_REQUIRED;
        else if ((fw = startswith(value, "firmware ")) && safe_atou64(fw, 10, &v) == 0 && v < UINT32_MAX) {
            a->atomics = RD_ATOMICS_FIRMWARE;
            a->atomics_fw = (uint32_t)v;
        } else
            return fail(st, xasprintf("atomics must be required, not-required or \"firmware N\", not \"%s\"", value));
    } else if (streq(name, "override")) {
        unsigned ma, mi, st2;
        char extra;
        if (sscanf(value, "%u.%u.%u%c", &ma, &mi, &st2, &extra) != 3 || ma > 63 || mi > 255 || st2 > 255)
            return fail(st, xasprintf("override \"%s\" is not a version like 10.3.0", value));
        free(a->override);
        a->override = xstrdup(value);
    } else
        return fail(st, xasprintf("unknown key \"%s\" in [%s]", name, section));
    return 1;
}

static int pci_ids_handler(void *user, const char *section, const char *name, const char *value)
{
    parse_state *st = user;
    if (!name)
        return 1;
    if (streq(section, "table"))
        return table_key(st, name, value);
    bool apu = streq(section, "apu-pci-ids");
    if (!apu && !streq(section, "pci-ids"))
        return fail(st, xasprintf("unknown section [%s]", section));
    uint64_t id;
    if (safe_atou64(name, 16, &id) < 0 || id > 0xffff || strlen(name) != 4)
        return fail(st, xasprintf("\"%s\" is not a 4-digit hex PCI device id", name));
    if (!apu && (!startswith(value, "gfx") || strlen(value) > 8))
        return fail(st, xasprintf("\"%s\" is not a gfx target", value));
    rd_pci_id **arr = apu ? &st->k->apu_pci_ids : &st->k->pci_ids;
    size_t *n = apu ? &st->k->n_apu_pci_ids : &st->k->n_pci_ids;
    for (size_t i = 0; i < *n; i++)
        if ((*arr)[i].device_id == id)
            return fail(st, xasprintf("device id %s listed twice", name));
    rd_pci_id *p = ARRAY_APPEND(*arr, *n);
    p->device_id = (uint16_t)id;
    p->gfx = xstrdup(value);
    return 1;
}

static int load_table(const char *path, parse_state *st, ini_handler h, char **ret_error)
{
    FILE *f = fopen(path, "re");
    if (!f) {
        int err = errno;
        *ret_error = xasprintf("%s: %s", path, strerror(err));
        return -err;
    }
    int line = ini_parse_file(f, h, st);
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

int rd_knowledge_load_archs(const char *path, rd_knowledge *k, char **ret_error)
{
    parse_state st = { .k = k, .info = &k->archs_info };
    int r = load_table(path, &st, archs_handler, ret_error);
    if (r < 0)
        return r;
    for (size_t i = 0; i < k->n_archs; i++) {
        const rd_arch *a = &k->archs[i];
        if (!a->gfx_target_version || !a->family || a->atomics == RD_ATOMICS_UNKNOWN) {
            *ret_error = xasprintf("%s: [%s] needs gfx_target_version, family and atomics", path, a->gfx);
            return -EINVAL;
        }
    }
    return 0;
}

int rd_knowledge_load_pci_ids(const char *path, rd_knowledge *k, char **ret_error)
{
    parse_state st = { .k = k, .info = &k->pci_ids_info, .pci_ids = true };
    return load_table(path, &st, pci_ids_handler, ret_error);
}

int rd_knowledge_load(const char *dir, rd_knowledge *ret, char **ret_error)
{
    rd_knowledge k = { 0 };
    _cleanup_free_ char *archs = xasprintf("%s/archs.ini", dir);
    _cleanup_free_ char *ids = xasprintf("%s/pci-ids.ini", dir);
    int r = rd_knowledge_load_archs(archs, &k, ret_error);
    if (r >= 0)
        r = rd_knowledge_load_pci_ids(ids, &k, ret_error);
    if (r < 0) {
        rd_knowledge_free(&k);
        return r;
    }
    *ret = k;
    return 0;
}

static void table_info_free(rd_table_info *t)
{
    free(t->name);
    free(t->version);
    free(t->date);
}

void rd_knowledge_free(rd_knowledge *k)
{
    for (size_t i = 0; i < k->n_archs; i++) {
        free(k->archs[i].gfx);
        free(k->archs[i].codename);
        free(k->archs[i].family);
        free(k->archs[i].override);
    }
    free(k->archs);
    for (size_t i = 0; i < k->n_pci_ids; i++)
        free(k->pci_ids[i].gfx);
    free(k->pci_ids);
    for (size_t i = 0; i < k->n_apu_pci_ids; i++)
        free(k->apu_pci_ids[i].gfx);
    free(k->apu_pci_ids);
    table_info_free(&k->archs_info);
    table_info_free(&k->pci_ids_info);
    memset(k, 0, sizeof(*k));
}

const rd_arch *rd_knowledge_arch(const rd_knowledge *k, const char *gfx)
{
    for (size_t i = 0; gfx && i < k->n_archs; i++)
        if (streq(k->archs[i].gfx, gfx))
            return &k->archs[i];
    return NULL;
}

const rd_arch *rd_knowledge_arch_by_version(const rd_knowledge *k, uint32_t v)
{
    for (size_t i = 0; i < k->n_archs; i++)
        if (k->archs[i].gfx_target_version == v)
            return &k->archs[i];
    return NULL;
}

const char *rd_knowledge_gfx_for_pci_id(const rd_knowledge *k, uint16_t device_id)
{
    for (size_t i = 0; i < k->n_pci_ids; i++)
        if (k->pci_ids[i].device_id == device_id)
            return k->pci_ids[i].gfx;
    return NULL;
}

bool rd_gfx_name(uint64_t v, char *buf, size_t size)
{
    if (v == 0 || v > 999999)
        return false;
    unsigned major = (unsigned)(v / 10000), minor = (unsigned)(v / 100 % 100), step = (unsigned)(v % 100);
    /* minor and stepping are single hex digits in every target name */
    if (major < 6 || minor > 15 || step > 15)
        return false;
    snprintf(buf, size, "gfx%u%x%x", major, minor, step);
    return true;
}

bool rd_knowledge_is_apu_pci_id(const rd_knowledge *k, uint16_t device_id)
{
    for (size_t i = 0; i < k->n_apu_pci_ids; i++)
        if (k->apu_pci_ids[i].device_id == device_id)
            return true;
    return false;
}

const char *rd_knowledge_pick_release(const rd_knowledge *k, const char *os_id, const char *os_version_id,
                                      char *const *gfx, size_t n_gfx)
{
    return NULL; /* until conf/support.ini is loaded */
}

const char *rd_knowledge_apt_suite(const rd_knowledge *k, const char *release, const char *codename)
{
    return NULL;
}
