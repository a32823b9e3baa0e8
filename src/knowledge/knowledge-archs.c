/* SPDX-License-Identifier: MIT */
/* conf/archs.ini and conf/pci-ids.ini: gfx targets and the PCI ids that
 * map to them. */
#include "knowledge-private.h"

/* [gfxNNNN]: a row each. */
static int arch_row(parse_state *st, const char *section, const char *arg, void **ret)
{
    if (strlen(section) < 6 || strlen(section) > 8)
        return -1;
    if (!st->current || !streq(st->current->gfx, section)) {
        for (size_t i = 0; i < st->k->n_archs; i++)
            if (streq(st->k->archs[i].gfx, section))
                return kn_fail(st, xasprintf("section [%s] appears twice", section));
        st->current = ARRAY_APPEND(st->k->archs, st->k->n_archs);
        st->current->gfx = xstrdup(section);
    }
    *ret = st->current;
    return 1;
}

static int target_version_value(parse_state *st, void *obj, const char *name, const char *value)
{
    rd_arch *a = obj;
    uint64_t v;
    char expect[16];
    if (safe_atou64(value, 10, &v) < 0 || v > 999999 || !rd_gfx_name(v, expect, sizeof expect))
        return kn_fail(st, xasprintf("gfx_target_version \"%s\" is not a decimal target version", value));
    if (!streq(expect, a->gfx))
        return kn_fail(st, xasprintf("gfx_target_version %s is %s, not %s", value, expect, a->gfx));
    a->gfx_target_version = (uint32_t)v;
    return 1;
}

static int atomics_value(parse_state *st, void *obj, const char *name, const char *value)
{
    rd_arch *a = obj;
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
        return kn_fail(st, xasprintf("atomics must be required, not-required or \"firmware N\", not \"%s\"", value));
    return 1;
}

static int kfd_value(parse_state *st, void *obj, const char *name, const char *value)
{
    bool yes;
    if (kn_parse_bool(value, &yes) < 0)
        return kn_fail(st, xasprintf("kfd must be yes or no, not \"%s\"", value));
    ((rd_arch *)obj)->no_kfd = !yes;
    return 1;
}

static int override_value(parse_state *st, void *obj, const char *name, const char *value)
{
    rd_arch *a = obj;
    unsigned ma, mi, st2;
    char extra;
    if (!streq(value, "none") &&
        (sscanf(value, "%u.%u.%u%c", &ma, &mi, &st2, &extra) != 3 || ma > 63 || mi > 255 || st2 > 255))
        return kn_fail(st, xasprintf("override \"%s\" is not a version like 10.3.0", value));
    free(a->override);
    a->override = streq(value, "none") ? NULL : xstrdup(value);
    a->override_known = true;
    return 1;
}

static const kn_key arch_keys[] = {
    { "gfx_target_version", KN_PARSE, 0, NULL, target_version_value },
    KN_STR("codename", rd_arch, codename),
    KN_STR("family", rd_arch, family),
    { "apu", KN_BOOL, offsetof(rd_arch, apu) },
    { "atomics", KN_PARSE, 0, NULL, atomics_value },
    { "kfd", KN_PARSE, 0, NULL, kfd_value },
    { "override", KN_PARSE, 0, NULL, override_value },
};
static const kn_section archs_sections[] = { { "gfx", true, arch_row, KN_KEYS(arch_keys) } };
static const kn_rows archs_rows = { KN_KEYS(archs_sections), "not a gfx target name" };

/* [pci-ids] and [apu-pci-ids]: "DEVICE = gfx target" (the product name for an APU). */
static int pci_id_row(parse_state *st, bool apu, const char *name, const char *value)
{
    uint64_t id;
    if (safe_atou64(name, 16, &id) < 0 || id > 0xffff || strlen(name) != 4)
        return kn_fail(st, xasprintf("\"%s\" is not a 4-digit hex PCI device id", name));
    if (!apu && (!startswith(value, "gfx") || strlen(value) > 8))
        return kn_fail(st, xasprintf("\"%s\" is not a gfx target", value));
    rd_pci_id **arr = apu ? &st->k->apu_pci_ids : &st->k->pci_ids;
    size_t *n = apu ? &st->k->n_apu_pci_ids : &st->k->n_pci_ids;
    /* a bit per 16-bit id (8 KiB), seeded with the ids already loaded: a
     * table of n rows is checked in n steps, not n² */
    uint64_t **seen = &st->ids_seen[apu];
    if (!*seen) {
        *seen = xcalloc(65536 / 64, sizeof(uint64_t));
        for (size_t i = 0; i < *n; i++)
            (*seen)[(*arr)[i].device_id / 64] |= UINT64_C(1) << ((*arr)[i].device_id % 64);
    }
    if ((*seen)[id / 64] & (UINT64_C(1) << (id % 64)))
        return kn_fail(st, xasprintf("device id %s listed twice", name));
    (*seen)[id / 64] |= UINT64_C(1) << (id % 64);
    rd_pci_id *p = ARRAY_APPEND(*arr, *n);
    p->device_id = (uint16_t)id;
    p->gfx = xstrdup(value);
    return 1;
}

static int pci_id_value(parse_state *st, void *obj, const char *name, const char *value)
{
    return pci_id_row(st, false, name, value);
}

static int apu_pci_id_value(parse_state *st, void *obj, const char *name, const char *value)
{
    return pci_id_row(st, true, name, value);
}

static const kn_key pci_id_keys[] = { { NULL, KN_PARSE, 0, NULL, pci_id_value } };
static const kn_key apu_pci_id_keys[] = { { NULL, KN_PARSE, 0, NULL, apu_pci_id_value } };
static const kn_section pci_ids_sections[] = {
    { "pci-ids", false, kn_whole, KN_KEYS(pci_id_keys) },
    { "apu-pci-ids", false, kn_whole, KN_KEYS(apu_pci_id_keys) },
};
static const kn_rows pci_ids_rows = { KN_KEYS(pci_ids_sections) };

int rd_knowledge_load_archs(const char *path, rd_knowledge *k, char **ret_error)
{
    parse_state st = { .k = k, .rows_of = &archs_rows, .info = &k->archs_info };
    int r = kn_load_table(path, &st, ret_error);
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
    parse_state st = { .k = k, .rows_of = &pci_ids_rows, .info = &k->pci_ids_info };
    int r = kn_load_table(path, &st, ret_error);
    free(st.ids_seen[0]);
    free(st.ids_seen[1]);
    return r;
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

static const rd_field arch_fields[] = {
    F(rd_arch, gfx, RD_FT_STR),
    F(rd_arch, codename, RD_FT_STR),
    F(rd_arch, family, RD_FT_STR),
    F(rd_arch, override, RD_FT_STR),
};
SCHEMA(kn_arch_schema, rd_arch, arch_fields);
static const rd_field pci_id_fields[] = { F(rd_pci_id, gfx, RD_FT_STR) };
SCHEMA(kn_pci_id_schema, rd_pci_id, pci_id_fields);
