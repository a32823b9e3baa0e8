/* SPDX-License-Identifier: MIT */
/* Driver: is amdgpu loaded (module, built in, DKMS), what stops it (modprobe.d
 * blacklists with their real precedence, the kernel command line), and what
 * the kernel log says about firmware and KFD. */
#include "driver.h"

#include <ctype.h>
#include <inttypes.h>
#include <fcntl.h>
#include <sys/stat.h>
#include "distro.h"
#include "modprobe-conf.h"
#include "probe.h"
#include "rootfs.h"
#include "util.h"

#define MAX_KMSG_RECORDS 512

/* with a carriage return, as kmod reads a CRLF file: such a line names no
 * module, and the report says so */
static const char *const watched_modules[] = { "amdgpu", "radeon", "amdgpu\r", "radeon\r", NULL };

/* kmod's search order: the first directory holding a file name wins. */
static const char *const modprobe_dirs[] = {
    "/etc/modprobe.d", "/run/modprobe.d", "/usr/local/lib/modprobe.d", "/usr/lib/modprobe.d", "/lib/modprobe.d",
};

typedef struct {
    const char *file;
    const char *const *modules;
    rd_modprobe_line **lines;
    size_t *n;
} modprobe_collect;

static int collect_line(const rd_modprobe_entry *e, void *userdata)
{
    static const char *const directives[] = { "blacklist", "install", "options", "softdep", "remove", NULL };
    modprobe_collect *c = userdata;
    if (!e->module || !strv_contains((char **)directives, e->directive) ||
        !strv_contains((char **)c->modules, e->module))
        return 0;
    rd_modprobe_line *l = ARRAY_APPEND(*c->lines, *c->n);
    l->file = xstrdup(c->file);
    l->line = e->first_line;
    l->directive = xstrdup(e->directive);
    l->module = xstrdup(e->module);
    _cleanup_free_ char *rest = xstrdup(e->rest);
    l->args = xstrdup(strstrip(rest));
    return 0;
}

int rd_modprobe_parse(const char *text, const char *file, const char *const *modules, rd_modprobe_line **lines,
                      size_t *n)
{
    modprobe_collect c = { .file = file, .modules = modules, .lines = lines, .n = n };
    return rd_modprobe_conf_parse(text, strlen(text), collect_line, &c);
}

char **rd_cmdline_split(const char *cmdline)
{
    char **v = NULL;
    const char *p = cmdline;
    while (p && *p) {
        while (*p && isspace((unsigned char)*p))
            p++;
        if (!*p)
            break;
        strbuf tok = { 0 };
        bool quoted = false;
        while (*p && (quoted || !isspace((unsigned char)*p))) {
            if (*p == '"')
                quoted = !quoted;
            else
                strbuf_appendn(&tok, p, 1);
            p++;
        }
        v = strv_push(v, strbuf_steal(&tok));
    }
    return v;
}

static bool list_has_amdgpu(const char *list)
{
    _cleanup_free_ char *copy = xstrdup(list);
    char *save = NULL;
    for (char *t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save))
        if (streq(t, "amdgpu"))
            return true;
    return false;
}

void rd_cmdline_parse(const char *cmdline, rd_cmdline_info *ret)
{
    memset(ret, 0, sizeof(*ret));
    _cleanup_strv_free_ char **tokens = rd_cmdline_split(cmdline);
    for (size_t i = 0; tokens && tokens[i]; i++) {
        const char *t = tokens[i], *v;
        if (streq(t, "nomodeset"))
            ret->nomodeset = true;
        else if ((v = startswith(t, "amdgpu.modeset=")) && (streq(v, "0")))
            ret->amdgpu_modeset_off = true;
        else if (((v = startswith(t, "modprobe.blacklist=")) || (v = startswith(t, "module_blacklist=")) ||
                  (v = startswith(t, "rd.driver.blacklist="))) &&
                 list_has_amdgpu(v))
            ret->blacklist_tokens = strv_push(ret->blacklist_tokens, xstrdup(t));
    }
}

void rd_cmdline_info_free(rd_cmdline_info *i)
{
    strv_free(i->blacklist_tokens);
    memset(i, 0, sizeof(*i));
}

/* One decimal field of a kmsg header at *p, before end: digits up to a
 * comma or the end (leading commas skipped, as strtok_r did). */
static bool kmsg_field(const char **p, const char *end, uint64_t *ret)
{
    const char *s = *p;
    while (s < end && *s == ',')
        s++;
    const char *digits = s;
    uint64_t v = 0;
    for (; s < end && *s >= '0' && *s <= '9'; s++) {
        unsigned d = (unsigned)(*s - '0');
        if (v > (UINT64_MAX - d) / 10)
            return false;
        v = v * 10 + d;
    }
    if (s == digits || (s < end && *s != ','))
        return false;
    *p = s;
    *ret = v;
    return true;
}

int rd_kmsg_parse_record(const char *rec, size_t len, rd_kmsg_record *ret)
{
    const char *semi = memchr(rec, ';', len);
    if (!semi || semi - rec > 128)
        return -EINVAL;
    /* every record of every reader passes here: no copy of the header */
    const char *h = rec;
    uint64_t prio, seq, usec;
    if (!kmsg_field(&h, semi, &prio) || !kmsg_field(&h, semi, &seq) || !kmsg_field(&h, semi, &usec))
        return -EINVAL;
    const char *text = semi + 1;
    size_t tlen = len - (size_t)(text - rec);
    const char *nl = memchr(text, '\n', tlen);
    if (nl)
        tlen = (size_t)(nl - text);
    ret->priority = (int64_t)(prio & 7);
    ret->seq = seq;
    ret->usec = usec;
    /* the kernel escapes unprintable bytes as \xNN; keep what we got printable */
    char *t = xstrndup(text, tlen);
    for (char *c = t; *c; c++)
        if ((unsigned char)*c < 0x20 || *c == 0x7f)
            *c = '?';
    ret->text = t;
    return 0;
}

bool rd_kmsg_relevant(const char *t)
{
    static const char *const needles[] = {
        "amdgpu",    "kfd",   "radeon", "PCI rejects atomics", "atomic ops", "Direct firmware load", "Key was rejected",
        "nomodeset", "[drm]", "BAR ",
    };
    for (size_t i = 0; i < ELEMENTSOF(needles); i++)
        if (strstr(t, needles[i]))
            return true;
    return false;
}

static void gather_module(rd_driver_facts *d)
{
    struct stat st;
    d->module_present = stat("/sys/module/amdgpu", &st) == 0;
    d->radeon_loaded =
        stat("/sys/module/radeon/initstate", &st) == 0 || stat("/sys/module/radeon/parameters", &st) == 0;
    if (!d->module_present)
        return;
    char *s = NULL;
    if (read_line_at(AT_FDCWD, "/sys/module/amdgpu/initstate", &s) == 0)
        d->initstate = s;
    else
        d->builtin = true;
    if (read_line_at(AT_FDCWD, "/sys/module/amdgpu/version", &s) == 0)
        d->version = s;
    if (read_line_at(AT_FDCWD, "/sys/module/amdgpu/srcversion", &s) == 0)
        d->srcversion = s;
    _cleanup_close_ int dfd = open("/sys/module/amdgpu/parameters", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    _cleanup_strv_free_ char **names = dfd >= 0 ? dir_names(dfd, dir_name_visible, NULL, NULL) : NULL;
    for (size_t i = 0; names && names[i] && d->n_parameters < 256; i++) {
        char *v = NULL;
        if (read_line_at(dfd, names[i], &v) < 0)
            continue; /* write-only parameters */
        rd_param *p = ARRAY_APPEND(d->parameters, d->n_parameters);
        p->name = xstrdup(names[i]);
        p->value = v;
    }
}

/* A file name already taken by an earlier directory, and where. */
typedef struct {
    char *name, *path;
} seen_file;

static int cmp_seen(const void *a, const void *b)
{
    return strcmp(((const seen_file *)a)->name, ((const seen_file *)b)->name);
}

static void read_modprobe_file(const rd_ctx *ctx, rd_facts *facts, const char *path)
{
    rd_driver_facts *d = &facts->driver;
    _cleanup_free_ char *text = NULL;
    /* line-based: no size limit, a 1 MB file still blacklists */
    int r = rd_root_read_file(ctx, path, 0, &text);
    rd_facts_note_unreadable(facts, path, r, "the amdgpu and radeon lines it may hold (blacklist, options, install)");
    if (r < 0) {
        if (!d->modprobe_error)
            d->modprobe_error = xasprintf("%s: %s", path, rootfs_strerror(r));
        return;
    }
    rd_modprobe_parse(text, path, watched_modules, &d->modprobe, &d->n_modprobe);
}

/* Each directory's names are sorted; the names of earlier directories are
 * kept sorted too, so a shadowed name costs a binary search: n log n. */
static void gather_modprobe(const rd_ctx *ctx, rd_facts *facts)
{
    rd_driver_facts *d = &facts->driver;
    seen_file *seen = NULL;
    size_t n_seen = 0, n_dirs = 0, n_shadowed = strv_length(d->modprobe_shadowed);
    dev_t seen_dev[ELEMENTSOF(modprobe_dirs)];
    ino_t seen_ino[ELEMENTSOF(modprobe_dirs)];
    for (size_t i = 0; i < ELEMENTSOF(modprobe_dirs); i++) {
        int fd = rd_root_open(ctx, modprobe_dirs[i], O_RDONLY | O_DIRECTORY);
        if (fd < 0)
            continue;
        struct stat st;
        bool dup = fstat(fd, &st) < 0;
        for (size_t k = 0; !dup && k < n_dirs; k++)
            dup = seen_dev[k] == st.st_dev && seen_ino[k] == st.st_ino;
        close(fd);
        if (dup)
            continue; /* /lib -> /usr/lib on merged-/usr systems */
        seen_dev[n_dirs] = st.st_dev;
        seen_ino[n_dirs++] = st.st_ino;

        _cleanup_strv_free_ char **names = NULL;
        if (rd_root_list_dir(ctx, modprobe_dirs[i], ".conf", &names) < 0)
            continue;
        size_t n_before = n_seen;
        for (size_t j = 0; names && names[j]; j++) {
            _cleanup_free_ char *path = xasprintf("%s/%s", modprobe_dirs[i], names[j]);
            seen_file key = { .name = names[j] };
            const seen_file *hit = n_before ? bsearch(&key, seen, n_before, sizeof *seen, cmp_seen) : NULL;
            if (hit) {
                d->modprobe_shadowed =
                    strv_push_n(d->modprobe_shadowed, &n_shadowed, xasprintf("%s (hidden by %s)", path, hit->path));
                continue;
            }
            seen_file *sf = ARRAY_APPEND(seen, n_seen);
            sf->name = xstrdup(names[j]);
            sf->path = TAKE_PTR(path);
            read_modprobe_file(ctx, facts, sf->path);
        }
        if (n_seen > 1)
            qsort(seen, n_seen, sizeof *seen, cmp_seen);
    }
    for (size_t k = 0; k < n_seen; k++) {
        free(seen[k].name);
        free(seen[k].path);
    }
    free(seen);
}

/* The whole log as /dev/kmsg gives it: one record per read(), which is
 * what the kernel allows (no call returns more); a plain file (a saved log,
 * a test bed) returns many records a read. */
static int kmsg_slurp(strbuf *ret)
{
    int fd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0)
        return -errno;
    strbuf_appendn(ret, "", 0);
    char buf[16384];
    int r = 0;
    for (;;) {
        ssize_t k = read(fd, buf, sizeof buf);
        if (k < 0) {
            if (errno == EINTR || errno == EPIPE)
                continue; /* EPIPE: a record was overwritten while we read */
            if (errno != EAGAIN)
                r = -errno;
            break;
        }
        if (k == 0)
            break;
        if (ret->len + (size_t)k > 64u * 1024 * 1024)
            break; /* a strange kmsg that never ends */
        strbuf_appendn(ret, buf, (size_t)k);
    }
    close(fd);
    return r;
}

/* The records of the log as read (continuation lines, " SUBSYSTEM=...",
 * start with a space and are not records). */
static void kmsg_records(const char *text, size_t len, rd_kmsg_record **ret, size_t *ret_n)
{
    const char *start = text, *end = text + len, *nl;
    while (start < end && (nl = memchr(start, '\n', (size_t)(end - start)))) {
        rd_kmsg_record rec;
        if (*start != ' ' && rd_kmsg_parse_record(start, (size_t)(nl - start), &rec) == 0)
            *ARRAY_APPEND(*ret, *ret_n) = rec;
        start = nl + 1;
    }
}

int rd_kmsg_read(const rd_ctx *ctx, void (*on_record)(const rd_kmsg_record *rec, void *userdata), void *userdata,
                 char **ret_error)
{
    rd_gather_cache *cache = ctx && ctx->cache && ctx->cache->active ? ctx->cache : NULL;
    rd_kmsg_record *recs = NULL;
    size_t n = 0;
    int r;
    if (cache && cache->kmsg_read) {
        r = cache->kmsg_error;
        recs = cache->kmsg;
        n = cache->n_kmsg;
    } else {
        strbuf b = { 0 };
        r = kmsg_slurp(&b);
        /* records read before an error still count, as they did when streamed */
        if (b.s)
            kmsg_records(b.s, b.len, &recs, &n);
        free(b.s);
        if (cache) {
            cache->kmsg_read = true;
            cache->kmsg_error = r;
            cache->kmsg = recs;
            cache->n_kmsg = n;
        }
    }
    if (r < 0 && ret_error)
        *ret_error = xasprintf("/dev/kmsg: %s", strerror(-r));
    for (size_t i = 0; i < n; i++)
        on_record(&recs[i], userdata);
    if (!cache) {
        for (size_t i = 0; i < n; i++)
            free(recs[i].text);
        free(recs);
    }
    return r;
}

static void keep_driver_record(const rd_kmsg_record *rec, void *userdata)
{
    rd_driver_facts *d = userdata;
    if (rd_kmsg_relevant(rec->text) && d->n_kmsg < MAX_KMSG_RECORDS) {
        rd_kmsg_record *kept = ARRAY_APPEND(d->kmsg, d->n_kmsg);
        *kept = *rec;
        kept->text = xstrdup(rec->text);
    }
}

static void gather_kmsg(const rd_ctx *ctx, rd_driver_facts *d)
{
    (void)rd_kmsg_read(ctx, keep_driver_record, d, &d->kmsg_error);
}

static void driver_gather(const rd_ctx *ctx, rd_facts *facts)
{
    rd_driver_facts *d = &facts->driver;
    gather_module(d);
    gather_modprobe(ctx, facts);
    char *cmdline = NULL;
    int r = read_line_at(AT_FDCWD, "/proc/cmdline", &cmdline);
    if (r < 0)
        d->cmdline_error = xasprintf("/proc/cmdline: %s", strerror(-r));
    else
        d->cmdline = cmdline;
    gather_kmsg(ctx, d);
}

/* ---- assess ---- */

static bool is_blacklist_line(const rd_modprobe_line *l)
{
    rd_modprobe_entry e = { .directive = l->directive, .module = l->module, .rest = l->args };
    return rd_modprobe_entry_disables(&e, "amdgpu");
}

/* "blacklist amdgpu\r": kmod blacklists a module named "amdgpu\r" */
static void evidence_stray_cr(const rd_facts *f, rd_finding *fd)
{
    for (size_t i = 0; fd && i < f->driver.n_modprobe; i++) {
        const rd_modprobe_line *l = &f->driver.modprobe[i];
        rd_modprobe_entry e = { .directive = l->directive, .module = l->module, .rest = l->args };
        if (rd_modprobe_entry_disables_but_cr(&e, "amdgpu"))
            rd_finding_evidence(fd,
                                "%s:%" PRId64 ": \"%s amdgpu\" does nothing: the line ends in a carriage return "
                                "(a Windows line ending), so kmod reads the module name as \"amdgpu\\r\"",
                                l->file, l->line, l->directive);
    }
}

static bool looks_deliberate(const char *where)
{
    if (where && (strcasestr(where, "gpu-operator") || strcasestr(where, "gpu_operator")))
        return true;
    return false;
}

static void assess_blacklist(const rd_assess_input *in, const rd_cmdline_info *ci, rd_findings *out)
{
    const rd_facts *f = in->facts;
    bool loaded = f->driver.module_present;
    rd_finding *fd = NULL;
    const char *first_file = NULL;
    int64_t first_line = 0;
    bool deliberate = false, from_usr = false;
    for (size_t i = 0; i < f->driver.n_modprobe; i++) {
        const rd_modprobe_line *l = &f->driver.modprobe[i];
        if (!is_blacklist_line(l))
            continue;
        if (!fd)
            fd = rd_finding_add(out, RD_FINDING(DRIVER_BLACKLISTED), loaded ? RD_SEV_WARNING : RD_SEV_ERROR, NULL,
                                loaded ? "amdgpu is blacklisted and will not load at the next boot"
                                       : "amdgpu is blacklisted, so it does not load");
        rd_finding_evidence(fd, "%s:%" PRId64 ": %s %s%s%s", l->file, l->line, l->directive, l->module,
                            l->args && *l->args ? " " : "", strempty(l->args));
        if (!first_file) {
            first_file = l->file;
            first_line = l->line;
        }
        deliberate |= looks_deliberate(l->file);
        from_usr |= startswith(l->file, "/usr/") || startswith(l->file, "/lib/");
    }
    for (size_t i = 0; ci->blacklist_tokens && ci->blacklist_tokens[i]; i++) {
        if (!fd)
            fd = rd_finding_add(out, RD_FINDING(DRIVER_BLACKLISTED), loaded ? RD_SEV_WARNING : RD_SEV_ERROR, NULL,
                                "amdgpu is blacklisted on the kernel command line");
        rd_finding_evidence(fd, "/proc/cmdline: %s", ci->blacklist_tokens[i]);
    }
    if (!fd)
        return;
    evidence_stray_cr(f, fd);
    bool instinct = false;
    for (size_t i = 0; i < in->gpus->n_gpus; i++)
        instinct |= streq(in->gpus->gpus[i].gfx, "gfx942") || streq(in->gpus->gpus[i].gfx, "gfx950");
    strbuf r = { 0 };
    if (first_file && from_usr)
        strbuf_printf(&r,
                      "%s belongs to a package: override it with a file of the same name in "
                      "/etc/modprobe.d/ that omits the blacklist line",
                      first_file);
    else if (first_file)
        strbuf_printf(&r, "Delete line %" PRId64 " of %s (keep a copy)", first_line, first_file);
    if (ci->blacklist_tokens) {
        _cleanup_free_ char *how = rd_distro_cmdline_remove(&f->os, ci->blacklist_tokens[0]);
        strbuf_printf(&r, "%s%s", r.len ? "; " : "Remove the blacklist: ", how);
    }
    const rd_distro *distro = rd_distro_of(&f->os);
    if (first_file && distro->initramfs)
        strbuf_printf(&r, ", then `%s` and reboot.", distro->initramfs);
    else if (first_file)
        strbuf_append(&r, ", then rebuild the initramfs the way this distribution does (it may hold a copy of "
                          "the file) and reboot.");
    else
        strbuf_append(&r, ", then reboot.");
    if (deliberate || (ci->blacklist_tokens && instinct))
        strbuf_append(&r, " This blacklist looks deliberate (GPU Operator's driver, or AMD's deferred loading "
                          "on MI300X): check with whoever set it before removing it.");
    fd->remedy = strbuf_steal(&r);
    /* the fix runs update-initramfs */
    if (rd_distro_debian_tools(&f->os))
        rd_finding_set_fix(fd, "modprobe");
}

/* "amdgpu/navy_flounder_sos.bin" of the first failed firmware load. */
static char *missing_blob(const rd_driver_facts *d)
{
    for (size_t i = 0; i < d->n_kmsg; i++) {
        const char *p = strstr(d->kmsg[i].text, "Direct firmware load for ");
        if (!p)
            continue;
        p += strlen("Direct firmware load for ");
        size_t len = strcspn(p, " ");
        if (len > 0 && startswith(p, "amdgpu/"))
            return xstrndup(p, len);
    }
    return NULL;
}

static void firmware_remedy(const rd_facts *f, rd_finding *fw)
{
    _cleanup_free_ char *blob = missing_blob(&f->driver);
    const rd_distro *d = rd_distro_of(&f->os);
    if (!d->install) {
        /* a distribution we do not know: say what, not another one's commands */
        rd_finding_remedy(fw,
                          "The kernel loads GPU firmware from /lib/firmware/%s (also .zst/.xz compressed) at "
                          "boot, often from the initramfs. Install a linux-firmware release that contains that "
                          "file the way this distribution provides firmware (newer than the GPU), make sure it "
                          "ends up in the initramfs too, and reboot.",
                          blob ? blob : "amdgpu/");
        return;
    }
    rd_finding_remedy(fw, "Install current GPU firmware: `%s %s`%s%s%s, then `%s` and reboot.", d->install, d->firmware,
                      streq_ptr(f->os.id, "debian") ? " (from backports if the blob is still missing)" : "",
                      blob ? "; it must provide /lib/firmware/" : "", blob ? blob : "", d->initramfs);
}

/* An unbound GPU whose target the running kernel's amdgpu is too old for
 * (packages.ini [driver], the rule setup plans by): loading amdgpu cannot
 * help, a newer kernel series or AMD's driver does. Whether it reported g. */
static bool assess_kernel_too_old(const rd_assess_input *in, const rd_gpu *g, rd_findings *out)
{
    const rd_facts *f = in->facts;
    const char *kernel = f->os.kernel_release;
    const char *min = NULL;
    if (g->pci->driver || !g->gfx[0] || !kernel ||
        rd_packages_kernel_serves(&in->knowledge->packages, g->gfx, &f->os, &min) != RD_KERNEL_TOO_OLD)
        return false;
    rd_finding *fd = rd_finding_add(out, RD_FINDING(DRIVER_KERNEL_TOO_OLD), RD_SEV_ERROR, g->pci->address,
                                    "The running kernel's amdgpu cannot drive %s %s (%s): it serves it from "
                                    "kernel %s, this is %s",
                                    g->pci->address, g->name, g->gfx, min, kernel);
    rd_finding_evidence(fd, "%s %s: no driver bound", g->pci->address, g->name);
    rd_finding_evidence(fd, "/proc/sys/kernel/osrelease: %s", kernel);
    rd_finding_evidence(fd, "packages.ini [driver] inbox-kernel: %s:%s", g->gfx, min);
    _cleanup_free_ char *upgrade = rd_distro_kernel_upgrade(&f->os);
    rd_finding_remedy(fd,
                      "Install AMD's amdgpu driver (amdgpu-dkms, built for the running kernel with its headers): "
                      "`sudo rocm-doctor setup --apply` plans both; or boot kernel %s or later: %s. Then reboot. "
                      "Loading this kernel's amdgpu does not help.",
                      min, upgrade);
    return true;
}

static void driver_assess(const rd_assess_input *in, rd_findings *out)
{
    const rd_facts *f = in->facts;
    if (in->gpus->n_gpus == 0)
        return;
    size_t unbound = 0, on_amdgpu = 0;
    _cleanup_free_ bool *too_old = xcalloc(in->gpus->n_gpus, sizeof *too_old);
    for (size_t i = 0; i < in->gpus->n_gpus; i++) {
        too_old[i] = assess_kernel_too_old(in, &in->gpus->gpus[i], out);
        unbound += in->gpus->gpus[i].pci->driver == NULL && !too_old[i];
        on_amdgpu += streq_ptr(in->gpus->gpus[i].pci->driver, "amdgpu");
    }
    rd_cmdline_info ci;
    rd_cmdline_parse(f->driver.cmdline, &ci);

    if (!f->driver.module_present && unbound > 0) {
        rd_finding *fd = rd_finding_add(out, RD_FINDING(DRIVER_NOT_LOADED), RD_SEV_ERROR, NULL,
                                        "The amdgpu driver is not loaded: %zu AMD GPU%s without a driver", unbound,
                                        unbound == 1 ? "" : "s");
        rd_finding_evidence(fd, "/sys/module/amdgpu: absent");
        for (size_t i = 0; i < in->gpus->n_gpus; i++)
            if (!in->gpus->gpus[i].pci->driver && !too_old[i])
                rd_finding_evidence(fd, "%s %s: no driver bound", in->gpus->gpus[i].pci->address,
                                    in->gpus->gpus[i].name);
        bool cause = ci.nomodeset || ci.amdgpu_modeset_off || ci.blacklist_tokens;
        for (size_t i = 0; i < f->driver.n_modprobe; i++)
            cause |= is_blacklist_line(&f->driver.modprobe[i]);
        evidence_stray_cr(f, fd);
        if (cause)
            rd_finding_remedy(fd, "Remove what stops it (reported below), then reboot.");
        else if (rd_os_is_ubuntu(&f->os))
            rd_finding_remedy(fd, "Load it with `sudo modprobe amdgpu` and read `sudo dmesg | grep -i amdgpu` "
                                  "if it fails; if modprobe cannot find it, install the kernel's extra modules: "
                                  "`sudo apt install linux-modules-extra-$(uname -r)`.");
        else
            rd_finding_remedy(fd, "Load it with `sudo modprobe amdgpu` and read `sudo dmesg | grep -i amdgpu` "
                                  "if it fails; if modprobe cannot find it (`modinfo amdgpu`), the running "
                                  "kernel's modules package lacks it: install the distribution's full kernel "
                                  "modules package for $(uname -r).");
    }

    assess_blacklist(in, &ci, out);

    if (ci.nomodeset || ci.amdgpu_modeset_off) {
        rd_finding *fd = rd_finding_add(out, RD_FINDING(DRIVER_NOMODESET), on_amdgpu ? RD_SEV_WARNING : RD_SEV_ERROR,
                                        NULL, "%s on the kernel command line keeps amdgpu from loading",
                                        ci.nomodeset ? "nomodeset" : "amdgpu.modeset=0");
        rd_finding_evidence(fd, "/proc/cmdline: %s", f->driver.cmdline);
        _cleanup_free_ char *how = rd_distro_cmdline_remove(&f->os, ci.nomodeset ? "nomodeset" : "amdgpu.modeset=0");
        rd_finding_remedy(fd, "To let amdgpu load: %s, then reboot.", how);
    }
    rd_cmdline_info_free(&ci);

    rd_finding *fw = NULL;
    for (size_t i = 0; i < f->driver.n_kmsg; i++) {
        const char *t = f->driver.kmsg[i].text;
        const char *p = strstr(t, "Direct firmware load for ");
        if (!p || !strstr(p, "amdgpu/") || !strstr(p, "failed"))
            continue;
        if (!fw)
            fw = rd_finding_add(out, RD_FINDING(DRIVER_FIRMWARE_MISSING), RD_SEV_ERROR, NULL,
                                "amdgpu could not load firmware it needs");
        rd_finding_evidence(fw, "kernel: %s", t);
    }
    if (fw) {
        for (size_t i = 0; i < f->driver.n_kmsg; i++)
            if (strstr(f->driver.kmsg[i].text, "Fatal error during GPU init"))
                rd_finding_evidence(fw, "kernel: %s", f->driver.kmsg[i].text);
        firmware_remedy(f, fw);
    }
}

static const char *const driver_findings[] = { RD_FINDING(DRIVER_NOT_LOADED),       RD_FINDING(DRIVER_KERNEL_TOO_OLD),
                                               RD_FINDING(DRIVER_BLACKLISTED),      RD_FINDING(DRIVER_NOMODESET),
                                               RD_FINDING(DRIVER_FIRMWARE_MISSING), NULL };

/* clang-format off */
const rd_probe rd_probe_driver = {
    .id = "driver",
    .findings = driver_findings,
    .title = "amdgpu driver, blacklists and kernel log",
    .areas = RD_STRV("driver"),
    .reads = (const rd_probe_input[]){
        { "/etc/modprobe.d", true },
        { "/run/modprobe.d", true },
        { "/usr/local/lib/modprobe.d", true },
        { "/usr/lib/modprobe.d", true },
        { "/lib/modprobe.d", true },
        { NULL, false },
    },
    .uevents = RD_STRV("pci", "drm", "kfd", "drm/WEDGED"),
    .gather = driver_gather,
    .assess = driver_assess,
};
/* clang-format on */
