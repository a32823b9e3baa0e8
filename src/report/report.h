/* SPDX-License-Identifier: MIT */
#pragma once

#include <json-c/json.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>
#include "facts.h"
#include "findings.h"
#include "gpus.h"
#include "term.h"

#define RD_REPORT_SCHEMA "rocm-doctor/1"

/* The report's formats: one renderer each, with one signature. */
typedef enum {
    RD_FORMAT_TEXT,
    RD_FORMAT_JSON,
    RD_FORMAT_PROMETHEUS,
    RD_FORMAT_NFD,
    RD_FORMAT_MAX,
} rd_format;

/* What every renderer renders. */
typedef struct {
    const rd_facts *facts;
    const rd_gpu_view *view;
    const rd_findings *findings;
    int level;  /* the level the check ran at (JSON) */
    bool color; /* text: colour */
} rd_report_input;

typedef struct {
    const char *name; /* --format's value */
    /* Writes the report to out: 0, or -errno when out cannot be written. */
    int (*write)(FILE *out, const rd_report_input *in);
} rd_renderer;

/* Indexed by rd_format (report-format.c). */
extern const rd_renderer rd_renderers[RD_FORMAT_MAX];
/* The format --format calls name, or -EINVAL. */
int rd_format_from_name(const char *name);

/* One finding as the report shows it: id, severity, summary, evidence,
 * remedy, fix, gpu. */
json_object *rd_finding_to_json(const rd_finding *f);
json_object *rd_report_json(const rd_facts *f, const rd_gpu_view *v, const rd_findings *fs, int level);
void rd_report_text(FILE *out, const rd_facts *f, const rd_gpu_view *v, const rd_findings *fs, bool color);

/* The one finding printer of every text output (check, verify, explain):
 * mark, summary and id, evidence, fix, `indent` columns in. see_above: only
 * the first line, marked " (see above)". Everything from the host is escaped. */
void rd_report_finding_text(const rd_term *t, const rd_finding *f, size_t indent, bool see_above);
/* A severity's mark in its colour, and a space. */
void rd_report_mark(const rd_term *t, rd_severity s);

/* Prometheus text exposition (report-prom.c) and a Kubernetes Node Feature
 * Discovery features file (report-nfd.c). Return 0 or -errno. */
int rd_report_prometheus(FILE *out, const rd_facts *f, const rd_gpu_view *v, const rd_findings *fs);
int rd_report_nfd(FILE *out, const rd_facts *f, const rd_gpu_view *v, const rd_findings *fs);

/* The fix runs that waited for the boot check's verdict, counted over the
 * applied runs (src/fix/verify.c): rocm-doctord appends them to its
 * Prometheus and NFD files. */
typedef struct {
    uint64_t pending, verified, failed;
} rd_report_fix_runs;
int rd_report_prometheus_fix_runs(FILE *out, const rd_report_fix_runs *runs);
int rd_report_nfd_fix_runs(FILE *out, const rd_report_fix_runs *runs);
/* NFD's expiry directive for a features file: "# +expiry-time=<RFC 3339,
 * UTC>\n"; nfd-worker ignores the labels that follow once it has passed. */
char *rd_report_nfd_expiry_line(time_t expiry);
