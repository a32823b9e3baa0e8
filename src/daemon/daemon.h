/* SPDX-License-Identifier: MIT */
/* rocm-doctord: the boot check (--once) and the event-driven daemon. The
 * pieces that decide things (which probes an event concerns, what a change
 * of findings is, what goes into a journal entry) are pure functions here so
 * tests can call them; daemon.c owns the event loop and the I/O. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "context.h"
#include "facts.h"
#include "findings.h"
#include "registry.h"
#include "run.h"
#include "term.h"

/* A set of probes, one bit per index in rd_probes[]; RD_MASK_CONFIG stands
 * for "the configuration changed": reload it, then re-check everything. */
typedef uint64_t rd_probe_mask;
#define RD_MASK_CONFIG ((rd_probe_mask)1 << 63)
#define RD_MASK_ALL (~RD_MASK_CONFIG)

/* The mask of the probes with these ids (space-separated); unknown ids are
 * left out. */
rd_probe_mask rd_daemon_probes_by_id(const char *ids);
/* The facts areas the gather step of a probe fills (its descriptor's
 * areas), NULL-terminated; NULL when the probe declares none or is not in
 * the table (its re-gather then re-gathers all). */
const char *const *rd_daemon_probe_areas(const char *probe_id);
/* Re-gathers the probes in mask, in gather order, on top of facts: each
 * one's areas are reset first. A probe whose areas are unknown turns the
 * whole thing into a full gather. Level-2 probes run only when level >= 2. */
void rd_daemon_regather(const rd_ctx *ctx, rd_facts *facts, rd_probe_mask mask, int level);

/* Which probes a uevent concerns: 0 for one that changes nothing we check
 * (another vendor's PCI function, a display connector hot-plug). props is
 * a NULL-terminated list of KEY=VALUE strings, or a lookup function. */
typedef const char *(*rd_uevent_prop_fn)(void *userdata, const char *key);
rd_probe_mask rd_daemon_uevent_mask(const char *subsystem, const char *action, rd_uevent_prop_fn prop, void *userdata);
/* The probes whose descriptors name the uevent subsystem; with NULL, those
 * that name any (what a lost burst of events may have changed). */
rd_probe_mask rd_daemon_uevent_probes(const char *subsystem);
/* Every subsystem some descriptor names, once (for the udev monitor). */
char **rd_daemon_uevent_subsystems(void);

/* A file or directory the checks read, as a path on the inspected system,
 * and the probes that read it (RD_MASK_CONFIG: the configuration). */
typedef struct {
    const char *path;
    bool is_dir; /* a drop-in directory: any entry in it counts */
    rd_probe_mask mask;
} rd_watch_spec;
/* Every path the probes' descriptors say they read, once each with the
 * mask of its readers, and the configuration's files. Free *ret (the
 * paths belong to the descriptors). */
size_t rd_daemon_watch_specs(rd_watch_spec **ret);
/* Whether a change to `changed` (a path on the inspected system: the entry
 * created, deleted, renamed or written) concerns the spec: the path itself,
 * an entry of a watched directory, or a directory above the path. */
bool rd_daemon_watch_matches(const char *spec_path, bool is_dir, const char *changed);

/* The journal MESSAGE_ID of a finding id: 32 lowercase hex digits, see
 * rocm-doctord(8). */
void rd_daemon_message_id(const char *finding_id, char ret[static 33]);

/* One finding as the daemon remembers it between checks. */
typedef struct {
    char *id;
    char *gpu; /* PCI address or NULL */
    rd_severity severity;
    char *summary;
} rd_state_item;

typedef struct {
    rd_state_item *items;
    size_t n;
} rd_state;

typedef enum {
    RD_CHANGE_APPEARED,
    RD_CHANGE_RESOLVED,
    RD_CHANGE_SEVERITY, /* the same finding, another severity */
} rd_change_kind;

typedef struct {
    rd_change_kind kind;
    const rd_state_item *item; /* the new one; the old one for RESOLVED */
    rd_severity old_severity;  /* RD_CHANGE_SEVERITY only */
} rd_change;

/* Findings of severity info and above, keyed by (id, gpu). */
void rd_state_from_findings(const rd_findings *fs, rd_state *ret);
void rd_state_free(rd_state *s);
/* Changes from old to new, in new's order (appeared, changed), then the
 * resolved ones in old's order. *ret is an array of *ret_n changes pointing
 * into old and new. */
void rd_state_diff(const rd_state *old, const rd_state *new, rd_change **ret, size_t *ret_n);
/* The journal fields of one change, "FIELD=value" each, NULL-terminated. */
char **rd_daemon_journal_fields(const rd_change *c);

/* The journal fields of a fix run's verdict (verified or failed), with the
 * MESSAGE_ID of "event:fix-verification" (see rocm-doctord(8)),
 * NULL-terminated. */
char **rd_daemon_verify_fields(const char *run_id, bool verified, const char *message, const char *boot_id);

/* The STATUS= line: "1 GPU, 1 error, 2 warnings" or "2 GPUs, no problems". */
char *rd_daemon_status_line(size_t n_gpus, const rd_findings *fs);

/* Where an output path lands: under root when the daemon inspects one. */
char *rd_daemon_output_path(const char *root, const char *path);
/* Creates the missing directories above path (0755). */
int rd_daemon_mkdir_parents(const char *path);
/* Writes data to path atomically: a temporary file in the same directory,
 * fsync, mode 0644, rename over path, fsync of the directory. The directory
 * is created (0755) when missing. Nothing is left behind on failure. */
int rd_daemon_write_atomic(const char *path, const char *data, size_t size);
/* An output path of the configuration (absolute, as on the inspected
 * system): written with rd_daemon_write_atomic on the host, and under a
 * --root resolved beneath it, its directories made there; a symlink that
 * leads out of the root is refused (-EXDEV), never followed. */
int rd_daemon_write_output(const char *root, const char *path, const char *data, size_t size);
/* Creates the directories above an output path the same way. */
int rd_daemon_prepare_output(const char *root, const char *path);

/* sd_notify(3): the datagram protocol over $NOTIFY_SOCKET. No-op outside a
 * notify service. */
void rd_daemon_notify(const char *state);
/* One journal entry; returns 0, or -errno when the journal cannot be
 * reached (the caller then logs on stderr). */
int rd_daemon_journal_send(char **fields);
/* The same to the journal socket at socket_path (tests use their own). */
int rd_daemon_journal_sendto(const char *socket_path, char **fields);

typedef struct {
    const char *root;
    const char *config_file;
    bool once;
} rd_daemon_options;

/* --once: one check, the outputs written, the findings' exit status. */
int rd_daemon_run_once(const rd_daemon_options *o);
/* The daemon: returns 0 after SIGTERM/SIGINT, 3 when it cannot start. */
int rd_daemon_run(const rd_daemon_options *o);

/* "rocm-doctord: MESSAGE" on stderr (with the --help hint for a usage
 * error); rd_daemon_fail and rd_daemon_usage_error return 3. */
#define rd_daemon_log(...) rd_msg_error("rocm-doctord", __VA_ARGS__)
#define rd_daemon_fail(...) (rd_daemon_log(__VA_ARGS__), RD_EXIT_UNKNOWN)
#define rd_daemon_usage_error(...) (rd_msg_usage_error("rocm-doctord", __VA_ARGS__), RD_EXIT_UNKNOWN)
