/* SPDX-License-Identifier: MIT */
/* conf/wheels.ini: the wheel index and its gfx families. */
#include "knowledge-private.h"

#include <strings.h>

/* [family NAME]: a row each, in the order they come. */
static int family_row(parse_state *st, const char *section, const char *fam, void **ret)
{
    rd_knowledge *k = st->k;
    if (!*fam || strchr(fam, ' '))
        return -1;
    rd_wheel_family *w = k->n_wheel_families ? &k->wheel_families[k->n_wheel_families - 1] : NULL;
    if (!w || !streq(w->name, fam)) {
        for (size_t i = 0; i < k->n_wheel_families; i++)
            if (strcasecmp(k->wheel_families[i].name, fam) == 0)
                return kn_fail(st, xasprintf("section [%s] appears twice", section));
        w = ARRAY_APPEND(k->wheel_families, k->n_wheel_families);
        w->name = xstrdup(fam);
    }
    *ret = w;
    return 1;
}

static char *gfx_name(parse_state *st, const char *name, const char *v)
{
    if (startswith(v, "gfx") && strlen(v) >= 6 && strlen(v) <= 8)
        return NULL;
    return xasprintf("\"%s\" is not a gfx target name", v);
}

static const kn_key index_keys[] = {
    KN_STR("url", rd_knowledge, wheel_index),
    KN_STR("packages", rd_knowledge, wheel_packages),
    KN_STR("release", rd_knowledge, wheel_release),
};
static const kn_key family_keys[] = {
    { "gfx", KN_WORDS, offsetof(rd_wheel_family, gfx), gfx_name },
    { "index", KN_BOOL, offsetof(rd_wheel_family, index) },
};
static const kn_section wheels_sections[] = {
    { "index", false, kn_whole, KN_KEYS(index_keys) },
    { "family ", true, family_row, KN_KEYS(family_keys) },
};
static const kn_rows wheels_rows = { KN_KEYS(wheels_sections) };

int rd_knowledge_load_wheels(const char *path, rd_knowledge *k, char **ret_error)
{
    parse_state st = { .k = k, .rows_of = &wheels_rows, .info = &k->wheels_info };
    int r = kn_load_table(path, &st, ret_error);
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
    (void)rd_knowledge_need(k, RD_KT_WHEELS, NULL);
    for (size_t i = 0; name && i < k->n_wheel_families; i++)
        if (strcasecmp(k->wheel_families[i].name, name) == 0)
            return &k->wheel_families[i];
    return NULL;
}

const rd_wheel_family *rd_knowledge_wheel_family_for(const rd_knowledge *k, const char *gfx)
{
    (void)rd_knowledge_need(k, RD_KT_WHEELS, NULL);
    for (size_t i = 0; gfx && i < k->n_wheel_families; i++)
        if (k->wheel_families[i].index && strv_contains(k->wheel_families[i].gfx, gfx))
            return &k->wheel_families[i];
    return NULL;
}

static const rd_field family_fields[] = {
    F(rd_wheel_family, name, RD_FT_STR),
    F(rd_wheel_family, gfx, RD_FT_STRV),
};
SCHEMA(kn_wheel_family_schema, rd_wheel_family, family_fields);
