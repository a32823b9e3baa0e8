/* SPDX-License-Identifier: MIT */
#include "tar.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#define BLOCK 512

struct ustar_header {
    char name[100];
    char mode[8];
    char uid[8];
    char gid[8];
    char size[12];
    char mtime[12];
    char chksum[8];
    char typeflag;
    char linkname[100];
    char magic[6];
    char version[2];
    char uname[32];
    char gname[32];
    char devmajor[8];
    char devminor[8];
    char prefix[155];
    char pad[12];
};
_Static_assert(sizeof(struct ustar_header) == BLOCK, "ustar header is one block");

void rd_tar_init(rd_tar *t, int fd, time_t mtime)
{
    *t = (rd_tar){ .fd = fd, .mtime = mtime };
}

static int write_all(rd_tar *t, const void *data, size_t size)
{
    const char *p = data;
    while (size > 0) {
        ssize_t n = write(t->fd, p, size);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            return -errno;
        }
        p += n;
        size -= (size_t)n;
        t->offset += (uint64_t)n;
    }
    return 0;
}

/* Octal, zero-padded, NUL-terminated in a field of `width` bytes. */
static int octal(char *field, size_t width, uint64_t v)
{
    char buf[32];
    int n = snprintf(buf, sizeof buf, "%0*" PRIo64, (int)(width - 1), v);
    if (n < 0 || (size_t)n >= width)
        return -EOVERFLOW;
    memcpy(field, buf, width);
    return 0;
}

static int split_name(struct ustar_header *h, const char *name)
{
    size_t len = strlen(name);
    if (len == 0)
        return -EINVAL;
    if (len <= sizeof h->name) {
        memcpy(h->name, name, len);
        return 0;
    }
    /* the last '/' that leaves at most 100 bytes of name and 155 of prefix */
    for (size_t i = len; i-- > 0;) {
        if (name[i] != '/')
            continue;
        if (len - i - 1 > sizeof h->name)
            break;
        if (i <= sizeof h->prefix && len - i - 1 > 0) {
            memcpy(h->prefix, name, i);
            memcpy(h->name, name + i + 1, len - i - 1);
            return 0;
        }
    }
    return -ENAMETOOLONG;
}

int rd_tar_add(rd_tar *t, const char *name, const void *data, size_t size, mode_t mode)
{
    struct ustar_header h;
    memset(&h, 0, sizeof h);
    int r = split_name(&h, name);
    if (r < 0)
        return r;
    if ((r = octal(h.mode, sizeof h.mode, mode & 07777)) < 0 || (r = octal(h.uid, sizeof h.uid, 0)) < 0 ||
        (r = octal(h.gid, sizeof h.gid, 0)) < 0 || (r = octal(h.size, sizeof h.size, size)) < 0 ||
        (r = octal(h.mtime, sizeof h.mtime, t->mtime > 0 ? (uint64_t)t->mtime : 0)) < 0)
        return r;
    h.typeflag = '0';
    memcpy(h.magic, "ustar", 6);
    memcpy(h.version, "00", 2);
    memcpy(h.uname, "root", 4);
    memcpy(h.gname, "root", 4);
    /* the checksum is computed with its own field as spaces */
    memset(h.chksum, ' ', sizeof h.chksum);
    unsigned sum = 0;
    for (size_t i = 0; i < sizeof h; i++)
        sum += ((unsigned char *)&h)[i];
    snprintf(h.chksum, sizeof h.chksum, "%06o", sum);
    h.chksum[7] = ' ';

    if ((r = write_all(t, &h, sizeof h)) < 0 || (r = write_all(t, data, size)) < 0)
        return r;
    static const char zeros[BLOCK];
    size_t pad = (BLOCK - size % BLOCK) % BLOCK;
    return write_all(t, zeros, pad);
}

int rd_tar_finish(rd_tar *t)
{
    static const char zeros[2 * BLOCK];
    return write_all(t, zeros, sizeof zeros);
}
