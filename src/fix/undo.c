/* SPDX-License-Identifier: MIT */
/* Undo, in phases: pick the run, verify that every file is still as the run
 * left it (or as it was before, or as the plan meant it: a run or an undo
 * that was killed half-way leaves a mix), mark the journal "undoing", put
 * everything back, finish. A killed undo is finished by the next one: the
 * journal remembers where it came from and how it restores. */
#include <fcntl.h>
#include <sys/stat.h>
#include "journal-private.h"

static bool undoable(const char *state)
{
    return streq_ptr(state, RD_STATE_APPLIED) || streq_ptr(state, RD_STATE_APPLYING) ||
           streq_ptr(state, RD_STATE_UNDOING) || streq_ptr(state, RD_STATE_UNDO_INCOMPLETE);
}

/* The state the undo started from: "applied", or "applying" for a run
 * that was killed before it was. */
static const char *origin(const rd_journal *jr)
{
    const char *s = rd_journal_state(jr);
    if (streq_ptr(s, RD_STATE_UNDOING) || streq_ptr(s, RD_STATE_UNDO_INCOMPLETE))
        return strempty(rd_json_get_str(jr->j, "undo_from"));
    return strempty(s);
}

/* Why run_id's journal.json does not load. */
static char *load_failure(const char *root, int root_fd, const char *run_id, int r)
{
    _cleanup_free_ char *jdir = rd_root_shown(root, RD_JOURNAL_DIR);
    if (r != -EBADMSG)
        return xasprintf("%s/%s/journal.json: %s", jdir, run_id, strerror(-r));
    _cleanup_free_ char *path = xasprintf(RD_JOURNAL_DIR "/%s/journal.json", run_id), *text = NULL;
    enum json_tokener_error e = json_tokener_success;
    json_object *j = rd_fix_read(root_fd, path, &text, NULL, NULL) == 0 ? json_tokener_parse_verbose(text, &e) : NULL;
    if (j)
        json_object_put(j);
    return xasprintf("%s/%s/journal.json: %s", jdir, run_id,
                     j ? "not a rocm-doctor journal" : "not valid JSON (cut short?)");
}

/* The newest run that can be undone; a newer journal that cannot be read
 * stops the search: it may be the run that was meant. */
static int pick_newest(const char *root, int root_fd, rd_journal *ret, char **ret_error)
{
    _cleanup_strv_free_ char **ids = rd_journal_list(root_fd);
    for (size_t i = 0; ids && ids[i]; i++) {
        rd_journal jr = { 0 };
        int r = rd_journal_load(root, root_fd, ids[i], &jr);
        if (r < 0) {
            _cleanup_free_ char *why = load_failure(root, root_fd, ids[i], r);
            *ret_error = xasprintf("run %s has a damaged journal (%s), and the newest run is not taken past "
                                   "it; nothing was undone. Name the run to undo to go past it.",
                                   ids[i], why);
            return -EBADMSG;
        }
        if (undoable(rd_journal_state(&jr))) {
            *ret = jr;
            return 0;
        }
        rd_journal_close(&jr);
    }
    return -ENOENT;
}

static int undo_pick(const char *root, int root_fd, const char *run_id, rd_journal *ret, char **ret_error)
{
    _cleanup_free_ char *jdir = rd_root_shown(root, RD_JOURNAL_DIR);
    if (!run_id) {
        int r = pick_newest(root, root_fd, ret, ret_error);
        if (r == -ENOENT)
            *ret_error = xasprintf("no applied run to undo in %s", jdir);
        return r;
    }
    int r = rd_journal_load(root, root_fd, run_id, ret);
    if (r < 0) {
        *ret_error = r == -ENOENT ? xasprintf("no run %s in %s", run_id, jdir) : load_failure(root, root_fd, run_id, r);
        return r;
    }
    const char *state = rd_journal_state(ret);
    if (!undoable(state)) {
        *ret_error = xasprintf("run %s is %s, not applied: nothing to undo", run_id, strempty(state));
        rd_journal_close(ret);
        return -EALREADY;
    }
    return 0;
}

/* Whether the file is in the state the journal records with these keys
 * (before, after, planned): content only. */
static bool in_state(json_object *jf, const char *exists_key, const char *sha_key, bool exists, const char *content,
                     size_t size)
{
    json_object *v;
    if (!json_object_object_get_ex(jf, exists_key, &v) || json_object_get_boolean(v) != exists)
        return false;
    if (!exists)
        return true;
    char h[65];
    rd_sha256_hex(content, size, h);
    return streq_ptr(h, rd_json_get_str(jf, sha_key));
}

/* One file: still as the run left it, or put back already, or (for a run
 * that was killed) as it was or as the plan meant it. 1 when it is a
 * group file that changed since. */
static int verify_file(rd_journal *jr, json_object *jf, char **ret_error)
{
    const char *path = rd_json_get_str(jf, "path");
    if (!path || path[0] != '/') {
        *ret_error = xasprintf("%s/journal.json: a file entry has no path", jr->dir);
        return -EBADMSG;
    }
    _cleanup_free_ char *cur = NULL;
    size_t size = 0;
    int q = rd_fix_read(jr->root_fd, path, &cur, &size, NULL);
    bool exists = q >= 0;
    bool killed = streq(origin(jr), RD_STATE_APPLYING);
    bool known = in_state(jf, "existed", "before_sha256", exists, cur, size) ||
                 in_state(jf, "after_exists", "after_sha256", exists, cur, size) ||
                 in_state(jf, "planned_exists", "planned_sha256", exists, cur, size);
    /* a killed run's group files are put back whatever the shadow tools
     * had done to them */
    if (!known && rd_is_group_file(path) && !killed)
        return 1;
    if (!known && !rd_is_group_file(path)) {
        _cleanup_free_ char *d = rd_root_shown(jr->root, path);
        *ret_error = xasprintf("%s changed after run %s was applied; undoing would lose that change, so nothing "
                               "was undone",
                               d, jr->run_id);
        return -ESTALE;
    }
    /* the copy is needed only to put the file back */
    if (!rd_json_get_bool(jf, "existed") || in_state(jf, "existed", "before_sha256", exists, cur, size))
        return 0;
    _cleanup_free_ char *before = NULL;
    q = rd_read_before(jr, jf, &before, &size);
    _cleanup_free_ char *bp = xasprintf("%s/%s", jr->dir, strempty(rd_json_get_str(jf, "before")));
    if (q == -EBADMSG)
        *ret_error = xasprintf("the saved copy of %s (%s) is damaged; nothing was undone", path, bp);
    else if (q < 0)
        *ret_error =
            xasprintf("cannot read the saved copy of %s (%s%s): %s", path, root_prefix(jr->root), bp, strerror(-q));
    return q < 0 ? q : 0;
}

static int undo_verify(rd_journal *jr, rd_restore_method *ret_method, char **ret_error)
{
    json_object *files = rd_json_get_array(jr->j, "files");
    bool groups_changed = false;
    for (size_t i = 0; files && i < json_object_array_length(files); i++) {
        int r = verify_file(jr, json_object_array_get_idx(files, i), ret_error);
        if (r < 0)
            return r;
        groups_changed |= r > 0;
    }
    int r = rd_packages_verify(jr, streq(origin(jr), RD_STATE_APPLYING), ret_error);
    if (r < 0)
        return r;
    /* a resumed undo goes on the way it started */
    const char *m = rd_json_get_str(jr->j, "undo_method");
    *ret_method = m                ? (streq(m, "gpasswd") ? RD_RESTORE_GPASSWD : RD_RESTORE_FILES)
                  : groups_changed ? RD_RESTORE_GPASSWD
                                   : RD_RESTORE_FILES;
    return 0;
}

/* "undoing", on disk before the first change. */
static int undo_mark(rd_journal *jr, rd_restore_method method, char **ret_error)
{
    if (!rd_json_get_str(jr->j, "undo_method")) {
        rd_json_set_str(jr->j, "undo_from", origin(jr));
        rd_json_set_str(jr->j, "undo_method", method == RD_RESTORE_GPASSWD ? "gpasswd" : "files");
    }
    rd_journal_set_state(jr, RD_STATE_UNDOING);
    int r = rd_journal_save(jr);
    if (r < 0) {
        _cleanup_free_ char *d = rd_root_shown(jr->root, jr->dir);
        *ret_error =
            xasprintf("cannot write the journal %s/journal.json: %s; nothing was undone", d, rd_fix_describe_error(-r));
    }
    return r;
}

static void undo_restore(rd_journal *jr, rd_restore_method method, rd_apply_result *res, strbuf *problems)
{
    bool killed = streq(origin(jr), RD_STATE_APPLYING);
    res->interrupted = killed;
    /* packages first: the repository files, keys and pins they came from
     * go last, and only once the packages are out (a next undo fetches
     * from them again) */
    _cleanup_strv_free_ char **forced = NULL;
    int r = rd_restore_packages(jr, problems, &forced);
    char *note = rd_forced_note(forced);
    if (note)
        res->notes = strv_push(res->notes, note);
    if (r < 0)
        return;
    rd_restore_files(jr, method, problems);
    if (method == RD_RESTORE_GPASSWD) {
        res->notes = strv_push(res->notes, xstrdup("the group files changed since the run, so its group changes "
                                                   "were reversed with gpasswd instead of restoring the files"));
        rd_restore_groups(jr, problems);
    }
    rd_restore_commands(jr, killed ? RD_COMMANDS_INTERRUPTED : RD_COMMANDS_UNDO, &res->deferred, problems);
}

static int undo_finish(rd_journal *jr, strbuf *problems, char **ret_error)
{
    bool killed = streq(origin(jr), RD_STATE_APPLYING);
    rd_journal_set_state(jr, problems->len ? RD_STATE_UNDO_INCOMPLETE
                             : killed      ? RD_STATE_ROLLED_BACK
                                           : RD_STATE_UNDONE);
    _cleanup_free_ char *at = rd_now_iso();
    rd_json_set_str(jr->j, "undone", at);
    if (killed)
        rd_json_set_bool(jr->j, "interrupted", true);
    int q = rd_journal_save(jr);
    if (q < 0) {
        _cleanup_free_ char *d = rd_root_shown(jr->root, jr->dir);
        _cleanup_free_ char *cmd = rd_undo_command(jr->root, jr->run_id);
        strbuf_printf(problems,
                      "%severything was put back, but the journal %s/journal.json could not say so (%s): "
                      "`%s` settles it",
                      problems->len ? "; " : "", d, rd_fix_describe_error(-q), cmd);
    }
    if (!problems->len)
        return 0;
    *ret_error = strbuf_steal(problems);
    return -EIO;
}

int rd_journal_undo(const rd_ctx *ctx, const char *run_id, rd_apply_result *ret, char **ret_error)
{
    const char *root = ctx->root;
    int root_fd = ctx->root_fd;
    if (run_id && !rd_valid_run_id(run_id)) {
        *ret_error = xasprintf("\"%s\" is not a run id (they look like 20261130-105800)", run_id);
        return -EINVAL;
    }
    {
        /* no journal, nothing to undo: create no state directory for it */
        _cleanup_close_ int t = rd_fix_open_dir(root_fd, RD_JOURNAL_DIR, NULL);
        if (t == -ENOENT) {
            _cleanup_free_ char *jdir = rd_root_shown(root, RD_JOURNAL_DIR);
            *ret_error = xasprintf("no applied run to undo in %s", jdir);
            return -ENOENT;
        }
    }
    _cleanup_close_ int lock = rd_journal_lock(root, root_fd, ret_error);
    if (lock < 0)
        return lock;
    rd_journal_sweep(root, root_fd, NULL);
    _cleanup_journal_ rd_journal jr = { 0 };
    int r = undo_pick(root, root_fd, run_id, &jr, ret_error);
    if (r < 0)
        return r;
    rd_restore_method method;
    if ((r = undo_verify(&jr, &method, ret_error)) < 0 || (r = undo_mark(&jr, method, ret_error)) < 0)
        return r;
    _cleanup_apply_result_ rd_apply_result res = { .run_id = xstrdup(jr.run_id) };
    strbuf problems = { 0 };
    undo_restore(&jr, method, &res, &problems);
    r = undo_finish(&jr, &problems, ret_error);
    free(problems.s);
    if (r < 0)
        return r;
    *ret = res;
    res = (rd_apply_result){ 0 };
    return 0;
}
