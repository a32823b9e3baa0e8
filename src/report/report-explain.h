/* SPDX-License-Identifier: MIT */
/* explain's output (report-explain.c): the messages the errors table
 * recognised in the text, what each means and which of its causes applies
 * on this host, as text and as JSON. */
#pragma once

#include <json-c/json.h>
#include <stdbool.h>
#include <stdio.h>
#include "explain.h"
#include "run.h"

#define RD_EXPLAIN_SCHEMA "rocm-doctor-explain/1"

/* The text on out (without a final flush); with no message recognised,
 * that said and the whole check of the host instead. *ret_status: the exit
 * status (the worst of the causes that apply; with no message recognised,
 * the check's). */
void rd_report_explain_text(FILE *out, bool color, const rd_run *run, const rd_error_matches *m, int *ret_status);
/* The object of `explain --json` for text, the message as given; *ret_status
 * as for the text. */
json_object *rd_report_explain_json(const rd_run *run, const rd_error_table *t, const char *text,
                                    const rd_error_matches *m, int *ret_status);
