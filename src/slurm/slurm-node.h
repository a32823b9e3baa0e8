/* SPDX-License-Identifier: MIT */
/* The health check's decision about this Slurm node: drain it with the
 * finding ids as the reason, resume it, or leave it. Pure: the state comes
 * from `scontrol show node`, the verdict from the check. A node is resumed
 * only when its drain reason is exactly one rocm-doctor writes
 * (rd_slurm_reason_is_ours); an administrator's drain, and a node DOWN or
 * FAILed, are never touched. */
#pragma once

#include <json-c/json.h>
#include <stdbool.h>
#include <stddef.h>
#include <time.h>

#define RD_SLURM_REASON_PREFIX "rocm-doctor:"
/* Slurm keeps any length, but sinfo -R shows 20 columns by default and
 * admins read it in scontrol: the ids are cut to this many bytes. */
#define RD_SLURM_REASON_MAX 128
/* What rocm-doctor leaves as the reason of a node it resumed where Slurm
 * kept its drain reason (Slurm 23.11 to 25.11 without an accounting
 * storage clear a reason on resume only through that plugin): not one of
 * rd_slurm_reason's, so a drain Slurm makes itself later, which keeps the
 * reason it finds, is never taken for rocm-doctor's and resumed. Slurm has
 * no way to clear a reason on a node that is not drained. */
#define RD_SLURM_REASON_RESUMED RD_SLURM_REASON_PREFIX " resumed"
/* Slurm's node names are host names */
#define RD_SLURM_NODE_NAME_MAX 64
/* How long one scontrol run may take: a HealthCheckProgram must end in
 * seconds (slurmd waits for it); a scontrol that hangs (slurmctld does
 * not answer) is ended and the run's status is 3. */
#define RD_SLURM_SCONTROL_TIMEOUT_S 10
/* A status file older than this is not taken as the node's health. */
#define RD_SLURM_STATUS_MAX_AGE_S 600

typedef struct {
    char *state;  /* "IDLE+DRAIN", "MIXED", "DOWN*+DRAIN" */
    char *reason; /* without the " [user@time]" Slurm appends; NULL when none */
    bool drain;   /* the DRAIN flag is set (draining or drained) */
    bool down;    /* DOWN (or ERROR), or the FAIL flag: never changed */
} rd_slurm_node_state;

/* Reads the State= and Reason= of `scontrol show node NAME` output; -EINVAL
 * when it has no State=. */
int rd_slurm_node_state_parse(const char *text, rd_slurm_node_state *ret);
void rd_slurm_node_state_done(rd_slurm_node_state *s);

/* "rocm-doctor: id1,id2,...": at most RD_SLURM_REASON_MAX bytes, the ids
 * that do not fit counted as "+N". NULL or no ids: "rocm-doctor: check
 * failed". */
char *rd_slurm_reason(char *const *ids);
/* Whether reason is one rd_slurm_reason makes, the whole of it:
 * "rocm-doctor: check failed", or "rocm-doctor: " and a comma-separated
 * list of finding ids (rd_finding_id_valid), the last item maybe "+N".
 * "rocm-doctor: maintenance, do not resume" is not. */
bool rd_slurm_reason_is_ours(const char *reason);
/* Whether the node, read back after rocm-doctor resumed it, still carries
 * a reason of rd_slurm_reason's though it is no longer drained: Slurm kept
 * it, and rocm-doctor replaces it with RD_SLURM_REASON_RESUMED. */
bool rd_slurm_reason_kept(const rd_slurm_node_state *after);
/* Whether name is exactly one node name: letters, digits, '-', '_', '.',
 * not "ALL", no list (',', brackets, blanks). */
bool rd_slurm_node_name_valid(const char *name);

typedef enum {
    RD_SLURM_KEEP,   /* leave the node as it is */
    RD_SLURM_DRAIN,  /* drain it with the reason */
    RD_SLURM_RESUME, /* clear rocm-doctor's own drain */
} rd_slurm_action;

typedef enum {
    RD_SLURM_UNKNOWN_DRAIN, /* a check that could not run drains the node */
    RD_SLURM_UNKNOWN_KEEP,  /* ... or leaves it as it is */
} rd_slurm_on_unknown;

/* What to do with the node after a check that exited with status (0 to 3)
 * and found the error ids; *ret_reason gets the drain reason (DRAIN only).
 * A status of 3 never resumes. */
rd_slurm_action rd_slurm_decide(int status, char *const *error_ids, rd_slurm_on_unknown on_unknown,
                                const rd_slurm_node_state *node, char **ret_reason);

/* The findings of a report (status.json or a check's JSON): the exit
 * status they make (0, 1 or 2) and the error ids; -EINVAL when a finding
 * lacks its severity or its id is not a finding id (the ids become Slurm's
 * reason). */
int rd_slurm_report_verdict(json_object *report, char ***ret_ids);
/* The verdict of the status file path (under root_fd, confined to it) when
 * it was written in the last RD_SLURM_STATUS_MAX_AGE_S seconds before now:
 * -ESTALE when older, -EPERM when it is not root's alone (owned by another
 * user, or writable by group or others: whoever can write it could resume
 * the node), -EINVAL when its findings are not a report's, -errno when it
 * cannot be opened or read. *ret_opened: whether it was opened (a regular
 * file is there). */
int rd_slurm_status_verdict(int root_fd, const char *path, time_t now, char ***ret_ids, bool *ret_opened);
