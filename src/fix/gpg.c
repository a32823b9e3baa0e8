/* SPDX-License-Identifier: MIT */
#include "gpg.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <time.h>
#include "download.h"
#include "fix.h"
#include "util.h"

int rd_gpg_begin(rd_gpg *g, char **ret_reason)
{
    rd_scratch s = { { 0 } };
    int r = rd_scratch_begin(&s, "gpg", NULL);
    if (r < 0) {
        g->home[0] = 0;
        if (ret_reason)
            *ret_reason = xasprintf("cannot create a temporary directory for gpg: %s", strerror(-r));
        return r;
    }
    _Static_assert(sizeof g->home == sizeof s.dir, "the gpg home is a scratch directory");
    memcpy(g->home, s.dir, sizeof g->home);
    return 0;
}

void rd_gpg_end(rd_gpg *g)
{
    rd_scratch s;
    memcpy(s.dir, g->home, sizeof s.dir);
    rd_scratch_end(&s);
    g->home[0] = 0;
}

/* gpg's last line says why (the ones before are about its fresh home). */
static const char *last_line(char *out)
{
    if (!out)
        return "";
    size_t len = strlen(out);
    while (len > 0 && out[len - 1] == '\n')
        out[--len] = 0;
    const char *nl = strrchr(out, '\n');
    const char *why = nl ? nl + 1 : out;
    return startswith(why, "gpg: ") ? why + 5 : why;
}

/* A key file is a regular file: a FIFO, /dev/zero or /dev/urandom would
 * hold gpg until its deadline. */
static int key_file_regular(const char *file, char **ret_reason)
{
    struct stat st;
    _cleanup_close_ int fd = open_regular_at(AT_FDCWD, file, &st);
    if (fd >= 0)
        return 0;
    struct stat lst;
    if (stat(file, &lst) == 0 && !S_ISREG(lst.st_mode))
        *ret_reason = xasprintf("%s is not a regular file (%s): a key file must be one", file,
                                S_ISFIFO(lst.st_mode)   ? "a FIFO"
                                : S_ISCHR(lst.st_mode)  ? "a character device"
                                : S_ISBLK(lst.st_mode)  ? "a block device"
                                : S_ISDIR(lst.st_mode)  ? "a directory"
                                : S_ISSOCK(lst.st_mode) ? "a socket"
                                                        : "not a file");
    else
        *ret_reason = xasprintf("cannot read the key file %s: %s", file, strerror(-fd));
    return fd;
}

/* A date of gpg's colon listing (seconds since the epoch) as YYYY-MM-DD. */
static char *colon_date(const char *field)
{
    uint64_t t;
    if (!field || safe_atou64(field, 10, &t) < 0 || t == 0)
        return NULL;
    time_t tt = (time_t)t;
    struct tm tm;
    char buf[32];
    if (!gmtime_r(&tt, &tm) || strftime(buf, sizeof buf, "%Y-%m-%d", &tm) == 0)
        return NULL;
    return xstrdup(buf);
}

/* Field i (1-based) of a colon-listing line, up to the next ':'. */
static char *colon_field(const char *line, int i)
{
    const char *f = line;
    for (int k = 1; k < i && f; k++)
        if ((f = strchr(f, ':')))
            f++;
    return f ? xstrndup(f, strcspn(f, ":")) : NULL;
}

int rd_gpg_key_usable(const rd_gpg *g, const char *file, const char *shown, char **ret_reason)
{
    int r = key_file_regular(file, ret_reason);
    if (r < 0)
        return r;
    char *argv[] = { (char *)"gpg",         (char *)"--homedir",
                     (char *)g->home,       (char *)"--batch",
                     (char *)"--no-tty",    (char *)"--with-colons",
                     (char *)"--show-keys", (char *)"--with-sig-list",
                     (char *)file,          NULL };
    _cleanup_free_ char *out = NULL;
    r = rd_fix_spawn(argv, &out);
    if (r != 0) {
        *ret_reason = r < 0 ? xasprintf("cannot run gpg to read %s: %s", file, strerror(-r))
                            : xasprintf("%s is not an OpenPGP key file (gpg: %s)", file, last_line(out));
        return -EINVAL;
    }
    /* pub:VALIDITY:...:KEYID:CREATED:EXPIRES:..., then fpr:, and with
     * --with-sig-list the key's revocation as rev:...:CREATED:...:20x */
    _cleanup_free_ char *fpr = NULL, *revoked = NULL, *expired = NULL;
    bool in_primary = false;
    int64_t now = (int64_t)time(NULL);
    char *save = NULL;
    for (char *l = strtok_r(out, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
        if (startswith(l, "pub:")) {
            if (revoked || expired)
                break; /* the first unusable key is enough */
            in_primary = true;
            free(fpr);
            fpr = NULL;
            _cleanup_free_ char *validity = colon_field(l, 2), *expires = colon_field(l, 7);
            uint64_t t;
            bool past = expires && safe_atou64(expires, 10, &t) == 0 && t > 0 && (int64_t)t <= now;
            if (streq_ptr(validity, "r"))
                revoked = xstrdup("");
            else if (streq_ptr(validity, "e") || past)
                expired = colon_date(expires);
            if (streq_ptr(validity, "e") && !expired)
                expired = xstrdup("");
        } else if (startswith(l, "fpr:") && in_primary && !fpr)
            fpr = colon_field(l, 10);
        else if (startswith(l, "sub:") || startswith(l, "uid:"))
            in_primary = false;
        else if (startswith(l, "rev:") && revoked && !*revoked) {
            _cleanup_free_ char *cls = colon_field(l, 11), *created = colon_field(l, 6);
            if (cls && startswith(cls, "20")) {
                free(revoked);
                revoked = colon_date(created);
                if (!revoked)
                    revoked = xstrdup("");
            }
        }
    }
    if (revoked) {
        *ret_reason = *revoked
                          ? xasprintf("%s holds key %s, revoked on %s: not installed", shown, strempty(fpr), revoked)
                          : xasprintf("%s holds key %s, revoked: not installed", shown, strempty(fpr));
        return -EKEYREVOKED;
    }
    if (expired) {
        *ret_reason = *expired
                          ? xasprintf("%s holds key %s, expired on %s: not installed", shown, strempty(fpr), expired)
                          : xasprintf("%s holds key %s, expired: not installed", shown, strempty(fpr));
        return -EKEYEXPIRED;
    }
    return 0;
}

int rd_gpg_fingerprints(const rd_gpg *g, const char *file, char ***ret, char **ret_reason)
{
    int r0 = key_file_regular(file, ret_reason);
    if (r0 < 0)
        return r0;
    char *argv[] = { (char *)"gpg",         (char *)"--homedir", (char *)g->home,
                     (char *)"--batch",     (char *)"--no-tty",  (char *)"--with-colons",
                     (char *)"--show-keys", (char *)file,        NULL };
    _cleanup_free_ char *out = NULL;
    int r = rd_fix_spawn(argv, &out);
    if (r != 0) {
        *ret_reason = r < 0 ? xasprintf("cannot run gpg to read %s: %s", file, strerror(-r))
                            : xasprintf("%s is not an OpenPGP key file (gpg: %s)", file, last_line(out));
        return -EINVAL;
    }
    char **v = NULL;
    bool want_fpr = false;
    char *save = NULL;
    for (char *l = strtok_r(out, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
        if (startswith(l, "pub:"))
            want_fpr = true;
        else if (startswith(l, "fpr:") && want_fpr) {
            /* fpr:::::::::FINGERPRINT: */
            char *f = l;
            for (int i = 0; i < 9 && f; i++)
                f = strchr(f + 1, ':');
            if (f) {
                char *e = strchr(f + 1, ':');
                v = strv_push(v, e ? xstrndup(f + 1, (size_t)(e - f - 1)) : xstrdup(f + 1));
            }
            want_fpr = false;
        }
    }
    if (!v) {
        *ret_reason = xasprintf("%s holds no OpenPGP public key", file);
        return -EINVAL;
    }
    *ret = v;
    return 0;
}

int rd_gpg_fingerprints_of(const char *data, size_t size, bool armored, char ***ret, char **ret_reason)
{
    _cleanup_gpg_ rd_gpg g = { 0 };
    int r = rd_gpg_begin(&g, ret_reason);
    if (r < 0)
        return r;
    _cleanup_free_ char *tmp = xasprintf("%s/keyring%s", g.home, armored ? ".asc" : ".gpg");
    _cleanup_close_ int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (fd < 0 || write(fd, data, size) != (ssize_t)size) {
        r = fd < 0 ? -errno : -EIO;
        *ret_reason = xasprintf("cannot write %s: %s", tmp, strerror(-r));
        return r;
    }
    return rd_gpg_fingerprints(&g, tmp, ret, ret_reason);
}

bool rd_gpg_fpr_matches(const char *fpr, const char *want)
{
    strbuf b = { 0 };
    strbuf_append(&b, "");
    for (const char *s = want ? want : ""; *s; s++)
        if (*s != ' ' && *s != ':') {
            char c = (char)(*s >= 'a' && *s <= 'z' ? *s - 32 : *s);
            strbuf_appendn(&b, &c, 1);
        }
    _cleanup_free_ char *w = strbuf_steal(&b);
    if (!*w)
        return false;
    if (strlen(w) == 16)
        return endswith(fpr, w);
    return streq(fpr, w);
}

int rd_gpg_download(const rd_gpg *g, const char *url, char **ret_path, char **ret_reason)
{
    _cleanup_free_ char *path = xasprintf("%s/downloaded.key", g->home), *why = NULL;
    const rd_download_opts o = { .proto = "=https", .max_time_s = 60 };
    int r = rd_download(url, path, &o, &why);
    if (r < 0) {
        *ret_reason = xasprintf("cannot download the key from %s: %s (pass --key-file FILE on a host that cannot "
                                "reach it)",
                                url, why);
        return -EIO;
    }
    *ret_path = TAKE_PTR(path);
    return 0;
}
