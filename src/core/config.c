/* SPDX-License-Identifier: MIT */
/* rocm-doctor.conf: a small, strict INI reader on top of inih. Every key is
 * one row of a table (section, name, type, field, range or validator); an
 * unknown section or key, a bad value or a key set twice in one file stops
 * the run with FILE:LINE, the key and the reason; only a drop-in's unknown
 * sections and keys are skipped with a warning. */
#include "config.h"

#include <ctype.h>
#include <fcntl.h>
#include <inttypes.h>
#include <ini.h>
#include <stddef.h>
#include <stdlib.h>
#include "context.h"
#include "check.h"
#include "rootfs.h"
#include "redact.h"
#include "util.h"
#include "catalogue.h"

#define CONFIG_MAX_SIZE (1024 * 1024)

void rd_config_init(rd_config *c)
{
    *c = (rd_config){
        .expected_gpus = -1,
        .level = 1,
        .runtime_timeout_s = 20,
        .package_lock_timeout_s = 300,
        .package_timeout_s = 1800,
        .package_query_timeout_s = 120,
        .access_group = xstrdup("render"),
        .status_file = xstrdup("/run/rocm-doctor/status.json"),
        .debounce_ms = 50,
        .verify_runtime = true,
        .health = RD_HEALTH_LIMITS_DEFAULT,
    };
}

/* ---- value checks: NULL when fine, else the reason ---- */

static bool all_chars(const char *s, const char *extra)
{
    for (; *s; s++)
        if (!isalnum((unsigned char)*s) && !strchr(extra, *s))
            return false;
    return true;
}

static char *check_user(const rd_config_ids *ids, const char *v)
{
    /* POSIX portable names plus what NSS back ends use: user@domain (SSSD),
     * a trailing $ (machine accounts) */
    size_t n = strlen(v);
    const char *body = v;
    _cleanup_free_ char *copy = NULL;
    if (n > 1 && v[n - 1] == '$')
        body = copy = xstrndup(v, n - 1);
    if (n == 0 || n > 256 || v[0] == '-' || !all_chars(body, "._-@"))
        return xasprintf("\"%s\" is not a user name", v);
    return NULL;
}

static char *check_group(const rd_config_ids *ids, const char *v)
{
    size_t n = strlen(v);
    if (n == 0 || n > 256 || v[0] == '-' || !all_chars(v, "._-"))
        return xasprintf("\"%s\" is not a group name", v);
    return NULL;
}

static char *check_finding(const rd_config_ids *ids, const char *v)
{
    if (!rd_probe_table_knows(ids->probes, v))
        return xasprintf("\"%s\" is not a finding id (see FINDINGS in rocm-doctor(1))", v);
    return NULL;
}

/* The fixes' ids as the caller handed them in; "all" and "none" are
 * handled by the list parser. */
static char *check_fix(const rd_config_ids *ids, const char *v)
{
    if (streq(v, "all") || streq(v, "none"))
        return xasprintf("\"%s\" stands alone; it cannot be combined with other fixes", v);
    for (size_t i = 0; ids->fix_ids && ids->fix_ids[i]; i++)
        if (streq(v, ids->fix_ids[i]))
            return NULL;
    _cleanup_free_ char *list = strv_join(ids->fix_ids, ", ");
    return xasprintf("\"%s\" is not a fix (%s; or all, none)", v, list);
}

static char *check_release(const rd_config_ids *ids, const char *v)
{
    unsigned a, b, c;
    int end = 0;
    if (!(sscanf(v, "%3u.%3u%n", &a, &b, &end) == 2 && v[end] == 0) &&
        !(sscanf(v, "%3u.%3u.%3u%n", &a, &b, &c, &end) == 3 && v[end] == 0))
        return xasprintf("\"%s\" is not a ROCm release such as 6.4 or 6.4.1", v);
    if (!isdigit((unsigned char)v[0]) || strspn(v, "0123456789.") != strlen(v))
        return xasprintf("\"%s\" is not a ROCm release such as 6.4 or 6.4.1", v);
    return NULL;
}

static char *check_path(const rd_config_ids *ids, const char *v)
{
    if (v[0] != '/')
        return xasprintf("\"%s\" is not an absolute path", v);
    for (const char *p = v; *p; p++)
        if ((unsigned char)*p < 0x20 || *p == 0x7f)
            return xasprintf("the path contains a control character");
    if (strstr(v, "/../") || endswith(v, "/..") || endswith(v, "/"))
        return xasprintf("\"%s\" is not a file path", v);
    return NULL;
}

static char *check_prom_path(const rd_config_ids *ids, const char *v)
{
    char *e = check_path(ids, v);
    if (!e && !endswith(v, ".prom"))
        e = xasprintf("\"%s\" does not end in .prom (the node exporter's textfile collector reads only *.prom)", v);
    return e;
}

static char *check_url(const rd_config_ids *ids, const char *v)
{
    const char *host = startswith(v, "https://");
    if (!host || !*host || *host == '/')
        return xasprintf("\"%s\" is not an https:// URL (a signing key is never fetched over plain http)", v);
    for (const char *p = v; *p; p++)
        if ((unsigned char)*p <= 0x20 || *p == 0x7f)
            return xasprintf("\"%s\" is not an https:// URL", v);
    return NULL;
}

/* The characters of a URL path a mirror's base may hold: RFC 3986's
 * unreserved ones, '/', '%' escapes and the few sub-delimiters no shell or
 * package manager file reads as syntax. */
#define MIRROR_PATH_CHARS "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~/%+,=:@"
#define MIRROR_USER_CHARS "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~%+,=!*"

/* A user:password@ of a URL, percent-decoded; NULL when an escape is
 * malformed or decodes to a space, a control character or a NUL (neither
 * auth.conf nor a .repo file can hold those). */
static char *url_decode(const char *s, size_t n)
{
    strbuf b = { 0 };
    strbuf_append(&b, "");
    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        if (c == '%') {
            unsigned v;
            if (i + 2 >= n || !isxdigit((unsigned char)s[i + 1]) || !isxdigit((unsigned char)s[i + 2]) ||
                sscanf(s + i + 1, "%2x", &v) != 1)
                goto bad;
            c = (char)v;
            i += 2;
        }
        if ((unsigned char)c <= 0x20 || c == 0x7f)
            goto bad;
        strbuf_appendn(&b, &c, 1);
    }
    return strbuf_steal(&b);
bad:
    free(b.s);
    return NULL;
}

/* The URL's authority: [user[:password]@]host[:port]. */
static char *check_authority(const char *v, const char *auth, size_t n)
{
    const char *at = memchr(auth, '@', n);
    const char *host = at ? at + 1 : auth;
    size_t hn = n - (size_t)(host - auth);
    if (at && strspn(auth, MIRROR_USER_CHARS ":") < (size_t)(at - auth))
        return xasprintf("\"%s\" is not a URL: its user and password may hold letters, digits and -._~+,=!* "
                         "(others %%-escaped)",
                         v);
    const char *colon = memchr(host, ':', hn);
    size_t name = colon ? (size_t)(colon - host) : hn;
    bool ipv6 = hn > 2 && host[0] == '[';
    if (name == 0 || (!ipv6 && strspn(host, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-.") < name))
        return xasprintf("\"%s\" is not a URL: it names no host, or a host with characters a host name cannot have", v);
    if (ipv6) {
        const char *close = memchr(host, ']', hn);
        if (!close || strspn(host + 1, "0123456789abcdefABCDEF:.") < (size_t)(close - host - 1))
            return xasprintf("\"%s\" is not a URL: a malformed [IPv6] host", v);
        colon = (size_t)(close + 1 - host) < hn && close[1] == ':' ? close + 1 : NULL;
    }
    if (colon && (colon + 1 == host + hn || strspn(colon + 1, "0123456789") < (size_t)(host + hn - colon - 1)))
        return xasprintf("\"%s\" is not a URL: its port is not a number", v);
    return NULL;
}

/* A mirror's base: http(s)://[user:password@]host[:port][/path] or
 * file:///path, no trailing slash; no character a shell, a sources file or
 * a .repo file reads as syntax ($, `, ;, |, quotes, spaces). */
static char *check_mirror_url(const char *v)
{
    for (const char *p = v; *p; p++)
        if ((unsigned char)*p <= 0x20 || *p == 0x7f)
            return xasprintf("a mirror URL holds no space or control character");
    const char *rest = startswith(v, "https://");
    if (!rest)
        rest = startswith(v, "http://");
    bool file = !rest && startswith(v, "file:///");
    if (file)
        rest = v + strlen("file://");
    if (!rest || !*rest || (*rest == '/' && !file))
        return xasprintf("\"%s\" is not an http://, https:// or file:/// URL", v);
    size_t an = file ? 0 : strcspn(rest, "/");
    char *e = file ? NULL : check_authority(v, rest, an);
    if (e)
        return e;
    const char *path = rest + an;
    size_t ok = strspn(path, MIRROR_PATH_CHARS);
    if (path[ok])
        return xasprintf("\"%s\" is not a URL: '%c' has no place in a mirror's path (letters, digits, -._~/%%+,=:@)", v,
                         path[ok]);
    if (endswith(v, "/"))
        return xasprintf("\"%s\" ends in '/': give the base without it, as https://repo.radeon.com", v);
    return NULL;
}

static char *check_mirror(const rd_config_ids *ids, const char *v)
{
    /* the message quotes the value: never its password */
    char *e = check_mirror_url(v);
    if (!e)
        return NULL;
    char *masked = rd_mask_url_passwords(e);
    free(e);
    return masked;
}

/* Moves a mirror URL's user:password@ out of it: the URL the files and
 * the reports carry has none. The value was checked by check_mirror. */
static char *split_mirror(rd_config *c, const char *v, char **ret_msg)
{
    const char *rest = strstr(v, "://") + 3;
    size_t an = strcspn(rest, "/");
    const char *at = memchr(rest, '@', an);
    free(c->mirror_login);
    free(c->mirror_secret);
    c->mirror_login = c->mirror_secret = NULL;
    if (!at)
        return xstrdup(v);
    const char *colon = memchr(rest, ':', (size_t)(at - rest));
    size_t un = colon ? (size_t)(colon - rest) : (size_t)(at - rest);
    char *login = url_decode(rest, un);
    char *secret = colon ? url_decode(colon + 1, (size_t)(at - colon - 1)) : xstrdup("");
    if (!login || !secret || !*login) {
        free(login);
        free(secret);
        *ret_msg = xstrdup("the user or password of the mirror URL is empty or decodes to a space or control "
                           "character");
        return NULL;
    }
    c->mirror_login = login;
    c->mirror_secret = secret;
    return xasprintf("%.*s%s", (int)(rest - v), v, at + 1);
}

/* ---- the table ---- */

typedef enum {
    KEY_BOOL,
    KEY_INT,
    KEY_STRING,   /* char *, checked by check() */
    KEY_LIST,     /* char **, each item checked by check() */
    KEY_FIXES,    /* char **: all (NULL), none (empty) or fix ids */
    KEY_SEVERITY, /* id:severity pairs */
} key_type;

typedef struct {
    const char *section;
    const char *name;
    key_type type;
    size_t offset;
    size_t size;      /* KEY_INT: of the field, int or int64_t */
    int64_t min, max; /* KEY_INT */
    char *(*check)(const rd_config_ids *ids, const char *value);
    const char *unit; /* KEY_INT: for messages */
    bool alias;       /* an older name of the key before it: read, never written by rd_config_dump */
} key_def;

#define FIELD(f) offsetof(rd_config, f), sizeof(((rd_config *)NULL)->f)
/* clang-format off */
static const key_def keys[] = {
    { "check", "expected_gpus", KEY_INT, FIELD(expected_gpus), 1, 65535, NULL, "a number of GPUs" },
    { "check", "users", KEY_LIST, FIELD(users), 0, 0, check_user, NULL },
    { "check", "ignore", KEY_LIST, FIELD(ignore), 0, 0, check_finding, NULL },
    { "check", "severity", KEY_SEVERITY, 0, 0, 0, 0, NULL, NULL },
    { "check", "level", KEY_INT, FIELD(level), 1, 2, NULL, "a level" },
    { "check", "runtime_timeout_s", KEY_INT, FIELD(runtime_timeout_s), 1, 3600, NULL, "seconds" },
    { "check", "with_python", KEY_BOOL, FIELD(with_python), 0, 0, NULL, NULL },
    { "fix", "allowed_fixes", KEY_FIXES, FIELD(allowed_fixes), 0, 0, check_fix, NULL },
    { "fix", "access_group", KEY_STRING, FIELD(access_group), 0, 0, check_group, NULL },
    { "fix", "udev_all_users", KEY_BOOL, FIELD(udev_all_users), 0, 0, NULL, NULL },
    { "fix", "allow_overrides", KEY_BOOL, FIELD(allow_overrides), 0, 0, NULL, NULL },
    { "fix", "rocm_release", KEY_STRING, FIELD(rocm_release), 0, 0, check_release, NULL },
    /* the signing key of every family; apt_key_* are their older names */
    { "fix", "key_file", KEY_STRING, FIELD(apt_key_file), 0, 0, check_path, NULL, false },
    { "fix", "apt_key_file", KEY_STRING, FIELD(apt_key_file), 0, 0, check_path, NULL, true },
    { "fix", "key_fingerprint", KEY_STRING, FIELD(apt_key_fingerprint), 0, 0, NULL, NULL, false },
    { "fix", "apt_key_fingerprint", KEY_STRING, FIELD(apt_key_fingerprint), 0, 0, NULL, NULL, true },
    { "fix", "key_url", KEY_STRING, FIELD(apt_key_url), 0, 0, check_url, NULL, false },
    { "fix", "apt_key_url", KEY_STRING, FIELD(apt_key_url), 0, 0, check_url, NULL, true },
    { "fix", "apt_graphics", KEY_BOOL, FIELD(apt_graphics), 0, 0, NULL, NULL },
    { "fix", "apt_driver", KEY_BOOL, FIELD(apt_driver), 0, 0, NULL, NULL },
    { "fix", "package_lock_timeout_s", KEY_INT, FIELD(package_lock_timeout_s), 0, 86400, NULL, "seconds" },
    { "fix", "package_timeout_s", KEY_INT, FIELD(package_timeout_s), 1, 86400, NULL, "seconds" },
    { "fix", "package_query_timeout_s", KEY_INT, FIELD(package_query_timeout_s), 1, 86400, NULL, "seconds" },
    { "repository", "mirror", KEY_STRING, FIELD(mirror), 0, 0, check_mirror, NULL },
    { "fix", "verify_runtime", KEY_BOOL, FIELD(verify_runtime), 0, 0, NULL, NULL },
    { "output", "status_file", KEY_STRING, FIELD(status_file), 0, 0, check_path, NULL },
    { "output", "prometheus_file", KEY_STRING, FIELD(prometheus_file), 0, 0, check_prom_path, NULL },
    { "output", "nfd_file", KEY_STRING, FIELD(nfd_file), 0, 0, check_path, NULL },
    { "daemon", "debounce_ms", KEY_INT, FIELD(debounce_ms), 0, 60000, NULL, "milliseconds" },
    { "daemon", "health_poll_s", KEY_INT, FIELD(health_poll_s), 0, 86400, NULL, "seconds" },
    { "health", "correctable_errors_max", KEY_INT, FIELD(health.correctable_errors_max), 0, INT32_MAX, NULL, "a number of errors" },
    { "health", "retired_pages_warn_percent", KEY_INT, FIELD(health.retired_pages_warn_percent), 1, 100, NULL, "a percentage" },
    { "health", "aer_correctable_max", KEY_INT, FIELD(health.aer_correctable_max), 0, INT32_MAX, NULL, "a number of errors" },
    { "health", "throttle_percent", KEY_INT, FIELD(health.throttle_percent), 1, 100, NULL, "a percentage" },
    { "health", "hot_margin_c", KEY_INT, FIELD(health.hot_margin_c), 0, 50, NULL, "degrees Celsius" },
    { "health", "power_cap_warn_percent", KEY_INT, FIELD(health.power_cap_warn_percent), 1, 100, NULL, "a percentage" },
    { "health", "vram_missing_percent", KEY_INT, FIELD(health.vram_missing_percent), 1, 50, NULL, "a percentage" },
};
/* clang-format on */
static const char *const sections[] = { "check", "fix", "repository", "output", "daemon", "health" };

#define AT(c, k, T) ((T *)(void *)((char *)(c) + (k)->offset))

static int64_t get_int(const rd_config *c, const key_def *k)
{
    return k->size == sizeof(int) ? *AT(c, k, int) : *AT(c, k, int64_t);
}

static void set_int(rd_config *c, const key_def *k, int64_t v)
{
    if (k->size == sizeof(int))
        *AT(c, k, int) = (int)v; /* the table's ranges fit an int */
    else
        *AT(c, k, int64_t) = v;
}

/* A v4 (40 hex digits) or v5 (64) OpenPGP fingerprint, spaces allowed
 * between groups as gpg prints them; stored upper case without spaces. */
static int parse_fingerprint(const char *v, char **ret, char **ret_msg)
{
    strbuf b = { 0 };
    for (const char *p = v; *p; p++) {
        if (*p == ' ')
            continue;
        if (!isxdigit((unsigned char)*p))
            break;
        char c = (char)toupper((unsigned char)*p);
        strbuf_appendn(&b, &c, 1);
    }
    bool ok = b.s && strspn(v, "0123456789abcdefABCDEF ") == strlen(v) && (b.len == 40 || b.len == 64);
    if (!ok) {
        free(b.s);
        *ret_msg = xasprintf("\"%s\" is not an OpenPGP fingerprint (40 or 64 hex digits)", v);
        return -EINVAL;
    }
    *ret = strbuf_steal(&b);
    return 0;
}

static int parse_bool(const char *v, bool *ret)
{
    if (streq(v, "yes") || streq(v, "true") || streq(v, "on") || streq(v, "1"))
        *ret = true;
    else if (streq(v, "no") || streq(v, "false") || streq(v, "off") || streq(v, "0"))
        *ret = false;
    else
        return -EINVAL;
    return 0;
}

static int parse_severity(const char *v, rd_severity *ret)
{
    static const rd_severity all[] = { RD_SEV_OK, RD_SEV_INFO, RD_SEV_WARNING, RD_SEV_ERROR };
    for (size_t i = 0; i < ELEMENTSOF(all); i++)
        if (streq(v, rd_severity_name(all[i]))) {
            *ret = all[i];
            return 0;
        }
    return -EINVAL;
}

static void severity_free(rd_config *c)
{
    for (size_t i = 0; i < c->n_severity; i++)
        free(c->severity[i].id);
    free(c->severity);
    c->severity = NULL;
    c->n_severity = 0;
}

/* Back to the built-in default: what an empty value means. */
static void reset_key(rd_config *c, const key_def *k)
{
    rd_config d;
    rd_config_init(&d);
    switch (k->type) {
    case KEY_BOOL: *AT(c, k, bool) = *AT(&d, k, bool); break;
    case KEY_INT:
        set_int(c, k, get_int(&d, k));
        if (k->offset == offsetof(rd_config, expected_gpus)) {
            free(c->expected_gpus_source);
            c->expected_gpus_source = NULL;
        }
        break;
    case KEY_STRING:
        free(*AT(c, k, char *));
        *AT(c, k, char *) = xstrdup_or_null(*AT(&d, k, char *));
        if (k->offset == offsetof(rd_config, mirror)) {
            free(c->mirror_login);
            free(c->mirror_secret);
            c->mirror_login = c->mirror_secret = NULL;
        }
        break;
    case KEY_LIST:
    case KEY_FIXES:
        strv_free(*AT(c, k, char **));
        *AT(c, k, char **) = NULL; /* every list defaults to unset */
        break;
    case KEY_SEVERITY: severity_free(c); break;
    }
    rd_config_free(&d);
}

/* ---- parsing one file ---- */

typedef struct {
    rd_config *c;
    const char *name;
    const char *text, *end, *pos;
    unsigned line;
    bool indented;                     /* the current line starts with white space */
    unsigned set_on[ELEMENTSOF(keys)]; /* line each key was set on in this file */
    const key_def *last;               /* the key of the previous assignment */
    char *error;
    unsigned error_line;
    const rd_config_ids *ids;
    bool lenient;            /* a drop-in: unknown sections and keys are warnings */
    bool in_unknown_section; /* lenient: skipping the keys of one */
} parse_state;

static void warn_at(parse_state *st, char *msg)
{
    st->c->warnings = strv_push(st->c->warnings, xasprintf("%s:%u: %s; skipped", st->name, st->line, msg));
    free(msg);
}

static int fail_at(parse_state *st, const key_def *k, const char *key_name, char *msg)
{
    if (!st->error) {
        st->error_line = st->line;
        if (k)
            st->error = xasprintf("%s:%u: [%s] %s: %s", st->name, st->line, k->section, k->name, msg);
        else if (key_name)
            st->error = xasprintf("%s:%u: %s: %s", st->name, st->line, key_name, msg);
        else
            st->error = xasprintf("%s:%u: %s", st->name, st->line, msg);
    }
    free(msg);
    return 0;
}

static bool known_section(const char *s)
{
    for (size_t i = 0; i < ELEMENTSOF(sections); i++)
        if (streq(s, sections[i]))
            return true;
    return false;
}

static char *unknown_section_msg(const char *s)
{
    return xasprintf("unknown section [%s] (the sections are [check], [fix], [output], [daemon] and [health])", s);
}

/* Feeds inih one line at a time, so that the line number is ours, a line
 * too long for inih's buffer is an error instead of two lines, and a
 * section with no keys is still checked. */
static char *reader(char *buf, int size, void *user)
{
    parse_state *st = user;
    if (st->error || st->pos >= st->end)
        return NULL;
    const char *nl = memchr(st->pos, '\n', (size_t)(st->end - st->pos));
    size_t len = nl ? (size_t)(nl - st->pos) : (size_t)(st->end - st->pos);
    st->line++;
    if (len + 2 > (size_t)size) {
        fail_at(st, NULL, NULL, xasprintf("line longer than %d characters", size - 2));
        return NULL;
    }
    memcpy(buf, st->pos, len);
    buf[len] = '\n';
    buf[len + 1] = 0;
    st->pos += len + (nl ? 1 : 0);
    st->indented = len > 0 && (buf[0] == ' ' || buf[0] == '\t');

    char *s = buf;
    /* inih skips a UTF-8 byte order mark on the first line; so must the
     * section check, or an empty unknown section after one goes unnoticed */
    if (st->line == 1 && strncmp(s, "\xEF\xBB\xBF", 3) == 0)
        s += 3;
    while (*s == ' ' || *s == '\t')
        s++;
    if (*s == '[') {
        char *close = strchr(s, ']');
        if (close) {
            _cleanup_free_ char *name = xstrndup(s + 1, (size_t)(close - s - 1));
            const char *rest = close + 1 + strspn(close + 1, " \t\r\n");
            st->in_unknown_section = false;
            if (!known_section(name) && st->lenient) {
                warn_at(st, unknown_section_msg(name));
                st->in_unknown_section = true;
            } else if (!known_section(name))
                fail_at(st, NULL, NULL, unknown_section_msg(name));
            else if (*rest && *rest != '#' && *rest != ';') /* inih would drop it */
                fail_at(st, NULL, NULL, xasprintf("text after [%s]; put each key on its own line", name));
        }
        st->last = NULL;
    }
    return buf;
}

static int set_list(parse_state *st, const key_def *k, const char *value, bool append)
{
    char ***slot = AT(st->c, k, char **);
    _cleanup_strv_free_ char **items = strv_split(value, " \t,");
    for (char **i = items; i && *i; i++) {
        char *e = k->check(st->ids, *i);
        if (e)
            return fail_at(st, k, NULL, e);
    }
    if (!append) {
        strv_free(*slot);
        *slot = NULL;
    }
    for (char **i = items; i && *i; i++)
        if (!strv_contains(*slot, *i))
            *slot = strv_push(*slot, xstrdup(*i));
    return 1;
}

static int set_fixes(parse_state *st, const key_def *k, const char *value, bool append)
{
    char ***slot = AT(st->c, k, char **);
    _cleanup_strv_free_ char **items = strv_split(value, " \t,");
    bool word = items && (streq(items[0], "all") || streq(items[0], "none"));
    if (word && (items[1] || append))
        return fail_at(st, k, NULL, xasprintf("\"%s\" stands alone; it cannot be combined with other fixes", items[0]));
    if (append && (!*slot || !**slot))
        return fail_at(st, k, NULL, xasprintf("a continuation line can only add fixes to a list of fixes"));
    if (word) {
        strv_free(*slot);
        *slot = streq(items[0], "none") ? xcalloc(1, sizeof(char *)) : NULL;
        return 1;
    }
    return set_list(st, k, value, append);
}

static int set_severity(parse_state *st, const key_def *k, const char *value, bool append)
{
    _cleanup_strv_free_ char **items = strv_split(value, " \t,");
    rd_severity_override *list = NULL;
    size_t n = 0;
    if (append) {
        for (size_t i = 0; i < st->c->n_severity; i++) {
            rd_severity_override *o = ARRAY_APPEND(list, n);
            o->id = xstrdup(st->c->severity[i].id);
            o->severity = st->c->severity[i].severity;
        }
    }
    char *err = NULL;
    for (char **i = items; i && *i && !err; i++) {
        char *colon = strrchr(*i, ':');
        rd_severity sev;
        if (!colon) {
            err = xasprintf("\"%s\" is not ID:SEVERITY (such as pcie.bar-small:info)", *i);
            break;
        }
        *colon = 0;
        if ((err = check_finding(st->ids, *i)))
            break;
        if (parse_severity(colon + 1, &sev) < 0) {
            err = xasprintf("\"%s\" is not a severity (ok, info, warning, error)", colon + 1);
            break;
        }
        for (size_t j = 0; j < n && !err; j++)
            if (streq(list[j].id, *i))
                err = xasprintf("%s is given twice", *i);
        if (err)
            break;
        rd_severity_override *o = ARRAY_APPEND(list, n);
        o->id = xstrdup(*i);
        o->severity = sev;
    }
    if (err) {
        for (size_t i = 0; i < n; i++)
            free(list[i].id);
        free(list);
        return fail_at(st, k, NULL, err);
    }
    severity_free(st->c);
    st->c->severity = list;
    st->c->n_severity = n;
    return 1;
}

static int set_value(parse_state *st, const key_def *k, const char *value)
{
    rd_config *c = st->c;
    switch (k->type) {
    case KEY_BOOL:
        if (parse_bool(value, AT(c, k, bool)) < 0)
            return fail_at(st, k, NULL, xasprintf("\"%s\" is not yes or no", value));
        return 1;
    case KEY_INT: {
        uint64_t v;
        if (safe_atou64(value, 10, &v) < 0 || !isdigit((unsigned char)value[0]) || v < (uint64_t)k->min ||
            v > (uint64_t)k->max)
            return fail_at(st, k, NULL,
                           xasprintf("\"%s\" is not %s from %" PRId64 " to %" PRId64, value, k->unit, k->min, k->max));
        set_int(c, k, (int64_t)v);
        if (k->offset == offsetof(rd_config, expected_gpus)) {
            free(c->expected_gpus_source);
            c->expected_gpus_source = xasprintf("%s:%u", st->name, st->line);
        }
        return 1;
    }
    case KEY_STRING: {
        char *v = NULL, *e = NULL;
        if (k->offset == offsetof(rd_config, apt_key_fingerprint)) {
            if (parse_fingerprint(value, &v, &e) < 0)
                return fail_at(st, k, NULL, e);
        } else {
            if ((e = k->check(st->ids, value)))
                return fail_at(st, k, NULL, e);
            v = k->offset == offsetof(rd_config, mirror) ? split_mirror(c, value, &e) : xstrdup(value);
            if (!v)
                return fail_at(st, k, NULL, e);
        }
        free(*AT(c, k, char *));
        *AT(c, k, char *) = v;
        return 1;
    }
    case KEY_LIST:
    case KEY_FIXES:
    case KEY_SEVERITY:
        if (strspn(value, " \t,") == strlen(value))
            return fail_at(st, k, NULL, xasprintf("\"%s\" lists nothing (an empty value means the default)", value));
        return k->type == KEY_LIST    ? set_list(st, k, value, false)
               : k->type == KEY_FIXES ? set_fixes(st, k, value, false)
                                      : set_severity(st, k, value, false);
    }
    return 0;
}

static int handler(void *user, const char *section, const char *name, const char *value)
{
    parse_state *st = user;
    if (st->error)
        return 0;
    if (!*name)
        return fail_at(st, NULL, NULL, xasprintf("a value without a key name (\"= %s\")", value));
    if (!*section)
        return fail_at(st, NULL, name,
                       xasprintf("key outside a section (put it under [check], [fix], "
                                 "[output] or [daemon])"));
    if (!known_section(section) && st->lenient && st->in_unknown_section)
        return 1; /* its header was warned about */
    if (!known_section(section))
        return fail_at(st, NULL, NULL, unknown_section_msg(section));

    /* inih passes an indented line after a key as more of that key's value */
    if (st->indented && st->last && streq(st->last->name, name) && streq(st->last->section, section)) {
        const key_def *k = st->last;
        if (strchr(value, '='))
            return fail_at(st, k, NULL,
                           xasprintf("indented line \"%s\" reads as more of this key's value; "
                                     "start a new key at the beginning of the line",
                                     value));
        if (k->type != KEY_LIST && k->type != KEY_FIXES && k->type != KEY_SEVERITY)
            return fail_at(st, k, NULL,
                           xasprintf("takes one value; the indented line \"%s\" would add another", value));
        return k->type == KEY_LIST    ? set_list(st, k, value, true)
               : k->type == KEY_FIXES ? set_fixes(st, k, value, true)
                                      : set_severity(st, k, value, true);
    }

    const key_def *k = NULL;
    size_t idx = 0;
    for (size_t i = 0; i < ELEMENTSOF(keys); i++)
        if (streq(keys[i].section, section) && streq(keys[i].name, name)) {
            k = &keys[i];
            idx = i;
        }
    if (!k) {
        const char *elsewhere = NULL;
        for (size_t i = 0; i < ELEMENTSOF(keys); i++)
            if (streq(keys[i].name, name))
                elsewhere = keys[i].section;
        char *msg = elsewhere ? xasprintf("[%s] %s: unknown key (it belongs in [%s])", section, name, elsewhere)
                              : xasprintf("[%s] %s: unknown key", section, name);
        if (st->lenient) {
            warn_at(st, msg);
            return 1;
        }
        return fail_at(st, NULL, NULL, msg);
    }
    if (st->set_on[idx])
        return fail_at(st, k, NULL, xasprintf("set twice in this file (first on line %u)", st->set_on[idx]));
    st->set_on[idx] = st->line;
    st->last = k;
    if (!*value) {
        reset_key(st->c, k);
        return 1;
    }
    return set_value(st, k, value);
}

static int parse_file(rd_config *c, const rd_config_ids *ids, const char *name, const char *text, size_t size,
                      bool lenient, char **ret_error)
{
    if (memchr(text, 0, size)) {
        *ret_error = xasprintf("%s: contains a NUL byte; not a text file", name);
        return -EINVAL;
    }
    parse_state st = {
        .c = c, .ids = ids, .name = name, .text = text, .pos = text, .end = text + size, .lenient = lenient
    };
    int line = ini_parse_stream(reader, &st, handler, &st);
    if (line > 0 && (!st.error || (unsigned)line < st.error_line)) {
        /* inih's own syntax error came first */
        free(st.error);
        st.error = NULL;
        st.line = (unsigned)line;
        fail_at(&st, NULL, NULL,
                xasprintf("syntax error (expected [section], key = value, or a comment "
                          "starting with # or ;)"));
    } else if (!st.error && line < 0)
        st.error = xasprintf("%s: cannot parse (out of memory)", name);
    if (st.error) {
        *ret_error = st.error;
        return -EINVAL;
    }
    c->files = strv_push(c->files, xstrdup(name));
    return 0;
}

int rd_config_parse(rd_config *c, const rd_config_ids *ids, const char *name, const char *text, size_t size,
                    char **ret_error)
{
    return parse_file(c, ids, name, text, size, false, ret_error);
}

int rd_config_parse_dropin(rd_config *c, const rd_config_ids *ids, const char *name, const char *text, size_t size,
                           char **ret_error)
{
    return parse_file(c, ids, name, text, size, true, ret_error);
}

/* ---- loading ---- */

static char *display_path(const rd_ctx *root, const char *path)
{
    return rd_ctx_has_root(root) ? xasprintf("%s%s", root->root, path) : xstrdup(path);
}

/* -ENOENT when the file is not there (not an error for the caller). */
static int load_root_file(const rd_config_ids *ids, const rd_ctx *root, const char *path, bool dropin, rd_config *c,
                          char **ret_error)
{
    _cleanup_free_ char *shown = display_path(root, path);
    _cleanup_free_ char *text = NULL;
    size_t size = 0;
    int r = rootfs_read_file(root->root_fd, path, rd_root_how(root), CONFIG_MAX_SIZE, &text, &size);
    if (r == -ENOENT)
        return -ENOENT;
    if (r == -EFBIG) {
        *ret_error = xasprintf("%s: larger than %d KiB; not a configuration file", shown, CONFIG_MAX_SIZE / 1024);
        return r;
    }
    if (r < 0) {
        *ret_error = xasprintf("%s: %s", shown, r == -EINVAL ? rootfs_strerror(r) : strerror(-r));
        return r;
    }
    return parse_file(c, ids, shown, text, size, dropin, ret_error);
}

static int load_tree(const rd_config_ids *ids, const char *root, rd_config *c, char **ret_error)
{
    rd_ctx tree = { .root = (char *)(root ? root : "/") };
    _cleanup_close_ int root_fd = tree.root_fd = open(tree.root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (root_fd < 0) {
        int r = -errno;
        *ret_error = xasprintf("%s: %s", tree.root, strerror(-r));
        return r;
    }
    const char *const files[] = { RD_VENDOR_CONFIG_FILE, RD_CONFIG_FILE };
    for (size_t i = 0; i < ELEMENTSOF(files); i++) {
        int r = load_root_file(ids, &tree, files[i], false, c, ret_error);
        if (r < 0 && r != -ENOENT)
            return r;
    }
    _cleanup_strv_free_ char **dropins = NULL;
    int r = rd_root_list_dir(&tree, RD_CONFIG_DROPIN_DIR, ".conf", &dropins);
    if (r == -ENOENT)
        return 0;
    if (r < 0) {
        _cleanup_free_ char *shown = display_path(&tree, RD_CONFIG_DROPIN_DIR);
        *ret_error = xasprintf("%s: %s", shown, strerror(-r));
        return r;
    }
    for (char **d = dropins; d && *d; d++) {
        _cleanup_free_ char *path = xasprintf("%s/%s", RD_CONFIG_DROPIN_DIR, *d);
        r = load_root_file(ids, &tree, path, true, c, ret_error);
        if (r < 0 && r != -ENOENT) /* -ENOENT: removed while we read the directory */
            return r;
    }
    return 0;
}

static int load_explicit(const rd_config_ids *ids, const char *path, rd_config *c, char **ret_error)
{
    _cleanup_close_ int fd = open_regular_at(AT_FDCWD, path, NULL);
    _cleanup_free_ char *text = NULL;
    size_t size = 0;
    int r = fd < 0 ? fd : read_fd(fd, CONFIG_MAX_SIZE, &text, &size);
    if (r == -EFBIG)
        *ret_error =
            xasprintf("--config %s: larger than %d KiB; not a configuration file", path, CONFIG_MAX_SIZE / 1024);
    else if (r < 0)
        *ret_error = xasprintf("--config %s: %s", path, rootfs_strerror(r));
    else
        r = rd_config_parse(c, ids, path, text, size, ret_error);
    return r;
}

int rd_config_load(const rd_config_ids *ids, const char *root, const char *explicit_file, rd_config *ret,
                   char **ret_error)
{
    rd_config c;
    rd_config_init(&c);
    int r = explicit_file ? load_explicit(ids, explicit_file, &c, ret_error) : load_tree(ids, root, &c, ret_error);
    if (r < 0) {
        rd_config_free(&c);
        return r;
    }
    *ret = c;
    return 0;
}

void rd_config_free(rd_config *c)
{
    strv_free(c->files);
    strv_free(c->warnings);
    free(c->expected_gpus_source);
    strv_free(c->users);
    strv_free(c->ignore);
    severity_free(c);
    strv_free(c->allowed_fixes);
    free(c->access_group);
    free(c->rocm_release);
    free(c->mirror);
    free(c->mirror_login);
    free(c->mirror_secret);
    free(c->apt_key_file);
    free(c->apt_key_fingerprint);
    free(c->apt_key_url);
    free(c->status_file);
    free(c->prometheus_file);
    free(c->nfd_file);
    *c = (rd_config){ 0 };
}

char *rd_config_dump(const rd_config *c)
{
    strbuf b = { 0 };
    const char *section = NULL;
    for (size_t i = 0; i < ELEMENTSOF(keys); i++) {
        const key_def *k = &keys[i];
        if (k->alias)
            continue;
        if (!section || !streq(section, k->section)) {
            strbuf_printf(&b, "%s[%s]\n", section ? "\n" : "", k->section);
            section = k->section;
        }
        strbuf_printf(&b, "%s =", k->name);
        switch (k->type) {
        case KEY_BOOL: strbuf_append(&b, *AT(c, k, bool) ? " yes" : " no"); break;
        case KEY_INT:
            if (get_int(c, k) >= 0)
                strbuf_printf(&b, " %" PRId64, get_int(c, k));
            break;
        case KEY_STRING:
            if (*AT(c, k, char *))
                strbuf_printf(&b, " %s", *AT(c, k, char *));
            break;
        case KEY_FIXES:
            if (!*AT(c, k, char **)) {
                strbuf_append(&b, " all");
                break;
            }
            if (!**AT(c, k, char **))
                strbuf_append(&b, " none");
            __attribute__((fallthrough));
        case KEY_LIST:
            for (char **v = *AT(c, k, char **); v && *v; v++)
                strbuf_printf(&b, " %s", *v);
            break;
        case KEY_SEVERITY:
            for (size_t j = 0; j < c->n_severity; j++)
                strbuf_printf(&b, " %s:%s", c->severity[j].id, rd_severity_name(c->severity[j].severity));
            break;
        }
        strbuf_append(&b, "\n");
    }
    return strbuf_steal(&b);
}

/* ---- policy ---- */

void rd_config_apply(const rd_config *c, size_t n_gpus, rd_findings *findings)
{
    if (c->expected_gpus >= 0 && (int64_t)n_gpus != c->expected_gpus) {
        bool fewer = (int64_t)n_gpus < c->expected_gpus;
        rd_finding *f = rd_finding_add(findings, RD_FINDING(GPU_COUNT_MISMATCH), fewer ? RD_SEV_ERROR : RD_SEV_INFO,
                                       NULL, "%zu AMD GPU%s visible, %" PRId64 " expected", n_gpus,
                                       n_gpus == 1 ? "" : "s", c->expected_gpus);
        rd_finding_evidence(f, "expected_gpus = %" PRId64 " (%s)", c->expected_gpus,
                            c->expected_gpus_source ? c->expected_gpus_source : "configuration");
        rd_finding_evidence(f, "found %zu AMD GPU%s", n_gpus, n_gpus == 1 ? "" : "s");
        if (fewer && n_gpus > 0)
            rd_finding_remedy(f,
                              "Find the missing GPUs: `lspci -d 1002:` lists what is on the bus, the kernel log "
                              "(`journalctl -k | grep -i amdgpu`) shows GPUs that failed to initialize; check "
                              "seating, power cables and the BIOS slot settings. If the machine really has %zu "
                              "now, set expected_gpus = %zu.",
                              n_gpus, n_gpus);
        else if (fewer)
            rd_finding_remedy(f, "Find the missing GPUs: `lspci -d 1002:` lists what is on the bus, the kernel log "
                                 "(`journalctl -k | grep -i amdgpu`) shows GPUs that failed to initialize; check "
                                 "seating, power cables and the BIOS slot settings.");
        else
            rd_finding_remedy(f, "The machine has more AMD GPUs than configured: set expected_gpus = %zu.", n_gpus);
    }

    for (size_t i = 0; i < findings->n; i++)
        for (size_t j = 0; j < c->n_severity; j++)
            if (streq(findings->items[i].id, c->severity[j].id))
                findings->items[i].severity = c->severity[j].severity;

    size_t kept = 0;
    for (size_t i = 0; i < findings->n; i++) {
        rd_finding *f = &findings->items[i];
        if (strv_contains(c->ignore, f->id)) {
            rd_finding_free(f);
            continue;
        }
        findings->items[kept++] = *f;
    }
    findings->n = kept;
}
