/* SPDX-License-Identifier: MIT */
/* The parsers of the health probe, for the unit tests and fuzz targets:
 * each takes a file's bytes as the kernel writes them and never reads past
 * len. Formats come from the kernel sources that write them (amdgpu_ras.c,
 * amdgpu_job.c, amdgpu_device.c, drivers/pci/pcie/aer.c,
 * kgd_pp_interface.h). */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "facts.h"
#include "probe.h"

/* health-assess.c */
void rd_health_assess(const rd_assess_input *in, rd_findings *out);

/* Kinds of kernel log events (rd_health_event.kind). */
#define RD_HEALTH_EV_RESET "reset"               /* "GPU reset begin!" */
#define RD_HEALTH_EV_RESET_OK "reset-succeeded"  /* "GPU reset(N) succeeded!" */
#define RD_HEALTH_EV_RESET_FAILED "reset-failed" /* "GPU reset(N) failed", "GPU Recovery Failed", ... */
#define RD_HEALTH_EV_RING_TIMEOUT "ring-timeout" /* "ring gfx_0.0.0 timeout, signaled seq=..." */
#define RD_HEALTH_EV_PAGE_FAULT "page-fault"     /* "[gfxhub] page fault (src_id:..." */
#define RD_HEALTH_EV_MES_HANG "mes-hang"         /* "MES failed to respond to msg=..." */
#define RD_HEALTH_EV_SMU_HANG "smu-hang"         /* "SMU: I'm not done with your previous command" */
#define RD_HEALTH_EV_VRAM_LOST "vram-lost"       /* "VRAM is lost due to GPU reset!" */
#define RD_HEALTH_EV_RAS_UE "ras-uncorrectable"  /* "N uncorrectable hardware errors detected in X block" */
#define RD_HEALTH_EV_RAS_CE "ras-correctable"
#define RD_HEALTH_EV_RAS_DE "ras-deferred"
#define RD_HEALTH_EV_POISON "poison"                /* "poison is consumed by client N" */
#define RD_HEALTH_EV_BAD_PAGES "bad-page-threshold" /* "Saved bad pages N reaches threshold value T" */

/* One ras/<block>_err_count file. Fills ue/ce/de (-1 for a missing line) or
 * sets inaccessible; -EINVAL when the text has none of them. ret->block is
 * left alone. */
int rd_ras_err_count_parse(const char *text, size_t len, rd_ras_count *ret);
/* ras/features: "feature mask: 0x%x"; the socket id bits 29..31 masked off. */
int rd_ras_features_parse(const char *text, size_t len, int64_t *ret);

typedef struct {
    int64_t reserved, pending, failed; /* rows flagged R, P, F */
    int64_t ignored;                   /* lines that are not rows */
} rd_bad_pages;
/* ras/gpu_vram_bad_pages: rows "0x%08x : 0x%08x : %1s". */
void rd_bad_pages_parse(const char *text, size_t len, rd_bad_pages *ret);

/* The binary gpu_metrics file: always fills *ret (understood or not, with
 * the reason in ret->note). ret must be zeroed; strings are allocated. */
void rd_gpu_metrics_parse(const uint8_t *buf, size_t len, rd_gpu_metrics *ret);

/* One aer_dev_{correctable,nonfatal,fatal} file: the TOTAL_ERR_* line. */
int rd_aer_total_parse(const char *text, size_t len, int64_t *ret);

/* A kernel log line about GPU health: fills kind, detail and count of *ret
 * (text and usec are the caller's) and the PCI address it names (or "").
 * Returns false for any other line. */
bool rd_health_classify(const char *text, rd_health_event *ret, char ret_address[static 16]);
