/* SPDX-License-Identifier: MIT */
#include "facts-json.h"

static const rd_field env_fields[] = {
    F(rd_env_facts, error, RD_FT_STR),
};
SCHEMA(rd_env_facts_schema, rd_env_facts, env_fields);

static const rd_field container_fields[] = {
    F(rd_container_facts, error, RD_FT_STR),
};
SCHEMA(rd_container_facts_schema, rd_container_facts, container_fields);

static const rd_field tuning_fields[] = {
    F(rd_tuning_facts, error, RD_FT_STR),
};
SCHEMA(rd_tuning_facts_schema, rd_tuning_facts, tuning_fields);

static const rd_field torch_fields[] = {
    F(rd_torch_facts, error, RD_FT_STR),
};
SCHEMA(rd_torch_facts_schema, rd_torch_facts, torch_fields);
