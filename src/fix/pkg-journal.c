/* SPDX-License-Identifier: MIT */
/* Package steps in the journal. Before the first change the run keeps the
 * root's whole installed list (files/packages-before); when it is applied
 * it records what it installed, upgraded, downgraded and removed, with
 * versions. Undo reverses exactly that, through the package manager:
 * removes what the run installed, puts back what it removed or upgraded at
 * the recorded versions, and refuses while something installed since
 * depends on what it would remove. A run killed half-way is reversed from
 * the list it kept (after dpkg --configure -a has finished what dpkg
 * started). */
#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>
#include "journal-private.h"

#define BEFORE_NAME "files/packages-before"
#define DIRS_NAME "files/directories-before"

/* dpkg removes a directory when the last package it knows in it goes, even
 * one that was there before the run (an empty /opt). The directories two
 * levels down are kept with their modes and owners, and put back. */
static void list_dirs(int dfd, const char *prefix, int depth, strbuf *out)
{
    _cleanup_strv_free_ char **names = dir_names(dfd, NULL, NULL, NULL);
    for (size_t i = 0; names && names[i]; i++) {
        struct stat st;
        if (fstatat(dfd, names[i], &st, AT_SYMLINK_NOFOLLOW) < 0 || !S_ISDIR(st.st_mode))
            continue;
        _cleanup_free_ char *path = xasprintf("%s/%s", prefix, names[i]);
        if (streq(path, "/proc") || streq(path, "/sys") || streq(path, "/dev"))
            continue;
        strbuf_printf(out, "%o %u %u %s\n", (unsigned)(st.st_mode & 07777), (unsigned)st.st_uid, (unsigned)st.st_gid,
                      path);
        if (depth > 1) {
            _cleanup_close_ int sub = openat(dfd, names[i], O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
            if (sub >= 0)
                list_dirs(sub, path, depth - 1, out);
        }
    }
}

/* Gives a directory put back its recorded owner and mode; a negative errno when that fails. */
static int set_dir_owner(int dfd, const char *name, uid_t uid, gid_t gid, mode_t mode)
{
    _cleanup_close_ int fd = openat(dfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0 || fchown(fd, uid, gid) < 0 || fchmod(fd, mode) < 0)
        return -errno;
    return 0;
}

/* Makes again the directories the package manager removed; what cannot be
 * made as it was goes into problems. */
static void put_back_dirs(rd_journal *jr, strbuf *problems)
{
    _cleanup_free_ char *path = xasprintf("%s/" DIRS_NAME, jr->dir), *text = NULL;
    if (rd_fix_read(jr->root_fd, path, &text, NULL, NULL) < 0)
        return;
    _cleanup_strv_free_ char **lines = strv_split(text, "\n");
    for (size_t i = 0; lines && lines[i]; i++) {
        unsigned mode, uid, gid;
        int pos = 0;
        if (sscanf(lines[i], "%o %u %u %n", &mode, &uid, &gid, &pos) != 3 || lines[i][pos] != '/')
            continue;
        const char *dir = lines[i] + pos;
        _cleanup_close_ int fd = rd_fix_open_dir(jr->root_fd, dir, NULL);
        if (fd != -ENOENT)
            continue;
        const char *slash = strrchr(dir, '/');
        _cleanup_free_ char *parent = slash == dir ? xstrdup("/") : xstrndup(dir, (size_t)(slash - dir));
        _cleanup_close_ int pfd = rd_fix_open_dir(jr->root_fd, parent, NULL);
        if (pfd < 0 || mkdirat(pfd, slash + 1, (mode_t)mode) < 0)
            continue;
        int r = set_dir_owner(pfd, slash + 1, (uid_t)uid, (gid_t)gid, (mode_t)mode);
        if (r < 0)
            strbuf_printf(problems, "%scannot give %s back its owner %u:%u and mode %o: %s", problems->len ? "; " : "",
                          dir, uid, gid, mode, strerror(-r));
    }
}

static json_object *packages_of(rd_journal *jr)
{
    json_object *o;
    return json_object_object_get_ex(jr->j, "packages", &o) && json_object_is_type(o, json_type_object) ? o : NULL;
}

static rd_pm pm_of(json_object *jp)
{
    return rd_pm_from_name(rd_json_get_str(jp, "package_manager"));
}

int rd_journal_packages_before(rd_journal *jr, const rd_action *a, char **ret_error)
{
    _cleanup_free_ char *list = NULL, *err = NULL;
    int r = rd_pkg_installed(a->pkgs->pm, jr->root, jr->root_fd, &list, &err);
    if (r < 0) {
        *ret_error = xasprintf("cannot list the installed packages: %s; nothing was written", err);
        return r;
    }
    _cleanup_free_ char *path = xasprintf("%s/" BEFORE_NAME, jr->dir);
    r = rd_fix_write(jr->root_fd, path, list, strlen(list), 0600, 0, 0, NULL);
    if (r < 0) {
        *ret_error = xasprintf("cannot keep the installed package list in the journal: %s; nothing was written",
                               rd_fix_describe_error(-r));
        return r;
    }
    strbuf dirs = { 0 };
    strbuf_append(&dirs, "");
    list_dirs(jr->root_fd, "", 2, &dirs);
    _cleanup_free_ char *dtext = strbuf_steal(&dirs);
    _cleanup_free_ char *dpath = xasprintf("%s/" DIRS_NAME, jr->dir);
    r = rd_fix_write(jr->root_fd, dpath, dtext, strlen(dtext), 0600, 0, 0, NULL);
    if (r < 0) {
        *ret_error = xasprintf("cannot keep the directory list in the journal: %s; nothing was written",
                               rd_fix_describe_error(-r));
        return r;
    }
    json_object *jp = json_object_new_object();
    _cleanup_free_ char *keys = rd_pkg_pubkeys(a->pkgs->pm, jr->root);
    if (keys) {
        _cleanup_strv_free_ char **kv = strv_split(keys, "\n");
        json_object_object_add(jp, "pubkeys_before", rd_json_strv(kv ? kv : (char *[]){ NULL }));
    }
    rd_json_set_str(jp, "package_manager", rd_pm_name(a->pkgs->pm));
    rd_json_set_str(jp, "before", BEFORE_NAME);
    rd_json_set_int(jp, "lock_timeout_s", a->pkgs->lock_timeout_s);
    json_object_object_add(jp, "install", rd_json_strv(a->pkgs->install));
    json_object_object_add(jp, "remove", rd_json_strv(a->pkgs->remove));
    json_object_object_add(jp, "planned", rd_pkg_changes_to_json(&a->pkgs->changes));
    json_object_object_add(jr->j, "packages", jp);
    return 0;
}

static int read_before(rd_journal *jr, char **ret)
{
    _cleanup_free_ char *path = xasprintf("%s/" BEFORE_NAME, jr->dir);
    return rd_fix_read(jr->root_fd, path, ret, NULL, NULL);
}

int rd_journal_packages_after(rd_journal *jr, char **ret_error)
{
    json_object *jp = packages_of(jr);
    if (!jp)
        return 0;
    _cleanup_free_ char *before = NULL, *after = NULL, *err = NULL;
    int r = read_before(jr, &before);
    if (r >= 0)
        r = rd_pkg_installed(pm_of(jp), jr->root, jr->root_fd, &after, &err);
    if (r < 0) {
        *ret_error = xasprintf("cannot record the packages the run changed: %s", err ? err : rd_fix_describe_error(-r));
        return r;
    }
    rd_pkg_changes c = { 0 };
    rd_pkg_diff(before, after, &c);
    rd_pkg_changes_to_lists(&c, jp);
    rd_pkg_changes_free(&c);
    return 0;
}

/* What the run changed: recorded when it was applied, else (killed) the
 * difference between the list it kept and now. */
static int run_changes(rd_journal *jr, json_object *jp, const char *now, rd_pkg_changes *ret, bool *ret_recorded)
{
    if (rd_pkg_changes_from_lists(jp, ret) == 0) {
        *ret_recorded = true;
        return 0;
    }
    _cleanup_free_ char *before = NULL;
    int r = read_before(jr, &before);
    if (r == -ENOENT) /* killed before its list was kept: nothing was installed */
        return 0;
    if (r < 0)
        return r;
    rd_pkg_diff(before, now, ret);
    *ret_recorded = false;
    return 0;
}

/* The changes still in place now (a repeated undo skips what is done). */
static void still_in_place(const rd_pkg_changes *c, const char *now, rd_pkg_changes *ret)
{
    for (size_t i = 0; i < c->n; i++) {
        const rd_pkg_change *x = &c->items[i];
        _cleanup_free_ char *cur = rd_pkg_list_version(now, x->name);
        bool in_place = x->op == RD_PKG_REMOVE    ? !cur
                        : x->op == RD_PKG_INSTALL ? cur != NULL
                                                  : cur && !streq_ptr(cur, x->old_version);
        if (!in_place)
            continue;
        rd_pkg_changes_add(ret, x);
    }
}

/* What reverses live: the run's installs removed, the rest put back at the
 * versions they had. */
static void reversal(const rd_pkg_changes *live, char ***install, char ***remove)
{
    for (size_t i = 0; i < live->n; i++) {
        const rd_pkg_change *x = &live->items[i];
        if (x->op == RD_PKG_INSTALL)
            *remove = strv_push(*remove, xstrdup(x->name));
        else if (x->op == RD_PKG_REMOVE)
            *install = strv_push(*install, xasprintf("%s=%s", x->name, x->version));
        else if (x->old_version)
            *install = strv_push(*install, xasprintf("%s=%s", x->name, x->old_version));
    }
}

/* One recorded entry (k: the list it is in) against the list kept before
 * the run: what it installed was not there, what it removed, upgraded or
 * downgraded was, at the version the entry names; NULL when they agree. */
static char *entry_contradiction(json_object *o, rd_pkg_op k, const char *before)
{
    const char *list = rd_pkg_kinds[k].done;
    _cleanup_(rd_pkg_change_clear) rd_pkg_change x = { 0 };
    if (rd_pkg_change_from_json(o, k, &x) < 0 || !*x.name || strpbrk(x.name, " \t\n") || !x.version ||
        ((k == RD_PKG_UPGRADE || k == RD_PKG_DOWNGRADE) && !x.old_version))
        return xasprintf("an entry of \"%s\" has no name or version", list);
    _cleanup_free_ char *was = rd_pkg_list_version(before, x.name);
    if (k == RD_PKG_INSTALL && was)
        return xasprintf("\"%s\" names %s, but the package list saved before the run has it (%s)", list, x.name, was);
    const char *want = k == RD_PKG_REMOVE ? x.version : x.old_version;
    if (k != RD_PKG_INSTALL && !streq_ptr(was, want))
        return xasprintf("\"%s\" names %s %s, but the package list saved before the run has %s", list, x.name, want,
                         was ? was : "no such package");
    return NULL;
}

/* The run's package journal as apply wrote it: a known package manager,
 * the list kept before the run, and (once applied) the four lists of what
 * it changed, each entry agreeing with that list. */
static char *package_journal_damage(rd_journal *jr, json_object *jp, char **ret_before)
{
    if (pm_of(jp) == RD_PM_NONE)
        return xstrdup("it names no package manager");
    _cleanup_free_ char *before = NULL;
    int r = read_before(jr, &before);
    if (r < 0)
        return xasprintf("the package list saved before the run (%s/" BEFORE_NAME ") %s", jr->dir,
                         r == -ENOENT ? "is missing" : strerror(-r));
    json_object *probe;
    bool recorded = json_object_object_get_ex(jp, rd_pkg_kinds[RD_PKG_INSTALL].done, &probe);
    for (size_t k = 0; recorded && k < RD_PKG_OP_MAX; k++) {
        json_object *a = rd_json_get_array(jp, rd_pkg_kinds[k].done);
        if (!a)
            return xasprintf("its list \"%s\" is missing", rd_pkg_kinds[k].done);
        for (size_t i = 0; i < json_object_array_length(a); i++) {
            char *why = entry_contradiction(json_object_array_get_idx(a, i), (rd_pkg_op)k, before);
            if (why)
                return why;
        }
    }
    *ret_before = TAKE_PTR(before);
    return NULL;
}

/* Nothing else goes with the reversal: what was installed since and
 * depends on a package the run installed, or on the version it left of
 * one it upgraded or downgraded, would be removed with it. */
static int check_dependents(rd_journal *jr, rd_pm pm, char *const *install, char *const *remove, char **ret_error)
{
    _cleanup_free_ char *err = NULL;
    _cleanup_strv_free_ char **dependents = NULL;
    int r = rd_pkg_dependents(pm, jr->root, install, remove, &dependents, &err);
    if (r < 0) {
        *ret_error = xasprintf("%s; nothing was undone", err);
        return r;
    }
    if (!dependents)
        return 0;
    _cleanup_free_ char *names = strv_join(dependents, ", ");
    *ret_error = xasprintf("%s installed since run %s depend%s on packages it installed or on the versions it left; "
                           "undoing it would remove %s too, so nothing was undone (remove %s first, or keep the run)",
                           names, jr->run_id, dependents[1] ? "" : "s", dependents[1] ? "them" : "it", names);
    return -EBUSY;
}

int rd_packages_verify(rd_journal *jr, bool killed, char **ret_error)
{
    json_object *jp = packages_of(jr);
    if (!jp)
        return 0;
    {
        _cleanup_free_ char *before = NULL;
        _cleanup_free_ char *why = package_journal_damage(jr, jp, &before);
        if (why) {
            *ret_error = xasprintf("the journal of run %s is damaged: %s; nothing was undone", jr->run_id, why);
            return -EBADMSG;
        }
    }
    rd_pm pm = pm_of(jp);
    _cleanup_free_ char *now = NULL, *err = NULL;
    int r = rd_pkg_installed(pm, jr->root, jr->root_fd, &now, &err);
    if (r < 0) {
        *ret_error = xasprintf("%s; nothing was undone", err);
        return r;
    }
    rd_pkg_changes c = { 0 }, live = { 0 };
    bool recorded = false;
    r = run_changes(jr, jp, now, &c, &recorded);
    if (r < 0) {
        *ret_error =
            xasprintf("cannot read the package list of run %s: %s; nothing was undone", jr->run_id, strerror(-r));
        rd_pkg_changes_free(&c);
        return r;
    }
    still_in_place(&c, now, &live);
    strbuf changed = { 0 };
    _cleanup_strv_free_ char **install = NULL, **remove = NULL;
    for (size_t i = 0; i < live.n && !killed; i++) {
        const rd_pkg_change *x = &live.items[i];
        if (x->op == RD_PKG_REMOVE)
            continue;
        _cleanup_free_ char *cur = rd_pkg_list_version(now, x->name);
        if (!streq_ptr(cur, x->version))
            strbuf_printf(&changed, "%s%s (the run left %s, now %s)", changed.len ? ", " : "", x->name,
                          strempty(x->version), strempty(cur));
    }
    reversal(&live, &install, &remove);
    rd_pkg_changes_free(&c);
    rd_pkg_changes_free(&live);
    if (changed.len) {
        _cleanup_free_ char *list = strbuf_steal(&changed);
        *ret_error = xasprintf("packages changed after run %s was applied: %s; undoing would lose that change, so "
                               "nothing was undone",
                               jr->run_id, list);
        return -ESTALE;
    }
    return check_dependents(jr, pm, install, remove, ret_error);
}

/* rpm keys imported by the run's package step (not by its first-boot
 * command, which undo lists itself) go with it. */
static void remove_new_pubkeys(rd_journal *jr, json_object *jp, rd_pm pm, strbuf *problems)
{
    json_object *before_keys;
    if (!json_object_object_get_ex(jp, "pubkeys_before", &before_keys))
        return;
    _cleanup_strv_free_ char **before = rd_json_to_strv(before_keys);
    _cleanup_free_ char *now_text = rd_pkg_pubkeys(pm, jr->root);
    _cleanup_strv_free_ char **now = now_text ? strv_split(now_text, "\n") : NULL;
    _cleanup_strv_free_ char **gone = NULL;
    for (size_t i = 0; now && now[i]; i++)
        if (!strv_contains(before, now[i]))
            gone = strv_push(gone, xstrdup(now[i]));
    _cleanup_free_ char *err = NULL;
    if (gone && rd_pkg_remove_pubkeys(jr->root, gone, &err) < 0)
        strbuf_printf(problems, "%s%s", problems->len ? "; " : "", err);
}

/* The run's changes still in place in the installed list now. */
static int live_changes(rd_journal *jr, json_object *jp, rd_pm pm, rd_pkg_changes *ret, char **ret_error)
{
    _cleanup_free_ char *now = NULL;
    int r = rd_pkg_installed(pm, jr->root, jr->root_fd, &now, ret_error);
    if (r < 0)
        return r;
    rd_pkg_changes c = { 0 };
    bool recorded = false;
    r = run_changes(jr, jp, now, &c, &recorded);
    if (r < 0) {
        *ret_error = xasprintf("cannot read the package list of run %s", jr->run_id);
        return r;
    }
    still_in_place(&c, now, ret);
    rd_pkg_changes_free(&c);
    return 0;
}

static void add_problem(strbuf *problems, const char *what)
{
    strbuf_printf(problems, "%s%s", problems->len ? "; " : "", what);
}

/* The packages the run installed that dpkg left unfinished (a postinst
 * that keeps failing, a kill while it unpacked): apt will not remove
 * them, so dpkg does, with its force options. */
static int remove_unfinished(rd_journal *jr, rd_pm pm, char **remove, char ***forced, char **ret_error)
{
    _cleanup_strv_free_ char **unfinished = NULL, **stuck = NULL;
    int r = rd_pkg_unfinished(pm, jr->root, &unfinished, ret_error);
    if (r < 0)
        return r;
    for (size_t i = 0; remove && remove[i]; i++)
        if (strv_contains(unfinished, remove[i]))
            stuck = strv_push(stuck, xstrdup(remove[i]));
    if ((r = rd_pkg_force_remove(pm, jr->root, stuck, ret_error)) < 0)
        return r;
    for (size_t i = 0; stuck && stuck[i]; i++)
        *forced = strv_push(*forced, xstrdup(stuck[i]));
    return 0;
}

/* The names still in place, for the message. */
static char *names_of(const rd_pkg_changes *c)
{
    strbuf b = { 0 };
    for (size_t i = 0; i < c->n; i++)
        strbuf_printf(&b, "%s%s", b.len ? ", " : "", c->items[i].name);
    return strbuf_steal(&b);
}

/* Whether the run's packages are all out (or back); when not, says which
 * are left. */
static int packages_done(rd_journal *jr, json_object *jp, rd_pm pm, strbuf *problems)
{
    _cleanup_free_ char *err = NULL;
    rd_pkg_changes live = { 0 };
    int r = live_changes(jr, jp, pm, &live, &err);
    if (r < 0) {
        add_problem(problems, err);
        return r;
    }
    if (live.n > 0) {
        _cleanup_free_ char *names = names_of(&live);
        _cleanup_free_ char *msg = xasprintf("packages of run %s still in place: %s; its repository files are kept "
                                             "until they are out",
                                             jr->run_id, names);
        add_problem(problems, msg);
        r = -EIO;
    }
    rd_pkg_changes_free(&live);
    return r;
}

/* The reversal of what is in place now (freeing the lists given). */
static int reversal_now(rd_journal *jr, json_object *jp, rd_pm pm, char ***install, char ***remove, strbuf *why)
{
    _cleanup_free_ char *err = NULL;
    rd_pkg_changes live = { 0 };
    strv_free(*install);
    strv_free(*remove);
    *install = *remove = NULL;
    if (live_changes(jr, jp, pm, &live, &err) < 0) {
        add_problem(why, err);
        return -EIO;
    }
    reversal(&live, install, remove);
    rd_pkg_changes_free(&live);
    return 0;
}

/* Under the lock: the unfinished packages out with dpkg's force options,
 * then one transaction for the rest; what failed in *why (kept only when
 * something is left in place). */
static void reverse_live(rd_journal *jr, json_object *jp, rd_pm pm, char ***forced, strbuf *why)
{
    _cleanup_free_ char *err = NULL;
    _cleanup_strv_free_ char **install = NULL, **remove = NULL;
    if (reversal_now(jr, jp, pm, &install, &remove, why) < 0)
        return;
    if (remove_unfinished(jr, pm, remove, forced, &err) < 0) {
        add_problem(why, err);
        return;
    }
    /* then dpkg finishes what else a killed run started (the run's own
     * unfinished packages are out already: a failing DKMS build is not
     * run again) */
    if (rd_pkg_repair(pm, jr->root, &err) < 0) {
        add_problem(why, err);
        free(err);
        err = NULL;
    }
    if (reversal_now(jr, jp, pm, &install, &remove, why) < 0 || (!install && !remove))
        return;
    if (rd_pkg_transact(pm, jr->root, install, remove, RD_PKG_ALLOW_DOWNGRADE | RD_PKG_PURGE, &err) >= 0)
        return;
    add_problem(why, err);
    /* rpm: a scriptlet that fails; the run's own packages still there go
     * without it */
    if (pm == RD_PM_APT || reversal_now(jr, jp, pm, &install, &remove, why) < 0)
        return;
    free(err);
    err = NULL;
    if (rd_pkg_force_remove(pm, jr->root, remove, &err) < 0)
        add_problem(why, err);
    else
        for (size_t i = 0; remove && remove[i]; i++)
            *forced = strv_push(*forced, xstrdup(remove[i]));
}

int rd_restore_packages(rd_journal *jr, strbuf *problems, char ***forced)
{
    json_object *jp = packages_of(jr);
    if (!jp)
        return 0;
    rd_pm pm = pm_of(jp);
    int64_t lock_timeout_s = rd_json_get_int(jp, "lock_timeout_s", 300);
    _cleanup_free_ char *err = NULL;
    rd_pkg_changes live = { 0 };
    /* nothing of the run's is in place (it failed before the package
     * manager ran, or a repeated undo): no lock to wait for */
    if (live_changes(jr, jp, pm, &live, &err) < 0) {
        add_problem(problems, err);
        return -EIO;
    }
    if (live.n == 0) {
        /* an undo killed after the package manager, before the directories */
        put_back_dirs(jr, problems);
        remove_new_pubkeys(jr, jp, pm, problems);
        return 0;
    }
    rd_pkg_changes_free(&live);
    if (rd_pkg_wait_lock(pm, jr->root, lock_timeout_s, &err) < 0) {
        add_problem(problems, err);
        return -EBUSY;
    }
    strbuf why = { 0 };
    reverse_live(jr, jp, pm, forced, &why);
    put_back_dirs(jr, problems);
    int r = packages_done(jr, jp, pm, &why);
    if (r < 0)
        add_problem(problems, why.s);
    else /* the keys, like the repository files, once the packages are out */
        remove_new_pubkeys(jr, jp, pm, problems);
    free(why.s);
    return r;
}

char *rd_forced_note(char *const *forced)
{
    if (!forced || !forced[0])
        return NULL;
    _cleanup_free_ char *names = strv_join(forced, ", ");
    return xasprintf("%s could not be finished by the package manager (a maintainer script failed, or it was "
                     "interrupted) and %s removed with its force options",
                     names, forced[1] ? "were" : "was");
}
