/* SPDX-License-Identifier: MIT */
/* A Slurm job's GPUs: which of this node's GPUs a job was given (from the
 * prolog's environment), and their health counters, saved at the prolog and
 * compared at the epilog. Pure: facts in, addresses and counters out. */
#pragma once

#include <json-c/json.h>
#include "facts.h"
#include "gpus.h"
#include "knowledge.h"

/* The job's environment, as the prolog or a task sees it. */
typedef struct {
    const char *job_gpus;       /* SLURM_JOB_GPUS: indices of the node's GPU devices */
    const char *rocr_visible;   /* ROCR_VISIBLE_DEVICES: indices or UUIDs of ROCm's agents */
    const char *device_ordinal; /* GPU_DEVICE_ORDINAL: the same */
} rd_slurm_job_env;

/* The PCI addresses of the job's GPUs, sorted, no duplicates. SLURM_JOB_GPUS
 * wins: index i is the i-th File= of this node's Name=gpu lines in gres.conf
 * when those name GPU render nodes, else the i-th AMD GPU in PCI address
 * order. Else ROCR_VISIBLE_DEVICES, then GPU_DEVICE_ORDINAL, read as ROCm
 * reads them. No variable: no GPUs (*ret NULL). -EINVAL with *ret_error
 * for an index or UUID that names no GPU. */
int rd_slurm_job_gpus(const rd_facts *f, const rd_gpu_view *v, const rd_knowledge *k, const rd_slurm_job_env *env,
                      char ***ret, char **ret_error);

/* {"job": ..., "gpus": [{"pci_address", "ras_uncorrectable", "ras_correctable",
 * "retired_pages", "resets"}]}: the counters of the GPUs named (-1 where not
 * exposed). */
json_object *rd_slurm_counters_json(const rd_facts *f, const char *job, char *const *addresses);

/* The finding ids whose counters grew since saved, in a stable order, and one
 * evidence line each ("0000:03:00.0: RAS uncorrectable errors 0 -> 2"). */
void rd_slurm_counters_grown(json_object *saved, const rd_facts *f, char ***ret_ids, char ***ret_evidence);

/* What the prolog leaves for the epilog: the job's counters in
 * BASE/JOB/counters.json (BASE: ROCM_DOCTOR_SLURM_STATE_DIR, else
 * /run/rocm-doctor/slurm). */
/* Whether job (SLURM_JOB_ID) is one: digits and '_' (it names a folder). */
bool rd_slurm_job_id_valid(const char *job);
char *rd_slurm_job_state_dir(const char *job);
/* Writes counters to dir/counters.json atomically (dir made 0700, the
 * folders above it 0755); -errno, *ret_what: the path that failed. */
int rd_slurm_counters_save(const char *dir, json_object *counters, char **ret_what);
/* The counters saved in dir: 0 and *ret; -ENOENT when none were (no GPUs,
 * or no prolog), -EBADMSG when they are not JSON, -errno when unreadable. */
int rd_slurm_counters_load(const char *dir, json_object **ret);
/* Removes dir/counters.json, whatever it is, and dir: the next job of
 * this id must not compare with them. */
void rd_slurm_counters_drop(const char *dir);
