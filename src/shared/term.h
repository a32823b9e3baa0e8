/* SPDX-License-Identifier: MIT */
/* What text output needs, whoever prints it: colours, marks (with an ASCII
 * fallback when the locale is not UTF-8), escaping of text that came from
 * the host, column counting and wrapping at 80 columns. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define RD_TERM_WIDTH 80

typedef enum {
    RD_COLOR_RESET,
    RD_COLOR_BOLD,
    RD_COLOR_DIM,
    RD_COLOR_RED,
    RD_COLOR_YELLOW,
    RD_COLOR_GREEN,
    RD_COLOR_BLUE,
} rd_color;

typedef enum {
    RD_GLYPH_CHECK, /* ✓ */
    RD_GLYPH_CROSS, /* ✗ */
    RD_GLYPH_BANG,  /* ! */
    RD_GLYPH_INFO,  /* i */
    RD_GLYPH_ARROW, /* → */
    RD_GLYPH_MICRO, /* µ */
} rd_glyph;

typedef struct {
    FILE *out;
    bool color; /* ANSI colours (the caller decides: terminal, --color, NO_COLOR) */
    bool utf8;  /* UTF-8 locale: Unicode marks; else ASCII marks and every non-ASCII byte escaped */
} rd_term;

/* color as given; utf8 from the locale variables (LC_ALL, LC_CTYPE, LANG). */
void rd_term_init(rd_term *t, FILE *out, bool color);
/* Whether the locale the environment names uses UTF-8. */
bool rd_term_locale_utf8(void);

/* The escape sequence of c, "" without colour. */
const char *rd_term_color(const rd_term *t, rd_color c);
const char *rd_term_glyph(const rd_term *t, rd_glyph g);

/* A copy of s that is safe on a terminal: control characters (C0, DEL, C1),
 * bidirectional overrides, line separators and invalid UTF-8 become visible
 * escapes (\n, \t, \x1b, \u202e); without utf8, every byte above 0x7f does. */
char *rd_term_escape(const char *s, bool utf8);
/* The same for at most max bytes of s (cut at a character's start), with
 * " [N more bytes]" when it was cut: text from a server or a package
 * manager (versions, error lines) in a line of a report. */
char *rd_term_escape_bounded(const char *s, size_t max, bool utf8);
/* The same for text of several lines: each line escaped and bounded to
 * max bytes, the line breaks kept. */
char *rd_term_escape_lines(const char *s, size_t max, bool utf8);
/* Terminal columns of UTF-8 text (wide characters 2, combining marks 0). */
size_t rd_term_cells(const char *s);

/* Prints s escaped. */
void rd_term_puts(const rd_term *t, const char *s);
/* Prints text escaped, in words, after `col` columns already used on the
 * line; further lines are indented by `indent`. A word longer than a line is
 * broken at RD_TERM_WIDTH. Ends with a newline. */
void rd_term_wrap(const rd_term *t, const char *text, size_t col, size_t indent);
/* The same in colour c, reset before each line break. */
void rd_term_wrap_color(const rd_term *t, rd_color c, const char *text, size_t col, size_t indent);
/* Prints s escaped, left-aligned in `width` columns, at least one space after. */
void rd_term_cell(const rd_term *t, const char *s, size_t width);

/* Human size: 25753026560 -> "24 GiB". */
void rd_format_bytes(uint64_t bytes, char *buf, size_t size);

/* A message on stderr: "PROGRAM: MESSAGE" and a newline. */
void rd_msg_error(const char *program, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* The same, followed by "Try 'PROGRAM --help' for more information." */
void rd_msg_usage_error(const char *program, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
