/* SPDX-License-Identifier: MIT */
/* Environment variables that steer ROCm: where they are set (process,
 * /etc/environment, environment.d, profile.d, the user's shell files), and
 * what they mean for the GPUs present. The parsers (env-parse.c) are shared
 * with the apu and torch probes and the unit tests. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "facts.h"
#include "gpus.h"
#include "probe.h"

#define RD_ENV_PROCESS "process environment"

typedef enum {
    RD_ENV_SYNTAX_PAM,     /* /etc/environment: KEY=VALUE, optional quotes */
    RD_ENV_SYNTAX_SYSTEMD, /* environment.d/NAME.conf: KEY=VALUE */
    RD_ENV_SYNTAX_SHELL,   /* profile.d/NAME.sh, ~/.profile: [export] KEY=VALUE ... */
} rd_env_syntax;

/* Whether ROCm programs read this variable (and so the probe records it). */
bool rd_env_is_relevant(const char *name);
/* HSA_OVERRIDE_GFX_VERSION_<N>, N decimal: *ret_node (may be NULL) = N. */
bool rd_env_override_node(const char *name, int64_t *ret_node);
/* Appends a definition (value is taken). */
void rd_env_add_var(rd_env_var **vars, size_t *n, const char *name, size_t name_len, char *value, const char *source,
                    int64_t line);

/* Appends every literal assignment of a relevant variable in text to *vars,
 * with source and its line number. Values that need a shell to evaluate
 * ($VAR, $(...), `...`) are skipped: they are not literals. */
void rd_env_parse_text(const char *text, rd_env_syntax syntax, const char *source, rd_env_var **vars, size_t *n_vars);

/* HSA_OVERRIDE_GFX_VERSION: "MAJOR.MINOR.STEP", decimal, as libhsakmt reads
 * it (nothing after the third number). -EINVAL for the format, -ERANGE when
 * major > 63 or minor/step > 255. */
int rd_gfx_override_parse(const char *s, unsigned *ret_major, unsigned *ret_minor, unsigned *ret_step);

/* Splits a PYTORCH_ROCM_ARCH / AMDGPU_TARGETS list (";", "," or blanks) into
 * gfx names with feature suffixes (":xnack-") dropped. */
char **rd_gfx_list_split(const char *value);

/* The target an override makes KFD node node_id report ("gfx1030"): the
 * per-node variable first, then the global one; "" when none applies. */
void rd_env_override_target(const rd_env_facts *e, int64_t node_id, char *buf, size_t size);

/* Where a definition came from, for evidence: "/etc/environment:3" or
 * "process environment". */
char *rd_env_where(const rd_env_var *v);

/* The torch probe's child output: "KEY\tVALUE" lines (version, hip, cuda,
 * available, archsource, archs, directurl) into t; other lines are ignored. */
void rd_torch_parse_output(rd_torch_facts *t, const char *out);
/* Where a torch build came from, as far as the installed files tell. */
typedef enum {
    RD_TORCH_INDEX_UNKNOWN,         /* a CPU or CUDA build, or a tag of no known index */
    RD_TORCH_INDEX_PYTORCH,         /* download.pytorch.org/whl/rocmX.Y: "+rocm6.3" */
    RD_TORCH_INDEX_PYTORCH_NIGHTLY, /* download.pytorch.org/whl/nightly/rocmX.Y: ".dev...+rocm7.0" */
    RD_TORCH_INDEX_AMD_RELEASE,     /* repo.radeon.com/rocm/manylinux/rocm-rel-X.Y.Z: "+rocm6.4.1.git..." */
} rd_torch_index;

typedef struct {
    rd_torch_index index;
    bool certain;     /* false: the likelier of two indexes that use the same tag */
    char series[16];  /* the ROCm release of the version's tag ("6.4.1"); "" when none */
    const char *from; /* what told it: "direct_url.json" or "the version's local tag" */
} rd_torch_origin;

/* The index of a torch build from its dist-info's direct_url.json URL (a
 * URL install: decisive) or else its version's local tag (pip records no
 * index for `pip install --index-url`): AMD's release wheels carry the full
 * ROCm release and a build suffix ("2.6.0+rocm6.4.1.git1ded221d"),
 * pytorch.org's the series ("2.7.1+rocm6.3", nightlies "2.10.0.dev20251015+rocm7.0").
 * A bare three-part tag ("+rocm6.2.4") was used by both: pytorch.org,
 * not certain. */
void rd_torch_origin_of(const char *version, const char *direct_url, rd_torch_origin *ret);

/* The first line of the child's error output that names a HIP or HSA error
 * (hipErrorNoBinaryForGpu, "HIP error: ...", HSA_STATUS_ERROR_...), or NULL. */
char *rd_torch_hip_error_line(const char *text);
