/* SPDX-License-Identifier: MIT */
/* The environment probe's parsers: which variables matter, and their
 * literal assignments in /etc/environment, environment.d and shell files. */
#include "env.h"

#include <ctype.h>
#include <inttypes.h>
#include "util.h"

#define OVERRIDE "HSA_OVERRIDE_GFX_VERSION"

static const char *const relevant_names[] = {
    OVERRIDE,         "ROCR_VISIBLE_DEVICES", "HIP_VISIBLE_DEVICES", "CUDA_VISIBLE_DEVICES", "PYTORCH_ROCM_ARCH",
    "AMDGPU_TARGETS", "GPU_TARGETS",
};

/* HSA_OVERRIDE_GFX_VERSION_<N>: N decimal, the KFD node id. */
bool rd_env_override_node(const char *name, int64_t *ret_node)
{
    const char *p = startswith(name, OVERRIDE "_");
    uint64_t v;
    if (!p || !*p || strspn(p, "0123456789") != strlen(p) || safe_atou64(p, 10, &v) < 0 || v > INT32_MAX)
        return false;
    if (ret_node)
        *ret_node = (int64_t)v;
    return true;
}

bool rd_env_is_relevant(const char *name)
{
    for (size_t i = 0; i < ELEMENTSOF(relevant_names); i++)
        if (streq(name, relevant_names[i]))
            return true;
    return rd_env_override_node(name, NULL);
}

static bool name_start(char c)
{
    return c == '_' || isalpha((unsigned char)c);
}
static bool name_char(char c)
{
    return c == '_' || isalnum((unsigned char)c);
}
static bool blank(char c)
{
    return c == ' ' || c == '\t';
}
static bool word_end(char c)
{
    return !c || blank(c) || c == ';' || c == '&' || c == '|' || c == '\r';
}

void rd_env_add_var(rd_env_var **vars, size_t *n, const char *name, size_t name_len, char *value, const char *source,
                    int64_t line)
{
    rd_env_var *v = ARRAY_APPEND(*vars, *n);
    v->name = xstrndup(name, name_len);
    v->value = value;
    v->source = xstrdup(source);
    v->line = line;
}

/* One shell word starting at *p. Returns the literal value, or NULL when the
 * word needs a shell to evaluate (expansions, command substitution) or is
 * unterminated. *p is left after the word either way. */
static char *shell_word(const char **p)
{
    strbuf b = { 0 };
    bool literal = true;
    const char *s = *p;
    strbuf_append(&b, "");
    while (!word_end(*s)) {
        if (*s == '\'') {
            const char *e = strchr(s + 1, '\'');
            if (!e) {
                literal = false;
                s += strlen(s);
                break;
            }
            strbuf_appendn(&b, s + 1, (size_t)(e - s - 1));
            s = e + 1;
        } else if (*s == '"') {
            s++;
            while (*s && *s != '"') {
                if (*s == '\\' && s[1] && strchr("\"\\$`", s[1])) {
                    strbuf_appendn(&b, s + 1, 1);
                    s += 2;
                    continue;
                }
                if (*s == '$' || *s == '`')
                    literal = false;
                strbuf_appendn(&b, s, 1);
                s++;
            }
            if (*s != '"') {
                literal = false;
                break;
            }
            s++;
        } else if (*s == '\\' && s[1]) {
            strbuf_appendn(&b, s + 1, 1);
            s += 2;
        } else {
            if (*s == '$' || *s == '`' || *s == '(' || *s == ')' || *s == '<' || *s == '>')
                literal = false;
            strbuf_appendn(&b, s, 1);
            s++;
        }
    }
    *p = s;
    char *w = strbuf_steal(&b);
    if (!literal) {
        free(w);
        return NULL;
    }
    return w;
}

static const char *skip_blanks(const char *s)
{
    while (blank(*s))
        s++;
    return s;
}

/* Is the word at s `kw` followed by a blank or the end of the statement? */
static const char *keyword(const char *s, const char *kw)
{
    const char *e = startswith(s, kw);
    return e && word_end(*e) ? e : NULL;
}

static void var_free(rd_env_var *v)
{
    free(v->name);
    free(v->value);
    free(v->source);
}

/* Drops the definitions of name in vars[first..*n). */
static void forget_var(rd_env_var *vars, size_t first, size_t *n, const char *name, size_t name_len)
{
    size_t kept = first;
    for (size_t i = first; i < *n; i++) {
        if (strlen(vars[i].name) == name_len && strncmp(vars[i].name, name, name_len) == 0) {
            var_free(&vars[i]);
            continue;
        }
        vars[kept++] = vars[i];
    }
    *n = kept;
}

/* Skips the words that may open a statement without changing it: `then`,
 * `else`, `do`, `{`, `!`. */
static const char *skip_lead_words(const char *s)
{
    static const char *const lead[] = { "then", "else", "do", "{", "!" };
    s = skip_blanks(s);
    for (bool again = true; again;) {
        again = false;
        for (size_t i = 0; i < ELEMENTSOF(lead); i++) {
            const char *e = keyword(s, lead[i]);
            if (e) {
                s = skip_blanks(e);
                again = true;
            }
        }
    }
    return s;
}

/* The names after `unset [-v]`: the file's earlier definitions (from
 * file_first on) no longer hold. */
static const char *shell_unset(const char *s, size_t file_first, rd_env_var **vars, size_t *n)
{
    const char *e;
    if ((e = keyword(s, "-v")))
        s = skip_blanks(e);
    while (name_start(*s)) {
        const char *name = s;
        while (name_char(*s))
            s++;
        if (!word_end(*s))
            break;
        forget_var(*vars, file_first, n, name, (size_t)(s - name));
        s = skip_blanks(s);
    }
    return s;
}

/* A run of NAME=WORD words; dropped again when a command follows them and
 * they were not exported. */
static const char *shell_assignments(const char *s, bool exported, const char *source, int64_t line, rd_env_var **vars,
                                     size_t *n)
{
    size_t first = *n;
    bool command = false;
    while (*s && !word_end(*s) && *s != '#') {
        const char *name = s;
        while (name_char(*s))
            s++;
        if (!name_start(*name) || *s != '=') {
            /* `export NAME` names an existing variable; anything else
             * after assignments is the command they are passed to */
            if (!exported)
                command = true;
            while (!word_end(*s))
                s++;
            s = skip_blanks(s);
            continue;
        }
        size_t name_len = (size_t)(s - name);
        s++;
        char *value = shell_word(&s);
        _cleanup_free_ char *nm = xstrndup(name, name_len);
        if (value && rd_env_is_relevant(nm))
            rd_env_add_var(vars, n, name, name_len, value, source, line);
        else
            free(value);
        s = skip_blanks(s);
    }
    if (command && !exported) {
        for (size_t i = first; i < *n; i++)
            var_free(&(*vars)[i]);
        *n = first;
    }
    return s;
}

/* Skips to the end of the statement and past its ; & | separators. */
static const char *statement_end(const char *s)
{
    while (*s && *s != ';' && *s != '&' && *s != '|') {
        if (*s == '#' && blank(s[-1]))
            return s + strlen(s);
        if (*s == '\'' || *s == '"') {
            const char *q = strchr(s + 1, *s);
            s = q ? q + 1 : s + strlen(s);
            continue;
        }
        s++;
    }
    while (*s == ';' || *s == '&' || *s == '|')
        s++;
    return s;
}

/* One shell statement (up to ; & | or the end): `export A=1 B=2`, `A=1`,
 * `declare -x A=1`. Assignments in front of a command (`A=1 cmd`) only
 * apply to that command and are not recorded. */
static const char *shell_statement(const char *s, const char *source, int64_t line, size_t file_first,
                                   rd_env_var **vars, size_t *n)
{
    bool exported = false;
    s = skip_lead_words(s);
    const char *e;
    if ((e = keyword(s, "unset")))
        return statement_end(shell_unset(skip_blanks(e), file_first, vars, n));
    if ((e = keyword(s, "export"))) {
        exported = true;
        s = skip_blanks(e);
    } else if ((e = keyword(s, "declare")) || (e = keyword(s, "typeset"))) {
        const char *f = skip_blanks(e);
        if (!(e = keyword(f, "-x")) && !(e = keyword(f, "-gx")))
            return statement_end(s);
        exported = true;
        s = skip_blanks(e);
    }
    return statement_end(shell_assignments(s, exported, source, line, vars, n));
}

/* The value pam_env sets for the text after "NAME=" in /etc/environment: cut
 * at the first '#', nothing trimmed at the end but the newline; with an
 * opening quote, that quote and a quote that is the very last character are
 * dropped, any other is kept (pam_env's own rule, bug for bug). */
static char *pam_value(const char *raw)
{
    size_t len = strcspn(raw, "#\n");
    char *v = xstrndup(raw, len);
    if (v[0] != '"' && v[0] != '\'')
        return v;
    size_t o = 0;
    for (size_t t = 1; v[t]; t++)
        if ((v[t] != '"' && v[t] != '\'') || v[t + 1] != 0)
            v[o++] = v[t];
    v[o] = 0;
    return v;
}

/* KEY=VALUE with optional surrounding quotes: /etc/environment (pam_env) and
 * environment.d. */
static void simple_line(const char *l, rd_env_syntax syntax, const char *source, int64_t line, rd_env_var **vars,
                        size_t *n)
{
    const char *s = skip_blanks(l), *e;
    if (syntax == RD_ENV_SYNTAX_PAM && (e = keyword(s, "export")))
        s = skip_blanks(e);
    const char *name = s;
    while (name_char(*s))
        s++;
    if (!name_start(*name) || *s != '=')
        return;
    size_t name_len = (size_t)(s - name);
    _cleanup_free_ char *nm = xstrndup(name, name_len);
    if (!rd_env_is_relevant(nm))
        return;
    _cleanup_free_ char *raw = xstrdup(s + 1);
    if (syntax == RD_ENV_SYNTAX_PAM) {
        /* pam_env ends the value at the first '#', even inside quotes, and
         * keeps the blanks before it (and a CR): the process gets them. */
        rd_env_add_var(vars, n, name, name_len, pam_value(raw), source, line);
        return;
    }
    char *v = strstrip(raw);
    size_t len = strlen(v);
    if (len >= 2 && (v[0] == '"' || v[0] == '\'') && v[len - 1] == v[0]) {
        v[len - 1] = 0;
        v++;
    } else if (syntax == RD_ENV_SYNTAX_SYSTEMD && strchr(v, '$'))
        return; /* environment.d expands $VAR: not a literal */
    rd_env_add_var(vars, n, name, name_len, xstrdup(v), source, line);
}

typedef struct {
    rd_env_syntax syntax;
    const char *source;
    int64_t lineno;
    size_t first;
    rd_env_var **vars;
    size_t *n_vars;
} env_text;

static int env_line(char *l, void *userdata)
{
    env_text *e = userdata;
    e->lineno++;
    const char *s = skip_blanks(l);
    if (!*s || *s == '#')
        return 0;
    if (e->syntax == RD_ENV_SYNTAX_SHELL)
        while (*s)
            s = shell_statement(s, e->source, e->lineno, e->first, e->vars, e->n_vars);
    else
        simple_line(s, e->syntax, e->source, e->lineno, e->vars, e->n_vars);
    return 0;
}

void rd_env_parse_text(const char *text, rd_env_syntax syntax, const char *source, rd_env_var **vars, size_t *n_vars)
{
    size_t first = *n_vars;
    env_text e = { syntax, source, 0, first, vars, n_vars };
    foreach_line(text, env_line, &e);
    /* Within one file the last definition of a name is the one that holds
     * (a later line reassigns it); earlier ones would be stale evidence. */
    size_t kept = first;
    for (size_t i = first; i < *n_vars; i++) {
        bool later = false;
        for (size_t j = i + 1; j < *n_vars && !later; j++)
            later = streq((*vars)[i].name, (*vars)[j].name);
        if (later) {
            var_free(&(*vars)[i]);
            continue;
        }
        (*vars)[kept++] = (*vars)[i];
    }
    *n_vars = kept;
}

int rd_gfx_override_parse(const char *s, unsigned *ret_major, unsigned *ret_minor, unsigned *ret_step)
{
    /* libhsakmt: sscanf("%u.%u.%u%c") must give exactly three numbers */
    uint64_t v[3];
    const char *p = s;
    if (!s)
        return -EINVAL;
    for (int i = 0; i < 3; i++) {
        while (isspace((unsigned char)*p))
            p++;
        if (!isdigit((unsigned char)*p))
            return -EINVAL;
        v[i] = 0;
        while (isdigit((unsigned char)*p)) {
            if (v[i] < 1000000)
                v[i] = v[i] * 10 + (uint64_t)(*p - '0');
            p++;
        }
        if (i < 2 && *p++ != '.')
            return -EINVAL;
    }
    if (*p)
        return -EINVAL;
    if (v[0] > 63 || v[1] > 255 || v[2] > 255)
        return -ERANGE;
    *ret_major = (unsigned)v[0];
    *ret_minor = (unsigned)v[1];
    *ret_step = (unsigned)v[2];
    return 0;
}

char **rd_gfx_list_split(const char *value)
{
    char **v = NULL;
    _cleanup_free_ char *copy = xstrdup(strempty(value));
    char *save = NULL;
    for (char *t = strtok_r(copy, ";, \t\n", &save); t; t = strtok_r(NULL, ";, \t\n", &save)) {
        char *colon = strchr(t, ':');
        if (colon)
            *colon = 0;
        if (*t && !strv_contains(v, t))
            v = strv_push(v, xstrdup(t));
    }
    return v;
}

char *rd_env_where(const rd_env_var *v)
{
    if (v->line > 0)
        return xasprintf("%s:%" PRId64, v->source, v->line);
    return xstrdup(strempty(v->source));
}
