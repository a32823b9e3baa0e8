/* SPDX-License-Identifier: MIT */
/* env: build targets for the GPUs present (PYTORCH_ROCM_ARCH,
 * AMDGPU_TARGETS), a per-node HSA_OVERRIDE_GFX_VERSION_<N> of the GPU's own
 * family for a GPU the install has no kernels for (only when the
 * configuration allows overrides), and ROCR_VISIBLE_DEVICES by GPU UUID to
 * hide an integrated GPU next to a discrete one. Written to an
 * environment.d drop-in (systemd user sessions) and a profile.d drop-in
 * (login shells). A line of /etc/environment or /etc/profile.d that the
 * environment checks name as wrong (a cross-family or global override, a
 * target list without this host's GPUs, devices that hide every GPU) is
 * commented out, since a later file or the process wins over the drop-ins.
 * Never a global override. */
#include <inttypes.h>
#include "fixes.h"
#include "util.h"

#define ENV_D_FILE "/etc/environment.d/50-rocm-doctor.conf"
#define PROFILE_FILE "/etc/profile.d/rocm-doctor.sh"
#define DISABLED_MARK "# disabled by rocm-doctor (undo with rocm-doctor undo): "

typedef struct {
    char *key, *value;
} var;

static bool finding_on(const rd_fix_input *in, const char *id, const char *gpu)
{
    for (size_t i = 0; in->findings && i < in->findings->n; i++) {
        const rd_finding *f = &in->findings->items[i];
        if (streq(f->id, id) && (!gpu || streq_ptr(f->gpu, gpu)))
            return true;
    }
    return false;
}

static char *gpu_uuid(const rd_gpu *g)
{
    if (g->drm && g->drm->unique_id && *g->drm->unique_id)
        return xasprintf("GPU-%s", g->drm->unique_id);
    uint64_t id;
    if (g->n_kfd > 0 && rd_kfd_prop(g->kfd[0], "unique_id", &id) && id != 0)
        return xasprintf("GPU-%" PRIx64, id);
    return NULL;
}

/* Whether a selected finding of this fix names this definition (its
 * evidence starts with "SOURCE:LINE: NAME="). */
static bool definition_flagged(const rd_fix_input *in, const rd_env_var *v)
{
    _cleanup_free_ char *prefix = xasprintf("%s:%" PRId64 ": %s=", v->source, v->line, v->name);
    for (size_t i = 0; in->findings && i < in->findings->n; i++) {
        const rd_finding *f = &in->findings->items[i];
        if (!streq_ptr(f->fix, "env") || f->severity < RD_SEV_WARNING)
            continue;
        if (in->only && !rd_fix_named(in, "env") && !rd_fix_named(in, f->id))
            continue;
        for (size_t k = 0; f->evidence && f->evidence[k]; k++)
            if (startswith(f->evidence[k], prefix))
                return true;
    }
    return false;
}

/* The text with the given 1-based lines commented out. */
static char *disable_lines(const char *text, size_t size, const int64_t *lines, size_t n_lines)
{
    strbuf b = { 0 };
    int64_t no = 1;
    for (size_t i = 0; i < size; no++) {
        const char *e = memchr(text + i, '\n', size - i);
        size_t len = e ? (size_t)(e - (text + i)) : size - i;
        for (size_t k = 0; k < n_lines; k++)
            if (lines[k] == no) {
                strbuf_append(&b, DISABLED_MARK);
                break;
            }
        strbuf_appendn(&b, text + i, len);
        if (e)
            strbuf_append(&b, "\n");
        i += len + (e ? 1 : 0);
    }
    return b.s ? strbuf_steal(&b) : xstrdup("");
}

/* Comments out the flagged definitions in files under /etc. */
static int plan_disable(const rd_fix_input *in, rd_plan *p, rd_step *s, strbuf *skipped, char **ret_reason)
{
    const rd_env_facts *e = &in->facts->env;
    _cleanup_strv_free_ char **done = NULL;
    for (size_t i = 0; i < e->n_vars; i++) {
        const rd_env_var *v = &e->vars[i];
        if (!v->source || v->line <= 0 || strv_contains(done, v->source) || !definition_flagged(in, v))
            continue;
        if (!startswith(v->source, "/etc/") || streq(v->source, ENV_D_FILE) || streq(v->source, PROFILE_FILE)) {
            if (!streq(v->source, ENV_D_FILE) && !streq(v->source, PROFILE_FILE))
                strbuf_printf(skipped, "%s%s:%" PRId64 " sets %s: change it there by hand", skipped->len ? "; " : "",
                              v->source, v->line, v->name);
            continue;
        }
        done = strv_push(done, xstrdup(v->source));
        int64_t *lines = NULL;
        size_t n_lines = 0;
        for (size_t k = i; k < e->n_vars; k++)
            if (streq_ptr(e->vars[k].source, v->source) && e->vars[k].line > 0 && definition_flagged(in, &e->vars[k]))
                *ARRAY_APPEND(lines, n_lines) = e->vars[k].line;
        rd_snapshot *snap;
        int r = rd_plan_snapshot(p, in, v->source, &snap, ret_reason);
        if (r < 0 || !snap->exists) {
            free(lines);
            if (r < 0)
                return r;
            continue;
        }
        _cleanup_free_ char *next = disable_lines(snap->content, snap->size, lines, n_lines);
        free(lines);
        r = rd_step_write(p, s, in, v->source, next, strlen(next), snap->mode, ret_reason);
        if (r < 0)
            return r;
    }
    return 0;
}

/* The variables the drop-ins set, and what could not be set and why. */
typedef struct {
    var vars[8];
    size_t n; /* vars[0] and vars[1] are the build targets, set last */
    strbuf skipped;
    char **overridden, **overridden_gfx; /* GPUs given an override, their target */
} env_values;

static void env_values_free(env_values *ev)
{
    for (size_t i = 0; i < ev->n; i++) {
        free(ev->vars[i].key);
        free(ev->vars[i].value);
    }
    free(ev->skipped.s);
    strv_free(ev->overridden);
    strv_free(ev->overridden_gfx);
}

/* Per-node overrides, same family only, for GPUs a finding names. */
static void add_overrides(const rd_fix_input *in, env_values *ev)
{
    const rd_gpu_view *v = in->gpus;
    for (size_t i = 0; i < v->n_gpus && ev->n < ELEMENTSOF(ev->vars) - 1; i++) {
        const rd_gpu *g = &v->gpus[i];
        bool wrong = finding_on(in, RD_FINDING(ARCH_OVERRIDE_WRONG_FAMILY), g->pci->address);
        if (g->integrated || (!finding_on(in, RD_FINDING(ARCH_NO_KERNELS), g->pci->address) && !wrong))
            continue;
        /* for missing kernels, only a value naming another target helps */
        unsigned a, b, c;
        char ov_gfx[16] = "";
        if (g->arch && g->arch->override && sscanf(g->arch->override, "%u.%u.%u", &a, &b, &c) == 3)
            (void)rd_gfx_name((uint64_t)a * 10000 + b * 100 + c, ov_gfx, sizeof ov_gfx);
        if (!g->arch || !g->arch->override || g->n_kfd == 0 || (!wrong && streq(ov_gfx, g->gfx))) {
            strbuf_printf(&ev->skipped, "%sno override is known for %s", ev->skipped.len ? "; " : "", g->gfx);
            continue;
        }
        if (!in->config || !in->config->allow_overrides) {
            strbuf_printf(&ev->skipped,
                          "%sno HSA_OVERRIDE_GFX_VERSION for %s: overrides are off (allow_overrides "
                          "in the configuration)",
                          ev->skipped.len ? "; " : "", g->gfx);
            continue;
        }
        for (size_t k = 0; k < g->n_kfd && ev->n < ELEMENTSOF(ev->vars) - 1; k++)
            ev->vars[ev->n++] =
                (var){ xasprintf("HSA_OVERRIDE_GFX_VERSION_%" PRId64, g->kfd[k]->node_id), xstrdup(g->arch->override) };
        ev->overridden = strv_push(ev->overridden, xstrdup(g->pci->address));
        ev->overridden_gfx = strv_push(ev->overridden_gfx, xstrdup(ov_gfx[0] ? ov_gfx : g->gfx));
    }
}

/* Build targets: the discrete GPUs, or the integrated ones when alone; a
 * GPU given an override runs the override target's code. False when no
 * GPU has a known target. */
static bool add_targets(const rd_fix_input *in, env_values *ev)
{
    const rd_gpu_view *v = in->gpus;
    size_t n_discrete = 0;
    for (size_t i = 0; i < v->n_gpus; i++)
        n_discrete += !v->gpus[i].integrated;
    strbuf targets = { 0 };
    _cleanup_strv_free_ char **seen = NULL;
    for (size_t i = 0; i < v->n_gpus; i++) {
        const rd_gpu *g = &v->gpus[i];
        const char *gfx = g->gfx;
        for (size_t k = 0; ev->overridden && ev->overridden[k]; k++)
            if (streq(ev->overridden[k], g->pci->address))
                gfx = ev->overridden_gfx[k];
        if (!gfx[0] || (n_discrete > 0 && g->integrated) || strv_contains(seen, gfx))
            continue;
        seen = strv_push(seen, xstrdup(gfx));
        strbuf_printf(&targets, "%s%s", targets.len ? ";" : "", gfx);
    }
    if (!targets.len)
        return false;
    char *t = strbuf_steal(&targets);
    ev->vars[0] = (var){ xstrdup("PYTORCH_ROCM_ARCH"), xstrdup(t) };
    ev->vars[1] = (var){ xstrdup("AMDGPU_TARGETS"), t };
    return true;
}

/* Hides an integrated GPU from ROCm when a discrete one is there. */
static void add_visible_devices(const rd_fix_input *in, env_values *ev)
{
    const rd_gpu_view *v = in->gpus;
    size_t n_discrete = 0, n_integrated = 0;
    for (size_t i = 0; i < v->n_gpus; i++) {
        n_discrete += !v->gpus[i].integrated;
        n_integrated += v->gpus[i].integrated;
    }
    if (n_integrated == 0 || n_discrete == 0)
        return;
    strbuf ids = { 0 };
    bool complete = true;
    for (size_t i = 0; i < v->n_gpus; i++) {
        if (v->gpus[i].integrated)
            continue;
        _cleanup_free_ char *u = gpu_uuid(&v->gpus[i]);
        if (!u)
            complete = false;
        else
            strbuf_printf(&ids, "%s%s", ids.len ? "," : "", u);
    }
    if (complete && ids.len) {
        ev->vars[ev->n++] = (var){ xstrdup("ROCR_VISIBLE_DEVICES"), strbuf_steal(&ids) };
        return;
    }
    free(ids.s);
    strbuf_printf(&ev->skipped,
                  "%sROCR_VISIBLE_DEVICES not set: a discrete GPU has no unique id to name it by; "
                  "disable the integrated GPU in the firmware setup instead",
                  ev->skipped.len ? "; " : "");
}

/* The environment.d and profile.d texts. */
static void render_env(const env_values *ev, char **ret_envd, char **ret_prof)
{
    strbuf envd = { 0 }, prof = { 0 };
    strbuf_append(&envd, RD_FIX_HEADER_LINE "# ROCm settings for the GPUs of this host (systemd user sessions).\n");
    strbuf_append(&prof, RD_FIX_HEADER_LINE "# ROCm settings for the GPUs of this host (login shells).\n");
    for (size_t i = 0; i < ev->n; i++) {
        strbuf_printf(&envd, "%s=%s\n", ev->vars[i].key, ev->vars[i].value);
        strbuf_printf(&prof, "export %s='%s'\n", ev->vars[i].key, ev->vars[i].value);
    }
    *ret_envd = strbuf_steal(&envd);
    *ret_prof = strbuf_steal(&prof);
}

/* The findings the step addresses: missing kernels only by an override
 * for that GPU. */
static void address_env_findings(const rd_fix_input *in, rd_step *s, char *const *overridden)
{
    for (size_t i = 0; in->findings && i < in->findings->n; i++) {
        const rd_finding *f = &in->findings->items[i];
        if (!streq_ptr(f->fix, "env") || (in->only && !rd_fix_named(in, "env") && !rd_fix_named(in, f->id)))
            continue;
        if (streq(f->id, RD_FINDING(ARCH_NO_KERNELS)) && !(f->gpu && strv_contains(overridden, f->gpu)))
            continue;
        rd_step_address(s, f->id);
    }
}

static int env_plan(const rd_fix_input *in, rd_plan *p, char **ret_reason)
{
    _cleanup_(env_values_free) env_values ev = { .n = 2 }; /* the build targets come first */
    add_overrides(in, &ev);
    if (!add_targets(in, &ev)) {
        *ret_reason = xstrdup("no AMD GPU with a known gfx target is present");
        return -ENODEV;
    }
    add_visible_devices(in, &ev);
    _cleanup_free_ char *envd = NULL, *prof = NULL;
    render_env(&ev, &envd, &prof);

    rd_step *s = rd_plan_add_step(p, "env", RD_EFFECT_RELOGIN, "ROCm environment for the GPUs present");
    address_env_findings(in, s, ev.overridden);
    if (!s->findings && !rd_fix_named(in, "env")) {
        /* nothing this fix can do for the findings that named it */
        rd_plan_drop_empty_step(p);
        *ret_reason = ev.skipped.len ? strbuf_steal(&ev.skipped) : xstrdup("nothing to change for these findings");
        return 0;
    }
    int r = rd_step_write(p, s, in, ENV_D_FILE, envd, strlen(envd), 0644, ret_reason);
    if (r >= 0)
        r = rd_step_write(p, s, in, PROFILE_FILE, prof, strlen(prof), 0644, ret_reason);
    if (r >= 0)
        r = plan_disable(in, p, s, &ev.skipped, ret_reason);
    if (r < 0)
        return r;
    if (rd_step_changes(s))
        s->note = xstrdup("log out and back in for the new environment to count");
    rd_plan_drop_empty_step(p);
    if (ev.skipped.len)
        *ret_reason = strbuf_steal(&ev.skipped);
    return 0;
}

const rd_fix rd_fix_env = {
    .id = "env",
    .title = "ROCm environment variables",
    .on_request = true,
    .plan = env_plan,
};
