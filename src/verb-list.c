/* SPDX-License-Identifier: MIT */
#include "cli.h"

int rd_verb_list(const rd_options *o, char **args, size_t n_args)
{
    return rd_fail("the list command is not available in this version");
}
