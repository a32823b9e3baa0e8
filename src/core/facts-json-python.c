/* SPDX-License-Identifier: MIT */
/* The schema of the python facts (facts-python.h). */
#include "facts-json.h"

static const rd_field wheel_install_fields[] = {
    F(rd_wheel_install, site_packages, RD_FT_STR),
    F(rd_wheel_install, source, RD_FT_STR),
    F(rd_wheel_install, prefix, RD_FT_STR),
    F(rd_wheel_install, version, RD_FT_STR),
    F(rd_wheel_install, version_source, RD_FT_STR),
    F(rd_wheel_install, family, RD_FT_STR),
    F(rd_wheel_install, gfx, RD_FT_STRV),
    F(rd_wheel_install, lib_dir, RD_FT_STR),
    F(rd_wheel_install, runtime, RD_FT_BOOL),
    F(rd_wheel_install, hip_library, RD_FT_STR),
    F(rd_wheel_install, dists, RD_FT_STRV),
    F(rd_wheel_install, torch_version, RD_FT_STR),
    F(rd_wheel_install, torch_direct_url, RD_FT_STR),
};

SCHEMA(rd_wheel_install_schema, rd_wheel_install, wheel_install_fields);

static const rd_field wheel_fields[] = {
    F(rd_wheel_facts, checked, RD_FT_BOOL),
    FA(rd_wheel_facts, installs, n_installs, rd_wheel_install_schema),
    F(rd_wheel_facts, error, RD_FT_STR),
};

SCHEMA(rd_wheel_facts_schema, rd_wheel_facts, wheel_fields);

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
