/* SPDX-License-Identifier: MIT */
/* The dpkg database, /var/lib/dpkg/status: one stanza a package, blank
 * lines between them. The rocm probe reads it (and the rpm database,
 * packages-rpm.c) for AMD's packages and their versions. */
#include "dpkg.h"
#include "util.h"

typedef struct {
    bool (*want)(const char *name);
    rd_package **packages;
    size_t *n;
    char *name, *version;
    bool installed;
} dpkg_stanza;

/* The end of a stanza: keeps its package when installed and wanted. */
static void stanza_end(dpkg_stanza *st)
{
    if (st->name && st->version && st->installed && st->want(st->name)) {
        rd_package *pk = ARRAY_APPEND(*st->packages, *st->n);
        pk->name = TAKE_PTR(st->name);
        pk->version = TAKE_PTR(st->version);
    }
    free(st->name);
    free(st->version);
    st->name = st->version = NULL;
    st->installed = false;
}

static int stanza_line(char *line, void *userdata)
{
    dpkg_stanza *st = userdata;
    const char *v;
    if (!*line)
        stanza_end(st);
    else if ((v = startswith(line, "Package:"))) {
        free(st->name);
        st->name = xstrdup(strstrip(line + (v - line)));
    } else if ((v = startswith(line, "Version:"))) {
        free(st->version);
        st->version = xstrdup(strstrip(line + (v - line)));
    } else if ((v = startswith(line, "Status:")))
        st->installed = strstr(v, " installed") != NULL && !strstr(v, "not-installed") && !strstr(v, "config-files");
    return 0;
}

void rd_dpkg_status_parse(const char *text, bool (*want)(const char *name), rd_package **packages, size_t *n)
{
    dpkg_stanza st = { .want = want, .packages = packages, .n = n };
    foreach_line(text, stanza_line, &st);
    stanza_end(&st);
}
