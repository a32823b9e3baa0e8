/* SPDX-License-Identifier: MIT */
/* The environment files the env probe reads: /etc/environment (pam_env),
 * environment.d (systemd) and profile.d / ~/.profile (shell). The first
 * byte picks the syntax. Besides memory errors: every variable kept is one
 * ROCm reads, with a line inside the text. */
#include "env.h"
#include "facts.h"
#include "fuzz.h"
#include "util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    static const rd_env_syntax syntaxes[] = { RD_ENV_SYNTAX_PAM, RD_ENV_SYNTAX_SYSTEMD, RD_ENV_SYNTAX_SHELL };
    char *text = fuzz_strndup(data + 1, size - 1);
    size_t lines = 1;
    for (const char *p = text; *p; p++)
        lines += *p == '\n';
    rd_facts f;
    rd_facts_init(&f);
    rd_env_parse_text(text, syntaxes[data[0] % 3], "/etc/environment", &f.env.vars, &f.env.n_vars);
    for (size_t i = 0; i < f.env.n_vars; i++) {
        const rd_env_var *v = &f.env.vars[i];
        if (!v->name || !rd_env_is_relevant(v->name) || v->line < 1 || (size_t)v->line > lines)
            abort();
    }
    rd_facts_free(&f);
    free(text);
    return 0;
}
