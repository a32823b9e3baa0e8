/* SPDX-License-Identifier: MIT */
#include "facts-json.h"

static const rd_field rocm_fields[] = {
    F(rd_rocm_facts, default_version, RD_FT_STR),
    F(rd_rocm_facts, error, RD_FT_STR),
};
SCHEMA(rd_rocm_facts_schema, rd_rocm_facts, rocm_fields);

static const rd_field apt_fields[] = {
    F(rd_apt_facts, error, RD_FT_STR),
};
SCHEMA(rd_apt_facts_schema, rd_apt_facts, apt_fields);

static const rd_field boot_fields[] = {
    F(rd_boot_facts, error, RD_FT_STR),
};
SCHEMA(rd_boot_facts_schema, rd_boot_facts, boot_fields);
