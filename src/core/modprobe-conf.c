/* SPDX-License-Identifier: MIT */
#include "modprobe-conf.h"

#include "util.h"

/* One logical line from text + *pos: continuation lines joined, the
 * backslash and newline dropped; *lines counts the physical lines. */
static char *logical_line(const char *text, size_t size, size_t *pos, unsigned *lines)
{
    strbuf b = { 0 };
    strbuf_append(&b, "");
    size_t i = *pos;
    (*lines)++;
    while (i < size && text[i] != '\n') {
        if (text[i] == '\\' && i + 1 < size && text[i + 1] == '\n') {
            i += 2;
            (*lines)++;
            continue;
        }
        if (text[i] == '\\' && i + 1 == size) { /* at the end of the text: nothing follows */
            i++;
            break;
        }
        strbuf_appendn(&b, text + i, 1);
        i++;
    }
    *pos = i;
    return strbuf_steal(&b);
}

static char *next_word(char **p)
{
    *p += strspn(*p, " \t");
    if (!**p)
        return NULL;
    char *w = *p;
    *p += strcspn(*p, " \t");
    if (**p)
        *(*p)++ = 0;
    return w;
}

int rd_modprobe_conf_parse(const char *text, size_t size, int (*on_entry)(const rd_modprobe_entry *e, void *userdata),
                           void *userdata)
{
    unsigned line = 0;
    for (size_t pos = 0; pos < size;) {
        rd_modprobe_entry e = { .first_line = line + 1, .offset = pos };
        _cleanup_free_ char *l = logical_line(text, size, &pos, &line);
        e.last_line = line;
        e.length = pos - e.offset;
        if (pos < size)
            pos++; /* the newline */
        char *cur = l;
        if (l[0] && l[0] != '#' && (e.directive = next_word(&cur))) {
            char *m = next_word(&cur);
            for (char *c = m; c && *c; c++)
                if (*c == '-')
                    *c = '_';
            e.module = m;
            e.rest = cur;
        }
        int r = on_entry(&e, userdata);
        if (r)
            return r;
    }
    return 0;
}

static bool disables(const char *directive, const char *rest)
{
    if (streq(directive, "blacklist"))
        return true;
    /* "install amdgpu /bin/false" is the other way guides disable a module */
    return streq(directive, "install") && rest && (strstr(rest, "/bin/false") || strstr(rest, "/bin/true"));
}

bool rd_modprobe_entry_disables(const rd_modprobe_entry *e, const char *module)
{
    return e->directive && e->module && streq(e->module, module) && disables(e->directive, e->rest);
}

bool rd_modprobe_entry_disables_but_cr(const rd_modprobe_entry *e, const char *module)
{
    const char *cr = e->module ? startswith(e->module, module) : NULL;
    return cr && cr[0] == '\r' && !cr[1] && disables(e->directive, e->rest);
}
