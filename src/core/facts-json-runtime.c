/* SPDX-License-Identifier: MIT */
#include "facts-json.h"

/* clang-format off */
/* The schema tables keep one field a line. */
static const rd_field pool_fields[] = {
    F(rd_runtime_pool, segment, RD_FT_STR),
    F(rd_runtime_pool, size, RD_FT_U64),
    F(rd_runtime_pool, coarse_grained, RD_FT_BOOL),
    F(rd_runtime_pool, fine_grained, RD_FT_BOOL),
    F(rd_runtime_pool, kernarg, RD_FT_BOOL),
};
static SCHEMA(pool_schema, rd_runtime_pool, pool_fields);

static const rd_field agent_fields[] = {
    F(rd_runtime_agent, name, RD_FT_STR),
    F(rd_runtime_agent, type, RD_FT_STR),
    F(rd_runtime_agent, product_name, RD_FT_STR),
    F(rd_runtime_agent, isa, RD_FT_STR),
    F(rd_runtime_agent, kfd_node, RD_FT_INT),
    F(rd_runtime_agent, pci_address, RD_FT_STR),
    F(rd_runtime_agent, compute_units, RD_FT_INT),
    FA(rd_runtime_agent, pools, n_pools, pool_schema),
};
static SCHEMA(agent_schema, rd_runtime_agent, agent_fields);

static const rd_field device_fields[] = {
    F(rd_runtime_device, index, RD_FT_INT),
    F(rd_runtime_device, pci_address, RD_FT_STR),
    F(rd_runtime_device, name, RD_FT_STR),
    F(rd_runtime_device, gfx, RD_FT_STR),
    F(rd_runtime_device, isa, RD_FT_STR),
    F(rd_runtime_device, kfd_node, RD_FT_INT),
    F(rd_runtime_device, code_object, RD_FT_STR),
    F(rd_runtime_device, code_object_version, RD_FT_INT),
    F(rd_runtime_device, code_object_fallback, RD_FT_STR),
    F(rd_runtime_device, result, RD_FT_STR),
    F(rd_runtime_device, error_call, RD_FT_STR),
    F(rd_runtime_device, error_code, RD_FT_INT),
    F(rd_runtime_device, error_name, RD_FT_STR),
    F(rd_runtime_device, mismatch, RD_FT_STR),
    F(rd_runtime_device, launch_latency_us, RD_FT_DOUBLE),
    F(rd_runtime_device, h2d_gbps, RD_FT_DOUBLE),
    F(rd_runtime_device, d2h_gbps, RD_FT_DOUBLE),
    F(rd_runtime_device, hiprtc, RD_FT_STR),
    F(rd_runtime_device, hiprtc_error, RD_FT_STR),
};
static SCHEMA(device_schema, rd_runtime_device, device_fields);

static const rd_field runtime_fields[] = {
    F(rd_runtime_facts, ran, RD_FT_BOOL),
    F(rd_runtime_facts, error, RD_FT_STR),
    F(rd_runtime_facts, rocm_path, RD_FT_STR),
    F(rd_runtime_facts, hsa_library, RD_FT_STR),
    F(rd_runtime_facts, hsa_load_error, RD_FT_STR),
    F(rd_runtime_facts, hsa_init_status, RD_FT_INT),
    F(rd_runtime_facts, hsa_init_status_name, RD_FT_STR),
    F(rd_runtime_facts, hsa_init_status_string, RD_FT_STR),
    F(rd_runtime_facts, hsa_version, RD_FT_STR),
    FA(rd_runtime_facts, agents, n_agents, agent_schema),
    F(rd_runtime_facts, hip_library, RD_FT_STR),
    F(rd_runtime_facts, hip_load_error, RD_FT_STR),
    F(rd_runtime_facts, hip_runtime_version, RD_FT_INT),
    F(rd_runtime_facts, hip_code_object_version, RD_FT_INT),
    F(rd_runtime_facts, hip_init_status, RD_FT_INT),
    F(rd_runtime_facts, hip_init_status_name, RD_FT_STR),
    F(rd_runtime_facts, hip_device_count_status, RD_FT_INT),
    F(rd_runtime_facts, hip_device_count_status_name, RD_FT_STR),
    F(rd_runtime_facts, hip_device_count, RD_FT_INT),
    F(rd_runtime_facts, hiprtc_library, RD_FT_STR),
    FA(rd_runtime_facts, devices, n_devices, device_schema),
    F(rd_runtime_facts, child_status, RD_FT_STR),
    F(rd_runtime_facts, child_exit_code, RD_FT_INT),
    F(rd_runtime_facts, child_signal, RD_FT_INT),
    F(rd_runtime_facts, child_signal_name, RD_FT_STR),
    F(rd_runtime_facts, child_unkillable, RD_FT_BOOL),
    F(rd_runtime_facts, child_stage, RD_FT_STR),
    F(rd_runtime_facts, child_stage_device, RD_FT_INT),
    F(rd_runtime_facts, child_output, RD_FT_STR),
    F(rd_runtime_facts, timeout_s, RD_FT_INT),
    F(rd_runtime_facts, elapsed_s, RD_FT_DOUBLE),
};
SCHEMA(rd_runtime_facts_schema, rd_runtime_facts, runtime_fields);
/* clang-format on */
