/* SPDX-License-Identifier: MIT */
/* conf/health.ini: product memory ([vram], [vram-left-out]) and firmware
 * known to be bad. */
#include "knowledge-private.h"

/* [firmware-known-bad]: "GFX.NAME = 0xVERSION REASON" */
static int firmware_bad_row(parse_state *st, void *obj, const char *name, const char *value)
{
    const char *dot = strchr(name, '.');
    if (!dot || !startswith(name, "gfx") || dot - name > 10 || !dot[1] ||
        strspn(dot + 1, "abcdefghijklmnopqrstuvwxyz0123456789_") != strlen(dot + 1))
        return kn_fail(st, xasprintf("\"%s\" is not TARGET.FIRMWARE (gfx1151.mes)", name));
    _cleanup_free_ char *gfx = xstrndup(name, (size_t)(dot - name));
    size_t digits = strlen(gfx + 3);
    if (digits < 3 || digits > 5 || strspn(gfx + 3, "0123456789abcdef") != digits)
        return kn_fail(st, xasprintf("\"%s\" is not a gfx target", gfx));
    uint64_t v;
    int pos = 0;
    char hex[19] = "";
    if (sscanf(value, "%18s %n", hex, &pos) != 1 || !startswith(hex, "0x") || safe_atou64(hex + 2, 16, &v) < 0 ||
        v > UINT32_MAX || !value[pos])
        return kn_fail(st, xasprintf("\"%s\" is not \"0xVERSION REASON\"", value));
    for (size_t i = 0; i < st->k->n_firmware_bad; i++)
        if (streq(st->k->firmware_bad[i].gfx, gfx) && streq(st->k->firmware_bad[i].name, dot + 1) &&
            st->k->firmware_bad[i].version == v)
            return kn_fail(st, xasprintf("%s %s listed twice", name, hex));
    rd_firmware_bad *b = ARRAY_APPEND(st->k->firmware_bad, st->k->n_firmware_bad);
    b->gfx = TAKE_PTR(gfx);
    b->name = xstrdup(dot + 1);
    b->version = (uint32_t)v;
    b->reason = xstrdup(value + pos);
    return 1;
}

/* "1234" or "1234.c8": a PCI device id, and a revision (-1: any). */
static bool parse_product_key(const char *name, uint16_t *ret_dev, int16_t *ret_rev)
{
    unsigned dev, rev = 0;
    int end = 0;
    bool with_rev = strchr(name, '.') != NULL;
    if (with_rev ? (sscanf(name, "%4x.%2x%n", &dev, &rev, &end) != 2 || name[end] || strlen(name) != 7)
                 : (sscanf(name, "%4x%n", &dev, &end) != 1 || name[end] || strlen(name) != 4))
        return false;
    if (strspn(name, "0123456789abcdefABCDEF.") != strlen(name))
        return false;
    *ret_dev = (uint16_t)dev;
    *ret_rev = with_rev ? (int16_t)rev : -1;
    return true;
}

/* A key listed in [vram] or [vram-left-out] already: each id is in one. */
static bool product_key_seen(const rd_knowledge *k, uint16_t dev, int16_t rev)
{
    for (size_t i = 0; i < k->n_product_memory; i++)
        if (k->product_memory[i].device_id == dev && k->product_memory[i].revision == rev)
            return true;
    for (size_t i = 0; i < k->n_product_left_out; i++)
        if (k->product_left_out[i].device_id == dev && k->product_left_out[i].revision == rev)
            return true;
    return false;
}

/* [vram]: "DEVICE[.REV] = GIB|shared PRODUCT NAME"; [vram-left-out]:
 * "DEVICE[.REV] = REASON"; [firmware-known-bad] above. */
static int product_row(parse_state *st, bool left_out, const char *name, const char *value)
{
    uint16_t dev;
    int16_t rev;
    if (!parse_product_key(name, &dev, &rev))
        return kn_fail(st, xasprintf("\"%s\" is not a PCI device id (1234 or 1234.c8)", name));
    if (product_key_seen(st->k, dev, rev))
        return kn_fail(st, xasprintf("%s listed twice", name));
    if (left_out) {
        if (!*value)
            return kn_fail(st, xasprintf("%s needs the reason it is left out", name));
        rd_product_left_out *l = ARRAY_APPEND(st->k->product_left_out, st->k->n_product_left_out);
        *l = (rd_product_left_out){ .device_id = dev, .revision = rev, .reason = xstrdup(value) };
        return 1;
    }
    /* "48 NAME" or "shared NAME": digits or the word, then blanks, then the name */
    uint64_t gib = 0;
    size_t pos = startswith(value, "shared ") ? strlen("shared") : strspn(value, "0123456789");
    _cleanup_free_ char *num = xstrndup(value, pos);
    if (!streq(num, "shared") && (pos == 0 || pos > 5 || safe_atou64(num, 10, &gib) < 0 || gib == 0 || gib > 65536))
        pos = 0;
    if (pos > 0 && value[pos] != ' ' && value[pos] != '\t')
        pos = 0;
    while (pos > 0 && (value[pos] == ' ' || value[pos] == '\t'))
        pos++;
    if (pos == 0 || !value[pos])
        return kn_fail(st, xasprintf("\"%s\" is not \"GIB PRODUCT NAME\" or \"shared PRODUCT NAME\"", value));
    rd_product_memory *p = ARRAY_APPEND(st->k->product_memory, st->k->n_product_memory);
    p->device_id = dev;
    p->revision = rev;
    p->vram_bytes = gib << 30;
    p->product = xstrdup(value + pos);
    return 1;
}

static int vram_row(parse_state *st, void *obj, const char *name, const char *value)
{
    return product_row(st, false, name, value);
}

static int left_out_row(parse_state *st, void *obj, const char *name, const char *value)
{
    return product_row(st, true, name, value);
}

static const kn_key firmware_keys[] = { { NULL, KN_PARSE, 0, NULL, firmware_bad_row } };
static const kn_key vram_keys[] = { { NULL, KN_PARSE, 0, NULL, vram_row } };
static const kn_key left_out_keys[] = { { NULL, KN_PARSE, 0, NULL, left_out_row } };
static const kn_section health_sections[] = {
    { "firmware-known-bad", false, kn_whole, KN_KEYS(firmware_keys) },
    { "vram", false, kn_whole, KN_KEYS(vram_keys) },
    { "vram-left-out", false, kn_whole, KN_KEYS(left_out_keys) },
};
static const kn_rows health_rows = { KN_KEYS(health_sections) };

int rd_knowledge_load_health(const char *path, rd_knowledge *k, char **ret_error)
{
    parse_state st = { .k = k, .rows_of = &health_rows, .info = &k->health_info };
    return kn_load_table(path, &st, ret_error);
}

const rd_product_memory *rd_knowledge_product_memory(const rd_knowledge *k, uint16_t device_id, uint8_t revision)
{
    (void)rd_knowledge_need(k, RD_KT_HEALTH, NULL);
    const rd_product_memory *any = NULL;
    for (size_t i = 0; i < k->n_product_memory; i++) {
        const rd_product_memory *p = &k->product_memory[i];
        if (p->device_id != device_id)
            continue;
        if (p->revision == revision)
            return p;
        if (p->revision < 0)
            any = p;
    }
    return any;
}

const rd_firmware_bad *rd_knowledge_firmware_bad(const rd_knowledge *k, const char *gfx, const char *name,
                                                 uint32_t version)
{
    (void)rd_knowledge_need(k, RD_KT_HEALTH, NULL);
    for (size_t i = 0; i < k->n_firmware_bad; i++)
        if (k->firmware_bad[i].version == version && streq(k->firmware_bad[i].gfx, gfx) &&
            streq(k->firmware_bad[i].name, name))
            return &k->firmware_bad[i];
    return NULL;
}

static const rd_field memory_fields[] = { F(rd_product_memory, product, RD_FT_STR) };
SCHEMA(kn_product_memory_schema, rd_product_memory, memory_fields);
static const rd_field left_out_fields[] = { F(rd_product_left_out, reason, RD_FT_STR) };
SCHEMA(kn_product_left_out_schema, rd_product_left_out, left_out_fields);
static const rd_field firmware_fields[] = {
    F(rd_firmware_bad, gfx, RD_FT_STR),
    F(rd_firmware_bad, name, RD_FT_STR),
    F(rd_firmware_bad, reason, RD_FT_STR),
};
SCHEMA(kn_firmware_bad_schema, rd_firmware_bad, firmware_fields);
