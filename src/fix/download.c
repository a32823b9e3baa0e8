/* SPDX-License-Identifier: MIT */
#include "download.h"

#include <fcntl.h>
#include <sys/stat.h>
#include "fix.h"
#include "util.h"

/* dir and everything in it, without following a symlink. */
static void rm_tree(const char *dir)
{
    _cleanup_close_ int fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    _cleanup_strv_free_ char **names = fd >= 0 ? dir_names(fd, NULL, NULL, NULL) : NULL;
    for (size_t i = 0; names && names[i]; i++) {
        struct stat st;
        if (fstatat(fd, names[i], &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISDIR(st.st_mode)) {
            _cleanup_free_ char *p = xasprintf("%s/%s", dir, names[i]);
            rm_tree(p);
        } else
            (void)unlinkat(fd, names[i], 0);
    }
    (void)rmdir(dir);
}

int rd_scratch_begin(rd_scratch *s, const char *what, char **ret_reason)
{
    int n = snprintf(s->dir, sizeof s->dir, "/tmp/rocm-doctor-%s.XXXXXX", what);
    if (n < 0 || (size_t)n >= sizeof s->dir || !mkdtemp(s->dir)) {
        int e = n < 0 || (size_t)n >= sizeof s->dir ? ENAMETOOLONG : errno;
        s->dir[0] = 0;
        if (ret_reason)
            *ret_reason = xasprintf("cannot create a temporary directory: %s", strerror(e));
        return -e;
    }
    return 0;
}

void rd_scratch_end(rd_scratch *s)
{
    if (s->dir[0])
        rm_tree(s->dir);
    s->dir[0] = 0;
}

const char *rd_download_proto_of(const char *base)
{
    return base && startswith(base, "http://") ? "=http" : "=https";
}

/* curl's configuration file quoting: backslash and double quote escaped. */
static char *curl_quote(const char *s)
{
    strbuf b = { 0 };
    strbuf_append(&b, "\"");
    for (; *s; s++) {
        if (*s == '\\' || *s == '"')
            strbuf_append(&b, "\\");
        strbuf_appendn(&b, s, 1);
    }
    strbuf_append(&b, "\"");
    return strbuf_steal(&b);
}

/* The password in a file curl reads with --config (mode 0600). */
static int write_login(const char *file, const char *login, const char *secret)
{
    _cleanup_free_ char *pair = xasprintf("%s:%s", login, secret ? secret : "");
    _cleanup_free_ char *q = curl_quote(pair);
    _cleanup_free_ char *text = xasprintf("user = %s\n", q);
    _cleanup_close_ int fd = open(file, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd < 0)
        return -errno;
    size_t len = strlen(text);
    return write(fd, text, len) == (ssize_t)len ? 0 : -EIO;
}

/* curl's exit status as an errno (curl's libcurl-errors(3) numbers). */
static int curl_errno(int status, const char *said)
{
    switch (status) {
    case 1: /* unsupported protocol: --proto refused it */ return -EPROTONOSUPPORT;
    case 5: /* proxy */
    case 6: /* host name */
    case 7: /* connect */ return -EHOSTUNREACH;
    case 28: return -ETIMEDOUT;
    case 22: /* HTTP >= 400 with --fail */
        if (strstr(said, " 404"))
            return -ENOENT;
        if (strstr(said, " 401") || strstr(said, " 403"))
            return -EACCES;
        return -EIO;
    case 35: /* TLS handshake */
    case 51:
    case 53:
    case 54:
    case 58:
    case 59:
    case 60: /* the certificate */
    case 77:
    case 83:
    case 90:
    case 91: return -EPROTO;
    case 63: return -EFBIG;
    default: return -EIO;
    }
}

int rd_download(const char *url, const char *path, const rd_download_opts *o, char **ret_why)
{
    _cleanup_free_ char *max_time = xasprintf("%lld", (long long)(o->max_time_s > 0 ? o->max_time_s : 60));
    _cleanup_free_ char *max_bytes = o->max_bytes > 0 ? xasprintf("%lld", (long long)o->max_bytes) : NULL;
    _cleanup_free_ char *login_file = o->login ? xasprintf("%s.login", path) : NULL, *out = NULL;
    const char *proto = o->proto ? o->proto : "=https";
    char *argv[24];
    size_t n = 0;
    argv[n++] = (char *)"curl";
    argv[n++] = (char *)"-fsSL";
    argv[n++] = (char *)"--proto";
    argv[n++] = (char *)proto;
    argv[n++] = (char *)"--proto-redir";
    argv[n++] = (char *)proto;
    argv[n++] = (char *)"--max-time";
    argv[n++] = max_time;
    if (max_bytes) {
        argv[n++] = (char *)"--max-filesize";
        argv[n++] = max_bytes;
    }
    if (login_file) {
        int r = write_login(login_file, o->login, o->secret);
        if (r < 0) {
            *ret_why = xasprintf("cannot write %s: %s", login_file, strerror(-r));
            return r;
        }
        argv[n++] = (char *)"--config";
        argv[n++] = login_file;
    }
    argv[n++] = (char *)"-o";
    argv[n++] = (char *)path;
    argv[n++] = (char *)url;
    argv[n] = NULL;
    /* curl's own --max-time ends it first; the deadline is for a curl that hangs anyway */
    int r = rd_fix_spawn_within(argv, (o->max_time_s > 0 ? o->max_time_s : 60) + 10, &out);
    if (login_file)
        (void)unlink(login_file);
    if (r == 0)
        return 0;
    const char *said = out && *out ? out : "";
    if (r < 0) {
        *ret_why = xstrdup(r == -ETIME ? "curl did not finish in time" : strerror(-r));
        return r == -ETIME ? -ETIMEDOUT : r;
    }
    if (r == 127) {
        *ret_why = xasprintf("cannot run curl: %s", *said ? said : "not found");
        return -ENOEXEC;
    }
    *ret_why = xstrdup(*said ? said : "curl failed");
    return curl_errno(r, said);
}
