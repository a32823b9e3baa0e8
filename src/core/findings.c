/* SPDX-License-Identifier: MIT */
#include "findings.h"

rd_finding *rd_finding_add(rd_findings *fs, const char *id, rd_severity sev, const char *gpu, const char *fmt, ...)
{
    rd_finding *f = ARRAY_APPEND(fs->items, fs->n);
    f->id = xstrdup(id);
    f->severity = sev;
    f->gpu = xstrdup_or_null(gpu);
    va_list ap;
    va_start(ap, fmt);
    f->summary = xvasprintf(fmt, ap);
    va_end(ap);
    return f;
}

void rd_finding_evidence(rd_finding *f, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    f->evidence = strv_push_n(f->evidence, &f->n_evidence, xvasprintf(fmt, ap));
    va_end(ap);
}

void rd_finding_evidence_all(rd_finding *f, char *const *lines)
{
    for (size_t i = 0; lines && lines[i]; i++)
        f->evidence = strv_push_n(f->evidence, &f->n_evidence, xstrdup(lines[i]));
}

void rd_finding_remedy(rd_finding *f, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    free(f->remedy);
    f->remedy = xvasprintf(fmt, ap);
    va_end(ap);
}

void rd_finding_set_fix(rd_finding *f, const char *fix_id)
{
    free(f->fix);
    f->fix = xstrdup_or_null(fix_id);
}

const rd_finding *rd_findings_get(const rd_findings *fs, const char *id)
{
    for (size_t i = 0; i < fs->n; i++)
        if (streq(fs->items[i].id, id))
            return &fs->items[i];
    return NULL;
}

bool rd_findings_has(const rd_findings *fs, const char *id)
{
    return rd_findings_get(fs, id) != NULL;
}

void rd_finding_free(rd_finding *f)
{
    free(f->id);
    free(f->summary);
    strv_free(f->evidence);
    free(f->remedy);
    free(f->fix);
    free(f->gpu);
    *f = (rd_finding){ 0 };
}

void rd_findings_free(rd_findings *fs)
{
    for (size_t i = 0; i < fs->n; i++)
        rd_finding_free(&fs->items[i]);
    free(fs->items);
    fs->items = NULL;
    fs->n = 0;
}

int rd_findings_exit_status(const rd_findings *fs)
{
    int worst = RD_EXIT_OK;
    for (size_t i = 0; i < fs->n; i++) {
        if (fs->items[i].severity == RD_SEV_ERROR)
            return RD_EXIT_ERROR;
        if (fs->items[i].severity == RD_SEV_WARNING)
            worst = RD_EXIT_WARNING;
    }
    return worst;
}

void rd_findings_sort(rd_findings *fs)
{
    /* insertion sort: n is small and the order must be stable */
    for (size_t i = 1; i < fs->n; i++) {
        rd_finding tmp = fs->items[i];
        size_t j = i;
        while (j > 0 && fs->items[j - 1].severity < tmp.severity) {
            fs->items[j] = fs->items[j - 1];
            j--;
        }
        fs->items[j] = tmp;
    }
}

const char *rd_severity_name(rd_severity s)
{
    switch (s) {
    case RD_SEV_OK: return "ok";
    case RD_SEV_INFO: return "info";
    case RD_SEV_WARNING: return "warning";
    case RD_SEV_ERROR: return "error";
    }
    return "unknown";
}
