/* SPDX-License-Identifier: MIT */
/* rocm-doctord benchmark: prints figures, asserts nothing.
 *
 *   meson test -C build --benchmark --suite daemon -v
 *   (or: LD_PRELOAD=libumockdev-preload.so.0 build/tests/run/daemon/daemon-bench [IDLE_S] [EVENTS] [CONFIG])
 * CONFIG is passed to the daemon with --config (e.g. a smaller debounce_ms).
 *
 * In a umockdev testbed of one RX 7900 XTX (the healthy-rx7900xtx scenario):
 * - idle: resident memory (VmRSS) and wake-ups, counted as the context
 *   switches of all the daemon's threads over IDLE_S seconds (default 10);
 * - latency from a uevent (a drm change) to the published status (the
 *   STATUS= notification that follows the write), EVENTS times; shown with
 *   and without the configured debounce delay;
 * - in-process: a full gather + assess against the re-gather of the
 *   hardware probes + assess that the daemon does on a device event.
 * Targets (issue #6): under 4 MiB RSS, 0 wake-ups idle, under 100 ms from
 * event to published status. */
#include <dirent.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/prctl.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <poll.h>
#include <time.h>
#include <unistd.h>

#include <glib.h>
#include <glib/gstdio.h>
#include <umockdev.h>

#include "check.h"
#include "fixes.h"
#include "registry.h"
#include "config.h"
#include "daemon.h"
#include "probe.h"

#define CARD0 "/sys/devices/pci0000:00/0000:00:01.1/0000:01:00.0/0000:02:00.0/0000:03:00.0/drm/renderD128"

static void copy_tree(const char *src, const char *dst)
{
    g_autoptr(GDir) d = g_dir_open(src, 0, NULL);
    if (!d)
        g_error("cannot read %s", src);
    g_mkdir_with_parents(dst, 0755);
    const char *name;
    while ((name = g_dir_read_name(d))) {
        g_autofree char *s = g_build_filename(src, name, NULL);
        g_autofree char *t = g_build_filename(dst, name, NULL);
        if (g_file_test(s, G_FILE_TEST_IS_SYMLINK)) {
            g_autofree char *target = g_file_read_link(s, NULL);
            unlink(t);
            if (symlink(target, t) != 0)
                g_error("symlink %s", t);
        } else if (g_file_test(s, G_FILE_TEST_IS_DIR)) {
            copy_tree(s, t);
        } else {
            g_autofree char *data = NULL;
            gsize len;
            if (!g_file_get_contents(s, &data, &len, NULL) || !g_file_set_contents(t, data, (gssize)len, NULL))
                g_error("copy %s", s);
        }
    }
}

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static char *next_notify(int fd, int timeout_ms)
{
    struct pollfd p = { .fd = fd, .events = POLLIN };
    if (poll(&p, 1, timeout_ms) <= 0)
        return NULL;
    char buf[4096];
    ssize_t n = recv(fd, buf, sizeof buf - 1, 0);
    if (n < 0)
        return NULL;
    buf[n] = 0;
    return g_strdup(buf);
}

static long status_field(const char *path, const char *key)
{
    g_autofree char *text = NULL;
    if (!g_file_get_contents(path, &text, NULL, NULL))
        return -1;
    const char *p = strstr(text, key);
    return p ? strtol(p + strlen(key), NULL, 10) : -1;
}

/* Context switches of every thread of pid. */
static long switches(pid_t pid)
{
    g_autofree char *dir = g_strdup_printf("/proc/%d/task", (int)pid);
    DIR *d = opendir(dir);
    long sum = 0;
    struct dirent *e;
    while (d && (e = readdir(d))) {
        if (e->d_name[0] == '.')
            continue;
        g_autofree char *st = g_strdup_printf("%s/%s/status", dir, e->d_name);
        sum += status_field(st, "\nvoluntary_ctxt_switches:") + status_field(st, "\nnonvoluntary_ctxt_switches:");
    }
    if (d)
        closedir(d);
    return sum;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static void die_with_parent(gpointer data)
{
    prctl(PR_SET_PDEATHSIG, SIGKILL);
}

/* The healthy-rx7900xtx scenario written under tmp/healthy and loaded into a testbed. */
static UMockdevTestbed *make_testbed(const char *scen)
{
    const char *wargv[] = { PYTHON, RUN_PY, "healthy-rx7900xtx", "--write", scen, NULL };
    int st;
    if (!g_spawn_sync(NULL, (char **)wargv, NULL, G_SPAWN_STDOUT_TO_DEV_NULL, NULL, NULL, NULL, NULL, &st, NULL) ||
        st != 0)
        g_error("cannot write the testbed");

    g_autoptr(GError) err = NULL;
    UMockdevTestbed *tb = umockdev_testbed_new();
    g_autofree char *tbroot = umockdev_testbed_get_root_dir(tb);
    g_autofree char *sys = umockdev_testbed_get_sys_dir(tb);
    g_autofree char *pcidevs = g_build_filename(sys, "bus/pci/devices", NULL);
    g_mkdir_with_parents(pcidevs, 0755);
    g_autofree char *records = g_build_filename(scen, "testbed.umockdev", NULL);
    if (!umockdev_testbed_add_from_file(tb, records, &err))
        g_error("%s", err->message);
    g_autofree char *overlay = g_build_filename(scen, "overlay", NULL);
    copy_tree(overlay, tbroot);
    return tb;
}

/* In process: a full check against the daemon's partial re-checks. */
static void bench_in_process(rd_ctx *ctx)
{
    const int reps = 200;
    rd_probe_mask hw = rd_daemon_probes_by_id("pci drm kfd driver access apu container tuning runtime");
    rd_probe_mask group = rd_daemon_probes_by_id("access");
    double t_full = 0, t_hw = 0, t_group = 0;
    for (int i = 0; i < reps; i++) {
        rd_facts f;
        rd_gpu_view v;
        rd_findings fs;
        double t0 = now_ms();
        rd_facts_init(&f);
        rd_gather(&rd_probe_registry, ctx, &f);
        rd_assess(&rd_probe_registry, &f, &ctx->knowledge, &v, &fs);
        double t1 = now_ms();
        rd_gpu_view_free(&v);
        rd_findings_free(&fs);
        rd_daemon_regather(ctx, &f, hw, 1);
        rd_assess(&rd_probe_registry, &f, &ctx->knowledge, &v, &fs);
        double t2 = now_ms();
        rd_gpu_view_free(&v);
        rd_findings_free(&fs);
        rd_daemon_regather(ctx, &f, group, 1);
        rd_assess(&rd_probe_registry, &f, &ctx->knowledge, &v, &fs);
        double t3 = now_ms();
        rd_gpu_view_free(&v);
        rd_findings_free(&fs);
        rd_facts_free(&f);
        t_full += t1 - t0;
        t_hw += t2 - t1;
        t_group += t3 - t2;
    }
    printf("check, in process (mean of %d):  full gather+assess %.2f ms   hardware re-gather %.2f ms   "
           "/etc/group re-gather %.2f ms\n",
           reps, t_full / reps, t_hw / reps, t_group / reps);
}

/* Starts the daemon on root with NOTIFY_SOCKET at tmp/notify and waits for
 * READY=1; returns the notify socket. */
static int start_daemon(const char *tmp, const char *root, const char *config_file, GPid *ret_pid)
{
    g_autoptr(GError) err = NULL;
    g_autofree char *sock = g_build_filename(tmp, "notify", NULL);
    int fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    struct sockaddr_un sa = { .sun_family = AF_UNIX };
    g_strlcpy(sa.sun_path, sock, sizeof sa.sun_path);
    if (bind(fd, (struct sockaddr *)&sa, sizeof sa) < 0)
        g_error("bind");
    char **env = g_environ_setenv(g_get_environ(), "NOTIFY_SOCKET", sock, TRUE);
    const char *dargv[] = { DAEMON_EXE, "--root", root, config_file ? "--config" : NULL, config_file, NULL };
    if (!g_spawn_async(NULL, (char **)dargv, env, G_SPAWN_DO_NOT_REAP_CHILD | G_SPAWN_STDERR_TO_DEV_NULL,
                       die_with_parent, NULL, ret_pid, &err))
        g_error("%s", err->message);
    g_strfreev(env);
    double t_start = now_ms();
    char *m;
    while ((m = next_notify(fd, 10000)) && !strstr(m, "READY=1"))
        g_free(m);
    if (!m)
        g_error("the daemon did not get ready");
    g_free(m);
    printf("daemon start to READY=1:          %.1f ms\n", now_ms() - t_start);
    return fd;
}

/* uevent to published status, `events` times. */
static void bench_uevents(UMockdevTestbed *tb, int fd, int events, double debounce)
{
    double *lat = g_new0(double, (gsize)events);
    for (int i = 0; i < events; i++) {
        double t0 = now_ms();
        umockdev_testbed_uevent(tb, CARD0, "change");
        char *m;
        while ((m = next_notify(fd, 10000)) && !strstr(m, "STATUS="))
            g_free(m);
        if (!m)
            g_error("no status after a uevent");
        g_free(m);
        lat[i] = now_ms() - t0;
        g_usleep(G_USEC_PER_SEC / 20);
    }
    qsort(lat, (size_t)events, sizeof(double), cmp_double);
    printf("uevent to published status (%d):  median %.1f ms, max %.1f ms; without the %.0f ms debounce: "
           "median %.1f ms, max %.1f ms\n",
           events, lat[events / 2], lat[events - 1], debounce, lat[events / 2] - debounce, lat[events - 1] - debounce);
    g_free(lat);
}

int main(int argc, char **argv)
{
    int idle_s = argc > 1 ? atoi(argv[1]) : 10;
    int events = argc > 2 ? atoi(argv[2]) : 10;
    const char *config_file = argc > 3 ? argv[3] : NULL;
    g_autoptr(GError) err = NULL;
    g_autofree char *tmp = g_dir_make_tmp("rocm-doctord-bench-XXXXXX", &err);
    g_autofree char *scen = g_build_filename(tmp, "healthy", NULL);
    UMockdevTestbed *tb = make_testbed(scen);
    g_autofree char *root = g_build_filename(scen, "root", NULL);

    rd_ctx ctx;
    char *error = NULL;
    if (rd_ctx_init(&ctx, root, NULL, &error) < 0)
        g_error("%s", error);
    rd_config config;
    _cleanup_strv_free_ char **fix_ids = rd_fix_table_ids(&rd_fix_registry);
    const rd_config_ids ids = { .probes = &rd_probe_registry, .fix_ids = fix_ids };
    if (rd_config_load(&ids, root, config_file, &config, &error) < 0)
        g_error("%s", error);
    ctx.config = &config;
    bench_in_process(&ctx);

    GPid pid;
    int fd = start_daemon(tmp, root, config_file, &pid);
    g_usleep(G_USEC_PER_SEC / 2);
    g_autofree char *pstatus = g_strdup_printf("/proc/%d/status", (int)pid);
    long sw0 = switches(pid);
    g_usleep((gulong)idle_s * G_USEC_PER_SEC);
    long sw1 = switches(pid);
    printf("idle:                             VmRSS %ld KiB   VmHWM %ld KiB   wake-ups in %d s: %ld\n",
           status_field(pstatus, "\nVmRSS:"), status_field(pstatus, "\nVmHWM:"), idle_s, sw1 - sw0);

    bench_uevents(tb, fd, events, (double)config.debounce_ms);
    printf("after the events:                 VmRSS %ld KiB   VmHWM %ld KiB\n", status_field(pstatus, "\nVmRSS:"),
           status_field(pstatus, "\nVmHWM:"));
    printf("targets: < 4096 KiB RSS, 0 wake-ups idle, < 100 ms to publish\n");

    kill(pid, SIGTERM);
    waitpid(pid, NULL, 0);
    close(fd);
    rd_config_free(&config);
    rd_ctx_free(&ctx);
    g_object_unref(tb);
    const char *rm[] = { "rm", "-rf", tmp, NULL };
    return g_spawn_sync(NULL, (char **)rm, NULL, G_SPAWN_SEARCH_PATH, NULL, NULL, NULL, NULL, NULL, NULL) ? 0 : 1;
}
