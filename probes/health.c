/* SPDX-License-Identifier: MIT */
/* GPU health at level 1: what a fleet drains a node for, from amdgpu's
 * sysfs files, the PCIe AER counters and the kernel log. No ROCm, no root.
 *
 * Each format names the kernel code it comes from where it is parsed; points
 * not verified against a real GPU are marked so. An
 * interface this kernel or GPU lacks is recorded in not_exposed, never read
 * as a healthy zero. This file holds the parsers and the gather step;
 * health-assess.c turns the facts into findings. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include "driver.h"
#include "gpus.h"
#include "health.h"
#include "probe.h"
#include "util.h"

#define MAX_EVENTS_PER_GPU 256
#define GPU_METRICS_MAX (64 * 1024)
#define BAD_PAGES_MAX (4 * 1024 * 1024)
#define KFD_TOPOLOGY "/sys/class/kfd/kfd/topology/nodes"
#define HOT_MARGIN_MAX_MC (50 * 1000)

/* ---- parsers ---- */

static const char *line_end(const char *p, const char *end)
{
    const char *nl = memchr(p, '\n', (size_t)(end - p));
    return nl ? nl : end;
}

/* "key: value" or "key value" with a decimal value that fits in int64. */
static bool parse_u63(const char *p, const char *end, int64_t *ret)
{
    while (p < end && (*p == ' ' || *p == '\t'))
        p++;
    if (p == end || *p < '0' || *p > '9')
        return false;
    uint64_t v = 0;
    for (; p < end && *p >= '0' && *p <= '9'; p++) {
        if (v > (uint64_t)INT64_MAX / 10)
            return false;
        v = v * 10 + (uint64_t)(*p - '0');
    }
    while (p < end && (*p == ' ' || *p == '\t' || *p == '\r'))
        p++;
    if (p != end || v > (uint64_t)INT64_MAX)
        return false;
    *ret = (int64_t)v;
    return true;
}

int rd_ras_err_count_parse(const char *text, size_t len, rd_ras_count *ret)
{
    int64_t v[3] = { -1, -1, -1 };
    bool any = false, inaccessible = false;
    const char *end = text + len;
    for (const char *p = text; p < end;) {
        const char *e = line_end(p, end);
        static const char *const keys[3] = { "ue:", "ce:", "de:" };
        for (int k = 0; k < 3; k++)
            if ((size_t)(e - p) > 3 && memcmp(p, keys[k], 3) == 0 && parse_u63(p + 3, e, &v[k]))
                any = true;
        if ((size_t)(e - p) >= 28 && memcmp(p, "Query currently inaccessible", 28) == 0)
            inaccessible = true;
        p = e < end ? e + 1 : end;
    }
    if (!any && !inaccessible)
        return -EINVAL;
    ret->ue = v[0];
    ret->ce = v[1];
    ret->de = v[2];
    ret->inaccessible = inaccessible && !any;
    return 0;
}

int rd_ras_features_parse(const char *text, size_t len, int64_t *ret)
{
    static const char prefix[] = "feature mask: 0x";
    const size_t n = sizeof(prefix) - 1;
    if (len <= n || memcmp(text, prefix, n) != 0)
        return -EINVAL;
    uint64_t v = 0;
    size_t i = n, digits = 0;
    for (; i < len && digits < 9; i++, digits++) {
        int d = unhexchar(text[i]);
        if (d < 0)
            break;
        v = v * 16 + (uint64_t)d;
    }
    if (digits == 0 || digits > 8 || (i < len && text[i] != '\n'))
        return -EINVAL;
    /* bits 31:29 carry the socket id (AMDGPU_RAS_FEATURES_SOCKETID_MASK) */
    *ret = (int64_t)(v & 0x1fffffffu);
    return 0;
}

/* One row "0x%08x : 0x%08x : %1s": the flag character, or 0 for anything else. */
static char bad_page_row(const char *p, const char *e)
{
    for (int field = 0; field < 2; field++) {
        if (e - p < 3 || p[0] != '0' || (p[1] != 'x' && p[1] != 'X'))
            return 0;
        p += 2;
        const char *digits = p;
        while (p < e && ((*p >= '0' && *p <= '9') || (*p >= 'a' && *p <= 'f') || (*p >= 'A' && *p <= 'F')))
            p++;
        if (p == digits || p - digits > 16 || e - p < 3 || memcmp(p, " : ", 3) != 0)
            return 0;
        p += 3;
    }
    if (e - p < 1 || (e - p > 1 && p[1] != '\r'))
        return 0;
    return *p;
}

void rd_bad_pages_parse(const char *text, size_t len, rd_bad_pages *ret)
{
    rd_bad_pages b = { 0 };
    const char *end = text + len;
    for (const char *p = text; p < end;) {
        const char *e = line_end(p, end);
        if (e > p) {
            switch (bad_page_row(p, e)) {
            case 'R': b.reserved++; break;
            case 'P': b.pending++; break;
            case 'F': b.failed++; break;
            default: b.ignored++;
            }
        }
        p = e < end ? e + 1 : end;
    }
    *ret = b;
}

static uint16_t le16(const uint8_t *b, size_t off)
{
    return (uint16_t)(b[off] | b[off + 1] << 8);
}
static uint32_t le32(const uint8_t *b, size_t off)
{
    return (uint32_t)le16(b, off) | (uint32_t)le16(b, off + 2) << 16;
}
static uint64_t le64(const uint8_t *b, size_t off)
{
    return (uint64_t)le32(b, off) | (uint64_t)le32(b, off + 4) << 32;
}

/* The layouts of kgd_pp_interface.h, by (format, content) revision and
 * sizeof: offsets of throttle_status (u32), indep_throttle_status (u64)
 * and accumulation_counter (u32, followed by the prochot, ppt, socket_thm,
 * vr_thm and hbm_thm residency counters), -1 where the layout has none.
 * gpu_metrics_v1_6 has two layouts under one revision (older mainline 384
 * bytes with throttle_status; newer 1664 bytes without): structure_size
 * tells them apart. v1_9 is attribute-encoded and its sysfs serialisation
 * was not verified, so it is not listed: "not understood". */
static const struct metrics_layout {
    uint8_t format, content;
    uint16_t size;
    int16_t throttle, indep, residency;
} metrics_layouts[] = {
    { 1, 0, 80, 68, -1, -1 },    { 1, 1, 96, 68, -1, -1 },    { 1, 2, 104, 68, -1, -1 },   { 1, 3, 120, 68, 112, -1 },
    { 1, 4, 288, 40, -1, -1 },   { 1, 5, 360, 104, -1, -1 },  { 1, 6, 384, 128, -1, 104 }, { 1, 6, 1664, -1, -1, 32 },
    { 1, 7, 2208, -1, -1, 40 },  { 1, 8, 3872, -1, -1, 40 },  { 2, 0, 120, 112, -1, -1 },  { 2, 1, 120, 108, -1, -1 },
    { 2, 2, 128, 108, 120, -1 }, { 2, 3, 152, 108, 120, -1 }, { 2, 4, 168, 108, 120, -1 }, { 3, 0, 264, -1, -1, -1 },
};

static void metrics_fill(const struct metrics_layout *l, const uint8_t *buf, rd_gpu_metrics *m)
{
    m->understood = true;
    m->layout = xasprintf("gpu_metrics_v%u_%u (%u bytes)", l->format, l->content, l->size);
    if (l->throttle >= 0)
        m->throttle_status = le32(buf, (size_t)l->throttle);
    if (l->indep >= 0) {
        m->has_indep_throttle = true;
        m->indep_throttle_status = le64(buf, (size_t)l->indep);
    }
    if (l->residency >= 0) {
        size_t o = (size_t)l->residency;
        m->accumulation_counter = le32(buf, o);
        m->prochot_residency = le32(buf, o + 4);
        m->ppt_residency = le32(buf, o + 8);
        m->socket_thm_residency = le32(buf, o + 12);
        m->vr_thm_residency = le32(buf, o + 16);
        m->hbm_thm_residency = le32(buf, o + 20);
    }
    if (l->format == 3)
        m->note = xstrdup("gpu_metrics_v3_0 reports throttle residencies without a time base; not used");
    else if (l->throttle >= 0 && l->indep < 0)
        m->note = xstrdup("throttle_status is ASIC dependent (raw firmware bits) and is not decoded");
}

void rd_gpu_metrics_parse(const uint8_t *buf, size_t len, rd_gpu_metrics *m)
{
    m->exposed = true;
    m->size = (int64_t)len;
    m->structure_size = m->format_revision = m->content_revision = -1;
    m->throttle_status = m->accumulation_counter = -1;
    m->prochot_residency = m->ppt_residency = m->socket_thm_residency = -1;
    m->vr_thm_residency = m->hbm_thm_residency = -1;
    if (len < 4) {
        m->note = xasprintf("%zu bytes, shorter than the 4-byte header: not understood", len);
        return;
    }
    m->structure_size = le16(buf, 0);
    m->format_revision = buf[2];
    m->content_revision = buf[3];
    const struct metrics_layout *known = NULL, *match = NULL;
    for (size_t i = 0; i < ELEMENTSOF(metrics_layouts); i++) {
        const struct metrics_layout *l = &metrics_layouts[i];
        if (l->format != buf[2] || l->content != buf[3])
            continue;
        known = l;
        if (l->size == m->structure_size)
            match = l;
    }
    if (!known)
        m->note = xasprintf("format %u.%u is not known to this version: not understood", buf[2], buf[3]);
    else if (!match)
        m->note = xasprintf("structure_size %" PRId64 " does not match gpu_metrics_v%u_%u (%u bytes): not understood",
                            m->structure_size, buf[2], buf[3], known->size);
    else if (len < match->size)
        m->note = xasprintf("truncated: %zu of %u bytes: not understood", len, match->size);
    else
        metrics_fill(match, buf, m);
}

int rd_aer_total_parse(const char *text, size_t len, int64_t *ret)
{
    /* One "NAME COUNT" line per error bit (old kernels: names with spaces,
     * the count is the last token), then "TOTAL_ERR_COR|FATAL|NONFATAL N". */
    const char *p = text, *end = text + len;
    /* the kernel writes the total last: look from the end */
    for (const char *q = end; q > text; q--)
        if (q - text >= 10 && q[-1] == '_' && memcmp(q - 10, "TOTAL_ERR_", 10) == 0 &&
            (q - 10 == text || q[-11] == '\n')) {
            p = q - 10;
            const char *e = line_end(p, end);
            const char *sp = memchr(p, ' ', (size_t)(e - p));
            return sp && parse_u63(sp, e, ret) ? 0 : -EINVAL;
        }
    return -ENOENT;
}

/* ---- kernel log classification ---- */

static void find_address(const char *text, char ret[static 16])
{
    ret[0] = 0;
    for (const char *p = text; *p; p++) {
        unsigned d, b, v, f;
        char buf[13];
        size_t n = strnlen(p, 12);
        if (n < 12 || p[4] != ':' || p[7] != ':' || p[10] != '.')
            continue;
        memcpy(buf, p, 12);
        buf[12] = 0;
        if (rd_pci_parse_address(buf, &d, &b, &v, &f)) {
            snprintf(ret, 16, "%04x:%02x:%02x.%x", d, b, v, f);
            return;
        }
    }
}

/* The word after `after` in text, up to a space, comma or the end. */
static char *word_after(const char *text, const char *after)
{
    const char *p = strstr(text, after);
    if (!p)
        return NULL;
    p += strlen(after);
    size_t n = strcspn(p, " ,");
    return n ? xstrndup(p, n) : NULL;
}

/* "N [new ]{uncorrectable|correctable|deferred} hardware errors detected
 * [in total ]in X block": the count just before the type. */
static bool ras_count_line(const char *text, rd_health_event *ret)
{
    static const struct {
        const char *word, *kind;
    } types[] = {
        { " uncorrectable hardware errors detected", RD_HEALTH_EV_RAS_UE },
        { " correctable hardware errors detected", RD_HEALTH_EV_RAS_CE },
        { " deferred hardware errors detected", RD_HEALTH_EV_RAS_DE },
    };
    for (size_t i = 0; i < ELEMENTSOF(types); i++) {
        const char *t = strstr(text, types[i].word);
        if (!t)
            continue;
        if (i == 1 && t >= text + 2 && strncmp(t - 2, "un", 2) == 0)
            continue;
        const char *q = t;
        if (q - text >= 4 && strncmp(q - 4, " new", 4) == 0)
            q -= 4;
        const char *s = q;
        while (s > text && s[-1] >= '0' && s[-1] <= '9')
            s--;
        int64_t n = -1;
        if (s < q)
            (void)parse_u63(s, q, &n);
        ret->kind = xstrdup(types[i].kind);
        ret->count = n;
        const char *in = strstr(t, " in ");
        const char *blk = in ? strstr(in, " block") : NULL;
        if (blk) {
            const char *b = blk;
            while (b > in && b[-1] != ' ')
                b--;
            ret->detail = xstrndup(b, (size_t)(blk - b));
        }
        return true;
    }
    return false;
}

static bool threshold_line(const char *text, rd_health_event *ret)
{
    /* "Saved bad pages %d reaches threshold value %d" (older with
     * parentheses) and "RAS records:%d exceed threshold:%d" */
    const char *p = strstr(text, "reaches threshold value");
    const char *q = p ? NULL : strstr(text, "exceed threshold:");
    if (!(p && strstr(text, "Saved bad pages")) && !(q && strstr(text, "RAS records:")))
        return false;
    const char *num = p ? p + strlen("reaches threshold value") : q + strlen("exceed threshold:");
    while (*num == ' ' || *num == '(')
        num++;
    const char *e = num;
    while (*e >= '0' && *e <= '9')
        e++;
    ret->kind = xstrdup(RD_HEALTH_EV_BAD_PAGES);
    ret->count = -1;
    if (e > num)
        (void)parse_u63(num, e, &ret->count);
    return true;
}

static char *process_of(const char *text)
{
    /* "for process %s pid %d thread ..." (older gmc), "Process information:
     * process %s pid %d ..." (older amdgpu_job), " in process %s pid %d"
     * and "Process %s pid %d thread" (newer; format not read from source). */
    static const char *const keys[] = { "for process ", "in process ", "information: process ", "Process " };
    for (size_t i = 0; i < ELEMENTSOF(keys); i++) {
        const char *p = strstr(text, keys[i]);
        if (!p)
            continue;
        p += strlen(keys[i]);
        const char *pid = strstr(p, " pid ");
        if (!pid || pid == p)
            continue;
        size_t n = strspn(pid + 5, "0123456789");
        return xasprintf("%.*s pid %.*s", (int)(pid - p), p, (int)n, pid + 5);
    }
    return NULL;
}

static bool hang_line(const char *text, rd_health_event *ret)
{
    const char *kind = NULL;
    if (strstr(text, "GPU reset begin"))
        kind = RD_HEALTH_EV_RESET;
    else if ((strstr(text, "GPU reset(") && strstr(text, "failed")) || strstr(text, "GPU Recovery Failed") ||
             strstr(text, "Mode2 reset failed") || (strstr(text, "Ring ") && strstr(text, " reset fail")))
        kind = RD_HEALTH_EV_RESET_FAILED;
    else if (strstr(text, "GPU reset(") && strstr(text, "succeeded"))
        kind = RD_HEALTH_EV_RESET_OK;
    else if (strstr(text, "ring ") && strstr(text, " timeout"))
        kind = RD_HEALTH_EV_RING_TIMEOUT;
    else if (strstr(text, "page fault (src_id:"))
        kind = RD_HEALTH_EV_PAGE_FAULT;
    else if (strstr(text, "MES failed to respon"))
        kind = RD_HEALTH_EV_MES_HANG;
    else if (strstr(text, "SMU: I'm not done with your previous command"))
        kind = RD_HEALTH_EV_SMU_HANG;
    else if (strstr(text, "VRAM is lost due to GPU reset"))
        kind = RD_HEALTH_EV_VRAM_LOST;
    if (!kind)
        return false;
    ret->kind = xstrdup(kind);
    ret->count = -1;
    if (streq(kind, RD_HEALTH_EV_RING_TIMEOUT))
        ret->detail = word_after(text, "ring ");
    else if (streq(kind, RD_HEALTH_EV_PAGE_FAULT))
        ret->detail = process_of(text);
    else if (streq(kind, RD_HEALTH_EV_MES_HANG))
        ret->detail = word_after(text, "msg=");
    else if (streq(kind, RD_HEALTH_EV_RESET_FAILED) && strstr(text, "Ring "))
        ret->detail = word_after(text, "Ring ");
    return true;
}

bool rd_health_classify(const char *text, rd_health_event *ret, char ret_address[static 16])
{
    rd_health_event e = { .count = -1 };
    bool poison = strstr(text, "poison is consumed") || strstr(text, "RAS poison consumption");
    bool athub = strstr(text, "uncorrectable hardware error(") != NULL;
    if (poison || athub) {
        e.kind = xstrdup(poison ? RD_HEALTH_EV_POISON : RD_HEALTH_EV_RAS_UE);
        if (athub)
            e.detail = xstrdup("athub");
    } else if (!ras_count_line(text, &e) && !threshold_line(text, &e) && !hang_line(text, &e)) {
        return false;
    }
    find_address(text, ret_address);
    ret->kind = e.kind;
    ret->detail = e.detail;
    ret->count = e.count;
    return true;
}

/* ---- gather ---- */

/* One sysfs attribute into buf, NUL-terminated: a single read, as sysfs
 * hands a text attribute over in one piece (at most a page). A fleet runs
 * this every few minutes on hosts with eight GPUs and hundreds of these
 * files, so no second read for EOF and no allocation. Returns the length
 * or -errno. */
static ssize_t read_attr(int dirfd, const char *path, char *buf, size_t size)
{
    /* O_NONBLOCK, no fstat: a FIFO or device in a test bed never waits, and
     * the hot path keeps one open and one read */
    int fd = openat(dirfd, path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
    if (fd < 0)
        return -errno;
    ssize_t k;
    do
        k = read(fd, buf, size - 1);
    while (k < 0 && errno == EINTR);
    int err = errno;
    close(fd);
    if (k < 0)
        return -err;
    buf[k] = 0;
    return k;
}

static char *attr_line(int dirfd, const char *name)
{
    char buf[4096];
    if (read_attr(dirfd, name, buf, sizeof buf) < 0)
        return NULL;
    buf[strcspn(buf, "\n")] = 0;
    return xstrdup(strstrip(buf));
}

static int64_t attr_i64(int dirfd, const char *name)
{
    char buf[64];
    uint64_t v;
    if (read_attr(dirfd, name, buf, sizeof buf) < 0)
        return -1;
    buf[strcspn(buf, "\n")] = 0;
    if (safe_atou64(buf, 10, &v) < 0 || v > (uint64_t)INT64_MAX)
        return -1;
    return (int64_t)v;
}

static void not_exposed(rd_health_gpu *g, const char *what)
{
    g->not_exposed = strv_push(g->not_exposed, xstrdup(what));
}

/* a then b into buf (truncated to fit): the file names of a few hundred
 * reads per host, without a format parser each time. */
static const char *cat(char *buf, size_t size, const char *a, const char *b)
{
    size_t la = strnlen(a, size - 1), lb = strnlen(b, size - 1 - la);
    memcpy(buf, a, la);
    memcpy(buf + la, b, lb);
    buf[la + lb] = 0;
    return buf;
}

/* Names in the directory open at fd that end in suffix, sorted (an empty
 * list when there are none); NULL when it cannot be read. fd stays open
 * for the reads that follow. */
static char **list_fd(int fd, const char *suffix)
{
    int r;
    char **names = dir_names(fd, dir_name_visible, suffix, &r);
    if (r < 0)
        return NULL;
    return names ? names : xcalloc(1, sizeof(char *));
}

typedef struct {
    const char *prefix;
    char *first;
    size_t size;
    int n;
} scan_state;

static int scan_name(const char *name, void *userdata)
{
    scan_state *st = userdata;
    if (st->prefix && !startswith(name, st->prefix))
        return 0;
    if (st->n++ == 0 && st->first)
        snprintf(st->first, st->size, "%s", name);
    return 0;
}

/* The first entry of a directory whose name starts with prefix (any when
 * NULL), into ret; the count of such entries is returned, or -errno. */
static int dir_scan(int dirfd, const char *path, const char *prefix, char *ret, size_t size)
{
    _cleanup_close_ int fd = openat(dirfd, path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0)
        return -errno;
    scan_state st = { prefix, ret, size, 0 };
    int r = dir_each(fd, scan_name, &st);
    return r < 0 ? r : st.n;
}

static void gather_ras(int dirfd, rd_health_gpu *g, int64_t card)
{
    _cleanup_close_ int fd = openat(dirfd, "ras", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    _cleanup_strv_free_ char **files = fd >= 0 ? list_fd(fd, "_err_count") : NULL;
    if (!files) {
        not_exposed(g, "ras");
        return;
    }
    g->ras_exposed = true;
    char buf[512];
    ssize_t k = read_attr(fd, "features", buf, sizeof buf);
    if (k > 0)
        (void)rd_ras_features_parse(buf, (size_t)k, &g->ras_features);
    /* A mask of 0: no block has RAS enabled, and the *_err_count files the
     * driver still creates read "ue: 0 ce: 0" without counting anything. */
    if (g->ras_features == 0)
        not_exposed(g, "ras/*_err_count (ras/features: no block enabled)");
    for (size_t i = 0; g->ras_features != 0 && files[i]; i++) {
        rd_ras_count c = { 0 };
        if ((k = read_attr(fd, files[i], buf, sizeof buf)) < 0 || rd_ras_err_count_parse(buf, (size_t)k, &c) < 0)
            continue;
        c.block = xstrndup(files[i], strlen(files[i]) - strlen("_err_count"));
        *ARRAY_APPEND(g->ras, g->n_ras) = c;
    }
    _cleanup_free_ char *text = NULL;
    size_t len = 0;
    if (read_file_at(fd, "gpu_vram_bad_pages", BAD_PAGES_MAX, &text, &len) == 0) {
        rd_bad_pages b;
        rd_bad_pages_parse(text, len, &b);
        g->bad_pages_exposed = true;
        g->bad_pages_reserved = b.reserved;
        g->bad_pages_pending = b.pending;
        g->bad_pages_failed = b.failed;
    } else {
        /* absent when amdgpu.bad_page_threshold=0 (retirement disabled) */
        not_exposed(g, "ras/gpu_vram_bad_pages");
    }
    /* The threshold in effect, from debugfs: root only, usually unreadable,
     * and only looked at when the GPU has retired pages. */
    if (card >= 0 && rd_health_retired_pages(g) > 0) {
        _cleanup_free_ char *dbg = xasprintf("/sys/kernel/debug/dri/%" PRId64 "/ras/bad_page_cnt_threshold", card);
        g->bad_page_threshold = attr_i64(AT_FDCWD, dbg);
    }
}

/* amdgpu's temperature channels and their labels, fixed by the driver
 * (amdgpu_pm.c: temp1 edge, temp2 junction, temp3 mem, each shown only where
 * the SMU has the sensor): the label follows from the channel, so
 * tempN_label is not read. */
static const char *const amdgpu_temp_label[] = { "edge", "junction", "mem" };
#define N_TEMPS ELEMENTSOF(amdgpu_temp_label)

/* The hwmon files the checks read, as bits: temp1..3 × (input, crit,
 * emergency), then the power files. */
enum { HW_INPUT, HW_CRIT, HW_EMERGENCY, HW_PER_TEMP };
static const char *const hwmon_temp_suffix[HW_PER_TEMP] = { "_input", "_crit", "_emergency" };
static const char *const hwmon_power[] = { "power1_average", "power1_input", "power1_cap", "power1_cap_default",
                                           "power1_cap_max" };
#define HW_POWER (N_TEMPS * HW_PER_TEMP)

static int hwmon_bit(const char *n, void *userdata)
{
    uint64_t *bits = userdata;
    if (startswith(n, "temp") && n[4] >= '1' && n[4] < (char)('1' + N_TEMPS)) {
        for (int k = 0; k < HW_PER_TEMP; k++)
            if (streq(n + 5, hwmon_temp_suffix[k]))
                *bits |= UINT64_C(1) << ((n[4] - '1') * HW_PER_TEMP + k);
    } else if (startswith(n, "power1_")) {
        for (size_t k = 0; k < ELEMENTSOF(hwmon_power); k++)
            if (streq(n, hwmon_power[k]))
                *bits |= UINT64_C(1) << (HW_POWER + k);
    }
    return 0;
}

/* Which of those files the directory has, in one pass: a read of a file the
 * kernel did not create costs as much as one it did. */
static uint64_t hwmon_files(int fd)
{
    uint64_t bits = 0;
    return dir_each(fd, hwmon_bit, &bits) < 0 ? 0 : bits;
}

static void gather_temp(int fd, uint64_t bits, int i, rd_health_gpu *g)
{
#define HAS(k) (bits & (UINT64_C(1) << ((i - 1) * HW_PER_TEMP + (k))))
    char temp[8] = "temp1", name[32];
    temp[4] = (char)('0' + i);
    int64_t input = HAS(HW_INPUT) ? attr_i64(fd, cat(name, sizeof name, temp, "_input")) : -1;
    if (input < 0)
        return;
    rd_temp_sensor *t = ARRAY_APPEND(g->temps, g->n_temps);
    t->name = xstrdup(temp);
    t->input_mc = input;
    t->label = xstrdup(amdgpu_temp_label[i - 1]);
    t->crit_mc = HAS(HW_CRIT) ? attr_i64(fd, cat(name, sizeof name, temp, "_crit")) : -1;
    /* the emergency limit matters only near the critical one; the largest
     * hot_margin_c the configuration accepts is 50 °C */
    bool near = t->crit_mc < 0 || input >= t->crit_mc - HOT_MARGIN_MAX_MC;
    t->emergency_mc = near && HAS(HW_EMERGENCY) ? attr_i64(fd, cat(name, sizeof name, temp, "_emergency")) : -1;
#undef HAS
}

static void gather_hwmon(int dirfd, rd_health_gpu *g)
{
    char base[PATH_MAX] = "hwmon/";
    if (dir_scan(dirfd, "hwmon", "hwmon", base + 6, sizeof base - 6) <= 0) {
        not_exposed(g, "hwmon");
        return;
    }
    _cleanup_close_ int fd = openat(dirfd, base, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) {
        not_exposed(g, "hwmon");
        return;
    }
    g->hwmon_exposed = true;
    uint64_t bits = hwmon_files(fd);
    for (int i = 1; i <= (int)N_TEMPS; i++)
        gather_temp(fd, bits, i, g);
    int64_t v[ELEMENTSOF(hwmon_power)];
    for (size_t k = 0; k < ELEMENTSOF(hwmon_power); k++)
        /* power1_input only where power1_average is absent (newer SMUs) */
        v[k] = (bits & (UINT64_C(1) << (HW_POWER + k))) && (k != 1 || v[0] < 0) ? attr_i64(fd, hwmon_power[k]) : -1;
    g->power_uw = v[0] >= 0 ? v[0] : v[1];
    g->power_cap_uw = v[2];
    /* power1_cap_default: newer kernels only (not in the DOC excerpt read) */
    g->power_cap_default_uw = v[3];
    g->power_cap_max_uw = v[4];
}

static void gather_metrics(int dirfd, rd_health_gpu *g)
{
    _cleanup_free_ char *buf = NULL;
    size_t len = 0;
    g->metrics.structure_size = g->metrics.format_revision = g->metrics.content_revision = -1;
    g->metrics.throttle_status = g->metrics.accumulation_counter = -1;
    g->metrics.prochot_residency = g->metrics.ppt_residency = g->metrics.socket_thm_residency = -1;
    g->metrics.vr_thm_residency = g->metrics.hbm_thm_residency = -1;
    int r = read_file_at(dirfd, "gpu_metrics", GPU_METRICS_MAX, &buf, &len);
    if (r == -EFBIG) {
        g->metrics.exposed = true;
        g->metrics.note = xasprintf("larger than %d bytes: not understood", GPU_METRICS_MAX);
        return;
    }
    if (r < 0) {
        not_exposed(g, "gpu_metrics");
        return;
    }
    rd_gpu_metrics_parse((const uint8_t *)buf, len, &g->metrics);
}

static void gather_inventory(int dirfd, const rd_facts *f, rd_health_gpu *g)
{
    _cleanup_close_ int fd = openat(dirfd, "fw_version", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    _cleanup_strv_free_ char **fw = fd >= 0 ? list_fd(fd, "_fw_version") : NULL;
    if (!fw)
        not_exposed(g, "fw_version");
    for (size_t i = 0; fw && fw[i]; i++) {
        /* "mec=" then the value, read in place after it */
        char entry[128];
        size_t n = strlen(fw[i]) - strlen("_fw_version");
        if (n + 2 >= sizeof entry)
            continue;
        memcpy(entry, fw[i], n);
        entry[n++] = '=';
        if (read_attr(fd, fw[i], entry + n, sizeof entry - n) < 0)
            continue;
        entry[n + strcspn(entry + n, "\n")] = 0;
        g->firmware = strv_push(g->firmware, xstrdup(entry));
    }
    g->vbios_version = attr_line(dirfd, "vbios_version");
    /* serial_number, product_* come from the board FRU: empty or absent on
     * most consumer boards (format not verified against the source). */
    g->serial_number = attr_line(dirfd, "serial_number");
    /* used by gpu.vram-missing: NPS2/NPS4 report a share of the memory */
    g->memory_partition = attr_line(dirfd, "current_memory_partition");
    /* unique_id, product_name and mem_info_vram_total: the drm probe read them */
    for (size_t i = 0; i < f->drm.n_devices; i++) {
        const rd_drm_device *d = &f->drm.devices[i];
        if (!streq_ptr(d->pci_address, g->pci_address))
            continue;
        g->unique_id = xstrdup_or_null(d->unique_id);
        g->product_name = xstrdup_or_null(d->product_name);
        g->vram_total = d->vram_total > 0 && d->vram_total <= INT64_MAX ? (int64_t)d->vram_total : -1;
        break;
    }
}

static void gather_xgmi(int dirfd, rd_health_gpu *g)
{
    uint64_t hive;
    char buf[64];
    g->xgmi_hive_size = -1;
    if (read_attr(dirfd, "xgmi_hive_info/xgmi_hive_id", buf, sizeof buf) < 0)
        return; /* only XGMI parts in a hive have it */
    buf[strcspn(buf, "\n")] = 0;
    if (safe_atou64(buf, 10, &hive) < 0)
        return;
    g->xgmi_hive_id = hive;
    int n = dir_scan(dirfd, "xgmi_hive_info", "node", NULL, 0);
    g->xgmi_hive_size = n >= 0 ? n : -1;
    /* xgmi_error is not read: reading it clears the counter (amdgpu_xgmi.c). */
}

/* The AER counters of the GPU (its directory open at gpu_fd) and of every
 * port up to the root. */
static void gather_aer(const rd_facts *f, int gpu_fd, rd_health_gpu *g)
{
    const rd_pci_device *d = rd_pci_find(f, g->pci_address);
    bool any = false;
    for (int depth = 0; d && depth < 16; depth++, d = rd_pci_find(f, d->parent)) {
        char path[64];
        _cleanup_close_ int port_fd = depth > 0 ? open(cat(path, sizeof path, "/sys/bus/pci/devices/", d->address),
                                                       O_RDONLY | O_DIRECTORY | O_CLOEXEC)
                                                : -1;
        int fd = depth > 0 ? port_fd : gpu_fd;
        rd_aer_device *a = ARRAY_APPEND(g->aer, g->n_aer);
        a->address = xstrdup(d->address);
        a->correctable = a->nonfatal = a->fatal = -1;
        static const char *const files[] = { "aer_dev_correctable", "aer_dev_nonfatal", "aer_dev_fatal" };
        int64_t *slots[] = { &a->correctable, &a->nonfatal, &a->fatal };
        for (size_t i = 0; fd >= 0 && i < ELEMENTSOF(files); i++) {
            char t[4096];
            ssize_t len = read_attr(fd, files[i], t, sizeof t);
            if (len >= 0 && rd_aer_total_parse(t, (size_t)len, slots[i]) == 0)
                a->exposed = any = true;
        }
    }
    if (!any)
        not_exposed(g, "aer");
}

static int64_t card_index(const rd_facts *f, const char *address)
{
    for (size_t i = 0; i < f->drm.n_devices; i++) {
        const rd_drm_device *d = &f->drm.devices[i];
        const char *p = d->card ? strrchr(d->card, 'd') : NULL;
        int v;
        if (streq_ptr(d->pci_address, address) && p && safe_atoi(p + 1, &v) == 0)
            return v;
    }
    return -1;
}

static void gather_gpu(const rd_facts *f, const rd_pci_device *p, rd_health_gpu *g)
{
    g->pci_address = xstrdup(p->address);
    g->ras_features = g->bad_page_threshold = -1;
    g->bad_pages_reserved = g->bad_pages_pending = g->bad_pages_failed = -1;
    g->power_uw = g->power_cap_uw = g->power_cap_default_uw = g->power_cap_max_uw = -1;
    g->vram_total = -1;
    _cleanup_free_ char *path = xasprintf("/sys/bus/pci/devices/%s", p->address);
    _cleanup_close_ int fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) {
        g->xgmi_hive_size = -1;
        not_exposed(g, "sysfs device directory");
        return;
    }
    gather_ras(fd, g, card_index(f, p->address));
    gather_hwmon(fd, g);
    gather_metrics(fd, g);
    gather_inventory(fd, f, g);
    gather_xgmi(fd, g);
    gather_aer(f, fd, g);
}

/* "key value" lines of an io_link's properties: the four the check uses. */
static void io_link_parse(const char *text, size_t len, int64_t ret[4])
{
    static const char *const keys[4] = { "type ", "node_from ", "node_to ", "weight " };
    const char *end = text + len;
    for (const char *p = text; p < end;) {
        const char *e = line_end(p, end);
        for (size_t k = 0; *p == 't' || *p == 'n' || *p == 'w' ? k < ELEMENTSOF(keys) : false; k++) {
            size_t n = strlen(keys[k]);
            if (*p == keys[k][0] && (size_t)(e - p) > n && memcmp(p, keys[k], n) == 0) {
                (void)parse_u63(p + n, e, &ret[k]);
                break;
            }
        }
        p = e < end ? e + 1 : end;
    }
}

/* The GPU a hive node sits on: domain, bus and slot (MI300 compute
 * partitions report location_id | partition index); 0 for other nodes. */
static uint64_t socket_key(const rd_kfd_node *n)
{
    if (rd_kfd_prop_or(n, "hive_id", 0) == 0 || !rd_kfd_node_is_gpu(n))
        return 0; /* CPU nodes and GPUs outside a hive: one lookup */
    uint64_t loc = rd_kfd_prop_or(n, "location_id", UINT64_MAX);
    if (loc == UINT64_MAX)
        return 0;
    return (rd_kfd_prop_or(n, "domain", 0) << 16 | (loc >> 3)) + 1;
}

/* The io_links of the first node of each GPU in a hive, by index up to the
 * node's io_links_count (no directory listing); only those of type XGMI (11,
 * CRAT_IOLINK_TYPE_XGMI) are kept. XGMI links belong to the socket, so the
 * other partitions of a GPU in CPX mode (63 links each, 4032 on eight
 * MI300X) add nothing but reads. */
static void gather_xgmi_links(const rd_facts *f, rd_health_facts *h)
{
    _cleanup_free_ uint64_t *keys = xcalloc(f->kfd.n_nodes + 1, sizeof(uint64_t));
    for (size_t i = 0; i < f->kfd.n_nodes; i++) {
        const rd_kfd_node *n = &f->kfd.nodes[i];
        bool seen = false;
        keys[i] = socket_key(n);
        for (size_t j = 0; j < i && keys[i] && !seen; j++)
            seen = keys[j] == keys[i];
        if (!keys[i] || seen)
            continue;
        uint64_t count = rd_kfd_prop_or(n, "io_links_count", 0);
        int64_t read = 0;
        char dir[PATH_MAX], text[4096];
        snprintf(dir, sizeof dir, KFD_TOPOLOGY "/%" PRId64 "/io_links", n->node_id);
        _cleanup_close_ int dfd = count ? open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC) : -1;
        for (unsigned j = 0; dfd >= 0 && j < count && j < 10000; j++) {
            /* "N/properties", N in decimal */
            char path[32], *p = path + 5;
            unsigned rest = j;
            do
                *--p = (char)('0' + rest % 10);
            while ((rest /= 10) > 0);
            size_t nd = (size_t)(path + 5 - p);
            memmove(path, p, nd);
            memcpy(path + nd, "/properties", sizeof "/properties");
            ssize_t len = read_attr(dfd, path, text, sizeof text);
            if (len < 0)
                continue;
            read++;
            int64_t v[4] = { -1, -1, -1, -1 }; /* type, node_from, node_to, weight */
            io_link_parse(text, (size_t)len, v);
            if (v[0] != 11)
                continue;
            rd_xgmi_link *x = ARRAY_APPEND(h->xgmi_links, h->n_xgmi_links);
            x->node_from = v[1] >= 0 ? v[1] : n->node_id;
            x->node_to = v[2];
            x->weight = v[3];
        }
        *ARRAY_APPEND(h->io_links_read, h->n_io_links_read) = (rd_io_links_read){ n->node_id, read };
    }
}

typedef struct {
    rd_health_facts *h;
} kmsg_state;

/* The event list a line belongs to: its GPU's by the address it names, the
 * only GPU's when it names none, else the host's. */
static void event_list(kmsg_state *st, const char *address, rd_health_event ***ret, size_t **ret_n)
{
    rd_health_gpu *g = NULL;
    for (size_t i = 0; i < st->h->n_gpus && !g; i++)
        if (address[0] ? streq(st->h->gpus[i].pci_address, address) : st->h->n_gpus == 1)
            g = &st->h->gpus[i];
    *ret = g ? &g->events : &st->h->events;
    *ret_n = g ? &g->n_events : &st->h->n_events;
}

/* "Process information: process X pid N ..." after a ring timeout, or the
 * newer task-info line after a page fault: the process goes to that event. */
static void annotate_process(kmsg_state *st, const char *text)
{
    if (!strstr(text, "rocess"))
        return;
    char address[16];
    rd_health_event **arr;
    size_t *n;
    find_address(text, address);
    event_list(st, address, &arr, &n);
    if (*n == 0)
        return;
    rd_health_event *last = &(*arr)[*n - 1];
    bool fault = streq(last->kind, RD_HEALTH_EV_PAGE_FAULT), ring = streq(last->kind, RD_HEALTH_EV_RING_TIMEOUT);
    if ((!fault && !ring) || (last->detail && strstr(last->detail, " pid ")))
        return;
    _cleanup_free_ char *proc = process_of(text);
    if (!proc)
        return;
    char *d = last->detail ? xasprintf("%s, process %s", last->detail, proc) : TAKE_PTR(proc);
    free(last->detail);
    last->detail = d;
}

static void keep_event(const rd_kmsg_record *rec, void *userdata)
{
    kmsg_state *st = userdata;
    rd_health_event e = { 0 };
    char address[16];
    if (!rd_health_classify(rec->text, &e, address)) {
        annotate_process(st, rec->text);
        return;
    }
    e.usec = rec->usec;
    rd_health_event **arr;
    size_t *n;
    event_list(st, address, &arr, &n);
    if (*n >= MAX_EVENTS_PER_GPU) {
        free(e.kind);
        free(e.detail);
        return;
    }
    e.text = xstrdup(rec->text);
    *ARRAY_APPEND(*arr, *n) = e;
}

static int cmp_health_gpu(const void *a, const void *b)
{
    return strcmp(((const rd_health_gpu *)a)->pci_address, ((const rd_health_gpu *)b)->pci_address);
}

static void health_gather(const rd_ctx *ctx, rd_facts *facts)
{
    rd_health_facts *h = &facts->health;
    h->bad_page_threshold_param = attr_line(AT_FDCWD, "/sys/module/amdgpu/parameters/bad_page_threshold");
    for (size_t i = 0; i < facts->pci.n_devices; i++) {
        const rd_pci_device *p = &facts->pci.devices[i];
        if (rd_pci_is_amd_gpu(p) && streq_ptr(p->driver, "amdgpu"))
            gather_gpu(facts, p, ARRAY_APPEND(h->gpus, h->n_gpus));
    }
    if (h->n_gpus > 1)
        qsort(h->gpus, h->n_gpus, sizeof(*h->gpus), cmp_health_gpu);
    if (h->n_gpus == 0)
        return;
    gather_xgmi_links(facts, h);
    kmsg_state st = { h };
    (void)rd_kmsg_read(ctx, keep_event, &st, &h->kmsg_error);
}

const rd_probe rd_probe_health = {
    .id = "health",
    .title = "GPU health: RAS, resets, XGMI, PCIe AER, thermal and power",
    .flags = 0,
    .findings = rd_health_finding_ids,
    .areas = RD_STRV("health"),
    .uevents = RD_STRV("pci", "drm", "kfd", "drm/WEDGED"),
    .gather = health_gather,
    .assess = rd_health_assess,
};
