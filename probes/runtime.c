/* SPDX-License-Identifier: MIT */
/* Level 2: the ROCm runtime as applications load it, and a kernel on every
 * GPU (the work is in src/runtime/, in a child process). Assessment turns
 * what the runtime said into causes, naming the level-1 finding that
 * explains a runtime failure when there is one. */
#include <inttypes.h>
#include "hsa-loader.h"
#include "distro.h"
#include "probe.h"
#include "term.h"
#include "runtime.h"
#include "util.h"

static void runtime_gather(const rd_ctx *ctx, rd_facts *facts)
{
    rd_runtime_gather(ctx, facts);
}

/* The level-1 findings that explain a runtime failure, by their flags in
 * the catalogue (catalogue.def): RD_FINDING_NO_GPU, those that stop the
 * runtime from opening the GPUs, and RD_FINDING_BAD_ISA, those that give
 * it a GPU whose code it cannot run; the first present in the catalogue's
 * order, the most fundamental. */
static const rd_finding *find_cause(const rd_findings *out, unsigned flag, const char *gpu)
{
    for (size_t k = 0; k < RD_N_FINDINGS; k++) {
        if (!(rd_finding_catalogue[k].flags & flag))
            continue;
        for (size_t i = 0; i < out->n; i++) {
            const rd_finding *f = &out->items[i];
            if (streq(f->id, rd_finding_catalogue[k].id) && f->severity >= RD_SEV_WARNING &&
                (!gpu || !f->gpu || streq(f->gpu, gpu)))
                return f;
        }
    }
    return NULL;
}

static void blame(rd_finding *fd, const rd_finding *cause, const char *what)
{
    rd_finding_evidence(fd, "cause: %s (%s)", cause->id, cause->summary);
    rd_finding_remedy(fd, "Fix %s first: %s", cause->id, what);
}

/* Which package provides a library: AMD's repository when an installation
 * from it is present, else the distribution's. */
/* The install command for the runtime library, in the host's own terms:
 * AMD's package names where AMD's ROCm is installed, else the distribution's. */
static char *package_for(const rd_facts *f, bool hip)
{
    if (f->rocm.default_version && rd_os_family_facts(&f->os) != RD_OS_FEDORA)
        return rd_distro_install_hint(&f->os, hip ? "hip-runtime-amd" : "hsa-rocr",
                                      hip ? "hip-runtime-amd" : "hsa-rocr", hip ? "hip-runtime-amd" : "hsa-rocr",
                                      hip ? "HIP (libamdhip64)" : "libhsa-runtime64");
    return rd_distro_install_hint(&f->os, hip ? "libamdhip64-5" : "libhsa-runtime64-1",
                                  hip ? "rocm-hip" : "rocm-runtime", NULL,
                                  hip ? "HIP (libamdhip64)" : "the ROCm runtime (libhsa-runtime64)");
}

static size_t gpu_agents(const rd_runtime_facts *rt)
{
    size_t n = 0;
    for (size_t i = 0; i < rt->n_agents; i++)
        n += streq_ptr(rt->agents[i].type, "gpu");
    return n;
}

static const rd_runtime_device *device_at(const rd_runtime_facts *rt, int64_t index)
{
    for (size_t i = 0; i < rt->n_devices; i++)
        if (rt->devices[i].index == index)
            return &rt->devices[i];
    return NULL;
}

static void stage_evidence(rd_finding *fd, const rd_runtime_facts *rt)
{
    if (rt->child_stage) {
        const rd_runtime_device *d = rt->child_stage_device >= 0 ? device_at(rt, rt->child_stage_device) : NULL;
        if (d && d->pci_address)
            rd_finding_evidence(fd, "it was at: %s on HIP device %" PRId64 " (%s)", rt->child_stage,
                                rt->child_stage_device, d->pci_address);
        else
            rd_finding_evidence(fd, "it was at: %s", rt->child_stage);
    }
    if (rt->child_output)
        rd_finding_evidence(fd, "its last output: %s", rt->child_output);
}

static const char *stage_gpu(const rd_runtime_facts *rt)
{
    const rd_runtime_device *d = rt->child_stage_device >= 0 ? device_at(rt, rt->child_stage_device) : NULL;
    return d ? d->pci_address : NULL;
}

/* How the runtime process ended, when it did not finish: timeout, signal,
 * exit. What it learned before that is assessed as usual. */
static void assess_child(const rd_runtime_facts *rt, rd_findings *out)
{
    const rd_finding *cause;
    if (rt->error) {
        rd_finding *fd = rd_finding_add(out, RD_FINDING(RUNTIME_KERNEL_FAILED), RD_SEV_ERROR, NULL,
                                        "The GPU runtime check could not be started");
        rd_finding_evidence(fd, "%s", rt->error);
        return;
    }
    if (streq_ptr(rt->child_status, "timeout")) {
        rd_finding *fd = rd_finding_add(out, RD_FINDING(RUNTIME_KERNEL_TIMEOUT), RD_SEV_ERROR, stage_gpu(rt),
                                        "The ROCm runtime did not finish within %" PRId64 " s: the GPU or its "
                                        "driver hangs",
                                        rt->timeout_s);
        rd_finding_evidence(fd, "the runtime process was killed with %s after %.1f s",
                            rt->child_signal_name ? rt->child_signal_name : "SIGKILL", rt->elapsed_s);
        if (rt->child_unkillable)
            rd_finding_evidence(fd, "the process did not die within seconds of SIGKILL: it is stuck inside the "
                                    "kernel driver (uninterruptible sleep)");
        stage_evidence(fd, rt);
        rd_finding_remedy(fd, "Look for amdgpu ring timeouts or GPU resets in `sudo dmesg | grep -i amdgpu`; "
                              "a GPU that hangs on a small kernel needs a reboot (or a reset), and if it keeps "
                              "hanging, newer firmware (linux-firmware) or driver. Rerun with a longer --timeout "
                              "if the machine is merely slow.");
        return;
    }
    bool hiprtc_stage = rt->child_stage && strstr(rt->child_stage, "hiprtc");
    if (streq_ptr(rt->child_status, "signal")) {
        rd_finding *fd = rd_finding_add(
            out, RD_FINDING(RUNTIME_KERNEL_FAILED), hiprtc_stage ? RD_SEV_WARNING : RD_SEV_ERROR, stage_gpu(rt),
            "The ROCm runtime crashed (%s)%s", rt->child_signal_name ? rt->child_signal_name : "signal",
            hiprtc_stage ? " while compiling a kernel with hiprtc" : "");
        rd_finding_evidence(fd, "the runtime process was killed by %s after %.1f s",
                            rt->child_signal_name ? rt->child_signal_name : "a signal", rt->elapsed_s);
        stage_evidence(fd, rt);
        if (!hiprtc_stage && (cause = find_cause(out, RD_FINDING_BAD_ISA, stage_gpu(rt))))
            blame(fd, cause, "crashes and memory access faults follow when the runtime runs a GPU as another ISA.");
        else if (hiprtc_stage)
            rd_finding_remedy(fd, "The installed hiprtc cannot compile for this GPU (ROCm 5.x aborts for "
                                  "targets newer than it knows): run-time compilation, as PyTorch extensions "
                                  "use it, needs a ROCm release that supports this GPU.");
        else
            rd_finding_remedy(fd, "Check `sudo dmesg` for \"Memory access fault\" and amdgpu errors, and run "
                                  "with AMD_LOG_LEVEL=4 to see the runtime's last words.");
        return;
    }
    if (streq_ptr(rt->child_status, "no-result")) {
        rd_finding *fd =
            rd_finding_add(out, RD_FINDING(RUNTIME_KERNEL_FAILED), RD_SEV_ERROR, stage_gpu(rt),
                           "The ROCm runtime ended the process (exit status %" PRId64 ")", rt->child_exit_code);
        stage_evidence(fd, rt);
        rd_finding_remedy(fd, "A runtime that calls exit() cannot start on this host: run with "
                              "AMD_LOG_LEVEL=4 for its reason.");
    }
}

/* gpu.none, when it is an error here: on a host with no AMD GPU it is the one
 * error, and what the runtime says is its evidence, not a second error. */
static rd_finding *gpu_none(rd_findings *out)
{
    for (size_t i = 0; i < out->n; i++)
        if (streq(out->items[i].id, RD_FINDING(GPU_NONE)) && out->items[i].severity == RD_SEV_ERROR)
            return &out->items[i];
    return NULL;
}

static void assess_hsa_init(const rd_assess_input *in, const rd_runtime_facts *rt, rd_findings *out)
{
    char hex[24];
    snprintf(hex, sizeof hex, "0x%" PRIx64, rt->hsa_init_status);
    const char *name = rt->hsa_init_status_name ? rt->hsa_init_status_name : hex;
    bool isa = rt->hsa_init_status == 0x100F || rt->hsa_init_status == 0x1017 || rt->hsa_init_status == 0x1010;
    /* hsa_status_string repeats the name: "HSA_STATUS_ERROR_X: text" */
    const char *text = strempty(rt->hsa_init_status_string);
    const char *rest = rt->hsa_init_status_name ? startswith(text, rt->hsa_init_status_name) : NULL;
    if (rest && startswith(rest, ": "))
        text = rest + 2;
    rd_finding *none = isa ? NULL : gpu_none(out);
    if (none) {
        rd_finding_evidence(none, "level 2: %s: hsa_init: %s (%s)", rt->hsa_library, name, hex);
        if (rt->hip_init_status > 0)
            rd_finding_evidence(none, "level 2: hipGetDeviceCount: %s, %" PRId64 " devices",
                                strempty(rt->hip_device_count_status_name),
                                rt->hip_device_count < 0 ? 0 : rt->hip_device_count);
        return;
    }
    rd_finding *fd = rd_finding_add(out, RD_FINDING(RUNTIME_HSA_INIT_FAILED), RD_SEV_ERROR, NULL,
                                    "The ROCm runtime cannot start: hsa_init returned %s", name);
    rd_finding_evidence(fd, "%s: hsa_init: %s (%s)%s%s", rt->hsa_library, name, hex, *text ? ": " : "", text);
    if (rt->hip_init_status > 0)
        rd_finding_evidence(fd, "HIP agrees: hipInit: %s, hipGetDeviceCount: %s, %" PRId64 " devices",
                            strempty(rt->hip_init_status_name), strempty(rt->hip_device_count_status_name),
                            rt->hip_device_count < 0 ? 0 : rt->hip_device_count);

    const rd_finding *cause = find_cause(out, isa ? RD_FINDING_BAD_ISA : RD_FINDING_NO_GPU, NULL);
    if (cause) {
        blame(fd, cause,
              isa ? "the runtime rejects the GPU's ISA because of it."
                  : "this status is how the runtime reports that it could not open the GPU.");
        return;
    }
    if (rt->hsa_init_status == RD_HSA_STATUS_ERROR_OUT_OF_RESOURCES) {
        const rd_dev_node *kfd = NULL;
        for (size_t i = 0; i < in->facts->access.n_nodes; i++)
            if (streq_ptr(in->facts->access.nodes[i].path, "/dev/kfd"))
                kfd = &in->facts->access.nodes[i];
        if (kfd && !kfd->exists) {
            rd_finding_evidence(fd, "/dev/kfd: absent");
            rd_finding_remedy(fd, "The runtime could not open /dev/kfd, which does not exist here: load amdgpu "
                                  "on a kernel with KFD, or pass --device=/dev/kfd to a container.");
        } else
            rd_finding_remedy(fd, "With /dev/kfd present and accessible, this status means KFD refused another "
                                  "process (about 254 may hold it at once) or ran out of memory: check "
                                  "`sudo lsof /dev/kfd` and `sudo dmesg | grep -i kfd`.");
        return;
    }
    if (isa)
        rd_finding_remedy(fd, "The runtime has no code for the GPU's ISA: check HSA_OVERRIDE_GFX_VERSION "
                              "(unset it, or use a value of the GPU's own family, per node).");
    else
        rd_finding_remedy(fd, "Run `AMD_LOG_LEVEL=4 rocminfo` to see where the runtime stops.");
}

/* The HSA agent of a device and its KFD node, compared: a different gfx
 * means HSA_OVERRIDE_GFX_VERSION is in effect, fewer compute units a
 * CU mask or a partition. */
static void kfd_evidence(const rd_facts *f, const rd_runtime_facts *rt, const rd_runtime_device *d, rd_finding *fd)
{
    const rd_runtime_agent *a = NULL;
    for (size_t i = 0; d->pci_address && i < rt->n_agents; i++)
        if (streq_ptr(rt->agents[i].pci_address, d->pci_address) &&
            (d->kfd_node < 0 || rt->agents[i].kfd_node == d->kfd_node))
            a = &rt->agents[i];
    if (!a)
        return;
    const rd_kfd_node *k = NULL;
    for (size_t i = 0; i < f->kfd.n_nodes; i++)
        if (f->kfd.nodes[i].node_id == a->kfd_node)
            k = &f->kfd.nodes[i];
    uint64_t gtv = 0, simd = 0, per_cu = 0;
    char kfd_gfx[16] = "", hsa_gfx[32] = "";
    if (k && rd_kfd_prop(k, "gfx_target_version", &gtv))
        rd_gfx_name(gtv, kfd_gfx, sizeof kfd_gfx);
    rd_runtime_isa_gfx(a->isa, hsa_gfx, sizeof hsa_gfx);
    int64_t kfd_cus = -1;
    if (k && rd_kfd_prop(k, "simd_count", &simd) && rd_kfd_prop(k, "simd_per_cu", &per_cu) && per_cu > 0)
        kfd_cus = (int64_t)(simd / per_cu);
    uint64_t pool = 0;
    for (size_t i = 0; i < a->n_pools; i++)
        if (streq_ptr(a->pools[i].segment, "global") && a->pools[i].coarse_grained)
            pool += a->pools[i].size;
    char size[32] = "";
    rd_format_bytes(pool, size, sizeof size);
    char kfd_cu_text[48] = "";
    if (kfd_cus >= 0)
        snprintf(kfd_cu_text, sizeof kfd_cu_text, ", %" PRId64 " compute units", kfd_cus);
    rd_finding_evidence(fd,
                        "HSA agent %s: ISA %s, %" PRId64 " compute units, %s device memory; KFD node %" PRId64 ": %s%s",
                        strempty(a->name), a->isa ? a->isa : "unknown", a->compute_units, pool ? size : "no",
                        a->kfd_node, kfd_gfx[0] ? kfd_gfx : "no gfx", kfd_cu_text);
    if (kfd_gfx[0] && hsa_gfx[0] && !streq(kfd_gfx, hsa_gfx))
        rd_finding_evidence(fd, "the runtime runs this %s as %s: HSA_OVERRIDE_GFX_VERSION is in effect", kfd_gfx,
                            hsa_gfx);
    if (kfd_cus > 0 && a->compute_units > 0 && a->compute_units != kfd_cus)
        rd_finding_evidence(fd, "the runtime uses %" PRId64 " of the %" PRId64 " compute units KFD reports",
                            a->compute_units, kfd_cus);
}

static void assess_device(const rd_assess_input *in, const rd_runtime_facts *rt, const rd_runtime_device *d,
                          rd_findings *out)
{
    const char *gpu = d->pci_address;
    const char *label = gpu ? gpu : "GPU";
    const char *gfx = d->gfx ? d->gfx : "unknown gfx";
    if (streq_ptr(d->result, "ok")) {
        rd_finding *fd = rd_finding_add(out, RD_FINDING(RUNTIME_KERNEL_OK), RD_SEV_OK, gpu,
                                        "%s %s computes correctly: launch %.1f µs, host→device %.1f GB/s, "
                                        "device→host %.1f GB/s",
                                        label, gfx, d->launch_latency_us, d->h2d_gbps, d->d2h_gbps);
        rd_finding_evidence(fd, "rd_vector_add and rd_atomic_sum over 1048576 elements: every value exact");
        kfd_evidence(in->facts, rt, d, fd);
        if (streq_ptr(d->hiprtc, "ok"))
            rd_finding_evidence(fd, "hiprtc compiled the kernel for this GPU and it computed correctly");
    } else if (streq_ptr(d->result, "wrong-result")) {
        rd_finding *fd = rd_finding_add(out, RD_FINDING(RUNTIME_KERNEL_FAILED), RD_SEV_ERROR, gpu,
                                        "%s %s runs kernels but computes wrong results", label, gfx);
        rd_finding_evidence(fd, "%s", strempty(d->mismatch));
        kfd_evidence(in->facts, rt, d, fd);
        const rd_finding *cause = find_cause(out, RD_FINDING_BAD_ISA, gpu);
        if (cause)
            blame(fd, cause, "code for another ISA can run and compute garbage.");
        else
            rd_finding_remedy(fd, "Wrong results from a correct kernel point at the hardware, its firmware or "
                                  "memory: check `sudo dmesg` for amdgpu RAS/ECC errors, update linux-firmware, "
                                  "and test the card in another machine.");
    } else if (streq_ptr(d->result, "error")) {
        rd_finding *fd =
            rd_finding_add(out, RD_FINDING(RUNTIME_KERNEL_FAILED), RD_SEV_ERROR, gpu, "%s %s: %s failed with %s", label,
                           gfx, strempty(d->error_call), strempty(d->error_name));
        rd_finding_evidence(fd, "%s: %s (%" PRId64 ")", strempty(d->error_call), strempty(d->error_name),
                            d->error_code);
        kfd_evidence(in->facts, rt, d, fd);
        const char *e = strempty(d->error_name);
        bool code = strstr(e, "NoBinaryForGpu") || strstr(e, "InvalidImage") || strstr(e, "InvalidKernelFile") ||
                    strstr(e, "InvalidDeviceFunction") || strstr(e, "SharedObjectInitFailed");
        const rd_finding *cause = find_cause(out, code ? RD_FINDING_BAD_ISA : RD_FINDING_NO_GPU, gpu);
        if (cause)
            blame(fd, cause, code ? "the runtime takes the GPU for another ISA." : "the runtime cannot use the GPU.");
        else if (code)
            rd_finding_remedy(fd,
                              "The runtime rejects code built for %s: check HSA_OVERRIDE_GFX_VERSION "
                              "(unset it, or use the GPU's own family, per node).",
                              gfx);
        else
            rd_finding_remedy(fd, "Check `sudo dmesg` for amdgpu errors (ring timeouts, GPU resets, memory "
                                  "faults) and rerun with AMD_LOG_LEVEL=4 AMD_SERIALIZE_KERNEL=3 for the "
                                  "runtime's account.");
    } else if (streq_ptr(d->result, "no-code-object")) {
        if (streq_ptr(d->hiprtc, "ok")) {
            rd_finding *fd = rd_finding_add(out, RD_FINDING(RUNTIME_KERNEL_OK), RD_SEV_OK, gpu,
                                            "%s %s computes correctly (kernel compiled with hiprtc)", label, gfx);
            rd_finding_evidence(fd, "rd_vector_add and rd_atomic_sum over 1048576 elements: every value exact");
            return;
        }
        rd_finding *fd = rd_finding_add(out, RD_FINDING(RUNTIME_KERNEL_UNTESTED), RD_SEV_INFO, gpu,
                                        "%s %s was not tested: this rocm-doctor has no kernel for it", label, gfx);
        if (d->hiprtc_error)
            rd_finding_evidence(fd, "hiprtc: %s", d->hiprtc_error);
        rd_finding_remedy(fd,
                          "Build rocm-doctor with a compiler that supports %s (-Dhip-offload-arch), or "
                          "install a ROCm with hiprtc.",
                          gfx);
    }
    if (d->hiprtc && (streq(d->hiprtc, "failed") || streq(d->hiprtc, "wrong-result")) &&
        !streq_ptr(d->result, "no-code-object") && streq_ptr(d->result, "ok")) {
        rd_finding *fd = rd_finding_add(out, RD_FINDING(RUNTIME_KERNEL_FAILED), RD_SEV_WARNING, gpu,
                                        "%s %s runs prebuilt kernels, but hiprtc %s", label, gfx,
                                        streq(d->hiprtc, "failed") ? "cannot compile one for it"
                                                                   : "compiles one that computes wrong results");
        rd_finding_evidence(fd, "%s", strempty(d->hiprtc_error));
        rd_finding_remedy(fd,
                          "Run-time compilation (PyTorch extensions, Triton, hipRTC users) needs a ROCm "
                          "whose compiler supports %s; prebuilt libraries work.",
                          gfx);
    }
}

/* runtime.hsa-missing, runtime.hip-missing: the library did not load. */
static void library_missing(const rd_facts *f, rd_findings *out, const char *id, const char *what,
                            const char *load_error, bool hip)
{
    rd_finding *fd = rd_finding_add(out, id, RD_SEV_ERROR, NULL, "The %s is not installed or cannot be loaded", what);
    rd_finding_evidence(fd, "%s", load_error);
    _cleanup_free_ char *how = package_for(f, hip);
    rd_finding_remedy(fd, "Install it: %s.", how);
}

/* runtime.no-device: blamed on what an earlier probe found, else the
 * variables that hide GPUs. */
static void no_device(rd_findings *out, const char *summary, const char *evidence, const char *why, const char *remedy)
{
    rd_finding *none = gpu_none(out);
    if (none) {
        rd_finding_evidence(none, "level 2: %s", evidence);
        return;
    }
    rd_finding *fd = rd_finding_add(out, RD_FINDING(RUNTIME_NO_DEVICE), RD_SEV_ERROR, NULL, "%s", summary);
    rd_finding_evidence(fd, "%s", evidence);
    const rd_finding *cause = find_cause(out, RD_FINDING_NO_GPU, NULL);
    if (cause)
        blame(fd, cause, why);
    else
        rd_finding_remedy(fd, "%s", remedy);
}

static void runtime_assess(const rd_assess_input *in, rd_findings *out)
{
    const rd_facts *f = in->facts;
    const rd_runtime_facts *rt = &f->runtime;
    if (!rt->ran)
        return;

    assess_child(rt, out);
    if (rt->error)
        return;

    if (!rt->hsa_library && rt->hsa_load_error)
        library_missing(f, out, RD_FINDING(RUNTIME_HSA_MISSING), "ROCm runtime (libhsa-runtime64)", rt->hsa_load_error,
                        false);
    else if (rt->hsa_library && rt->hsa_init_status > 0) {
        assess_hsa_init(in, rt, out);
        return; /* HIP sits on HSA: its failures are the same one */
    } else if (rt->hsa_library && rt->hsa_init_status == 0 && gpu_agents(rt) == 0) {
        _cleanup_free_ char *evidence = xasprintf("%s: %zu agents, none a GPU", rt->hsa_library, rt->n_agents);
        no_device(out, "The ROCm runtime starts but sees no GPU", evidence,
                  "the runtime offers only the GPUs it can open.",
                  "Check ROCR_VISIBLE_DEVICES and HIP_VISIBLE_DEVICES, and run `AMD_LOG_LEVEL=4 rocminfo`.");
        return;
    }

    if (!rt->hip_library && rt->hip_load_error) {
        library_missing(f, out, RD_FINDING(RUNTIME_HIP_MISSING), "HIP runtime (libamdhip64)", rt->hip_load_error, true);
        return;
    }
    if (!rt->hip_library)
        return; /* the child did not get this far */
    if (rt->hip_device_count == 0 && rt->hip_device_count_status >= 0) {
        _cleanup_free_ char *evidence =
            xasprintf("hipInit: %s, hipGetDeviceCount: %s", strempty(rt->hip_init_status_name),
                      strempty(rt->hip_device_count_status_name));
        no_device(out, "HIP sees no GPU", evidence, "HIP offers only the GPUs it can open.",
                  "Check HIP_VISIBLE_DEVICES, CUDA_VISIBLE_DEVICES and ROCR_VISIBLE_DEVICES.");
        return;
    }

    for (size_t i = 0; i < rt->n_devices; i++)
        assess_device(in, rt, &rt->devices[i], out);

    /* GPUs with a KFD node that HIP did not offer */
    if (rt->n_devices == 0 || !streq_ptr(rt->child_status, "exited"))
        return;
    for (size_t i = 0; i < in->gpus->n_gpus; i++) {
        const rd_gpu *g = &in->gpus->gpus[i];
        if (g->n_kfd == 0)
            continue;
        bool seen = false;
        for (size_t k = 0; k < rt->n_devices; k++)
            seen |= streq_ptr(rt->devices[k].pci_address, g->pci->address);
        if (seen)
            continue;
        rd_finding *fd = rd_finding_add(out, RD_FINDING(RUNTIME_NO_DEVICE), RD_SEV_WARNING, g->pci->address,
                                        "%s %s has a KFD node but HIP does not offer it", g->pci->address, g->name);
        rd_finding_evidence(fd, "HIP devices: %zu; KFD node %" PRId64, rt->n_devices, g->kfd[0]->node_id);
        const rd_finding *cause = find_cause(out, RD_FINDING_NO_GPU, g->pci->address);
        if (cause)
            blame(fd, cause, "the runtime skips GPUs it cannot open.");
        else
            rd_finding_remedy(fd, "Check ROCR_VISIBLE_DEVICES and HIP_VISIBLE_DEVICES: they may hide it.");
    }
}

static const char *const runtime_findings[] = {
    RD_FINDING(RUNTIME_HSA_MISSING), RD_FINDING(RUNTIME_HSA_INIT_FAILED), RD_FINDING(RUNTIME_HIP_MISSING),
    RD_FINDING(RUNTIME_NO_DEVICE),   RD_FINDING(RUNTIME_KERNEL_FAILED),   RD_FINDING(RUNTIME_KERNEL_TIMEOUT),
    RD_FINDING(RUNTIME_KERNEL_OK),   RD_FINDING(RUNTIME_KERNEL_UNTESTED), NULL,
};

const rd_probe rd_probe_runtime = {
    .id = "runtime",
    .title = "ROCm runtime and a GPU kernel",
    .flags = RD_PROBE_LEVEL2,
    .findings = runtime_findings,
    .areas = RD_STRV("runtime"),
    .uevents = RD_STRV("pci", "drm", "kfd"),
    .needs_flags = RD_FINDING_NO_GPU | RD_FINDING_BAD_ISA,
    .gather = runtime_gather,
    .assess = runtime_assess,
};
