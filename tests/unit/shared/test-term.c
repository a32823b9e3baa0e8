/* SPDX-License-Identifier: MIT */
/* src/shared/term.c: escaping of host text, column counting, wrapping. */
#include <glib.h>

#include "term.h"
#include "util.h"
#include "testlib.h"

static void assert_escaped(const char *in, bool utf8, const char *want)
{
    _cleanup_free_ char *out = rd_term_escape(in, utf8);
    g_assert_cmpstr(out, ==, want);
}

static void test_escape(void)
{
    assert_escaped("plain text", true, "plain text");
    assert_escaped("a\x1b[2Jb\x07\x7f", true, "a\\x1b[2Jb\\x07\\x7f");
    assert_escaped("l1\nl2\tx\r", true, "l1\\nl2\\tx\\r");
    /* C1 controls, bidirectional overrides, line separators */
    assert_escaped("\xc2\x9b"
                   "1m \xe2\x80\xae"
                   "abc \xe2\x80\xa8",
                   true, "\\u009b1m \\u202eabc \\u2028");
    /* invalid UTF-8: a lone CSI byte, a truncated sequence, an overlong NUL */
    assert_escaped("\x9b"
                   "1m \xe2\x82 \xc0\x80",
                   true, "\\x9b1m \\xe2\\x82 \\xc0\\x80");
    /* ordinary Unicode stays */
    assert_escaped("Radeon™ µs → 日本", true, "Radeon™ µs → 日本");
    /* outside UTF-8 every byte above 0x7f is escaped */
    assert_escaped("µ", false, "\\xc2\\xb5");
    assert_escaped(NULL, true, "");
}

static void test_cells(void)
{
    g_assert_cmpuint(rd_term_cells("abc"), ==, 3);
    g_assert_cmpuint(rd_term_cells("✓ µs"), ==, 4);
    g_assert_cmpuint(rd_term_cells("日本"), ==, 4);
    g_assert_cmpuint(rd_term_cells("e\xcc\x81"), ==, 1); /* e + combining acute */
}

static char *wrapped(const char *text, size_t col, size_t indent, bool utf8)
{
    char *buf = NULL;
    size_t size = 0;
    FILE *f = open_memstream(&buf, &size);
    g_assert_nonnull(f);
    rd_term t = { .out = f, .color = false, .utf8 = utf8 };
    rd_term_wrap(&t, text, col, indent);
    fclose(f);
    return buf;
}

static void test_wrap(void)
{
    _cleanup_free_ char *a = wrapped("one two three", 0, 2, true);
    g_assert_cmpstr(a, ==, "one two three\n");
    /* words move to the next line, indented */
    _cleanup_free_ char *a76 = g_strnfill(76, 'a');
    _cleanup_free_ char *text = g_strdup_printf("%s tail", a76);
    _cleanup_free_ char *b = wrapped(text, 2, 4, true);
    g_assert_cmpstr(b, ==, "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\n    tail\n");
    /* a word longer than a line is broken at 80 columns */
    _cleanup_free_ char *longword = g_strnfill(170, 'x');
    _cleanup_free_ char *c = wrapped(longword, 4, 6, true);
    gchar **lines = g_strsplit(c, "\n", -1);
    g_assert_cmpuint(strlen(lines[0]), ==, 76);
    g_assert_cmpuint(strlen(lines[1]), ==, 80);
    _cleanup_free_ char *x74 = g_strnfill(74, 'x');
    g_assert_cmpstr(lines[1] + 6, ==, x74);
    g_assert_cmpuint(strlen(lines[2]), ==, 6 + 170 - 76 - 74);
    g_assert_cmpstr(lines[3], ==, "");
    g_strfreev(lines);
    /* never inside a UTF-8 sequence; a wide character counts two columns */
    /* 45 wide characters */
    _cleanup_free_ char *wide = g_strconcat("日本語日本語日本語日本語日本語日本語日本語日本語日本語",
                                            "日本語日本語日本語日本語日本語日本語", NULL);
    _cleanup_free_ char *d = wrapped(wide, 0, 0, true);
    lines = g_strsplit(d, "\n", -1);
    g_assert_true(g_utf8_validate(lines[0], -1, NULL) && g_utf8_validate(lines[1], -1, NULL));
    g_assert_cmpuint(rd_term_cells(lines[0]), ==, 80);
    g_assert_cmpuint(rd_term_cells(lines[1]), ==, 2 * 45 - 80);
    g_strfreev(lines);
    /* escapes are counted as what they print */
    _cleanup_free_ char *e = wrapped("\x1b[31m", 0, 0, true);
    g_assert_cmpstr(e, ==, "\\x1b[31m\n");
}

static const rd_test_case tests[] = {
    { "/term/escape", test_escape },
    { "/term/cells", test_cells },
    { "/term/wrap", test_wrap },
};

RD_TEST_MAIN(tests, false)
