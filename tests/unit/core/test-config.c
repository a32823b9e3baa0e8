/* SPDX-License-Identifier: MIT */
/* rocm-doctor.conf: precedence of vendor, /etc and conf.d files, the error
 * for every kind of bad input (file, line, key), empty values, comments,
 * continuation lines, --config, the shipped file's defaults, and the policy
 * applied to findings. */
#include <glib.h>
#include <glib/gstdio.h>
#include <unistd.h>

#include "config.h"
#include "fixes.h"
#include "registry.h"
#include "util.h"
#include "testlib.h"

/* ---- helpers ---- */

static char *path_in(const char *root, const char *rel)
{
    return g_build_filename(root, rel, NULL);
}

/* Loads root's configuration, expecting success. */
static void load_ok(const char *root, rd_config *c)
{
    char *err = NULL;
    int r = rd_config_load(rd_test_config_ids(), root, NULL, c, &err);
    if (r < 0)
        g_error("unexpected error: %s", err);
    g_assert_null(err);
}

/* Loads root's configuration, expecting exactly this error. */
static void load_fails(const char *root, const char *expected)
{
    rd_config c = { .level = 99 };
    _cleanup_free_ char *err = NULL;
    g_assert_cmpint(rd_config_load(rd_test_config_ids(), root, NULL, &c, &err), <, 0);
    g_assert_cmpstr(err, ==, expected);
    g_assert_cmpint(c.level, ==, 99); /* untouched on failure */
}

/* Parses text as the only file; returns the error or NULL. */
static char *parse_error(const char *text)
{
    rd_config c;
    rd_config_init(&c);
    char *err = NULL;
    int r = rd_config_parse(&c, rd_test_config_ids(), "t.conf", text, strlen(text), &err);
    g_assert_true((r < 0) == (err != NULL));
    rd_config_free(&c);
    return err;
}

static void assert_parse_error(const char *text, const char *expected)
{
    _cleanup_free_ char *err = parse_error(text);
    if (!err)
        g_error("no error for:\n%s", text);
    g_assert_cmpstr(err, ==, expected);
}

static void parse_ok(const char *text, rd_config *c)
{
    rd_config_init(c);
    _cleanup_free_ char *err = NULL;
    if (rd_config_parse(c, rd_test_config_ids(), "t.conf", text, strlen(text), &err) < 0)
        g_error("unexpected error: %s\nfor:\n%s", err, text);
}

static char *default_dump(void)
{
    rd_config d;
    rd_config_init(&d);
    char *s = rd_config_dump(&d);
    rd_config_free(&d);
    return s;
}

/* ---- loading ---- */

static void test_no_files(rd_test_tmpdir *f, gconstpointer data)
{
    rd_config c;
    load_ok(f->dir, &c);
    g_assert_null(c.files);
    _cleanup_free_ char *got = rd_config_dump(&c);
    _cleanup_free_ char *want = default_dump();
    g_assert_cmpstr(got, ==, want);
    g_assert_cmpint(c.expected_gpus, ==, -1);
    g_assert_cmpint(c.level, ==, 1);
    g_assert_cmpint(c.runtime_timeout_s, ==, 20);
    g_assert_cmpstr(c.access_group, ==, "render");
    g_assert_cmpstr(c.status_file, ==, "/run/rocm-doctor/status.json");
    g_assert_null(c.allowed_fixes);
    g_assert_null(c.users);
    rd_config_free(&c);
}

static void test_precedence(rd_test_tmpdir *f, gconstpointer data)
{
    rd_test_write_file(
        f->dir, RD_VENDOR_CONFIG_FILE + 1,
        "[check]\nlevel = 2\nexpected_gpus = 4\nusers = alice bob\n[output]\nprometheus_file = /v/x.prom\n");
    rd_test_write_file(f->dir, "etc/rocm-doctor/rocm-doctor.conf", "# site\n[check]\nexpected_gpus = 8\n");
    rd_test_write_file(f->dir, "etc/rocm-doctor/conf.d/20-b.conf", "[check]\nusers = carol\n");
    rd_test_write_file(f->dir, "etc/rocm-doctor/conf.d/10-a.conf", "[check]\nusers = dave\nruntime_timeout_s = 30\n");
    rd_test_write_file(f->dir, "etc/rocm-doctor/conf.d/README", "not a configuration file\n");
    rd_test_write_file(f->dir, "etc/rocm-doctor/conf.d/.30-hidden.conf", "[bogus]\n");
    rd_config c;
    load_ok(f->dir, &c);

    g_assert_cmpint(c.level, ==, 2);               /* only the vendor file sets it */
    g_assert_cmpint(c.expected_gpus, ==, 8);       /* /etc over vendor */
    g_assert_cmpint(c.runtime_timeout_s, ==, 30);  /* conf.d */
    g_assert_cmpuint(strv_length(c.users), ==, 1); /* 20-b after 10-a, lists replace */
    g_assert_cmpstr(c.users[0], ==, "carol");
    g_assert_cmpstr(c.prometheus_file, ==, "/v/x.prom");
    g_autofree char *etc = path_in(f->dir, "etc/rocm-doctor/rocm-doctor.conf");
    g_autofree char *src = g_strdup_printf("%s:3", etc);
    g_assert_cmpstr(c.expected_gpus_source, ==, src);

    g_assert_cmpuint(strv_length(c.files), ==, 4);
    g_autofree char *f0 = path_in(f->dir, RD_VENDOR_CONFIG_FILE + 1);
    g_autofree char *f2 = path_in(f->dir, "etc/rocm-doctor/conf.d/10-a.conf");
    g_autofree char *f3 = path_in(f->dir, "etc/rocm-doctor/conf.d/20-b.conf");
    g_assert_cmpstr(c.files[0], ==, f0);
    g_assert_cmpstr(c.files[1], ==, etc);
    g_assert_cmpstr(c.files[2], ==, f2);
    g_assert_cmpstr(c.files[3], ==, f3);
    rd_config_free(&c);
}

static void test_empty_value_resets(rd_test_tmpdir *f, gconstpointer data)
{
    rd_test_write_file(f->dir, RD_VENDOR_CONFIG_FILE + 1,
                       "[check]\nexpected_gpus = 4\nusers = alice\nlevel = 2\nseverity = pcie.bar-small:error\n"
                       "[fix]\naccess_group = video\nallowed_fixes = none\n[output]\nprometheus_file = /v/x.prom\n");
    rd_test_write_file(f->dir, "etc/rocm-doctor/rocm-doctor.conf",
                       "[check]\nexpected_gpus =\nusers =\nlevel=\nseverity =\n[fix]\naccess_group =\nallowed_fixes =\n"
                       "[output]\nprometheus_file =\n");
    rd_config c;
    load_ok(f->dir, &c);
    _cleanup_free_ char *got = rd_config_dump(&c);
    _cleanup_free_ char *want = default_dump();
    g_assert_cmpstr(got, ==, want);
    g_assert_null(c.expected_gpus_source);
    rd_config_free(&c);
}

static void test_error_names_file(rd_test_tmpdir *f, gconstpointer data)
{
    rd_test_write_file(f->dir, "etc/rocm-doctor/rocm-doctor.conf", "[check]\nlevel = 2\n");
    rd_test_write_file(f->dir, "etc/rocm-doctor/conf.d/50-fleet.conf",
                       "# fleet policy\n\n[check]\nexpected_gpus = eight\n");
    g_autofree char *p = path_in(f->dir, "etc/rocm-doctor/conf.d/50-fleet.conf");
    g_autofree char *want =
        g_strdup_printf("%s:4: [check] expected_gpus: \"eight\" is not a number of GPUs from 1 to 65535", p);
    load_fails(f->dir, want);
}

static void test_unreadable(rd_test_tmpdir *f, gconstpointer data)
{
    /* a directory where a file belongs */
    g_autofree char *d = path_in(f->dir, "etc/rocm-doctor/conf.d/10-dir.conf");
    g_assert_cmpint(g_mkdir_with_parents(d, 0755), ==, 0);
    g_autofree char *want = g_strdup_printf("%s: Is a directory", d);
    load_fails(f->dir, want);
    rd_test_rm_rf(d);

    /* a file where the drop-in directory belongs */
    g_autofree char *dropins = path_in(f->dir, "etc/rocm-doctor/conf.d");
    rd_test_rm_rf(dropins);
    rd_test_write_file(f->dir, "etc/rocm-doctor/conf.d", "[check]\nlevel = 2\n");
    g_autofree char *want2 = g_strdup_printf("%s: Not a directory", dropins);
    load_fails(f->dir, want2);
}

static void test_symlink_stays_in_root(rd_test_tmpdir *f, gconstpointer data)
{
    /* ../../../outside.conf from etc/rocm-doctor resolves at the root, not
     * beside it */
    g_autofree char *parent = g_path_get_dirname(f->dir);
    g_autofree char *base = g_path_get_basename(f->dir);
    g_autofree char *outside_name = g_strdup_printf("%s-outside.conf", base);
    g_autofree char *outside = g_build_filename(parent, outside_name, NULL);
    g_assert_true(g_file_set_contents(outside, "[check]\nlevel = 2\n", -1, NULL));
    rd_test_write_file(f->dir, "etc/rocm-doctor/.keep", "");
    g_autofree char *link = path_in(f->dir, "etc/rocm-doctor/rocm-doctor.conf");
    g_autofree char *target = g_strdup_printf("../../../%s", outside_name);
    g_assert_cmpint(symlink(target, link), ==, 0);
    rd_config c;
    load_ok(f->dir, &c);
    g_assert_cmpint(c.level, ==, 1);
    g_assert_null(c.files);
    rd_config_free(&c);
    /* the same name inside the root is what the link reaches */
    g_autofree char *rel = g_strdup_printf("%s", outside_name);
    rd_test_write_file(f->dir, rel, "[check]\nlevel = 2\n");
    load_ok(f->dir, &c);
    g_assert_cmpint(c.level, ==, 2);
    rd_config_free(&c);
    g_unlink(outside);
}

static void test_explicit_file(rd_test_tmpdir *f, gconstpointer data)
{
    rd_test_write_file(f->dir, "etc/rocm-doctor/rocm-doctor.conf", "[check]\nlevel = 2\nexpected_gpus = 3\n");
    rd_test_write_file(f->dir, "elsewhere/my.conf", "[check]\nexpected_gpus = 5\n");
    g_autofree char *mine = path_in(f->dir, "elsewhere/my.conf");
    rd_config c;
    _cleanup_free_ char *err = NULL;
    g_assert_cmpint(rd_config_load(rd_test_config_ids(), f->dir, mine, &c, &err), ==, 0);
    g_assert_cmpint(c.expected_gpus, ==, 5);
    g_assert_cmpint(c.level, ==, 1); /* /etc is not read with --config */
    g_assert_cmpuint(strv_length(c.files), ==, 1);
    g_assert_cmpstr(c.files[0], ==, mine);
    rd_config_free(&c);

    g_autofree char *missing = path_in(f->dir, "nope.conf");
    g_assert_cmpint(rd_config_load(rd_test_config_ids(), f->dir, missing, &c, &err), ==, -ENOENT);
    g_autofree char *want = g_strdup_printf("--config %s: No such file or directory", missing);
    g_assert_cmpstr(err, ==, want);
}

/* ---- syntax ---- */

static void test_unknown_section_and_key(void)
{
    assert_parse_error(
        "[check]\nlevel = 1\n[checks]\nlevel = 2\n",
        "t.conf:3: unknown section [checks] (the sections are [check], [fix], [output], [daemon] and [health])");
    /* an empty unknown section is still an error */
    assert_parse_error(
        "[check]\n[bogus]\n",
        "t.conf:2: unknown section [bogus] (the sections are [check], [fix], [output], [daemon] and [health])");
    assert_parse_error("[check]\n\ncolour = yes\n", "t.conf:3: [check] colour: unknown key");
    assert_parse_error("[output]\nlevel = 2\n", "t.conf:2: [output] level: unknown key (it belongs in [check])");
    assert_parse_error("level = 2\n", "t.conf:1: level: key outside a section (put it under [check], [fix], "
                                      "[output] or [daemon])");
    assert_parse_error("[check]\nexpected_gpus\n", "t.conf:2: syntax error (expected [section], key = value, or a "
                                                   "comment starting with # or ;)");
    assert_parse_error("[check\nlevel = 1\n", "t.conf:1: syntax error (expected [section], key = value, or a "
                                              "comment starting with # or ;)");
    assert_parse_error("[check] level = 2\n", "t.conf:1: text after [check]; put each key on its own line");
    /* after a byte order mark too (inih skips it) */
    assert_parse_error(
        "\xEF\xBB\xBF[bogus]\n",
        "t.conf:1: unknown section [bogus] (the sections are [check], [fix], [output], [daemon] and [health])");
    assert_parse_error("\xEF\xBB\xBF[check] level = 2\n", "t.conf:1: text after [check]; put each key on its own line");
    rd_config bom;
    parse_ok("\xEF\xBB\xBF[check]\nexpected_gpus = 4\n", &bom);
    g_assert_cmpint(bom.expected_gpus, ==, 4);
    rd_config_free(&bom);
    assert_parse_error("[check]\n = 2\n", "t.conf:2: a value without a key name (\"= 2\")");
    assert_parse_error("=x\n", "t.conf:1: a value without a key name (\"= x\")");
    assert_parse_error(
        "[Check]\nlevel = 1\n",
        "t.conf:1: unknown section [Check] (the sections are [check], [fix], [output], [daemon] and [health])");
}

static void test_bad_values(void)
{
    /* clang-format off */
    static const struct {
        const char *text, *error;
    } cases[] = {
        /* bool */
        { "[check]\nwith_python = maybe\n", "t.conf:2: [check] with_python: \"maybe\" is not yes or no" },
        { "[fix]\n\nudev_all_users = YES\n", "t.conf:3: [fix] udev_all_users: \"YES\" is not yes or no" },
        /* integers */
        { "[check]\nexpected_gpus = 0\n", "t.conf:2: [check] expected_gpus: \"0\" is not a number of GPUs from 1 to 65535" },
        { "[check]\nexpected_gpus = -1\n", "t.conf:2: [check] expected_gpus: \"-1\" is not a number of GPUs from 1 to 65535" },
        { "[check]\nexpected_gpus = 8x\n", "t.conf:2: [check] expected_gpus: \"8x\" is not a number of GPUs from 1 to 65535" },
        { "[check]\nexpected_gpus = +8\n", "t.conf:2: [check] expected_gpus: \"+8\" is not a number of GPUs from 1 to 65535" },
        { "[check]\nexpected_gpus = 99999999999999999999999\n", "t.conf:2: [check] expected_gpus: \"99999999999999999999999\" is not a number of GPUs from 1 to 65535" },
        { "[check]\nlevel = 3\n", "t.conf:2: [check] level: \"3\" is not a level from 1 to 2" },
        { "[check]\nruntime_timeout_s = 0\n", "t.conf:2: [check] runtime_timeout_s: \"0\" is not seconds from 1 to 3600" },
        { "[check]\nruntime_timeout_s = 20s\n", "t.conf:2: [check] runtime_timeout_s: \"20s\" is not seconds from 1 to 3600" },
        { "[daemon]\ndebounce_ms = 60001\n", "t.conf:2: [daemon] debounce_ms: \"60001\" is not milliseconds from 0 to 60000" },
        /* lists */
        { "[check]\nusers = alice b:ob\n", "t.conf:2: [check] users: \"b:ob\" is not a user name" },
        { "[check]\nusers = -rf\n", "t.conf:2: [check] users: \"-rf\" is not a user name" },
        { "[check]\nusers = , ,\n", "t.conf:2: [check] users: \", ,\" lists nothing (an empty value means the default)" },
        { "[check]\nignore = kfd.no-acess\n", "t.conf:2: [check] ignore: \"kfd.no-acess\" is not a finding id (see FINDINGS in rocm-doctor(1))" },
        { "[check]\nusers = alice # the admin\n", "t.conf:2: [check] users: \"#\" is not a user name" },
        { "[fix]\nallowed_fixes = group chmod\n", "t.conf:2: [fix] allowed_fixes: \"chmod\" is not a fix (group, udev, modprobe, apt, dnf, crb, zypper, packages, env, cmdline, slurm-gres; or all, none)" },
        { "[fix]\nallowed_fixes = all group\n", "t.conf:2: [fix] allowed_fixes: \"all\" stands alone; it cannot be combined with other fixes" },
        { "[fix]\nallowed_fixes = group none\n", "t.conf:2: [fix] allowed_fixes: \"none\" stands alone; it cannot be combined with other fixes" },
        /* severity overrides */
        { "[check]\nseverity = kfd.no-access\n", "t.conf:2: [check] severity: \"kfd.no-access\" is not ID:SEVERITY (such as pcie.bar-small:info)" },
        { "[check]\nseverity = kfd.no-access:fatal\n", "t.conf:2: [check] severity: \"fatal\" is not a severity (ok, info, warning, error)" },
        { "[check]\nseverity = kfd.nope:info\n", "t.conf:2: [check] severity: \"kfd.nope\" is not a finding id (see FINDINGS in rocm-doctor(1))" },
        { "[check]\nseverity = kfd.missing:info kfd.missing:error\n", "t.conf:2: [check] severity: kfd.missing is given twice" },
        /* strings */
        { "[fix]\nrocm_release = latest\n", "t.conf:2: [fix] rocm_release: \"latest\" is not a ROCm release such as 6.4 or 6.4.1" },
        { "[fix]\nrocm_release = 6.4.1.2\n", "t.conf:2: [fix] rocm_release: \"6.4.1.2\" is not a ROCm release such as 6.4 or 6.4.1" },
        { "[fix]\nrocm_release = 6.-4\n", "t.conf:2: [fix] rocm_release: \"6.-4\" is not a ROCm release such as 6.4 or 6.4.1" },
        { "[fix]\naccess_group = -render\n", "t.conf:2: [fix] access_group: \"-render\" is not a group name" },
        { "[fix]\napt_key_file = keys/rocm.gpg\n", "t.conf:2: [fix] apt_key_file: \"keys/rocm.gpg\" is not an absolute path" },
        { "[fix]\napt_key_url = http://repo.radeon.com/rocm/rocm.gpg.key\n", "t.conf:2: [fix] apt_key_url: \"http://repo.radeon.com/rocm/rocm.gpg.key\" is not an https:// URL (a signing key is never fetched over plain http)" },
        { "[fix]\napt_key_fingerprint = 9386B48A1A693C5C\n", "t.conf:2: [fix] apt_key_fingerprint: \"9386B48A1A693C5C\" is not an OpenPGP fingerprint (40 or 64 hex digits)" },
        { "[output]\nprometheus_file = /var/lib/node-exporter/rocm.txt\n", "t.conf:2: [output] prometheus_file: \"/var/lib/node-exporter/rocm.txt\" does not end in .prom (the node exporter's textfile collector reads only *.prom)" },
        { "[output]\nstatus_file = /run/rocm-doctor/\n", "t.conf:2: [output] status_file: \"/run/rocm-doctor/\" is not a file path" },
        { "[output]\nnfd_file = features\n", "t.conf:2: [output] nfd_file: \"features\" is not an absolute path" },
    };
    /* clang-format on */
    for (size_t i = 0; i < G_N_ELEMENTS(cases); i++)
        assert_parse_error(cases[i].text, cases[i].error);
}

static void test_comments_and_values(void)
{
    rd_config c;
    parse_ok("# comment\n; another\n\n[check]\n  # indented comment\nexpected_gpus = 8 ; eight OAMs\n"
             "users = alice,bob  carol\nignore = driver.nomodeset, pcie.link-degraded\n"
             "severity = pcie.bar-small:info, gpu.count-mismatch:warning\nwith_python = on\n"
             "[fix]\nallowed_fixes = group,udev\naccess_group = video\nrocm_release = 6.4.1\n"
             "apt_key_fingerprint = 1234 5678 9abc def0 1234  5678 9ABC DEF0 1234 5678\n"
             "apt_key_url = https://repo.radeon.com/rocm/rocm.gpg.key\napt_key_file = /etc/apt/keyrings/rocm.gpg\n"
             "[check]\nlevel = 2\n" /* a section may appear again */
             "[daemon]\ndebounce_ms = 0\n",
             &c);
    g_assert_cmpint(c.expected_gpus, ==, 8);
    g_assert_cmpstr(c.expected_gpus_source, ==, "t.conf:6");
    g_assert_cmpuint(strv_length(c.users), ==, 3);
    g_assert_cmpstr(c.users[2], ==, "carol");
    g_assert_true(strv_contains(c.ignore, "pcie.link-degraded"));
    g_assert_cmpuint(c.n_severity, ==, 2);
    g_assert_cmpstr(c.severity[1].id, ==, "gpu.count-mismatch");
    g_assert_cmpint(c.severity[1].severity, ==, RD_SEV_WARNING);
    g_assert_true(c.with_python);
    g_assert_cmpuint(strv_length(c.allowed_fixes), ==, 2);
    g_assert_cmpstr(c.access_group, ==, "video");
    g_assert_cmpstr(c.rocm_release, ==, "6.4.1");
    g_assert_cmpstr(c.apt_key_fingerprint, ==, "123456789ABCDEF0123456789ABCDEF012345678");
    g_assert_cmpint(c.level, ==, 2);
    g_assert_cmpint(c.runtime_timeout_s, ==, 20); /* level is an int: its neighbour is untouched */
    g_assert_cmpint(c.debounce_ms, ==, 0);
    rd_config_free(&c);

    parse_ok("[fix]\nallowed_fixes = none\n", &c);
    g_assert_nonnull(c.allowed_fixes);
    g_assert_cmpuint(strv_length(c.allowed_fixes), ==, 0);
    rd_config_free(&c);
    parse_ok("[fix]\nallowed_fixes = all\n", &c);
    g_assert_null(c.allowed_fixes);
    rd_config_free(&c);
    /* ':' separates too, as in inih */
    parse_ok("[check]\nlevel: 2\n", &c);
    g_assert_cmpint(c.level, ==, 2);
    rd_config_free(&c);
    /* a byte-order mark */
    parse_ok("\xef\xbb\xbf[check]\nlevel = 2\n", &c);
    g_assert_cmpint(c.level, ==, 2);
    rd_config_free(&c);
    /* no newline at the end */
    parse_ok("[check]\nlevel = 2", &c);
    g_assert_cmpint(c.level, ==, 2);
    rd_config_free(&c);
}

static void test_duplicates(rd_test_tmpdir *f, gconstpointer data)
{
    assert_parse_error("[check]\nlevel = 1\nexpected_gpus = 2\n\nlevel = 2\n",
                       "t.conf:5: [check] level: set twice in this file (first on line 2)");
    assert_parse_error("[check]\nlevel = 1\n[fix]\naccess_group = video\n[check]\nlevel = 2\n",
                       "t.conf:6: [check] level: set twice in this file (first on line 2)");
    /* an empty value counts as setting it */
    assert_parse_error("[check]\nusers =\nusers = alice\n",
                       "t.conf:3: [check] users: set twice in this file (first on line 2)");
    /* the same key in two files is what precedence is for */
    rd_test_write_file(f->dir, "etc/rocm-doctor/rocm-doctor.conf", "[check]\nlevel = 2\n");
    rd_test_write_file(f->dir, "etc/rocm-doctor/conf.d/a.conf", "[check]\nlevel = 1\n");
    rd_config c;
    load_ok(f->dir, &c);
    g_assert_cmpint(c.level, ==, 1);
    rd_config_free(&c);
}

static void test_continuation(void)
{
    rd_config c;
    parse_ok("[check]\nignore = driver.nomodeset\n    pcie.link-degraded, pcie.bar-small\n\n"
             "\tkfd.missing\nseverity = gpu.none:warning\n  host.wsl:error\nlevel = 2\n",
             &c);
    g_assert_cmpuint(strv_length(c.ignore), ==, 4);
    g_assert_cmpstr(c.ignore[3], ==, "kfd.missing");
    g_assert_cmpuint(c.n_severity, ==, 2);
    g_assert_cmpstr(c.severity[1].id, ==, "host.wsl");
    g_assert_cmpint(c.level, ==, 2);
    rd_config_free(&c);

    assert_parse_error("[check]\nlevel = 1\n  2\n",
                       "t.conf:3: [check] level: takes one value; the indented line \"2\" would add another");
    assert_parse_error("[check]\nusers = alice\n  level = 2\n",
                       "t.conf:3: [check] users: indented line \"level = 2\" reads as more of this key's value; "
                       "start a new key at the beginning of the line");
    assert_parse_error("[check]\nignore = host.wsl\n  kfd.nope\n",
                       "t.conf:3: [check] ignore: \"kfd.nope\" is not a finding id (see FINDINGS in rocm-doctor(1))");
    assert_parse_error("[check]\nseverity = host.wsl:ok\n  host.wsl:info\n",
                       "t.conf:3: [check] severity: host.wsl is given twice");
    assert_parse_error("[fix]\nallowed_fixes = all\n  group\n",
                       "t.conf:3: [fix] allowed_fixes: a continuation line can only add fixes to a list of fixes");
    assert_parse_error("[fix]\nallowed_fixes = none\n  group\n",
                       "t.conf:3: [fix] allowed_fixes: a continuation line can only add fixes to a list of fixes");
    assert_parse_error("[fix]\nallowed_fixes = group\n  all\n",
                       "t.conf:3: [fix] allowed_fixes: \"all\" stands alone; it cannot be combined with other fixes");
    parse_ok("[fix]\nallowed_fixes = group ; comment\n  udev\n[check] # comment\nlevel = 2\n", &c);
    g_assert_cmpuint(strv_length(c.allowed_fixes), ==, 2);
    g_assert_cmpint(c.level, ==, 2);
    rd_config_free(&c);
    /* an indented key right after a section header is an ordinary key */
    parse_ok("[check]\n  level = 2\n", &c);
    g_assert_cmpint(c.level, ==, 2);
    rd_config_free(&c);
}

static void test_malformed_text(void)
{
    g_autofree char *long_value = g_strnfill(300, 'a');
    g_autofree char *text = g_strdup_printf("[check]\nlevel = 1\nusers = %s\n", long_value);
    assert_parse_error(text, "t.conf:3: line longer than 198 characters");

    rd_config c;
    rd_config_init(&c);
    _cleanup_free_ char *err = NULL;
    static const char nul[] = "[check]\nlevel = 2\0\n";
    g_assert_cmpint(rd_config_parse(&c, rd_test_config_ids(), "t.conf", nul, sizeof nul - 1, &err), ==, -EINVAL);
    g_assert_cmpstr(err, ==, "t.conf: contains a NUL byte; not a text file");
    g_assert_cmpint(c.level, ==, 1);
    rd_config_free(&c);
}

/* The shipped file documents every key with the code's default: with its
 * "#key = value" lines uncommented it must load to exactly rd_config_init. */
static void test_shipped_file(void)
{
    g_autofree char *path = g_build_filename(SOURCE_ROOT, "conf", "rocm-doctor.conf", NULL);
    g_autofree char *text = NULL;
    g_assert_true(g_file_get_contents(path, &text, NULL, NULL));

    /* as shipped (all commented) */
    rd_config c;
    _cleanup_free_ char *err = NULL;
    g_assert_cmpint(rd_config_load(rd_test_config_ids(), "/", path, &c, &err), ==, 0);
    _cleanup_free_ char *want = default_dump();
    _cleanup_free_ char *as_shipped = rd_config_dump(&c);
    g_assert_cmpstr(as_shipped, ==, want);
    rd_config_free(&c);

    GString *live = g_string_new(NULL);
    g_auto(GStrv) lines = g_strsplit(text, "\n", -1);
    GRegex *assignment = g_regex_new("^#([a-z_]+ =.*)$", 0, 0, NULL);
    unsigned n = 0;
    for (char **l = lines; *l; l++) {
        GMatchInfo *m = NULL;
        if (g_regex_match(assignment, *l, 0, &m)) {
            g_autofree char *a = g_match_info_fetch(m, 1);
            g_string_append_printf(live, "%s\n", a);
            n++;
        } else
            g_string_append_printf(live, "%s\n", *l);
        g_match_info_free(m);
    }
    g_regex_unref(assignment);
    rd_config_init(&c);
    g_assert_cmpint(rd_config_parse(&c, rd_test_config_ids(), path, live->str, live->len, &err), ==, 0);
    _cleanup_free_ char *got = rd_config_dump(&c);
    g_assert_cmpstr(got, ==, want);
    rd_config_free(&c);
    g_string_free(live, TRUE);

    /* every key is there (the parser refuses a key twice, so n counts keys) */
    g_auto(GStrv) dump_lines = g_strsplit(want, "\n", -1);
    unsigned keys = 0;
    for (char **l = dump_lines; *l; l++)
        if (**l && **l != '[')
            keys++;
    g_assert_cmpuint(n, ==, keys);
}

/* rocm-doctor.conf(5) describes every key. */
static void test_man_page(void)
{
    g_autofree char *path = g_build_filename(SOURCE_ROOT, "man", "rocm-doctor.conf.5.scd", NULL);
    g_autofree char *page = NULL;
    g_assert_true(g_file_get_contents(path, &page, NULL, NULL));
    _cleanup_free_ char *dump = default_dump();
    g_auto(GStrv) lines = g_strsplit(dump, "\n", -1);
    for (char **l = lines; *l; l++) {
        if (!**l)
            continue;
        g_autofree char *name = g_strndup(*l, strcspn(*l, " "));
        /* sections are "## [check]", keys "*name* = _value_" entries */
        g_autofree char *want = **l == '[' ? g_strdup_printf("## %s", name) : g_strdup_printf("*%s* =", name);
        if (!strstr(page, want))
            g_error("rocm-doctor.conf(5) lacks \"%s\"", want);
    }
}

/* allowed_fixes takes exactly the fix registry's ids and their options:
 * each alone and all together load, and the man page names each; an id
 * the registry lacks fails with the file and line. */
static void test_fix_ids_from_registry(void)
{
    _cleanup_strv_free_ char **ids = rd_fix_table_ids(&rd_fix_registry);
    size_t n = 0;
    for (size_t i = 0; i < rd_fix_registry.n_fixes; i++) {
        const rd_fix *x = rd_fix_registry.fixes[i];
        g_assert_cmpstr(ids[n++], ==, x->id);
        for (size_t j = 0; x->options && x->options[j]; j++)
            g_assert_cmpstr(ids[n++], ==, x->options[j]);
    }
    g_assert_null(ids[n]);
    g_assert_true(strv_contains(ids, "crb")); /* dnf's option, which fixes/rpm-repo.c reads */

    g_autofree char *path = g_build_filename(SOURCE_ROOT, "man", "rocm-doctor.conf.5.scd", NULL);
    g_autofree char *page = NULL;
    g_assert_true(g_file_get_contents(path, &page, NULL, NULL));
    const char *entry = strstr(page, "*allowed_fixes* =");
    g_assert_nonnull(entry);
    g_autofree char *text = g_strndup(entry, strstr(entry, "\n\n") - entry);
    rd_config c;
    for (char **id = ids; *id; id++) {
        g_autofree char *conf = g_strdup_printf("[fix]\nallowed_fixes = %s\n", *id);
        parse_ok(conf, &c);
        g_assert_cmpuint(strv_length(c.allowed_fixes), ==, 1);
        g_assert_cmpstr(c.allowed_fixes[0], ==, *id);
        rd_config_free(&c);
        g_autofree char *named = g_strdup_printf("*%s*", *id);
        if (!strstr(text, named))
            g_error("rocm-doctor.conf(5) does not list %s under allowed_fixes", named);
    }
    _cleanup_free_ char *all = strv_join(ids, " ");
    g_autofree char *conf = g_strdup_printf("[fix]\nallowed_fixes = %s\n", all);
    parse_ok(conf, &c);
    g_assert_cmpuint(strv_length(c.allowed_fixes), ==, n);
    rd_config_free(&c);

    _cleanup_free_ char *list = strv_join(ids, ", ");
    g_autofree char *want =
        g_strdup_printf("t.conf:3: [fix] allowed_fixes: \"rpm\" is not a fix (%s; or all, none)", list);
    assert_parse_error("[fix]\naccess_group = video\nallowed_fixes = dnf rpm\n", want);
}

/* ---- policy ---- */

static rd_findings sample_findings(void)
{
    rd_findings fs = { 0 };
    rd_finding *f = rd_finding_add(&fs, "kfd.no-access", RD_SEV_ERROR, NULL, "alice cannot open /dev/kfd");
    rd_finding_evidence(f, "/dev/kfd: mode 0660");
    rd_finding_remedy(f, "usermod");
    rd_finding_set_fix(f, "group");
    rd_finding_add(&fs, "pcie.link-degraded", RD_SEV_WARNING, "0000:03:00.0", "x4 of x16");
    rd_finding_add(&fs, "driver.nomodeset", RD_SEV_INFO, NULL, "nomodeset is on the kernel command line");
    return fs;
}

static const rd_finding *get(const rd_findings *fs, const char *id)
{
    return rd_findings_get(fs, id);
}

static void test_apply_count(void)
{
    rd_config c;
    rd_findings fs = { 0 };

    parse_ok("[check]\nexpected_gpus = 8\n", &c);
    rd_config_apply(&c, 7, &fs);
    g_assert_cmpuint(fs.n, ==, 1);
    const rd_finding *f = get(&fs, "gpu.count-mismatch");
    g_assert_nonnull(f);
    g_assert_cmpint(f->severity, ==, RD_SEV_ERROR);
    g_assert_cmpstr(f->summary, ==, "7 AMD GPUs visible, 8 expected");
    g_assert_cmpstr(f->evidence[0], ==, "expected_gpus = 8 (t.conf:2)");
    g_assert_cmpstr(f->evidence[1], ==, "found 7 AMD GPUs");
    g_assert_nonnull(strstr(f->remedy, "set expected_gpus = 7"));
    g_assert_cmpint(rd_findings_exit_status(&fs), ==, RD_EXIT_ERROR);
    rd_findings_free(&fs);

    rd_config_apply(&c, 0, &fs);
    f = get(&fs, "gpu.count-mismatch");
    g_assert_cmpstr(f->summary, ==, "0 AMD GPUs visible, 8 expected");
    g_assert_null(strstr(f->remedy, "set expected_gpus"));
    rd_findings_free(&fs);

    rd_config_apply(&c, 9, &fs);
    f = get(&fs, "gpu.count-mismatch");
    g_assert_cmpint(f->severity, ==, RD_SEV_INFO);
    g_assert_cmpstr(f->summary, ==, "9 AMD GPUs visible, 8 expected");
    g_assert_cmpint(rd_findings_exit_status(&fs), ==, RD_EXIT_OK);
    rd_findings_free(&fs);

    rd_config_apply(&c, 8, &fs);
    g_assert_cmpuint(fs.n, ==, 0);
    rd_config_free(&c);

    parse_ok("[check]\nexpected_gpus = 1\n", &c);
    rd_config_apply(&c, 0, &fs);
    g_assert_cmpstr(get(&fs, "gpu.count-mismatch")->summary, ==, "0 AMD GPUs visible, 1 expected");
    rd_findings_free(&fs);
    rd_config_free(&c);

    rd_config_init(&c); /* not set: never reported */
    rd_config_apply(&c, 0, &fs);
    g_assert_cmpuint(fs.n, ==, 0);
    rd_config_free(&c);
}

static void test_apply_policy(void)
{
    rd_config c;
    rd_findings fs = sample_findings();
    rd_config_init(&c);
    rd_config_apply(&c, 1, &fs); /* defaults change nothing */
    g_assert_cmpuint(fs.n, ==, 3);
    g_assert_cmpint(rd_findings_exit_status(&fs), ==, RD_EXIT_ERROR);
    rd_config_free(&c);

    parse_ok("[check]\nseverity = kfd.no-access:warning driver.nomodeset:error\n", &c);
    rd_config_apply(&c, 1, &fs);
    g_assert_cmpint(get(&fs, "kfd.no-access")->severity, ==, RD_SEV_WARNING);
    g_assert_cmpint(get(&fs, "driver.nomodeset")->severity, ==, RD_SEV_ERROR);
    g_assert_cmpint(get(&fs, "pcie.link-degraded")->severity, ==, RD_SEV_WARNING);
    rd_config_free(&c);
    rd_findings_free(&fs);

    fs = sample_findings();
    parse_ok("[check]\nignore = kfd.no-access driver.nomodeset gpu.count-mismatch\nexpected_gpus = 2\n"
             "severity = pcie.link-degraded:info\n",
             &c);
    rd_config_apply(&c, 1, &fs);
    g_assert_cmpuint(fs.n, ==, 1);
    g_assert_cmpstr(fs.items[0].id, ==, "pcie.link-degraded");
    g_assert_cmpstr(fs.items[0].gpu, ==, "0000:03:00.0");
    g_assert_cmpint(fs.items[0].severity, ==, RD_SEV_INFO);
    g_assert_cmpint(rd_findings_exit_status(&fs), ==, RD_EXIT_OK);
    rd_config_free(&c);
    rd_findings_free(&fs);

    /* a severity override reaches gpu.count-mismatch too */
    parse_ok("[check]\nexpected_gpus = 2\nseverity = gpu.count-mismatch:warning\n", &c);
    rd_config_apply(&c, 1, &fs);
    g_assert_cmpint(get(&fs, "gpu.count-mismatch")->severity, ==, RD_SEV_WARNING);
    g_assert_cmpint(rd_findings_exit_status(&fs), ==, RD_EXIT_WARNING);
    rd_config_free(&c);
    rd_findings_free(&fs);
}

/* A mirror value is a URL a shell, a sources file and a .repo file read as
 * one word; its credentials leave it at load and no message shows them. */
static void test_mirror(void)
{
    /* clang-format off */
    static const struct {
        const char *value, *error;
    } bad[] = {
        { "http://h/$(id)", "\"http://h/$(id)\" is not a URL: '$' has no place in a mirror's path (letters, digits, -._~/%+,=:@)" },
        { "http://h/`id`", "\"http://h/`id`\" is not a URL: '`' has no place in a mirror's path (letters, digits, -._~/%+,=:@)" },
        { "http://h/a;reboot", "\"http://h/a;reboot\" is not a URL: ';' has no place in a mirror's path (letters, digits, -._~/%+,=:@)" },
        { "http://h/a|sh", "\"http://h/a|sh\" is not a URL: '|' has no place in a mirror's path (letters, digits, -._~/%+,=:@)" },
        { "http://h/a'b", "\"http://h/a'b\" is not a URL: ''' has no place in a mirror's path (letters, digits, -._~/%+,=:@)" },
        { "http://h/a\"b", "\"http://h/a\"b\" is not a URL: '\"' has no place in a mirror's path (letters, digits, -._~/%+,=:@)" },
        { "http://h/a\tb", "a mirror URL holds no space or control character" },
        { "http://$(id)/radeon", "\"http://$(id)/radeon\" is not a URL: it names no host, or a host with characters a host name cannot have" },
        { "http:///radeon", "\"http:///radeon\" is not an http://, https:// or file:/// URL" },
        { "ftp://h/radeon", "\"ftp://h/radeon\" is not an http://, https:// or file:/// URL" },
        { "http://h:80x/radeon", "\"http://h:80x/radeon\" is not a URL: its port is not a number" },
        { "http://u;x:p@h/radeon", "\"http://u;x:*****@h/radeon\" is not a URL: its user and password may hold letters, digits and -._~+,=!* (others %-escaped)" },
        /* the password never in a message */
        { "http://u:SECRET@h/a;b", "\"http://u:*****@h/a;b\" is not a URL: ';' has no place in a mirror's path (letters, digits, -._~/%+,=:@)" },
        { "http://u:SECRET@h/radeon/", "\"http://u:*****@h/radeon/\" ends in '/': give the base without it, as https://repo.radeon.com" },
        { "http://u:a%20b@h/radeon", "the user or password of the mirror URL is empty or decodes to a space or control character" },
    };
    /* clang-format on */
    for (size_t i = 0; i < G_N_ELEMENTS(bad); i++) {
        _cleanup_free_ char *text = xasprintf("[repository]\n\nmirror = %s\n", bad[i].value);
        _cleanup_free_ char *want = xasprintf("t.conf:3: [repository] mirror: %s", bad[i].error);
        assert_parse_error(text, want);
    }
    rd_config c;
    parse_ok("[repository]\nmirror = https://mirror.example.com:8443/radeon-mirror/a_b~c%2Bd\n", &c);
    g_assert_cmpstr(c.mirror, ==, "https://mirror.example.com:8443/radeon-mirror/a_b~c%2Bd");
    g_assert_null(c.mirror_login);
    rd_config_free(&c);
    parse_ok("[repository]\nmirror = http://al%2Bice:S3cr%21t%40x@10.0.0.1:8080/radeon\n", &c);
    g_assert_cmpstr(c.mirror, ==, "http://10.0.0.1:8080/radeon");
    g_assert_cmpstr(c.mirror_login, ==, "al+ice");
    g_assert_cmpstr(c.mirror_secret, ==, "S3cr!t@x");
    _cleanup_free_ char *dump = rd_config_dump(&c);
    g_assert_null(strstr(dump, "S3cr"));
    rd_config_free(&c);
    /* a later file's empty value: back to AMD's server, without credentials */
    parse_ok("[repository]\nmirror = http://u:p@h/r\n", &c);
    g_assert_cmpstr(c.mirror_secret, ==, "p");
    _cleanup_free_ char *err = NULL;
    const char *reset = "[repository]\nmirror =\n";
    g_assert_cmpint(rd_config_parse(&c, rd_test_config_ids(), "u.conf", reset, strlen(reset), &err), ==, 0);
    g_assert_null(c.mirror);
    g_assert_null(c.mirror_secret);
    rd_config_free(&c);
    parse_ok("[repository]\nmirror = file:///srv/radeon\n", &c);
    g_assert_cmpstr(c.mirror, ==, "file:///srv/radeon");
    rd_config_free(&c);
}

static const rd_test_case tests[] = {
    { "/config/mirror", test_mirror },
    { "/config/unknown-section-and-key", test_unknown_section_and_key },
    { "/config/bad-values", test_bad_values },
    { "/config/comments-and-values", test_comments_and_values },
    { "/config/continuation", test_continuation },
    { "/config/malformed-text", test_malformed_text },
    { "/config/shipped-file", test_shipped_file },
    { "/config/man-page", test_man_page },
    { "/config/fix-ids-from-registry", test_fix_ids_from_registry },
    { "/config/apply-count", test_apply_count },
    { "/config/apply-policy", test_apply_policy },
};

int main(int argc, char **argv)
{
    rd_test_init(&argc, &argv, false);
#define FX(name, fn) RD_TEST_ADD_TMP("/config/" name, fn)
    FX("no-files", test_no_files);
    FX("precedence", test_precedence);
    FX("empty-value-resets", test_empty_value_resets);
    FX("error-names-file", test_error_names_file);
    FX("unreadable", test_unreadable);
    FX("symlink-stays-in-root", test_symlink_stays_in_root);
    FX("explicit-file", test_explicit_file);
    FX("duplicates", test_duplicates);
    rd_test_add_all(tests, G_N_ELEMENTS(tests));
    return g_test_run();
}
