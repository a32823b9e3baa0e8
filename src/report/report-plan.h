/* SPDX-License-Identifier: MIT */
/* The fix and setup plan as text (with diffs) and as JSON
 * (report-plan.c). */
#pragma once

#include <json-c/json.h>
#include <stdio.h>
#include "fix.h"

/* Every step with its actions and their diffs, then the fixes not planned. */
void rd_plan_print(const rd_plan *p, FILE *out);
/* The plan object of `fix --json`: schema, root, steps with their actions,
 * not_planned. */
json_object *rd_plan_to_json(const rd_plan *p);
