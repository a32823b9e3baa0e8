/* SPDX-License-Identifier: MIT */
/* src/shared/tar.c: the ustar writer (headers, checksums, long names split
 * into prefix and name, the end blocks). */
#include <glib.h>

#include "tar.h"
#include "util.h"
#include "testlib.h"

static unsigned header_sum(const unsigned char *h)
{
    unsigned sum = 0;
    for (size_t i = 0; i < 512; i++)
        sum += (i >= 148 && i < 156) ? ' ' : h[i];
    return sum;
}

static void test_tar(void)
{
    char path[] = "/tmp/rd-test-tar-XXXXXX";
    int fd = mkstemp(path);
    g_assert_cmpint(fd, >=, 0);
    unlink(path);
    rd_tar t;
    rd_tar_init(&t, fd, 1700000000);
    g_assert_cmpint(rd_tar_add(&t, "d/hello.txt", "hello\n", 6, 0644), ==, 0);
    char longname[256];
    memset(longname, 'a', sizeof longname);
    memcpy(longname + 120, "/", 1);
    longname[200] = 0; /* 120-byte prefix, 79-byte name */
    g_assert_cmpint(rd_tar_add(&t, longname, "", 0, 0600), ==, 0);
    longname[200] = 'a';
    longname[255] = 0;
    g_assert_cmpint(rd_tar_add(&t, longname, "", 0, 0600), ==, -ENAMETOOLONG);
    g_assert_cmpint(rd_tar_finish(&t), ==, 0);
    g_assert_cmpuint(t.offset, ==, 512 + 512 + 512 + 1024);

    unsigned char buf[2560];
    g_assert_cmpint(pread(fd, buf, sizeof buf, 0), ==, (ssize_t)sizeof buf);
    close(fd);
    g_assert_cmpstr((char *)buf, ==, "d/hello.txt");
    g_assert_cmpstr((char *)buf + 124, ==, "00000000006"); /* size */
    g_assert_cmpstr((char *)buf + 136, ==, "14524770400"); /* mtime */
    g_assert_cmpstr((char *)buf + 100, ==, "0000644");
    g_assert_cmpint(buf[156], ==, '0');
    g_assert_cmpint(memcmp(buf + 257,
                           "ustar\0"
                           "00",
                           8),
                    ==, 0);
    g_assert_cmpuint(strtoul((char *)buf + 148, NULL, 8), ==, header_sum(buf));
    g_assert_cmpint(memcmp(buf + 512, "hello\n\0\0", 8), ==, 0);
    unsigned char *h2 = buf + 1024;
    g_assert_cmpint(strnlen((char *)h2 + 345, 155), ==, 120); /* prefix */
    g_assert_cmpint(strnlen((char *)h2, 100), ==, 79);
    g_assert_cmpuint(strtoul((char *)h2 + 148, NULL, 8), ==, header_sum(h2));
    for (size_t i = 1536; i < sizeof buf; i++)
        g_assert_cmpint(buf[i], ==, 0);
}

static const rd_test_case tests[] = {
    { "/tar", test_tar },
};

RD_TEST_MAIN(tests, false)
