/* SPDX-License-Identifier: MIT */
/* packages: what this host needs installed, through its own package
 * manager (conf/packages.ini): the running kernel's headers when a DKMS
 * driver has to be built, ROCm for the chosen use cases (setup), AMD's
 * kernel driver where the running kernel's amdgpu does not serve the GPUs,
 * and the removal of distribution packages that would shadow AMD's ROCm in
 * /usr. The plan holds the package manager's own dry run: every package
 * with its version and size. Packages already installed (at any version)
 * are left alone, so a second setup plans nothing. */
#include <fcntl.h>
#include <stdio.h>
#include "context.h"
#include "fixes.h"
#include "util.h"

bool rd_fix_has_finding(const rd_fix_input *in, const char *finding_id)
{
    for (size_t i = 0; in->findings && i < in->findings->n; i++)
        if (streq(in->findings->items[i].id, finding_id))
            return true;
    return false;
}

/* The packages of the table's list for this manager, {kernel} expanded. */
static char **expand(char *const *list, const char *kernel)
{
    char **v = NULL;
    for (size_t i = 0; list && list[i]; i++) {
        const char *at = strstr(list[i], "{kernel}");
        v = strv_push(
            v, at ? xasprintf("%.*s%s%s", (int)(at - list[i]), list[i], strempty(kernel), at + strlen("{kernel}"))
                  : xstrdup(list[i]));
    }
    return v;
}

/* Why AMD's driver is needed here (a new string), or NULL when the running
 * kernel's own amdgpu serves every GPU (*ret_why_not says why). The rule is
 * the check's (rd_packages_kernel_serves, driver.kernel-too-old). */
static char *driver_needed(const rd_fix_input *in, char **ret_why_not)
{
    const rd_packages_table *t = &in->knowledge->packages;
    const char *kernel = in->facts->os.kernel_release;
    strbuf served = { 0 };
    for (size_t i = 0; i < in->gpus->n_gpus; i++) {
        const rd_gpu *g = &in->gpus->gpus[i];
        if (!g->gfx[0])
            continue;
        const char *min = NULL;
        rd_kernel_verdict v = rd_packages_kernel_serves(t, g->gfx, &in->facts->os, &min);
        char *why = NULL;
        if (v == RD_KERNEL_DKMS_ONLY)
            why = xasprintf("%s (%s) is an Instinct accelerator: AMD supports it on AMD's amdgpu driver", g->name,
                            g->gfx);
        else if (g->pci && streq_ptr(g->pci->driver, "amdgpu") && g->n_kfd == 0)
            why = xasprintf("%s (%s) is bound to amdgpu but has no KFD node: the running kernel's amdgpu does not "
                            "serve it for compute",
                            g->name, g->gfx);
        else if (v == RD_KERNEL_UNLISTED)
            why = xasprintf("packages.ini names no kernel whose own amdgpu serves %s (%s)", g->name, g->gfx);
        else if (v == RD_KERNEL_BACKPORTED)
            why = xasprintf("the running kernel %s is the distribution's own build with amdgpu backported (its "
                            "version does not say whether it serves %s (%s)), and AMD's instructions for it install "
                            "AMD's driver",
                            strempty(kernel), g->name, g->gfx);
        else if (v == RD_KERNEL_TOO_OLD)
            why = xasprintf("the running kernel %s is older than %s, the first whose amdgpu serves %s (%s)",
                            strempty(kernel), min, g->name, g->gfx);
        if (why) {
            free(served.s);
            return why;
        }
        strbuf_printf(&served, "%s%s needs kernel %s", served.len ? ", " : "", g->gfx, min);
    }
    if (served.len)
        *ret_why_not =
            xasprintf("the running kernel %s's own amdgpu serves the GPUs here (%s)", strempty(kernel), served.s);
    else
        *ret_why_not = xstrdup("no AMD GPU with a known target is visible");
    free(served.s);
    return NULL;
}

/* The use cases setup installs: --usecase, else the table's default. */
static char *const *usecases(const rd_fix_input *in)
{
    return in->usecases ? in->usecases : in->knowledge->packages.default_usecases;
}

bool rd_fix_wants_driver(const rd_fix_input *in)
{
    if (!in->setup || !strv_contains(usecases(in), "driver"))
        return false;
    _cleanup_free_ char *why_not = NULL;
    _cleanup_free_ char *why = driver_needed(in, &why_not);
    return why != NULL;
}

typedef struct {
    char **install;
    char **remove;
    bool driver;      /* amdgpu-dkms is among them, or is installed and needs headers */
    char *driver_why; /* why setup installs AMD's driver */
    strbuf notes;
} wanted;

/* Whether spec (a name, or rpm's NAME-VERSION-RELEASE[.ARCH] such as
 * kernel-devel-5.14.0-570.12.1.el9_6.x86_64) is installed. */
static bool installed_as(const char *installed, const char *spec)
{
    _cleanup_free_ char *v = rd_pkg_list_version(installed, spec);
    if (v)
        return true;
    for (const char *dash = strchr(spec, '-'); dash; dash = strchr(dash + 1, '-')) {
        _cleanup_free_ char *name = xstrndup(spec, (size_t)(dash - spec));
        _cleanup_free_ char *have = rd_pkg_list_version(installed, name);
        const char *evr = have ? strchr(have, ':') : NULL; /* the epoch is not in the spec */
        const char *vr = evr ? evr + 1 : have;
        if (vr && startswith(dash + 1, vr))
            return true;
    }
    return false;
}

static void want_install(wanted *w, const char *installed, char *const *names)
{
    for (size_t i = 0; names && names[i]; i++)
        if (!installed_as(installed, names[i]) && !strv_contains(w->install, names[i]))
            w->install = strv_push(w->install, xstrdup(names[i]));
}

static void note(wanted *w, const char *text)
{
    strbuf_printf(&w->notes, "%s%s", w->notes.len ? "; " : "", text);
}

/* setup: the use cases' packages, the driver by the rule, shadowing
 * distribution packages out. */
static int want_setup(const rd_fix_input *in, const char *pm, const char *installed, wanted *w, char **ret_reason)
{
    const rd_packages_table *t = &in->knowledge->packages;
    char *const *ucs = usecases(in);
    for (size_t i = 0; ucs && ucs[i]; i++) {
        const rd_usecase *u = rd_knowledge_usecase(in->knowledge, ucs[i]);
        if (!u) {
            *ret_reason = xasprintf("packages.ini has no use case \"%s\"", ucs[i]);
            return -EINVAL;
        }
        if (u->driver) {
            _cleanup_free_ char *why_not = NULL;
            _cleanup_free_ char *why = driver_needed(in, &why_not);
            if (!why) {
                _cleanup_free_ char *msg = xasprintf("driver: not installed, %s", why_not);
                note(w, msg);
                continue;
            }
            w->driver = true;
            free(w->driver_why);
            w->driver_why = TAKE_PTR(why);
        }
        want_install(w, installed, rd_usecase_packages(u, pm));
    }
    int col = rd_packages_pm_index(pm);
    for (size_t i = 0; col >= 0 && t->shadow[col] && t->shadow[col][i]; i++) {
        const char *name = t->shadow[col][i];
        _cleanup_free_ char *v = rd_pkg_list_version(installed, name), *err = NULL;
        if (!v)
            continue;
        /* undo must be able to put it back at its version */
        if (rd_pkg_reinstallable(rd_pm_from_name(pm), in->ctx->root, name, v, &err) == 0) {
            _cleanup_free_ char *msg = xasprintf("%s %s stays: no configured repository offers that version, so "
                                                 "undo could not put it back (it was installed from a file); "
                                                 "remove it yourself if it shadows AMD's",
                                                 name, v);
            note(w, msg);
            continue;
        }
        w->remove = strv_push(w->remove, xstrdup(name));
    }
    return 0;
}

static bool dkms_installed(const char *installed)
{
    _cleanup_free_ char *v = rd_pkg_list_version(installed, "amdgpu-dkms");
    return v != NULL;
}

/* The running kernel's headers when a DKMS driver is to be built. */
static void want_headers(const rd_fix_input *in, const char *pm, const char *installed, wanted *w)
{
    const rd_kernel_devel_facts *k = &in->facts->kernel_devel;
    bool needed = w->driver || dkms_installed(installed) || rd_fix_has_finding(in, RD_FINDING(KERNEL_DEVEL_MISSING));
    if (!needed || (k->checked && k->build_dir))
        return;
    int col = rd_packages_pm_index(pm);
    _cleanup_strv_free_ char **h = expand(col >= 0 ? in->knowledge->packages.headers[col] : NULL,
                                          k->kernel ? k->kernel : in->facts->os.kernel_release);
    /* the check's own answer for this family wins over the table's */
    if (k->wanted && !h)
        h = rd_strv_new(k->wanted, NULL);
    want_install(w, installed, h);
    w->driver |= dkms_installed(installed);
}

/* Whether the plan so far writes a repository file of this manager. */
static bool plan_writes_repos(const rd_plan *p, const char *pm)
{
    const char *dir = streq(pm, "apt") ? "/etc/apt/" : streq(pm, "dnf") ? "/etc/yum.repos.d/" : "/etc/zypp/repos.d/";
    for (size_t i = 0; i < p->n_steps; i++)
        for (size_t k = 0; k < p->steps[i].n_actions; k++) {
            const rd_action *a = &p->steps[i].actions[k];
            if (a->path && startswith(a->path, dir))
                return true;
        }
    return false;
}

static void wanted_free(wanted *w)
{
    strv_free(w->install);
    strv_free(w->remove);
    free(w->driver_why);
    free(w->notes.s);
}

static char *title(const rd_fix_input *in, const wanted *w)
{
    strbuf b = { 0 };
    char *const *ucs = usecases(in);
    if (in->setup && ucs) {
        _cleanup_free_ char *list = strv_join(ucs, ", ");
        strbuf_printf(&b, "ROCm packages (%s)", list);
    } else
        strbuf_append(&b, "the running kernel's headers");
    if (w->remove)
        strbuf_append(&b, ", distribution ROCm packages out");
    return strbuf_steal(&b);
}

/* One line of why the package manager's dry run failed, from what it
 * printed: the cause a person acts on, not its whole output. */
static char *dry_run_cause(const char *err)
{
    const char *e = strempty(err);
    if (strstr(e, " did not finish within ")) /* its deadline: the first line says which and where */
        return xstrndup(e, strcspn(e, "\n"));
    if (strstr(e, "Could not resolve") || strstr(e, "Couldn't resolve") || strstr(e, "Temporary failure resolving") ||
        strstr(e, "Failed to connect") || strstr(e, "Connection refused") || strstr(e, "Could not connect"))
        return xstrdup("the repository server cannot be reached from here");
    if (strstr(e, " 404") || strstr(e, "Status code: 404") || strstr(e, "does not have a Release file"))
        return xstrdup("a repository folder answers 404 Not Found (see `rocm-doctor check`: apt.repo-path, "
                       "dnf.repo-path)");
    if (strstr(e, "NO_PUBKEY") || strstr(e, "is not signed") || strstr(e, "GPG error") ||
        strstr(e, "GPG check FAILED") || strstr(e, "Signature verification failed") ||
        strstr(e, "OpenPGP signature verification failed") || strstr(e, "/usr/bin/sqv returned"))
        return xstrdup("the repository's signature cannot be checked (its key is missing or another)");
    if (strstr(e, "Could not get lock") || strstr(e, "is locked by another process"))
        return xstrdup("another package manager holds the lock");
    /* the package manager's own error line (apt "E: ...", dnf "Error: ...",
     * zypper "Problem: ..."), else the first line of its output */
    const char *first = NULL;
    static const char *const marks[] = { "\nE: ", "): E: ", "Error: ", "Problem: " };
    for (size_t i = 0; i < ELEMENTSOF(marks) && !first; i++)
        if ((first = strstr(e, marks[i])))
            first += marks[i][0] == '\n' ? 1 : marks[i][0] == ')' ? 3 : 0;
    if (!first) {
        const char *colon = strstr(e, "): ");
        first = colon ? colon + 3 : e;
    }
    _cleanup_free_ char *line = xstrndup(first, strcspn(first, "\n"));
    const char *l = strstrip(line);
    return str_cut_words(*l ? l : "the package manager failed", 160);
}

/* The plan's packages when the dry run cannot run: every package it means to
 * install or remove, unresolved, and the cause; the command line and the
 * package manager's output are the detail (--verbose, the JSON). */
static char *unresolved_reason(const rd_plan *p, const char *pmn, const wanted *w, const char *err)
{
    strbuf b = { 0 };
    _cleanup_free_ char *cause = dry_run_cause(err);
    /* AMD's repository that has the packages was refused above: say so */
    bool repo_refused = false;
    for (size_t i = 0; i < p->n_not_planned && !repo_refused; i++)
        repo_refused = p->not_planned[i].refused && streq(p->not_planned[i].fix, pmn);
    strbuf_printf(&b, "the %s dry run could not run (%s", pmn, cause);
    if (repo_refused)
        strbuf_printf(&b, "; AMD's repository is not planned, see %s above", pmn);
    strbuf_append(&b, "), so no version is resolved; the plan would");
    if (w->install) {
        _cleanup_free_ char *list = strv_join(w->install, " ");
        strbuf_printf(&b, " install %s", list);
    }
    if (w->remove) {
        _cleanup_free_ char *list = strv_join(w->remove, " ");
        strbuf_printf(&b, "%s remove %s", w->install ? " and" : "", list);
    }
    strbuf_append(&b, " (unresolved)");
    return strbuf_steal(&b);
}

/* The host's package manager, when this fix can use it here. */
static int host_pm(const rd_fix_input *in, rd_pm *ret, char **ret_reason)
{
    rd_os_family fam = rd_os_family_facts(&in->facts->os);
    *ret = rd_pm_of_family(fam);
    if (*ret == RD_PM_NONE) {
        *ret_reason = xasprintf("no package manager is known for %s", strempty(in->facts->os.id));
        return -EOPNOTSUPP;
    }
    if (in->setup && fam == RD_OS_FEDORA) {
        *ret_reason = xstrdup("Fedora packages ROCm itself (`sudo dnf install rocm-hip rocminfo`); AMD's "
                              "repositories are not the supported path there");
        return -EOPNOTSUPP;
    }
    if (!in->knowledge->packages.n_usecases) {
        *ret_reason = xasprintf("%s/packages.ini is missing: nothing says what to install", rd_data_dir());
        return -ENOENT;
    }
    return 0;
}

static int packages_plan(const rd_fix_input *in, rd_plan *p, char **ret_reason)
{
    rd_pm pm;
    int r = host_pm(in, &pm, ret_reason);
    if (r < 0)
        return r;
    const char *pmn = rd_pm_name(pm);
    _cleanup_free_ char *installed = NULL;
    r = rd_pkg_installed(pm, in->ctx->root, in->ctx->root_fd, &installed, ret_reason);
    if (r < 0)
        return r;
    wanted w = { 0 };
    if (in->setup && (r = want_setup(in, pmn, installed, &w, ret_reason)) < 0) {
        wanted_free(&w);
        return r;
    }
    want_headers(in, pmn, installed, &w);
    if (!w.install && !w.remove) {
        /* nothing to install: why the driver is not is no failure */
        wanted_free(&w);
        return 0;
    }
    _cleanup_free_ char *ov = NULL;
    if ((r = rd_plan_overlay(p, in, pm, &ov, ret_reason)) < 0) {
        wanted_free(&w);
        return r;
    }
    rd_pkg_changes c = { 0 };
    _cleanup_free_ char *err = NULL;
    r = rd_pkg_dry_run(pm, in->ctx->root, ov, w.install, w.remove, &c, &err);
    rd_overlay_remove(ov);
    if (r < 0) {
        *ret_reason = unresolved_reason(p, pmn, &w, err);
        rd_plan_detail(p, TAKE_PTR(err));
        wanted_free(&w);
        return r;
    }
    _cleanup_free_ char *t = title(in, &w);
    rd_pkg_set *set = xcalloc(1, sizeof *set);
    set->pm = pm;
    set->install = TAKE_PTR(w.install);
    set->remove = TAKE_PTR(w.remove);
    set->refresh = plan_writes_repos(p, pmn);
    set->lock_timeout_s = in->lock_timeout_s > 0 ? in->lock_timeout_s
                          : in->config           ? in->config->package_lock_timeout_s
                                                 : 300;
    set->changes = c;
    if (pm != RD_PM_APT)
        set->import_key = xstrdup(RD_RPM_KEY_FILE);
    rd_step *s = rd_plan_add_step(p, "packages", w.driver ? RD_EFFECT_REBOOT : RD_EFFECT_NOW, "%s", t);
    rd_step_address_findings(s, in, "packages");
    if (in->setup && rd_fix_has_finding(in, RD_FINDING(ROCM_NOT_INSTALLED)))
        rd_step_address(s, RD_FINDING(ROCM_NOT_INSTALLED));
    rd_step_packages(s, set);
    if (w.driver) {
        const char *kernel = in->facts->os.kernel_release;
        /* DKMS builds on install; for headers that arrive after the driver
         * this builds now (under --root: at the tree's first boot) */
        if (kernel)
            rd_step_command(s, rd_strv_new("dkms", "autoinstall", "-k", kernel, NULL), NULL);
        if (rd_fix_has_finding(in, RD_FINDING(DRIVER_KERNEL_TOO_OLD)))
            rd_step_address(s, RD_FINDING(DRIVER_KERNEL_TOO_OLD));
        s->note = xasprintf("AMD's amdgpu driver because %s; reboot so that it is the one loaded; the boot "
                            "check (rocm-doctord --once) then proves it with a GPU kernel%s%s",
                            w.driver_why ? w.driver_why : "amdgpu-dkms is installed and needs the headers",
                            w.notes.len ? "; " : "", strempty(w.notes.s));
    } else if (w.notes.len)
        s->note = strbuf_steal(&w.notes);
    wanted_free(&w);
    return 0;
}

const rd_fix rd_fix_packages = {
    .id = "packages",
    .title = "packages through the host's own package manager",
    .on_request = true,
    .setup = true,
    .plan = packages_plan,
};
