/* SPDX-License-Identifier: MIT */
/* The rpm database, read through the real `rpm --root DIR -qa` (never its
 * files by hand): AMD's ROCm and driver packages, the distribution's own
 * ROCm (Fedora, openSUSE), kernel-devel for the running kernel, imported
 * signing keys and the prerequisite packages. The rocm probe (gathered
 * after this one) adds the ROCm packages to its own, so it judges both
 * alike. Also
 * what DKMS needs on every family: /lib/modules/KERNEL/build. */
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include "rpm.h"
#include "distro.h"
#include "probe.h"
#include "util.h"

#define RPM_OUTPUT_MAX (8u * 1024 * 1024)
#define RPM_TIMEOUT_MS 30000

/* Packages whose presence and version the checks use. */
static const char *const watched[] = {
    /* AMD's */
    "rocm-core",
    "rocm-hip-runtime",
    "hip-runtime-amd",
    "hsa-rocr",
    "rocminfo",
    "amdgpu-dkms",
    "amdgpu-install",
    /* the distributions' own ROCm: Fedora, openSUSE */
    "rocm-runtime",
    "rocm-hip",
    "libhsa-runtime64-1",
    "hsa-runtime",
    "hipcc",
    /* headers for DKMS, per flavour */
    "kernel-devel",
    "kernel-uek-devel",
    "kernel-default-devel",
    "kernel-rt-devel",
    "kernel-64k-devel",
    "dkms",
    "gpg-pubkey",
};

/* Runs argv with stdout collected (stderr too, for the reason of a failure);
 * at most RPM_OUTPUT_MAX bytes and RPM_TIMEOUT_MS. Returns the exit status,
 * or a negative errno (-ENOENT: the program is not installed). */
static int run_collect(char *const *argv, char **ret_out)
{
    int pfd[2], efd[2];
    if (pipe2(pfd, O_CLOEXEC) < 0)
        return -errno;
    if (pipe2(efd, O_CLOEXEC) < 0) {
        int err = -errno;
        close(pfd[0]);
        close(pfd[1]);
        return err;
    }
    pid_t pid = fork();
    if (pid < 0) {
        int err = -errno;
        close(pfd[0]), close(pfd[1]), close(efd[0]), close(efd[1]);
        return err;
    }
    if (pid == 0) {
        dup2(pfd[1], 1);
        dup2(pfd[1], 2);
        int devnull = open("/dev/null", O_RDONLY | O_CLOEXEC);
        if (devnull >= 0)
            dup2(devnull, 0);
        execvp(argv[0], argv);
        int err = errno;
        (void)!write(efd[1], &err, sizeof err);
        _exit(127);
    }
    close(pfd[1]);
    close(efd[1]);
    strbuf b = { 0 };
    strbuf_append(&b, "");
    size_t total = 0;
    struct timespec start;
    clock_gettime(CLOCK_MONOTONIC, &start);
    for (;;) {
        struct timespec now;
        clock_gettime(CLOCK_MONOTONIC, &now);
        long left = RPM_TIMEOUT_MS - ((now.tv_sec - start.tv_sec) * 1000 + (now.tv_nsec - start.tv_nsec) / 1000000);
        struct pollfd p = { .fd = pfd[0], .events = POLLIN };
        if (left <= 0 || poll(&p, 1, (int)left) <= 0) {
            kill(pid, SIGKILL);
            break;
        }
        char buf[65536];
        ssize_t n = read(pfd[0], buf, sizeof buf);
        if (n <= 0)
            break;
        if (total < RPM_OUTPUT_MAX)
            strbuf_appendn(&b, buf, (size_t)n);
        total += (size_t)n;
    }
    close(pfd[0]);
    int status = 0, exec_err = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
        ;
    ssize_t got = read(efd[0], &exec_err, sizeof exec_err);
    close(efd[0]);
    _cleanup_free_ char *out = strbuf_steal(&b);
    if (got == (ssize_t)sizeof exec_err)
        return -exec_err;
    if (!WIFEXITED(status))
        return -ETIMEDOUT;
    *ret_out = TAKE_PTR(out);
    return WEXITSTATUS(status);
}

static bool is_watched(const char *name, char *const *extra)
{
    /* asked for each installed package: the first byte rules out most */
    for (size_t i = 0; i < ELEMENTSOF(watched); i++)
        if (name[0] == watched[i][0] && streq(name, watched[i]))
            return true;
    for (size_t i = 0; extra && extra[i]; i++)
        if (name[0] == extra[i][0] && streq(name, extra[i]))
            return true;
    return false;
}

typedef struct {
    char *const *extra;
    rd_rpm_package **packages;
    size_t *n;
} rpm_query;

/* One line of `rpm -qa --qf NAME\tVERSION-RELEASE\tARCH\tSUMMARY\n`,
 * tokenised as strtok_r would (runs of tabs are one separator), but only
 * once its name is one the checks watch. */
static void rpm_query_line(char *line, const rpm_query *q)
{
    char *save = NULL, *name = strtok_r(line, "\t", &save);
    if (!name || !is_watched(name, q->extra))
        return;
    char *ver = strtok_r(NULL, "\t", &save);
    char *arch = strtok_r(NULL, "\t", &save), *summary = strtok_r(NULL, "\t", &save);
    if (!ver)
        return;
    rd_rpm_package *pk = ARRAY_APPEND(*q->packages, *q->n);
    pk->name = xstrdup(name);
    pk->version = xstrdup(ver);
    pk->arch = arch && !streq(arch, "(none)") ? xstrdup(arch) : NULL;
    pk->summary = summary && streq(name, "gpg-pubkey") ? xstrdup(summary) : NULL;
}

void rd_rpm_parse_query(const char *text, char *const *extra, rd_rpm_package **packages, size_t *n)
{
    rpm_query q = { extra, packages, n };
    /* one pass; a line is copied only when its name (up to the first tab)
     * starts like a watched one */
    char buf[256];
    for (const char *p = text; p && *p;) {
        const char *eol = strchrnul(p, '\n');
        size_t len = (size_t)(eol - p);
        const char *name = p;
        while (name < eol && *name == '\t')
            name++;
        bool maybe = false;
        for (size_t i = 0; i < ELEMENTSOF(watched) && !maybe && name < eol; i++)
            maybe = *name == watched[i][0];
        for (size_t i = 0; extra && extra[i] && !maybe && name < eol; i++)
            maybe = *name == extra[i][0];
        if (maybe) {
            if (len < sizeof buf) {
                memcpy(buf, p, len);
                buf[len] = 0;
                rpm_query_line(buf, &q);
            } else {
                _cleanup_free_ char *line = xstrndup(p, len);
                rpm_query_line(line, &q);
            }
        }
        p = *eol ? eol + 1 : NULL;
    }
}

static void gather_rpm(const rd_ctx *ctx, rd_facts *facts)
{
    rd_rpm_facts *r = &facts->rpm;
    const char *dbpath = rd_rpm_dbpath(ctx);
    if (!dbpath)
        return; /* no rpm database: not an rpm host, rpm is never run */
    r->dbpath = xstrdup(dbpath);
    r->present = true;
    const char *rpm = secure_getenv("ROCM_DOCTOR_RPM");
    char *argv[] = { (char *)(rpm ? rpm : "rpm"),
                     (char *)"--root",
                     ctx->root,
                     (char *)"--dbpath",
                     r->dbpath,
                     (char *)"-qa",
                     (char *)"--qf",
                     (char *)"%{NAME}\\t%{VERSION}-%{RELEASE}\\t%{ARCH}\\t%{SUMMARY}\\n",
                     NULL };
    _cleanup_free_ char *out = NULL;
    int st = run_collect(argv, &out);
    if (st == -ENOENT) {
        r->error = xasprintf("%s: not found (the rpm database %s is there, but no rpm program to read it)", argv[0],
                             r->dbpath);
        return;
    }
    if (st != 0) {
        _cleanup_free_ char *why = st < 0 ? xstrdup(strerror(-st)) : xstrdup(strempty(out));
        r->error = xasprintf("rpm --root %s -qa failed: %s", ctx->root, strstrip(why));
        return;
    }
    r->queried = true;
    _cleanup_strv_free_ char **extra = NULL;
    const rd_rpm_info *info = &ctx->knowledge.rpm;
    for (size_t i = 0; info->crb_packages && info->crb_packages[i]; i++)
        extra = strv_push(extra, xstrdup(info->crb_packages[i]));
    for (size_t i = 0; info->epel_packages && info->epel_packages[i]; i++)
        extra = strv_push(extra, xstrdup(info->epel_packages[i]));
    rd_rpm_parse_query(out, extra, &r->packages, &r->n_packages);
}

/* Whether an installed kernel-devel package is for this kernel release:
 * "5.14.0-570.12.1.el9_6.x86_64" is VERSION-RELEASE.ARCH; SUSE's
 * "6.4.0-150600.23.25-default" is VERSION-RELEASE-FLAVOUR with the last
 * component of RELEASE dropped. */
bool rd_kernel_devel_matches(const rd_rpm_package *pk, const char *kernel)
{
    if (!startswith(pk->name, "kernel") || !endswith(pk->name, "-devel") || !kernel)
        return false;
    _cleanup_free_ char *full = xasprintf("%s.%s", pk->version, strempty(pk->arch));
    if (streq(full, kernel) || streq(pk->version, kernel))
        return true;
    /* SUSE: strip the flavour from the kernel, the build counter from the package */
    const char *dash = strrchr(kernel, '-');
    _cleanup_free_ char *base = dash ? xstrndup(kernel, (size_t)(dash - kernel)) : NULL;
    const char *dot = strrchr(pk->version, '.');
    _cleanup_free_ char *trimmed = dot ? xstrndup(pk->version, (size_t)(dot - pk->version)) : NULL;
    return base && trimmed && streq(base, trimmed) && streq(pk->name, "kernel-default-devel") &&
           endswith(kernel, "-default");
}

static void gather_kernel_devel(const rd_ctx *ctx, rd_facts *facts)
{
    rd_kernel_devel_facts *k = &facts->kernel_devel;
    const char *kernel = facts->os.kernel_release;
    if (!kernel)
        return;
    k->checked = true;
    k->kernel = xstrdup(kernel);
    _cleanup_free_ char *build = xasprintf("/lib/modules/%s/build", kernel);
    _cleanup_close_ int fd = rd_root_open(ctx, build, O_RDONLY | O_DIRECTORY);
    if (fd >= 0)
        k->build_dir = xstrdup(build);
    rd_os_family fam = rd_os_family_of(facts->os.id, facts->os.id_like);
    k->wanted = rd_kernel_devel_package(fam, facts->os.id, kernel);
    for (size_t i = 0; i < facts->rpm.n_packages && !k->package; i++)
        if (rd_kernel_devel_matches(&facts->rpm.packages[i], kernel))
            k->package = xasprintf("%s-%s", facts->rpm.packages[i].name, facts->rpm.packages[i].version);
}

char *rd_kernel_devel_package(rd_os_family fam, const char *os_id, const char *kernel)
{
    switch (fam) {
    case RD_OS_DEBIAN: return xasprintf("linux-headers-%s", kernel);
    case RD_OS_SUSE: {
        /* kernel-default-devel for "-default"; kernel-<flavour>-devel otherwise */
        const char *dash = strrchr(kernel, '-');
        return xasprintf("kernel-%s-devel", dash && dash[1] ? dash + 1 : "default");
    }
    case RD_OS_RHEL:
        if (strstr(kernel, "uek") || streq_ptr(os_id, "ol"))
            return xasprintf("kernel-uek-devel-%s", kernel);
        return xasprintf("kernel-devel-%s", kernel);
    case RD_OS_FEDORA: return xasprintf("kernel-devel-%s", kernel);
    case RD_OS_UNKNOWN: break;
    }
    return NULL;
}

static void packages_rpm_gather(const rd_ctx *ctx, rd_facts *facts)
{
    gather_rpm(ctx, facts);
    gather_kernel_devel(ctx, facts);
}

/* ---- assess ---- */

static bool dkms_driver_installed(const rd_facts *f, char **ret_evidence)
{
    if (f->boot.dkms_amdgpu && f->boot.dkms_amdgpu[0]) {
        *ret_evidence = xasprintf("/var/lib/dkms/amdgpu/%s: the DKMS driver is installed", f->boot.dkms_amdgpu[0]);
        return true;
    }
    for (size_t i = 0; i < f->rocm.n_packages; i++)
        if (streq(f->rocm.packages[i].name, "amdgpu-dkms")) {
            *ret_evidence = xasprintf("%s: amdgpu-dkms %s installed",
                                      f->rocm.packages[i].source ? f->rocm.packages[i].source : "/var/lib/dpkg/status",
                                      f->rocm.packages[i].version);
            return true;
        }
    return false;
}

static bool dkms_built_for(const rd_facts *f, const char *kernel)
{
    for (size_t i = 0; f->boot.dkms_built && f->boot.dkms_built[i]; i++) {
        const char *p = strstr(f->boot.dkms_built[i], " for ");
        if (p && streq(p + 5, kernel))
            return true;
    }
    return false;
}

static void assess_kernel_devel(const rd_assess_input *in, rd_findings *out)
{
    const rd_facts *f = in->facts;
    const rd_kernel_devel_facts *k = &f->kernel_devel;
    _cleanup_free_ char *dkms = NULL;
    /* built for the running kernel already, or loaded: nothing fails now */
    if (!k->checked || k->build_dir || k->package || !dkms_driver_installed(f, &dkms) || dkms_built_for(f, k->kernel) ||
        f->driver.version)
        return;
    rd_os_family fam = rd_os_family_of(f->os.id, f->os.id_like);
    const char *pm = rd_os_package_manager(fam);
    rd_finding *fd = rd_finding_add(out, RD_FINDING(KERNEL_DEVEL_MISSING), RD_SEV_ERROR, NULL,
                                    "The DKMS driver cannot be built for the running kernel %s: its headers (%s) are "
                                    "not installed",
                                    k->kernel, k->wanted ? k->wanted : "the kernel's development package");
    rd_finding_evidence(fd, "%s", dkms);
    rd_finding_evidence(fd,
                        "/lib/modules/%s/build: missing (DKMS: \"Your kernel headers for kernel %s cannot be "
                        "found\")",
                        k->kernel, k->kernel);
    if (f->rpm.queried)
        rd_finding_evidence(fd, "rpm database: no kernel-devel package for %s", k->kernel);
    rd_finding_evidence(fd,
                        "/var/lib/dkms/amdgpu: not built for %s; /sys/module/amdgpu/version: absent (the DKMS "
                        "module is not loaded)",
                        k->kernel);
    if (pm && k->wanted)
        rd_finding_remedy(fd,
                          "Install the headers of the running kernel, then let DKMS build and reboot: `sudo %s "
                          "install %s` (`rocm-doctor fix` plans both).",
                          pm, k->wanted);
    else
        rd_finding_remedy(fd,
                          "Install the development headers of kernel %s with the distribution's package manager, "
                          "then rebuild the DKMS module (`sudo dkms autoinstall`).",
                          k->kernel);
    if (pm && k->wanted)
        rd_finding_set_fix(fd, "packages");
}

static void packages_rpm_assess(const rd_assess_input *in, rd_findings *out)
{
    const rd_rpm_facts *r = &in->facts->rpm;
    if (r->present && r->error) {
        rd_finding *fd = rd_finding_add(out, RD_FINDING(RPM_DATABASE_UNREADABLE), RD_SEV_WARNING, NULL,
                                        "The rpm database could not be read: the package checks were skipped");
        rd_finding_evidence(fd, "%s", r->error);
        rd_finding_remedy(fd, "Run the check where rpm is installed (the host itself, or a container with rpm), or "
                              "install rpm; the other checks ran.");
    }
    assess_kernel_devel(in, out);
}

static const char *const packages_rpm_findings[] = { RD_FINDING(RPM_DATABASE_UNREADABLE),
                                                     RD_FINDING(KERNEL_DEVEL_MISSING), NULL };

/* clang-format off */
const rd_probe rd_probe_packages_rpm = {
    .id = "packages-rpm",
    .title = "rpm database and kernel headers",
    .flags = 0,
    .findings = packages_rpm_findings,
    .areas = RD_STRV("rpm", "kernel_devel"),
    .reads = (const rd_probe_input[]){
        { "/usr/lib/sysimage/rpm", true },
        { "/var/lib/rpm", true },
        { "/var/lib/dkms", true },
        { NULL, false },
    },
    .gather = packages_rpm_gather,
    .assess = packages_rpm_assess,
};
/* clang-format on */
