/* SPDX-License-Identifier: MIT */
/* src/shared: the one passwd/group reader (every edge case of a line, once),
 * the root-confined opener (escapes, FIFOs, sockets), the sized reader and
 * the line streamer, the atomic writer (temp name, mode, leftovers),
 * array growth, the directory walk and JSON numbers. */
#include <glib.h>
#include <glib/gstdio.h>
#include <fcntl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>

#include "json-util.h"
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

/* ---- rootfs ---- */

typedef struct {
    char *dir;
    int fd;
} tree;

static void tree_init(tree *t)
{
    t->dir = g_dir_make_tmp("rd-rootfs-XXXXXX", NULL);
    g_assert_nonnull(t->dir);
    t->fd = open(t->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    g_assert_cmpint(t->fd, >=, 0);
    g_assert_cmpint(mkdirat(t->fd, "etc", 0755), ==, 0);
}

static void tree_free(tree *t)
{
    close(t->fd);
    g_autofree char *cmd = g_strdup_printf("rm -rf '%s'", t->dir);
    g_assert_cmpint(system(cmd), ==, 0);
    g_free(t->dir);
}

static void put(const tree *t, const char *rel, const char *text)
{
    g_autofree char *p = g_build_filename(t->dir, rel, NULL);
    g_assert_true(g_file_set_contents(p, text, -1, NULL));
}

static void test_rootfs_confined(void)
{
    tree t;
    tree_init(&t);
    put(&t, "etc/real", "inside\n");
    g_assert_cmpint(symlinkat("/etc/real", t.fd, "etc/abs"), ==, 0);
    g_assert_cmpint(symlinkat("../../../../../../etc/passwd", t.fd, "etc/up"), ==, 0);

    g_autofree char *text = NULL;
    size_t size = 0;
    /* IN_ROOT: an absolute link resolves inside the tree */
    g_assert_cmpint(rootfs_read_file(t.fd, "/etc/abs", ROOTFS_IN_ROOT, 0, &text, &size), ==, 0);
    g_assert_cmpstr(text, ==, "inside\n");
    g_assert_cmpuint(size, ==, 7);
    g_clear_pointer(&text, g_free);
    /* a ".." walk stops at the root: not the host's /etc/passwd */
    g_assert_cmpint(rootfs_read_file(t.fd, "/etc/up", ROOTFS_IN_ROOT, 0, &text, NULL), ==, -ENOENT);
    /* BENEATH: the same links are refused */
    g_assert_cmpint(rootfs_open(t.fd, "/etc/abs", O_RDONLY, ROOTFS_BENEATH), ==, -EXDEV);
    g_assert_cmpint(rootfs_open(t.fd, "etc/up", O_RDONLY, ROOTFS_BENEATH), ==, -EXDEV);
    g_assert_cmpint(rootfs_read_file(t.fd, "/etc", ROOTFS_IN_ROOT, 0, &text, NULL), ==, -EISDIR);
    /* a limit still applies where one is asked for */
    g_assert_cmpint(rootfs_read_file(t.fd, "/etc/real", ROOTFS_IN_ROOT, 3, &text, NULL), ==, -EFBIG);
    g_assert_cmpstr(rootfs_strerror(-EXDEV), ==,
                    "a symlink on the way is absolute or leads out of the root; refusing to follow it");
    tree_free(&t);
}

/* A venv's python chain followed inside the tree: relative then absolute
 * links land on the tree's file, never the host's; "..", loops and dangling
 * links are reported with the place they stopped. */
static void test_rootfs_resolve(void)
{
    tree t;
    tree_init(&t);
    g_assert_cmpint(mkdirat(t.fd, "usr", 0755), ==, 0);
    g_assert_cmpint(mkdirat(t.fd, "usr/bin", 0755), ==, 0);
    put(&t, "usr/bin/python3.12", "");
    g_assert_cmpint(mkdirat(t.fd, "venv", 0755), ==, 0);
    g_assert_cmpint(mkdirat(t.fd, "venv/bin", 0755), ==, 0);
    g_assert_cmpint(symlinkat("python3.12", t.fd, "venv/bin/python3"), ==, 0);
    g_assert_cmpint(symlinkat("/usr/bin/python3.12", t.fd, "venv/bin/python3.12"), ==, 0);
    g_assert_cmpint(symlinkat("../../usr/bin/python3.12", t.fd, "venv/bin/rel"), ==, 0);
    g_assert_cmpint(symlinkat("../../../../usr/bin/python3.12", t.fd, "venv/bin/up"), ==, 0);
    g_assert_cmpint(symlinkat("loop-b", t.fd, "venv/bin/loop-a"), ==, 0);
    g_assert_cmpint(symlinkat("loop-a", t.fd, "venv/bin/loop-b"), ==, 0);
    g_assert_cmpint(symlinkat("/opt/python/bin/python3", t.fd, "venv/bin/gone"), ==, 0);

    rootfs_resolved res;
    g_assert_cmpint(rootfs_resolve(t.fd, "/venv/bin/python3", &res), ==, 0);
    g_assert_cmpstr(res.path, ==, "/usr/bin/python3.12");
    g_assert_cmpstr(res.link, ==, "/venv/bin/python3.12");
    g_assert_cmpstr(res.target, ==, "/usr/bin/python3.12");
    g_assert_cmpuint(res.n_links, ==, 2);
    rootfs_resolved_done(&res);
    g_assert_cmpint(rootfs_resolve(t.fd, "venv/./bin/../bin/rel", &res), ==, 0);
    g_assert_cmpstr(res.path, ==, "/usr/bin/python3.12");
    rootfs_resolved_done(&res);
    /* the directory itself, no link */
    g_assert_cmpint(rootfs_resolve(t.fd, "/venv/", &res), ==, 0);
    g_assert_cmpstr(res.path, ==, "/venv");
    g_assert_cmpuint(res.n_links, ==, 0);
    rootfs_resolved_done(&res);
    /* ".." above the root is refused, not clamped */
    g_assert_cmpint(rootfs_resolve(t.fd, "/venv/bin/up", &res), ==, -EXDEV);
    g_assert_cmpstr(res.at, ==, "/venv/bin/up");
    g_assert_cmpstr(res.target, ==, "../../../../usr/bin/python3.12");
    g_assert_null(res.path);
    rootfs_resolved_done(&res);
    g_assert_cmpint(rootfs_resolve(t.fd, "/../usr/bin/python3.12", &res), ==, -EXDEV);
    rootfs_resolved_done(&res);
    g_assert_cmpint(rootfs_resolve(t.fd, "/venv/bin/loop-a", &res), ==, -ELOOP);
    g_assert_cmpuint(res.n_links, ==, ROOTFS_MAX_LINKS + 1);
    g_assert_true(g_str_equal(res.at, "/venv/bin/loop-a") || g_str_equal(res.at, "/venv/bin/loop-b"));
    rootfs_resolved_done(&res);
    /* an absolute target that the tree lacks: missing, whatever the host has */
    g_assert_cmpint(rootfs_resolve(t.fd, "/venv/bin/gone", &res), ==, -ENOENT);
    g_assert_cmpstr(res.at, ==, "/opt");
    g_assert_cmpstr(res.link, ==, "/venv/bin/gone");
    rootfs_resolved_done(&res);
    g_assert_cmpint(rootfs_resolve(t.fd, "/usr/bin/python3.12/x", &res), ==, -ENOTDIR);
    rootfs_resolved_done(&res);
    tree_free(&t);
}

/* Output directories made inside a tree: missing components made (0755
 * whatever the umask), a relative link that stays inside followed, links
 * that lead out refused with nothing made outside. */
static void test_rootfs_mkdir_open(void)
{
    tree t;
    tree_init(&t);
    g_autofree char *outside = g_dir_make_tmp("rd-outside-XXXXXX", NULL);
    mode_t old = umask(077);
    int fd = rootfs_mkdir_open(t.fd, "/run/rocm-doctor", 0755);
    umask(old);
    g_assert_cmpint(fd, >=, 0);
    close(fd);
    struct stat st;
    g_assert_cmpint(fstatat(t.fd, "run/rocm-doctor", &st, AT_SYMLINK_NOFOLLOW), ==, 0);
    g_assert_true(S_ISDIR(st.st_mode));
    g_assert_cmpuint(st.st_mode & 07777, ==, 0755);
    g_assert_cmpint(symlinkat("rocm-doctor", t.fd, "run/in"), ==, 0);
    fd = rootfs_mkdir_open(t.fd, "/run/in/sub", 0755);
    g_assert_cmpint(fd, >=, 0);
    close(fd);
    g_assert_cmpint(fstatat(t.fd, "run/rocm-doctor/sub", &st, 0), ==, 0);

    g_assert_cmpint(symlinkat(outside, t.fd, "run/abs"), ==, 0);
    g_autofree char *up = g_strdup_printf("../../../../../../../../..%s", outside);
    g_assert_cmpint(symlinkat(up, t.fd, "run/rel"), ==, 0);
    g_assert_cmpint(rootfs_mkdir_open(t.fd, "/run/abs", 0755), ==, -EXDEV);
    g_assert_cmpint(rootfs_mkdir_open(t.fd, "/run/abs/x/y", 0755), ==, -EXDEV);
    g_assert_cmpint(rootfs_mkdir_open(t.fd, "/run/rel/x", 0755), ==, -EXDEV);
    g_autoptr(GDir) d = g_dir_open(outside, 0, NULL);
    g_assert_null(g_dir_read_name(d));
    g_assert_cmpint(rmdir(outside), ==, 0);
    tree_free(&t);
}

static void test_rootfs_not_regular(void)
{
    tree t;
    tree_init(&t);
    g_autofree char *fifo = g_build_filename(t.dir, "etc", "fifo", NULL);
    g_assert_cmpint(mkfifo(fifo, 0644), ==, 0);
    g_autofree char *text = NULL;
    /* a FIFO with no writer: refused at once, never waited on */
    g_assert_cmpint(rootfs_read_file(t.fd, "/etc/fifo", ROOTFS_IN_ROOT, 0, &text, NULL), ==, -EINVAL);
    g_assert_cmpint(rootfs_open_regular(t.fd, "/etc/fifo", ROOTFS_BENEATH, NULL), ==, -EINVAL);
    g_assert_cmpint(read_file_at(t.fd, "etc/fifo", 0, &text, NULL), ==, -EINVAL);
    g_assert_cmpint(rootfs_read_lines(t.fd, "/etc/fifo", ROOTFS_IN_ROOT, NULL, NULL), ==, -EINVAL);
    g_assert_null(text);

    /* a socket */
    g_autofree char *sock = g_build_filename(t.dir, "etc", "sock", NULL);
    int s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    struct sockaddr_un sa = { .sun_family = AF_UNIX };
    g_assert_cmpuint(strlen(sock), <, sizeof sa.sun_path);
    strcpy(sa.sun_path, sock);
    g_assert_cmpint(bind(s, (struct sockaddr *)&sa, sizeof sa), ==, 0);
    g_assert_cmpint(rootfs_read_file(t.fd, "/etc/sock", ROOTFS_IN_ROOT, 0, &text, NULL), ==, -EINVAL);
    close(s);
    g_assert_cmpstr(rootfs_strerror(-EINVAL), ==, "is not a regular file (a FIFO, socket or device is never read)");
    tree_free(&t);
}

static int collect_line(char *line, void *u)
{
    g_ptr_array_add(u, g_strdup(line));
    return 0;
}

static void test_read_lines(void)
{
    tree t;
    tree_init(&t);
    /* a line longer than the stream buffer, an empty line, no final newline */
    GString *s = g_string_new("first\n");
    for (int i = 0; i < 200000; i++)
        g_string_append_c(s, 'a' + i % 26);
    g_string_append(s, "\n\nlast");
    put(&t, "etc/lines", s->str);
    g_autoptr(GPtrArray) lines = g_ptr_array_new_with_free_func(g_free);
    g_assert_cmpint(rootfs_read_lines(t.fd, "/etc/lines", ROOTFS_IN_ROOT, collect_line, lines), ==, 0);
    g_assert_cmpuint(lines->len, ==, 4);
    g_assert_cmpstr(lines->pdata[0], ==, "first");
    g_assert_cmpuint(strlen(lines->pdata[1]), ==, 200000);
    g_assert_cmpstr(lines->pdata[2], ==, "");
    g_assert_cmpstr(lines->pdata[3], ==, "last");

    /* the whole-file reader gives the same bytes in one sized read */
    g_autofree char *text = NULL;
    size_t size;
    g_assert_cmpint(rootfs_read_file(t.fd, "/etc/lines", ROOTFS_IN_ROOT, 0, &text, &size), ==, 0);
    g_assert_cmpuint(size, ==, s->len);
    g_assert_cmpmem(text, size, s->str, s->len);
    g_string_free(s, TRUE);

    g_autoptr(GPtrArray) empty = g_ptr_array_new_with_free_func(g_free);
    put(&t, "etc/empty", "");
    g_assert_cmpint(rootfs_read_lines(t.fd, "/etc/empty", ROOTFS_IN_ROOT, collect_line, empty), ==, 0);
    g_assert_cmpuint(empty->len, ==, 0);
    tree_free(&t);
}

static void test_list_dir(void)
{
    tree t;
    tree_init(&t);
    put(&t, "etc/b.conf", "");
    put(&t, "etc/a.conf", "");
    put(&t, "etc/.hidden.conf", "");
    put(&t, "etc/c.txt", "");
    char **names = NULL;
    size_t n = 0;
    g_assert_cmpint(rootfs_list_dir(t.fd, "/etc", ROOTFS_IN_ROOT, ".conf", &names, &n), ==, 0);
    g_assert_cmpuint(n, ==, 2);
    g_assert_cmpstr(names[0], ==, "a.conf");
    g_assert_cmpstr(names[1], ==, "b.conf");
    g_assert_null(names[2]);
    strv_free(names);
    g_assert_cmpint(rootfs_list_dir(t.fd, "/nope", ROOTFS_IN_ROOT, NULL, &names, NULL), ==, -ENOENT);
    tree_free(&t);
}

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

/* ---- atomic writer ---- */

static void test_write_atomic(void)
{
    tree t;
    tree_init(&t);
    int etc = openat(t.fd, "etc", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    g_assert_cmpint(write_atomic_at(etc, "conf", "one\n", 4, 0640, (uid_t)-1, (gid_t)-1), ==, 0);
    g_assert_cmpint(write_atomic_at(etc, "conf", "two\n", 4, 0644, (uid_t)-1, (gid_t)-1), ==, 0);
    g_autofree char *text = NULL;
    g_assert_cmpint(rootfs_read_file(t.fd, "/etc/conf", ROOTFS_BENEATH, 0, &text, NULL), ==, 0);
    g_assert_cmpstr(text, ==, "two\n");
    struct stat st;
    g_assert_cmpint(fstatat(etc, "conf", &st, 0), ==, 0);
    g_assert_cmpuint(st.st_mode & 07777, ==, 0644);

    /* the temp name others clean up by: .#NAME.PID.N */
    g_autofree char *tmp = rootfs_temp_name("local.conf", 3);
    g_autofree char *want = g_strdup_printf(".#local.conf.%d.3", (int)getpid());
    g_assert_cmpstr(tmp, ==, want);

    /* an open write shows that name; abort removes it */
    atomic_file f;
    g_assert_cmpint(atomic_file_open(&f, etc, "conf"), ==, 0);
    g_autofree char *first = rootfs_temp_name("conf", 0);
    g_assert_cmpstr(f.tmp, ==, first);
    g_assert_cmpint(faccessat(etc, first, F_OK, AT_SYMLINK_NOFOLLOW), ==, 0);
    atomic_file_abort(&f);
    g_assert_cmpint(faccessat(etc, first, F_OK, AT_SYMLINK_NOFOLLOW), ==, -1);

    /* a symlink, a directory, a FIFO at the name: refused, nothing left */
    g_assert_cmpint(symlinkat("/etc/passwd", etc, "link"), ==, 0);
    g_assert_cmpint(write_atomic_at(etc, "link", "x", 1, 0644, (uid_t)-1, (gid_t)-1), ==, -ELOOP);
    g_assert_cmpint(mkdirat(etc, "dir", 0755), ==, 0);
    g_assert_cmpint(write_atomic_at(etc, "dir", "x", 1, 0644, (uid_t)-1, (gid_t)-1), ==, -EISDIR);
    g_assert_cmpint(mkfifoat(etc, "fifo", 0644), ==, 0);
    g_assert_cmpint(write_atomic_at(etc, "fifo", "x", 1, 0644, (uid_t)-1, (gid_t)-1), ==, -EINVAL);
    g_assert_cmpint(write_atomic_at(etc, "a/b", "x", 1, 0644, (uid_t)-1, (gid_t)-1), ==, -EINVAL);
    char **names = NULL;
    g_assert_cmpint(rootfs_list_dir(t.fd, "/etc", ROOTFS_IN_ROOT, NULL, &names, NULL), ==, 0);
    g_autofree char *joined = g_strjoinv(" ", names);
    g_assert_cmpstr(joined, ==, "conf dir fifo link"); /* no .# leftover */
    strv_free(names);
    close(etc);
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

/* ---- JSON numbers: written by hand, as json-c writes them ---- */

static void test_json_numbers(void)
{
    static const int64_t values[] = { 0, 1, -1, 9, 10, 99, 100, -100, 123456789, 750000000, INT64_MAX, INT64_MIN };
    for (size_t i = 0; i < G_N_ELEMENTS(values); i++) {
        json_object *mine = rd_json_int(values[i]);
        json_object *theirs = json_object_new_int64(values[i]);
        g_assert_cmpstr(json_object_to_json_string_ext(mine, JSON_C_TO_STRING_PLAIN), ==,
                        json_object_to_json_string_ext(theirs, JSON_C_TO_STRING_PLAIN));
        g_assert_cmpint(json_object_get_int64(mine), ==, values[i]);
        json_object_put(mine);
        json_object_put(theirs);
    }
    g_assert_null(rd_json_int_or_null(-1));

    /* inside an object, pretty, with constant keys */
    json_object *o = json_object_new_object();
    rd_json_add(o, "power_uw", rd_json_int_or_null(142000000));
    rd_json_add(o, "share", rd_json_double(0));
    rd_json_add(o, "half", rd_json_double(0.5));
    g_assert_cmpstr(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN), ==,
                    "{\"power_uw\":142000000,\"share\":0.0,\"half\":0.5}");
    g_assert_cmpint(json_object_get_int64(json_object_object_get(o, "power_uw")), ==, 142000000);
    g_assert_true(json_object_get_double(json_object_object_get(o, "share")) == 0);
    json_object_put(o);
}

static const rd_test_case tests[] = {
    { "/passwd/lines", test_passwd_lines },
    { "/group/lines", test_group_lines },
    { "/group/stop-and-large", test_group_stop_and_large },
    { "/rootfs/confined", test_rootfs_confined },
    { "/rootfs/resolve", test_rootfs_resolve },
    { "/rootfs/mkdir-open", test_rootfs_mkdir_open },
    { "/rootfs/not-regular", test_rootfs_not_regular },
    { "/rootfs/read-lines", test_read_lines },
    { "/rootfs/list-dir", test_list_dir },
    { "/rootfs/write-atomic", test_write_atomic },
    { "/util/arrays", test_arrays },
    { "/util/strv-split", test_strv_split },
    { "/util/strv-new", test_strv_new },
    { "/util/unhexchar", test_unhexchar },
    { "/util/root-prefix", test_root_prefix },
    { "/util/dir-each", test_dir_each },
    { "/util/json-numbers", test_json_numbers },
};

RD_TEST_MAIN(tests, false)
