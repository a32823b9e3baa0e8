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

typedef struct {
    const char *id;
    const char *title;
    unsigned flags;
    const char *const *findings; /* NULL-terminated ids this probe can report */
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
