/* SPDX-License-Identifier: MIT */
/* Downloads from AMD's server or the configured mirror (curl, bounded in
 * size and time, only the schemes the caller allows), and the scratch
 * directories under /tmp they land in (the gpg home, an installer package
 * being read). */
#pragma once

#include <stdint.h>

/* A directory /tmp/rocm-doctor-WHAT.XXXXXX, mode 0700; dir holds "" until
 * it is made. rd_scratch_end removes it and everything in it (without
 * following a symlink) and sets it back to "". */
typedef struct {
    char dir[64];
} rd_scratch;
int rd_scratch_begin(rd_scratch *s, const char *what, char **ret_reason);
void rd_scratch_end(rd_scratch *s);
#define _cleanup_scratch_ __attribute__((cleanup(rd_scratch_end)))

typedef struct {
    const char *proto;  /* curl's --proto and --proto-redir: "=https", "=http,https" */
    int64_t max_time_s; /* the whole transfer; <= 0: 60 */
    int64_t max_bytes;  /* a larger file is refused (-EFBIG); <= 0: no limit */
    const char *login;  /* HTTP basic authentication (the mirror's); NULL: none */
    const char *secret;
} rd_download_opts;

/* Downloads url into path (created or replaced). 0, or what stopped it:
 * -EHOSTUNREACH (the host name does not resolve, or nothing answers on
 * the port), -ETIMEDOUT, -ENOENT (HTTP 404), -EACCES (401, 403), -EFBIG,
 * -EPROTO (TLS: the handshake or the certificate), -EPROTONOSUPPORT (a
 * scheme o->proto does not allow, a redirect included), -EIO (any other
 * failure); *ret_why then says what curl said ("curl: (7) Failed to ..."). The
 * password goes to curl in a file of mode 0600 beside path, never on its
 * command line. */
int rd_download(const char *url, const char *path, const rd_download_opts *o, char **ret_why);
/* The scheme of a base URL as curl's --proto value: "=http" for an
 * http:// mirror, else "=https". */
const char *rd_download_proto_of(const char *base);
