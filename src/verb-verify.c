/* SPDX-License-Identifier: MIT */
#include "cli.h"

int rd_verb_verify(const rd_options *o, char **args, size_t n_args)
{
    return rd_fail("the verify command is not available in this version");
}
