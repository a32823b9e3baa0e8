/* SPDX-License-Identifier: MIT */
/* What the plan files of the engine (fix.c, fix-groups.c) share. */
#pragma once

#include "fix.h"

/* Appends an action of this kind to the step (fix.c). */
rd_action *rd_step_add_action(rd_step *s, rd_action_kind kind);
