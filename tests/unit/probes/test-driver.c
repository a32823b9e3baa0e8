/* SPDX-License-Identifier: MIT */
/* The driver probe's parsers: modprobe.d, the kernel command line and
 * /dev/kmsg records. */
#include <glib.h>

#include "driver.h"
#include "util.h"
#include "testlib.h"
#include "assess-lib.h"

static const char *const watched[] = { "amdgpu", "radeon", NULL };

typedef struct {
    rd_modprobe_line *l;
    size_t n;
} mp_lines;

static void mp_free(mp_lines *m)
{
    for (size_t i = 0; i < m->n; i++) {
        free(m->l[i].file);
        free(m->l[i].directive);
        free(m->l[i].module);
        free(m->l[i].args);
    }
    free(m->l);
    m->l = NULL;
    m->n = 0;
}

static void mp_parse(mp_lines *m, const char *text, const char *file)
{
    g_assert_cmpint(rd_modprobe_parse(text, file, watched, &m->l, &m->n), ==, 0);
}

static void assert_line(const rd_modprobe_line *l, const char *file, int64_t line, const char *directive,
                        const char *module, const char *args)
{
    g_assert_cmpstr(l->file, ==, file);
    g_assert_cmpint(l->line, ==, line);
    g_assert_cmpstr(l->directive, ==, directive);
    g_assert_cmpstr(l->module, ==, module);
    g_assert_cmpstr(l->args, ==, args);
}

static void test_modprobe_directives(void)
{
    mp_lines m = { 0 };
    mp_parse(&m,
             "# Blacklist the open driver, we use the vendor one\n" /* 1 */
             "blacklist amdgpu\n"                                   /* 2 */
             "blacklist nouveau\n"                                  /* 3 */
             "\n"                                                   /* 4 */
             "install amdgpu /bin/false\n"                          /* 5 */
             "options amdgpu si_support=1 cik_support=1\n"          /* 6 */
             "options radeon si_support=0\n"                        /* 7 */
             "blacklist amdgpu_foo\n"                               /* 8 */
             "blacklist amdgpuX\n"                                  /* 9 */
             "alias pci:v00001002d* amdgpu\n"                       /* 10 */
             "#blacklist amdgpu\n"                                  /* 11 */
             "   # blacklist radeon\n"                              /* 12 */
             "softdep amdgpu pre: amd_iommu_v2\n"                   /* 13 */
             "remove radeon /bin/true\n"                            /* 14 */
             "\tblacklist\tradeon   \n"                             /* 15 */
             "blacklist\n"                                          /* 16 */
             "options amdgpu\n",                                    /* 17 */
             "/etc/modprobe.d/blacklist.conf");
    g_assert_cmpuint(m.n, ==, 8);
    const char *f = "/etc/modprobe.d/blacklist.conf";
    assert_line(&m.l[0], f, 2, "blacklist", "amdgpu", "");
    assert_line(&m.l[1], f, 5, "install", "amdgpu", "/bin/false");
    assert_line(&m.l[2], f, 6, "options", "amdgpu", "si_support=1 cik_support=1");
    assert_line(&m.l[3], f, 7, "options", "radeon", "si_support=0");
    assert_line(&m.l[4], f, 13, "softdep", "amdgpu", "pre: amd_iommu_v2");
    assert_line(&m.l[5], f, 14, "remove", "radeon", "/bin/true");
    assert_line(&m.l[6], f, 15, "blacklist", "radeon", "");
    assert_line(&m.l[7], f, 17, "options", "amdgpu", "");
    mp_free(&m);
}

static void test_modprobe_appends(void)
{
    mp_lines m = { 0 };
    mp_parse(&m, "blacklist amdgpu\n", "/etc/modprobe.d/a.conf");
    mp_parse(&m, "\n\nblacklist radeon", "/usr/lib/modprobe.d/b.conf");
    g_assert_cmpuint(m.n, ==, 2);
    assert_line(&m.l[0], "/etc/modprobe.d/a.conf", 1, "blacklist", "amdgpu", "");
    assert_line(&m.l[1], "/usr/lib/modprobe.d/b.conf", 3, "blacklist", "radeon", "");
    mp_free(&m);
}

static void test_modprobe_continuation(void)
{
    mp_lines m = { 0 };
    mp_parse(&m,
             "options radeon si_support=0\n" /* 1 */
             "options amdgpu \\\n"           /* 2 */
             "si_support=1 \\\n"             /* 3 */
             "cik_support=1\n"               /* 4 */
             "blacklist \\\n"                /* 5 */
             "amdgpu\n"                      /* 6 */
             "blacklist amdgpu\n",           /* 7 */
             "/etc/modprobe.d/amdgpu.conf");
    g_assert_cmpuint(m.n, ==, 4);
    const char *f = "/etc/modprobe.d/amdgpu.conf";
    assert_line(&m.l[0], f, 1, "options", "radeon", "si_support=0");
    /* joined lines carry the first physical line's number; like kmod, the
     * backslash and the newline go and nothing takes their place */
    assert_line(&m.l[1], f, 2, "options", "amdgpu", "si_support=1 cik_support=1");
    assert_line(&m.l[2], f, 5, "blacklist", "amdgpu", "");
    /* numbering continues after a joined line */
    assert_line(&m.l[3], f, 7, "blacklist", "amdgpu", "");
    mp_free(&m);

    /* kmod joins without a space: "amd\\\ngpu" is amdgpu, and
     * "amdgpu\\\nx=1" names a module "amdgpux=1" */
    mp_parse(&m, "blacklist amd\\\ngpu\noptions amdgpu\\\nx=1\n", "join.conf");
    g_assert_cmpuint(m.n, ==, 1);
    assert_line(&m.l[0], "join.conf", 1, "blacklist", "amdgpu", "");
    mp_free(&m);

    /* a carriage return ends no word: "amdgpu\r" is another module */
    mp_parse(&m, "blacklist amdgpu\r\nblacklist amdgpu \r\ninstall amdgpu /bin/false\r\n", "crlf.conf");
    g_assert_cmpuint(m.n, ==, 2);
    assert_line(&m.l[0], "crlf.conf", 2, "blacklist", "amdgpu", "");
    assert_line(&m.l[1], "crlf.conf", 3, "install", "amdgpu", "/bin/false");
    mp_free(&m);

    /* a continuation at the end of the file ends the line */
    mp_parse(&m, "blacklist amdgpu \\", "x.conf");
    g_assert_cmpuint(m.n, ==, 1);
    assert_line(&m.l[0], "x.conf", 1, "blacklist", "amdgpu", "");
    mp_free(&m);

    mp_parse(&m, "blacklist amdgpu \\\n", "x.conf");
    g_assert_cmpuint(m.n, ==, 1);
    mp_free(&m);
}

static void test_modprobe_hostile(void)
{
    mp_lines m = { 0 };
    mp_parse(&m, "", "empty.conf");
    g_assert_cmpuint(m.n, ==, 0);
    g_assert_null(m.l);

    mp_parse(&m, "\\\n\\\n\\\n\\", "slashes.conf");
    g_assert_cmpuint(m.n, ==, 0);

    mp_parse(&m, "\xff\xfe amdgpu\nblacklist \xff\nblacklist amdgpu\xff\n", "bin.conf");
    g_assert_cmpuint(m.n, ==, 0);

    static const char with_nul[] = "blacklist radeon\n\0blacklist amdgpu\n";
    mp_parse(&m, with_nul, "nul.conf");
    g_assert_cmpuint(m.n, ==, 1);
    g_assert_cmpstr(m.l[0].module, ==, "radeon");
    mp_free(&m);

    /* 10000 continued lines become one logical line numbered 1 */
    GString *s = g_string_new("options amdgpu");
    for (int i = 0; i < 10000; i++)
        g_string_append(s, " \\\nx=1");
    g_string_append(s, "\nblacklist amdgpu\n");
    mp_parse(&m, s->str, "long.conf");
    g_string_free(s, TRUE);
    g_assert_cmpuint(m.n, ==, 2);
    g_assert_cmpint(m.l[0].line, ==, 1);
    g_assert_cmpstr(m.l[0].directive, ==, "options");
    g_assert_true(g_str_has_prefix(m.l[0].args, "x=1"));
    g_assert_true(g_str_has_suffix(m.l[0].args, "x=1"));
    assert_line(&m.l[1], "long.conf", 10002, "blacklist", "amdgpu", "");
    mp_free(&m);

    /* only the listed modules are reported */
    static const char *const only_radeon[] = { "radeon", NULL };
    g_assert_cmpint(rd_modprobe_parse("blacklist amdgpu\nblacklist radeon\n", "f", only_radeon, &m.l, &m.n), ==, 0);
    g_assert_cmpuint(m.n, ==, 1);
    g_assert_cmpstr(m.l[0].module, ==, "radeon");
    mp_free(&m);
}

static void assert_split(const char *cmdline, const char *const *expected)
{
    g_auto(GStrv) v = rd_cmdline_split(cmdline);
    g_assert_cmpuint(strv_length(v), ==, g_strv_length((char **)expected));
    for (size_t i = 0; expected[i]; i++)
        g_assert_cmpstr(v[i], ==, expected[i]);
}

static void test_cmdline_split(void)
{
    assert_split("BOOT_IMAGE=/vmlinuz-6.8.0-45-generic root=UUID=1234 ro quiet splash",
                 (const char *const[]){ "BOOT_IMAGE=/vmlinuz-6.8.0-45-generic", "root=UUID=1234", "ro", "quiet",
                                        "splash", NULL });
    assert_split("  a\t\tb\nc  ", (const char *const[]){ "a", "b", "c", NULL });
    assert_split("foo=\"a b\" bar", (const char *const[]){ "foo=a b", "bar", NULL });
    assert_split("\"quoted whole\" x", (const char *const[]){ "quoted whole", "x", NULL });
    /* an unterminated quote runs to the end, as in the kernel */
    assert_split("a=\"b c d", (const char *const[]){ "a=b c d", NULL });
    assert_split("a=\"\" b", (const char *const[]){ "a=", "b", NULL });

    g_auto(GStrv) empty = rd_cmdline_split("");
    g_assert_null(empty);
    g_auto(GStrv) blank = rd_cmdline_split("   \n");
    g_assert_null(blank);
    g_auto(GStrv) none = rd_cmdline_split(NULL);
    g_assert_null(none);
}

static void test_cmdline_parse(void)
{
    rd_cmdline_info ci;

    rd_cmdline_parse("BOOT_IMAGE=/vmlinuz ro quiet splash nomodeset", &ci);
    g_assert_true(ci.nomodeset);
    g_assert_false(ci.amdgpu_modeset_off);
    g_assert_null(ci.blacklist_tokens);
    rd_cmdline_info_free(&ci);

    rd_cmdline_parse("ro amdgpu.modeset=0", &ci);
    g_assert_false(ci.nomodeset);
    g_assert_true(ci.amdgpu_modeset_off);
    rd_cmdline_info_free(&ci);

    rd_cmdline_parse("amdgpu.modeset=1 radeon.modeset=0 amdgpu.modeset=00 nomodeset=1 xnomodeset", &ci);
    g_assert_false(ci.nomodeset);
    g_assert_false(ci.amdgpu_modeset_off);
    g_assert_null(ci.blacklist_tokens);
    rd_cmdline_info_free(&ci);

    rd_cmdline_parse("root=/dev/sda1 modprobe.blacklist=nouveau,amdgpu module_blacklist=amdgpu "
                     "rd.driver.blacklist=radeon,amdgpu,nouveau quiet",
                     &ci);
    g_assert_cmpuint(strv_length(ci.blacklist_tokens), ==, 3);
    g_assert_cmpstr(ci.blacklist_tokens[0], ==, "modprobe.blacklist=nouveau,amdgpu");
    g_assert_cmpstr(ci.blacklist_tokens[1], ==, "module_blacklist=amdgpu");
    g_assert_cmpstr(ci.blacklist_tokens[2], ==, "rd.driver.blacklist=radeon,amdgpu,nouveau");
    rd_cmdline_info_free(&ci);
    g_assert_null(ci.blacklist_tokens);

    rd_cmdline_parse("modprobe.blacklist=amdgpu2 modprobe.blacklist=xamdgpu module_blacklist=amdgpu_foo,radeon "
                     "rd.driver.blacklist= modprobe.blacklist=, modprobe.blacklist=nouveau amdgpu",
                     &ci);
    g_assert_null(ci.blacklist_tokens);
    rd_cmdline_info_free(&ci);

    /* quotes group and are dropped from the recorded token */
    rd_cmdline_parse("modprobe.blacklist=\"radeon,amdgpu\" foo=\"nomodeset bar\"", &ci);
    g_assert_false(ci.nomodeset);
    g_assert_cmpuint(strv_length(ci.blacklist_tokens), ==, 1);
    g_assert_cmpstr(ci.blacklist_tokens[0], ==, "modprobe.blacklist=radeon,amdgpu");
    rd_cmdline_info_free(&ci);

    rd_cmdline_parse(NULL, &ci);
    g_assert_false(ci.nomodeset);
    g_assert_null(ci.blacklist_tokens);
    rd_cmdline_info_free(&ci);

    rd_cmdline_parse("\xff\xfe nomodeset \x01", &ci);
    g_assert_true(ci.nomodeset);
    rd_cmdline_info_free(&ci);
}

static int kmsg(const char *rec, rd_kmsg_record *ret)
{
    return rd_kmsg_parse_record(rec, strlen(rec), ret);
}

static void test_kmsg_real(void)
{
    rd_kmsg_record r = { 0 };
    g_assert_cmpint(kmsg("4,1234,5678901,-;kfd kfd: amdgpu: skipped device 1002:67df, PCI rejects atomics 730<0", &r),
                    ==, 0);
    g_assert_cmpint(r.priority, ==, 4);
    g_assert_cmpuint(r.seq, ==, 1234);
    g_assert_cmpuint(r.usec, ==, 5678901);
    g_assert_cmpstr(r.text, ==, "kfd kfd: amdgpu: skipped device 1002:67df, PCI rejects atomics 730<0");
    g_free(r.text);

    /* the facility sits above the level: 14 is user.info */
    g_assert_cmpint(kmsg("14,2,3,-;hello", &r), ==, 0);
    g_assert_cmpint(r.priority, ==, 6);
    g_assert_cmpstr(r.text, ==, "hello");
    g_free(r.text);

    g_assert_cmpint(kmsg("3,877,9301123,c,caller=T1;amdgpu 0000:03:00.0: Fatal error during GPU init\n"
                         " SUBSYSTEM=pci\n DEVICE=+pci:0000:03:00.0\n",
                         &r),
                    ==, 0);
    g_assert_cmpint(r.priority, ==, 3);
    g_assert_cmpuint(r.seq, ==, 877);
    g_assert_cmpstr(r.text, ==, "amdgpu 0000:03:00.0: Fatal error during GPU init");
    g_free(r.text);

    /* flags are optional */
    g_assert_cmpint(kmsg("0,18446744073709551615,0;", &r), ==, 0);
    g_assert_cmpint(r.priority, ==, 0);
    g_assert_cmpuint(r.seq, ==, UINT64_MAX);
    g_assert_cmpstr(r.text, ==, "");
    g_free(r.text);
}

static void test_kmsg_text_cleaning(void)
{
    rd_kmsg_record r = { 0 };
    g_assert_cmpint(kmsg("6,1,2,-;tab\there\x1b[31m\x7f\xff end", &r), ==, 0);
    g_assert_cmpstr(r.text, ==, "tab?here?[31m?\xff end");
    g_free(r.text);

    /* the length bounds the record; the buffer need not be NUL-terminated */
    static const char buf[] = "6,1,2;hello world";
    g_assert_cmpint(rd_kmsg_parse_record(buf, 11, &r), ==, 0);
    g_assert_cmpstr(r.text, ==, "hello");
    g_free(r.text);

    static const char with_nul[] = "6,1,2;ab\0cd";
    g_assert_cmpint(rd_kmsg_parse_record(with_nul, sizeof with_nul - 1, &r), ==, 0);
    g_assert_cmpstr(r.text, ==, "ab");
    g_free(r.text);
}

static void test_kmsg_malformed(void)
{
    static const char *const bad[] = {
        "",
        "no semicolon at all",
        "6,1,2,-",
        ";text",
        "6;text",
        "6,1;text",
        "x,1,2,-;text",
        "6,y,2,-;text",
        "6,1,z,-;text",
        "-6,1,2,-;text",
        "6,-1,2,-;text",
        " 6,1,2,-;text",
        "6 ,1,2,-;text",
        "0x6,1,2,-;text",
        "99999999999999999999999,1,2,-;text",
        "\xff,1,2,-;text",
        " SUBSYSTEM=pci",
    };
    for (size_t i = 0; i < G_N_ELEMENTS(bad); i++) {
        rd_kmsg_record r = { .priority = 99, .text = NULL };
        g_autofree char *shown = g_strescape(bad[i], NULL);
        g_test_message("record %zu: %s", i, shown);
        g_assert_cmpint(kmsg(bad[i], &r), ==, -EINVAL);
        g_assert_cmpint(r.priority, ==, 99);
        g_assert_null(r.text);
    }

    /* a header over 128 bytes is not a kmsg header */
    g_autofree char *pad = g_strnfill(140, '0');
    g_autofree char *long_head = g_strconcat("6,1,", pad, ";text", NULL);
    rd_kmsg_record r = { 0 };
    g_assert_cmpint(kmsg(long_head, &r), ==, -EINVAL);

    /* the semicolon past len does not count */
    g_assert_cmpint(rd_kmsg_parse_record("6,1,2;x", 5, &r), ==, -EINVAL);
    g_assert_cmpint(rd_kmsg_parse_record("6,1,2;x", 0, &r), ==, -EINVAL);

    /* long text is kept whole */
    g_autofree char *body = g_strnfill(100000, 'a');
    g_autofree char *long_text = g_strconcat("6,1,2,-;", body, NULL);
    g_assert_cmpint(kmsg(long_text, &r), ==, 0);
    g_assert_cmpuint(strlen(r.text), ==, 100000);
    g_free(r.text);
}

static void test_kmsg_relevant(void)
{
    static const char *const yes[] = {
        "amdgpu 0000:03:00.0: amdgpu: SMU is initialized successfully!",
        "kfd kfd: amdgpu: added device 1002:744c",
        "[drm] radeon kernel modesetting enabled.",
        "[drm] Initialized simpledrm 1.0.0 20200625 for simple-framebuffer.0 on minor 0",
        "pcieport 0000:00:01.1: PCI rejects atomics",
        "PCIE atomic ops is not supported",
        "Direct firmware load for amdgpu/psp_13_0_0_sos.bin failed with error -2",
        "Loading of module with unavailable key is rejected; Key was rejected by service",
        "Command line: BOOT_IMAGE=/vmlinuz ro nomodeset",
        "pci 0000:03:00.0: BAR 0: assigned [mem 0x7000000000-0x77ffffffff 64bit pref]",
    };
    static const char *const no[] = {
        "usb 1-1: new high-speed USB device number 2 using xhci_hcd",
        "nouveau 0000:01:00.0: DRM: VRAM: 8192 MiB",
        "AMDGPU in upper case",
        "BARx",
        "",
        "\xff\xfe",
    };
    for (size_t i = 0; i < G_N_ELEMENTS(yes); i++)
        g_assert_true(rd_kmsg_relevant(yes[i]));
    for (size_t i = 0; i < G_N_ELEMENTS(no); i++)
        g_assert_false(rd_kmsg_relevant(no[i]));
}

/* ---- the assess rules, facts in, findings out (the whole probe table) ---- */

static void test_blacklisted_not_loaded(void)
{
    rd_facts f;
    navi31_host(&f, 0);
    add_modprobe(&f, "/etc/modprobe.d/blacklist-amdgpu.conf", 3, "blacklist", "amdgpu", "");
    add_modprobe(&f, "/etc/modprobe.d/amdgpu.conf", 1, "options", "amdgpu", "ppfeaturemask=0xffffffff");
    result r;
    assess(&f, &r);
    assert_ids(&r.fs, "driver.not-loaded driver.blacklisted");

    const rd_finding *nl = get(&r.fs, "driver.not-loaded");
    if (nl) {
        g_assert_cmpint(nl->severity, ==, RD_SEV_ERROR);
        g_assert_cmpstr(nl->summary, ==, "The amdgpu driver is not loaded: 1 AMD GPU without a driver");
        assert_n_evidence(nl, 2);
        assert_evidence(nl, 0, "/sys/module/amdgpu: absent");
        assert_evidence(nl, 1, NAVI31 " " NAVI31_NAME ": no driver bound");
        g_assert_cmpstr(nl->remedy, ==, "Remove what stops it (reported below), then reboot.");
    }
    const rd_finding *bl = get(&r.fs, "driver.blacklisted");
    if (bl) {
        g_assert_cmpint(bl->severity, ==, RD_SEV_ERROR);
        g_assert_cmpstr(bl->summary, ==, "amdgpu is blacklisted, so it does not load");
        assert_n_evidence(bl, 1);
        assert_evidence(bl, 0, "/etc/modprobe.d/blacklist-amdgpu.conf:3: blacklist amdgpu");
        g_assert_cmpstr(bl->remedy, ==,
                        "Delete line 3 of /etc/modprobe.d/blacklist-amdgpu.conf (keep a copy), then "
                        "`sudo update-initramfs -u` and reboot.");
        g_assert_cmpstr(bl->fix, ==, "modprobe");
    }
    g_assert_cmpint(rd_findings_exit_status(&r.fs), ==, RD_EXIT_ERROR);
    result_free(&r);
    rd_facts_free(&f);
}

static void test_blacklisted_install_false(void)
{
    rd_facts f;
    navi31_host(&f, 0);
    add_modprobe(&f, "/usr/lib/modprobe.d/gpu-operator.conf", 7, "install", "amdgpu", "/bin/false");
    add_modprobe(&f, "/etc/modprobe.d/x.conf", 2, "install", "amdgpu", "/sbin/modprobe --ignore-install amdgpu");
    result r;
    assess(&f, &r);
    assert_ids(&r.fs, "driver.not-loaded driver.blacklisted");
    const rd_finding *bl = get(&r.fs, "driver.blacklisted");
    assert_n_evidence(bl, 1);
    assert_evidence(bl, 0, "/usr/lib/modprobe.d/gpu-operator.conf:7: install amdgpu /bin/false");
    if (bl) {
        g_assert_true(g_str_has_prefix(bl->remedy, "/usr/lib/modprobe.d/gpu-operator.conf belongs to a package"));
        assert_contains(bl->remedy, "This blacklist looks deliberate");
    }
    result_free(&r);
    rd_facts_free(&f);
}

static void test_blacklisted_loaded(void)
{
    rd_facts f;
    navi31_host(&f, HEALTHY);
    add_modprobe(&f, "/etc/modprobe.d/blacklist.conf", 12, "blacklist", "amdgpu", "");
    add_modprobe(&f, "/etc/modprobe.d/blacklist.conf", 13, "blacklist", "radeon", "");
    result r;
    assess(&f, &r);
    assert_ids(&r.fs, "driver.blacklisted");
    const rd_finding *bl = get(&r.fs, "driver.blacklisted");
    if (bl) {
        g_assert_cmpint(bl->severity, ==, RD_SEV_WARNING);
        g_assert_cmpstr(bl->summary, ==, "amdgpu is blacklisted and will not load at the next boot");
        assert_n_evidence(bl, 1);
        assert_evidence(bl, 0, "/etc/modprobe.d/blacklist.conf:12: blacklist amdgpu");
    }
    g_assert_cmpint(rd_findings_exit_status(&r.fs), ==, RD_EXIT_WARNING);
    result_free(&r);
    rd_facts_free(&f);
}

static void test_blacklisted_cmdline(void)
{
    rd_facts f;
    navi31_host(&f, 0);
    free(f.driver.cmdline);
    f.driver.cmdline = xstrdup("BOOT_IMAGE=/vmlinuz ro modprobe.blacklist=nouveau,amdgpu quiet");
    result r;
    assess(&f, &r);
    assert_ids(&r.fs, "driver.not-loaded driver.blacklisted");
    const rd_finding *bl = get(&r.fs, "driver.blacklisted");
    if (bl) {
        g_assert_cmpstr(bl->summary, ==, "amdgpu is blacklisted on the kernel command line");
        assert_n_evidence(bl, 1);
        assert_evidence(bl, 0, "/proc/cmdline: modprobe.blacklist=nouveau,amdgpu");
        assert_contains(bl->remedy, "remove modprobe.blacklist=nouveau,amdgpu from GRUB_CMDLINE_LINUX");
    }
    result_free(&r);
    rd_facts_free(&f);
}

static void test_nomodeset(void)
{
    rd_facts f;
    navi31_host(&f, 0);
    free(f.driver.cmdline);
    f.driver.cmdline = xstrdup("BOOT_IMAGE=/vmlinuz-6.8.0-45-generic ro quiet splash nomodeset");
    result r;
    assess(&f, &r);
    assert_ids(&r.fs, "driver.not-loaded driver.nomodeset");
    const rd_finding *nm = get(&r.fs, "driver.nomodeset");
    if (nm) {
        g_assert_cmpint(nm->severity, ==, RD_SEV_ERROR);
        g_assert_cmpstr(nm->summary, ==, "nomodeset on the kernel command line keeps amdgpu from loading");
        assert_n_evidence(nm, 1);
        assert_evidence(nm, 0, "/proc/cmdline: BOOT_IMAGE=/vmlinuz-6.8.0-45-generic ro quiet splash nomodeset");
        assert_contains(nm->remedy, "remove nomodeset from GRUB_CMDLINE_LINUX and GRUB_CMDLINE_LINUX_DEFAULT");
    }
    g_assert_cmpint(rd_findings_exit_status(&r.fs), ==, RD_EXIT_ERROR);
    result_free(&r);
    rd_facts_free(&f);

    /* amdgpu.modeset=0 while the GPU is bound: a warning about the next boot */
    navi31_host(&f, HEALTHY);
    free(f.driver.cmdline);
    f.driver.cmdline = xstrdup("ro amdgpu.modeset=0");
    assess(&f, &r);
    assert_ids(&r.fs, "driver.nomodeset");
    nm = get(&r.fs, "driver.nomodeset");
    if (nm) {
        g_assert_cmpint(nm->severity, ==, RD_SEV_WARNING);
        g_assert_cmpstr(nm->summary, ==, "amdgpu.modeset=0 on the kernel command line keeps amdgpu from loading");
    }
    g_assert_cmpint(rd_findings_exit_status(&r.fs), ==, RD_EXIT_WARNING);
    result_free(&r);
    rd_facts_free(&f);
}

static void test_firmware_missing(void)
{
    rd_facts f;
    navi31_host(&f, WITH_ACCESS);
    f.driver.module_present = true;
    f.driver.initstate = xstrdup("live");
    free(f.os.id);
    f.os.id = xstrdup("debian");
    free(f.os.version_id);
    f.os.version_id = xstrdup("12");
    add_kmsg(&f, 6, "[drm] amdgpu kernel modesetting enabled.");
    add_kmsg(&f, 3, "amdgpu 0000:03:00.0: Direct firmware load for amdgpu/gc_11_0_0_pfp.bin failed with error -2");
    add_kmsg(&f, 3, "amdgpu 0000:03:00.0: amdgpu: Fatal error during GPU init");
    result r;
    assess(&f, &r);
    assert_ids(&r.fs, "gpu.no-driver driver.firmware-missing");
    const rd_finding *fw = get(&r.fs, "driver.firmware-missing");
    if (fw) {
        g_assert_cmpint(fw->severity, ==, RD_SEV_ERROR);
        assert_n_evidence(fw, 2);
        assert_evidence(fw, 0,
                        "kernel: amdgpu 0000:03:00.0: Direct firmware load for amdgpu/gc_11_0_0_pfp.bin failed "
                        "with error -2");
        assert_evidence(fw, 1, "kernel: amdgpu 0000:03:00.0: amdgpu: Fatal error during GPU init");
        assert_contains(fw->remedy, "`sudo apt install firmware-amd-graphics`");
    }
    const rd_finding *nd = get(&r.fs, "gpu.no-driver");
    if (nd) {
        assert_n_evidence(nd, 3);
        assert_evidence(nd, 0, "/sys/bus/pci/devices/0000:03:00.0/driver: absent");
    }
    g_assert_cmpint(rd_findings_exit_status(&r.fs), ==, RD_EXIT_ERROR);
    result_free(&r);

    /* Ubuntu gets linux-firmware */
    free(f.os.id);
    f.os.id = xstrdup("ubuntu");
    free(f.os.version_id);
    f.os.version_id = xstrdup("24.04");
    assess(&f, &r);
    fw = get(&r.fs, "driver.firmware-missing");
    if (fw)
        assert_contains(fw->remedy, "`sudo apt install linux-firmware`");
    result_free(&r);
    rd_facts_free(&f);
}

static const rd_test_case tests[] = {
    { "/driver/modprobe/directives", test_modprobe_directives },
    { "/driver/modprobe/appends", test_modprobe_appends },
    { "/driver/modprobe/continuation", test_modprobe_continuation },
    { "/driver/modprobe/hostile", test_modprobe_hostile },
    { "/driver/cmdline/split", test_cmdline_split },
    { "/driver/cmdline/parse", test_cmdline_parse },
    { "/driver/kmsg/real", test_kmsg_real },
    { "/driver/kmsg/text-cleaning", test_kmsg_text_cleaning },
    { "/driver/kmsg/malformed", test_kmsg_malformed },
    { "/driver/kmsg/relevant", test_kmsg_relevant },
    { "/assess/driver/blacklisted-not-loaded", test_blacklisted_not_loaded },
    { "/assess/driver/blacklisted-install-false", test_blacklisted_install_false },
    { "/assess/driver/blacklisted-loaded", test_blacklisted_loaded },
    { "/assess/driver/blacklisted-cmdline", test_blacklisted_cmdline },
    { "/assess/driver/nomodeset", test_nomodeset },
    { "/assess/driver/firmware-missing", test_firmware_missing },
};

RD_TEST_MAIN_KNOWLEDGE(tests, true, &knowledge)
