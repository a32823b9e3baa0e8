/* SPDX-License-Identifier: MIT */
#pragma once

/* Value of KEY in os-release text (quotes and escapes removed), or NULL. */
char *rd_os_release_get(const char *text, const char *key);
