/* SPDX-License-Identifier: MIT */
/* A temporary directory with etc/ in it, open at fd: the tree the tests of
 * the root-confined opener and the directory walk work in. */
#pragma once

#include <fcntl.h>
#include <glib.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

typedef struct {
    char *dir;
    int fd;
} tree;

static inline void tree_init(tree *t)
{
    t->dir = g_dir_make_tmp("rd-rootfs-XXXXXX", NULL);
    g_assert_nonnull(t->dir);
    t->fd = open(t->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    g_assert_cmpint(t->fd, >=, 0);
    g_assert_cmpint(mkdirat(t->fd, "etc", 0755), ==, 0);
}

static inline void tree_free(tree *t)
{
    close(t->fd);
    g_autofree char *cmd = g_strdup_printf("rm -rf '%s'", t->dir);
    g_assert_cmpint(system(cmd), ==, 0);
    g_free(t->dir);
}

static inline void put(const tree *t, const char *rel, const char *text)
{
    g_autofree char *p = g_build_filename(t->dir, rel, NULL);
    g_assert_true(g_file_set_contents(p, text, -1, NULL));
}
