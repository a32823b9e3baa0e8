/* SPDX-License-Identifier: MIT */
/* Environment: the variables that steer ROCm (architecture overrides, device
 * visibility, build targets), from the process environment and from the files
 * that set them at every login, judged against the GPUs present. */
#include "env.h"

#include <ctype.h>
#include <inttypes.h>
#include <pwd.h>
#include "passwd.h"
#include "util.h"

extern char **environ;

#define OVERRIDE "HSA_OVERRIDE_GFX_VERSION"

static const char *const relevant_names[] = {
    OVERRIDE, "ROCR_VISIBLE_DEVICES", "HIP_VISIBLE_DEVICES", "CUDA_VISIBLE_DEVICES",
    "PYTORCH_ROCM_ARCH", "AMDGPU_TARGETS", "GPU_TARGETS",
};

/* HSA_OVERRIDE_GFX_VERSION_<N>: N decimal, the KFD node id. */
static bool per_node_override(const char *name, int64_t *ret_node)
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
    return per_node_override(name, NULL);
}

/* ---- parsers ---- */

static bool name_start(char c) { return c == '_' || isalpha((unsigned char)c); }
static bool name_char(char c) { return c == '_' || isalnum((unsigned char)c); }
static bool blank(char c) { return c == ' ' || c == '\t'; }
static bool word_end(char c) { return !c || blank(c) || c == ';' || c == '&' || c == '|' || c == '\r'; }

static void add_var(rd_env_var **vars, size_t *n, const char *name, size_t name_len, char *value,
                    const char *source, int64_t line)
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
static const char *shell_assignments(const char *s, bool exported, const char *source, int64_t line,
                                     rd_env_var **vars, size_t *n)
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
            add_var(vars, n, name, name_len, value, source, line);
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
static void simple_line(const char *l, rd_env_syntax syntax, const char *source, int64_t line,
                        rd_env_var **vars, size_t *n)
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
        add_var(vars, n, name, name_len, pam_value(raw), source, line);
        return;
    }
    char *v = strstrip(raw);
    size_t len = strlen(v);
    if (len >= 2 && (v[0] == '"' || v[0] == '\'') && v[len - 1] == v[0]) {
        v[len - 1] = 0;
        v++;
    } else if (syntax == RD_ENV_SYNTAX_SYSTEMD && strchr(v, '$'))
        return; /* environment.d expands $VAR: not a literal */
    add_var(vars, n, name, name_len, xstrdup(v), source, line);
}

void rd_env_parse_text(const char *text, rd_env_syntax syntax, const char *source, rd_env_var **vars,
                       size_t *n_vars)
{
    int64_t lineno = 0;
    size_t first = *n_vars;
    for (const char *p = text; p && *p;) {
        const char *nl = strchr(p, '\n');
        _cleanup_free_ char *l = xstrndup(p, nl ? (size_t)(nl - p) : strlen(p));
        p = nl ? nl + 1 : NULL;
        lineno++;
        const char *s = skip_blanks(l);
        if (!*s || *s == '#')
            continue;
        if (syntax == RD_ENV_SYNTAX_SHELL)
            while (*s)
                s = shell_statement(s, source, lineno, first, vars, n_vars);
        else
            simple_line(s, syntax, source, lineno, vars, n_vars);
    }
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

/* ---- agents ---- */

void rd_agents_build(const rd_assess_input *in, rd_agent **ret, size_t *ret_n)
{
    const rd_facts *f = in->facts;
    rd_agent *a = NULL;
    size_t n = 0;
    for (size_t j = 0; j < f->kfd.n_nodes; j++) {
        const rd_kfd_node *node = &f->kfd.nodes[j];
        if (!rd_kfd_node_is_gpu(node))
            continue;
        rd_agent *x = ARRAY_APPEND(a, n);
        x->node_id = node->node_id;
        x->unique_id = rd_kfd_prop_or(node, "unique_id", 0);
        const rd_gpu *gpu = NULL;
        for (size_t i = 0; i < in->gpus->n_gpus && !gpu; i++)
            for (size_t k = 0; k < in->gpus->gpus[i].n_kfd; k++)
                if (in->gpus->gpus[i].kfd[k] == node) {
                    gpu = &in->gpus->gpus[i];
                    break;
                }
        uint64_t gtv;
        if (rd_kfd_prop(node, "gfx_target_version", &gtv))
            (void)rd_gfx_name(gtv, x->gfx, sizeof x->gfx);
        if (gpu) {
            if (!*x->gfx)
                snprintf(x->gfx, sizeof x->gfx, "%s", gpu->gfx);
            x->integrated = gpu->integrated;
            x->pci_address = gpu->pci->address;
            x->name = gpu->name;
        }
        x->arch = *x->gfx ? rd_knowledge_arch(in->knowledge, x->gfx) : NULL;
        if (!gpu)
            x->integrated = x->arch && x->arch->apu;
        if (!x->name)
            x->name = node->name && *node->name ? node->name : "AMD GPU";
    }
    /* ROCm numbers agents in node order */
    for (size_t i = 1; i < n; i++)
        for (size_t k = i; k > 0 && a[k - 1].node_id > a[k].node_id; k--) {
            rd_agent t = a[k];
            a[k] = a[k - 1];
            a[k - 1] = t;
        }
    *ret = a;
    *ret_n = n;
}

void rd_agent_uuid(const rd_agent *a, char *buf, size_t size)
{
    if (a->unique_id)
        snprintf(buf, size, "GPU-%016" PRIx64, a->unique_id);
    else if (size)
        buf[0] = 0;
}

size_t rd_visible_devices_apply(const char *value, const rd_agent *agents, size_t n_agents, bool *keep,
                                char **ret_bad)
{
    size_t kept = 0;
    for (size_t i = 0; i < n_agents; i++)
        keep[i] = false;
    if (ret_bad)
        *ret_bad = NULL;
    _cleanup_free_ char *copy = xstrdup(strempty(value));
    char *save = NULL;
    for (char *t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        t = strstrip(t);
        if (!*t)
            continue;
        ssize_t hit = -1;
        uint64_t idx;
        if (strncasecmp(t, "GPU-", 4) == 0) {
            for (size_t i = 0; i < n_agents && hit < 0; i++) {
                char uuid[32];
                rd_agent_uuid(&agents[i], uuid, sizeof uuid);
                if (*uuid && strcasecmp(uuid, t) == 0)
                    hit = (ssize_t)i;
            }
        } else if (safe_atou64(t, 10, &idx) == 0 && idx < n_agents)
            hit = (ssize_t)idx;
        if (hit < 0) {
            if (ret_bad)
                *ret_bad = xstrdup(t);
            break;
        }
        if (!keep[hit]) {
            keep[hit] = true;
            kept++;
        }
    }
    return kept;
}

/* ---- gather ---- */

static int home_of(const rd_ctx *ctx, const char *name, int64_t uid, char **ret_name, char **ret_home)
{
    if (!rd_ctx_has_root(ctx)) {
        struct passwd pw, *res = NULL;
        char buf[16384];
        int r = name ? getpwnam_r(name, &pw, buf, sizeof buf, &res) : getpwuid_r((uid_t)uid, &pw, buf, sizeof buf, &res);
        if (r != 0 || !res)
            return -ENOENT;
        *ret_name = xstrdup(pw.pw_name);
        *ret_home = xstrdup(pw.pw_dir);
        return 0;
    }
    passwd_record rec;
    int r = passwd_find_file(ctx->root_fd, "/etc/passwd", rd_root_how(ctx), name, uid, &rec);
    if (r < 0)
        return r;
    *ret_name = TAKE_PTR(rec.name);
    *ret_home = TAKE_PTR(rec.home);
    return 0;
}

/* Line-based: read whole, no size limit. An unreadable file is evidence
 * (facts.unreadable), except another user's home files refused to a check
 * that runs without root. */
static void read_env_file(const rd_ctx *ctx, rd_facts *facts, const char *path, rd_env_syntax syntax)
{
    rd_env_facts *e = &facts->env;
    _cleanup_free_ char *text = NULL;
    int r = rd_root_read_file(ctx, path, 0, &text);
    bool home = e->home && startswith(path, e->home);
    if (!(home && (r == -EACCES || r == -EPERM)))
        rd_facts_note_unreadable(facts, path, r, "the ROCm variables it may set (HSA_OVERRIDE_GFX_VERSION, "
                                                 "*_VISIBLE_DEVICES, PATH)");
    if (r < 0)
        return;
    e->files = strv_push(e->files, xstrdup(path));
    rd_env_parse_text(text, syntax, path, &e->vars, &e->n_vars);
}

static void read_env_dir(const rd_ctx *ctx, rd_facts *facts, const char *dir, const char *suffix,
                         rd_env_syntax syntax)
{
    _cleanup_strv_free_ char **names = NULL;
    if (rd_root_list_dir(ctx, dir, suffix, &names) < 0)
        return;
    for (char **n = names; n && *n; n++) {
        _cleanup_free_ char *path = xasprintf("%s/%s", dir, *n);
        read_env_file(ctx, facts, path, syntax);
    }
}

static void env_gather(const rd_ctx *ctx, rd_facts *facts)
{
    rd_env_facts *e = &facts->env;
    for (char **p = environ; p && *p; p++) {
        const char *eq = strchr(*p, '=');
        if (!eq)
            continue;
        _cleanup_free_ char *name = xstrndup(*p, (size_t)(eq - *p));
        if (rd_env_is_relevant(name))
            add_var(&e->vars, &e->n_vars, *p, (size_t)(eq - *p), xstrdup(eq + 1), RD_ENV_PROCESS, 0);
    }

    /* the order a login applies them: PAM, the user manager, then the shell */
    read_env_file(ctx, facts, "/etc/environment", RD_ENV_SYNTAX_PAM);
    read_env_dir(ctx, facts, "/etc/environment.d", ".conf", RD_ENV_SYNTAX_SYSTEMD);
    read_env_dir(ctx, facts, "/etc/profile.d", ".sh", RD_ENV_SYNTAX_SHELL);

    const char *name = NULL;
    for (size_t i = 0; i < facts->access.n_users && !name; i++)
        if (!facts->access.users[i].error)
            name = facts->access.users[i].name;
    if (!name)
        name = ctx->user;
    int r = home_of(ctx, name, ctx->uid, &e->user, &e->home);
    if (r < 0 && r != -ENOENT)
        rd_facts_note_unreadable(facts, "/etc/passwd", r, "the user's home directory and its profile files");
    if (r < 0) {
        e->error = name ? xasprintf("user \"%s\" not found in %s/etc/passwd", name, rd_ctx_has_root(ctx) ? ctx->root : "")
                        : xasprintf("uid %u not found in the user database", (unsigned)ctx->uid);
        return;
    }
    if (!e->home || e->home[0] != '/') {
        e->error = xasprintf("%s has no absolute home directory", e->user);
        return;
    }
    static const char *const user_files[] = { ".config/environment.d", ".profile", ".bash_profile", ".bashrc" };
    for (size_t i = 0; i < ELEMENTSOF(user_files); i++) {
        _cleanup_free_ char *path = xasprintf("%s%s%s", e->home, endswith(e->home, "/") ? "" : "/", user_files[i]);
        if (i == 0)
            read_env_dir(ctx, facts, path, ".conf", RD_ENV_SYNTAX_SYSTEMD);
        else
            read_env_file(ctx, facts, path, RD_ENV_SYNTAX_SHELL);
    }
}

/* ---- assess ---- */

static void describe_var(rd_finding *fd, const rd_env_var *v)
{
    _cleanup_free_ char *where = rd_env_where(v);
    rd_finding_evidence(fd, "%s: %s=%s", where, v->name, v->value);
}

static const char *family_of(const rd_arch *a) { return a && a->family ? a->family : NULL; }

/* GPUs that a ROCR_VISIBLE_DEVICES definition (from any source) leaves out
 * while keeping another: hidden on purpose, so what an override does to them
 * does not matter (the common setup: an override for the dGPU, the iGPU
 * hidden by UUID). A definition that hides every GPU is reported on its own
 * and marks nothing. */
static bool *rocr_hidden(const rd_env_facts *e, const rd_agent *agents, size_t n_agents)
{
    bool *hidden = xcalloc(n_agents + 1, sizeof(bool));
    _cleanup_free_ bool *keep = xcalloc(n_agents + 1, sizeof(bool));
    for (size_t i = 0; i < e->n_vars; i++) {
        if (!streq(e->vars[i].name, "ROCR_VISIBLE_DEVICES") ||
            rd_visible_devices_apply(e->vars[i].value, agents, n_agents, keep, NULL) == 0)
            continue;
        for (size_t k = 0; k < n_agents; k++)
            hidden[k] |= !keep[k];
    }
    return hidden;
}

/* arch.override-invalid: one finding for every override that does not parse
 * (r: what rd_gfx_override_parse returned). */
static void report_invalid(rd_finding **invalid, const rd_env_var *v, int r, rd_findings *out)
{
    unsigned ma, mi, st;
    if (!*invalid) {
        *invalid = rd_finding_add(out, "arch.override-invalid", RD_SEV_ERROR, NULL,
                                  "%s is not a valid MAJOR.MINOR.STEP value: the ROCm runtime does not start", v->name);
        rd_finding_remedy(*invalid, "Remove the line, or set the value of the GPU's own family in the "
                                    "per-node form (e.g. %s_1=10.3.0 for an RDNA2 GPU at KFD node 1).",
                          OVERRIDE);
        rd_finding_set_fix(*invalid, "env");
    }
    _cleanup_free_ char *where = rd_env_where(v);
    _cleanup_free_ char *trimmed = xstrdup(v->value);
    bool blanks = r == -EINVAL && rd_gfx_override_parse(strstrip(trimmed), &ma, &mi, &st) == 0;
    rd_finding_evidence(*invalid, "%s: %s=\"%s\": %s", where, v->name, v->value,
                        r == -ERANGE ? "out of range (major at most 63, minor and step at most 255)"
                        : blanks     ? "white space or a CR after the number (in /etc/environment a # comment "
                                       "ends the value, the blanks before it stay)"
                                     : "not three decimal numbers separated by dots");
}

/* Whether a per-node override from the same source as the global one `v`
 * covers the node of `a` (the per-node variable wins for its node). */
static bool global_shadowed(const rd_env_facts *e, const rd_env_var *v, const rd_agent *a)
{
    bool shadowed = false;
    for (size_t j = 0; j < e->n_vars && !shadowed; j++) {
        int64_t nn;
        shadowed = per_node_override(e->vars[j].name, &nn) && nn == a->node_id && streq(e->vars[j].source, v->source);
    }
    return shadowed;
}

/* arch.override-global-with-igpu: the global override `v` reaches the
 * integrated GPU `a` while a visible discrete GPU is present. */
static void assess_global_igpu(rd_finding **global_igpu, const rd_env_var *v, const rd_agent *a,
                               const rd_agent *agents, size_t n_agents, const bool *hidden, rd_findings *out)
{
    bool has_dgpu = false;
    for (size_t j = 0; j < n_agents; j++)
        has_dgpu |= !agents[j].integrated && !hidden[j];
    if (!has_dgpu)
        return;
    if (!*global_igpu) {
        *global_igpu = rd_finding_add(out, "arch.override-global-with-igpu", RD_SEV_WARNING, a->pci_address,
                                      "A global %s also applies to the integrated GPU (%s, %s)", OVERRIDE, a->name,
                                      a->gfx);
        rd_finding_remedy(*global_igpu,
                          "Replace the global variable with the per-node form for the GPU that "
                          "needs it (%s_<KFD node>=M.m.s), or hide the integrated GPU with "
                          "ROCR_VISIBLE_DEVICES=<UUID of the discrete GPU>.",
                          OVERRIDE);
        rd_finding_set_fix(*global_igpu, "env");
    }
    describe_var(*global_igpu, v);
}

/* arch.override-wrong-family: the override `v` (parsed: ma.mi.st, target
 * `target` when `named`, its arch `tarch`) makes GPU `a` pretend to be a
 * target of another family. */
static void assess_wrong_family(const rd_env_var *v, const rd_agent *a, unsigned ma, unsigned mi, unsigned st,
                                const char *target, bool named, const rd_arch *tarch, rd_findings *out)
{
    if (!*a->gfx || streq(a->gfx, target))
        return;
    const char *gfam = family_of(a->arch), *ofam = family_of(tarch);
    bool wrong;
    if (gfam && ofam)
        wrong = !streq(gfam, ofam);
    else
        wrong = a->arch && a->arch->gfx_target_version / 10000 != ma;
    if (!wrong)
        return;
    rd_finding *fd = rd_finding_add(out, "arch.override-wrong-family", RD_SEV_ERROR, a->pci_address,
                                    "%s=%u.%u.%u makes %s (%s, %s) pretend to be %s of another family", v->name, ma,
                                    mi, st, a->name, a->gfx, strempty(gfam), named ? target : "an unknown target");
    describe_var(fd, v);
    rd_finding_evidence(fd, "KFD node %" PRId64 ": %s, family %s; %s is family %s", a->node_id, a->gfx,
                        strempty(gfam), named ? target : "the override", ofam ? ofam : "unknown");
    if (a->arch && a->arch->override)
        rd_finding_remedy(fd, "Code built for another family fails with HSA_STATUS_ERROR_INVALID_ISA. "
                              "Use this GPU's family value, per node: %s_%" PRId64 "=%s.",
                          OVERRIDE, a->node_id, a->arch->override);
    else
        rd_finding_remedy(fd, "Code built for another family fails with HSA_STATUS_ERROR_INVALID_ISA. "
                              "Remove the override for this GPU (%s has no family value to borrow); "
                              "use a ROCm build with kernels for %s.",
                          a->gfx, a->gfx);
    rd_finding_set_fix(fd, "env");
}

static void assess_overrides(const rd_assess_input *in, const rd_agent *agents, size_t n_agents, rd_findings *out)
{
    const rd_env_facts *e = &in->facts->env;
    rd_finding *invalid = NULL, *global_igpu = NULL;
    _cleanup_free_ bool *hidden = rocr_hidden(e, agents, n_agents);
    for (size_t i = 0; i < e->n_vars; i++) {
        const rd_env_var *v = &e->vars[i];
        int64_t node = -1;
        bool global = streq(v->name, OVERRIDE);
        if (!global && !per_node_override(v->name, &node))
            continue;
        unsigned ma, mi, st;
        int r = rd_gfx_override_parse(v->value, &ma, &mi, &st);
        if (r < 0) {
            report_invalid(&invalid, v, r, out);
            continue;
        }
        char target[16] = "";
        bool named = rd_gfx_name((uint64_t)ma * 10000 + mi * 100 + st, target, sizeof target);
        const rd_arch *tarch = named ? rd_knowledge_arch(in->knowledge, target) : NULL;

        for (size_t k = 0; k < n_agents; k++) {
            const rd_agent *a = &agents[k];
            if ((!global && a->node_id != node) || hidden[k])
                continue;
            if (global) {
                if (global_shadowed(e, v, a))
                    continue;
                if (a->integrated)
                    assess_global_igpu(&global_igpu, v, a, agents, n_agents, hidden, out);
            }
            assess_wrong_family(v, a, ma, mi, st, target, named, tarch, out);
        }
    }
}

static void assess_visible(const rd_assess_input *in, const rd_agent *agents, size_t n_agents, rd_findings *out)
{
    const rd_env_facts *e = &in->facts->env;
    if (n_agents == 0)
        return;
    _cleanup_free_ bool *keep = xcalloc(n_agents, sizeof(bool));
    rd_finding *fd = NULL;
    for (size_t i = 0; i < e->n_vars; i++) {
        const rd_env_var *v = &e->vars[i];
        if (!streq(v->name, "ROCR_VISIBLE_DEVICES") && !streq(v->name, "HIP_VISIBLE_DEVICES") &&
            !streq(v->name, "CUDA_VISIBLE_DEVICES"))
            continue;
        _cleanup_free_ char *bad = NULL;
        size_t kept = rd_visible_devices_apply(v->value, agents, n_agents, keep, &bad);
        /* HIP numbers the devices ROCr left visible */
        bool hip = !streq(v->name, "ROCR_VISIBLE_DEVICES");
        size_t limit = n_agents;
        if (hip && streq(v->source, RD_ENV_PROCESS)) {
            /* the GPUs ROCr keeps, whichever they are: a UUID in the HIP
             * variable must be looked for among those, not among the first
             * `limit` of all GPUs */
            _cleanup_free_ rd_agent *vis = NULL;
            for (size_t j = 0; j < e->n_vars; j++)
                if (streq(e->vars[j].name, "ROCR_VISIBLE_DEVICES") && streq(e->vars[j].source, RD_ENV_PROCESS)) {
                    _cleanup_free_ bool *k2 = xcalloc(n_agents, sizeof(bool));
                    limit = rd_visible_devices_apply(e->vars[j].value, agents, n_agents, k2, NULL);
                    free(vis);
                    vis = xcalloc(n_agents, sizeof(rd_agent));
                    for (size_t k = 0, m = 0; k < n_agents; k++)
                        if (k2[k])
                            vis[m++] = agents[k];
                }
            if (limit < n_agents) {
                free(bad);
                bad = NULL;
                kept = rd_visible_devices_apply(v->value, vis, limit, keep, &bad);
            }
        }
        if (kept > 0)
            continue;
        if (!fd) {
            fd = rd_finding_add(out, "env.visible-devices-hides-all", RD_SEV_ERROR, NULL,
                                "A visible-devices variable hides every GPU from ROCm programs");
            rd_finding_remedy(fd, "Unset the variable, or list devices that exist: indices 0-%zu in KFD node order, "
                                  "or UUIDs (rocminfo shows them).",
                              n_agents - 1);
            rd_finding_set_fix(fd, "env");
        }
        _cleanup_free_ char *where = rd_env_where(v);
        if (bad)
            rd_finding_evidence(fd, "%s: %s=%s: \"%s\" names no GPU (%zu %s visible%s)", where, v->name, v->value,
                                bad, limit, limit == 1 ? "GPU is" : "GPUs are",
                                limit < n_agents ? " after ROCR_VISIBLE_DEVICES" : "");
        else
            rd_finding_evidence(fd, "%s: %s=\"%s\": selects no GPU", where, v->name, v->value);
    }
    if (fd) {
        strbuf b = { 0 };
        for (size_t k = 0; k < n_agents; k++) {
            char uuid[32];
            rd_agent_uuid(&agents[k], uuid, sizeof uuid);
            strbuf_printf(&b, "%s%zu=%s%s%s", k ? ", " : "", k, agents[k].gfx, *uuid ? " " : "", uuid);
        }
        rd_finding_evidence(fd, "GPUs present: %s", b.s);
        free(b.s);
    }
}

static bool gfx_in_list(char *const *list, const char *gfx)
{
    for (char *const *l = list; l && *l; l++)
        if (strcasecmp(*l, gfx) == 0)
            return true;
    return false;
}

void rd_env_override_target(const rd_env_facts *e, int64_t node_id, char *buf, size_t size)
{
    buf[0] = 0;
    for (int pass = 0; pass < 2 && !buf[0]; pass++)
        for (size_t i = 0; i < e->n_vars && !buf[0]; i++) {
            int64_t nn;
            bool match = pass == 0 ? per_node_override(e->vars[i].name, &nn) && nn == node_id
                                   : streq(e->vars[i].name, OVERRIDE);
            unsigned ma, mi, st;
            if (match && rd_gfx_override_parse(e->vars[i].value, &ma, &mi, &st) == 0)
                (void)rd_gfx_name((uint64_t)ma * 10000 + mi * 100 + st, buf, size);
        }
}

static void assess_targets(const rd_assess_input *in, const rd_agent *agents, size_t n_agents, rd_findings *out)
{
    const rd_env_facts *e = &in->facts->env;
    bool has_dgpu = false;
    for (size_t k = 0; k < n_agents; k++)
        has_dgpu |= !agents[k].integrated;
    for (size_t i = 0; i < e->n_vars; i++) {
        const rd_env_var *v = &e->vars[i];
        if (!streq(v->name, "PYTORCH_ROCM_ARCH") && !streq(v->name, "AMDGPU_TARGETS") &&
            !streq(v->name, "GPU_TARGETS"))
            continue;
        _cleanup_strv_free_ char **list = rd_gfx_list_split(v->value);
        _cleanup_strv_free_ char **missing = NULL, **want = NULL;
        for (size_t k = 0; k < n_agents; k++) {
            const rd_agent *a = &agents[k];
            /* an integrated GPU next to a discrete one is usually left out on purpose */
            if (!*a->gfx || (a->integrated && has_dgpu))
                continue;
            char over[16];
            rd_env_override_target(e, a->node_id, over, sizeof over);
            const char *need = *over ? over : a->gfx;
            if (!strv_contains(want, need))
                want = strv_push(want, xstrdup(need));
            if (gfx_in_list(list, a->gfx) || (*over && gfx_in_list(list, over)) || strv_contains(missing, need))
                continue;
            missing = strv_push(missing, xstrdup(need));
        }
        if (!missing)
            continue;
        _cleanup_free_ char *m = strv_join(missing, ", "), *w = strv_join(want, ";");
        rd_finding *fd = rd_finding_add(out, "env.pytorch-arch-mismatch", RD_SEV_WARNING, NULL,
                                        "%s leaves out %s: code built with it has no kernels for this host's GPU",
                                        v->name, m);
        describe_var(fd, v);
        rd_finding_remedy(fd, "Build for the GPUs present: %s=\"%s\" (add the targets you also need elsewhere).",
                          v->name, w);
        rd_finding_set_fix(fd, "env");
    }
}

static void env_assess(const rd_assess_input *in, rd_findings *out)
{
    rd_agent *agents = NULL;
    size_t n_agents = 0;
    if (in->facts->env.n_vars == 0)
        return;
    rd_agents_build(in, &agents, &n_agents);
    if (in->gpus->n_gpus > 0 || n_agents > 0) {
        assess_overrides(in, agents, n_agents, out);
        assess_visible(in, agents, n_agents, out);
        assess_targets(in, agents, n_agents, out);
    }
    free(agents);
}

static const char *const env_findings[] = {
    "arch.override-invalid", "arch.override-wrong-family", "arch.override-global-with-igpu",
    "env.visible-devices-hides-all", "env.pytorch-arch-mismatch", NULL,
};

const rd_probe rd_probe_env = {
    .id = "env",
    .title = "Environment variables that steer ROCm",
    .flags = 0,
    .findings = env_findings,
    .areas = RD_STRV("env"),
    .reads = (const rd_probe_input[]){
        { "/etc/passwd", false },
        { "/etc/environment", false },
        { "/etc/environment.d", true },
        { "/etc/profile.d", true },
        { NULL, false },
    },
    .gather = env_gather,
    .assess = env_assess,
};
