/* SPDX-License-Identifier: MIT */
/* The hand-built GPU views the report tests render (values that no
 * scenario produces: quotes in names, a narrowed link, an iGPU beside
 * discrete GPUs), and rendering one to a string. */
#ifndef RD_TEST_REPORT_FIXTURE_H
#define RD_TEST_REPORT_FIXTURE_H

#include "facts.h"
#include "findings.h"
#include "gpus.h"

typedef struct {
    rd_facts facts;
    rd_pci_device pci[3];
    rd_gpu gpus[3];
    rd_gpu_view view;
    rd_arch arch11, arch942;
    rd_findings findings;
} fixture;

/* Three GPUs: an RX 7900-class gfx1100 with a quoted name, one on an x4
 * link, and a gfx1103 iGPU; no findings. */
void fixture_init(fixture *x);
void fixture_free(fixture *x);
/* What fn writes for the fixture (free()). */
char *render(int (*fn)(FILE *, const rd_facts *, const rd_gpu_view *, const rd_findings *), fixture *x);

#endif
