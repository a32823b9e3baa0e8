/* SPDX-License-Identifier: MIT */
#pragma once

#include "context.h"
#include "facts.h"
#include "findings.h"
#include "gpus.h"

/* Runs every probe's gather step against the live host and ctx's root. */
void rd_gather(const rd_ctx *ctx, rd_facts *facts);
/* Runs the level-2 probes (the runtime): after rd_gather. */
void rd_gather_level2(const rd_ctx *ctx, rd_facts *facts);
/* Pure: facts in, GPU view and sorted findings out. */
void rd_assess(const rd_facts *facts, const rd_knowledge *k, rd_gpu_view *ret_view, rd_findings *ret_findings);
