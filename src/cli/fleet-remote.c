/* SPDX-License-Identifier: MIT */
/* fleet --hosts and --slurm: each node runs its own `rocm-doctor check
 * --json`, through ClusterShell's clush or pdsh (one process for all nodes,
 * its output lines prefixed "node: "), plain ssh (one process per node, at
 * most --parallel at once), or srun (one task per node, each writing its
 * report to a file of a temporary folder). A node that cannot be reached,
 * times out, has no rocm-doctor or answers with something that is not a
 * report is unreachable, with the reason. Ctrl-C stops the runs and keeps
 * what has arrived. */
#include <errno.h>
#include <inttypes.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "cli.h"
#include "fleet.h"
#include "hostlist.h"
#include "util.h"

#define DEFAULT_PARALLEL 64
#define DEFAULT_NODE_TIMEOUT 120
/* The most nodes a node set may name, and the most output kept per node. */
#define MAX_NODES 100000
#define MAX_OUTPUT (16u << 20)
#define MAX_ERROR 2048

static volatile sig_atomic_t got_sigint;

static void on_sigint(int sig)
{
    (void)sig;
    got_sigint = 1;
}

typedef struct {
    char *name;
    strbuf out;
    strbuf err;
    pid_t pid;
    int out_fd, err_fd;
    int64_t started_ms;
    int status; /* wait status; -1 still running or never started */
    bool timed_out, done, truncated, interrupted;
} job;

static int64_t now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Starts argv with stdout and stderr on pipes, in a process group of its
 * own (so a timeout ends what it started too); 0 or -errno. */
static int start(char *const *argv, pid_t *ret_pid, int *ret_out, int *ret_err)
{
    int out[2], err[2];
    if (pipe2(out, O_CLOEXEC) < 0)
        return -errno;
    if (pipe2(err, O_CLOEXEC) < 0) {
        int e = -errno;
        close(out[0]);
        close(out[1]);
        return e;
    }
    pid_t pid = fork();
    if (pid < 0) {
        int e = -errno;
        close(out[0]);
        close(out[1]);
        close(err[0]);
        close(err[1]);
        return e;
    }
    if (pid == 0) {
        setpgid(0, 0);
        int devnull = open("/dev/null", O_RDONLY | O_CLOEXEC);
        if (devnull >= 0)
            dup2(devnull, STDIN_FILENO);
        dup2(out[1], STDOUT_FILENO);
        dup2(err[1], STDERR_FILENO);
        signal(SIGINT, SIG_DFL);
        execvp(argv[0], argv);
        dprintf(STDERR_FILENO, "%s: %s\n", argv[0], strerror(errno));
        _exit(127);
    }
    setpgid(pid, pid);
    close(out[1]);
    close(err[1]);
    fcntl(out[0], F_SETFL, O_NONBLOCK);
    fcntl(err[0], F_SETFL, O_NONBLOCK);
    *ret_pid = pid;
    *ret_out = out[0];
    *ret_err = err[0];
    return 0;
}

/* Reads what fd has into b (up to max bytes kept); false at its end. */
static bool drain(int fd, strbuf *b, size_t max, bool *truncated)
{
    char buf[65536];
    for (;;) {
        ssize_t n = read(fd, buf, sizeof buf);
        if (n > 0) {
            if (b->len + (size_t)n <= max)
                strbuf_appendn(b, buf, (size_t)n);
            else if (truncated)
                *truncated = true;
            continue;
        }
        if (n < 0 && (errno == EAGAIN || errno == EINTR))
            return true;
        return false;
    }
}

/* The jobs of run_jobs and where it is with them. */
typedef struct {
    job *jobs;
    size_t n;
    size_t next;    /* the first job not started */
    size_t running; /* started and not reaped */
    size_t parallel;
    int64_t timeout_s;
    char **(*argv_of)(const job *, const void *);
    const void *ud;
    struct pollfd *pfd; /* the pipes to wait on, and their jobs */
    job **slot;
} job_runner;

/* Starts jobs until parallel of them run; one that cannot start is done,
 * with the reason in its err. */
static void start_jobs(job_runner *jr)
{
    while (jr->next < jr->n && jr->running < jr->parallel) {
        job *j = &jr->jobs[jr->next++];
        _cleanup_strv_free_ char **argv = jr->argv_of(j, jr->ud);
        int r = start(argv, &j->pid, &j->out_fd, &j->err_fd);
        if (r < 0) {
            strbuf_printf(&j->err, "cannot run %s: %s", argv[0], errno_name(-r));
            j->done = true;
            continue;
        }
        j->started_ms = now_ms();
        jr->running++;
    }
}

/* A running job: killed once past its time, reaped once both its pipes
 * are closed, else its open pipes added to jr->pfd at *k. *wait_ms: how
 * long the poll may wait for it. */
static void watch_job(job_runner *jr, job *j, int64_t now, size_t *k, int64_t *wait_ms)
{
    int64_t left = j->started_ms + jr->timeout_s * 1000 - now;
    if (left <= 0 && !j->timed_out) {
        j->timed_out = true;
        kill(-j->pid, SIGKILL);
    }
    if (left > 0 && left < *wait_ms)
        *wait_ms = left;
    if (j->out_fd >= 0) {
        jr->pfd[*k] = (struct pollfd){ .fd = j->out_fd, .events = POLLIN };
        jr->slot[(*k)++] = j;
    }
    if (j->err_fd >= 0) {
        jr->pfd[*k] = (struct pollfd){ .fd = j->err_fd, .events = POLLIN };
        jr->slot[(*k)++] = j;
    }
    if (j->out_fd < 0 && j->err_fd < 0) {
        int st;
        pid_t w = waitpid(j->pid, &st, j->timed_out ? 0 : WNOHANG);
        if (w == j->pid) {
            j->status = st;
            j->done = true;
            jr->running--;
        } else
            *wait_ms = *wait_ms > 50 ? 50 : *wait_ms;
    }
}

/* What the k pipes polled have, into their jobs; a pipe at its end is
 * closed. */
static void read_ready(job_runner *jr, size_t k)
{
    for (size_t i = 0; i < k; i++) {
        if (!jr->pfd[i].revents)
            continue;
        job *j = jr->slot[i];
        bool is_out = jr->pfd[i].fd == j->out_fd;
        if (!drain(jr->pfd[i].fd, is_out ? &j->out : &j->err, is_out ? MAX_OUTPUT : MAX_ERROR,
                   is_out ? &j->truncated : NULL)) {
            close(jr->pfd[i].fd);
            if (is_out)
                j->out_fd = -1;
            else
                j->err_fd = -1;
        }
    }
}

/* Ctrl-C, or done: ends what still runs, keeping what it wrote. */
static void end_jobs(job *jobs, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        job *j = &jobs[i];
        if (!j->pid || j->done)
            continue;
        kill(-j->pid, SIGKILL);
        if (j->out_fd >= 0) {
            drain(j->out_fd, &j->out, MAX_OUTPUT, &j->truncated);
            close(j->out_fd);
        }
        if (j->err_fd >= 0)
            close(j->err_fd);
        waitpid(j->pid, &j->status, 0);
        j->interrupted = true;
    }
}

/* Runs the jobs' argvs, at most parallel at once, each for at most
 * timeout_s; returns when all are done or on Ctrl-C. */
static void run_jobs(job *jobs, size_t n, char **(*argv_of)(const job *, const void *), const void *ud, size_t parallel,
                     int64_t timeout_s)
{
    job_runner jr = {
        .jobs = jobs,
        .n = n,
        .parallel = parallel,
        .timeout_s = timeout_s,
        .argv_of = argv_of,
        .ud = ud,
        .pfd = xcalloc(2 * (parallel ? parallel : 1), sizeof(struct pollfd)),
        .slot = xcalloc(2 * (parallel ? parallel : 1), sizeof(job *)),
    };
    while (!got_sigint && (jr.next < n || jr.running > 0)) {
        start_jobs(&jr);
        size_t k = 0;
        int64_t now = now_ms(), wait_ms = 1000;
        for (size_t i = 0; i < n; i++)
            if (jobs[i].pid && !jobs[i].done)
                watch_job(&jr, &jobs[i], now, &k, &wait_ms);
        if (k == 0)
            continue;
        if (poll(jr.pfd, k, (int)wait_ms) < 0 && errno != EINTR)
            break;
        read_ready(&jr, k);
    }
    end_jobs(jobs, n);
    free(jr.pfd);
    free(jr.slot);
}

static void job_free(job *j)
{
    free(j->name);
    free(j->out.s);
    free(j->err.s);
}

/* What a node's error output says: ssh's own line ("ssh: connect to host
 * ...: Connection refused") when there is one, else the last line; NULL
 * for none. */
static char *last_line(const char *text)
{
    if (!text)
        return NULL;
    _cleanup_strv_free_ char **lines = strv_split(text, "\n");
    for (char **l = lines; l && *l; l++)
        if (startswith(*l, "ssh: "))
            return xstrdup(strstrip(*l));
    size_t n = strv_length(lines);
    while (n > 0 && !*strstrip(lines[n - 1]))
        n--;
    return n ? xstrdup(lines[n - 1]) : NULL;
}

/* A node whose run ended (or did not): its report, or why there is none. */
static void node_of(const rd_options *o, const char *name, const char *out, size_t out_len, const char *err,
                    bool timed_out, bool interrupted, int wait_status, int64_t timeout_s, rd_fleet *fleet)
{
    rd_fleet_node node;
    _cleanup_free_ char *last = last_line(err);
    int code = WIFEXITED(wait_status) ? WEXITSTATUS(wait_status) : -1;
    if (timed_out) {
        _cleanup_free_ char *why = xasprintf("timed out after %" PRId64 " s", timeout_s);
        rd_fleet_node_unreachable(&node, name, why);
    } else if (out_len == 0 && interrupted)
        rd_fleet_node_unreachable(&node, name, "interrupted before its report arrived");
    else if (out_len == 0 && code == 127)
        rd_fleet_node_unreachable(&node, name, last ? last : "no rocm-doctor on the node");
    else if (out_len == 0) {
        _cleanup_free_ char *why = xasprintf("no report: %s", last ? last : "empty output");
        rd_fleet_node_unreachable(&node, name, why);
    } else {
        rd_cli_fleet_node_from_text(o, out, out_len, NULL, name, &node);
        if (node.unreachable && last) {
            _cleanup_free_ char *why = xasprintf("%s (%s)", node.unreachable, last);
            free(node.unreachable);
            node.unreachable = TAKE_PTR(why);
        }
    }
    rd_fleet_add(fleet, &node);
}

/* The command each node runs, as one word list: rocm-doctor check --json
 * [--user USER]. */
static char **remote_command(const rd_options *o)
{
    char **v = rd_strv_new("rocm-doctor", "check", "--json", NULL);
    if (o->user) {
        v = strv_push(v, xstrdup("--user"));
        v = strv_push(v, xstrdup(o->user));
    }
    return v;
}

typedef struct {
    const rd_options *o;
    int64_t connect_s;
} ssh_args;

static char **ssh_argv(const job *j, const void *ud)
{
    const ssh_args *a = ud;
    char **v = rd_strv_new("ssh", "-o", "BatchMode=yes", "-o", NULL);
    v = strv_push(v, xasprintf("ConnectTimeout=%" PRId64, a->connect_s));
    v = strv_push(v, xstrdup("--"));
    v = strv_push(v, xstrdup(j->name));
    _cleanup_strv_free_ char **cmd = remote_command(a->o);
    for (char **c = cmd; *c; c++)
        v = strv_push(v, xstrdup(*c));
    return v;
}

static char **given_argv(const job *j, const void *ud)
{
    (void)j;
    char **v = NULL;
    for (char *const *c = ud; *c; c++)
        v = strv_push(v, xstrdup(*c));
    return v;
}

/* Which parallel shell runs --hosts: ROCM_DOCTOR_FLEET_SHELL (clush, pdsh
 * or ssh) when set, else the first of clush and pdsh that is installed,
 * else ssh. */
static const char *pick_shell(void)
{
    const char *env = getenv("ROCM_DOCTOR_FLEET_SHELL");
    if (env && *env)
        return env;
    const char *path = getenv("PATH");
    _cleanup_strv_free_ char **dirs = strv_split(path ? path : "/usr/bin:/bin", ":");
    static const char *const shells[] = { "clush", "pdsh" };
    for (size_t s = 0; s < ELEMENTSOF(shells); s++)
        for (char **d = dirs; d && *d; d++) {
            _cleanup_free_ char *p = xasprintf("%s/%s", *d, shells[s]);
            if (access(p, X_OK) == 0)
                return shells[s];
        }
    return "ssh";
}

/* The node a line of clush's or pdsh's output belongs to: "NODE: text",
 * after a "pdsh@HOST: " or "clush: " of their own messages. */
static size_t line_node(char *const *names, size_t n, const char *line, const char **ret_text)
{
    const char *p = line;
    if (startswith(p, "pdsh@") || startswith(p, "clush: ")) {
        const char *colon = strstr(p, ": ");
        if (colon)
            p = colon + 2;
    }
    const char *colon = strstr(p, ": ");
    const char *colon_eol = NULL;
    if (!colon && (colon_eol = strchr(p, ':')) && colon_eol[1] == '\0')
        colon = colon_eol;
    if (!colon)
        return n;
    for (size_t i = 0; i < n; i++)
        if (strlen(names[i]) == (size_t)(colon - p) && strncmp(names[i], p, (size_t)(colon - p)) == 0) {
            *ret_text = colon[1] ? colon + 2 : colon + 1;
            return i;
        }
    return n;
}

/* clush or pdsh: one run for every node, its lines sorted out by node. */
static int through_parallel_shell(const rd_options *o, const char *shell, char **names, size_t n, size_t parallel,
                                  int64_t timeout_s, rd_fleet *fleet)
{
    _cleanup_free_ char *list = strv_join(names, ",");
    _cleanup_free_ char *fanout = xasprintf("%zu", parallel);
    _cleanup_free_ char *timeout = xasprintf("%" PRId64, timeout_s);
    _cleanup_free_ char *connect = xasprintf("%" PRId64, timeout_s < 10 ? timeout_s : 10);
    char **argv =
        streq(shell, "pdsh")
            ? rd_strv_new("pdsh", "-R", "ssh", "-S", "-f", fanout, "-u", timeout, "-t", connect, "-w", list, NULL)
            : rd_strv_new("clush", "-f", fanout, "-u", timeout, "-t", connect, "-w", list, NULL);
    _cleanup_strv_free_ char **cmd = remote_command(o);
    for (char **c = cmd; *c; c++)
        argv = strv_push(argv, xstrdup(*c));
    job j = { .name = xstrdup(shell), .out_fd = -1, .err_fd = -1, .status = -1 };
    /* the shell's own limit: its waves of `parallel` nodes, each bounded
     * by the node timeout it enforces, and a margin */
    int64_t waves = (int64_t)((n + parallel - 1) / parallel);
    run_jobs(&j, 1, given_argv, argv, 1, waves * timeout_s + 30);
    strv_free(argv);
    strbuf *outs = xcalloc(n, sizeof *outs), *errs = xcalloc(n, sizeof *errs);
    for (int pass = 0; pass < 2; pass++) {
        _cleanup_strv_free_ char **lines = strv_split(strempty(pass ? j.err.s : j.out.s), "\n");
        for (char **l = lines; l && *l; l++) {
            const char *text = NULL;
            size_t i = line_node(names, n, *l, &text);
            if (i == n)
                continue;
            strbuf_append(pass ? &errs[i] : &outs[i], text);
            strbuf_append(pass ? &errs[i] : &outs[i], "\n");
        }
    }
    for (size_t i = 0; i < n; i++) {
        const char *err = errs[i].s;
        bool timed_out =
            (j.timed_out && !outs[i].len) || (err && (strstr(err, "command timeout") || strstr(err, "timed out")));
        bool no_tool = err && (strstr(err, "exit code 127") || strstr(err, "exited with exit code 127"));
        _cleanup_free_ char *reason = NULL;
        if (no_tool && !outs[i].len)
            reason = xasprintf("rocm-doctor not found on the node");
        node_of(o, names[i], outs[i].s ? outs[i].s : "", outs[i].len, reason ? reason : err, timed_out, j.interrupted,
                reason ? (127 << 8) : 0, timeout_s, fleet);
        free(outs[i].s);
        free(errs[i].s);
    }
    free(outs);
    free(errs);
    job_free(&j);
    return 0;
}

static int through_ssh(const rd_options *o, char **names, size_t n, size_t parallel, int64_t timeout_s, rd_fleet *fleet)
{
    job *jobs = xcalloc(n, sizeof *jobs);
    for (size_t i = 0; i < n; i++)
        jobs[i] = (job){ .name = xstrdup(names[i]), .out_fd = -1, .err_fd = -1, .status = -1 };
    ssh_args a = { .o = o, .connect_s = timeout_s < 10 ? timeout_s : 10 };
    run_jobs(jobs, n, ssh_argv, &a, parallel, timeout_s);
    for (size_t i = 0; i < n; i++) {
        job *j = &jobs[i];
        int code = WIFEXITED(j->status) ? WEXITSTATUS(j->status) : -1;
        const char *err = j->err.s;
        /* ssh's 127 is the remote shell's: no rocm-doctor there */
        node_of(o, j->name, j->out.s ? j->out.s : "", j->out.len, err, j->timed_out, j->interrupted || !j->pid,
                code == 127 ? (127 << 8) : j->status, timeout_s, fleet);
        job_free(j);
    }
    free(jobs);
    return 0;
}

/* --slurm: the node list (--nodes, or the partition's nodes from sinfo). */
static int slurm_nodes(const rd_options *o, char ***ret)
{
    if (o->nodes) {
        int r = rd_hostlist_expand(o->nodes, MAX_NODES, ret);
        return r < 0 ? rd_usage_error("--nodes %s: not a node list", o->nodes) : 0;
    }
    _cleanup_strv_free_ char **argv = rd_strv_new("sinfo", "-h", "-N", "-p", o->partition, "-o", "%N", NULL);
    job j = { .name = xstrdup("sinfo"), .out_fd = -1, .err_fd = -1, .status = -1 };
    run_jobs(&j, 1, given_argv, argv, 1, 60);
    int code = WIFEXITED(j.status) ? WEXITSTATUS(j.status) : -1;
    if (code != 0 || !j.out.len) {
        _cleanup_free_ char *last = last_line(j.err.s);
        job_free(&j);
        return rd_fail("--partition %s: sinfo found no nodes%s%s", o->partition, last ? ": " : "", strempty(last));
    }
    char **v = NULL;
    size_t n = 0;
    _cleanup_strv_free_ char **lines = strv_split(j.out.s, "\n");
    for (char **l = lines; l && *l; l++)
        if (*strstrip(*l) && !strv_contains(v, *l))
            v = strv_push_n(v, &n, xstrdup(*l));
    job_free(&j);
    *ret = v;
    return 0;
}

/* A line of srun --label's output: " 3: text" → 3 and the text; -1 for a
 * line of srun's own. */
static long task_of(const char *line, const char **ret_text)
{
    const char *p = line;
    while (*p == ' ')
        p++;
    char *end = NULL;
    errno = 0;
    long t = strtol(p, &end, 10);
    if (errno || end == p || t < 0 || !startswith(end, ": "))
        return -1;
    *ret_text = end + 2;
    return t;
}

/* The first line each task prints: its node's name (the task's shell
 * prints it before it runs rocm-doctor). */
#define NODE_LINE "rocm-doctor-fleet-node "

/* srun's command line: one task per node of names, each labelled, running
 * sh -c 'echo NAME; exec rocm-doctor check --json "$@"' sh [--user U]. */
static char **srun_argv(const rd_options *o, char **names, size_t n, const char *job_name)
{
    _cleanup_free_ char *list = strv_join(names, ",");
    _cleanup_free_ char *nn = xasprintf("--nodes=%zu", n);
    _cleanup_free_ char *nodelist = xasprintf("--nodelist=%s", list);
    char **argv =
        rd_strv_new("srun", nn, "--ntasks-per-node=1", nodelist, "--label", "--kill-on-bad-exit=0", job_name, NULL);
    if (o->partition)
        argv = strv_push(argv, xasprintf("--partition=%s", o->partition));
    argv = strv_push(argv, xstrdup("sh"));
    argv = strv_push(argv, xstrdup("-c"));
    argv = strv_push(argv, xstrdup("echo \"" NODE_LINE "${SLURMD_NODENAME:-$(hostname -s)}\"; exec \"$@\""));
    argv = strv_push(argv, xstrdup("sh"));
    _cleanup_strv_free_ char **cmd = remote_command(o);
    for (char **c = cmd; *c; c++)
        argv = strv_push(argv, xstrdup(*c));
    return argv;
}

/* srun was killed: its step may live on; cancels the job by its name
 * (job_name: srun's --job-name=NAME), Ctrl-C or not. */
static void scancel_job(const char *job_name)
{
    _cleanup_free_ char *name_arg = xasprintf("--name=%s", job_name + strlen("--job-name="));
    char **cancel = rd_strv_new("scancel", name_arg, NULL);
    sig_atomic_t saved = got_sigint;
    job c = { .name = xstrdup("scancel"), .out_fd = -1, .err_fd = -1, .status = -1 };
    got_sigint = 0;
    run_jobs(&c, 1, given_argv, cancel, 1, 30);
    got_sigint = saved;
    job_free(&c);
    strv_free(cancel);
}

/* srun's output split by task label: each task's node (its first line),
 * standard output and standard error. */
typedef struct {
    size_t n;
    char **node;
    strbuf *outs;
    strbuf *errs;
} srun_tasks;

static void srun_tasks_grow(srun_tasks *t, size_t more)
{
    t->node = xrealloc(t->node, more * sizeof *t->node);
    t->outs = xrealloc(t->outs, more * sizeof *t->outs);
    t->errs = xrealloc(t->errs, more * sizeof *t->errs);
    for (size_t k = t->n; k < more; k++) {
        t->node[k] = NULL;
        t->outs[k] = (strbuf){ 0 };
        t->errs[k] = (strbuf){ 0 };
    }
    t->n = more;
}

/* The lines of srun's standard output (err false) or error into tasks. */
static void srun_tasks_add(srun_tasks *tasks, const char *text_of_srun, bool err)
{
    _cleanup_strv_free_ char **lines = strv_split(strempty(text_of_srun), "\n");
    for (char **l = lines; l && *l; l++) {
        const char *text = NULL;
        long t = task_of(*l, &text);
        if (t < 0 || (size_t)t >= MAX_NODES)
            continue;
        if ((size_t)t >= tasks->n)
            srun_tasks_grow(tasks, (size_t)t + 1);
        if (!err && !tasks->node[t] && startswith(text, NODE_LINE)) {
            tasks->node[t] = xstrdup(text + strlen(NODE_LINE));
            continue;
        }
        strbuf *b = err ? &tasks->errs[t] : &tasks->outs[t];
        strbuf_append(b, text);
        strbuf_append(b, "\n");
    }
}

static void srun_tasks_free(srun_tasks *t)
{
    for (size_t k = 0; k < t->n; k++) {
        free(t->node[k]);
        free(t->outs[k].s);
        free(t->errs[k].s);
    }
    free(t->node);
    free(t->outs);
    free(t->errs);
}

/* Each node of names from its task (srun's last line of error when it ran
 * none there). */
static void srun_nodes(const rd_options *o, char **names, size_t n, const job *j, const srun_tasks *tasks,
                       int64_t timeout_s, rd_fleet *fleet)
{
    _cleanup_free_ char *srun_last = last_line(j->err.s);
    for (size_t i = 0; i < n; i++) {
        size_t t = 0;
        while (t < tasks->n && !streq_ptr(tasks->node[t], names[i]))
            t++;
        if (t == tasks->n) {
            _cleanup_free_ char *why = j->timed_out ? NULL : xstrdup(srun_last ? srun_last : "srun ran no task there");
            node_of(o, names[i], "", 0, why, j->timed_out, j->interrupted, 0, timeout_s, fleet);
            continue;
        }
        const strbuf *out = &tasks->outs[t];
        const char *err = tasks->errs[t].s;
        bool no_tool = err && strstr(err, "rocm-doctor") && strstr(err, "not found");
        node_of(o, names[i], out->s ? out->s : "", out->len, err, j->timed_out && !out->len, j->interrupted,
                no_tool ? (127 << 8) : 0, timeout_s, fleet);
    }
}

static int through_srun(const rd_options *o, char **names, size_t n, int64_t timeout_s, rd_fleet *fleet)
{
    _cleanup_free_ char *job_name = xasprintf("--job-name=rocm-doctor-fleet-%ld", (long)getpid());
    char **argv = srun_argv(o, names, n, job_name);
    job j = { .name = xstrdup("srun"), .out_fd = -1, .err_fd = -1, .status = -1 };
    run_jobs(&j, 1, given_argv, argv, 1, timeout_s);
    strv_free(argv);
    if (j.timed_out || j.interrupted)
        scancel_job(job_name);
    /* tasks by their label, each named by its first line */
    srun_tasks tasks = { 0 };
    srun_tasks_add(&tasks, j.out.s, false);
    srun_tasks_add(&tasks, j.err.s, true);
    srun_nodes(o, names, n, &j, &tasks, timeout_s, fleet);
    srun_tasks_free(&tasks);
    job_free(&j);
    return 0;
}

int rd_cli_fleet_remote(const rd_options *o, rd_fleet *fleet)
{
    size_t parallel = o->parallel > 0 ? (size_t)o->parallel : DEFAULT_PARALLEL;
    int64_t timeout_s = o->node_timeout > 0 ? o->node_timeout : DEFAULT_NODE_TIMEOUT;
    if (o->user && strpbrk(o->user, " \t\n'\"\\$`;&|<>()*?[]{}!~#"))
        return rd_usage_error("--user %s: not a user name", o->user);
    _cleanup_strv_free_ char **names = NULL;
    int r;
    if (o->slurm)
        r = slurm_nodes(o, &names);
    else if ((r = rd_hostlist_expand(o->hosts, MAX_NODES, &names)) < 0)
        r = rd_usage_error("--hosts %s: not a node set", o->hosts);
    if (r != 0)
        return r;
    size_t n = strv_length(names);
    if (n == 0)
        return rd_usage_error("%s", "no node to check");
    struct sigaction sa = { .sa_handler = on_sigint }, old_int, old_term;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, &old_int);
    sigaction(SIGTERM, &sa, &old_term);
    const char *shell = o->slurm ? "srun" : pick_shell();
    if (o->slurm)
        r = through_srun(o, names, n, timeout_s, fleet);
    else if (streq(shell, "clush") || streq(shell, "pdsh"))
        r = through_parallel_shell(o, shell, names, n, parallel, timeout_s, fleet);
    else if (streq(shell, "ssh"))
        r = through_ssh(o, names, n, parallel, timeout_s, fleet);
    else
        r = rd_usage_error("ROCM_DOCTOR_FLEET_SHELL must be clush, pdsh or ssh, not \"%s\"", shell);
    sigaction(SIGINT, &old_int, NULL);
    sigaction(SIGTERM, &old_term, NULL);
    if (got_sigint)
        rd_msg_error("rocm-doctor", "interrupted: the report shows the nodes whose reports had arrived");
    return r;
}
