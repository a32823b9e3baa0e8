/* SPDX-License-Identifier: MIT */
#include "facts-json.h"

static const rd_field env_var_fields[] = {
    F(rd_env_var, name, RD_FT_STR),
    F(rd_env_var, value, RD_FT_STR),
    F(rd_env_var, source, RD_FT_STR),
    F(rd_env_var, line, RD_FT_INT),
};
static SCHEMA(env_var_schema, rd_env_var, env_var_fields);

static const rd_field env_fields[] = {
    FA(rd_env_facts, vars, n_vars, env_var_schema),
    F(rd_env_facts, user, RD_FT_STR),
    F(rd_env_facts, home, RD_FT_STR),
    F(rd_env_facts, files, RD_FT_STRV),
    F(rd_env_facts, error, RD_FT_STR),
};
SCHEMA(rd_env_facts_schema, rd_env_facts, env_fields);

static const rd_field container_fields[] = {
    F(rd_container_facts, uid, RD_FT_INT),
    FN(rd_container_facts, groups, RD_FT_I64V, n_groups),
    F(rd_container_facts, error, RD_FT_STR),
};
SCHEMA(rd_container_facts_schema, rd_container_facts, container_fields);

static const rd_field tuning_fields[] = {
    F(rd_tuning_facts, numa_balancing, RD_FT_INT),
    F(rd_tuning_facts, numa_balancing_error, RD_FT_STR),
    F(rd_tuning_facts, iommu_units, RD_FT_STRV),
    F(rd_tuning_facts, iommu_error, RD_FT_STR),
    F(rd_tuning_facts, iommu_identity, RD_FT_STRV),
};
SCHEMA(rd_tuning_facts_schema, rd_tuning_facts, tuning_fields);

static const rd_field torch_fields[] = {
    F(rd_torch_facts, ran, RD_FT_BOOL),
    F(rd_torch_facts, python, RD_FT_STR),
    F(rd_torch_facts, exit_status, RD_FT_INT),
    F(rd_torch_facts, timed_out, RD_FT_BOOL),
    F(rd_torch_facts, imported, RD_FT_BOOL),
    F(rd_torch_facts, version, RD_FT_STR),
    F(rd_torch_facts, direct_url, RD_FT_STR),
    F(rd_torch_facts, hip, RD_FT_STR),
    F(rd_torch_facts, cuda, RD_FT_STR),
    F(rd_torch_facts, arch_list, RD_FT_STRV),
    F(rd_torch_facts, arch_list_known, RD_FT_BOOL),
    F(rd_torch_facts, arch_source, RD_FT_STR),
    F(rd_torch_facts, hip_error, RD_FT_STR),
    F(rd_torch_facts, available, RD_FT_INT),
    F(rd_torch_facts, error, RD_FT_STR),
};
SCHEMA(rd_torch_facts_schema, rd_torch_facts, torch_fields);
