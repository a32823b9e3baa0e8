/* SPDX-License-Identifier: MIT */
/* One file per fix; each owns the drop-in files it writes. */
#pragma once

#include "fix.h"

extern const rd_fix rd_fix_group, rd_fix_udev, rd_fix_apt, rd_fix_modprobe, rd_fix_env, rd_fix_cmdline,
    rd_fix_slurm_gres;
/* rpm-repo.c: AMD's dnf and zypper repositories */
extern const rd_fix rd_fix_dnf, rd_fix_zypper;
/* packages.c: packages through the host's own package manager */
extern const rd_fix rd_fix_packages;
/* Whether setup installs AMD's kernel driver here (packages.c): the
 * repository fixes add the driver repository for it. */
bool rd_fix_wants_driver(const rd_fix_input *in);
/* Whether the check reported this finding id. */
bool rd_fix_has_finding(const rd_fix_input *in, const char *finding_id);
/* Every fix in plan order (registry.c). */
extern const rd_fix_table rd_fix_registry;

/* The rpm families' copy of AMD's key (rpm-repo.c writes it, packages.c
 * imports it into a --root tree's rpm database). */
#define RD_RPM_KEY_FILE "/etc/pki/rpm-gpg/RPM-GPG-KEY-rocm"

/* Shared by fixes: the file header every drop-in starts with. */
#define RD_FIX_HEADER_LINE "# " RD_FIX_HEADER "\n"

/* Whose access to fix: the users named in the configuration, else --user,
 * else the users the check looked at (fixes/group.c). */
char **rd_fix_target_users(const rd_fix_input *in);
