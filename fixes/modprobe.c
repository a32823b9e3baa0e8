/* SPDX-License-Identifier: MIT */
/* modprobe: a stale amdgpu blacklist is disabled (the file, or the line
 * commented out, kept in the journal); one that looks deliberate is only
 * reported unless --only names this fix. SI and CIK cards on radeon move to
 * amdgpu through an options file. Then the initramfs is rebuilt. This fix
 * never writes a blacklist. */
#include <inttypes.h>
#include "distro.h"
#include "fixes.h"
#include "modprobe-conf.h"
#include "util.h"

#define OPTIONS_FILE "/etc/modprobe.d/rocm-doctor-amdgpu.conf"
#define DISABLED_MARK "# disabled by rocm-doctor (undo with rocm-doctor undo): "

typedef struct {
    const char *text;
    size_t size;
    strbuf out;
    bool only;    /* nothing else in the file is in effect */
    size_t count; /* lines disabled */
} disabling;

static int disable_entry(const rd_modprobe_entry *e, void *userdata)
{
    disabling *d = userdata;
    if (rd_modprobe_entry_disables(e, "amdgpu")) {
        /* a '#' first makes the whole logical line a comment for kmod */
        strbuf_append(&d->out, DISABLED_MARK);
        d->count++;
    } else if (e->directive && e->directive[0] != '#')
        d->only = false;
    strbuf_appendn(&d->out, d->text + e->offset, e->length);
    if (e->offset + e->length < d->size)
        strbuf_append(&d->out, "\n");
    return 0;
}

/* The file's text with every line that disables amdgpu commented out;
 * *ret_only: nothing else in it is in effect. */
static char *disable_lines(const char *text, size_t size, bool *ret_only, size_t *ret_count)
{
    disabling d = { .text = text, .size = size, .only = true };
    strbuf_append(&d.out, "");
    (void)rd_modprobe_conf_parse(text, size, disable_entry, &d);
    *ret_only = d.only;
    *ret_count = d.count;
    return strbuf_steal(&d.out);
}

/* Lines of the facts that name "amdgpu\r": they blacklist nothing, so
 * nothing is done about them; the reason says so. */
static void note_stray_cr(const rd_driver_facts *d, strbuf *notes)
{
    for (size_t i = 0; i < d->n_modprobe; i++) {
        const rd_modprobe_line *l = &d->modprobe[i];
        rd_modprobe_entry e = { .directive = l->directive, .module = l->module, .rest = l->args };
        if (l->file && rd_modprobe_entry_disables_but_cr(&e, "amdgpu"))
            strbuf_printf(notes,
                          "%s%s:%" PRId64 ": \"%s amdgpu\" ends in a carriage return, so kmod reads the "
                          "module name as \"amdgpu\\r\" and the line does nothing: left as it is",
                          notes->len ? "; " : "", l->file, l->line, l->directive);
    }
}

static bool deliberate(const char *path, const char *text)
{
    return strcasestr(path, "gpu-operator") || strcasestr(path, "gpu_operator") ||
           (text && (strcasestr(text, "gpu-operator") || strcasestr(text, "gpu operator")));
}

static int plan_blacklists(const rd_fix_input *in, rd_plan *p, rd_step *s, char **ret_reason)
{
    const rd_driver_facts *d = &in->facts->driver;
    bool forced = rd_fix_named(in, "modprobe");
    _cleanup_strv_free_ char **files = NULL;
    for (size_t i = 0; i < d->n_modprobe; i++) {
        const rd_modprobe_line *l = &d->modprobe[i];
        rd_modprobe_entry e = { .directive = l->directive, .module = l->module, .rest = l->args };
        if (l->file && rd_modprobe_entry_disables(&e, "amdgpu") && !strv_contains(files, l->file))
            files = strv_push(files, xstrdup(l->file));
    }
    strbuf skipped = { 0 };
    note_stray_cr(d, &skipped);
    for (size_t i = 0; files && files[i]; i++) {
        const char *path = files[i];
        rd_snapshot *snap;
        int r = rd_plan_snapshot(p, in, path, &snap, ret_reason);
        if (r < 0) {
            free(skipped.s);
            return r;
        }
        if (!snap->exists)
            continue;
        if (deliberate(path, snap->content) && !forced) {
            strbuf_printf(&skipped,
                          "%s%s looks deliberate (GPU Operator's driver): left alone; name it with "
                          "--only modprobe to disable it anyway",
                          skipped.len ? "; " : "", path);
            continue;
        }
        bool only;
        size_t count;
        _cleanup_free_ char *text = xstrndup(snap->content, snap->size);
        _cleanup_free_ char *next = disable_lines(text, snap->size, &only, &count);
        if (count == 0)
            continue;
        mode_t mode = snap->mode ? snap->mode : 0644;
        const char *base = strrchr(path, '/') + 1;
        if (startswith(path, "/etc/")) {
            r = only ? rd_step_remove(p, s, in, path, ret_reason)
                     : rd_step_write(p, s, in, path, next, strlen(next), mode, ret_reason);
        } else {
            /* a package's file: a same-named file in /etc/modprobe.d hides it */
            _cleanup_free_ char *over = xasprintf("/etc/modprobe.d/%s", base);
            _cleanup_free_ char *content =
                xasprintf(RD_FIX_HEADER_LINE "# Hides %s, whose amdgpu blacklist is disabled here.\n%s", path, next);
            r = rd_step_write(p, s, in, over, content, strlen(content), 0644, ret_reason);
        }
        if (r < 0) {
            free(skipped.s);
            return r;
        }
    }
    if (d->cmdline && (strstr(d->cmdline, "modprobe.blacklist=amdgpu") || strstr(d->cmdline, "amdgpu.blacklist"))) {
        rd_plan_partial(p); /* driver.blacklisted stays until the command line changes */
        strbuf_printf(&skipped,
                      "%sthe kernel command line blacklists amdgpu: remove modprobe.blacklist=amdgpu from "
                      "GRUB_CMDLINE_LINUX in /etc/default/grub and run update-grub (this fix does not edit "
                      "that file)",
                      skipped.len ? "; " : "");
    }
    if (skipped.len)
        *ret_reason = strbuf_steal(&skipped);
    return 0;
}

static int plan_radeon(const rd_fix_input *in, rd_plan *p, rd_step *s, char **ret_reason)
{
    bool si = false, cik = false;
    for (size_t i = 0; in->findings && i < in->findings->n; i++) {
        const rd_finding *f = &in->findings->items[i];
        if (!streq(f->id, RD_FINDING(GPU_RADEON_BOUND)) || !streq_ptr(f->fix, "modprobe") || !f->gpu)
            continue;
        if (in->only && !rd_fix_named(in, "modprobe") && !rd_fix_named(in, f->id))
            continue;
        for (size_t g = 0; g < in->gpus->n_gpus; g++) {
            const rd_gpu *gpu = &in->gpus->gpus[g];
            if (!streq_ptr(gpu->pci->address, f->gpu) || !gpu->arch)
                continue;
            si |= streq_ptr(gpu->arch->family, "gfx6");
            cik |= streq_ptr(gpu->arch->family, "gfx7");
        }
    }
    if (!si && !cik)
        return 0;
    strbuf b = { 0 };
    strbuf_append(&b, RD_FIX_HEADER_LINE "# amdgpu, not the legacy radeon driver, drives these cards (ROCm needs "
                                         "amdgpu).\n");
    if (si)
        strbuf_append(&b, "options amdgpu si_support=1\noptions radeon si_support=0\n");
    if (cik)
        strbuf_append(&b, "options amdgpu cik_support=1\noptions radeon cik_support=0\n");
    _cleanup_free_ char *content = strbuf_steal(&b);
    int r = rd_step_write(p, s, in, OPTIONS_FILE, content, strlen(content), 0644, ret_reason);
    return r < 0 ? r : 0;
}

static int modprobe_plan(const rd_fix_input *in, rd_plan *p, char **ret_reason)
{
    /* update-initramfs is Debian's; on another known family say what to run there */
    rd_os_family fam = rd_os_family_facts(&in->facts->os);
    if (fam != RD_OS_DEBIAN && fam != RD_OS_UNKNOWN) {
        *ret_reason =
            xasprintf("this fix rebuilds the initramfs with update-initramfs, which hosts of the %s family do "
                      "not have; "
                      "comment out the blacklist lines the finding names, run `%s` and reboot",
                      rd_os_family_name(fam), rd_distro_of(&in->facts->os)->initramfs);
        return -EOPNOTSUPP;
    }
    rd_step *s = rd_plan_add_step(p, "modprobe", RD_EFFECT_REBOOT, "let amdgpu load and drive every AMD GPU");
    rd_step_address_findings(s, in, "modprobe");
    int r = plan_blacklists(in, p, s, ret_reason);
    if (r < 0)
        return r;
    r = plan_radeon(in, p, s, ret_reason);
    if (r < 0)
        return r;
    if (rd_step_changes(s)) {
        rd_step_command(s, rd_strv_new("update-initramfs", "-u", NULL), rd_strv_new("update-initramfs", "-u", NULL));
        s->note = xstrdup("reboot for the driver change to take effect");
    }
    rd_plan_drop_empty_step(p);
    return 0;
}

const rd_fix rd_fix_modprobe = {
    .id = "modprobe",
    .title = "Let amdgpu load",
    .on_request = true,
    .plan = modprobe_plan,
};
