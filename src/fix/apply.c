/* SPDX-License-Identifier: MIT */
/* Applying a plan, in phases: check (nothing changed since the plan, no
 * interrupted run pending), snapshot (the journal with the before-state of
 * every file, the directories, group changes and commands to come, written
 * before the first change), act, then finish (the after-state, "applied")
 * or roll back (everything put back from the before-copies). */
#include <fcntl.h>
#include <sys/stat.h>
#include "journal-private.h"

static int fail_after(void)
{
    const char *s = secure_getenv("ROCM_DOCTOR_FIX_FAIL_AFTER");
    uint64_t n;
    if (!s || safe_atou64(s, 10, &n) < 0 || n > 100000)
        return -1;
    return (int)n;
}

/* ---- check ---- */

static int verify_unchanged(const rd_plan *p, int root_fd, char **ret_error)
{
    for (size_t i = 0; i < p->n_snapshots; i++) {
        const rd_snapshot *s = &p->snapshots[i];
        if (s->unreadable)
            continue;
        _cleanup_free_ char *content = NULL;
        size_t size = 0;
        int r = rd_fix_read(root_fd, s->path, &content, &size, NULL);
        _cleanup_free_ char *d = rd_root_shown(p->root, s->path);
        if (r < 0 && r != -ENOENT && r != -ENOTDIR) {
            *ret_error = xasprintf("%s: %s; nothing was written", d, rd_fix_describe_error(-r));
            return r;
        }
        bool exists = r >= 0;
        if (exists != s->exists || (exists && (size != s->size || memcmp(content, s->content, size) != 0))) {
            *ret_error = xasprintf("%s changed after the plan was made; nothing was written. Run `rocm-doctor fix` "
                                   "again to see the new plan.",
                                   d);
            return -ESTALE;
        }
    }
    return 0;
}

static char **touched_paths(const rd_plan *p)
{
    char **v = NULL;
    for (size_t i = 0; i < p->n_snapshots; i++)
        if (p->snapshots[i].touched)
            v = strv_push(v, xstrdup(p->snapshots[i].path));
    return v;
}

/* Under the lock: what killed runs left is swept, an interrupted run stops
 * this one, and every file must be as the plan saw it. */
static int apply_check(const rd_plan *p, int root_fd, char **ret_error)
{
    _cleanup_strv_free_ char **paths = touched_paths(p);
    rd_journal_sweep(p->root, root_fd, paths);
    if (rd_journal_unresolved(p->root, root_fd, ret_error) > 0)
        return -EBUSY;
    return verify_unchanged(p, root_fd, ret_error);
}

/* ---- snapshot ---- */

/* The last action of the plan on path decides the file's planned state. */
static void planned_state(const rd_plan *p, const char *path, json_object *jf)
{
    const rd_action *last = NULL;
    for (size_t i = 0; i < p->n_steps; i++)
        for (size_t k = 0; k < p->steps[i].n_actions; k++) {
            const rd_action *a = &p->steps[i].actions[k];
            if ((a->kind == RD_ACT_WRITE || a->kind == RD_ACT_REMOVE) && streq(a->path, path))
                last = a;
        }
    if (!last)
        return;
    rd_json_set_bool(jf, "planned_exists", last->kind == RD_ACT_WRITE);
    if (last->kind == RD_ACT_WRITE) {
        char h[65];
        rd_sha256_hex(last->content, last->size, h);
        rd_json_set_str(jf, "planned_sha256", h);
    }
}

/* The before-state of snapshot i, read again now (as root: /etc/gshadow
 * too), its bytes saved as files/i. */
static int file_entry(const rd_plan *p, rd_journal *jr, size_t i, json_object **ret)
{
    const char *path = p->snapshots[i].path;
    _cleanup_free_ char *content = NULL;
    size_t size = 0;
    struct stat st = { 0 };
    int r = rd_fix_read(jr->root_fd, path, &content, &size, &st);
    if (r < 0 && r != -ENOENT && r != -ENOTDIR)
        return r;
    _cleanup_json_ json_object *jf = json_object_new_object();
    rd_json_set_str(jf, "path", path);
    rd_json_set_bool(jf, "existed", r >= 0);
    if (r >= 0) {
        char h[65];
        rd_sha256_hex(content, size, h);
        _cleanup_free_ char *name = xasprintf("files/%zu", i);
        _cleanup_free_ char *full = xasprintf("%s/%s", jr->dir, name);
        rd_json_set_str(jf, "before", name);
        rd_json_set_str(jf, "before_sha256", h);
        rd_json_set_int(jf, "mode", st.st_mode & 07777);
        rd_json_set_int(jf, "uid", st.st_uid);
        rd_json_set_int(jf, "gid", st.st_gid);
        r = rd_fix_write(jr->root_fd, full, content, size, 0600, 0, 0, NULL);
        if (r < 0)
            return r;
    }
    planned_state(p, path, jf);
    *ret = TAKE_PTR(jf);
    return 0;
}

/* The directories that writing path will create: missing now. */
static void missing_dirs(int root_fd, const char *path, char ***dirs)
{
    const char *slash = strrchr(path, '/');
    for (const char *c = strchr(path + 1, '/'); c && c <= slash; c = strchr(c + 1, '/')) {
        _cleanup_free_ char *d = xstrndup(path, (size_t)(c - path));
        _cleanup_close_ int fd = rd_fix_open_dir(root_fd, d, NULL);
        if (fd == -ENOENT && !strv_contains(*dirs, d))
            *dirs = strv_push(*dirs, TAKE_PTR(d));
    }
}

static void journal_plan(const rd_plan *p, rd_journal *jr)
{
    json_object *steps = json_object_new_array(), *groups = json_object_new_array(), *cmds = json_object_new_array();
    _cleanup_strv_free_ char **dirs = NULL;
    for (size_t i = 0; i < p->n_steps; i++) {
        const rd_step *s = &p->steps[i];
        json_object_array_add(steps, rd_step_summary_json(s));
        for (size_t k = 0; k < s->n_actions; k++) {
            const rd_action *a = &s->actions[k];
            json_object *o = NULL;
            if (a->kind == RD_ACT_WRITE)
                missing_dirs(jr->root_fd, a->path, &dirs);
            if (a->kind == RD_ACT_GROUP_ADD || a->kind == RD_ACT_GROUP_DEL) {
                o = json_object_new_object();
                rd_json_set_str(o, "action", a->kind == RD_ACT_GROUP_ADD ? "add" : "remove");
                rd_json_set_str(o, "user", a->user);
                rd_json_set_str(o, "group", a->group);
                json_object_array_add(groups, o);
            } else if (a->kind == RD_ACT_COMMAND) {
                o = json_object_new_object();
                json_object_object_add(o, "argv", rd_json_strv(a->argv));
                json_object_object_add(o, "undo", a->undo_argv ? rd_json_strv(a->undo_argv) : NULL);
                rd_json_set_str(o, "when", streq(p->root, "/") ? "now" : "first-boot");
                json_object_array_add(cmds, o);
            }
        }
    }
    json_object_object_add(jr->j, "steps", steps);
    json_object_object_add(jr->j, "groups", groups);
    json_object_object_add(jr->j, "commands", cmds);
    json_object_object_add(jr->j, "directories_created", rd_json_strv(dirs));
    _cleanup_strv_free_ char **leftovers = rd_shadow_leftovers(jr->root_fd);
    json_object_object_add(jr->j, "leftovers_before", rd_json_strv(leftovers));
}

/* The journal, complete with the before-state, on disk before the first
 * change: whatever happens later, undo can put everything back. */
static int apply_snapshot(const rd_plan *p, int root_fd, rd_journal *jr, char **ret_error)
{
    int r = rd_journal_create(p->root, root_fd, jr);
    if (r < 0) {
        _cleanup_free_ char *d = rd_root_shown(p->root, RD_JOURNAL_DIR);
        *ret_error =
            xasprintf("cannot create the journal under %s: %s; nothing was written", d, rd_fix_describe_error(-r));
        return r;
    }
    _cleanup_free_ char *created = rd_now_iso();
    rd_json_set_str(jr->j, "schema", RD_JOURNAL_SCHEMA);
    rd_json_set_str(jr->j, "run_id", jr->run_id);
    rd_json_set_str(jr->j, "root", p->root);
    rd_json_set_str(jr->j, "created", created);
    rd_journal_set_state(jr, RD_STATE_APPLYING);
    json_object *files = json_object_new_array();
    json_object_object_add(jr->j, "files", files);
    for (size_t i = 0; i < p->n_snapshots && r >= 0; i++) {
        json_object *jf = NULL;
        if (p->snapshots[i].touched && (r = file_entry(p, jr, i, &jf)) >= 0)
            json_object_array_add(files, jf);
    }
    journal_plan(p, jr);
    const rd_action *pk = rd_plan_packages(p);
    if (r >= 0 && pk && (r = rd_journal_packages_before(jr, pk, ret_error)) < 0) {
        rd_journal_sweep(p->root, root_fd, NULL);
        return r;
    }
    if (r >= 0)
        r = rd_journal_save(jr);
    if (r < 0) {
        _cleanup_free_ char *d = rd_root_shown(p->root, jr->dir);
        *ret_error = xasprintf("cannot write the journal %s: %s; nothing was written", d, rd_fix_describe_error(-r));
        rd_journal_sweep(p->root, root_fd, NULL); /* a run without journal.json goes */
    }
    return r;
}

/* ---- act ---- */

static char *act_files(const rd_plan *p, int root_fd, const rd_action *a)
{
    /* the directories it creates are in the journal already */
    _cleanup_strv_free_ char **created = NULL;
    int r = a->kind == RD_ACT_WRITE ? rd_fix_write(root_fd, a->path, a->content, a->size, a->mode, 0, 0, &created)
                                    : rd_fix_unlink(root_fd, a->path);
    if (r >= 0 || (a->kind == RD_ACT_REMOVE && r == -ENOENT))
        return NULL;
    _cleanup_free_ char *d = rd_root_shown(p->root, a->path);
    return xasprintf("cannot %s %s: %s", a->kind == RD_ACT_WRITE ? "write" : "remove", d, rd_fix_describe_error(-r));
}

/* A command runs now, or on the first boot of a root (listed, not run). */
static char *act_command(const rd_plan *p, const rd_action *a, json_object *jc, rd_apply_result *res)
{
    _cleanup_free_ char *cmd = rd_argv_join(a->argv);
    if (!streq(p->root, "/")) {
        if (!strv_contains(res->deferred, cmd))
            res->deferred = strv_push(res->deferred, TAKE_PTR(cmd));
        return NULL;
    }
    char *error = NULL;
    if (rd_run_argv(a->argv, &error) == 0)
        rd_json_set_bool(jc, "ran", true);
    return error;
}

/* Packages: once no other process holds the package manager's lock, the
 * indexes refreshed when a repository was just written, then one
 * transaction at the versions the plan named. */
static char *act_packages(const rd_plan *p, const rd_action *a)
{
    const rd_pkg_set *set = a->pkgs;
    char *error = NULL;
    if (rd_pkg_wait_lock(set->pm, p->root, set->lock_timeout_s, &error) < 0)
        return error;
    if (rd_pkg_import_key(set->pm, p->root, set->import_key, &error) < 0)
        return error;
    if (set->refresh && rd_pkg_refresh(set->pm, p->root, &error) < 0)
        return error;
    _cleanup_strv_free_ char **install = NULL;
    for (size_t i = 0; set->install && set->install[i]; i++) {
        const char *version = NULL;
        for (size_t k = 0; k < set->changes.n; k++)
            if (streq(set->changes.items[k].name, set->install[i]) && set->changes.items[k].op != RD_PKG_REMOVE)
                version = set->changes.items[k].version;
        install = strv_push(install, version ? xasprintf("%s=%s", set->install[i], version) : xstrdup(set->install[i]));
    }
    /* what it removes keeps its configuration files: undo puts the
     * package back with the administrator's edits */
    (void)rd_pkg_transact(set->pm, p->root, install, set->remove, 0, &error);
    return error;
}

/* Carries out every action; returns what failed, or NULL. */
static char *apply_act(const rd_plan *p, rd_journal *jr, rd_apply_result *res)
{
    int budget = fail_after();
    size_t done = 0, n_cmd = 0;
    json_object *cmds = rd_json_get_array(jr->j, "commands");
    for (size_t i = 0; i < p->n_steps; i++)
        for (size_t k = 0; k < p->steps[i].n_actions; k++, done++) {
            const rd_action *a = &p->steps[i].actions[k];
            char *error = NULL;
            if (budget >= 0 && done >= (size_t)budget)
                return xasprintf("injected failure before action %zu (ROCM_DOCTOR_FIX_FAIL_AFTER=%d)", done + 1,
                                 budget);
            if (a->kind == RD_ACT_WRITE || a->kind == RD_ACT_REMOVE)
                error = act_files(p, jr->root_fd, a);
            else if (a->kind == RD_ACT_COMMAND)
                error = act_command(p, a, json_object_array_get_idx(cmds, n_cmd++), res);
            else if (a->kind == RD_ACT_PACKAGES)
                error = act_packages(p, a);
            else {
                _cleanup_strv_free_ char **argv =
                    rd_group_argv(p->root, a->kind == RD_ACT_GROUP_ADD, a->user, a->group);
                (void)rd_run_argv(argv, &error);
            }
            if (error)
                return error;
        }
    return NULL;
}

/* ---- finish, or roll back ---- */

static void record_after(rd_journal *jr, json_object *jf)
{
    _cleanup_free_ char *content = NULL;
    size_t size = 0;
    int r = rd_fix_read(jr->root_fd, rd_json_get_str(jf, "path"), &content, &size, NULL);
    rd_json_set_bool(jf, "after_exists", r >= 0);
    if (r >= 0) {
        char h[65];
        rd_sha256_hex(content, size, h);
        rd_json_set_str(jf, "after_sha256", h);
    }
}

/* The after-state, and "applied": undo may start from here. */
static char *apply_finish(rd_journal *jr)
{
    json_object *files = rd_json_get_array(jr->j, "files");
    for (size_t i = 0; files && i < json_object_array_length(files); i++)
        record_after(jr, json_object_array_get_idx(files, i));
    char *error = NULL;
    if (rd_journal_packages_after(jr, &error) < 0)
        return error;
    _cleanup_free_ char *at = rd_now_iso();
    rd_json_set_str(jr->j, "applied", at);
    rd_journal_set_state(jr, RD_STATE_APPLIED);
    rd_journal_note_verification(jr);
    int r = rd_journal_save(jr);
    if (r >= 0)
        return NULL;
    _cleanup_free_ char *d = rd_root_shown(jr->root, jr->dir);
    return xasprintf("cannot complete the journal %s/journal.json: %s", d, rd_fix_describe_error(-r));
}

static int apply_roll_back(rd_journal *jr, const char *error, char **ret_error)
{
    strbuf problems = { 0 };
    _cleanup_strv_free_ char **unused = NULL;
    /* the repository files stay while any of the run's packages does */
    _cleanup_strv_free_ char **forced = NULL;
    if (rd_restore_packages(jr, &problems, &forced) >= 0) {
        rd_restore_files(jr, RD_RESTORE_FILES, &problems);
        rd_restore_commands(jr, RD_COMMANDS_FAILED, &unused, &problems);
    }
    rd_journal_set_state(jr, problems.len ? RD_STATE_APPLYING : RD_STATE_ROLLED_BACK);
    rd_json_set_str(jr->j, "error", error);
    _cleanup_free_ char *pr = strbuf_steal(&problems);
    _cleanup_free_ char *cmd = rd_undo_command(jr->root, jr->run_id);
    if (*pr) {
        /* left "applying": undo tries again */
        (void)rd_journal_save(jr);
        *ret_error = xasprintf("%s; rolling back was incomplete: %s; `%s` tries again", error, pr, cmd);
        return -EIO;
    }
    /* every file is as it was: the copies are not needed any more, and on
     * a full disk their room lets the journal say so */
    rd_journal_drop_copies(jr);
    int r = rd_journal_save(jr);
    if (r < 0) {
        _cleanup_free_ char *d = rd_root_shown(jr->root, jr->dir);
        *ret_error = xasprintf("%s; everything done before was rolled back, but the journal %s/journal.json could "
                               "not say so (%s): `%s` settles it",
                               error, d, rd_fix_describe_error(-r), cmd);
    } else {
        _cleanup_free_ char *note = rd_forced_note(forced);
        *ret_error = xasprintf("%s; everything done before was rolled back%s%s%s", error, note ? " (" : "",
                               strempty(note), note ? ")" : "");
    }
    return -EIO;
}

int rd_plan_apply(const rd_plan *p, const rd_ctx *ctx, rd_apply_result *ret, char **ret_error)
{
    int root_fd = ctx->root_fd;
    _cleanup_close_ int lock = rd_journal_lock(p->root, root_fd, ret_error);
    if (lock < 0)
        return lock;
    int r = apply_check(p, root_fd, ret_error);
    if (r < 0)
        return r;
    _cleanup_journal_ rd_journal jr = { 0 };
    r = apply_snapshot(p, root_fd, &jr, ret_error);
    if (r < 0)
        return r;
    _cleanup_apply_result_ rd_apply_result res = { 0 };
    _cleanup_free_ char *error = apply_act(p, &jr, &res);
    if (!error)
        error = apply_finish(&jr);
    if (error)
        return apply_roll_back(&jr, error, ret_error);
    res.run_id = xstrdup(jr.run_id);
    *ret = res;
    res = (rd_apply_result){ 0 };
    return 0;
}
