/* SPDX-License-Identifier: MIT */
/* explain: the shipped errors table, the loader's errors for malformed tables
 * (file and line), the matcher on every message users paste (case, log
 * noise, numeric codes, near misses), and the pure cause picker. */
#include <glib.h>
#include <glib/gstdio.h>

#include "explain.h"
#include "registry.h"
#include "check.h"
#include "probe.h"
#include "util.h"
#include "testlib.h"

/* The finding catalogue's ids (catalogue.def): every cause in
 * conf/errors.ini must be one of them, so a cause naming an id no check
 * reports fails. */
static const char **catalogue;

static const char **catalogue_ids(void)
{
    GPtrArray *ids = g_ptr_array_new();
    for (size_t k = 0; k < RD_N_FINDINGS; k++)
        g_ptr_array_add(ids, (gpointer)rd_finding_catalogue[k].id);
    g_ptr_array_add(ids, NULL);
    return (const char **)g_ptr_array_free(ids, FALSE);
}

static rd_error_table shipped;
static bool have_shipped;

static char *shipped_path(void)
{
    const char *dir = g_getenv("ROCM_DOCTOR_DATA_DIR");
    return dir ? g_build_filename(dir, "errors.ini", NULL) : NULL;
}

static void need_shipped(void)
{
    if (!have_shipped)
        g_test_skip("ROCM_DOCTOR_DATA_DIR is not set");
}

/* ---- the shipped table ---- */

static void test_shipped_table(void)
{
    g_autofree char *path = shipped_path();
    if (!path) {
        need_shipped();
        return;
    }
    rd_error_table t;
    g_autofree char *err = NULL;
    /* with the catalogue as the known ids: every cause is in it */
    int r = rd_error_table_load(path, catalogue, &t, &err);
    if (r < 0)
        g_test_message("%s", err);
    g_assert_cmpint(r, ==, 0);
    g_assert_null(err);
    g_assert_cmpstr(t.info.name, ==, "errors");
    g_assert_nonnull(t.info.version);
    g_assert_true(g_regex_match_simple("^[0-9]{4}-[0-9]{2}-[0-9]{2}$", t.info.date, 0, 0));
    g_assert_cmpuint(t.n_entries, >=, 20);
    for (size_t i = 0; i < t.n_entries; i++) {
        const rd_error_entry *e = &t.entries[i];
        g_assert_nonnull(e->title);
        g_assert_nonnull(e->meaning);
        g_assert_cmpuint(strv_length(e->causes), >=, 1);
        for (size_t k = 0; e->causes[k]; k++)
            g_assert_true(g_strv_contains(catalogue, e->causes[k]));
        /* an entry must recognise its own title */
        rd_error_matches m;
        rd_error_match_text(&t, e->title, &m);
        if (m.n != 1 || m.items[0].entry != e)
            g_test_message("title \"%s\" of [%s] matched %zu entries (first %s)", e->title, e->id, m.n,
                           m.n ? m.items[0].entry->id : "-");
        g_assert_cmpuint(m.n, ==, 1);
        g_assert_true(m.items[0].entry == e);
        rd_error_matches_free(&m);
    }
    rd_error_table_free(&t);
}

/* Causes the known failures give for a message (conf/errors.ini's sources), in the
 * order explain must weigh them where it matters: `before` must come before
 * `cause` in the entry's list (NULL: anywhere). */
typedef struct {
    const char *entry;
    const char *cause;
    const char *before;
} cause_case;

static const cause_case known_causes[] = {
    /* an override of another family, or a global one that reaches an iGPU */
    { "hsa-invalid-isa", "arch.override-wrong-family", "arch.no-kernels" },
    { "hsa-invalid-isa", "arch.override-global-with-igpu", NULL },
    { "illegal-instruction", "arch.override-wrong-family", NULL },
    { "illegal-instruction", "arch.override-global-with-igpu", NULL },
    /* visible-device variables that hide every GPU */
    { "hip-no-device", "env.visible-devices-hides-all", NULL },
    { "hip-invalid-device", "env.visible-devices-hides-all", NULL },
    { "no-hip-gpus", "env.visible-devices-hides-all", NULL },
    /* libhsakmt rejects a malformed override: hsa_init fails, HIP and PyTorch see no GPU */
    { "hsa-out-of-resources", "arch.override-invalid", NULL },
    { "hip-no-device", "arch.override-invalid", NULL },
    { "hip-invalid-device", "arch.override-invalid", NULL },
    { "no-hip-gpus", "arch.override-invalid", NULL },
    /* containers: devices not passed (the root cause of a missing /dev/kfd there), gids */
    { "kfd-missing", "container.devices-missing", "kfd.missing" },
    { "kfd-open-failed", "container.devices-missing", "kfd.missing" },
    { "hip-no-device", "container.devices-missing", "kfd.missing" },
    { "hsa-out-of-resources", "container.devices-missing", "kfd.missing" },
    { "render-open-failed", "container.devices-missing", NULL },
    { "kfd-open-failed", "container.gid-mismatch", NULL },
    { "render-open-failed", "container.gid-mismatch", NULL },
    { "hsa-out-of-resources", "container.gid-mismatch", NULL },
    { "container-gid", "container.gid-mismatch", "container.devices-missing" },
    /* an iGPU next to a dGPU */
    { "memory-access-fault", "apu.igpu-conflict", "runtime.kernel-failed" },
    { "hsa-invalid-isa", "apu.igpu-conflict", NULL },
    /* build targets and the installed PyTorch */
    { "no-binary-for-gpu", "env.pytorch-arch-mismatch", NULL },
    { "invalid-device-function", "env.pytorch-arch-mismatch", NULL },
    { "no-binary-for-gpu", "arch.no-kernels", NULL },
    { "no-hip-gpus", "arch.no-kernels", NULL },
    /* tuning */
    { "iommu-pt", "tuning.iommu-pt", NULL },
    /* apt: the key first (a keyring signed-by names but lacks, apt-key), then the source */
    { "apt-no-pubkey", "apt.key-missing", "apt.key-deprecated" },
    { "apt-no-pubkey", "apt.key-deprecated", "apt.repo-missing" },
    { "apt-no-pubkey", "apt.no-signed-by", "apt.repo-missing" },
    { "apt-no-release", "apt.suite-mismatch", "apt.repo-missing" },
    { "apt-no-release", "apt.repo-missing", NULL },
    { "apt-unmet-dependencies", "apt.suite-mismatch", "apt.pin-missing" },
    { "apt-unmet-dependencies", "apt.pin-missing", NULL },
    /* Secure Boot: the refusal is the root cause of the driver not being loaded */
    { "secure-boot-key-rejected", "driver.secure-boot-dkms", "driver.not-loaded" },
    /* a DKMS build that fails: the kernel newer than validated, or the wrong amdgpu-dkms */
    { "dkms-build-failed", "kernel.unsupported", "driver.not-loaded" },
    { "dkms-build-failed", "driver.userspace-mismatch", "driver.not-loaded" },
    { "rock-not-loaded", "kernel.unsupported", NULL },
    { "kfd-unsupported", "driver.kfd-unsupported", "kernel.unsupported" },
    /* no code for the GPU: the install lacks its kernels, the release does not support it */
    { "no-binary-for-gpu", "arch.unsupported", "rocm.multiple-versions" },
    { "invalid-device-function", "arch.no-kernels", "arch.override-wrong-family" },
    { "invalid-device-function", "arch.unsupported", NULL },
    { "rocblas-no-kernels", "arch.no-kernels", "rocm.multiple-versions" },
    { "rocblas-no-kernels", "arch.unsupported", NULL },
    { "hsa-invalid-isa", "arch.unsupported", NULL },
    { "no-binary-for-gpu", "rocm.multiple-versions", NULL },
    /* the installation and PATH */
    { "rocm-command-not-found", "rocm.not-installed", NULL },
    { "rocm-command-not-found", "path.rocm-bin-missing", NULL },
    { "rocm-lib-missing", "rocm.not-installed", "runtime.hsa-missing" },
    { "rocm-lib-missing", "runtime.hip-missing", NULL },
    /* level 2: what the runtime itself reports, after the level-1 causes behind it */
    { "hsa-out-of-resources", "kfd.no-access", "runtime.hsa-init-failed" },
    { "hsa-out-of-resources", "kfd.missing", "runtime.hsa-init-failed" },
    { "hip-no-device", "kfd.no-access", "runtime.no-device" },
    { "hip-no-device", "runtime.hsa-init-failed", NULL },
    { "memory-access-fault", "runtime.kernel-failed", NULL },
    { "gpu-hang", "tuning.iommu-pt", "runtime.kernel-timeout" },
};

static ssize_t cause_index(const rd_error_entry *e, const char *id)
{
    for (size_t k = 0; e->causes[k]; k++)
        if (streq(e->causes[k], id))
            return (ssize_t)k;
    return -1;
}

static void test_known_causes(void)
{
    need_shipped();
    if (!have_shipped)
        return;
    for (size_t i = 0; i < G_N_ELEMENTS(known_causes); i++) {
        const cause_case *c = &known_causes[i];
        const rd_error_entry *e = rd_error_table_get(&shipped, c->entry);
        if (!e)
            g_test_message("no entry [%s]", c->entry);
        g_assert_nonnull(e);
        ssize_t at = cause_index(e, c->cause);
        if (at < 0)
            g_test_message("[%s] does not list %s", c->entry, c->cause);
        g_assert_cmpint(at, >=, 0);
        if (c->before) {
            ssize_t later = cause_index(e, c->before);
            if (later >= 0 && later < at)
                g_test_message("[%s] lists %s before %s", c->entry, c->before, c->cause);
            g_assert_cmpint(later, >, at);
        }
    }
}

/* Findings no message of the table is known to come from: slow, not failing
 * (a degraded link, NUMA balancing, a lowered power cap), too permissive
 * (world-writable nodes), less of something without an error of its own
 * (VRAM a board lost), or no failure at all (a kernel that ran, a GPU the
 * build has no kernel for). */
static const char *const no_message[] = {
    "access.world-writable",   "pcie.link-degraded",   "tuning.numa-balancing",
    "gpu.power-capped",        "gpu.vram-missing",     "runtime.kernel-ok",
    "runtime.kernel-untested", "os.not-validated",     "facts.unreadable",
    "rpm.database-unreadable", "zypper.repo-invalid",  "tables.older-than-host",
    "tables.folder-unknown",   "rocm.release-moving",  "rocm.release-unsupported",
    "slurm.conf-invalid",      "slurm.conf-too-large", "slurm.grestypes-missing",
    "slurm.gres-type",         "slurm.gres-cores",     NULL,
};

/* Every finding a check can report is the cause of some message in the
 * table, or is known to cause none: a new check's findings must be placed. */
static void test_every_finding_placed(void)
{
    need_shipped();
    if (!have_shipped)
        return;
    size_t n_ids = 0;
    for (size_t i = 0; i < rd_probe_registry.n_gather; i++) {
        const rd_probe *p = rd_probe_registry.gather[i];
        for (size_t k = 0; p->findings && p->findings[k]; k++) {
            const char *id = p->findings[k];
            bool cause = false;
            for (size_t j = 0; j < shipped.n_entries && !cause; j++)
                cause = cause_index(&shipped.entries[j], id) >= 0;
            bool excused = g_strv_contains(no_message, id);
            if (cause == excused)
                g_test_message("%s (probe %s): %s", id, p->id,
                               cause ? "is a cause, yet listed as causing no message"
                                     : "is no cause of any message in errors.ini");
            g_assert_true(cause != excused);
            n_ids++;
        }
    }
    g_assert_cmpuint(n_ids, >=, 40);
    /* an excuse names a finding some check reports (no stale entries) */
    for (size_t k = 0; no_message[k]; k++) {
        bool reported = false;
        for (size_t i = 0; i < rd_probe_registry.n_gather && !reported; i++)
            reported = rd_probe_registry.gather[i]->findings &&
                       g_strv_contains((const char *const *)rd_probe_registry.gather[i]->findings, no_message[k]);
        if (!reported)
            g_test_message("%s is listed as causing no message, but no check reports it", no_message[k]);
        g_assert_true(reported);
    }
}

/* ---- malformed tables ---- */

static const char header[] = "[table]\nname = errors\nversion = 1\ndate = 2026-11-30\n\n";
static const char good_entry[] = "[hip-no-device]\ndomain = runtime\ntitle = hipErrorNoDevice\n"
                                 "pattern = hipErrorNoDevice\ncode = hip 100\nmeaning = No GPU.\n"
                                 "causes = gpu.none, kfd.no-access\n";

typedef struct {
    const char *name;
    const char *text; /* after the header unless it starts with '!' */
    bool with_catalogue;
    const char *error; /* expected text after "PATH" */
} bad_table;

/* clang-format off */
static const bad_table bad_tables[] = {
    { "unknown key", "[x-y]\ntitle = T\nmeening = oops\n", false, ":8: unknown key \"meening\" in [x-y]" },
    { "bad hip code", "[x-y]\ntitle = T\ncode = hip one hundred\n", false,
      ":8: code \"hip one hundred\" is not \"hip N\"" },
    { "hsa code not hex", "[x-y]\ntitle = T\ncode = hsa 4104\n", false, ":8: code \"hsa 4104\" is not" },
    { "unknown code space", "[x-y]\ntitle = T\ncode = cuda 100\n", false, ":8: code \"cuda 100\" is not" },
    { "code listed twice", "[a-b]\ntitle = A\ncode = hip 100\n[c-d]\ntitle = C\ncode = hip 100\n", false,
      ":11: code \"hip 100\" is already listed in [a-b]" },
    { "duplicate section",
      "[a-b]\ntitle = A\npattern = alpha beta\nmeaning = m\ncauses = gpu.none\n[c-d]\ntitle = C\n[a-b]\nmeaning = x\n",
      false, ":14: section [a-b] appears twice" },
    { "bad section name", "[Hip No]\ntitle = T\n", false, ":7: section [Hip No]: names are lower-case" },
    { "cause not an id", "[x-y]\ntitle = T\ncauses = gpu.none, kfd no access\n", false,
      ":8: cause \"kfd no access\" is not a finding id" },
    { "cause unknown to the catalogue", "[x-y]\ntitle = T\ncauses = gpu.none, gpu.nonexistent\n", true,
      ":8: cause \"gpu.nonexistent\" is not a known finding id" },
    { "cause twice", "[x-y]\ntitle = T\ncauses = gpu.none\ncauses = kfd.missing, gpu.none\n", false,
      ":9: cause gpu.none is listed twice in [x-y]" },
    { "pattern too short", "[x-y]\ntitle = T\npattern = a *\n", false, ":8: pattern \"a *\" is too short" },
    { "pattern starts with a wildcard", "[x-y]\ntitle = T\npattern = *rejects atomics\n", false,
      ":8: pattern \"*rejects atomics\" starts with '*'" },
    { "two titles", "[x-y]\ntitle = T\ntitle = U\n", false, ":8: [x-y] has two titles" },
    { "no meaning", "[x-y]\ntitle = T\npattern = alpha beta\ncauses = gpu.none\n", false,
      ":6: [x-y] needs a meaning" },
    { "no causes", "[x-y]\ntitle = T\npattern = alpha beta\nmeaning = m\n", false, ":6: [x-y] needs causes" },
    { "no domain", "[x-y]\ntitle = T\npattern = alpha beta\nmeaning = m\ncauses = gpu.none\n", false,
      ":6: [x-y] needs a domain (runtime, packages, kernel, python or container)" },
    { "unknown domain", "[x-y]\ndomain = hardware\n", false,
      ":7: domain \"hardware\" is not runtime, packages, kernel, python or container" },
    { "two domains", "[x-y]\ndomain = runtime\ndomain = kernel\n", false, ":8: [x-y] has two domains" },
    { "no pattern or code", "[x-y]\ntitle = T\nmeaning = m\ncauses = gpu.none\n", false,
      ":6: [x-y] needs a pattern or a code" },
    { "no title", "[x-y]\npattern = alpha beta\nmeaning = m\ncauses = gpu.none\n", false,
      ":6: [x-y] needs a title" },
    { "syntax error", "[x-y]\ntitle = T\nthis line has no equals sign\n", false,
      ":8: syntax error (expected [section] or key = value)" },
    { "unknown key in [table]", "!" "[table]\nname = errors\nowner = me\n", false,
      ":3: unknown key \"owner\" in [table]" },
    { "another table", "!" "[table]\nname = archs\n", false, ":2: this is the errors table, not \"archs\"" },
    { "no date", "!" "[table]\nname = errors\nversion = 1\n[x-y]\ntitle = T\npattern = alpha beta\nmeaning = m\n"
                 "causes = gpu.none\n", false, ": the [table] section must state name, version and date" },
    { "no entries", "", false, ": no errors are listed" },
    { "info cause not a cause", "[x-y]\ntitle = T\ncauses = gpu.none\ninfo-causes = kfd.missing\n", false,
      ":9: info cause \"kfd.missing\" is not among the causes of [x-y] listed before it" },
    { "info cause before causes", "[x-y]\ntitle = T\ninfo-causes = gpu.none\ncauses = gpu.none\n", false,
      ":8: info cause \"gpu.none\" is not among the causes" },
    { "info cause twice", "[x-y]\ntitle = T\ncauses = gpu.none\ninfo-causes = gpu.none, gpu.none\n", false,
      ":9: info cause gpu.none is listed twice in [x-y]" },
};
/* clang-format on */

static char *write_table(const char *text)
{
    g_autofree char *dir = g_dir_make_tmp("rd-explain-XXXXXX", NULL);
    g_assert_nonnull(dir);
    char *path = g_build_filename(dir, "errors.ini", NULL);
    g_autofree char *full = text[0] == '!' ? g_strdup(text + 1) : g_strconcat(header, text, NULL);
    g_assert_true(g_file_set_contents(path, full, -1, NULL));
    return path;
}

static void remove_table(const char *path)
{
    g_autofree char *dir = g_path_get_dirname(path);
    g_unlink(path);
    g_rmdir(dir);
}

static void test_bad_table(gconstpointer data)
{
    const bad_table *b = data;
    g_autofree char *path = write_table(b->text);
    rd_error_table t = { 0 };
    g_autofree char *err = NULL;
    g_assert_cmpint(rd_error_table_load(path, b->with_catalogue ? catalogue : NULL, &t, &err), ==, -EINVAL);
    g_assert_nonnull(err);
    g_autofree char *expected = g_strconcat(path, b->error, NULL);
    if (!g_str_has_prefix(err, expected))
        g_test_message("got: %s\nexpected: %s...", err, expected);
    g_assert_true(g_str_has_prefix(err, expected));
    g_assert_null(t.entries); /* nothing half-loaded is handed back */
    remove_table(path);
}

static void test_good_small_table(void)
{
    g_autofree char *path = write_table(good_entry);
    rd_error_table t;
    g_autofree char *err = NULL;
    g_assert_cmpint(rd_error_table_load(path, catalogue, &t, &err), ==, 0);
    g_assert_cmpuint(t.n_entries, ==, 1);
    g_assert_cmpstr(t.entries[0].id, ==, "hip-no-device");
    g_assert_cmpuint(t.entries[0].line, ==, 6);
    g_assert_cmpuint(t.entries[0].n_codes, ==, 1);
    g_assert_cmpint(t.entries[0].codes[0].space, ==, RD_CODE_HIP);
    g_assert_cmpuint(t.entries[0].codes[0].value, ==, 100);
    g_assert_cmpstr(t.entries[0].causes[0], ==, "gpu.none");
    g_assert_cmpstr(t.entries[0].causes[1], ==, "kfd.no-access");
    g_assert_null(t.entries[0].causes[2]);
    rd_error_table_free(&t);
    remove_table(path);
}

static void test_repeated_meaning_joined(void)
{
    g_autofree char *path =
        write_table("[x-y]\ndomain = runtime\ntitle = T\npattern = alpha beta\nmeaning = first part,\n"
                    "meaning = second part.\ncauses = gpu.none\ncode = hsa 0x1008\n");
    rd_error_table t;
    g_autofree char *err = NULL;
    g_assert_cmpint(rd_error_table_load(path, NULL, &t, &err), ==, 0);
    g_assert_cmpstr(t.entries[0].meaning, ==, "first part, second part.");
    g_assert_cmpint(t.entries[0].codes[0].space, ==, RD_CODE_HSA);
    g_assert_cmpuint(t.entries[0].codes[0].value, ==, 0x1008);
    rd_error_table_free(&t);
    remove_table(path);
}

static void test_long_line(void)
{
    g_autofree char *meaning = g_strnfill(300, 'x');
    g_autofree char *text = g_strdup_printf("[x-y]\ntitle = T\nmeaning = %s\n", meaning);
    g_autofree char *path = write_table(text);
    rd_error_table t = { 0 };
    g_autofree char *err = NULL;
    g_assert_cmpint(rd_error_table_load(path, NULL, &t, &err), ==, -EINVAL);
    g_autofree char *expected = g_strconcat(path, ":8: line longer than", NULL);
    g_assert_true(g_str_has_prefix(err, expected));
    remove_table(path);
}

static void test_missing_file(void)
{
    rd_error_table t = { 0 };
    g_autofree char *err = NULL;
    g_assert_cmpint(rd_error_table_load("/nonexistent/errors.ini", NULL, &t, &err), ==, -ENOENT);
    g_assert_cmpstr(err, ==, "/nonexistent/errors.ini: No such file or directory");
}

/* ---- matching ---- */

typedef struct {
    const char *text;
    const char *entry; /* expected entry id; NULL: no match */
} match_case;

/* Every message of the issue and of the failure catalogue, as pasted. */
/* clang-format off */
static const match_case listed[] = {
    { "hipErrorNoDevice", "hip-no-device" },
    { "HIP_ERROR_NoDevice", "hip-no-device" },
    { "HIP_ERROR_InvalidDevice", "hip-invalid-device" },
    { "HIP_ERROR_ILLEGAL_INSTRUCTION", "illegal-instruction" },
    { "HSA_STATUS_ERROR_OUT_OF_RESOURCES", "hsa-out-of-resources" },
    { "HSA_STATUS_ERROR_INVALID_ISA", "hsa-invalid-isa" },
    { "hipErrorNoBinaryForGpu", "no-binary-for-gpu" },
    { "No HIP GPUs are available", "no-hip-gpus" },
    { "invalid device function", "invalid-device-function" },
    { "Unable to open /dev/kfd read-write: Permission denied", "kfd-open-failed" },
    { "Failed to open /dev/dri/renderD128", "render-open-failed" },
    { "PCI rejects atomics", "pci-atomics" },
    { "NO_PUBKEY 9386B48A1A693C5C", "apt-no-pubkey" },
    { "Key was rejected by service", "secure-boot-key-rejected" },
    /* the rest of the failure catalogue */
    { "ROCk module is NOT loaded, possibly no GPU devices", "rock-not-loaded" },
    { "ERROR:root:Driver not initialized (amdgpu not found in modules)", "rock-not-loaded" },
    { "docker: Error response from daemon: error gathering device information while adding custom device "
      "\"/dev/kfd\": no such file or directory.", "kfd-missing" },
    { "Unable to open /dev/kfd read-write: No such file or directory", "kfd-missing" },
    { "groups: cannot find name for group ID 993", "container-gid" },
    { "Error! Bad return status for module build on kernel: 6.11.0-9-generic (x86_64)", "dkms-build-failed" },
    { "kfd kfd: amdgpu: skipped device 1002:67df, PCI rejects atomics 730<0", "pci-atomics" },
    { "kfd kfd: amdgpu: PCIE atomic ops is not supported", "pci-atomics" },
    { "pci 0000:03:00.0: BAR 0: no space for [mem size 0x800000000 64bit pref]", "bar-no-space" },
    { "amdgpu 0000:03:00.0: Direct firmware load for amdgpu/gc_11_0_0_mes.bin failed with error -2",
      "firmware-load-failed" },
    { "amdgpu 0000:03:00.0: amdgpu: Fatal error during GPU init", "firmware-load-failed" },
    { "Memory access fault by GPU node-1 (Agent handle: 0x55d0c0e0) on address 0x7f0000. Reason: Page not present",
      "memory-access-fault" },
    { "hipErrorInvalidDeviceFunction", "invalid-device-function" },
    { "rocBLAS error: Cannot read /opt/rocm/lib/rocblas/library/TensileLibrary.dat: No such file or directory",
      "rocblas-no-kernels" },
    { "HSA_STATUS_ERROR_INVALID_ISA_NAME", "hsa-invalid-isa" },
    { "NCCL WARN Missing \"iommu=pt\" from kernel command line which can lead to system instablity or hang!",
      "iommu-pt" },
    { "bash: rocminfo: command not found", "rocm-command-not-found" },
    { "amdgpu: GC IP 0b0001 not supported in kfd", "kfd-unsupported" },
    { "modprobe: ERROR: could not insert 'amdgpu': Key was rejected by service", "secure-boot-key-rejected" },
    { "E: The repository 'https://repo.radeon.com/rocm/apt/6.2 ubuntu Release' does not have a Release file.",
      "apt-no-release" },
    { "torch.cuda.is_available() returns False", "no-hip-gpus" },
    { "HSA_STATUS_ERROR_ILLEGAL_INSTRUCTION: The agent attempted to execute an illegal shader instruction. code: 0x2a",
      "illegal-instruction" },
    { "error: 'hipErrorNoDevice'(100) at square.cpp:61", "hip-no-device" },
    { "no ROCm-capable device is detected", "hip-no-device" },
    /* messages whose causes the install, apt and runtime checks report */
    { "The following packages have unmet dependencies:\n rocm-llvm : Depends: python but it is not installable",
      "apt-unmet-dependencies" },
    { "E: Unable to correct problems, you have held broken packages.", "apt-unmet-dependencies" },
    { "./saxpy: error while loading shared libraries: libamdhip64.so.6: cannot open shared object file: "
      "No such file or directory", "rocm-lib-missing" },
    { "OSError: libhsa-runtime64.so.1: cannot open shared object file: No such file or directory",
      "rocm-lib-missing" },
    { "libhiprtc.so: cannot open shared object file", "rocm-lib-missing" },
    { "HW Exception by GPU node-4 (Agent handle: 0x1ebc04e0) reason :GPU Hang", "gpu-hang" },
    { "hipcc: command not found", "rocm-command-not-found" },
    { "Error! Bad return status for module build on kernel: 6.11.0-19-generic (x86_64)\n"
      "Consult /var/lib/dkms/amdgpu/6.8.5-2041575.24.04/build/make.log for more information.",
      "dkms-build-failed" },
};
/* clang-format on */

/* Numeric codes and other spellings. */
static const match_case variants[] = {
    { "hipError 100", "hip-no-device" },
    { "hipGetDeviceCount returned 100", "hip-no-device" },
    { "HIP error 101", "hip-invalid-device" },
    { "hip error code: 209", "no-binary-for-gpu" },
    { "hipModuleLaunchKernel failed with 98", "invalid-device-function" },
    { "hsa_init failed: 0x1008", "hsa-out-of-resources" },
    { "rocminfo: hsa api call failure, status 0X1008", "hsa-out-of-resources" },
    { "status 0x00001008", "hsa-out-of-resources" },
    { "hsa_executable_load_agent_code_object returned 0x100F", "hsa-invalid-isa" },
    { "hsa queue error 0x2a", "illegal-instruction" },
    { "hip_error_no_device", "hip-no-device" },
    { "HIPERRORNODEVICE", "hip-no-device" },
    { "Failed   to\topen\n/dev/dri/renderD129", "render-open-failed" },
    { "/dev/dri/renderD128: Permission denied", "render-open-failed" },
    { "open /dev/kfd: permission denied", "kfd-open-failed" },
    { "RuntimeError: No HIP GPUs are available", "no-hip-gpus" },
    { "W: GPG error: https://repo.radeon.com/rocm/apt/6.2 jammy InRelease: The following signatures couldn't "
      "be verified because the public key is not available: NO_PUBKEY 9386B48A1A693C5C",
      "apt-no-pubkey" },
};

/* Near misses: none of these may match anything. */
static const char *const non_matches[] = {
    "hipErrorNoDeviceFound",
    "hipErrorInvalidDevicePointer",
    "NO_PUBKEY 0123456789ABCDEF",
    "error 100",
    "2024-02-26 07:35:02.100 hip started",
    "hipcc version 5.2.21153",
    "code 0x2a",
    "HSA_STATUS_ERROR_OUT_OF_RESOURCESX",
    "PCI accepts atomics",
    "Failed to open /dev/dri/card0",
    "everything is fine",
    "rocm",
    "the TensileLib is fine",
    /* near misses of the messages listed first above */
    "hipErrorNoDevices",
    "HIP_ERROR_NoDeviceFound",
    "HIP_ERROR_InvalidDevicePointer",
    "HIP_ERROR_ILLEGAL_ADDRESS",
    "HSA_STATUS_ERROR_OUT_OF_REGISTERS",
    "HSA_STATUS_ERROR_INVALID_AGENT",
    "hipErrorNoBinary",
    "HIP GPUs are available",
    "invalid device functions",
    "Able to open /dev/kfd read-write",
    "Key was accepted by service",
    "The following packages have been kept back",
    "libfoo.so.1: cannot open shared object file",
    "libamdhip64.so.6 loaded from /opt/rocm/lib",
    "GPU hang detected",
    "NO_PUBKEY",
};

static void expect_match(const char *text, const char *entry)
{
    rd_error_matches m;
    rd_error_match_text(&shipped, text, &m);
    if (!entry) {
        if (m.n)
            g_test_message("\"%s\" matched [%s] by \"%s\"", text, m.items[0].entry->id, m.items[0].how);
        g_assert_cmpuint(m.n, ==, 0);
    } else {
        if (m.n != 1)
            g_test_message("\"%s\": %zu matches, expected [%s]%s%s", text, m.n, entry, m.n ? ", first " : "",
                           m.n ? m.items[0].entry->id : "");
        g_assert_cmpuint(m.n, ==, 1);
        g_assert_cmpstr(m.items[0].entry->id, ==, entry);
        g_assert_nonnull(m.items[0].how);
    }
    rd_error_matches_free(&m);
}

/* The text as is, in lower and upper case, and inside log noise. */
static void expect_match_all_forms(const char *text, const char *entry)
{
    expect_match(text, entry);
    g_autofree char *lower = g_ascii_strdown(text, -1);
    g_autofree char *upper = g_ascii_strup(text, -1);
    expect_match(lower, entry);
    expect_match(upper, entry);
    g_autofree char *noisy = g_strdup_printf("2026-11-30 10:12:13.456789: E pid 4242] RuntimeError: %s\n"
                                             "  at line 17 in train.py",
                                             text);
    expect_match(noisy, entry);
    g_autofree char *quoted = g_strdup_printf("[%s]", text);
    expect_match(quoted, entry);
}

static void test_match_listed(void)
{
    need_shipped();
    if (!have_shipped)
        return;
    for (size_t i = 0; i < G_N_ELEMENTS(listed); i++)
        expect_match_all_forms(listed[i].text, listed[i].entry);
}

static void test_match_variants(void)
{
    need_shipped();
    if (!have_shipped)
        return;
    for (size_t i = 0; i < G_N_ELEMENTS(variants); i++)
        expect_match(variants[i].text, variants[i].entry);
}

static void test_non_matches(void)
{
    need_shipped();
    if (!have_shipped)
        return;
    for (size_t i = 0; i < G_N_ELEMENTS(non_matches); i++) {
        expect_match(non_matches[i], NULL);
        g_autofree char *lower = g_ascii_strdown(non_matches[i], -1);
        expect_match(lower, NULL);
    }
}

static void test_match_several(void)
{
    need_shipped();
    if (!have_shipped)
        return;
    /* a pasted log: each message once, in the order they appear */
    const char *log = "ROCk module is loaded\n"
                      "Unable to open /dev/kfd read-write: Permission denied\n"
                      "hsa api call failure at: rocminfo.cc:1306\n"
                      "Call returned HSA_STATUS_ERROR_OUT_OF_RESOURCES: The runtime failed to allocate the "
                      "necessary resources.\n"
                      "RuntimeError: No HIP GPUs are available\n"
                      "and later again: hipErrorNoDevice, hipError 100, Permission denied on /dev/kfd\n";
    rd_error_matches m;
    rd_error_match_text(&shipped, log, &m);
    g_assert_cmpuint(m.n, ==, 4);
    g_assert_cmpstr(m.items[0].entry->id, ==, "kfd-open-failed");
    g_assert_cmpstr(m.items[1].entry->id, ==, "hsa-out-of-resources");
    g_assert_cmpstr(m.items[1].how, ==, "HSA_STATUS_ERROR_OUT_OF_RESOURCES");
    g_assert_cmpstr(m.items[2].entry->id, ==, "no-hip-gpus");
    g_assert_cmpstr(m.items[3].entry->id, ==, "hip-no-device");
    g_assert_cmpuint(m.items[0].start, <, m.items[1].start);
    rd_error_matches_free(&m);

    /* the numeric code alone says how it was recognised */
    rd_error_match_text(&shipped, "hipError 100", &m);
    g_assert_cmpuint(m.n, ==, 1);
    g_assert_cmpstr(m.items[0].how, ==, "HIP error 100");
    rd_error_matches_free(&m);
    rd_error_match_text(&shipped, "hsa_init: 0x1008", &m);
    g_assert_cmpstr(m.items[0].how, ==, "HSA status 0x1008");
    rd_error_matches_free(&m);
    /* a wildcard pattern is shown as the text it matched */
    rd_error_match_text(&shipped, "Failed to open /dev/dri/renderD130: EACCES", &m);
    g_assert_cmpstr(m.items[0].how, ==, "failed to open /dev/dri/renderd130:");
    rd_error_matches_free(&m);
}

static void test_normalize(void)
{
    g_autofree char *a = rd_error_normalize("  Failed\tto \"open\"\n /dev/dri/renderD128 ");
    g_assert_cmpstr(a, ==, "failed to open /dev/dri/renderd128");
    g_autofree char *b = rd_error_normalize("HIP_ERROR_NoDevice 'x' `y`");
    g_assert_cmpstr(b, ==, "hiperrornodevice x y");
    g_autofree char *c = rd_error_normalize(" \n\t ");
    g_assert_cmpstr(c, ==, "");
}

/* ---- picking causes (pure) ---- */

static rd_finding *add(rd_findings *fs, const char *id, rd_severity sev)
{
    return rd_finding_add(fs, id, sev, NULL, "synthetic %s", id);
}

/* For every listed message: its first cause present → picked, exit status
 * of its severity; absent (only unrelated findings, or the cause as info) →
 * nothing picked, exit 0. */
static void test_pick_listed(void)
{
    need_shipped();
    if (!have_shipped)
        return;
    for (size_t i = 0; i < G_N_ELEMENTS(listed); i++) {
        rd_error_matches m;
        rd_error_match_text(&shipped, listed[i].text, &m);
        g_assert_cmpuint(m.n, ==, 1);
        const rd_error_entry *e = m.items[0].entry;
        const char *cause = e->causes[0];
        /* an id that is no cause of this entry */
        const char *unrelated =
            strv_contains(e->causes, "pcie.link-degraded") ? "access.world-writable" : "pcie.link-degraded";
        g_assert_false(strv_contains(e->causes, unrelated));

        rd_findings present = { 0 };
        add(&present, unrelated, RD_SEV_ERROR);
        rd_finding *f = add(&present, cause, RD_SEV_ERROR);
        const rd_finding **picked = NULL;
        size_t n = rd_explain_pick(e, &present, &picked);
        g_assert_cmpuint(n, ==, 1);
        g_assert_true(picked[0] == f);
        g_assert_cmpint(rd_explain_exit_status(picked, n), ==, 2);
        free(picked);
        f->severity = RD_SEV_WARNING;
        n = rd_explain_pick(e, &present, &picked);
        g_assert_cmpuint(n, ==, 1);
        g_assert_cmpint(rd_explain_exit_status(picked, n), ==, 1);
        free(picked);
        rd_findings_free(&present);

        rd_findings absent = { 0 };
        add(&absent, unrelated, RD_SEV_ERROR);
        add(&absent, cause, RD_SEV_INFO); /* a note is no cause, unless the table says so */
        add(&absent, cause, RD_SEV_OK);   /* an ok finding never is */
        bool info_cause = strv_contains(e->info_causes, cause);
        n = rd_explain_pick(e, &absent, &picked);
        g_assert_cmpuint(n, ==, info_cause ? 1 : 0);
        g_assert_cmpint(rd_explain_exit_status(picked, n), ==, info_cause ? 1 : 0);
        free(picked);
        rd_findings_free(&absent);
        rd_error_matches_free(&m);
    }
}

static void test_pick_priority(void)
{
    need_shipped();
    if (!have_shipped)
        return;
    const rd_error_entry *e = rd_error_table_get(&shipped, "hip-no-device");
    g_assert_nonnull(e);
    rd_findings fs = { 0 };
    /* (rd_finding_add may move the array: compare by place, not pointer) */
    add(&fs, "kfd.no-access", RD_SEV_ERROR);
    add(&fs, "group.relogin-needed", RD_SEV_WARNING);
    add(&fs, "driver.blacklisted", RD_SEV_ERROR);
    add(&fs, "render.no-access", RD_SEV_ERROR);
    add(&fs, "pcie.link-degraded", RD_SEV_WARNING);
    const rd_finding **picked = NULL;
    size_t n = rd_explain_pick(e, &fs, &picked);
    g_assert_cmpuint(n, ==, 4);
    g_assert_true(picked[0] == &fs.items[2]); /* the table's order, not the report's */
    g_assert_true(picked[1] == &fs.items[1]);
    g_assert_true(picked[2] == &fs.items[0]);
    g_assert_true(picked[3] == &fs.items[3]);
    g_assert_cmpint(rd_explain_exit_status(picked, n), ==, 2);
    free(picked);
    rd_findings_free(&fs);

    /* two GPUs with the same finding: both */
    e = rd_error_table_get(&shipped, "pci-atomics");
    rd_finding_add(&fs, "pcie.atomics-missing", RD_SEV_ERROR, "0000:03:00.0", "a");
    rd_finding_add(&fs, "pcie.atomics-missing", RD_SEV_ERROR, "0000:43:00.0", "b");
    n = rd_explain_pick(e, &fs, &picked);
    g_assert_cmpuint(n, ==, 2);
    g_assert_cmpstr(picked[1]->gpu, ==, "0000:43:00.0");
    free(picked);
    rd_findings_free(&fs);
}

/* A DKMS build failure with several causes: the one that stops the build
 * first (no headers) comes first, whatever the report's order. */
static void test_pick_dkms_order(void)
{
    need_shipped();
    if (!have_shipped)
        return;
    const rd_error_entry *e = rd_error_table_get(&shipped, "dkms-build-failed");
    g_assert_nonnull(e);
    rd_findings fs = { 0 };
    add(&fs, "kernel.unsupported", RD_SEV_WARNING);
    add(&fs, "driver.not-loaded", RD_SEV_ERROR);
    add(&fs, "kernel.devel-missing", RD_SEV_ERROR);
    const rd_finding **picked = NULL;
    size_t n = rd_explain_pick(e, &fs, &picked);
    g_assert_cmpuint(n, ==, 3);
    g_assert_cmpstr(picked[0]->id, ==, "kernel.devel-missing");
    g_assert_cmpstr(picked[1]->id, ==, "kernel.unsupported");
    g_assert_cmpstr(picked[2]->id, ==, "driver.not-loaded");
    free(picked);
    rd_findings_free(&fs);
}

/* No AMD GPU: gpu.none answers every message, named by it or not. */
static void test_pick_no_gpu(void)
{
    need_shipped();
    if (!have_shipped)
        return;
    const rd_error_entry *e = rd_error_table_get(&shipped, "pci-atomics");
    g_assert_nonnull(e);
    g_assert_false(strv_contains(e->causes, "gpu.none"));
    rd_findings fs = { 0 };
    add(&fs, "os.not-validated", RD_SEV_INFO);
    add(&fs, "gpu.none", RD_SEV_ERROR);
    const rd_finding **picked = NULL;
    size_t n = rd_explain_pick(e, &fs, &picked);
    g_assert_cmpuint(n, ==, 1);
    g_assert_cmpstr(picked[0]->id, ==, "gpu.none");
    g_assert_cmpint(rd_explain_exit_status(picked, n), ==, 2);
    free(picked);
    /* an ok or info gpu.none is no answer */
    fs.items[1].severity = RD_SEV_INFO;
    n = rd_explain_pick(e, &fs, &picked);
    g_assert_cmpuint(n, ==, 0);
    free(picked);
    rd_findings_free(&fs);
}

/* An info cause: ROCm not installed where nothing asks for it is info in the
 * check, and still the answer to "rocminfo: command not found". */
static void test_pick_info_cause(void)
{
    need_shipped();
    if (!have_shipped)
        return;
    const rd_error_entry *e = rd_error_table_get(&shipped, "rocm-command-not-found");
    g_assert_nonnull(e);
    g_assert_true(strv_contains(e->info_causes, "rocm.not-installed"));
    g_assert_false(strv_contains(e->info_causes, "path.rocm-bin-missing"));
    rd_findings fs = { 0 };
    add(&fs, "path.rocm-bin-missing", RD_SEV_INFO); /* not an info cause: no */
    add(&fs, "rocm.not-installed", RD_SEV_INFO);
    const rd_finding **picked = NULL;
    size_t n = rd_explain_pick(e, &fs, &picked);
    g_assert_cmpuint(n, ==, 1);
    g_assert_true(picked[0] == &fs.items[1]);
    g_assert_cmpint(rd_explain_exit_status(picked, n), ==, 1);
    free(picked);
    rd_findings_free(&fs);
    /* every info cause of the shipped table is one of its entry's causes */
    for (size_t i = 0; i < shipped.n_entries; i++)
        for (size_t k = 0; shipped.entries[i].info_causes && shipped.entries[i].info_causes[k]; k++)
            g_assert_true(strv_contains(shipped.entries[i].causes, shipped.entries[i].info_causes[k]));
}

static void test_can_check(void)
{
    g_assert_true(rd_probe_table_can_check(&rd_probe_registry, "kfd.no-access", 1));
    g_assert_true(rd_probe_table_can_check(&rd_probe_registry, "pcie.atomics-missing", 1));
    g_assert_true(rd_probe_table_can_check(&rd_probe_registry, "host.wsl", 2));
    g_assert_false(rd_probe_table_can_check(&rd_probe_registry, "no.such-finding", 2));
    g_assert_false(rd_probe_table_can_check(&rd_probe_registry, "runtime.kernel-ok", 1)); /* a level-2 check */
}

/* Domains: gpu.none answers a message of the GPU runtime and driver only;
 * a package, DKMS, Python or container message is matched against its own
 * causes on a host without an AMD GPU too. Every entry has a domain. */
static void test_pick_domains(void)
{
    need_shipped();
    if (!have_shipped)
        return;
    for (size_t i = 0; i < shipped.n_entries; i++)
        g_assert_nonnull(rd_error_domain_name(shipped.entries[i].domain));
    rd_findings fs = { 0 };
    add(&fs, "gpu.none", RD_SEV_WARNING);
    add(&fs, "apt.key-missing", RD_SEV_ERROR);
    const rd_finding **picked = NULL;
    static const struct {
        const char *entry, *domain, *first; /* first: the cause picked, NULL: none */
    } cases[] = {
        { "kfd-missing", "runtime", "gpu.none" },
        { "pci-atomics", "runtime", "gpu.none" },
        { "apt-no-pubkey", "packages", "apt.key-missing" },
        { "dnf-no-match", "packages", NULL },
        { "dkms-build-failed", "kernel", NULL },
        { "pip-no-matching-distribution", "python", NULL },
        { "container-gid", "container", NULL },
    };
    for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
        const rd_error_entry *e = rd_error_table_get(&shipped, cases[i].entry);
        g_assert_nonnull(e);
        g_assert_cmpstr(rd_error_domain_name(e->domain), ==, cases[i].domain);
        size_t n = rd_explain_pick(e, &fs, &picked);
        if (cases[i].first) {
            g_assert_cmpuint(n, ==, 1);
            g_assert_cmpstr(picked[0]->id, ==, cases[i].first);
        } else
            g_assert_cmpuint(n, ==, 0);
        free(picked);
        picked = NULL;
    }
    rd_findings_free(&fs);
}

/* A repository URL in the message is judged by the repository table. */
static void test_message_urls(void)
{
    rd_knowledge k = { 0 };
    rd_test_load_knowledge(&k);
    rd_findings fs = { 0 };
    g_assert_cmpuint(rd_explain_message_urls(&k, NULL,
                                             "E: The repository 'https://repo.radeon.com/rocm/apt/6.4.0 jammy "
                                             "Release' does not have a Release file.",
                                             &fs),
                     ==, 1);
    g_assert_cmpuint(fs.n, ==, 1);
    g_assert_cmpstr(fs.items[0].id, ==, "apt.repo-path");
    g_assert_cmpint(fs.items[0].severity, ==, RD_SEV_ERROR);
    g_assert_cmpstr(fs.items[0].evidence[0], ==,
                    "the message names https://repo.radeon.com/rocm/apt/6.4.0: AMD serves the rocm repository of "
                    "ROCm 6.4.0 at https://repo.radeon.com/rocm/apt/6.4");
    /* dnf's repodata path, a mirror's URL; served folders and other hosts add nothing */
    g_assert_cmpuint(rd_explain_message_urls(&k, "http://mirror.example/radeon",
                                             "Status code: 404 for http://mirror.example/radeon/rocm/el9/7.1.0/main/"
                                             "repodata/repomd.xml (IP: 10.0.0.1)",
                                             &fs),
                     ==, 1);
    g_assert_cmpstr(fs.items[1].id, ==, "dnf.repo-path");
    g_assert_true(strstr(fs.items[1].evidence[0], "https://repo.radeon.com/rocm/el9/7.1/main") != NULL);
    g_assert_cmpuint(rd_explain_message_urls(&k, NULL,
                                             "Hit:6 https://repo.radeon.com/rocm/apt/7.1 noble InRelease "
                                             "https://example.org/rocm/apt/6.4.0 https://repo.radeon.com/rocm/apt/7.9",
                                             &fs),
                     ==, 0);
    g_assert_cmpuint(fs.n, ==, 2);
    rd_findings_free(&fs);
    rd_knowledge_free(&k);
}

static const rd_test_case tests[] = {
    { "/explain/table/shipped", test_shipped_table },
    { "/explain/pick/domains", test_pick_domains },
    { "/explain/message-urls", test_message_urls },
    { "/explain/table/known-causes", test_known_causes },
    { "/explain/table/every-finding-placed", test_every_finding_placed },
    { "/explain/table/small", test_good_small_table },
    { "/explain/table/meaning-joined", test_repeated_meaning_joined },
    { "/explain/table/long-line", test_long_line },
    { "/explain/table/missing-file", test_missing_file },
    { "/explain/normalize", test_normalize },
    { "/explain/match/listed", test_match_listed },
    { "/explain/match/variants", test_match_variants },
    { "/explain/match/non-matches", test_non_matches },
    { "/explain/match/several", test_match_several },
    { "/explain/pick/listed", test_pick_listed },
    { "/explain/pick/priority", test_pick_priority },
    { "/explain/pick/dkms-order", test_pick_dkms_order },
    { "/explain/pick/no-gpu", test_pick_no_gpu },
    { "/explain/pick/info-cause", test_pick_info_cause },
    { "/explain/can-check", test_can_check },
};

int main(int argc, char **argv)
{
    rd_test_init(&argc, &argv, false);
    catalogue = catalogue_ids();
    g_autofree char *path = shipped_path();
    g_autofree char *err = NULL;
    if (path) {
        if (rd_error_table_load(path, NULL, &shipped, &err) < 0) {
            g_printerr("%s\n", err);
            return 1;
        }
        have_shipped = true;
    }
    rd_test_add_all(tests, G_N_ELEMENTS(tests));
    for (size_t i = 0; i < G_N_ELEMENTS(bad_tables); i++) {
        g_autofree char *name = g_strdup_printf("/explain/table/bad/%s", bad_tables[i].name);
        for (char *p = name; *p; p++)
            if (*p == ' ')
                *p = '-';
        g_test_add_data_func(name, &bad_tables[i], test_bad_table);
    }
    int r = g_test_run();
    if (have_shipped)
        rd_error_table_free(&shipped);
    g_free(catalogue);
    return r;
}
