/* SPDX-License-Identifier: MIT */
#include "catalogue.h"

#include "util.h"

#define RD_FINDING_DEF(sym, id_, sev, flags_)                                                                          \
    _Static_assert(sizeof(id_) <= RD_FINDING_ID_SIZE, "finding id " id_ " is longer than RD_FINDING_ID_SIZE");
#include "catalogue.def"
#undef RD_FINDING_DEF

const rd_finding_def rd_finding_catalogue[RD_N_FINDINGS] = {
#define RD_FINDING_DEF(sym, id_, sev, flags_)                                                                          \
    [RD_FINDING_##sym##_ROW] = { .id = id_, .severity = sev, .flags = flags_ },
#include "catalogue.def"
#undef RD_FINDING_DEF
};

const rd_finding_def *rd_finding_lookup(const char *id)
{
    for (size_t i = 0; id && i < RD_N_FINDINGS; i++)
        if (streq(rd_finding_catalogue[i].id, id))
            return &rd_finding_catalogue[i];
    return NULL;
}
