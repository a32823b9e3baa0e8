/* SPDX-License-Identifier: MIT */
/* conf/packages.ini: what setup installs per use case and family. */
#include "knowledge-private.h"
#include "distro.h"
#include "facts.h"

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
        return kn_fail(st, xasprintf("\"%s\" is not a package name", bad));
    }
    strv_free(*slot);
    *slot = v;
    return 1;
}

static int packages_handler(void *user, const char *section, const char *name, const char *value)
{
    parse_state *st = user;
    rd_packages_table *t = &st->k->packages;
    int pm = rd_packages_pm_index(name);
    if (streq(section, "setup")) {
        if (streq(name, "default"))
            return list_key(st, &t->default_usecases, value);
        return kn_fail(st, xasprintf("unknown key \"%s\" in [setup]", name));
    }
    if (streq(section, "headers") || streq(section, "shadow")) {
        if (pm < 0)
            return kn_fail(st, xasprintf("unknown key \"%s\" in [%s] (apt, dnf or zypper)", name, section));
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
                    return kn_fail(st, xasprintf("\"%s\" is not TARGET:KERNEL (gfx1100:6.2)", t->inbox_kernel[i]));
            }
            return r;
        }
        return kn_fail(st, xasprintf("unknown key \"%s\" in [driver]", name));
    }
    const char *uc = startswith(section, "usecase ");
    if (!uc || !*uc || strchr(uc, ' '))
        return kn_fail(st, xasprintf("unknown section [%s]", section));
    rd_usecase *u = t->n_usecases ? &t->usecases[t->n_usecases - 1] : NULL;
    if (!u || !streq(u->name, uc)) {
        if (rd_knowledge_usecase(st->k, uc))
            return kn_fail(st, xasprintf("section [%s] appears twice", section));
        u = ARRAY_APPEND(t->usecases, t->n_usecases);
        u->name = xstrdup(uc);
    }
    if (streq(name, "summary"))
        return kn_string_key(st, section, name, value, &u->summary);
    if (streq(name, "since"))
        return kn_string_key(st, section, name, value, &u->since);
    if (streq(name, "driver")) {
        if (kn_parse_bool(value, &u->driver) < 0)
            return kn_fail(st, xasprintf("driver must be yes or no, not \"%s\"", value));
        return 1;
    }
    if (pm >= 0)
        return list_key(st, pm == 0 ? &u->apt : pm == 1 ? &u->dnf : &u->zypper, value);
    return kn_fail(st, xasprintf("unknown key \"%s\" in [%s]", name, section));
}

int rd_knowledge_load_packages(const char *path, rd_knowledge *k, char **ret_error)
{
    parse_state st = { .k = k, .info = &k->packages.info };
    int r = kn_load_table(path, &st, packages_handler, ret_error);
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

static const rd_field usecase_fields[] = {
    F(rd_usecase, name, RD_FT_STR), F(rd_usecase, summary, RD_FT_STR), F(rd_usecase, since, RD_FT_STR),
    F(rd_usecase, apt, RD_FT_STRV), F(rd_usecase, dnf, RD_FT_STRV),    F(rd_usecase, zypper, RD_FT_STRV),
};
static SCHEMA(usecase_schema, rd_usecase, usecase_fields);
static const rd_field packages_fields[] = {
    FA(rd_packages_table, usecases, n_usecases, usecase_schema),
    F(rd_packages_table, default_usecases, RD_FT_STRV),
    F(rd_packages_table, headers[0], RD_FT_STRV),
    F(rd_packages_table, headers[1], RD_FT_STRV),
    F(rd_packages_table, headers[2], RD_FT_STRV),
    F(rd_packages_table, shadow[0], RD_FT_STRV),
    F(rd_packages_table, shadow[1], RD_FT_STRV),
    F(rd_packages_table, shadow[2], RD_FT_STRV),
    F(rd_packages_table, dkms_gfx, RD_FT_STRV),
    F(rd_packages_table, inbox_kernel, RD_FT_STRV),
    FS(rd_packages_table, info, kn_table_info_schema),
};
SCHEMA(kn_packages_schema, rd_packages_table, packages_fields);

/* EL and SLES (not Tumbleweed) build amdgpu from newer kernels into their own
 * (RHEL 9's 5.14 serves RDNA3): the version names the base, not amdgpu. */
static bool backports_amdgpu(const rd_os_facts *os)
{
    rd_os_family fam = rd_os_family_facts(os);
    return fam == RD_OS_RHEL || (fam == RD_OS_SUSE && !streq_ptr(os->id, "opensuse-tumbleweed"));
}

rd_kernel_verdict rd_packages_kernel_serves(const rd_packages_table *t, const char *gfx, const rd_os_facts *os,
                                            const char **ret_min)
{
    *ret_min = NULL;
    if (strv_contains(t->dkms_gfx, gfx))
        return RD_KERNEL_DKMS_ONLY;
    size_t gl = strlen(gfx);
    for (size_t k = 0; t->inbox_kernel && t->inbox_kernel[k]; k++)
        if (strncmp(t->inbox_kernel[k], gfx, gl) == 0 && t->inbox_kernel[k][gl] == ':')
            *ret_min = t->inbox_kernel[k] + gl + 1;
    if (!*ret_min)
        return RD_KERNEL_UNLISTED;
    if (rd_kernel_at_least(os, *ret_min) == 1)
        return RD_KERNEL_SERVES;
    return backports_amdgpu(os) ? RD_KERNEL_BACKPORTED : RD_KERNEL_TOO_OLD;
}
