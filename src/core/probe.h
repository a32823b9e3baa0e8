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

typedef struct {
    const rd_facts *facts;
    const rd_knowledge *knowledge;
    const rd_gpu_view *gpus;
} rd_assess_input;

enum {
    RD_PROBE_LEVEL2 = 1 << 0,
};

typedef struct {
    const char *id;
    const char *title;
    unsigned flags;
    const char *const *findings; /* NULL-terminated ids this probe can report */
    /* NULL-terminated ids of other probes' findings its assess reads (a cause
     * it names instead of repeating it): the assess order must put the probes
     * that report them first, which rd_probe_table_check verifies. */
    const char *const *reads;
    void (*gather)(const rd_ctx *ctx, rd_facts *facts);
    void (*assess)(const rd_assess_input *in, rd_findings *out);
} rd_probe;

/* The probes, in gather order and in assess order. The table itself lives
 * with the probes (probes/registry.c); the core only walks what it is given,
 * so it never depends on the probes. */
typedef struct {
    const rd_probe *const *gather;
    size_t n_gather;
    const rd_probe *const *assess;
    size_t n_assess;
} rd_probe_table;

/* The finding the configuration itself reports (rd_config_apply). */
#define RD_CONFIG_FINDING "gpu.count-mismatch"

/* -EINVAL when a probe reads a finding that no probe assessed before it
 * reports, with *ret_error saying which. */
int rd_probe_table_check(const rd_probe_table *t, char **ret_error);
