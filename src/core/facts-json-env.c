/* SPDX-License-Identifier: MIT */
/* The schema of the env facts (facts-env.h). */
#include "facts-json.h"

static const rd_field env_var_fields[] = {
    F(rd_env_var, name, RD_FT_STR),
    F(rd_env_var, value, RD_FT_STR),
    F(rd_env_var, source, RD_FT_STR),
    F(rd_env_var, line, RD_FT_INT),
};

static SCHEMA(env_var_schema, rd_env_var, env_var_fields);

static const rd_field env_fields[] = {
    FA(rd_env_facts, vars, n_vars, env_var_schema),
    F(rd_env_facts, user, RD_FT_STR),
    F(rd_env_facts, home, RD_FT_STR),
    F(rd_env_facts, files, RD_FT_STRV),
    F(rd_env_facts, error, RD_FT_STR),
};

SCHEMA(rd_env_facts_schema, rd_env_facts, env_fields);
