/* SPDX-License-Identifier: MIT */
/* Access: can the target user open /dev/kfd and every GPU's render node
 * read-write? Judged from mode, owner, group, ACL and group membership (the
 * database and, for the invoking user, the running session). */
#include "access.h"

#include <fcntl.h>
#include <grp.h>
#include <inttypes.h>
#include <pwd.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include "config.h"
#include "passwd.h"
#include "probe.h"
#include "util.h"

#define ACL_USER_OBJ 0x01
#define ACL_USER 0x02
#define ACL_GROUP_OBJ 0x04
#define ACL_GROUP 0x08
#define ACL_MASK 0x10
#define ACL_OTHER 0x20

int rd_acl_parse_xattr(const void *buf, size_t len, rd_acl_entry **ret, size_t *ret_n)
{
    const uint8_t *b = buf;
    if (len < 4 || (len - 4) % 8 != 0 || len > 4 + 8 * 1024)
        return -EINVAL;
    uint32_t version = (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
    if (version != 2)
        return -EINVAL;
    rd_acl_entry *e = NULL;
    size_t n = 0;
    for (size_t off = 4; off < len; off += 8) {
        unsigned tag = b[off] | b[off + 1] << 8, perm = b[off + 2] | b[off + 3] << 8;
        uint32_t id =
            (uint32_t)b[off + 4] | (uint32_t)b[off + 5] << 8 | (uint32_t)b[off + 6] << 16 | (uint32_t)b[off + 7] << 24;
        const char *name = tag == ACL_USER_OBJ    ? "user_obj"
                           : tag == ACL_USER      ? "user"
                           : tag == ACL_GROUP_OBJ ? "group_obj"
                           : tag == ACL_GROUP     ? "group"
                           : tag == ACL_MASK      ? "mask"
                           : tag == ACL_OTHER     ? "other"
                                                  : NULL;
        if (!name || perm > 7) {
            for (size_t i = 0; i < n; i++)
                free(e[i].tag);
            free(e);
            return -EINVAL;
        }
        rd_acl_entry *x = ARRAY_APPEND(e, n);
        x->tag = xstrdup(name);
        x->perm = perm;
        x->id = (tag == ACL_USER || tag == ACL_GROUP) ? (int64_t)id : -1;
    }
    *ret = e;
    *ret_n = n;
    return 0;
}

static bool in_groups(int64_t gid, const int64_t *groups, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (groups[i] == gid)
            return true;
    return false;
}

bool rd_access_can_rw(const rd_dev_node *node, int64_t uid, const int64_t *groups, size_t n_groups)
{
    if (uid == 0)
        return true;
    int64_t mode = node->mode;
    if (node->n_acl == 0) {
        int64_t bits = uid == node->uid                         ? (mode >> 6) & 7
                       : in_groups(node->gid, groups, n_groups) ? (mode >> 3) & 7
                                                                : mode & 7;
        return (bits & 6) == 6;
    }
    /* POSIX.1e access check order */
    int64_t mask = 7, other = 0;
    for (size_t i = 0; i < node->n_acl; i++) {
        if (streq(node->acl[i].tag, "mask"))
            mask = node->acl[i].perm;
        else if (streq(node->acl[i].tag, "other"))
            other = node->acl[i].perm;
    }
    for (size_t i = 0; i < node->n_acl; i++)
        if (streq(node->acl[i].tag, "user_obj") && uid == node->uid)
            return (node->acl[i].perm & 6) == 6;
    for (size_t i = 0; i < node->n_acl; i++)
        if (streq(node->acl[i].tag, "user") && node->acl[i].id == uid)
            return (node->acl[i].perm & mask & 6) == 6;
    bool group_matched = false;
    for (size_t i = 0; i < node->n_acl; i++) {
        const rd_acl_entry *e = &node->acl[i];
        bool match = (streq(e->tag, "group_obj") && in_groups(node->gid, groups, n_groups)) ||
                     (streq(e->tag, "group") && in_groups(e->id, groups, n_groups));
        if (!match)
            continue;
        group_matched = true;
        if ((e->perm & mask & 6) == 6)
            return true;
    }
    if (group_matched)
        return false;
    return (other & 6) == 6;
}

/* Look-ups over the one passwd/group reader (passwd.h). */
int rd_passwd_find(const char *text, const char *name, int64_t uid, char **ret_name, int64_t *ret_uid, int64_t *ret_gid)
{
    passwd_record rec;
    if (passwd_find_text(text, name, uid, &rec) < 0)
        return -ENOENT;
    *ret_name = TAKE_PTR(rec.name);
    *ret_uid = rec.uid;
    *ret_gid = rec.gid;
    passwd_record_free(&rec);
    return 0;
}

typedef struct {
    const char *user;
    int64_t *gids;
    size_t n;
    int64_t want;
    char *found;
} group_walk;

static int add_if_member(const group_entry *g, void *u)
{
    group_walk *w = u;
    if (!in_groups(g->gid, w->gids, w->n) && strv_contains(g->members, w->user))
        *(int64_t *)ARRAY_APPEND(w->gids, w->n) = g->gid;
    return 0;
}

int rd_group_list(const char *text, const char *user, int64_t primary_gid, int64_t **ret, size_t *ret_n)
{
    group_walk w = { .user = user };
    *ARRAY_APPEND(w.gids, w.n) = primary_gid;
    group_foreach_text(text, add_if_member, &w);
    *ret = w.gids;
    *ret_n = w.n;
    return 0;
}

static int find_name(const group_entry *g, void *u)
{
    group_walk *w = u;
    if (g->gid != w->want)
        return 0;
    w->found = xstrdup(g->name);
    return 1;
}

char *rd_group_name(const char *text, int64_t gid)
{
    group_walk w = { .want = gid };
    group_foreach_text(text, find_name, &w);
    return w.found;
}

/* ---- gather ---- */

static void stat_node(rd_access_facts *a, const char *path, const char *role, const char *group_text)
{
    for (size_t i = 0; i < a->n_nodes; i++)
        if (streq(a->nodes[i].path, path))
            return;
    rd_dev_node *n = ARRAY_APPEND(a->nodes, a->n_nodes);
    n->path = xstrdup(path);
    n->role = xstrdup(role);
    struct stat st;
    if (stat(path, &st) < 0) {
        if (errno != ENOENT)
            n->error = xasprintf("%s: %s", path, strerror(errno));
        return;
    }
    n->exists = true;
    n->mode = st.st_mode & 07777;
    n->uid = st.st_uid;
    n->gid = st.st_gid;
    if (group_text)
        n->group = rd_group_name(group_text, st.st_gid);
    else {
        struct group gr, *res = NULL;
        char buf[4096];
        if (getgrgid_r(st.st_gid, &gr, buf, sizeof buf, &res) == 0 && res)
            n->group = xstrdup(gr.gr_name);
    }
    /* getxattr() by path would bypass test beds that redirect open(); going
     * through an O_PATH descriptor reads the ACL of the file we stat'ed. */
    int fd = open(path, O_PATH | O_CLOEXEC);
    if (fd >= 0) {
        char proc[64], buf[1024];
        snprintf(proc, sizeof proc, "/proc/self/fd/%d", fd);
        ssize_t len = getxattr(proc, "system.posix_acl_access", buf, sizeof buf);
        if (len > 0 && rd_acl_parse_xattr(buf, (size_t)len, &n->acl, &n->n_acl) < 0)
            n->error = xasprintf("%s: unreadable ACL", path);
        close(fd);
    }
}

static void resolve_user(const rd_ctx *ctx, rd_user_facts *u, const char *name, int64_t uid, const char *passwd_text,
                         const char *group_text)
{
    if (rd_ctx_has_root(ctx)) {
        if (!passwd_text || rd_passwd_find(passwd_text, name, uid, &u->name, &u->uid, &u->gid) < 0) {
            u->name = xstrdup_or_null(name);
            u->uid = uid;
            u->error = name ? xasprintf("user \"%s\" not found in %s/etc/passwd", name, ctx->root)
                            : xasprintf("uid %" PRId64 " not found in %s/etc/passwd", uid, ctx->root);
            return;
        }
        rd_group_list(group_text ? group_text : "", u->name, u->gid, &u->groups, &u->n_groups);
        return;
    }
    struct passwd pw, *res = NULL;
    char buf[16384];
    int r = name ? getpwnam_r(name, &pw, buf, sizeof buf, &res) : getpwuid_r((uid_t)uid, &pw, buf, sizeof buf, &res);
    if (r != 0 || !res) {
        u->name = xstrdup_or_null(name);
        u->uid = uid;
        u->error = name ? xasprintf("user \"%s\" not found", name) : xasprintf("uid %" PRId64 " not found", uid);
        return;
    }
    u->name = xstrdup(pw.pw_name);
    u->uid = pw.pw_uid;
    u->gid = pw.pw_gid;
    int ng = 64;
    gid_t *gl = xcalloc((size_t)ng, sizeof(gid_t));
    if (getgrouplist(pw.pw_name, pw.pw_gid, gl, &ng) < 0) {
        gl = xrealloc(gl, (size_t)ng * sizeof(gid_t));
        if (getgrouplist(pw.pw_name, pw.pw_gid, gl, &ng) < 0)
            ng = 0;
    }
    u->groups = xcalloc((size_t)ng, sizeof(int64_t));
    for (int i = 0; i < ng; i++)
        u->groups[u->n_groups++] = gl[i];
    free(gl);
}

static void add_user(const rd_ctx *ctx, rd_access_facts *a, const char *name, const char *source,
                     const char *passwd_text, const char *group_text)
{
    rd_user_facts *u = ARRAY_APPEND(a->users, a->n_users);
    u->source = xstrdup(source);
    resolve_user(ctx, u, name, ctx->uid, passwd_text, group_text);
    if (!u->error && u->uid == (int64_t)ctx->uid) {
        int n = getgroups(0, NULL);
        gid_t *gl = xcalloc((size_t)(n > 0 ? n : 1), sizeof(gid_t));
        n = getgroups(n, gl);
        u->session_known = n >= 0;
        u->session_groups = xcalloc((size_t)(n > 0 ? n : 0) + 1, sizeof(int64_t));
        u->session_groups[u->n_session_groups++] = getgid();
        for (int i = 0; i < n; i++)
            if (!in_groups(gl[i], u->session_groups, u->n_session_groups))
                u->session_groups[u->n_session_groups++] = gl[i];
        free(gl);
    }
}

static void access_gather(const rd_ctx *ctx, rd_facts *facts)
{
    rd_access_facts *a = &facts->access;
    _cleanup_free_ char *passwd_text = NULL, *group_text = NULL;
    if (rd_ctx_has_root(ctx)) {
        rd_facts_note_unreadable(facts, "/etc/passwd", rd_root_read_file(ctx, "/etc/passwd", 0, &passwd_text),
                                 "the users' uid and primary group (access to /dev/kfd and render nodes)");
        rd_facts_note_unreadable(facts, "/etc/group", rd_root_read_file(ctx, "/etc/group", 0, &group_text),
                                 "the users' groups and the device nodes' group names");
    }

    stat_node(a, "/dev/kfd", "kfd", group_text);
    for (size_t i = 0; i < facts->drm.n_devices; i++)
        if (facts->drm.devices[i].render)
            stat_node(a, facts->drm.devices[i].render, "render", group_text);
    for (size_t i = 0; i < facts->kfd.n_nodes; i++) {
        uint64_t minor;
        if (rd_kfd_node_is_gpu(&facts->kfd.nodes[i]) && rd_kfd_prop(&facts->kfd.nodes[i], "drm_render_minor", &minor) &&
            minor > 0 && minor < 1u << 20) {
            char path[64];
            snprintf(path, sizeof path, "/dev/dri/renderD%" PRIu64, minor);
            stat_node(a, path, "render", group_text);
        }
    }
    for (size_t i = 0; i < facts->drm.n_devices; i++)
        if (facts->drm.devices[i].card)
            stat_node(a, facts->drm.devices[i].card, "card", group_text);

    const char *name = NULL, *source = NULL;
    if (ctx->user) {
        name = ctx->user;
        source = "--user";
    } else if (ctx->config && ctx->config->users) {
        for (char **n = ctx->config->users; *n; n++)
            add_user(ctx, a, *n, "users in rocm-doctor.conf", passwd_text, group_text);
        return;
    } else if (ctx->uid == 0 && ctx->sudo_user && *ctx->sudo_user && !streq(ctx->sudo_user, "root")) {
        name = ctx->sudo_user;
        source = "SUDO_USER";
    } else if (ctx->uid != 0) {
        source = "invoking user";
    } else {
        a->not_checked = xstrdup("running as root without --user or SUDO_USER: ordinary users' access was not "
                                 "checked (pass --user NAME)");
        return;
    }
    add_user(ctx, a, name, source, passwd_text, group_text);
}

/* ---- assess ---- */

static const char *node_group(const rd_dev_node *n, char *buf, size_t size)
{
    if (n->group)
        return n->group;
    snprintf(buf, size, "%" PRId64, n->gid);
    return buf;
}

/* "PATH: mode 0660, owner uid 0, group render[, ACL user::rw-,...]": the
 * fields the JSON report carries as access.nodes[], in words. */
static void describe(rd_finding *fd, const rd_dev_node *n)
{
    char g[32], mode[8];
    rd_dev_node_mode(n, mode);
    strbuf acl = { 0 };
    for (size_t i = 0; i < n->n_acl; i++) {
        _cleanup_free_ char *e = rd_acl_entry_text(&n->acl[i]);
        strbuf_printf(&acl, "%s%s", i ? "," : ", ACL ", e);
    }
    rd_finding_evidence(fd, "%s: mode %s, owner uid %" PRId64 ", group %s%s", n->path, mode, n->uid,
                        node_group(n, g, sizeof g), strempty(acl.s));
    free(acl.s);
}

/* access.world-writable: nodes any local user may open. */
static void assess_world_writable(const rd_access_facts *a, rd_findings *out)
{
    rd_finding *ww = NULL;
    for (size_t i = 0; i < a->n_nodes; i++) {
        const rd_dev_node *n = &a->nodes[i];
        if (!n->exists || (n->mode & 06) != 06)
            continue;
        if (!ww)
            ww = rd_finding_add(out, RD_FINDING(ACCESS_WORLD_WRITABLE), RD_SEV_INFO, NULL,
                                "GPU device nodes are open to every local user");
        describe(ww, n);
    }
    if (ww)
        rd_finding_remedy(ww, "Fine on a single-user machine; on a shared host prefer mode 0660 with the render "
                              "group (a udev rule) so that only members can use the GPUs.");
}

/* The evidence and remedy of a kfd/render.no-access finding: usermod when
 * the node has a group to join, a udev rule when it belongs to root only. */
static void no_access_remedy(rd_finding *fd, const rd_user_facts *user, const char *group)
{
    rd_finding_evidence(fd, "%s (uid %" PRId64 ", %s) is not in group %s", user->name, user->uid, user->source, group);
    if (group && !streq(group, "root") && !streq(group, "0")) {
        rd_finding_remedy(fd, "sudo usermod -aG %s%s %s, then log out and back in.", group,
                          streq(group, "video") ? "" : ",video", user->name);
        rd_finding_set_fix(fd, "group");
    } else {
        rd_finding_remedy(fd,
                          "The node belongs to root only: add a udev rule giving kfd and renderD* to "
                          "group render with MODE=\"0660\", then add %s to render. Never chmod 666.",
                          user->name);
        rd_finding_set_fix(fd, "udev");
    }
}

/* One user against the nodes of one role (0: kfd, 1: render). A node the
 * user can open only with the groups of a new login goes to *relogin
 * (shared by both roles); the others to kfd/render.no-access. */
static void assess_user_role(const rd_assess_input *in, const rd_user_facts *user, int role, rd_finding **relogin,
                             rd_findings *out)
{
    const rd_access_facts *a = &in->facts->access;
    const int64_t *now = user->session_known ? user->session_groups : user->groups;
    size_t n_now = user->session_known ? user->n_session_groups : user->n_groups;
    const char *want = role == 0 ? "kfd" : "render";
    rd_finding *fd = NULL;
    const char *group = NULL;
    char gbuf[32];
    for (size_t i = 0; i < a->n_nodes; i++) {
        const rd_dev_node *n = &a->nodes[i];
        if (!n->exists || !streq(n->role, want))
            continue;
        /* a host gid with no name in a container: no usermod can
         * grant it, container.gid-mismatch gives the --group-add */
        if (in->facts->os.container && !n->group)
            continue;
        if (rd_access_can_rw(n, user->uid, now, n_now))
            continue;
        if (user->session_known && rd_access_can_rw(n, user->uid, user->groups, user->n_groups)) {
            if (!*relogin) {
                *relogin = rd_finding_add(out, RD_FINDING(GROUP_RELOGIN_NEEDED), RD_SEV_WARNING, NULL,
                                          "%s is in the GPU group now, but this login session predates it", user->name);
                rd_finding_remedy(*relogin,
                                  "Log out and back in (or reboot); `newgrp %s` gives one shell "
                                  "the new group meanwhile.",
                                  node_group(n, gbuf, sizeof gbuf));
            }
            describe(*relogin, n);
            continue;
        }
        if (!fd) {
            fd = rd_finding_add(out, role == 0 ? RD_FINDING(KFD_NO_ACCESS) : RD_FINDING(RENDER_NO_ACCESS), RD_SEV_ERROR,
                                NULL, "%s cannot open %s read-write", user->name,
                                role == 0 ? "/dev/kfd" : "the GPU render nodes");
            group = node_group(n, gbuf, sizeof gbuf);
        }
        describe(fd, n);
    }
    if (fd)
        no_access_remedy(fd, user, group);
}

static void access_assess(const rd_assess_input *in, rd_findings *out)
{
    const rd_access_facts *a = &in->facts->access;
    if (in->gpus->n_gpus == 0)
        return;

    assess_world_writable(a, out);

    for (size_t u = 0; u < a->n_users; u++) {
        const rd_user_facts *user = &a->users[u];
        if (user->error)
            continue;
        /* In a container, the process's groups are fixed when it starts:
         * container.gid-mismatch gives the --group-add flags, and usermod
         * inside the container would change nothing. */
        if (in->facts->os.container && user->session_known)
            continue;
        rd_finding *relogin = NULL;
        for (int role = 0; role < 2; role++)
            assess_user_role(in, user, role, &relogin, out);
        if (relogin)
            rd_finding_evidence(relogin, "group database: yes; this session's groups: no");
    }
}

static const char *const access_findings[] = { RD_FINDING(KFD_NO_ACCESS), RD_FINDING(RENDER_NO_ACCESS),
                                               RD_FINDING(GROUP_RELOGIN_NEEDED), RD_FINDING(ACCESS_WORLD_WRITABLE),
                                               NULL };

/* clang-format off */
const rd_probe rd_probe_access = {
    .id = "access",
    .findings = access_findings,
    .title = "Device access for the target user",
    .areas = RD_STRV("access"),
    .reads = (const rd_probe_input[]){
        { "/etc/group", false },
        { "/etc/passwd", false },
        { NULL, false },
    },
    .uevents = RD_STRV("pci", "drm", "kfd", "drm/WEDGED"),
    .gather = access_gather,
    .assess = access_assess,
};
/* clang-format on */
