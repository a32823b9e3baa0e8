/* SPDX-License-Identifier: MIT */
#pragma once

#include "context.h"
#include "facts.h"
#include "findings.h"
#include "gpus.h"
#include "probe.h"

/* Runs every probe's gather step against the live host and ctx's root. */
void rd_gather(const rd_probe_table *t, const rd_ctx *ctx, rd_facts *facts);
/* Runs the level-2 probes (the runtime): after rd_gather. */
void rd_gather_level2(const rd_probe_table *t, const rd_ctx *ctx, rd_facts *facts);
/* Pure: facts in, GPU view and sorted findings out. */
void rd_assess(const rd_probe_table *t, const rd_facts *facts, const rd_knowledge *k, rd_gpu_view *ret_view,
               rd_findings *ret_findings);
/* The same with the configuration's limits (NULL: the defaults). */
void rd_assess_with_config(const rd_probe_table *t, const rd_facts *facts, const rd_knowledge *k,
                           const struct rd_config *config, rd_gpu_view *ret_view, rd_findings *ret_findings);
/* Whether a probe of t (or the configuration) can report id at all; and
 * whether an assess step of t checks it at the given level (the runtime's
 * findings need level 2). */
bool rd_probe_table_knows(const rd_probe_table *t, const char *id);
bool rd_probe_table_can_check(const rd_probe_table *t, const char *id, int level);
