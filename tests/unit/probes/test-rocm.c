/* SPDX-License-Identifier: MIT */
/* The parsers of the rocm probe (rocBLAS kernel names, dpkg status) and of
 * the boot probe (kernel log lines), and the facts and assess rules of the
 * rocm, apt and boot probes together: one set of facts covers all three, its
 * JSON round trip and the findings of each (facts in, findings out). They
 * are here as the rocm facts are the most of them. */
#include <glib.h>
#include <unistd.h>

#include "testlib.h"
#include "check.h"
#include "registry.h"
#include "boot.h"
#include "rocm.h"
#include "dpkg.h"
#include "facts-json.h"
#include "knowledge.h"
#include "context.h"
#include "util.h"

static rd_knowledge shipped;

/* ---- parsers ---- */

static void assert_rocblas(const char *name, const char *want)
{
    char buf[16] = "";
    g_assert_cmpint(rd_rocblas_file_gfx(name, buf, sizeof buf), ==, want != NULL);
    if (want)
        g_assert_cmpstr(buf, ==, want);
}

static void test_rocblas_names(void)
{
    assert_rocblas("TensileLibrary_lazy_gfx90a.dat", "gfx90a");
    assert_rocblas("Kernels.so-000-gfx1030.hsaco", "gfx1030");
    assert_rocblas("Kernels.so-001-gfx90a-xnack+.hsaco", "gfx90a");
    assert_rocblas("TensileLibrary_Type_HH_Contraction_l_Ailk_Bljk_Cijk_Dijk_gfx1100.co", "gfx1100");
    assert_rocblas("TensileLibrary_gfx942.co", "gfx942");
    assert_rocblas("TensileLibrary_fallback_gfx1201.hsaco", "gfx1201");
    assert_rocblas("TensileManifest.txt", NULL);
    assert_rocblas("gfxinfo", NULL);
    assert_rocblas("foo_gfx1.dat", NULL);
}

static bool want_any(const char *name)
{
    return g_str_has_prefix(name, "rocm") || streq(name, "amdgpu-dkms");
}

static void test_dpkg_status(void)
{
    static const char text[] = "Package: rocm-core\n"
                               "Status: install ok installed\n"
                               "Version: 6.2.4.60204-139~24.04\n"
                               "Description: ROCm core\n"
                               " continued description\n"
                               "\n"
                               "Package: rocm-core5.7.1\n"
                               "Status: deinstall ok config-files\n"
                               "Version: 5.7.1.50701-98~22.04\n"
                               "\n"
                               "Package: bash\n"
                               "Status: install ok installed\n"
                               "Version: 5.2.21-2ubuntu4\n"
                               "\n"
                               "Package: amdgpu-dkms\n"
                               "Status: install ok half-installed\n"
                               "Version: 1:6.8.5.60204-2041575.24.04\n"
                               "\n"
                               "Package: rocminfo\n"
                               "Version:   1.0.0.60204-139~24.04  \n"
                               "Status: install ok installed";
    rd_package *p = NULL;
    size_t n = 0;
    rd_dpkg_status_parse(text, want_any, &p, &n);
    g_assert_cmpuint(n, ==, 2);
    g_assert_cmpstr(p[0].name, ==, "rocm-core");
    g_assert_cmpstr(p[0].version, ==, "6.2.4.60204-139~24.04");
    g_assert_cmpstr(p[1].name, ==, "rocminfo");
    g_assert_cmpstr(p[1].version, ==, "1.0.0.60204-139~24.04");
    for (size_t i = 0; i < n; i++) {
        free(p[i].name);
        free(p[i].version);
    }
    free(p);
}

/* The fields of an unwanted stanza never reach the next one; fields are
 * known by name and colon, not by prefix; a stanza may end with the text. */
static void test_dpkg_status_skip(void)
{
    static const char text[] = "Package: bash\n"
                               "Version: 5.2\n"
                               "Status: install ok installed\n"
                               "\n"
                               "\n"
                               "Status: install ok installed\n"
                               "Package: rocm-core\n"
                               "Versions: 9.9\n"
                               "Version:6.4.1\r\n"
                               "Package-Type: udeb\n"
                               "\n"
                               "Package: rocm-smi\n"
                               "Status: install ok not-installed\n"
                               "Version: 6.4.1\n"
                               "\n"
                               "Package: rocminfo\n"
                               "Version: 1.0\n"
                               "Status: deinstall ok installed";
    rd_package *p = NULL;
    size_t n = 0;
    rd_dpkg_status_parse(text, want_any, &p, &n);
    g_assert_cmpuint(n, ==, 2);
    g_assert_cmpstr(p[0].name, ==, "rocm-core");
    g_assert_cmpstr(p[0].version, ==, "6.4.1");
    g_assert_cmpstr(p[1].name, ==, "rocminfo");
    g_assert_cmpstr(p[1].version, ==, "1.0");
    for (size_t i = 0; i < n; i++) {
        free(p[i].name);
        free(p[i].version);
    }
    free(p);
}

static void test_boot_kmsg(void)
{
    g_assert_true(
        rd_boot_kmsg_relevant("Lockdown: modprobe: unsigned module loading is restricted; see man kernel_lockdown.7"));
    g_assert_true(rd_boot_kmsg_relevant(
        "amdgpu: module verification failed: signature and/or required key missing - tainting kernel"));
    g_assert_true(rd_boot_kmsg_relevant("PKCS#7 signature not signed with a trusted key"));
    g_assert_false(rd_boot_kmsg_relevant("[drm] amdgpu kernel modesetting enabled."));
    g_autofree char *s = rd_kernel_series("6.8.0-45-generic");
    g_assert_cmpstr(s, ==, "6.8");
    g_autofree char *s2 = rd_kernel_series("5.15.167.4-microsoft-standard-WSL2");
    g_assert_cmpstr(s2, ==, "5.15");
    g_assert_null(rd_kernel_series("garbage"));
}

/* ---- facts: JSON round trip ---- */

static void fill_rocm_apt_boot_facts(rd_facts *f)
{
    rd_facts_init(f);
    rd_rocm_facts *r = &f->rocm;
    r->checked = true;
    r->default_version = xstrdup("6.2.4");
    r->default_path = xstrdup("/opt/rocm-6.2.4");
    rd_rocm_install *in = ARRAY_APPEND(r->installs, r->n_installs);
    in->path = xstrdup("/opt/rocm-6.2.4");
    in->kind = xstrdup("opt");
    in->version = xstrdup("6.2.4");
    in->version_source = xstrdup("/opt/rocm-6.2.4/.info/version: 6.2.4-139");
    in->lib_dir = xstrdup("/opt/rocm-6.2.4/lib");
    in->libraries = strv_push(strv_push(NULL, xstrdup("libhsa-runtime64.so.1")), xstrdup("libamdhip64.so"));
    in->runtime = true;
    in->has_bin = true;
    in->rocblas_dir = xstrdup("/opt/rocm-6.2.4/lib/rocblas/library");
    in->rocblas_gfx = strv_push(strv_push(NULL, xstrdup("gfx90a")), xstrdup("gfx942"));
    r->opt_rocm = xstrdup("-> /opt/rocm-6.2.4");
    r->path_env = xstrdup("/usr/bin:/bin");
    rd_ld_conf_dir *l = ARRAY_APPEND(r->ld_conf_dirs, r->n_ld_conf_dirs);
    *l = (rd_ld_conf_dir){ xstrdup("/etc/ld.so.conf.d/rocm.conf"), 1, xstrdup("/opt/rocm-6.1.3/lib") };
    rd_package *p = ARRAY_APPEND(r->packages, r->n_packages);
    p->name = xstrdup("rocm-core");
    p->version = xstrdup("6.2.4.60204-139~24.04");

    rd_apt_source *s = ARRAY_APPEND(f->apt.sources, f->apt.n_sources);
    f->apt.present = true;
    s->file = xstrdup("/etc/apt/sources.list.d/rocm.list");
    s->line = 3;
    s->format = xstrdup("one-line");
    s->type = xstrdup("deb");
    s->uri = xstrdup("https://repo.radeon.com/rocm/apt/6.2.4");
    s->suite = xstrdup("jammy");
    s->components = strv_push(NULL, xstrdup("main"));
    s->enabled = true;
    rd_apt_keyring *k = ARRAY_APPEND(f->apt.keyrings, f->apt.n_keyrings);
    k->path = xstrdup("/etc/apt/trusted.gpg");
    k->exists = k->amd_key = k->legacy = true;
    rd_apt_pin *pin = ARRAY_APPEND(f->apt.pins, f->apt.n_pins);
    pin->file = xstrdup("/etc/apt/preferences.d/rocm-pin-600");
    pin->line = 1;
    pin->package = xstrdup("*");
    pin->pin = xstrdup("release o=repo.radeon.com");
    pin->priority = 400;

    f->boot.secure_boot = 1;
    f->boot.secure_boot_evidence = xstrdup("SecureBoot: 1");
    f->boot.lockdown = xstrdup("integrity");
    f->boot.dkms_amdgpu = strv_push(NULL, xstrdup("6.8.5-2041575.24.04"));
    f->boot.dkms_built = strv_push(NULL, xstrdup("6.8.5-2041575.24.04 for 6.8.0-45-generic"));
    f->boot.dkms_tried = strv_push(NULL, xstrdup("6.8.5-2041575.24.04 for 6.8.0-45-generic"));
    f->boot.mok_key = xstrdup("/var/lib/dkms/mok.pub");
    f->boot.kmsg = strv_push(NULL, xstrdup("Lockdown: modprobe: unsigned module loading is restricted"));
}

static void test_round_trip(void)
{
    rd_facts f;
    fill_rocm_apt_boot_facts(&f);
    rd_path_dropin *d = ARRAY_APPEND(f.rocm.path_dropin_dirs, f.rocm.n_path_dropin_dirs);
    *d = (rd_path_dropin){ xstrdup("/etc/profile.d/rocm.sh"), 2, strv_push(NULL, xstrdup("/opt/rocm/bin")) };
    json_object *j = rd_facts_to_json(&f);
    g_autofree char *text = g_strdup(json_object_to_json_string(j));
    json_object_put(j);
    rd_facts back;
    g_autofree char *err = NULL;
    g_assert_cmpint(rd_facts_from_json_string(text, &back, &err), ==, 0);
    g_assert_null(err);
    g_assert_true(back.rocm.checked);
    g_assert_cmpstr(back.rocm.default_version, ==, "6.2.4");
    g_assert_cmpuint(back.rocm.n_installs, ==, 1);
    g_assert_cmpstr(back.rocm.installs[0].rocblas_gfx[1], ==, "gfx942");
    g_assert_true(back.rocm.installs[0].has_bin);
    g_assert_cmpstr(back.rocm.packages[0].version, ==, "6.2.4.60204-139~24.04");
    g_assert_cmpuint(back.rocm.n_ld_conf_dirs, ==, 1);
    g_assert_cmpstr(back.rocm.ld_conf_dirs[0].file, ==, "/etc/ld.so.conf.d/rocm.conf");
    g_assert_cmpint(back.rocm.ld_conf_dirs[0].line, ==, 1);
    g_assert_cmpstr(back.rocm.ld_conf_dirs[0].dir, ==, "/opt/rocm-6.1.3/lib");
    g_assert_cmpuint(back.rocm.n_path_dropin_dirs, ==, 1);
    g_assert_cmpint(back.rocm.path_dropin_dirs[0].line, ==, 2);
    g_assert_cmpstr(back.rocm.path_dropin_dirs[0].dirs[0], ==, "/opt/rocm/bin");
    g_assert_cmpint(back.apt.sources[0].line, ==, 3);
    g_assert_cmpstr(back.apt.sources[0].components[0], ==, "main");
    g_assert_true(back.apt.keyrings[0].legacy);
    g_assert_cmpint(back.apt.pins[0].priority, ==, 400);
    g_assert_cmpint(back.boot.secure_boot, ==, 1);
    g_assert_cmpstr(back.boot.dkms_built[0], ==, "6.8.5-2041575.24.04 for 6.8.0-45-generic");
    g_assert_cmpstr(back.boot.dkms_tried[0], ==, "6.8.5-2041575.24.04 for 6.8.0-45-generic");
    /* and once more: the second serialization is the first */
    json_object *j2 = rd_facts_to_json(&back);
    g_assert_cmpstr(json_object_to_json_string(j2), ==, text);
    json_object_put(j2);
    rd_facts_free(&back);
    rd_facts_free(&f);
}

/* ---- assess ---- */

/* An RX 7900 XTX bound to amdgpu (gfx1100 from the PCI id table). */
static void add_gpu(rd_facts *f)
{
    rd_pci_device *d = ARRAY_APPEND(f->pci.devices, f->pci.n_devices);
    d->address = xstrdup("0000:03:00.0");
    d->vendor_id = 0x1002;
    d->device_id = 0x744c;
    d->class_code = 0x030000;
    d->display = true;
    d->driver = xstrdup("amdgpu");
    d->pcie_type = -1;
    d->numa_node = -1;
    f->driver.module_present = true;
    f->driver.initstate = xstrdup("live");
}

static char *assess_ids(const rd_facts *f)
{
    rd_gpu_view view;
    rd_findings fs;
    rd_assess(&rd_probe_registry, f, &shipped, &view, &fs);
    strbuf b = { 0 };
    for (size_t i = 0; i < fs.n; i++)
        if (g_str_has_prefix(fs.items[i].id, "rocm.") || g_str_has_prefix(fs.items[i].id, "apt.") ||
            g_str_has_prefix(fs.items[i].id, "arch.") || g_str_has_prefix(fs.items[i].id, "path.") ||
            streq(fs.items[i].id, "driver.userspace-mismatch") || streq(fs.items[i].id, "kernel.unsupported") ||
            streq(fs.items[i].id, "driver.secure-boot-dkms") || streq(fs.items[i].id, "driver.dkms-build-failed"))
            strbuf_printf(&b, "%s%s:%s", b.len ? " " : "", fs.items[i].id, rd_severity_name(fs.items[i].severity));
    rd_findings_free(&fs);
    rd_gpu_view_free(&view);
    return b.s ? strbuf_steal(&b) : xstrdup("");
}

static void set_rocm(rd_facts *f, const char *version)
{
    rd_rocm_install *in = f->rocm.installs;
    free(in->version);
    in->version = xstrdup(version);
    free(f->rocm.default_version);
    f->rocm.default_version = xstrdup(version);
}

/* test_assess_rules: each apt and path finding fixed, then the key missing */
static void assess_apt_fixed(rd_facts *f)
{
    /* fix them one by one */
    f->rocm.installs[0].rocblas_gfx = strv_push(f->rocm.installs[0].rocblas_gfx, xstrdup("gfx1100"));
    free(f->apt.sources[0].suite);
    f->apt.sources[0].suite = xstrdup("noble");
    f->apt.sources[0].signed_by = xstrdup("/etc/apt/keyrings/rocm.gpg");
    f->apt.keyrings[0].legacy = false;
    free(f->apt.keyrings[0].path);
    f->apt.keyrings[0].path = xstrdup("/etc/apt/keyrings/rocm.gpg");
    f->apt.pins[0].priority = 600;
    free(f->rocm.path_env);
    f->rocm.path_env = xstrdup("/usr/bin:/opt/rocm-6.2.4/bin/");
    g_autofree char *clean = assess_ids(f);
    g_assert_cmpstr(clean, ==, "");

    /* the key file lacks the key */
    f->apt.keyrings[0].amd_key = false;
    g_autofree char *nokey = assess_ids(f);
    g_assert_cmpstr(nokey, ==, "apt.key-missing:error");
    f->apt.keyrings[0].amd_key = true;
}

/* test_assess_rules: the driver/user-space window */
static void assess_driver_window(rd_facts *f)
{
    /* driver/user-space window: 2 release lines before 6.4 */
    f->driver.version = xstrdup("6.3.6"); /* ROCm 6.0's */
    g_autofree char *w2 = assess_ids(f);
    g_assert_cmpstr(w2, ==, ""); /* 6.0 vs 6.2: 2 apart */
    free(f->driver.version);
    f->driver.version = xstrdup("6.2.4"); /* ROCm 5.7's */
    g_autofree char *w3 = assess_ids(f);
    g_assert_cmpstr(w3, ==, "driver.userspace-mismatch:warning");
    /* from 6.4 on: 12 months. 6.2 (2024-08) vs 6.4 (2025-04) is fine, 6.0 (2023-12) is not */
    set_rocm(f, "6.4.3");
    free(f->driver.version);
    f->driver.version = xstrdup("6.8.5");
    g_autofree char *m8 = assess_ids(f);
    g_assert_cmpstr(m8, ==, "");
    free(f->driver.version);
    f->driver.version = xstrdup("6.3.6");
    g_autofree char *m16 = assess_ids(f);
    g_assert_cmpstr(m16, ==, "driver.userspace-mismatch:warning");
    free(f->driver.version);
    f->driver.version = NULL;
}

/* test_assess_rules: Secure Boot with the DKMS driver */
static void assess_secure_boot(rd_facts *f)
{
    /* Secure Boot: amdgpu absent and DKMS present */
    f->driver.module_present = false;
    g_autofree char *sb = assess_ids(f);
    g_assert_cmpstr(sb, ==, "driver.secure-boot-dkms:error");
    f->boot.secure_boot = 0;
    g_autofree char *nosb = assess_ids(f);
    g_assert_cmpstr(nosb, ==, "");
    f->boot.secure_boot = 1;
    /* loaded: only a rejection naming amdgpu means the DKMS one was refused */
    f->driver.module_present = true;
    f->boot.kmsg = strv_push(f->boot.kmsg, xstrdup("Loading of module with unavailable key is rejected: amdgpu"));
    g_autofree char *inbox = assess_ids(f);
    g_assert_cmpstr(inbox, ==, "driver.secure-boot-dkms:error");
    f->driver.version = xstrdup("6.8.5"); /* the DKMS driver itself runs */
    g_autofree char *dkms_runs = assess_ids(f);
    g_assert_cmpstr(dkms_runs, ==, "");
    free(f->driver.version);
    f->driver.version = NULL;
    f->boot.secure_boot = 0;
}

/* test_assess_rules: releases newer and older than the table, unchecked facts */
static void assess_release_lines(rd_facts *f)
{
    /* a release newer than the table: judged by the newest line it knows */
    set_rocm(f, "9.0.1");
    g_autofree char *future = assess_ids(f);
    g_assert_cmpstr(future, ==, "");
    /* ROCm 5.6 did not support gfx1100, nor list Ubuntu 24.04: its 6.8 kernel is
     * newer than any 5.6 was validated with on 22.04, the nearest Ubuntu it lists */
    set_rocm(f, "5.6.1");
    g_autofree char *old = assess_ids(f);
    g_assert_cmpstr(old, ==, "arch.unsupported:warning kernel.unsupported:warning");

    /* facts that predate the rocm probe say nothing about ROCm */
    f->rocm.checked = false;
    set_rocm(f, "6.2.4");
    f->rocm.installs[0].runtime = false;
    g_autofree char *unchecked = assess_ids(f);
    g_assert_cmpstr(unchecked, ==, "");
    f->rocm.checked = true;
    g_autofree char *broken = assess_ids(f);
    g_assert_cmpstr(broken, ==, "rocm.not-installed:warning");
}

/* test_assess_rules: a DKMS build that failed for the running kernel, and a
 * kernel on a release the table does not list, judged by the nearest one */
static void assess_dkms_unlisted(rd_facts *f)
{
    set_rocm(f, "7.0.2");
    f->rocm.installs[0].runtime = true;
    free(f->os.version_id);
    f->os.version_id = xstrdup("25.10");
    free(f->os.kernel_release);
    f->os.kernel_release = xstrdup("6.17.0-6-generic");
    f->kernel_devel.checked = true;
    f->kernel_devel.build_dir = xstrdup("/lib/modules/6.17.0-6-generic/build");
    f->boot.secure_boot = 0;
    /* DKMS never tried this kernel: nothing about the build; 6.17 is newer than 24.04's 6.14 */
    g_autofree char *untried = assess_ids(f);
    g_assert_cmpstr(untried, ==, "kernel.unsupported:warning");
    strv_free(f->boot.dkms_tried);
    f->boot.dkms_tried = strv_push(NULL, xstrdup("6.8.5-2041575.24.04 for 6.17.0-6-generic"));
    g_autofree char *failed = assess_ids(f);
    g_assert_cmpstr(failed, ==, "driver.dkms-build-failed:warning kernel.unsupported:warning");
    f->driver.module_present = false;
    g_autofree char *unloaded = assess_ids(f);
    g_assert_cmpstr(unloaded, ==, "driver.dkms-build-failed:error kernel.unsupported:warning");
    f->driver.module_present = true;
    /* built after all (a later run): no failure */
    f->boot.dkms_built = strv_push(f->boot.dkms_built, xstrdup("6.8.5-2041575.24.04 for 6.17.0-6-generic"));
    g_autofree char *built = assess_ids(f);
    g_assert_cmpstr(built, ==, "kernel.unsupported:warning");
    /* a kernel the nearest release lists is not judged */
    free(f->os.kernel_release);
    f->os.kernel_release = xstrdup("6.14.0-15-generic");
    g_autofree char *listed = assess_ids(f);
    g_assert_cmpstr(listed, ==, "");
}

static void test_assess_rules(void)
{
    rd_facts f;
    fill_rocm_apt_boot_facts(&f);
    add_gpu(&f);
    f.os.id = xstrdup("ubuntu");
    f.os.version_id = xstrdup("24.04");
    f.os.version_codename = xstrdup("noble");
    f.os.kernel_release = xstrdup("6.8.0-45-generic");

    /* the facts above: rocBLAS lacks gfx1100, jammy on noble, key in trusted.gpg without
     * signed-by, pin at 400, a stale 6.1.3 in ld.so.conf (but no second install), no
     * /opt/rocm/bin on PATH, Secure Boot on with DKMS but amdgpu loaded and no rejection */
    g_autofree char *ids = assess_ids(&f);
    g_assert_cmpstr(ids, ==,
                    "arch.no-kernels:error apt.suite-mismatch:error path.rocm-bin-missing:warning "
                    "apt.no-signed-by:warning apt.key-deprecated:warning apt.pin-missing:warning");

    assess_apt_fixed(&f);
    assess_driver_window(&f);
    assess_secure_boot(&f);
    assess_release_lines(&f);
    assess_dkms_unlisted(&f);
    rd_facts_free(&f);
}

/* ---- gather: /opt/rocm and the versions beside it, links inside the root ---- */

static void gather_opt(const char *root, rd_facts *f)
{
    rd_ctx ctx;
    g_autofree char *error = NULL;
    g_assert_cmpint(rd_ctx_init(&ctx, root, NULL, &error), ==, 0);
    rd_facts_init(f);
    rd_probe_rocm.gather(&ctx, f);
    rd_ctx_free(&ctx);
}

static void link_at(const char *root, const char *rel, const char *target)
{
    g_autofree char *p = g_build_filename(root, rel, NULL);
    unlink(p);
    g_assert_cmpint(symlink(target, p), ==, 0);
}

static void test_gather_opt_links(void)
{
    g_autofree char *root = g_dir_make_tmp("rd-rocm-XXXXXX", NULL);
    g_assert_nonnull(root);
    rd_test_write_file(root, "opt/rocm-6.2.4/.info/version", "6.2.4-139\n");
    rd_test_write_file(root, "etc/alternatives/.keep", "");
    /* /opt/rocm -> /etc/alternatives/rocm -> /opt/rocm-6.2.4, and rocm-6 a link among the versions */
    link_at(root, "etc/alternatives/rocm", "/opt/rocm-6.2.4");
    link_at(root, "opt/rocm", "/etc/alternatives/rocm");
    link_at(root, "opt/rocm-6", "rocm-6.2.4");
    rd_facts f;
    gather_opt(root, &f);
    g_assert_cmpstr(f.rocm.opt_rocm, ==, "-> /opt/rocm-6.2.4");
    g_assert_false(f.rocm.opt_rocm_dangling);
    g_assert_cmpuint(f.rocm.n_installs, ==, 1);
    g_assert_cmpstr(f.rocm.installs[0].path, ==, "/opt/rocm-6.2.4");
    g_assert_cmpstr(f.rocm.installs[0].version, ==, "6.2.4");
    g_assert_cmpstr(f.rocm.default_path, ==, "/opt/rocm-6.2.4");
    rd_facts_free(&f);

    /* a ".." that climbs above the root is refused, never clamped: not followed */
    link_at(root, "opt/rocm", "../../../opt/rocm-6.2.4");
    gather_opt(root, &f);
    g_assert_true(f.rocm.opt_rocm_dangling);
    g_assert_cmpstr(f.rocm.opt_rocm, ==, "-> ../../../opt/rocm-6.2.4 (missing)");
    rd_facts_free(&f);

    /* a link to nothing */
    link_at(root, "opt/rocm", "/opt/rocm-7.0.0");
    gather_opt(root, &f);
    g_assert_true(f.rocm.opt_rocm_dangling);
    g_assert_cmpstr(f.rocm.opt_rocm, ==, "-> /opt/rocm-7.0.0 (missing)");
    g_assert_cmpuint(f.rocm.n_installs, ==, 1);
    rd_facts_free(&f);
    rd_test_rm_rf(root);

    /* /opt itself a link (to /data/opt): the paths stay under /opt */
    g_autofree char *root2 = g_dir_make_tmp("rd-rocm-XXXXXX", NULL);
    g_assert_nonnull(root2);
    rd_test_write_file(root2, "data/opt/rocm-6.2.4/.info/version", "6.2.4-139\n");
    link_at(root2, "opt", "/data/opt");
    link_at(root2, "data/opt/rocm", "rocm-6.2.4");
    gather_opt(root2, &f);
    g_assert_cmpstr(f.rocm.opt_rocm, ==, "-> /opt/rocm-6.2.4");
    g_assert_false(f.rocm.opt_rocm_dangling);
    g_assert_cmpuint(f.rocm.n_installs, ==, 1);
    g_assert_cmpstr(f.rocm.installs[0].path, ==, "/opt/rocm-6.2.4");
    g_assert_cmpstr(f.rocm.default_path, ==, "/opt/rocm-6.2.4");
    rd_facts_free(&f);
    rd_test_rm_rf(root2);
}

static const rd_test_case tests[] = {
    { "/rocm/parse/rocblas", test_rocblas_names },
    { "/rocm/parse/dpkg-status", test_dpkg_status },
    { "/rocm/parse/dpkg-status-skip", test_dpkg_status_skip },
    { "/boot/parse/boot-kmsg", test_boot_kmsg },
    /* the rocm, apt and boot probes together */
    { "/rocm/facts/round-trip", test_round_trip },
    { "/rocm/assess/rules", test_assess_rules },
    { "/rocm/gather/opt-links", test_gather_opt_links },
};

RD_TEST_MAIN_KNOWLEDGE(tests, false, &shipped)
