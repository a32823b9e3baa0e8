/* SPDX-License-Identifier: MIT */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct {
    bool has_exp; /* PCI Express capability found */
    int type;     /* device/port type, flags bits 7:4 */
    int version;
    uint32_t lnkcap;
    uint16_t lnksta;
    uint32_t devcap2; /* 0 for version 1 capabilities */
    uint16_t devctl2;
    bool resizable_bar;
} rd_pcie_caps;

#define RD_DEVCAP2_ATOMIC_ROUTE (1u << 6)
#define RD_DEVCAP2_ATOMIC_COMP32 (1u << 7)
#define RD_DEVCAP2_ATOMIC_COMP64 (1u << 8)
#define RD_DEVCAP2_ATOMIC_COMP128 (1u << 9)
#define RD_DEVCTL2_ATOMIC_REQ (1u << 6)
#define RD_DEVCTL2_ATOMIC_EGRESS_BLOCK (1u << 7)

/* Parses the capability lists of a raw config space (64, 256 or 4096 bytes).
 * Loops and out-of-range pointers end the walk; never reads past len. */
int rd_pci_parse_caps(const uint8_t *cfg, size_t len, rd_pcie_caps *ret);

/* "16.0 GT/s PCIe" -> 16.0; 0 for "Unknown" or garbage. */
double rd_parse_link_speed(const char *s);

/* amdgpu.ids: "DEVICE,\tREVISION,\tNAME" lines after a version line.
 * Returns 1 and fills the outputs for a device line, 0 for a comment, blank
 * or version line, -EINVAL for a malformed line. */
int rd_amdgpu_ids_parse_line(const char *line, unsigned *ret_device, unsigned *ret_revision, char **ret_name);
/* The marketing name for device+revision, or NULL. Malformed lines are skipped. */
char *rd_amdgpu_ids_lookup(const char *text, unsigned device, unsigned revision);

/* pci.ids: the vendor and device names for vendor:device, by scanning the
 * file (one pass, no index: a run looks up a handful of devices). Either
 * output may be NULL when absent. */
void rd_pci_ids_lookup(const char *text, size_t len, unsigned vendor, unsigned device, char **ret_vendor,
                       char **ret_device);
