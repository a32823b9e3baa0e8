/* SPDX-License-Identifier: MIT */
/* Secure Boot and DKMS: with Secure Boot on, the kernel loads only modules
 * signed with a key it trusts, so an amdgpu built by DKMS needs its machine
 * owner key (MOK) enrolled. */
#include <fcntl.h>
#include "boot.h"
#include "driver.h"
#include "distro.h"
#include "probe.h"
#include "util.h"

/* EFI_GLOBAL_VARIABLE: the vendor GUID of SecureBoot (UEFI spec). */
#define SECURE_BOOT_VAR "/sys/firmware/efi/efivars/SecureBoot-8be4df61-93ca-11d2-aa0d-00e098032b8c"

/* Where DKMS (and Ubuntu's shim-signed) keep the key modules are signed with. */
static const char *const mok_keys[] = {
    "/var/lib/dkms/mok.pub",
    "/var/lib/shim-signed/mok/MOK.der",
};

bool rd_boot_kmsg_relevant(const char *t)
{
    static const char *const needles[] = {
        "Key was rejected by service",
        "module verification failed",
        "Lockdown:",
        "unsigned module",
        "PKCS#7 signature not signed with a trusted key",
        "Loading of unsigned module",
        "Loading of module with unavailable key",
        "module sig",
        "required key missing",
    };
    for (size_t i = 0; i < ELEMENTSOF(needles); i++)
        if (strstr(t, needles[i]))
            return true;
    return false;
}

static void gather_secure_boot(rd_boot_facts *b, bool container)
{
    b->secure_boot = -1;
    int fd = open_regular_at(AT_FDCWD, SECURE_BOOT_VAR, NULL);
    if (fd < 0) {
        int err = -fd;
        int dir = open("/sys/firmware/efi", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (dir >= 0) {
            close(dir);
            b->secure_boot_evidence = xasprintf("%s: %s", SECURE_BOOT_VAR, strerror(err));
        } else if (container) /* container runtimes hide /sys/firmware */
            b->secure_boot_evidence = xstrdup("/sys/firmware/efi: absent (hidden in a container)");
        else {
            b->secure_boot = 0;
            b->secure_boot_evidence = xstrdup("/sys/firmware/efi: absent (legacy BIOS boot: no Secure Boot)");
        }
        return;
    }
    _cleanup_free_ char *data = NULL;
    size_t size = 0;
    int r = read_fd(fd, 64, &data, &size);
    close(fd);
    /* 4 bytes of attributes, then the value */
    if (r < 0 || size < 5) {
        b->secure_boot_evidence = xasprintf("%s: %s", SECURE_BOOT_VAR, r < 0 ? strerror(-r) : "too short");
        return;
    }
    b->secure_boot = (unsigned char)data[4] == 1;
    b->secure_boot_evidence = xasprintf("%s: %u", SECURE_BOOT_VAR, (unsigned char)data[4]);
}

/* The first line of build/make.log: "DKMS make.log for amdgpu-VERSION for
 * kernel KERNEL (ARCH)", the kernel of the last build DKMS tried. */
static int make_log_header(char *line, void *userdata)
{
    char **ret = userdata;
    const char *p = strstr(line, " for kernel ");
    if (startswith(line, "DKMS make.log for ") && p) {
        p += strlen(" for kernel ");
        *ret = xstrndup(p, strcspn(p, " \t("));
    }
    return 1; /* one line is enough */
}

static void gather_make_log(const rd_ctx *ctx, rd_boot_facts *b, const char *version)
{
    _cleanup_free_ char *path = xasprintf("/var/lib/dkms/amdgpu/%s/build/make.log", version);
    _cleanup_free_ char *kernel = NULL;
    (void)rd_root_read_lines(ctx, path, make_log_header, &kernel);
    if (kernel && *kernel)
        b->dkms_tried = strv_push(b->dkms_tried, xasprintf("%s for %s", version, kernel));
}

static void gather_dkms(const rd_ctx *ctx, rd_boot_facts *b)
{
    _cleanup_strv_free_ char **names = NULL;
    if (rd_root_list_dir(ctx, "/var/lib/dkms/amdgpu", NULL, &names) < 0)
        return;
    for (size_t i = 0; names && names[i]; i++) {
        if (startswith(names[i], "kernel-"))
            continue; /* kernel-<release>-<arch> links to the built version */
        b->dkms_amdgpu = strv_push(b->dkms_amdgpu, xstrdup(names[i]));
        gather_make_log(ctx, b, names[i]);
        _cleanup_free_ char *dir = xasprintf("/var/lib/dkms/amdgpu/%s", names[i]);
        _cleanup_strv_free_ char **sub = NULL;
        if (rd_root_list_dir(ctx, dir, NULL, &sub) < 0)
            continue;
        for (size_t j = 0; sub && sub[j]; j++)
            /* kernel releases start with a digit; "build", "source" do not */
            if (sub[j][0] >= '0' && sub[j][0] <= '9')
                b->dkms_built = strv_push(b->dkms_built, xasprintf("%s for %s", names[i], sub[j]));
    }
}

typedef struct {
    rd_boot_facts *b;
    size_t kept;
} kmsg_keep;

static void keep_boot_record(const rd_kmsg_record *rec, void *userdata)
{
    kmsg_keep *k = userdata;
    if (rd_boot_kmsg_relevant(rec->text) && k->kept++ < 64)
        k->b->kmsg = strv_push(k->b->kmsg, xstrdup(rec->text));
}

static void gather_kmsg(const rd_ctx *ctx, rd_boot_facts *b)
{
    kmsg_keep k = { b, 0 };
    (void)rd_kmsg_read(ctx, keep_boot_record, &k, NULL); /* the driver probe records errors */
}

static void boot_gather(const rd_ctx *ctx, rd_facts *facts)
{
    rd_boot_facts *b = &facts->boot;
    gather_secure_boot(b, facts->os.container != NULL); /* the os probe ran first */
    _cleanup_free_ char *lockdown = NULL;
    if (read_line_at(AT_FDCWD, "/sys/kernel/security/lockdown", &lockdown) == 0) {
        /* "none [integrity] confidentiality": the active mode is bracketed */
        char *l = strchr(lockdown, '['), *r = l ? strchr(l, ']') : NULL;
        if (l && r)
            b->lockdown = xstrndup(l + 1, (size_t)(r - l - 1));
    }
    gather_dkms(ctx, b);
    for (size_t i = 0; i < ELEMENTSOF(mok_keys) && !b->mok_key; i++) {
        int fd = rd_root_open(ctx, mok_keys[i], O_PATH); /* exists: never opened for reading */
        if (fd >= 0) {
            close(fd);
            b->mok_key = xstrdup(mok_keys[i]);
        }
    }
    gather_kmsg(ctx, b);
}

/* ---- assess ---- */

static bool amdgpu_line(const char *t)
{
    return strstr(t, "amdgpu") != NULL;
}

static void assess_secure_boot(const rd_assess_input *in, rd_findings *out);

/* "VERSION for KERNEL" in list for this kernel: the VERSION, or NULL. */
static char *dkms_version_for(char *const *list, const char *kernel)
{
    for (size_t i = 0; list && list[i]; i++) {
        const char *p = strstr(list[i], " for ");
        if (p && streq(p + 5, kernel))
            return xstrndup(list[i], (size_t)(p - list[i]));
    }
    return NULL;
}

/* The release whose kernels a DKMS version "6.8.5-2041575.24.04" belongs to,
 * else the newest. */
static const rd_release *dkms_release(const rd_knowledge *k, const char *version)
{
    _cleanup_free_ char *v = xstrndup(version, strcspn(version, "-"));
    const rd_release *r = rd_knowledge_release_by_dkms(k, v);
    return r ? r : k->n_releases ? &k->releases[k->n_releases - 1] : NULL;
}

/* DKMS tried to build amdgpu for the running kernel, whose headers are
 * there, and has no module for it: the build failed. Judged on every
 * distribution, listed in support.ini or not. */
static void assess_dkms_build(const rd_assess_input *in, rd_findings *out)
{
    const rd_facts *f = in->facts;
    const char *kernel = f->os.kernel_release;
    if (!kernel || !f->kernel_devel.build_dir || f->driver.version || in->gpus->n_gpus == 0)
        return;
    _cleanup_free_ char *tried = dkms_version_for(f->boot.dkms_tried, kernel);
    _cleanup_free_ char *built = dkms_version_for(f->boot.dkms_built, kernel);
    if (!tried || built)
        return;
    bool inbox = f->driver.module_present;
    rd_finding *fd = rd_finding_add(out, RD_FINDING(DRIVER_DKMS_BUILD_FAILED), inbox ? RD_SEV_WARNING : RD_SEV_ERROR,
                                    NULL, "amdgpu-dkms %s failed to build for the running kernel %s%s", tried, kernel,
                                    inbox ? ": the kernel's own amdgpu runs instead" : "");
    rd_finding_evidence(fd,
                        "/var/lib/dkms/amdgpu/%s/build/make.log: the last build was for %s (DKMS: \"Bad return "
                        "status for module build on kernel: %s\")",
                        tried, kernel, kernel);
    rd_finding_evidence(fd, "/var/lib/dkms/amdgpu/%s: no module built for %s", tried, kernel);
    for (size_t i = 0; f->boot.dkms_built && f->boot.dkms_built[i]; i++)
        rd_finding_evidence(fd, "/var/lib/dkms/amdgpu: %s", f->boot.dkms_built[i]);
    rd_finding_evidence(fd, "%s: present (the headers are installed)", f->kernel_devel.build_dir);
    rd_finding_evidence(fd, "%s",
                        inbox ? "/sys/module/amdgpu/version: absent (the inbox driver is loaded)"
                              : "/sys/module/amdgpu: absent");
    const rd_release *rel = dkms_release(in->knowledge, tried);
    _cleanup_free_ char *kernels = rel ? rd_support_validated_kernels(rel, &f->os) : NULL;
    _cleanup_free_ char *purge = rd_distro_remove_hint(&f->os, "amdgpu-dkms");
    rd_finding_remedy(fd,
                      "This amdgpu-dkms does not compile against kernel %s (the errors are in the make.log "
                      "above). %s%sBoot a kernel it supports, install an amdgpu-dkms release made for this "
                      "kernel, or use the kernel's own amdgpu: %s, then reboot.",
                      kernel, kernels ? kernels : "", kernels ? ". " : "", purge);
}

static void boot_assess(const rd_assess_input *in, rd_findings *out)
{
    assess_dkms_build(in, out);
    assess_secure_boot(in, out);
}

static void assess_secure_boot(const rd_assess_input *in, rd_findings *out)
{
    const rd_facts *f = in->facts;
    const rd_boot_facts *b = &f->boot;
    if (!b->dkms_amdgpu)
        return;
    /* what the kernel said about signatures: our own lines, and the driver probe's */
    char **lines = NULL;
    for (size_t i = 0; b->kmsg && b->kmsg[i]; i++)
        /* lockdown also restricts hibernation, kexec...: keep what is about modules */
        if (amdgpu_line(b->kmsg[i]) || strstr(b->kmsg[i], "module") || strstr(b->kmsg[i], "Key was rejected") ||
            strstr(b->kmsg[i], "PKCS#7"))
            lines = strv_push(lines, xstrdup(b->kmsg[i]));
    for (size_t i = 0; i < f->driver.n_kmsg; i++)
        if (rd_boot_kmsg_relevant(f->driver.kmsg[i].text) && !strv_contains(lines, f->driver.kmsg[i].text))
            lines = strv_push(lines, xstrdup(f->driver.kmsg[i].text));

    bool loaded = f->driver.module_present;
    /* With amdgpu loaded, only a rejection that names it counts: the inbox
     * driver runs instead of the DKMS one. ("module verification failed"
     * means the module loaded unverified: not enforced, not our case.) */
    bool named = false;
    for (size_t i = 0; lines && lines[i]; i++)
        named |= amdgpu_line(lines[i]) && !strstr(lines[i], "module verification failed");
    if (b->secure_boot != 1 || (loaded && (f->driver.version || !named)) || (!loaded && in->gpus->n_gpus == 0)) {
        strv_free(lines);
        return;
    }
    rd_finding *fd = rd_finding_add(out, RD_FINDING(DRIVER_SECURE_BOOT_DKMS), RD_SEV_ERROR, NULL,
                                    loaded ? "Secure Boot rejects the DKMS-built amdgpu: the kernel runs another driver"
                                           : "Secure Boot keeps the DKMS-built amdgpu from loading: its signing key "
                                             "is not enrolled");
    rd_finding_evidence(fd, "%s", b->secure_boot_evidence);
    if (b->lockdown)
        rd_finding_evidence(fd, "/sys/kernel/security/lockdown: [%s]", b->lockdown);
    for (size_t i = 0; b->dkms_built && b->dkms_built[i]; i++)
        rd_finding_evidence(fd, "/var/lib/dkms/amdgpu: %s", b->dkms_built[i]);
    if (!b->dkms_built)
        for (size_t i = 0; b->dkms_amdgpu[i]; i++)
            rd_finding_evidence(fd, "/var/lib/dkms/amdgpu/%s", b->dkms_amdgpu[i]);
    for (size_t i = 0; lines && lines[i]; i++)
        rd_finding_evidence(fd, "kernel: %s", lines[i]);
    if (!loaded)
        rd_finding_evidence(fd, "/sys/module/amdgpu: absent");
    const char *key = b->mok_key ? b->mok_key : "/var/lib/dkms/mok.pub";
    _cleanup_free_ char *purge = rd_distro_remove_hint(&in->facts->os, "amdgpu-dkms");
    rd_finding_remedy(fd,
                      "Enrol the key DKMS signs with: 1. `sudo mokutil --import %s` and choose a one-time "
                      "password; 2. reboot; 3. in the blue MOK manager screen choose \"Enroll MOK\", "
                      "\"Continue\", \"Yes\", enter the password, reboot; 4. check with `mokutil "
                      "--list-enrolled` and `sudo modprobe amdgpu`. Or use the distribution's signed inbox "
                      "driver instead (%s, reinstall ROCm with `amdgpu-install --usecase=rocm --no-dkms`). Disable "
                      "Secure Boot only as the last resort.",
                      key, purge);
    strv_free(lines);
}

static const char *const boot_findings[] = { RD_FINDING(DRIVER_SECURE_BOOT_DKMS), RD_FINDING(DRIVER_DKMS_BUILD_FAILED),
                                             NULL };

/* clang-format off */
const rd_probe rd_probe_boot = {
    .id = "boot",
    .title = "Secure Boot, lockdown and DKMS",
    .flags = 0,
    .findings = boot_findings,
    .areas = RD_STRV("boot"),
    .reads = (const rd_probe_input[]){
        { "/var/lib/dpkg/status", false },
        { NULL, false },
    },
    .gather = boot_gather,
    .assess = boot_assess,
};
/* clang-format on */
