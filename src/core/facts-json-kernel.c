/* SPDX-License-Identifier: MIT */
/* The schema of the kernel facts (facts-kernel.h). */
#include "facts-json.h"

static const rd_field boot_fields[] = {
    F(rd_boot_facts, secure_boot, RD_FT_INT), F(rd_boot_facts, secure_boot_evidence, RD_FT_STR),
    F(rd_boot_facts, lockdown, RD_FT_STR),    F(rd_boot_facts, dkms_amdgpu, RD_FT_STRV),
    F(rd_boot_facts, dkms_built, RD_FT_STRV), F(rd_boot_facts, dkms_tried, RD_FT_STRV),
    F(rd_boot_facts, mok_key, RD_FT_STR),     F(rd_boot_facts, kmsg, RD_FT_STRV),
    F(rd_boot_facts, error, RD_FT_STR),
};

SCHEMA(rd_boot_facts_schema, rd_boot_facts, boot_fields);

static const rd_field kernel_devel_fields[] = {
    F(rd_kernel_devel_facts, checked, RD_FT_BOOL),  F(rd_kernel_devel_facts, kernel, RD_FT_STR),
    F(rd_kernel_devel_facts, build_dir, RD_FT_STR), F(rd_kernel_devel_facts, package, RD_FT_STR),
    F(rd_kernel_devel_facts, wanted, RD_FT_STR),
};

SCHEMA(rd_kernel_devel_facts_schema, rd_kernel_devel_facts, kernel_devel_fields);
