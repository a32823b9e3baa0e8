/* SPDX-License-Identifier: MIT */
/* The package manager's configuration as the root will have it once the
 * plan's file steps are done, in a private directory: the dry run of a
 * package step resolves against the repository the plan is about to add,
 * without writing anything to the root. apt's Signed-By paths are pointed
 * at the copies; the root's index files are linked in (apt replaces them by
 * rename, so the links never change the root's). */
#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>
#include "fix.h"
#include "rootfs.h"
#include "util.h"

/* the overlay is a 0700 directory: the mirror's login may be copied in */
static const char *const apt_dirs[] = {
    "/etc/apt/sources.list.d", "/etc/apt/preferences.d", "/etc/apt/trusted.gpg.d", "/etc/apt/keyrings",
    "/usr/share/keyrings",     "/etc/apt/apt.conf.d",    "/etc/apt/auth.conf.d",
};
static const char *const apt_files[] = { "/etc/apt/sources.list", "/etc/apt/trusted.gpg", "/etc/apt/apt.conf",
                                         "/etc/apt/auth.conf" };

static const char *const dnf_dirs[] = { "/etc/yum.repos.d" };
static const char *const zypper_dirs[] = { "/etc/zypp/repos.d" };

static int mkdir_p(const char *path)
{
    _cleanup_free_ char *copy = xstrdup(path);
    for (char *p = strchr(copy + 1, '/');; p = strchr(p + 1, '/')) {
        if (p)
            *p = 0;
        if (mkdir(copy, 0755) < 0 && errno != EEXIST)
            return -errno;
        if (!p)
            return 0;
        *p = '/';
    }
}

static int write_plain(const char *path, const char *content, size_t size)
{
    _cleanup_close_ int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0644);
    if (fd < 0)
        return -errno;
    for (size_t done = 0; done < size;) {
        ssize_t n = write(fd, content + done, size - done);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return n < 0 ? -errno : -EIO;
        done += (size_t)n;
    }
    return 0;
}

/* path's content as the plan leaves it: 1 and content, 0 when the plan
 * removes it, -ENOENT when the plan does not touch it. */
static int planned(const rd_plan *p, const char *path, const char **ret, size_t *ret_size)
{
    int r = -ENOENT;
    for (size_t i = 0; i < p->n_steps; i++)
        for (size_t k = 0; k < p->steps[i].n_actions; k++) {
            const rd_action *a = &p->steps[i].actions[k];
            if (!a->path || !streq(a->path, path))
                continue;
            if (a->kind == RD_ACT_WRITE) {
                *ret = a->content;
                *ret_size = a->size;
                r = 1;
            } else if (a->kind == RD_ACT_REMOVE)
                r = 0;
        }
    return r;
}

/* Copies one file of the root (or its planned content) into the overlay,
 * under its own name. A symbolic link is followed inside the root, as the
 * root's apt follows it (Debian 13's debian-archive-keyring.gpg is a link to
 * the .pgp beside it); one that leads above the root is refused. */
static int copy_in(const rd_plan *p, const rd_fix_input *in, const char *ov, const char *path, char **ret_reason)
{
    const char *content = NULL;
    size_t size = 0;
    _cleanup_free_ char *own = NULL;
    int r = planned(p, path, &content, &size);
    if (r == 0)
        return 0;
    if (r < 0) {
        rootfs_resolved res;
        r = rootfs_resolve(in->ctx->root_fd, path, &res);
        if (r == -EXDEV) {
            *ret_reason = xasprintf("%s is a link that leads outside the root (%s -> %s); the package manager's dry "
                                    "run reads only the root's files",
                                    path, strempty(res.link), strempty(res.target));
            rootfs_resolved_done(&res);
            return r;
        }
        if (r == 0)
            r = rd_fix_read(in->ctx->root_fd, res.path, &own, &size, NULL);
        rootfs_resolved_done(&res);
        if (r < 0)
            return r == -ENOENT || r == -ELOOP || r == -EISDIR || r == -EINVAL ? 0 : r;
        content = own;
    }
    _cleanup_free_ char *dst = xasprintf("%s%s", ov, path);
    return write_plain(dst, content, size);
}

static bool visible(const char *name, const void *userdata)
{
    return name[0] != '.';
}

/* Every file of dir (root's, and the plan's new ones) into the overlay. */
static int copy_dir(const rd_plan *p, const rd_fix_input *in, const char *ov, const char *dir, char **ret_reason)
{
    _cleanup_free_ char *dst = xasprintf("%s%s", ov, dir);
    int r = mkdir_p(dst);
    if (r < 0)
        return r;
    _cleanup_close_ int dfd = rd_fix_open_dir(in->ctx->root_fd, dir, NULL);
    _cleanup_strv_free_ char **names = dfd >= 0 ? dir_names(dfd, visible, NULL, NULL) : NULL;
    for (size_t i = 0; names && names[i]; i++) {
        _cleanup_free_ char *path = xasprintf("%s/%s", dir, names[i]);
        if ((r = copy_in(p, in, ov, path, ret_reason)) < 0)
            return r;
    }
    /* files the plan creates there */
    size_t dl = strlen(dir);
    for (size_t i = 0; i < p->n_steps; i++)
        for (size_t k = 0; k < p->steps[i].n_actions; k++) {
            const rd_action *a = &p->steps[i].actions[k];
            if (a->kind == RD_ACT_WRITE && strncmp(a->path, dir, dl) == 0 && a->path[dl] == '/' &&
                !strchr(a->path + dl + 1, '/') && (r = copy_in(p, in, ov, a->path, ret_reason)) < 0)
                return r;
        }
    return 0;
}

/* In apt's source files, keyring paths (after whitespace, '=', ':' or ',')
 * point into the overlay. */
static char *retarget_keyrings(const char *text, const char *ov)
{
    static const char *const prefixes[] = { "/etc/apt/keyrings/", "/usr/share/keyrings/", "/etc/apt/trusted.gpg.d/" };
    strbuf b = { 0 };
    for (const char *s = text; *s; s++) {
        char prev = s == text ? ' ' : s[-1];
        if (*s == '/' && strchr(" \t=:,", prev))
            for (size_t i = 0; i < ELEMENTSOF(prefixes); i++)
                if (startswith(s, prefixes[i])) {
                    strbuf_append(&b, ov);
                    break;
                }
        strbuf_appendn(&b, s, 1);
    }
    return b.s ? strbuf_steal(&b) : xstrdup("");
}

static int retarget_dir(const char *ov, const char *dir)
{
    _cleanup_free_ char *d = xasprintf("%s%s", ov, dir);
    _cleanup_close_ int dfd = open(d, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    _cleanup_strv_free_ char **names = dfd >= 0 ? dir_names(dfd, visible, NULL, NULL) : NULL;
    for (size_t i = 0; names && names[i]; i++) {
        _cleanup_free_ char *path = xasprintf("%s/%s", d, names[i]), *text = NULL;
        size_t size = 0;
        if (read_file_at(AT_FDCWD, path, 16u << 20, &text, &size) < 0)
            continue;
        _cleanup_free_ char *new = retarget_keyrings(text, ov);
        int r = write_plain(path, new, strlen(new));
        if (r < 0)
            return r;
    }
    return 0;
}

/* The root's downloaded indexes: linked (or copied) so that refreshing
 * them fetches only what changed. */
static int seed_lists(const rd_fix_input *in, const char *ov)
{
    _cleanup_free_ char *dst = xasprintf("%s/lists/partial", ov);
    int r = mkdir_p(dst);
    if (r < 0)
        return r;
    _cleanup_close_ int dfd = rd_fix_open_dir(in->ctx->root_fd, "/var/lib/apt/lists", NULL);
    _cleanup_strv_free_ char **names = dfd >= 0 ? dir_names(dfd, visible, NULL, NULL) : NULL;
    for (size_t i = 0; names && names[i]; i++) {
        if (streq(names[i], "lock") || streq(names[i], "partial") || streq(names[i], "auxfiles"))
            continue;
        _cleanup_free_ char *to = xasprintf("%s/lists/%s", ov, names[i]);
        if (linkat(dfd, names[i], AT_FDCWD, to, 0) == 0)
            continue;
        _cleanup_free_ char *text = NULL;
        size_t size = 0;
        if (read_file_at(dfd, names[i], 0, &text, &size) == 0)
            (void)write_plain(to, text, size);
    }
    return 0;
}

/* apt's configuration for the dry run (APT_CONFIG, read before anything
 * else): the overlay is its /etc/apt, so the root's apt.conf.d counts
 * (proxies, retries) and the host's does not; the overlay's last part
 * clears the hooks an index update or dpkg would run (AppStream, command-
 * not-found, PackageKit): the dry run changes nothing outside the overlay. */
static int write_apt_conf(const char *ov)
{
    _cleanup_free_ char *conf = xasprintf("%s/apt.conf", ov), *text = xasprintf("Dir::Etc \"%s/etc/apt/\";\n", ov);
    int r = write_plain(conf, text, strlen(text));
    if (r < 0)
        return r;
    static const char hooks[] = "#clear APT::Update::Pre-Invoke;\n#clear APT::Update::Post-Invoke;\n"
                                "#clear APT::Update::Post-Invoke-Success;\n#clear DPkg::Pre-Invoke;\n"
                                "#clear DPkg::Post-Invoke;\n#clear DPkg::Pre-Install-Pkgs;\n"
                                "#clear APT::Install::Pre-Invoke;\n#clear APT::Install::Post-Invoke;\n"
                                "#clear APT::Install::Post-Invoke-Success;\n";
    _cleanup_free_ char *last = xasprintf("%s/etc/apt/apt.conf.d/zzzz-rocm-doctor-dry-run", ov);
    return write_plain(last, hooks, sizeof hooks - 1);
}

int rd_plan_overlay(const rd_plan *p, const rd_fix_input *in, rd_pm pm, char **ret_dir, char **ret_reason)
{
    const char *tmp = secure_getenv("TMPDIR");
    _cleanup_free_ char *dir = xasprintf("%s/rocm-doctor-plan.XXXXXX", tmp && *tmp == '/' ? tmp : "/tmp");
    if (!mkdtemp(dir)) {
        *ret_reason = xasprintf("cannot create a directory for the package manager's dry run: %s", strerror(errno));
        return -errno;
    }
    int r = 0;
    _cleanup_free_ char *why = NULL;
    if (pm == RD_PM_APT) {
        for (size_t i = 0; i < ELEMENTSOF(apt_dirs) && r >= 0; i++)
            r = copy_dir(p, in, dir, apt_dirs[i], &why);
        for (size_t i = 0; i < ELEMENTSOF(apt_files) && r >= 0; i++)
            r = copy_in(p, in, dir, apt_files[i], &why);
        if (r >= 0)
            r = retarget_dir(dir, "/etc/apt/sources.list.d");
        if (r >= 0) {
            _cleanup_free_ char *sl = xasprintf("%s/etc/apt/sources.list", dir), *text = NULL;
            if (read_file_at(AT_FDCWD, sl, 16u << 20, &text, NULL) == 0) {
                _cleanup_free_ char *new = retarget_keyrings(text, dir);
                r = write_plain(sl, new, strlen(new));
            }
        }
        static const char *const made[] = { "/state", "/cache/archives/partial", "/etc/apt/apt.conf.d" };
        for (size_t i = 0; i < ELEMENTSOF(made) && r >= 0; i++) {
            _cleanup_free_ char *d = xasprintf("%s%s", dir, made[i]);
            r = mkdir_p(d);
        }
        if (r >= 0)
            r = write_apt_conf(dir);
        if (r >= 0)
            r = seed_lists(in, dir);
    } else {
        const char *const *dirs = pm == RD_PM_DNF ? dnf_dirs : zypper_dirs;
        r = copy_dir(p, in, dir, dirs[0], &why);
        _cleanup_free_ char *cache = xasprintf("%s/cache", dir);
        if (r >= 0)
            r = mkdir_p(cache);
    }
    if (r < 0) {
        *ret_reason = why ? TAKE_PTR(why)
                          : xasprintf("cannot prepare the package manager's dry run in %s: %s", dir, strerror(-r));
        rd_overlay_remove(dir);
        return r;
    }
    *ret_dir = TAKE_PTR(dir);
    return 0;
}

/* Removes the overlay directory tree (it holds only what this file made
 * and what the package manager wrote there). */
static void remove_tree(int dfd, const char *name)
{
    _cleanup_close_ int fd = openat(dfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0) {
        (void)unlinkat(dfd, name, 0);
        return;
    }
    _cleanup_strv_free_ char **names = dir_names(fd, NULL, NULL, NULL);
    for (size_t i = 0; names && names[i]; i++)
        remove_tree(fd, names[i]);
    (void)unlinkat(dfd, name, AT_REMOVEDIR);
}

void rd_overlay_remove(const char *dir)
{
    if (dir && startswith(dir, "/"))
        remove_tree(AT_FDCWD, dir);
}
