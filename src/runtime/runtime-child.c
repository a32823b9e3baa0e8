/* SPDX-License-Identifier: MIT */
/* Level 2, the child: loads the ROCm runtime with dlopen, runs the embedded
 * kernel on every GPU and reports each stage to the parent as JSON lines. */
#include "runtime.h"
#include "runtime-private.h"

#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>
#include <time.h>
#include "facts-json.h"
#include "gpus.h"
#include "hip-loader.h"
#include "hsa-loader.h"
#include "kernels/rd-kernels.h"
#include "runtime-dl.h"
#include "util.h"

#define N_ELEMENTS (1u << 20)
#define BLOCK 256u
#define BANDWIDTH_BYTES (64u << 20)
#define LATENCY_RUNS 51

bool rd_runtime_isa_gfx(const char *isa, char *buf, size_t size)
{
    const char *p = isa ? strstr(isa, "--gfx") : NULL;
    if (!p)
        return false;
    p += 2;
    size_t n = strcspn(p, ":");
    if (n == 0 || n >= size)
        return false;
    memcpy(buf, p, n);
    buf[n] = 0;
    return true;
}

/* ---------------------------------------------------------------------- */
/* The child */

typedef struct {
    int fd;
    rd_runtime_facts rt;
    const rd_facts *facts;
} child;

static void emit(child *c, json_object *j)
{
    const char *s = json_object_to_json_string_ext(j, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE);
    size_t n = strlen(s);
    char *line = xmalloc(n + 1);
    memcpy(line, s, n);
    line[n] = '\n';
    for (size_t off = 0; off <= n;) {
        ssize_t w = write(c->fd, line + off, n + 1 - off);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            break; /* the parent is gone: nothing left to tell */
        off += (size_t)w;
    }
    free(line);
    json_object_put(j);
}

static void stage(child *c, int64_t device, const char *fmt, ...) _printf_(3, 4);
static void stage(child *c, int64_t device, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    _cleanup_free_ char *s = xvasprintf(fmt, ap);
    va_end(ap);
    json_object *j = json_object_new_object();
    json_object_object_add(j, "stage", json_object_new_string(s));
    json_object_object_add(j, "device", json_object_new_int64(device));
    emit(c, j);
}

static void snapshot(child *c)
{
    json_object *j = json_object_new_object();
    json_object_object_add(j, "runtime", rd_struct_to_json(&rd_runtime_facts_schema, &c->rt));
    emit(c, j);
}

static const char *segment_name(uint32_t s)
{
    switch (s) {
    case RD_HSA_AMD_SEGMENT_GLOBAL: return "global";
    case RD_HSA_AMD_SEGMENT_READONLY: return "readonly";
    case RD_HSA_AMD_SEGMENT_PRIVATE: return "private";
    case RD_HSA_AMD_SEGMENT_GROUP: return "group";
    default: return "unknown";
    }
}

typedef struct {
    const rd_hsa_lib *lib;
    rd_runtime_agent *agent;
    rd_runtime_facts *rt;
} agent_walk;

static rd_hsa_status pool_cb(rd_hsa_pool pool, void *data)
{
    agent_walk *w = data;
    uint32_t seg = 0, flags = 0;
    size_t size = 0;
    if (w->lib->hsa_amd_memory_pool_get_info(pool, RD_HSA_AMD_MEMORY_POOL_INFO_SEGMENT, &seg) != 0)
        return RD_HSA_STATUS_SUCCESS;
    w->lib->hsa_amd_memory_pool_get_info(pool, RD_HSA_AMD_MEMORY_POOL_INFO_SIZE, &size);
    if (seg == RD_HSA_AMD_SEGMENT_GLOBAL)
        w->lib->hsa_amd_memory_pool_get_info(pool, RD_HSA_AMD_MEMORY_POOL_INFO_GLOBAL_FLAGS, &flags);
    rd_runtime_pool *p = ARRAY_APPEND(w->agent->pools, w->agent->n_pools);
    p->segment = xstrdup(segment_name(seg));
    p->size = size;
    p->coarse_grained = flags & RD_HSA_AMD_MEMORY_POOL_GLOBAL_FLAG_COARSE_GRAINED;
    p->fine_grained = flags & RD_HSA_AMD_MEMORY_POOL_GLOBAL_FLAG_FINE_GRAINED;
    p->kernarg = flags & RD_HSA_AMD_MEMORY_POOL_GLOBAL_FLAG_KERNARG_INIT;
    return RD_HSA_STATUS_SUCCESS;
}

static rd_hsa_status isa_cb(rd_hsa_isa isa, void *data)
{
    agent_walk *w = data;
    uint32_t len = 0;
    if (w->lib->hsa_isa_get_info_alt(isa, RD_HSA_ISA_INFO_NAME_LENGTH, &len) != 0 || len == 0 || len > 4096)
        return RD_HSA_STATUS_SUCCESS;
    char *name = xcalloc(1, len + 1);
    if (w->lib->hsa_isa_get_info_alt(isa, RD_HSA_ISA_INFO_NAME, name) != 0) {
        free(name);
        return RD_HSA_STATUS_SUCCESS;
    }
    w->agent->isa = name;
    return RD_HSA_STATUS_INFO_BREAK; /* the first ISA is the agent's own */
}

static rd_hsa_status agent_cb(rd_hsa_agent agent, void *data)
{
    agent_walk *w = data;
    const rd_hsa_lib *lib = w->lib;
    rd_runtime_agent *a = ARRAY_APPEND(w->rt->agents, w->rt->n_agents);
    char name[64 + 1] = "";
    uint32_t type = 0, u = 0;
    a->kfd_node = -1;
    a->compute_units = -1;
    if (lib->hsa_agent_get_info(agent, RD_HSA_AGENT_INFO_NAME, name) == 0)
        a->name = xstrndup(name, 64);
    lib->hsa_agent_get_info(agent, RD_HSA_AGENT_INFO_DEVICE, &type);
    a->type = xstrdup(type == RD_HSA_DEVICE_TYPE_CPU ? "cpu" : type == RD_HSA_DEVICE_TYPE_GPU ? "gpu" : "dsp");
    memset(name, 0, sizeof name);
    if (lib->hsa_agent_get_info(agent, RD_HSA_AMD_AGENT_INFO_PRODUCT_NAME, name) == 0 && name[0])
        a->product_name = xstrndup(name, 64);
    if (lib->hsa_agent_get_info(agent, RD_HSA_AMD_AGENT_INFO_COMPUTE_UNIT_COUNT, &u) == 0)
        a->compute_units = u;
    if (lib->hsa_agent_get_info(agent, RD_HSA_AMD_AGENT_INFO_DRIVER_NODE_ID, &u) == 0)
        a->kfd_node = u;
    if (type == RD_HSA_DEVICE_TYPE_GPU) {
        uint32_t bdf = 0, domain = 0;
        if (lib->hsa_agent_get_info(agent, RD_HSA_AMD_AGENT_INFO_BDFID, &bdf) == 0) {
            lib->hsa_agent_get_info(agent, RD_HSA_AMD_AGENT_INFO_DOMAIN, &domain);
            a->pci_address =
                xasprintf("%04x:%02x:%02x.%x", domain & 0xffff, (bdf >> 8) & 0xff, (bdf >> 3) & 0x1f, bdf & 0x7);
        }
        agent_walk iw = { lib, a, w->rt };
        lib->hsa_agent_iterate_isas(agent, isa_cb, &iw);
    }
    agent_walk pw = { lib, a, w->rt };
    lib->hsa_amd_agent_iterate_memory_pools(agent, pool_cb, &pw);
    return RD_HSA_STATUS_SUCCESS;
}

static void child_hsa(child *c, char *const *dirs)
{
    rd_hsa_lib lib = { 0 };
    char *err = NULL;
    stage(c, -1, "loading libhsa-runtime64");
    if (rd_hsa_open(dirs, &lib, &err) < 0) {
        c->rt.hsa_load_error = err;
        return;
    }
    c->rt.hsa_library = xstrdup(lib.path);
    stage(c, -1, "hsa_init");
    rd_hsa_status st = lib.hsa_init();
    c->rt.hsa_init_status = st;
    c->rt.hsa_init_status_name = xstrdup_or_null(rd_hsa_status_name(st));
    const char *s = NULL;
    if (lib.hsa_status_string(st, &s) == 0 && s)
        c->rt.hsa_init_status_string = xstrdup(s);
    if (st != RD_HSA_STATUS_SUCCESS)
        return; /* the library stays loaded: unloading a half-started runtime is not safe */
    uint16_t major = 0, minor = 0;
    if (lib.hsa_system_get_info(RD_HSA_SYSTEM_INFO_VERSION_MAJOR, &major) == 0 &&
        lib.hsa_system_get_info(RD_HSA_SYSTEM_INFO_VERSION_MINOR, &minor) == 0)
        c->rt.hsa_version = xasprintf("%u.%u", major, minor);
    stage(c, -1, "hsa_iterate_agents");
    agent_walk w = { &lib, NULL, &c->rt };
    lib.hsa_iterate_agents(agent_cb, &w);
    stage(c, -1, "hsa_shut_down");
    lib.hsa_shut_down();
}

/* The first failing HIP call of a kernel run. */
typedef struct {
    const char *call;
    rd_hip_error code;
    char *mismatch;
    double latency_us, h2d_gbps, d2h_gbps;
} outcome;

#define TRY(o, what, expr)                                                                                             \
    do {                                                                                                               \
        rd_hip_error e_ = (expr);                                                                                      \
        if (e_ != RD_HIP_SUCCESS) {                                                                                    \
            (o)->call = (what);                                                                                        \
            (o)->code = e_;                                                                                            \
            goto out;                                                                                                  \
        }                                                                                                              \
    } while (0)

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* Runs the vector add and the atomic sum from module on the current device
 * and compares the results exactly; with measure, also the launch latency
 * and the copy bandwidth. */
/* After a correct run: the launch latency and the copy bandwidths. */
static void measure_module(child *c, const rd_hip_lib *hip, rd_hip_function empty, int64_t dev, const char *label,
                           outcome *o)
{
    void *dbig = NULL, *hbig = NULL;
    bool hbig_pinned = false;
    /* launch latency: the median round trip of an empty kernel */
    double t[LATENCY_RUNS];
    stage(c, dev, "measuring the launch latency (%s)", label);
    for (int i = -5; i < LATENCY_RUNS; i++) {
        double t0 = now_s();
        TRY(o, "hipModuleLaunchKernel", hip->hipModuleLaunchKernel(empty, 1, 1, 1, 64, 1, 1, 0, NULL, NULL, NULL));
        TRY(o, "hipDeviceSynchronize", hip->hipDeviceSynchronize());
        if (i >= 0)
            t[i] = now_s() - t0;
    }
    qsort(t, LATENCY_RUNS, sizeof t[0], cmp_double);
    o->latency_us = t[LATENCY_RUNS / 2] * 1e6;

    /* copy bandwidth: the best of three, from page-locked memory when the
     * runtime offers it */
    stage(c, dev, "measuring the copy bandwidth (%s)", label);
    if (hip->hipHostMalloc && hip->hipHostFree && hip->hipHostMalloc(&hbig, BANDWIDTH_BYTES, 0) == RD_HIP_SUCCESS)
        hbig_pinned = true;
    else
        hbig = xcalloc(1, BANDWIDTH_BYTES);
    TRY(o, "hipMalloc", hip->hipMalloc(&dbig, BANDWIDTH_BYTES));
    double best_h2d = 0, best_d2h = 0;
    for (int i = 0; i < 4; i++) {
        double t0 = now_s();
        TRY(o, "hipMemcpy", hip->hipMemcpy(dbig, hbig, BANDWIDTH_BYTES, RD_HIP_MEMCPY_HOST_TO_DEVICE));
        double t1 = now_s();
        TRY(o, "hipMemcpy", hip->hipMemcpy(hbig, dbig, BANDWIDTH_BYTES, RD_HIP_MEMCPY_DEVICE_TO_HOST));
        double t2 = now_s();
        if (i == 0)
            continue; /* warm-up */
        if (t1 > t0 && BANDWIDTH_BYTES / (t1 - t0) > best_h2d)
            best_h2d = BANDWIDTH_BYTES / (t1 - t0);
        if (t2 > t1 && BANDWIDTH_BYTES / (t2 - t1) > best_d2h)
            best_d2h = BANDWIDTH_BYTES / (t2 - t1);
    }
    o->h2d_gbps = best_h2d / 1e9;
    o->d2h_gbps = best_d2h / 1e9;

out:
    /* frees are best effort: a failed device may refuse them too */
    if (dbig)
        hip->hipFree(dbig);
    if (hbig_pinned)
        hip->hipHostFree(hbig);
    else
        free(hbig);
}

static void run_module(child *c, const rd_hip_lib *hip, rd_hip_module mod, int64_t dev, const char *label, bool measure,
                       outcome *o)
{
    rd_hip_function add = NULL, sum = NULL, empty = NULL;
    void *da = NULL, *db = NULL, *dc = NULL, *dsum = NULL;
    unsigned *a = xmalloc(N_ELEMENTS * sizeof *a), *b = xmalloc(N_ELEMENTS * sizeof *b);
    unsigned *cc = xcalloc(N_ELEMENTS, sizeof *cc);
    unsigned n = N_ELEMENTS, expect_sum = 0, got_sum = 0;
    size_t bytes = N_ELEMENTS * sizeof(unsigned);

    for (unsigned i = 0; i < n; i++) {
        a[i] = i * 2654435761u;
        b[i] = ~i ^ 0x5bd1e995u;
        expect_sum += a[i];
    }
    TRY(o, "hipModuleGetFunction", hip->hipModuleGetFunction(&add, mod, "rd_vector_add"));
    TRY(o, "hipModuleGetFunction", hip->hipModuleGetFunction(&sum, mod, "rd_atomic_sum"));
    TRY(o, "hipModuleGetFunction", hip->hipModuleGetFunction(&empty, mod, "rd_empty"));
    stage(c, dev, "hipMalloc (%s)", label);
    TRY(o, "hipMalloc", hip->hipMalloc(&da, bytes));
    TRY(o, "hipMalloc", hip->hipMalloc(&db, bytes));
    TRY(o, "hipMalloc", hip->hipMalloc(&dc, bytes));
    TRY(o, "hipMalloc", hip->hipMalloc(&dsum, sizeof(unsigned)));
    stage(c, dev, "hipMemcpy host to device (%s)", label);
    TRY(o, "hipMemcpy", hip->hipMemcpy(da, a, bytes, RD_HIP_MEMCPY_HOST_TO_DEVICE));
    TRY(o, "hipMemcpy", hip->hipMemcpy(db, b, bytes, RD_HIP_MEMCPY_HOST_TO_DEVICE));
    TRY(o, "hipMemset", hip->hipMemset(dc, 0, bytes));
    TRY(o, "hipMemset", hip->hipMemset(dsum, 0, sizeof(unsigned)));

    void *add_args[] = { &da, &db, &dc, &n };
    stage(c, dev, "hipModuleLaunchKernel rd_vector_add (%s)", label);
    TRY(o, "hipModuleLaunchKernel",
        hip->hipModuleLaunchKernel(add, n / BLOCK, 1, 1, BLOCK, 1, 1, 0, NULL, add_args, NULL));
    stage(c, dev, "hipDeviceSynchronize after rd_vector_add (%s)", label);
    TRY(o, "hipDeviceSynchronize", hip->hipDeviceSynchronize());
    void *sum_args[] = { &da, &dsum, &n };
    stage(c, dev, "hipModuleLaunchKernel rd_atomic_sum (%s)", label);
    TRY(o, "hipModuleLaunchKernel",
        hip->hipModuleLaunchKernel(sum, n / BLOCK, 1, 1, BLOCK, 1, 1, 0, NULL, sum_args, NULL));
    stage(c, dev, "hipDeviceSynchronize after rd_atomic_sum (%s)", label);
    TRY(o, "hipDeviceSynchronize", hip->hipDeviceSynchronize());
    stage(c, dev, "hipMemcpy device to host (%s)", label);
    TRY(o, "hipMemcpy", hip->hipMemcpy(cc, dc, bytes, RD_HIP_MEMCPY_DEVICE_TO_HOST));
    TRY(o, "hipMemcpy", hip->hipMemcpy(&got_sum, dsum, sizeof got_sum, RD_HIP_MEMCPY_DEVICE_TO_HOST));

    size_t wrong = 0, first = 0;
    for (unsigned i = 0; i < n; i++)
        if (cc[i] != a[i] + b[i] && wrong++ == 0)
            first = i;
    if (wrong > 0) {
        o->mismatch = xasprintf("rd_vector_add: c[%zu] = %u, expected %u (%zu of %u elements wrong)", first, cc[first],
                                a[first] + b[first], wrong, n);
        goto out;
    }
    if (got_sum != expect_sum) {
        o->mismatch = xasprintf("rd_atomic_sum: sum = %u, expected %u", got_sum, expect_sum);
        goto out;
    }
    if (measure)
        measure_module(c, hip, empty, dev, label, o);

out:
    /* frees are best effort: a failed device may refuse them too */
    if (da)
        hip->hipFree(da);
    if (db)
        hip->hipFree(db);
    if (dc)
        hip->hipFree(dc);
    if (dsum)
        hip->hipFree(dsum);
    free(a);
    free(b);
    free(cc);
}

static void set_error(const rd_hip_lib *hip, rd_runtime_device *d, const char *call, rd_hip_error e)
{
    char buf[32];
    d->result = xstrdup("error");
    d->error_call = xstrdup(call);
    d->error_code = e;
    d->error_name = xstrdup(rd_hip_error_name(hip, e, buf, sizeof buf));
}

/* The gfx target of a HIP device: its HSA agent's ISA (which honours
 * HSA_OVERRIDE_GFX_VERSION as the runtime does), else its KFD node. */
static void device_target(child *c, rd_runtime_device *d)
{
    char gfx[32];
    for (size_t i = 0; d->pci_address && i < c->rt.n_agents; i++) {
        const rd_runtime_agent *a = &c->rt.agents[i];
        if (a->pci_address && streq(a->pci_address, d->pci_address)) {
            d->kfd_node = a->kfd_node;
            if (a->isa) {
                d->isa = xstrdup(a->isa);
                if (rd_runtime_isa_gfx(a->isa, gfx, sizeof gfx)) {
                    d->gfx = xstrdup(gfx);
                    return;
                }
            }
        }
    }
    unsigned dom, bus, dv, fn;
    if (!d->pci_address || !rd_pci_parse_address(d->pci_address, &dom, &bus, &dv, &fn))
        return;
    const rd_kfd_facts *k = &c->facts->kfd;
    for (size_t i = 0; i < k->n_nodes; i++) {
        uint64_t loc, domain = 0, gtv;
        if (!rd_kfd_prop(&k->nodes[i], "location_id", &loc) || !rd_kfd_prop(&k->nodes[i], "gfx_target_version", &gtv) ||
            gtv == 0)
            continue;
        rd_kfd_prop(&k->nodes[i], "domain", &domain);
        if (loc == ((bus << 8) | (dv << 3) | fn) && domain == dom && rd_gfx_name(gtv, gfx, sizeof gfx)) {
            if (d->kfd_node < 0)
                d->kfd_node = k->nodes[i].node_id;
            d->gfx = xstrdup(gfx);
            return;
        }
    }
}

int rd_runtime_code_object_version(int64_t hip_runtime_version)
{
    return hip_runtime_version > 0 && hip_runtime_version < 60000000 ? 4 : 5;
}

static const rd_code_object *find_code_object(const char *gfx, int version)
{
    for (size_t i = 0; gfx && i < rd_n_code_objects; i++)
        if (streq(rd_code_objects[i].gfx, gfx) && rd_code_objects[i].version == version)
            return &rd_code_objects[i];
    return NULL;
}

/* Loads co, the device's code object of the version the runtime calls for,
 * and other, the other version, when the runtime refuses co (a ROCm 6 build
 * without version 5 support, a ROCm 7 that dropped version 4). Returns the
 * last hipModuleLoadData error; *co is the object tried last. */
static rd_hip_error load_code_object(child *c, const rd_hip_lib *hip, rd_runtime_device *d, const rd_code_object **co,
                                     const rd_code_object *other, rd_hip_module *ret_mod)
{
    stage(c, d->index, "hipModuleLoadData (%s code object v%d)", (*co)->gfx, (*co)->version);
    rd_hip_error e = hip->hipModuleLoadData(ret_mod, (*co)->data);
    if (e == RD_HIP_SUCCESS || !other)
        return e;
    char buf[32];
    d->code_object_fallback = xasprintf("code object v%d: hipModuleLoadData failed with %s", (*co)->version,
                                        rd_hip_error_name(hip, e, buf, sizeof buf));
    *co = other;
    stage(c, d->index, "hipModuleLoadData (%s code object v%d)", other->gfx, other->version);
    return hip->hipModuleLoadData(ret_mod, other->data);
}

static void child_device(child *c, const rd_hip_lib *hip, int idx)
{
    rd_runtime_device *d = ARRAY_APPEND(c->rt.devices, c->rt.n_devices);
    char buf[256] = "";
    d->index = idx;
    d->kfd_node = -1;
    d->error_code = -1;
    d->code_object_version = -1;
    stage(c, idx, "hipDeviceGetPCIBusId");
    if (hip->hipDeviceGetPCIBusId(buf, sizeof buf - 1, idx) == RD_HIP_SUCCESS && buf[0]) {
        for (char *p = buf; *p; p++)
            *p = (char)(*p >= 'A' && *p <= 'F' ? *p - 'A' + 'a' : *p);
        d->pci_address = xstrdup(buf);
    }
    memset(buf, 0, sizeof buf);
    if (hip->hipDeviceGetName(buf, sizeof buf - 1, idx) == RD_HIP_SUCCESS && buf[0])
        d->name = xstrdup(buf);
    device_target(c, d);
    snapshot(c); /* who it is, before anything can hang or crash */

    stage(c, idx, "hipSetDevice");
    rd_hip_error e = hip->hipSetDevice(idx);
    if (e != RD_HIP_SUCCESS) {
        set_error(hip, d, "hipSetDevice", e);
        return;
    }
    int want = (int)c->rt.hip_code_object_version;
    const rd_code_object *co = find_code_object(d->gfx, want), *other = find_code_object(d->gfx, want == 4 ? 5 : 4);
    if (!co)
        co = other, other = NULL;
    if (!co) {
        d->result = xstrdup("no-code-object");
        return;
    }
    d->code_object = xstrdup("embedded");
    rd_hip_module mod = NULL;
    e = load_code_object(c, hip, d, &co, other, &mod);
    d->code_object_version = co->version;
    if (e != RD_HIP_SUCCESS) {
        set_error(hip, d, "hipModuleLoadData", e);
        return;
    }
    outcome o = { 0 };
    run_module(c, hip, mod, idx, "embedded code object", true, &o);
    if (o.call)
        set_error(hip, d, o.call, o.code);
    else if (o.mismatch) {
        d->result = xstrdup("wrong-result");
        d->mismatch = TAKE_PTR(o.mismatch);
    } else {
        d->result = xstrdup("ok");
        d->launch_latency_us = o.latency_us;
        d->h2d_gbps = o.h2d_gbps;
        d->d2h_gbps = o.d2h_gbps;
    }
    free(o.mismatch);
    hip->hipModuleUnload(mod);
}

/* Compiles the kernel source for the device's exact ISA with the
 * installation's hiprtc and runs it: what PyTorch extensions and other
 * just-in-time users rely on. */
static void child_hiprtc(child *c, const rd_hip_lib *hip, const rd_hiprtc_lib *rtc, rd_runtime_device *d)
{
    rd_hiprtc_program prog = NULL;
    char *code = NULL;
    const char *target = d->gfx;
    char *isa_target = NULL;
    /* the full target with its features, "gfx90a:sramecc+:xnack-" */
    if (d->isa && strstr(d->isa, "--gfx"))
        target = isa_target = xstrdup(strstr(d->isa, "--gfx") + 2);
    _cleanup_free_ char *opt = xasprintf("--gpu-architecture=%s", target);
    const char *opts[] = { opt, "-O2" };

    stage(c, d->index, "hiprtc compiling the kernel for %s", target);
    rd_hiprtc_result r = rtc->hiprtcCreateProgram(&prog, rd_kernel_source, "rd-kernels.hip", 0, NULL, NULL);
    if (r != 0) {
        d->hiprtc = xstrdup("failed");
        d->hiprtc_error = xasprintf("hiprtcCreateProgram: %s", strempty(rtc->hiprtcGetErrorString(r)));
        goto out;
    }
    r = rtc->hiprtcCompileProgram(prog, ELEMENTSOF(opts), opts);
    if (r != 0) {
        size_t log_size = 0;
        _cleanup_free_ char *log = NULL;
        if (rtc->hiprtcGetProgramLogSize(prog, &log_size) == 0 && log_size > 0 && log_size < (1u << 20)) {
            log = xcalloc(1, log_size + 1);
            if (rtc->hiprtcGetProgramLog(prog, log) != 0)
                log[0] = 0;
        }
        d->hiprtc = xstrdup("failed");
        d->hiprtc_error =
            xasprintf("hiprtcCompileProgram for %s: %s%s%s", target, strempty(rtc->hiprtcGetErrorString(r)),
                      log && *strstrip(log) ? ": " : "", log ? strstrip(log) : "");
        goto out;
    }
    size_t size = 0;
    if (rtc->hiprtcGetCodeSize(prog, &size) != 0 || size == 0) {
        d->hiprtc = xstrdup("failed");
        d->hiprtc_error = xstrdup("hiprtcGetCodeSize: no code");
        goto out;
    }
    code = xmalloc(size);
    if (rtc->hiprtcGetCode(prog, code) != 0) {
        d->hiprtc = xstrdup("failed");
        d->hiprtc_error = xstrdup("hiprtcGetCode failed");
        goto out;
    }
    rd_hip_module mod = NULL;
    char buf[32];
    stage(c, d->index, "hipSetDevice");
    rd_hip_error e = hip->hipSetDevice((int)d->index);
    if (e == RD_HIP_SUCCESS) {
        stage(c, d->index, "hipModuleLoadData (hiprtc code object)");
        e = hip->hipModuleLoadData(&mod, code);
    }
    if (e != RD_HIP_SUCCESS) {
        d->hiprtc = xstrdup("failed");
        d->hiprtc_error =
            xasprintf("hipModuleLoadData of the hiprtc code: %s", rd_hip_error_name(hip, e, buf, sizeof buf));
        goto out;
    }
    outcome o = { 0 };
    run_module(c, hip, mod, d->index, "hiprtc code object", false, &o);
    hip->hipModuleUnload(mod);
    if (o.call) {
        d->hiprtc = xstrdup("failed");
        d->hiprtc_error = xasprintf("%s: %s", o.call, rd_hip_error_name(hip, o.code, buf, sizeof buf));
    } else if (o.mismatch) {
        d->hiprtc = xstrdup("wrong-result");
        d->hiprtc_error = TAKE_PTR(o.mismatch);
    } else
        d->hiprtc = xstrdup("ok");
    free(o.mismatch);
out:
    if (prog)
        rtc->hiprtcDestroyProgram(&prog);
    free(code);
    free(isa_target);
}

static void child_hip(child *c, char *const *dirs)
{
    rd_hip_lib hip = { 0 };
    char *err = NULL, buf[32];
    stage(c, -1, "loading libamdhip64");
    if (rd_hip_open(dirs, &hip, &err) < 0) {
        c->rt.hip_load_error = err;
        return;
    }
    c->rt.hip_library = xstrdup(hip.path);
    int v = 0;
    if (hip.hipRuntimeGetVersion(&v) == RD_HIP_SUCCESS)
        c->rt.hip_runtime_version = v;
    c->rt.hip_code_object_version = rd_runtime_code_object_version(c->rt.hip_runtime_version);
    stage(c, -1, "hipInit");
    rd_hip_error e = hip.hipInit(0);
    c->rt.hip_init_status = e;
    c->rt.hip_init_status_name = xstrdup(rd_hip_error_name(&hip, e, buf, sizeof buf));
    stage(c, -1, "hipGetDeviceCount");
    int count = 0;
    e = hip.hipGetDeviceCount(&count);
    c->rt.hip_device_count_status = e;
    c->rt.hip_device_count_status_name = xstrdup(rd_hip_error_name(&hip, e, buf, sizeof buf));
    c->rt.hip_device_count = e == RD_HIP_SUCCESS ? count : 0;
    snapshot(c);
    if (e != RD_HIP_SUCCESS || count <= 0)
        return;

    for (int i = 0; i < count && i < 256; i++) {
        child_device(c, &hip, i);
        snapshot(c);
    }

    /* just-in-time compilation last: Debian's ROCm 5.2 hiprtc aborts the
     * process for targets it does not know, after every GPU was tested */
    rd_hiprtc_lib rtc = { 0 };
    _cleanup_free_ char *rtc_err = NULL;
    stage(c, -1, "loading hiprtc");
    bool have_rtc = rd_hiprtc_open(dirs, &hip, &rtc, &rtc_err) == 0;
    if (have_rtc)
        c->rt.hiprtc_library = xstrdup(rtc.path);
    for (size_t i = 0; i < c->rt.n_devices; i++) {
        rd_runtime_device *d = &c->rt.devices[i];
        if (!have_rtc) {
            d->hiprtc = xstrdup("unavailable");
            d->hiprtc_error = xstrdup(rtc_err);
            continue;
        }
        if (!d->gfx || (d->result && streq(d->result, "error") && !streq_ptr(d->error_call, "hipModuleLoadData")))
            continue; /* nothing to compile for, or the device failed already */
        child_hiprtc(c, &hip, &rtc, d);
        snapshot(c);
    }
}

_Noreturn void rd_runtime_child_main(int fd, const rd_facts *facts)
{
    child c = { .fd = fd, .facts = facts };
    rd_runtime_facts *rt = &c.rt;
    rt->ran = true;
    rt->hsa_init_status = rt->hip_init_status = rt->hip_device_count_status = -1;
    rt->hip_runtime_version = rt->hip_code_object_version = -1;
    rt->hip_device_count = -1;
    rt->rocm_path = xstrdup_or_null(facts->runtime.rocm_path);
    char **dirs = rd_runtime_lib_dirs(rt->rocm_path);
    child_hsa(&c, dirs);
    snapshot(&c);
    child_hip(&c, dirs);
    snapshot(&c);
    json_object *j = json_object_new_object();
    json_object_object_add(j, "done", json_object_new_boolean(true));
    emit(&c, j);
    strv_free(dirs);
    rd_struct_free(&rd_runtime_facts_schema, rt);
    /* no atexit handlers, no stdio flush: the runtime's own teardown is
     * where broken stacks hang, and there is nothing left to say */
    _exit(0);
}
