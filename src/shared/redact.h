/* SPDX-License-Identifier: MIT */
/* Leaves secrets out of what a support bundle carries, by allowlist: the
 * caller's policy names the variables whose values may be shown and the
 * hosts whose URL paths are public; every other variable keeps only its
 * name, every other URL only its scheme and host. On top of that, for text
 * no allowlist can describe (logs): values of keys whose name says secret
 * (…token=, password:, api_key=), Authorization headers, netrc-style
 * "password VALUE" and PEM private key blocks. What is left out becomes
 * "<redacted>", so the structure of a file and its line numbers stay. */
#pragma once

#include <json-c/json.h>
#include <stdbool.h>

#define RD_REDACTED "<redacted>"

typedef struct {
    /* Whether the value of this variable may be shown; NULL: none may. */
    bool (*value_shown)(const char *name, size_t len);
    /* Hosts whose URL paths are public (package repositories): their URLs
     * keep the path (never user info, query or fragment). NULL-terminated,
     * or NULL. */
    const char *const *public_hosts;
} rd_redact_policy;

/* Whether a variable or key name says its value is a secret. */
bool rd_redact_secret_name(const char *name, size_t len);

#define RD_MASKED "*****"

/* A copy of text in which the password of every URL with user info
 * (scheme://user:password@host) reads RD_MASKED; the user, host and path
 * stay. For what rocm-doctor prints itself: plans, errors, the apply. */
char *rd_mask_url_passwords(const char *text);

/* Each returns a copy with secrets replaced; *count (may be NULL) is
 * increased by the number of replacements. policy may be NULL (nothing shown,
 * no public host). */

/* Free text (logs, reports): URLs cut to scheme and host, values of
 * VARIABLE=value assignments the policy does not show, and the secrets above. */
char *rd_redact_text(const rd_redact_policy *policy, const char *text, unsigned *count);
/* Files of variable assignments (/etc/environment, environment.d, profile.d,
 * a process environment as NAME=VALUE lines): an assignment keeps its name
 * and, when the policy shows it, its value as one shell word (URLs cut);
 * comments and every line that is not an assignment are left out. */
char *rd_redact_env(const rd_redact_policy *policy, const char *text, unsigned *count);
/* Configuration files (apt sources and preferences, modprobe.d): comments
 * left out, the rest as free text. */
char *rd_redact_config(const rd_redact_policy *policy, const char *text, unsigned *count);
/* Redacts every string in j in place: {"name": N, "value": V} objects whose N
 * is a variable's name (upper case) keep V only when the policy shows N,
 * members and objects with a secret name lose their value,
 * and every string is redacted as free text. JSON stays JSON of the same
 * shape. */
void rd_redact_json(const rd_redact_policy *policy, json_object *j, unsigned *count);
