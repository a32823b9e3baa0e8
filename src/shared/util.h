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
#include <unistd.h>

#define _cleanup_(f) __attribute__((cleanup(f)))
#define _unused_ __attribute__((unused))
#define _printf_(a, b) __attribute__((format(printf, a, b)))
#define ELEMENTSOF(x) (sizeof(x) / sizeof((x)[0]))

static inline void freep(void *p)
{
    free(*(void **)p);
}
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

static inline void fclosep(FILE **f)
{
    if (*f)
        fclose(*f);
}
#define _cleanup_fclose_ _cleanup_(fclosep)

static inline void *take_ptr_impl(void *pp)
{
    void **p = pp, *v = *p;
    *p = NULL;
    return v;
}
#define TAKE_PTR(p) ((__typeof__(p))take_ptr_impl(&(p)))
static inline int take_fd_impl(int *fd)
{
    int v = *fd;
    *fd = -1;
    return v;
}
#define TAKE_FD(fd) take_fd_impl(&(fd))

static inline bool streq(const char *a, const char *b)
{
    return strcmp(a, b) == 0;
}
static inline bool streq_ptr(const char *a, const char *b)
{
    return (!a && !b) || (a && b && streq(a, b));
}
/* What goes in front of an absolute path to name it under root (a --root
 * in messages, a prefix directory): "" for "/", else root itself. */
static inline const char *root_prefix(const char *root)
{
    return streq(root, "/") ? "" : root;
}

static inline const char *strempty(const char *s)
{
    return s ? s : "";
}
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
char *xvasprintf(const char *fmt, va_list ap) _printf_(1, 0);
char *xstrdup_or_null(const char *s);

/* Grows *array of *n elements of `size` bytes by one zeroed element; the
 * allocation doubles, so n appends cost O(n). */
void *array_append(void *array_ptr, size_t *n, size_t size);
#define ARRAY_APPEND(arr, n) ((__typeof__(arr))array_append(&(arr), &(n), sizeof(*(arr))))

/* NULL-terminated string vectors. */
size_t strv_length(char *const *v);
void strv_free(char **v);
/* Takes s. strv_push measures the list first: O(length) per call; loops
 * that build long lists keep the length and call strv_push_n. */
char **strv_push(char **v, char *s);
char **strv_push_n(char **v, size_t *n, char *s);
bool strv_contains(char *const *v, const char *s);
/* A vector of copies of the arguments (the list ends with NULL). */
char **rd_strv_new(const char *first, ...) __attribute__((sentinel));
/* The non-empty items of s between any of the separator characters; NULL when none. */
char **strv_split(const char *s, const char *separators);
/* The items joined by separator ("" for none). */
char *strv_join(char *const *v, const char *separator);
static inline void strv_freep(char ***v)
{
    strv_free(*v);
}
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

struct stat;
/* Reads a whole regular file (at most max_size bytes, 0: no limit; -EFBIG
 * beyond) relative to dirfd, in one read of a buffer sized to the file. A
 * FIFO, device or socket is never opened for reading: -EINVAL (-EISDIR for
 * a directory). The result is NUL-terminated; *ret_size excludes the NUL. */
int read_file_at(int dirfd, const char *path, size_t max_size, char **ret, size_t *ret_size);
/* Opens path for reading when it is a regular file (O_NONBLOCK, so a FIFO
 * does not block the open; then fstat). Returns the fd, *ret_st its stat. */
int open_regular_at(int dirfd, const char *path, struct stat *ret_st);
/* The same as a stdio stream ("re"), for readers built on FILE (inih):
 * NULL with errno set, EINVAL for a FIFO, socket or device. */
FILE *fopen_regular(const char *path);
/* Closes fd and fails unless it is a regular file; returns fd otherwise. */
int check_regular(int fd, struct stat *ret_st);
/* Reads fd from its current position to the end, growing from a page. */
int read_fd(int fd, size_t max_size, char **ret, size_t *ret_size);
/* read_fd of a file opened at offset 0 with its fstat: one read of a
 * buffer sized to it, -EFBIG at once when larger than max_size. */
int read_fd_sized(int fd, const struct stat *st, size_t max_size, char **ret, size_t *ret_size);
/* Calls fn for each line (newline removed) of fd, streaming: memory is the
 * longest line, time linear in the file. A non-zero return of fn stops the
 * walk and is returned. */
int read_lines_fd(int fd, int (*fn)(char *line, void *userdata), void *userdata);
/* The same over a NUL-terminated text; fn may modify its line. */
int foreach_line(const char *text, int (*fn)(char *line, void *userdata), void *userdata);
/* Calls each(name, userdata) for the entries of the directory open at fd,
 * "." and ".." left out, in the kernel's order, until each returns
 * non-zero; returns that value, 0 at the end, or -errno. getdents64 into a
 * buffer on the stack: no DIR (32 KiB from the heap) and no second
 * descriptor; fd is rewound first and stays usable for openat. */
int dir_each(int fd, int (*each)(const char *name, void *userdata), void *userdata);
/* The names in the directory open at fd that keep accepts (all but "." and
 * ".." when keep is NULL), sorted, NULL-terminated; NULL when there are none
 * or the directory cannot be read (then -errno in *ret_error when given, 0
 * otherwise). The walk starts from the top whatever fd has read before. */
char **dir_names(int fd, bool (*keep)(const char *name, const void *userdata), const void *userdata, int *ret_error);
/* A keep for dir_names: no dot-file, and the name ends in the suffix that
 * userdata points to (any name when NULL). */
bool dir_name_visible(const char *name, const void *suffix);
/* Reads a one-line sysfs-style attribute, trailing whitespace stripped. */
int read_line_at(int dirfd, const char *path, char **ret);
int read_u64_at(int dirfd, const char *path, int base, uint64_t *ret);

char *strstrip(char *s);
/* s shortened to at most max bytes at a word boundary, "..." marking the
 * cut: never a word cut in half (a single word longer than max is cut at a
 * UTF-8 character boundary). A copy of s when it fits. max >= 8. */
char *str_cut_words(const char *s, size_t max);
/* The value of one hexadecimal digit (either case), or -EINVAL. */
int unhexchar(char c);
int safe_atou64(const char *s, int base, uint64_t *ret);
int safe_atoi(const char *s, int *ret);
const char *errno_name(int err);
