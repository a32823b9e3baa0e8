/* SPDX-License-Identifier: MIT */
/* Putting a root back as a journal says it was before its run: for undo,
 * for a failed apply, and for a run that was killed half-way. Every step
 * first looks whether it is already done, so all of this may be repeated
 * after a kill. */
#include <fcntl.h>
#include <sys/stat.h>
#include "journal-private.h"

int rd_read_before(rd_journal *jr, json_object *jf, char **ret, size_t *ret_size)
{
    _cleanup_free_ char *path = xasprintf("%s/%s", jr->dir, strempty(rd_json_get_str(jf, "before")));
    _cleanup_free_ char *content = NULL;
    size_t size = 0;
    int r = rd_fix_read(jr->root_fd, path, &content, &size, NULL);
    if (r < 0)
        return r;
    char h[65];
    rd_sha256_hex(content, size, h);
    if (!streq_ptr(h, rd_json_get_str(jf, "before_sha256")))
        return -EBADMSG;
    *ret = TAKE_PTR(content);
    *ret_size = size;
    return 0;
}

bool rd_file_is_before(rd_journal *jr, json_object *jf, const char *content, size_t size, const struct stat *st,
                       bool exists)
{
    (void)jr;
    if (!rd_json_get_bool(jf, "existed"))
        return !exists;
    if (!exists || (int64_t)(st->st_mode & 07777) != rd_json_get_int(jf, "mode", -1) ||
        (int64_t)st->st_uid != rd_json_get_int(jf, "uid", -1) || (int64_t)st->st_gid != rd_json_get_int(jf, "gid", -1))
        return false;
    char h[65];
    rd_sha256_hex(content, size, h);
    return streq_ptr(h, rd_json_get_str(jf, "before_sha256"));
}

static void restore_one(rd_journal *jr, json_object *jf, strbuf *problems)
{
    const char *path = rd_json_get_str(jf, "path");
    _cleanup_free_ char *cur = NULL;
    size_t size = 0;
    struct stat st = { 0 };
    int r = rd_fix_read(jr->root_fd, path, &cur, &size, &st);
    if (r < 0 && r != -ENOENT && r != -ENOTDIR) {
        strbuf_printf(problems, "%scannot read %s: %s", problems->len ? "; " : "", path, rd_fix_describe_error(-r));
        return;
    }
    if (rd_file_is_before(jr, jf, cur, size, &st, r >= 0))
        return;
    if (!rd_json_get_bool(jf, "existed")) {
        r = rd_fix_unlink(jr->root_fd, path);
        r = r == -ENOENT ? 0 : r;
    } else {
        _cleanup_free_ char *before = NULL;
        size_t before_size = 0;
        r = rd_read_before(jr, jf, &before, &before_size);
        if (r >= 0)
            r = rd_fix_write(jr->root_fd, path, before, before_size, (mode_t)rd_json_get_int(jf, "mode", 0644),
                             (uid_t)rd_json_get_int(jf, "uid", 0), (gid_t)rd_json_get_int(jf, "gid", 0), NULL);
    }
    if (r < 0)
        strbuf_printf(problems, "%scannot restore %s: %s", problems->len ? "; " : "", path, rd_fix_describe_error(-r));
}

/* NAME.lock, NAME+ or NAME.PID of a user or group file */
static bool shadow_leftover(const char *name, const void *userdata)
{
    static const char *const bases[] = { "passwd", "shadow", "group", "gshadow" };
    for (size_t i = 0; i < ELEMENTSOF(bases); i++) {
        const char *rest = startswith(name, bases[i]);
        if (!rest)
            continue;
        if (streq(rest, ".lock") || streq(rest, "+"))
            return true;
        uint64_t pid;
        if (rest[0] == '.' && safe_atou64(rest + 1, 10, &pid) == 0)
            return true;
    }
    return false;
}

char **rd_shadow_leftovers(int root_fd)
{
    _cleanup_close_ int dfd = rd_fix_open_dir(root_fd, "/etc", NULL);
    return dfd >= 0 ? dir_names(dfd, shadow_leftover, NULL, NULL) : NULL;
}

/* Only while the shadow tools' lock is held: then none of them is running,
 * and what they left is stale. */
static void remove_shadow_leftovers(rd_journal *jr)
{
    _cleanup_strv_free_ char **now = rd_shadow_leftovers(jr->root_fd);
    _cleanup_strv_free_ char **before = rd_json_to_strv(rd_json_get_array(jr->j, "leftovers_before"));
    _cleanup_close_ int dfd = now ? rd_fix_open_dir(jr->root_fd, "/etc", NULL) : -1;
    for (size_t i = 0; dfd >= 0 && now[i]; i++)
        if (!strv_contains(before, now[i]))
            (void)unlinkat(dfd, now[i], 0);
}

static void remove_dirs(rd_journal *jr)
{
    _cleanup_strv_free_ char **dirs = rd_json_to_strv(rd_json_get_array(jr->j, "directories_created"));
    for (size_t n = strv_length(dirs); n-- > 0;) {
        const char *d = dirs[n];
        const char *slash = strrchr(d, '/');
        if (!slash || !slash[1])
            continue;
        _cleanup_free_ char *parent = slash == d ? xstrdup("/") : xstrndup(d, (size_t)(slash - d));
        _cleanup_close_ int pfd = rd_fix_open_dir(jr->root_fd, parent, NULL);
        if (pfd >= 0)
            (void)unlinkat(pfd, slash + 1, AT_REMOVEDIR);
    }
}

void rd_restore_files(rd_journal *jr, rd_restore_method method, strbuf *problems)
{
    json_object *files = rd_json_get_array(jr->j, "files");
    size_t n = files ? json_object_array_length(files) : 0;
    bool groups = false;
    for (size_t i = 0; i < n && method == RD_RESTORE_FILES; i++)
        groups |= rd_is_group_file(rd_json_get_str(json_object_array_get_idx(files, i), "path"));
    /* the run's shadow tools may have been killed with their lock files
     * and new files in place: those go first, while the lock is held */
    _cleanup_close_ int pwlock = groups ? rd_shadow_lock(jr->root_fd, true) : -1;
    if (pwlock >= 0)
        remove_shadow_leftovers(jr);
    for (size_t i = n; i-- > 0;) {
        json_object *jf = json_object_array_get_idx(files, i);
        const char *path = rd_json_get_str(jf, "path");
        if (!path || (method == RD_RESTORE_GPASSWD && rd_is_group_file(path)))
            continue;
        restore_one(jr, jf, problems);
    }
    remove_dirs(jr);
}

/* Whether user is in the member list (the fourth field) of group's line in
 * /etc/group or /etc/gshadow text. */
static bool line_has_member(const char *text, const char *group, const char *user)
{
    _cleanup_free_ char *copy = xstrdup(text);
    char *save = NULL;
    for (char *l = strtok_r(copy, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
        char *members = l;
        for (int f = 0; f < 3 && members; f++)
            if ((members = strchr(members, ':')))
                *members++ = 0;
        if (!members || !streq(l, group))
            continue;
        char *msave = NULL;
        for (char *m = strtok_r(members, ",", &msave); m; m = strtok_r(NULL, ",", &msave))
            if (streq(m, user))
                return true;
    }
    return false;
}

static bool is_member(int root_fd, const char *user, const char *group)
{
    static const char *const files[] = { "/etc/group", "/etc/gshadow" };
    for (size_t i = 0; i < ELEMENTSOF(files); i++) {
        _cleanup_free_ char *text = NULL;
        if (rd_fix_read(root_fd, files[i], &text, NULL, NULL) == 0 && line_has_member(text, group, user))
            return true;
    }
    return false;
}

void rd_restore_groups(rd_journal *jr, strbuf *problems)
{
    {
        /* what a gpasswd killed before left goes, while no shadow tool runs;
         * the lock is let go again, since gpasswd takes it itself */
        _cleanup_close_ int pwlock = rd_shadow_lock(jr->root_fd, false);
        if (pwlock >= 0)
            remove_shadow_leftovers(jr);
    }
    json_object *jg = rd_json_get_array(jr->j, "groups");
    for (size_t n = jg ? json_object_array_length(jg) : 0; n-- > 0;) {
        json_object *g = json_object_array_get_idx(jg, n);
        const char *user = rd_json_get_str(g, "user"), *group = rd_json_get_str(g, "group");
        if (!streq_ptr(rd_json_get_str(g, "action"), "add") || !user || !group || !is_member(jr->root_fd, user, group))
            continue;
        _cleanup_strv_free_ char **argv = rd_group_argv(jr->root, false, user, group);
        _cleanup_free_ char *e = NULL;
        if (rd_run_argv(argv, &e) < 0)
            strbuf_printf(problems, "%s%s", problems->len ? "; " : "", e);
    }
}

void rd_restore_commands(rd_journal *jr, rd_commands_undo which, char ***deferred, strbuf *problems)
{
    json_object *jc = rd_json_get_array(jr->j, "commands");
    for (size_t n = jc ? json_object_array_length(jc) : 0; n-- > 0;) {
        json_object *c = json_object_array_get_idx(jc, n);
        _cleanup_strv_free_ char **argv = rd_json_to_strv(rd_json_get_array(c, "undo"));
        if (!argv)
            continue;
        /* Under a --root, apply never runs a command (the tree's first boot
         * does), so a journal there that says "now" is not believed: undo
         * runs nothing on the host for a tree it only holds. */
        if (streq_ptr(rd_json_get_str(c, "when"), "first-boot") || !streq(jr->root, "/")) {
            /* it never ran unless the run was applied */
            _cleanup_free_ char *cmd = which == RD_COMMANDS_UNDO ? rd_argv_join(argv) : NULL;
            if (cmd && !strv_contains(*deferred, cmd))
                *deferred = strv_push(*deferred, TAKE_PTR(cmd));
            continue;
        }
        if (which == RD_COMMANDS_FAILED && !rd_json_get_bool(c, "ran"))
            continue;
        _cleanup_free_ char *e = NULL;
        if (rd_run_argv(argv, &e) < 0)
            strbuf_printf(problems, "%s%s", problems->len ? "; " : "", e);
    }
}
