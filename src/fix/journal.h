/* SPDX-License-Identifier: MIT */
/* Applying a plan, the journal of applied runs, and undo. Each applied run
 * lives in ROOT/var/lib/rocm-doctor/journal/RUN-ID/: journal.json (what was
 * done, and the state of every touched file before and after) and files/N
 * (the bytes of file N before the run). One run at a time: both apply and
 * undo hold an flock on ROOT/var/lib/rocm-doctor/lock. */
#pragma once

#include "fix.h"

#define RD_JOURNAL_SCHEMA "rocm-doctor-journal/1"

typedef struct {
    char *run_id;
    char **deferred;      /* commands to run on the first boot of the root */
    char **notes;         /* things the person should know */
} rd_apply_result;

void rd_apply_result_free(rd_apply_result *r);

/* Verifies that no file changed since the plan was made, journals the
 * before-state, carries out every action and records the after-state. A
 * failure rolls back what was done. Returns 0, or a negative errno with
 * *ret_error saying what happened (and that it was rolled back). */
int rd_plan_apply(const rd_plan *p, int root_fd, rd_apply_result *ret, char **ret_error);

/* Undoes run_id (NULL: the newest applied run). */
int rd_journal_undo(const char *root, int root_fd, const char *run_id, rd_apply_result *ret, char **ret_error);

/* Takes the lock; returns the fd to close, or a negative errno with
 * *ret_error (-EWOULDBLOCK when another run holds it). */
int rd_journal_lock(const char *root, int root_fd, char **ret_error);
