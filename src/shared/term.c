/* SPDX-License-Identifier: MIT */
#include "term.h"

#include <strings.h>
#include "util.h"

bool rd_term_locale_utf8(void)
{
    /* The locale the C library would choose for LC_CTYPE, without
     * setlocale(): the first of these that is set and not empty. */
    static const char *const vars[] = { "LC_ALL", "LC_CTYPE", "LANG" };
    for (size_t i = 0; i < ELEMENTSOF(vars); i++) {
        const char *v = getenv(vars[i]);
        if (!v || !*v)
            continue;
        const char *dot = strchr(v, '.');
        if (!dot)
            return false;
        size_t n = strcspn(dot + 1, "@");
        return (n == 5 && strncasecmp(dot + 1, "utf-8", 5) == 0) || (n == 4 && strncasecmp(dot + 1, "utf8", 4) == 0);
    }
    return false;
}

void rd_term_init(rd_term *t, FILE *out, bool color)
{
    *t = (rd_term){ .out = out, .color = color, .utf8 = rd_term_locale_utf8() };
}

const char *rd_term_color(const rd_term *t, rd_color c)
{
    static const char *const codes[] = {
        [RD_COLOR_RESET] = "\033[0m",   [RD_COLOR_BOLD] = "\033[1m",      [RD_COLOR_DIM] = "\033[2m",
        [RD_COLOR_RED] = "\033[1;31m",  [RD_COLOR_YELLOW] = "\033[1;33m", [RD_COLOR_GREEN] = "\033[1;32m",
        [RD_COLOR_BLUE] = "\033[1;34m",
    };
    return t->color && (size_t)c < ELEMENTSOF(codes) ? codes[c] : "";
}

const char *rd_term_glyph(const rd_term *t, rd_glyph g)
{
    static const char *const glyphs[][2] = {
        [RD_GLYPH_CHECK] = { "✓", "+" }, [RD_GLYPH_CROSS] = { "✗", "x" },  [RD_GLYPH_BANG] = { "!", "!" },
        [RD_GLYPH_INFO] = { "i", "i" },  [RD_GLYPH_ARROW] = { "→", "->" }, [RD_GLYPH_MICRO] = { "µ", "u" },
    };
    if ((size_t)g >= ELEMENTSOF(glyphs))
        return "?";
    return glyphs[g][t->utf8 ? 0 : 1];
}

/* Decodes one UTF-8 sequence at s (shortest form, no surrogates). Returns its
 * length, or 0 when the bytes there are not valid UTF-8. */
static size_t utf8_decode(const unsigned char *s, uint32_t *ret)
{
    uint32_t c;
    size_t n;
    if (s[0] < 0x80) {
        *ret = s[0];
        return 1;
    }
    if ((s[0] & 0xe0) == 0xc0)
        c = s[0] & 0x1f, n = 2;
    else if ((s[0] & 0xf0) == 0xe0)
        c = s[0] & 0x0f, n = 3;
    else if ((s[0] & 0xf8) == 0xf0)
        c = s[0] & 0x07, n = 4;
    else
        return 0;
    for (size_t i = 1; i < n; i++) {
        if ((s[i] & 0xc0) != 0x80)
            return 0; /* also stops at the NUL */
        c = c << 6 | (s[i] & 0x3f);
    }
    static const uint32_t min[] = { 0, 0, 0x80, 0x800, 0x10000 };
    if (c < min[n] || c > 0x10ffff || (c >= 0xd800 && c <= 0xdfff))
        return 0;
    *ret = c;
    return n;
}

/* Code points a terminal acts on or that reorder what it shows. */
static bool unsafe_code_point(uint32_t c)
{
    return c < 0x20 || c == 0x7f || (c >= 0x80 && c <= 0x9f) || (c >= 0x202a && c <= 0x202e) ||
           (c >= 0x2066 && c <= 0x2069) || c == 0x2028 || c == 0x2029 || c == 0x200e || c == 0x200f || c == 0x061c;
}

char *rd_term_escape(const char *s, bool utf8)
{
    strbuf b = { 0 };
    strbuf_append(&b, "");
    const unsigned char *p = (const unsigned char *)strempty(s);
    while (*p) {
        size_t run = 0; /* bytes that need nothing */
        while (p[run] >= 0x20 && p[run] < 0x7f)
            run++;
        strbuf_appendn(&b, (const char *)p, run);
        p += run;
        if (!*p)
            break;
        uint32_t c;
        size_t n = utf8 ? utf8_decode(p, &c) : 0;
        if (n > 1 && !unsafe_code_point(c))
            strbuf_appendn(&b, (const char *)p, n);
        else if (*p == '\n')
            strbuf_append(&b, "\\n");
        else if (*p == '\t')
            strbuf_append(&b, "\\t");
        else if (*p == '\r')
            strbuf_append(&b, "\\r");
        else if (n > 1)
            strbuf_printf(&b, "\\u%04x", (unsigned)c);
        else
            strbuf_printf(&b, "\\x%02x", *p);
        p += n > 1 ? n : 1;
    }
    return strbuf_steal(&b);
}

char *rd_term_escape_bounded(const char *s, size_t max, bool utf8)
{
    s = strempty(s);
    size_t len = strlen(s);
    if (len <= max)
        return rd_term_escape(s, utf8);
    size_t cut = max;
    while (cut > 0 && ((unsigned char)s[cut] & 0xc0) == 0x80)
        cut--; /* not inside a UTF-8 sequence */
    _cleanup_free_ char *head = xstrndup(s, cut);
    _cleanup_free_ char *e = rd_term_escape(head, utf8);
    return xasprintf("%s [%zu more bytes]", e, len - cut);
}

char *rd_term_escape_lines(const char *s, size_t max, bool utf8)
{
    strbuf b = { 0 };
    strbuf_append(&b, "");
    for (const char *p = strempty(s);;) {
        size_t n = strcspn(p, "\n");
        _cleanup_free_ char *line = xstrndup(p, n);
        _cleanup_free_ char *e = rd_term_escape_bounded(line, max, utf8);
        strbuf_append(&b, e);
        if (!p[n])
            break;
        strbuf_append(&b, "\n");
        p += n + 1;
    }
    return strbuf_steal(&b);
}

/* Columns of one code point: 0 for combining marks and zero-width ones, 2
 * for East Asian wide and emoji ranges (the common blocks, not all of
 * Unicode's tables: what terminals agree on). */
static size_t code_point_cells(uint32_t c)
{
    static const uint32_t zero[][2] = {
        { 0x0300, 0x036f }, { 0x0483, 0x0489 }, { 0x0591, 0x05bd }, { 0x0610, 0x061a }, { 0x064b, 0x065f },
        { 0x200b, 0x200f }, { 0x20d0, 0x20ff }, { 0xfe00, 0xfe0f }, { 0xfe20, 0xfe2f },
    };
    static const uint32_t wide[][2] = {
        { 0x1100, 0x115f }, { 0x2e80, 0x303e },   { 0x3041, 0x33ff },   { 0x3400, 0x4dbf },   { 0x4e00, 0x9fff },
        { 0xa000, 0xa4cf }, { 0xac00, 0xd7a3 },   { 0xf900, 0xfaff },   { 0xfe30, 0xfe4f },   { 0xff00, 0xff60 },
        { 0xffe0, 0xffe6 }, { 0x1f300, 0x1f64f }, { 0x1f900, 0x1f9ff }, { 0x20000, 0x2fffd }, { 0x30000, 0x3fffd },
    };
    if (c < zero[0][0])
        return 1; /* ASCII and Latin: below every range */
    for (size_t i = 0; i < ELEMENTSOF(zero); i++)
        if (c >= zero[i][0] && c <= zero[i][1])
            return 0;
    for (size_t i = 0; i < ELEMENTSOF(wide); i++)
        if (c >= wide[i][0] && c <= wide[i][1])
            return 2;
    return 1;
}

/* Length in bytes of the character at p (1 for a byte that is not UTF-8). */
static size_t char_len(const char *p, size_t *ret_cells)
{
    uint32_t c;
    size_t n = utf8_decode((const unsigned char *)p, &c);
    *ret_cells = n ? code_point_cells(c) : 1;
    return n ? n : 1;
}

size_t rd_term_cells(const char *s)
{
    size_t cells = 0;
    for (const char *p = strempty(s); *p;) {
        size_t w;
        p += char_len(p, &w);
        cells += w;
    }
    return cells;
}

void rd_term_puts(const rd_term *t, const char *s)
{
    _cleanup_free_ char *e = rd_term_escape(s, t->utf8);
    fputs(e, t->out);
}

static void line_break(const rd_term *t, const char *on, size_t indent)
{
    fprintf(t->out, "%s\n%*s%s", *on ? rd_term_color(t, RD_COLOR_RESET) : "", (int)indent, "", on);
}

/* Prints the word p[0..len) from column *col, breaking it at the width. */
static void put_word(const rd_term *t, const char *on, const char *p, size_t len, size_t *col, size_t indent)
{
    const char *end = p + len;
    while (p < end) {
        size_t take = 0, cells = 0, w;
        while (p + take < end) {
            size_t n = char_len(p + take, &w);
            if (*col + cells + w > RD_TERM_WIDTH && (take > 0 || *col > indent))
                break;
            take += n;
            cells += w;
        }
        if (take == 0) { /* no room left on this line */
            line_break(t, on, indent);
            *col = indent;
            continue;
        }
        fwrite(p, 1, take, t->out);
        *col += cells;
        p += take;
        if (p < end) {
            line_break(t, on, indent);
            *col = indent;
        }
    }
}

static void wrap(const rd_term *t, const char *on, const char *text, size_t col, size_t indent)
{
    _cleanup_free_ char *e = rd_term_escape(text, t->utf8);
    if (indent >= RD_TERM_WIDTH / 2)
        indent = RD_TERM_WIDTH / 2;
    fputs(on, t->out);
    bool first = true;
    for (const char *p = e; *p;) {
        p += strspn(p, " ");
        size_t len = strcspn(p, " ");
        if (len == 0)
            break;
        _cleanup_free_ char *word = xstrndup(p, len);
        size_t w = rd_term_cells(word);
        if (!first && col + 1 + w > RD_TERM_WIDTH) {
            line_break(t, on, indent);
            col = indent;
        } else if (!first) {
            fputc(' ', t->out);
            col++;
        }
        put_word(t, on, p, len, &col, indent);
        p += len;
        first = false;
    }
    fprintf(t->out, "%s\n", *on ? rd_term_color(t, RD_COLOR_RESET) : "");
}

void rd_term_wrap(const rd_term *t, const char *text, size_t col, size_t indent)
{
    wrap(t, "", text, col, indent);
}

void rd_term_wrap_color(const rd_term *t, rd_color c, const char *text, size_t col, size_t indent)
{
    wrap(t, rd_term_color(t, c), text, col, indent);
}

void rd_term_cell(const rd_term *t, const char *s, size_t width)
{
    _cleanup_free_ char *e = rd_term_escape(s, t->utf8);
    size_t cells = rd_term_cells(e);
    fputs(e, t->out);
    fprintf(t->out, "%*s", (int)(cells < width ? width - cells : 1), "");
}

void rd_format_bytes(uint64_t b, char *buf, size_t size)
{
    static const char *const units[] = { "B", "KiB", "MiB", "GiB", "TiB" };
    double v = (double)b;
    size_t u = 0;
    while (v >= 1024 && u + 1 < ELEMENTSOF(units)) {
        v /= 1024;
        u++;
    }
    if (v >= 10 || v == (double)(uint64_t)v)
        snprintf(buf, size, "%.0f %s", v, units[u]);
    else
        snprintf(buf, size, "%.1f %s", v, units[u]);
}

static void msg_v(const char *program, bool usage, const char *fmt, va_list ap)
{
    /* a message may quote a package manager or a file: escaped, each line
     * of it (line breaks kept) bounded */
    _cleanup_free_ char *msg = NULL;
    if (vasprintf(&msg, fmt, ap) < 0)
        msg = NULL;
    _cleanup_free_ char *e = rd_term_escape_lines(msg ? msg : fmt, 4096, rd_term_locale_utf8());
    fprintf(stderr, "%s: %s\n", program, e);
    if (usage)
        fprintf(stderr, "Try '%s --help' for more information.\n", program);
}

void rd_msg_error(const char *program, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    msg_v(program, false, fmt, ap);
    va_end(ap);
}

void rd_msg_usage_error(const char *program, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    msg_v(program, true, fmt, ap);
    va_end(ap);
}
