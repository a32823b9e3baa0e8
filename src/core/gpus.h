/* SPDX-License-Identifier: MIT */
/* The per-GPU view: each AMD display device joined with its DRM nodes and
 * KFD nodes (several for a partitioned MI300). Pure: computed from facts. */
#pragma once

#include "facts.h"
#include "knowledge.h"

typedef struct {
    const rd_pci_device *pci;
    const rd_drm_device *drm;        /* NULL when no DRM node belongs to it */
    const rd_kfd_node **kfd;         /* its KFD GPU nodes, in node order */
    size_t n_kfd;
    char gfx[16];                    /* "" when unknown */
    bool gfx_from_kfd;               /* else a PCI-id table hint */
    const rd_arch *arch;             /* NULL for a gfx the tables lack */
    bool integrated;
    uint64_t vram_bytes;
    const char *name;                /* best human name */
    const rd_pci_device *link;       /* device whose link is the slot's */
} rd_gpu;

typedef struct {
    rd_gpu *gpus;
    size_t n_gpus;
    const rd_kfd_node **unmatched;   /* KFD GPU nodes with no PCI device */
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
