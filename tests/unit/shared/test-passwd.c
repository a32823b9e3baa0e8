/* SPDX-License-Identifier: MIT */
/* src/shared/passwd.c: the one passwd/group reader, every edge case of a
 * line once. */
#include <glib.h>
#include <glib/gstdio.h>
#include <fcntl.h>

#include "passwd.h"
#include "rootfs.h"
#include "util.h"
#include "testlib.h"

/* ---- passwd ---- */

static int collect_passwd(const passwd_entry *e, void *u)
{
    g_string_append_printf(u, "%s %u %u [%s] [%s] [%s]\n", e->name, e->uid, e->gid, e->gecos, e->home, e->shell);
    return 0;
}

static void test_passwd_lines(void)
{
    static const char text[] = "root:x:0:0:root:/root:/bin/bash\n"
                               "# comment:x:1:1::/:/bin/false\n"
                               "   # indented comment:x:2:2::/:/bin/false\n"
                               "\n"
                               "  \t\n"
                               "  spaced:x:3:3::/home/spaced:/bin/sh\n"
                               "crlf:x:4:4::/home/crlf:/bin/sh\r\n"
                               "+nis::::::\n"
                               "-nis::::::\n"
                               "+\n"
                               "short:x:5\n"
                               "nocolon\n"
                               ":x:6:6::/:/bin/sh\n"
                               "neg:x:-7:7::/:/bin/sh\n"
                               "plus:x:+8:8::/:/bin/sh\n"
                               "hex:x:0x9:9::/:/bin/sh\n"
                               "space:x: 10:10::/:/bin/sh\n"
                               "max:x:4294967295:1::/:/bin/sh\n"
                               "big:x:4294967296:1::/:/bin/sh\n"
                               "top:x:4294967294:4294967294::/:/bin/sh\n"
                               "emptygid:x:11:::/:/bin/sh\n"
                               "four:x:12:12\n"
                               "five:x:13:13:gecos\n"
                               "colons:x:14:14:a:/h:/bin/sh:extra:more\n"
                               "last:x:15:15::/last:/bin/sh";
    g_autoptr(GString) out = g_string_new(NULL);
    g_assert_cmpint(passwd_foreach_text(text, collect_passwd, out), ==, 0);
    g_assert_cmpstr(out->str, ==,
                    "root 0 0 [root] [/root] [/bin/bash]\n"
                    "spaced 3 3 [] [/home/spaced] [/bin/sh]\n"
                    "crlf 4 4 [] [/home/crlf] [/bin/sh]\n"
                    "top 4294967294 4294967294 [] [/] [/bin/sh]\n"
                    "four 12 12 [] [] []\n"
                    "five 13 13 [gecos] [] []\n"
                    "colons 14 14 [a] [/h] [/bin/sh:extra:more]\n"
                    "last 15 15 [] [/last] [/bin/sh]\n");

    passwd_record rec;
    g_assert_cmpint(passwd_find_text(text, "crlf", -1, &rec), ==, 0);
    g_assert_cmpstr(rec.home, ==, "/home/crlf");
    passwd_record_free(&rec);
    g_assert_cmpint(passwd_find_text(text, NULL, 13, &rec), ==, 0);
    g_assert_cmpstr(rec.name, ==, "five");
    passwd_record_free(&rec);
    g_assert_cmpint(passwd_find_text(text, "max", -1, &rec), ==, -ENOENT);
    g_assert_cmpint(passwd_find_text(text, "# comment", -1, &rec), ==, -ENOENT);
    g_assert_cmpint(passwd_find_text(NULL, "root", -1, &rec), ==, -ENOENT);
}

/* ---- group ---- */

static int collect_group(const group_entry *e, void *u)
{
    g_string_append_printf(u, "%s %u %zu:", e->name, e->gid, e->n_members);
    for (size_t i = 0; i < e->n_members; i++)
        g_string_append_printf(u, "[%s]", e->members[i]);
    g_assert_null(e->members ? e->members[e->n_members] : NULL);
    g_string_append_c(u, '\n');
    return 0;
}

static void test_group_lines(void)
{
    static const char text[] = "root:x:0:\n"
                               "#render:x:992:commented\n"
                               "  # render:x:993:commented\n"
                               " video:x:44: bob , alice ,,\t,carol\t\n"
                               "crlf:x:45:alice,bob\r\n"
                               "plugdev:x:46\n"
                               "+:::\n"
                               "-render:::\n"
                               "nogid:x::alice\n"
                               "badgid:x:x12:alice\n"
                               ":x:47:alice\n"
                               "nopw\n"
                               "onlyname:\n"
                               "big:x:4294967295:alice\n"
                               "render:x:992:,,alice,,\n"
                               "last:x:1000:alice";
    g_autoptr(GString) out = g_string_new(NULL);
    g_assert_cmpint(group_foreach_text(text, collect_group, out), ==, 0);
    g_assert_cmpstr(out->str, ==,
                    "root 0 0:\n"
                    "video 44 3:[bob][alice][carol]\n"
                    "crlf 45 2:[alice][bob]\n"
                    "plugdev 46 0:\n"
                    "render 992 1:[alice]\n"
                    "last 1000 1:[alice]\n");
}

static int stop_at_video(const group_entry *e, void *u)
{
    (void)u;
    return streq(e->name, "video") ? 7 : 0;
}

static int count_members(const group_entry *e, void *u)
{
    *(size_t *)u += e->n_members;
    return 0;
}

static void test_group_stop_and_large(void)
{
    g_assert_cmpint(group_foreach_text("a:x:1:\nvideo:x:44:\nb:x:2:\n", stop_at_video, NULL), ==, 7);

    /* 200k members on one line, read through the streaming file reader:
     * linear (the old push measured the list every time) */
    g_autofree char *dir = g_dir_make_tmp("rd-shared-XXXXXX", NULL);
    g_autofree char *etc = g_build_filename(dir, "etc", NULL);
    g_assert_cmpint(g_mkdir(etc, 0755), ==, 0);
    GString *line = g_string_new("render:x:992:");
    for (int i = 0; i < 200000; i++)
        g_string_append_printf(line, "%su%d", i ? "," : "", i);
    g_string_append(line, "\nvideo:x:44:alice\n");
    g_autofree char *path = g_build_filename(etc, "group", NULL);
    g_assert_true(g_file_set_contents(path, line->str, (gssize)line->len, NULL));
    g_string_free(line, TRUE);
    int root = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    size_t n = 0;
    gint64 t0 = g_get_monotonic_time();
    g_assert_cmpint(group_foreach_file(root, "/etc/group", ROOTFS_IN_ROOT, count_members, &n), ==, 0);
    g_test_message("200k members: %" G_GINT64_FORMAT " us", g_get_monotonic_time() - t0);
    g_assert_cmpuint(n, ==, 200001);
    g_assert_cmpint(group_foreach_file(root, "/etc/nothing", ROOTFS_IN_ROOT, count_members, &n), ==, -ENOENT);
    close(root);
    g_unlink(path);
    g_rmdir(etc);
    g_rmdir(dir);
}

static const rd_test_case tests[] = {
    { "/passwd/lines", test_passwd_lines },
    { "/group/lines", test_group_lines },
    { "/group/stop-and-large", test_group_stop_and_large },
};

RD_TEST_MAIN(tests, false)
