/* SPDX-License-Identifier: MIT */
/* The schema of the container facts (facts-container.h). */
#include "facts-json.h"

static const rd_field container_fields[] = {
    F(rd_container_facts, uid, RD_FT_INT),
    FN(rd_container_facts, groups, RD_FT_I64V, n_groups),
    F(rd_container_facts, error, RD_FT_STR),
};

SCHEMA(rd_container_facts_schema, rd_container_facts, container_fields);
