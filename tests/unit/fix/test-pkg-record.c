/* SPDX-License-Identifier: MIT */
/* src/fix/pkg-record.c: the package record's one JSON writer and reader.
 * The plan's form (records with "op") and the journal's lists (records
 * without it, the list saying the kind) written and read back; a journal's
 * "packages" object as rocm-doctor has always written it read, and written
 * again byte for byte. */
#include <glib.h>

#include "pkg.h"
#include "util.h"
#include "testlib.h"

static const char *plain(json_object *o)
{
    return json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE);
}

static void add(rd_pkg_changes *c, rd_pkg_op op, const char *name, const char *version, const char *old, uint64_t size)
{
    rd_pkg_change *x = ARRAY_APPEND(c->items, c->n);
    *x = (rd_pkg_change){ op, xstrdup(name), xstrdup_or_null(version), xstrdup_or_null(old), size };
}

/* one of each kind, in an order that is not the kinds' */
static void sample(rd_pkg_changes *c)
{
    add(c, RD_PKG_REMOVE, "libhsa-runtime64-1", "5.7.1-3", NULL, 0);
    add(c, RD_PKG_INSTALL, "rocm", "6.4.1.60401-83~24.04", NULL, 2048);
    add(c, RD_PKG_UPGRADE, "hip-runtime-amd", "6.4.1", "6.2.4", 1000000);
    add(c, RD_PKG_DOWNGRADE, "rocm-core", "6.2.4", "6.4.1", 0);
    add(c, RD_PKG_INSTALL, "amdgpu-dkms", NULL, NULL, 0);
}

static void assert_same(const rd_pkg_change *a, const rd_pkg_change *b)
{
    g_assert_cmpint(a->op, ==, b->op);
    g_assert_cmpstr(a->name, ==, b->name);
    g_assert_cmpstr(a->version, ==, b->version);
    g_assert_cmpstr(a->old_version, ==, b->old_version);
}

static void test_kinds(void)
{
    static const char *const verbs[] = { "install", "upgrade", "downgrade", "remove" };
    static const char *const done[] = { "installed", "upgraded", "downgraded", "removed" };
    for (size_t k = 0; k < RD_PKG_OP_MAX; k++) {
        g_assert_cmpstr(rd_pkg_kinds[k].verb, ==, verbs[k]);
        g_assert_cmpstr(rd_pkg_kinds[k].done, ==, done[k]);
        g_assert_cmpstr(rd_pkg_op_name((rd_pkg_op)k), ==, verbs[k]);
        g_assert_cmpint(rd_pkg_op_from_name(verbs[k]), ==, (int)k);
    }
    g_assert_cmpint(rd_pkg_op_from_name("installed"), ==, -EINVAL);
    g_assert_cmpint(rd_pkg_op_from_name(NULL), ==, -EINVAL);
}

/* The plan's "packages" (and the journal's "planned"): records with "op",
 * exactly as the plan has always written them, and back. */
static void test_plan_round_trip(void)
{
    rd_pkg_changes c = { 0 }, back = { 0 };
    sample(&c);
    json_object *a = rd_pkg_changes_to_json(&c);
    g_assert_cmpstr(plain(a), ==,
                    "[{\"op\":\"remove\",\"name\":\"libhsa-runtime64-1\",\"version\":\"5.7.1-3\"},"
                    "{\"op\":\"install\",\"name\":\"rocm\",\"version\":\"6.4.1.60401-83~24.04\",\"size\":2048},"
                    "{\"op\":\"upgrade\",\"name\":\"hip-runtime-amd\",\"version\":\"6.4.1\",\"old_version\":\"6.2.4\","
                    "\"size\":1000000},"
                    "{\"op\":\"downgrade\",\"name\":\"rocm-core\",\"version\":\"6.2.4\",\"old_version\":\"6.4.1\"},"
                    "{\"op\":\"install\",\"name\":\"amdgpu-dkms\",\"version\":null}]");
    g_assert_cmpint(rd_pkg_changes_from_json(a, &back), ==, 0);
    g_assert_cmpuint(back.n, ==, c.n);
    for (size_t i = 0; i < c.n; i++) {
        assert_same(&back.items[i], &c.items[i]);
        g_assert_cmpuint(back.items[i].size, ==, c.items[i].size);
    }
    json_object_put(a);
    rd_pkg_changes_free(&back);
    g_assert_cmpint(rd_pkg_changes_from_json(NULL, &back), ==, -EBADMSG);
    rd_pkg_changes_free(&c);
}

/* What a run did: the four lists, kind by kind in the kinds' order. */
static void test_lists_round_trip(void)
{
    rd_pkg_changes c = { 0 }, back = { 0 };
    sample(&c);
    json_object *o = json_object_new_object();
    rd_pkg_changes_to_lists(&c, o);
    g_assert_cmpstr(plain(o), ==,
                    "{\"installed\":[{\"name\":\"rocm\",\"version\":\"6.4.1.60401-83~24.04\",\"size\":2048},"
                    "{\"name\":\"amdgpu-dkms\",\"version\":null}],"
                    "\"upgraded\":[{\"name\":\"hip-runtime-amd\",\"version\":\"6.4.1\",\"old_version\":\"6.2.4\","
                    "\"size\":1000000}],"
                    "\"downgraded\":[{\"name\":\"rocm-core\",\"version\":\"6.2.4\",\"old_version\":\"6.4.1\"}],"
                    "\"removed\":[{\"name\":\"libhsa-runtime64-1\",\"version\":\"5.7.1-3\"}]}");
    g_assert_cmpint(rd_pkg_changes_from_lists(o, &back), ==, 0);
    static const size_t order[] = { 1, 4, 2, 3, 0 };
    g_assert_cmpuint(back.n, ==, ELEMENTSOF(order));
    for (size_t i = 0; i < back.n; i++)
        assert_same(&back.items[i], &c.items[order[i]]);
    json_object_put(o);
    rd_pkg_changes_free(&back);
    rd_pkg_changes_free(&c);
}

/* A journal's "packages" as rocm-doctor wrote it before the record was
 * typed (pretty-printed, as on disk): undo and fix --status read it, and
 * the writer gives its lists again byte for byte. */
static const char old_journal[] =
    "{\n"
    "  \"package_manager\":\"apt\",\n"
    "  \"before\":\"files/packages-before\",\n"
    "  \"lock_timeout_s\":300,\n"
    "  \"install\":[\"rocm\",\"hip-runtime-amd\"],\n"
    "  \"remove\":[],\n"
    "  \"planned\":[{\"op\":\"install\",\"name\":\"rocm\",\"version\":\"6.4.1\",\"size\":2048},"
    "{\"op\":\"upgrade\",\"name\":\"hip-runtime-amd\",\"version\":\"6.4.1\",\"old_version\":\"6.2.4\"}],\n"
    "  \"installed\":[{\"name\":\"rocm\",\"version\":\"6.4.1\"},{\"name\":\"rocm-core\",\"version\":\"6.4.1\"}],\n"
    "  \"upgraded\":[{\"name\":\"hip-runtime-amd\",\"version\":\"6.4.1\",\"old_version\":\"6.2.4\"}],\n"
    "  \"downgraded\":[],\n"
    "  \"removed\":[{\"name\":\"libhsa-runtime64-1\",\"version\":\"5.7.1-3\"}]\n"
    "}\n";

static void test_old_journal(void)
{
    json_object *jp = json_tokener_parse(old_journal);
    g_assert_nonnull(jp);
    rd_pkg_changes did = { 0 }, planned = { 0 };
    g_assert_cmpint(rd_pkg_changes_from_lists(jp, &did), ==, 0);
    g_assert_cmpuint(did.n, ==, 4);
    rd_pkg_changes want = { 0 };
    add(&want, RD_PKG_INSTALL, "rocm", "6.4.1", NULL, 0);
    add(&want, RD_PKG_INSTALL, "rocm-core", "6.4.1", NULL, 0);
    add(&want, RD_PKG_UPGRADE, "hip-runtime-amd", "6.4.1", "6.2.4", 0);
    add(&want, RD_PKG_REMOVE, "libhsa-runtime64-1", "5.7.1-3", NULL, 0);
    for (size_t i = 0; i < did.n; i++)
        assert_same(&did.items[i], &want.items[i]);
    rd_pkg_changes_free(&want);
    json_object *planned_json = NULL;
    g_assert_true(json_object_object_get_ex(jp, "planned", &planned_json));
    g_assert_cmpint(rd_pkg_changes_from_json(planned_json, &planned), ==, 0);
    g_assert_cmpuint(planned.n, ==, 2);
    g_assert_cmpint(planned.items[0].op, ==, RD_PKG_INSTALL);
    g_assert_cmpuint(planned.items[0].size, ==, 2048);
    g_assert_cmpint(planned.items[1].op, ==, RD_PKG_UPGRADE);
    g_assert_cmpstr(planned.items[1].old_version, ==, "6.2.4");

    /* written again: the same lists, the same "planned" */
    json_object *again = json_object_new_object();
    rd_pkg_changes_to_lists(&did, again);
    for (size_t k = 0; k < RD_PKG_OP_MAX; k++) {
        json_object *was = NULL, *now = NULL;
        g_assert_true(json_object_object_get_ex(jp, rd_pkg_kinds[k].done, &was));
        g_assert_true(json_object_object_get_ex(again, rd_pkg_kinds[k].done, &now));
        g_assert_cmpstr(plain(now), ==, plain(was));
    }
    json_object *planned_again = rd_pkg_changes_to_json(&planned);
    g_assert_cmpstr(plain(planned_again), ==, plain(planned_json));
    json_object_put(planned_again);
    json_object_put(again);
    rd_pkg_changes_free(&did);
    rd_pkg_changes_free(&planned);
    json_object_put(jp);
}

/* A run killed before it recorded what it did has no lists; a record with
 * no name is skipped by the list readers and refused on its own, one whose
 * "op" names no kind too; in a list the list's kind counts. */
static void test_bad_records(void)
{
    rd_pkg_changes c = { 0 };
    json_object *killed = json_tokener_parse("{\"package_manager\":\"dnf\",\"planned\":[]}");
    g_assert_cmpint(rd_pkg_changes_from_lists(killed, &c), ==, -ENOENT);
    g_assert_cmpuint(c.n, ==, 0);
    json_object_put(killed);

    json_object *o = json_tokener_parse("{\"installed\":[{\"version\":\"1\"},{\"name\":\"a\",\"version\":\"1\"}],"
                                        "\"removed\":[{\"op\":\"install\",\"name\":\"b\",\"version\":\"2\"}]}");
    g_assert_cmpint(rd_pkg_changes_from_lists(o, &c), ==, 0);
    g_assert_cmpuint(c.n, ==, 2);
    g_assert_cmpstr(c.items[0].name, ==, "a");
    g_assert_cmpint(c.items[0].op, ==, RD_PKG_INSTALL);
    g_assert_cmpstr(c.items[1].name, ==, "b");
    g_assert_cmpint(c.items[1].op, ==, RD_PKG_REMOVE);
    json_object_put(o);
    rd_pkg_changes_free(&c);

    rd_pkg_change x = { 0 };
    json_object *bad = json_tokener_parse("{\"op\":\"reinstall\",\"name\":\"a\"}");
    g_assert_cmpint(rd_pkg_change_from_json(bad, RD_PKG_INSTALL, &x), ==, -EBADMSG);
    g_assert_null(x.name);
    json_object_put(bad);
    json_object *noname = json_tokener_parse("{\"op\":\"install\",\"version\":\"1\"}");
    g_assert_cmpint(rd_pkg_change_from_json(noname, RD_PKG_INSTALL, &x), ==, -EBADMSG);
    json_object_put(noname);
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    g_test_add_func("/pkg-record/kinds", test_kinds);
    g_test_add_func("/pkg-record/plan-round-trip", test_plan_round_trip);
    g_test_add_func("/pkg-record/lists-round-trip", test_lists_round_trip);
    g_test_add_func("/pkg-record/old-journal", test_old_journal);
    g_test_add_func("/pkg-record/bad-records", test_bad_records);
    return g_test_run();
}
