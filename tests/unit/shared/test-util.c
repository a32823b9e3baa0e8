/* SPDX-License-Identifier: MIT */
/* src/shared/util.c: the directory walk, array growth and string vectors,
 * the root prefix, hexadecimal digits. */
#include <glib.h>

#include "util.h"
#include "testlib.h"
#include "tree.h"

/* ---- directory walk (getdents64 into a stack buffer) ---- */

typedef struct {
    GHashTable *seen;
    int stop_at, calls;
} walk_state;

static int walk_one(const char *name, void *userdata)
{
    walk_state *w = userdata;
    g_assert_false(g_hash_table_contains(w->seen, name)); /* each entry once */
    g_hash_table_add(w->seen, g_strdup(name));
    return ++w->calls == w->stop_at ? 7 : 0;
}

static void test_dir_each(void)
{
    tree t;
    tree_init(&t);
    /* 600 names of ~60 bytes: some 45 KiB of entries, several reads of the
     * 8 KiB buffer */
    for (int i = 0; i < 600; i++) {
        g_autofree char *rel = g_strdup_printf("etc/entry-%04d-a-name-long-enough-to-fill-buffers.conf", 599 - i);
        put(&t, rel, "");
    }
    put(&t, "etc/.hidden.conf", "");
    put(&t, "etc/other.txt", "");
    g_assert_cmpint(mkdirat(t.fd, "etc/sub.conf", 0755), ==, 0);
    int fd = openat(t.fd, "etc", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    g_assert_cmpint(fd, >=, 0);

    walk_state w = { g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL), -1, 0 };
    g_assert_cmpint(dir_each(fd, walk_one, &w), ==, 0);
    g_assert_cmpint(w.calls, ==, 603); /* . and .. left out, dot-files kept */
    g_assert_true(g_hash_table_contains(w.seen, ".hidden.conf"));
    g_assert_false(g_hash_table_contains(w.seen, "."));
    g_assert_false(g_hash_table_contains(w.seen, ".."));
    g_hash_table_destroy(w.seen);

    /* the walk stops at the first non-zero return and passes it on */
    int fd2 = openat(t.fd, "etc", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    walk_state stop = { g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL), 10, 0 };
    g_assert_cmpint(dir_each(fd2, walk_one, &stop), ==, 7);
    g_assert_cmpint(stop.calls, ==, 10);
    g_hash_table_destroy(stop.seen);
    close(fd2);

    /* names: sorted, suffix-filtered, no dot-files; the walk starts from the
     * top again on an fd that was read to its end, and the fd stays usable
     * for openat */
    int fd3 = openat(t.fd, "etc", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    int err = 1;
    for (int round = 0; round < 2; round++) {
        _cleanup_strv_free_ char **names = dir_names(fd3, dir_name_visible, ".conf", &err);
        g_assert_cmpint(err, ==, 0);
        g_assert_cmpuint(strv_length(names), ==, 601);
        g_assert_cmpstr(names[0], ==, "entry-0000-a-name-long-enough-to-fill-buffers.conf");
        g_assert_cmpstr(names[599], ==, "entry-0599-a-name-long-enough-to-fill-buffers.conf");
        g_assert_cmpstr(names[600], ==, "sub.conf");
    }
    _cleanup_strv_free_ char **all = dir_names(fd3, NULL, NULL, NULL);
    g_assert_cmpuint(strv_length(all), ==, 603);
    g_assert_cmpstr(all[0], ==, ".hidden.conf");
    int f = openat(fd3, "other.txt", O_RDONLY | O_CLOEXEC);
    g_assert_cmpint(f, >=, 0);
    close(f);
    g_assert_null(dir_names(fd3, dir_name_visible, ".none", &err));
    g_assert_cmpint(err, ==, 0);
    close(fd3);

    /* a file is not a directory */
    int file = openat(t.fd, "etc/other.txt", O_RDONLY | O_CLOEXEC);
    g_assert_cmpint(dir_each(file, walk_one, &w), ==, -ENOTDIR);
    g_assert_null(dir_names(file, NULL, NULL, &err));
    g_assert_cmpint(err, ==, -ENOTDIR);
    close(file);
    close(fd);
    tree_free(&t);
}

/* ---- arrays ---- */

static void test_arrays(void)
{
    int *a = NULL;
    size_t n = 0;
    for (int i = 0; i < 100000; i++)
        *ARRAY_APPEND(a, n) = i;
    g_assert_cmpuint(n, ==, 100000);
    g_assert_cmpint(a[99999], ==, 99999);
    /* shrunk by hand, then grown again: still within its block */
    n = 3;
    *ARRAY_APPEND(a, n) = 42;
    g_assert_cmpint(a[3], ==, 42);
    free(a);

    char **v = NULL;
    size_t k = 0;
    for (int i = 0; i < 50000; i++)
        v = strv_push_n(v, &k, g_strdup_printf("%d", i));
    g_assert_cmpuint(strv_length(v), ==, 50000);
    v = strv_push(v, xstrdup("end"));
    g_assert_cmpstr(v[50000], ==, "end");
    g_assert_null(v[50001]);
    strv_free(v);
}

static void test_strv_split(void)
{
    _cleanup_strv_free_ char **v = strv_split(" gfx90a,\tgfx942 ,,gfx1100 ", " \t,");
    g_assert_cmpuint(strv_length(v), ==, 3);
    g_assert_cmpstr(v[0], ==, "gfx90a");
    g_assert_cmpstr(v[1], ==, "gfx942");
    g_assert_cmpstr(v[2], ==, "gfx1100");
    g_assert_null(strv_split(" ,\t", " \t,"));
    g_assert_null(strv_split("", ","));
}

static void test_strv_new(void)
{
    _cleanup_strv_free_ char **v = rd_strv_new("dpkg", "--configure", "-a", NULL);
    g_assert_cmpuint(strv_length(v), ==, 3);
    g_assert_cmpstr(v[0], ==, "dpkg");
    g_assert_cmpstr(v[2], ==, "-a");
    g_assert_null(v[3]);
    g_assert_null(rd_strv_new(NULL, NULL));
}

static void test_root_prefix(void)
{
    g_assert_cmpstr(root_prefix("/"), ==, "");
    g_assert_cmpstr(root_prefix("/srv/image"), ==, "/srv/image");
    g_autofree char *p = g_strdup_printf("%s/etc/group", root_prefix("/"));
    g_assert_cmpstr(p, ==, "/etc/group");
}

static void test_unhexchar(void)
{
    g_assert_cmpint(unhexchar('0'), ==, 0);
    g_assert_cmpint(unhexchar('9'), ==, 9);
    g_assert_cmpint(unhexchar('a'), ==, 10);
    g_assert_cmpint(unhexchar('F'), ==, 15);
    g_assert_cmpint(unhexchar('g'), ==, -EINVAL);
    g_assert_cmpint(unhexchar('\n'), ==, -EINVAL);
    g_assert_cmpint(unhexchar(0), ==, -EINVAL);
}

static void test_cut_words(void)
{
    g_autofree char *fits = str_cut_words("Error: Failed to parse", 40);
    g_assert_cmpstr(fits, ==, "Error: Failed to parse");
    /* apt's sqv message at 52 bytes: "Error: Fa" was what a byte cut left */
    const char *msg = "Sub-process /usr/bin/sqv returned an error code (1), error message is: Error: Failed to "
                      "parse keyring";
    g_autofree char *cut = str_cut_words(msg, 80);
    g_assert_cmpstr(cut, ==, "Sub-process /usr/bin/sqv returned an error code (1), error message is: Error:...");
    g_assert_cmpuint(strlen(cut), <=, 80);
    g_autofree char *at_space = str_cut_words("aaaa bbbb cccc", 12);
    g_assert_cmpstr(at_space, ==, "aaaa bbbb...");
    /* one long word: cut between characters, never inside one (é is 2 bytes) */
    g_autofree char *word = str_cut_words("\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9", 10);
    g_assert_cmpstr(word, ==, "\xc3\xa9\xc3\xa9\xc3\xa9...");
}

static const rd_test_case tests[] = {
    { "/util/cut-words", test_cut_words },   { "/util/arrays", test_arrays },
    { "/util/strv-split", test_strv_split }, { "/util/strv-new", test_strv_new },
    { "/util/unhexchar", test_unhexchar },   { "/util/root-prefix", test_root_prefix },
    { "/util/dir-each", test_dir_each },
};

RD_TEST_MAIN(tests, false)
