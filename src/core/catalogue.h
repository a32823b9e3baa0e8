/* SPDX-License-Identifier: MIT */
/* The finding catalogue (catalogue.def): every finding id declared once,
 * with the worst severity it is reported with and what it means to the
 * findings that read it. Probes, fixes and the runtime name a finding by
 * its symbol, RD_FINDING(DRIVER_KERNEL_TOO_OLD), so a misspelt id does not
 * compile. */
#pragma once

#include "findings.h"

/* What a finding means to the probes assessed after it. */
enum {
    RD_FINDING_NO_GPU = 1 << 0,  /* stops the runtime from opening the GPUs */
    RD_FINDING_BAD_ISA = 1 << 1, /* gives the runtime a GPU whose code it cannot run */
};

typedef enum {
#define RD_FINDING_DEF(sym, id, sev, flags) RD_FINDING_##sym##_ROW,
#include "catalogue.def"
#undef RD_FINDING_DEF
    RD_N_FINDINGS
} rd_finding_row;

/* Long enough for every id (catalogue.c checks each). */
#define RD_FINDING_ID_SIZE 40

typedef struct {
    /* an array, not a pointer: RD_FINDING() is then an address constant
     * that the probes' static descriptors may hold */
    char id[RD_FINDING_ID_SIZE];
    rd_severity severity; /* the worst it is reported with */
    unsigned flags;
} rd_finding_def;

extern const rd_finding_def rd_finding_catalogue[RD_N_FINDINGS];

/* The id of a catalogue row by its symbol: RD_FINDING(GPU_NONE) is "gpu.none". */
#define RD_FINDING(sym) (rd_finding_catalogue[RD_FINDING_##sym##_ROW].id)

/* The row of id, or NULL when the catalogue has none. */
const rd_finding_def *rd_finding_lookup(const char *id);
