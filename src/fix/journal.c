/* SPDX-License-Identifier: MIT */
/* The journal on disk: the lock, run ids, journal.json in and out, and the
 * sweep of what killed runs left behind. */
#include <fcntl.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include "journal-private.h"

void rd_apply_result_free(rd_apply_result *r)
{
    free(r->run_id);
    strv_free(r->deferred);
    strv_free(r->notes);
    *r = (rd_apply_result){ 0 };
}

char *rd_root_shown(const char *root, const char *path)
{
    return xasprintf("%s%s", root_prefix(root), path);
}

char *rd_undo_command(const char *root, const char *run_id)
{
    return streq(root, "/") ? xasprintf("rocm-doctor undo %s", run_id)
                            : xasprintf("rocm-doctor undo --root %s %s", root, run_id);
}

/* ISO 8601, or the run id's stamp */
static char *utc_now(bool iso)
{
    time_t now = time(NULL);
    struct tm tm;
    gmtime_r(&now, &tm);
    char s[32];
    strftime(s, sizeof s, iso ? "%Y-%m-%dT%H:%M:%SZ" : "%Y%m%d-%H%M%S", &tm);
    return xstrdup(s);
}

char *rd_now_iso(void)
{
    return utc_now(true);
}

bool rd_is_group_file(const char *path)
{
    for (size_t g = 0; path && rd_group_files[g]; g++)
        if (streq(rd_group_files[g], path))
            return true;
    return false;
}

static bool newest_unresolved(const char *root, int root_fd, char **ret_id, bool *ret_applying);

int rd_journal_lock(const char *root, int root_fd, char **ret_error)
{
    _cleanup_strv_free_ char **created = NULL;
    _cleanup_close_ int dfd = rd_fix_open_dir(root_fd, RD_STATE_DIR, &created);
    if (dfd < 0) {
        _cleanup_free_ char *d = rd_root_shown(root, RD_STATE_DIR);
        *ret_error = xasprintf("cannot create %s: %s", d, rd_fix_describe_error(-dfd));
        return dfd;
    }
    _cleanup_free_ char *d = rd_root_shown(root, RD_STATE_DIR "/lock");
    int fd = openat(dfd, "lock", O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd < 0) {
        int e = errno;
        *ret_error = xasprintf("cannot open %s: %s", d, rd_fix_describe_error(e));
        return -e;
    }
    if (flock(fd, LOCK_EX | LOCK_NB) < 0) {
        int e = errno;
        close(fd);
        if (e == EWOULDBLOCK) {
            /* its journal says "applying" or "undoing" while it works: that
             * run is in progress, not interrupted */
            _cleanup_free_ char *id = NULL;
            bool applying = false;
            if (newest_unresolved(root, root_fd, &id, &applying))
                *ret_error = xasprintf("run %s is in progress: another rocm-doctor is %s it on %s (it holds %s); "
                                       "try again when it has finished",
                                       id, applying ? "applying" : "undoing", root, d);
            else
                *ret_error = xasprintf("another rocm-doctor fix or undo is running on %s (it holds %s); try again "
                                       "when it has finished",
                                       root, d);
            return -EWOULDBLOCK;
        }
        *ret_error = xasprintf("cannot lock %s: %s", d, strerror(e));
        return -e;
    }
    return fd;
}

/* ---- run ids: YYYYMMDD-HHMMSS, then -002 ... -999 within one second ---- */

bool rd_valid_run_id(const char *s)
{
    return *s && s[0] != '.' && strspn(s, "0123456789-") == strlen(s);
}

/* The time stamp and the sequence number within its second (1 for none);
 * older runs were numbered -2 ... -10 without padding. */
static void run_id_split(const char *id, size_t *ret_stamp_len, uint64_t *ret_seq)
{
    const char *dash = strchr(id, '-');
    const char *second = dash ? strchr(dash + 1, '-') : NULL;
    uint64_t seq = 1;
    if (second && safe_atou64(second + 1, 10, &seq) < 0)
        seq = 0;
    *ret_stamp_len = second ? (size_t)(second - id) : strlen(id);
    *ret_seq = seq;
}

static int run_id_cmp_desc(const void *a, const void *b)
{
    const char *x = *(char *const *)a, *y = *(char *const *)b;
    size_t lx, ly;
    uint64_t sx, sy;
    run_id_split(x, &lx, &sx);
    run_id_split(y, &ly, &sy);
    int c = lx == ly ? strncmp(y, x, lx) : strcmp(y, x);
    if (c != 0)
        return c;
    return sx < sy ? 1 : sx > sy ? -1 : strcmp(y, x);
}

static bool keep_run_id(const char *name, const void *userdata)
{
    return rd_valid_run_id(name);
}

char **rd_journal_list(int root_fd)
{
    _cleanup_close_ int dfd = rd_fix_open_dir(root_fd, RD_JOURNAL_DIR, NULL);
    char **ids = dfd >= 0 ? dir_names(dfd, keep_run_id, NULL, NULL) : NULL;
    size_t n = strv_length(ids);
    if (n > 1)
        qsort(ids, n, sizeof(char *), run_id_cmp_desc);
    return ids;
}

int rd_journal_create(const char *root, int root_fd, rd_journal *ret)
{
    _cleanup_strv_free_ char **created = NULL;
    _cleanup_close_ int jfd = rd_fix_open_dir(root_fd, RD_JOURNAL_DIR, &created);
    if (jfd < 0)
        return jfd;
    _cleanup_free_ char *stamp = utc_now(false);
    for (int n = 1; n < 1000; n++) {
        _cleanup_free_ char *id = n == 1 ? xstrdup(stamp) : xasprintf("%s-%03d", stamp, n);
        if (mkdirat(jfd, id, 0700) < 0) {
            if (errno == EEXIST)
                continue;
            return -errno;
        }
        _cleanup_close_ int rfd = openat(jfd, id, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (rfd < 0 || mkdirat(rfd, "files", 0700) < 0)
            return -errno;
        if (fsync(rfd) < 0 || fsync(jfd) < 0)
            return -errno;
        char *dir = xasprintf(RD_JOURNAL_DIR "/%s", id);
        *ret = (rd_journal){
            .root = root,
            .root_fd = root_fd,
            .dir = dir,
            .run_id = TAKE_PTR(id),
            .j = json_object_new_object(),
        };
        return 0;
    }
    return -EEXIST;
}

void rd_journal_close(rd_journal *jr)
{
    free(jr->run_id);
    free(jr->dir);
    if (jr->j)
        json_object_put(jr->j);
    *jr = (rd_journal){ 0 };
}

int rd_journal_load(const char *root, int root_fd, const char *run_id, rd_journal *ret)
{
    _cleanup_free_ char *dir = xasprintf(RD_JOURNAL_DIR "/%s", run_id);
    _cleanup_free_ char *path = xasprintf("%s/journal.json", dir);
    _cleanup_free_ char *text = NULL;
    int r = rd_fix_read(root_fd, path, &text, NULL, NULL);
    if (r < 0)
        return r;
    json_object *j = json_tokener_parse(text);
    if (!j || !json_object_is_type(j, json_type_object) ||
        !streq_ptr(rd_json_get_str(j, "schema"), RD_JOURNAL_SCHEMA) ||
        !streq_ptr(rd_json_get_str(j, "run_id"), run_id)) {
        if (j)
            json_object_put(j);
        return -EBADMSG;
    }
    *ret = (rd_journal){
        .root = root,
        .root_fd = root_fd,
        .run_id = xstrdup(run_id),
        .dir = TAKE_PTR(dir),
        .j = j,
    };
    return 0;
}

int rd_journal_save(rd_journal *jr)
{
    _cleanup_free_ char *path = xasprintf("%s/journal.json", jr->dir);
    _cleanup_free_ char *text = rd_json_pretty(jr->j);
    return rd_fix_write(jr->root_fd, path, text, strlen(text), 0600, 0, 0, NULL);
}

void rd_journal_drop_copies(rd_journal *jr)
{
    _cleanup_free_ char *files = xasprintf("%s/files", jr->dir);
    _cleanup_close_ int dfd = rd_fix_open_dir(jr->root_fd, files, NULL);
    json_object *jfiles = rd_json_get_array(jr->j, "files");
    for (size_t i = 0; dfd >= 0 && jfiles && i < json_object_array_length(jfiles); i++) {
        const char *b = rd_json_get_str(json_object_array_get_idx(jfiles, i), "before");
        const char *name = b ? startswith(b, "files/") : NULL;
        if (name && !strchr(name, '/'))
            (void)unlinkat(dfd, name, 0);
    }
}

void rd_journal_set_state(rd_journal *jr, const char *state)
{
    rd_json_set_str(jr->j, "state", state);
}

const char *rd_journal_state(const rd_journal *jr)
{
    return rd_json_get_str(jr->j, "state");
}

bool rd_state_unresolved(const char *state)
{
    return streq_ptr(state, RD_STATE_APPLYING) || streq_ptr(state, RD_STATE_UNDOING);
}

/* The newest run whose journal says "applying" or "undoing". */
static bool newest_unresolved(const char *root, int root_fd, char **ret_id, bool *ret_applying)
{
    _cleanup_strv_free_ char **ids = rd_journal_list(root_fd);
    for (size_t i = 0; ids && ids[i]; i++) {
        _cleanup_journal_ rd_journal jr = { 0 };
        if (rd_journal_load(root, root_fd, ids[i], &jr) < 0 || !rd_state_unresolved(rd_journal_state(&jr)))
            continue;
        *ret_applying = streq(rd_journal_state(&jr), RD_STATE_APPLYING);
        *ret_id = xstrdup(ids[i]);
        return true;
    }
    return false;
}

int rd_journal_unresolved(const char *root, int root_fd, char **ret_message)
{
    _cleanup_free_ char *id = NULL;
    bool applying = false;
    if (!newest_unresolved(root, root_fd, &id, &applying))
        return 0;
    _cleanup_free_ char *cmd = rd_undo_command(root, id);
    *ret_message = xasprintf("run %s was interrupted while it was being %s and is not resolved; nothing was "
                             "written. Run `%s` first: it %s.",
                             id, applying ? "applied" : "undone", cmd,
                             applying ? "rolls the interrupted run back" : "finishes undoing it");
    return 1;
}

int rd_journal_unresolved_now(const rd_ctx *ctx, char **ret_message)
{
    const char *root = ctx->root;
    int root_fd = ctx->root_fd;
    {
        /* no journal: no run, and no state directory made for the look */
        _cleanup_close_ int t = rd_fix_open_dir(root_fd, RD_JOURNAL_DIR, NULL);
        if (t == -ENOENT)
            return 0;
    }
    _cleanup_close_ int lock = rd_journal_lock(root, root_fd, ret_message);
    if (lock < 0)
        return lock;
    return rd_journal_unresolved(root, root_fd, ret_message);
}

/* ---- the sweep ---- */

static bool pid_alive(uint64_t pid)
{
    if (pid == 0 || pid > INT32_MAX)
        return false;
    return (pid_t)pid == getpid() || kill((pid_t)pid, 0) == 0 || errno == EPERM;
}

/* ".#BASE.PID.N" of the atomic writer (any BASE when base is NULL) whose
 * writer is gone. */
static bool stale_temp(const char *name, const void *userdata)
{
    const char *base = userdata;
    const char *p = startswith(name, ".#");
    if (!p)
        return false;
    const char *last = strrchr(p, '.'); /* before N */
    if (!last || last == p)
        return false;
    const char *mid = last - 1; /* before PID */
    while (mid > p && *mid != '.')
        mid--;
    if (mid <= p || (base && ((size_t)(mid - p) != strlen(base) || strncmp(p, base, (size_t)(mid - p)) != 0)))
        return false;
    _cleanup_free_ char *pid_s = xstrndup(mid + 1, (size_t)(last - mid - 1));
    uint64_t pid, seq;
    return safe_atou64(pid_s, 10, &pid) == 0 && safe_atou64(last + 1, 10, &seq) == 0 && !pid_alive(pid);
}

/* Removes the stale temporary files in dfd (of base, or of any name). */
static void remove_stale_temps(int dfd, const char *base)
{
    _cleanup_strv_free_ char **names = dir_names(dfd, stale_temp, base, NULL);
    for (size_t i = 0; names && names[i]; i++)
        (void)unlinkat(dfd, names[i], 0);
}

static void sweep_path(int root_fd, const char *path)
{
    const char *slash = strrchr(path, '/');
    if (!slash || !slash[1])
        return;
    _cleanup_free_ char *dir = slash == path ? xstrdup("/") : xstrndup(path, (size_t)(slash - path));
    _cleanup_close_ int dfd = rd_fix_open_dir(root_fd, dir, NULL);
    if (dfd >= 0)
        remove_stale_temps(dfd, slash + 1);
}

/* Every plain file in dfd/sub, then sub itself. */
static void remove_dir_of_files(int dfd, const char *sub)
{
    _cleanup_close_ int fd = openat(dfd, sub, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    _cleanup_strv_free_ char **names = fd >= 0 ? dir_names(fd, NULL, NULL, NULL) : NULL;
    for (size_t i = 0; names && names[i]; i++)
        (void)unlinkat(fd, names[i], 0);
    (void)unlinkat(dfd, sub, AT_REMOVEDIR);
}

static void sweep_run(const char *root, int root_fd, int jfd, const char *id, char ***paths)
{
    _cleanup_close_ int rfd = openat(jfd, id, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (rfd < 0)
        return;
    struct stat st;
    if (fstatat(rfd, "journal.json", &st, AT_SYMLINK_NOFOLLOW) < 0 && errno == ENOENT) {
        /* killed before its journal was written: nothing was changed */
        _cleanup_close_ int ffd = openat(rfd, "files", O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (ffd >= 0)
            remove_dir_of_files(rfd, "files");
        remove_stale_temps(rfd, NULL);
        (void)unlinkat(jfd, id, AT_REMOVEDIR);
        return;
    }
    remove_stale_temps(rfd, NULL);
    _cleanup_close_ int ffd = openat(rfd, "files", O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (ffd >= 0)
        remove_stale_temps(ffd, NULL);
    _cleanup_journal_ rd_journal jr = { 0 };
    if (rd_journal_load(root, root_fd, id, &jr) < 0 || !rd_state_unresolved(rd_journal_state(&jr)))
        return;
    json_object *files = rd_json_get_array(jr.j, "files");
    for (size_t i = 0; files && i < json_object_array_length(files); i++) {
        const char *p = rd_json_get_str(json_object_array_get_idx(files, i), "path");
        if (p)
            *paths = strv_push(*paths, xstrdup(p));
    }
}

void rd_journal_sweep(const char *root, int root_fd, char *const *paths)
{
    _cleanup_strv_free_ char **all = NULL;
    for (size_t i = 0; paths && paths[i]; i++)
        all = strv_push(all, xstrdup(paths[i]));
    _cleanup_strv_free_ char **ids = rd_journal_list(root_fd);
    _cleanup_close_ int jfd = ids ? rd_fix_open_dir(root_fd, RD_JOURNAL_DIR, NULL) : -1;
    for (size_t i = 0; jfd >= 0 && ids[i]; i++)
        sweep_run(root, root_fd, jfd, ids[i], &all);
    for (size_t i = 0; all && all[i]; i++)
        sweep_path(root_fd, all[i]);
}

/* ---- group changes and commands ---- */

char **rd_group_argv(const char *root, bool add, const char *user, const char *group)
{
    bool under = !streq(root, "/");
    if (add)
        return under ? rd_strv_new("usermod", "-R", root, "-aG", group, user, NULL)
                     : rd_strv_new("usermod", "-aG", group, user, NULL);
    return under ? rd_strv_new("gpasswd", "-Q", root, "-d", user, group, NULL)
                 : rd_strv_new("gpasswd", "-d", user, group, NULL);
}

int rd_run_argv(char **argv, char **ret_error)
{
    _cleanup_free_ char *output = NULL;
    int r = rd_fix_spawn(argv, &output);
    if (r == 0)
        return 0;
    _cleanup_free_ char *cmd = rd_argv_join(argv);
    if (r < 0)
        *ret_error = xasprintf("cannot run %s: %s", cmd, strerror(-r));
    else
        *ret_error =
            xasprintf("%s failed (exit status %d)%s%s", cmd, r, output && *output ? ": " : "", strempty(output));
    return -EIO;
}

/* The shadow tools' lock (what lckpwdf(3) takes, under the root): held
 * while the group files are put back, so that no usermod, groupadd or
 * passwd of the root writes them meanwhile. Without create, -1 when there
 * is no lock file, which means no shadow tool ran there. */
int rd_shadow_lock(int root_fd, bool create)
{
    _cleanup_close_ int dfd = rd_fix_open_dir(root_fd, "/etc", NULL);
    if (dfd < 0)
        return -1;
    int fd = openat(dfd, ".pwd.lock", O_RDWR | O_NOFOLLOW | O_CLOEXEC | (create ? O_CREAT : 0), 0600);
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
