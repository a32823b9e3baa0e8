/* SPDX-License-Identifier: MIT */
/* The schema of the tuning facts (facts-tuning.h). */
#include "facts-json.h"

static const rd_field tuning_fields[] = {
    F(rd_tuning_facts, numa_balancing, RD_FT_INT),  F(rd_tuning_facts, numa_balancing_error, RD_FT_STR),
    F(rd_tuning_facts, iommu_units, RD_FT_STRV),    F(rd_tuning_facts, iommu_error, RD_FT_STR),
    F(rd_tuning_facts, iommu_identity, RD_FT_STRV),
};

SCHEMA(rd_tuning_facts_schema, rd_tuning_facts, tuning_fields);
