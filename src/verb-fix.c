/* SPDX-License-Identifier: MIT */
#include "cli.h"

int rd_verb_fix(const rd_options *o, char **args, size_t n_args)
{
    return rd_fail("the fix command is not available in this version");
}

int rd_verb_undo(const rd_options *o, char **args, size_t n_args)
{
    return rd_fail("the undo command is not available in this version");
}
