/* SPDX-License-Identifier: MIT */
#include "passwd.h"

#include <ctype.h>
#include "rootfs.h"
#include "util.h"

/* Splits at the next ':' (NULL when there is none left). */
static char *field(char **p)
{
    char *start = *p;
    if (!start)
        return NULL;
    char *colon = strchr(start, ':');
    if (colon)
        *colon++ = 0;
    *p = colon;
    return start;
}

static bool parse_id(const char *s, uint32_t *ret)
{
    uint64_t v;
    if (!s || !isdigit((unsigned char)*s) || safe_atou64(s, 10, &v) < 0 || v >= UINT32_MAX)
        return false;
    *ret = (uint32_t)v;
    return true;
}

/* Leading blanks skipped; NULL for a line that is no entry by its first
 * character; a CR before the end is the file's line ending, not data. */
static char *entry_start(char *line)
{
    while (*line == ' ' || *line == '\t')
        line++;
    size_t n = strlen(line);
    if (n > 0 && line[n - 1] == '\r')
        line[n - 1] = 0;
    if (!*line || *line == '#' || *line == '+' || *line == '-')
        return NULL;
    return line;
}

int passwd_parse_line(char *line, passwd_entry *ret)
{
    char *p = entry_start(line);
    if (!p)
        return 0;
    passwd_entry e = { 0 };
    e.name = field(&p);
    e.password = field(&p);
    const char *uid = field(&p), *gid = field(&p);
    if (!*e.name || !e.password || !parse_id(uid, &e.uid) || !parse_id(gid, &e.gid))
        return 0;
    e.gecos = strempty(field(&p));
    e.home = strempty(field(&p));
    e.shell = p ? p : "";
    *ret = e;
    return 1;
}

int group_parse_line(char *line, group_entry *ret)
{
    char *p = entry_start(line);
    if (!p)
        return 0;
    const char *name = field(&p), *password = field(&p), *gid_s = field(&p);
    uint32_t gid;
    if (!*name || !password || !parse_id(gid_s, &gid))
        return 0;
    ret->name = name;
    ret->password = password;
    ret->gid = gid;
    ret->n_members = 0;
    if (ret->members)
        ret->members[0] = NULL;
    char *save = NULL;
    for (char *m = p ? strtok_r(p, ",", &save) : NULL; m; m = strtok_r(NULL, ",", &save)) {
        m = strstrip(m);
        if (*m)
            ret->members = strv_push_n(ret->members, &ret->n_members, m);
    }
    return 1;
}

typedef struct {
    passwd_fn pfn;
    group_fn gfn;
    void *userdata;
    group_entry g;
} walk;

static int passwd_line(char *line, void *u)
{
    walk *w = u;
    passwd_entry e;
    return passwd_parse_line(line, &e) ? w->pfn(&e, w->userdata) : 0;
}

static int group_line(char *line, void *u)
{
    walk *w = u;
    return group_parse_line(line, &w->g) ? w->gfn(&w->g, w->userdata) : 0;
}

int passwd_foreach_text(const char *text, passwd_fn fn, void *userdata)
{
    walk w = { .pfn = fn, .userdata = userdata };
    return foreach_line(text, passwd_line, &w);
}

int group_foreach_text(const char *text, group_fn fn, void *userdata)
{
    walk w = { .gfn = fn, .userdata = userdata };
    int r = foreach_line(text, group_line, &w);
    free(w.g.members); /* the member strings point into the line */
    return r;
}

int passwd_foreach_file(int root_fd, const char *path, unsigned rootfs_how, passwd_fn fn, void *userdata)
{
    walk w = { .pfn = fn, .userdata = userdata };
    return rootfs_read_lines(root_fd, path, (rootfs_flags)rootfs_how, passwd_line, &w);
}

int group_foreach_file(int root_fd, const char *path, unsigned rootfs_how, group_fn fn, void *userdata)
{
    walk w = { .gfn = fn, .userdata = userdata };
    int r = rootfs_read_lines(root_fd, path, (rootfs_flags)rootfs_how, group_line, &w);
    free(w.g.members);
    return r;
}

typedef struct {
    const char *name;
    int64_t uid;
    passwd_record *ret;
} find;

static int find_one(const passwd_entry *e, void *u)
{
    find *f = u;
    if (f->name ? !streq(e->name, f->name) : (int64_t)e->uid != f->uid)
        return 0;
    *f->ret = (passwd_record){ xstrdup(e->name), e->uid, e->gid, xstrdup(e->home) };
    return 1;
}

int passwd_find_text(const char *text, const char *name, int64_t uid, passwd_record *ret)
{
    find f = { name, uid, ret };
    return passwd_foreach_text(text, find_one, &f) == 1 ? 0 : -ENOENT;
}

int passwd_find_file(int root_fd, const char *path, unsigned rootfs_how, const char *name, int64_t uid,
                     passwd_record *ret)
{
    find f = { name, uid, ret };
    int r = passwd_foreach_file(root_fd, path, rootfs_how, find_one, &f);
    return r == 1 ? 0 : r < 0 ? r : -ENOENT;
}

void passwd_record_free(passwd_record *r)
{
    free(r->name);
    free(r->home);
    *r = (passwd_record){ 0 };
}
