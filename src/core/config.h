/* SPDX-License-Identifier: MIT */
/* rocm-doctor.conf: policy for checks, fixes, the daemon and its outputs.
 * Read from the vendor directory (/usr/lib/rocm-doctor/rocm-doctor.conf),
 * then /etc/rocm-doctor/rocm-doctor.conf, then /etc/rocm-doctor/conf.d/
 * *.conf in name order; a later file's key replaces an earlier one's (see
 * rocm-doctor.conf(5)). */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "findings.h"
#include "probe.h"

typedef struct {
    char *id;
    rd_severity severity;
} rd_severity_override;

/* What the ids a file names are checked against. The core knows neither
 * table itself: the caller hands in the probes' table (finding ids) and
 * the fixes' ids (rd_fix_table_ids: every fix of the registry and the
 * options a fix takes from allowed_fixes). */
typedef struct {
    const rd_probe_table *probes;
    char *const *fix_ids; /* NULL-terminated */
} rd_config_ids;

/* [health]: the limits of the health checks (probes/health.c). */
typedef struct {
    int64_t correctable_errors_max;     /* gpu.ras-correctable above this many, per GPU; default 100 */
    int64_t retired_pages_warn_percent; /* gpu.retired-pages warning from this share of the threshold; 90 */
    int64_t aer_correctable_max;        /* pcie.aer-errors above this many correctable errors per device; 100 */
    int64_t throttle_percent;           /* gpu.throttled: residency share of a reason since boot; 10 */
    int64_t hot_margin_c;               /* gpu.hot: a sensor this close to its critical limit; 5 */
    int64_t power_cap_warn_percent;     /* gpu.power-capped is a warning below this share of the default; 80 */
    int64_t vram_missing_percent;       /* gpu.vram-missing: VRAM more than this share below the product's; 5 */
} rd_health_limits;

typedef struct rd_config {
    char **files; /* the files read, in order */
    /* Unknown sections and keys of drop-ins, skipped: "FILE:LINE: ..."
     * each, for the caller to show as warnings. */
    char **warnings;
    /* [check] */
    int64_t expected_gpus;      /* -1: not set (gpu.count-mismatch off) */
    char *expected_gpus_source; /* "FILE:LINE" that set it, or NULL */
    char **users;               /* whose access to check; NULL: the invoking user */
    char **ignore;              /* finding ids never reported */
    rd_severity_override *severity;
    size_t n_severity;
    int level;                 /* 1 or 2 (boot check and daemon) */
    int64_t runtime_timeout_s; /* level-2 child limit, default 20 */
    bool with_python;          /* PyTorch check */
    /* [fix] */
    char **allowed_fixes; /* NULL: all */
    char *access_group;   /* group given the device nodes, default "render" */
    bool udev_all_users;  /* AMD's 0666 rule; only when asked */
    bool allow_overrides; /* HSA_OVERRIDE_GFX_VERSION_<N> drop-ins */
    char *rocm_release;   /* NULL: newest release supporting every GPU here */
    char *apt_key_file;
    char *apt_key_fingerprint;
    char *apt_key_url;
    bool apt_graphics;               /* also the graphics repository */
    bool apt_driver;                 /* also the amdgpu driver repository */
    int64_t package_lock_timeout_s;  /* wait for another process's package manager lock, default 300 */
    int64_t package_timeout_s;       /* an index refresh, install or removal may run this long, default 1800 */
    int64_t package_query_timeout_s; /* a query or dry run of the package manager, gpg, curl; default 300 */
    /* [repository] */
    char *mirror;        /* base URL standing for https://repo.radeon.com; NULL: AMD's. Never with user:password@ */
    char *mirror_login;  /* the user and password of the mirror URL, decoded; NULL: none. The */
    char *mirror_secret; /* password is never printed: it goes only to the package manager's credential files */
    bool verify_runtime; /* the boot check runs the GPU kernel on runs it verifies; default yes */
    /* [output] */
    char *status_file;     /* default /run/rocm-doctor/status.json */
    char *prometheus_file; /* NULL: none */
    char *nfd_file;        /* NULL: none */
    /* [daemon] */
    int64_t debounce_ms;   /* default 50 */
    int64_t health_poll_s; /* re-read the health area every N s; 0 (default): only on uevents */
    /* [health] */
    rd_health_limits health;
} rd_config;

#define RD_CONFIG_FILE "/etc/rocm-doctor/rocm-doctor.conf"
#define RD_CONFIG_DROPIN_DIR "/etc/rocm-doctor/conf.d"
/* The vendor file, under the same root as the others. */
#ifndef RD_VENDOR_CONFDIR
#define RD_VENDOR_CONFDIR "/usr/lib/rocm-doctor"
#endif
#define RD_VENDOR_CONFIG_FILE RD_VENDOR_CONFDIR "/rocm-doctor.conf"

#define RD_HEALTH_LIMITS_DEFAULT                                                                                       \
    ((rd_health_limits){ .correctable_errors_max = 100,                                                                \
                         .retired_pages_warn_percent = 90,                                                             \
                         .aer_correctable_max = 100,                                                                   \
                         .throttle_percent = 10,                                                                       \
                         .hot_margin_c = 5,                                                                            \
                         .power_cap_warn_percent = 80,                                                                 \
                         .vram_missing_percent = 5 })

/* Defaults only, no file read. */
void rd_config_init(rd_config *c);
/* Loads the configuration of the installation under root ("/" or the
 * --root directory; NULL is "/"): the vendor file, the /etc file, then the
 * drop-ins, each resolved inside root as rd_root_open does. With
 * explicit_file (--config), only that file, opened as given. An unknown
 * section or key in a drop-in is skipped with a line in ->warnings (a key
 * a newer version added must not stop an older one); elsewhere, an unknown
 * section or key, a key twice in one file, or a bad value fails with
 * *ret_error naming file, line and key; *ret is written only on success.
 * An empty value sets a key back to its default. Finding ids are checked
 * against the probes' catalogues, fix ids against ids->fix_ids. */
int rd_config_load(const rd_config_ids *ids, const char *root, const char *explicit_file, rd_config *ret,
                   char **ret_error);
/* Parses one file's text into c on top of what c holds (name is used in
 * messages only). The building block of rd_config_load, for tests. */
int rd_config_parse(rd_config *c, const rd_config_ids *ids, const char *name, const char *text, size_t size,
                    char **ret_error);
/* The same for a drop-in: unknown sections and keys go to c->warnings. */
int rd_config_parse_dropin(rd_config *c, const rd_config_ids *ids, const char *name, const char *text, size_t size,
                           char **ret_error);
void rd_config_free(rd_config *c);
/* Every key with its effective value, as rocm-doctor.conf text: one
 * "key = value" line per key under its section, in table order. */
char *rd_config_dump(const rd_config *c);
/* Policy after assessment: gpu.count-mismatch (an error when fewer AMD GPUs
 * than expected_gpus are seen, info when more), then severity overrides,
 * then ignored ids. n_gpus is the number of AMD GPUs seen. */
void rd_config_apply(const rd_config *c, size_t n_gpus, rd_findings *findings);
