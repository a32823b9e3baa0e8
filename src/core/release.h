/* SPDX-License-Identifier: MIT */
/* The one decision of which ROCm release a host is on, or is to be set up
 * with. Every place that names a release to install or to keep (the check's
 * remedies, the apt, dnf and zypper repository fixes, setup and its plan)
 * asks here, so that a host is never moved to another release unless
 * asked. */
#pragma once

#include <stdbool.h>
#include "config.h"
#include "facts.h"
#include "gpus.h"
#include "knowledge.h"

typedef enum {
    RD_RELEASE_ASKED,      /* --release */
    RD_RELEASE_CONFIGURED, /* rocm_release in the [fix] section */
    RD_RELEASE_SOURCES,    /* the host's enabled AMD repository sources */
    RD_RELEASE_INSTALLED,  /* the installed rocm-core package, or /opt/rocm */
    RD_RELEASE_NEWEST,     /* a host without ROCm: the newest for its OS and GPUs */
} rd_release_origin;

typedef struct {
    const rd_facts *facts;
    const rd_knowledge *knowledge;
    const rd_config *config; /* the mirror and rocm_release; may be NULL */
    const rd_gpu_view *gpus; /* for the newest release; may be NULL */
    char *const *gfx;        /* the gfx targets that count, when not every GPU's; NULL: the GPUs' */
    const char *asked;       /* --release; NULL: none */
    rd_repo_family family;   /* whose sources say what the host has */
} rd_release_input;

typedef struct {
    rd_release_origin origin;
    char *release;          /* "6.4.1", "5.6", "4.5", "latest" */
    const rd_repo_row *row; /* its row of repos.ini; NULL: outside the tables */
    bool moving;            /* AMD's moving folder ("latest"): changes at every upgrade */
    bool before_tables;     /* older than the first release of the tables */
    bool after_tables;      /* newer than the newest release of the tables */
    char *evidence;         /* where it was read: a source line, a package, /opt/rocm */
} rd_release_choice;

/* Decides: asked, configured, the host's own sources, the installed ROCm,
 * and only for a host with none of these the newest release the support
 * table has for its OS and GPUs. Returns 0 with *ret filled (free with
 * rd_release_choice_done), or -ENOENT with *ret_reason when no release
 * fits (no release supports this OS and these GPUs). */
int rd_release_decide(const rd_release_input *in, rd_release_choice *ret, char **ret_reason);
void rd_release_choice_done(rd_release_choice *c);

/* The family of AMD's repositories the host's package manager uses. */
rd_repo_family rd_release_family_of(const rd_os_facts *os);
/* "asked with --release", "the host's AMD sources", ... */
const char *rd_release_origin_text(rd_release_origin o);
/* Why a choice outside the tables keeps the host's folders: one sentence,
 * naming the tables' date and range; NULL for a choice with a row. */
char *rd_release_outside_text(const rd_knowledge *k, const rd_release_choice *c);
/* The version of AMD's ROCm installed under /opt/ (the default
 * installation's), or NULL: a distribution's own ROCm (Debian's 5.2 in
 * /usr) is no release of AMD's repositories. */
const char *rd_release_amd_installed(const rd_facts *f);
/* The X.Y.Z (or X.Y) a package version begins with ("5.6.0.50600-67~22.04"
 * is 5.6.0); NULL when it does not begin with one. */
char *rd_release_of_package_version(const char *version);
