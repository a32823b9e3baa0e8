/* SPDX-License-Identifier: MIT */
#include "keyring.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include "util.h"

static int b64_value(char c)
{
    if (c >= 'A' && c <= 'Z')
        return c - 'A';
    if (c >= 'a' && c <= 'z')
        return c - 'a' + 26;
    if (c >= '0' && c <= '9')
        return c - '0' + 52;
    return c == '+' ? 62 : c == '/' ? 63 : -1;
}

/* The body of an ASCII-armored block, decoded; NULL when data is not armored. */
static unsigned char *dearmor(const unsigned char *data, size_t size, size_t *ret_size)
{
    _cleanup_free_ char *text = xstrndup((const char *)data, size);
    const char *begin = strstr(text, "-----BEGIN PGP PUBLIC KEY BLOCK-----");
    if (!begin)
        return NULL;
    const char *body = strstr(begin, "\n\n");
    const char *body_crlf = strstr(begin, "\r\n\r\n");
    if (!body || (body_crlf && body_crlf < body))
        body = body_crlf;
    if (!body)
        return NULL;
    const char *end = strstr(body, "-----END");
    if (!end)
        return NULL;
    unsigned char *out = xmalloc((size_t)(end - body));
    size_t n = 0;
    uint32_t acc = 0;
    int bits = 0;
    bool line_start = true;
    for (const char *c = body; c < end; c++) {
        if (*c == '\n') {
            line_start = true;
            continue;
        }
        if (line_start && *c == '=')
            break; /* the CRC24 line */
        line_start = false;
        int v = b64_value(*c);
        if (v < 0)
            continue;
        acc = (acc << 6) | (uint32_t)v;
        bits += 6;
        if (bits >= 8) {
            bits -= 8;
            out[n++] = (unsigned char)(acc >> bits);
        }
    }
    *ret_size = n;
    return out;
}

bool rd_keyring_has_key(const unsigned char *data, size_t size, const char *key_id)
{
    unsigned char id[8];
    if (!key_id || strlen(key_id) != 16)
        return false;
    for (size_t i = 0; i < 8; i++) {
        unsigned v;
        if (sscanf(key_id + 2 * i, "%2x", &v) != 1)
            return false;
        id[i] = (unsigned char)v;
    }
    size_t dsize = 0;
    _cleanup_free_ unsigned char *decoded = dearmor(data, size, &dsize);
    const unsigned char *d = decoded ? decoded : data;
    size_t n = decoded ? dsize : size;
    /* the issuer (and issuer fingerprint) subpackets of the key's self-signatures carry its id */
    return n >= 8 && memmem(d, n, id, 8) != NULL;
}
