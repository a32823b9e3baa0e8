/* SPDX-License-Identifier: MIT */
/* Facts: apt: the sources, keyrings and pins that decide where ROCm comes from. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* One apt source entry that concerns AMD's repository, or that holds a
 * placeholder. */
typedef struct {
    char *file;
    int64_t line;
    char *format; /* "one-line" (.list) or "deb822" (.sources) */
    char *type;   /* deb, deb-src */
    char *uri;
    char *suite;
    char **components;
    char *signed_by;   /* NULL when absent */
    bool enabled;      /* deb822 Enabled: no -> false */
    char *placeholder; /* a literal @WORD@ left from a template, or NULL */
    /* AMD's moving folders (rocm/apt/latest): the Version: of the Release
     * file apt last fetched for it (/var/lib/apt/lists), the release it
     * serves today; NULL when apt has none */
    char *index_version;
} rd_apt_source;

typedef struct {
    char *path;
    bool exists;
    bool amd_key; /* holds the signing key of AMD's repository */
    bool legacy;  /* /etc/apt/trusted.gpg or trusted.gpg.d (apt-key) */
    char *error;
} rd_apt_keyring;

typedef struct {
    char *file;
    int64_t line; /* first line of the stanza */
    char *package;
    char *pin;
    int64_t priority;
} rd_apt_pin;

typedef struct {
    bool present; /* /etc/apt exists */
    rd_apt_source *sources;
    size_t n_sources;
    rd_apt_keyring *keyrings; /* signed-by targets and keyrings holding AMD's key */
    size_t n_keyrings;
    rd_apt_pin *pins; /* preferences.d stanzas that name AMD's origin */
    size_t n_pins;
    char *error;
} rd_apt_facts;
