/* SPDX-License-Identifier: MIT */
/* rocm-doctord under umockdev: the real daemon binary, in a testbed built by
 * the scenario builder (tests/run/scenarios), with an RX 7900 XTX that goes away
 * and comes back (udev events), files under --root that change (inotify),
 * signals, and configurations it must refuse. Every state the daemon
 * publishes is compared with what `rocm-doctor check --json` reports for the
 * same testbed, which also proves that re-gathering only what changed gives
 * the answer a full check gives.
 *
 * Runs under libumockdev-preload (meson sets LD_PRELOAD); the daemon and
 * rocm-doctor are children and inherit the testbed. */
#include <errno.h>
#include <fcntl.h>
#include <json-c/json.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <math.h>
#include <sys/inotify.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <glib.h>
#include <glib/gstdio.h>
#include <umockdev.h>

#include "testlib.h"
#include "check.h"
#include "registry.h"
#include "config.h"
#include "context.h"
#include "daemon.h"
#include "facts-json.h"
#include "probe.h"

#define GPU_SYSPATH "/sys/devices/pci0000:00/0000:00:01.1/0000:01:00.0/0000:02:00.0/0000:03:00.0"
#define KFD_SYSPATH "/sys/devices/virtual/kfd/kfd"
#define WAIT_MS 15000
/* The outputs t_hotplug configures, as a node exporter and NFD expect them. */
#define PROM_FILE "/run/rocm-doctor/metrics.prom"
#define NFD_DIR "/etc/kubernetes/node-feature-discovery/features.d"
#define NFD_FILE NFD_DIR "/rocm-doctor"
#define NFD_GPU_COUNT_1 "rocm-doctor.feature.node.kubernetes.io/gpu.count=1\n"

static char *scenario_dir; /* written once: tests/run/scenarios/run.py healthy-rx7900xtx --write */

typedef struct {
    UMockdevTestbed *tb;
    char *tbroot;
    char *tmp;
    char *root; /* --root: a copy of the scenario's root tree */
    char *status_path;
    int notify_fd;
    char *notify_path;
    GPid pid;
    int err_fd;
    GString *err;           /* the daemon's stderr, collected at the end */
    GPtrArray *gpu_records; /* the device records of the GPU, KFD included */
} Fixture;

static void copy_tree(const char *src, const char *dst)
{
    g_autoptr(GDir) d = g_dir_open(src, 0, NULL);
    g_assert_nonnull(d);
    g_assert_cmpint(g_mkdir_with_parents(dst, 0755), ==, 0);
    const char *name;
    while ((name = g_dir_read_name(d))) {
        g_autofree char *s = g_build_filename(src, name, NULL);
        g_autofree char *t = g_build_filename(dst, name, NULL);
        struct stat st;
        g_assert_cmpint(lstat(s, &st), ==, 0);
        if (S_ISDIR(st.st_mode)) {
            struct stat tst;
            if (lstat(t, &tst) == 0 && !S_ISDIR(tst.st_mode))
                g_assert_cmpint(unlink(t), ==, 0);
            copy_tree(s, t);
        } else if (S_ISLNK(st.st_mode)) {
            g_autofree char *target = g_file_read_link(s, NULL);
            g_assert_nonnull(target);
            unlink(t);
            g_assert_cmpint(symlink(target, t), ==, 0);
        } else {
            g_autofree char *data = NULL;
            gsize len;
            g_assert_true(g_file_get_contents(s, &data, &len, NULL));
            unlink(t);
            g_assert_true(g_file_set_contents(t, data, (gssize)len, NULL));
        }
    }
}

/* The testbed file's records ("P: ..." blocks) under the GPU's PCI
 * function, and the KFD device. */
static GPtrArray *gpu_records(const char *file)
{
    g_autofree char *text = NULL;
    g_assert_true(g_file_get_contents(file, &text, NULL, NULL));
    GPtrArray *out = g_ptr_array_new_with_free_func(g_free);
    g_auto(GStrv) blocks = g_strsplit(text, "\n\n", -1);
    for (char **b = blocks; *b; b++) {
        const char *p = g_str_has_prefix(*b, "P: ") ? *b + 3 : NULL;
        if (p && (g_str_has_prefix(p, GPU_SYSPATH + 4) || g_str_has_prefix(p, KFD_SYSPATH + 4)))
            g_ptr_array_add(out, g_strdup_printf("%s\n", *b));
    }
    g_assert_cmpuint(out->len, ==, 4); /* 03:00.0, card0, renderD128, kfd */
    return out;
}

static void fixture_setup(Fixture *f, gconstpointer data)
{
    g_autoptr(GError) err = NULL;
    f->tb = umockdev_testbed_new();
    f->tbroot = umockdev_testbed_get_root_dir(f->tb);
    g_autofree char *sys = umockdev_testbed_get_sys_dir(f->tb);
    g_autofree char *pcidevs = g_build_filename(sys, "bus/pci/devices", NULL);
    g_assert_cmpint(g_mkdir_with_parents(pcidevs, 0755), ==, 0);
    g_autofree char *records = g_build_filename(scenario_dir, "testbed.umockdev", NULL);
    g_assert_true(umockdev_testbed_add_from_file(f->tb, records, &err));
    g_assert_no_error(err);
    g_autofree char *overlay = g_build_filename(scenario_dir, "overlay", NULL);
    copy_tree(overlay, f->tbroot);
    f->gpu_records = gpu_records(records);

    f->tmp = g_dir_make_tmp("rocm-doctord-test-XXXXXX", &err);
    g_assert_no_error(err);
    f->root = g_build_filename(f->tmp, "root", NULL);
    g_autofree char *src_root = g_build_filename(scenario_dir, "root", NULL);
    copy_tree(src_root, f->root);
    f->status_path = g_build_filename(f->root, "run/rocm-doctor/status.json", NULL);

    f->notify_path = g_build_filename(f->tmp, "notify", NULL);
    f->notify_fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    g_assert_cmpint(f->notify_fd, >=, 0);
    struct sockaddr_un sa = { .sun_family = AF_UNIX };
    g_assert_cmpuint(strlen(f->notify_path), <, sizeof(sa.sun_path));
    strcpy(sa.sun_path, f->notify_path);
    g_assert_cmpint(bind(f->notify_fd, (struct sockaddr *)&sa, sizeof sa), ==, 0);
    f->err_fd = -1;
    f->err = g_string_new(NULL);
}

static void fixture_teardown(Fixture *f, gconstpointer data)
{
    if (f->pid > 0) {
        kill(f->pid, SIGKILL);
        waitpid(f->pid, NULL, 0);
    }
    if (f->err_fd >= 0)
        close(f->err_fd);
    close(f->notify_fd);
    rd_test_rm_rf(f->tmp);
    g_clear_object(&f->tb);
    g_free(f->tbroot);
    g_free(f->tmp);
    g_free(f->root);
    g_free(f->status_path);
    g_free(f->notify_path);
    g_string_free(f->err, TRUE);
    g_ptr_array_unref(f->gpu_records);
}

static char **child_env(Fixture *f)
{
    char **env = g_get_environ();
    env = g_environ_setenv(env, "NOTIFY_SOCKET", f->notify_path, TRUE);
    env = g_environ_unsetenv(env, "JOURNAL_STREAM");
    return env;
}

/* A failed assertion aborts the test: the daemon must not outlive it. */
static void die_with_parent(gpointer data)
{
    prctl(PR_SET_PDEATHSIG, SIGKILL);
}

static void start_daemon(Fixture *f, const char *const *extra)
{
    g_autoptr(GPtrArray) argv = g_ptr_array_new();
    g_ptr_array_add(argv, (char *)DAEMON_EXE);
    g_ptr_array_add(argv, (char *)"--root");
    g_ptr_array_add(argv, f->root);
    for (; extra && *extra; extra++)
        g_ptr_array_add(argv, (char *)*extra);
    g_ptr_array_add(argv, NULL);
    g_auto(GStrv) env = child_env(f);
    g_autoptr(GError) err = NULL;
    g_assert_true(g_spawn_async_with_pipes(NULL, (char **)argv->pdata, env, G_SPAWN_DO_NOT_REAP_CHILD, die_with_parent,
                                           NULL, &f->pid, NULL, NULL, &f->err_fd, &err));
    g_assert_no_error(err);
}

static gint64 now_ms(void)
{
    return g_get_monotonic_time() / 1000;
}

/* The next sd_notify message, or NULL after timeout_ms. */
static char *next_notify(Fixture *f, int timeout_ms)
{
    struct pollfd p = { .fd = f->notify_fd, .events = POLLIN };
    int r = poll(&p, 1, timeout_ms);
    if (r <= 0)
        return NULL;
    char buf[4096];
    ssize_t n = recv(f->notify_fd, buf, sizeof buf - 1, 0);
    if (n < 0)
        return NULL;
    buf[n] = 0;
    return g_strdup(buf);
}

static char *wait_notify(Fixture *f, const char *want)
{
    gint64 deadline = now_ms() + WAIT_MS;
    while (now_ms() < deadline) {
        char *m = next_notify(f, (int)(deadline - now_ms()));
        if (m && strstr(m, want))
            return m;
        g_free(m);
    }
    g_error("no \"%s\" from the daemon within %d ms", want, WAIT_MS);
    return NULL;
}

static json_object *load_json_file(const char *path)
{
    g_autofree char *text = NULL;
    if (!g_file_get_contents(path, &text, NULL, NULL))
        return NULL;
    return json_tokener_parse(text);
}

/* What `rocm-doctor check --json --root ROOT` says in the same testbed. */
static json_object *check_json(Fixture *f, int *ret_status)
{
    const char *argv[] = { DOCTOR_EXE, "check", "--json", "--root", f->root, NULL };
    g_auto(GStrv) env = child_env(f);
    g_autofree char *out = NULL, *errout = NULL;
    int status;
    g_autoptr(GError) err = NULL;
    g_assert_true(g_spawn_sync(NULL, (char **)argv, env, 0, NULL, NULL, &out, &errout, &status, &err));
    g_assert_no_error(err);
    g_assert_true(WIFEXITED(status));
    if (ret_status)
        *ret_status = WEXITSTATUS(status);
    json_object *j = json_tokener_parse(out);
    g_assert_nonnull(j);
    return j;
}

static size_t n_gpus(json_object *status)
{
    json_object *gpus;
    g_assert_true(json_object_object_get_ex(status, "gpus", &gpus));
    return json_object_array_length(gpus);
}

static const char *finding_severity(json_object *status, const char *id)
{
    json_object *fs, *v;
    g_assert_true(json_object_object_get_ex(status, "findings", &fs));
    for (size_t i = 0; i < json_object_array_length(fs); i++) {
        json_object *f = json_object_array_get_idx(fs, i);
        if (json_object_object_get_ex(f, "id", &v) && g_str_equal(json_object_get_string(v), id)) {
            g_assert_true(json_object_object_get_ex(f, "severity", &v));
            return json_object_get_string(v);
        }
    }
    return NULL;
}

typedef bool (*status_pred)(json_object *status, const void *arg);

/* Waits, one published status at a time, until the status satisfies pred;
 * returns it (the caller owns it). */
static json_object *wait_status(Fixture *f, status_pred pred, const void *arg, char **ret_line)
{
    gint64 deadline = now_ms() + WAIT_MS;
    while (now_ms() < deadline) {
        g_autofree char *m = next_notify(f, (int)(deadline - now_ms()));
        if (!m || !strstr(m, "STATUS="))
            continue;
        json_object *s = load_json_file(f->status_path);
        if (s && pred(s, arg)) {
            /* status.json can be ahead of the notification just read: the
             * line that goes with it is the last one sent, so drain them */
            g_autofree char *line = g_strdup(strstr(m, "STATUS=") + 7);
            char *more;
            while ((more = next_notify(f, 300))) {
                if (strstr(more, "STATUS=")) {
                    g_free(line);
                    line = g_strdup(strstr(more, "STATUS=") + 7);
                }
                g_free(more);
            }
            json_object_put(s);
            s = load_json_file(f->status_path);
            if (s && pred(s, arg)) {
                if (ret_line)
                    *ret_line = g_steal_pointer(&line);
                return s;
            }
        }
        json_object_put(s);
    }
    g_error("the daemon did not publish the expected status within %d ms", WAIT_MS);
    return NULL;
}

static bool has_gpus(json_object *s, const void *arg)
{
    return n_gpus(s) == GPOINTER_TO_SIZE(arg);
}

static bool has_finding(json_object *s, const void *arg)
{
    return finding_severity(s, arg) != NULL;
}

static bool lacks_finding(json_object *s, const void *arg)
{
    return finding_severity(s, arg) == NULL;
}

/* status.json is check --json's document plus "fix_runs" (no run in
 * these roots: all counts 0). */
static void assert_same_as_check(Fixture *f, json_object *status)
{
    json_object *check = check_json(f, NULL), *runs = NULL, *v;
    g_assert_true(json_object_object_get_ex(status, "fix_runs", &runs));
    const char *const counts[] = { "pending", "verified", "failed" };
    for (size_t i = 0; i < G_N_ELEMENTS(counts); i++) {
        g_assert_true(json_object_object_get_ex(runs, counts[i], &v));
        g_assert_cmpint(json_object_get_int64(v), ==, 0);
    }
    g_assert_true(json_object_object_get_ex(runs, "runs", &v));
    g_assert_cmpint(json_object_array_length(v), ==, 0);
    json_object_get(runs);
    json_object_object_del(status, "fix_runs");
    bool same = json_object_equal(status, check);
    json_object_object_add(status, "fix_runs", runs);
    if (!same) {
        g_test_message("daemon: %s", json_object_to_json_string_ext(status, JSON_C_TO_STRING_PRETTY));
        g_test_message("check: %s", json_object_to_json_string_ext(check, JSON_C_TO_STRING_PRETTY));
        g_test_fail();
    }
    json_object_put(check);
}

/* SIGTERM: a clean exit, status 0, STOPPING=1 said first. */
static void stop_daemon(Fixture *f)
{
    g_assert_cmpint(kill(f->pid, SIGTERM), ==, 0);
    g_autofree char *m = wait_notify(f, "STOPPING=1");
    int status = 0;
    gint64 deadline = now_ms() + WAIT_MS;
    pid_t r;
    while ((r = waitpid(f->pid, &status, WNOHANG)) == 0 && now_ms() < deadline)
        g_usleep(10000);
    g_assert_cmpint(r, ==, f->pid);
    f->pid = 0;
    g_assert_true(WIFEXITED(status));
    g_assert_cmpint(WEXITSTATUS(status), ==, 0);
    char buf[4096];
    ssize_t n;
    while ((n = read(f->err_fd, buf, sizeof buf)) > 0)
        g_string_append_len(f->err, buf, n);
    g_test_message("daemon stderr:\n%s", f->err->str);
}

/* The value of the one sample of the metric with exactly these labels
 * ("name" or "name{a=\"b\"}"); NAN when there is none, and a test failure
 * when there are several. */
static double prom_value(const char *text, const char *series)
{
    double v = NAN;
    size_t n = 0, len = strlen(series);
    for (const char *line = text; line && *line; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL) {
        if (strncmp(line, series, len) == 0 && line[len] == ' ') {
            v = g_ascii_strtod(line + len + 1, NULL);
            n++;
        }
    }
    g_assert_cmpuint(n, <=, 1);
    return v;
}

static bool has_line(const char *text, const char *line)
{
    size_t len = strlen(line);
    for (const char *p = text; (p = strstr(p, line)); p += len)
        if (p == text || p[-1] == '\n')
            return true;
    return false;
}

/* The metrics and NFD files of the state just published: numbers, NFD
 * label, mode 0644, and `promtool check metrics` clean where it is
 * installed. */
static void assert_outputs(Fixture *f, double gpus, double errors, bool nfd_one_gpu)
{
    g_autofree char *prom_path = g_build_filename(f->root, PROM_FILE, NULL);
    g_autofree char *nfd_path = g_build_filename(f->root, NFD_FILE, NULL);
    g_autofree char *prom = NULL, *nfd = NULL;
    /* status.json is published first, the metrics and NFD files right
     * after it: wait (10 s at most) for them to catch up */
    for (int tries = 0;; tries++) {
        g_clear_pointer(&prom, g_free);
        g_clear_pointer(&nfd, g_free);
        g_assert_true(g_file_get_contents(prom_path, &prom, NULL, NULL));
        g_assert_true(g_file_get_contents(nfd_path, &nfd, NULL, NULL));
        if ((prom_value(prom, "rocm_doctor_gpus") == gpus &&
             prom_value(prom, "rocm_doctor_findings{severity=\"error\"}") == errors &&
             has_line(nfd, NFD_GPU_COUNT_1) == nfd_one_gpu) ||
            tries == 1000)
            break;
        g_usleep(10000);
    }
    g_assert_cmpfloat(prom_value(prom, "rocm_doctor_gpus"), ==, gpus);
    g_assert_cmpfloat(prom_value(prom, "rocm_doctor_findings{severity=\"error\"}"), ==, errors);
    g_assert_cmpint(has_line(nfd, NFD_GPU_COUNT_1), ==, nfd_one_gpu);
    g_assert_true(has_line(nfd, nfd_one_gpu ? "rocm-doctor.feature.node.kubernetes.io/health=ok\n"
                                            : "rocm-doctor.feature.node.kubernetes.io/health=error\n"));
    struct stat st;
    g_assert_cmpint(stat(prom_path, &st), ==, 0);
    g_assert_cmpuint(st.st_mode & 07777, ==, 0644);
    g_assert_cmpint(stat(nfd_path, &st), ==, 0);
    g_assert_cmpuint(st.st_mode & 07777, ==, 0644);
#ifdef PROMTOOL
    /* a child without the umockdev preload */
    const char *argv[] = { "/bin/sh", "-c", "exec \"$0\" check metrics < \"$1\"", PROMTOOL, prom_path, NULL };
    const char *envp[] = { "PATH=/usr/bin:/bin", NULL };
    g_autofree char *out = NULL, *errout = NULL;
    int status;
    g_assert_true(g_spawn_sync(NULL, (char **)argv, (char **)envp, 0, NULL, NULL, &out, &errout, &status, NULL));
    if (!g_spawn_check_wait_status(status, NULL) || *out || *errout)
        g_error("promtool check metrics %s: %s%s\n%s", prom_path, out, errout, prom);
#else
    g_test_message("promtool is not installed: the metrics file is not linted");
#endif
}

/* What happened to the NFD file's directory, from inotify: every file
 * created there must be a dot file (nfd-worker ignores those, so it never
 * reads a half-written file), and the real name only ever appears by
 * rename. Returns how many times it was renamed into place. */
static unsigned nfd_renames(int ifd)
{
    unsigned renames = 0;
    char buf[4096] __attribute__((aligned(__alignof__(struct inotify_event))));
    ssize_t n;
    while ((n = read(ifd, buf, sizeof buf)) > 0) {
        for (char *p = buf; p < buf + n;) {
            const struct inotify_event *e = (const struct inotify_event *)p;
            const char *name = e->len ? e->name : "";
            if (e->mask & IN_CREATE) {
                if (name[0] != '.')
                    g_error("%s was created in %s: not a dot file", name, NFD_DIR);
            }
            if (e->mask & IN_CLOSE_WRITE && name[0] != '.')
                g_error("%s in %s was written in place", name, NFD_DIR);
            if (e->mask & IN_MOVED_TO) {
                g_assert_cmpstr(name, ==, "rocm-doctor");
                renames++;
            }
            p += sizeof(*e) + e->len;
        }
    }
    g_assert_cmpint(errno, ==, EAGAIN);
    return renames;
}

static void t_hotplug(Fixture *f, gconstpointer data)
{
    /* The configuration in a directory of its own: the daemon watches it. */
    g_autofree char *conf_dir = g_build_filename(f->tmp, "conf", NULL);
    g_assert_cmpint(g_mkdir_with_parents(conf_dir, 0755), ==, 0);
    g_autofree char *conf = g_build_filename(conf_dir, "c.conf", NULL);
    g_assert_true(
        g_file_set_contents(conf, "[output]\nprometheus_file = " PROM_FILE "\nnfd_file = " NFD_FILE "\n", -1, NULL));
    g_autofree char *nfd_dir = g_build_filename(f->root, NFD_DIR, NULL);
    g_assert_cmpint(g_mkdir_with_parents(nfd_dir, 0755), ==, 0);
    int ifd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
    g_assert_cmpint(ifd, >=, 0);
    g_assert_cmpint(inotify_add_watch(ifd, nfd_dir, IN_CREATE | IN_CLOSE_WRITE | IN_MOVED_TO), >=, 0);

    const char *extra[] = { "--config", conf, NULL };
    start_daemon(f, extra);
    g_autofree char *ready = wait_notify(f, "READY=1");
    g_assert_nonnull(strstr(ready, "STATUS=1 GPU, no problems"));
    assert_outputs(f, 1, 0, true);
    g_assert_cmpuint(nfd_renames(ifd), ==, 1);
    json_object *s = load_json_file(f->status_path);
    g_assert_nonnull(s);
    g_assert_cmpuint(n_gpus(s), ==, 1);
    g_assert_null(finding_severity(s, "gpu.none"));
    assert_same_as_check(f, s);
    json_object_put(s);

    /* The GPU goes away: amdgpu unbound and unloaded, as after a fatal
     * error or a hot unplug. Children first, as the kernel sends them. */
    static const char *const gone[] = {
        GPU_SYSPATH "/drm/renderD128",
        GPU_SYSPATH "/drm/card0",
        GPU_SYSPATH,
        KFD_SYSPATH,
    };
    for (size_t i = 0; i < G_N_ELEMENTS(gone); i++) {
        umockdev_testbed_uevent(f->tb, gone[i], "remove");
        umockdev_testbed_remove_device(f->tb, gone[i]);
    }
    /* without a testbed entry, /dev/kfd would be the host's */
    g_autofree char *kfd_node = g_build_filename(f->tbroot, "dev/kfd", NULL);
    g_assert_cmpint(symlink("/nonexistent", kfd_node), ==, 0);
    g_autofree char *line = NULL;
    s = wait_status(f, has_gpus, GSIZE_TO_POINTER(0), &line);
    g_assert_cmpstr(finding_severity(s, "gpu.none"), ==, "error");
    g_assert_cmpstr(line, ==, "0 GPUs, 1 error");
    assert_same_as_check(f, s);
    json_object_put(s);
    assert_outputs(f, 0, 1, false);
    g_assert_cmpuint(nfd_renames(ifd), >=, 1);

    /* ... and comes back. */
    g_assert_cmpint(unlink(kfd_node), ==, 0);
    for (guint i = 0; i < f->gpu_records->len; i++)
        g_assert_true(umockdev_testbed_add_from_string(f->tb, g_ptr_array_index(f->gpu_records, i), NULL));
    static const char *const back[] = {
        GPU_SYSPATH,
        GPU_SYSPATH "/drm/card0",
        GPU_SYSPATH "/drm/renderD128",
        KFD_SYSPATH,
    };
    for (size_t i = 0; i < G_N_ELEMENTS(back); i++)
        umockdev_testbed_uevent(f->tb, back[i], "add");
    s = wait_status(f, has_gpus, GSIZE_TO_POINTER(1), NULL);
    g_assert_null(finding_severity(s, "gpu.none"));
    assert_same_as_check(f, s);
    json_object_put(s);
    assert_outputs(f, 1, 0, true);
    g_assert_cmpuint(nfd_renames(ifd), >=, 1);
    close(ifd);

    stop_daemon(f);
    /* One journal entry (stderr here: no journal) each way. */
    g_assert_nonnull(strstr(f->err->str, "rocm-doctord: error gpu.none: "));
    g_assert_nonnull(strstr(f->err->str, "rocm-doctord: resolved gpu.none: "));
}

static void t_reset_and_noise(Fixture *f, gconstpointer data)
{
    start_daemon(f, NULL);
    g_autofree char *ready = wait_notify(f, "READY=1");
    /* A display hot-plug and another vendor's PCI device change nothing we
     * check: no re-check. A GPU reset does. */
    umockdev_testbed_set_property(f->tb, GPU_SYSPATH "/drm/card0", "HOTPLUG", "1");
    umockdev_testbed_uevent(f->tb, GPU_SYSPATH "/drm/card0", "change");
    umockdev_testbed_uevent(f->tb, "/sys/devices/pci0000:00/0000:00:00.0", "change");
    g_autofree char *none = next_notify(f, 1500);
    g_assert_null(none);

    umockdev_testbed_set_property(f->tb, GPU_SYSPATH "/drm/card0", "HOTPLUG", "0");
    umockdev_testbed_set_property(f->tb, GPU_SYSPATH "/drm/card0", "RESET", "1");
    umockdev_testbed_uevent(f->tb, GPU_SYSPATH "/drm/card0", "change");
    g_autofree char *m = wait_notify(f, "STATUS=");
    g_assert_cmpstr(m, ==, "STATUS=1 GPU, no problems");
    stop_daemon(f);
    g_assert_nonnull(strstr(f->err->str, "rocm-doctord: GPU 0000:03:00.0 was reset\n"));
}

static void t_watched_file(Fixture *f, gconstpointer data)
{
    start_daemon(f, NULL);
    g_autofree char *ready = wait_notify(f, "READY=1");

    /* /etc/modprobe.d does not exist in the root yet: its creation must be
     * seen too. */
    rd_test_write_file(f->root, "etc/modprobe.d/blacklist-amdgpu.conf", "blacklist amdgpu\n");
    g_autofree char *line = NULL;
    json_object *s = wait_status(f, has_finding, "driver.blacklisted", &line);
    g_assert_cmpstr(finding_severity(s, "driver.blacklisted"), ==, "warning");
    g_assert_cmpstr(line, ==, "1 GPU, 1 warning");
    assert_same_as_check(f, s);
    json_object_put(s);

    g_autofree char *p = g_build_filename(f->root, "etc/modprobe.d/blacklist-amdgpu.conf", NULL);
    g_assert_cmpint(unlink(p), ==, 0);
    s = wait_status(f, lacks_finding, "driver.blacklisted", NULL);
    assert_same_as_check(f, s);
    json_object_put(s);

    /* A file the checks do not read: no re-check. */
    rd_test_write_file(f->root, "etc/hostname", "gpu-box\n");
    g_autofree char *none = next_notify(f, 1500);
    g_assert_null(none);

    stop_daemon(f);
    g_assert_nonnull(strstr(f->err->str, "rocm-doctord: warning driver.blacklisted: "));
    g_assert_nonnull(strstr(f->err->str, "rocm-doctord: resolved driver.blacklisted: "));
}

/* A watched directory replaced by a symlink while the daemon runs (moved
 * aside, a link to it in its place): the watches follow, so a file added
 * through the link afterwards is seen. */
static void t_dir_replaced_by_symlink(Fixture *f, gconstpointer data)
{
    rd_test_write_file(f->root, "etc/modprobe.d/local.conf", "options amdgpu ppfeaturemask=0xffffffff\n");
    start_daemon(f, NULL);
    g_autofree char *ready = wait_notify(f, "READY=1");

    g_autofree char *dir = g_build_filename(f->root, "etc/modprobe.d", NULL);
    g_autofree char *real = g_build_filename(f->root, "etc/modprobe-real", NULL);
    g_assert_cmpint(rename(dir, real), ==, 0);
    /* the move is a change of its own: let the daemon act on it before the
     * link appears (debounce_ms is 50) */
    g_usleep(500000);
    g_assert_cmpint(symlink("modprobe-real", dir), ==, 0);
    g_usleep(500000);

    rd_test_write_file(f->root, "etc/modprobe-real/blacklist-amdgpu.conf", "blacklist amdgpu\n");
    json_object *s = wait_status(f, has_finding, "driver.blacklisted", NULL);
    g_assert_cmpstr(finding_severity(s, "driver.blacklisted"), ==, "warning");
    assert_same_as_check(f, s);
    json_object_put(s);
    stop_daemon(f);
}

static void t_sighup(Fixture *f, gconstpointer data)
{
    start_daemon(f, NULL);
    g_autofree char *ready = wait_notify(f, "READY=1");
    g_assert_cmpint(kill(f->pid, SIGHUP), ==, 0);
    g_autofree char *reloading = wait_notify(f, "RELOADING=1");
    g_autofree char *status = wait_notify(f, "STATUS=1 GPU, no problems");
    g_autofree char *again = wait_notify(f, "READY=1");
    stop_daemon(f);
}

/* The --config file is watched: editing it reloads the configuration and
 * checks again, as SIGHUP does. */
static void t_config_edit(Fixture *f, gconstpointer data)
{
    g_autofree char *conf = g_build_filename(f->tmp, "rocm-doctor.conf", NULL);
    g_assert_true(g_file_set_contents(conf, "# nothing set\n", -1, NULL));
    const char *extra[] = { "--config", conf, NULL };
    start_daemon(f, extra);
    g_autofree char *ready = wait_notify(f, "READY=1");
    g_assert_true(g_file_set_contents(conf, "# still nothing set\n", -1, NULL));
    g_autofree char *m = wait_notify(f, "STATUS=");
    g_assert_cmpstr(m, ==, "STATUS=1 GPU, no problems");
    /* a file next to it is not the configuration */
    g_autofree char *other = g_build_filename(f->tmp, "other.conf", NULL);
    g_assert_true(g_file_set_contents(other, "x\n", -1, NULL));
    g_autofree char *none = next_notify(f, 1500);
    g_assert_null(none);
    /* a configuration that cannot be loaded leaves the running one in place */
    g_assert_cmpint(unlink(conf), ==, 0);
    g_autofree char *after = wait_notify(f, "STATUS=");
    g_assert_cmpstr(after, ==, "STATUS=1 GPU, no problems");
    stop_daemon(f);
    g_assert_nonnull(strstr(f->err->str, "rocm-doctord: cannot read --config "));
    g_assert_nonnull(
        strstr(f->err->str, "rocm-doctord: the configuration was not reloaded; the previous one stays in effect\n"));
}

static void t_once(Fixture *f, gconstpointer data)
{
    const char *argv[] = { DAEMON_EXE, "--once", "--root", f->root, NULL };
    g_auto(GStrv) env = child_env(f);
    int status;
    g_autofree char *out = NULL, *errout = NULL;
    /* a warning, so the exit status says something */
    rd_test_write_file(f->root, "etc/modprobe.d/blacklist-amdgpu.conf", "blacklist amdgpu\n");
    g_assert_true(g_spawn_sync(NULL, (char **)argv, env, 0, NULL, NULL, &out, &errout, &status, NULL));
    g_assert_true(WIFEXITED(status));
    int check_status;
    json_object *check = check_json(f, &check_status);
    g_assert_cmpint(WEXITSTATUS(status), ==, 1);
    g_assert_cmpint(check_status, ==, 1);
    json_object *s = load_json_file(f->status_path);
    g_assert_nonnull(s);
    assert_same_as_check(f, s);
    g_assert_cmpstr(out, ==, "");
    g_assert_nonnull(strstr(errout, "rocm-doctord: warning driver.blacklisted: "));
    struct stat st;
    g_assert_cmpint(stat(f->status_path, &st), ==, 0);
    g_assert_cmpuint(st.st_mode & 07777, ==, 0644);
    /* nothing else in the directory: no temporary file left */
    g_autofree char *dir = g_path_get_dirname(f->status_path);
    g_autoptr(GDir) d = g_dir_open(dir, 0, NULL);
    g_assert_cmpstr(g_dir_read_name(d), ==, "status.json");
    g_assert_null(g_dir_read_name(d));
    json_object_put(s);
    json_object_put(check);
}

/* A relative symlink target from directory dir to the absolute path to:
 * up to / with "..", then down. */
static char *up_to(const char *dir, const char *to)
{
    GString *s = g_string_new(NULL);
    for (const char *p = dir; *p; p++)
        if (*p == '/' && p[1] && p[1] != '/')
            g_string_append(s, "../");
    g_string_append(s, to + 1);
    return g_string_free(s, FALSE);
}

/* --once --root ROOT where ROOT/run/rocm-doctor (data: "absolute" or
 * "relative") or ROOT/run is a symlink out of ROOT: nothing is written
 * outside, the run says why and exits 3. */
static void t_once_symlink_out(Fixture *f, gconstpointer data)
{
    const char *how = data;
    g_autoptr(GError) err = NULL;
    g_autofree char *outside = g_dir_make_tmp("rocm-doctord-outside-XXXXXX", &err);
    g_assert_no_error(err);
    g_autofree char *run = g_build_filename(f->root, "run", NULL);
    g_autofree char *link = g_build_filename(f->root, "run/rocm-doctor", NULL);
    rd_test_rm_rf(link);
    g_assert_cmpint(g_mkdir_with_parents(run, 0755), ==, 0);
    if (g_str_equal(how, "absolute"))
        g_assert_cmpint(symlink(outside, link), ==, 0);
    else if (g_str_equal(how, "relative")) {
        g_autofree char *rel = up_to(run, outside);
        g_assert_cmpint(symlink(rel, link), ==, 0);
    } else {
        rd_test_rm_rf(run);
        g_autofree char *rel = up_to(f->root, outside);
        g_assert_cmpint(symlink(rel, run), ==, 0);
    }
    /* the link does lead outside */
    g_autofree char *through = g_build_filename(g_str_equal(how, "parent") ? run : link, ".", NULL);
    struct stat st;
    if (stat(through, &st) < 0)
        g_error("%s: %s", through, g_strerror(errno));

    const char *argv[] = { DAEMON_EXE, "--once", "--root", f->root, NULL };
    g_auto(GStrv) env = child_env(f);
    int status;
    g_autofree char *out = NULL, *errout = NULL;
    g_assert_true(g_spawn_sync(NULL, (char **)argv, env, 0, NULL, NULL, &out, &errout, &status, NULL));
    g_assert_true(WIFEXITED(status));
    g_autoptr(GDir) d = g_dir_open(outside, 0, NULL);
    const char *name = g_dir_read_name(d);
    g_assert_cmpstr(name, ==, NULL);
    g_assert_cmpint(WEXITSTATUS(status), ==, 3);
    g_assert_nonnull(strstr(errout, "rocm-doctord: cannot write the status "));
    g_assert_nonnull(strstr(errout, "leads out of the root"));
    rd_test_rm_rf(outside);
}

static void refuses(Fixture *f, const char *config, const char *const *want)
{
    const char *argv[] = { DAEMON_EXE, "--root", f->root, "--config", config, NULL };
    g_auto(GStrv) env = child_env(f);
    int status;
    g_autofree char *out = NULL, *errout = NULL;
    g_assert_true(g_spawn_sync(NULL, (char **)argv, env, 0, NULL, NULL, &out, &errout, &status, NULL));
    g_assert_true(WIFEXITED(status));
    g_assert_cmpint(WEXITSTATUS(status), ==, 3);
    for (; *want; want++)
        g_assert_nonnull(strstr(errout, *want));
    g_assert_false(g_file_test(f->status_path, G_FILE_TEST_EXISTS));
    /* it never said it was ready */
    g_autofree char *m = next_notify(f, 0);
    g_assert_null(m);
}

static void t_config_missing(Fixture *f, gconstpointer data)
{
    g_autofree char *missing = g_build_filename(f->tmp, "no-such.conf", NULL);
    const char *want[] = { "rocm-doctord: cannot read --config ", missing, "No such file or directory", NULL };
    refuses(f, missing, want);
}

static void t_config_malformed(Fixture *f, gconstpointer data)
{
    g_autofree char *bad = g_build_filename(f->tmp, "bad.conf", NULL);
    g_assert_true(g_file_set_contents(bad, "[daemon]\nno-such-key = 1\n", -1, NULL));
    /* the loader refuses it, naming file, line and key ... */
    rd_config c = { 0 };
    g_autofree char *error = NULL;
    g_assert_cmpint(rd_config_load(rd_test_config_ids(), f->root, bad, &c, &error), <, 0);
    g_assert_nonnull(error);
    g_assert_nonnull(strstr(error, "bad.conf:2"));
    g_assert_nonnull(strstr(error, "no-such-key"));
    /* ... and so does the daemon, before it says it is ready */
    const char *want[] = { "bad.conf", "no-such-key", NULL };
    refuses(f, bad, want);
}

/* Re-gathering any one probe on top of a full gather changes nothing: the
 * daemon's table of which facts each probe fills is right, and a partial
 * re-check gives what a full check gives. In-process, in the testbed. */
static void t_regather(Fixture *f, gconstpointer data)
{
    rd_ctx ctx;
    char *error = NULL;
    g_assert_cmpint(rd_ctx_init(&ctx, f->root, NULL, &error), ==, 0);
    rd_config config;
    rd_config_init(&config);
    ctx.config = &config;
    rd_facts facts;
    rd_facts_init(&facts);
    rd_gather(&rd_probe_registry, &ctx, &facts);
    json_object *full = rd_facts_to_json(&facts);
    g_autofree char *want = g_strdup(json_object_to_json_string(full));
    json_object_put(full);
    for (size_t i = 0; i < rd_probe_registry.n_gather; i++) {
        const rd_probe *p = rd_probe_registry.gather[i];
        if (!p->gather)
            continue;
        if (!rd_daemon_probe_areas(p->id))
            g_test_message("probe %s is not in the daemon's table: its events cause a full gather", p->id);
        rd_daemon_regather(&ctx, &facts, (rd_probe_mask)1 << i, 1);
        json_object *j = rd_facts_to_json(&facts);
        if (!g_str_equal(json_object_to_json_string(j), want)) {
            g_test_message("re-gathering probe %s changed the facts", p->id);
            g_test_fail();
        }
        json_object_put(j);
    }
    rd_daemon_regather(&ctx, &facts, RD_MASK_ALL, 1);
    json_object *j = rd_facts_to_json(&facts);
    g_assert_cmpstr(json_object_to_json_string(j), ==, want);
    json_object_put(j);
    g_assert_cmpint(rd_facts_reset_area(&facts, "pci"), ==, 0);
    g_assert_cmpuint(facts.pci.n_devices, ==, 0);
    g_assert_null(facts.pci.devices);
    g_assert_cmpint(rd_facts_reset_area(&facts, "no-such-area"), ==, -ENOENT);
    g_assert_cmpint(rd_facts_reset_area(&facts, "schema"), ==, -ENOENT);
    rd_facts_free(&facts);
    rd_config_free(&config);
    rd_ctx_free(&ctx);
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    g_autoptr(GError) err = NULL;
    g_autofree char *tmp = g_dir_make_tmp("rocm-doctord-scenario-XXXXXX", &err);
    g_assert_no_error(err);
    scenario_dir = g_build_filename(tmp, "healthy", NULL);
    const char *write_argv[] = { PYTHON, RUN_PY, "healthy-rx7900xtx", "--write", scenario_dir, NULL };
    int status;
    g_autofree char *out = NULL;
    if (!g_spawn_sync(NULL, (char **)write_argv, NULL, 0, NULL, NULL, &out, NULL, &status, &err) ||
        !g_spawn_check_wait_status(status, NULL))
        g_error("cannot write the scenario testbed: %s", err ? err->message : "run.py failed");

    g_test_add("/daemon/gpu-hotplug", Fixture, NULL, fixture_setup, t_hotplug, fixture_teardown);
    g_test_add("/daemon/reset-and-noise", Fixture, NULL, fixture_setup, t_reset_and_noise, fixture_teardown);
    g_test_add("/daemon/watched-file", Fixture, NULL, fixture_setup, t_watched_file, fixture_teardown);
    g_test_add("/daemon/dir-replaced-by-symlink", Fixture, NULL, fixture_setup, t_dir_replaced_by_symlink,
               fixture_teardown);
    g_test_add("/daemon/sighup", Fixture, NULL, fixture_setup, t_sighup, fixture_teardown);
    g_test_add("/daemon/config-edit", Fixture, NULL, fixture_setup, t_config_edit, fixture_teardown);
    g_test_add("/daemon/once", Fixture, NULL, fixture_setup, t_once, fixture_teardown);
    g_test_add("/daemon/once-symlink-out/absolute", Fixture, "absolute", fixture_setup, t_once_symlink_out,
               fixture_teardown);
    g_test_add("/daemon/once-symlink-out/relative", Fixture, "relative", fixture_setup, t_once_symlink_out,
               fixture_teardown);
    g_test_add("/daemon/once-symlink-out/parent", Fixture, "parent", fixture_setup, t_once_symlink_out,
               fixture_teardown);
    g_test_add("/daemon/config-missing", Fixture, NULL, fixture_setup, t_config_missing, fixture_teardown);
    g_test_add("/daemon/config-malformed", Fixture, NULL, fixture_setup, t_config_malformed, fixture_teardown);
    g_test_add("/daemon/regather", Fixture, NULL, fixture_setup, t_regather, fixture_teardown);
    int r = g_test_run();
    rd_test_rm_rf(tmp);
    g_free(scenario_dir);
    return r;
}
