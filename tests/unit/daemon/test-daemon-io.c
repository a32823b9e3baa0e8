/* SPDX-License-Identifier: MIT */
/* daemon-io.c: the output files' paths, atomic writes, the journal's native
 * protocol. */
#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>
#include <glib.h>
#include <glib/gstdio.h>

#include "daemon.h"
#include "testlib.h"

static void t_output_path(void)
{
    char *p = rd_daemon_output_path("/", "/run/rocm-doctor/status.json");
    g_assert_cmpstr(p, ==, "/run/rocm-doctor/status.json");
    free(p);
    p = rd_daemon_output_path(NULL, "/run/x");
    g_assert_cmpstr(p, ==, "/run/x");
    free(p);
    p = rd_daemon_output_path("/tmp/root", "/run/rocm-doctor/status.json");
    g_assert_cmpstr(p, ==, "/tmp/root/run/rocm-doctor/status.json");
    free(p);
}

static void t_write_atomic(void)
{
    g_autoptr(GError) err = NULL;
    g_autofree char *dir = g_dir_make_tmp("rocm-doctord-unit-XXXXXX", &err);
    g_assert_no_error(err);
    g_autofree char *path = g_build_filename(dir, "a/b/status.json", NULL);
    mode_t old = umask(077);
    g_assert_cmpint(rd_daemon_write_atomic(path, "first\n", 6), ==, 0);
    g_assert_cmpint(rd_daemon_write_atomic(path, "second\n", 7), ==, 0);
    umask(old);
    g_autofree char *text = NULL;
    g_assert_true(g_file_get_contents(path, &text, NULL, NULL));
    g_assert_cmpstr(text, ==, "second\n");
    struct stat st;
    g_assert_cmpint(stat(path, &st), ==, 0);
    g_assert_cmpuint(st.st_mode & 07777, ==, 0644);
    g_autofree char *sub = g_build_filename(dir, "a/b", NULL);
    /* the directories it made are 0755 under umask 077 too */
    g_assert_cmpint(stat(sub, &st), ==, 0);
    g_assert_cmpuint(st.st_mode & 07777, ==, 0755);
    g_autofree char *sub_a = g_build_filename(dir, "a", NULL);
    g_assert_cmpint(stat(sub_a, &st), ==, 0);
    g_assert_cmpuint(st.st_mode & 07777, ==, 0755);
    g_autoptr(GDir) d = g_dir_open(sub, 0, NULL);
    g_assert_cmpstr(g_dir_read_name(d), ==, "status.json");
    g_assert_null(g_dir_read_name(d));

    /* a file where a directory should be: an error, nothing written */
    g_autofree char *blocked = g_build_filename(dir, "a/b/status.json/x.json", NULL);
    g_assert_cmpint(rd_daemon_write_atomic(blocked, "x", 1), ==, -ENOTDIR);
    g_clear_pointer(&text, g_free);
    g_assert_true(g_file_get_contents(path, &text, NULL, NULL));
    g_assert_cmpstr(text, ==, "second\n");
    /* the target is a directory: rename fails, the temporary file goes */
    g_autofree char *isdir = g_build_filename(dir, "a", NULL);
    g_assert_cmpint(rd_daemon_write_atomic(isdir, "x", 1), <, 0);
    g_autoptr(GDir) top = g_dir_open(dir, 0, NULL);
    g_assert_cmpstr(g_dir_read_name(top), ==, "a");
    g_assert_null(g_dir_read_name(top));

    g_assert_cmpint(unlink(path), ==, 0);
    g_assert_cmpint(rmdir(sub), ==, 0);
    g_assert_cmpint(rmdir(isdir), ==, 0);
    g_assert_cmpint(rmdir(dir), ==, 0);
}

/* The journal's native protocol, byte for byte: KEY=VALUE lines, and the
 * binary form (KEY, newline, 64-bit little-endian length, value, newline)
 * for a value with a newline. */
static void t_journal_protocol(void)
{
    g_autofree char *dir = g_dir_make_tmp("rd-journal.XXXXXX", NULL);
    g_assert_nonnull(dir);
    g_autofree char *path = g_build_filename(dir, "socket", NULL);
    int fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    g_assert_cmpint(fd, >=, 0);
    struct sockaddr_un sa = { .sun_family = AF_UNIX };
    g_strlcpy(sa.sun_path, path, sizeof sa.sun_path);
    g_assert_cmpint(bind(fd, (struct sockaddr *)&sa, sizeof sa), ==, 0);

    char *fields[] = { (char *)"MESSAGE=two\nlines", (char *)"MESSAGE_ID=0123456789abcdef0123456789abcdef",
                       (char *)"PRIORITY=3", NULL };
    g_assert_cmpint(rd_daemon_journal_sendto(path, fields), ==, 0);
    char buf[512];
    ssize_t n = recv(fd, buf, sizeof buf, 0);
    static const char want[] = "MESSAGE\n\x09\0\0\0\0\0\0\0two\nlines\n"
                               "MESSAGE_ID=0123456789abcdef0123456789abcdef\nPRIORITY=3\n";
    g_assert_cmpint(n, ==, (ssize_t)sizeof want - 1);
    g_assert_cmpmem(buf, (size_t)n, want, sizeof want - 1);
    close(fd);

    /* No journal listening: an error, so that the caller logs on stderr. */
    g_assert_cmpint(unlink(path), ==, 0);
    g_assert_cmpint(rd_daemon_journal_sendto(path, fields), <, 0);
    g_assert_cmpint(rmdir(dir), ==, 0);
}

/* clang-format off */
static const rd_test_case tests[] = {
    { "/daemon-io/output-path", t_output_path },
    { "/daemon-io/write-atomic", t_write_atomic },
    { "/daemon-io/journal-protocol", t_journal_protocol },
};
/* clang-format on */

RD_TEST_MAIN(tests, false)
