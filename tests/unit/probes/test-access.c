/* SPDX-License-Identifier: MIT */
/* The access probe: POSIX ACL xattrs, the permission check, and the passwd
 * and group file look-ups used with --root. */
#include <glib.h>

#include "access.h"
#include "util.h"
#include "testlib.h"
#include "assess-lib.h"

#define TAG_USER_OBJ 0x01
#define TAG_USER 0x02
#define TAG_GROUP_OBJ 0x04
#define TAG_GROUP 0x08
#define TAG_MASK 0x10
#define TAG_OTHER 0x20

#define RENDER_GID 992
#define VIDEO_GID 44

/* system.posix_acl_access: a little-endian u32 version (2), then 8-byte
 * entries of u16 tag, u16 perm, u32 id. */
typedef struct {
    uint8_t *buf;
    size_t len;
} xattr;

static xattr xattr_new(uint32_t version)
{
    xattr x = { g_malloc(4), 4 };
    for (int i = 0; i < 4; i++)
        x.buf[i] = (uint8_t)(version >> (8 * i));
    return x;
}

static void xattr_add(xattr *x, uint16_t tag, uint16_t perm, uint32_t id)
{
    x->buf = g_realloc(x->buf, x->len + 8);
    uint8_t *e = x->buf + x->len;
    e[0] = (uint8_t)tag;
    e[1] = (uint8_t)(tag >> 8);
    e[2] = (uint8_t)perm;
    e[3] = (uint8_t)(perm >> 8);
    for (int i = 0; i < 4; i++)
        e[4 + i] = (uint8_t)(id >> (8 * i));
    x->len += 8;
}

static void acl_free(rd_acl_entry *e, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(e[i].tag);
    free(e);
}

static void assert_entry(const rd_acl_entry *e, const char *tag, int64_t id, int64_t perm)
{
    g_assert_cmpstr(e->tag, ==, tag);
    g_assert_cmpint(e->id, ==, id);
    g_assert_cmpint(e->perm, ==, perm);
}

static void test_acl_parse(void)
{
    /* what logind's uaccess leaves on /dev/dri/renderD128 */
    xattr x = xattr_new(2);
    xattr_add(&x, TAG_USER_OBJ, 6, 0xffffffff);
    xattr_add(&x, TAG_USER, 6, 1000);
    xattr_add(&x, TAG_GROUP_OBJ, 6, 0xffffffff);
    xattr_add(&x, TAG_GROUP, 4, RENDER_GID);
    xattr_add(&x, TAG_MASK, 6, 0xffffffff);
    xattr_add(&x, TAG_OTHER, 0, 0xffffffff);

    rd_acl_entry *e = NULL;
    size_t n = 0;
    g_assert_cmpint(rd_acl_parse_xattr(x.buf, x.len, &e, &n), ==, 0);
    g_assert_cmpuint(n, ==, 6);
    assert_entry(&e[0], "user_obj", -1, 6);
    assert_entry(&e[1], "user", 1000, 6);
    assert_entry(&e[2], "group_obj", -1, 6);
    assert_entry(&e[3], "group", RENDER_GID, 4);
    assert_entry(&e[4], "mask", -1, 6);
    assert_entry(&e[5], "other", -1, 0);
    acl_free(e, n);
    g_free(x.buf);

    /* ids are unsigned 32-bit */
    x = xattr_new(2);
    xattr_add(&x, TAG_USER, 7, 4000000000u);
    g_assert_cmpint(rd_acl_parse_xattr(x.buf, x.len, &e, &n), ==, 0);
    g_assert_cmpuint(n, ==, 1);
    assert_entry(&e[0], "user", 4000000000, 7);
    acl_free(e, n);
    g_free(x.buf);

    /* a header alone is an empty ACL */
    x = xattr_new(2);
    e = (rd_acl_entry *)0x1;
    n = 5;
    g_assert_cmpint(rd_acl_parse_xattr(x.buf, x.len, &e, &n), ==, 0);
    g_assert_null(e);
    g_assert_cmpuint(n, ==, 0);
    g_free(x.buf);
}

static void assert_acl_invalid(const xattr *x)
{
    rd_acl_entry *e = (rd_acl_entry *)0x1;
    size_t n = 77;
    g_assert_cmpint(rd_acl_parse_xattr(x->buf, x->len, &e, &n), ==, -EINVAL);
    g_assert_true(e == (rd_acl_entry *)0x1);
    g_assert_cmpuint(n, ==, 77);
}

static void test_acl_malformed(void)
{
    xattr x = xattr_new(1);
    xattr_add(&x, TAG_USER_OBJ, 6, 0);
    assert_acl_invalid(&x);
    g_free(x.buf);

    x = xattr_new(0x02000000); /* big-endian 2 */
    xattr_add(&x, TAG_USER_OBJ, 6, 0);
    assert_acl_invalid(&x);
    g_free(x.buf);

    /* lengths that are not 4 + 8n */
    x = xattr_new(2);
    xattr_add(&x, TAG_USER_OBJ, 6, 0);
    xattr_add(&x, TAG_OTHER, 6, 0);
    for (size_t cut = 0; cut < x.len; cut++) {
        if (cut == 4 || cut == 12)
            continue;
        xattr part = { x.buf, cut };
        assert_acl_invalid(&part);
    }
    g_free(x.buf);

    /* unknown tag after good entries: nothing leaks, nothing is returned */
    x = xattr_new(2);
    xattr_add(&x, TAG_USER_OBJ, 6, 0);
    xattr_add(&x, TAG_USER, 6, 1000);
    xattr_add(&x, 0x40, 6, 0);
    assert_acl_invalid(&x);
    g_free(x.buf);

    x = xattr_new(2);
    xattr_add(&x, 0, 0, 0);
    assert_acl_invalid(&x);
    g_free(x.buf);

    x = xattr_new(2);
    xattr_add(&x, TAG_USER_OBJ | TAG_USER, 6, 0);
    assert_acl_invalid(&x);
    g_free(x.buf);

    /* permissions beyond rwx */
    x = xattr_new(2);
    xattr_add(&x, TAG_USER, 8, 1000);
    assert_acl_invalid(&x);
    g_free(x.buf);

    /* 0xff everywhere */
    uint8_t ff[4 + 8 * 3];
    memset(ff, 0xff, sizeof ff);
    xattr all_ones = { ff, sizeof ff };
    assert_acl_invalid(&all_ones);

    /* oversized: more than 1024 entries */
    x = xattr_new(2);
    for (int i = 0; i < 1025; i++)
        xattr_add(&x, TAG_USER, 6, (uint32_t)i);
    assert_acl_invalid(&x);
    g_free(x.buf);

    /* exactly 1024 entries is the limit */
    x = xattr_new(2);
    for (int i = 0; i < 1024; i++)
        xattr_add(&x, TAG_USER, 6, (uint32_t)i);
    rd_acl_entry *e = NULL;
    size_t n = 0;
    g_assert_cmpint(rd_acl_parse_xattr(x.buf, x.len, &e, &n), ==, 0);
    g_assert_cmpuint(n, ==, 1024);
    assert_entry(&e[1023], "user", 1023, 6);
    acl_free(e, n);
    g_free(x.buf);
}

static rd_dev_node node(int64_t mode, int64_t uid, int64_t gid)
{
    return (rd_dev_node){
        .path = (char *)"/dev/kfd", .role = (char *)"kfd", .exists = true, .mode = mode, .uid = uid, .gid = gid
    };
}

static void test_can_rw_mode(void)
{
    const int64_t alice_no_render[] = { 1000, 4, 24 };
    const int64_t alice_render[] = { 1000, VIDEO_GID, RENDER_GID };
    rd_dev_node n = node(0660, 0, RENDER_GID);

    g_assert_false(rd_access_can_rw(&n, 1000, alice_no_render, G_N_ELEMENTS(alice_no_render)));
    g_assert_true(rd_access_can_rw(&n, 1000, alice_render, G_N_ELEMENTS(alice_render)));
    g_assert_false(rd_access_can_rw(&n, 1000, NULL, 0));
    /* root always may */
    g_assert_true(rd_access_can_rw(&n, 0, NULL, 0));

    /* read-only group */
    n = node(0640, 0, RENDER_GID);
    g_assert_false(rd_access_can_rw(&n, 1000, alice_render, G_N_ELEMENTS(alice_render)));

    n = node(0666, 0, 0);
    g_assert_true(rd_access_can_rw(&n, 1000, NULL, 0));
    g_assert_true(rd_access_can_rw(&n, 65534, alice_no_render, G_N_ELEMENTS(alice_no_render)));

    /* write-only is not enough */
    n = node(0662, 0, 0);
    g_assert_false(rd_access_can_rw(&n, 1000, NULL, 0));

    n = node(0600, 1000, RENDER_GID);
    g_assert_true(rd_access_can_rw(&n, 1000, NULL, 0));
    g_assert_false(rd_access_can_rw(&n, 1001, alice_render, G_N_ELEMENTS(alice_render)));

    /* the owner class applies to the owner even when the group would allow */
    n = node(0066, 1000, RENDER_GID);
    g_assert_false(rd_access_can_rw(&n, 1000, alice_render, G_N_ELEMENTS(alice_render)));
    /* and the group class to members even when "other" would allow */
    n = node(0606, 0, RENDER_GID);
    g_assert_false(rd_access_can_rw(&n, 1000, alice_render, G_N_ELEMENTS(alice_render)));
    g_assert_true(rd_access_can_rw(&n, 1000, alice_no_render, G_N_ELEMENTS(alice_no_render)));
}

static void test_can_rw_acl(void)
{
    const int64_t alice[] = { 1000 };
    const int64_t bob_render[] = { 1001, RENDER_GID };
    const int64_t carol_video[] = { 1002, VIDEO_GID };

    /* uaccess: 0660 root:render plus user:1000:rw- for the seat owner */
    rd_acl_entry uaccess[] = {
        { (char *)"user_obj", -1, 6 }, { (char *)"user", 1000, 6 }, { (char *)"group_obj", -1, 6 },
        { (char *)"mask", -1, 6 },     { (char *)"other", -1, 0 },
    };
    rd_dev_node n = node(0660, 0, RENDER_GID);
    n.acl = uaccess;
    n.n_acl = G_N_ELEMENTS(uaccess);
    g_assert_true(rd_access_can_rw(&n, 1000, alice, 1));
    g_assert_true(rd_access_can_rw(&n, 1001, bob_render, 2));
    g_assert_false(rd_access_can_rw(&n, 1002, carol_video, 2));

    /* the mask limits named users and groups */
    uaccess[3].perm = 4;
    g_assert_false(rd_access_can_rw(&n, 1000, alice, 1));
    g_assert_false(rd_access_can_rw(&n, 1001, bob_render, 2));
    uaccess[3].perm = 6;

    /* a named user entry is final even when "other" would allow */
    uaccess[1].perm = 4;
    uaccess[4].perm = 6;
    g_assert_false(rd_access_can_rw(&n, 1000, alice, 1));
    g_assert_true(rd_access_can_rw(&n, 1002, carol_video, 2));

    /* named group entry */
    rd_acl_entry group_acl[] = {
        { (char *)"user_obj", -1, 6 }, { (char *)"group_obj", -1, 0 }, { (char *)"group", VIDEO_GID, 6 },
        { (char *)"mask", -1, 6 },     { (char *)"other", -1, 0 },
    };
    n = node(0600, 0, RENDER_GID);
    n.acl = group_acl;
    n.n_acl = G_N_ELEMENTS(group_acl);
    g_assert_true(rd_access_can_rw(&n, 1002, carol_video, 2));
    g_assert_false(rd_access_can_rw(&n, 1001, bob_render, 2));
    /* a member of both: any matching group entry that grants suffices */
    const int64_t both[] = { 1003, RENDER_GID, VIDEO_GID };
    g_assert_true(rd_access_can_rw(&n, 1003, both, 3));
    group_acl[3].perm = 0;
    g_assert_false(rd_access_can_rw(&n, 1002, carol_video, 2));

    /* owner by ACL */
    rd_acl_entry owner_acl[] = { { (char *)"user_obj", -1, 6 }, { (char *)"other", -1, 0 } };
    n = node(0600, 1000, 0);
    n.acl = owner_acl;
    n.n_acl = 2;
    g_assert_true(rd_access_can_rw(&n, 1000, alice, 1));
    g_assert_false(rd_access_can_rw(&n, 1001, bob_render, 2));
    g_assert_true(rd_access_can_rw(&n, 0, NULL, 0));
}

static const char passwd[] = "root:x:0:0:root:/root:/bin/bash\n"
                             "# a comment:x:1:1::/:/bin/false\n"
                             "daemon:x:1:1:daemon:/usr/sbin:/usr/sbin/nologin\n"
                             "short:x:5\n"
                             "garbage line without colons\n"
                             "badnum:x:abc:100::/:/bin/sh\n"
                             "neg:x:-7:100::/:/bin/sh\n"
                             ":x:1500:1500::/:/bin/sh\n"
                             "+::::::\n"
                             "\xff\xfe:x:\xff:1::/:/bin/sh\n"
                             "alice:x:1000:1000:Alice Example,,,:/home/alice:/bin/bash\n"
                             "alice2:x:1001:1001::/home/alice2:/bin/bash\n"
                             "fourfields:x:1003:1003\n"
                             "alice:x:2000:2000:duplicate:/:/bin/sh\n"
                             "nobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin";

static void test_passwd(void)
{
    g_autofree char *name = NULL;
    int64_t uid = -5, gid = -5;

    g_assert_cmpint(rd_passwd_find(passwd, "alice", -1, &name, &uid, &gid), ==, 0);
    g_assert_cmpstr(name, ==, "alice");
    g_assert_cmpint(uid, ==, 1000);
    g_assert_cmpint(gid, ==, 1000);
    g_clear_pointer(&name, g_free);

    g_assert_cmpint(rd_passwd_find(passwd, NULL, 1001, &name, &uid, &gid), ==, 0);
    g_assert_cmpstr(name, ==, "alice2");
    g_assert_cmpint(gid, ==, 1001);
    g_clear_pointer(&name, g_free);

    g_assert_cmpint(rd_passwd_find(passwd, NULL, 0, &name, &uid, &gid), ==, 0);
    g_assert_cmpstr(name, ==, "root");
    g_clear_pointer(&name, g_free);

    g_assert_cmpint(rd_passwd_find(passwd, "fourfields", -1, &name, &uid, &gid), ==, 0);
    g_assert_cmpint(uid, ==, 1003);
    g_clear_pointer(&name, g_free);

    /* last line without a newline */
    g_assert_cmpint(rd_passwd_find(passwd, NULL, 65534, &name, &uid, &gid), ==, 0);
    g_assert_cmpstr(name, ==, "nobody");
    g_clear_pointer(&name, g_free);

    /* lines that are not entries never match */
    uid = gid = -5;
    static const char *const absent[] = { "short", "badnum", "neg", "", "+", "# a comment", "alic", "bob" };
    for (size_t i = 0; i < G_N_ELEMENTS(absent); i++)
        g_assert_cmpint(rd_passwd_find(passwd, absent[i], -1, &name, &uid, &gid), ==, -ENOENT);
    g_assert_cmpint(rd_passwd_find(passwd, NULL, 5, &name, &uid, &gid), ==, -ENOENT);
    g_assert_cmpint(rd_passwd_find(passwd, NULL, 1500, &name, &uid, &gid), ==, -ENOENT);
    g_assert_cmpint(rd_passwd_find(passwd, NULL, -7, &name, &uid, &gid), ==, -ENOENT);
    g_assert_cmpint(rd_passwd_find(passwd, NULL, -1, &name, &uid, &gid), ==, -ENOENT);
    g_assert_cmpint(rd_passwd_find("", "root", -1, &name, &uid, &gid), ==, -ENOENT);
    g_assert_null(name);
    g_assert_cmpint(uid, ==, -5);
    g_assert_cmpint(gid, ==, -5);

    /* the first entry of a duplicated name wins */
    g_assert_cmpint(rd_passwd_find(passwd, NULL, 2000, &name, &uid, &gid), ==, 0);
    g_assert_cmpstr(name, ==, "alice");
    g_clear_pointer(&name, g_free);

    static const char with_nul[] = "root:x:0:0::/:/bin/sh\n\0alice:x:1000:1000::/:/bin/sh\n";
    g_assert_cmpint(rd_passwd_find(with_nul, "alice", -1, &name, &uid, &gid), ==, -ENOENT);
}

static const char group[] = "root:x:0:\n"
                            "adm:x:4:syslog,alice\n"
                            "# render:x:992:commented\n"
                            "video:x:44: bob , alice \n"
                            "alice:x:1000:alice\n"
                            "render:x:992:malice,alice2,alice\n"
                            "plugdev:x:46\n"
                            "junk\n"
                            "badgid:x:x12:alice\n"
                            "render2:x:992:alice\n"
                            "docker:x:999:bob\n"
                            "\xff:\xff:\xff:\xff\n"
                            "sudo:x:27:alice";

static void test_group_list(void)
{
    int64_t *gids = NULL;
    size_t n = 0;
    g_assert_cmpint(rd_group_list(group, "alice", 1000, &gids, &n), ==, 0);
    /* primary first, then file order, each gid once */
    const int64_t expected[] = { 1000, 4, 44, 992, 27 };
    g_assert_cmpuint(n, ==, G_N_ELEMENTS(expected));
    for (size_t i = 0; i < n; i++)
        g_assert_cmpint(gids[i], ==, expected[i]);
    free(gids);

    g_assert_cmpint(rd_group_list(group, "bob", 1001, &gids, &n), ==, 0);
    g_assert_cmpuint(n, ==, 3);
    g_assert_cmpint(gids[0], ==, 1001);
    g_assert_cmpint(gids[1], ==, 44);
    g_assert_cmpint(gids[2], ==, 999);
    free(gids);

    g_assert_cmpint(rd_group_list(group, "nobody", 65534, &gids, &n), ==, 0);
    g_assert_cmpuint(n, ==, 1);
    g_assert_cmpint(gids[0], ==, 65534);
    free(gids);

    g_assert_cmpint(rd_group_list("", "alice", 1000, &gids, &n), ==, 0);
    g_assert_cmpuint(n, ==, 1);
    free(gids);

    /* the primary group listed again as a supplementary one */
    g_assert_cmpint(rd_group_list("render:x:992:alice\n", "alice", 992, &gids, &n), ==, 0);
    g_assert_cmpuint(n, ==, 1);
    g_assert_cmpint(gids[0], ==, 992);
    free(gids);

    /* an empty member between commas is nobody */
    g_assert_cmpint(rd_group_list("render:x:992:,,alice,,\nvideo:x:44:,\n", "", 1, &gids, &n), ==, 0);
    g_assert_cmpuint(n, ==, 1);
    free(gids);
}

static void test_group_name(void)
{
    g_autofree char *render = rd_group_name(group, 992);
    g_assert_cmpstr(render, ==, "render");
    g_autofree char *video = rd_group_name(group, 44);
    g_assert_cmpstr(video, ==, "video");
    g_autofree char *plugdev = rd_group_name(group, 46);
    g_assert_cmpstr(plugdev, ==, "plugdev");
    g_autofree char *root = rd_group_name(group, 0);
    g_assert_cmpstr(root, ==, "root");
    g_autofree char *sudo = rd_group_name(group, 27);
    g_assert_cmpstr(sudo, ==, "sudo");
    g_assert_null(rd_group_name(group, 12345));
    g_assert_null(rd_group_name(group, -1));
    g_assert_null(rd_group_name("", 0));
    g_assert_null(rd_group_name("\xff\xfe\n:::\n::\n", 0));
}

/* clang-format off */
/* ---- the assess rules, facts in, findings out (the whole probe table) ---- */


static void test_no_access(void)
{
    rd_facts f;
    navi31_host(&f, HEALTHY);
    const int64_t groups[] = { 1000, VIDEO_GID };
    set_user_groups(&f, groups, G_N_ELEMENTS(groups));
    result r;
    assess(&f, &r);
    assert_ids(&r.fs, "kfd.no-access render.no-access");
    const rd_finding *k = get(&r.fs, "kfd.no-access");
    if (k) {
        g_assert_cmpint(k->severity, ==, RD_SEV_ERROR);
        g_assert_cmpstr(k->summary, ==, "alice cannot open /dev/kfd read-write");
        assert_n_evidence(k, 2);
        assert_evidence(k, 0, "/dev/kfd: mode 0660, owner uid 0, group render");
        assert_evidence(k, 1, "alice (uid 1000, --user) is not in group render");
        g_assert_cmpstr(k->remedy, ==, "sudo usermod -aG render,video alice, then log out and back in.");
        g_assert_cmpstr(k->fix, ==, "group");
    }
    const rd_finding *rn = get(&r.fs, "render.no-access");
    if (rn) {
        g_assert_cmpstr(rn->summary, ==, "alice cannot open the GPU render nodes read-write");
        assert_evidence(rn, 0, "/dev/dri/renderD128: mode 0660, owner uid 0, group render");
        g_assert_cmpstr(rn->remedy, ==, "sudo usermod -aG render,video alice, then log out and back in.");
    }
    g_assert_cmpint(rd_findings_exit_status(&r.fs), ==, RD_EXIT_ERROR);
    result_free(&r);
    rd_facts_free(&f);

    /* root-only nodes: a udev rule, not a group */
    navi31_host(&f, HEALTHY);
    for (size_t i = 0; i < f.access.n_nodes; i++) {
        f.access.nodes[i].mode = 0600;
        f.access.nodes[i].gid = 0;
        free(f.access.nodes[i].group);
        f.access.nodes[i].group = xstrdup("root");
    }
    assess(&f, &r);
    assert_ids(&r.fs, "kfd.no-access render.no-access");
    k = get(&r.fs, "kfd.no-access");
    if (k) {
        g_assert_true(g_str_has_prefix(k->remedy, "The node belongs to root only"));
        g_assert_cmpstr(k->fix, ==, "udev");
    }
    result_free(&r);
    rd_facts_free(&f);
}


static void test_relogin_needed(void)
{
    rd_facts f;
    navi31_host(&f, HEALTHY);
    rd_user_facts *u = &f.access.users[0];
    u->session_known = true;
    const int64_t session[] = { 1000, VIDEO_GID };
    u->session_groups = gid_list(G_N_ELEMENTS(session), session);
    u->n_session_groups = G_N_ELEMENTS(session);
    result r;
    assess(&f, &r);
    assert_ids(&r.fs, "group.relogin-needed");
    const rd_finding *fd = get(&r.fs, "group.relogin-needed");
    if (fd) {
        g_assert_cmpint(fd->severity, ==, RD_SEV_WARNING);
        g_assert_cmpstr(fd->summary, ==, "alice is in the GPU group now, but this login session predates it");
        assert_n_evidence(fd, 3);
        assert_evidence(fd, 0, "/dev/kfd: mode 0660, owner uid 0, group render");
        assert_evidence(fd, 1, "/dev/dri/renderD128: mode 0660, owner uid 0, group render");
        assert_evidence(fd, 2, "group database: yes; this session's groups: no");
        assert_contains(fd->remedy, "`newgrp render`");
    }
    g_assert_cmpint(rd_findings_exit_status(&r.fs), ==, RD_EXIT_WARNING);
    result_free(&r);
    rd_facts_free(&f);
}


static void add_acl(rd_dev_node *n, const char *tag, int64_t id, int64_t perm)
{
    rd_acl_entry *e = ARRAY_APPEND(n->acl, n->n_acl);
    e->tag = xstrdup(tag);
    e->id = id;
    e->perm = perm;
}


/* The node's fields in the evidence and in the report's access.nodes[]. */
static void test_access_acl_fields(void)
{
    rd_facts f;
    navi31_host(&f, HEALTHY);
    rd_dev_node *kfd = &f.access.nodes[0];
    g_assert_cmpstr(kfd->path, ==, "/dev/kfd");
    add_acl(kfd, "user_obj", -1, 6);
    add_acl(kfd, "user", 1001, 6);
    add_acl(kfd, "group_obj", -1, 6);
    add_acl(kfd, "mask", -1, 6);
    add_acl(kfd, "other", -1, 0);
    const int64_t groups[] = { 1000 };
    set_user_groups(&f, groups, 1);
    result r;
    assess(&f, &r);
    const rd_finding *fd = get(&r.fs, "kfd.no-access");
    g_assert_nonnull(fd);
    assert_evidence(fd, 0,
                    "/dev/kfd: mode 0660, owner uid 0, group render, "
                    "ACL user::rw-,user:1001:rw-,group::rw-,mask::rw-,other::---");

    json_object *j = rd_report_json(&f, &r.view, &r.fs, 1);
    json_object *nodes = json_object_object_get(json_object_object_get(j, "access"), "nodes");
    g_assert_cmpuint(json_object_array_length(nodes), ==, f.access.n_nodes);
    g_assert_cmpstr(
        json_object_to_json_string_ext(json_object_array_get_idx(nodes, 0),
                                       JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE),
        ==,
        "{\"path\":\"/dev/kfd\",\"role\":\"kfd\",\"exists\":true,\"mode\":\"0660\",\"uid\":0,\"gid\":992,"
        "\"group\":\"render\",\"acl\":[{\"tag\":\"user_obj\",\"id\":null,\"perm\":\"rw-\"},"
        "{\"tag\":\"user\",\"id\":1001,\"perm\":\"rw-\"},{\"tag\":\"group_obj\",\"id\":null,\"perm\":\"rw-\"},"
        "{\"tag\":\"mask\",\"id\":null,\"perm\":\"rw-\"},{\"tag\":\"other\",\"id\":null,\"perm\":\"---\"}],"
        "\"error\":null}");
    json_object_put(j);
    result_free(&r);
    rd_facts_free(&f);
}


static void test_world_writable(void)
{
    rd_facts f;
    navi31_host(&f, HEALTHY);
    for (size_t i = 0; i < f.access.n_nodes; i++)
        f.access.nodes[i].mode = 0666;
    const int64_t groups[] = { 1000 };
    set_user_groups(&f, groups, 1);
    result r;
    assess(&f, &r);
    assert_ids(&r.fs, "access.world-writable");
    const rd_finding *fd = get(&r.fs, "access.world-writable");
    if (fd) {
        g_assert_cmpint(fd->severity, ==, RD_SEV_INFO);
        assert_n_evidence(fd, 2);
        assert_evidence(fd, 0, "/dev/kfd: mode 0666, owner uid 0, group render");
        assert_evidence(fd, 1, "/dev/dri/renderD128: mode 0666, owner uid 0, group render");
    }
    /* information only */
    g_assert_cmpint(rd_findings_exit_status(&r.fs), ==, RD_EXIT_OK);
    result_free(&r);
    rd_facts_free(&f);
}

static const rd_test_case tests[] = {
    { "/access/acl/parse", test_acl_parse },
    { "/access/acl/malformed", test_acl_malformed },
    { "/access/can-rw/mode", test_can_rw_mode },
    { "/access/can-rw/acl", test_can_rw_acl },
    { "/access/passwd", test_passwd },
    { "/access/group/list", test_group_list },
    { "/access/group/name", test_group_name },
    { "/assess/access/no-access", test_no_access },
    { "/assess/access/relogin-needed", test_relogin_needed },
    { "/assess/access/world-writable", test_world_writable },
    { "/assess/access/acl-fields", test_access_acl_fields },
};
/* clang-format on */

RD_TEST_MAIN_KNOWLEDGE(tests, true, &knowledge)
