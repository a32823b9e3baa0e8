/* SPDX-License-Identifier: MIT */
/* conf/wheels.ini: the wheel index and its gfx families. */
#include "knowledge-private.h"

#include <strings.h>

/* conf/wheels.ini: [index] url/packages/release and [family NAME] rows
 * of gfx targets. */
static int wheels_handler(void *user, const char *section, const char *name, const char *value)
{
    parse_state *st = user;
    rd_knowledge *k = st->k;
    if (streq(section, "index"))
        return kn_string_key(st, section, name, value,
                             streq(name, "url")        ? &k->wheel_index
                             : streq(name, "packages") ? &k->wheel_packages
                             : streq(name, "release")  ? &k->wheel_release
                                                       : NULL);
    const char *fam = startswith(section, "family ");
    if (!fam || !*fam || strchr(fam, ' '))
        return kn_fail(st, xasprintf("unknown section [%s]", section));
    rd_wheel_family *w = k->n_wheel_families ? &k->wheel_families[k->n_wheel_families - 1] : NULL;
    if (!w || !streq(w->name, fam)) {
        if (rd_knowledge_wheel_family(k, fam))
            return kn_fail(st, xasprintf("section [%s] appears twice", section));
        w = ARRAY_APPEND(k->wheel_families, k->n_wheel_families);
        w->name = xstrdup(fam);
    }
    if (streq(name, "gfx")) {
        char **v = strv_split(value, " \t");
        for (size_t i = 0; v && v[i]; i++)
            if (!startswith(v[i], "gfx") || strlen(v[i]) < 6 || strlen(v[i]) > 8) {
                _cleanup_free_ char *bad = xstrdup(v[i]);
                strv_free(v);
                return kn_fail(st, xasprintf("\"%s\" is not a gfx target name", bad));
            }
        strv_free(w->gfx);
        w->gfx = v;
    } else if (streq(name, "index")) {
        if (kn_parse_bool(value, &w->index) < 0)
            return kn_fail(st, xasprintf("index must be yes or no, not \"%s\"", value));
    } else
        return kn_fail(st, xasprintf("unknown key \"%s\" in [%s]", name, section));
    return 1;
}

int rd_knowledge_load_wheels(const char *path, rd_knowledge *k, char **ret_error)
{
    parse_state st = { .k = k, .info = &k->wheels_info };
    int r = kn_load_table(path, &st, wheels_handler, ret_error);
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
