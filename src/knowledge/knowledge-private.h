/* SPDX-License-Identifier: MIT */
#pragma once
/* What the table loaders of knowledge-*.c share: the parse state, the
 * [table] section, the ini driver, the tables loaded on first use, and the
 * schemas their rows are freed by. Private to src/knowledge. */

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
    /* the text read (kn_parse_text): where the reader is, the line it read
     * last, and the section prefix it stops before (NULL: the end) */
    const char *start, *pos, *end;
    unsigned line;
    const char *stop_before;
} parse_state;

/* The tables not loaded yet, as rd_knowledge_open leaves them: each is
 * loaded on first use (rd_knowledge_need) and only once. repos.ini is
 * read in two steps: its [table] and [key] (what the apt probe's gather
 * step needs), then, only when a query asks for them, its release rows,
 * parsed from where the first step stopped. */
struct kn_lazy {
    char *dir;
    unsigned loaded;  /* RD_KT_ bits: loaded, absent (optional), or failed */
    char *error;      /* the first table that failed: file:line: reason */
    int error_code;   /* its -errno */
    char *repos_text; /* repos.ini as read by the first step */
    size_t repos_pos; /* where its release rows start */
    unsigned repos_line;
};

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
/* Parses st->pos .. st->end (st->line: the lines before it) with handler
 * h, stopping before a section that starts with st->stop_before; the error
 * names path and the line. Does not check [table]. */
int kn_parse_text(const char *path, parse_state *st, ini_handler h, char **ret_error);
/* Reads path whole into *ret_text and sets st to read it. */
int kn_read_table(const char *path, parse_state *st, char **ret_text, char **ret_error);
/* The [table] section stated name, version and date. */
int kn_check_info(const char *path, const rd_table_info *info, char **ret_error);
/* repos.ini in two steps (knowledge-repos.c): its [table] and [key] from
 * text, leaving st->pos and st->line at its first release; then the rows
 * from there. */
int kn_load_repos_key(const char *path, parse_state *st, char **ret_error);
int kn_load_repos_rows(const char *path, parse_state *st, char **ret_error);

/* The schemas of the rows each table file loads; knowledge.c frees
 * rd_knowledge by its own schema built from them. */
extern const rd_schema kn_arch_schema, kn_pci_id_schema;
extern const rd_schema kn_release_schema, kn_rpm_schema;
extern const rd_schema kn_product_memory_schema, kn_product_left_out_schema, kn_firmware_bad_schema;
extern const rd_schema kn_wheel_family_schema;
extern const rd_schema kn_packages_schema;
extern const rd_schema kn_repo_schema;
extern const rd_schema kn_table_info_schema;
