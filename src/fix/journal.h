/* SPDX-License-Identifier: MIT */
/* Applying a plan, the journal of applied runs, and undo. Each run lives in
 * ROOT/var/lib/rocm-doctor/journal/RUN-ID/: journal.json (what the run
 * does, and the state of every file it touches before and after) and
 * files/N (the bytes of file N before the run). journal.json is written,
 * with the before-state of everything, before the first change: a run that
 * is killed half-way stays "applying", and undo rolls it back from the
 * before-copies. Undo records its own progress ("undoing") the same way, and
 * each of its steps may be repeated, so a killed undo is finished by the
 * next one. One run at a time: apply and undo hold an flock on
 * ROOT/var/lib/rocm-doctor/lock. */
#pragma once

#include "fix.h"

#define RD_JOURNAL_SCHEMA "rocm-doctor-journal/1"

typedef struct {
    char *run_id;
    bool interrupted; /* undo: the run had been interrupted and was rolled back */
    char **deferred;  /* commands to run on the first boot of the root */
    char **notes;     /* things the person should know */
} rd_apply_result;

void rd_apply_result_free(rd_apply_result *r);
#define _cleanup_apply_result_ __attribute__((cleanup(rd_apply_result_free)))

/* Verifies that no file changed since the plan was made, journals the
 * before-state, carries out every action and records the after-state. A
 * failure rolls back what was done. Refuses while an interrupted run is
 * unresolved. Returns 0, or a negative errno with *ret_error saying what
 * happened (and whether it was rolled back). */
int rd_plan_apply(const rd_plan *p, const rd_ctx *ctx, rd_apply_result *ret, char **ret_error);

/* Undoes run_id (NULL: the newest run that is applied, or was interrupted
 * while being applied or undone). The entry points here take the context:
 * its root, resolved once (rd_ctx_open_root), and its descriptor. */
int rd_journal_undo(const rd_ctx *ctx, const char *run_id, rd_apply_result *ret, char **ret_error);

/* "rocm-doctor undo [--root DIR] RUN-ID": the command that undoes a run. */
char *rd_undo_command(const char *root, const char *run_id);

/* Takes the lock; returns the fd to close, or a negative errno with
 * *ret_error (-EWOULDBLOCK when another run holds it). */
int rd_journal_lock(const char *root, int root_fd, char **ret_error);

/* An interrupted run (killed while being applied or undone) that undo has
 * not resolved yet: 1 and a message naming it and the command that resolves
 * it, 0 when there is none. Reads only; call it with the lock held: without
 * it, a run in progress looks interrupted. */
int rd_journal_unresolved(const char *root, int root_fd, char **ret_message);
/* The same with the lock taken for the look and let go: != 0 with the
 * message when a run is interrupted, or in progress in another process
 * (which holds the lock). */
int rd_journal_unresolved_now(const rd_ctx *ctx, char **ret_message);

/* ---- what a run achieved (result.c) ---- */

typedef enum {
    RD_RESULT_FIXED,
    RD_RESULT_RELOGIN,
    RD_RESULT_REBOOT,
    RD_RESULT_FAILING,
    RD_RESULT_PARTLY, /* the step ran, but part of what the finding needs could not be planned */
} rd_result_kind;

typedef struct {
    const char *finding; /* borrowed from the plan */
    const char *fix;
    rd_result_kind kind;
    const char *why; /* RD_RESULT_FAILING, _PARTLY: borrowed from the plan or the findings */
} rd_fix_result;

typedef struct {
    rd_fix_result *items;
    size_t n;
    bool failing; /* one is still failing, or only partly fixed */
} rd_fix_results;

/* Per finding the plan addressed: fixed, fixed after re-login or reboot, or
 * still failing. again: the findings of the check run after applying, NULL
 * when it could not run; from_facts: the diagnosis came from --facts, so
 * nothing was gathered again. The results borrow from p and again. */
void rd_fix_classify(const rd_plan *p, const rd_findings *again, bool from_facts, rd_fix_results *ret);
void rd_fix_results_free(rd_fix_results *r);
#define _cleanup_fix_results_ __attribute__((cleanup(rd_fix_results_free)))
const char *rd_result_name(rd_result_kind k); /* "fixed-after-relogin" */
const char *rd_result_text(rd_result_kind k); /* "fixed after re-login" */
json_object *rd_fix_results_to_json(const rd_fix_results *r);

/* ---- the verdict after the reboot (verify.c) ---- */

/* journal.json "verification" "state": a run whose steps need a reboot or a
 * re-login waits as "pending" until the boot check gives its verdict. */
#define RD_VERIFY_PENDING "pending"
#define RD_VERIFY_VERIFIED "verified"
#define RD_VERIFY_FAILED "failed"

/* The running kernel's boot id (/proc/sys/kernel/random/boot_id), or NULL. */
char *rd_boot_id(void);

typedef struct {
    const rd_findings *findings; /* the check run now, level 2 included when runtime */
    bool runtime;                /* the GPU kernel ran (verify_runtime) */
    const char *boot_id;         /* rd_boot_id(), or NULL */
} rd_verify_input;

typedef struct {
    char *run_id;
    bool verified; /* false: failed */
    char *message; /* one line: what is fixed, what still fails and why */
} rd_verify_outcome;

/* How many applied runs wait for a verdict whose event has happened: a
 * reboot (another boot id than at apply), or a re-login (at once). Reads
 * only. */
size_t rd_fix_runs_due(const rd_ctx *ctx, const char *boot_id);
/* Under the journal lock, gives every due run its verdict from in and
 * writes it into its journal; a run that has one is left alone. Returns 0
 * with the runs finished in *ret, or a negative errno with *ret_error
 * (the lock is held, a journal could not be written: *ret has the others). */
int rd_fix_runs_verify(const rd_ctx *ctx, const rd_verify_input *in, rd_verify_outcome **ret, size_t *ret_n,
                       char **ret_error);
void rd_verify_outcomes_free(rd_verify_outcome *o, size_t n);
/* {"pending": N, "verified": N, "failed": N, "runs": [...]}: the counts
 * over the applied runs that waited for a verdict, and the newest max runs
 * (only: that run alone; -ENOENT when there is none), each with what it
 * changed and its verification (see rocm-doctor(8), fix --status). */
int rd_fix_runs_json(const rd_ctx *ctx, const char *only, size_t max, json_object **ret);
