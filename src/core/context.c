/* SPDX-License-Identifier: MIT */
#include "context.h"

#include <fcntl.h>
#include <limits.h>
#include <linux/openat2.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include "build-config.h"
#include "util.h"

int rd_ctx_init(rd_ctx *ctx, const char *root, const char *user, char **ret_error)
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
    ctx->user = xstrdup_or_null(user);
    ctx->uid = getuid();
    ctx->sudo_user = xstrdup_or_null(secure_getenv("SUDO_USER"));

    const char *dir = rd_data_dir();
    int r = rd_knowledge_load(dir, &ctx->knowledge, ret_error);
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
    rd_knowledge_free(&ctx->knowledge);
    memset(ctx, 0, sizeof(*ctx));
    ctx->root_fd = -1;
}

const char *rd_data_dir(void)
{
    const char *env = secure_getenv("ROCM_DOCTOR_DATA_DIR");
    if (env && *env)
        return env;
    return RD_DATADIR;
}

int rd_root_open(const rd_ctx *ctx, const char *path, int flags)
{
    while (*path == '/')
        path++;
    if (!*path)
        path = ".";
    struct open_how how = {
        .flags = (uint64_t)(flags | O_CLOEXEC | O_NOCTTY),
        .resolve = RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS,
    };
    int fd = (int)syscall(SYS_openat2, ctx->root_fd, path, &how, sizeof how);
    if (fd >= 0)
        return fd;
    if (errno != ENOSYS && errno != EPERM)
        return -errno;
    /* Kernels before 5.6 (or seccomp filters that deny openat2): refuse any
     * symlink rather than risk leaving the root. */
    how.resolve = 0;
    fd = openat(ctx->root_fd, path, flags | O_CLOEXEC | O_NOCTTY | (rd_ctx_has_root(ctx) ? O_NOFOLLOW : 0));
    return fd >= 0 ? fd : -errno;
}

int rd_root_read_file(const rd_ctx *ctx, const char *path, size_t max, char **ret)
{
    _cleanup_close_ int fd = rd_root_open(ctx, path, O_RDONLY);
    if (fd < 0)
        return fd;
    return read_fd(fd, max, ret, NULL);
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

int rd_root_list_dir(const rd_ctx *ctx, const char *path, const char *suffix, char ***ret)
{
    int fd = rd_root_open(ctx, path, O_RDONLY | O_DIRECTORY);
    if (fd < 0)
        return fd;
    DIR *d = fdopendir(fd);
    if (!d) {
        int e = errno;
        close(fd);
        return -e;
    }
    char **v = NULL;
    struct dirent *de;
    while ((de = readdir(d))) {
        if (de->d_name[0] == '.')
            continue;
        if (suffix && !endswith(de->d_name, suffix))
            continue;
        v = strv_push(v, xstrdup(de->d_name));
    }
    closedir(d);
    size_t n = strv_length(v);
    if (n > 1)
        qsort(v, n, sizeof(char *), cmp_str);
    *ret = v;
    return 0;
}
