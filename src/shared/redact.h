/* SPDX-License-Identifier: MIT */
/* Leaves secrets out of what a support bundle carries: credentials in URLs
 * (scheme://user:password@host), Authorization headers, values of keys and
 * variables whose name says secret (…TOKEN=, password:, api_key=, …),
 * netrc-style "password VALUE", and PEM private key blocks. Each is replaced
 * with "<redacted>", so the structure of the file stays readable. */
#pragma once

#include <json-c/json.h>
#include <stdbool.h>

#define RD_REDACTED "<redacted>"

/* Whether a variable or key name says its value is a secret. */
bool rd_redact_secret_name(const char *name, size_t len);
/* A copy of text with secrets replaced; *count (may be NULL) is increased by
 * the number of replacements. */
char *rd_redact_text(const char *text, unsigned *count);
/* Redacts every string in j in place: values of members with a secret name,
 * and secrets inside any string. JSON stays JSON of the same shape. */
void rd_redact_json(json_object *j, unsigned *count);
