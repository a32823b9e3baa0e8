/* SPDX-License-Identifier: MIT */
/* What fix, setup and undo print around the plan (report-fix.c): the plan
 * with what to do next, what an applied run achieved, what undo did, and
 * the applied runs of `fix --status`. */
#pragma once

#include <json-c/json.h>
#include <stdbool.h>
#include <stdio.h>
#include "fix.h"
#include "journal.h"

/* The plan as text, then how many of the problems the check found have no
 * fix (unfixable), then the command that carries it out (when it has
 * steps). */
void rd_report_fix_plan_text(FILE *out, const rd_plan *p, size_t unfixable, const char *apply_command);
/* The object of fix --json: the plan and "applied"; for a run carried out
 * (res not NULL), its run id, the commands left for the first boot and the
 * result per finding. */
json_object *rd_report_fix_json(const rd_plan *p, const rd_apply_result *res, const rd_fix_results *results);
/* After the plan of a run carried out: its id and undo command, the
 * commands left for the first boot, the result per finding, the notes of
 * its steps, and where the boot check's verdict shows. */
void rd_report_fix_applied_text(FILE *out, const rd_plan *p, const rd_apply_result *res, const rd_fix_results *results);
/* What undo did to root's run res. */
void rd_report_undo_text(FILE *out, const char *root, const rd_apply_result *res);
json_object *rd_report_undo_json(const rd_apply_result *res);
/* fix --status: runs as rd_fix_runs_json gives them for root, newest first;
 * one: a single run was asked for (no totals). */
void rd_report_fix_status_text(FILE *out, bool color, const char *root, json_object *runs, bool one);
