/* SPDX-License-Identifier: MIT */
/* Helpers the C tests share (GLib tests): one copy each. */
#pragma once

#include <stdint.h>
#include "config.h"
#include "facts.h"
#include "knowledge.h"

/* Adds a KFD node property, as the kfd probe reads it from sysfs. */
void rd_test_kv_add(rd_kfd_node *n, const char *key, uint64_t value);
/* Writes text to dir/rel, making the directories on the way; asserts. */
void rd_test_write_file(const char *dir, const char *rel, const char *text);

/* Removes path and, for a directory, all below it (symlinks not followed). */
void rd_test_rm_rf(const char *path);

/* A fixture: a fresh temporary directory, removed with all in it after the test. */
typedef struct {
    char *dir;
} rd_test_tmpdir;
void rd_test_tmpdir_setup(rd_test_tmpdir *t, const void *data);
void rd_test_tmpdir_teardown(rd_test_tmpdir *t, const void *data);
#define RD_TEST_ADD_TMP(path, fn)                                                                                      \
    g_test_add(path, rd_test_tmpdir, NULL, rd_test_tmpdir_setup, fn, rd_test_tmpdir_teardown)

/* A GLib test program's table of tests and its main(). */
#include <glib.h>
#include <stdbool.h>

typedef struct {
    const char *path; /* "/area/name" */
    GTestFunc fn;
} rd_test_case;

/* g_test_init; with nonfatal, a failed check marks its test and lets the
 * others run. */
void rd_test_init(int *argc, char ***argv, bool nonfatal);
/* g_test_add_func for each test of the table. */
void rd_test_add_all(const rd_test_case *tests, size_t n);
/* The whole main() of a test program with no set-up of its own. */
int rd_test_main(int argc, char **argv, const rd_test_case *tests, size_t n, bool nonfatal);
/* The same, with the knowledge tables of the data directory
 * (ROCM_DOCTOR_DATA_DIR) loaded into *k before the tests and freed after. */
int rd_test_main_knowledge(int argc, char **argv, const rd_test_case *tests, size_t n, bool nonfatal, rd_knowledge *k);
/* Loads the data directory's knowledge tables; exits 1 with the reason when it cannot. */
void rd_test_load_knowledge(rd_knowledge *k);
/* What the configuration is checked against, as the binaries hand it in:
 * the probe registry and the fix registry's ids (built once, kept). */
const rd_config_ids *rd_test_config_ids(void);
#define RD_TEST_MAIN_KNOWLEDGE(tests, nonfatal, k)                                                                     \
    int main(int argc, char **argv)                                                                                    \
    {                                                                                                                  \
        return rd_test_main_knowledge(argc, argv, tests, G_N_ELEMENTS(tests), nonfatal, k);                            \
    }
#define RD_TEST_MAIN(tests, nonfatal)                                                                                  \
    int main(int argc, char **argv)                                                                                    \
    {                                                                                                                  \
        return rd_test_main(argc, argv, tests, G_N_ELEMENTS(tests), nonfatal);                                         \
    }
