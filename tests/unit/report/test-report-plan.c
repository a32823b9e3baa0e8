/* SPDX-License-Identifier: MIT */
/* report-plan.c: the plan's text when what it quotes is hostile. */
#include <glib.h>

#include "report-plan.h"
#include "util.h"
#include "testlib.h"

/* The plan's text quotes the repository's index (names, versions) and the
 * package manager (a reason, its output under --verbose): escaped, bounded. */
static void test_plan_untrusted_text(void)
{
    rd_plan p = { .root = xstrdup("/"), .verbose = true };
    rd_step *s = rd_plan_add_step(&p, "packages", RD_EFFECT_NOW, "%s", "ROCm packages");
    rd_pkg_set *set = xcalloc(1, sizeof *set);
    set->pm = RD_PM_APT;
    rd_pkg_change *x = ARRAY_APPEND(set->changes.items, set->changes.n);
    x->op = RD_PKG_INSTALL;
    x->name = xstrdup("rocm\x1b[2J");
    x->version = xstrdup("6.4.1\x1b]0;owned\x07\x1b[31m");
    x = ARRAY_APPEND(set->changes.items, set->changes.n);
    x->op = RD_PKG_UPGRADE;
    x->name = xstrdup("rocm-core");
    x->old_version = xstrdup("1.0");
    x->version = g_strnfill(10000, 'A');
    rd_step_packages(s, set);
    rd_not_planned *np = ARRAY_APPEND(p.not_planned, p.n_not_planned);
    np->fix = xstrdup("dnf");
    np->reason = xstrdup("the dnf dry run could not run (Error: \x1b[8mhidden\x1b[0m)");
    np->detail = xstrdup("line one\x1b[1A\rline two\n\x9b"
                         "31m");
    char *text = NULL;
    size_t size = 0;
    FILE *f = open_memstream(&text, &size);
    rd_plan_print(&p, f);
    fclose(f);
    g_assert_null(memchr(text, 0x1b, size));
    g_assert_null(memchr(text, '\r', size));
    g_assert_null(memchr(text, 0x07, size));
    g_assert_null(memchr(text, 0x9b, size));
    g_assert_nonnull(strstr(text, "     install   rocm\\x1b[2J 6.4.1\\x1b]0;owned\\x07\\x1b[31m\n"));
    /* 128 bytes of the version, then how much was left out */
    g_assert_nonnull(strstr(text, "     upgrade   rocm-core 1.0 -> AAAA"));
    g_assert_nonnull(strstr(text, "A [9872 more bytes]\n"));
    g_assert_cmpuint(size, <, 2000);
    g_assert_nonnull(strstr(text, "   dnf: the dnf dry run could not run (Error: \\x1b[8mhidden\\x1b[0m)\n"));
    g_assert_nonnull(strstr(text, "      | line one\\x1b[1A\\rline two\n"));
    free(text);
    rd_plan_free(&p);
}

static const rd_test_case tests[] = {
    { "/report-plan/untrusted-text", test_plan_untrusted_text },
};

RD_TEST_MAIN(tests, false)
