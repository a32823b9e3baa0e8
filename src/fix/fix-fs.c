/* SPDX-License-Identifier: MIT */
/* Files inside the root the fixer works on, and the commands it runs. Every
 * path is resolved beneath the root: a symlink that leads out of it is
 * refused (rootfs.h: openat2 RESOLVE_BENEATH; without openat2, any symlink is). */
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <time.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include "fix.h"
#include "rootfs.h"
#include "util.h"

/* The engine keeps a file's before-state in memory and in the journal. */
#define MAX_FILE (16u << 20)

static int open_beneath(int root_fd, const char *rel, int flags)
{
    return rootfs_open(root_fd, rel, flags, ROOTFS_BENEATH);
}

static const char *rel_path(const char *path)
{
    while (*path == '/')
        path++;
    return *path ? path : ".";
}

/* Gives the directory just made in dfd its mode, through the directory itself
 * (never a link put in its place); a negative errno when that fails. */
static int set_dir_mode(int dfd, const char *name, mode_t mode)
{
    _cleanup_close_ int fd = openat(dfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0 || fchmod(fd, mode) < 0)
        return -errno;
    return 0;
}

int rd_fix_open_dir(int root_fd, const char *dir, char ***created)
{
    const char *rel = rel_path(dir);
    int fd = open_beneath(root_fd, rel, O_RDONLY | O_DIRECTORY);
    if (fd >= 0 || fd != -ENOENT || !created)
        return fd;
    /* create the missing components one by one, each beneath the root */
    strbuf prefix = { 0 };
    _cleanup_free_ char *copy = xstrdup(rel);
    char *save = NULL;
    for (char *comp = strtok_r(copy, "/", &save); comp; comp = strtok_r(NULL, "/", &save)) {
        _cleanup_free_ char *parent = xstrdup(prefix.len ? prefix.s : ".");
        strbuf_printf(&prefix, "%s%s", prefix.len ? "/" : "", comp);
        int t = open_beneath(root_fd, prefix.s, O_RDONLY | O_DIRECTORY);
        if (t >= 0) {
            close(t);
            continue;
        }
        if (t != -ENOENT) {
            free(prefix.s);
            return t;
        }
        _cleanup_close_ int pfd = open_beneath(root_fd, parent, O_RDONLY | O_DIRECTORY);
        if (pfd < 0) {
            free(prefix.s);
            return pfd;
        }
        if (mkdirat(pfd, comp, 0755) < 0 && errno != EEXIST) {
            int e = errno;
            free(prefix.s);
            return -e;
        }
        /* whatever the umask: /etc/profile.d and friends must be readable */
        int e = set_dir_mode(pfd, comp, 0755);
        if (e < 0) {
            free(prefix.s);
            return e;
        }
        (void)fsync(pfd);
        *created = strv_push(*created, xasprintf("/%s", prefix.s));
    }
    free(prefix.s);
    return open_beneath(root_fd, rel, O_RDONLY | O_DIRECTORY);
}

/* Opens the directory holding path, beneath the root, and names the file in it. */
static int open_parent(int root_fd, const char *path, char ***created_dirs, const char **ret_base)
{
    const char *slash = strrchr(path, '/');
    if (!slash || !slash[1])
        return -EINVAL;
    _cleanup_free_ char *dir = slash == path ? xstrdup("/") : xstrndup(path, (size_t)(slash - path));
    int dfd = rd_fix_open_dir(root_fd, dir, created_dirs);
    if (dfd < 0)
        return dfd;
    *ret_base = slash + 1;
    return dfd;
}

int rd_fix_read(int root_fd, const char *path, char **ret, size_t *ret_size, struct stat *ret_st)
{
    const char *base;
    _cleanup_close_ int dfd = open_parent(root_fd, path, NULL, &base);
    if (dfd < 0)
        return dfd;
    /* the file itself is never a symlink the fix would follow */
    struct stat st;
    int fd = openat(dfd, base, O_RDONLY | O_NONBLOCK | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY);
    if (fd < 0)
        return errno == ENXIO ? -EINVAL : -errno; /* a socket */
    _cleanup_close_ int rfd = check_regular(fd, &st);
    if (rfd < 0)
        return rfd;
    int r = read_fd_sized(rfd, &st, MAX_FILE, ret, ret_size);
    if (r < 0)
        return r;
    if (ret_st)
        *ret_st = st;
    return 0;
}

int rd_fix_write(int root_fd, const char *path, const char *content, size_t size, mode_t mode, uid_t uid, gid_t gid,
                 char ***created_dirs)
{
    const char *base;
    _cleanup_close_ int dfd = open_parent(root_fd, path, created_dirs, &base);
    if (dfd < 0)
        return dfd;
    return write_atomic_at(dfd, base, content, size, mode, uid, gid);
}

int rd_fix_unlink(int root_fd, const char *path)
{
    const char *base;
    _cleanup_close_ int dfd = open_parent(root_fd, path, NULL, &base);
    if (dfd < 0)
        return dfd;
    if (unlinkat(dfd, base, 0) < 0)
        return -errno;
    if (fsync(dfd) < 0)
        return -errno;
    return 0;
}

char *rd_argv_join(char *const *argv)
{
    strbuf b = { 0 };
    for (size_t i = 0; argv && argv[i]; i++) {
        const char *a = argv[i];
        bool plain =
            *a && strspn(a, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_=.,/:+@%") == strlen(a);
        strbuf_printf(&b, "%s%s%s%s", i ? " " : "", plain ? "" : "'", a, plain ? "" : "'");
    }
    return strbuf_steal(&b);
}

static rd_fix_deadlines deadlines = { .query_s = 120, .transaction_s = 1800 };

void rd_fix_set_deadlines(const rd_fix_deadlines *d)
{
    if (d->query_s > 0)
        deadlines.query_s = d->query_s;
    if (d->transaction_s > 0)
        deadlines.transaction_s = d->transaction_s;
}

const rd_fix_deadlines *rd_fix_get_deadlines(void)
{
    return &deadlines;
}

static int64_t now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (int64_t)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

/* The child's whole process group (a chroot, apt-get, its http method,
 * dpkg, a maintainer script): SIGTERM, a few seconds' grace, SIGKILL. */
static void end_group(pid_t pid)
{
    bool reaped = false;
    (void)kill(-pid, SIGTERM);
    for (int i = 0; i < 30; i++) {
        reaped = reaped || waitpid(pid, NULL, WNOHANG) != 0;
        if (reaped && kill(-pid, 0) < 0)
            return;
        usleep(100 * 1000);
    }
    (void)kill(-pid, SIGKILL);
    if (!reaped)
        while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
            ;
}

/* Reads the child's output until it closes the pipe or the deadline
 * passes; true when the deadline passed. */
static bool collect(int fd, int64_t deadline_ms, strbuf *out)
{
    char buf[4096];
    for (;;) {
        int64_t left = deadline_ms - now_ms();
        if (left <= 0)
            return true;
        struct pollfd p = { .fd = fd, .events = POLLIN };
        int n = poll(&p, 1, left > INT32_MAX ? INT32_MAX : (int)left);
        if (n < 0 && errno == EINTR)
            continue;
        if (n == 0)
            return true;
        if (n < 0)
            return false;
        ssize_t got = read(fd, buf, sizeof buf);
        if (got < 0 && (errno == EINTR || errno == EAGAIN))
            continue;
        if (got <= 0)
            return false;
        if (out->len < (1u << 20))
            strbuf_appendn(out, buf, (size_t)got);
    }
}

static void end_own_group(int sig)
{
    (void)sig;
    (void)kill(0, SIGKILL);
}

/* In the child, the leader of the command's process group: runs argv in
 * the group and waits for it. When rocm-doctor dies first, however it is
 * killed (SIGKILL to its own group included), the kernel tells the leader
 * (PR_SET_PDEATHSIG) and the leader ends the whole group: no package
 * manager goes on alone holding its locks. */
static _Noreturn void run_leader(char *const *argv, pid_t parent)
{
    struct sigaction sa = { .sa_handler = end_own_group };
    (void)sigaction(SIGUSR1, &sa, NULL);
    if (prctl(PR_SET_PDEATHSIG, SIGUSR1) < 0 || getppid() != parent)
        end_own_group(0);
    pid_t pid = fork();
    if (pid == 0) {
        execvp(argv[0], argv);
        fprintf(stderr, "cannot run %s: %s\n", argv[0], strerror(errno));
        _exit(127);
    }
    int status = 0;
    while (pid > 0 && waitpid(pid, &status, 0) < 0 && errno == EINTR)
        ;
    if (pid < 0)
        _exit(127);
    _exit(WIFEXITED(status) ? WEXITSTATUS(status) : 128 + (WIFSIGNALED(status) ? WTERMSIG(status) : 0));
}

int rd_fix_spawn_within(char *const *argv, int64_t timeout_s, char **ret_output)
{
    pid_t parent = getpid();
    int pipefd[2];
    if (pipe2(pipefd, O_CLOEXEC) < 0)
        return -errno;
    pid_t pid = fork();
    if (pid < 0) {
        int e = errno;
        close(pipefd[0]);
        close(pipefd[1]);
        return -e;
    }
    if (pid == 0) {
        /* its own process group: the deadline ends every process it starts */
        (void)setpgid(0, 0);
        int devnull = open("/dev/null", O_RDWR | O_CLOEXEC);
        if (devnull >= 0)
            dup2(devnull, STDIN_FILENO);
        dup2(pipefd[1], STDOUT_FILENO);
        dup2(pipefd[1], STDERR_FILENO);
        setenv("PATH", "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin", 1);
        setenv("LC_ALL", "C", 1);
        run_leader(argv, parent);
    }
    (void)setpgid(pid, pid);
    close(pipefd[1]);
    strbuf out = { 0 };
    strbuf_append(&out, "");
    int64_t deadline = now_ms() + (timeout_s > 0 ? timeout_s : deadlines.query_s) * 1000;
    bool late = collect(pipefd[0], deadline, &out);
    close(pipefd[0]);
    int status = 0;
    pid_t w = 0;
    /* output closed: the exit, still within the deadline */
    while (!late && (w = waitpid(pid, &status, WNOHANG)) == 0) {
        late = now_ms() >= deadline;
        if (!late)
            usleep(20 * 1000);
    }
    if (late)
        end_group(pid);
    else if (w < 0) {
        int e = errno;
        free(out.s);
        return -e;
    }
    char *o = strbuf_steal(&out);
    strstrip(o);
    if (ret_output)
        *ret_output = o;
    else
        free(o);
    if (late)
        return -ETIME;
    if (WIFEXITED(status))
        return WEXITSTATUS(status);
    return 128 + (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
}

int rd_fix_spawn(char *const *argv, char **ret_output)
{
    return rd_fix_spawn_within(argv, deadlines.query_s, ret_output);
}

const char *rd_fix_describe_error(int err)
{
    return rootfs_strerror(err);
}
