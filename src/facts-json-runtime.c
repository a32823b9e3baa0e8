/* SPDX-License-Identifier: MIT */
#include "facts-json.h"

static const rd_field runtime_fields[] = {
    F(rd_runtime_facts, ran, RD_FT_BOOL),
    F(rd_runtime_facts, error, RD_FT_STR),
};
SCHEMA(rd_runtime_facts_schema, rd_runtime_facts, runtime_fields);
