/* SPDX-License-Identifier: MIT */
#include "context.h"

#include <fcntl.h>
#include <limits.h>
#include <sys/stat.h>
#include "build-config.h"
#include "rootfs.h"
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

unsigned rd_root_how(const rd_ctx *ctx)
{
    return root_how(ctx);
}
