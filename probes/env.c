/* SPDX-License-Identifier: MIT */
/* Environment: the variables that steer ROCm (architecture overrides, device
 * visibility, build targets), from the process environment and from the files
 * that set them at every login, judged against the GPUs present. The parsers
 * are in env-parse.c; the GPU agents in the core's GPU view (gpus.c). */
#include "env.h"

#include <inttypes.h>
#include <pwd.h>
#include "passwd.h"
#include "util.h"

extern char **environ;

#define OVERRIDE "HSA_OVERRIDE_GFX_VERSION"

/* ---- gather ---- */

static int home_of(const rd_ctx *ctx, const char *name, int64_t uid, char **ret_name, char **ret_home)
{
    if (!rd_ctx_has_root(ctx)) {
        struct passwd pw, *res = NULL;
        char buf[16384];
        int r =
            name ? getpwnam_r(name, &pw, buf, sizeof buf, &res) : getpwuid_r((uid_t)uid, &pw, buf, sizeof buf, &res);
        if (r != 0 || !res)
            return -ENOENT;
        *ret_name = xstrdup(pw.pw_name);
        *ret_home = xstrdup(pw.pw_dir);
        return 0;
    }
    passwd_record rec;
    int r = passwd_find_file(ctx->root_fd, "/etc/passwd", rd_root_how(ctx), name, uid, &rec);
    if (r < 0)
        return r;
    *ret_name = TAKE_PTR(rec.name);
    *ret_home = TAKE_PTR(rec.home);
    return 0;
}

/* Line-based: read whole, no size limit. An unreadable file is evidence
 * (facts.unreadable), except another user's home files refused to a check
 * that runs without root. */
static void read_env_file(const rd_ctx *ctx, rd_facts *facts, const char *path, rd_env_syntax syntax)
{
    rd_env_facts *e = &facts->env;
    _cleanup_free_ char *text = NULL;
    int r = rd_root_read_file(ctx, path, 0, &text);
    bool home = e->home && startswith(path, e->home);
    if (!(home && (r == -EACCES || r == -EPERM)))
        rd_facts_note_unreadable(facts, path, r,
                                 "the ROCm variables it may set (HSA_OVERRIDE_GFX_VERSION, "
                                 "*_VISIBLE_DEVICES, PATH)");
    if (r < 0)
        return;
    e->files = strv_push(e->files, xstrdup(path));
    rd_env_parse_text(text, syntax, path, &e->vars, &e->n_vars);
}

static void read_env_dir(const rd_ctx *ctx, rd_facts *facts, const char *dir, const char *suffix, rd_env_syntax syntax)
{
    _cleanup_strv_free_ char **names = NULL;
    if (rd_root_list_dir(ctx, dir, suffix, &names) < 0)
        return;
    for (char **n = names; n && *n; n++) {
        _cleanup_free_ char *path = xasprintf("%s/%s", dir, *n);
        read_env_file(ctx, facts, path, syntax);
    }
}

static void env_gather(const rd_ctx *ctx, rd_facts *facts)
{
    rd_env_facts *e = &facts->env;
    for (char **p = environ; p && *p; p++) {
        const char *eq = strchr(*p, '=');
        if (!eq)
            continue;
        _cleanup_free_ char *name = xstrndup(*p, (size_t)(eq - *p));
        if (rd_env_is_relevant(name))
            rd_env_add_var(&e->vars, &e->n_vars, *p, (size_t)(eq - *p), xstrdup(eq + 1), RD_ENV_PROCESS, 0);
    }

    /* the order a login applies them: PAM, the user manager, then the shell */
    read_env_file(ctx, facts, "/etc/environment", RD_ENV_SYNTAX_PAM);
    read_env_dir(ctx, facts, "/etc/environment.d", ".conf", RD_ENV_SYNTAX_SYSTEMD);
    read_env_dir(ctx, facts, "/etc/profile.d", ".sh", RD_ENV_SYNTAX_SHELL);

    const char *name = NULL;
    for (size_t i = 0; i < facts->access.n_users && !name; i++)
        if (!facts->access.users[i].error)
            name = facts->access.users[i].name;
    if (!name)
        name = ctx->user;
    int r = home_of(ctx, name, ctx->uid, &e->user, &e->home);
    if (r < 0 && r != -ENOENT)
        rd_facts_note_unreadable(facts, "/etc/passwd", r, "the user's home directory and its profile files");
    if (r < 0) {
        e->error = name ? xasprintf("user \"%s\" not found in %s/etc/passwd", name, root_prefix(ctx->root))
                        : xasprintf("uid %u not found in the user database", (unsigned)ctx->uid);
        return;
    }
    if (!e->home || e->home[0] != '/') {
        e->error = xasprintf("%s has no absolute home directory", e->user);
        return;
    }
    static const char *const user_files[] = { ".config/environment.d", ".profile", ".bash_profile", ".bashrc" };
    for (size_t i = 0; i < ELEMENTSOF(user_files); i++) {
        _cleanup_free_ char *path = xasprintf("%s%s%s", e->home, endswith(e->home, "/") ? "" : "/", user_files[i]);
        if (i == 0)
            read_env_dir(ctx, facts, path, ".conf", RD_ENV_SYNTAX_SYSTEMD);
        else
            read_env_file(ctx, facts, path, RD_ENV_SYNTAX_SHELL);
    }
}

/* ---- assess ---- */

static void describe_var(rd_finding *fd, const rd_env_var *v)
{
    _cleanup_free_ char *where = rd_env_where(v);
    rd_finding_evidence(fd, "%s: %s=%s", where, v->name, v->value);
}

static const char *family_of(const rd_arch *a)
{
    return a && a->family ? a->family : NULL;
}

/* GPUs that a ROCR_VISIBLE_DEVICES definition (from any source) leaves out
 * while keeping another: hidden on purpose, so what an override does to them
 * does not matter (the common setup: an override for the dGPU, the iGPU
 * hidden by UUID). A definition that hides every GPU is reported on its own
 * and marks nothing. */
static bool *rocr_hidden(const rd_env_facts *e, const rd_agent *agents, size_t n_agents)
{
    bool *hidden = xcalloc(n_agents + 1, sizeof(bool));
    _cleanup_free_ bool *keep = xcalloc(n_agents + 1, sizeof(bool));
    for (size_t i = 0; i < e->n_vars; i++) {
        if (!streq(e->vars[i].name, "ROCR_VISIBLE_DEVICES") ||
            rd_visible_devices_apply(e->vars[i].value, agents, n_agents, keep, NULL) == 0)
            continue;
        for (size_t k = 0; k < n_agents; k++)
            hidden[k] |= !keep[k];
    }
    return hidden;
}

/* arch.override-invalid: one finding for every override that does not parse
 * (r: what rd_gfx_override_parse returned). */
static void report_invalid(rd_finding **invalid, const rd_env_var *v, int r, rd_findings *out)
{
    unsigned ma, mi, st;
    if (!*invalid) {
        *invalid = rd_finding_add(out, RD_FINDING(ARCH_OVERRIDE_INVALID), RD_SEV_ERROR, NULL,
                                  "%s is not a valid MAJOR.MINOR.STEP value: the ROCm runtime does not start", v->name);
        rd_finding_remedy(*invalid,
                          "Remove the line, or set the value of the GPU's own family in the "
                          "per-node form (e.g. %s_1=10.3.0 for an RDNA2 GPU at KFD node 1).",
                          OVERRIDE);
        rd_finding_set_fix(*invalid, "env");
    }
    _cleanup_free_ char *where = rd_env_where(v);
    _cleanup_free_ char *trimmed = xstrdup(v->value);
    bool blanks = r == -EINVAL && rd_gfx_override_parse(strstrip(trimmed), &ma, &mi, &st) == 0;
    rd_finding_evidence(*invalid, "%s: %s=\"%s\": %s", where, v->name, v->value,
                        r == -ERANGE ? "out of range (major at most 63, minor and step at most 255)"
                        : blanks     ? "white space or a CR after the number (in /etc/environment a # comment "
                                       "ends the value, the blanks before it stay)"
                                     : "not three decimal numbers separated by dots");
}

/* Whether a per-node override from the same source as the global one `v`
 * covers the node of `a` (the per-node variable wins for its node). */
static bool global_shadowed(const rd_env_facts *e, const rd_env_var *v, const rd_agent *a)
{
    bool shadowed = false;
    for (size_t j = 0; j < e->n_vars && !shadowed; j++) {
        int64_t nn;
        shadowed =
            rd_env_override_node(e->vars[j].name, &nn) && nn == a->node_id && streq(e->vars[j].source, v->source);
    }
    return shadowed;
}

/* arch.override-global-with-igpu: the global override `v` reaches the
 * integrated GPU `a` while a visible discrete GPU is present. */
static void assess_global_igpu(rd_finding **global_igpu, const rd_env_var *v, const rd_agent *a, const rd_agent *agents,
                               size_t n_agents, const bool *hidden, rd_findings *out)
{
    bool has_dgpu = false;
    for (size_t j = 0; j < n_agents; j++)
        has_dgpu |= !agents[j].integrated && !hidden[j];
    if (!has_dgpu)
        return;
    if (!*global_igpu) {
        *global_igpu =
            rd_finding_add(out, RD_FINDING(ARCH_OVERRIDE_GLOBAL_WITH_IGPU), RD_SEV_WARNING, a->pci_address,
                           "A global %s also applies to the integrated GPU (%s, %s)", OVERRIDE, a->name, a->gfx);
        rd_finding_remedy(*global_igpu,
                          "Replace the global variable with the per-node form for the GPU that "
                          "needs it (%s_<KFD node>=M.m.s), or hide the integrated GPU with "
                          "ROCR_VISIBLE_DEVICES=<UUID of the discrete GPU>.",
                          OVERRIDE);
        rd_finding_set_fix(*global_igpu, "env");
    }
    describe_var(*global_igpu, v);
}

/* arch.override-wrong-family: the override `v` (parsed: ma.mi.st, target
 * `target` when `named`, its arch `tarch`) makes GPU `a` pretend to be a
 * target of another family. */
static void assess_wrong_family(const rd_env_var *v, const rd_agent *a, unsigned ma, unsigned mi, unsigned st,
                                const char *target, bool named, const rd_arch *tarch, rd_findings *out)
{
    if (!*a->gfx || streq(a->gfx, target))
        return;
    const char *gfam = family_of(a->arch), *ofam = family_of(tarch);
    bool wrong;
    if (gfam && ofam)
        wrong = !streq(gfam, ofam);
    else
        wrong = a->arch && a->arch->gfx_target_version / 10000 != ma;
    if (!wrong)
        return;
    rd_finding *fd = rd_finding_add(out, RD_FINDING(ARCH_OVERRIDE_WRONG_FAMILY), RD_SEV_ERROR, a->pci_address,
                                    "%s=%u.%u.%u makes %s (%s, %s) pretend to be %s of another family", v->name, ma, mi,
                                    st, a->name, a->gfx, strempty(gfam), named ? target : "an unknown target");
    describe_var(fd, v);
    rd_finding_evidence(fd, "KFD node %" PRId64 ": %s, family %s; %s is family %s", a->node_id, a->gfx, strempty(gfam),
                        named ? target : "the override", ofam ? ofam : "unknown");
    if (a->arch && a->arch->override)
        rd_finding_remedy(fd,
                          "Code built for another family fails with HSA_STATUS_ERROR_INVALID_ISA. "
                          "Use this GPU's family value, per node: %s_%" PRId64 "=%s.",
                          OVERRIDE, a->node_id, a->arch->override);
    else
        rd_finding_remedy(fd,
                          "Code built for another family fails with HSA_STATUS_ERROR_INVALID_ISA. "
                          "Remove the override for this GPU (%s has no family value to borrow); "
                          "use a ROCm build with kernels for %s.",
                          a->gfx, a->gfx);
    rd_finding_set_fix(fd, "env");
}

static void assess_overrides(const rd_assess_input *in, const rd_agent *agents, size_t n_agents, rd_findings *out)
{
    const rd_env_facts *e = &in->facts->env;
    rd_finding *invalid = NULL, *global_igpu = NULL;
    _cleanup_free_ bool *hidden = rocr_hidden(e, agents, n_agents);
    for (size_t i = 0; i < e->n_vars; i++) {
        const rd_env_var *v = &e->vars[i];
        int64_t node = -1;
        bool global = streq(v->name, OVERRIDE);
        if (!global && !rd_env_override_node(v->name, &node))
            continue;
        unsigned ma, mi, st;
        int r = rd_gfx_override_parse(v->value, &ma, &mi, &st);
        if (r < 0) {
            report_invalid(&invalid, v, r, out);
            continue;
        }
        char target[16] = "";
        bool named = rd_gfx_name((uint64_t)ma * 10000 + mi * 100 + st, target, sizeof target);
        const rd_arch *tarch = named ? rd_knowledge_arch(in->knowledge, target) : NULL;

        for (size_t k = 0; k < n_agents; k++) {
            const rd_agent *a = &agents[k];
            if ((!global && a->node_id != node) || hidden[k])
                continue;
            if (global) {
                if (global_shadowed(e, v, a))
                    continue;
                if (a->integrated)
                    assess_global_igpu(&global_igpu, v, a, agents, n_agents, hidden, out);
            }
            assess_wrong_family(v, a, ma, mi, st, target, named, tarch, out);
        }
    }
}

static void assess_visible(const rd_assess_input *in, const rd_agent *agents, size_t n_agents, rd_findings *out)
{
    const rd_env_facts *e = &in->facts->env;
    if (n_agents == 0)
        return;
    _cleanup_free_ bool *keep = xcalloc(n_agents, sizeof(bool));
    rd_finding *fd = NULL;
    for (size_t i = 0; i < e->n_vars; i++) {
        const rd_env_var *v = &e->vars[i];
        if (!streq(v->name, "ROCR_VISIBLE_DEVICES") && !streq(v->name, "HIP_VISIBLE_DEVICES") &&
            !streq(v->name, "CUDA_VISIBLE_DEVICES"))
            continue;
        _cleanup_free_ char *bad = NULL;
        size_t kept = rd_visible_devices_apply(v->value, agents, n_agents, keep, &bad);
        /* HIP numbers the devices ROCr left visible */
        bool hip = !streq(v->name, "ROCR_VISIBLE_DEVICES");
        size_t limit = n_agents;
        if (hip && streq(v->source, RD_ENV_PROCESS)) {
            /* the GPUs ROCr keeps, whichever they are: a UUID in the HIP
             * variable must be looked for among those, not among the first
             * `limit` of all GPUs */
            _cleanup_free_ rd_agent *vis = NULL;
            for (size_t j = 0; j < e->n_vars; j++)
                if (streq(e->vars[j].name, "ROCR_VISIBLE_DEVICES") && streq(e->vars[j].source, RD_ENV_PROCESS)) {
                    _cleanup_free_ bool *k2 = xcalloc(n_agents, sizeof(bool));
                    limit = rd_visible_devices_apply(e->vars[j].value, agents, n_agents, k2, NULL);
                    free(vis);
                    vis = xcalloc(n_agents, sizeof(rd_agent));
                    for (size_t k = 0, m = 0; k < n_agents; k++)
                        if (k2[k])
                            vis[m++] = agents[k];
                }
            if (limit < n_agents) {
                free(bad);
                bad = NULL;
                kept = rd_visible_devices_apply(v->value, vis, limit, keep, &bad);
            }
        }
        if (kept > 0)
            continue;
        if (!fd) {
            fd = rd_finding_add(out, RD_FINDING(ENV_VISIBLE_DEVICES_HIDES_ALL), RD_SEV_ERROR, NULL,
                                "A visible-devices variable hides every GPU from ROCm programs");
            rd_finding_remedy(fd,
                              "Unset the variable, or list devices that exist: indices 0-%zu in KFD node order, "
                              "or UUIDs (rocminfo shows them).",
                              n_agents - 1);
            rd_finding_set_fix(fd, "env");
        }
        _cleanup_free_ char *where = rd_env_where(v);
        if (bad)
            rd_finding_evidence(fd, "%s: %s=%s: \"%s\" names no GPU (%zu %s visible%s)", where, v->name, v->value, bad,
                                limit, limit == 1 ? "GPU is" : "GPUs are",
                                limit < n_agents ? " after ROCR_VISIBLE_DEVICES" : "");
        else
            rd_finding_evidence(fd, "%s: %s=\"%s\": selects no GPU", where, v->name, v->value);
    }
    if (fd) {
        strbuf b = { 0 };
        for (size_t k = 0; k < n_agents; k++) {
            char uuid[32];
            rd_agent_uuid(&agents[k], uuid, sizeof uuid);
            strbuf_printf(&b, "%s%zu=%s%s%s", k ? ", " : "", k, agents[k].gfx, *uuid ? " " : "", uuid);
        }
        rd_finding_evidence(fd, "GPUs present: %s", b.s);
        free(b.s);
    }
}

static bool gfx_in_list(char *const *list, const char *gfx)
{
    for (char *const *l = list; l && *l; l++)
        if (strcasecmp(*l, gfx) == 0)
            return true;
    return false;
}

void rd_env_override_target(const rd_env_facts *e, int64_t node_id, char *buf, size_t size)
{
    buf[0] = 0;
    for (int pass = 0; pass < 2 && !buf[0]; pass++)
        for (size_t i = 0; i < e->n_vars && !buf[0]; i++) {
            int64_t nn;
            bool match = pass == 0 ? rd_env_override_node(e->vars[i].name, &nn) && nn == node_id
                                   : streq(e->vars[i].name, OVERRIDE);
            unsigned ma, mi, st;
            if (match && rd_gfx_override_parse(e->vars[i].value, &ma, &mi, &st) == 0)
                (void)rd_gfx_name((uint64_t)ma * 10000 + mi * 100 + st, buf, size);
        }
}

static void assess_targets(const rd_assess_input *in, const rd_agent *agents, size_t n_agents, rd_findings *out)
{
    const rd_env_facts *e = &in->facts->env;
    bool has_dgpu = false;
    for (size_t k = 0; k < n_agents; k++)
        has_dgpu |= !agents[k].integrated;
    for (size_t i = 0; i < e->n_vars; i++) {
        const rd_env_var *v = &e->vars[i];
        if (!streq(v->name, "PYTORCH_ROCM_ARCH") && !streq(v->name, "AMDGPU_TARGETS") && !streq(v->name, "GPU_TARGETS"))
            continue;
        _cleanup_strv_free_ char **list = rd_gfx_list_split(v->value);
        _cleanup_strv_free_ char **missing = NULL, **want = NULL;
        for (size_t k = 0; k < n_agents; k++) {
            const rd_agent *a = &agents[k];
            /* an integrated GPU next to a discrete one is usually left out on purpose */
            if (!*a->gfx || (a->integrated && has_dgpu))
                continue;
            char over[16];
            rd_env_override_target(e, a->node_id, over, sizeof over);
            const char *need = *over ? over : a->gfx;
            if (!strv_contains(want, need))
                want = strv_push(want, xstrdup(need));
            if (gfx_in_list(list, a->gfx) || (*over && gfx_in_list(list, over)) || strv_contains(missing, need))
                continue;
            missing = strv_push(missing, xstrdup(need));
        }
        if (!missing)
            continue;
        _cleanup_free_ char *m = strv_join(missing, ", "), *w = strv_join(want, ";");
        rd_finding *fd =
            rd_finding_add(out, RD_FINDING(ENV_PYTORCH_ARCH_MISMATCH), RD_SEV_WARNING, NULL,
                           "%s leaves out %s: code built with it has no kernels for this host's GPU", v->name, m);
        describe_var(fd, v);
        rd_finding_remedy(fd, "Build for the GPUs present: %s=\"%s\" (add the targets you also need elsewhere).",
                          v->name, w);
        rd_finding_set_fix(fd, "env");
    }
}

static void env_assess(const rd_assess_input *in, rd_findings *out)
{
    rd_agent *agents = NULL;
    size_t n_agents = 0;
    if (in->facts->env.n_vars == 0)
        return;
    rd_agents_build(in->facts, in->gpus, in->knowledge, &agents, &n_agents);
    if (in->gpus->n_gpus > 0 || n_agents > 0) {
        assess_overrides(in, agents, n_agents, out);
        assess_visible(in, agents, n_agents, out);
        assess_targets(in, agents, n_agents, out);
    }
    free(agents);
}

static const char *const env_findings[] = {
    RD_FINDING(ARCH_OVERRIDE_INVALID),          RD_FINDING(ARCH_OVERRIDE_WRONG_FAMILY),
    RD_FINDING(ARCH_OVERRIDE_GLOBAL_WITH_IGPU), RD_FINDING(ENV_VISIBLE_DEVICES_HIDES_ALL),
    RD_FINDING(ENV_PYTORCH_ARCH_MISMATCH),      NULL,
};

/* clang-format off */
const rd_probe rd_probe_env = {
    .id = "env",
    .title = "Environment variables that steer ROCm",
    .flags = 0,
    .findings = env_findings,
    .areas = RD_STRV("env"),
    .reads = (const rd_probe_input[]){
        { "/etc/passwd", false },
        { "/etc/environment", false },
        { "/etc/environment.d", true },
        { "/etc/profile.d", true },
        { NULL, false },
    },
    .gather = env_gather,
    .assess = env_assess,
};
/* clang-format on */
