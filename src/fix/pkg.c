/* SPDX-License-Identifier: MIT */
/* The package managers, driven as a person would drive them: apt-get (dpkg
 * below it), dnf and zypper, each with its own non-interactive options, its
 * own dry run for the plan and its own query for the installed list. Under
 * a --root, apt-get runs chrooted into the root (its Signed-By keyrings and
 * maintainer scripts are the root's), dnf with --installroot and zypper
 * with --root. */
#include "pkg.h"

#include <ctype.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include "fix.h"
#include "json-util.h"
#include "rootfs.h"
#include "util.h"

rd_pm rd_pm_of_family(rd_os_family f)
{
    switch (f) {
    case RD_OS_DEBIAN: return RD_PM_APT;
    case RD_OS_RHEL:
    case RD_OS_FEDORA: return RD_PM_DNF;
    case RD_OS_SUSE: return RD_PM_ZYPPER;
    case RD_OS_UNKNOWN:
    default: return RD_PM_NONE;
    }
}

const char *rd_pm_name(rd_pm pm)
{
    switch (pm) {
    case RD_PM_APT: return "apt";
    case RD_PM_DNF: return "dnf";
    case RD_PM_ZYPPER: return "zypper";
    case RD_PM_NONE:
    default: return "none";
    }
}

rd_pm rd_pm_from_name(const char *name)
{
    if (streq_ptr(name, "apt"))
        return RD_PM_APT;
    if (streq_ptr(name, "dnf"))
        return RD_PM_DNF;
    if (streq_ptr(name, "zypper"))
        return RD_PM_ZYPPER;
    return RD_PM_NONE;
}

void rd_pkg_changes_free(rd_pkg_changes *c)
{
    for (size_t i = 0; i < c->n; i++) {
        free(c->items[i].name);
        free(c->items[i].version);
        free(c->items[i].old_version);
    }
    free(c->items);
    *c = (rd_pkg_changes){ 0 };
}

void rd_pkg_set_free(rd_pkg_set *s)
{
    if (!s)
        return;
    strv_free(s->install);
    strv_free(s->remove);
    free(s->import_key);
    rd_pkg_changes_free(&s->changes);
    free(s);
}

static char **strv_copy(char *const *v)
{
    char **r = NULL;
    size_t n = 0;
    for (size_t i = 0; v && v[i]; i++)
        r = strv_push_n(r, &n, xstrdup(v[i]));
    return r;
}

static rd_pkg_change *add_change(rd_pkg_changes *c, rd_pkg_op op, const char *name, const char *version,
                                 const char *old_version)
{
    rd_pkg_change *x = ARRAY_APPEND(c->items, c->n);
    x->op = op;
    x->name = xstrdup(name);
    x->version = xstrdup_or_null(version);
    x->old_version = xstrdup_or_null(old_version);
    return x;
}

rd_pkg_set *rd_pkg_set_copy(const rd_pkg_set *s)
{
    rd_pkg_set *c = xcalloc(1, sizeof *c);
    c->pm = s->pm;
    c->install = strv_copy(s->install);
    c->remove = strv_copy(s->remove);
    c->refresh = s->refresh;
    c->lock_timeout_s = s->lock_timeout_s;
    c->import_key = xstrdup_or_null(s->import_key);
    for (size_t i = 0; i < s->changes.n; i++) {
        const rd_pkg_change *x = &s->changes.items[i];
        add_change(&c->changes, x->op, x->name, x->version, x->old_version)->size = x->size;
    }
    c->changes.download = s->changes.download;
    c->changes.download_known = s->changes.download_known;
    return c;
}

char *rd_pkg_size_text(uint64_t b)
{
    if (b < 1000)
        return xasprintf("%" PRIu64 " B", b);
    if (b < 1000 * 1000)
        return xasprintf("%.1f kB", (double)b / 1e3);
    if (b < UINT64_C(1000) * 1000 * 1000)
        return xasprintf("%.1f MB", (double)b / 1e6);
    return xasprintf("%.2f GB", (double)b / 1e9);
}

static rd_pkg_change *find_change(rd_pkg_changes *c, const char *name)
{
    for (size_t i = 0; i < c->n; i++)
        if (streq(c->items[i].name, name))
            return &c->items[i];
    return NULL;
}

/* ---- apt ---- */

/* "Inst name [old] (new origin [arch])", "Remv name [version]" */
static int apt_sim_line(char *line, void *userdata)
{
    rd_pkg_changes *c = userdata;
    const char *rest;
    bool inst = (rest = startswith(line, "Inst ")) != NULL;
    if (!inst && !(rest = startswith(line, "Remv ")) && !(rest = startswith(line, "Purg ")))
        return 0;
    _cleanup_free_ char *name = xstrndup(rest, strcspn(rest, " "));
    rest += strlen(name);
    while (*rest == ' ')
        rest++;
    _cleanup_free_ char *old = NULL, *new = NULL;
    if (*rest == '[') {
        old = xstrndup(rest + 1, strcspn(rest + 1, "]"));
        rest = strchr(rest, ']');
        rest = rest ? rest + 1 : "";
        while (*rest == ' ')
            rest++;
    }
    if (*rest == '(')
        new = xstrndup(rest + 1, strcspn(rest + 1, " )"));
    if (!*name)
        return 0;
    if (!inst)
        add_change(c, RD_PKG_REMOVE, name, old, NULL);
    else if (!old)
        add_change(c, RD_PKG_INSTALL, name, new, NULL);
    else
        add_change(c, RD_PKG_UPGRADE, name, new, old);
    return 0;
}

void rd_pkg_parse_apt_sim(const char *text, rd_pkg_changes *ret)
{
    _cleanup_free_ char *copy = xstrdup(strempty(text));
    (void)foreach_line(copy, apt_sim_line, ret);
}

/* "'URI' name_version_arch.deb SIZE SHA256:..." */
static int apt_uri_line(char *line, void *userdata)
{
    rd_pkg_changes *c = userdata;
    if (line[0] != '\'')
        return 0;
    const char *end = strchr(line + 1, '\'');
    if (!end)
        return 0;
    _cleanup_strv_free_ char **f = strv_split(end + 1, " \t");
    uint64_t size;
    if (strv_length(f) < 2 || safe_atou64(f[1], 10, &size) < 0)
        return 0;
    _cleanup_free_ char *name = xstrndup(f[0], strcspn(f[0], "_"));
    rd_pkg_change *x = find_change(c, name);
    if (x && x->op != RD_PKG_REMOVE)
        x->size = size;
    c->download += size;
    c->download_known = true;
    return 0;
}

void rd_pkg_parse_apt_uris(const char *text, rd_pkg_changes *c)
{
    _cleanup_free_ char *copy = xstrdup(strempty(text));
    c->download = 0;
    c->download_known = true;
    (void)foreach_line(copy, apt_uri_line, c);
}

/* ---- dnf ---- */

/* "6.1 k", "31 M" */
static uint64_t dnf_size(const char *num, const char *unit)
{
    double v = strtod(num, NULL);
    switch (unit ? unit[0] : 0) {
    case 'k': v *= 1024; break;
    case 'M': v *= 1024 * 1024; break;
    case 'G': v *= 1024.0 * 1024 * 1024; break;
    default: break;
    }
    return v < 0 ? 0 : (uint64_t)(v + 0.5);
}

typedef struct {
    rd_pkg_changes *c;
    int section;        /* -1 none, else an rd_pkg_op */
    char *pending_name; /* a long name dnf wrapped onto its own line */
} dnf_state;

static int dnf_line(char *line, void *userdata)
{
    dnf_state *st = userdata;
    const char *v;
    if ((v = startswith(line, "Total download size:")) || (v = startswith(line, "Total size:"))) {
        _cleanup_strv_free_ char **f = strv_split(v, " \t");
        if (strv_length(f) >= 1) {
            st->c->download = dnf_size(f[0], f[1]);
            st->c->download_known = true;
        }
        st->section = -1;
        return 0;
    }
    if (line[0] != ' ' && line[0]) {
        st->section = startswith(line, "Installing")    ? RD_PKG_INSTALL
                      : startswith(line, "Upgrading")   ? RD_PKG_UPGRADE
                      : startswith(line, "Downgrading") ? RD_PKG_DOWNGRADE
                      : startswith(line, "Removing")    ? RD_PKG_REMOVE
                                                        : -1;
        free(st->pending_name);
        st->pending_name = NULL;
        return 0;
    }
    if (st->section < 0)
        return 0;
    _cleanup_strv_free_ char **f = strv_split(line, " \t");
    size_t n = strv_length(f);
    if (n == 1) {
        free(st->pending_name);
        st->pending_name = xstrdup(f[0]);
        return 0;
    }
    const char *name, *version;
    char *const *tail;
    if (st->pending_name && n >= 4) { /* arch version repo size unit */
        name = st->pending_name;
        version = f[1];
        tail = f + 3;
    } else if (n >= 5) { /* name arch version repo size unit */
        name = f[0];
        version = f[2];
        tail = f + 4;
    } else
        return 0;
    rd_pkg_change *x = add_change(st->c, (rd_pkg_op)st->section, name, version, NULL);
    if (x->op != RD_PKG_REMOVE && tail[0])
        x->size = dnf_size(tail[0], tail[1]);
    free(st->pending_name);
    st->pending_name = NULL;
    return 0;
}

void rd_pkg_parse_dnf(const char *text, rd_pkg_changes *ret)
{
    _cleanup_free_ char *copy = xstrdup(strempty(text));
    dnf_state st = { .c = ret, .section = -1 };
    (void)foreach_line(copy, dnf_line, &st);
    free(st.pending_name);
}

/* ---- zypper ---- */

/* The value of attribute name in the tag that starts at tag, or NULL. */
static char *xml_attr(const char *tag, const char *end, const char *name)
{
    _cleanup_free_ char *needle = xasprintf(" %s=\"", name);
    const char *p = strstr(tag, needle);
    if (!p || p > end)
        return NULL;
    p += strlen(needle);
    const char *q = strchr(p, '"');
    return q && q <= end ? xstrndup(p, (size_t)(q - p)) : NULL;
}

void rd_pkg_parse_zypper_xml(const char *text, rd_pkg_changes *ret)
{
    static const struct {
        const char *section;
        rd_pkg_op op;
    } sections[] = {
        { "<to-install", RD_PKG_INSTALL },
        { "<to-upgrade", RD_PKG_UPGRADE },
        { "<to-downgrade", RD_PKG_DOWNGRADE },
        { "<to-remove", RD_PKG_REMOVE },
    };
    const char *summary = text ? strstr(text, "<install-summary") : NULL;
    if (!summary)
        return;
    const char *send = strchr(summary, '>');
    _cleanup_free_ char *dl = send ? xml_attr(summary, send, "download-size") : NULL;
    uint64_t size;
    if (dl && safe_atou64(dl, 10, &size) == 0) {
        ret->download = size;
        ret->download_known = true;
    }
    for (size_t s = 0; s < ELEMENTSOF(sections); s++) {
        const char *start = strstr(summary, sections[s].section);
        if (!start)
            continue;
        _cleanup_free_ char *close_tag = xasprintf("</%s>", sections[s].section + 1);
        const char *stop = strstr(start, close_tag);
        for (const char *t = strstr(start, "<solvable"); t && (!stop || t < stop); t = strstr(t + 1, "<solvable")) {
            const char *tend = strchr(t, '>');
            if (!tend)
                break;
            _cleanup_free_ char *type = xml_attr(t, tend, "type");
            _cleanup_free_ char *name = xml_attr(t, tend, "name");
            _cleanup_free_ char *ed = xml_attr(t, tend, "edition");
            _cleanup_free_ char *old = xml_attr(t, tend, "edition-old");
            if (!name || (type && !streq(type, "package")))
                continue;
            add_change(ret, sections[s].op, name, ed,
                       sections[s].op == RD_PKG_UPGRADE || sections[s].op == RD_PKG_DOWNGRADE ? old : NULL);
        }
    }
}

/* ---- running them ---- */

/* The last line a command printed before its deadline: what it was
 * waiting on (apt's "Get:", "0% [Waiting for headers]", dpkg's unpack). */
static char *last_line(const char *out)
{
    const char *end = out + strlen(out);
    while (end > out && (end[-1] == '\n' || end[-1] == '\r'))
        end--;
    const char *start = end;
    while (start > out && start[-1] != '\n' && start[-1] != '\r')
        start--;
    return xstrndup(start, (size_t)(end - start) > 300 ? 300 : (size_t)(end - start));
}

/* "apt-get update": the program past chroot and env, and its verb. */
static char *short_cmd(char *const *argv)
{
    static const char *const verbs[] = { "update",  "install", "remove",      "makecache", "refresh",
                                         "upgrade", "-qa",     "--configure", "--import",  "-W" };
    size_t i = 0;
    if (argv[i] && streq(argv[i], "chroot") && argv[i + 1])
        i += 2;
    if (argv[i] && streq(argv[i], "env"))
        for (i++; argv[i] && strchr(argv[i], '='); i++)
            ;
    if (!argv[i])
        return xstrdup(strempty(argv[0]));
    for (size_t k = i + 1; argv[k]; k++)
        for (size_t v = 0; v < ELEMENTSOF(verbs); v++)
            if (streq(argv[k], verbs[v]))
                return xasprintf("%s %s", argv[i], argv[k]);
    return xstrdup(argv[i]);
}

/* Why argv failed, with the last of its output. */
/* key: the configuration key of the deadline it ran under */
static char *spawn_error(char *const *argv, int r, const char *out, int64_t timeout_s, const char *key)
{
    _cleanup_free_ char *cmd = rd_argv_join(argv);
    /* the last lines say why */
    const char *tail = out ? out : "";
    size_t len = strlen(tail);
    if (len > 1500)
        tail += len - 1500;
    if (r == -ETIME) {
        _cleanup_free_ char *last = last_line(tail), *brief = short_cmd(argv);
        return xasprintf("%s did not finish within %" PRId64 " s (%s) and was stopped; %s%s\ncommand: %s%s%s", brief,
                         timeout_s, key, *last ? "it was at: " : "it printed nothing", last, cmd, *tail ? "\n" : "",
                         tail);
    }
    if (r < 0)
        return xasprintf("cannot run %s: %s", cmd, strerror(-r));
    return xasprintf("%s failed (exit status %d)%s%s", cmd, r, *tail ? ": " : "", tail);
}

/* ---- installed lists ---- */

/* The next "NAME\tVERSION" line of a sorted list. */
static bool list_next(const char **p, char **ret_name, char **ret_version)
{
    while (**p == '\n')
        (*p)++;
    if (!**p)
        return false;
    const char *nl = strchr(*p, '\n');
    size_t len = nl ? (size_t)(nl - *p) : strlen(*p);
    const char *tab = memchr(*p, '\t', len);
    *ret_name = tab ? xstrndup(*p, (size_t)(tab - *p)) : xstrndup(*p, len);
    *ret_version = tab ? xstrndup(tab + 1, len - (size_t)(tab - *p) - 1) : xstrdup("");
    *p += len;
    return true;
}

void rd_pkg_diff(const char *before, const char *after, rd_pkg_changes *ret)
{
    const char *a = strempty(before), *b = strempty(after);
    char *an = NULL, *av = NULL, *bn = NULL, *bv = NULL;
    bool ha = list_next(&a, &an, &av), hb = list_next(&b, &bn, &bv);
    while (ha || hb) {
        int c = !ha ? 1 : !hb ? -1 : strcmp(an, bn);
        if (c < 0)
            add_change(ret, RD_PKG_REMOVE, an, av, NULL);
        else if (c > 0)
            add_change(ret, RD_PKG_INSTALL, bn, bv, NULL);
        else if (!streq(av, bv))
            add_change(ret, RD_PKG_UPGRADE, bn, bv, av);
        if (c <= 0) {
            free(an);
            free(av);
            an = av = NULL;
            ha = list_next(&a, &an, &av);
        }
        if (c >= 0) {
            free(bn);
            free(bv);
            bn = bv = NULL;
            hb = list_next(&b, &bn, &bv);
        }
    }
}

char *rd_pkg_list_version(const char *list, const char *name)
{
    const char *p = strempty(list);
    char *n = NULL, *v = NULL;
    while (list_next(&p, &n, &v)) {
        bool hit = streq(n, name);
        free(n);
        if (hit)
            return v;
        free(v);
    }
    return NULL;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Sorts the lines of text in place (a new string). */
static char *sort_lines(const char *text)
{
    _cleanup_strv_free_ char **lines = strv_split(text, "\n");
    size_t n = strv_length(lines);
    if (n > 1)
        qsort(lines, n, sizeof(char *), cmp_str);
    strbuf b = { 0 };
    for (size_t i = 0; i < n; i++)
        strbuf_printf(&b, "%s\n", lines[i]);
    return b.s ? strbuf_steal(&b) : xstrdup("");
}

static bool under_root(const char *root)
{
    return root && !streq(root, "/");
}

/* The tree's rpm database (rd_rpm_dbpath_at, as the probe finds it) for
 * root ("/" or the directory): NULL when it has none. */
static const char *rpm_dbpath(const char *root)
{
    bool in = under_root(root);
    _cleanup_close_ int fd = open(in ? root : "/", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    return fd < 0 ? NULL : rd_rpm_dbpath_at(fd, in ? ROOTFS_IN_ROOT : ROOTFS_IN_ROOT | ROOTFS_HOST);
}

/* "rpm --root ROOT --dbpath DB ARGS...", ARGS up to a NULL: the tree's own
 * database, never the one the host's rpm macros name (Debian's rpm:
 * ~/.rpmdb); a tree without one is left to rpm's default. */
__attribute__((sentinel)) static char **rpm_argv(const char *root, ...)
{
    char **argv = rd_strv_new("rpm", "--root", under_root(root) ? root : "/", NULL);
    const char *db = rpm_dbpath(root);
    if (db) {
        argv = strv_push(argv, xstrdup("--dbpath"));
        argv = strv_push(argv, xstrdup(db));
    }
    va_list ap;
    va_start(ap, root);
    for (const char *a; (a = va_arg(ap, const char *));)
        argv = strv_push(argv, xstrdup(a));
    va_end(ap);
    return argv;
}

static char **dpkg_query_argv(const char *root)
{
    _cleanup_free_ char *admin = xasprintf("--admindir=%s/var/lib/dpkg", under_root(root) ? root : "");
    return rd_strv_new("dpkg-query", admin, "-W", "-f", "${db:Status-Abbrev}\t${binary:Package}\t${Version}\n", NULL);
}

static int root_confined(const char *root, int root_fd, char **ret_error);

int rd_pkg_installed(rd_pm pm, const char *root, int root_fd, char **ret, char **ret_error)
{
    /* dpkg-query and rpm read the state the chrooted apt-get writes, and
     * a FIFO there would hang them */
    int c = root_confined(root, root_fd, ret_error);
    if (c < 0)
        return c;
    _cleanup_strv_free_ char **argv = NULL;
    if (pm == RD_PM_APT) {
        argv = dpkg_query_argv(root);
    } else if (pm == RD_PM_DNF || pm == RD_PM_ZYPPER) {
        argv = rpm_argv(root, "-qa", "--qf", "%{NAME}\t%|EPOCH?{%{EPOCH}:}:{}|%{VERSION}-%{RELEASE}\n", NULL);
    } else {
        *ret_error = xstrdup("no package manager is known for this OS");
        return -EOPNOTSUPP;
    }
    _cleanup_free_ char *out = NULL;
    int r = rd_fix_spawn(argv, &out);
    if (r != 0) {
        *ret_error = spawn_error(argv, r, out, rd_fix_get_deadlines()->query_s, "package_query_timeout_s");
        return r == -ETIME ? -ETIME : -EIO;
    }
    if (pm == RD_PM_APT) {
        /* installed ("ii", "iU", "iF", ...): the package's files are there */
        strbuf b = { 0 };
        _cleanup_strv_free_ char **lines = strv_split(out, "\n");
        for (size_t i = 0; lines && lines[i]; i++) {
            const char *l = lines[i];
            if (strlen(l) < 3 ||
                (l[1] != 'i' && l[1] != 'U' && l[1] != 'F' && l[1] != 'H' && l[1] != 'W' && l[1] != 't'))
                continue;
            const char *tab = strchr(l, '\t');
            if (tab)
                strbuf_printf(&b, "%s\n", tab + 1);
        }
        _cleanup_free_ char *text = b.s ? strbuf_steal(&b) : xstrdup("");
        *ret = sort_lines(text);
    } else {
        /* AMD's key is a gpg-pubkey package; the repository fix owns it */
        strbuf b = { 0 };
        _cleanup_strv_free_ char **lines = strv_split(out, "\n");
        for (size_t i = 0; lines && lines[i]; i++)
            if (!startswith(lines[i], "gpg-pubkey\t"))
                strbuf_printf(&b, "%s\n", lines[i]);
        _cleanup_free_ char *text = b.s ? strbuf_steal(&b) : xstrdup("");
        *ret = sort_lines(text);
    }
    return 0;
}

/* ---- the root ---- */

/* What the package managers read and write in a root: dpkg's admin dir and
 * apt's state, caches and configuration; the rpm database; dnf's and
 * zypper's state, caches, logs and repositories. */
static const char *const state_dirs[] = {
    "/var/lib/dpkg",
    "/var/lib/apt",
    "/var/cache/apt",
    "/etc/apt",
    "/var/lib/rpm",
    "/usr/lib/sysimage/rpm",
    "/var/lib/dnf",
    "/var/cache/dnf",
    "/var/cache/zypp",
    "/var/lib/zypp",
    "/etc/yum.repos.d",
    "/etc/dnf",
    "/etc/zypp",
    "/var/log",
    "/var/cache",
    "/var/lib",
    "/var",
    "/etc",
};
/* Files they read whole: never a FIFO, socket or device. */
static const char *const state_files[] = {
    "/var/lib/dpkg/status",
    "/var/lib/dpkg/available",
    "/var/lib/rpm/rpmdb.sqlite",
    "/var/lib/rpm/Packages",
    "/usr/lib/sysimage/rpm/rpmdb.sqlite",
    "/usr/lib/sysimage/rpm/Packages",
    "/var/lib/apt/extended_states",
};

/* Where path leads as a program on the host follows it (dpkg-query
 * --admindir, dnf --installroot, zypper --root): NULL when nothing is there. */
static char *host_resolved(const char *root, const char *path)
{
    _cleanup_free_ char *full = xasprintf("%s%s", root, path);
    return realpath(full, NULL);
}

/* Refuses path when the root's own programs (chrooted) and the host's
 * would find different things there, or one of them a thing outside it
 * (root: resolved, as the context holds it). */
static int confined_dir(int root_fd, const char *root, const char *path, char **ret_error)
{
    rootfs_resolved res;
    int r = rootfs_resolve(root_fd, path, &res);
    _cleanup_free_ char *host = host_resolved(root, path);
    _cleanup_free_ char *inside = r == 0 ? xasprintf("%s%s", root_prefix(root), root_prefix(res.path)) : NULL;
    bool host_out = host && !streq(host, root) && !(startswith(host, root) && host[strlen(root)] == '/');
    bool leaks =
        r == -EXDEV || r == -ELOOP || host_out || (r == 0 && (!host || !streq(host, inside))) || (r == -ENOENT && host);
    if (leaks) {
        _cleanup_free_ char *lnk = res.link ? xasprintf(" (the link %s -> %s)", res.link, strempty(res.target)) : NULL;
        _cleanup_free_ char *where = host ? xasprintf(", to %s as the host's programs follow it", host) : NULL;
        *ret_error = xasprintf("--root %s: %s%s leads outside the root%s%s: the package manager's queries and its "
                               "installs would not see the same tree; make it a directory or a link that stays in "
                               "the root",
                               root, root, path, strempty(lnk), strempty(where));
    }
    rootfs_resolved_done(&res);
    return leaks ? -EXDEV : 0;
}

/* root: "/" or a directory with its links resolved, root_fd a descriptor of it. */
static int root_confined(const char *root, int root_fd, char **ret_error)
{
    root = under_root(root) ? root : "/";
    /* on the host itself there is one tree: only the files matter */
    for (size_t i = 0; under_root(root) && i < ELEMENTSOF(state_dirs); i++) {
        int r = confined_dir(root_fd, root, state_dirs[i], ret_error);
        if (r < 0)
            return r;
    }
    for (size_t i = 0; i < ELEMENTSOF(state_files); i++) {
        int r = under_root(root) ? confined_dir(root_fd, root, state_files[i], ret_error) : 0;
        if (r < 0)
            return r;
        struct stat st;
        _cleanup_close_ int fd = rootfs_open_regular(root_fd, state_files[i], ROOTFS_IN_ROOT, &st);
        if (fd < 0 && fd != -ENOENT) {
            *ret_error = under_root(root)
                             ? xasprintf("--root %s: %s%s %s", root, root, state_files[i], rootfs_strerror(fd))
                             : xasprintf("%s %s", state_files[i], rootfs_strerror(fd));
            return fd;
        }
    }
    return 0;
}

int rd_pkg_root_confined(const rd_ctx *ctx, char **ret_error)
{
    return root_confined(ctx->root, ctx->root_fd, ret_error);
}

/* ---- the lock ---- */

/* The pid holding an fcntl lock on path in the root: > 0, 0 when free. */
static pid_t fcntl_holder(const char *root, const char *path)
{
    _cleanup_free_ char *full = xasprintf("%s%s", under_root(root) ? root : "", path);
    _cleanup_close_ int fd = open(full, O_RDWR | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) < 0 || !S_ISREG(st.st_mode))
        return 0;
    struct flock fl = { .l_type = F_WRLCK, .l_whence = SEEK_SET };
    if (fcntl(fd, F_GETLK, &fl) < 0 || fl.l_type == F_UNLCK)
        return 0;
    return fl.l_pid > 0 ? fl.l_pid : 1;
}

/* zypper's lock: a pid file naming a live process. */
static pid_t pidfile_holder(const char *root, const char *path)
{
    _cleanup_free_ char *text = NULL, *full = xasprintf("%s%s", under_root(root) ? root : "", path);
    if (read_file_at(AT_FDCWD, full, 64, &text, NULL) < 0)
        return 0;
    uint64_t pid;
    strstrip(text);
    if (safe_atou64(text, 10, &pid) < 0 || pid == 0 || pid > INT32_MAX || (pid_t)pid == getpid())
        return 0;
    return kill((pid_t)pid, 0) == 0 || errno == EPERM ? (pid_t)pid : 0;
}

/* *ret_path: the lock file held (a new string). rpm's lock is .rpm.lock
 * in the database folder that rpm is given (rpm_dbpath). */
static pid_t lock_holder(rd_pm pm, const char *root, char **ret_path)
{
    static const char *const apt_locks[] = { "/var/lib/dpkg/lock-frontend", "/var/lib/dpkg/lock",
                                             "/var/lib/apt/lists/lock", "/var/cache/apt/archives/lock" };
    pid_t pid = 0;
    if (pm == RD_PM_APT)
        for (size_t i = 0; i < ELEMENTSOF(apt_locks) && !pid; i++)
            if ((pid = fcntl_holder(root, apt_locks[i])))
                *ret_path = xstrdup(apt_locks[i]);
    const char *db = pm == RD_PM_DNF || pm == RD_PM_ZYPPER ? rpm_dbpath(root) : NULL;
    if (db) {
        _cleanup_free_ char *lock = xasprintf("%s/.rpm.lock", db);
        if ((pid = fcntl_holder(root, lock)))
            *ret_path = TAKE_PTR(lock);
    }
    if (pm == RD_PM_ZYPPER && !pid)
        if ((pid = pidfile_holder(root, "/run/zypp.pid")))
            *ret_path = xstrdup("/run/zypp.pid");
    return pid;
}

static char *process_name(pid_t pid)
{
    _cleanup_free_ char *path = xasprintf("/proc/%d/comm", (int)pid);
    char *comm = NULL;
    if (read_line_at(AT_FDCWD, path, &comm) < 0)
        return xstrdup("?");
    return comm;
}

int rd_pkg_wait_lock(rd_pm pm, const char *root, int64_t timeout_s, char **ret_error)
{
    struct timespec start;
    clock_gettime(CLOCK_MONOTONIC, &start);
    for (;;) {
        _cleanup_free_ char *path = NULL;
        pid_t pid = lock_holder(pm, root, &path);
        if (!pid)
            return 0;
        struct timespec now;
        clock_gettime(CLOCK_MONOTONIC, &now);
        int64_t waited_ms = (int64_t)(now.tv_sec - start.tv_sec) * 1000 + (now.tv_nsec - start.tv_nsec) / 1000000;
        if (waited_ms >= timeout_s * 1000) {
            _cleanup_free_ char *comm = process_name(pid);
            *ret_error = xasprintf("%s%s is held by process %d (%s), still after %" PRId64 " s (package_lock_timeout_s"
                                   "): let it finish, then run this again",
                                   under_root(root) ? root : "", path, (int)pid, comm, timeout_s);
            return -EBUSY;
        }
        usleep(250 * 1000);
    }
}

/* ---- commands ---- */

/* dnf --installroot on a tree without a system-release package cannot
 * tell $releasever: the tree's os-release VERSION_ID major says it. */
static char *root_releasever(const char *root)
{
    _cleanup_free_ char *path = xasprintf("%s/etc/os-release", root), *text = NULL;
    if (read_file_at(AT_FDCWD, path, 64 * 1024, &text, NULL) < 0)
        return NULL;
    const char *v = strstr(text, "\nVERSION_ID=");
    v = v ? v + strlen("\nVERSION_ID=") : startswith(text, "VERSION_ID=");
    if (!v)
        return NULL;
    v += *v == '"';
    size_t n = strspn(v, "0123456789");
    return n ? xstrndup(v, n) : NULL;
}

/* argv for pm in the root: the program and its global options. */
static char **pm_argv_q(rd_pm pm, const char *root, bool quiet)
{
    if (pm == RD_PM_APT)
        return under_root(root)
                   ? rd_strv_new("chroot", root, "env", "DEBIAN_FRONTEND=noninteractive", "apt-get", "-q", NULL)
                   : rd_strv_new("env", "DEBIAN_FRONTEND=noninteractive", "apt-get", "-q", NULL);
    if (pm == RD_PM_DNF) {
        /* without -q where its transaction table is read */
        const char *q = quiet ? "-q" : "--color=never";
        if (!under_root(root))
            return rd_strv_new("dnf", q, NULL);
        char **argv = rd_strv_new("dnf", q, "--installroot", root, NULL);
        _cleanup_free_ char *rv = root_releasever(root);
        if (rv)
            argv = strv_push(argv, xasprintf("--releasever=%s", rv));
        return argv;
    }
    return under_root(root) ? rd_strv_new("zypper", "--non-interactive", "--root", root, NULL)
                            : rd_strv_new("zypper", "--non-interactive", NULL);
}

static char **pm_argv(rd_pm pm, const char *root)
{
    return pm_argv_q(pm, root, true);
}

static char **push_all(char **argv, char *const *items)
{
    for (size_t i = 0; items && items[i]; i++)
        argv = strv_push(argv, xstrdup(items[i]));
    return argv;
}

static int run_within(char **argv, int64_t timeout_s, const char *key, char **ret_output, char **ret_error)
{
    _cleanup_free_ char *out = NULL;
    int r = rd_fix_spawn_within(argv, timeout_s, &out);
    if (r == 0) {
        if (ret_output)
            *ret_output = TAKE_PTR(out);
        return 0;
    }
    *ret_error = spawn_error(argv, r, out, timeout_s, key);
    if (ret_output)
        *ret_output = TAKE_PTR(out);
    return r == -ETIME ? -ETIME : -EIO;
}

/* The end of the dry run under way (CLOCK_MONOTONIC, ms), 0 when none: its
 * runs (apt-get update, the simulation, the URIs; dnf's resolutions) share
 * the one deadline of package_query_timeout_s, so a server that trickles
 * cannot hold the dry run for that long once per run. */
static int64_t dry_run_end_ms;

static int64_t monotonic_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* A query or a dry run. */
static int run(char **argv, char **ret_output, char **ret_error)
{
    int64_t query_s = rd_fix_get_deadlines()->query_s;
    if (!dry_run_end_ms)
        return run_within(argv, query_s, "package_query_timeout_s", ret_output, ret_error);
    int64_t left_ms = dry_run_end_ms - monotonic_ms();
    if (left_ms <= 0) {
        _cleanup_free_ char *brief = short_cmd(argv);
        *ret_error =
            xasprintf("the dry run used its %" PRId64 " s (package_query_timeout_s) before %s", query_s, brief);
        return -ETIME;
    }
    _cleanup_free_ char *out = NULL;
    int r = rd_fix_spawn_within(argv, (left_ms + 999) / 1000, &out);
    if (r == 0) {
        if (ret_output)
            *ret_output = TAKE_PTR(out);
        return 0;
    }
    /* the deadline named is the dry run's, in all */
    *ret_error = spawn_error(argv, r, out, query_s, "package_query_timeout_s");
    if (ret_output)
        *ret_output = TAKE_PTR(out);
    return r == -ETIME ? -ETIME : -EIO;
}

/* A transaction: it downloads and installs. */
static int run_long(char **argv, char **ret_error)
{
    return run_within(argv, rd_fix_get_deadlines()->transaction_s, "package_timeout_s", NULL, ret_error);
}

int rd_pkg_refresh(rd_pm pm, const char *root, char **ret_error)
{
    _cleanup_strv_free_ char **argv = pm_argv(pm, root);
    if (pm == RD_PM_APT) {
        argv = strv_push(argv, xstrdup("-o"));
        argv = strv_push(argv, xstrdup("APT::Update::Error-Mode=any"));
        argv = strv_push(argv, xstrdup("update"));
    } else if (pm == RD_PM_DNF)
        argv = strv_push(argv, xstrdup("makecache"));
    else
        argv = strv_push(argv, xstrdup("refresh"));
    return run_long(argv, ret_error);
}

int rd_pkg_transact(rd_pm pm, const char *root, char *const *install, char *const *remove, unsigned flags,
                    char **ret_error)
{
    int r = 0;
    bool allow_downgrade = flags & RD_PKG_ALLOW_DOWNGRADE;
    if (pm == RD_PM_APT) {
        /* one transaction: NAME=VERSION installs, NAME- removes (with --purge, purges) */
        _cleanup_strv_free_ char **argv = pm_argv(pm, root);
        static const char *const opts[] = { "-y", "-o", "Dpkg::Options::=--force-confdef", "-o",
                                            "Dpkg::Options::=--force-confold" };
        for (size_t i = 0; i < ELEMENTSOF(opts); i++)
            argv = strv_push(argv, xstrdup(opts[i]));
        if (flags & RD_PKG_PURGE)
            argv = strv_push(argv, xstrdup("--purge"));
        if (allow_downgrade)
            argv = strv_push(argv, xstrdup("--allow-downgrades"));
        argv = strv_push(argv, xstrdup("install"));
        argv = push_all(argv, install);
        for (size_t i = 0; remove && remove[i]; i++)
            argv = strv_push(argv, xasprintf("%s-", remove[i]));
        return run_long(argv, ret_error);
    }
    if (remove && remove[0]) {
        _cleanup_strv_free_ char **argv = pm_argv(pm, root);
        if (pm == RD_PM_DNF) {
            argv = strv_push(argv, xstrdup("-y"));
            argv = strv_push(argv, xstrdup("remove"));
        } else
            argv = strv_push(argv, xstrdup("remove"));
        argv = push_all(argv, remove);
        if ((r = run_long(argv, ret_error)) < 0)
            return r;
    }
    if (install && install[0]) {
        _cleanup_strv_free_ char **argv = pm_argv(pm, root);
        if (pm == RD_PM_DNF) {
            argv = strv_push(argv, xstrdup("-y"));
            argv = strv_push(argv, xstrdup(allow_downgrade ? "install" : "install"));
            /* dnf takes NAME-VERSION */
            for (size_t i = 0; install[i]; i++) {
                const char *eq = strchr(install[i], '=');
                argv = strv_push(argv, eq ? xasprintf("%.*s-%s", (int)(eq - install[i]), install[i], eq + 1)
                                          : xstrdup(install[i]));
            }
        } else {
            argv = strv_push(argv, xstrdup("install"));
            if (allow_downgrade)
                argv = strv_push(argv, xstrdup("--oldpackage"));
            argv = push_all(argv, install);
        }
        r = run_long(argv, ret_error);
    }
    return r;
}

char *rd_pkg_pubkeys(rd_pm pm, const char *root)
{
    if (pm != RD_PM_DNF && pm != RD_PM_ZYPPER)
        return NULL;
    _cleanup_strv_free_ char **argv =
        rpm_argv(root, "-q", "gpg-pubkey", "--qf", "%{NAME}-%{VERSION}-%{RELEASE}\n", NULL);
    char *out = NULL;
    int r = rd_fix_spawn(argv, &out);
    if (r != 0) { /* status 1: none imported */
        free(out);
        return xstrdup("");
    }
    _cleanup_free_ char *o = out;
    return sort_lines(o);
}

int rd_pkg_import_key(rd_pm pm, const char *root, const char *key_path, char **ret_error)
{
    if ((pm != RD_PM_DNF && pm != RD_PM_ZYPPER) || !key_path || !under_root(root))
        return 0;
    _cleanup_free_ char *full = xasprintf("%s%s", root, key_path);
    if (access(full, F_OK) < 0)
        return 0;
    _cleanup_strv_free_ char **argv = rpm_argv(root, "--import", full, NULL);
    return run(argv, NULL, ret_error);
}

int rd_pkg_remove_pubkeys(const char *root, char *const *names, char **ret_error)
{
    if (!names || !names[0])
        return 0;
    _cleanup_strv_free_ char **argv = rpm_argv(root, "-e", NULL);
    argv = push_all(argv, names);
    return run(argv, NULL, ret_error);
}

int rd_pkg_repair(rd_pm pm, const char *root, char **ret_error)
{
    if (pm != RD_PM_APT)
        return 0;
    _cleanup_strv_free_ char **argv = under_root(root) ? rd_strv_new("chroot", root, "dpkg", "--configure", "-a", NULL)
                                                       : rd_strv_new("dpkg", "--configure", "-a", NULL);
    return run_long(argv, ret_error);
}

char **rd_pkg_parse_unfinished(const char *text)
{
    char **v = NULL;
    _cleanup_strv_free_ char **lines = strv_split(strempty(text), "\n");
    for (size_t i = 0; lines && lines[i]; i++) {
        const char *l = lines[i];
        const char *tab = strchr(l, '\t');
        /* "ii " installed, "rc " and "un " gone: the rest is unfinished,
         * and so is anything with the reinstallation-required flag */
        if (!tab || tab - l < 2 || ((l[1] == 'n' || l[1] == 'c' || l[1] == 'i') && (tab - l < 3 || l[2] != 'R')))
            continue;
        v = strv_push(v, xstrndup(tab + 1, strcspn(tab + 1, "\t")));
    }
    return v;
}

int rd_pkg_unfinished(rd_pm pm, const char *root, char ***ret, char **ret_error)
{
    if (pm != RD_PM_APT) {
        *ret = NULL;
        return 0;
    }
    _cleanup_strv_free_ char **argv = dpkg_query_argv(root);
    _cleanup_free_ char *out = NULL;
    int r = run(argv, &out, ret_error);
    if (r < 0)
        return r;
    *ret = rd_pkg_parse_unfinished(out);
    return 0;
}

int rd_pkg_force_remove(rd_pm pm, const char *root, char *const *names, char **ret_error)
{
    if (!names || !names[0])
        return 0;
    _cleanup_strv_free_ char **argv = NULL;
    if (pm == RD_PM_APT) {
        argv = under_root(root) ? rd_strv_new("chroot", root, "dpkg", NULL) : rd_strv_new("dpkg", NULL);
        static const char *const opts[] = { "--purge", "--force-remove-reinstreq", "--force-depends" };
        for (size_t i = 0; i < ELEMENTSOF(opts); i++)
            argv = strv_push(argv, xstrdup(opts[i]));
    } else
        argv = rpm_argv(root, "-e", "--noscripts", "--nodeps", NULL);
    argv = push_all(argv, names);
    return run(argv, NULL, ret_error);
}

bool rd_pkg_parse_apt_policy(const char *text, const char *version)
{
    _cleanup_strv_free_ char **lines = strv_split(strempty(text), "\n");
    bool in_row = false;
    for (size_t i = 0; lines && lines[i]; i++) {
        const char *l = lines[i];
        size_t indent = strspn(l, " ");
        const char *v = startswith(l + indent, "*** ") ? l + indent + 4 : l + indent;
        if (indent == 5 || (indent == 1 && startswith(l + 1, "*** "))) {
            in_row = strncmp(v, version, strlen(version)) == 0 && v[strlen(version)] == ' ';
            continue;
        }
        if (in_row && indent > 5 && !strstr(l, "/var/lib/dpkg/status"))
            return true;
    }
    return false;
}

int rd_pkg_reinstallable(rd_pm pm, const char *root, const char *name, const char *version, char **ret_error)
{
    if (pm != RD_PM_APT)
        return 1;
    _cleanup_strv_free_ char **argv =
        under_root(root) ? rd_strv_new("chroot", root, "apt-cache", NULL) : rd_strv_new("apt-cache", NULL);
    argv = strv_push(argv, xstrdup("policy"));
    argv = strv_push(argv, xstrdup(name));
    _cleanup_free_ char *out = NULL;
    int r = run(argv, &out, ret_error);
    if (r < 0)
        return r;
    return rd_pkg_parse_apt_policy(out, version) ? 1 : 0;
}

int rd_pkg_dependents(rd_pm pm, const char *root, char *const *install, char *const *names, char ***ret,
                      char **ret_error)
{
    bool apt_install = pm == RD_PM_APT && install && install[0];
    if ((!names || !names[0]) && !apt_install) {
        *ret = NULL;
        return 0;
    }
    _cleanup_strv_free_ char **argv = pm_argv_q(pm, root, false);
    _cleanup_free_ char *out = NULL;
    rd_pkg_changes c = { 0 };
    int r;
    if (pm == RD_PM_APT) {
        /* the whole transaction: a downgrade removes what needs the newer
         * version as surely as a removal removes what needs the package */
        static const char *const opts[] = { "-s", "--allow-downgrades", "install" };
        for (size_t i = 0; i < ELEMENTSOF(opts); i++)
            argv = strv_push(argv, xstrdup(opts[i]));
        argv = push_all(argv, install);
        for (size_t i = 0; names && names[i]; i++)
            argv = strv_push(argv, xasprintf("%s-", names[i]));
        r = run(argv, &out, ret_error);
        if (r == 0)
            rd_pkg_parse_apt_sim(out, &c);
    } else if (pm == RD_PM_DNF) {
        argv = strv_push(argv, xstrdup("--assumeno"));
        argv = strv_push(argv, xstrdup("remove"));
        argv = push_all(argv, names);
        /* --assumeno ends with status 1 after printing the transaction */
        _cleanup_free_ char *err = NULL;
        r = run(argv, &out, &err);
        r = out && strstr(out, "Removing") ? 0 : r;
        if (r < 0)
            *ret_error = TAKE_PTR(err);
        else
            rd_pkg_parse_dnf(out, &c);
    } else {
        char **x = rd_strv_new(argv[0], "--xmlout", NULL);
        for (size_t i = 1; argv[i]; i++)
            x = strv_push(x, xstrdup(argv[i]));
        x = strv_push(x, xstrdup("remove"));
        x = strv_push(x, xstrdup("--dry-run"));
        x = push_all(x, names);
        r = run(x, &out, ret_error);
        strv_free(x);
        if (r == 0)
            rd_pkg_parse_zypper_xml(out, &c);
    }
    if (r < 0)
        return r;
    char **v = NULL;
    for (size_t i = 0; i < c.n; i++)
        if (c.items[i].op == RD_PKG_REMOVE && !strv_contains(names, c.items[i].name) &&
            !strv_contains(v, c.items[i].name))
            v = strv_push(v, xstrdup(c.items[i].name));
    rd_pkg_changes_free(&c);
    *ret = v;
    return 0;
}

/* ---- the dry run ---- */

static char **apt_overlay_argv(const char *root, const char *ov)
{
    const char *r = under_root(root) ? root : "";
    /* the overlay's configuration, not the host's (write_apt_conf) */
    _cleanup_free_ char *conf = xasprintf("APT_CONFIG=%s/apt.conf", ov);
    char **argv = rd_strv_new("env", conf, "apt-get", "-q", NULL);
    /* clang-format off */
    char *opts[] = {
        xasprintf("Dir::Etc=%s/etc/apt", ov),
        xasprintf("Dir::State=%s/state", ov),
        xasprintf("Dir::State::Lists=%s/lists", ov),
        xasprintf("Dir::State::status=%s/var/lib/dpkg/status", r),
        xasprintf("Dir::Cache=%s/cache", ov),
        xstrdup("Dir::Cache::pkgcache="),
        xstrdup("Dir::Cache::srcpkgcache="),
        xstrdup("Debug::NoLocking=true"),
        xstrdup("APT::Sandbox::User=root"),
        xstrdup("APT::Update::Error-Mode=any"),
    };
    /* clang-format on */
    for (size_t i = 0; i < ELEMENTSOF(opts); i++) {
        argv = strv_push(argv, xstrdup("-o"));
        argv = strv_push(argv, opts[i]);
    }
    return argv;
}

static int apt_dry_run(const char *root, const char *ov, char *const *install, char *const *remove, rd_pkg_changes *ret,
                       char **ret_error)
{
    _cleanup_free_ char *out = NULL;
    {
        _cleanup_strv_free_ char **argv = apt_overlay_argv(root, ov);
        argv = strv_push(argv, xstrdup("update"));
        int r = run(argv, NULL, ret_error);
        if (r < 0)
            return r;
    }
    _cleanup_strv_free_ char **names = strv_copy(install);
    for (size_t i = 0; remove && remove[i]; i++)
        names = strv_push(names, xasprintf("%s-", remove[i]));
    _cleanup_strv_free_ char **argv = apt_overlay_argv(root, ov);
    argv = strv_push(argv, xstrdup("-s"));
    argv = strv_push(argv, xstrdup("install"));
    argv = push_all(argv, names);
    int r = run(argv, &out, ret_error);
    if (r < 0)
        return r;
    rd_pkg_parse_apt_sim(out, ret);
    _cleanup_strv_free_ char **uargv = apt_overlay_argv(root, ov);
    uargv = strv_push(uargv, xstrdup("--print-uris"));
    uargv = strv_push(uargv, xstrdup("-qq"));
    uargv = strv_push(uargv, xstrdup("install"));
    uargv = push_all(uargv, names);
    _cleanup_free_ char *uris = NULL, *err = NULL;
    if (run(uargv, &uris, &err) == 0)
        rd_pkg_parse_apt_uris(uris, ret);
    return 0;
}

static int dnf_dry_run(const char *root, const char *ov, char *const *install, char *const *remove, rd_pkg_changes *ret,
                       char **ret_error)
{
    _cleanup_strv_free_ char **argv = rd_strv_new("dnf", "--assumeno", "--nogpgcheck", NULL);
    if (under_root(root)) {
        argv = strv_push(argv, xstrdup("--installroot"));
        argv = strv_push(argv, xstrdup(root));
        _cleanup_free_ char *rv = root_releasever(root);
        if (rv)
            argv = strv_push(argv, xasprintf("--releasever=%s", rv));
    }
    if (ov) {
        argv = strv_push(argv, xasprintf("--setopt=reposdir=%s/etc/yum.repos.d", ov));
        argv = strv_push(argv, xasprintf("--setopt=cachedir=%s/cache", ov));
    }
    argv = strv_push(argv, xstrdup(install && install[0] ? "install" : "remove"));
    argv = push_all(argv, install && install[0] ? install : remove);
    _cleanup_free_ char *out = NULL, *err = NULL;
    int r = run(argv, &out, &err);
    /* --assumeno: status 1 after "Operation aborted." */
    if (r < 0 && !(out && strstr(out, "Operation aborted"))) {
        *ret_error = TAKE_PTR(err);
        return r;
    }
    rd_pkg_parse_dnf(out, ret);
    /* removals next to installs: their own resolution */
    if (install && install[0] && remove && remove[0])
        return dnf_dry_run(root, ov, NULL, remove, ret, ret_error);
    return 0;
}

static int zypper_dry_run(const char *root, const char *ov, char *const *install, char *const *remove,
                          rd_pkg_changes *ret, char **ret_error)
{
    _cleanup_strv_free_ char **argv = rd_strv_new("zypper", "--xmlout", "--non-interactive", "--no-gpg-checks", NULL);
    if (under_root(root)) {
        argv = strv_push(argv, xstrdup("--root"));
        argv = strv_push(argv, xstrdup(root));
    }
    if (ov) {
        argv = strv_push(argv, xstrdup("--reposd-dir"));
        argv = strv_push(argv, xasprintf("%s/etc/zypp/repos.d", ov));
        argv = strv_push(argv, xstrdup("--cache-dir"));
        argv = strv_push(argv, xasprintf("%s/cache", ov));
    }
    argv = strv_push(argv, xstrdup("install"));
    argv = strv_push(argv, xstrdup("--dry-run"));
    argv = push_all(argv, install);
    for (size_t i = 0; remove && remove[i]; i++)
        argv = strv_push(argv, xasprintf("!%s", remove[i]));
    _cleanup_free_ char *out = NULL;
    int r = run(argv, &out, ret_error);
    if (r < 0)
        return r;
    rd_pkg_parse_zypper_xml(out, ret);
    return 0;
}

int rd_pkg_dry_run(rd_pm pm, const char *root, const char *overlay_dir, char *const *install, char *const *remove,
                   rd_pkg_changes *ret, char **ret_error)
{
    rd_pkg_changes c = { 0 };
    dry_run_end_ms = monotonic_ms() + rd_fix_get_deadlines()->query_s * 1000;
    int r = pm == RD_PM_APT      ? apt_dry_run(root, overlay_dir, install, remove, &c, ret_error)
            : pm == RD_PM_DNF    ? dnf_dry_run(root, overlay_dir, install, remove, &c, ret_error)
            : pm == RD_PM_ZYPPER ? zypper_dry_run(root, overlay_dir, install, remove, &c, ret_error)
                                 : (*ret_error = xstrdup("no package manager is known for this OS"), -EOPNOTSUPP);
    dry_run_end_ms = 0;
    if (r < 0) {
        rd_pkg_changes_free(&c);
        return r;
    }
    *ret = c;
    return 0;
}
