/* SPDX-License-Identifier: MIT */
/* OpenPGP keyrings, read without gpg: enough to tell whether a key is in one. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

/* The v4 fingerprints (40 upper-case hex digits) of the primary keys in an
 * OpenPGP keyring (binary, or ASCII-armored), computed from their public
 * key packets (SHA-1 of 0x99, the two-byte length and the packet body);
 * subkeys, signatures and other packets are not keys of their own. NULL
 * when there is none. Reads the packets only: no signature is checked. */
char **rd_keyring_fingerprints(const unsigned char *data, size_t size);

/* Whether a primary key of the keyring is `key`: a full fingerprint (40
 * hex digits, compared whole) or a 64-bit key id (16 hex digits, the low
 * bits of the fingerprint), any case, blanks and colons ignored. A key id
 * that only appears in a signature (a foreign key carrying a copy of the
 * key's signature) does not count. */
bool rd_keyring_has_key(const unsigned char *data, size_t size, const char *key);
