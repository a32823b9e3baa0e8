/* SPDX-License-Identifier: MIT */
/* probes/runtime.c: level 2's assessment, runtime facts in, findings out
 * (pure), and the runtime facts' JSON round trip. */
#include <glib.h>

#include "check.h"
#include "registry.h"
#include "facts-json.h"
#include "report-runtime.h"
#include "runtime.h"
#include "hsa-loader.h"
#include "util.h"
#include "testlib.h"

static rd_knowledge knowledge;
static const char *const fixture_dir = FACTS_DIR;

static void init_runtime(rd_runtime_facts *rt)
{
    rt->ran = true;
    rt->hsa_init_status = rt->hip_init_status = rt->hip_device_count_status = -1;
    rt->hip_runtime_version = rt->hip_device_count = -1;
    rt->child_status = xstrdup("exited");
    rt->child_exit_code = 0;
    rt->child_stage_device = -1;
    rt->timeout_s = 20;
}

/* An RX 7900 XTX whose user may not open /dev/kfd (kfd.no-access). */
static void load_no_access(rd_facts *f)
{
    _cleanup_free_ char *err = NULL, *path = g_build_filename(fixture_dir, "rx7900xtx-no-access.json", NULL);
    rd_facts_init(f);
    rd_facts_free(f);
    g_assert_cmpint(rd_facts_load(path, f, &err), ==, 0);
    init_runtime(&f->runtime);
}

static void assess(const rd_facts *f, rd_findings *ret)
{
    rd_gpu_view v;
    rd_assess(&rd_probe_registry, f, &knowledge, &v, ret);
    rd_gpu_view_free(&v);
}

static const rd_finding *get(const rd_findings *fs, const char *id, rd_severity sev)
{
    const rd_finding *f = rd_findings_get(fs, id);
    g_assert_nonnull(f);
    g_assert_cmpstr(rd_severity_name(f->severity), ==, rd_severity_name(sev));
    return f;
}

static bool evidence_has(const rd_finding *f, const char *needle)
{
    for (size_t i = 0; f->evidence && f->evidence[i]; i++)
        if (strstr(f->evidence[i], needle))
            return true;
    return false;
}

static size_t count_id(const rd_findings *fs, const char *prefix)
{
    size_t n = 0;
    for (size_t i = 0; i < fs->n; i++)
        n += startswith(fs->items[i].id, prefix) != NULL;
    return n;
}

static rd_runtime_device *add_device(rd_runtime_facts *rt, const char *result)
{
    rd_runtime_device *d = ARRAY_APPEND(rt->devices, rt->n_devices);
    d->index = (int64_t)rt->n_devices - 1;
    d->pci_address = xstrdup("0000:03:00.0");
    d->gfx = xstrdup("gfx1100");
    d->kfd_node = 1;
    d->error_code = -1;
    d->result = xstrdup_or_null(result);
    return d;
}

static void loaded_ok(rd_runtime_facts *rt, size_t n_devices)
{
    rt->hsa_library = xstrdup("/opt/rocm/lib/libhsa-runtime64.so.1");
    rt->hsa_init_status = 0;
    rd_runtime_agent *a = ARRAY_APPEND(rt->agents, rt->n_agents);
    a->type = xstrdup("gpu");
    a->isa = xstrdup("amdgcn-amd-amdhsa--gfx1100");
    rt->hip_library = xstrdup("/opt/rocm/lib/libamdhip64.so.6");
    rt->hip_init_status = 0;
    rt->hip_device_count_status = 0;
    rt->hip_device_count = (int64_t)n_devices;
}

static void test_hsa_init_blames_access(void)
{
    rd_facts f;
    rd_findings fs;
    load_no_access(&f);
    f.runtime.hsa_library = xstrdup("/usr/lib/x86_64-linux-gnu/libhsa-runtime64.so.1");
    f.runtime.hsa_init_status = 0x1008;
    f.runtime.hsa_init_status_name = xstrdup("HSA_STATUS_ERROR_OUT_OF_RESOURCES");
    f.runtime.hsa_init_status_string = xstrdup("HSA_STATUS_ERROR_OUT_OF_RESOURCES: The runtime failed to allocate "
                                               "the necessary resources.");
    f.runtime.hip_library = xstrdup("/usr/lib/x86_64-linux-gnu/libamdhip64.so.5");
    f.runtime.hip_init_status = 101;
    f.runtime.hip_init_status_name = xstrdup("hipErrorInvalidDevice");
    f.runtime.hip_device_count_status = 100;
    f.runtime.hip_device_count_status_name = xstrdup("hipErrorNoDevice");
    f.runtime.hip_device_count = 0;
    assess(&f, &fs);
    const rd_finding *r = get(&fs, "runtime.hsa-init-failed", RD_SEV_ERROR);
    g_assert_true(evidence_has(r, "HSA_STATUS_ERROR_OUT_OF_RESOURCES (0x1008): The runtime failed"));
    g_assert_true(evidence_has(r, "cause: kfd.no-access"));
    g_assert_true(evidence_has(r, "hipGetDeviceCount: hipErrorNoDevice"));
    g_assert_nonnull(strstr(r->remedy, "Fix kfd.no-access first"));
    /* HIP's failure is the same one: not reported twice */
    g_assert_false(rd_findings_has(&fs, "runtime.no-device"));
    g_assert_cmpint(count_id(&fs, "runtime."), ==, 1);
    rd_findings_free(&fs);
    rd_facts_free(&f);
}

static void test_missing_libraries(void)
{
    rd_facts f;
    rd_findings fs;
    load_no_access(&f);
    f.runtime.hsa_load_error = xstrdup("libhsa-runtime64.so.1: cannot open shared object file");
    f.runtime.hip_load_error = xstrdup("libamdhip64.so.7: cannot open shared object file");
    assess(&f, &fs);
    const rd_finding *h = get(&fs, "runtime.hsa-missing", RD_SEV_ERROR);
    g_assert_cmpstr(h->remedy, ==, "Install it: `sudo apt install libhsa-runtime64-1`.");
    const rd_finding *p = get(&fs, "runtime.hip-missing", RD_SEV_ERROR);
    g_assert_cmpstr(p->remedy, ==, "Install it: `sudo apt install libamdhip64-5`.");
    rd_findings_free(&fs);

    /* with AMD's installation present, AMD's package names */
    f.rocm.default_version = xstrdup("6.2.4");
    assess(&f, &fs);
    g_assert_cmpstr(rd_findings_get(&fs, "runtime.hip-missing")->remedy, ==,
                    "Install it: `sudo apt install hip-runtime-amd`.");
    g_assert_cmpstr(rd_findings_get(&fs, "runtime.hsa-missing")->remedy, ==,
                    "Install it: `sudo apt install hsa-rocr`.");
    rd_findings_free(&fs);

    /* the host's own package manager: dnf on Rocky, words on NixOS */
    free(f.os.id);
    f.os.id = xstrdup("rocky");
    assess(&f, &fs);
    g_assert_cmpstr(rd_findings_get(&fs, "runtime.hsa-missing")->remedy, ==,
                    "Install it: `sudo dnf install hsa-rocr`.");
    rd_findings_free(&fs);
    free(f.os.id);
    f.os.id = xstrdup("nixos");
    assess(&f, &fs);
    g_assert_cmpstr(rd_findings_get(&fs, "runtime.hsa-missing")->remedy, ==,
                    "Install it: install libhsa-runtime64 with the distribution's package manager.");
    rd_findings_free(&fs);
    rd_facts_free(&f);
}

static void test_kernel_ok(void)
{
    rd_facts f;
    rd_findings fs;
    load_no_access(&f);
    loaded_ok(&f.runtime, 1);
    rd_runtime_device *d = add_device(&f.runtime, "ok");
    d->launch_latency_us = 8.25;
    d->h2d_gbps = 24.5;
    d->d2h_gbps = 25.25;
    d->hiprtc = xstrdup("ok");
    assess(&f, &fs);
    const rd_finding *k = get(&fs, "runtime.kernel-ok", RD_SEV_OK);
    g_assert_cmpstr(k->gpu, ==, "0000:03:00.0");
    g_assert_cmpstr(k->summary, ==,
                    "0000:03:00.0 gfx1100 computes correctly: launch 8.2 µs, host→device 24.5 GB/s, "
                    "device→host 25.2 GB/s");
    g_assert_true(evidence_has(k, "hiprtc compiled the kernel"));
    g_assert_cmpint(count_id(&fs, "runtime."), ==, 1);
    rd_findings_free(&fs);
    rd_facts_free(&f);
}

static void test_agent_against_kfd(void)
{
    rd_facts f;
    rd_findings fs;
    load_no_access(&f);
    loaded_ok(&f.runtime, 1);
    rd_runtime_agent *a = &f.runtime.agents[0];
    free(a->isa);
    a->isa = xstrdup("amdgcn-amd-amdhsa--gfx1030");
    a->name = xstrdup("gfx1030");
    a->pci_address = xstrdup("0000:03:00.0");
    a->kfd_node = 1;
    a->compute_units = 96;
    rd_runtime_pool *p = ARRAY_APPEND(a->pools, a->n_pools);
    p->segment = xstrdup("global");
    p->size = UINT64_C(25753026560);
    p->coarse_grained = true;
    add_device(&f.runtime, "ok");
    assess(&f, &fs);
    const rd_finding *k = get(&fs, "runtime.kernel-ok", RD_SEV_OK);
    g_assert_true(evidence_has(k, "HSA agent gfx1030: ISA amdgcn-amd-amdhsa--gfx1030, 96 compute units, 24 GiB "
                                  "device memory; KFD node 1: gfx1100"));
    g_assert_true(evidence_has(k, "the runtime runs this gfx1100 as gfx1030: HSA_OVERRIDE_GFX_VERSION is in effect"));
    rd_findings_free(&fs);
    rd_facts_free(&f);
}

static void test_kernel_failures(void)
{
    rd_facts f;
    rd_findings fs;
    load_no_access(&f);
    loaded_ok(&f.runtime, 2);
    rd_runtime_device *d = add_device(&f.runtime, "wrong-result");
    d->mismatch = xstrdup("rd_vector_add: c[12345] = 7, expected 6 (1 of 1048576 elements wrong)");
    d = add_device(&f.runtime, "error");
    free(d->pci_address);
    d->pci_address = xstrdup("0000:83:00.0");
    d->error_call = xstrdup("hipModuleLoadData");
    d->error_code = 209;
    d->error_name = xstrdup("hipErrorNoBinaryForGpu");
    assess(&f, &fs);
    g_assert_cmpint(count_id(&fs, "runtime.kernel-failed"), ==, 2);
    for (size_t i = 0; i < fs.n; i++) {
        const rd_finding *x = &fs.items[i];
        if (!streq(x->id, "runtime.kernel-failed"))
            continue;
        g_assert_cmpint(x->severity, ==, RD_SEV_ERROR);
        if (streq(x->gpu, "0000:03:00.0"))
            g_assert_true(evidence_has(x, "c[12345] = 7, expected 6"));
        else {
            g_assert_cmpstr(x->summary, ==,
                            "0000:83:00.0 gfx1100: hipModuleLoadData failed with hipErrorNoBinaryForGpu");
            g_assert_nonnull(strstr(x->remedy, "HSA_OVERRIDE_GFX_VERSION"));
        }
    }
    rd_findings_free(&fs);
    rd_facts_free(&f);
}

static void test_timeout_and_crash(void)
{
    rd_facts f;
    rd_findings fs;
    load_no_access(&f);
    loaded_ok(&f.runtime, 1);
    add_device(&f.runtime, NULL);
    free(f.runtime.child_status);
    f.runtime.child_status = xstrdup("timeout");
    f.runtime.child_signal = 9;
    f.runtime.child_signal_name = xstrdup("SIGKILL");
    f.runtime.child_stage = xstrdup("hipDeviceSynchronize after rd_vector_add (embedded code object)");
    f.runtime.child_stage_device = 0;
    f.runtime.elapsed_s = 2.01;
    f.runtime.timeout_s = 2;
    assess(&f, &fs);
    const rd_finding *t = get(&fs, "runtime.kernel-timeout", RD_SEV_ERROR);
    g_assert_cmpstr(t->gpu, ==, "0000:03:00.0");
    g_assert_true(evidence_has(t, "killed with SIGKILL after 2.0 s"));
    g_assert_true(evidence_has(t, "hipDeviceSynchronize after rd_vector_add"));
    g_assert_cmpint(count_id(&fs, "runtime."), ==, 1);
    rd_findings_free(&fs);

    free(f.runtime.child_status);
    f.runtime.child_status = xstrdup("signal");
    free(f.runtime.child_signal_name);
    f.runtime.child_signal = 6;
    f.runtime.child_signal_name = xstrdup("SIGABRT");
    f.runtime.child_output = xstrdup("Memory access fault by GPU node-1");
    assess(&f, &fs);
    const rd_finding *c = get(&fs, "runtime.kernel-failed", RD_SEV_ERROR);
    g_assert_cmpstr(c->summary, ==, "The ROCm runtime crashed (SIGABRT)");
    g_assert_true(evidence_has(c, "its last output: Memory access fault"));
    rd_findings_free(&fs);

    /* a crash inside hiprtc, after the prebuilt kernel passed, is a warning */
    free(f.runtime.devices[0].result);
    f.runtime.devices[0].result = xstrdup("ok");
    free(f.runtime.child_stage);
    f.runtime.child_stage = xstrdup("hiprtc compiling the kernel for gfx1100");
    assess(&f, &fs);
    get(&fs, "runtime.kernel-failed", RD_SEV_WARNING);
    get(&fs, "runtime.kernel-ok", RD_SEV_OK);
    rd_findings_free(&fs);
    rd_facts_free(&f);
}

static void test_no_device(void)
{
    rd_facts f;
    rd_findings fs;
    load_no_access(&f);
    loaded_ok(&f.runtime, 0);
    free(f.runtime.agents[0].type);
    f.runtime.agents[0].type = xstrdup("cpu");
    assess(&f, &fs);
    const rd_finding *n = get(&fs, "runtime.no-device", RD_SEV_ERROR);
    g_assert_true(evidence_has(n, "cause: kfd.no-access"));
    rd_findings_free(&fs);
    rd_facts_free(&f);
}

static void test_not_run(void)
{
    rd_facts f;
    rd_findings fs;
    load_no_access(&f);
    f.runtime.ran = false;
    assess(&f, &fs);
    g_assert_cmpint(count_id(&fs, "runtime."), ==, 0);
    rd_findings_free(&fs);
    rd_facts_free(&f);
}

static void test_facts_round_trip(void)
{
    rd_facts f;
    load_no_access(&f);
    loaded_ok(&f.runtime, 1);
    rd_runtime_device *d = add_device(&f.runtime, "ok");
    d->launch_latency_us = 12.5;
    rd_runtime_pool *p = ARRAY_APPEND(f.runtime.agents[0].pools, f.runtime.agents[0].n_pools);
    p->segment = xstrdup("global");
    p->size = UINT64_C(25753026560);
    p->coarse_grained = true;
    json_object *j = rd_facts_to_json(&f);
    const char *text = json_object_to_json_string(j);
    rd_facts g;
    _cleanup_free_ char *err = NULL;
    g_assert_cmpint(rd_facts_from_json_string(text, &g, &err), ==, 0);
    g_assert_true(g.runtime.ran);
    g_assert_cmpuint(g.runtime.n_devices, ==, 1);
    g_assert_cmpstr(g.runtime.devices[0].result, ==, "ok");
    g_assert_cmpfloat(g.runtime.devices[0].launch_latency_us, ==, 12.5);
    g_assert_cmpuint(g.runtime.agents[0].pools[0].size, ==, UINT64_C(25753026560));
    g_assert_true(g.runtime.agents[0].pools[0].coarse_grained);
    g_assert_cmpstr(g.runtime.hip_library, ==, "/opt/rocm/lib/libamdhip64.so.6");
    json_object_put(j);
    rd_facts_free(&g);
    rd_facts_free(&f);
}

static const rd_test_case tests[] = {
    { "/runtime/hsa-init-blames-access", test_hsa_init_blames_access },
    { "/runtime/missing-libraries", test_missing_libraries },
    { "/runtime/kernel-ok", test_kernel_ok },
    { "/runtime/agent-against-kfd", test_agent_against_kfd },
    { "/runtime/kernel-failures", test_kernel_failures },
    { "/runtime/timeout-and-crash", test_timeout_and_crash },
    { "/runtime/no-device", test_no_device },
    { "/runtime/not-run", test_not_run },
    { "/runtime/facts-round-trip", test_facts_round_trip },
};

RD_TEST_MAIN_KNOWLEDGE(tests, false, &knowledge)
