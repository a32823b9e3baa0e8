/* SPDX-License-Identifier: MIT */
#include "testlib.h"

#include <glib.h>
#include "util.h"

void rd_test_kv_add(rd_kfd_node *n, const char *key, uint64_t value)
{
    rd_kv *kv = ARRAY_APPEND(n->properties, n->n_properties);
    kv->key = xstrdup(key);
    kv->value = value;
}

void rd_test_write_file(const char *dir, const char *rel, const char *text)
{
    g_autofree char *path = g_build_filename(dir, rel, NULL);
    g_autofree char *parent = g_path_get_dirname(path);
    g_assert_cmpint(g_mkdir_with_parents(parent, 0755), ==, 0);
    GError *error = NULL;
    g_file_set_contents(path, text, -1, &error);
    g_assert_no_error(error);
}
