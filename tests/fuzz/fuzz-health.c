/* SPDX-License-Identifier: MIT */
/* The health probe's parsers: the first byte picks one, the rest is the
 * file. Invariants: counts are never negative, a gpu_metrics that is
 * understood had at least its layout's bytes, and a kernel log line that
 * is classified has a kind. */
#include "fuzz.h"
#include "health.h"
#include "util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    uint8_t which = data[0] % 5;
    data++;
    size--;
    /* an exact-size copy lets ASan catch a read past the length */
    char *buf = malloc(size ? size : 1);
    if (!buf)
        abort();
    memcpy(buf, data, size);
    switch (which) {
    case 0: {
        rd_ras_count c = { 0 };
        if (rd_ras_err_count_parse(buf, size, &c) == 0 && c.ue < -1)
            abort();
        int64_t m;
        if (rd_ras_features_parse(buf, size, &m) == 0 && (m < 0 || m > 0x1fffffff))
            abort();
        break;
    }
    case 1: {
        rd_bad_pages b;
        rd_bad_pages_parse(buf, size, &b);
        if (b.reserved < 0 || b.pending < 0 || b.failed < 0 || b.reserved + b.pending + b.failed > (int64_t)size / 10)
            abort();
        break;
    }
    case 2: {
        rd_gpu_metrics m = { 0 };
        rd_gpu_metrics_parse((const uint8_t *)buf, size, &m);
        if (m.understood && (m.structure_size > (int64_t)size || !m.layout))
            abort();
        if (!m.understood && (!m.note || m.throttle_status != -1 || m.has_indep_throttle))
            abort();
        free(m.layout);
        free(m.note);
        break;
    }
    case 3: {
        int64_t v;
        if (rd_aer_total_parse(buf, size, &v) == 0 && v < 0)
            abort();
        break;
    }
    default: {
        char *text = fuzz_strndup(data, size);
        rd_health_event e = { 0 };
        char a[16];
        if (rd_health_classify(text, &e, a) && (!e.kind || strlen(a) >= 16))
            abort();
        free(e.kind);
        free(e.detail);
        free(text);
        break;
    }
    }
    free(buf);
    return 0;
}
