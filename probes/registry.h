/* SPDX-License-Identifier: MIT */
/* Every probe, in gather order and in assess order: the one table the CLI,
 * the daemon and the tests hand to the core. */
#pragma once

#include "probe.h"

extern const rd_probe rd_probe_os, rd_probe_pci, rd_probe_drm, rd_probe_kfd, rd_probe_driver, rd_probe_access;
/* rocm.c apt.c boot.c: installation, apt, Secure Boot and DKMS */
extern const rd_probe rd_probe_rocm, rd_probe_apt, rd_probe_boot;
/* packages-rpm.c repos-rpm.c: the rpm database, kernel headers, dnf and zypper */
extern const rd_probe rd_probe_packages_rpm, rd_probe_repos_rpm;
/* env.c apu.c container.c tuning.c torch.c */
extern const rd_probe rd_probe_env, rd_probe_apu, rd_probe_container, rd_probe_tuning, rd_probe_torch;
/* wheels.c */
extern const rd_probe rd_probe_wheels;
/* health.c: RAS, resets, XGMI, AER, thermal and power (level 1) */
extern const rd_probe rd_probe_health;
/* runtime.c: level 2 */
extern const rd_probe rd_probe_runtime;
/* slurm.c: slurm.conf, gres.conf, cgroup.conf against this node's GPUs */
extern const rd_probe rd_probe_slurm;

extern const rd_probe_table rd_probe_registry;
