/* SPDX-License-Identifier: MIT */
#include "testlib.h"

#include <glib.h>
#include <glib/gstdio.h>
#include <sys/stat.h>
#include "context.h"
#include "fixes.h"
#include "registry.h"
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

void rd_test_init(int *argc, char ***argv, bool nonfatal)
{
    g_test_init(argc, argv, NULL);
    if (nonfatal)
        g_test_set_nonfatal_assertions();
}

void rd_test_add_all(const rd_test_case *tests, size_t n)
{
    for (size_t i = 0; i < n; i++)
        g_test_add_func(tests[i].path, tests[i].fn);
}

int rd_test_main(int argc, char **argv, const rd_test_case *tests, size_t n, bool nonfatal)
{
    rd_test_init(&argc, &argv, nonfatal);
    rd_test_add_all(tests, n);
    return g_test_run();
}

void rd_test_rm_rf(const char *path)
{
    struct stat st;
    if (lstat(path, &st) < 0)
        return;
    if (S_ISDIR(st.st_mode)) {
        g_autoptr(GDir) d = g_dir_open(path, 0, NULL);
        const char *name;
        while (d && (name = g_dir_read_name(d))) {
            g_autofree char *p = g_build_filename(path, name, NULL);
            rd_test_rm_rf(p);
        }
        g_rmdir(path);
    } else
        g_unlink(path);
}

void rd_test_tmpdir_setup(rd_test_tmpdir *t, const void *data)
{
    GError *error = NULL;
    t->dir = g_dir_make_tmp("rocm-doctor-test-XXXXXX", &error);
    g_assert_no_error(error);
}

void rd_test_tmpdir_teardown(rd_test_tmpdir *t, const void *data)
{
    rd_test_rm_rf(t->dir);
    g_free(t->dir);
}

void rd_test_load_knowledge(rd_knowledge *k)
{
    g_autofree char *err = NULL;
    if (rd_knowledge_load(rd_data_dir(), k, &err) < 0) {
        g_printerr("cannot load the knowledge tables from %s: %s\n", rd_data_dir(), err);
        exit(1);
    }
}

int rd_test_main_knowledge(int argc, char **argv, const rd_test_case *tests, size_t n, bool nonfatal, rd_knowledge *k)
{
    rd_test_init(&argc, &argv, nonfatal);
    rd_test_load_knowledge(k);
    rd_test_add_all(tests, n);
    int r = g_test_run();
    rd_knowledge_free(k);
    return r;
}

const rd_config_ids *rd_test_config_ids(void)
{
    static char **fix_ids;
    static rd_config_ids ids;
    if (!fix_ids) {
        fix_ids = rd_fix_table_ids(&rd_fix_registry);
        ids = (rd_config_ids){ .probes = &rd_probe_registry, .fix_ids = fix_ids };
    }
    return &ids;
}
