/* SPDX-License-Identifier: MIT */
/* The per-GPU view: each AMD display device joined with its DRM nodes and
 * KFD nodes (several for a partitioned MI300). Pure: computed from facts. */
#pragma once

#include "facts.h"
#include "knowledge.h"

typedef struct {
    const rd_pci_device *pci;
    const rd_drm_device *drm; /* NULL when no DRM node belongs to it */
    const rd_kfd_node **kfd;  /* its KFD GPU nodes, in node order */
    size_t n_kfd;
    char gfx[16];        /* "" when unknown */
    bool gfx_from_kfd;   /* else a PCI-id table hint */
    const rd_arch *arch; /* NULL for a gfx the tables lack */
    bool integrated;
    uint64_t vram_bytes;
    const char *name;          /* best human name */
    const rd_pci_device *link; /* device whose link is the slot's */
} rd_gpu;

typedef struct {
    rd_gpu *gpus;
    size_t n_gpus;
    const rd_kfd_node **unmatched; /* KFD GPU nodes with no PCI device */
    size_t n_unmatched;
} rd_gpu_view;

void rd_gpu_view_build(const rd_facts *f, const rd_knowledge *k, rd_gpu_view *ret);
void rd_gpu_view_free(rd_gpu_view *v);

bool rd_kfd_node_is_gpu(const rd_kfd_node *n);
/* The upstream port of the switch on the GPU's own card, NULL when the GPU
 * sits directly on a slot's port (or behind another switch). */
const rd_pci_device *rd_gpu_board_switch(const rd_facts *f, const rd_pci_device *gpu);
bool rd_pci_parse_address(const char *s, unsigned *domain, unsigned *bus, unsigned *dev, unsigned *fn);
/* Whether the PCI device is one of the non-AMD display devices (for gpu.none). */
bool rd_pci_is_amd_gpu(const rd_pci_device *d);

/* The ROCm GPU agents: KFD GPU nodes in node order, each joined with its GPU. */
typedef struct {
    int64_t node_id;
    char gfx[16]; /* native target, "" when unknown */
    const rd_arch *arch;
    bool integrated;
    uint64_t unique_id;      /* 0: the GPU has none (no UUID) */
    const char *pci_address; /* NULL for a node with no PCI device */
    const char *name;
} rd_agent;

void rd_agents_build(const rd_facts *f, const rd_gpu_view *gpus, const rd_knowledge *kn, rd_agent **ret, size_t *ret_n);
/* "GPU-" and 16 hex digits, as ROCm spells a GPU's UUID; "" when unique_id is 0. */
void rd_agent_uuid(const rd_agent *a, char *buf, size_t size);

/* Which agents a ROCR_VISIBLE_DEVICES / HIP_VISIBLE_DEVICES value keeps:
 * comma-separated indices (into agents[]) or GPU UUIDs; parsing stops at the
 * first token that names no agent, as the runtime does. keep[] gets n_agents
 * flags; returns how many are kept. *ret_bad (may be NULL) receives the first
 * token that matched nothing (owned by the caller), else NULL. */
size_t rd_visible_devices_apply(const char *value, const rd_agent *agents, size_t n_agents, bool *keep, char **ret_bad);
