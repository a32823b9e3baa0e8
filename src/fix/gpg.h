/* SPDX-License-Identifier: MIT */
/* OpenPGP keys the repository fixes install (apt, dnf, zypper): their
 * primary-key fingerprints read with gpg in a scratch home under /tmp, and
 * the check against the configured fingerprint. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

typedef struct {
    char home[64]; /* "" until rd_gpg_begin */
} rd_gpg;

/* Creates the scratch home; rd_gpg_end removes it and all in it. */
int rd_gpg_begin(rd_gpg *g, char **ret_reason);
void rd_gpg_end(rd_gpg *g);
#define _cleanup_gpg_ __attribute__((cleanup(rd_gpg_end)))

/* The primary-key fingerprints (upper-case hex) in a key file, armored or
 * binary; -EINVAL and the reason when gpg cannot read it or it holds no key.
 * A file that is not a regular file (a FIFO, /dev/zero) is refused at
 * once, before gpg reads it. */
int rd_gpg_fingerprints(const rd_gpg *g, const char *file, char ***ret, char **ret_reason);
/* Whether the keys of a key file can sign: -EKEYREVOKED when a primary key
 * is revoked, -EKEYEXPIRED when it has expired, the reason saying so and
 * since when (YYYY-MM-DD, UTC, from gpg, which checks the signatures).
 * apt and rpm reject every Release or package such a key signs. shown:
 * the file as the reason names it (the URL of a downloaded key). */
int rd_gpg_key_usable(const rd_gpg *g, const char *file, const char *shown, char **ret_reason);

/* The same for a key or keyring held in memory (armored: ASCII armor). */
int rd_gpg_fingerprints_of(const char *data, size_t size, bool armored, char ***ret, char **ret_reason);

/* Whether fpr is the key `want` names: a full fingerprint, or a 16-digit
 * long key id, in any case, with or without spaces and colons. */
bool rd_gpg_fpr_matches(const char *fpr, const char *want);

/* Downloads a key over HTTPS only (curl) into the scratch home; *ret_path
 * is the file. The reason names the URL and what curl said, and the
 * --key-file way around for a host that cannot reach it. */
int rd_gpg_download(const rd_gpg *g, const char *url, char **ret_path, char **ret_reason);
