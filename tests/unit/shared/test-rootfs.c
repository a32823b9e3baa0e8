/* SPDX-License-Identifier: MIT */
/* src/shared/rootfs.c: the root-confined opener (escapes, FIFOs, sockets),
 * the link resolver, the sized reader and the line streamer, the directory
 * listing, the atomic writer (temp name, mode, leftovers). */
#include <glib.h>
#include <glib/gstdio.h>
#include <fcntl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>

#include "rootfs.h"
#include "util.h"
#include "testlib.h"
#include "tree.h"

/* ---- rootfs ---- */

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

static const rd_test_case tests[] = {
    { "/rootfs/confined", test_rootfs_confined },     { "/rootfs/resolve", test_rootfs_resolve },
    { "/rootfs/mkdir-open", test_rootfs_mkdir_open }, { "/rootfs/not-regular", test_rootfs_not_regular },
    { "/rootfs/read-lines", test_read_lines },        { "/rootfs/list-dir", test_list_dir },
    { "/rootfs/write-atomic", test_write_atomic },
};

RD_TEST_MAIN(tests, false)
