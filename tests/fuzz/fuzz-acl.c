/* SPDX-License-Identifier: MIT */
#include "access.h"
#include "fuzz.h"
#include "util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    uint8_t *buf = malloc(size ? size : 1);
    if (!buf)
        abort();
    memcpy(buf, data, size);
    rd_acl_entry *acl = NULL;
    size_t n = 0;
    if (rd_acl_parse_xattr(buf, size, &acl, &n) == 0) {
        if (n != (size - 4) / 8)
            abort();
        rd_dev_node node = { .path = (char *)"/dev/kfd",
                             .role = (char *)"kfd",
                             .exists = true,
                             .mode = 0660,
                             .uid = 0,
                             .gid = 992,
                             .acl = acl,
                             .n_acl = n };
        const int64_t groups[] = { 1000, 44, 992 };
        (void)rd_access_can_rw(&node, 1000, groups, 3);
        (void)rd_access_can_rw(&node, 1000, NULL, 0);
        if (!rd_access_can_rw(&node, 0, NULL, 0))
            abort();
        for (size_t i = 0; i < n; i++)
            free(acl[i].tag);
        free(acl);
    }
    free(buf);
    return 0;
}
