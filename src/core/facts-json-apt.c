/* SPDX-License-Identifier: MIT */
/* The schema of the apt facts (facts-apt.h). */
#include "facts-json.h"

static const rd_field source_fields[] = {
    F(rd_apt_source, file, RD_FT_STR),          F(rd_apt_source, line, RD_FT_INT),
    F(rd_apt_source, format, RD_FT_STR),        F(rd_apt_source, type, RD_FT_STR),
    F(rd_apt_source, uri, RD_FT_STR),           F(rd_apt_source, suite, RD_FT_STR),
    F(rd_apt_source, components, RD_FT_STRV),   F(rd_apt_source, signed_by, RD_FT_STR),
    F(rd_apt_source, enabled, RD_FT_BOOL),      F(rd_apt_source, placeholder, RD_FT_STR),
    F(rd_apt_source, index_version, RD_FT_STR),
};

static SCHEMA(source_schema, rd_apt_source, source_fields);

static const rd_field keyring_fields[] = {
    F(rd_apt_keyring, path, RD_FT_STR),     F(rd_apt_keyring, exists, RD_FT_BOOL),
    F(rd_apt_keyring, amd_key, RD_FT_BOOL), F(rd_apt_keyring, legacy, RD_FT_BOOL),
    F(rd_apt_keyring, error, RD_FT_STR),
};

static SCHEMA(keyring_schema, rd_apt_keyring, keyring_fields);

static const rd_field pin_fields[] = {
    F(rd_apt_pin, file, RD_FT_STR), F(rd_apt_pin, line, RD_FT_INT),     F(rd_apt_pin, package, RD_FT_STR),
    F(rd_apt_pin, pin, RD_FT_STR),  F(rd_apt_pin, priority, RD_FT_INT),
};

static SCHEMA(pin_schema, rd_apt_pin, pin_fields);

static const rd_field apt_fields[] = {
    F(rd_apt_facts, present, RD_FT_BOOL),
    FA(rd_apt_facts, sources, n_sources, source_schema),
    FA(rd_apt_facts, keyrings, n_keyrings, keyring_schema),
    FA(rd_apt_facts, pins, n_pins, pin_schema),
    F(rd_apt_facts, error, RD_FT_STR),
};

SCHEMA(rd_apt_facts_schema, rd_apt_facts, apt_fields);
