/* SPDX-License-Identifier: MIT */
/* A probe is data: an id, a title, flags, a gather step that reads the host
 * into facts (never fails: it records "unknown, because ..."), and a pure
 * assess step that turns facts into findings. */
#pragma once

#include "context.h"
#include "facts.h"
#include "findings.h"
#include "gpus.h"
#include "knowledge.h"
#include "catalogue.h"

struct rd_config;

typedef struct {
    const rd_facts *facts;
    const rd_knowledge *knowledge;
    const rd_gpu_view *gpus;
    const struct rd_config *config; /* limits of checks that have them; NULL: the defaults */
} rd_assess_input;

enum {
    RD_PROBE_LEVEL2 = 1 << 0,
};

/* A file or directory a gather step reads, as a path on the inspected
 * system (under --root). */
typedef struct {
    const char *path;
    bool is_dir; /* a drop-in directory: any entry in it counts */
} rd_probe_input;

/* A NULL-terminated list of strings, for descriptors. */
#define RD_STRV(...) ((const char *const[]){ __VA_ARGS__, NULL })

typedef struct {
    const char *id;
    const char *title;
    unsigned flags;
    const char *const *findings; /* NULL-terminated ids this probe can report */
    /* What the probe reads, so the daemon and the docs derive from it
     * instead of repeating it: */
    const char *const *areas;    /* facts areas its gather step fills (rd_facts_schema names) */
    const rd_probe_input *reads; /* files and directories it reads; ends with { NULL } */
    const char *const *uevents;  /* uevent subsystems whose events change what it sees;
                                  * "drm/WEDGED": the DRM core's wedged event */
    /* Other probes' findings its assess step reads (a cause it names
     * instead of repeating it), NULL-terminated: the assess order must put
     * the probes that report them first (rd_probe_table_check). */
    const char *const *needs;
    unsigned needs_flags; /* ... and every finding of the catalogue with one of these flags */
    void (*gather)(const rd_ctx *ctx, rd_facts *facts);
    void (*assess)(const rd_assess_input *in, rd_findings *out);
} rd_probe;

/* The probes, in gather order; the assess order is sorted from it by
 * .needs (rd_probe_assess_order). The table itself lives with the probes
 * (probes/registry.c); the core only walks what it is given, so it never
 * depends on the probes. */
typedef struct {
    const rd_probe *const *gather;
    size_t n_gather;
} rd_probe_table;

/* The finding the configuration itself reports (rd_config_apply). */
#define RD_CONFIG_FINDING RD_FINDING(GPU_COUNT_MISMATCH)

/* The assess order: t's order, except that a probe comes after every
 * probe that reports a finding it reads (.needs, .needs_flags), into
 * ret_order (t->n_gather entries). -EINVAL when a probe reads a finding
 * no probe reports, -ELOOP when probes read each other's findings, with
 * *ret_error saying which. */
int rd_probe_assess_order(const rd_probe_table *t, const rd_probe **ret_order, char **ret_error);
/* The same check, for the table's test. */
int rd_probe_table_check(const rd_probe_table *t, char **ret_error);
