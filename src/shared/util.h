/* SPDX-License-Identifier: MIT */
#pragma once

#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <unistd.h>

#define _cleanup_(f) __attribute__((cleanup(f)))
#define _unused_ __attribute__((unused))
#define _printf_(a, b) __attribute__((format(printf, a, b)))
#define ELEMENTSOF(x) (sizeof(x) / sizeof((x)[0]))

static inline void freep(void *p) { free(*(void **)p); }
#define _cleanup_free_ _cleanup_(freep)

static inline void closep(int *fd)
{
    if (*fd >= 0) {
        int saved = errno;
        close(*fd);
        errno = saved;
    }
}
#define _cleanup_close_ _cleanup_(closep)

static inline void fclosep(FILE **f) { if (*f) fclose(*f); }
#define _cleanup_fclose_ _cleanup_(fclosep)

static inline void closedirp(DIR **d) { if (*d) closedir(*d); }
#define _cleanup_closedir_ _cleanup_(closedirp)

static inline void *take_ptr_impl(void *pp)
{
    void **p = pp, *v = *p;
    *p = NULL;
    return v;
}
#define TAKE_PTR(p) ((__typeof__(p))take_ptr_impl(&(p)))

static inline bool streq(const char *a, const char *b) { return strcmp(a, b) == 0; }
static inline bool streq_ptr(const char *a, const char *b)
{
    return (!a && !b) || (a && b && streq(a, b));
}
static inline const char *strempty(const char *s) { return s ? s : ""; }
const char *startswith(const char *s, const char *prefix);
bool endswith(const char *s, const char *suffix);

/* Allocation failures abort: a diagnostic tool that runs out of memory has
 * nothing useful left to say, and checking every strdup buries the logic. */
void *xmalloc(size_t n);
void *xcalloc(size_t n, size_t size);
void *xrealloc(void *p, size_t n);
char *xstrdup(const char *s);
char *xstrndup(const char *s, size_t n);
char *xasprintf(const char *fmt, ...) _printf_(1, 2);
char *xstrdup_or_null(const char *s);

/* Grows *array of *n elements of `size` bytes by one zeroed element. */
void *array_append(void *array_ptr, size_t *n, size_t size);
#define ARRAY_APPEND(arr, n) ((__typeof__(arr))array_append(&(arr), &(n), sizeof(*(arr))))

/* NULL-terminated string vectors. */
size_t strv_length(char *const *v);
void strv_free(char **v);
char **strv_push(char **v, char *s); /* takes s */
bool strv_contains(char *const *v, const char *s);
static inline void strv_freep(char ***v) { strv_free(*v); }
#define _cleanup_strv_free_ _cleanup_(strv_freep)

/* Simple growing string buffer. */
typedef struct {
    char *s;
    size_t len, cap;
} strbuf;
void strbuf_append(strbuf *b, const char *s);
void strbuf_appendn(strbuf *b, const char *s, size_t n);
void strbuf_printf(strbuf *b, const char *fmt, ...) _printf_(2, 3);
char *strbuf_steal(strbuf *b);

/* Reads a whole file (at most max_size bytes; -EFBIG beyond) relative to dirfd.
 * The result is NUL-terminated; *ret_size excludes the NUL. */
int read_file_at(int dirfd, const char *path, size_t max_size, char **ret, size_t *ret_size);
int read_fd(int fd, size_t max_size, char **ret, size_t *ret_size);
/* Reads a one-line sysfs-style attribute, trailing whitespace stripped. */
int read_line_at(int dirfd, const char *path, char **ret);
int read_u64_at(int dirfd, const char *path, int base, uint64_t *ret);

char *strstrip(char *s);
int safe_atou64(const char *s, int base, uint64_t *ret);
int safe_atoi(const char *s, int *ret);
const char *errno_name(int err);
