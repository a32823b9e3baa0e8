/* SPDX-License-Identifier: MIT */
/* TEST DOUBLE of the ROCm runtime, built only with the test suite and never
 * installed. rocm-doctor loads it instead of libhsa-runtime64, libamdhip64
 * and libhiprtc when ROCM_DOCTOR_RUNTIME_LIB names it. It plays a host whose
 * GPUs are the KFD topology nodes in /sys (so a umockdev testbed decides
 * them), fails hsa_init with HSA_STATUS_ERROR_OUT_OF_RESOURCES when
 * /dev/kfd cannot be opened read-write (as the real runtime does), and runs
 * the kernels on the CPU. ROCM_DOCTOR_TEST_RUNTIME picks its behaviour:
 *
 *   success       correct results (the default)
 *   wrong-result  rd_vector_add gets one element wrong
 *   launch-error  hipModuleLaunchKernel fails with hipErrorLaunchFailure
 *   hang          hipDeviceSynchronize never returns
 *   crash         a "Memory access fault" message, then abort()
 *   hiprtc-fail   hiprtcCompileProgram fails with a compiler log
 *
 * ROCM_DOCTOR_TEST_RUNTIME_ISA=gfxNNN makes every GPU report that target
 * instead of its KFD node's (a GPU this build has no code object for).
 * ROCM_DOCTOR_TEST_RUNTIME_VERSION=N is what hipRuntimeGetVersion returns
 * (default 60241134, ROCm 6.2; 50221153 plays ROCm 5.2), and
 * ROCM_DOCTOR_TEST_RUNTIME_REFUSE_COV=4, 5 or 45 makes hipModuleLoadData
 * refuse code objects of those versions with hipErrorInvalidImage, as a runtime
 * built without it does.
 *
 * Only the entry points rocm-doctor calls exist, with the signatures of
 * ROCm's headers. Real AMD hardware is never involved. */
#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define EXPORT __attribute__((visibility("default")))
#define MAX_GPUS 64
#define KFD_TOPOLOGY "/sys/class/kfd/kfd/topology/nodes"

typedef struct {
    unsigned node_id;
    unsigned gfx_target_version;
    unsigned location_id, domain;
    unsigned compute_units;
    uint64_t vram;
    char gfx[16];
} gpu;

static gpu gpus[MAX_GPUS];
static int n_gpus = -1;
static int current;

static const char *mode(void)
{
    const char *m = secure_getenv("ROCM_DOCTOR_TEST_RUNTIME");
    return m && *m ? m : "success";
}

static int is_mode(const char *m)
{
    return strcmp(mode(), m) == 0;
}

static char *read_text(const char *path)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return NULL;
    char *buf = malloc(65536);
    ssize_t n = buf ? read(fd, buf, 65535) : -1;
    close(fd);
    if (n < 0) {
        free(buf);
        return NULL;
    }
    buf[n] = 0;
    return buf;
}

static uint64_t prop(const char *text, const char *key)
{
    size_t len = strlen(key);
    for (const char *p = text; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL)
        if (strncmp(p, key, len) == 0 && p[len] == ' ')
            return strtoull(p + len + 1, NULL, 10);
    return 0;
}

/* The GPUs: KFD nodes with a gfx_target_version, in node order. */
static void discover(void)
{
    if (n_gpus >= 0)
        return;
    n_gpus = 0;
    for (unsigned node = 0; node < 256 && n_gpus < MAX_GPUS; node++) {
        char path[256];
        snprintf(path, sizeof path, KFD_TOPOLOGY "/%u/properties", node);
        char *text = read_text(path);
        if (!text) {
            if (node > 0)
                break;
            continue;
        }
        uint64_t gtv = prop(text, "gfx_target_version");
        if (gtv) {
            gpu *g = &gpus[n_gpus++];
            memset(g, 0, sizeof *g);
            g->node_id = node;
            g->gfx_target_version = (unsigned)gtv;
            g->location_id = (unsigned)prop(text, "location_id");
            g->domain = (unsigned)prop(text, "domain");
            uint64_t simd = prop(text, "simd_count"), per_cu = prop(text, "simd_per_cu");
            g->compute_units = per_cu ? (unsigned)(simd / per_cu) : 0;
            unsigned major = (unsigned)(gtv / 10000), minor = (unsigned)(gtv / 100 % 100), step = (unsigned)(gtv % 100);
            snprintf(g->gfx, sizeof g->gfx, "gfx%u%x%x", major, minor, step);
            const char *isa = secure_getenv("ROCM_DOCTOR_TEST_RUNTIME_ISA");
            if (isa && *isa)
                snprintf(g->gfx, sizeof g->gfx, "%s", isa);
            snprintf(path, sizeof path, KFD_TOPOLOGY "/%u/mem_banks/0/properties", node);
            char *mem = read_text(path);
            if (mem)
                g->vram = prop(mem, "size_in_bytes");
            free(mem);
        }
        free(text);
    }
}

/* ------------------------------------------------------------------ HSA */

typedef struct {
    uint64_t handle;
} hsa_agent_t;
typedef struct {
    uint64_t handle;
} hsa_isa_t;
typedef struct {
    uint64_t handle;
} hsa_amd_memory_pool_t;
typedef int hsa_status_t;

static int hsa_up;

EXPORT hsa_status_t hsa_init(void)
{
    int fd = open("/dev/kfd", O_RDWR | O_CLOEXEC);
    if (fd < 0)
        return 0x1008; /* HSA_STATUS_ERROR_OUT_OF_RESOURCES, as ROCr says it */
    close(fd);
    discover();
    hsa_up++;
    return 0;
}

EXPORT hsa_status_t hsa_shut_down(void)
{
    if (!hsa_up)
        return 0x100B;
    hsa_up--;
    return 0;
}

EXPORT hsa_status_t hsa_status_string(hsa_status_t s, const char **ret)
{
    switch (s) {
    case 0: *ret = "HSA_STATUS_SUCCESS: The function has been executed successfully."; return 0;
    case 0x1008:
        *ret = "HSA_STATUS_ERROR_OUT_OF_RESOURCES: The runtime failed to allocate the necessary resources.";
        return 0;
    default: return 0x1001;
    }
}

EXPORT hsa_status_t hsa_system_get_info(int attribute, void *value)
{
    if (attribute == 0 || attribute == 1) {
        *(uint16_t *)value = 1;
        return 0;
    }
    return 0x1001;
}

/* agent 0 is the CPU, agent i + 1 is gpus[i] */
EXPORT hsa_status_t hsa_iterate_agents(hsa_status_t (*cb)(hsa_agent_t, void *), void *data)
{
    if (!hsa_up)
        return 0x100B;
    for (int i = 0; i <= n_gpus; i++) {
        hsa_status_t s = cb((hsa_agent_t){ (uint64_t)i }, data);
        if (s == 1)
            return 0;
        if (s != 0)
            return s;
    }
    return 0;
}

EXPORT hsa_status_t hsa_agent_get_info(hsa_agent_t agent, int attribute, void *value)
{
    int i = (int)agent.handle - 1;
    const gpu *g = i >= 0 && i < n_gpus ? &gpus[i] : NULL;
    switch (attribute) {
    case 0: /* NAME */
        memset(value, 0, 64);
        snprintf(value, 64, "%s", g ? g->gfx : "Test Double CPU");
        return 0;
    case 17: /* DEVICE */ *(uint32_t *)value = g ? 1 : 0; return 0;
    case 0xA002: *(uint32_t *)value = g ? g->compute_units : 16; return 0;
    case 0xA004: *(uint32_t *)value = g ? g->node_id : 0; return 0;
    case 0xA006:
        if (!g)
            return 0x1001;
        *(uint32_t *)value = g->location_id;
        return 0;
    case 0xA00F:
        if (!g)
            return 0x1001;
        *(uint32_t *)value = g->domain;
        return 0;
    case 0xA009:
        memset(value, 0, 64);
        snprintf(value, 64, "%s", g ? "AMD Radeon Test Double" : "Test Double CPU");
        return 0;
    default: return 0x1001;
    }
}

EXPORT hsa_status_t hsa_agent_iterate_isas(hsa_agent_t agent, hsa_status_t (*cb)(hsa_isa_t, void *), void *data)
{
    if (agent.handle == 0)
        return 0x1004;
    hsa_status_t s = cb((hsa_isa_t){ agent.handle }, data);
    return s == 1 ? 0 : s;
}

EXPORT hsa_status_t hsa_isa_get_info_alt(hsa_isa_t isa, int attribute, void *value)
{
    char name[64];
    snprintf(name, sizeof name, "amdgcn-amd-amdhsa--%s", gpus[isa.handle - 1].gfx);
    if (attribute == 0) {
        *(uint32_t *)value = (uint32_t)strlen(name) + 1;
        return 0;
    }
    if (attribute == 1) {
        memcpy(value, name, strlen(name) + 1);
        return 0;
    }
    return 0x1001;
}

EXPORT hsa_status_t hsa_amd_agent_iterate_memory_pools(hsa_agent_t agent,
                                                       hsa_status_t (*cb)(hsa_amd_memory_pool_t, void *), void *data)
{
    hsa_status_t s = cb((hsa_amd_memory_pool_t){ agent.handle }, data);
    return s == 1 ? 0 : s;
}

EXPORT hsa_status_t hsa_amd_memory_pool_get_info(hsa_amd_memory_pool_t pool, int attribute, void *value)
{
    int i = (int)pool.handle - 1;
    switch (attribute) {
    case 0: *(uint32_t *)value = 0; return 0;              /* global */
    case 1: *(uint32_t *)value = i >= 0 ? 4 : 3; return 0; /* coarse / fine + kernarg */
    case 2: *(size_t *)value = i >= 0 ? (size_t)gpus[i].vram : (size_t)64 << 30; return 0;
    default: return 0x1001;
    }
}

/* ------------------------------------------------------------------ HIP */

typedef int hipError_t;
enum {
    OK = 0,
    NO_DEVICE = 100,
    INVALID_DEVICE = 101,
    INVALID_IMAGE = 200,
    NO_BINARY = 209,
    NOT_FOUND = 500,
    LAUNCH_FAILURE = 719
};

typedef struct {
    char gfx[16];
    int jit;
} module;

typedef struct {
    int kind; /* 0 vector add, 1 atomic sum, 2 empty */
} function;

static const function functions[] = { { 0 }, { 1 }, { 2 } };
static int hang_next_sync;

EXPORT hipError_t hipInit(unsigned flags)
{
    (void)flags;
    if (hsa_init() != 0)
        return INVALID_DEVICE; /* what ROCm 5.2 returns without /dev/kfd */
    return n_gpus > 0 ? OK : NO_DEVICE;
}

EXPORT hipError_t hipRuntimeGetVersion(int *ret)
{
    const char *v = secure_getenv("ROCM_DOCTOR_TEST_RUNTIME_VERSION");
    *ret = v && *v ? atoi(v) : 60241134;
    return OK;
}

/* Code object version of an AMDGPU ELF: EI_ABIVERSION 2 is 4, 3 is 5. */
static int refused_version(const unsigned char *image)
{
    const char *refuse = secure_getenv("ROCM_DOCTOR_TEST_RUNTIME_REFUSE_COV");
    return refuse && memcmp(image, "\177ELF", 4) == 0 && strchr(refuse, '0' + image[8] + 2);
}

EXPORT hipError_t hipGetDeviceCount(int *ret)
{
    *ret = hsa_up ? n_gpus : 0;
    return *ret > 0 ? OK : NO_DEVICE;
}

EXPORT const char *hipGetErrorName(hipError_t e)
{
    switch (e) {
    case OK: return "hipSuccess";
    case NO_DEVICE: return "hipErrorNoDevice";
    case INVALID_DEVICE: return "hipErrorInvalidDevice";
    case NO_BINARY: return "hipErrorNoBinaryForGpu";
    case INVALID_IMAGE: return "hipErrorInvalidImage";
    case NOT_FOUND: return "hipErrorNotFound";
    case LAUNCH_FAILURE: return "hipErrorLaunchFailure";
    default: return "hipErrorUnknown";
    }
}

EXPORT hipError_t hipDeviceGetName(char *name, int len, int device)
{
    if (device < 0 || device >= n_gpus)
        return INVALID_DEVICE;
    snprintf(name, (size_t)len, "AMD Radeon Test Double");
    return OK;
}

EXPORT hipError_t hipDeviceGetPCIBusId(char *id, int len, int device)
{
    if (device < 0 || device >= n_gpus)
        return INVALID_DEVICE;
    unsigned loc = gpus[device].location_id;
    snprintf(id, (size_t)len, "%04X:%02X:%02X.%X", gpus[device].domain, loc >> 8, (loc >> 3) & 0x1f, loc & 7);
    return OK;
}

EXPORT hipError_t hipSetDevice(int device)
{
    if (device < 0 || device >= n_gpus)
        return INVALID_DEVICE;
    current = device;
    return OK;
}

EXPORT hipError_t hipMalloc(void **ret, size_t size)
{
    *ret = calloc(1, size ? size : 1);
    return *ret ? OK : 2;
}

EXPORT hipError_t hipFree(void *p)
{
    free(p);
    return OK;
}

EXPORT hipError_t hipHostMalloc(void **ret, size_t size, unsigned flags)
{
    (void)flags;
    return hipMalloc(ret, size);
}

EXPORT hipError_t hipHostFree(void *p)
{
    return hipFree(p);
}

EXPORT hipError_t hipMemcpy(void *dst, const void *src, size_t size, int kind)
{
    (void)kind;
    memmove(dst, src, size);
    return OK;
}

EXPORT hipError_t hipMemset(void *dst, int value, size_t size)
{
    memset(dst, value, size);
    return OK;
}

/* The target named in an AMDGPU code object's metadata note. */
static int image_target(const unsigned char *image, char *gfx, size_t size)
{
    static const char jit[] = "RDDOUBLE-RTC ";
    if (memcmp(image, jit, sizeof jit - 1) == 0) {
        snprintf(gfx, size, "%.*s", (int)strcspn((const char *)image + sizeof jit - 1, " :"),
                 (const char *)image + sizeof jit - 1);
        return 1;
    }
    if (memcmp(image, "\177ELF", 4) != 0 || image[4] != 2 || (image[18] | image[19] << 8) != 224)
        return -1;
    uint64_t shoff, end;
    memcpy(&shoff, image + 0x28, 8);
    uint16_t shentsize = (uint16_t)(image[0x3a] | image[0x3b] << 8), shnum = (uint16_t)(image[0x3c] | image[0x3d] << 8);
    end = shoff + (uint64_t)shentsize * shnum;
    static const char prefix[] = "amdgcn-amd-amdhsa--";
    const unsigned char *p = memmem(image, (size_t)end, prefix, sizeof prefix - 1);
    if (!p)
        return -1;
    p += sizeof prefix - 1;
    size_t n = 0;
    while (n + 1 < size && ((p[n] >= 'a' && p[n] <= 'z') || (p[n] >= '0' && p[n] <= '9')))
        gfx[n] = (char)p[n], n++;
    gfx[n] = 0;
    return 0;
}

EXPORT hipError_t hipModuleLoadData(void **ret, const void *image)
{
    char gfx[16];
    int jit = image_target(image, gfx, sizeof gfx);
    if (jit < 0 || refused_version(image))
        return INVALID_IMAGE;
    if (strcmp(gfx, gpus[current].gfx) != 0)
        return NO_BINARY;
    module *m = calloc(1, sizeof *m);
    snprintf(m->gfx, sizeof m->gfx, "%s", gfx);
    m->jit = jit;
    *ret = m;
    return OK;
}

EXPORT hipError_t hipModuleUnload(void *m)
{
    free(m);
    return OK;
}

EXPORT hipError_t hipModuleGetFunction(void **ret, void *m, const char *name)
{
    (void)m;
    static const char *const names[] = { "rd_vector_add", "rd_atomic_sum", "rd_empty" };
    for (int i = 0; i < 3; i++)
        if (strcmp(name, names[i]) == 0) {
            *ret = (void *)&functions[i];
            return OK;
        }
    return NOT_FOUND;
}

EXPORT hipError_t hipModuleLaunchKernel(void *f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by,
                                        unsigned bz, unsigned shared_bytes, void *stream, void **params, void **extra)
{
    (void)gy, (void)gz, (void)by, (void)bz, (void)shared_bytes, (void)stream, (void)extra;
    const function *fn = f;
    if (is_mode("launch-error"))
        return LAUNCH_FAILURE;
    if (is_mode("crash")) {
        fprintf(stderr,
                "Memory access fault by GPU node-%u (Agent handle: 0x55d0c3a0) on address 0x7f3a00000000. "
                "Reason: Page not present or supervisor privilege.\n",
                gpus[current].node_id);
        abort();
    }
    if (is_mode("hang"))
        hang_next_sync = 1;
    unsigned threads = gx * bx;
    if (fn->kind == 0) {
        const unsigned *a = *(unsigned **)params[0], *b = *(unsigned **)params[1];
        unsigned *c = *(unsigned **)params[2], n = *(unsigned *)params[3];
        for (unsigned i = 0; i < threads && i < n; i++)
            c[i] = a[i] + b[i] + (is_mode("wrong-result") && i == 12345);
    } else if (fn->kind == 1) {
        const unsigned *a = *(unsigned **)params[0];
        unsigned *sum = *(unsigned **)params[1], n = *(unsigned *)params[2];
        for (unsigned i = 0; i < threads && i < n; i++)
            *sum += a[i];
    }
    return OK;
}

EXPORT hipError_t hipDeviceSynchronize(void)
{
    if (hang_next_sync)
        for (;;)
            pause();
    return OK;
}

/* ---------------------------------------------------------------- hiprtc */

typedef struct {
    char *code;
    size_t size;
    char *log;
} program;

EXPORT const char *hiprtcGetErrorString(int r)
{
    return r == 0 ? "HIPRTC_SUCCESS" : r == 6 ? "HIPRTC_ERROR_COMPILATION" : "HIPRTC_ERROR_INTERNAL_ERROR";
}

EXPORT int hiprtcCreateProgram(void **ret, const char *src, const char *name, int n_headers, const char **headers,
                               const char **include_names)
{
    (void)name, (void)n_headers, (void)headers, (void)include_names;
    if (!strstr(src, "rd_vector_add") || !strstr(src, "rd_atomic_sum"))
        return 11; /* HIPRTC_ERROR_INTERNAL_ERROR */
    *ret = calloc(1, sizeof(program));
    return 0;
}

EXPORT int hiprtcCompileProgram(void *p, int n_options, const char **options)
{
    program *prog = p;
    const char *arch = NULL;
    for (int i = 0; i < n_options; i++)
        if (strncmp(options[i], "--gpu-architecture=", 19) == 0)
            arch = options[i] + 19;
    if (!arch || is_mode("hiprtc-fail")) {
        prog->log = strdup("error: cannot compile for this target\n1 error generated when compiling for the device.");
        return 6;
    }
    size_t n = strlen("RDDOUBLE-RTC ") + strlen(arch) + 1;
    prog->code = malloc(n);
    snprintf(prog->code, n, "RDDOUBLE-RTC %s", arch);
    prog->size = n;
    return 0;
}

EXPORT int hiprtcGetProgramLogSize(void *p, size_t *ret)
{
    program *prog = p;
    *ret = prog->log ? strlen(prog->log) + 1 : 1;
    return 0;
}

EXPORT int hiprtcGetProgramLog(void *p, char *log)
{
    program *prog = p;
    strcpy(log, prog->log ? prog->log : "");
    return 0;
}

EXPORT int hiprtcGetCodeSize(void *p, size_t *ret)
{
    *ret = ((program *)p)->size;
    return 0;
}

EXPORT int hiprtcGetCode(void *p, char *code)
{
    program *prog = p;
    memcpy(code, prog->code, prog->size);
    return 0;
}

EXPORT int hiprtcDestroyProgram(void **p)
{
    program *prog = *p;
    free(prog->code);
    free(prog->log);
    free(prog);
    *p = NULL;
    return 0;
}
