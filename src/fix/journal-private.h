/* SPDX-License-Identifier: MIT */
/* What apply, undo and the journal share inside the engine. */
#pragma once

#include "journal.h"
#include "json-util.h"
#include "util.h"

/* journal.json "state" */
#define RD_STATE_APPLYING "applying" /* being applied, or killed while it was */
#define RD_STATE_APPLIED "applied"
#define RD_STATE_ROLLED_BACK "rolled-back" /* failed, or interrupted, and put back */
#define RD_STATE_UNDOING "undoing"         /* being undone, or killed while it was */
#define RD_STATE_UNDONE "undone"
#define RD_STATE_UNDO_INCOMPLETE "undo-incomplete"

typedef struct {
    const char *root; /* "/" or the directory */
    int root_fd;
    char *run_id;
    char *dir;      /* RD_JOURNAL_DIR "/" RUN-ID */
    json_object *j; /* journal.json */
} rd_journal;

void rd_journal_close(rd_journal *jr);
#define _cleanup_journal_ __attribute__((cleanup(rd_journal_close)))

/* A new run: its id (ids sort as they were made), directory and files/. */
int rd_journal_create(const char *root, int root_fd, rd_journal *ret);
int rd_journal_load(const char *root, int root_fd, const char *run_id, rd_journal *ret);
/* Writes journal.json (atomically). */
int rd_journal_save(rd_journal *jr);
/* Removes the before-copies (files/N) of a run that was rolled back. */
void rd_journal_drop_copies(rd_journal *jr);
void rd_journal_set_state(rd_journal *jr, const char *state);
const char *rd_journal_state(const rd_journal *jr);
/* Whether a run in this state still has to be resolved by undo. */
bool rd_state_unresolved(const char *state);
/* The run ids in the journal, newest first. */
char **rd_journal_list(int root_fd);
bool rd_valid_run_id(const char *s);
/* Under the lock: removes run directories that never got a journal.json
 * (killed before the first change), and the temporary files of the atomic
 * writer that a killed run left next to the files in paths and in the
 * journal. */
void rd_journal_sweep(const char *root, int root_fd, char *const *paths);

/* path as shown to the person: with the --root prefix. */
char *rd_root_shown(const char *root, const char *path);
char *rd_now_iso(void);
bool rd_is_group_file(const char *path);
/* At the end of an apply: the boot id, and "verification": {"state":
 * "pending", "needs": "reboot"|"relogin"} when a step waits for one
 * (verify.c). */
void rd_journal_note_verification(rd_journal *jr);

/* Runs argv; a failure becomes -EIO with *ret_error saying what it printed. */
int rd_run_argv(char **argv, char **ret_error);
/* usermod -aG / gpasswd -d, with -R/-Q ROOT under a root. */
char **rd_group_argv(const char *root, bool add, const char *user, const char *group);
/* The shadow tools' lock (lckpwdf(3) under the root), or -1. */
int rd_shadow_lock(int root_fd, bool create);

/* ---- package steps (pkg-journal.c) ---- */

/* Before the first change: the installed list kept, "packages" journaled. */
int rd_journal_packages_before(rd_journal *jr, const rd_action *a, char **ret_error);
/* After the last: what the run installed, upgraded, downgraded, removed. */
int rd_journal_packages_after(rd_journal *jr, char **ret_error);
/* Undo may go on: the run's packages are as it left them (killed: not
 * asked), and nothing installed since depends on what it would remove. */
int rd_packages_verify(rd_journal *jr, bool killed, char **ret_error);
/* Reverses the run's package changes that are still in place, removing
 * what dpkg left unfinished with its force options (and what a failing rpm
 * scriptlet kept, without scriptlets): those names are added to *forced.
 * < 0 while any of them is still in place (the repository files must stay
 * then). */
int rd_restore_packages(rd_journal *jr, strbuf *problems, char ***forced);
/* What to say of the forced removals: "NAMES could not be finished ...
 * and were removed with its force options", or NULL for none. */
char *rd_forced_note(char *const *forced);

/* ---- putting the root back (restore.c) ---- */

typedef enum {
    RD_RESTORE_FILES,   /* every file from its before-copy, group files too */
    RD_RESTORE_GPASSWD, /* group files changed since: reverse memberships with gpasswd */
} rd_restore_method;

/* Each file of the run back as it was before (a step that is already done
 * is skipped, so this may be repeated), the leftovers of writers killed
 * half-way removed, the directories the run created removed. Problems are
 * appended to *problems ("; "-separated). */
void rd_restore_files(rd_journal *jr, rd_restore_method method, strbuf *problems);
/* Reverses the run's group additions with gpasswd -d where the user is
 * still a member. */
void rd_restore_groups(rd_journal *jr, strbuf *problems);
typedef enum {
    RD_COMMANDS_UNDO,        /* undo of an applied run: every undo command (first-boot ones deferred) */
    RD_COMMANDS_FAILED,      /* a failed apply: the undo commands of those that ran */
    RD_COMMANDS_INTERRUPTED, /* a killed apply: which ran is not known, so every one that runs now */
} rd_commands_undo;
/* Runs the undo commands of the run's commands, newest first; first-boot
 * ones of an applied run are listed in *deferred instead. */
void rd_restore_commands(rd_journal *jr, rd_commands_undo which, char ***deferred, strbuf *problems);
/* The shadow tools' leftovers in /etc (NAME.lock, NAME+, NAME.PID of the
 * group and user files): what a usermod killed half-way leaves. */
char **rd_shadow_leftovers(int root_fd);
/* Reads the before-copy of file entry jf; checks its SHA-256. */
int rd_read_before(rd_journal *jr, json_object *jf, char **ret, size_t *ret_size);
/* Whether the file is now as jf says it was before (content and owner). */
bool rd_file_is_before(rd_journal *jr, json_object *jf, const char *content, size_t size, const struct stat *st,
                       bool exists);
