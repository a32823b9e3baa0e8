/* SPDX-License-Identifier: MIT */
/* libFuzzer target for rd_config_parse. Besides memory errors: an error
 * names the file, and what loads dumps to text that loads to the same
 * configuration (so the error-free path loses nothing). */
#include "fuzz.h"
#include "fixes.h"
#include "registry.h"
#include "config.h"
#include "util.h"

static bool lines_fit(const char *s)
{
    for (const char *l = s; *l;) {
        const char *nl = strchr(l, '\n');
        size_t len = nl ? (size_t)(nl - l) : strlen(l);
        if (len > 198)
            return false;
        l += len + (nl ? 1 : 0);
    }
    return true;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static char **fix_ids;
    if (!fix_ids)
        fix_ids = rd_fix_table_ids(&rd_fix_registry);
    const rd_config_ids ids = { .probes = &rd_probe_registry, .fix_ids = fix_ids };
    rd_config c;
    rd_config_init(&c);
    char *err = NULL;
    if (rd_config_parse(&c, &ids, "fuzz.conf", (const char *)data, size, &err) < 0) {
        if (!err || !startswith(err, "fuzz.conf"))
            abort();
        free(err);
        rd_config_free(&c);
        return 0;
    }
    char *dump = rd_config_dump(&c);
    if (lines_fit(dump)) {
        rd_config again;
        rd_config_init(&again);
        if (rd_config_parse(&again, &ids, "dump", dump, strlen(dump), &err) < 0)
            abort();
        char *dump2 = rd_config_dump(&again);
        if (!streq(dump, dump2))
            abort();
        free(dump2);
        rd_config_free(&again);
    }
    free(dump);
    rd_config_free(&c);
    return 0;
}
