/* SPDX-License-Identifier: MIT */
/* The daemon's decisions, as pure functions: which probes an event
 * concerns, how the findings changed, what a journal entry says. */
#include <errno.h>
#include "daemon.h"
#include "facts-json.h"
#include "probe.h"
#include "util.h"

static const rd_probe *probe_by_id(const char *id)
{
    for (size_t i = 0; i < rd_probe_registry.n_gather; i++)
        if (streq(rd_probe_registry.gather[i]->id, id))
            return rd_probe_registry.gather[i];
    return NULL;
}

const char *const *rd_daemon_probe_areas(const char *probe_id)
{
    const rd_probe *p = probe_by_id(probe_id);
    return p ? p->areas : NULL;
}

rd_probe_mask rd_daemon_probes_by_id(const char *ids)
{
    rd_probe_mask m = 0;
    const char *p = ids;
    while (p && *p) {
        while (*p == ' ')
            p++;
        size_t len = strcspn(p, " ");
        for (size_t i = 0; i < rd_probe_registry.n_gather && i < 63; i++)
            if (len && strlen(rd_probe_registry.gather[i]->id) == len &&
                strncmp(rd_probe_registry.gather[i]->id, p, len) == 0)
                m |= (rd_probe_mask)1 << i;
        p += len;
    }
    return m;
}

/* Whether the probe at index i of the gather order runs for mask. */
static bool regathered(size_t i, rd_probe_mask mask, int level)
{
    const rd_probe *p = rd_probe_registry.gather[i];
    return (mask & ((rd_probe_mask)1 << i)) && p->gather && !((p->flags & RD_PROBE_LEVEL2) && level < 2);
}

void rd_daemon_regather(const rd_ctx *ctx, rd_facts *facts, rd_probe_mask mask, int level)
{
    bool full = false;
    for (size_t i = 0; i < rd_probe_registry.n_gather && i < 63; i++)
        if (regathered(i, mask, level) && !rd_probe_registry.gather[i]->areas)
            full = true;
    if (full) {
        rd_facts fresh;
        rd_facts_init(&fresh);
        rd_gather(&rd_probe_registry, ctx, &fresh);
        if (level >= 2)
            rd_gather_level2(&rd_probe_registry, ctx, &fresh);
        rd_facts_free(facts);
        *facts = fresh;
        return;
    }
    for (size_t i = 0; i < rd_probe_registry.n_gather && i < 63; i++) {
        const rd_probe *p = rd_probe_registry.gather[i];
        if (!regathered(i, mask, level))
            continue;
        for (const char *const *a = p->areas; *a; a++)
            (void)rd_facts_reset_area(facts, *a);
        p->gather(ctx, facts);
    }
}

static unsigned long hex_or(const char *s, unsigned long fallback)
{
    uint64_t v;
    if (!s || safe_atou64(s, 16, &v) < 0)
        return fallback;
    return (unsigned long)v;
}

rd_probe_mask rd_daemon_uevent_mask(const char *subsystem, const char *action, rd_uevent_prop_fn prop, void *userdata)
{
    if (!subsystem || !action)
        return 0;
    if (streq(subsystem, "pci")) {
        /* Only display and accelerator functions, and anything of AMD's:
         * a NIC or an NVMe drive coming and going changes no finding. */
        unsigned long cls = hex_or(prop(userdata, "PCI_CLASS"), 0);
        const char *id = prop(userdata, "PCI_ID");
        bool amd = id && startswith(id, "1002:");
        if ((cls >> 16) != 0x03 && (cls >> 16) != 0x12 && !amd)
            return 0;
    } else if (streq(subsystem, "drm")) {
        /* The DRM core's "device wedged" event (WEDGED=none after a reset
         * amdgpu recovered from, rebind/bus-reset when it did not): the
         * health area and what a lost GPU changes. */
        if (prop(userdata, "WEDGED"))
            return rd_daemon_uevent_probes("drm/WEDGED");
        /* A monitor plugged into a connector: HOTPLUG=1 without RESET. */
        const char *hotplug = prop(userdata, "HOTPLUG");
        const char *reset = prop(userdata, "RESET");
        if (streq(action, "change") && hotplug && streq(hotplug, "1") && !(reset && streq(reset, "1")))
            return 0;
    }
    return rd_daemon_uevent_probes(subsystem);
}

rd_probe_mask rd_daemon_uevent_probes(const char *subsystem)
{
    rd_probe_mask m = 0;
    for (size_t i = 0; i < rd_probe_registry.n_gather && i < 63; i++) {
        const char *const *u = rd_probe_registry.gather[i]->uevents;
        if (u && (!subsystem || strv_contains((char *const *)u, subsystem)))
            m |= (rd_probe_mask)1 << i;
    }
    return m;
}

char **rd_daemon_uevent_subsystems(void)
{
    char **v = NULL;
    for (size_t i = 0; i < rd_probe_registry.n_gather; i++)
        for (const char *const *u = rd_probe_registry.gather[i]->uevents; u && *u; u++) {
            /* "drm/WEDGED": the subsystem is what comes before the slash */
            char *sub = xstrndup(*u, strcspn(*u, "/"));
            if (strv_contains(v, sub))
                free(sub);
            else
                v = strv_push(v, sub);
        }
    return v;
}

/* The configuration's own files; the probes' come from their descriptors. */
static const rd_probe_input config_inputs[] = {
    { "/etc/rocm-doctor/rocm-doctor.conf", false },
    { "/etc/rocm-doctor/conf.d", true },
};

static void add_spec(rd_watch_spec **specs, size_t *n, const rd_probe_input *in, rd_probe_mask mask)
{
    for (size_t k = 0; k < *n; k++)
        if (streq((*specs)[k].path, in->path) && (*specs)[k].is_dir == in->is_dir) {
            (*specs)[k].mask |= mask;
            return;
        }
    rd_watch_spec *s = ARRAY_APPEND(*specs, *n);
    *s = (rd_watch_spec){ .path = in->path, .is_dir = in->is_dir, .mask = mask };
}

size_t rd_daemon_watch_specs(rd_watch_spec **ret)
{
    rd_watch_spec *specs = NULL;
    size_t n = 0;
    for (size_t i = 0; i < rd_probe_registry.n_gather && i < 63; i++)
        for (const rd_probe_input *in = rd_probe_registry.gather[i]->reads; in && in->path; in++)
            add_spec(&specs, &n, in, (rd_probe_mask)1 << i);
    for (size_t i = 0; i < ELEMENTSOF(config_inputs); i++)
        add_spec(&specs, &n, &config_inputs[i], RD_MASK_CONFIG);
    *ret = specs;
    return n;
}

bool rd_daemon_watch_matches(const char *spec_path, bool is_dir, const char *changed)
{
    size_t n = strlen(changed);
    if (streq(spec_path, changed))
        return true;
    /* a directory on the way was created, removed or renamed */
    if (strncmp(spec_path, changed, n) == 0 && spec_path[n] == '/')
        return true;
    if (!is_dir)
        return false;
    /* an entry of the drop-in directory (not deeper) */
    size_t m = strlen(spec_path);
    return strncmp(changed, spec_path, m) == 0 && changed[m] == '/' && !strchr(changed + m + 1, '/');
}

void rd_daemon_message_id(const char *finding_id, char ret[static 33])
{
    /* FNV-1a, 128 bits, over "rocm-doctor:" and the finding id; then the
     * version and variant bits of an RFC 9562 version-8 UUID. */
    const unsigned __int128 prime = ((unsigned __int128)0x0000000001000000ULL << 64) | 0x000000000000013BULL;
    unsigned __int128 h = ((unsigned __int128)0x6c62272e07bb0142ULL << 64) | 0x62b821756295c58dULL;
    static const char prefix[] = "rocm-doctor:";
    for (const char *s = prefix; *s; s++) {
        h ^= (unsigned char)*s;
        h *= prime;
    }
    for (const char *s = finding_id; *s; s++) {
        h ^= (unsigned char)*s;
        h *= prime;
    }
    uint8_t b[16];
    for (int i = 15; i >= 0; i--) {
        b[i] = (uint8_t)(h & 0xff);
        h >>= 8;
    }
    b[6] = (uint8_t)((b[6] & 0x0f) | 0x80);
    b[8] = (uint8_t)((b[8] & 0x3f) | 0x80);
    static const char hex[] = "0123456789abcdef";
    for (int i = 0; i < 16; i++) {
        ret[2 * i] = hex[b[i] >> 4];
        ret[2 * i + 1] = hex[b[i] & 0xf];
    }
    ret[32] = 0;
}

void rd_state_from_findings(const rd_findings *fs, rd_state *ret)
{
    rd_state s = { 0 };
    for (size_t i = 0; i < fs->n; i++) {
        const rd_finding *f = &fs->items[i];
        if (f->severity < RD_SEV_INFO)
            continue;
        rd_state_item *it = ARRAY_APPEND(s.items, s.n);
        it->id = xstrdup(f->id);
        it->gpu = xstrdup_or_null(f->gpu);
        it->severity = f->severity;
        it->summary = xstrdup(strempty(f->summary));
    }
    *ret = s;
}

void rd_state_free(rd_state *s)
{
    for (size_t i = 0; i < s->n; i++) {
        free(s->items[i].id);
        free(s->items[i].gpu);
        free(s->items[i].summary);
    }
    free(s->items);
    *s = (rd_state){ 0 };
}

static const rd_state_item *state_find(const rd_state *s, const rd_state_item *key)
{
    for (size_t i = 0; i < s->n; i++)
        if (streq(s->items[i].id, key->id) && streq_ptr(s->items[i].gpu, key->gpu))
            return &s->items[i];
    return NULL;
}

void rd_state_diff(const rd_state *old, const rd_state *new, rd_change **ret, size_t *ret_n)
{
    rd_change *c = NULL;
    size_t n = 0;
    for (size_t i = 0; i < new->n; i++) {
        const rd_state_item *o = state_find(old, &new->items[i]);
        if (o && o->severity == new->items[i].severity)
            continue;
        rd_change *ch = ARRAY_APPEND(c, n);
        ch->kind = o ? RD_CHANGE_SEVERITY : RD_CHANGE_APPEARED;
        ch->item = &new->items[i];
        ch->old_severity = o ? o->severity : RD_SEV_OK;
    }
    for (size_t i = 0; i < old->n; i++) {
        if (state_find(new, &old->items[i]))
            continue;
        rd_change *ch = ARRAY_APPEND(c, n);
        ch->kind = RD_CHANGE_RESOLVED;
        ch->item = &old->items[i];
        ch->old_severity = old->items[i].severity;
    }
    *ret = c;
    *ret_n = n;
}

static int syslog_priority(rd_severity s)
{
    switch (s) {
    case RD_SEV_ERROR: return 3;   /* LOG_ERR */
    case RD_SEV_WARNING: return 4; /* LOG_WARNING */
    case RD_SEV_INFO: return 5;    /* LOG_NOTICE */
    case RD_SEV_OK: return 6;      /* LOG_INFO */
    }
    return 6;
}

char **rd_daemon_journal_fields(const rd_change *c)
{
    const rd_state_item *it = c->item;
    char **v = NULL;
    char mid[33];
    rd_daemon_message_id(it->id, mid);
    _cleanup_free_ char *where = it->gpu ? xasprintf(" on %s", it->gpu) : xstrdup("");
    switch (c->kind) {
    case RD_CHANGE_APPEARED:
        v = strv_push(v, xasprintf("MESSAGE=%s %s%s: %s", rd_severity_name(it->severity), it->id, where, it->summary));
        v = strv_push(v, xasprintf("PRIORITY=%d", syslog_priority(it->severity)));
        break;
    case RD_CHANGE_SEVERITY:
        v = strv_push(v, xasprintf("MESSAGE=%s (was %s) %s%s: %s", rd_severity_name(it->severity),
                                   rd_severity_name(c->old_severity), it->id, where, it->summary));
        v = strv_push(v, xasprintf("PRIORITY=%d", syslog_priority(it->severity)));
        break;
    case RD_CHANGE_RESOLVED:
        v = strv_push(v, xasprintf("MESSAGE=resolved %s%s: %s", it->id, where, it->summary));
        v = strv_push(v, xasprintf("PRIORITY=%d", syslog_priority(RD_SEV_OK)));
        break;
    }
    static const char *const kinds[] = {
        [RD_CHANGE_APPEARED] = "appeared",
        [RD_CHANGE_RESOLVED] = "resolved",
        [RD_CHANGE_SEVERITY] = "severity",
    };
    v = strv_push(v, xasprintf("MESSAGE_ID=%s", mid));
    v = strv_push(v, xstrdup("SYSLOG_IDENTIFIER=rocm-doctord"));
    v = strv_push(v, xasprintf("ROCM_DOCTOR_FINDING=%s", it->id));
    v = strv_push(v, xasprintf("ROCM_DOCTOR_CHANGE=%s", kinds[c->kind]));
    v = strv_push(v, xasprintf("ROCM_DOCTOR_SEVERITY=%s", rd_severity_name(it->severity)));
    if (c->kind == RD_CHANGE_SEVERITY)
        v = strv_push(v, xasprintf("ROCM_DOCTOR_PREVIOUS_SEVERITY=%s", rd_severity_name(c->old_severity)));
    if (it->gpu)
        v = strv_push(v, xasprintf("ROCM_DOCTOR_GPU=%s", it->gpu));
    return v;
}

char **rd_daemon_verify_fields(const char *run_id, bool verified, const char *message, const char *boot_id)
{
    char mid[33];
    rd_daemon_message_id("event:fix-verification", mid);
    char **v = NULL;
    v = strv_push(v, xasprintf("MESSAGE=%s", message));
    v = strv_push(v, xasprintf("PRIORITY=%d", verified ? 6 : 3));
    v = strv_push(v, xasprintf("MESSAGE_ID=%s", mid));
    v = strv_push(v, xstrdup("SYSLOG_IDENTIFIER=rocm-doctord"));
    v = strv_push(v, xasprintf("ROCM_DOCTOR_FIX_RUN=%s", run_id));
    v = strv_push(v, xasprintf("ROCM_DOCTOR_VERIFICATION=%s", verified ? "verified" : "failed"));
    if (boot_id)
        v = strv_push(v, xasprintf("ROCM_DOCTOR_BOOT_ID=%s", boot_id));
    return v;
}

char *rd_daemon_status_line(size_t n_gpus, const rd_findings *fs)
{
    size_t errors = 0, warnings = 0;
    for (size_t i = 0; i < fs->n; i++) {
        errors += fs->items[i].severity == RD_SEV_ERROR;
        warnings += fs->items[i].severity == RD_SEV_WARNING;
    }
    strbuf b = { 0 };
    strbuf_printf(&b, "%zu GPU%s, ", n_gpus, n_gpus == 1 ? "" : "s");
    if (!errors && !warnings)
        strbuf_append(&b, "no problems");
    if (errors)
        strbuf_printf(&b, "%zu error%s", errors, errors == 1 ? "" : "s");
    if (warnings)
        strbuf_printf(&b, "%s%zu warning%s", errors ? ", " : "", warnings, warnings == 1 ? "" : "s");
    return strbuf_steal(&b);
}
