/* SPDX-License-Identifier: MIT */
/* A fleet of nodes judged together: each node's report (check --json,
 * schema rocm-doctor/1) reduced to what the fleet compares, the nodes
 * grouped by cause (one group per finding id), and the drift among nodes of
 * one class (the same GPU model): every property that should be the same
 * and is not, with the majority value and the outliers. Pure functions: no
 * printing, no I/O. */
#pragma once

#include <json-c/json.h>
#include <stdbool.h>
#include <stddef.h>
#include "facts.h"
#include "findings.h"

#define RD_FLEET_SCHEMA "rocm-doctor-fleet/1"

/* A property compared among the nodes of a class ("kernel" = "6.8.0-45"). */
typedef struct {
    char *key;
    char *value;
} rd_fleet_prop;

typedef struct {
    char *id;
    rd_severity severity;
    char *summary;
    char *remedy;
    char *fix; /* the fix id, NULL when none */
} rd_fleet_finding;

typedef struct rd_fleet_node {
    char *name;
    char *unreachable; /* why the node could not be checked; NULL: it was */
    int exit_status;   /* 0..2 for a checked node, 3 unreachable */
    char *klass;       /* "AMD Instinct MI300X" ("no GPU" without one) */
    rd_fleet_finding *findings;
    size_t n_findings;
    rd_fleet_prop *props;
    size_t n_props;
} rd_fleet_node;

typedef struct rd_fleet {
    rd_fleet_node *nodes;
    size_t n_nodes;
} rd_fleet;

/* One cause: a finding id and the nodes that have it. */
typedef struct {
    const rd_fleet_finding *finding; /* the first node's (remedy, summary, fix) */
    char **nodes;                    /* names, in node order */
    size_t n_nodes;
    char *hostlist;
} rd_fleet_cause;

typedef struct {
    char *node;
    char *value;
} rd_fleet_outlier;

/* One property of one class that is not the same on every node. */
typedef struct {
    char *klass;
    char *property;
    char *majority;
    size_t n_majority; /* the nodes with the majority value */
    rd_fleet_outlier *outliers;
    size_t n_outliers;
} rd_fleet_drift;

typedef struct {
    rd_fleet_cause *causes; /* errors first, then by node count, then id */
    size_t n_causes;
    rd_fleet_drift *drift; /* by class, then property */
    size_t n_drift;
    size_t n_status[4]; /* nodes by exit status; [3]: unreachable */
    int exit_status;    /* the worst node's; 3 when any node is unreachable */
} rd_fleet_analysis;

/* A node from a parsed report. name: the node's name when the report does
 * not say (the report's host.hostname, when present, wins). Returns 0, or
 * -EINVAL with *ret_error when it is not a rocm-doctor/1 report. */
int rd_fleet_node_from_report(json_object *report, const char *name, rd_fleet_node *ret, char **ret_error);
/* A node that could not be checked, and why. */
void rd_fleet_node_unreachable(rd_fleet_node *ret, const char *name, const char *reason);
/* Adds the properties only facts carry (ROCm release, amdgpu driver,
 * firmware and VBIOS, the checked user's groups, gres.conf) to a node made
 * from the report of the same facts. */
void rd_fleet_node_add_facts(rd_fleet_node *node, const rd_facts *f);
/* Sets key to value (replacing an earlier value). */
void rd_fleet_node_set(rd_fleet_node *node, const char *key, const char *value);
const char *rd_fleet_node_get(const rd_fleet_node *node, const char *key);
void rd_fleet_node_free(rd_fleet_node *node);

/* Takes *node (zeroed after). */
void rd_fleet_add(rd_fleet *fleet, rd_fleet_node *node);
/* Sorts the nodes by name (numbers in names compared as numbers). */
void rd_fleet_sort(rd_fleet *fleet);
void rd_fleet_free(rd_fleet *fleet);

/* The causes, the drift and the counts of a fleet; a points into fleet,
 * which must outlive it. */
void rd_fleet_analyse(const rd_fleet *fleet, rd_fleet_analysis *a);
void rd_fleet_analysis_free(rd_fleet_analysis *a);

/* "ok", "warning", "error", "unreachable" for a node's exit status. */
const char *rd_fleet_status_name(int exit_status);
/* The command that applies a cause's fix on its nodes: "rocm-doctor fix
 * --only ID --apply" (NULL without a fix). */
char *rd_fleet_fix_command(const rd_fleet_finding *f);
