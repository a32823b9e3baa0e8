/* SPDX-License-Identifier: MIT */
#include "registry.h"

#include "util.h"

/* Gather order: packages-rpm before rocm (its ROCm packages join dpkg's in
 * the rocm facts); access needs the render nodes that drm and kfd found; the
 * environment probes need the GPUs. The assess order is sorted from it by
 * what each probe reads (.needs: kfd after pci, the runtime after the
 * level-1 causes it names); among the others it is this order, so a report
 * lists the driver's findings before kfd's and the kernel's before the
 * packages'. */
static const rd_probe *const probe_order[] = {
    &rd_probe_os,        &rd_probe_pci,    &rd_probe_drm,          &rd_probe_driver,    &rd_probe_kfd,
    &rd_probe_access,    &rd_probe_boot,   &rd_probe_packages_rpm, &rd_probe_rocm,      &rd_probe_apt,
    &rd_probe_repos_rpm, &rd_probe_env,    &rd_probe_apu,          &rd_probe_container, &rd_probe_tuning,
    &rd_probe_torch,     &rd_probe_wheels, &rd_probe_health,       &rd_probe_runtime,   &rd_probe_slurm,
};

const rd_probe_table rd_probe_registry = {
    .gather = probe_order,
    .n_gather = ELEMENTSOF(probe_order),
};
