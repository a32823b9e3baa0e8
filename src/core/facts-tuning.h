/* SPDX-License-Identifier: MIT */
/* Facts: Host tuning that ROCm workloads notice (NUMA balancing, IOMMU mode, ...). */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct {
    int64_t numa_balancing; /* /proc/sys/kernel/numa_balancing; -1 unknown */
    char *numa_balancing_error;
    char **iommu_units; /* /sys/class/iommu entries: ivhd0, dmar0 */
    char *iommu_error;
    char **iommu_identity; /* AMD GPUs whose IOMMU group is "identity" (pass-through) */
} rd_tuning_facts;
