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

static char *package_name(parse_state *st, const char *name, const char *v)
{
    if (strspn(v, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.+-_{}:") != strlen(v) || v[0] == '-')
        return xasprintf("\"%s\" is not a package name", v);
    return NULL;
}

/* [driver] inbox-kernel: "gfx1100:6.2", a target and the first kernel series. */
static char *target_kernel(parse_state *st, const char *name, const char *v)
{
    char *e = package_name(st, name, v);
    const char *colon = strchr(v, ':');
    unsigned a, b;
    if (!e && (!startswith(v, "gfx") || !colon || sscanf(colon + 1, "%u.%u", &a, &b) != 2))
        e = xasprintf("\"%s\" is not TARGET:KERNEL (gfx1100:6.2)", v);
    return e;
}

static int usecase_row(parse_state *st, const char *section, const char *uc, void **ret)
{
    rd_packages_table *t = &st->k->packages;
    if (!*uc || strchr(uc, ' '))
        return -1;
    rd_usecase *u = t->n_usecases ? &t->usecases[t->n_usecases - 1] : NULL;
    if (!u || !streq(u->name, uc)) {
        if (rd_knowledge_usecase(st->k, uc))
            return kn_fail(st, xasprintf("section [%s] appears twice", section));
        u = ARRAY_APPEND(t->usecases, t->n_usecases);
        u->name = xstrdup(uc);
    }
    *ret = u;
    return 1;
}

static int packages_of(parse_state *st, const char *section, const char *arg, void **ret)
{
    *ret = &st->k->packages;
    return 1;
}

#define LIST(n, s, f, chk)                                                                                             \
    {                                                                                                                  \
        n, KN_WORDS, offsetof(s, f), chk, NULL, true                                                                   \
    }
static const kn_key setup_keys[] = { LIST("default", rd_packages_table, default_usecases, package_name) };
static const kn_key headers_keys[] = {
    LIST("apt", rd_packages_table, headers[0], package_name),
    LIST("dnf", rd_packages_table, headers[1], package_name),
    LIST("zypper", rd_packages_table, headers[2], package_name),
};
static const kn_key shadow_keys[] = {
    LIST("apt", rd_packages_table, shadow[0], package_name),
    LIST("dnf", rd_packages_table, shadow[1], package_name),
    LIST("zypper", rd_packages_table, shadow[2], package_name),
};
static const kn_key driver_keys[] = {
    LIST("dkms-gfx", rd_packages_table, dkms_gfx, package_name),
    LIST("inbox-kernel", rd_packages_table, inbox_kernel, target_kernel),
};
static const kn_key usecase_keys[] = {
    KN_STR("summary", rd_usecase, summary),
    KN_STR("since", rd_usecase, since),
    { "driver", KN_BOOL, offsetof(rd_usecase, driver) },
    LIST("apt", rd_usecase, apt, package_name),
    LIST("dnf", rd_usecase, dnf, package_name),
    LIST("zypper", rd_usecase, zypper, package_name),
};
static const kn_section packages_sections[] = {
    { "setup", false, packages_of, KN_KEYS(setup_keys) },
    { "headers", false, packages_of, KN_KEYS(headers_keys), " (apt, dnf or zypper)" },
    { "shadow", false, packages_of, KN_KEYS(shadow_keys), " (apt, dnf or zypper)" },
    { "driver", false, packages_of, KN_KEYS(driver_keys) },
    { "usecase ", true, usecase_row, KN_KEYS(usecase_keys) },
};
static const kn_rows packages_rows = { KN_KEYS(packages_sections) };

int rd_knowledge_load_packages(const char *path, rd_knowledge *k, char **ret_error)
{
    parse_state st = { .k = k, .rows_of = &packages_rows, .info = &k->packages.info };
    int r = kn_load_table(path, &st, ret_error);
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
