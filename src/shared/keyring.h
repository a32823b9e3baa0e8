/* SPDX-License-Identifier: MIT */
/* OpenPGP keyrings, read without gpg: enough to tell whether a key is in one. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

/* Whether an OpenPGP keyring (binary, or ASCII-armored) holds a key whose
 * 64-bit id (16 hex digits) is key_id: looks for it in the issuer data of
 * the signatures. */
bool rd_keyring_has_key(const unsigned char *data, size_t size, const char *key_id);
