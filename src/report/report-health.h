/* SPDX-License-Identifier: MIT */
/* The health area in the reports (report-health.c): the text line under
 * each GPU and the JSON object, from the facts of probes/health.c. */
#pragma once

#include <json-c/json.h>
#include <stdio.h>
#include "facts.h"
#include "findings.h"
#include "gpus.h"

/* "health: 61 °C junction, 68/290 W, RAS 0 UE 0 CE, 0 retired pages,
 * 0 resets", indented under the GPU; nothing for a GPU without health
 * facts (not bound to amdgpu, or facts saved by an older version). */
void rd_report_health_line(FILE *out, const rd_facts *f, const rd_gpu *g);
/* The per-GPU "health" object of the JSON report, or NULL. */
json_object *rd_report_health_json(const rd_facts *f, const rd_gpu *g);
/* The worst severity of the health findings, for NFD: "ok", "warning",
 * "error"; NULL when no GPU has health facts. */
const char *rd_report_health_status(const rd_facts *f, const rd_findings *fs);
