/* SPDX-License-Identifier: MIT */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "util.h"

/* Field descriptors: one table per struct drives JSON out, JSON in and free,
 * so the three can never disagree about a field. */
typedef enum {
    RD_FT_STR,  /* char *, null when NULL */
    RD_FT_BOOL, /* bool */
    RD_FT_INT,  /* int64_t */
    RD_FT_U64,  /* uint64_t */
    RD_FT_DOUBLE,
    RD_FT_STRV, /* char ** NULL-terminated */
    RD_FT_I64V, /* int64_t * + size_t count */
    RD_FT_U64V, /* uint64_t * + size_t count */
    RD_FT_KV,   /* rd_kv * + size_t count, as a JSON object in order */
    RD_FT_OBJ,  /* embedded struct */
    RD_FT_ARR,  /* struct * + size_t count */
} rd_field_type;

typedef struct rd_schema rd_schema;

typedef struct {
    const char *name;
    rd_field_type type;
    size_t offset;
    size_t count_offset;
    const rd_schema *sub;
    bool ranged; /* RD_FT_INT: refuse values outside [min, max] on load */
    int64_t min, max;
} rd_field;

struct rd_schema {
    const char *name;
    size_t size;
    const rd_field *fields;
    size_t n_fields;
};

/* clang-format off */
/* Building blocks for the tables: F a scalar, FN a vector with its count,
 * FS an embedded struct, FA an array of structs with its count. */
#define F(st, field, t) { #field, t, offsetof(st, field), 0, NULL }
#define FN(st, field, t, cnt) { #field, t, offsetof(st, field), offsetof(st, cnt), NULL }
/* FR: an integer that must lie in [lo, hi] (a PCI id is 16 bits: -1 is no id). */
#define FR(st, field, lo, hi) { #field, RD_FT_INT, offsetof(st, field), 0, NULL, true, lo, hi }
#define FS(st, field, sub) { #field, RD_FT_OBJ, offsetof(st, field), 0, &sub }
#define FA(st, field, cnt, sub) { #field, RD_FT_ARR, offsetof(st, field), offsetof(st, cnt), &sub }
#define SCHEMA(var, st, tbl) const rd_schema var = { #st, sizeof(st), tbl, ELEMENTSOF(tbl) }
/* clang-format on */

/* Frees what the fields of *p own (strings, vectors, arrays of structs,
 * recursively) and zeroes *p. */
void rd_struct_free(const rd_schema *s, void *p);
