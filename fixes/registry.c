/* SPDX-License-Identifier: MIT */
#include "fixes.h"
#include "util.h"

/* Order of the plan: access first (what most hosts need), then the driver,
 * the repository, the packages from it, the environment, the kernel
 * command line. */
static const rd_fix *const plan_order[] = {
    &rd_fix_group,  &rd_fix_udev,     &rd_fix_modprobe, &rd_fix_apt,     &rd_fix_dnf,
    &rd_fix_zypper, &rd_fix_packages, &rd_fix_env,      &rd_fix_cmdline, &rd_fix_slurm_gres,
};

const rd_fix_table rd_fix_registry = {
    .fixes = plan_order,
    .n_fixes = ELEMENTSOF(plan_order),
};
