/* SPDX-License-Identifier: MIT */
/* Resetting one area of the facts, so the daemon can re-gather only the
 * probes whose inputs changed. Driven by the same schema tables as the JSON
 * code, so a field added to an area is freed here too. */
#include <errno.h>
#include "facts-json.h"
#include "util.h"

int rd_facts_reset_area(rd_facts *f, const char *area)
{
    for (size_t i = 0; i < rd_facts_schema.n_fields; i++) {
        const rd_field *fd = &rd_facts_schema.fields[i];
        if (fd->type != RD_FT_OBJ || !streq(fd->name, area))
            continue;
        /* rd_struct_free leaves the struct zeroed, which is what
         * rd_facts_init gives every area. */
        rd_struct_free(fd->sub, (char *)f + fd->offset);
        return 0;
    }
    return -ENOENT;
}
