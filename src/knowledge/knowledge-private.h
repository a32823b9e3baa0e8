/* SPDX-License-Identifier: MIT */
#pragma once
/* What the table loaders of knowledge-*.c share: the parse state, the
 * [table] section, the ini driver, and the schemas their rows are freed
 * by. Private to src/core. */

#include <ini.h>
#include <stddef.h>
#include "knowledge.h"
#include "schema.h"
#include "util.h"

typedef struct {
    rd_knowledge *k;
    rd_table_info *info;
    rd_arch *current;    /* archs.ini: the section being read */
    rd_release *release; /* support.ini: the section being read */
    bool in_table;
    bool pci_ids;          /* which table this is */
    uint64_t *ids_seen[2]; /* pci-ids.ini: a bit per device id, [pci-ids] and [apu-pci-ids] */
    char *error;           /* first error, without the file:line prefix */
    ini_handler rows;      /* the table's own keys: every section but [table] */
} parse_state;

/* Records the first error of a table (msg is taken) and returns 0, which
 * makes inih report the line. */
int kn_fail(parse_state *st, char *msg);
int kn_parse_bool(const char *v, bool *ret);
int kn_string_key(parse_state *st, const char *section, const char *name, const char *value, char **slot);
int kn_table_key(parse_state *st, const char *name, const char *value);
bool kn_is_version(const char *s, int min_parts, int max_parts);
/* 40 upper-case hex digits: an OpenPGP v4 fingerprint as the tables write it. */
bool kn_is_fingerprint(const char *s);
/* Parses path with handler h; the error names the file and the line. */
int kn_load_table(const char *path, parse_state *st, ini_handler h, char **ret_error);

/* The schemas of the rows each table file loads; knowledge.c frees
 * rd_knowledge by its own schema built from them. */
extern const rd_schema kn_arch_schema, kn_pci_id_schema;
extern const rd_schema kn_release_schema, kn_rpm_schema;
extern const rd_schema kn_product_memory_schema, kn_product_left_out_schema, kn_firmware_bad_schema;
extern const rd_schema kn_wheel_family_schema;
extern const rd_schema kn_packages_schema;
extern const rd_schema kn_repo_schema;
extern const rd_schema kn_table_info_schema;
