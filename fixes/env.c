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

static int env_plan(const rd_fix_input *in, rd_plan *p, char **ret_reason)
{
    const rd_gpu_view *v = in->gpus;
    var vars[8];
    size_t n = 0;
    strbuf skipped = { 0 };

    size_t n_discrete = 0, n_integrated = 0;
    for (size_t i = 0; i < v->n_gpus; i++) {
        n_discrete += !v->gpus[i].integrated;
        n_integrated += v->gpus[i].integrated;
    }
    n = 2; /* the build targets come first, once the overrides are known */
    /* per-node overrides, same family only */
    _cleanup_strv_free_ char **overridden = NULL, **overridden_gfx = NULL; /* GPUs given one, their target */
    for (size_t i = 0; i < v->n_gpus && n < ELEMENTSOF(vars) - 1; i++) {
        const rd_gpu *g = &v->gpus[i];
        bool wrong = finding_on(in, "arch.override-wrong-family", g->pci->address);
        if (g->integrated || (!finding_on(in, "arch.no-kernels", g->pci->address) && !wrong))
            continue;
        /* for missing kernels, only a value naming another target helps */
        unsigned a, b, c;
        char ov_gfx[16] = "";
        if (g->arch && g->arch->override && sscanf(g->arch->override, "%u.%u.%u", &a, &b, &c) == 3)
            (void)rd_gfx_name((uint64_t)a * 10000 + b * 100 + c, ov_gfx, sizeof ov_gfx);
        if (!g->arch || !g->arch->override || g->n_kfd == 0 || (!wrong && streq(ov_gfx, g->gfx))) {
            strbuf_printf(&skipped, "%sno override is known for %s", skipped.len ? "; " : "", g->gfx);
            continue;
        }
        if (!in->config || !in->config->allow_overrides) {
            strbuf_printf(&skipped, "%sno HSA_OVERRIDE_GFX_VERSION for %s: overrides are off (allow_overrides in "
                                    "the configuration)",
                          skipped.len ? "; " : "", g->gfx);
            continue;
        }
        for (size_t k = 0; k < g->n_kfd && n < ELEMENTSOF(vars) - 1; k++)
            vars[n++] = (var){ xasprintf("HSA_OVERRIDE_GFX_VERSION_%" PRId64, g->kfd[k]->node_id),
                               xstrdup(g->arch->override) };
        overridden = strv_push(overridden, xstrdup(g->pci->address));
        overridden_gfx = strv_push(overridden_gfx, xstrdup(ov_gfx[0] ? ov_gfx : g->gfx));
    }

    /* build targets: the discrete GPUs, or the integrated ones when alone;
     * a GPU given an override runs the override target's code */
    strbuf targets = { 0 };
    _cleanup_strv_free_ char **seen = NULL;
    for (size_t i = 0; i < v->n_gpus; i++) {
        const rd_gpu *g = &v->gpus[i];
        const char *gfx = g->gfx;
        for (size_t k = 0; overridden && overridden[k]; k++)
            if (streq(overridden[k], g->pci->address))
                gfx = overridden_gfx[k];
        if (!gfx[0] || (n_discrete > 0 && g->integrated) || strv_contains(seen, gfx))
            continue;
        seen = strv_push(seen, xstrdup(gfx));
        strbuf_printf(&targets, "%s%s", targets.len ? ";" : "", gfx);
    }
    if (!targets.len) {
        for (size_t i = 2; i < n; i++) {
            free(vars[i].key);
            free(vars[i].value);
        }
        free(skipped.s);
        *ret_reason = xstrdup("no AMD GPU with a known gfx target is present");
        return -ENODEV;
    }
    char *t = strbuf_steal(&targets);
    vars[0] = (var){ xstrdup("PYTORCH_ROCM_ARCH"), xstrdup(t) };
    vars[1] = (var){ xstrdup("AMDGPU_TARGETS"), t };

    /* hide an integrated GPU from ROCm when a discrete one is there */
    if (n_integrated > 0 && n_discrete > 0) {
        strbuf ids = { 0 };
        bool complete = true;
        for (size_t i = 0; i < v->n_gpus; i++) {
            if (v->gpus[i].integrated)
                continue;
            char *u = gpu_uuid(&v->gpus[i]);
            if (!u) {
                complete = false;
                continue;
            }
            strbuf_printf(&ids, "%s%s", ids.len ? "," : "", u);
            free(u);
        }
        if (complete && ids.len)
            vars[n++] = (var){ xstrdup("ROCR_VISIBLE_DEVICES"), strbuf_steal(&ids) };
        else {
            free(ids.s);
            strbuf_printf(&skipped, "%sROCR_VISIBLE_DEVICES not set: a discrete GPU has no unique id to name it by; "
                                    "disable the integrated GPU in the firmware setup instead",
                          skipped.len ? "; " : "");
        }
    }

    strbuf envd = { 0 }, prof = { 0 };
    strbuf_append(&envd, RD_FIX_HEADER_LINE "# ROCm settings for the GPUs of this host (systemd user sessions).\n");
    strbuf_append(&prof, RD_FIX_HEADER_LINE "# ROCm settings for the GPUs of this host (login shells).\n");
    for (size_t i = 0; i < n; i++) {
        strbuf_printf(&envd, "%s=%s\n", vars[i].key, vars[i].value);
        strbuf_printf(&prof, "export %s='%s'\n", vars[i].key, vars[i].value);
    }
    _cleanup_free_ char *envd_text = strbuf_steal(&envd);
    _cleanup_free_ char *prof_text = strbuf_steal(&prof);
    for (size_t i = 0; i < n; i++) {
        free(vars[i].key);
        free(vars[i].value);
    }

    rd_step *s = rd_plan_add_step(p, "env", RD_EFFECT_RELOGIN, "ROCm environment for the GPUs present");
    /* missing kernels are addressed only by an override for that GPU */
    for (size_t i = 0; in->findings && i < in->findings->n; i++) {
        const rd_finding *f = &in->findings->items[i];
        if (!streq_ptr(f->fix, "env") || (in->only && !rd_fix_named(in, "env") && !rd_fix_named(in, f->id)))
            continue;
        if (streq(f->id, "arch.no-kernels") && !(f->gpu && strv_contains(overridden, f->gpu)))
            continue;
        rd_step_address(s, f->id);
    }
    if (!s->findings && !rd_fix_named(in, "env")) {
        /* nothing this fix can do for the findings that named it */
        free(envd_text);
        free(prof_text);
        envd_text = prof_text = NULL;
        p->n_steps--;
        free(s->fix);
        free(s->title);
        *s = (rd_step){ 0 };
        *ret_reason = skipped.len ? strbuf_steal(&skipped) : xstrdup("nothing to change for these findings");
        return 0;
    }
    int r = rd_step_write(p, s, in, ENV_D_FILE, envd_text, strlen(envd_text), 0644, ret_reason);
    if (r >= 0)
        r = rd_step_write(p, s, in, PROFILE_FILE, prof_text, strlen(prof_text), 0644, ret_reason);
    if (r >= 0)
        r = plan_disable(in, p, s, &skipped, ret_reason);
    if (r < 0) {
        free(skipped.s);
        return r;
    }
    if (rd_step_changes(s))
        s->note = xstrdup("log out and back in for the new environment to count");
    rd_plan_drop_empty_step(p);
    if (skipped.len)
        *ret_reason = strbuf_steal(&skipped);
    return 0;
}

const rd_fix rd_fix_env = {
    .id = "env",
    .title = "ROCm environment variables",
    .on_request = true,
    .plan = env_plan,
};
