/* SPDX-License-Identifier: MIT */
/* The parts of the Slurm probe (slurm.c gathers the configuration,
 * slurm-host.c what Slurm's GPU plugins would see on this host,
 * slurm-assess.c judges). */
#pragma once

#include "probe.h"

extern const char *const rd_slurm_findings[];

/* This node's name as slurmd takes it: SLURMD_NODENAME, else the short host
 * name (/etc/hostname under --root). NULL when unknown. */
char *rd_slurm_node_name(const rd_ctx *ctx);
/* Whether Slurm's gpu_rsmi plugin and librocm_smi64 are installed. */
void rd_slurm_gather_rsmi(const rd_ctx *ctx, rd_facts *facts);
/* The cores of each NUMA node that holds an AMD GPU, in Slurm's numbering,
 * when gres.conf sets Cores= at all. */
void rd_slurm_gather_numa(rd_facts *facts);
void rd_slurm_assess(const rd_assess_input *in, rd_findings *out);
