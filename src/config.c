/* SPDX-License-Identifier: MIT */
#include "config.h"

#include <stdlib.h>
#include "util.h"

void rd_config_init(rd_config *c)
{
    *c = (rd_config){
        .expected_gpus = -1,
        .level = 1,
        .runtime_timeout_s = 20,
        .access_group = xstrdup("render"),
        .status_file = xstrdup("/run/rocm-doctor/status.json"),
        .debounce_ms = 500,
    };
}

int rd_config_load(const char *root, const char *explicit_file, rd_config *ret, char **ret_error)
{
    rd_config_init(ret);
    return 0;
}

void rd_config_free(rd_config *c)
{
    strv_free(c->files);
    strv_free(c->users);
    strv_free(c->ignore);
    for (size_t i = 0; i < c->n_severity; i++)
        free(c->severity[i].id);
    free(c->severity);
    strv_free(c->allowed_fixes);
    free(c->access_group);
    free(c->rocm_release);
    free(c->apt_key_file);
    free(c->apt_key_fingerprint);
    free(c->apt_key_url);
    free(c->status_file);
    free(c->prometheus_file);
    free(c->nfd_file);
    *c = (rd_config){ 0 };
}

void rd_config_apply(const rd_config *c, size_t n_gpus, rd_findings *findings)
{
}
