/* SPDX-License-Identifier: MIT */
/* The dnf/zypper .repo parser (probes/repos-rpm.c) on arbitrary bytes: NULs,
 * CRLF, long lines, duplicate sections. Every section it keeps has an id and
 * a line inside the text; every problem names the file. */
#include "facts-json.h"
#include "fuzz.h"
#include "rpm.h"
#include "util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const rd_repo_var vars[] = { { "releasever", "9" }, { "basearch", "x86_64" } };
    rd_repos_facts repos = { 0 };
    rd_repo_config *cfg = &repos.dnf;
    rd_repo_parse(cfg, "/etc/yum.repos.d/fuzz.repo", (const char *)data, size, vars, 2, "repo.radeon.com");
    size_t lines = 1;
    for (size_t i = 0; i < size; i++)
        lines += data[i] == '\n';
    for (size_t i = 0; i < cfg->n_repos; i++) {
        if (!cfg->repos[i].id || cfg->repos[i].line < 1 || (size_t)cfg->repos[i].line > lines)
            abort();
        if (cfg->repos[i].amd && !cfg->repos[i].url)
            abort();
    }
    for (size_t i = 0; cfg->problems && cfg->problems[i]; i++)
        if (!startswith(cfg->problems[i], "/etc/yum.repos.d/fuzz.repo"))
            abort();
    rd_struct_free(&rd_repos_facts_schema, &repos);
    return 0;
}
