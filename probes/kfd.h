/* SPDX-License-Identifier: MIT */
#pragma once

#include <stddef.h>
#include "facts.h"

/* Parses a KFD "properties" file: one "key value" per line, values decimal.
 * Every well-formed line is kept in order, unknown keys included; malformed
 * lines are skipped and counted in *ret_bad. Returns -E2BIG past max_lines. */
int rd_kfd_parse_properties(const char *text, rd_kv **ret, size_t *ret_n, size_t *ret_bad);

/* Reads a topology directory (nodes/N/{name,gpu_id,properties,mem_banks})
 * into kf; unreadable parts are recorded as errors in the facts. */
int rd_kfd_read_topology(const char *topology, rd_kfd_facts *kf);
