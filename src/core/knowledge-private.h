/* SPDX-License-Identifier: MIT */
#pragma once
/* What the table loaders of knowledge-*.c share: the parse state, the
 * [table] section, the ini driver, and freeing by a list of each row's
 * owned fields. Private to src/core. */

#include <ini.h>
#include <stddef.h>
#include "knowledge.h"
#include "util.h"

typedef struct {
    rd_knowledge *k;
    rd_table_info *info;
    rd_arch *current;    /* archs.ini: the section being read */
    rd_release *release; /* support.ini: the section being read */
    bool in_table;
    bool pci_ids;        /* which table this is */
    uint64_t *ids_seen[2]; /* pci-ids.ini: a bit per device id, [pci-ids] and [apu-pci-ids] */
    char *error;         /* first error, without the file:line prefix */
} parse_state;

/* Records the first error of a table (msg is taken) and returns 0, which
 * makes inih report the line. */
int kn_fail(parse_state *st, char *msg);
int kn_parse_bool(const char *v, bool *ret);
int kn_string_key(parse_state *st, const char *section, const char *name, const char *value, char **slot);
int kn_table_key(parse_state *st, const char *name, const char *value);
bool kn_is_version(const char *s, int min_parts, int max_parts);
/* Parses path with handler h; the error names the file and the line. */
int kn_load_table(const char *path, parse_state *st, ini_handler h, char **ret_error);

/* A field a row owns: a string, or a NULL-terminated string vector. */
typedef struct {
    size_t offset;
    bool strv;
} kn_field;
#define KN_STR(type, member) { offsetof(type, member), false }
#define KN_STRV(type, member) { offsetof(type, member), true }

void kn_free_fields(void *row, const kn_field *fields, size_t n_fields);
/* Frees the fields of n rows of size bytes, then the array. */
void kn_free_rows(void *rows, size_t n, size_t size, const kn_field *fields, size_t n_fields);
#define KN_FREE_ROWS(rows, n, fields) kn_free_rows((rows), (n), sizeof(*(rows)), (fields), ELEMENTSOF(fields))
void kn_table_info_free(rd_table_info *t);

/* Each table file frees what it loaded. */
void kn_archs_free(rd_knowledge *k);
void kn_health_free(rd_knowledge *k);
void kn_wheels_free(rd_knowledge *k);
void kn_support_free(rd_knowledge *k);
void kn_packages_free(rd_knowledge *k);
