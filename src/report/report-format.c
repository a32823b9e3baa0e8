/* SPDX-License-Identifier: MIT */
/* The report's formats, one table: --format's names and one renderer each
 * with one signature, over the builders of report-text.c, report-json.c,
 * report-prom.c and report-nfd.c. */
#include <errno.h>
#include "json-util.h"
#include "report.h"
#include "util.h"

static int write_text(FILE *out, const rd_report_input *in)
{
    rd_report_text(out, in->facts, in->view, in->findings, in->color);
    return ferror(out) ? -EIO : 0;
}

static int write_json(FILE *out, const rd_report_input *in)
{
    json_object *j = rd_report_json(in->facts, in->view, in->findings, in->level);
    _cleanup_free_ char *s = rd_json_pretty(j);
    int r = fputs(s, out) < 0 ? -EIO : 0;
    json_object_put(j);
    return r;
}

static int write_prometheus(FILE *out, const rd_report_input *in)
{
    return rd_report_prometheus(out, in->facts, in->view, in->findings);
}

static int write_nfd(FILE *out, const rd_report_input *in)
{
    return rd_report_nfd(out, in->facts, in->view, in->findings);
}

const rd_renderer rd_renderers[RD_FORMAT_MAX] = {
    [RD_FORMAT_TEXT] = { "text", write_text },
    [RD_FORMAT_JSON] = { "json", write_json },
    [RD_FORMAT_PROMETHEUS] = { "prometheus", write_prometheus },
    [RD_FORMAT_NFD] = { "nfd", write_nfd },
};

int rd_format_from_name(const char *name)
{
    for (size_t i = 0; name && i < RD_FORMAT_MAX; i++)
        if (streq(name, rd_renderers[i].name))
            return (int)i;
    return -EINVAL;
}
