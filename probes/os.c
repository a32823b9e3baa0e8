/* SPDX-License-Identifier: MIT */
/* OS: release, kernel, virtualization, container and WSL. */
#include "os.h"

#include <ctype.h>
#include <fcntl.h>
#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif
#include <sys/stat.h>
#include "distro.h"
#include "probe.h"
#include "release.h"
#include "rootfs.h"
#include "util.h"

typedef struct {
    const char *key;
    size_t klen;
    char *value;
} os_release_query;

/* KEY=value, the value unquoted and unescaped: 1 (found) stops the walk. */
static int os_release_line(char *line, void *userdata)
{
    os_release_query *q = userdata;
    size_t len = strlen(line);
    while (len > 0 && isspace((unsigned char)*line)) {
        line++;
        len--;
    }
    if (len <= q->klen || memcmp(line, q->key, q->klen) != 0 || line[q->klen] != '=')
        return 0;
    const char *v = line + q->klen + 1;
    size_t vlen = len - q->klen - 1;
    while (vlen > 0 && isspace((unsigned char)v[vlen - 1]))
        vlen--;
    char quote = vlen >= 2 && (v[0] == '"' || v[0] == '\'') && v[vlen - 1] == v[0] ? v[0] : 0;
    if (quote) {
        v++;
        vlen -= 2;
    }
    strbuf b = { 0 };
    for (size_t i = 0; i < vlen; i++) {
        if (quote == '"' && v[i] == '\\' && i + 1 < vlen)
            i++;
        strbuf_appendn(&b, &v[i], 1);
    }
    q->value = strbuf_steal(&b);
    return 1;
}

char *rd_os_release_get(const char *text, const char *key)
{
    os_release_query q = { key, strlen(key), NULL };
    foreach_line(text, os_release_line, &q);
    return q.value;
}

/* The hypervisor's CPUID signature (leaf 0x40000000, 12 bytes), as
 * systemd-detect-virt reads it; "" where there is none (not x86). Tests
 * give it with ROCM_DOCTOR_TEST_CPUID_VENDOR. */
static void cpuid_hypervisor_vendor(char ret[static 13])
{
    memset(ret, 0, 13);
    const char *test = secure_getenv("ROCM_DOCTOR_TEST_CPUID_VENDOR");
    if (test) {
        snprintf(ret, 13, "%s", test);
        return;
    }
#if defined(__x86_64__) || defined(__i386__)
    unsigned eax, ebx, ecx, edx;
    __cpuid(0x40000000, eax, ebx, ecx, edx);
    (void)eax;
    memcpy(ret, &ebx, 4);
    memcpy(ret + 4, &ecx, 4);
    memcpy(ret + 8, &edx, 4);
#endif
}

/* The first CPU's "flags" line: 1 when it has "hypervisor", else 2 (the
 * walk stops there either way). */
static int cpuinfo_flags_line(char *line, void *userdata)
{
    char *colon = strchr(line, ':');
    if (!startswith(line, "flags") || !colon)
        return 0;
    char *save = NULL;
    for (char *tok = strtok_r(colon + 1, " \t", &save); tok; tok = strtok_r(NULL, " \t", &save))
        if (streq(tok, "hypervisor"))
            return 1;
    return 2;
}

/* Whether /proc/cpuinfo's flags have "hypervisor" (CPUID.1:ECX bit 31, set
 * by every x86 hypervisor): the CPUID signature is asked only then, since
 * on bare metal leaf 0x40000000 returns whatever the CPU has there. */
static bool cpuinfo_hypervisor_flag(void)
{
    _cleanup_close_ int fd = open_regular_at(AT_FDCWD, "/proc/cpuinfo", NULL);
    _cleanup_free_ char *text = NULL;
    if (fd < 0 || read_fd(fd, 4 * 1024 * 1024, &text, NULL) < 0)
        return false;
    return foreach_line(text, cpuinfo_flags_line, NULL) == 1;
}

/* A KVM guest may have no DMI strings (a minimal machine type, firecracker,
 * cloud-hypervisor): then the device tree, /sys/hypervisor and the CPUID
 * signature tell, in the order systemd-detect-virt asks them. */
static char *detect_virtualization(void)
{
    static const struct {
        const char *needle, *name;
    } vendors[] = {
        { "QEMU", "qemu" },     { "KVM", "kvm" },
        { "VMware", "vmware" }, { "Microsoft Corporation", "microsoft" },
        { "Xen", "xen" },       { "Amazon EC2", "amazon" },
        { "Google", "google" }, { "innotek", "oracle" },
    };
    static const char *const attrs[] = { "/sys/class/dmi/id/sys_vendor", "/sys/class/dmi/id/product_name" };
    for (size_t a = 0; a < ELEMENTSOF(attrs); a++) {
        _cleanup_free_ char *v = NULL;
        if (read_line_at(AT_FDCWD, attrs[a], &v) < 0)
            continue;
        for (size_t i = 0; i < ELEMENTSOF(vendors); i++)
            if (strstr(v, vendors[i].needle))
                return xstrdup(vendors[i].name);
    }
    /* device tree (arm64, ppc64 guests): a NUL-separated list */
    _cleanup_close_ int dt = open_regular_at(AT_FDCWD, "/proc/device-tree/hypervisor/compatible", NULL);
    _cleanup_free_ char *compat = NULL;
    size_t n = 0;
    if (dt >= 0 && read_fd(dt, 4096, &compat, &n) >= 0) {
        static const struct {
            const char *compatible, *name;
        } dt_names[] = { { "linux,kvm", "kvm" }, { "xen", "xen" }, { "vmware", "vmware" } };
        for (const char *c = compat; c < compat + n; c += strlen(c) + 1)
            for (size_t i = 0; i < ELEMENTSOF(dt_names); i++)
                if (streq(c, dt_names[i].compatible))
                    return xstrdup(dt_names[i].name);
        return xstrdup("vm-other");
    }
    _cleanup_free_ char *hv = NULL;
    if (read_line_at(AT_FDCWD, "/sys/hypervisor/type", &hv) == 0 && *hv)
        return xstrdup(hv);
    if (!cpuinfo_hypervisor_flag())
        return NULL;
    static const struct {
        const char *signature, *name;
    } cpuid_names[] = {
        { "KVMKVMKVM", "kvm" },          { "Linux KVM Hv", "kvm" },    { "TCGTCGTCGTCG", "qemu" },
        { "XenVMMXenVMM", "xen" },       { "VMwareVMware", "vmware" }, { "Microsoft Hv", "microsoft" },
        { "bhyve bhyve ", "bhyve" },     { "QNXQVMBSQG", "qnx" },      { "ACRNACRNACRN", "acrn" },
        { " lrpepyh  vr", "parallels" }, { "SRESRESRESRE", "sre" },    { "VBoxVBoxVBox", "oracle" },
    };
    char vendor[13];
    cpuid_hypervisor_vendor(vendor);
    for (size_t i = 0; i < ELEMENTSOF(cpuid_names); i++)
        if (streq(vendor, cpuid_names[i].signature))
            return xstrdup(cpuid_names[i].name);
    /* the hypervisor bit without a known signature */
    return xstrdup("vm-other");
}

/* What says a container engine started this process: the files an engine
 * bind-mounts into every container it starts (/etc/hostname, /etc/hosts,
 * /etc/resolv.conf: Docker, Podman, containerd and CRI-O all do), or PID 1's
 * cgroup naming one. NULL when neither does; "" when /proc/self/mountinfo
 * cannot be read (nothing disproves a container then). */
static char *engine_marker(void)
{
    _cleanup_free_ char *mounts = NULL;
    if (read_file_at(AT_FDCWD, "/proc/self/mountinfo", 0, &mounts, NULL) < 0)
        return xstrdup("");
    /* mountinfo(5): ID PARENT MAJ:MIN ROOT MOUNT_POINT ... */
    for (char *line = mounts, *next; line && *line; line = next) {
        next = strchr(line, '\n');
        if (next)
            *next++ = 0;
        _cleanup_strv_free_ char **f = strv_split(line, " ");
        if (strv_length(f) < 5)
            continue;
        if (streq(f[4], "/etc/hostname") || streq(f[4], "/etc/hosts") || streq(f[4], "/etc/resolv.conf"))
            return xasprintf("%s is a mount of its own (/proc/self/mountinfo)", f[4]);
    }
    _cleanup_free_ char *cg = NULL;
    if (read_file_at(AT_FDCWD, "/proc/1/cgroup", 65536, &cg, NULL) == 0) {
        static const char *const engines[] = { "docker", "containerd", "kubepods", "libpod", "crio" };
        for (size_t i = 0; i < ELEMENTSOF(engines); i++)
            if (strstr(cg, engines[i])) {
                size_t n = strcspn(cg, "\n");
                return xasprintf("/proc/1/cgroup: %.*s", (int)n, cg);
            }
    }
    return NULL;
}

static void detect_container(const rd_ctx *ctx, rd_os_facts *o)
{
    int fd;
    _cleanup_free_ char *engine = NULL;
    /* /.dockerenv is a file of the image: an image built with Docker and
     * booted as a VM still has it. It counts with a sign of the engine. */
    if ((fd = rd_root_open(ctx, "/.dockerenv", O_PATH)) >= 0 && (close(fd), engine = engine_marker())) {
        o->container = xstrdup("docker");
        o->container_evidence = *engine ? xasprintf("/.dockerenv exists; %s", engine) : xstrdup("/.dockerenv exists");
    } else if ((fd = rd_root_open(ctx, "/run/.containerenv", O_PATH)) >= 0) {
        close(fd);
        o->container = xstrdup("podman");
        o->container_evidence = xstrdup("/run/.containerenv exists");
    } else if (!rd_ctx_has_root(ctx) && secure_getenv("KUBERNETES_SERVICE_HOST")) {
        o->container = xstrdup("kubernetes");
        o->container_evidence = xstrdup("KUBERNETES_SERVICE_HOST is set");
    } else if (!rd_ctx_has_root(ctx) && secure_getenv("container")) {
        o->container = xstrdup(secure_getenv("container"));
        o->container_evidence = xasprintf("container=%s in the environment", o->container);
    }
}

static void os_gather(const rd_ctx *ctx, rd_facts *facts)
{
    rd_os_facts *o = &facts->os;
    _cleanup_free_ char *text = NULL;
    /* os-release(5): /usr/lib/os-release only when /etc has none; line-based,
     * so read whole whatever its size */
    const char *path = "/etc/os-release";
    int r = rd_root_read_file(ctx, path, 0, &text);
    if (r == -ENOENT) {
        path = "/usr/lib/os-release";
        r = rd_root_read_file(ctx, path, 0, &text);
    }
    rd_facts_note_unreadable(facts, path, r,
                             "the distribution and release (which ROCm packages, repositories "
                             "and kernels apply)");
    if (r < 0)
        o->os_release_error = xasprintf("%s: %s", r == -ENOENT ? "/etc/os-release" : path, rootfs_strerror(r));
    else {
        o->id = rd_os_release_get(text, "ID");
        o->id_like = rd_os_release_get(text, "ID_LIKE");
        o->version_id = rd_os_release_get(text, "VERSION_ID");
        o->version_codename = rd_os_release_get(text, "VERSION_CODENAME");
        o->pretty_name = rd_os_release_get(text, "PRETTY_NAME");
    }
    o->family = xstrdup(rd_os_family_name(rd_os_family_of(o->id, o->id_like)));
    char *s = NULL;
    if (read_line_at(AT_FDCWD, "/proc/sys/kernel/osrelease", &s) == 0)
        o->kernel_release = s;
    if (read_line_at(AT_FDCWD, "/proc/version", &s) == 0)
        o->proc_version = s;
    o->virtualization = detect_virtualization();
    detect_container(ctx, o);

    struct stat st;
    if (o->proc_version && (strcasestr(o->proc_version, "microsoft") || strcasestr(o->proc_version, "WSL"))) {
        o->wsl = true;
        o->wsl_evidence = xasprintf("/proc/version: %s", o->proc_version);
    } else if (stat("/dev/dxg", &st) == 0) {
        o->wsl = true;
        o->wsl_evidence = xstrdup("/dev/dxg exists");
    }
}

static void assess_unlisted(const rd_assess_input *in, rd_findings *out)
{
    const rd_os_facts *o = &in->facts->os;
    const rd_knowledge *k = in->knowledge;
    if (in->gpus->n_gpus == 0 || !o->id || k->n_releases == 0)
        return;
    /* the release of AMD's ROCm installed when there is one, else the newest */
    const rd_release *rel = rd_knowledge_release(k, rd_release_amd_installed(in->facts));
    if (!rel)
        rel = &k->releases[k->n_releases - 1];
    if (rd_release_find_os(rel, o->id, o->version_id))
        return;
    rd_finding *fd = rd_finding_add(out, RD_FINDING(OS_NOT_VALIDATED), RD_SEV_INFO, NULL,
                                    "%s is not a release AMD lists for ROCm %s: it is not validated by AMD",
                                    o->pretty_name ? o->pretty_name : o->id, rel->line);
    rd_finding_evidence(fd, "/etc/os-release: ID=%s VERSION_ID=%s%s%s", o->id, strempty(o->version_id),
                        o->id_like ? " ID_LIKE=" : "", strempty(o->id_like));
    strbuf b = { 0 };
    for (size_t i = 0; i < rel->n_os; i++)
        strbuf_printf(&b, "%s%s %s", i ? ", " : "", rel->os[i].id, rel->os[i].version_id);
    rd_finding_evidence(fd, "support.ini %s: ROCm %s lists %s", strempty(k->support_info.version), rel->line,
                        strempty(b.s));
    free(b.s);
    const rd_release_os *near = rd_support_nearest_os(rel, o);
    if (near) {
        strbuf ks = { 0 };
        for (char **kv = near->kernels; kv && *kv; kv++)
            strbuf_printf(&ks, "%s%s", ks.s ? " " : "", *kv);
        rd_finding_remedy(fd,
                          "ROCm often works here, but AMD has not tested it. The nearest release AMD lists is "
                          "%s %s (kernels %s): use it where AMD's support matters, and compare with it when "
                          "something fails.",
                          near->id, near->version_id, strempty(ks.s));
        free(ks.s);
    } else
        rd_finding_remedy(fd, "ROCm often works here, but AMD has not tested this distribution; the ROCm packages "
                              "it ships itself are its own. Where AMD's support matters, use a listed release "
                              "(`rocm-doctor list releases`).");
}

/* Files a probe could not read: what the check did not see. */
static void assess_unreadable(const rd_facts *f, rd_findings *out)
{
    if (f->n_unreadable == 0)
        return;
    rd_finding *fd = rd_finding_add(out, RD_FINDING(FACTS_UNREADABLE), RD_SEV_WARNING, NULL,
                                    f->n_unreadable == 1 ? "%zu file could not be read: the checks that need it "
                                                           "did not run"
                                                         : "%zu files could not be read: the checks that need them "
                                                           "did not run",
                                    f->n_unreadable);
    for (size_t i = 0; i < f->n_unreadable; i++) {
        const rd_unreadable_file *u = &f->unreadable[i];
        rd_finding_evidence(fd, "%s: %s; not checked: %s", strempty(u->path), strempty(u->error),
                            u->unchecked ? u->unchecked : "unknown");
    }
    rd_finding_remedy(fd, "Make each file a readable regular file (a FIFO, socket or device is never read), or "
                          "run the check as a user that may read it.");
}

static void os_assess(const rd_assess_input *in, rd_findings *out)
{
    const rd_os_facts *o = &in->facts->os;
    assess_unlisted(in, out);
    assess_unreadable(in->facts, out);
    if (!o->wsl)
        return;
    rd_finding *fd = rd_finding_add(out, RD_FINDING(HOST_WSL), RD_SEV_ERROR, NULL,
                                    "This is Windows Subsystem for Linux: ROCm here uses AMD's WSL stack, "
                                    "not amdgpu/KFD");
    rd_finding_evidence(fd, "%s", o->wsl_evidence);
    rd_finding_remedy(fd, "Install AMD's Adrenalin driver on Windows and ROCm for WSL (amdgpu-install "
                          "--usecase=wsl,rocm --no-dkms) inside; the Linux driver checks do not apply here.");
}

static const char *const os_findings[] = { RD_FINDING(HOST_WSL), RD_FINDING(OS_NOT_VALIDATED),
                                           RD_FINDING(FACTS_UNREADABLE), NULL };

/* clang-format off */
const rd_probe rd_probe_os = {
    .id = "os",
    .findings = os_findings,
    .title = "Operating system, kernel, container",
    .areas = RD_STRV("os"),
    .reads = (const rd_probe_input[]){
        { "/etc/os-release", false },
        { "/usr/lib/os-release", false },
        { NULL, false },
    },
    .gather = os_gather,
    .assess = os_assess,
};
/* clang-format on */
