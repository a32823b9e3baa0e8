/* SPDX-License-Identifier: MIT */
#include "rootfs.h"

#include <fcntl.h>
#include <limits.h>
#include <linux/openat2.h>
#include <sys/syscall.h>
#include "util.h"

static const char *rel_path(const char *path)
{
    while (*path == '/')
        path++;
    return *path ? path : ".";
}

/* Without openat2: one component at a time, no symlink followed. */
static int open_walk(int root_fd, const char *rel, int open_flags)
{
    _cleanup_free_ char *copy = xstrdup(rel);
    _cleanup_close_ int cur = fcntl(root_fd, F_DUPFD_CLOEXEC, 3);
    if (cur < 0)
        return -errno;
    char *save = NULL;
    for (char *comp = strtok_r(copy, "/", &save); comp;) {
        char *next = strtok_r(NULL, "/", &save);
        if (streq(comp, ".."))
            return -EXDEV; /* cannot tell where it leads without openat2 */
        int flags = next ? O_RDONLY | O_DIRECTORY : open_flags;
        int fd = openat(cur, comp, flags | O_NOFOLLOW | O_CLOEXEC);
        if (fd < 0)
            return -errno;
        close(cur);
        cur = fd;
        comp = next;
    }
    return TAKE_FD(cur);
}

int rootfs_open(int root_fd, const char *path, int open_flags, rootfs_flags how)
{
    const char *rel = rel_path(path);
    /* openat2 refuses O_PATH with any flag but O_CLOEXEC, O_DIRECTORY and
     * O_NOFOLLOW; O_NOCTTY matters only to an open that reads */
    if (!(open_flags & O_PATH))
        open_flags |= O_NOCTTY;
    struct open_how oh = {
        .flags = (uint64_t)(open_flags | O_CLOEXEC),
        .resolve = ((how & ROOTFS_BENEATH) ? RESOLVE_BENEATH : RESOLVE_IN_ROOT) | RESOLVE_NO_MAGICLINKS,
    };
    int fd = (int)syscall(SYS_openat2, root_fd, rel, &oh, sizeof oh);
    if (fd >= 0)
        return fd;
    if (errno != ENOSYS && errno != EPERM)
        return -errno;
    if (how & ROOTFS_HOST) {
        fd = openat(root_fd, rel, open_flags | O_CLOEXEC);
        return fd >= 0 ? fd : -errno;
    }
    return open_walk(root_fd, rel, open_flags);
}

int rootfs_mkdir_open(int root_fd, const char *path, mode_t mode)
{
    const char *rel = rel_path(path);
    int fd = rootfs_open(root_fd, rel, O_RDONLY | O_DIRECTORY, ROOTFS_BENEATH);
    if (fd != -ENOENT)
        return fd;
    _cleanup_free_ char *copy = xstrdup(rel);
    _cleanup_close_ int cur = rootfs_open(root_fd, ".", O_RDONLY | O_DIRECTORY, ROOTFS_BENEATH);
    if (cur < 0)
        return cur;
    strbuf prefix = { 0 };
    char *save = NULL;
    int r = 0;
    for (char *comp = strtok_r(copy, "/", &save); comp && r >= 0; comp = strtok_r(NULL, "/", &save)) {
        strbuf_printf(&prefix, "%s%s", prefix.len ? "/" : "", comp);
        bool created = mkdirat(cur, comp, mode) == 0;
        if (!created && errno != EEXIST)
            r = -errno;
        /* reopened from the root: the component may be a symlink, resolved
         * beneath the root like any other */
        int next = r < 0 ? r : rootfs_open(root_fd, prefix.s, O_RDONLY | O_DIRECTORY, ROOTFS_BENEATH);
        if (next < 0)
            r = next;
        else {
            if (created)
                (void)fchmod(next, mode); /* the umask's share */
            close(cur);
            cur = next;
        }
    }
    free(prefix.s);
    return r < 0 ? r : TAKE_FD(cur);
}

int rootfs_open_regular(int root_fd, const char *path, rootfs_flags how, struct stat *ret_st)
{
    int fd = rootfs_open(root_fd, path, O_RDONLY | O_NONBLOCK, how);
    if (fd == -ENXIO)
        return -EINVAL; /* a socket, or a device without a driver */
    return fd < 0 ? fd : check_regular(fd, ret_st);
}

int rootfs_read_file(int root_fd, const char *path, rootfs_flags how, size_t max, char **ret, size_t *ret_size)
{
    struct stat st;
    _cleanup_close_ int fd = rootfs_open_regular(root_fd, path, how, &st);
    if (fd < 0)
        return fd;
    return read_fd_sized(fd, &st, max, ret, ret_size);
}

int rootfs_read_lines(int root_fd, const char *path, rootfs_flags how, int (*fn)(char *line, void *userdata),
                      void *userdata)
{
    _cleanup_close_ int fd = rootfs_open_regular(root_fd, path, how, NULL);
    if (fd < 0)
        return fd;
    return read_lines_fd(fd, fn, userdata);
}

int rootfs_list_dir(int root_fd, const char *path, rootfs_flags how, const char *suffix, char ***ret, size_t *ret_n)
{
    _cleanup_close_ int fd = rootfs_open(root_fd, path, O_RDONLY | O_DIRECTORY, how);
    if (fd < 0)
        return fd;
    int r;
    char **v = dir_names(fd, dir_name_visible, suffix, &r);
    if (r < 0)
        return r;
    *ret = v;
    if (ret_n)
        *ret_n = strv_length(v);
    return 0;
}

/* "/a/b" of the components done[0..n). */
static char *join_components(char **done, size_t n, const char *last)
{
    strbuf b = { 0 };
    strbuf_append(&b, "");
    for (size_t i = 0; i < n; i++)
        strbuf_printf(&b, "/%s", done[i]);
    if (last)
        strbuf_printf(&b, "/%s", last);
    if (!b.len)
        strbuf_append(&b, "/");
    return strbuf_steal(&b);
}

/* Looks comp up in the directory done[0..n) (which holds no link): its
 * stat, and its target when it is a link. */
static int lookup_component(int root_fd, char **done, size_t n, const char *comp, struct stat *st, char **ret_target)
{
    _cleanup_free_ char *dir = join_components(done, n, NULL);
    _cleanup_close_ int dfd = rootfs_open(root_fd, dir, O_PATH | O_DIRECTORY, ROOTFS_BENEATH);
    if (dfd < 0)
        return dfd;
    if (fstatat(dfd, comp, st, AT_SYMLINK_NOFOLLOW) < 0)
        return -errno;
    *ret_target = NULL;
    if (!S_ISLNK(st->st_mode))
        return 0;
    char buf[PATH_MAX];
    ssize_t len = readlinkat(dfd, comp, buf, sizeof buf - 1);
    if (len < 0)
        return -errno;
    if (len == 0)
        return -ENOENT;
    buf[len] = 0;
    *ret_target = xstrdup(buf);
    return 0;
}

/* Takes the first component off *todo. NULL when none is left. */
static char *next_component(char **todo)
{
    const char *p = *todo;
    while (*p == '/')
        p++;
    if (!*p)
        return NULL;
    size_t len = strcspn(p, "/");
    char *comp = xstrndup(p, len);
    char *rest = xstrdup(p + len);
    free(*todo);
    *todo = rest;
    return comp;
}

/* One link met: its target goes in front of what is left to resolve. */
static int follow_link(rootfs_resolved *ret, char **done, size_t *n, const char *comp, const char *target, char **todo)
{
    free(ret->link);
    free(ret->target);
    ret->link = join_components(done, *n, comp);
    ret->target = xstrdup(target);
    if (++ret->n_links > ROOTFS_MAX_LINKS)
        return -ELOOP;
    if (target[0] == '/')
        while (*n > 0)
            free(done[--(*n)]);
    char *t = xasprintf("%s/%s", target, *todo);
    free(*todo);
    *todo = t;
    return 0;
}

int rootfs_resolve(int root_fd, const char *path, rootfs_resolved *ret)
{
    *ret = (rootfs_resolved){ 0 };
    char **done = NULL;
    size_t n = 0;
    _cleanup_free_ char *todo = xstrdup(path);
    int r = 0;
    for (char *comp; r == 0 && (comp = next_component(&todo)); free(comp)) {
        if (streq(comp, "."))
            continue;
        if (streq(comp, "..")) {
            if (n == 0)
                r = -EXDEV;
            else
                free(done[--n]);
            continue;
        }
        struct stat st;
        _cleanup_free_ char *target = NULL;
        r = lookup_component(root_fd, done, n, comp, &st, &target);
        if (r < 0)
            ret->at = join_components(done, n, comp);
        else if (target)
            r = follow_link(ret, done, &n, comp, target, &todo);
        else
            *ARRAY_APPEND(done, n) = xstrdup(comp);
    }
    if ((r == -EXDEV || r == -ELOOP) && !ret->at)
        ret->at = xstrdup(ret->link ? ret->link : path);
    if (r == 0)
        ret->path = join_components(done, n, NULL);
    while (n > 0)
        free(done[--n]);
    free(done);
    return r;
}

void rootfs_resolved_done(rootfs_resolved *r)
{
    free(r->path);
    free(r->at);
    free(r->link);
    free(r->target);
    *r = (rootfs_resolved){ 0 };
}

const char *rootfs_strerror(int err)
{
    switch (err < 0 ? -err : err) {
    case EXDEV: return "a symlink on the way is absolute or leads out of the root; refusing to follow it";
    case ELOOP: return "is a symlink; refusing to replace or follow it";
    case EISDIR: return "is a directory";
    case EINVAL: return "is not a regular file (a FIFO, socket or device is never read)";
    default: return strerror(err < 0 ? -err : err);
    }
}

char *rootfs_temp_name(const char *name, int attempt)
{
    return xasprintf(".#%s.%d.%d", name, (int)getpid(), attempt);
}

void atomic_file_abort(atomic_file *f)
{
    if (f->fd >= 0)
        close(f->fd);
    if (f->tmp && f->dir_fd >= 0)
        (void)unlinkat(f->dir_fd, f->tmp, 0);
    if (f->dir_fd >= 0)
        close(f->dir_fd);
    free(f->name);
    free(f->tmp);
    *f = (atomic_file){ .dir_fd = -1, .fd = -1 };
}

static int take_dir(atomic_file *f, int dir_fd, const char *name)
{
    *f = (atomic_file){ .dir_fd = dir_fd, .fd = -1 };
    if (!*name || strchr(name, '/')) {
        atomic_file_abort(f);
        return -EINVAL;
    }
    struct stat st;
    if (fstatat(dir_fd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 && !S_ISREG(st.st_mode)) {
        atomic_file_abort(f);
        return S_ISLNK(st.st_mode) ? -ELOOP : S_ISDIR(st.st_mode) ? -EISDIR : -EINVAL;
    }
    f->name = xstrdup(name);
    for (int attempt = 0; attempt < 100; attempt++) {
        free(f->tmp);
        f->tmp = rootfs_temp_name(name, attempt);
        f->fd = openat(dir_fd, f->tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
        if (f->fd >= 0)
            return 0;
        if (errno != EEXIST)
            break;
    }
    int r = errno == EEXIST ? -EEXIST : -errno;
    free(f->tmp);
    f->tmp = NULL; /* not ours: never unlink it */
    atomic_file_abort(f);
    return r;
}

int atomic_file_open(atomic_file *f, int dir_fd, const char *name)
{
    int d = fcntl(dir_fd, F_DUPFD_CLOEXEC, 3);
    if (d < 0)
        return -errno;
    return take_dir(f, d, name);
}

int atomic_file_open_path(atomic_file *f, const char *path)
{
    const char *slash = strrchr(path, '/');
    _cleanup_free_ char *dir = !slash          ? xstrdup(".")
                               : slash == path ? xstrdup("/")
                                               : xstrndup(path, (size_t)(slash - path));
    int d = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (d < 0)
        return -errno;
    return take_dir(f, d, slash ? slash + 1 : path);
}

int atomic_file_commit(atomic_file *f, mode_t mode, uid_t uid, gid_t gid)
{
    int r = 0;
    if ((uid != (uid_t)-1 || gid != (gid_t)-1) && fchown(f->fd, uid, gid) < 0)
        r = -errno;
    if (r == 0 && fchmod(f->fd, mode & 07777) < 0)
        r = -errno;
    if (r == 0 && fsync(f->fd) < 0)
        r = -errno;
    int fd = TAKE_FD(f->fd);
    if (close(fd) < 0 && r == 0)
        r = -errno;
    if (r == 0 && renameat(f->dir_fd, f->tmp, f->dir_fd, f->name) < 0)
        r = -errno;
    if (r < 0) {
        atomic_file_abort(f);
        return r;
    }
    free(f->tmp);
    f->tmp = NULL; /* renamed: nothing left to remove */
    r = fsync(f->dir_fd) < 0 ? -errno : 0;
    atomic_file_abort(f);
    return r;
}

int write_atomic_at(int dir_fd, const char *name, const void *data, size_t size, mode_t mode, uid_t uid, gid_t gid)
{
    atomic_file f;
    int r = atomic_file_open(&f, dir_fd, name);
    if (r < 0)
        return r;
    const char *p = data;
    for (size_t off = 0; off < size;) {
        ssize_t n = write(f.fd, p + off, size - off);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            r = -errno;
            atomic_file_abort(&f);
            return r;
        }
        off += (size_t)n;
    }
    return atomic_file_commit(&f, mode, uid, gid);
}
