/* SPDX-License-Identifier: MIT */
/* `explain`: error messages as users paste them, matched against the
 * versioned table conf/errors.ini, and the findings that cause them. The
 * table lists, per error, the texts and numeric codes that identify it, what
 * it means, and the finding ids that can cause it, most likely first. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "findings.h"
#include "knowledge.h"

typedef enum {
    RD_CODE_HIP, /* hipError_t, written in decimal */
    RD_CODE_HSA, /* hsa_status_t, written in hexadecimal */
} rd_code_space;

typedef struct {
    rd_code_space space;
    uint32_t value;
} rd_error_code;

/* Where a message comes from: what can cause it is looked for there. */
typedef enum {
    RD_DOMAIN_NONE,
    RD_DOMAIN_RUNTIME,   /* the GPU runtime and driver: HIP, HSA, KFD, amdgpu */
    RD_DOMAIN_PACKAGES,  /* package managers and their keys: apt, dnf, zypper */
    RD_DOMAIN_KERNEL,    /* DKMS and the kernel: module builds, headers, signing */
    RD_DOMAIN_PYTHON,    /* Python packages: pip, wheels */
    RD_DOMAIN_CONTAINER, /* containers: devices and groups passed in */
} rd_error_domain;

/* "runtime", "packages", "kernel", "python", "container"; NULL for none. */
const char *rd_error_domain_name(rd_error_domain d);

typedef struct {
    char *id;          /* the section name */
    char *title;       /* the message as people know it */
    char **patterns;   /* as written in the table */
    char **normalized; /* the same, normalized for matching */
    rd_error_code *codes;
    size_t n_codes;
    char *meaning;
    char **causes; /* finding ids, most likely root cause first */
    /* those among causes that apply even when the check reports them as
     * info (ROCm not installed where nothing asks for it still explains
     * "rocminfo: command not found") */
    char **info_causes;
    rd_error_domain domain;
    unsigned line; /* where the section starts */
} rd_error_entry;

typedef struct {
    rd_table_info info;
    rd_error_entry *entries;
    size_t n_entries;
} rd_error_table;

/* Loads an errors table. known_ids (NULL-terminated), when given, is the
 * list of finding ids causes may name; without it only their form is
 * checked. A malformed table fails with *ret_error naming file and line. */
int rd_error_table_load(const char *path, const char *const *known_ids, rd_error_table *ret, char **ret_error);
void rd_error_table_free(rd_error_table *t);
const rd_error_entry *rd_error_table_get(const rd_error_table *t, const char *id);

/* Whether s has the form of a finding id: AREA.NAME, AREA of lower-case
 * letters, NAME of lower-case letters, digits and '-', at most
 * RD_FINDING_ID_MAX bytes in all. */
#define RD_FINDING_ID_MAX 64
bool rd_finding_id_valid(const char *s);

/* The text a pattern is matched against: lower case, without underscores
 * and quotes, white space runs as one blank, trimmed. */
char *rd_error_normalize(const char *text);

typedef struct {
    const rd_error_entry *entry;
    size_t start, end; /* span in the normalized text */
    char *how;         /* the pattern as written, or "HIP error 100" */
} rd_error_match;

typedef struct {
    rd_error_match *items;
    size_t n;
} rd_error_matches;

/* Every entry the text names, in the order they appear in it. An entry whose
 * match lies inside a longer match of another is left out (the longer text is
 * the more specific message). Numeric codes count only in context: a HIP code
 * after a word starting with "hip", an HSA code as 0x... (codes below 0x1000
 * only when the text says "hsa" somewhere). */
void rd_error_match_text(const rd_error_table *t, const char *text, rd_error_matches *ret);
void rd_error_matches_free(rd_error_matches *m);

/* Pure: the findings among fs that are causes of e and apply (severity
 * warning or error, or info for e's info causes), in the table's priority
 * order, then in fs's order. With gpu.none among fs (no AMD GPU visible)
 * and e not naming it, that one alone: the message cannot have come from
 * this host's GPU.
 * Returns how many were stored in *ret (an array of pointers into fs, to
 * be freed with free()). */
size_t rd_explain_pick(const rd_error_entry *e, const rd_findings *fs, const rd_finding ***ret);
/* The exit status of a set of findings picked as causes (0, 1 or 2): an
 * info finding picked as a cause counts as a warning. */
int rd_explain_exit_status(const rd_finding *const *picked, size_t n);

/* The URLs of AMD's repository server (or the mirror) in a message that
 * name a folder AMD does not serve: each becomes evidence of an
 * apt.repo-path, dnf.repo-path or zypper.repo-path finding in *fs (added, or
 * the host's own extended) with the folder AMD serves for that release, so
 * that "does not have a Release file" for such a folder is explained on any
 * host. Returns how many it found. */
size_t rd_explain_message_urls(const rd_knowledge *k, const char *mirror, const char *text, rd_findings *fs);
