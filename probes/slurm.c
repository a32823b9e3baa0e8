/* SPDX-License-Identifier: MIT */
/* Slurm: what slurm.conf, gres.conf and cgroup.conf say about this node's
 * GPUs, read from /etc/slurm (or Debian's older /etc/slurm-llnl). The
 * judgement is in slurm-assess.c. */
#include <fcntl.h>
#include <stdarg.h>
#include <strings.h>
#include "probe.h"
#include "rootfs.h"
#include "slurm-conf.h"
#include "slurm-probe.h"
#include "util.h"

/* Include depth past which a file is not read (a file that includes itself). */
#define INCLUDE_MAX 8
/* The bounds of one reading of the configuration (slurm.conf, gres.conf,
 * cgroup.conf and their Includes together): every check, slurm health and
 * the daemon read it, so no input makes that slow. Each file is read at
 * most once per top-level file. */
#define PARSE_FILES_MAX 64
#define PARSE_LINES_MAX 200000
#define PARSE_EXPANSIONS_MAX 262144

typedef struct {
    size_t files, lines, expansions;
    char **seen; /* the files read for the current top-level file */
    size_t n_seen;
    bool files_hit, lines_hit, expansions_hit;
} parse_budget;

static const char *const conf_dirs[] = { "/etc/slurm", "/etc/slurm-llnl" };

typedef struct {
    const rd_ctx *ctx;
    rd_facts *facts;
    const char *path; /* the file being read */
    unsigned depth;
    int (*on_line)(const rd_slurm_line *l, void *userdata);
    size_t *n_errors; /* the length of facts->slurm.errors: appending stays O(1) */
    parse_budget *budget;
} reader;

/* Says once, in facts->slurm.limits, that a bound of the reading was hit. */
_printf_(3, 4) static void limit_hit(reader *rd, bool *flag, const char *fmt, ...)
{
    if (*flag)
        return;
    *flag = true;
    va_list ap;
    va_start(ap, fmt);
    _cleanup_free_ char *what = xvasprintf(fmt, ap);
    va_end(ap);
    rd->facts->slurm.limits = strv_push(rd->facts->slurm.limits, xasprintf("%s: %s", rd->path, what));
}

static void add_error(rd_slurm_facts *s, size_t *n_errors, const char *path, unsigned line, const char *what)
{
    s->errors = strv_push_n(s->errors, n_errors, xasprintf("%s:%u: %s", path, line, what));
}

static void add_setting(rd_slurm_facts *s, const char *key, const char *value, const char *path, unsigned line)
{
    rd_slurm_setting *st = ARRAY_APPEND(s->settings, s->n_settings);
    st->key = xstrdup(key);
    st->value = xstrdup(value);
    st->file = xstrdup(path);
    st->line = line;
}

static int read_conf(reader *rd, const char *path);

/* An Include: relative names are taken from the configuration directory. */
static int include_file(reader *rd, const rd_slurm_line *l)
{
    rd_slurm_facts *s = &rd->facts->slurm;
    if (rd->depth >= INCLUDE_MAX) {
        add_error(s, rd->n_errors, rd->path, l->line, "includes nested too deep");
        return 0;
    }
    _cleanup_free_ char *path =
        l->include[0] == '/' ? xstrdup(l->include) : xasprintf("%s/%s", s->conf_dir, l->include);
    if (strv_contains(rd->budget->seen, path)) {
        _cleanup_free_ char *what =
            xasprintf("Include %s: %s was read already (an Include cycle or repeat): not read again", l->include, path);
        add_error(s, rd->n_errors, rd->path, l->line, what);
        return 0;
    }
    reader sub = *rd;
    sub.depth++;
    int r = read_conf(&sub, path);
    if (r < 0) {
        _cleanup_free_ char *what = xasprintf("Include %s: %s", l->include, rootfs_strerror(r));
        add_error(s, rd->n_errors, rd->path, l->line, what);
    }
    return 0;
}

static int dispatch_line(const rd_slurm_line *l, void *userdata)
{
    reader *rd = userdata;
    if (l->error) {
        _cleanup_free_ char *what = xasprintf("not Key=Value pairs: %s", l->error);
        add_error(&rd->facts->slurm, rd->n_errors, rd->path, l->line, what);
        return 0;
    }
    if (++rd->budget->lines > PARSE_LINES_MAX) {
        limit_hit(rd, &rd->budget->lines_hit, "more than %d lines in all: the rest is not read", PARSE_LINES_MAX);
        return 1; /* stops this file's parse */
    }
    if (l->include)
        return include_file(rd, l);
    return rd->on_line(l, rd);
}

/* Reads one file; a missing top-level file is no error, the includer
 * reports a missing included one. */
static int read_conf(reader *rd, const char *path)
{
    if (rd->budget->files >= PARSE_FILES_MAX) {
        const char *saved = rd->path;
        rd->path = path;
        limit_hit(rd, &rd->budget->files_hit, "more than %d files in all: this one and the rest are not read",
                  PARSE_FILES_MAX);
        rd->path = saved;
        return 0;
    }
    rd->budget->files++;
    rd->budget->seen = strv_push_n(rd->budget->seen, &rd->budget->n_seen, xstrdup(path));
    _cleanup_free_ char *text = NULL;
    int r = rd_root_read_file(rd->ctx, path, 0, &text);
    rd_facts_note_unreadable(rd->facts, path, r, "the Slurm settings of this node's GPUs");
    if (r < 0) {
        if (r != -ENOENT && rd->depth == 0)
            add_error(&rd->facts->slurm, rd->n_errors, path, 0, rootfs_strerror(r));
        return rd->depth > 0 ? r : 0;
    }
    const char *saved = rd->path;
    rd->path = path;
    rd_slurm_conf_parse(text, strlen(text), dispatch_line, rd);
    rd->path = saved;
    return 0;
}

static int slurm_conf_line(const rd_slurm_line *l, void *userdata)
{
    reader *rd = userdata;
    rd_slurm_facts *s = &rd->facts->slurm;
    const char *v;
    if ((v = rd_slurm_line_get(l, "NodeName"))) {
        rd_slurm_node *n = ARRAY_APPEND(s->nodes, s->n_nodes);
        n->node_name = xstrdup(v);
        n->gres = xstrdup_or_null(rd_slurm_line_get(l, "Gres"));
        n->file = xstrdup(rd->path);
        n->line = l->line;
    } else if ((v = rd_slurm_line_get(l, "GresTypes")))
        add_setting(s, "GresTypes", v, rd->path, l->line);
    return 0;
}

static int gres_conf_line(const rd_slurm_line *l, void *userdata)
{
    reader *rd = userdata;
    rd_slurm_facts *s = &rd->facts->slurm;
    const char *name = rd_slurm_line_get(l, "Name"), *autodetect = rd_slurm_line_get(l, "AutoDetect");
    if (!name && !autodetect)
        return 0;
    rd_slurm_gres *g = ARRAY_APPEND(s->gres, s->n_gres);
    g->node_name = xstrdup_or_null(rd_slurm_line_get(l, "NodeName"));
    g->name = xstrdup_or_null(name);
    g->type = xstrdup_or_null(rd_slurm_line_get(l, "Type"));
    g->file_spec = xstrdup_or_null(rd_slurm_line_get(l, "File"));
    g->cores = xstrdup_or_null(rd_slurm_line_get(l, "Cores"));
    g->autodetect = xstrdup_or_null(autodetect);
    g->file = xstrdup(rd->path);
    g->line = l->line;
    g->count = -1;
    const char *count = rd_slurm_line_get(l, "Count");
    if (count) {
        char *end;
        errno = 0;
        long long c = strtoll(count, &end, 10);
        if (errno || end == count || *end || c < 0)
            add_error(s, rd->n_errors, rd->path, l->line, "Count= is not a number");
        else
            g->count = c;
    }
    _cleanup_free_ char *error = NULL;
    if (g->file_spec && rd->budget->expansions_hit)
        return 0; /* the bound was hit: File= is not expanded any more */
    if (g->file_spec && rd_slurm_list_expand(g->file_spec, &g->files, &error) < 0) {
        _cleanup_free_ char *what = xasprintf("File=%s: %s", g->file_spec, error);
        add_error(s, rd->n_errors, rd->path, l->line, what);
    }
    rd->budget->expansions += strv_length(g->files);
    if (rd->budget->expansions > PARSE_EXPANSIONS_MAX) {
        strv_free(TAKE_PTR(g->files));
        limit_hit(rd, &rd->budget->expansions_hit,
                  "File= ranges name more than %d files in all: the rest are not expanded", PARSE_EXPANSIONS_MAX);
    }
    return 0;
}

static int cgroup_conf_line(const rd_slurm_line *l, void *userdata)
{
    reader *rd = userdata;
    static const char *const keys[] = { "ConstrainDevices", "AllowedDevicesFile" };
    for (size_t i = 0; i < ELEMENTSOF(keys); i++) {
        const char *v = rd_slurm_line_get(l, keys[i]);
        if (v)
            add_setting(&rd->facts->slurm, keys[i], v, rd->path, l->line);
    }
    return 0;
}

typedef struct {
    rd_slurm_facts *s;
    size_t n;
} allowed_list;

static int allowed_device_line(char *line, void *userdata)
{
    allowed_list *a = userdata;
    line[strcspn(line, "#")] = 0;
    _cleanup_strv_free_ char **words = strv_split(line, " \t\r");
    for (char **w = words; w && *w; w++)
        a->s->allowed_devices = strv_push_n(a->s->allowed_devices, &a->n, xstrdup(*w));
    return 0;
}

/* The whitelist of devices older Slurm gives every job under ConstrainDevices:
 * the file cgroup.conf names, else the default name beside it. */
static void read_allowed_devices(const rd_ctx *ctx, rd_facts *facts, size_t *n_errors)
{
    rd_slurm_facts *s = &facts->slurm;
    const char *file = NULL;
    for (size_t i = 0; i < s->n_settings; i++)
        if (strcasecmp(s->settings[i].key, "AllowedDevicesFile") == 0)
            file = s->settings[i].value;
    _cleanup_free_ char *path = file ? xstrdup(file) : xasprintf("%s/cgroup_allowed_devices_file.conf", s->conf_dir);
    _cleanup_free_ char *text = NULL;
    int r = rd_root_read_file(ctx, path, 0, &text);
    rd_facts_note_unreadable(facts, path, r, "the devices Slurm lets every job open");
    if (r < 0) {
        if (file)
            add_error(s, n_errors, path, 0, rootfs_strerror(r));
        return;
    }
    s->allowed_devices_file = TAKE_PTR(path);
    allowed_list a = { s, 0 };
    foreach_line(text, allowed_device_line, &a);
}

static bool conf_present(const rd_ctx *ctx, const char *dir)
{
    static const char *const names[] = { "slurm.conf", "gres.conf" };
    for (size_t i = 0; i < ELEMENTSOF(names); i++) {
        _cleanup_free_ char *path = xasprintf("%s/%s", dir, names[i]);
        int fd = rd_root_open(ctx, path, O_PATH);
        if (fd >= 0) {
            close(fd);
            return true;
        }
    }
    return false;
}

static void slurm_gather(const rd_ctx *ctx, rd_facts *facts)
{
    rd_slurm_facts *s = &facts->slurm;
    for (size_t i = 0; i < ELEMENTSOF(conf_dirs) && !s->present; i++)
        if (conf_present(ctx, conf_dirs[i])) {
            s->present = true;
            s->conf_dir = xstrdup(conf_dirs[i]);
        }
    if (!s->present)
        return;
    s->node_name = rd_slurm_node_name(ctx);
    static const struct {
        const char *name;
        int (*on_line)(const rd_slurm_line *l, void *userdata);
    } files[] = {
        { "slurm.conf", slurm_conf_line },
        { "gres.conf", gres_conf_line },
        { "cgroup.conf", cgroup_conf_line },
    };
    size_t n_errors = 0;
    parse_budget budget = { 0 };
    for (size_t i = 0; i < ELEMENTSOF(files); i++) {
        _cleanup_free_ char *path = xasprintf("%s/%s", s->conf_dir, files[i].name);
        reader rd = {
            .ctx = ctx, .facts = facts, .on_line = files[i].on_line, .n_errors = &n_errors, .budget = &budget
        };
        read_conf(&rd, path);
        strv_free(TAKE_PTR(budget.seen));
        budget.n_seen = 0;
    }
    read_allowed_devices(ctx, facts, &n_errors);
    rd_slurm_gather_rsmi(ctx, facts);
    rd_slurm_gather_numa(facts);
}

const rd_probe rd_probe_slurm = {
    .id = "slurm",
    .title = "Slurm configuration of this node's GPUs",
    .flags = 0,
    .findings = rd_slurm_findings,
    .areas = RD_STRV("slurm"),
    .reads = (const rd_probe_input[]){ { "/etc/slurm", true }, { "/etc/slurm-llnl", true }, { NULL } },
    .gather = slurm_gather,
    .assess = rd_slurm_assess,
};
