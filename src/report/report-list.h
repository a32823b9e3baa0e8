/* SPDX-License-Identifier: MIT */
/* `list`'s outputs (report-list.c): the knowledge tables, the checks and
 * the fixes, as text and as JSON. */
#pragma once

#include <json-c/json.h>
#include <stdio.h>
#include "fix.h"
#include "knowledge.h"
#include "probe.h"

typedef enum {
    RD_LIST_ARCHS,    /* gfx targets: family, APU, PCIe atomics, override, support */
    RD_LIST_RELEASES, /* the support matrix */
    RD_LIST_CHECKS,   /* every probe and the findings it can report */
    RD_LIST_USECASES, /* what setup installs, per use case and package manager */
    RD_LIST_GPUS,     /* the products of health.ini [vram]: target, memory, support */
    RD_LIST_FIXES,    /* every fix id and its title */
    /* list releases --server: the releases the repository server's
     * amdgpu-install/ index has, and those repos.ini lacks */
    RD_LIST_SERVER_RELEASES,
} rd_list_kind;

/* What a list is made of: the knowledge tables (archs, releases, usecases,
 * gpus), the probes (checks), the fixes (fixes). */
typedef struct {
    const rd_knowledge *knowledge;
    const rd_probe_table *probes;
    const rd_fix_table *fixes;
    const char *server;           /* the repository base read (RD_LIST_SERVER_RELEASES) */
    char *const *server_releases; /* what its index lists, oldest first */
} rd_list_input;

/* The list as text on out (without a final flush) and as JSON. */
void rd_report_list_text(FILE *out, rd_list_kind kind, const rd_list_input *in);
json_object *rd_report_list_json(rd_list_kind kind, const rd_list_input *in);
