/* SPDX-License-Identifier: MIT */
/* daemon-state.c, the daemon's pure parts: event → probes, watched paths,
 * journal MESSAGE_ID and fields, the change of findings, the STATUS= line. */
#include <errno.h>
#include <unistd.h>
#include <glib.h>

#include "daemon.h"
#include "facts-json.h"
#include "probe.h"
#include "testlib.h"

static const char *props_lookup(void *userdata, const char *key)
{
    for (const char *const *p = userdata; p && *p; p++) {
        size_t n = strlen(key);
        if (strncmp(*p, key, n) == 0 && (*p)[n] == '=')
            return *p + n + 1;
    }
    return NULL;
}

static rd_probe_mask mask_of(const char *subsystem, const char *action, const char *const *props)
{
    return rd_daemon_uevent_mask(subsystem, action, props_lookup, (void *)props);
}

static rd_probe_mask bit(const char *id)
{
    rd_probe_mask m = rd_daemon_probes_by_id(id);
    g_assert_cmpuint(m, !=, 0);
    return m;
}

static void t_uevent_mask(void)
{
    const char *gpu[] = { "PCI_CLASS=30000", "PCI_ID=1002:744C", NULL };
    const char *mi300[] = { "PCI_CLASS=120000", "PCI_ID=1002:74A1", NULL };
    const char *audio[] = { "PCI_CLASS=40300", "PCI_ID=1002:AB30", NULL };
    const char *nic[] = { "PCI_CLASS=20000", "PCI_ID=8086:1533", NULL };
    const char *nvidia[] = { "PCI_CLASS=30200", "PCI_ID=10DE:2335", NULL };
    const char *amd_cpu_bridge[] = { "PCI_CLASS=60400", "PCI_ID=1022:1483", NULL };
    const char *hotplug[] = { "HOTPLUG=1", NULL };
    const char *reset[] = { "HOTPLUG=1", "RESET=1", NULL };
    const char *wedged[] = { "WEDGED=none", NULL };
    const char *none[] = { NULL };

    rd_probe_mask hw = mask_of("pci", "add", gpu);
    g_assert_cmpuint(hw, ==, rd_daemon_probes_by_id("pci drm kfd driver access apu container tuning health runtime"));
    g_assert_cmpuint(hw & bit("pci"), !=, 0);
    g_assert_cmpuint(hw & bit("access"), !=, 0);
    g_assert_cmpuint(hw & bit("os"), ==, 0);
    g_assert_cmpuint(hw & bit("apt"), ==, 0);
    g_assert_cmpuint(hw & RD_MASK_CONFIG, ==, 0);
    g_assert_cmpuint(mask_of("pci", "remove", mi300), ==, hw);
    g_assert_cmpuint(mask_of("pci", "bind", audio), ==, hw);
    /* a display device of another vendor can be the one that hides ours */
    g_assert_cmpuint(mask_of("pci", "add", nvidia), ==, hw);
    g_assert_cmpuint(mask_of("pci", "add", nic), ==, 0);
    g_assert_cmpuint(mask_of("pci", "change", amd_cpu_bridge), ==, 0);
    g_assert_cmpuint(mask_of("pci", "add", none), ==, 0);
    g_assert_cmpuint(mask_of("drm", "add", none), ==, hw);
    g_assert_cmpuint(mask_of("drm", "change", hotplug), ==, 0);
    g_assert_cmpuint(mask_of("drm", "change", reset), ==, hw);
    /* the DRM core's device-wedged event after a GPU reset: the health area */
    g_assert_cmpuint(mask_of("drm", "change", wedged), ==, rd_daemon_probes_by_id("health driver kfd access"));
    g_assert_cmpuint(mask_of("drm", "change", wedged) & bit("health"), !=, 0);
    g_assert_cmpuint(mask_of("drm", "remove", hotplug), ==, hw);
    g_assert_cmpuint(mask_of("kfd", "change", none), ==, hw);
    g_assert_cmpuint(mask_of("usb", "add", none), ==, 0);
    g_assert_cmpuint(mask_of(NULL, "add", none), ==, 0);
    g_assert_cmpuint(mask_of("drm", NULL, none), ==, 0);
}

static void t_probes_by_id(void)
{
    g_assert_cmpuint(rd_daemon_probes_by_id(""), ==, 0);
    g_assert_cmpuint(rd_daemon_probes_by_id("no-such-probe"), ==, 0);
    g_assert_cmpuint(rd_daemon_probes_by_id("pc"), ==, 0);
    g_assert_cmpuint(rd_daemon_probes_by_id("  pci  drm "), ==, bit("pci") | bit("drm"));
    for (size_t i = 0; i < rd_probe_registry.n_gather; i++)
        g_assert_cmpuint(rd_daemon_probes_by_id(rd_probe_registry.gather[i]->id), ==, (rd_probe_mask)1 << i);
    /* every watched path is read by a probe of the table or is the
     * configuration's, and each path is listed once */
    g_autofree rd_watch_spec *specs = NULL;
    size_t n_specs = rd_daemon_watch_specs(&specs);
    g_assert_cmpuint(n_specs, >=, 24);
    /* what the descriptors say, as the daemon had it in its own table */
    struct {
        const char *path;
        rd_probe_mask mask;
    } want[] = {
        { "/etc/passwd", bit("access") | bit("env") },
        { "/etc/group", bit("access") },
        { "/var/lib/dpkg/status", bit("rocm") | bit("apt") | bit("boot") | bit("torch") },
        { "/lib/modprobe.d", bit("driver") },
        { "/etc/apt/keyrings", bit("apt") },
        { "/etc/profile.d", bit("env") },
        { "/opt", bit("rocm") },
        { "/etc/os-release", bit("os") },
        { "/etc/rocm-doctor/conf.d", RD_MASK_CONFIG },
    };
    for (size_t w = 0; w < G_N_ELEMENTS(want); w++) {
        bool found = false;
        for (size_t i = 0; i < n_specs; i++)
            if (g_str_equal(specs[i].path, want[w].path)) {
                g_assert_cmpuint(specs[i].mask, ==, want[w].mask);
                found = true;
            }
        g_assert_true(found);
    }
    for (size_t i = 0; i < n_specs; i++) {
        g_assert_cmpuint(specs[i].mask, !=, 0);
        g_assert_true(specs[i].mask == RD_MASK_CONFIG || !(specs[i].mask & RD_MASK_CONFIG));
        for (size_t k = 0; k < i; k++)
            g_assert_false(g_str_equal(specs[i].path, specs[k].path));
    }
    /* every area in the areas table is an area of rd_facts */
    rd_facts f;
    rd_facts_init(&f);
    for (size_t i = 0; i < rd_probe_registry.n_gather; i++) {
        const char *const *a = rd_daemon_probe_areas(rd_probe_registry.gather[i]->id);
        for (; a && *a; a++)
            g_assert_cmpint(rd_facts_reset_area(&f, *a), ==, 0);
    }
    rd_facts_free(&f);
    g_assert_null(rd_daemon_probe_areas("no-such-probe"));
}

static void t_watch_matches(void)
{
    g_assert_true(rd_daemon_watch_matches("/etc/group", false, "/etc/group"));
    g_assert_false(rd_daemon_watch_matches("/etc/group", false, "/etc/group-"));
    g_assert_false(rd_daemon_watch_matches("/etc/group", false, "/etc/gshadow"));
    g_assert_false(rd_daemon_watch_matches("/etc/group", false, "/etc/group/x"));
    g_assert_true(rd_daemon_watch_matches("/etc/modprobe.d", true, "/etc/modprobe.d"));
    g_assert_true(rd_daemon_watch_matches("/etc/modprobe.d", true, "/etc/modprobe.d/blacklist.conf"));
    g_assert_false(rd_daemon_watch_matches("/etc/modprobe.d", true, "/etc/modprobe.d/sub/x.conf"));
    g_assert_false(rd_daemon_watch_matches("/etc/modprobe.d", true, "/etc/modprobe.dx"));
    g_assert_false(rd_daemon_watch_matches("/etc/modprobe.d", false, "/etc/modprobe.d/x.conf"));
    /* a directory above the target came or went */
    g_assert_true(rd_daemon_watch_matches("/etc/rocm-doctor/conf.d", true, "/etc/rocm-doctor"));
    g_assert_true(rd_daemon_watch_matches("/etc/apt/sources.list.d", true, "/etc/apt"));
    g_assert_false(rd_daemon_watch_matches("/etc/apt/sources.list.d", true, "/etc/ap"));
    /* under --root */
    g_assert_true(rd_daemon_watch_matches("/tmp/r/etc/environment", false, "/tmp/r/etc/environment"));
}

static void t_message_id(void)
{
    /* Values fixed by the definition in rocm-doctord(8): FNV-1a 128 of
     * "rocm-doctor:" + id, version 8 and variant bits set. Journal catalogs
     * and alerting rules depend on them: they must never change. */
    char mid[33];
    rd_daemon_message_id("gpu.none", mid);
    g_assert_cmpstr(mid, ==, "2bae04d072488f53bd6d67ba99908276");
    rd_daemon_message_id("driver.blacklisted", mid);
    g_assert_cmpstr(mid, ==, "69f425627f3b88b6a228b09265d69056");
    rd_daemon_message_id("kfd.no-access", mid);
    g_assert_cmpstr(mid, ==, "a8d259c10a408c10a5488ebed6fbe60d");
    rd_daemon_message_id("event:gpu-reset", mid);
    g_assert_cmpstr(mid, ==, "70e15eb5fdf38e2eb889e90c3b92bd5e");
    g_assert_cmpint(mid[12], ==, '8');
    rd_daemon_message_id("event:fix-verification", mid);
    g_assert_cmpstr(mid, ==, "421677117ace8da9a15e95ab75129e23");
}

static void add(rd_findings *fs, const char *id, rd_severity sev, const char *gpu)
{
    rd_finding_add(fs, id, sev, gpu, "summary of %s", id);
}

static char *field(char **v, const char *name)
{
    size_t n = strlen(name);
    for (; v && *v; v++)
        if (strncmp(*v, name, n) == 0 && (*v)[n] == '=')
            return *v + n + 1;
    return NULL;
}

static void t_diff_and_journal(void)
{
    rd_findings a = { 0 }, b = { 0 };
    add(&a, "gpu.none", RD_SEV_ERROR, NULL);
    add(&a, "pcie.link-degraded", RD_SEV_WARNING, "0000:03:00.0");
    add(&a, "pcie.link-degraded", RD_SEV_WARNING, "0000:83:00.0");
    add(&a, "runtime.kernel-ok", RD_SEV_OK, NULL); /* ok findings are not state */
    add(&b, "pcie.link-degraded", RD_SEV_ERROR, "0000:03:00.0");
    add(&b, "pcie.link-degraded", RD_SEV_WARNING, "0000:83:00.0");
    add(&b, "driver.blacklisted", RD_SEV_WARNING, NULL);
    rd_state sa, sb;
    rd_state_from_findings(&a, &sa);
    rd_state_from_findings(&b, &sb);
    g_assert_cmpuint(sa.n, ==, 3);
    rd_change *c;
    size_t n;
    rd_state_diff(&sa, &sb, &c, &n);
    g_assert_cmpuint(n, ==, 3);
    g_assert_cmpint(c[0].kind, ==, RD_CHANGE_SEVERITY);
    g_assert_cmpstr(c[0].item->gpu, ==, "0000:03:00.0");
    g_assert_cmpint(c[0].old_severity, ==, RD_SEV_WARNING);
    g_assert_cmpint(c[1].kind, ==, RD_CHANGE_APPEARED);
    g_assert_cmpstr(c[1].item->id, ==, "driver.blacklisted");
    g_assert_cmpint(c[2].kind, ==, RD_CHANGE_RESOLVED);
    g_assert_cmpstr(c[2].item->id, ==, "gpu.none");

    char **v = rd_daemon_journal_fields(&c[0]);
    g_assert_cmpstr(field(v, "MESSAGE"), ==,
                    "error (was warning) pcie.link-degraded on 0000:03:00.0: summary of pcie.link-degraded");
    g_assert_cmpstr(field(v, "PRIORITY"), ==, "3");
    g_assert_cmpstr(field(v, "ROCM_DOCTOR_FINDING"), ==, "pcie.link-degraded");
    g_assert_cmpstr(field(v, "ROCM_DOCTOR_CHANGE"), ==, "severity");
    g_assert_cmpstr(field(v, "ROCM_DOCTOR_SEVERITY"), ==, "error");
    g_assert_cmpstr(field(v, "ROCM_DOCTOR_PREVIOUS_SEVERITY"), ==, "warning");
    g_assert_cmpstr(field(v, "ROCM_DOCTOR_GPU"), ==, "0000:03:00.0");
    g_assert_cmpstr(field(v, "SYSLOG_IDENTIFIER"), ==, "rocm-doctord");
    char mid[33];
    rd_daemon_message_id("pcie.link-degraded", mid);
    g_assert_cmpstr(field(v, "MESSAGE_ID"), ==, mid);
    g_strfreev(v);

    v = rd_daemon_journal_fields(&c[1]);
    g_assert_cmpstr(field(v, "MESSAGE"), ==, "warning driver.blacklisted: summary of driver.blacklisted");
    g_assert_cmpstr(field(v, "PRIORITY"), ==, "4");
    g_assert_cmpstr(field(v, "ROCM_DOCTOR_CHANGE"), ==, "appeared");
    g_assert_null(field(v, "ROCM_DOCTOR_GPU"));
    g_assert_null(field(v, "ROCM_DOCTOR_PREVIOUS_SEVERITY"));
    g_strfreev(v);

    v = rd_daemon_journal_fields(&c[2]);
    g_assert_cmpstr(field(v, "MESSAGE"), ==, "resolved gpu.none: summary of gpu.none");
    g_assert_cmpstr(field(v, "PRIORITY"), ==, "6");
    g_assert_cmpstr(field(v, "ROCM_DOCTOR_CHANGE"), ==, "resolved");
    g_assert_cmpstr(field(v, "ROCM_DOCTOR_SEVERITY"), ==, "error");
    g_strfreev(v);
    free(c);

    /* no change: nothing */
    rd_state_diff(&sb, &sb, &c, &n);
    g_assert_cmpuint(n, ==, 0);
    free(c);

    rd_state_free(&sa);
    rd_state_free(&sb);
    rd_findings_free(&a);
    rd_findings_free(&b);
}

/* A fix run's verdict: its own MESSAGE_ID, priority by the verdict. */
static void t_verify_fields(void)
{
    char **v = rd_daemon_verify_fields("20261203-071535", true, "fix run 20261203-071535 verified: x fixed",
                                       "0d9c8b7a-6f5e-4d3c-8b2a-190817263544");
    g_assert_cmpstr(field(v, "MESSAGE"), ==, "fix run 20261203-071535 verified: x fixed");
    g_assert_cmpstr(field(v, "MESSAGE_ID"), ==, "421677117ace8da9a15e95ab75129e23");
    g_assert_cmpstr(field(v, "PRIORITY"), ==, "6");
    g_assert_cmpstr(field(v, "SYSLOG_IDENTIFIER"), ==, "rocm-doctord");
    g_assert_cmpstr(field(v, "ROCM_DOCTOR_FIX_RUN"), ==, "20261203-071535");
    g_assert_cmpstr(field(v, "ROCM_DOCTOR_VERIFICATION"), ==, "verified");
    g_assert_cmpstr(field(v, "ROCM_DOCTOR_BOOT_ID"), ==, "0d9c8b7a-6f5e-4d3c-8b2a-190817263544");
    strv_free(v);
    v = rd_daemon_verify_fields("20261203-071535", false, "m", NULL);
    g_assert_cmpstr(field(v, "PRIORITY"), ==, "3");
    g_assert_cmpstr(field(v, "ROCM_DOCTOR_VERIFICATION"), ==, "failed");
    g_assert_null(field(v, "ROCM_DOCTOR_BOOT_ID"));
    strv_free(v);
}

static void t_status_line(void)
{
    rd_findings fs = { 0 };
    char *s = rd_daemon_status_line(2, &fs);
    g_assert_cmpstr(s, ==, "2 GPUs, no problems");
    free(s);
    add(&fs, "tuning.numa-balancing", RD_SEV_INFO, NULL);
    add(&fs, "pcie.bar-small", RD_SEV_WARNING, NULL);
    s = rd_daemon_status_line(1, &fs);
    g_assert_cmpstr(s, ==, "1 GPU, 1 warning");
    free(s);
    add(&fs, "gpu.none", RD_SEV_ERROR, NULL);
    add(&fs, "pcie.link-degraded", RD_SEV_WARNING, NULL);
    s = rd_daemon_status_line(0, &fs);
    g_assert_cmpstr(s, ==, "0 GPUs, 1 error, 2 warnings");
    free(s);
    rd_findings_free(&fs);
}

/* clang-format off */
static const rd_test_case tests[] = {
    { "/daemon-state/uevent-mask", t_uevent_mask },
    { "/daemon-state/probes-by-id", t_probes_by_id },
    { "/daemon-state/watch-matches", t_watch_matches },
    { "/daemon-state/message-id", t_message_id },
    { "/daemon-state/diff-and-journal", t_diff_and_journal },
    { "/daemon-state/verify-fields", t_verify_fields },
    { "/daemon-state/status-line", t_status_line },
};
/* clang-format on */

RD_TEST_MAIN(tests, false)
