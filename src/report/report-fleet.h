/* SPDX-License-Identifier: MIT */
/* What `rocm-doctor fleet` prints: the fleet's nodes grouped by cause and
 * its drift, as text, JSON (schema rocm-doctor-fleet/1), Prometheus text and
 * a self-contained HTML page (report-fleet.c). The writers write to the
 * stream they are handed and return 0 or -errno. */
#pragma once

#include <json-c/json.h>
#include <stdbool.h>
#include <stdio.h>
#include "fleet.h"

typedef enum {
    RD_FLEET_TEXT,
    RD_FLEET_JSON,
    RD_FLEET_PROMETHEUS,
    RD_FLEET_HTML,
    RD_FLEET_FORMAT_MAX,
} rd_fleet_format;

/* "text", "json", "prometheus", "html" → the format, or -EINVAL. */
int rd_fleet_format_from_name(const char *name);

json_object *rd_report_fleet_json(const rd_fleet *fleet, const rd_fleet_analysis *a);
int rd_report_fleet_text(FILE *out, const rd_fleet *fleet, const rd_fleet_analysis *a, bool color);
int rd_report_fleet_prometheus(FILE *out, const rd_fleet *fleet, const rd_fleet_analysis *a);
int rd_report_fleet_html(FILE *out, const rd_fleet *fleet, const rd_fleet_analysis *a);
