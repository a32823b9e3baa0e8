/* SPDX-License-Identifier: MIT */
/* report [-o FILE|-]: the support bundle. One ustar archive with what a bug
 * report needs and `check --facts` can re-diagnose: the facts, the report in
 * text and JSON, the kernel log lines about the GPU stack, DKMS build logs,
 * apt and modprobe configuration, the environment files and the variables of
 * this process. Secrets are left out by allowlist (redact.h, bundle_policy
 * below). The archive is written to a temporary file next to FILE and
 * renamed to it, mode 0600; an existing FILE is never replaced. */
#include <ctype.h>
#include <fcntl.h>
#include <inttypes.h>
#include <libgen.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <time.h>
#include "build-config.h"
#include "cli.h"
#include "env.h"
#include "json-util.h"
#include "facts-json.h"
#include "redact.h"
#include "report.h"
#include "rootfs.h"
#include "run.h"
#include "tar.h"
#include "util.h"

#define BUNDLE_DIR "rocm-doctor-report/"
/* Logs keep their last MiB, which is where a build failure is. */
#define FILE_CAP (1024 * 1024)

extern char **environ;

/* The bundle shows the values of the variables rocm-doctor reads, and of no
 * other: those the environment probe records (rd_env_is_relevant: device
 * visibility, architecture overrides and targets) and these. Every other
 * variable appears with its name only. */
/* clang-format off */
static const char *const values_shown[] = {
    "PATH", "LD_LIBRARY_PATH", "ROCM_PATH",          /* the ROCm install and its runtime libraries */
    "BOOT_IMAGE",                                    /* the kernel command line */
    "SUDO_USER", "SUDO_UID", "SUDO_GID",             /* whose access is checked, who owns the bundle */
    "container", "KUBERNETES_SERVICE_HOST",          /* container detection */
    "LANG", "LC_ALL", "LC_CTYPE", "TERM", "NO_COLOR", /* the text report's marks and colours */
};
/* clang-format on */

static bool value_shown(const char *name, size_t len)
{
    for (size_t i = 0; i < ELEMENTSOF(values_shown); i++)
        if (strlen(values_shown[i]) == len && strncmp(name, values_shown[i], len) == 0)
            return true;
    _cleanup_free_ char *n = xstrndup(name, len);
    return rd_env_is_relevant(n);
}

/* Hosts whose URL paths are public: AMD's package repository (the apt and
 * rocm probes read its paths: release and suite) and PyTorch's wheel index.
 * Any other URL keeps its scheme and host only. */
static const char *const public_hosts[] = { "repo.radeon.com", "download.pytorch.org", NULL };

static const rd_redact_policy bundle_policy = { .value_shown = value_shown, .public_hosts = public_hosts };

/* How a member's text is redacted. */
typedef char *(*redactor)(const rd_redact_policy *, const char *, unsigned *);
#define LOG rd_redact_text
#define CONFIG rd_redact_config
#define ENV rd_redact_env

typedef struct {
    rd_tar tar;
    unsigned n_files, n_redacted;
    strbuf manifest;
} bundle;

static int add_member(bundle *b, const char *name, const char *data, size_t size)
{
    _cleanup_free_ char *full = xasprintf(BUNDLE_DIR "%s", name);
    int r = rd_tar_add(&b->tar, full, data, size, 0600);
    if (r < 0)
        return r;
    b->n_files++;
    strbuf_printf(&b->manifest, "  %s\n", name);
    return 0;
}

/* Adds text after leaving its secrets out. */
static int add_text(bundle *b, const char *name, const char *text, redactor redact)
{
    _cleanup_free_ char *clean = redact(&bundle_policy, text, &b->n_redacted);
    return add_member(b, name, clean, strlen(clean));
}

static int add_json(bundle *b, const char *name, json_object *j)
{
    rd_redact_json(&bundle_policy, j, &b->n_redacted);
    _cleanup_free_ char *text = rd_json_pretty(j);
    json_object_put(j);
    return add_member(b, name, text, strlen(text));
}

/* Reads a regular file under the root, its last FILE_CAP bytes when larger.
 * Returns 0 with *ret NULL when there is no such regular file. */
static int read_root_tail(const rd_ctx *ctx, const char *path, char **ret, bool *truncated)
{
    *ret = NULL;
    *truncated = false;
    _cleanup_close_ int fd = rd_root_open(ctx, path, O_RDONLY | O_NONBLOCK);
    if (fd == -ENOENT || fd == -ENOTDIR || fd == -ELOOP)
        return 0;
    if (fd < 0)
        return fd;
    struct stat st;
    if (fstat(fd, &st) < 0)
        return -errno;
    if (!S_ISREG(st.st_mode))
        return 0;
    if (st.st_size > FILE_CAP) {
        if (lseek(fd, st.st_size - FILE_CAP, SEEK_SET) < 0)
            return -errno;
        *truncated = true;
    }
    return read_fd(fd, FILE_CAP + 1, ret, NULL);
}

/* An OS file, stored under files/ with its path as on the host. Files that
 * cannot be read are listed in the manifest with the reason. */
static int add_root_file(bundle *b, const rd_ctx *ctx, const char *path, redactor redact)
{
    _cleanup_free_ char *data = NULL;
    bool truncated;
    int r = read_root_tail(ctx, path, &data, &truncated);
    if (r < 0) {
        strbuf_printf(&b->manifest, "  (not included: %s: %s)\n", path, errno_name(-r));
        return 0;
    }
    if (!data)
        return 0;
    _cleanup_free_ char *name = xasprintf("files%s", path);
    if (truncated) {
        /* start at a line */
        char *nl = strchr(data, '\n');
        _cleanup_free_ char *cut = xasprintf("[... first part left out: only the last %d KiB are kept]\n%s",
                                             FILE_CAP / 1024, nl ? nl + 1 : data);
        return add_text(b, name, cut, redact);
    }
    return add_text(b, name, data, redact);
}

/* Every entry of a directory under the root whose name ends in suffix. */
static int add_root_dir(bundle *b, const rd_ctx *ctx, const char *dir, const char *suffix, redactor redact)
{
    _cleanup_strv_free_ char **names = NULL;
    if (rd_root_list_dir(ctx, dir, suffix, &names) < 0)
        return 0;
    for (size_t i = 0; names && names[i]; i++) {
        _cleanup_free_ char *path = xasprintf("%s/%s", dir, names[i]);
        int r = add_root_file(b, ctx, path, redact);
        if (r < 0)
            return r;
    }
    return 0;
}

/* Whether two directories under the root are the same one (merged /usr). */
static bool same_dir(const rd_ctx *ctx, const char *a, const char *b)
{
    _cleanup_close_ int fa = rd_root_open(ctx, a, O_RDONLY | O_DIRECTORY);
    _cleanup_close_ int fb = rd_root_open(ctx, b, O_RDONLY | O_DIRECTORY);
    struct stat sa, sb;
    return fa >= 0 && fb >= 0 && fstat(fa, &sa) == 0 && fstat(fb, &sb) == 0 && sa.st_dev == sb.st_dev &&
           sa.st_ino == sb.st_ino;
}

static int add_dkms_logs(bundle *b, const rd_ctx *ctx)
{
    _cleanup_strv_free_ char **versions = NULL;
    if (rd_root_list_dir(ctx, "/var/lib/dkms/amdgpu", NULL, &versions) < 0)
        return 0;
    for (size_t i = 0; versions && versions[i]; i++) {
        _cleanup_free_ char *path = xasprintf("/var/lib/dkms/amdgpu/%s/build/make.log", versions[i]);
        int r = add_root_file(b, ctx, path, LOG);
        if (r < 0)
            return r;
    }
    return 0;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Every variable of this process, sorted, as NAME=VALUE lines for
 * rd_redact_env: names all, values as bundle_policy allows. */
static char *environment_text(void)
{
    char **v = NULL;
    size_t n = 0;
    for (char **e = environ; e && *e; e++, n++)
        v = strv_push(v, xstrdup(*e));
    if (n > 1)
        qsort(v, n, sizeof(char *), cmp_str);
    strbuf out = { 0 };
    for (size_t i = 0; i < n; i++)
        strbuf_printf(&out, "%s\n", v[i]);
    strv_free(v);
    return out.s ? strbuf_steal(&out) : xstrdup("");
}

static char *kernel_log_text(const rd_facts *f)
{
    strbuf out = { 0 };
    strbuf_append(&out, "# Kernel log records about the GPU stack (from /dev/kmsg)\n");
    if (f->driver.kmsg_error)
        strbuf_printf(&out, "# not readable: %s\n", f->driver.kmsg_error);
    for (size_t i = 0; i < f->driver.n_kmsg; i++) {
        const rd_kmsg_record *k = &f->driver.kmsg[i];
        strbuf_printf(&out, "[%5" PRIu64 ".%06" PRIu64 "] <%" PRId64 "> %s\n", k->usec / 1000000, k->usec % 1000000,
                      k->priority, strempty(k->text));
    }
    return strbuf_steal(&out);
}

static char *text_report(const rd_run *run)
{
    char *buf = NULL;
    size_t size = 0;
    FILE *f = open_memstream(&buf, &size);
    if (!f)
        return xstrdup("");
    rd_report_text(f, &run->facts, &run->view, &run->findings, false);
    fclose(f);
    return buf ? buf : xstrdup("");
}

static int write_bundle(bundle *b, const rd_run *run)
{
    const rd_ctx *ctx = &run->ctx;
    int r;
    _cleanup_free_ char *text = text_report(run);
    _cleanup_free_ char *kmsg = kernel_log_text(&run->facts);
    _cleanup_free_ char *env = environment_text();
    _cleanup_free_ char *env_clean = rd_redact_env(&bundle_policy, env, &b->n_redacted);
    _cleanup_free_ char *env_member = xasprintf("# The variables of the process that wrote this bundle: the values of "
                                                "those rocm-doctor reads, the names of the others\n%s",
                                                env_clean);
    if ((r = add_json(b, "facts.json", rd_facts_to_json(&run->facts))) < 0 ||
        (r = add_json(b, "report.json", rd_report_json(&run->facts, &run->view, &run->findings, run->level))) < 0 ||
        (r = add_text(b, "report.txt", text, LOG)) < 0 || (r = add_text(b, "kernel-log.txt", kmsg, LOG)) < 0 ||
        (r = add_member(b, "environment.txt", env_member, strlen(env_member))) < 0)
        return r;
    if ((r = add_dkms_logs(b, ctx)) < 0 || (r = add_root_file(b, ctx, "/etc/apt/sources.list", CONFIG)) < 0 ||
        (r = add_root_dir(b, ctx, "/etc/apt/sources.list.d", NULL, CONFIG)) < 0 ||
        (r = add_root_file(b, ctx, "/etc/apt/preferences", CONFIG)) < 0 ||
        (r = add_root_dir(b, ctx, "/etc/apt/preferences.d", NULL, CONFIG)) < 0 ||
        (r = add_root_dir(b, ctx, "/etc/modprobe.d", ".conf", CONFIG)) < 0 ||
        (r = add_root_dir(b, ctx, "/usr/lib/modprobe.d", ".conf", CONFIG)) < 0 ||
        (!same_dir(ctx, "/lib/modprobe.d", "/usr/lib/modprobe.d") &&
         (r = add_root_dir(b, ctx, "/lib/modprobe.d", ".conf", CONFIG)) < 0) ||
        (r = add_root_file(b, ctx, "/etc/environment", ENV)) < 0 ||
        (r = add_root_dir(b, ctx, "/etc/environment.d", ".conf", ENV)) < 0 ||
        (r = add_root_dir(b, ctx, "/etc/profile.d", ".sh", ENV)) < 0)
        return r;

    strbuf readme = { 0 };
    strbuf_printf(&readme,
                  "rocm-doctor %s support bundle\n"
                  "\n"
                  "Re-diagnose with: rocm-doctor check --facts facts.json\n"
                  "Status of the check: %s (exit status %d)\n"
                  "Values left out as secrets: %u (shown as " RD_REDACTED ")\n"
                  "Variables show their values only when rocm-doctor reads them, others their names;\n"
                  "URLs keep scheme and host (AMD's repository its path); comments are left out.\n"
                  "Never collected: apt auth.conf files, SSH and GnuPG keys, home directories.\n"
                  "\n"
                  "Contents:\n%s",
                  PACKAGE_VERSION,
                  rd_findings_exit_status(&run->findings) == 2   ? "error"
                  : rd_findings_exit_status(&run->findings) == 1 ? "warning"
                                                                 : "ok",
                  rd_findings_exit_status(&run->findings), b->n_redacted, strempty(b->manifest.s));
    _cleanup_free_ char *rtext = strbuf_steal(&readme);
    /* README last: it counts what the others left out; no redaction of its own */
    if ((r = add_member(b, "README.txt", rtext, strlen(rtext))) < 0)
        return r;
    return rd_tar_finish(&b->tar);
}

/* rocm-doctor-report-HOST-YYYYMMDDTHHMMSSZ.tar in the working directory:
 * bundles of several hosts, or of one host at several times, do not
 * collide. */
static char *default_output(void)
{
    struct utsname u;
    char host[65] = "host";
    if (uname(&u) == 0 && u.nodename[0]) {
        size_t n = 0;
        for (const char *c = u.nodename; *c && n < sizeof host - 1; c++)
            host[n++] = (isalnum((unsigned char)*c) || *c == '-' || *c == '.') ? *c : '_';
        host[n] = 0;
    }
    char when[32] = "";
    time_t now = time(NULL);
    struct tm tm;
    if (gmtime_r(&now, &tm))
        strftime(when, sizeof when, "%Y%m%dT%H%M%SZ", &tm);
    return xasprintf("rocm-doctor-report-%s-%s.tar", host, when);
}

/* A bundle never replaces a file: the exists check before the check and
 * again before the rename. */
static int refuse_existing(const char *path)
{
    struct stat st;
    if (lstat(path, &st) == 0)
        return rd_fail("%s exists; remove it first, or name another file with -o", path);
    return 0;
}

int rd_verb_report(const rd_options *o, char **args, size_t n_args)
{
    int r;
    if (o->output && !*o->output)
        return rd_usage_error("%s", "-o needs a file name, or - for standard output");
    bool to_stdout = o->output && streq(o->output, "-");
    if (to_stdout && isatty(STDOUT_FILENO))
        return rd_usage_error("%s", "-o - writes a tar archive to standard output, which is a terminal; "
                                    "redirect it to a file or a pipe");
    _cleanup_free_ char *output = o->output ? xstrdup(o->output) : default_output();

    _cleanup_free_ char *dir_copy = xstrdup(output), *base_copy = xstrdup(output);
    const char *dir = dirname(dir_copy), *base = basename(base_copy);
    if (!to_stdout && (!*base || streq(base, "/") || streq(base, ".") || streq(base, "..")))
        return rd_usage_error("-o needs a file name, not \"%s\"", output);
    if (!to_stdout && (r = refuse_existing(output)) != 0)
        return r;

    rd_run run;
    r = rd_cli_run_check(o, &run);
    if (r != 0) {
        rd_run_free(&run);
        return r;
    }

    atomic_file out = { .fd = -1, .dir_fd = -1 };
    if (!to_stdout) {
        r = atomic_file_open_path(&out, output);
        if (r < 0) {
            r = rd_fail("cannot create a file in %s: %s", dir, errno_name(r));
            rd_run_free(&run);
            return r;
        }
    }
    bundle b = { 0 };
    rd_tar_init(&b.tar, to_stdout ? STDOUT_FILENO : out.fd, time(NULL));
    int e = write_bundle(&b, &run);
    /* under sudo the bundle belongs to the person who asked for it */
    uint64_t uid = UINT64_MAX, gid = UINT64_MAX;
    const char *su = getenv("SUDO_UID"), *sg = getenv("SUDO_GID");
    if (!(geteuid() == 0 && su && sg && safe_atou64(su, 10, &uid) == 0 && safe_atou64(sg, 10, &gid) == 0 &&
          uid < UINT32_MAX && gid < UINT32_MAX))
        uid = gid = UINT32_MAX;
    if (!to_stdout) {
        if (e == 0) {
            struct stat st;
            e = fstatat(out.dir_fd, out.name, &st, AT_SYMLINK_NOFOLLOW) == 0 ? -EEXIST : 0;
        }
        if (e == 0)
            e = atomic_file_commit(&out, 0600, (uid_t)uid, (gid_t)gid);
        else
            atomic_file_abort(&out);
    }
    int status = rd_findings_exit_status(&run.findings);
    /* The summary goes where the archive does not. */
    FILE *msg = to_stdout ? stderr : stdout;
    if (e == -EEXIST) {
        r = rd_fail("%s appeared meanwhile; it was left alone and no bundle was written", output);
    } else if (e < 0) {
        r = rd_fail("cannot write %s: %s", to_stdout ? "the bundle to standard output" : output, errno_name(-e));
    } else {
        fprintf(msg,
                "Support bundle written to %s: %u files, %u values left out as secrets.\n"
                "The check found %s (see README.txt in the bundle).\n",
                to_stdout ? "standard output" : output, b.n_files, b.n_redacted,
                status == 2   ? "errors"
                : status == 1 ? "warnings"
                              : "no problem");
        /* 0: the bundle is written, whatever the check found */
        r = fflush(msg) == 0 ? RD_EXIT_OK : RD_EXIT_UNKNOWN;
    }
    free(b.manifest.s);
    rd_run_free(&run);
    return r;
}
