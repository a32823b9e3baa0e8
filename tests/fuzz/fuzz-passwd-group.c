/* SPDX-License-Identifier: MIT */
#include "access.h"
#include "fuzz.h"
#include "util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = fuzz_strndup(data, size);
    char *name = NULL;
    int64_t uid, gid;
    if (rd_passwd_find(text, "alice", -1, &name, &uid, &gid) == 0) {
        if (!streq(name, "alice"))
            abort();
        free(name);
    }
    if (rd_passwd_find(text, NULL, 1000, &name, &uid, &gid) == 0) {
        if (uid != 1000)
            abort();
        free(name);
    }
    int64_t *gids = NULL;
    size_t n = 0;
    if (rd_group_list(text, "alice", 1000, &gids, &n) == 0) {
        if (n < 1 || gids[0] != 1000)
            abort();
        for (size_t i = 0; i < n; i++)
            for (size_t j = i + 1; j < n; j++)
                if (gids[i] == gids[j])
                    abort();
        free(gids);
    }
    free(rd_group_name(text, 992));
    free(rd_group_name(text, 0));
    free(text);
    return 0;
}
