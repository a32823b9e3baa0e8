/* SPDX-License-Identifier: MIT */
/* src/core/distro.c: the distribution family of os-release's ID and
 * ID_LIKE, its name and its package manager. */
#include <glib.h>

#include "distro.h"
#include "testlib.h"
#include "assess-lib.h"

static void test_family(void)
{
    /* clang-format off */
    static const struct {
        const char *id, *like;
        rd_os_family want;
    } cases[] = {
        { "ubuntu", "debian", RD_OS_DEBIAN },     { "debian", NULL, RD_OS_DEBIAN },
        { "linuxmint", "ubuntu debian", RD_OS_DEBIAN }, { "pop", "ubuntu debian", RD_OS_DEBIAN },
        { "rhel", "fedora", RD_OS_RHEL },         { "rocky", "rhel centos fedora", RD_OS_RHEL },
        { "almalinux", "rhel centos fedora", RD_OS_RHEL }, { "ol", "fedora", RD_OS_RHEL },
        { "centos", "rhel fedora", RD_OS_RHEL },  { "fedora", NULL, RD_OS_FEDORA },
        { "sles", "suse", RD_OS_SUSE },           { "opensuse-leap", "suse opensuse", RD_OS_SUSE },
        { "someel", "rhel fedora", RD_OS_RHEL },  { "neon", "ubuntu debian", RD_OS_DEBIAN },
        { "arch", NULL, RD_OS_UNKNOWN },          { NULL, NULL, RD_OS_UNKNOWN },
        { "x", "  ", RD_OS_UNKNOWN },
    };
    /* clang-format on */
    for (size_t i = 0; i < G_N_ELEMENTS(cases); i++)
        g_assert_cmpint(rd_os_family_of(cases[i].id, cases[i].like), ==, cases[i].want);
    g_assert_cmpstr(rd_os_family_name(RD_OS_RHEL), ==, "rhel");
    g_assert_cmpstr(rd_os_family_name(RD_OS_UNKNOWN), ==, "unknown");
    g_assert_cmpstr(rd_os_package_manager(RD_OS_SUSE), ==, "zypper");
    g_assert_cmpstr(rd_os_package_manager(RD_OS_FEDORA), ==, "dnf");
    g_assert_null(rd_os_package_manager(RD_OS_UNKNOWN));
}

/* ---- the assess rules, facts in, findings out (the whole probe table) ---- */

/* ---- remedies in the host's own terms, per distribution family ---- */

typedef struct {
    const char *id, *id_like, *version_id;
    const char *firmware; /* in driver.firmware-missing's remedy */
    const char *cmdline;  /* in driver.nomodeset's remedy */
    const char *kernel;   /* in driver.kfd-unsupported's remedy */
    const char *const forbidden[12];
} distro_case;

/* clang-format off */
static const distro_case distro_cases[] = {
    { "debian", NULL, "12", "`sudo apt install firmware-amd-graphics`", "`sudo update-grub`", "backports",
      { "dnf", "zypper", "dracut", "grubby", "hwe", "grub2-mkconfig", NULL } },
    { "ubuntu", "debian", "22.04", "`sudo apt install linux-firmware`", "`sudo update-grub`",
      "linux-generic-hwe-22.04", { "dnf", "zypper", "dracut", "grubby", "grub2-mkconfig", "firmware-amd-graphics", NULL } },
    { "fedora", NULL, "41", "`sudo dnf install amd-gpu-firmware`", "grubby --update-kernel=ALL --remove-args",
      "`sudo dnf upgrade kernel`", { "apt ", "apt-", "zypper", "update-initramfs", "update-grub", "hwe", NULL } },
    { "rocky", "rhel centos fedora", "9.4", "`sudo dnf install linux-firmware`",
      "grubby --update-kernel=ALL --remove-args", "rhel 9.4 with kernel 5.14",
      { "apt ", "apt-", "zypper", "update-initramfs", "update-grub", "hwe", NULL } },
    { "sles", NULL, "15.6", "`sudo zypper install kernel-firmware-amdgpu`", "grub2-mkconfig", "sles 15.7",
      { "apt ", "apt-", "dnf", "update-initramfs", "update-grub", "hwe", "grubby", NULL } },
    { "nixos", NULL, "24.05", "/lib/firmware/amdgpu/navy_flounder_sos.bin", "boot loader's configuration",
      "a newer kernel the way this distribution provides one",
      { "apt ", "apt-", "dnf", "zypper", "update-initramfs", "update-grub", "hwe", "dracut", "grubby", NULL } },
};
/* clang-format on */

static void set_os(rd_facts *f, const distro_case *c)
{
    free(f->os.id);
    free(f->os.id_like);
    free(f->os.version_id);
    f->os.id = xstrdup(c->id);
    f->os.id_like = xstrdup_or_null(c->id_like);
    f->os.version_id = xstrdup(c->version_id);
}

static void assert_remedies_fit(const rd_findings *fs, const distro_case *c)
{
    for (size_t i = 0; i < fs->n; i++)
        for (size_t k = 0; c->forbidden[k]; k++)
            if (fs->items[i].remedy && strstr(fs->items[i].remedy, c->forbidden[k])) {
                g_test_message("%s on %s: \"%s\" names %s", fs->items[i].id, c->id, fs->items[i].remedy,
                               c->forbidden[k]);
                g_test_fail();
            }
}

static void test_remedies_per_distro(void)
{
    for (size_t i = 0; i < ELEMENTSOF(distro_cases); i++) {
        const distro_case *c = &distro_cases[i];
        result r;
        /* missing firmware (the NixOS report: navy_flounder_sos.bin) */
        rd_facts f;
        navi31_host(&f, WITH_ACCESS);
        set_os(&f, c);
        f.driver.module_present = true;
        f.driver.initstate = xstrdup("live");
        add_kmsg(&f, 3,
                 "amdgpu 0000:03:00.0: Direct firmware load for amdgpu/navy_flounder_sos.bin failed with error -2");
        add_modprobe(&f, "/etc/modprobe.d/blacklist-amdgpu.conf", 1, "blacklist", "amdgpu", "");
        free(f.driver.cmdline);
        f.driver.cmdline = xstrdup("BOOT_IMAGE=/vmlinuz ro quiet nomodeset");
        assess(&f, &r);
        const rd_finding *fw = get(&r.fs, "driver.firmware-missing");
        if (fw)
            assert_contains(fw->remedy, c->firmware);
        const rd_finding *nm = get(&r.fs, "driver.nomodeset");
        if (nm)
            assert_contains(nm->remedy, c->cmdline);
        const rd_finding *bl = get(&r.fs, "driver.blacklisted");
        if (bl)
            g_assert_cmpstr(bl->fix, ==, streq(c->id, "debian") || streq(c->id, "ubuntu") ? "modprobe" : NULL);
        assert_remedies_fit(&r.fs, c);
        result_free(&r);
        rd_facts_free(&f);

        /* a kernel whose KFD does not know the GPU */
        navi31_host(&f, WITH_DRIVER | WITH_ACCESS);
        set_os(&f, c);
        f.kfd.present = true;
        add_cpu_node(&f);
        assess(&f, &r);
        const rd_finding *ku = get(&r.fs, "driver.kfd-unsupported");
        g_assert_nonnull(ku);
        if (ku)
            assert_contains(ku->remedy, c->kernel);
        assert_remedies_fit(&r.fs, c);
        result_free(&r);
        rd_facts_free(&f);

        /* no ROCm runtime at level 2 */
        navi31_host(&f, HEALTHY);
        set_os(&f, c);
        f.runtime.ran = true;
        f.runtime.hsa_load_error = xstrdup("libhsa-runtime64.so.1: cannot open shared object file");
        assess(&f, &r);
        assert_remedies_fit(&r.fs, c);
        g_assert_true(rd_findings_has(&r.fs, "runtime.hsa-missing"));
        result_free(&r);
        rd_facts_free(&f);
    }
}

static void test_os_family(void)
{
    /* clang-format off */
    static const struct {
        const char *id, *like;
        rd_os_family want;
    } cases[] = {
        { "debian", NULL, RD_OS_DEBIAN },           { "ubuntu", "debian", RD_OS_DEBIAN },
        { "linuxmint", "ubuntu debian", RD_OS_DEBIAN }, { "pop", "ubuntu debian", RD_OS_DEBIAN },
        { "rhel", "fedora", RD_OS_RHEL },           { "rocky", "rhel centos fedora", RD_OS_RHEL },
        { "almalinux", "rhel centos fedora", RD_OS_RHEL }, { "ol", "fedora", RD_OS_RHEL },
        { "centos", "rhel fedora", RD_OS_RHEL },    { "fedora", NULL, RD_OS_FEDORA },
        { "nobara", "fedora", RD_OS_FEDORA },       { "sles", "suse", RD_OS_SUSE },
        { "opensuse-leap", "suse opensuse", RD_OS_SUSE }, { "opensuse-tumbleweed", "opensuse suse", RD_OS_SUSE },
        { "nixos", NULL, RD_OS_UNKNOWN },           { "arch", NULL, RD_OS_UNKNOWN },
        { NULL, NULL, RD_OS_UNKNOWN },
    };
    /* clang-format on */
    for (size_t i = 0; i < ELEMENTSOF(cases); i++)
        g_assert_cmpstr(rd_os_family_name(rd_os_family_of(cases[i].id, cases[i].like)), ==,
                        rd_os_family_name(cases[i].want));
}

static const rd_test_case tests[] = {
    { "/distro/family", test_family },
    { "/assess/distro/remedies", test_remedies_per_distro },
    { "/assess/distro/family", test_os_family },
};

RD_TEST_MAIN_KNOWLEDGE(tests, false, &knowledge)
