/* SPDX-License-Identifier: MIT */
/* Level 2, the parent: forks the child (runtime-child.c), reads what it
 * reports under a deadline, and records how it ended. */
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

/* ---------------------------------------------------------------------- */
/* The parent */

static void take_line(rd_runtime_facts *rt, char *line, bool *done)
{
    json_object *j = json_tokener_parse(line);
    if (!j || !json_object_is_type(j, json_type_object)) {
        json_object_put(j);
        return;
    }
    json_object *v;
    if (json_object_object_get_ex(j, "stage", &v)) {
        free(rt->child_stage);
        rt->child_stage = xstrdup(json_object_get_string(v));
        rt->child_stage_device = json_object_object_get_ex(j, "device", &v) ? json_object_get_int64(v) : -1;
    } else if (json_object_object_get_ex(j, "runtime", &v)) {
        rd_runtime_facts snap = { 0 };
        _cleanup_free_ char *err = NULL;
        if (rd_struct_from_json(&rd_runtime_facts_schema, &snap, v, "runtime", &err) == 0) {
            /* keep what only the parent knows */
            snap.child_stage = TAKE_PTR(rt->child_stage);
            snap.child_stage_device = rt->child_stage_device;
            rd_struct_free(&rd_runtime_facts_schema, rt);
            *rt = snap;
        } else
            rd_struct_free(&rd_runtime_facts_schema, &snap);
    } else if (json_object_object_get_ex(j, "done", &v))
        *done = true;
    json_object_put(j);
}

/* The last few lines the child printed, for evidence. */
static char *tail_lines(const char *s, size_t len, unsigned max_lines)
{
    while (len > 0 && (s[len - 1] == '\n' || s[len - 1] == ' ' || s[len - 1] == '\r'))
        len--;
    size_t start = len;
    unsigned lines = 0;
    while (start > 0) {
        if (s[start - 1] == '\n' && ++lines == max_lines)
            break;
        start--;
    }
    if (start == len)
        return NULL;
    return xstrndup(s + start, len - start);
}

#define MAX_REPORT (16u << 20)
#define MAX_OUTPUT (64u << 10)
#define UNKILLABLE_WAIT_S 3.0

/* The child's two pipes: what it reports, and what it prints. */
typedef struct {
    int report[2], output[2];
    pid_t pid;
} child_proc;

/* Forks the child in its own process group; -1 with rt->error on failure. */
static int child_start(child_proc *cp, rd_runtime_facts *rt, rd_facts *facts)
{
    *cp = (child_proc){ { -1, -1 }, { -1, -1 }, -1 };
    if (pipe2(cp->report, O_CLOEXEC) < 0 || pipe2(cp->output, O_CLOEXEC) < 0) {
        rt->error = xasprintf("cannot create a pipe: %s", errno_name(errno));
        closep(&cp->report[0]), closep(&cp->report[1]), closep(&cp->output[0]), closep(&cp->output[1]);
        return -1;
    }
    fflush(stdout);
    fflush(stderr);
    cp->pid = fork();
    if (cp->pid < 0) {
        rt->error = xasprintf("cannot start the runtime process: %s", errno_name(errno));
        closep(&cp->report[0]), closep(&cp->report[1]), closep(&cp->output[0]), closep(&cp->output[1]);
        return -1;
    }
    if (cp->pid == 0) {
        /* its own process group, so that the deadline takes every thread
         * and any helper process with it */
        setpgid(0, 0);
        close(cp->report[0]);
        close(cp->output[0]);
        int null = open("/dev/null", O_RDONLY | O_CLOEXEC);
        if (null >= 0)
            dup2(null, STDIN_FILENO);
        dup2(cp->output[1], STDOUT_FILENO);
        dup2(cp->output[1], STDERR_FILENO);
        signal(SIGPIPE, SIG_IGN);
        rd_runtime_child_main(cp->report[1], facts);
    }
    setpgid(cp->pid, cp->pid); /* either side may win the race; both set the same */
    closep(&cp->report[1]);
    closep(&cp->output[1]);
    return 0;
}

/* Appends what one read gave: the report's complete lines go into rt as
 * they come; the output keeps its last MAX_OUTPUT / 2 bytes or so. */
static void child_take(rd_runtime_facts *rt, bool is_report, const char *buf, size_t n, strbuf *rep, strbuf *out,
                       bool *done)
{
    if (!is_report) {
        strbuf_appendn(out, buf, n);
        if (out->len > MAX_OUTPUT) {
            size_t drop = out->len - MAX_OUTPUT / 2;
            memmove(out->s, out->s + drop, out->len - drop + 1);
            out->len -= drop;
        }
        return;
    }
    if (rep->len + n > MAX_REPORT)
        return; /* a runaway child: keep what was said */
    strbuf_appendn(rep, buf, n);
    char *nl;
    while (rep->s && (nl = memchr(rep->s, '\n', rep->len))) {
        *nl = 0;
        take_line(rt, rep->s, done);
        size_t used = (size_t)(nl - rep->s) + 1;
        memmove(rep->s, nl + 1, rep->len - used + 1);
        rep->len -= used;
    }
}

/* Reads both pipes until they close or the deadline passes; returns
 * whether the deadline passed. */
static bool child_read(const child_proc *cp, rd_runtime_facts *rt, double deadline, strbuf *rep, strbuf *out,
                       bool *done)
{
    bool open_[2] = { true, true };
    const int fds[2] = { cp->report[0], cp->output[0] };
    while (open_[0] || open_[1]) {
        double left = deadline - now_s();
        if (left <= 0)
            return true;
        struct pollfd p[2] = { { open_[0] ? fds[0] : -1, POLLIN, 0 }, { open_[1] ? fds[1] : -1, POLLIN, 0 } };
        int r = poll(p, 2, (int)(left * 1000) + 1);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0)
            break;
        char buf[65536];
        for (int i = 0; i < 2; i++) {
            if (!(p[i].revents & (POLLIN | POLLHUP | POLLERR)))
                continue;
            ssize_t n = read(p[i].fd, buf, sizeof buf);
            if (n < 0 && (errno == EINTR || errno == EAGAIN))
                continue;
            if (n <= 0)
                open_[i] = false;
            else
                child_take(rt, i == 0, buf, (size_t)n, rep, out, done);
        }
    }
    return false;
}

/* Waits for the child with WNOHANG until the deadline; whether it was
 * reaped. */
static bool child_wait_until(pid_t pid, int *status, double deadline)
{
    for (;;) {
        pid_t w = waitpid(pid, status, WNOHANG);
        if (w == pid || (w < 0 && errno != EINTR))
            return true;
        if (now_s() >= deadline)
            return false;
        usleep(10000);
    }
}

/* Reaps the child: the pipes close when it exits, but it still gets only
 * until the deadline (a child that closed them and went on working is not
 * waited for forever). Returns whether the deadline passed. */
static bool child_reap(const child_proc *cp, rd_runtime_facts *rt, double deadline, bool timed_out, int *status)
{
    if (!timed_out && !child_wait_until(cp->pid, status, deadline))
        timed_out = true;
    if (!timed_out) {
        kill(-cp->pid, SIGKILL); /* anything the child left behind */
        return false;
    }
    kill(-cp->pid, SIGKILL);
    kill(cp->pid, SIGKILL);
    /* A process inside a hung GPU driver may sit in uninterruptible sleep,
     * where even SIGKILL waits: do not wait with it. */
    rt->child_unkillable = !child_wait_until(cp->pid, status, now_s() + UNKILLABLE_WAIT_S);
    return true;
}

/* How the child ended, into rt. */
static void child_record_end(rd_runtime_facts *rt, bool timed_out, int status, bool done)
{
    rt->child_exit_code = -1;
    rt->child_signal = 0;
    if (timed_out) {
        rt->child_status = xstrdup("timeout");
        rt->child_signal = SIGKILL;
    } else if (WIFSIGNALED(status)) {
        rt->child_status = xstrdup("signal");
        rt->child_signal = WTERMSIG(status);
    } else {
        rt->child_exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
        rt->child_status = xstrdup(done && rt->child_exit_code == 0 ? "exited" : "no-result");
    }
    if (rt->child_signal) {
        const char *abbrev = sigabbrev_np((int)rt->child_signal);
        rt->child_signal_name = abbrev ? xasprintf("SIG%s", abbrev) : xasprintf("signal %" PRId64, rt->child_signal);
    }
    if (done) {
        free(rt->child_stage);
        rt->child_stage = NULL;
        rt->child_stage_device = -1;
    }
}

/* The one directory to load the runtime from: --rocm-path, else the wheels'
 * runtime of the --python environment (as an application there loads it);
 * NULL: the default search. */
static char *runtime_dir(const rd_ctx *ctx, const rd_facts *facts)
{
    if (ctx->rocm_path)
        return xstrdup(ctx->rocm_path);
    for (size_t i = 0; ctx->python && i < facts->wheels.n_installs; i++) {
        const rd_wheel_install *w = &facts->wheels.installs[i];
        if (streq_ptr(w->source, "--python") && w->runtime && w->lib_dir)
            return rd_ctx_has_root(ctx) ? xasprintf("%s%s", ctx->root, w->lib_dir) : xstrdup(w->lib_dir);
    }
    return NULL;
}

void rd_runtime_gather(const rd_ctx *ctx, rd_facts *facts)
{
    rd_runtime_facts *rt = &facts->runtime;
    rd_struct_free(&rd_runtime_facts_schema, rt);
    *rt = (rd_runtime_facts){ .ran = true,
                              .hsa_init_status = -1,
                              .hip_init_status = -1,
                              .hip_device_count_status = -1,
                              .hip_runtime_version = -1,
                              .hip_code_object_version = -1,
                              .hip_device_count = -1,
                              .child_exit_code = -1,
                              .child_stage_device = -1 };
    int64_t timeout = ctx->runtime_timeout_s > 0 ? ctx->runtime_timeout_s : RD_RUNTIME_DEFAULT_TIMEOUT_S;
    rt->timeout_s = timeout;
    rt->rocm_path = runtime_dir(ctx, facts);

    double t0 = now_s();
    child_proc cp;
    if (child_start(&cp, rt, facts) < 0) {
        rt->child_status = xstrdup("no-result");
        return;
    }
    strbuf rep = { 0 }, out = { 0 };
    bool done = false;
    double deadline = t0 + (double)timeout;
    bool timed_out = child_read(&cp, rt, deadline, &rep, &out, &done);
    int status = 0;
    timed_out = child_reap(&cp, rt, deadline, timed_out, &status);
    close(cp.report[0]);
    close(cp.output[0]);
    rt->elapsed_s = now_s() - t0;
    rt->timeout_s = timeout;
    child_record_end(rt, timed_out, status, done);
    rt->child_output = out.s ? tail_lines(out.s, out.len, 6) : NULL;
    free(rep.s);
    free(out.s);
}
