/* SPDX-License-Identifier: MIT */
/* udev: when /dev/kfd or the render nodes belong to root only, a rule gives
 * them to a group with mode 0660 (AMD's all-users 0666 rule only when the
 * configuration asks for it), and the target users join that group. */
#include "fixes.h"
#include "util.h"

#define UDEV_RULE "/etc/udev/rules.d/70-rocm-doctor-gpu.rules"

static int udev_plan(const rd_fix_input *in, rd_plan *p, char **ret_reason)
{
    const char *group = in->config && in->config->access_group ? in->config->access_group : "render";
    bool all = in->config && in->config->udev_all_users;
    if (strspn(group, "abcdefghijklmnopqrstuvwxyz0123456789_-") != strlen(group) || !*group) {
        *ret_reason = xasprintf("access_group \"%s\" is not a valid group name", group);
        return -EINVAL;
    }
    _cleanup_free_ char *rule = NULL;
    if (all)
        rule = xasprintf(RD_FIX_HEADER_LINE "# Every local user may use the GPUs (asked for with udev_all_users=yes).\n"
                                            "KERNEL==\"kfd\", GROUP=\"%s\", MODE=\"0666\"\n"
                                            "SUBSYSTEM==\"drm\", KERNEL==\"renderD*\", GROUP=\"%s\", MODE=\"0666\"\n",
                         group, group);
    else
        rule = xasprintf(RD_FIX_HEADER_LINE "# /dev/kfd and the GPU render nodes belong to group %s; only its members\n"
                                            "# may use the GPUs.\n"
                                            "KERNEL==\"kfd\", GROUP=\"%s\", MODE=\"0660\"\n"
                                            "SUBSYSTEM==\"drm\", KERNEL==\"renderD*\", GROUP=\"%s\", MODE=\"0660\"\n",
                         group, group, group);
    rd_step *s =
        rd_plan_add_step(p, "udev", all ? RD_EFFECT_NOW : RD_EFFECT_RELOGIN,
                         "give /dev/kfd and the render nodes to group %s, mode %s", group, all ? "0666" : "0660");
    rd_step_address_findings(s, in, "udev");
    int r = rd_step_write(p, s, in, UDEV_RULE, rule, strlen(rule), 0644, ret_reason);
    if (r < 0)
        return r;
    bool wrote = r > 0;
    if (!all) {
        _cleanup_strv_free_ char **users = rd_fix_target_users(in);
        for (size_t u = 0; users && users[u]; u++) {
            r = rd_step_group_add(p, s, in, users[u], group, ret_reason);
            if (r < 0)
                return r;
        }
        if (users) {
            _cleanup_free_ char *list = strv_join(users, ", ");
            s->note = xasprintf("%s must log out and back in for group %s to count", list, group);
        }
    }
    if (wrote) {
        rd_step_command(s, rd_strv_new("udevadm", "control", "--reload", NULL),
                        rd_strv_new("udevadm", "control", "--reload", NULL));
        rd_step_command(s, rd_strv_new("udevadm", "trigger", "--subsystem-match=kfd", "--subsystem-match=drm", NULL),
                        rd_strv_new("udevadm", "trigger", "--subsystem-match=kfd", "--subsystem-match=drm", NULL));
    }
    rd_plan_drop_empty_step(p);
    return 0;
}

const rd_fix rd_fix_udev = {
    .id = "udev",
    .title = "A udev rule for the GPU device nodes",
    .on_request = true,
    .plan = udev_plan,
};
