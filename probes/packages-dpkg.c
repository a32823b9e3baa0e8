/* SPDX-License-Identifier: MIT */
/* The dpkg database, /var/lib/dpkg/status: one stanza a package, blank
 * lines between them. The rocm probe reads it (and the rpm database,
 * packages-rpm.c) for AMD's packages and their versions.
 *
 * One pass over the text as read, nothing copied but what is kept: a field
 * is known by its first byte and the place of its colon, and a stanza whose
 * package is not asked for is skipped from its Package: line on (a host has
 * a thousand packages or more; the probes ask for a dozen). */
#include <ctype.h>
#include "dpkg.h"
#include "util.h"

typedef struct {
    const char *s;
    size_t n;
} span;

/* The value after "Name:" on [p, eol), blanks stripped as strstrip does. */
static span field_value(const char *p, const char *eol)
{
    while (p < eol && isspace((unsigned char)*p))
        p++;
    while (eol > p && isspace((unsigned char)eol[-1]))
        eol--;
    return (span){ p, (size_t)(eol - p) };
}

/* Whether the line [p, eol) starts with the field name (its first byte
 * already matched) and its colon. */
static bool is_field(const char *p, const char *eol, const char *name, size_t len)
{
    return (size_t)(eol - p) > len && p[len] == ':' && memcmp(p + 1, name + 1, len - 1) == 0;
}

static bool span_has(span v, const char *needle)
{
    return memmem(v.s, v.n, needle, strlen(needle)) != NULL;
}

static bool wanted(span name, bool (*want)(const char *name))
{
    char buf[128];
    if (name.n < sizeof buf) {
        memcpy(buf, name.s, name.n);
        buf[name.n] = 0;
        return want(buf);
    }
    _cleanup_free_ char *copy = xstrndup(name.s, name.n);
    return want(copy);
}

void rd_dpkg_status_parse(const char *text, bool (*want)(const char *name), rd_package **packages, size_t *n)
{
    span name = { 0 }, version = { 0 };
    bool installed = false, skip = false;
    for (const char *p = text; p;) {
        const char *eol = strchrnul(p, '\n');
        bool last = *eol == 0;
        if (eol == p) {
            /* the end of a stanza: keeps its package when installed and wanted */
            if (name.s && version.s && installed && !skip) {
                rd_package *pk = ARRAY_APPEND(*packages, *n);
                pk->name = xstrndup(name.s, name.n);
                pk->version = xstrndup(version.s, version.n);
            }
            name = version = (span){ 0 };
            installed = skip = false;
        } else if (!skip) {
            switch (*p) {
            case 'P':
                if (is_field(p, eol, "Package", 7)) {
                    name = field_value(p + 8, eol);
                    skip = !wanted(name, want);
                }
                break;
            case 'V':
                if (is_field(p, eol, "Version", 7))
                    version = field_value(p + 8, eol);
                break;
            case 'S':
                if (is_field(p, eol, "Status", 6)) {
                    span v = { p + 7, (size_t)(eol - p - 7) };
                    installed =
                        span_has(v, " installed") && !span_has(v, "not-installed") && !span_has(v, "config-files");
                }
                break;
            default: break;
            }
        }
        if (last) {
            if (eol != p)
                p = eol; /* the last stanza ends with the text: one more round as a blank line */
            else
                p = NULL;
        } else
            p = eol + 1;
    }
}
