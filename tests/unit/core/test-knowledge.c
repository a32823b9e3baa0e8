/* SPDX-License-Identifier: MIT */
/* The knowledge tables: gfx target names, the shipped conf/ tables, and
 * error messages for malformed ones (file and line). */
#include <glib.h>
#include <glib/gstdio.h>

#include "testlib.h"
#include "knowledge.h"
#include "util.h"

static void assert_gfx(uint64_t v, const char *expected)
{
    char buf[16] = "untouched";
    bool ok = rd_gfx_name(v, buf, sizeof buf);
    if (expected) {
        g_assert_true(ok);
        g_assert_cmpstr(buf, ==, expected);
    } else {
        g_assert_false(ok);
        g_assert_cmpstr(buf, ==, "untouched");
    }
}

static void test_gfx_name(void)
{
    assert_gfx(90010, "gfx90a");
    assert_gfx(90012, "gfx90c");
    assert_gfx(110501, "gfx1151");
    assert_gfx(110000, "gfx1100");
    assert_gfx(90402, "gfx942");
    assert_gfx(80003, "gfx803");
    assert_gfx(60000, "gfx600");
    assert_gfx(100300, "gfx1030");
    assert_gfx(120001, "gfx1201");
    assert_gfx(91515, "gfx9ff");
    assert_gfx(0, NULL); /* a CPU node */
    assert_gfx(1000000, NULL);
    assert_gfx(999999, NULL);
    assert_gfx(90016, NULL); /* stepping is one hex digit */
    assert_gfx(91600, NULL); /* so is minor */
    assert_gfx(50000, NULL); /* no gfx5 targets */
    assert_gfx(59999, NULL);
    assert_gfx(UINT64_MAX, NULL);
}

static void test_kernel_at_least(void)
{
    rd_os_facts os = { 0 };
    g_assert_cmpint(rd_kernel_at_least(&os, "6.10"), ==, -1);
    os.kernel_release = (char *)"6.9.12-200.fc40.x86_64";
    g_assert_cmpint(rd_kernel_at_least(&os, "6.10"), ==, 0);
    g_assert_cmpint(rd_kernel_at_least(&os, "6.9"), ==, 1);
    os.kernel_release = (char *)"6.10.0-rc1";
    g_assert_cmpint(rd_kernel_at_least(&os, "6.10"), ==, 1);
    g_assert_cmpint(rd_kernel_at_least(&os, "6.15"), ==, 0);
}

static void test_shipped_tables(void)
{
    const char *dir = g_getenv("ROCM_DOCTOR_DATA_DIR");
    if (!dir) {
        g_test_skip("ROCM_DOCTOR_DATA_DIR is not set");
        return;
    }
    rd_knowledge shipped;
    g_autofree char *err = NULL;
    g_assert_cmpint(rd_knowledge_load(dir, &shipped, &err), ==, 0);
    g_assert_null(err);
    g_assert_cmpstr(shipped.archs_info.name, ==, "archs");
    g_assert_cmpstr(shipped.pci_ids_info.name, ==, "pci-ids");
    g_assert_nonnull(shipped.archs_info.version);
    g_assert_nonnull(shipped.archs_info.date);

    const rd_arch *a = rd_knowledge_arch(&shipped, "gfx1100");
    g_assert_nonnull(a);
    g_assert_cmpuint(a->gfx_target_version, ==, 110000);
    g_assert_cmpint(a->atomics, ==, RD_ATOMICS_FIRMWARE);
    g_assert_cmpuint(a->atomics_fw, ==, 509);
    g_assert_cmpstr(a->family, ==, "gfx11");
    g_assert_cmpstr(a->override, ==, "11.0.0");
    g_assert_false(a->apu);

    a = rd_knowledge_arch(&shipped, "gfx803");
    g_assert_nonnull(a);
    g_assert_cmpint(a->atomics, ==, RD_ATOMICS_REQUIRED);
    g_assert_cmpstr(a->family, ==, "gfx8");

    a = rd_knowledge_arch(&shipped, "gfx942");
    g_assert_nonnull(a);
    g_assert_cmpint(a->atomics, ==, RD_ATOMICS_NOT_REQUIRED);
    g_assert_cmpuint(a->gfx_target_version, ==, 90402);

    a = rd_knowledge_arch(&shipped, "gfx601");
    g_assert_nonnull(a);
    g_assert_cmpstr(a->family, ==, "gfx6");

    a = rd_knowledge_arch(&shipped, "gfx1151");
    g_assert_nonnull(a);
    g_assert_true(a->apu);

    a = rd_knowledge_arch_by_version(&shipped, 90010);
    g_assert_nonnull(a);
    g_assert_cmpstr(a->gfx, ==, "gfx90a");
    g_assert_null(rd_knowledge_arch_by_version(&shipped, 0));
    g_assert_null(rd_knowledge_arch(&shipped, "gfx9999"));
    g_assert_null(rd_knowledge_arch(&shipped, NULL));

    /* every section's version spells its own name */
    for (size_t i = 0; i < shipped.n_archs; i++) {
        char buf[16];
        g_assert_true(rd_gfx_name(shipped.archs[i].gfx_target_version, buf, sizeof buf));
        g_assert_cmpstr(buf, ==, shipped.archs[i].gfx);
    }

    g_assert_cmpstr(rd_knowledge_gfx_for_pci_id(&shipped, 0x744c), ==, "gfx1100");
    g_assert_cmpstr(rd_knowledge_gfx_for_pci_id(&shipped, 0x6818), ==, "gfx601");
    g_assert_cmpstr(rd_knowledge_gfx_for_pci_id(&shipped, 0x67df), ==, "gfx803");
    g_assert_null(rd_knowledge_gfx_for_pci_id(&shipped, 0x0000));

    /* the products of health.ini: each with a target in pci-ids.ini */
    const rd_product_memory *w7900 = rd_knowledge_product_memory(&shipped, 0x7448, 0x00);
    g_assert_nonnull(w7900);
    g_assert_cmpstr(w7900->product, ==, "AMD Radeon PRO W7900");
    g_assert_cmpuint(w7900->vram_bytes, ==, UINT64_C(48) << 30);
    g_assert_cmpstr(rd_knowledge_product_memory(&shipped, 0x7550, 0xc0)->product, ==, "AMD Radeon RX 9070 XT");
    g_assert_cmpstr(rd_knowledge_gfx_for_pci_id(&shipped, 0x7550), ==, "gfx1201");
    g_assert_cmpuint(rd_knowledge_product_memory(&shipped, 0x1586, 0xc1)->vram_bytes, ==, 0);
    for (size_t i = 0; i < shipped.n_product_memory; i++)
        g_assert_nonnull(rd_knowledge_gfx_for_pci_id(&shipped, shipped.product_memory[i].device_id));
    g_assert_true(rd_knowledge_is_apu_pci_id(&shipped, 0x74a0));
    g_assert_false(rd_knowledge_is_apu_pci_id(&shipped, 0x744c));
    /* the APU list is separate from the gfx list: MI300A is in both, as
     * gfx942 there and as "MI300A" here (gfx942 itself is no APU target) */
    g_assert_cmpstr(rd_knowledge_gfx_for_pci_id(&shipped, 0x74a0), ==, "gfx942");
    g_assert_cmpstr(shipped.apu_pci_ids[0].gfx, ==, "MI300A");

    rd_knowledge_free(&shipped);
    g_assert_cmpuint(shipped.n_archs, ==, 0);
    g_assert_null(shipped.archs);
}

static const char good_archs[] = "[table]\n"                    /* 1 */
                                 "name = archs\n"               /* 2 */
                                 "version = 7\n"                /* 3 */
                                 "date = 2026-01-01\n"          /* 4 */
                                 "\n"                           /* 5 */
                                 "[gfx900]\n"                   /* 6 */
                                 "gfx_target_version = 90000\n" /* 7 */
                                 "family = gfx9\n"              /* 8 */
                                 "atomics = not-required\n";    /* 9 */

static const char good_pci_ids[] = "[table]\n"
                                   "name = pci-ids\n"
                                   "version = 3\n"
                                   "date = 2026-01-01\n"
                                   "\n"
                                   "[pci-ids]\n"
                                   "687f = gfx900\n"
                                   "\n"
                                   "[apu-pci-ids]\n"
                                   "74a0 = MI300A\n";

static void test_good_table(rd_test_tmpdir *t, gconstpointer data)
{
    rd_test_write_file(t->dir, "archs.ini",
                       "# comment\n"
                       "[table]\n"
                       "name = archs\n"
                       "version = 7\n"
                       "date = 2026-01-01\n"
                       "[gfx90c]\n"
                       "gfx_target_version = 90012\n"
                       "codename = Renoir\n"
                       "family = gfx9\n"
                       "apu = yes\n"
                       "atomics = firmware 4294967294\n"
                       "override = 9.0.0\n"
                       "[gfx1100]\n"
                       "gfx_target_version=110000\n"
                       "family=gfx11\n"
                       "apu = false\n"
                       "atomics = required\n");
    rd_test_write_file(t->dir, "pci-ids.ini", good_pci_ids);
    rd_knowledge k;
    g_autofree char *err = NULL;
    g_assert_cmpint(rd_knowledge_load(t->dir, &k, &err), ==, 0);
    g_assert_cmpstr(k.archs_info.version, ==, "7");
    g_assert_cmpstr(k.pci_ids_info.version, ==, "3");
    g_assert_cmpuint(k.n_archs, ==, 2);
    g_assert_cmpstr(k.archs[0].gfx, ==, "gfx90c");
    g_assert_cmpstr(k.archs[0].codename, ==, "Renoir");
    g_assert_true(k.archs[0].apu);
    g_assert_cmpint(k.archs[0].atomics, ==, RD_ATOMICS_FIRMWARE);
    g_assert_cmpuint(k.archs[0].atomics_fw, ==, 4294967294u);
    g_assert_cmpstr(k.archs[0].override, ==, "9.0.0");
    g_assert_cmpstr(k.archs[1].gfx, ==, "gfx1100");
    g_assert_null(k.archs[1].codename);
    g_assert_false(k.archs[1].apu);
    g_assert_cmpint(k.archs[1].atomics, ==, RD_ATOMICS_REQUIRED);
    g_assert_cmpuint(k.n_pci_ids, ==, 1);
    g_assert_cmphex(k.pci_ids[0].device_id, ==, 0x687f);
    g_assert_cmpstr(k.pci_ids[0].gfx, ==, "gfx900");
    g_assert_cmpuint(k.n_apu_pci_ids, ==, 1);
    g_assert_cmpstr(k.apu_pci_ids[0].gfx, ==, "MI300A");
    rd_knowledge_free(&k);
}

/* Loads the directory and checks the whole message: "<dir>/<file><rest>". */
static void expect_error(rd_test_tmpdir *t, const char *archs, const char *pci_ids, const char *file, const char *rest)
{
    rd_test_write_file(t->dir, "archs.ini", archs);
    rd_test_write_file(t->dir, "pci-ids.ini", pci_ids);
    rd_knowledge k = { .n_archs = 12345 };
    g_autofree char *err = NULL;
    g_assert_cmpint(rd_knowledge_load(t->dir, &k, &err), ==, -EINVAL);
    g_autofree char *expected = g_strdup_printf("%s/%s%s", t->dir, file, rest);
    g_assert_cmpstr(err, ==, expected);
    /* the caller's struct is not written on failure */
    g_assert_cmpuint(k.n_archs, ==, 12345);
}

static void expect_archs_error(rd_test_tmpdir *t, const char *archs, const char *rest)
{
    expect_error(t, archs, good_pci_ids, "archs.ini", rest);
}

static void expect_pci_ids_error(rd_test_tmpdir *t, const char *pci_ids, const char *rest)
{
    expect_error(t, good_archs, pci_ids, "pci-ids.ini", rest);
}

static void test_archs_unknown_key(rd_test_tmpdir *t, gconstpointer data)
{
    g_autofree char *text = g_strconcat(good_archs, "colour = red\n", NULL);
    expect_archs_error(t, text, ":10: unknown key \"colour\" in [gfx900]");
}

static void test_archs_bad_section(rd_test_tmpdir *t, gconstpointer data)
{
    g_autofree char *text = g_strconcat(good_archs, "\n[foo]\nfamily = gfx9\n", NULL);
    expect_archs_error(t, text, ":12: section [foo] is not a gfx target name");
    g_autofree char *long_name = g_strconcat(good_archs, "[gfx123456]\nfamily = gfx9\n", NULL);
    expect_archs_error(t, long_name, ":11: section [gfx123456] is not a gfx target name");
    g_autofree char *short_name = g_strconcat(good_archs, "[gfx9]\nfamily = gfx9\n", NULL);
    expect_archs_error(t, short_name, ":11: section [gfx9] is not a gfx target name");
    expect_archs_error(t, "family = gfx9\n", ":1: section [] is not a gfx target name");
}

static void test_archs_version_mismatch(rd_test_tmpdir *t, gconstpointer data)
{
    expect_archs_error(t,
                       "[table]\nname = archs\nversion = 1\ndate = 2026-01-01\n"
                       "[gfx900]\n"
                       "gfx_target_version = 90010\n",
                       ":6: gfx_target_version 90010 is gfx90a, not gfx900");
    expect_archs_error(t,
                       "[table]\nname = archs\nversion = 1\ndate = 2026-01-01\n"
                       "[gfx900]\n"
                       "gfx_target_version = 0x15f90\n",
                       ":6: gfx_target_version \"0x15f90\" is not a decimal target version");
    expect_archs_error(t, "[gfx900]\ngfx_target_version = 90016\n",
                       ":2: gfx_target_version \"90016\" is not a decimal target version");
    expect_archs_error(t, "[gfx900]\ngfx_target_version = -90000\n",
                       ":2: gfx_target_version \"-90000\" is not a decimal target version");
}

static void test_archs_bad_values(rd_test_tmpdir *t, gconstpointer data)
{
    g_autofree char *a = g_strconcat(good_archs, "atomics = sometimes\n", NULL);
    expect_archs_error(t, a, ":10: atomics must be required, not-required or \"firmware N\", not \"sometimes\"");
    g_autofree char *fw = g_strconcat(good_archs, "atomics = firmware\n", NULL);
    expect_archs_error(t, fw, ":10: atomics must be required, not-required or \"firmware N\", not \"firmware\"");
    g_autofree char *fw_big = g_strconcat(good_archs, "atomics = firmware 4294967295\n", NULL);
    expect_archs_error(t, fw_big,
                       ":10: atomics must be required, not-required or \"firmware N\", not \"firmware 4294967295\"");
    g_autofree char *apu = g_strconcat(good_archs, "apu = maybe\n", NULL);
    expect_archs_error(t, apu, ":10: apu must be yes or no, not \"maybe\"");
    g_autofree char *ovr = g_strconcat(good_archs, "override = 10.3\n", NULL);
    expect_archs_error(t, ovr, ":10: override \"10.3\" is not a version like 10.3.0");
    g_autofree char *ovr2 = g_strconcat(good_archs, "override = 10.3.0x\n", NULL);
    expect_archs_error(t, ovr2, ":10: override \"10.3.0x\" is not a version like 10.3.0");
    g_autofree char *ovr3 = g_strconcat(good_archs, "override = 64.0.0\n", NULL);
    expect_archs_error(t, ovr3, ":10: override \"64.0.0\" is not a version like 10.3.0");
}

static void test_archs_table_section(rd_test_tmpdir *t, gconstpointer data)
{
    expect_archs_error(t,
                       "[table]\nname = archs\ndate = 2026-01-01\n"
                       "[gfx900]\ngfx_target_version = 90000\nfamily = gfx9\natomics = required\n",
                       ": the [table] section must state name, version and date");
    expect_archs_error(t, "[gfx900]\ngfx_target_version = 90000\nfamily = gfx9\natomics = required\n",
                       ": the [table] section must state name, version and date");
    expect_archs_error(t, "", ": the [table] section must state name, version and date");
    expect_archs_error(t, "[table]\nname = archs\nversion = 1\nauthor = me\n", ":4: unknown key \"author\" in [table]");
}

static void test_archs_incomplete_section(rd_test_tmpdir *t, gconstpointer data)
{
    expect_archs_error(t,
                       "[table]\nname = archs\nversion = 1\ndate = 2026-01-01\n"
                       "[gfx906]\ngfx_target_version = 90006\natomics = required\n",
                       ": [gfx906] needs gfx_target_version, family and atomics");
}

static void test_archs_duplicate_section(rd_test_tmpdir *t, gconstpointer data)
{
    g_autofree char *text = g_strconcat(good_archs,
                                        "[gfx906]\n"                   /* 10 */
                                        "gfx_target_version = 90006\n" /* 11 */
                                        "family = gfx9\n"              /* 12 */
                                        "atomics = not-required\n"     /* 13 */
                                        "[gfx900]\n"                   /* 14 */
                                        "codename = again\n",          /* 15 */
                                        NULL);
    expect_archs_error(t, text, ":15: section [gfx900] appears twice");
}

static void test_archs_syntax(rd_test_tmpdir *t, gconstpointer data)
{
    g_autofree char *text = g_strconcat(good_archs, "\nthis line is not key equals value\n", NULL);
    expect_archs_error(t, text, ":11: syntax error (expected [section] or key = value)");
    g_autofree char *section = g_strconcat(good_archs, "[unterminated\n", NULL);
    expect_archs_error(t, section, ":10: syntax error (expected [section] or key = value)");
}

static void test_archs_first_error_wins(rd_test_tmpdir *t, gconstpointer data)
{
    g_autofree char *text = g_strconcat(good_archs, "apu = maybe\ncolour = red\n[foo]\nx = y\n", NULL);
    expect_archs_error(t, text, ":10: apu must be yes or no, not \"maybe\"");
}

static void test_pci_ids_errors(rd_test_tmpdir *t, gconstpointer data)
{
    g_autofree char *dup = g_strconcat(good_pci_ids, "[pci-ids]\n687F = gfx900\n", NULL);
    expect_pci_ids_error(t, dup, ":12: device id 687F listed twice");
    g_autofree char *dup_apu = g_strconcat(good_pci_ids, "74a0 = MI300A again\n", NULL);
    expect_pci_ids_error(t, dup_apu, ":11: device id 74a0 listed twice");
    g_autofree char *short_id = g_strconcat(good_pci_ids, "[pci-ids]\n67f = gfx803\n", NULL);
    expect_pci_ids_error(t, short_id, ":12: \"67f\" is not a 4-digit hex PCI device id");
    g_autofree char *bad_hex = g_strconcat(good_pci_ids, "[pci-ids]\n67gz = gfx803\n", NULL);
    expect_pci_ids_error(t, bad_hex, ":12: \"67gz\" is not a 4-digit hex PCI device id");
    g_autofree char *long_id = g_strconcat(good_pci_ids, "[pci-ids]\n1744c = gfx1100\n", NULL);
    expect_pci_ids_error(t, long_id, ":12: \"1744c\" is not a 4-digit hex PCI device id");
    g_autofree char *bad_gfx = g_strconcat(good_pci_ids, "[pci-ids]\n67df = polaris\n", NULL);
    expect_pci_ids_error(t, bad_gfx, ":12: \"polaris\" is not a gfx target");
    g_autofree char *bad_section = g_strconcat(good_pci_ids, "[vendors]\n1002 = AMD\n", NULL);
    expect_pci_ids_error(t, bad_section, ":12: unknown section [vendors]");
    g_autofree char *syntax = g_strconcat(good_pci_ids, "[pci-ids]\n67df\n", NULL);
    expect_pci_ids_error(t, syntax, ":12: syntax error (expected [section] or key = value)");
    expect_pci_ids_error(t, "[pci-ids]\n687f = gfx900\n", ": the [table] section must state name, version and date");
}

static void test_missing_files(rd_test_tmpdir *t, gconstpointer data)
{
    rd_knowledge k;
    g_autofree char *err = NULL;
    g_assert_cmpint(rd_knowledge_load(t->dir, &k, &err), ==, -ENOENT);
    g_autofree char *expected = g_strdup_printf("%s/archs.ini: No such file or directory", t->dir);
    g_assert_cmpstr(err, ==, expected);

    rd_test_write_file(t->dir, "archs.ini", good_archs);
    g_clear_pointer(&err, g_free);
    g_assert_cmpint(rd_knowledge_load(t->dir, &k, &err), ==, -ENOENT);
    g_autofree char *expected2 = g_strdup_printf("%s/pci-ids.ini: No such file or directory", t->dir);
    g_assert_cmpstr(err, ==, expected2);
}

static void test_binary_table(rd_test_tmpdir *t, gconstpointer data)
{
    /* a NUL byte and 0xff bytes in place of a key */
    static const char bin[] = "[table]\nname = archs\nversion = 1\ndate = x\n[gfx900]\n\xff\xfe = \0\n";
    g_autofree char *path = g_build_filename(t->dir, "archs.ini", NULL);
    GError *error = NULL;
    g_file_set_contents(path, bin, sizeof bin - 1, &error);
    g_assert_no_error(error);
    rd_knowledge k = { 0 };
    g_autofree char *err = NULL;
    g_assert_cmpint(rd_knowledge_load_archs(path, &k, &err), ==, -EINVAL);
    g_autofree char *expected = g_strdup_printf("%s:6: unknown key \"\xff\xfe\" in [gfx900]", path);
    g_assert_cmpstr(err, ==, expected);
    rd_knowledge_free(&k);
}

/* conf/health.ini [firmware-known-bad]: rows load and are found by target,
 * firmware and version; malformed rows name file:line. */
static void expect_health_error(rd_test_tmpdir *t, const char *text, const char *suffix)
{
    rd_test_write_file(t->dir, "health.ini", text);
    g_autofree char *path = g_build_filename(t->dir, "health.ini", NULL);
    rd_knowledge k = { 0 };
    g_autofree char *err = NULL;
    g_assert_cmpint(rd_knowledge_load_health(path, &k, &err), ==, -EINVAL);
    g_autofree char *expected = g_strconcat(path, suffix, NULL);
    g_assert_cmpstr(err, ==, expected);
    rd_knowledge_free(&k);
}

static void test_health_firmware(rd_test_tmpdir *t, gconstpointer data)
{
    static const char head[] = "[table]\nname = health\nversion = 1\ndate = x\n[firmware-known-bad]\n";
    g_autofree char *good =
        g_strconcat(head, "gfx1151.mes = 0x00000083 hangs (issue 1)\n", "gfx1151.mes_kiq = 0x6f kiq (issue 2)\n", NULL);
    rd_test_write_file(t->dir, "health.ini", good);
    g_autofree char *path = g_build_filename(t->dir, "health.ini", NULL);
    rd_knowledge k = { 0 };
    g_autofree char *err = NULL;
    g_assert_cmpint(rd_knowledge_load_health(path, &k, &err), ==, 0);
    g_assert_cmpuint(k.n_firmware_bad, ==, 2);
    const rd_firmware_bad *b = rd_knowledge_firmware_bad(&k, "gfx1151", "mes", 0x83);
    g_assert_nonnull(b);
    if (b)
        g_assert_cmpstr(b->reason, ==, "hangs (issue 1)");
    g_assert_null(rd_knowledge_firmware_bad(&k, "gfx1151", "mes", 0x82));
    g_assert_null(rd_knowledge_firmware_bad(&k, "gfx1150", "mes", 0x83));
    g_assert_null(rd_knowledge_firmware_bad(&k, "gfx1151", "mes_kiq", 0x83));
    g_assert_nonnull(rd_knowledge_firmware_bad(&k, "gfx1151", "mes_kiq", 0x6f));
    rd_knowledge_free(&k);

    g_autofree char *no_dot = g_strconcat(head, "gfx1151 = 0x83 x\n", NULL);
    expect_health_error(t, no_dot, ":6: \"gfx1151\" is not TARGET.FIRMWARE (gfx1151.mes)");
    g_autofree char *bad_gfx = g_strconcat(head, "navi31.mes = 0x83 x\n", NULL);
    expect_health_error(t, bad_gfx, ":6: \"navi31.mes\" is not TARGET.FIRMWARE (gfx1151.mes)");
    g_autofree char *bad_target = g_strconcat(head, "gfx11z1.mes = 0x83 x\n", NULL);
    expect_health_error(t, bad_target, ":6: \"gfx11z1\" is not a gfx target");
    g_autofree char *decimal = g_strconcat(head, "gfx1151.mes = 131 x\n", NULL);
    expect_health_error(t, decimal, ":6: \"131 x\" is not \"0xVERSION REASON\"");
    g_autofree char *no_reason = g_strconcat(head, "gfx1151.mes = 0x83\n", NULL);
    expect_health_error(t, no_reason, ":6: \"0x83\" is not \"0xVERSION REASON\"");
    g_autofree char *too_big = g_strconcat(head, "gfx1151.mes = 0x100000000 x\n", NULL);
    expect_health_error(t, too_big, ":6: \"0x100000000 x\" is not \"0xVERSION REASON\"");
    g_autofree char *twice = g_strconcat(head, "gfx1151.mes = 0x83 a\ngfx1151.mes = 0x0083 b\n", NULL);
    expect_health_error(t, twice, ":7: gfx1151.mes 0x0083 listed twice");
}

/* conf/health.ini [vram] and [vram-left-out]: GiB or "shared", a revision
 * row before the bare id, each id in one of the two sections. */
static void test_health_vram(rd_test_tmpdir *t, gconstpointer data)
{
    static const char head[] = "[table]\nname = health\nversion = 2\ndate = x\n[vram]\n";
    g_autofree char *good =
        g_strconcat(head, "7448 = 48 AMD Radeon PRO W7900\n", "744c.c8 = 24 AMD Radeon RX 7900 XTX\n",
                    "744c = 16 AMD Radeon RX 7900\n", "1586.c1 = shared AMD Radeon 8060S Graphics\n",
                    "[vram-left-out]\n7590.c0 = 8 or 16 GB\n", NULL);
    rd_test_write_file(t->dir, "health.ini", good);
    g_autofree char *path = g_build_filename(t->dir, "health.ini", NULL);
    rd_knowledge k = { 0 };
    g_autofree char *err = NULL;
    g_assert_cmpint(rd_knowledge_load_health(path, &k, &err), ==, 0);
    g_assert_cmpuint(k.n_product_memory, ==, 4);
    const rd_product_memory *p = rd_knowledge_product_memory(&k, 0x7448, 0x00);
    g_assert_nonnull(p);
    g_assert_cmpuint(p->vram_bytes, ==, UINT64_C(48) << 30);
    g_assert_cmpstr(p->product, ==, "AMD Radeon PRO W7900");
    g_assert_cmpstr(rd_knowledge_product_memory(&k, 0x744c, 0xc8)->product, ==, "AMD Radeon RX 7900 XTX");
    g_assert_cmpstr(rd_knowledge_product_memory(&k, 0x744c, 0xce)->product, ==, "AMD Radeon RX 7900");
    p = rd_knowledge_product_memory(&k, 0x1586, 0xc1);
    g_assert_cmpuint(p->vram_bytes, ==, 0);
    g_assert_cmpstr(p->product, ==, "AMD Radeon 8060S Graphics");
    g_assert_null(rd_knowledge_product_memory(&k, 0x1586, 0xc2));
    g_assert_null(rd_knowledge_product_memory(&k, 0x7590, 0xc0));
    g_assert_cmpuint(k.n_product_left_out, ==, 1);
    g_assert_cmpuint(k.product_left_out[0].device_id, ==, 0x7590);
    g_assert_cmpint(k.product_left_out[0].revision, ==, 0xc0);
    g_assert_cmpstr(k.product_left_out[0].reason, ==, "8 or 16 GB");
    rd_knowledge_free(&k);

    static const char *const bad[][2] = {
        { "7448 = 0 W7900\n", ":6: \"0 W7900\" is not \"GIB PRODUCT NAME\" or \"shared PRODUCT NAME\"" },
        { "7448 = -48 W7900\n", ":6: \"-48 W7900\" is not \"GIB PRODUCT NAME\" or \"shared PRODUCT NAME\"" },
        { "7448 = 48GB W7900\n", ":6: \"48GB W7900\" is not \"GIB PRODUCT NAME\" or \"shared PRODUCT NAME\"" },
        { "7448 = 65537 W7900\n", ":6: \"65537 W7900\" is not \"GIB PRODUCT NAME\" or \"shared PRODUCT NAME\"" },
        { "7448 = 48\n", ":6: \"48\" is not \"GIB PRODUCT NAME\" or \"shared PRODUCT NAME\"" },
        { "7448 = shared\n", ":6: \"shared\" is not \"GIB PRODUCT NAME\" or \"shared PRODUCT NAME\"" },
        { "7448 = sharedW7900\n", ":6: \"sharedW7900\" is not \"GIB PRODUCT NAME\" or \"shared PRODUCT NAME\"" },
        { "74481 = 48 W7900\n", ":6: \"74481\" is not a PCI device id (1234 or 1234.c8)" },
        { "7448.c = 48 W7900\n", ":6: \"7448.c\" is not a PCI device id (1234 or 1234.c8)" },
        { "7448 = 48 a\n7448 = 48 b\n", ":7: 7448 listed twice" },
        { "7448 = 48 a\n[vram-left-out]\n7448 = why\n", ":8: 7448 listed twice" },
        { "[vram-left-out]\n7448 =\n", ":7: 7448 needs the reason it is left out" },
        { "[vram-leftout]\n7448 = x\n", ":7: unknown section [vram-leftout]" },
    };
    for (size_t i = 0; i < G_N_ELEMENTS(bad); i++) {
        g_autofree char *text = g_strconcat(head, bad[i][0], NULL);
        expect_health_error(t, text, bad[i][1]);
    }
}

/* Every gfx target with a family has its override value or an explicit
 * "none" in archs.ini; RDNA2 APUs borrow gfx1030's code like RX 6700 XT. */
/* The shipped tables, for the checks of what they hold. */
static rd_knowledge knowledge;

static void test_archs_overrides(void)
{
    g_assert_cmpuint(knowledge.n_archs, >=, 40);
    for (size_t i = 0; i < knowledge.n_archs; i++) {
        const rd_arch *a = &knowledge.archs[i];
        if (!a->family)
            continue;
        if (!a->override_known)
            g_test_message("[%s] (family %s) has no override key", a->gfx, a->family);
        g_assert_true(a->override_known);
        if (a->override) {
            /* the value names a target of the same family */
            unsigned ma, mi, st;
            g_assert_cmpint(sscanf(a->override, "%u.%u.%u", &ma, &mi, &st), ==, 3);
            char gfx[16];
            g_assert_true(rd_gfx_name((uint64_t)ma * 10000 + mi * 100 + st, gfx, sizeof gfx));
            const rd_arch *target = rd_knowledge_arch(&knowledge, gfx);
            g_assert_nonnull(target);
            if (target)
                g_assert_cmpstr(target->family, ==, a->family);
        }
    }
    const char *rdna2[] = { "gfx1031", "gfx1032", "gfx1033", "gfx1034", "gfx1035", "gfx1036", "gfx1037" };
    for (size_t i = 0; i < ELEMENTSOF(rdna2); i++) {
        const rd_arch *a = rd_knowledge_arch(&knowledge, rdna2[i]);
        g_assert_nonnull(a);
        if (a)
            g_assert_cmpstr(a->override, ==, "10.3.0");
    }
    const char *never[] = { "gfx600", "gfx601", "gfx602", "gfx703", "gfx704" };
    for (size_t i = 0; i < ELEMENTSOF(never); i++)
        g_assert_true(rd_knowledge_arch(&knowledge, never[i])->no_kfd);
    g_assert_false(rd_knowledge_arch(&knowledge, "gfx701")->no_kfd);
    g_assert_false(rd_knowledge_arch(&knowledge, "gfx700")->no_kfd);
}

/* Tables loaded when first asked for: the check's four at the start,
 * repos.ini's [key] before its rows, each parsed once; a malformed table
 * no one asks for is never read, one asked for fails with file and line. */
static void test_on_first_use(rd_test_tmpdir *t, gconstpointer data)
{
    rd_test_write_file(t->dir, "archs.ini", good_archs);
    rd_test_write_file(t->dir, "pci-ids.ini", good_pci_ids);
    rd_test_write_file(t->dir, "health.ini",
                       "[table]\nname = health\nversion = 1\ndate = 2026-01-01\n[vram]\n"
                       "74a1 = lots MI300X\n");
    rd_test_write_file(t->dir, "repos.ini",
                       "[table]\nname = repos\nversion = 1\ndate = 2026-01-01\n\n[key]\npath = rocm/rocm.gpg.key\n"
                       "fingerprint = CA8BB4727A47B4D09B4EE8969386B48A1A693C5C\n\n[release 6.4.0]\n"
                       "date = 2025-04-11\nbogus = 1\n");
    rd_knowledge k;
    g_autofree char *err = NULL, *later = NULL, *again = NULL, *full = NULL;
    g_assert_cmpint(rd_knowledge_open(t->dir, RD_KT_CHECK, &k, &err), ==, 0);
    g_assert_cmpuint(k.n_archs, >, 0);
    g_assert_null(k.repo_fingerprint);
    g_assert_cmpint(rd_knowledge_error(&k, &later), ==, 0);
    /* the key without the rows */
    g_assert_cmpint(rd_knowledge_need(&k, RD_KT_REPO_KEY, &err), ==, 0);
    g_assert_cmpstr(k.repo_fingerprint, ==, "CA8BB4727A47B4D09B4EE8969386B48A1A693C5C");
    g_assert_cmpstr(k.repos_info.name, ==, "repos");
    g_assert_cmpuint(k.n_repos, ==, 0);
    /* the rows from where the key stopped: the line counts from the top */
    g_autofree char *want = g_strdup_printf("%s/repos.ini:12: unknown key \"bogus\" in [release 6.4.0]", t->dir);
    g_assert_cmpint(rd_knowledge_need(&k, RD_KT_REPOS, &err), ==, -EINVAL);
    g_assert_cmpstr(err, ==, want);
    g_assert_cmpint(rd_knowledge_error(&k, &later), ==, -EINVAL);
    g_assert_cmpstr(later, ==, want);
    /* parsed once: asking again reads nothing, the error stays the first */
    g_assert_cmpint(rd_knowledge_need(&k, RD_KT_REPOS, NULL), ==, 0);
    /* a query loads its table: health.ini's error comes now */
    g_assert_null(rd_knowledge_product_memory(&k, 0x74a1, 0));
    g_autofree char *want_health = g_strdup_printf(
        "%s/health.ini:6: \"lots MI300X\" is not \"GIB PRODUCT NAME\" or \"shared PRODUCT NAME\"", t->dir);
    g_assert_cmpint(rd_knowledge_need(&k, RD_KT_HEALTH, &again), ==, 0);
    rd_knowledge_free(&k);
    /* all at once: the first table in order fails */
    g_assert_cmpint(rd_knowledge_load(t->dir, &k, &full), ==, -EINVAL);
    g_assert_cmpstr(full, ==, want_health);
}

static const rd_test_case tests[] = {
    { "/knowledge/gfx-name", test_gfx_name },
    { "/knowledge/shipped-tables", test_shipped_tables },
    { "/knowledge/kernel-at-least", test_kernel_at_least },
    { "/assess/archs-overrides", test_archs_overrides },
};

int main(int argc, char **argv)
{
    rd_test_init(&argc, &argv, true);
    rd_test_add_all(tests, G_N_ELEMENTS(tests));
    RD_TEST_ADD_TMP("/knowledge/load/good", test_good_table);
    RD_TEST_ADD_TMP("/knowledge/archs/unknown-key", test_archs_unknown_key);
    RD_TEST_ADD_TMP("/knowledge/archs/bad-section", test_archs_bad_section);
    RD_TEST_ADD_TMP("/knowledge/archs/version-mismatch", test_archs_version_mismatch);
    RD_TEST_ADD_TMP("/knowledge/archs/bad-values", test_archs_bad_values);
    RD_TEST_ADD_TMP("/knowledge/archs/table-section", test_archs_table_section);
    RD_TEST_ADD_TMP("/knowledge/archs/incomplete-section", test_archs_incomplete_section);
    RD_TEST_ADD_TMP("/knowledge/archs/duplicate-section", test_archs_duplicate_section);
    RD_TEST_ADD_TMP("/knowledge/archs/syntax", test_archs_syntax);
    RD_TEST_ADD_TMP("/knowledge/archs/first-error-wins", test_archs_first_error_wins);
    RD_TEST_ADD_TMP("/knowledge/pci-ids/errors", test_pci_ids_errors);
    RD_TEST_ADD_TMP("/knowledge/load/missing-files", test_missing_files);
    RD_TEST_ADD_TMP("/knowledge/load/binary", test_binary_table);
    RD_TEST_ADD_TMP("/knowledge/health/firmware", test_health_firmware);
    RD_TEST_ADD_TMP("/knowledge/health/vram", test_health_vram);
    RD_TEST_ADD_TMP("/knowledge/load/on-first-use", test_on_first_use);
    rd_test_load_knowledge(&knowledge);
    int r = g_test_run();
    rd_knowledge_free(&knowledge);
    return r;
}
