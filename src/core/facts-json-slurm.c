/* SPDX-License-Identifier: MIT */
/* The schema of the Slurm facts (facts-slurm.h). */
#include "facts-json.h"

static const rd_field setting_fields[] = {
    F(rd_slurm_setting, key, RD_FT_STR),
    F(rd_slurm_setting, value, RD_FT_STR),
    F(rd_slurm_setting, file, RD_FT_STR),
    F(rd_slurm_setting, line, RD_FT_INT),
};

static SCHEMA(setting_schema, rd_slurm_setting, setting_fields);

static const rd_field node_fields[] = {
    F(rd_slurm_node, node_name, RD_FT_STR),
    F(rd_slurm_node, gres, RD_FT_STR),
    F(rd_slurm_node, file, RD_FT_STR),
    F(rd_slurm_node, line, RD_FT_INT),
};

static SCHEMA(node_schema, rd_slurm_node, node_fields);

static const rd_field gres_fields[] = {
    F(rd_slurm_gres, node_name, RD_FT_STR), F(rd_slurm_gres, name, RD_FT_STR),       F(rd_slurm_gres, type, RD_FT_STR),
    F(rd_slurm_gres, file_spec, RD_FT_STR), F(rd_slurm_gres, files, RD_FT_STRV),     F(rd_slurm_gres, count, RD_FT_INT),
    F(rd_slurm_gres, cores, RD_FT_STR),     F(rd_slurm_gres, autodetect, RD_FT_STR), F(rd_slurm_gres, file, RD_FT_STR),
    F(rd_slurm_gres, line, RD_FT_INT),
};

static SCHEMA(gres_schema, rd_slurm_gres, gres_fields);

static const rd_field numa_fields[] = {
    F(rd_slurm_numa, numa_node, RD_FT_INT),
    F(rd_slurm_numa, cores, RD_FT_STR),
};

static SCHEMA(numa_schema, rd_slurm_numa, numa_fields);

static const rd_field slurm_fields[] = {
    F(rd_slurm_facts, present, RD_FT_BOOL),          F(rd_slurm_facts, conf_dir, RD_FT_STR),
    F(rd_slurm_facts, node_name, RD_FT_STR),         FA(rd_slurm_facts, settings, n_settings, setting_schema),
    FA(rd_slurm_facts, nodes, n_nodes, node_schema), FA(rd_slurm_facts, gres, n_gres, gres_schema),
    F(rd_slurm_facts, allowed_devices, RD_FT_STRV),  F(rd_slurm_facts, allowed_devices_file, RD_FT_STR),
    F(rd_slurm_facts, rsmi_plugin, RD_FT_BOOL),      F(rd_slurm_facts, rsmi_library, RD_FT_STR),
    FA(rd_slurm_facts, numa, n_numa, numa_schema),   F(rd_slurm_facts, errors, RD_FT_STRV),
    F(rd_slurm_facts, limits, RD_FT_STRV),
};

SCHEMA(rd_slurm_facts_schema, rd_slurm_facts, slurm_fields);
