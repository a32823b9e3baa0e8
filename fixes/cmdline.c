/* SPDX-License-Identifier: MIT */
/* cmdline: iommu=pt on the kernel command line, through a GRUB drop-in
 * (update-grub reads the .cfg files in /etc/default/grub.d after /etc/default/grub),
 * then update-grub. Never amd_iommu=off. */
#include "distro.h"
#include "fixes.h"
#include "util.h"

#define GRUB_FILE "/etc/default/grub.d/50-rocm-doctor-iommu.cfg"

static bool has_token(const char *cmdline, const char *token)
{
    size_t n = strlen(token);
    for (const char *p = cmdline; p && (p = strstr(p, token)); p += n)
        if ((p == cmdline || p[-1] == ' ') && (p[n] == 0 || p[n] == ' ' || p[n] == '\n'))
            return true;
    return false;
}

/* On a host of another known family (RHEL, Fedora, SUSE) GRUB's grub.d and
 * update-grub are not how the command line is set: say how it is. A host
 * whose family is unknown (a bare tree, an old facts file) gets the drop-in. */
static bool other_family(const rd_fix_input *in, char **ret_reason)
{
    rd_os_family fam = rd_os_family_facts(&in->facts->os);
    if (fam == RD_OS_DEBIAN || fam == RD_OS_UNKNOWN)
        return false;
    _cleanup_free_ char *how = rd_distro_cmdline_add(&in->facts->os, "iommu=pt");
    *ret_reason = xasprintf("this fix writes a GRUB drop-in for update-grub, which hosts of the %s family do not "
                            "use; to add iommu=pt: %s, then reboot",
                            rd_os_family_name(fam), how);
    return true;
}

static int cmdline_plan(const rd_fix_input *in, rd_plan *p, char **ret_reason)
{
    const char *cmdline = in->facts->driver.cmdline;
    if (other_family(in, ret_reason))
        return -EOPNOTSUPP;
    rd_snapshot *snap;
    int r = rd_plan_snapshot(p, in, GRUB_FILE, &snap, ret_reason);
    if (r < 0)
        return r;
    if (cmdline && has_token(cmdline, "iommu=pt") && !snap->exists)
        return 0; /* already on the running kernel's command line */
    static const char content[] =
        RD_FIX_HEADER_LINE "# Pass-through IOMMU mode for GPU peer-to-peer and RCCL (multi-GPU) traffic.\n"
                           "GRUB_CMDLINE_LINUX_DEFAULT=\"${GRUB_CMDLINE_LINUX_DEFAULT} iommu=pt\"\n";
    rd_step *s = rd_plan_add_step(p, "cmdline", RD_EFFECT_REBOOT, "add iommu=pt to the kernel command line");
    rd_step_address_findings(s, in, "cmdline");
    r = rd_step_write(p, s, in, GRUB_FILE, content, sizeof content - 1, 0644, ret_reason);
    if (r < 0)
        return r;
    if (r > 0) {
        rd_step_command(s, rd_strv_new("update-grub", NULL), rd_strv_new("update-grub", NULL));
        s->note = xstrdup("reboot for the new kernel command line to take effect");
    }
    rd_plan_drop_empty_step(p);
    return 0;
}

const rd_fix rd_fix_cmdline = {
    .id = "cmdline",
    .title = "Kernel command line",
    .on_request = true,
    .plan = cmdline_plan,
};
