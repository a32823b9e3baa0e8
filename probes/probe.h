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
    void (*gather)(const rd_ctx *ctx, rd_facts *facts);
    void (*assess)(const rd_assess_input *in, rd_findings *out);
} rd_probe;

extern const rd_probe rd_probe_os, rd_probe_pci, rd_probe_drm, rd_probe_kfd, rd_probe_driver,
    rd_probe_access;
/* rocm.c apt.c boot.c: installation, apt, Secure Boot and DKMS */
extern const rd_probe rd_probe_rocm, rd_probe_apt, rd_probe_boot;
/* env.c apu.c container.c tuning.c torch.c */
extern const rd_probe rd_probe_env, rd_probe_apu, rd_probe_container, rd_probe_tuning, rd_probe_torch;
/* runtime.c: level 2 */
extern const rd_probe rd_probe_runtime;

/* In gather order: access needs the render nodes that drm and kfd found. */
extern const rd_probe *const rd_probes[];
extern const size_t rd_n_probes;
/* In assess order. */
extern const rd_probe *const rd_assess_order[];
extern const size_t rd_n_assess_order;
