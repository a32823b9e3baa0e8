/* SPDX-License-Identifier: MIT */
/* Unified diffs of whole files for the plan, and SHA-256 for the journal. */
#include <stdint.h>
#include "fix.h"
#include "util.h"

typedef struct {
    const char *s;
    size_t n; /* without the newline */
    bool nl;  /* ends with a newline */
} line;

static line *split_lines(const char *buf, size_t size, size_t *ret_n)
{
    line *v = NULL;
    size_t n = 0;
    size_t i = 0;
    while (i < size) {
        const char *e = memchr(buf + i, '\n', size - i);
        line *l = ARRAY_APPEND(v, n);
        l->s = buf + i;
        l->n = e ? (size_t)(e - (buf + i)) : size - i;
        l->nl = e != NULL;
        i += l->n + (e ? 1 : 0);
    }
    *ret_n = n;
    return v;
}

static bool line_eq(const line *a, const line *b)
{
    return a->n == b->n && a->nl == b->nl && memcmp(a->s, b->s, a->n) == 0;
}

typedef struct {
    char op;       /* ' ', '-', '+' */
    size_t ai, bi; /* line index in a and b before this op */
} edit;

/* Files the fixes touch are small configuration files: the quadratic LCS
 * is fine there; beyond this size the diff replaces the whole file. */
#define LCS_MAX_CELLS (4u * 1000 * 1000)

static edit *edit_script(const line *a, size_t na, const line *b, size_t nb, size_t *ret_n)
{
    edit *e = NULL;
    size_t n = 0;
    if ((na + 1) * (nb + 1) > LCS_MAX_CELLS) {
        for (size_t i = 0; i < na; i++)
            *ARRAY_APPEND(e, n) = (edit){ '-', i, 0 };
        for (size_t j = 0; j < nb; j++)
            *ARRAY_APPEND(e, n) = (edit){ '+', na, j };
        *ret_n = n;
        return e;
    }
    size_t w = nb + 1;
    uint32_t *L = xcalloc((na + 1) * w, sizeof(uint32_t));
    for (size_t i = na; i-- > 0;)
        for (size_t j = nb; j-- > 0;)
            L[i * w + j] = line_eq(&a[i], &b[j])
                               ? L[(i + 1) * w + j + 1] + 1
                               : (L[(i + 1) * w + j] >= L[i * w + j + 1] ? L[(i + 1) * w + j] : L[i * w + j + 1]);
    size_t i = 0, j = 0;
    while (i < na || j < nb) {
        if (i < na && j < nb && line_eq(&a[i], &b[j])) {
            *ARRAY_APPEND(e, n) = (edit){ ' ', i, j };
            i++, j++;
        } else if (i < na && (j >= nb || L[(i + 1) * w + j] >= L[i * w + j + 1])) {
            *ARRAY_APPEND(e, n) = (edit){ '-', i, j };
            i++;
        } else {
            *ARRAY_APPEND(e, n) = (edit){ '+', i, j };
            j++;
        }
    }
    free(L);
    *ret_n = n;
    return e;
}

static void range(strbuf *b, char sign, size_t start, size_t len)
{
    if (len == 1)
        strbuf_printf(b, "%c%zu", sign, start + 1);
    else
        strbuf_printf(b, "%c%zu,%zu", sign, len ? start + 1 : start, len);
}

static void emit_line(strbuf *b, char op, const line *l)
{
    strbuf_appendn(b, &op, 1);
    strbuf_appendn(b, l->s, l->n);
    strbuf_append(b, "\n");
    if (!l->nl)
        strbuf_append(b, "\\ No newline at end of file\n");
}

#define CONTEXT 3

char *rd_unified_diff(const char *path, const char *a, size_t a_size, bool a_exists, const char *b, size_t b_size,
                      bool b_exists)
{
    while (*path == '/')
        path++;
    size_t na, nb, ne;
    _cleanup_free_ line *la = split_lines(a_exists ? a : "", a_exists ? a_size : 0, &na);
    _cleanup_free_ line *lb = split_lines(b_exists ? b : "", b_exists ? b_size : 0, &nb);
    _cleanup_free_ edit *e = edit_script(la, na, lb, nb, &ne);
    strbuf out = { 0 };
    if (a_exists)
        strbuf_printf(&out, "--- a/%s\n", path);
    else
        strbuf_append(&out, "--- /dev/null\n");
    if (b_exists)
        strbuf_printf(&out, "+++ b/%s\n", path);
    else
        strbuf_append(&out, "+++ /dev/null\n");

    size_t k = 0;
    while (k < ne) {
        while (k < ne && e[k].op == ' ')
            k++;
        if (k >= ne)
            break;
        size_t start = k > CONTEXT ? k - CONTEXT : 0;
        /* extend while the next change is within two contexts */
        size_t last = k;
        for (size_t m = k; m < ne; m++) {
            if (e[m].op == ' ')
                continue;
            if (m - last > 2 * CONTEXT)
                break;
            last = m;
        }
        size_t end = last + CONTEXT + 1 < ne ? last + CONTEXT + 1 : ne;
        size_t alen = 0, blen = 0;
        for (size_t m = start; m < end; m++) {
            alen += e[m].op != '+';
            blen += e[m].op != '-';
        }
        strbuf_append(&out, "@@ ");
        range(&out, '-', e[start].ai, alen);
        strbuf_append(&out, " ");
        range(&out, '+', e[start].bi, blen);
        strbuf_append(&out, " @@\n");
        for (size_t m = start; m < end; m++)
            emit_line(&out, e[m].op, e[m].op == '+' ? &lb[e[m].bi] : &la[e[m].ai]);
        k = end;
    }
    return strbuf_steal(&out);
}

bool rd_is_text(const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c == 0 || (c < 0x20 && c != '\n' && c != '\t' && c != '\r'))
            return false;
    }
    return true;
}

/* SHA-256 (FIPS 180-4). */
static const uint32_t K[64] = {
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
};

#define ROR(x, n) (((x) >> (n)) | ((x) << (32 - (n))))

static void sha256_block(uint32_t h[8], const unsigned char *p)
{
    uint32_t w[64];
    for (int i = 0; i < 16; i++)
        w[i] = (uint32_t)p[4 * i] << 24 | (uint32_t)p[4 * i + 1] << 16 | (uint32_t)p[4 * i + 2] << 8 | p[4 * i + 3];
    for (int i = 16; i < 64; i++) {
        uint32_t s0 = ROR(w[i - 15], 7) ^ ROR(w[i - 15], 18) ^ (w[i - 15] >> 3);
        uint32_t s1 = ROR(w[i - 2], 17) ^ ROR(w[i - 2], 19) ^ (w[i - 2] >> 10);
        w[i] = w[i - 16] + s0 + w[i - 7] + s1;
    }
    uint32_t a = h[0], b = h[1], c = h[2], d = h[3], e = h[4], f = h[5], g = h[6], hh = h[7];
    for (int i = 0; i < 64; i++) {
        uint32_t t1 = hh + (ROR(e, 6) ^ ROR(e, 11) ^ ROR(e, 25)) + ((e & f) ^ (~e & g)) + K[i] + w[i];
        uint32_t t2 = (ROR(a, 2) ^ ROR(a, 13) ^ ROR(a, 22)) + ((a & b) ^ (a & c) ^ (b & c));
        hh = g, g = f, f = e, e = d + t1, d = c, c = b, b = a, a = t1 + t2;
    }
    h[0] += a, h[1] += b, h[2] += c, h[3] += d, h[4] += e, h[5] += f, h[6] += g, h[7] += hh;
}

void rd_sha256_hex(const void *data, size_t n, char ret[65])
{
    uint32_t h[8] = { 0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19 };
    const unsigned char *p = data;
    size_t left = n;
    while (left >= 64) {
        sha256_block(h, p);
        p += 64;
        left -= 64;
    }
    unsigned char tail[128] = { 0 };
    memcpy(tail, p, left);
    tail[left] = 0x80;
    size_t tn = left + 1 + 8 <= 64 ? 64 : 128;
    uint64_t bits = (uint64_t)n * 8;
    for (int i = 0; i < 8; i++)
        tail[tn - 1 - i] = (unsigned char)(bits >> (8 * i));
    sha256_block(h, tail);
    if (tn == 128)
        sha256_block(h, tail + 64);
    for (int i = 0; i < 8; i++)
        snprintf(ret + 8 * i, 9, "%08x", h[i]);
}
