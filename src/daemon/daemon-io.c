/* SPDX-License-Identifier: MIT */
/* The daemon's outputs: files replaced atomically, sd_notify, the journal. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <fcntl.h>
#include <limits.h>
#include <stddef.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <sys/un.h>
#include "daemon.h"
#include "rootfs.h"
#include "util.h"

/* Both protocols are spoken directly (sd_notify(3) and the journal's native
 * protocol, systemd's documented interfaces), so the daemon does not link
 * libsystemd and its compression and crypto libraries: that keeps its idle
 * memory under 4 MiB. */
#define JOURNAL_SOCKET "/run/systemd/journal/socket"

char *rd_daemon_output_path(const char *root, const char *path)
{
    if (!root || streq(root, "/"))
        return xstrdup(path);
    while (*path == '/')
        path++;
    return xasprintf("%s/%s", root, path);
}

int rd_daemon_mkdir_parents(const char *path)
{
    _cleanup_free_ char *dir = xstrdup(path);
    char *slash = strrchr(dir, '/');
    if (!slash || slash == dir)
        return 0;
    *slash = 0;
    struct stat st;
    if (stat(dir, &st) == 0)
        return S_ISDIR(st.st_mode) ? 0 : -ENOTDIR;
    int r = rd_daemon_mkdir_parents(dir);
    if (r < 0)
        return r;
    if (mkdir(dir, 0755) < 0)
        return errno == EEXIST ? 0 : -errno;
    /* 0755 whatever the umask (the units run with UMask=0077): node-exporter
     * and nfd-worker must reach the files inside */
    if (chmod(dir, 0755) < 0)
        return -errno;
    return 0;
}

static int write_in_dir(int dfd, const char *name, const char *data, size_t size)
{
    /* readable by node-exporter and NFD, whatever the service's umask */
    return write_atomic_at(dfd, name, data, size, 0644, (uid_t)-1, (gid_t)-1);
}

int rd_daemon_write_atomic(const char *path, const char *data, size_t size)
{
    int r = rd_daemon_mkdir_parents(path);
    if (r < 0)
        return r;
    const char *slash = strrchr(path, '/');
    _cleanup_free_ char *dir = !slash          ? xstrdup(".")
                               : slash == path ? xstrdup("/")
                                               : xstrndup(path, (size_t)(slash - path));
    _cleanup_close_ int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dfd < 0)
        return -errno;
    return write_in_dir(dfd, slash ? slash + 1 : path, data, size);
}

/* The directory of an output path inside root, opened (and made) beneath
 * it: the path is resolved as the fix engine resolves its targets, so a
 * symlink in the tree that leads out of it is refused (-EXDEV), not
 * followed to write elsewhere on the host. */
static int root_output_dir(const char *root, const char *path)
{
    _cleanup_close_ int root_fd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (root_fd < 0)
        return -errno;
    const char *slash = strrchr(path, '/');
    _cleanup_free_ char *dir = slash ? xstrndup(path, (size_t)(slash - path)) : xstrdup(".");
    return rootfs_mkdir_open(root_fd, dir, 0755);
}

int rd_daemon_prepare_output(const char *root, const char *path)
{
    if (!root || streq(root, "/"))
        return rd_daemon_mkdir_parents(path);
    int dfd = root_output_dir(root, path);
    if (dfd < 0)
        return dfd;
    close(dfd);
    return 0;
}

int rd_daemon_write_output(const char *root, const char *path, const char *data, size_t size)
{
    if (!root || streq(root, "/"))
        return rd_daemon_write_atomic(path, data, size);
    _cleanup_close_ int dfd = root_output_dir(root, path);
    if (dfd < 0)
        return dfd;
    const char *slash = strrchr(path, '/');
    return write_in_dir(dfd, slash ? slash + 1 : path, data, size);
}

void rd_daemon_notify(const char *state)
{
    const char *path = getenv("NOTIFY_SOCKET");
    if (!path || !*path || (path[0] != '/' && path[0] != '@'))
        return;
    struct sockaddr_un sa = { .sun_family = AF_UNIX };
    size_t len = strlen(path);
    if (len >= sizeof(sa.sun_path))
        return;
    memcpy(sa.sun_path, path, len);
    if (sa.sun_path[0] == '@')
        sa.sun_path[0] = 0;
    _cleanup_close_ int fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return;
    (void)sendto(fd, state, strlen(state), MSG_NOSIGNAL, (struct sockaddr *)&sa,
                 (socklen_t)(offsetof(struct sockaddr_un, sun_path) + len));
}

static void journal_encode(char **fields, strbuf *out)
{
    for (size_t i = 0; fields && fields[i]; i++) {
        const char *eq = strchr(fields[i], '=');
        if (!eq || eq == fields[i])
            continue;
        const char *value = eq + 1;
        if (!strchr(value, '\n')) {
            strbuf_append(out, fields[i]);
            strbuf_append(out, "\n");
            continue;
        }
        /* A value with a newline: KEY, newline, 64-bit little-endian
         * length, the value, newline. */
        uint64_t n = strlen(value);
        char le[8];
        for (int b = 0; b < 8; b++)
            le[b] = (char)((n >> (8 * b)) & 0xff);
        strbuf_appendn(out, fields[i], (size_t)(eq - fields[i]));
        strbuf_append(out, "\n");
        strbuf_appendn(out, le, sizeof le);
        strbuf_appendn(out, value, (size_t)n);
        strbuf_append(out, "\n");
    }
}

int rd_daemon_journal_send(char **fields)
{
    /* tests of the real binary listen on a socket of their own */
    const char *test_socket = secure_getenv("ROCM_DOCTOR_JOURNAL_SOCKET");
    return rd_daemon_journal_sendto(test_socket && *test_socket ? test_socket : JOURNAL_SOCKET, fields);
}

int rd_daemon_journal_sendto(const char *socket_path, char **fields)
{
    struct sockaddr_un sa = { .sun_family = AF_UNIX };
    if (strlen(socket_path) >= sizeof(sa.sun_path))
        return -ENAMETOOLONG;
    strcpy(sa.sun_path, socket_path);
    strbuf b = { 0 };
    journal_encode(fields, &b);
    size_t len = b.len; /* not strlen: a binary length may hold NUL bytes */
    _cleanup_free_ char *msg = strbuf_steal(&b);
    _cleanup_close_ int fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return -errno;
    if (sendto(fd, msg, len, MSG_NOSIGNAL, (struct sockaddr *)&sa, sizeof sa) < 0)
        return -errno;
    return 0;
}
