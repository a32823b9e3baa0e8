/* SPDX-License-Identifier: MIT */
/* rocm-doctord: one check at boot (--once), or a daemon that re-checks what
 * an event changed. Everything it waits for is a file descriptor (udev
 * monitor, inotify, signalfd, a one-shot debounce timer), so it does not
 * wake up while nothing happens. */
#include <errno.h>
#include <fcntl.h>
#include <libudev.h>
#include <signal.h>
#include <stdio.h>
#include <sys/epoll.h>
#include <sys/inotify.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <sys/timerfd.h>
#include <time.h>
#include "daemon.h"
#include "fixes.h"
#include "journal.h"
#include "json-util.h"
#include "probe.h"
#include "report.h"
#include "rootfs.h"
#include "util.h"

/* NFD's local source ignores a features file past its "# +expiry-time=":
 * the daemon renews the file every NFD_RENEW_S and dates it NFD_EXPIRY_S
 * ahead, so a daemon that stops, hangs or never starts again (a pod stuck
 * in ContainerCreating) leaves no label behind for long. The renewal also
 * rewrites status.json: the heartbeat a liveness probe looks at. */
#define NFD_RENEW_S 300
#define NFD_EXPIRY_S 900
/* Where no device event can reach the daemon (see events_unseen), the
 * probes that listen to events are re-checked on the same interval. */

#define INOTIFY_MASK                                                                                                   \
    (IN_CREATE | IN_DELETE | IN_MOVED_FROM | IN_MOVED_TO | IN_CLOSE_WRITE | IN_DELETE_SELF | IN_MOVE_SELF |            \
     IN_ONLYDIR | IN_EXCL_UNLINK)

typedef struct {
    char *path; /* as on this machine: under --root when given */
    bool is_dir;
    rd_probe_mask mask;
} watch_target;

typedef struct {
    int wd;
    char *dir;
} watch_dir;

typedef struct {
    rd_run_params ro;
    char **fix_ids; /* ro.fix_ids */
    rd_run *run;
    rd_state state;
    bool state_known;
    bool journal_is_stderr;
    struct udev *udev;
    struct udev_monitor *mon;
    int epfd, sigfd, inofd, timerfd;
    int pollfd;     /* [daemon] health_poll_s; -1 when 0 (the default) */
    int renewfd;    /* NFD renewal and polling without events; -1 when neither */
    bool eventless; /* device events cannot reach this daemon */
    watch_target *targets;
    size_t n_targets;
    watch_dir *dirs;
    size_t n_dirs;
    rd_probe_mask pending;
    bool timer_armed;
} daemon_state;

/* Under systemd, stderr is a stream into the journal: then a change is
 * logged once, as a structured entry, not a second time as text. */
static bool stderr_is_journal(void)
{
    const char *e = getenv("JOURNAL_STREAM");
    unsigned long long dev, ino;
    struct stat st;
    if (!e || sscanf(e, "%llu:%llu", &dev, &ino) != 2 || fstat(STDERR_FILENO, &st) < 0)
        return false;
    return (unsigned long long)st.st_dev == dev && (unsigned long long)st.st_ino == ino;
}

typedef int (*render_runs_fn)(FILE *, const rd_report_fix_runs *);

/* The check in one format, by the report's renderer, followed by the fix
 * runs' part. */
static int render_to_string(rd_format fmt, render_runs_fn runs_fn, const rd_run *run, const rd_report_fix_runs *runs,
                            char **ret, size_t *ret_size)
{
    char *buf = NULL;
    size_t size = 0;
    FILE *f = open_memstream(&buf, &size);
    if (!f)
        return -errno;
    const rd_report_input in = {
        .facts = &run->facts, .view = &run->view, .findings = &run->findings, .level = run->level, .color = false
    };
    int r = rd_renderers[fmt].write(f, &in);
    if (r == 0)
        r = runs_fn(f, runs);
    if (fclose(f) != 0 && r == 0)
        r = -EIO;
    if (r < 0) {
        free(buf);
        return r;
    }
    *ret = buf;
    *ret_size = size;
    return 0;
}

static int publish_rendered(const rd_run *run, const char *what, const char *file, rd_format fmt,
                            render_runs_fn runs_fn, const rd_report_fix_runs *runs, const char *prefix)
{
    if (!file || !*file)
        return 0;
    _cleanup_free_ char *data = NULL;
    size_t size = 0;
    int r = render_to_string(fmt, runs_fn, run, runs, &data, &size);
    _cleanup_free_ char *path = rd_daemon_output_path(run->ctx.root, file);
    if (r == 0 && prefix) {
        char *joined = xasprintf("%s%s", prefix, data);
        free(data);
        data = joined;
        size = strlen(joined);
    }
    if (r == 0)
        r = rd_daemon_write_output(run->ctx.root, file, data, size);
    if (r < 0) {
        rd_daemon_log("cannot write the %s output %s: %s", what, path, rootfs_strerror(r));
        return r;
    }
    return 0;
}

/* status.json, the metrics and NFD files; returns 0 or the first error.
 * nfd_expiry: when the NFD labels stop counting, or 0 for never (the boot
 * check, which nothing renews). */
static int publish_files(const rd_run *run, time_t nfd_expiry)
{
    int ret = 0, r;
    /* the fix runs as their journals say now: the newest ten in the status */
    json_object *fix_runs = NULL;
    if (rd_fix_runs_json(&run->ctx, NULL, 10, &fix_runs) < 0)
        fix_runs = NULL;
    const rd_report_fix_runs counts = {
        .pending = (uint64_t)rd_json_get_int(fix_runs, "pending", 0),
        .verified = (uint64_t)rd_json_get_int(fix_runs, "verified", 0),
        .failed = (uint64_t)rd_json_get_int(fix_runs, "failed", 0),
    };
    const char *status_file = run->config.status_file;
    if (status_file && *status_file) {
        json_object *j = rd_report_json(&run->facts, &run->view, &run->findings, run->level);
        json_object_object_add(j, "fix_runs", fix_runs);
        fix_runs = NULL;
        _cleanup_free_ char *text = rd_json_pretty(j);
        json_object_put(j);
        _cleanup_free_ char *path = rd_daemon_output_path(run->ctx.root, status_file);
        r = rd_daemon_write_output(run->ctx.root, status_file, text, strlen(text));
        if (r < 0) {
            rd_daemon_log("cannot write the status %s: %s", path, rootfs_strerror(r));
            ret = r;
        }
    }
    r = publish_rendered(run, "Prometheus", run->config.prometheus_file, RD_FORMAT_PROMETHEUS,
                         rd_report_prometheus_fix_runs, &counts, NULL);
    if (r < 0 && ret == 0)
        ret = r;
    _cleanup_free_ char *expiry = nfd_expiry ? rd_report_nfd_expiry_line(nfd_expiry) : NULL;
    r = publish_rendered(run, "Node Feature Discovery", run->config.nfd_file, RD_FORMAT_NFD, rd_report_nfd_fix_runs,
                         &counts, expiry);
    if (r < 0 && ret == 0)
        ret = r;
    return ret;
}

static void journal_entry(char **fields, bool also_stderr)
{
    int r = rd_daemon_journal_send(fields);
    if (r >= 0 && !also_stderr)
        return;
    for (size_t i = 0; fields[i]; i++) {
        const char *m = startswith(fields[i], "MESSAGE=");
        if (m)
            rd_daemon_log("%s", m);
    }
}

/* A journal entry for every finding that appeared, changed or went away. */
static void log_changes(rd_state *state, const rd_findings *fs, bool also_stderr)
{
    rd_state now;
    rd_state_from_findings(fs, &now);
    rd_change *changes = NULL;
    size_t n = 0;
    rd_state_diff(state, &now, &changes, &n);
    for (size_t i = 0; i < n; i++) {
        _cleanup_strv_free_ char **fields = rd_daemon_journal_fields(&changes[i]);
        journal_entry(fields, also_stderr);
    }
    free(changes);
    rd_state_free(state);
    *state = now;
}

static void notify_status(const rd_run *run, bool ready)
{
    _cleanup_free_ char *line = rd_daemon_status_line(run->view.n_gpus, &run->findings);
    _cleanup_free_ char *msg = xasprintf("%sSTATUS=%s", ready ? "READY=1\n" : "", line);
    rd_daemon_notify(msg);
}

/* An explicit --config FILE that cannot be read is an error, whatever the
 * loader makes of a missing file in the configuration directories. */
static int check_config_file(const char *file)
{
    if (!file)
        return 0;
    int fd = open(file, O_RDONLY | O_CLOEXEC | O_NOCTTY);
    if (fd < 0)
        return rd_daemon_fail("cannot read --config %s: %s", file, strerror(errno));
    close(fd);
    return 0;
}

/* The check, with its failure said the daemon's way: 0 or 3. */
static int run_check(const rd_run_params *p, rd_run *r)
{
    _cleanup_free_ char *err = NULL;
    if (rd_run_check(p, r, &err) < 0)
        return rd_daemon_fail("%s", err ? err : "cannot run the check");
    for (char **w = r->config.warnings; w && *w; w++)
        rd_daemon_log("warning: %s", *w);
    return 0;
}

/* The pending fix runs whose reboot or re-login has happened get their
 * verdict from this check: the GPU kernel runs first (verify_runtime),
 * whatever the level, and the verdict goes into each run's journal and into
 * a journal entry of its own. */
static void verify_fix_runs(rd_run *run, bool also_stderr)
{
    _cleanup_free_ char *boot_id = rd_boot_id();
    if (rd_fix_runs_due(&run->ctx, boot_id) == 0)
        return;
    bool runtime = run->config.verify_runtime;
    if (runtime && run->level < 2) {
        rd_gather_level2(run->probes, &run->ctx, &run->facts);
        run->level = 2;
        rd_run_assess(run);
    }
    const rd_verify_input in = { .findings = &run->findings, .runtime = runtime, .boot_id = boot_id };
    rd_verify_outcome *out = NULL;
    size_t n = 0;
    _cleanup_free_ char *err = NULL;
    if (rd_fix_runs_verify(&run->ctx, &in, &out, &n, &err) < 0)
        rd_daemon_log("the pending fix runs were not all verified: %s", err);
    for (size_t i = 0; i < n; i++) {
        _cleanup_strv_free_ char **fields =
            rd_daemon_verify_fields(out[i].run_id, out[i].verified, out[i].message, boot_id);
        journal_entry(fields, also_stderr);
    }
    rd_verify_outcomes_free(out, n);
}

int rd_daemon_run_once(const rd_daemon_options *o)
{
    int r = check_config_file(o->config_file);
    if (r)
        return r;
    _cleanup_strv_free_ char **fix_ids = rd_fix_table_ids(&rd_fix_registry);
    const rd_run_params ro = {
        .probes = &rd_probe_registry, .fix_ids = fix_ids, .root = o->root, .config_file = o->config_file
    };
    rd_run run;
    r = run_check(&ro, &run);
    if (r == 0) {
        rd_state empty = { 0 };
        verify_fix_runs(&run, !stderr_is_journal());
        log_changes(&empty, &run.findings, !stderr_is_journal());
        rd_state_free(&empty);
        r = publish_files(&run, 0) < 0 ? RD_EXIT_UNKNOWN : rd_findings_exit_status(&run.findings);
    }
    rd_run_free(&run);
    return r;
}

/* ---- the daemon ---------------------------------------------------------- */

static void targets_free(daemon_state *d)
{
    for (size_t i = 0; i < d->n_targets; i++)
        free(d->targets[i].path);
    free(d->targets);
    d->targets = NULL;
    d->n_targets = 0;
}

static void targets_build(daemon_state *d, const char *root, const char *config_file)
{
    targets_free(d);
    /* The output directories exist before anything is watched, so creating
     * them is not taken for a change (/run/modprobe.d's parent is /run). */
    const char *outputs[] = { d->run->config.status_file, d->run->config.prometheus_file, d->run->config.nfd_file };
    for (size_t i = 0; i < ELEMENTSOF(outputs); i++)
        if (outputs[i] && *outputs[i]) {
            (void)rd_daemon_prepare_output(root, outputs[i]);
        }
    _cleanup_free_ rd_watch_spec *specs = NULL;
    size_t n_specs = rd_daemon_watch_specs(&specs);
    for (size_t i = 0; i < n_specs; i++) {
        watch_target *t = ARRAY_APPEND(d->targets, d->n_targets);
        t->path = rd_daemon_output_path(root, specs[i].path);
        t->is_dir = specs[i].is_dir;
        t->mask = specs[i].mask;
    }
    if (config_file) {
        /* --config names a file on this machine, not under --root */
        watch_target *t = ARRAY_APPEND(d->targets, d->n_targets);
        char *abs = realpath(config_file, NULL);
        t->path = abs ? abs : xstrdup(config_file);
        t->is_dir = false;
        t->mask = RD_MASK_CONFIG;
    }
}

static bool is_dir(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

static char *parent_dir(const char *path)
{
    const char *slash = strrchr(path, '/');
    if (!slash || slash == path)
        return xstrdup("/");
    return xstrndup(path, (size_t)(slash - path));
}

static void want_dir(char ***dirs, const char *dir)
{
    if (!strv_contains(*dirs, dir))
        *dirs = strv_push(*dirs, xstrdup(dir));
}

/* Watches the directories that hold the targets (a missing one: its nearest
 * existing ancestor, so its creation is seen) and the drop-in directories. */
static void watches_sync(daemon_state *d)
{
    _cleanup_strv_free_ char **want = NULL;
    for (size_t i = 0; i < d->n_targets; i++) {
        const watch_target *t = &d->targets[i];
        if (t->is_dir && is_dir(t->path))
            want_dir(&want, t->path);
        _cleanup_free_ char *p = parent_dir(t->path);
        while (!is_dir(p) && !streq(p, "/")) {
            char *up = parent_dir(p);
            free(p);
            p = up;
        }
        want_dir(&want, p);
    }
    watch_dir *dirs = NULL;
    size_t n = 0;
    for (size_t i = 0; want && want[i]; i++) {
        int wd = inotify_add_watch(d->inofd, want[i], INOTIFY_MASK);
        if (wd < 0)
            continue; /* gone meanwhile, or not readable: the parent's watch covers it */
        watch_dir *w = ARRAY_APPEND(dirs, n);
        w->wd = wd;
        w->dir = xstrdup(want[i]);
    }
    for (size_t i = 0; i < d->n_dirs; i++) {
        bool kept = false;
        for (size_t k = 0; k < n && !kept; k++)
            kept = dirs[k].wd == d->dirs[i].wd;
        if (!kept)
            (void)inotify_rm_watch(d->inofd, d->dirs[i].wd);
        free(d->dirs[i].dir);
    }
    free(d->dirs);
    d->dirs = dirs;
    d->n_dirs = n;
}

/* NFD_RENEW_S, or the test's ROCM_DOCTORD_TEST_RENEW_S. */
static int64_t renew_interval(void)
{
    const char *e = secure_getenv("ROCM_DOCTORD_TEST_RENEW_S");
    uint64_t u;
    if (e && safe_atou64(e, 10, &u) >= 0 && u > 0 && u <= 86400)
        return (int64_t)u;
    return NFD_RENEW_S;
}

/* Why udev's events cannot reach this daemon, or NULL when they can.
 * libudev's monitor receives nothing where udevd is not running
 * (/run/udev/control missing: a container without the host's /run/udev),
 * and udevd's netlink messages stay in the host's network namespace (a pod
 * without hostNetwork). The namespace comparison needs /proc/1 readable. */
static const char *events_unseen(void)
{
    if (access("/run/udev/control", F_OK) < 0)
        return "/run/udev/control is missing: udev does not run here";
    struct stat self, init;
    if (stat("/proc/self/ns/net", &self) == 0 && stat("/proc/1/ns/net", &init) == 0 &&
        (self.st_dev != init.st_dev || self.st_ino != init.st_ino))
        return "this daemon is in another network namespace than udev";
    return NULL;
}

static void arm_timer(daemon_state *d)
{
    if (d->timer_armed)
        return;
    int64_t ms = d->run->config.debounce_ms;
    struct itimerspec its = { 0 };
    if (ms > 0) {
        its.it_value.tv_sec = ms / 1000;
        its.it_value.tv_nsec = (ms % 1000) * 1000000L;
    } else {
        its.it_value.tv_nsec = 1; /* 0 would disarm */
    }
    if (timerfd_settime(d->timerfd, 0, &its, NULL) < 0) {
        rd_daemon_log("cannot arm the debounce timer: %s", strerror(errno));
        return;
    }
    d->timer_armed = true;
}

static void add_pending(daemon_state *d, rd_probe_mask m)
{
    if (!m)
        return;
    d->pending |= m;
    arm_timer(d);
}

static int epoll_add(int epfd, int fd);

/* The health area's timer, only when health_poll_s is set: by default the
 * daemon has no timer and no idle wake-ups. */
static void arm_health_poll(daemon_state *d)
{
    int64_t s = d->run ? d->run->config.health_poll_s : 0;
    if (s <= 0 && d->pollfd < 0)
        return;
    if (d->pollfd < 0) {
        d->pollfd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
        if (d->pollfd < 0 || epoll_add(d->epfd, d->pollfd) < 0) {
            rd_daemon_log("cannot set up the health_poll_s timer: %s", strerror(errno));
            closep(&d->pollfd);
            return;
        }
    }
    struct itimerspec its = { .it_value.tv_sec = s > 0 ? s : 0, .it_interval.tv_sec = s > 0 ? s : 0 };
    if (timerfd_settime(d->pollfd, 0, &its, NULL) < 0)
        rd_daemon_log("cannot arm the health_poll_s timer: %s", strerror(errno));
}

static bool has_nfd_file(const daemon_state *d)
{
    return d->run && d->run->config.nfd_file && *d->run->config.nfd_file;
}

static time_t nfd_expiry(const daemon_state *d)
{
    return has_nfd_file(d) ? time(NULL) + renew_interval() * NFD_EXPIRY_S / NFD_RENEW_S : 0;
}

static void publish(daemon_state *d, bool ready)
{
    log_changes(&d->state, &d->run->findings, !d->journal_is_stderr);
    (void)publish_files(d->run, nfd_expiry(d));
    notify_status(d->run, ready);
}

/* The renewal timer runs while there is an NFD file to renew or no device
 * event to wait for; otherwise the daemon has no timer and no idle
 * wake-ups. */
static void arm_renewal(daemon_state *d)
{
    int64_t s = renew_interval();
    bool want = has_nfd_file(d) || d->eventless;
    if (!want && d->renewfd < 0)
        return;
    if (d->renewfd < 0) {
        d->renewfd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
        if (d->renewfd < 0 || epoll_add(d->epfd, d->renewfd) < 0) {
            rd_daemon_log("cannot set up the renewal timer: %s", strerror(errno));
            closep(&d->renewfd);
            return;
        }
    }
    struct itimerspec its = { .it_value.tv_sec = want ? s : 0, .it_interval.tv_sec = want ? s : 0 };
    if (timerfd_settime(d->renewfd, 0, &its, NULL) < 0)
        rd_daemon_log("cannot arm the renewal timer: %s", strerror(errno));
}

static void on_renewal(daemon_state *d)
{
    if (d->eventless) {
        /* publishes too, once the re-check is done */
        add_pending(d, rd_daemon_uevent_probes(NULL));
        return;
    }
    (void)publish_files(d->run, nfd_expiry(d));
}

/* A new configuration means a new check from scratch; a configuration that
 * does not load leaves the running one in place. */
static void reload(daemon_state *d)
{
    rd_run *nr = xcalloc(1, sizeof(*nr)); /* rd_run_free-able even when rd_run_check is not reached */
    if (check_config_file(d->ro.config_file) != 0 || run_check(&d->ro, nr) != 0) {
        rd_run_free(nr);
        free(nr);
        rd_daemon_log("the configuration was not reloaded; the previous one stays in effect");
        return;
    }
    rd_run_free(d->run);
    free(d->run);
    d->run = nr;
}

static void recheck(daemon_state *d)
{
    rd_probe_mask m = d->pending;
    d->pending = 0;
    if (!m)
        return;
    if (m & RD_MASK_CONFIG) {
        reload(d);
        targets_build(d, d->run->ctx.root, d->ro.config_file);
        watches_sync(d);
    } else {
        rd_daemon_regather(&d->run->ctx, &d->run->facts, m, d->run->level);
        rd_run_assess(d->run);
    }
    publish(d, false);
}

static const char *udev_prop(void *userdata, const char *key)
{
    return udev_device_get_property_value(userdata, key);
}

static void on_uevent(daemon_state *d)
{
    struct udev_device *dev = udev_monitor_receive_device(d->mon);
    if (!dev) {
        /* the socket buffer overflowed during a burst: events were lost */
        if (errno == ENOBUFS)
            add_pending(d, rd_daemon_uevent_probes(NULL));
        return;
    }
    const char *subsystem = udev_device_get_subsystem(dev);
    const char *action = udev_device_get_action(dev);
    const char *reset = udev_device_get_property_value(dev, "RESET");
    if (subsystem && streq(subsystem, "drm") && action && streq(action, "change") && reset && streq(reset, "1")) {
        struct udev_device *pci = udev_device_get_parent_with_subsystem_devtype(dev, "pci", NULL);
        const char *addr = pci ? udev_device_get_sysname(pci) : NULL;
        char mid[33];
        rd_daemon_message_id("event:gpu-reset", mid);
        char **fields = NULL;
        fields = strv_push(fields, xasprintf("MESSAGE=GPU %s was reset", addr ? addr : udev_device_get_sysname(dev)));
        fields = strv_push(fields, xstrdup("PRIORITY=4"));
        fields = strv_push(fields, xasprintf("MESSAGE_ID=%s", mid));
        fields = strv_push(fields, xstrdup("SYSLOG_IDENTIFIER=rocm-doctord"));
        if (addr)
            fields = strv_push(fields, xasprintf("ROCM_DOCTOR_GPU=%s", addr));
        journal_entry(fields, !d->journal_is_stderr);
        strv_free(fields);
    }
    add_pending(d, rd_daemon_uevent_mask(subsystem, action, udev_prop, dev));
    udev_device_unref(dev);
}

/* Our own outputs (and their temporary files) are never a change to react
 * to, wherever the configuration puts them: that would be a loop. */
static bool is_own_output(const daemon_state *d, const char *changed)
{
    const char *outputs[] = { d->run->config.status_file, d->run->config.prometheus_file, d->run->config.nfd_file };
    for (size_t i = 0; i < ELEMENTSOF(outputs); i++) {
        if (!outputs[i] || !*outputs[i])
            continue;
        _cleanup_free_ char *path = rd_daemon_output_path(d->run->ctx.root, outputs[i]);
        _cleanup_free_ char *dir = parent_dir(path);
        const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
        size_t n = strlen(dir);
        if (strncmp(changed, dir, n) != 0 || changed[n] != '/')
            continue;
        const char *name = changed + n + 1;
        const char *tmp = name[0] == '.' ? startswith(name + 1, base) : NULL;
        if (streq(name, base) || (tmp && tmp[0] == '.'))
            return true;
    }
    return false;
}

/* Whether dir is target itself or a directory above it. */
static bool path_on_the_way(const char *dir, const char *target)
{
    size_t n = strlen(dir);
    return strncmp(dir, target, n) == 0 && (target[n] == 0 || target[n] == '/');
}

static void on_inotify(daemon_state *d)
{
    char buf[8192] __attribute__((aligned(__alignof__(struct inotify_event))));
    bool resync = false;
    for (;;) {
        ssize_t len = read(d->inofd, buf, sizeof buf);
        if (len < 0) {
            if (errno == EINTR)
                continue;
            break; /* EAGAIN: drained */
        }
        for (char *p = buf; p < buf + len;) {
            const struct inotify_event *ev = (const struct inotify_event *)p;
            p += sizeof(*ev) + ev->len;
            if (ev->mask & IN_Q_OVERFLOW) {
                /* events were lost: check everything from scratch */
                add_pending(d, RD_MASK_ALL | RD_MASK_CONFIG);
                resync = true;
                continue;
            }
            if (ev->mask & (IN_IGNORED | IN_DELETE_SELF | IN_MOVE_SELF | IN_ISDIR))
                resync = true;
            for (size_t i = 0; i < d->n_dirs; i++) {
                if (d->dirs[i].wd != ev->wd)
                    continue;
                _cleanup_free_ char *changed =
                    ev->len && ev->name[0]
                        ? xasprintf("%s%s%s", d->dirs[i].dir, streq(d->dirs[i].dir, "/") ? "" : "/", ev->name)
                        : xstrdup(d->dirs[i].dir);
                if (is_own_output(d, changed))
                    continue;
                for (size_t k = 0; k < d->n_targets; k++) {
                    if (!rd_daemon_watch_matches(d->targets[k].path, d->targets[k].is_dir, changed))
                        continue;
                    add_pending(d, d->targets[k].mask);
                    /* a target or a directory on its way came or went (a
                     * symlink put in place of a directory among them): the
                     * watches must follow */
                    if ((ev->mask & (IN_CREATE | IN_DELETE | IN_MOVED_FROM | IN_MOVED_TO)) &&
                        path_on_the_way(changed, d->targets[k].path))
                        resync = true;
                }
            }
        }
    }
    if (resync)
        watches_sync(d);
}

static int epoll_add(int epfd, int fd)
{
    struct epoll_event ev = { .events = EPOLLIN, .data.fd = fd };
    return epoll_ctl(epfd, EPOLL_CTL_ADD, fd, &ev);
}

static int setup(daemon_state *d)
{
    /* a closed stderr must not kill the daemon */
    signal(SIGPIPE, SIG_IGN);
    sigset_t mask;
    sigemptyset(&mask);
    sigaddset(&mask, SIGTERM);
    sigaddset(&mask, SIGINT);
    sigaddset(&mask, SIGHUP);
    if (sigprocmask(SIG_BLOCK, &mask, NULL) < 0)
        return rd_daemon_fail("cannot block signals: %s", strerror(errno));
    d->sigfd = signalfd(-1, &mask, SFD_NONBLOCK | SFD_CLOEXEC);
    d->inofd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
    d->timerfd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
    d->epfd = epoll_create1(EPOLL_CLOEXEC);
    if (d->sigfd < 0 || d->inofd < 0 || d->timerfd < 0 || d->epfd < 0)
        return rd_daemon_fail("cannot set up the event loop: %s", strerror(errno));
    if (epoll_add(d->epfd, d->sigfd) < 0 || epoll_add(d->epfd, d->inofd) < 0 || epoll_add(d->epfd, d->timerfd) < 0)
        return rd_daemon_fail("cannot set up the event loop: %s", strerror(errno));

    /* The monitor is listening before the first check, so no change between
     * the two can be missed. */
    d->udev = udev_new();
    if (d->udev)
        d->mon = udev_monitor_new_from_netlink(d->udev, "udev");
    int r = d->mon ? 0 : -ENOMEM;
    /* the subsystems the probes' descriptors name */
    _cleanup_strv_free_ char **subsystems = rd_daemon_uevent_subsystems();
    for (char **s = subsystems; r >= 0 && s && *s; s++)
        r = udev_monitor_filter_add_match_subsystem_devtype(d->mon, *s, NULL);
    if (r >= 0)
        r = udev_monitor_enable_receiving(d->mon);
    if (r >= 0 && epoll_add(d->epfd, udev_monitor_get_fd(d->mon)) < 0)
        r = -errno;
    if (r < 0) {
        rd_daemon_log("cannot watch device events (%s); only file changes trigger a re-check", strerror(-r));
        d->mon = udev_monitor_unref(d->mon);
    }
    const char *why = r < 0 ? "the udev monitor cannot be set up" : events_unseen();
    if (why) {
        d->eventless = true;
        rd_daemon_log("no device events reach this daemon (%s); GPU hot-plug and resets are re-checked every %d s "
                      "instead",
                      why, (int)renew_interval());
    }
    return 0;
}

static void teardown(daemon_state *d)
{
    udev_monitor_unref(d->mon);
    udev_unref(d->udev);
    for (size_t i = 0; i < d->n_dirs; i++)
        free(d->dirs[i].dir);
    free(d->dirs);
    targets_free(d);
    rd_state_free(&d->state);
    strv_free(d->fix_ids);
    if (d->run) {
        rd_run_free(d->run);
        free(d->run);
    }
    closep(&d->epfd);
    closep(&d->sigfd);
    closep(&d->inofd);
    closep(&d->timerfd);
    closep(&d->pollfd);
    closep(&d->renewfd);
}

/* SIGHUP reloads and re-checks; any other signal stops: true then. */
static bool on_signals(daemon_state *d)
{
    bool stop = false;
    struct signalfd_siginfo si;
    while (read(d->sigfd, &si, sizeof si) == (ssize_t)sizeof si) {
        if (si.ssi_signo == SIGHUP) {
            rd_daemon_notify("RELOADING=1");
            d->pending |= RD_MASK_CONFIG;
            recheck(d);
            arm_health_poll(d);
            arm_renewal(d);
            rd_daemon_notify("READY=1");
        } else {
            stop = true;
        }
    }
    return stop;
}

int rd_daemon_run(const rd_daemon_options *o)
{
    daemon_state d = { .epfd = -1, .sigfd = -1, .inofd = -1, .timerfd = -1, .pollfd = -1, .renewfd = -1 };
    /* The daemon stays at level 1: a GPU kernel on every uevent (a reset
     * among them) is not what a monitor should do; the boot check and
     * `rocm-doctor verify` run level 2. */
    d.fix_ids = rd_fix_table_ids(&rd_fix_registry);
    d.ro = (rd_run_params){
        .probes = &rd_probe_registry, .fix_ids = d.fix_ids, .root = o->root, .config_file = o->config_file, .level = 1
    };
    d.journal_is_stderr = stderr_is_journal();

    int r = check_config_file(o->config_file);
    if (r == 0)
        r = setup(&d);
    if (r == 0) {
        d.run = xcalloc(1, sizeof(*d.run));
        r = run_check(&d.ro, d.run);
    }
    if (r != 0) {
        teardown(&d);
        return RD_EXIT_UNKNOWN;
    }
    targets_build(&d, d.run->ctx.root, o->config_file);
    watches_sync(&d);
    publish(&d, true);
    arm_health_poll(&d);
    arm_renewal(&d);

    int status = 0;
    for (bool done = false; !done;) {
        struct epoll_event evs[4];
        int n = epoll_wait(d.epfd, evs, (int)ELEMENTSOF(evs), -1);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            rd_daemon_log("epoll_wait: %s", strerror(errno));
            status = RD_EXIT_UNKNOWN;
            break;
        }
        for (int i = 0; i < n && !done; i++) {
            int fd = evs[i].data.fd;
            if (fd == d.sigfd) {
                done = on_signals(&d);
            } else if (fd == d.inofd) {
                on_inotify(&d);
            } else if (fd == d.timerfd) {
                uint64_t expirations;
                if (read(d.timerfd, &expirations, sizeof expirations) == (ssize_t)sizeof expirations) {
                    d.timer_armed = false;
                    recheck(&d);
                }
            } else if (fd == d.pollfd) {
                uint64_t expirations;
                if (read(d.pollfd, &expirations, sizeof expirations) == (ssize_t)sizeof expirations)
                    add_pending(&d, rd_daemon_probes_by_id("health"));
            } else if (fd == d.renewfd) {
                uint64_t expirations;
                if (read(d.renewfd, &expirations, sizeof expirations) == (ssize_t)sizeof expirations)
                    on_renewal(&d);
            } else if (d.mon && fd == udev_monitor_get_fd(d.mon)) {
                on_uevent(&d);
            }
        }
    }
    rd_daemon_notify("STOPPING=1");
    /* Labels nobody keeps current are worse than none: a stopped daemon
     * takes its NFD labels with it (the expiry covers a killed one). */
    if (has_nfd_file(&d)) {
        _cleanup_free_ char *path = rd_daemon_output_path(d.run->ctx.root, d.run->config.nfd_file);
        if (unlink(path) < 0 && errno != ENOENT)
            rd_daemon_log("cannot remove the Node Feature Discovery file %s: %s", path, strerror(errno));
    }
    teardown(&d);
    return status;
}
