/* SPDX-License-Identifier: MIT */
#include "util.h"

#include <ctype.h>
#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <malloc.h>
#include <sys/stat.h>

const char *startswith(const char *s, const char *prefix)
{
    size_t n = strlen(prefix);
    return strncmp(s, prefix, n) == 0 ? s + n : NULL;
}

bool endswith(const char *s, const char *suffix)
{
    size_t a = strlen(s), b = strlen(suffix);
    return a >= b && memcmp(s + a - b, suffix, b) == 0;
}

static void *oom(void)
{
    fputs("rocm-doctor: out of memory\n", stderr);
    abort();
}

void *xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    return p ? p : oom();
}

void *xcalloc(size_t n, size_t size)
{
    void *p = calloc(n ? n : 1, size ? size : 1);
    return p ? p : oom();
}

void *xrealloc(void *p, size_t n)
{
    void *q = realloc(p, n ? n : 1);
    return q ? q : oom();
}

char *xstrdup(const char *s)
{
    char *p = strdup(s);
    return p ? p : oom();
}

char *xstrndup(const char *s, size_t n)
{
    char *p = strndup(s, n);
    return p ? p : oom();
}

char *xstrdup_or_null(const char *s)
{
    return s ? xstrdup(s) : NULL;
}

char *xvasprintf(const char *fmt, va_list ap)
{
    char *s;
    return vasprintf(&s, fmt, ap) < 0 ? oom() : s;
}

char *xasprintf(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *s = xvasprintf(fmt, ap);
    va_end(ap);
    return s;
}

/* Grows the block behind *p to hold `need` bytes, doubling: the allocator
 * knows the block's size, so no capacity has to be stored beside the array
 * and arrays shrunk or built by hand stay safe to grow. */
static void grow(void *pp, size_t need)
{
    void **p = pp;
    size_t have = *p ? malloc_usable_size(*p) : 0;
    if (need <= have)
        return;
    size_t cap = have < 64 ? 64 : have;
    while (cap < need)
        cap = cap > SIZE_MAX / 2 ? need : cap * 2;
    *p = xrealloc(*p, cap);
}

void *array_append(void *array_ptr, size_t *n, size_t size)
{
    char **arr = array_ptr;
    if (*n > SIZE_MAX / size - 1)
        oom();
    grow(arr, (*n + 1) * size);
    char *elem = *arr + *n * size;
    memset(elem, 0, size);
    (*n)++;
    return elem;
}

size_t strv_length(char *const *v)
{
    size_t n = 0;
    while (v && v[n])
        n++;
    return n;
}

void strv_free(char **v)
{
    for (size_t i = 0; v && v[i]; i++)
        free(v[i]);
    free(v);
}

char **strv_push(char **v, char *s)
{
    size_t n = strv_length(v);
    return strv_push_n(v, &n, s);
}

char **strv_push_n(char **v, size_t *n, char *s)
{
    if (*n > SIZE_MAX / sizeof(char *) - 2)
        oom();
    grow(&v, (*n + 2) * sizeof(char *));
    v[(*n)++] = s;
    v[*n] = NULL;
    return v;
}

bool strv_contains(char *const *v, const char *s)
{
    for (size_t i = 0; v && v[i]; i++)
        if (streq(v[i], s))
            return true;
    return false;
}

char **rd_strv_new(const char *first, ...)
{
    char **v = NULL;
    size_t n = 0;
    va_list ap;
    va_start(ap, first);
    for (const char *a = first; a; a = va_arg(ap, const char *))
        v = strv_push_n(v, &n, xstrdup(a));
    va_end(ap);
    return v;
}

char **strv_split(const char *s, const char *separators)
{
    char **v = NULL;
    size_t n = 0;
    _cleanup_free_ char *copy = xstrdup(s);
    char *save = NULL;
    for (char *t = strtok_r(copy, separators, &save); t; t = strtok_r(NULL, separators, &save))
        v = strv_push_n(v, &n, xstrdup(t));
    return v;
}

char *strv_join(char *const *v, const char *separator)
{
    strbuf b = { 0 };
    strbuf_append(&b, "");
    for (size_t i = 0; v && v[i]; i++)
        strbuf_printf(&b, "%s%s", i ? separator : "", v[i]);
    return strbuf_steal(&b);
}

void strbuf_appendn(strbuf *b, const char *s, size_t n)
{
    if (b->len + n + 1 > b->cap) {
        size_t cap = b->cap ? b->cap : 64;
        while (cap < b->len + n + 1)
            cap *= 2;
        b->s = xrealloc(b->s, cap);
        b->cap = cap;
    }
    memcpy(b->s + b->len, s, n);
    b->len += n;
    b->s[b->len] = 0;
}

void strbuf_append(strbuf *b, const char *s)
{
    strbuf_appendn(b, s, strlen(s));
}

void strbuf_printf(strbuf *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    _cleanup_free_ char *s = xvasprintf(fmt, ap);
    va_end(ap);
    strbuf_appendn(b, s, strlen(s));
}

char *strbuf_steal(strbuf *b)
{
    char *s = b->s ? b->s : xstrdup("");
    b->s = NULL;
    b->len = b->cap = 0;
    return s;
}

int read_file_at(int dirfd, const char *path, size_t max_size, char **ret, size_t *ret_size)
{
    struct stat st;
    _cleanup_close_ int fd = open_regular_at(dirfd, path, &st);
    if (fd < 0)
        return fd;
    return read_fd_sized(fd, &st, max_size, ret, ret_size);
}

int open_regular_at(int dirfd, const char *path, struct stat *ret_st)
{
    /* O_NONBLOCK: opening a FIFO for reading must not wait for a writer */
    _cleanup_close_ int fd = openat(dirfd, path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
    if (fd < 0)
        return errno == ENXIO ? -EINVAL : -errno; /* a socket */
    return check_regular(TAKE_FD(fd), ret_st);
}

FILE *fopen_regular(const char *path)
{
    int fd = open_regular_at(AT_FDCWD, path, NULL);
    if (fd < 0) {
        errno = -fd;
        return NULL;
    }
    FILE *f = fdopen(fd, "re");
    if (!f) {
        int err = errno;
        close(fd);
        errno = err;
    }
    return f;
}

int check_regular(int fd, struct stat *ret_st)
{
    struct stat st;
    int r = fstat(fd, &st) < 0 ? -errno : S_ISREG(st.st_mode) ? 0 : S_ISDIR(st.st_mode) ? -EISDIR : -EINVAL;
    if (r < 0) {
        close(fd);
        return r;
    }
    if (ret_st)
        *ret_st = st;
    return fd;
}

int read_fd(int fd, size_t max_size, char **ret, size_t *ret_size)
{
    /* the position is the caller's (a tail after lseek, a pipe): no sizing */
    return read_fd_sized(fd, NULL, max_size, ret, ret_size);
}

int read_fd_sized(int fd, const struct stat *st, size_t max_size, char **ret, size_t *ret_size)
{
    if (max_size == 0)
        max_size = SIZE_MAX - 1;
    /* A regular file's size sizes the buffer, one byte more to see the end
     * in the same read; /proc and pipes say 0 and grow from a page. */
    bool sized = st && S_ISREG(st->st_mode) && st->st_size > 0;
    size_t expect = sized ? (size_t)st->st_size : 0;
    if (sized && expect > max_size)
        return -EFBIG;
    size_t cap = sized ? expect + 1 : 4096, len = 0;
    if (cap > max_size)
        cap = max_size;
    _cleanup_free_ char *buf = xmalloc(cap + 1);
    for (;;) {
        if (len == cap) {
            if (cap >= max_size)
                return -EFBIG;
            cap = cap > max_size / 2 ? max_size : cap * 2;
            buf = xrealloc(buf, cap + 1);
        }
        ssize_t k = read(fd, buf + len, cap - len);
        if (k < 0) {
            if (errno == EINTR)
                continue;
            return -errno;
        }
        if (k == 0)
            break;
        len += (size_t)k;
        /* a read that stopped short of the buffer at exactly the size the
         * file had when opened found the end: skip the read that says so */
        if (sized && len == expect && len < cap)
            break;
    }
    buf[len] = 0;
    if (ret_size)
        *ret_size = len;
    *ret = TAKE_PTR(buf);
    return 0;
}

int read_lines_fd(int fd, int (*fn)(char *line, void *userdata), void *userdata)
{
    /* buf[start, len) is unread text, of which [start, scanned) has no newline */
    size_t cap = 64 * 1024, start = 0, scanned = 0, len = 0;
    _cleanup_free_ char *buf = xmalloc(cap + 1);
    for (bool eof = false;;) {
        char *nl = memchr(buf + scanned, '\n', len - scanned);
        if (nl || (eof && start < len)) {
            size_t end = nl ? (size_t)(nl - buf) : len;
            buf[end] = 0;
            int r = fn(buf + start, userdata);
            if (r != 0)
                return r;
            start = scanned = nl ? end + 1 : len;
            continue;
        }
        if (eof)
            return 0;
        memmove(buf, buf + start, len - start);
        len -= start;
        scanned = len;
        start = 0;
        if (len == cap) /* a line longer than the buffer */
            buf = xrealloc(buf, (cap *= 2) + 1);
        ssize_t k = read(fd, buf + len, cap - len);
        if (k < 0 && errno == EINTR)
            continue;
        if (k < 0)
            return -errno;
        eof = k == 0;
        len += (size_t)k;
    }
}

int foreach_line(const char *text, int (*fn)(char *line, void *userdata), void *userdata)
{
    _cleanup_free_ char *line = NULL;
    size_t cap = 0;
    for (const char *p = text; p && *p;) {
        const char *nl = strchr(p, '\n');
        size_t n = nl ? (size_t)(nl - p) : strlen(p);
        if (n + 1 > cap)
            line = xrealloc(line, cap = n + 1);
        memcpy(line, p, n);
        line[n] = 0;
        int r = fn(line, userdata);
        if (r != 0)
            return r;
        p = nl ? nl + 1 : NULL;
    }
    return 0;
}

int unhexchar(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -EINVAL;
}

char *strstrip(char *s)
{
    while (isspace((unsigned char)*s))
        s++;
    size_t n = strlen(s);
    while (n > 0 && isspace((unsigned char)s[n - 1]))
        s[--n] = 0;
    return s;
}

char *str_cut_words(const char *s, size_t max)
{
    size_t n = strlen(s);
    if (n <= max)
        return xstrdup(s);
    size_t keep = max - 3; /* room for "..." */
    /* the last space at or before keep ends the kept words */
    size_t cut = keep;
    while (cut > 0 && !isspace((unsigned char)s[cut]))
        cut--;
    if (cut == 0) /* one word longer than max: at a character boundary */
        for (cut = keep; cut > 0 && ((unsigned char)s[cut] & 0xc0) == 0x80; cut--)
            ;
    while (cut > 0 && isspace((unsigned char)s[cut - 1]))
        cut--;
    return xasprintf("%.*s...", (int)cut, s);
}

int read_line_at(int dirfd, const char *path, char **ret)
{
    _cleanup_free_ char *buf = NULL;
    int r = read_file_at(dirfd, path, 64 * 1024, &buf, NULL);
    if (r < 0)
        return r;
    char *nl = strchr(buf, '\n');
    if (nl)
        *nl = 0;
    *ret = xstrdup(strstrip(buf));
    return 0;
}

int safe_atou64(const char *s, int base, uint64_t *ret)
{
    if (!s || !*s || *s == '-' || isspace((unsigned char)*s))
        return -EINVAL;
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, base);
    if (errno)
        return -errno;
    if (end == s || *end)
        return -EINVAL;
    *ret = v;
    return 0;
}

int safe_atoi(const char *s, int *ret)
{
    if (!s || !*s)
        return -EINVAL;
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno)
        return -errno;
    if (end == s || *end || v < INT_MIN || v > INT_MAX)
        return -EINVAL;
    *ret = (int)v;
    return 0;
}

int read_u64_at(int dirfd, const char *path, int base, uint64_t *ret)
{
    _cleanup_free_ char *line = NULL;
    int r = read_line_at(dirfd, path, &line);
    if (r < 0)
        return r;
    return safe_atou64(line, base, ret);
}

const char *errno_name(int err)
{
    if (err < 0)
        err = -err;
    const char *n = strerrorname_np(err);
    return n ? n : "unknown error";
}

int dir_each(int fd, int (*each)(const char *name, void *userdata), void *userdata)
{
    uint64_t buf[1024]; /* 8 KiB, aligned for struct dirent64 */
    if (lseek(fd, 0, SEEK_SET) < 0)
        return -errno;
    for (;;) {
        ssize_t n = getdents64(fd, buf, sizeof buf);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return n < 0 ? -errno : 0;
        for (ssize_t off = 0; off < n;) {
            const struct dirent64 *de = (const void *)((const char *)buf + off);
            off += de->d_reclen;
            if (de->d_reclen == 0)
                return -EIO;
            const char *name = de->d_name;
            if (name[0] == '.' && (name[1] == 0 || (name[1] == '.' && name[2] == 0)))
                continue;
            int r = each(name, userdata);
            if (r != 0)
                return r;
        }
    }
}

typedef struct {
    bool (*keep)(const char *name, const void *userdata);
    const void *userdata;
    char **names;
    size_t n;
} dir_names_state;

static int add_dir_name(const char *name, void *userdata)
{
    dir_names_state *st = userdata;
    if (!st->keep || st->keep(name, st->userdata))
        st->names = strv_push_n(st->names, &st->n, xstrdup(name));
    return 0;
}

static int cmp_names(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

bool dir_name_visible(const char *name, const void *suffix)
{
    return name[0] != '.' && (!suffix || endswith(name, suffix));
}

char **dir_names(int fd, bool (*keep)(const char *name, const void *userdata), const void *userdata, int *ret_error)
{
    dir_names_state st = { keep, userdata, NULL, 0 };
    int r = dir_each(fd, add_dir_name, &st);
    if (ret_error)
        *ret_error = r < 0 ? r : 0;
    if (r < 0) {
        strv_free(st.names);
        return NULL;
    }
    if (st.n > 1)
        qsort(st.names, st.n, sizeof(char *), cmp_names);
    return st.names;
}
