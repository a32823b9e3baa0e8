/* SPDX-License-Identifier: MIT */
/* Facts: Slurm's configuration of this node (slurm.conf, gres.conf,
 * cgroup.conf), as written, with file and line for the evidence. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* One setting of interest, where it was written. */
typedef struct {
    char *key; /* GresTypes, ConstrainDevices, AllowedDevicesFile, AutoDetect */
    char *value;
    char *file;
    int64_t line;
} rd_slurm_setting;

/* A NodeName= line of slurm.conf (only its Gres= matters here). */
typedef struct {
    char *node_name; /* as written: "gpu[01-16]", "DEFAULT" */
    char *gres;      /* "gpu:mi300x:8,shard:16"; NULL when absent */
    char *file;
    int64_t line;
} rd_slurm_node;

/* A line of gres.conf that names a resource or sets AutoDetect. */
typedef struct {
    char *node_name; /* NodeName= as written; NULL: every node */
    char *name;      /* Name=: "gpu", NULL for an AutoDetect-only line */
    char *type;
    char *file_spec; /* File= as written */
    char **files;    /* File= expanded */
    int64_t count;   /* Count=; -1 when absent */
    char *cores;
    char *autodetect;
    char *file;
    int64_t line;
} rd_slurm_gres;

/* The cores of one NUMA node, in Slurm's core numbering (cores in order of
 * socket and core id, from 0). */
typedef struct {
    int64_t numa_node;
    char *cores; /* "0-23" */
} rd_slurm_numa;

typedef struct {
    bool present;    /* /etc/slurm or /etc/slurm-llnl holds slurm.conf or gres.conf */
    char *conf_dir;  /* the one read */
    char *node_name; /* this node: SLURMD_NODENAME, else the short host name */
    rd_slurm_setting *settings;
    size_t n_settings;
    rd_slurm_node *nodes;
    size_t n_nodes;
    rd_slurm_gres *gres;
    size_t n_gres;
    char **allowed_devices; /* the allowed-devices file's patterns, when one is set or present */
    char *allowed_devices_file;
    bool rsmi_plugin;   /* Slurm's gpu_rsmi plugin is installed */
    char *rsmi_library; /* librocm_smi64.so found, NULL when none */
    rd_slurm_numa *numa;
    size_t n_numa;
    char **errors; /* "FILE:LINE: what is wrong" */
    char **limits; /* "FILE: the bound of the reading hit there" */
} rd_slurm_facts;
