/* SPDX-License-Identifier: MIT */
#include "context.h"

#include <fcntl.h>
#include <limits.h>
#include <sys/stat.h>
#include "build-config.h"
#include "rootfs.h"
#include "util.h"

int rd_ctx_open_root(rd_ctx *ctx, const char *root, char **ret_error)
{
    memset(ctx, 0, sizeof(*ctx));
    ctx->root_fd = -1;
    char resolved[PATH_MAX];
    if (!root)
        root = "/";
    if (!realpath(root, resolved)) {
        *ret_error = xasprintf("--root %s: %s", root, strerror(errno));
        return -errno;
    }
    ctx->root_fd = open(resolved, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (ctx->root_fd < 0) {
        *ret_error = xasprintf("--root %s: %s", root, strerror(errno));
        return -errno;
    }
    ctx->root = xstrdup(resolved);
    return 0;
}

int rd_ctx_init(rd_ctx *ctx, const char *root, const char *user, char **ret_error)
{
    int r = rd_ctx_open_root(ctx, root, ret_error);
    if (r < 0)
        return r;
    ctx->user = xstrdup_or_null(user);
    ctx->uid = getuid();
    ctx->sudo_user = xstrdup_or_null(secure_getenv("SUDO_USER"));
    ctx->cache = xcalloc(1, sizeof(*ctx->cache));

    const char *dir = rd_data_dir();
    r = rd_knowledge_open(dir, RD_KT_CHECK, &ctx->knowledge, ret_error);
    if (r < 0)
        return r;
    return 0;
}

void rd_ctx_free(rd_ctx *ctx)
{
    if (ctx->root_fd >= 0)
        close(ctx->root_fd);
    free(ctx->root);
    free(ctx->user);
    free(ctx->sudo_user);
    if (ctx->cache)
        rd_gather_cache_clear(ctx->cache);
    free(ctx->cache);
    rd_knowledge_free(&ctx->knowledge);
    memset(ctx, 0, sizeof(*ctx));
    ctx->root_fd = -1;
}

void rd_gather_cache_clear(rd_gather_cache *c)
{
    for (size_t i = 0; i < c->n_kmsg; i++)
        free(c->kmsg[i].text);
    free(c->kmsg);
    *c = (rd_gather_cache){ .active = c->active };
}

const char *rd_data_dir(void)
{
    const char *env = secure_getenv("ROCM_DOCTOR_DATA_DIR");
    if (env && *env)
        return env;
    return RD_DATADIR;
}

static rootfs_flags root_how(const rd_ctx *ctx)
{
    return rd_ctx_has_root(ctx) ? ROOTFS_IN_ROOT : ROOTFS_IN_ROOT | ROOTFS_HOST;
}

int rd_root_open(const rd_ctx *ctx, const char *path, int flags)
{
    return rootfs_open(ctx->root_fd, path, flags, root_how(ctx));
}

int rd_root_read_file(const rd_ctx *ctx, const char *path, size_t max, char **ret)
{
    return rootfs_read_file(ctx->root_fd, path, root_how(ctx), max, ret, NULL);
}

int rd_root_read_lines(const rd_ctx *ctx, const char *path, int (*fn)(char *line, void *userdata), void *userdata)
{
    return rootfs_read_lines(ctx->root_fd, path, root_how(ctx), fn, userdata);
}

int rd_root_list_dir(const rd_ctx *ctx, const char *path, const char *suffix, char ***ret)
{
    return rootfs_list_dir(ctx->root_fd, path, root_how(ctx), suffix, ret, NULL);
}

int rd_root_resolve(const rd_ctx *ctx, const char *path, char **ret)
{
    rootfs_resolved res;
    int r = rootfs_resolve(ctx->root_fd, path, &res);
    if (r >= 0)
        *ret = TAKE_PTR(res.path);
    rootfs_resolved_done(&res);
    return r;
}

unsigned rd_root_how(const rd_ctx *ctx)
{
    return root_how(ctx);
}

const char *rd_rpm_dbpath_at(int root_fd, unsigned how)
{
    static const char *const dbpaths[] = { "/usr/lib/sysimage/rpm", "/var/lib/rpm" };
    for (size_t i = 0; i < ELEMENTSOF(dbpaths); i++) {
        _cleanup_strv_free_ char **names = NULL;
        if (rootfs_list_dir(root_fd, dbpaths[i], (rootfs_flags)how, NULL, &names, NULL) >= 0 && names && names[0])
            return dbpaths[i];
    }
    return NULL;
}

const char *rd_rpm_dbpath(const rd_ctx *ctx)
{
    return rd_rpm_dbpath_at(ctx->root_fd, root_how(ctx));
}

/* An absolute path with "." and ".." taken out by its text alone (no link
 * read): how the user's shell names a file, for the prefix test. */
static char *lexical_path(const char *cwd, const char *path)
{
    _cleanup_free_ char *abs = path[0] == '/' ? xstrdup(path) : xasprintf("%s/%s", cwd, path);
    char **parts = NULL;
    size_t n = 0;
    char *save = NULL;
    for (char *c = strtok_r(abs, "/", &save); c; c = strtok_r(NULL, "/", &save))
        if (streq(c, "..")) {
            if (n > 0)
                n--;
        } else if (!streq(c, "."))
            *ARRAY_APPEND(parts, n) = c;
    strbuf b = { 0 };
    strbuf_append(&b, "");
    for (size_t i = 0; i < n; i++)
        strbuf_printf(&b, "/%s", parts[i]);
    free(parts);
    if (!b.len)
        strbuf_append(&b, "/");
    return strbuf_steal(&b);
}

/* path with root's prefix taken off ("/home/..."), or NULL without it. */
static const char *strip_root(const char *path, const char *root)
{
    size_t n = strlen(root);
    while (n > 1 && root[n - 1] == '/')
        n--;
    if (n > 1 && strncmp(path, root, n) == 0 && path[n] == '/')
        return path + n;
    return NULL;
}

static char *python_path_error(const char *python, const char *root, int r, const rootfs_resolved *res)
{
    _cleanup_free_ char *via = res->link ? xasprintf(" (%s links to %s)", res->link, res->target) : xstrdup("");
    switch (-r) {
    case ELOOP:
        return xasprintf("--python %s: more than %d symbolic links inside %s: a loop%s", python, ROOTFS_MAX_LINKS, root,
                         via);
    case EXDEV:
        return xasprintf("--python %s: %s leads above %s with \"..\"%s; a link of the image must resolve inside it",
                         python, res->at, root, via);
    case ENOENT:
        return xasprintf("--python %s: %s does not exist inside %s%s%s", python, res->at, root, via,
                         res->link ? "; name the environment's directory to read its site-packages anyway" : "");
    default: return xasprintf("--python %s: %s inside %s: %s", python, res->at ? res->at : python, root, strerror(-r));
    }
}

int rd_root_python_path(const char *root, const char *python, char **ret, char **ret_error)
{
    char real_root[PATH_MAX], cwd[PATH_MAX];
    if (!realpath(root, real_root) || !getcwd(cwd, sizeof cwd)) {
        *ret_error = xasprintf("--root %s: %s", root, strerror(errno));
        return -errno;
    }
    _cleanup_close_ int fd = open(real_root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) {
        *ret_error = xasprintf("--root %s: %s", root, strerror(errno));
        return -errno;
    }
    _cleanup_free_ char *abs_root = lexical_path(cwd, root), *abs = lexical_path(cwd, python);
    const char *inside = strip_root(abs, real_root);
    if (!inside)
        inside = strip_root(abs, abs_root);
    if (python[0] != '/' && !inside) {
        *ret_error = xasprintf("--python %s: with --root, write the path as inside the image "
                               "(/home/u/venv/bin/python3) or with the root in front (%s/home/u/venv/bin/python3)",
                               python, root);
        return -EINVAL;
    }
    rootfs_resolved res = { 0 };
    const char *use = python;
    int r = python[0] == '/' ? rootfs_resolve(fd, python, &res) : -ENOENT;
    if (r == -ENOENT && inside) {
        rootfs_resolved_done(&res);
        use = inside;
        r = rootfs_resolve(fd, inside, &res);
    }
    if (r < 0)
        *ret_error = python_path_error(python, real_root, r, &res);
    else
        *ret = xstrdup(use);
    rootfs_resolved_done(&res);
    return r;
}
