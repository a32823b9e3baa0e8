/* SPDX-License-Identifier: MIT */
#include "runtime-dl.h"

#include <dlfcn.h>
#include <fcntl.h>
#include <sys/stat.h>
#include "util.h"

/* Orders "rocm-6.2.4" after "rocm-6.10.0": numeric fields compare as numbers. */
static int version_cmp(const char *a, const char *b)
{
    while (*a && *b) {
        if ((*a >= '0' && *a <= '9') && (*b >= '0' && *b <= '9')) {
            unsigned long x = strtoul(a, (char **)&a, 10), y = strtoul(b, (char **)&b, 10);
            if (x != y)
                return x < y ? -1 : 1;
            continue;
        }
        if (*a != *b)
            return (unsigned char)*a < (unsigned char)*b ? -1 : 1;
        a++, b++;
    }
    return *a ? 1 : *b ? -1 : 0;
}

static bool is_dir(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

static bool is_rocm_dir(const char *name, const void *userdata)
{
    return startswith(name, "rocm-");
}

static char **push_dir(char **v, char *dir)
{
    if (!is_dir(dir) || strv_contains(v, dir)) {
        free(dir);
        return v;
    }
    return strv_push(v, dir);
}

char **rd_runtime_lib_dirs(const char *only_dir)
{
    char **v = NULL;
    if (only_dir) {
        v = strv_push(v, xstrdup(only_dir));
        return strv_push(v, xstrdup(RD_DL_NO_SYSTEM));
    }
    const char *rocm_path = secure_getenv("ROCM_PATH");
    if (rocm_path && *rocm_path)
        v = push_dir(v, xasprintf("%s/lib", rocm_path));
    v = push_dir(v, xstrdup("/opt/rocm/lib"));

    _cleanup_close_ int opt = open("/opt", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    char **versions = opt >= 0 ? dir_names(opt, is_rocm_dir, NULL, NULL) : NULL;
    size_t n = strv_length(versions);
    /* newest first; n is small, an insertion sort does */
    for (size_t i = 1; i < n; i++)
        for (size_t j = i; j > 0 && version_cmp(versions[j - 1], versions[j]) < 0; j--) {
            char *t = versions[j];
            versions[j] = versions[j - 1];
            versions[j - 1] = t;
        }
    for (size_t i = 0; i < n; i++)
        v = push_dir(v, xasprintf("/opt/%s/lib", versions[i]));
    strv_free(versions);
    if (!v)
        v = xcalloc(1, sizeof *v);
    return v;
}

int rd_dl_open(char *const *dirs, const char *const *names, void **ret_handle, char **ret_path, char **ret_error)
{
    _cleanup_free_ char *first_error = NULL;
    strbuf tried = { 0 };
    const char *override = secure_getenv(RD_RUNTIME_LIB_ENV);

    if (override && *override) {
        void *h = dlopen(override, RTLD_NOW | RTLD_LOCAL);
        if (!h) {
            const char *e = dlerror();
            *ret_error = xasprintf("%s (from %s)", e ? e : override, RD_RUNTIME_LIB_ENV);
            return -ENOENT;
        }
        *ret_handle = h;
        *ret_path = xstrdup(override);
        return 0;
    }

    bool system = true;
    for (size_t i = 0; dirs && dirs[i] && (system = *dirs[i]); i++)
        for (size_t k = 0; names[k]; k++) {
            _cleanup_free_ char *path = xasprintf("%s/%s", dirs[i], names[k]);
            struct stat st;
            if (stat(path, &st) < 0)
                continue;
            void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
            if (h) {
                *ret_handle = h;
                *ret_path = TAKE_PTR(path);
                free(tried.s);
                return 0;
            }
            const char *e = dlerror();
            if (!first_error)
                first_error = xstrdup(e ? e : path);
        }
    for (size_t k = 0; system && names[k]; k++) {
        void *h = dlopen(names[k], RTLD_NOW | RTLD_LOCAL);
        if (h) {
            /* the file the dynamic linker chose */
            char origin[4096] = "";
            if (dlinfo(h, RTLD_DI_ORIGIN, origin) == 0 && origin[0])
                *ret_path = xasprintf("%s/%s", origin, names[k]);
            else
                *ret_path = xstrdup(names[k]);
            *ret_handle = h;
            free(tried.s);
            return 0;
        }
        const char *e = dlerror();
        if (!first_error)
            first_error = xstrdup(e ? e : names[k]);
    }

    strbuf_append(&tried, "tried ");
    for (size_t k = 0; names[k]; k++)
        strbuf_printf(&tried, "%s%s", k ? ", " : "", names[k]);
    strbuf_append(&tried, " in ");
    for (size_t i = 0; dirs && dirs[i] && *dirs[i]; i++)
        strbuf_printf(&tried, "%s%s", i ? ", " : "", dirs[i]);
    strbuf_append(&tried,
                  system ? (dirs && dirs[0] ? ", the system library path" : "the system library path") : " only");
    *ret_error = xasprintf("%s (%s)", first_error ? first_error : "not found", tried.s);
    free(tried.s);
    return -ENOENT;
}

int rd_dl_resolve(void *handle, const char *path, const rd_dl_symbol *syms, size_t n, void *base, char **ret_error)
{
    for (size_t i = 0; i < n; i++) {
        dlerror();
        void *p = dlsym(handle, syms[i].name);
        if (!p && !syms[i].optional) {
            *ret_error = xasprintf("%s lacks %s", path, syms[i].name);
            return -ENOENT;
        }
        memcpy((char *)base + syms[i].offset, &p, sizeof p);
    }
    return 0;
}

int rd_dl_load(char *const *dirs, const char *const *names, const rd_dl_symbol *syms, size_t n, void *ret, size_t size,
               char **ret_error)
{
    _cleanup_free_ void *lib = xcalloc(1, size);
    rd_dl_head *head = lib;
    int r = rd_dl_open(dirs, names, &head->handle, &head->path, ret_error);
    if (r < 0)
        return r;
    r = rd_dl_resolve(head->handle, head->path, syms, n, lib, ret_error);
    if (r < 0) {
        rd_dl_unload(lib, size);
        return r;
    }
    memcpy(ret, lib, size);
    return 0;
}

void rd_dl_unload(void *lib, size_t size)
{
    rd_dl_head *head = lib;
    if (head->handle)
        dlclose(head->handle);
    free(head->path);
    memset(lib, 0, size);
}
