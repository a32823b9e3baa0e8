/* SPDX-License-Identifier: MIT */
/* Level 2: the ROCm runtime loaded as applications load it, and a kernel on
 * every GPU. All of it runs in a child process in its own process group
 * with a deadline, so a hung or crashing GPU stack cannot hang or crash
 * rocm-doctor (or the boot it checks). The child reports through a pipe, one
 * JSON object a line: {"stage": ...} before each step that can hang or
 * crash, {"runtime": ...} snapshots of what it learned, {"done": true}. */
#pragma once

#include "context.h"
#include "facts.h"

#define RD_RUNTIME_DEFAULT_TIMEOUT_S 20

/* Fills facts->runtime (level-1 facts are read to pick each GPU's code
 * object when the runtime cannot say). Never fails: what went wrong is in
 * the facts. */
void rd_runtime_gather(const rd_ctx *ctx, rd_facts *facts);

/* The code object version a HIP runtime of this hipRuntimeGetVersion()
 * calls for: 4 for ROCm 5 (50221153), 5 from ROCm 6 on and when unknown. */
int rd_runtime_code_object_version(int64_t hip_runtime_version);

/* "gfx90a" from "amdgcn-amd-amdhsa--gfx90a:sramecc+:xnack-"; false when
 * isa is not of that form. */
bool rd_runtime_isa_gfx(const char *isa, char *buf, size_t size);
