/* SPDX-License-Identifier: MIT */
/* Package steps: the host's own package manager (apt-get and dpkg, dnf,
 * zypper) planned through its dry run, run non-interactively, and the
 * installed package list before and after a run, so that undo knows
 * exactly what the run installed, upgraded and removed. Nothing here
 * writes a package database directly. */
#pragma once

#include <json-c/json.h>
#include <stdbool.h>
#include <stdint.h>
#include "context.h"
#include "distro.h"

typedef enum {
    RD_PM_NONE,
    RD_PM_APT,
    RD_PM_DNF,
    RD_PM_ZYPPER,
} rd_pm;

/* The kinds of package change, in the one order everything lists them
 * (the plan's counts, the journal's lists, fix --status). */
typedef enum {
    RD_PKG_INSTALL,
    RD_PKG_UPGRADE,
    RD_PKG_DOWNGRADE,
    RD_PKG_REMOVE,
    RD_PKG_OP_MAX,
} rd_pkg_op;

typedef struct {
    const char *verb; /* the plan's "op" and its text: "install" */
    const char *done; /* the journal's list and fix --status: "installed" */
} rd_pkg_kind;

/* Indexed by rd_pkg_op (pkg-record.c). */
extern const rd_pkg_kind rd_pkg_kinds[RD_PKG_OP_MAX];

/* The package record: one package and what a transaction does (or did)
 * to it. */
typedef struct {
    rd_pkg_op op;
    char *name;
    char *version;     /* the version it will have (REMOVE: the one removed) */
    char *old_version; /* UPGRADE, DOWNGRADE: the version it had */
    uint64_t size;     /* bytes to download, 0 when unknown or none */
} rd_pkg_change;

typedef struct {
    rd_pkg_change *items;
    size_t n;
    uint64_t download; /* total bytes to download */
    bool download_known;
} rd_pkg_changes;

/* What a package action does: the names asked for and what the dry run
 * said the package manager will do about them. */
typedef struct {
    rd_pm pm;
    char **install;         /* names to install or upgrade */
    char **remove;          /* names to remove */
    bool refresh;           /* refresh the indexes first (a repository was just written) */
    int64_t lock_timeout_s; /* how long to wait for another process's package manager lock */
    char *import_key;       /* dnf, zypper under --root: the key file (in the root) to import first */
    rd_pkg_changes changes;
} rd_pkg_set;

rd_pm rd_pm_of_family(rd_os_family f);
const char *rd_pm_name(rd_pm pm);
rd_pm rd_pm_from_name(const char *name);
const char *rd_pkg_op_name(rd_pkg_op op);

void rd_pkg_changes_free(rd_pkg_changes *c);
void rd_pkg_set_free(rd_pkg_set *s);
rd_pkg_set *rd_pkg_set_copy(const rd_pkg_set *s);
/* "1.2 MB" */
char *rd_pkg_size_text(uint64_t bytes);

/* ---- parsers of the package managers' own output (pure) ---- */

/* apt-get -s: "Inst NAME [OLD] (NEW ...)" and "Remv NAME [VERSION]" lines. */
void rd_pkg_parse_apt_sim(const char *text, rd_pkg_changes *ret);
/* apt-get --print-uris: "'URI' FILE SIZE HASH" lines give the sizes. */
void rd_pkg_parse_apt_uris(const char *text, rd_pkg_changes *c);
/* dnf --assumeno: the transaction table and "Total download size". */
void rd_pkg_parse_dnf(const char *text, rd_pkg_changes *ret);
/* zypper --xmlout ... --dry-run: <install-summary> with its solvables. */
void rd_pkg_parse_zypper_xml(const char *text, rd_pkg_changes *ret);
/* Two installed lists ("NAME\tVERSION" lines) to the changes between them. */
void rd_pkg_diff(const char *before, const char *after, rd_pkg_changes *ret);
/* dpkg-query "${db:Status-Abbrev}\tNAME\tVERSION" lines: the names of the
 * packages dpkg has not finished (status other than installed, not
 * installed or config-files; or the reinstallation-required flag). */
char **rd_pkg_parse_unfinished(const char *text);
/* apt-cache policy NAME: whether a source other than dpkg's status file
 * is listed under version's row of the version table. */
bool rd_pkg_parse_apt_policy(const char *text, const char *version);
/* The version of name in an installed list, or NULL. */
char *rd_pkg_list_version(const char *list, const char *name);

/* ---- running the package manager ---- */

/* Refuses (-EXDEV, -EINVAL) a --root whose package state the package
 * manager would find elsewhere than the root's own programs do: a path of
 * dpkg's admin dir, the rpm database, apt's, dnf's and zypper's state,
 * caches, logs and configuration that leads outside the root (a relative
 * link climbing out, an absolute link the host follows to its own tree),
 * or a state file that is not a regular file (a FIFO would hang dpkg).
 * *ret_error names the path. 0 for "/" and a sound root. The root is the
 * context's, resolved once (rd_ctx_open_root). */
int rd_pkg_root_confined(const rd_ctx *ctx, char **ret_error);
/* The installed packages of the root (root and root_fd as a context holds
 * them), "NAME\tVERSION" lines sorted by name. */
int rd_pkg_installed(rd_pm pm, const char *root, int root_fd, char **ret, char **ret_error);
/* Waits (up to timeout_s seconds) until no other process holds the
 * package manager's lock in the root; -EBUSY with the holder's pid in
 * *ret_error otherwise. */
int rd_pkg_wait_lock(rd_pm pm, const char *root, int64_t timeout_s, char **ret_error);
/* Refreshes the indexes (apt-get update, dnf makecache, zypper refresh). */
int rd_pkg_refresh(rd_pm pm, const char *root, char **ret_error);
enum {
    RD_PKG_ALLOW_DOWNGRADE = 1 << 0,
    RD_PKG_PURGE = 1 << 1, /* apt: removed packages lose their configuration files too */
};
/* One transaction: install (NAME or NAME=VERSION), remove names; flags
 * RD_PKG_*. Non-interactive. */
int rd_pkg_transact(rd_pm pm, const char *root, char *const *install, char *const *remove, unsigned flags,
                    char **ret_error);
/* The packages dpkg has not finished: unpacked, half-configured,
 * half-installed, awaiting triggers, or needing reinstallation (NULL for
 * rpm, which has no such states). */
int rd_pkg_unfinished(rd_pm pm, const char *root, char ***ret, char **ret_error);
/* Removes names whatever state they are in and whatever their maintainer
 * scripts say: dpkg --purge --force-remove-reinstreq --force-depends, rpm
 * -e --noscripts --nodeps. Only for what a run installed itself. */
int rd_pkg_force_remove(rd_pm pm, const char *root, char *const *names, char **ret_error);
/* What removing names (and, for apt, installing install: NAME=VERSION,
 * downgrades allowed) would also remove: packages that depend on them or
 * on the versions they have now and are not among names, from the package
 * manager's dry run. */
int rd_pkg_dependents(rd_pm pm, const char *root, char *const *install, char *const *names, char ***ret,
                      char **ret_error);
/* Whether a repository the root's package manager reads offers name at
 * version (apt-cache policy), so that what is removed can be put back:
 * 1 yes, 0 no (a package installed from a local file). dnf and zypper:
 * 1. */
int rd_pkg_reinstallable(rd_pm pm, const char *root, const char *name, const char *version, char **ret_error);
/* The imported rpm keys (gpg-pubkey-VERSION-RELEASE lines, sorted); NULL
 * for apt. */
char *rd_pkg_pubkeys(rd_pm pm, const char *root);
/* Under a --root, dnf and zypper read a repository's gpgkey= file from the
 * host, not from the root: the key the plan wrote into the root is
 * imported into the root's rpm database first (rpm --root --import). */
int rd_pkg_import_key(rd_pm pm, const char *root, const char *key_path, char **ret_error);
int rd_pkg_remove_pubkeys(const char *root, char *const *names, char **ret_error);
/* dpkg --configure -a after an interrupted dpkg run (apt only; 0 otherwise). */
int rd_pkg_repair(rd_pm pm, const char *root, char **ret_error);

/* The dry run of a transaction against the root, with the repository
 * files the plan is about to write laid over the root's own (overlay_dir:
 * a directory holding etc/ as the root would have it after the plan's
 * file steps, or NULL for the root as it is). */
int rd_pkg_dry_run(rd_pm pm, const char *root, const char *overlay_dir, char *const *install, char *const *remove,
                   rd_pkg_changes *ret, char **ret_error);

/* ---- the package record as JSON (pkg-record.c): the one writer and reader ----
 *
 * A record is {"op", "name", "version", "old_version", "size"}: "op" only
 * where the record is not in a list of its kind, "old_version" and "size"
 * only when known. The plan's "packages" and the journal's "planned" are
 * arrays of records with "op"; the journal's "installed", "upgraded",
 * "downgraded" and "removed" (what a run did) are lists of records without
 * it, the list saying the kind. */

/* The kind named verb ("install"), or -EINVAL. */
int rd_pkg_op_from_name(const char *verb);
json_object *rd_pkg_change_to_json(const rd_pkg_change *x, bool with_op);
/* An array of records with "op". */
json_object *rd_pkg_changes_to_json(const rd_pkg_changes *c);
/* The four lists, by kind, added to o. */
void rd_pkg_changes_to_lists(const rd_pkg_changes *c, json_object *o);
/* One record; op is its kind when it has no "op". -EBADMSG when it has no
 * name or an "op" that names no kind (*ret untouched then). */
int rd_pkg_change_from_json(json_object *o, rd_pkg_op op, rd_pkg_change *ret);
/* Appends the records of an array with "op" to *ret (skipping those
 * without a name); -EBADMSG when a is not an array. */
int rd_pkg_changes_from_json(json_object *a, rd_pkg_changes *ret);
/* Appends the records of o's four lists to *ret, kind by kind (skipping
 * those without a name); -ENOENT when o has no "installed" list (the run
 * did not get as far as recording what it did). */
int rd_pkg_changes_from_lists(json_object *o, rd_pkg_changes *ret);
/* Frees what x holds. */
void rd_pkg_change_clear(rd_pkg_change *x);
/* Appends a copy of x to c. */
rd_pkg_change *rd_pkg_changes_add(rd_pkg_changes *c, const rd_pkg_change *x);
