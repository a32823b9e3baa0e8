/* SPDX-License-Identifier: MIT */
#include "knowledge.h"

#include <ctype.h>
#include <ini.h>
#include <strings.h>
#include <sys/stat.h>
#include "distro.h"
#include "util.h"

typedef struct {
    rd_knowledge *k;
    rd_table_info *info;
    rd_arch *current;    /* archs.ini: the section being read */
    rd_release *release; /* support.ini: the section being read */
    bool in_table;
    bool pci_ids;        /* which table this is */
    uint64_t *ids_seen[2]; /* pci-ids.ini: a bit per device id, [pci-ids] and [apu-pci-ids] */
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

/* A string key of a fixed section: slot NULL is a key the section lacks. */
static int string_key(parse_state *st, const char *section, const char *name, const char *value, char **slot)
{
    if (!slot)
        return fail(st, xasprintf("unknown key \"%s\" in [%s]", name, section));
    free(*slot);
    *slot = xstrdup(value);
    return 1;
}

static int table_key(parse_state *st, const char *name, const char *value)
{
    return string_key(st, "table", name, value,
                      streq(name, "name")      ? &st->info->name
                      : streq(name, "version") ? &st->info->version
                      : streq(name, "date")    ? &st->info->date
                                               : NULL);
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
    } else if (streq(name, "kfd")) {
        bool yes;
        if (parse_bool(value, &yes) < 0)
            return fail(st, xasprintf("kfd must be yes or no, not \"%s\"", value));
        a->no_kfd = !yes;
    } else if (streq(name, "override") && streq(value, "none")) {
        free(a->override);
        a->override = NULL;
        a->override_known = true;
    } else if (streq(name, "override")) {
        unsigned ma, mi, st2;
        char extra;
        if (sscanf(value, "%u.%u.%u%c", &ma, &mi, &st2, &extra) != 3 || ma > 63 || mi > 255 || st2 > 255)
            return fail(st, xasprintf("override \"%s\" is not a version like 10.3.0", value));
        free(a->override);
        a->override = xstrdup(value);
        a->override_known = true;
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
    /* a bit per 16-bit id (8 KiB), seeded with the ids already loaded: a
     * table of n rows is checked in n steps, not n² */
    uint64_t **seen = &st->ids_seen[apu];
    if (!*seen) {
        *seen = xcalloc(65536 / 64, sizeof(uint64_t));
        for (size_t i = 0; i < *n; i++)
            (*seen)[(*arr)[i].device_id / 64] |= UINT64_C(1) << ((*arr)[i].device_id % 64);
    }
    if ((*seen)[id / 64] & (UINT64_C(1) << (id % 64)))
        return fail(st, xasprintf("device id %s listed twice", name));
    (*seen)[id / 64] |= UINT64_C(1) << (id % 64);
    rd_pci_id *p = ARRAY_APPEND(*arr, *n);
    p->device_id = (uint16_t)id;
    p->gfx = xstrdup(value);
    return 1;
}


static int load_table(const char *path, parse_state *st, ini_handler h, char **ret_error);

/* [firmware-known-bad]: "GFX.NAME = 0xVERSION REASON" */
static int firmware_bad_row(parse_state *st, const char *name, const char *value)
{
    const char *dot = strchr(name, '.');
    if (!dot || !startswith(name, "gfx") || dot - name > 10 || !dot[1] ||
        strspn(dot + 1, "abcdefghijklmnopqrstuvwxyz0123456789_") != strlen(dot + 1))
        return fail(st, xasprintf("\"%s\" is not TARGET.FIRMWARE (gfx1151.mes)", name));
    _cleanup_free_ char *gfx = xstrndup(name, (size_t)(dot - name));
    size_t digits = strlen(gfx + 3);
    if (digits < 3 || digits > 5 || strspn(gfx + 3, "0123456789abcdef") != digits)
        return fail(st, xasprintf("\"%s\" is not a gfx target", gfx));
    uint64_t v;
    int pos = 0;
    char hex[19] = "";
    if (sscanf(value, "%18s %n", hex, &pos) != 1 || !startswith(hex, "0x") || safe_atou64(hex + 2, 16, &v) < 0 ||
        v > UINT32_MAX || !value[pos])
        return fail(st, xasprintf("\"%s\" is not \"0xVERSION REASON\"", value));
    for (size_t i = 0; i < st->k->n_firmware_bad; i++)
        if (streq(st->k->firmware_bad[i].gfx, gfx) && streq(st->k->firmware_bad[i].name, dot + 1) &&
            st->k->firmware_bad[i].version == v)
            return fail(st, xasprintf("%s %s listed twice", name, hex));
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
static int health_handler(void *user, const char *section, const char *name, const char *value)
{
    parse_state *st = user;
    if (!name)
        return 1;
    if (streq(section, "table"))
        return table_key(st, name, value);
    if (streq(section, "firmware-known-bad"))
        return firmware_bad_row(st, name, value);
    bool left_out = streq(section, "vram-left-out");
    if (!left_out && !streq(section, "vram"))
        return fail(st, xasprintf("unknown section [%s]", section));
    uint16_t dev;
    int16_t rev;
    if (!parse_product_key(name, &dev, &rev))
        return fail(st, xasprintf("\"%s\" is not a PCI device id (1234 or 1234.c8)", name));
    if (product_key_seen(st->k, dev, rev))
        return fail(st, xasprintf("%s listed twice", name));
    if (left_out) {
        if (!*value)
            return fail(st, xasprintf("%s needs the reason it is left out", name));
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
        return fail(st, xasprintf("\"%s\" is not \"GIB PRODUCT NAME\" or \"shared PRODUCT NAME\"", value));
    rd_product_memory *p = ARRAY_APPEND(st->k->product_memory, st->k->n_product_memory);
    p->device_id = dev;
    p->revision = rev;
    p->vram_bytes = gib << 30;
    p->product = xstrdup(value + pos);
    return 1;
}

int rd_knowledge_load_health(const char *path, rd_knowledge *k, char **ret_error)
{
    parse_state st = { .k = k, .info = &k->health_info };
    return load_table(path, &st, health_handler, ret_error);
}

/* conf/wheels.ini: [index] url/packages/release and [family NAME] rows
 * of gfx targets. */
static int wheels_handler(void *user, const char *section, const char *name, const char *value)
{
    parse_state *st = user;
    rd_knowledge *k = st->k;
    if (!name)
        return 1;
    if (streq(section, "table"))
        return table_key(st, name, value);
    if (streq(section, "index"))
        return string_key(st, section, name, value,
                          streq(name, "url")        ? &k->wheel_index
                          : streq(name, "packages") ? &k->wheel_packages
                          : streq(name, "release")  ? &k->wheel_release
                                                    : NULL);
    const char *fam = startswith(section, "family ");
    if (!fam || !*fam || strchr(fam, ' '))
        return fail(st, xasprintf("unknown section [%s]", section));
    rd_wheel_family *w = k->n_wheel_families ? &k->wheel_families[k->n_wheel_families - 1] : NULL;
    if (!w || !streq(w->name, fam)) {
        if (rd_knowledge_wheel_family(k, fam))
            return fail(st, xasprintf("section [%s] appears twice", section));
        w = ARRAY_APPEND(k->wheel_families, k->n_wheel_families);
        w->name = xstrdup(fam);
    }
    if (streq(name, "gfx")) {
        char **v = strv_split(value, " \t");
        for (size_t i = 0; v && v[i]; i++)
            if (!startswith(v[i], "gfx") || strlen(v[i]) < 6 || strlen(v[i]) > 8) {
                _cleanup_free_ char *bad = xstrdup(v[i]);
                strv_free(v);
                return fail(st, xasprintf("\"%s\" is not a gfx target name", bad));
            }
        strv_free(w->gfx);
        w->gfx = v;
    } else if (streq(name, "index")) {
        if (parse_bool(value, &w->index) < 0)
            return fail(st, xasprintf("index must be yes or no, not \"%s\"", value));
    } else
        return fail(st, xasprintf("unknown key \"%s\" in [%s]", name, section));
    return 1;
}

int rd_knowledge_load_wheels(const char *path, rd_knowledge *k, char **ret_error)
{
    parse_state st = { .k = k, .info = &k->wheels_info };
    int r = load_table(path, &st, wheels_handler, ret_error);
    if (r < 0)
        return r;
    for (size_t i = 0; i < k->n_wheel_families; i++)
        if (!k->wheel_families[i].gfx) {
            *ret_error = xasprintf("%s: [family %s] has no gfx", path, k->wheel_families[i].name);
            return -EINVAL;
        }
    if (k->n_wheel_families > 0 && (!k->wheel_index || !strstr(k->wheel_index, "{family}"))) {
        *ret_error = xasprintf("%s: [index] needs a url with {family}", path);
        return -EINVAL;
    }
    return 0;
}

const rd_wheel_family *rd_knowledge_wheel_family(const rd_knowledge *k, const char *name)
{
    for (size_t i = 0; name && i < k->n_wheel_families; i++)
        if (strcasecmp(k->wheel_families[i].name, name) == 0)
            return &k->wheel_families[i];
    return NULL;
}

const rd_wheel_family *rd_knowledge_wheel_family_for(const rd_knowledge *k, const char *gfx)
{
    for (size_t i = 0; gfx && i < k->n_wheel_families; i++)
        if (k->wheel_families[i].index && strv_contains(k->wheel_families[i].gfx, gfx))
            return &k->wheel_families[i];
    return NULL;
}

const rd_product_memory *rd_knowledge_product_memory(const rd_knowledge *k, uint16_t device_id, uint8_t revision)
{
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
    for (size_t i = 0; i < k->n_firmware_bad; i++)
        if (k->firmware_bad[i].version == version && streq(k->firmware_bad[i].gfx, gfx) &&
            streq(k->firmware_bad[i].name, name))
            return &k->firmware_bad[i];
    return NULL;
}

/* "6", "6.8", "6.8.5", "30.20": dotted decimal numbers, nothing else. */
static bool is_version(const char *s, int min_parts, int max_parts)
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

static int parse_gfx_list(parse_state *st, const char *name, const char *value, char ***ret)
{
    _cleanup_strv_free_ char **v = strv_split(value, " \t");
    if (!v)
        return fail(st, xasprintf("%s is empty", name));
    for (size_t i = 0; v[i]; i++) {
        if (!rd_knowledge_arch(st->k, v[i]))
            return fail(st, xasprintf("%s: \"%s\" is not a gfx target of archs.ini", name, v[i]));
        if (strv_contains(v + i + 1, v[i]))
            return fail(st, xasprintf("%s: %s is listed twice", name, v[i]));
    }
    strv_free(*ret);
    *ret = TAKE_PTR(v);
    return 1;
}

/* ID VERSION_ID CODENAME [suite SUITE] [tree TREE] kernels SERIES... */
static int parse_os_line(parse_state *st, rd_release *r, const char *value)
{
    _cleanup_strv_free_ char **w = strv_split(value, " \t");
    size_t n = strv_length(w), i = 3;
    if (n < 5)
        return fail(st, xasprintf("os \"%s\": expected ID VERSION_ID CODENAME [suite SUITE] kernels SERIES...", value));
    const char *suite = NULL;
    if (streq(w[i], "suite")) {
        if (i + 1 >= n)
            return fail(st, xasprintf("os \"%s\": \"suite\" needs a suite name", value));
        suite = w[i + 1];
        i += 2;
    }
    const char *tree = NULL;
    if (i < n && streq(w[i], "tree")) {
        if (i + 1 >= n || !is_version(w[i + 1], 1, 2))
            return fail(st, xasprintf("os \"%s\": \"tree\" needs an OS version like 9.6 or 10", value));
        tree = w[i + 1];
        i += 2;
    }
    if (i >= n || !streq(w[i], "kernels") || i + 1 >= n)
        return fail(st, xasprintf("os \"%s\": expected \"kernels\" and at least one kernel series", value));
    if (!is_version(w[1], 1, 3))
        return fail(st, xasprintf("os \"%s\": VERSION_ID \"%s\" is not a version", value, w[1]));
    for (size_t k = i + 1; k < n; k++)
        if (!is_version(w[k], 2, 2))
            return fail(st, xasprintf("os \"%s\": \"%s\" is not a kernel series like 6.8", value, w[k]));
    for (size_t k = 0; k < r->n_os; k++)
        if (streq(r->os[k].id, w[0]) && streq(r->os[k].version_id, w[1]))
            return fail(st, xasprintf("os %s %s is listed twice in [rocm %s]", w[0], w[1], r->line));
    bool apt = !streq(w[2], "-");
    rd_release_os *o = ARRAY_APPEND(r->os, r->n_os);
    o->id = xstrdup(w[0]);
    o->version_id = xstrdup(w[1]);
    o->codename = apt ? xstrdup(w[2]) : NULL;
    o->apt_suite = apt ? xstrdup(suite ? suite : w[2]) : NULL;
    o->tree = xstrdup(tree ? tree : w[1]);
    for (size_t k = i + 1; k < n; k++)
        o->kernels = strv_push(o->kernels, xstrdup(w[k]));
    return 1;
}

static const char *const template_names[] = { "rocm", "amdgpu", "major", "os" };

/* A baseurl template: https://HOST/..., placeholders only from
 * template_names, braces paired, no white space. */
static int parse_template(parse_state *st, const char *name, const char *value, char **ret)
{
    if (!startswith(value, "https://") || strpbrk(value, " \t"))
        return fail(st, xasprintf("%s \"%s\" is not an https:// URL", name, value));
    for (const char *p = strchr(value, '{'); p; p = strchr(p + 1, '{')) {
        const char *e = strchr(p, '}');
        bool known = false;
        for (size_t i = 0; e && i < ELEMENTSOF(template_names); i++)
            known |= strlen(template_names[i]) == (size_t)(e - p - 1) &&
                     strncmp(p + 1, template_names[i], (size_t)(e - p - 1)) == 0;
        if (!known)
            return fail(st, xasprintf("%s \"%s\": unknown placeholder at \"%.12s\" (known: {rocm} {amdgpu} {major} "
                                      "{os})", name, value, p));
    }
    if (strchr(value, '}') && !strchr(value, '{'))
        return fail(st, xasprintf("%s \"%s\": a '}' without '{'", name, value));
    free(*ret);
    *ret = xstrdup(value);
    return 1;
}

static int parse_word_list(parse_state *st, const char *name, const char *value, char ***ret)
{
    char **v = strv_split(value, " \t");
    if (!v)
        return fail(st, xasprintf("%s is empty", name));
    strv_free(*ret);
    *ret = v;
    return 1;
}

static int rpm_key(parse_state *st, const char *name, const char *value)
{
    rd_rpm_info *rpm = &st->k->rpm;
    if (streq(name, "host")) {
        if (!*value || strpbrk(value, "/: \t"))
            return fail(st, xasprintf("host \"%s\" is not a host name", value));
        free(rpm->host);
        rpm->host = xstrdup(value);
        return 1;
    }
    if (streq(name, "fingerprint")) {
        uint64_t dummy;
        bool hex = strlen(value) == 40;
        for (size_t i = 0; hex && i < 40; i += 10) {
            char part[11];
            memcpy(part, value + i, 10);
            part[10] = 0;
            hex = safe_atou64(part, 16, &dummy) == 0 && !strpbrk(part, "abcdef");
        }
        if (!hex)
            return fail(st, xasprintf("fingerprint \"%s\" is not 40 upper-case hex digits", value));
        free(rpm->fingerprint);
        rpm->fingerprint = xstrdup(value);
        return 1;
    }
    if (streq(name, "gpgkey"))
        return parse_template(st, name, value, &rpm->gpgkey);
    char ***list = streq(name, "crb-repos") ? &rpm->crb_repos
                 : streq(name, "epel-repos") ? &rpm->epel_repos
                 : streq(name, "crb-packages") ? &rpm->crb_packages
                 : streq(name, "epel-packages") ? &rpm->epel_packages
                 : streq(name, "sles-modules") ? &rpm->sles_modules
                 : streq(name, "sles-repos") ? &rpm->sles_repos : NULL;
    if (!list)
        return fail(st, xasprintf("unknown key \"%s\" in [rpm]", name));
    return parse_word_list(st, name, value, list);
}

static int release_rpm_key(parse_state *st, rd_release *r, const char *name, const char *value)
{
    char **slot = streq(name, "el-rocm") ? &r->el_rocm
                : streq(name, "el-amdgpu") ? &r->el_amdgpu
                : streq(name, "el-graphics") ? &r->el_graphics
                : streq(name, "sles-rocm") ? &r->sles_rocm
                : streq(name, "sles-amdgpu") ? &r->sles_amdgpu : NULL;
    if (slot)
        return parse_template(st, name, value, slot);
    if (!is_version(value, 2, 3))
        return fail(st, xasprintf("amdgpu \"%s\" is not a driver repository version like 30.20.1", value));
    free(r->amdgpu);
    r->amdgpu = xstrdup(value);
    return 1;
}

static bool is_release_rpm_key(const char *name)
{
    return streq(name, "el-rocm") || streq(name, "el-amdgpu") || streq(name, "el-graphics") ||
           streq(name, "sles-rocm") || streq(name, "sles-amdgpu") || streq(name, "amdgpu");
}

/* [apt]: host, key-id, pin-origin. */
static int apt_key(parse_state *st, const char *name, const char *value)
{
    rd_knowledge *k = st->k;
    char **slot = streq(name, "host") ? &k->apt_host
                : streq(name, "key-id") ? &k->apt_key_id
                : streq(name, "pin-origin") ? &k->apt_pin_origin : NULL;
    if (!slot)
        return fail(st, xasprintf("unknown key \"%s\" in [apt]", name));
    if (slot == &k->apt_key_id) {
        uint64_t id;
        if (strlen(value) != 16 || safe_atou64(value, 16, &id) < 0)
            return fail(st, xasprintf("key-id \"%s\" is not a 16-digit hex key id", value));
    }
    free(*slot);
    *slot = xstrdup(value);
    return 1;
}

/* The release of a [rocm X.Y] section: a new one when the section starts,
 * refused when it repeats or comes out of order. */
static int release_section(parse_state *st, const char *section, const char *line, rd_release **ret)
{
    rd_knowledge *k = st->k;
    if (!st->release || !streq(st->release->line, line)) {
        for (size_t i = 0; i < k->n_releases; i++)
            if (streq(k->releases[i].line, line))
                return fail(st, xasprintf("section [%s] appears twice", section));
        if (k->n_releases > 0 && rd_version_compare(k->releases[k->n_releases - 1].line, line) >= 0)
            return fail(st, xasprintf("section [%s] comes after [rocm %s]: releases go oldest first", section,
                                      k->releases[k->n_releases - 1].line));
        st->release = ARRAY_APPEND(k->releases, k->n_releases);
        st->release->line = xstrdup(line);
    }
    *ret = st->release;
    return 1;
}

/* One key of a [rocm X.Y] section. */
static int release_key(parse_state *st, rd_release *r, const char *section, const char *name, const char *value)
{
    if (streq(name, "latest")) {
        const char *rest = startswith(value, r->line);
        if (!is_version(value, 3, 3) || !rest || *rest != '.')
            return fail(st, xasprintf("latest \"%s\" is not a %s.N release", value, r->line));
        free(r->latest);
        r->latest = xstrdup(value);
    } else if (streq(name, "date")) {
        unsigned y, m;
        int end = 0;
        if (sscanf(value, "%4u-%2u%n", &y, &m, &end) != 2 || value[end] || strlen(value) != 7 || y < 2000 ||
            m < 1 || m > 12)
            return fail(st, xasprintf("date \"%s\" is not YYYY-MM", value));
        free(r->date);
        r->date = xstrdup(value);
    } else if (streq(name, "gfx"))
        return parse_gfx_list(st, name, value, &r->gfx);
    else if (streq(name, "deprecated"))
        return parse_gfx_list(st, name, value, &r->deprecated);
    else if (streq(name, "apt-suite")) {
        if (streq(value, "ubuntu"))
            r->apt_suite_ubuntu = true;
        else if (streq(value, "codename"))
            r->apt_suite_ubuntu = false;
        else
            return fail(st, xasprintf("apt-suite must be codename or ubuntu, not \"%s\"", value));
    } else if (streq(name, "dkms")) {
        if (!is_version(value, 2, 3))
            return fail(st, xasprintf("dkms \"%s\" is not a driver version like 6.8.5", value));
        free(r->dkms);
        r->dkms = xstrdup(value);
    } else if (streq(name, "window")) {
        const char *n;
        uint64_t v;
        if ((n = startswith(value, "releases ")) && safe_atou64(n, 10, &v) == 0 && v <= 100)
            r->window_kind = RD_WINDOW_RELEASES;
        else if ((n = startswith(value, "months ")) && safe_atou64(n, 10, &v) == 0 && v <= 1200)
            r->window_kind = RD_WINDOW_MONTHS;
        else
            return fail(st, xasprintf("window must be \"releases N\" or \"months N\", not \"%s\"", value));
        r->window = (uint32_t)v;
    } else if (streq(name, "os"))
        return parse_os_line(st, r, value);
    else if (is_release_rpm_key(name))
        return release_rpm_key(st, r, name, value);
    else
        return fail(st, xasprintf("unknown key \"%s\" in [%s]", name, section));
    return 1;
}

static int support_handler(void *user, const char *section, const char *name, const char *value)
{
    parse_state *st = user;
    if (!name)
        return 1;
    if (streq(section, "table"))
        return table_key(st, name, value);
    if (streq(section, "rpm"))
        return rpm_key(st, name, value);
    if (streq(section, "apt"))
        return apt_key(st, name, value);
    const char *line = startswith(section, "rocm ");
    if (!line || !is_version(line, 2, 2))
        return fail(st, xasprintf("section [%s] is neither [table], [apt], [rpm] nor [rocm X.Y]", section));
    rd_release *r;
    if (release_section(st, section, line, &r) == 0)
        return 0; /* the error is recorded */
    return release_key(st, r, section, name, value);
}

static int load_table(const char *path, parse_state *st, ini_handler h, char **ret_error)
{
    FILE *f = fopen_regular(path);
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
    int r = load_table(path, &st, pci_ids_handler, ret_error);
    free(st.ids_seen[0]);
    free(st.ids_seen[1]);
    return r;
}

int rd_knowledge_load_support(const char *path, rd_knowledge *k, char **ret_error)
{
    parse_state st = { .k = k, .info = &k->support_info };
    int r = load_table(path, &st, support_handler, ret_error);
    if (r < 0)
        return r;
    if (!k->apt_host || !k->apt_key_id || !k->apt_pin_origin) {
        *ret_error = xasprintf("%s: [apt] needs host, key-id and pin-origin", path);
        return -EINVAL;
    }
    if (k->n_releases == 0) {
        *ret_error = xasprintf("%s: no [rocm X.Y] section", path);
        return -EINVAL;
    }
    bool any_rpm = false;
    for (size_t i = 0; i < k->n_releases; i++) {
        const rd_release *rel = &k->releases[i];
        if (!rel->latest || !rel->date || !rel->gfx || !rel->window || rel->n_os == 0) {
            *ret_error = xasprintf("%s: [rocm %s] needs latest, date, gfx, window and at least one os", path,
                                   rel->line);
            return -EINVAL;
        }
        any_rpm |= rel->el_rocm || rel->el_amdgpu || rel->el_graphics || rel->sles_rocm || rel->sles_amdgpu;
    }
    if (any_rpm && (!k->rpm.host || !k->rpm.fingerprint || !k->rpm.gpgkey)) {
        *ret_error = xasprintf("%s: rpm repositories need an [rpm] section with host, fingerprint and gpgkey", path);
        return -EINVAL;
    }
    return 0;
}

/* ---- conf/packages.ini ---- */

int rd_packages_pm_index(const char *pm)
{
    return streq_ptr(pm, "apt") ? 0 : streq_ptr(pm, "dnf") ? 1 : streq_ptr(pm, "zypper") ? 2 : -1;
}

const rd_usecase *rd_knowledge_usecase(const rd_knowledge *k, const char *name)
{
    for (size_t i = 0; i < k->packages.n_usecases; i++)
        if (streq(k->packages.usecases[i].name, name))
            return &k->packages.usecases[i];
    return NULL;
}

char *const *rd_usecase_packages(const rd_usecase *u, const char *pm)
{
    int i = rd_packages_pm_index(pm);
    return i == 0 ? u->apt : i == 1 ? u->dnf : i == 2 ? u->zypper : NULL;
}

static bool package_names_ok(char *const *v, char **ret_bad)
{
    for (size_t i = 0; v && v[i]; i++)
        if (strspn(v[i], "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.+-_{}:") != strlen(v[i]) ||
            v[i][0] == '-') {
            *ret_bad = xstrdup(v[i]);
            return false;
        }
    return true;
}

/* A list key: package names, gfx targets or gfx:kernel pairs. */
static int list_key(parse_state *st, char ***slot, const char *value)
{
    char **v = strv_split(value, " \t,");
    _cleanup_free_ char *bad = NULL;
    if (!package_names_ok(v, &bad)) {
        strv_free(v);
        return fail(st, xasprintf("\"%s\" is not a package name", bad));
    }
    strv_free(*slot);
    *slot = v;
    return 1;
}

static int packages_handler(void *user, const char *section, const char *name, const char *value)
{
    parse_state *st = user;
    rd_packages_table *t = &st->k->packages;
    if (!name)
        return 1;
    if (streq(section, "table"))
        return table_key(st, name, value);
    int pm = rd_packages_pm_index(name);
    if (streq(section, "setup")) {
        if (streq(name, "default"))
            return list_key(st, &t->default_usecases, value);
        return fail(st, xasprintf("unknown key \"%s\" in [setup]", name));
    }
    if (streq(section, "headers") || streq(section, "shadow")) {
        if (pm < 0)
            return fail(st, xasprintf("unknown key \"%s\" in [%s] (apt, dnf or zypper)", name, section));
        return list_key(st, streq(section, "headers") ? &t->headers[pm] : &t->shadow[pm], value);
    }
    if (streq(section, "driver")) {
        if (streq(name, "dkms-gfx"))
            return list_key(st, &t->dkms_gfx, value);
        if (streq(name, "inbox-kernel")) {
            int r = list_key(st, &t->inbox_kernel, value);
            for (size_t i = 0; r && t->inbox_kernel && t->inbox_kernel[i]; i++) {
                const char *colon = strchr(t->inbox_kernel[i], ':');
                unsigned a, b;
                if (!startswith(t->inbox_kernel[i], "gfx") || !colon || sscanf(colon + 1, "%u.%u", &a, &b) != 2)
                    return fail(st, xasprintf("\"%s\" is not TARGET:KERNEL (gfx1100:6.2)", t->inbox_kernel[i]));
            }
            return r;
        }
        return fail(st, xasprintf("unknown key \"%s\" in [driver]", name));
    }
    const char *uc = startswith(section, "usecase ");
    if (!uc || !*uc || strchr(uc, ' '))
        return fail(st, xasprintf("unknown section [%s]", section));
    rd_usecase *u = t->n_usecases ? &t->usecases[t->n_usecases - 1] : NULL;
    if (!u || !streq(u->name, uc)) {
        if (rd_knowledge_usecase(st->k, uc))
            return fail(st, xasprintf("section [%s] appears twice", section));
        u = ARRAY_APPEND(t->usecases, t->n_usecases);
        u->name = xstrdup(uc);
    }
    if (streq(name, "summary"))
        return string_key(st, section, name, value, &u->summary);
    if (streq(name, "since"))
        return string_key(st, section, name, value, &u->since);
    if (streq(name, "driver")) {
        if (parse_bool(value, &u->driver) < 0)
            return fail(st, xasprintf("driver must be yes or no, not \"%s\"", value));
        return 1;
    }
    if (pm >= 0)
        return list_key(st, pm == 0 ? &u->apt : pm == 1 ? &u->dnf : &u->zypper, value);
    return fail(st, xasprintf("unknown key \"%s\" in [%s]", name, section));
}

int rd_knowledge_load_packages(const char *path, rd_knowledge *k, char **ret_error)
{
    parse_state st = { .k = k, .info = &k->packages.info };
    int r = load_table(path, &st, packages_handler, ret_error);
    if (r < 0)
        return r;
    for (size_t i = 0; i < strv_length(k->packages.default_usecases); i++)
        if (!rd_knowledge_usecase(k, k->packages.default_usecases[i])) {
            *ret_error = xasprintf("%s: [setup] default names \"%s\", which has no [usecase %s] section", path,
                                   k->packages.default_usecases[i], k->packages.default_usecases[i]);
            return -EINVAL;
        }
    return 0;
}

static void packages_table_free(rd_packages_table *t)
{
    for (size_t i = 0; i < t->n_usecases; i++) {
        rd_usecase *u = &t->usecases[i];
        free(u->name);
        free(u->summary);
        free(u->since);
        strv_free(u->apt);
        strv_free(u->dnf);
        strv_free(u->zypper);
    }
    free(t->usecases);
    strv_free(t->default_usecases);
    for (size_t i = 0; i < 3; i++) {
        strv_free(t->headers[i]);
        strv_free(t->shadow[i]);
    }
    strv_free(t->dkms_gfx);
    strv_free(t->inbox_kernel);
    free(t->info.name);
    free(t->info.version);
    free(t->info.date);
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
    packages_table_free(&k->packages);
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
    for (size_t i = 0; i < k->n_releases; i++) {
        rd_release *r = &k->releases[i];
        free(r->line);
        free(r->latest);
        free(r->date);
        strv_free(r->gfx);
        strv_free(r->deprecated);
        free(r->dkms);
        for (size_t j = 0; j < r->n_os; j++) {
            free(r->os[j].id);
            free(r->os[j].version_id);
            free(r->os[j].codename);
            free(r->os[j].apt_suite);
            free(r->os[j].tree);
            strv_free(r->os[j].kernels);
        }
        free(r->os);
        free(r->el_rocm);
        free(r->el_amdgpu);
        free(r->el_graphics);
        free(r->sles_rocm);
        free(r->sles_amdgpu);
        free(r->amdgpu);
    }
    free(k->releases);
    free(k->rpm.host);
    free(k->rpm.fingerprint);
    free(k->rpm.gpgkey);
    strv_free(k->rpm.crb_repos);
    strv_free(k->rpm.epel_repos);
    strv_free(k->rpm.crb_packages);
    strv_free(k->rpm.epel_packages);
    strv_free(k->rpm.sles_modules);
    strv_free(k->rpm.sles_repos);
    free(k->apt_host);
    free(k->apt_key_id);
    free(k->apt_pin_origin);
    table_info_free(&k->archs_info);
    table_info_free(&k->pci_ids_info);
    table_info_free(&k->support_info);
    for (size_t i = 0; i < k->n_product_memory; i++)
        free(k->product_memory[i].product);
    free(k->product_memory);
    for (size_t i = 0; i < k->n_product_left_out; i++)
        free(k->product_left_out[i].reason);
    free(k->product_left_out);
    for (size_t i = 0; i < k->n_firmware_bad; i++) {
        free(k->firmware_bad[i].gfx);
        free(k->firmware_bad[i].name);
        free(k->firmware_bad[i].reason);
    }
    free(k->firmware_bad);
    table_info_free(&k->health_info);
    for (size_t i = 0; i < k->n_wheel_families; i++) {
        free(k->wheel_families[i].name);
        strv_free(k->wheel_families[i].gfx);
    }
    free(k->wheel_families);
    free(k->wheel_index);
    free(k->wheel_packages);
    free(k->wheel_release);
    table_info_free(&k->wheels_info);
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

/* "6.2.4-139" belongs to line "6.2": its first two components match. */
static bool in_line(const char *version, const char *line)
{
    const char *rest = startswith(strempty(version), line);
    return rest && (!*rest || *rest == '.' || *rest == '-');
}

const rd_release *rd_knowledge_release(const rd_knowledge *k, const char *version)
{
    for (size_t i = 0; version && i < k->n_releases; i++)
        if (in_line(version, k->releases[i].line))
            return &k->releases[i];
    return NULL;
}

const rd_release *rd_knowledge_release_by_dkms(const rd_knowledge *k, const char *driver_version)
{
    for (size_t i = 0; driver_version && i < k->n_releases; i++)
        if (k->releases[i].dkms && in_line(driver_version, k->releases[i].dkms))
            return &k->releases[i];
    return NULL;
}

static const rd_release_os *find_os_exact(const rd_release *r, const char *id, const char *version_id)
{
    for (size_t i = 0; id && version_id && i < r->n_os; i++)
        if (streq(r->os[i].id, id) && (streq(r->os[i].version_id, version_id) ||
                                       /* "24.04" in the table covers "24.04.2" */
                                       in_line(version_id, r->os[i].version_id)))
            return &r->os[i];
    return NULL;
}

const rd_release_os *rd_release_find_os(const rd_release *r, const char *id, const char *version_id)
{
    const rd_release_os *o = find_os_exact(r, id, version_id);
    if (o || !id)
        return o;
    /* a rebuild the table does not list is judged as its family's reference */
    rd_os_family fam = rd_os_family_of(id, NULL);
    const char *ref = fam == RD_OS_RHEL ? "rhel" : fam == RD_OS_SUSE ? "sles" : NULL;
    if (ref && !streq(id, ref))
        return find_os_exact(r, ref, version_id);
    return NULL;
}

/* ---- rpm repository templates ---- */

static int template_index(const char *p, size_t n)
{
    for (size_t i = 0; i < ELEMENTSOF(template_names); i++)
        if (strlen(template_names[i]) == n && strncmp(p, template_names[i], n) == 0)
            return (int)i;
    return -1;
}

int rd_repo_template_match(const char *tmpl, const char *url, char *ret_values[4])
{
    char *v[4] = { 0 };
    const char *t = tmpl, *u = url;
    int ok = 0;
    while (*t) {
        if (*t == '{') {
            const char *e = strchr(t, '}');
            int idx = e ? template_index(t + 1, (size_t)(e - t - 1)) : -1;
            if (idx < 0)
                goto out;
            size_t n = strcspn(u, "/");
            if (n == 0)
                goto out;
            if (v[idx] && strncmp(v[idx], u, n) != 0)
                goto out;
            if (!v[idx])
                v[idx] = xstrndup(u, n);
            u += n;
            t = e + 1;
            continue;
        }
        if (*t != *u)
            break;
        t++;
        u++;
    }
    /* a trailing slash is optional on either side */
    ok = (!*t && (!*u || streq(u, "/"))) || (streq(t, "/") && !*u);
out:
    if (!ok) {
        for (size_t i = 0; i < 4; i++)
            free(v[i]);
        return 0;
    }
    memcpy(ret_values, v, sizeof v);
    return 1;
}

char *rd_repo_template_expand(const char *tmpl, const char *const values[4])
{
    strbuf b = { 0 };
    for (const char *t = tmpl; *t;) {
        const char *e = *t == '{' ? strchr(t, '}') : NULL;
        int idx = e ? template_index(t + 1, (size_t)(e - t - 1)) : -1;
        if (idx >= 0) {
            strbuf_append(&b, strempty(values[idx]));
            t = e + 1;
        } else
            strbuf_appendn(&b, t++, 1);
    }
    return strbuf_steal(&b);
}

char *rd_rpm_key_name(const char *fingerprint)
{
    size_t n = strlen(strempty(fingerprint));
    if (n < 8)
        return NULL;
    char *s = xasprintf("gpg-pubkey-%s", fingerprint + n - 8);
    for (char *p = s; *p; p++)
        *p = (char)tolower((unsigned char)*p);
    return s;
}

bool rd_release_supports(const rd_release *r, const char *gfx)
{
    return gfx && strv_contains(r->gfx, gfx);
}

bool rd_release_deprecates(const rd_release *r, const char *gfx)
{
    return gfx && strv_contains(r->deprecated, gfx);
}

const char *rd_knowledge_pick_release(const rd_knowledge *k, const char *os_id, const char *os_version_id,
                                      char *const *gfx, size_t n_gfx)
{
    for (size_t i = k->n_releases; i > 0; i--) {
        const rd_release *r = &k->releases[i - 1];
        if (!rd_release_find_os(r, os_id, os_version_id))
            continue;
        bool all = true;
        for (size_t j = 0; all && j < n_gfx; j++)
            all = rd_release_supports(r, gfx[j]) || rd_release_deprecates(r, gfx[j]);
        if (all)
            return r->latest;
    }
    return NULL;
}

const char *rd_knowledge_apt_suite(const rd_knowledge *k, const char *release, const char *codename)
{
    const rd_release *r = rd_knowledge_release(k, release);
    if (!r)
        return NULL;
    if (r->apt_suite_ubuntu)
        return "ubuntu";
    for (size_t i = 0; codename && i < r->n_os; i++)
        if (streq_ptr(r->os[i].codename, codename))
            return r->os[i].apt_suite;
    return NULL;
}
