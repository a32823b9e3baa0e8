/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include "report.h"

int rd_report_prometheus(FILE *out, const rd_facts *f, const rd_gpu_view *v, const rd_findings *fs)
{
    return -EOPNOTSUPP;
}
