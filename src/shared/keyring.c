/* SPDX-License-Identifier: MIT */
#include "keyring.h"

#include <ctype.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include "util.h"

/* Base64 digit values plus one (0: not a digit), a table lookup a byte:
 * the armored keyrings in trusted.gpg.d are read at every check. */
static const unsigned char b64_plus1[256] = {
    ['A'] = 1,  ['B'] = 2,  ['C'] = 3,  ['D'] = 4,  ['E'] = 5,  ['F'] = 6,  ['G'] = 7,  ['H'] = 8,
    ['I'] = 9,  ['J'] = 10, ['K'] = 11, ['L'] = 12, ['M'] = 13, ['N'] = 14, ['O'] = 15, ['P'] = 16,
    ['Q'] = 17, ['R'] = 18, ['S'] = 19, ['T'] = 20, ['U'] = 21, ['V'] = 22, ['W'] = 23, ['X'] = 24,
    ['Y'] = 25, ['Z'] = 26, ['a'] = 27, ['b'] = 28, ['c'] = 29, ['d'] = 30, ['e'] = 31, ['f'] = 32,
    ['g'] = 33, ['h'] = 34, ['i'] = 35, ['j'] = 36, ['k'] = 37, ['l'] = 38, ['m'] = 39, ['n'] = 40,
    ['o'] = 41, ['p'] = 42, ['q'] = 43, ['r'] = 44, ['s'] = 45, ['t'] = 46, ['u'] = 47, ['v'] = 48,
    ['w'] = 49, ['x'] = 50, ['y'] = 51, ['z'] = 52, ['0'] = 53, ['1'] = 54, ['2'] = 55, ['3'] = 56,
    ['4'] = 57, ['5'] = 58, ['6'] = 59, ['7'] = 60, ['8'] = 61, ['9'] = 62, ['+'] = 63, ['/'] = 64,
};

static int b64_value(char c)
{
    return (int)b64_plus1[(unsigned char)c] - 1;
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

/* SHA-1 (FIPS 180-4), for v4 key fingerprints only. */
typedef struct {
    uint32_t h[5];
    uint64_t len;
    unsigned char buf[64];
    size_t n;
} sha1_ctx;

static uint32_t rol32(uint32_t x, unsigned k)
{
    return (x << k) | (x >> (32 - k));
}

static void sha1_block(sha1_ctx *c, const unsigned char *p)
{
    uint32_t w[80];
    for (int i = 0; i < 16; i++)
        w[i] = (uint32_t)p[4 * i] << 24 | (uint32_t)p[4 * i + 1] << 16 | (uint32_t)p[4 * i + 2] << 8 | p[4 * i + 3];
    for (int i = 16; i < 80; i++)
        w[i] = rol32(w[i - 3] ^ w[i - 8] ^ w[i - 14] ^ w[i - 16], 1);
    uint32_t a = c->h[0], b = c->h[1], cc = c->h[2], d = c->h[3], e = c->h[4];
    for (int i = 0; i < 80; i++) {
        uint32_t f, k;
        if (i < 20)
            f = (b & cc) | (~b & d), k = 0x5A827999;
        else if (i < 40)
            f = b ^ cc ^ d, k = 0x6ED9EBA1;
        else if (i < 60)
            f = (b & cc) | (b & d) | (cc & d), k = 0x8F1BBCDC;
        else
            f = b ^ cc ^ d, k = 0xCA62C1D6;
        uint32_t t = rol32(a, 5) + f + e + k + w[i];
        e = d, d = cc, cc = rol32(b, 30), b = a, a = t;
    }
    c->h[0] += a, c->h[1] += b, c->h[2] += cc, c->h[3] += d, c->h[4] += e;
}

static void sha1_init(sha1_ctx *c)
{
    *c = (sha1_ctx){ .h = { 0x67452301, 0xEFCDAB89, 0x98BADCFE, 0x10325476, 0xC3D2E1F0 } };
}

static void sha1_update(sha1_ctx *c, const unsigned char *p, size_t n)
{
    c->len += n;
    while (n > 0) {
        size_t k = 64 - c->n < n ? 64 - c->n : n;
        memcpy(c->buf + c->n, p, k);
        c->n += k, p += k, n -= k;
        if (c->n == 64) {
            sha1_block(c, c->buf);
            c->n = 0;
        }
    }
}

static void sha1_final(sha1_ctx *c, unsigned char out[20])
{
    uint64_t bits = c->len * 8;
    static const unsigned char pad[64] = { 0x80 };
    unsigned char be[8];
    /* 0x80, then zeros up to 56 bytes into a block, in one update */
    sha1_update(c, pad, c->n < 56 ? 56 - c->n : 120 - c->n);
    for (int i = 0; i < 8; i++)
        be[i] = (unsigned char)(bits >> (56 - 8 * i));
    sha1_update(c, be, 8);
    for (int i = 0; i < 5; i++)
        for (int j = 0; j < 4; j++)
            out[4 * i + j] = (unsigned char)(c->h[i] >> (24 - 8 * j));
}

/* One OpenPGP packet's tag and body at *pos (RFC 4880 4.2: old and new
 * formats); advances *pos. -1 at the end or on a malformed header, or a
 * partial length, which no key packet has. */
static int next_packet(const unsigned char *d, size_t n, size_t *pos, const unsigned char **ret_body, size_t *ret_len)
{
    size_t p = *pos;
    if (p >= n || !(d[p] & 0x80))
        return -1;
    unsigned char h = d[p++];
    int tag;
    uint64_t len;
    if (h & 0x40) {
        tag = h & 0x3f;
        if (p >= n)
            return -1;
        unsigned char o = d[p++];
        if (o < 192)
            len = o;
        else if (o < 224) {
            if (p >= n)
                return -1;
            len = ((uint64_t)(o - 192) << 8) + d[p++] + 192;
        } else if (o == 255) {
            if (n - p < 4)
                return -1;
            len = (uint64_t)d[p] << 24 | (uint64_t)d[p + 1] << 16 | (uint64_t)d[p + 2] << 8 | d[p + 3];
            p += 4;
        } else
            return -1;
    } else {
        tag = (h >> 2) & 0x0f;
        int lt = h & 3;
        if (lt == 3)
            len = n - p;
        else {
            size_t k = lt == 0 ? 1 : lt == 1 ? 2 : 4;
            if (n - p < k)
                return -1;
            len = 0;
            for (size_t i = 0; i < k; i++)
                len = len << 8 | d[p + i];
            p += k;
        }
    }
    if (len > n - p)
        return -1;
    *ret_body = d + p;
    *ret_len = (size_t)len;
    *pos = p + (size_t)len;
    return tag;
}

char **rd_keyring_fingerprints(const unsigned char *data, size_t size)
{
    size_t dsize = 0;
    _cleanup_free_ unsigned char *decoded = dearmor(data, size, &dsize);
    const unsigned char *d = decoded ? decoded : data;
    size_t n = decoded ? dsize : size;
    char **v = NULL;
    const unsigned char *body;
    size_t len, pos = 0;
    for (int tag; (tag = next_packet(d, n, &pos, &body, &len)) >= 0;) {
        /* tag 6: a primary public key (14, a subkey, is no key of its own) */
        if (tag != 6 || len < 1 || len > 0xffff || body[0] != 4)
            continue;
        unsigned char head[3] = { 0x99, (unsigned char)(len >> 8), (unsigned char)len }, fpr[20];
        sha1_ctx c;
        sha1_init(&c);
        sha1_update(&c, head, 3);
        sha1_update(&c, body, len);
        sha1_final(&c, fpr);
        static const char digits[] = "0123456789ABCDEF";
        char hex[41];
        for (int i = 0; i < 20; i++) {
            hex[2 * i] = digits[fpr[i] >> 4];
            hex[2 * i + 1] = digits[fpr[i] & 15];
        }
        hex[40] = 0;
        v = strv_push(v, xstrdup(hex));
    }
    return v;
}

bool rd_keyring_has_key(const unsigned char *data, size_t size, const char *key)
{
    char want[41];
    size_t w = 0;
    for (const char *c = key ? key : ""; *c; c++) {
        if (*c == ' ' || *c == ':')
            continue;
        if (!isxdigit((unsigned char)*c) || w == 40)
            return false;
        want[w++] = (char)toupper((unsigned char)*c);
    }
    want[w] = 0;
    if (w != 40 && w != 16)
        return false;
    _cleanup_strv_free_ char **fprs = rd_keyring_fingerprints(data, size);
    for (char **f = fprs; f && *f; f++)
        if (w == 40 ? streq(*f, want) : endswith(*f, want))
            return true;
    return false;
}
