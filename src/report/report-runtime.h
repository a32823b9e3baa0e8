/* SPDX-License-Identifier: MIT */
/* Level-2 parts of the reports (report-text.c, report-json.c). */
#pragma once

#include <json-c/json.h>
#include <stdbool.h>
#include <stdio.h>
#include "facts.h"
#include "findings.h"
#include "gpus.h"
#include "term.h"

/* The per-GPU table: gfx, kernel result, launch latency, bandwidth, hiprtc. */
void rd_report_runtime_table(const rd_term *t, const rd_facts *f, const rd_gpu_view *v);
/* `verify`: the table, then the runtime findings (whose evidence names
 * any level-1 cause), then a count of the other problems. */
void rd_report_verify_text(FILE *out, const rd_facts *f, const rd_gpu_view *v, const rd_findings *fs, bool color);
/* The "runtime" object of the JSON report; NULL when level 2 did not run. */
json_object *rd_report_runtime_json(const rd_facts *f);
/* 50221153 -> "5.2.21153" */
void rd_hip_version_string(int64_t v, char *buf, size_t size);
