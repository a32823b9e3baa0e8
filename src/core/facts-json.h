/* SPDX-License-Identifier: MIT */
#pragma once

#include <json-c/json.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "facts.h"
#include "schema.h"
#include "util.h"

extern const rd_schema rd_facts_schema;
/* Schemas of the areas kept in their own files (facts-json-*.c). */
extern const rd_schema rd_rocm_facts_schema, rd_apt_facts_schema, rd_boot_facts_schema;
extern const rd_schema rd_env_facts_schema, rd_container_facts_schema, rd_tuning_facts_schema, rd_torch_facts_schema;
extern const rd_schema rd_runtime_facts_schema;
extern const rd_schema rd_slurm_facts_schema;
extern const rd_schema rd_health_facts_schema, rd_health_gpu_schema;
extern const rd_schema rd_rpm_facts_schema, rd_repos_facts_schema, rd_kernel_devel_facts_schema, rd_wheel_facts_schema,
    rd_wheel_install_schema;

json_object *rd_struct_to_json(const rd_schema *s, const void *p);
/* Fills *p (zeroed by the caller) from j; on error returns -EINVAL and sets
 * *ret_error to a message naming the JSON path, e.g. "pci.devices[2].vendor_id:
 * expected an integer". Partially filled structs are freed by rd_struct_free. */
int rd_struct_from_json(const rd_schema *s, void *p, json_object *j, const char *path, char **ret_error);

json_object *rd_facts_to_json(const rd_facts *f);
/* Parses a facts document: checks the schema string, then the fields. */
int rd_facts_from_json_string(const char *text, rd_facts *ret, char **ret_error);
int rd_facts_load(const char *path, rd_facts *ret, char **ret_error);

/* facts-reset.c: frees one top-level area of the facts ("pci", "access",
 * "container_env", ... as named in rd_facts_schema) and leaves it as
 * rd_facts_init() does. -ENOENT for a name that is not an area. */
int rd_facts_reset_area(rd_facts *f, const char *area);
