/* SPDX-License-Identifier: MIT */
#include "journal.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include "util.h"

void rd_apply_result_free(rd_apply_result *r)
{
    free(r->run_id);
    strv_free(r->deferred);
    strv_free(r->notes);
    *r = (rd_apply_result){ 0 };
}

static bool is_root(const char *root)
{
    return streq(root, "/");
}

static char *shown(const char *root, const char *path)
{
    return is_root(root) ? xstrdup(path) : xasprintf("%s%s", root, path);
}

int rd_journal_lock(const char *root, int root_fd, char **ret_error)
{
    _cleanup_strv_free_ char **created = NULL;
    _cleanup_close_ int dfd = rd_fix_open_dir(root_fd, RD_STATE_DIR, &created);
    if (dfd < 0) {
        _cleanup_free_ char *d = shown(root, RD_STATE_DIR);
        *ret_error = xasprintf("cannot create %s: %s", d, rd_fix_describe_error(-dfd));
        return dfd;
    }
    int fd = openat(dfd, "lock", O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd < 0) {
        int e = errno;
        _cleanup_free_ char *d = shown(root, RD_STATE_DIR "/lock");
        *ret_error = xasprintf("cannot open %s: %s", d, rd_fix_describe_error(e));
        return -e;
    }
    if (flock(fd, LOCK_EX | LOCK_NB) < 0) {
        int e = errno;
        close(fd);
        _cleanup_free_ char *d = shown(root, RD_STATE_DIR "/lock");
        if (e == EWOULDBLOCK) {
            *ret_error = xasprintf("another rocm-doctor fix or undo is running on %s (it holds %s); try again when "
                                   "it has finished",
                                   root, d);
            return -EWOULDBLOCK;
        }
        *ret_error = xasprintf("cannot lock %s: %s", d, strerror(e));
        return -e;
    }
    return fd;
}

/* ---- journal files ---- */

static int journal_write_json(int root_fd, const char *dir, json_object *j)
{
    const char *s = json_object_to_json_string_ext(j, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_NOSLASHESCAPE);
    _cleanup_free_ char *path = xasprintf("%s/journal.json", dir);
    _cleanup_free_ char *text = xasprintf("%s\n", s);
    return rd_fix_write(root_fd, path, text, strlen(text), 0600, 0, 0, NULL);
}

static char *new_run_id(int root_fd, char **ret_dir, int *ret_err)
{
    char **created = NULL;
    _cleanup_close_ int jfd = rd_fix_open_dir(root_fd, RD_JOURNAL_DIR, &created);
    strv_free(created);
    if (jfd < 0) {
        *ret_err = jfd;
        return NULL;
    }
    time_t now = time(NULL);
    struct tm tm;
    gmtime_r(&now, &tm);
    char stamp[32];
    strftime(stamp, sizeof stamp, "%Y%m%d-%H%M%S", &tm);
    for (int n = 1; n < 1000; n++) {
        char *id = n == 1 ? xstrdup(stamp) : xasprintf("%s-%d", stamp, n);
        if (mkdirat(jfd, id, 0700) == 0) {
            _cleanup_close_ int rfd = openat(jfd, id, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
            if (rfd < 0 || mkdirat(rfd, "files", 0700) < 0) {
                *ret_err = -errno;
                free(id);
                return NULL;
            }
            (void)fsync(jfd);
            *ret_dir = xasprintf(RD_JOURNAL_DIR "/%s", id);
            return id;
        }
        int e = errno;
        free(id);
        if (e != EEXIST) {
            *ret_err = -e;
            return NULL;
        }
    }
    *ret_err = -EEXIST;
    return NULL;
}

static json_object *strv_to_json(char *const *v)
{
    json_object *a = json_object_new_array();
    for (size_t i = 0; v && v[i]; i++)
        json_object_array_add(a, json_object_new_string(v[i]));
    return a;
}

static char **json_to_strv(json_object *a)
{
    char **v = NULL;
    if (!a || !json_object_is_type(a, json_type_array))
        return NULL;
    for (size_t i = 0; i < json_object_array_length(a); i++)
        v = strv_push(v, xstrdup(json_object_get_string(json_object_array_get_idx(a, i))));
    return v;
}

static const char *jstr(json_object *o, const char *key)
{
    json_object *v;
    return json_object_object_get_ex(o, key, &v) && json_object_is_type(v, json_type_string)
               ? json_object_get_string(v)
               : NULL;
}

static int64_t jint(json_object *o, const char *key, int64_t fallback)
{
    json_object *v;
    return json_object_object_get_ex(o, key, &v) && json_object_is_type(v, json_type_int) ? json_object_get_int64(v)
                                                                                           : fallback;
}

static bool jbool(json_object *o, const char *key)
{
    json_object *v;
    return json_object_object_get_ex(o, key, &v) && json_object_get_boolean(v);
}

static void set_state(json_object *j, const char *state)
{
    json_object_object_add(j, "state", json_object_new_string(state));
}

static char *now_iso(void)
{
    time_t now = time(NULL);
    struct tm tm;
    gmtime_r(&now, &tm);
    char s[32];
    strftime(s, sizeof s, "%Y-%m-%dT%H:%M:%SZ", &tm);
    return xstrdup(s);
}

static void record_after(int root_fd, json_object *jf)
{
    _cleanup_free_ char *content = NULL;
    size_t size = 0;
    int r = rd_fix_read(root_fd, jstr(jf, "path"), &content, &size, NULL);
    json_object_object_add(jf, "after_exists", json_object_new_boolean(r >= 0));
    if (r >= 0) {
        char h[65];
        rd_sha256_hex(content, size, h);
        json_object_object_add(jf, "after_sha256", json_object_new_string(h));
    }
}

/* Puts the file back as the journal entry says it was before; content is
 * the saved bytes. */
static int restore_file(int root_fd, json_object *jf, const char *content, size_t size)
{
    const char *path = jstr(jf, "path");
    if (jbool(jf, "existed"))
        return rd_fix_write(root_fd, path, content, size, (mode_t)jint(jf, "mode", 0644), (uid_t)jint(jf, "uid", 0),
                            (gid_t)jint(jf, "gid", 0), NULL);
    int r = rd_fix_unlink(root_fd, path);
    return r == -ENOENT ? 0 : r;
}

static void remove_dirs(int root_fd, char **dirs)
{
    for (size_t n = strv_length(dirs); n-- > 0;) {
        const char *d = dirs[n];
        const char *slash = strrchr(d, '/');
        if (!slash)
            continue;
        _cleanup_free_ char *parent = slash == d ? xstrdup("/") : xstrndup(d, (size_t)(slash - d));
        _cleanup_close_ int pfd = rd_fix_open_dir(root_fd, parent, NULL);
        if (pfd >= 0)
            (void)unlinkat(pfd, slash + 1, AT_REMOVEDIR);
    }
}

static char **group_argv(const char *root, bool add, const char *user, const char *group)
{
    char **v = NULL;
    v = strv_push(v, xstrdup(add ? "usermod" : "gpasswd"));
    if (!is_root(root)) {
        v = strv_push(v, xstrdup(add ? "-R" : "-Q"));
        v = strv_push(v, xstrdup(root));
    }
    if (add) {
        v = strv_push(v, xstrdup("-aG"));
        v = strv_push(v, xstrdup(group));
        v = strv_push(v, xstrdup(user));
    } else {
        v = strv_push(v, xstrdup("-d"));
        v = strv_push(v, xstrdup(user));
        v = strv_push(v, xstrdup(group));
    }
    return v;
}

static int run_argv(char **argv, char **ret_error)
{
    _cleanup_free_ char *output = NULL;
    int r = rd_fix_spawn(argv, &output);
    if (r == 0)
        return 0;
    _cleanup_free_ char *cmd = rd_argv_join(argv);
    if (r < 0)
        *ret_error = xasprintf("cannot run %s: %s", cmd, strerror(-r));
    else
        *ret_error = xasprintf("%s failed (exit status %d)%s%s", cmd, r, output && *output ? ": " : "",
                               strempty(output));
    return -EIO;
}

static int fail_after(void)
{
    const char *s = secure_getenv("ROCM_DOCTOR_FIX_FAIL_AFTER");
    uint64_t n;
    if (!s || safe_atou64(s, 10, &n) < 0 || n > 100000)
        return -1;
    return (int)n;
}


/* The shadow tools' lock (what lckpwdf(3) takes, under the root): held
 * while the group files are put back, so that no usermod, groupadd or
 * passwd of the root writes them meanwhile. -1 when there is no lock file,
 * which means no shadow tool ran there. */
static int shadow_lock(int root_fd)
{
    _cleanup_close_ int dfd = rd_fix_open_dir(root_fd, "/etc", NULL);
    if (dfd < 0)
        return -1;
    int fd = openat(dfd, ".pwd.lock", O_RDWR | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0)
        return -1;
    struct flock fl = { .l_type = F_WRLCK, .l_whence = SEEK_SET };
    for (int i = 0; i < 150; i++) {
        if (fcntl(fd, F_SETLK, &fl) == 0)
            return fd;
        if (errno != EACCES && errno != EAGAIN)
            break;
        usleep(100 * 1000);
    }
    close(fd);
    return -1;
}

static bool is_group_file(const char *path)
{
    for (size_t g = 0; rd_group_files[g]; g++)
        if (streq(rd_group_files[g], path))
            return true;
    return false;
}

/* ---- apply ---- */

static int verify_unchanged(const rd_plan *p, int root_fd, char **ret_error)
{
    for (size_t i = 0; i < p->n_snapshots; i++) {
        const rd_snapshot *s = &p->snapshots[i];
        if (s->unreadable)
            continue;
        _cleanup_free_ char *content = NULL;
        size_t size = 0;
        int r = rd_fix_read(root_fd, s->path, &content, &size, NULL);
        if (r < 0 && r != -ENOENT && r != -ENOTDIR) {
            _cleanup_free_ char *d = shown(p->root, s->path);
            *ret_error = xasprintf("%s: %s; nothing was written", d, rd_fix_describe_error(-r));
            return r;
        }
        bool exists = r >= 0;
        if (exists != s->exists || (exists && (size != s->size || memcmp(content, s->content, size) != 0))) {
            _cleanup_free_ char *d = shown(p->root, s->path);
            *ret_error = xasprintf("%s changed after the plan was made; nothing was written. Run `rocm-doctor fix` "
                                   "again to see the new plan.",
                                   d);
            return -ESTALE;
        }
    }
    return 0;
}

int rd_plan_apply(const rd_plan *p, int root_fd, rd_apply_result *ret, char **ret_error)
{
    rd_apply_result res = { 0 };
    _cleanup_close_ int lock = rd_journal_lock(p->root, root_fd, ret_error);
    if (lock < 0)
        return lock;
    int r = verify_unchanged(p, root_fd, ret_error);
    if (r < 0)
        return r;

    _cleanup_free_ char *dir = NULL;
    res.run_id = new_run_id(root_fd, &dir, &r);
    if (!res.run_id) {
        *ret_error = xasprintf("cannot create the journal under %s%s: %s; nothing was written",
                               is_root(p->root) ? "" : p->root, RD_JOURNAL_DIR, rd_fix_describe_error(-r));
        return r;
    }

    /* before-state of every file an action may change */
    json_object *j = json_object_new_object();
    json_object_object_add(j, "schema", json_object_new_string(RD_JOURNAL_SCHEMA));
    json_object_object_add(j, "run_id", json_object_new_string(res.run_id));
    json_object_object_add(j, "root", json_object_new_string(p->root));
    _cleanup_free_ char *created_at = now_iso();
    json_object_object_add(j, "created", json_object_new_string(created_at));
    set_state(j, "applying");
    json_object *jfiles = json_object_new_array();
    json_object_object_add(j, "files", jfiles);
    /* the before-state, read again now (as root: /etc/gshadow too) */
    rd_snapshot *before = xcalloc(p->n_snapshots + 1, sizeof(rd_snapshot));
    for (size_t i = 0; i < p->n_snapshots && r >= 0; i++) {
        if (!p->snapshots[i].touched)
            continue;
        rd_snapshot *s = &before[i];
        struct stat st = { 0 };
        s->path = p->snapshots[i].path;
        int q = rd_fix_read(root_fd, s->path, &s->content, &s->size, &st);
        if (q < 0 && q != -ENOENT && q != -ENOTDIR) {
            r = q;
            break;
        }
        s->exists = q >= 0;
        s->mode = st.st_mode & 07777;
        s->uid = st.st_uid;
        s->gid = st.st_gid;
        json_object *jf = json_object_new_object();
        json_object_object_add(jf, "path", json_object_new_string(s->path));
        json_object_object_add(jf, "existed", json_object_new_boolean(s->exists));
        if (s->exists) {
            char h[65];
            rd_sha256_hex(s->content, s->size, h);
            _cleanup_free_ char *name = xasprintf("files/%zu", i);
            _cleanup_free_ char *full = xasprintf("%s/%s", dir, name);
            json_object_object_add(jf, "before", json_object_new_string(name));
            json_object_object_add(jf, "before_sha256", json_object_new_string(h));
            json_object_object_add(jf, "mode", json_object_new_int64(s->mode));
            json_object_object_add(jf, "uid", json_object_new_int64(s->uid));
            json_object_object_add(jf, "gid", json_object_new_int64(s->gid));
            r = rd_fix_write(root_fd, full, s->content, s->size, 0600, 0, 0, NULL);
        }
        json_object_array_add(jfiles, jf);
    }
    json_object *jsteps = json_object_new_array();
    for (size_t i = 0; i < p->n_steps; i++) {
        json_object *js = json_object_new_object();
        json_object_object_add(js, "fix", json_object_new_string(p->steps[i].fix));
        json_object_object_add(js, "title", json_object_new_string(p->steps[i].title));
        json_object_object_add(js, "findings", strv_to_json(p->steps[i].findings));
        json_object_object_add(js, "effect", json_object_new_string(rd_effect_name(p->steps[i].effect)));
        json_object_array_add(jsteps, js);
    }
    json_object_object_add(j, "steps", jsteps);
    json_object *jgroups = json_object_new_array();
    json_object_object_add(j, "groups", jgroups);
    json_object *jcmds = json_object_new_array();
    json_object_object_add(j, "commands", jcmds);
    if (r >= 0)
        r = journal_write_json(root_fd, dir, j);
    if (r < 0) {
        for (size_t i = 0; i < p->n_snapshots; i++)
            free(before[i].content);
        free(before);
        *ret_error = xasprintf("cannot write the journal %s%s: %s; nothing was written",
                               is_root(p->root) ? "" : p->root, dir, rd_fix_describe_error(-r));
        json_object_put(j);
        rd_apply_result_free(&res);
        return r;
    }

    char **created = NULL;
    const rd_action **ran = NULL; /* commands that ran, in order */
    size_t n_ran = 0;
    _cleanup_free_ char *error = NULL;
    int budget = fail_after();
    size_t done = 0;
    for (size_t i = 0; i < p->n_steps && !error; i++) {
        for (size_t k = 0; k < p->steps[i].n_actions && !error; k++) {
            const rd_action *a = &p->steps[i].actions[k];
            if (budget >= 0 && done >= (size_t)budget) {
                error = xasprintf("injected failure before action %zu (ROCM_DOCTOR_FIX_FAIL_AFTER=%d)", done + 1,
                                  budget);
                break;
            }
            switch (a->kind) {
            case RD_ACT_WRITE:
                r = rd_fix_write(root_fd, a->path, a->content, a->size, a->mode, 0, 0, &created);
                if (r < 0) {
                    _cleanup_free_ char *d = shown(p->root, a->path);
                    error = xasprintf("cannot write %s: %s", d, rd_fix_describe_error(-r));
                }
                break;
            case RD_ACT_REMOVE:
                r = rd_fix_unlink(root_fd, a->path);
                if (r < 0 && r != -ENOENT) {
                    _cleanup_free_ char *d = shown(p->root, a->path);
                    error = xasprintf("cannot remove %s: %s", d, rd_fix_describe_error(-r));
                }
                break;
            case RD_ACT_GROUP_ADD:
            case RD_ACT_GROUP_DEL: {
                _cleanup_strv_free_ char **argv =
                    group_argv(p->root, a->kind == RD_ACT_GROUP_ADD, a->user, a->group);
                if (run_argv(argv, &error) == 0) {
                    json_object *g = json_object_new_object();
                    json_object_object_add(g, "action", json_object_new_string(a->kind == RD_ACT_GROUP_ADD
                                                                                    ? "add" : "remove"));
                    json_object_object_add(g, "user", json_object_new_string(a->user));
                    json_object_object_add(g, "group", json_object_new_string(a->group));
                    json_object_array_add(jgroups, g);
                }
                break;
            }
            case RD_ACT_COMMAND: {
                json_object *c = json_object_new_object();
                json_object_object_add(c, "argv", strv_to_json(a->argv));
                json_object_object_add(c, "undo", a->undo_argv ? strv_to_json(a->undo_argv) : NULL);
                bool deferred = !is_root(p->root);
                json_object_object_add(c, "when", json_object_new_string(deferred ? "first-boot" : "now"));
                json_object_array_add(jcmds, c);
                if (deferred) {
                    char *cmd = rd_argv_join(a->argv);
                    if (!strv_contains(res.deferred, cmd))
                        res.deferred = strv_push(res.deferred, cmd);
                    else
                        free(cmd);
                } else if (run_argv(a->argv, &error) == 0 && a->undo_argv) {
                    *ARRAY_APPEND(ran, n_ran) = a;
                }
                break;
            }
            }
            if (!error)
                done++;
        }
    }

    json_object_object_add(j, "directories_created", strv_to_json(created));
    if (error) {
        /* roll back: every touched file to its before-state */
        strbuf problems = { 0 };
        _cleanup_close_ int pwlock = shadow_lock(root_fd);
        size_t nf = json_object_array_length(jfiles);
        for (size_t i = nf; i-- > 0;) {
            json_object *jf = json_object_array_get_idx(jfiles, i);
            const rd_snapshot *s = NULL;
            for (size_t k = 0; k < p->n_snapshots && !s; k++)
                if (before[k].path && streq(before[k].path, jstr(jf, "path")))
                    s = &before[k];
            if (!s)
                continue;
            _cleanup_free_ char *cur = NULL;
            size_t size = 0;
            int q = rd_fix_read(root_fd, s->path, &cur, &size, NULL);
            bool same = (q >= 0) == s->exists && (q < 0 || (size == s->size && memcmp(cur, s->content, size) == 0));
            if (same)
                continue;
            q = restore_file(root_fd, jf, s->content, s->size);
            if (q < 0)
                strbuf_printf(&problems, "; cannot restore %s: %s", s->path, rd_fix_describe_error(-q));
        }
        remove_dirs(root_fd, created);
        for (size_t n = n_ran; n-- > 0;) {
            _cleanup_free_ char *e = NULL;
            if (run_argv(ran[n]->undo_argv, &e) < 0)
                strbuf_printf(&problems, "; %s", e);
        }
        set_state(j, "rolled-back");
        json_object_object_add(j, "error", json_object_new_string(error));
        (void)journal_write_json(root_fd, dir, j);
        char *pr = strbuf_steal(&problems);
        *ret_error = xasprintf("%s; %s%s", error,
                               *pr ? "rolling back was incomplete" : "everything done before was rolled back", pr);
        free(pr);
        json_object_put(j);
        strv_free(created);
        free(ran);
        for (size_t i = 0; i < p->n_snapshots; i++)
            free(before[i].content);
        free(before);
        rd_apply_result_free(&res);
        return -EIO;
    }

    for (size_t i = 0; i < json_object_array_length(jfiles); i++)
        record_after(root_fd, json_object_array_get_idx(jfiles, i));
    _cleanup_free_ char *applied_at = now_iso();
    json_object_object_add(j, "applied", json_object_new_string(applied_at));
    set_state(j, "applied");
    r = journal_write_json(root_fd, dir, j);
    json_object_put(j);
    strv_free(created);
    free(ran);
    for (size_t i = 0; i < p->n_snapshots; i++)
        free(before[i].content);
    free(before);
    if (r < 0) {
        *ret_error = xasprintf("the changes were made, but the journal %s could not be completed: %s", dir,
                               rd_fix_describe_error(-r));
        rd_apply_result_free(&res);
        return r;
    }
    *ret = res;
    return 0;
}

/* ---- undo ---- */

static int load_journal(int root_fd, const char *run_id, json_object **ret)
{
    _cleanup_free_ char *path = xasprintf(RD_JOURNAL_DIR "/%s/journal.json", run_id);
    _cleanup_free_ char *text = NULL;
    int r = rd_fix_read(root_fd, path, &text, NULL, NULL);
    if (r < 0)
        return r;
    json_object *j = json_tokener_parse(text);
    if (!j || !json_object_is_type(j, json_type_object) || !streq_ptr(jstr(j, "schema"), RD_JOURNAL_SCHEMA)) {
        json_object_put(j);
        return -EBADMSG;
    }
    *ret = j;
    return 0;
}

static int cmp_desc(const void *a, const void *b)
{
    return strcmp(*(char *const *)b, *(char *const *)a);
}

static bool valid_run_id(const char *s)
{
    return *s && s[0] != '.' && strspn(s, "0123456789-") == strlen(s);
}

int rd_journal_undo(const char *root, int root_fd, const char *run_id, rd_apply_result *ret, char **ret_error)
{
    rd_apply_result res = { 0 };
    if (run_id && !valid_run_id(run_id)) {
        *ret_error = xasprintf("\"%s\" is not a run id (they look like 20261130-105800)", run_id);
        return -EINVAL;
    }
    _cleanup_free_ char *jdir = shown(root, RD_JOURNAL_DIR);
    {
        /* no journal, nothing to undo: create no state directory for it */
        _cleanup_close_ int t = rd_fix_open_dir(root_fd, RD_JOURNAL_DIR, NULL);
        if (t == -ENOENT) {
            *ret_error = xasprintf("no applied run to undo in %s", jdir);
            return -ENOENT;
        }
    }
    _cleanup_close_ int lock = rd_journal_lock(root, root_fd, ret_error);
    if (lock < 0)
        return lock;
    json_object *j = NULL;
    if (run_id) {
        int r = load_journal(root_fd, run_id, &j);
        if (r < 0) {
            *ret_error = r == -ENOENT ? xasprintf("no run %s in %s", run_id, jdir)
                                      : xasprintf("%s/%s/journal.json: %s", jdir, run_id,
                                                  r == -EBADMSG ? "not a rocm-doctor journal" : strerror(-r));
            return r;
        }
    } else {
        _cleanup_close_ int dfd = rd_fix_open_dir(root_fd, RD_JOURNAL_DIR, NULL);
        char **ids = NULL;
        if (dfd >= 0) {
            DIR *d = fdopendir(dfd);
            if (d) {
                dfd = -1;
                struct dirent *de;
                while ((de = readdir(d)))
                    if (valid_run_id(de->d_name))
                        ids = strv_push(ids, xstrdup(de->d_name));
                closedir(d);
            }
        }
        size_t n = strv_length(ids);
        if (n > 1)
            qsort(ids, n, sizeof(char *), cmp_desc);
        for (size_t i = 0; i < n && !j; i++) {
            json_object *c = NULL;
            if (load_journal(root_fd, ids[i], &c) == 0 && streq_ptr(jstr(c, "state"), "applied"))
                j = c;
            else
                json_object_put(c);
        }
        strv_free(ids);
        if (!j) {
            *ret_error = xasprintf("no applied run to undo in %s", jdir);
            return -ENOENT;
        }
    }
    res.run_id = xstrdup(jstr(j, "run_id") ? jstr(j, "run_id") : "?");
    const char *state = jstr(j, "state");
    if (!streq_ptr(state, "applied")) {
        *ret_error = xasprintf("run %s is %s, not applied: nothing to undo", res.run_id, strempty(state));
        json_object_put(j);
        rd_apply_result_free(&res);
        return -EALREADY;
    }
    _cleanup_free_ char *dir = xasprintf(RD_JOURNAL_DIR "/%s", res.run_id);

    json_object *jfiles = NULL;
    json_object_object_get_ex(j, "files", &jfiles);
    size_t nf = jfiles ? json_object_array_length(jfiles) : 0;
    /* every file must be as the run left it; group files that changed
     * since are handled with gpasswd instead of a byte-for-byte restore */
    bool groups_changed = false;
    char **before = xcalloc(nf + 1, sizeof(char *));
    size_t *before_size = xcalloc(nf + 1, sizeof(size_t));
    int r = 0;
    for (size_t i = 0; i < nf && r == 0; i++) {
        json_object *jf = json_object_array_get_idx(jfiles, i);
        const char *path = jstr(jf, "path");
        if (!path || !path[0]) {
            r = -EBADMSG;
            *ret_error = xasprintf("%s/journal.json: a file entry has no path", dir);
            break;
        }
        _cleanup_free_ char *cur = NULL;
        size_t size = 0;
        int q = rd_fix_read(root_fd, path, &cur, &size, NULL);
        char h[65] = "";
        if (q >= 0)
            rd_sha256_hex(cur, size, h);
        bool same = (q >= 0) == jbool(jf, "after_exists") && (q < 0 || streq_ptr(h, jstr(jf, "after_sha256")));
        bool group_file = is_group_file(path);
        if (!same && group_file) {
            groups_changed = true;
        } else if (!same) {
            _cleanup_free_ char *d = shown(root, path);
            *ret_error = xasprintf("%s changed after run %s was applied; undoing would lose that change, so "
                                   "nothing was undone",
                                   d, res.run_id);
            r = -ESTALE;
            break;
        }
        if (jbool(jf, "existed")) {
            _cleanup_free_ char *bp = xasprintf("%s/%s", dir, strempty(jstr(jf, "before")));
            q = rd_fix_read(root_fd, bp, &before[i], &before_size[i], NULL);
            if (q < 0) {
                *ret_error = xasprintf("cannot read the saved copy of %s (%s%s): %s", path, is_root(root) ? "" : root,
                                       bp, strerror(-q));
                r = q;
            } else {
                char hb[65];
                rd_sha256_hex(before[i], before_size[i], hb);
                if (!streq_ptr(hb, jstr(jf, "before_sha256"))) {
                    *ret_error = xasprintf("the saved copy of %s (%s) is damaged; nothing was undone", path, bp);
                    r = -EBADMSG;
                }
            }
        }
    }
    strbuf problems = { 0 };
    if (r == 0) {
        _cleanup_close_ int pwlock = -1;
        for (size_t i = 0; i < nf && pwlock < 0 && !groups_changed; i++)
            if (is_group_file(strempty(jstr(json_object_array_get_idx(jfiles, i), "path"))))
                pwlock = shadow_lock(root_fd);
        for (size_t i = nf; i-- > 0;) {
            json_object *jf = json_object_array_get_idx(jfiles, i);
            const char *path = jstr(jf, "path");
            if (is_group_file(path) && groups_changed)
                continue;
            int q = restore_file(root_fd, jf, before[i] ? before[i] : "", before_size[i]);
            if (q < 0)
                strbuf_printf(&problems, "%scannot restore %s: %s", problems.len ? "; " : "", path,
                              rd_fix_describe_error(-q));
        }
        if (groups_changed) {
            res.notes = strv_push(res.notes, xstrdup("the group files changed since the run, so its group changes "
                                                     "were reversed with gpasswd instead of restoring the files"));
            json_object *jg = NULL;
            json_object_object_get_ex(j, "groups", &jg);
            for (size_t n = jg ? json_object_array_length(jg) : 0; n-- > 0;) {
                json_object *g = json_object_array_get_idx(jg, n);
                if (!streq_ptr(jstr(g, "action"), "add") || !jstr(g, "user") || !jstr(g, "group"))
                    continue;
                _cleanup_strv_free_ char **argv = group_argv(root, false, jstr(g, "user"), jstr(g, "group"));
                _cleanup_free_ char *e = NULL;
                if (run_argv(argv, &e) < 0)
                    strbuf_printf(&problems, "%s%s", problems.len ? "; " : "", e);
            }
        }
        json_object *jd = NULL;
        json_object_object_get_ex(j, "directories_created", &jd);
        _cleanup_strv_free_ char **dirs = json_to_strv(jd);
        remove_dirs(root_fd, dirs);

        json_object *jc = NULL;
        json_object_object_get_ex(j, "commands", &jc);
        for (size_t n = jc ? json_object_array_length(jc) : 0; n-- > 0;) {
            json_object *c = json_object_array_get_idx(jc, n), *u = NULL;
            if (!json_object_object_get_ex(c, "undo", &u) || !u)
                continue;
            _cleanup_strv_free_ char **argv = json_to_strv(u);
            if (!argv)
                continue;
            if (!is_root(root)) {
                char *cmd = rd_argv_join(argv);
                if (!strv_contains(res.deferred, cmd))
                    res.deferred = strv_push(res.deferred, cmd);
                else
                    free(cmd);
                continue;
            }
            _cleanup_free_ char *e = NULL;
            if (run_argv(argv, &e) < 0)
                strbuf_printf(&problems, "%s%s", problems.len ? "; " : "", e);
        }
        set_state(j, problems.len ? "undo-incomplete" : "undone");
        _cleanup_free_ char *at = now_iso();
        json_object_object_add(j, "undone", json_object_new_string(at));
        int q = journal_write_json(root_fd, dir, j);
        if (q < 0)
            strbuf_printf(&problems, "%scannot update the journal: %s", problems.len ? "; " : "", strerror(-q));
        if (problems.len) {
            *ret_error = strbuf_steal(&problems);
            r = -EIO;
        }
    }
    free(problems.s);
    for (size_t i = 0; i < nf; i++)
        free(before[i]);
    free(before);
    free(before_size);
    json_object_put(j);
    if (r < 0) {
        rd_apply_result_free(&res);
        return r;
    }
    *ret = res;
    return 0;
}
