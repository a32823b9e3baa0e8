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

typedef struct kn_rows kn_rows;

typedef struct {
    rd_knowledge *k;
    const kn_rows *rows_of; /* the table's sections and keys */
    rd_table_info *info;
    rd_arch *current;    /* archs.ini: the section being read */
    rd_release *release; /* support.ini: the section being read */
    bool in_table;
    uint64_t *ids_seen[2]; /* pci-ids.ini: a bit per device id, [pci-ids] and [apu-pci-ids] */
    char *error;           /* first error, without the file:line prefix */
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

/* The row table of a knowledge table (as config.c's key table is the
 * configuration's): its sections, each with the struct its keys fill and
 * one row per key; kn_rows_handle routes inih's key to its row. What a
 * loader keeps to itself are its rules: the checks of values that a type
 * does not say, and the checks across rows once the table is read. */
typedef enum {
    KN_STRING, /* char *: the value, checked by check() when given */
    KN_BOOL,   /* bool: yes, true, 1 or no, false, 0 */
    KN_WORDS,  /* char **: the value split at blanks (and commas with .commas), each checked by check() */
    KN_PARSE,  /* parse() fills the struct */
} kn_type;

typedef struct kn_key {
    const char *name; /* NULL: any key (a section whose keys are data: [pci-ids], [vram]) */
    kn_type type;
    size_t offset; /* of the field in the section's struct */
    /* KN_STRING, KN_WORDS: NULL when the value (a word) is fine, else the
     * reason; the key's name is passed for messages */
    char *(*check)(parse_state *st, const char *name, const char *value);
    /* KN_PARSE: 1, or kn_fail's 0 */
    int (*parse)(parse_state *st, void *obj, const char *name, const char *value);
    bool commas;   /* KN_WORDS: commas separate too */
    bool nonempty; /* KN_WORDS: "NAME is empty" when no word */
    bool unique;   /* KN_WORDS: "NAME: W is listed twice" */
} kn_key;

typedef struct {
    /* the section's name; with .per_row the prefix of its sections
     * ("rocm ": [rocm 6.4], a row each) */
    const char *name;
    bool per_row;
    /* *ret: the struct its keys fill; for a fixed section the table's, for
     * .per_row the row of this section (arg: the name after the prefix),
     * new when the section starts. 1; 0: refused, kn_fail recorded; -1:
     * not a section of this table after all (arg malformed) */
    int (*object)(parse_state *st, const char *section, const char *arg, void **ret);
    const kn_key *keys;
    size_t n_keys;
    const char *unknown_key_hint; /* after "unknown key \"K\" in [S]": " (apt, dnf or zypper)" */
} kn_section;

struct kn_rows {
    const kn_section *sections;
    size_t n_sections;
    /* "section [S] is " this, for a section none of them is; NULL:
     * "unknown section [S]" */
    const char *sections_are;
};

#define KN_KEYS(keys) keys, ELEMENTSOF(keys)
#define KN_STR(n, s, f)                                                                                                \
    {                                                                                                                  \
        n, KN_STRING, offsetof(s, f), NULL, NULL, false, false, false                                                  \
    }
/* The struct of a fixed section of rd_knowledge. */
int kn_whole(parse_state *st, const char *section, const char *arg, void **ret);

/* Records the first error of a table (msg is taken) and returns 0, which
 * makes inih report the line. */
int kn_fail(parse_state *st, char *msg);
int kn_parse_bool(const char *v, bool *ret);
bool kn_is_version(const char *s, int min_parts, int max_parts);
/* 40 upper-case hex digits: an OpenPGP v4 fingerprint as the tables write it. */
bool kn_is_fingerprint(const char *s);
/* The check of a fingerprint key (KN_STRING): 40 upper-case hex digits. */
char *kn_fingerprint_value(parse_state *st, const char *name, const char *value);
/* Parses path by its row table (st->rows_of) and checks [table]; the
 * error names the file and the line. */
int kn_load_table(const char *path, parse_state *st, char **ret_error);
/* Parses st->pos .. st->end (st->line: the lines before it) by its row
 * table, stopping before a section that starts with st->stop_before; the error
 * names path and the line. Does not check [table]. */
int kn_parse_text(const char *path, parse_state *st, char **ret_error);
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
