/* SPDX-License-Identifier: MIT */
/* The parsers of the probe of apt sources, preferences and keyrings
 * (apt.c), exported for the unit tests and the fuzz targets. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include "facts.h"

/* Parses one sources file (one-line format when deb822 is false). Entries
 * that concern host, or that hold a @PLACEHOLDER@, are appended. */
void rd_apt_parse_sources(const char *text, const char *file, bool deb822, const char *host, rd_apt_source **sources,
                          size_t *n);
/* Parses one preferences file; stanzas whose Pin names origin are appended. */
void rd_apt_parse_preferences(const char *text, const char *file, const char *origin, rd_apt_pin **pins, size_t *n);
