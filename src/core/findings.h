/* SPDX-License-Identifier: MIT */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include "util.h"

typedef enum {
    RD_SEV_OK,
    RD_SEV_INFO,
    RD_SEV_WARNING,
    RD_SEV_ERROR,
} rd_severity;

/* Exit statuses (Nagios convention). */
enum {
    RD_EXIT_OK = 0,
    RD_EXIT_WARNING = 1,
    RD_EXIT_ERROR = 2,
    RD_EXIT_UNKNOWN = 3,
};

typedef struct {
    char *id; /* stable API: add, never rename or reuse */
    rd_severity severity;
    char *summary;     /* one line */
    char **evidence;   /* file:line, values, log lines */
    char *remedy;      /* the exact command or step */
    char *fix;         /* id of a fix that can apply the remedy, or NULL */
    char *gpu;         /* PCI address the finding is about, or NULL */
    size_t n_evidence; /* evidence's length, kept by rd_finding_evidence*(): a
                        * finding with one line per input line is built in
                        * linear time */
} rd_finding;

typedef struct {
    rd_finding *items;
    size_t n;
} rd_findings;

rd_finding *rd_finding_add(rd_findings *fs, const char *id, rd_severity sev, const char *gpu, const char *summary_fmt,
                           ...) _printf_(5, 6);
void rd_finding_evidence(rd_finding *f, const char *fmt, ...) _printf_(2, 3);
/* Appends a copy of each line. */
void rd_finding_evidence_all(rd_finding *f, char *const *lines);
void rd_finding_remedy(rd_finding *f, const char *fmt, ...) _printf_(2, 3);
void rd_finding_set_fix(rd_finding *f, const char *fix_id);
const rd_finding *rd_findings_get(const rd_findings *fs, const char *id);
bool rd_findings_has(const rd_findings *fs, const char *id);
/* Frees what f holds (not f itself) and zeroes it. */
void rd_finding_free(rd_finding *f);
void rd_findings_free(rd_findings *fs);
int rd_findings_exit_status(const rd_findings *fs);
/* Errors first, then warnings, then info; stable within a severity. */
void rd_findings_sort(rd_findings *fs);

const char *rd_severity_name(rd_severity s);
