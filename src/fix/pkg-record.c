/* SPDX-License-Identifier: MIT */
/* The package record as JSON: the one writer and the one reader of what
 * the plan says a transaction will do ("packages", the journal's
 * "planned") and of what a run did (the journal's four lists, read again
 * by undo and fix --status). */
#include "pkg.h"
#include "json-util.h"
#include "util.h"

const rd_pkg_kind rd_pkg_kinds[RD_PKG_OP_MAX] = {
    [RD_PKG_INSTALL] = { "install", "installed" },
    [RD_PKG_UPGRADE] = { "upgrade", "upgraded" },
    [RD_PKG_DOWNGRADE] = { "downgrade", "downgraded" },
    [RD_PKG_REMOVE] = { "remove", "removed" },
};

const char *rd_pkg_op_name(rd_pkg_op op)
{
    return op < RD_PKG_OP_MAX ? rd_pkg_kinds[op].verb : rd_pkg_kinds[RD_PKG_INSTALL].verb;
}

int rd_pkg_op_from_name(const char *verb)
{
    for (size_t k = 0; verb && k < RD_PKG_OP_MAX; k++)
        if (streq(verb, rd_pkg_kinds[k].verb))
            return (int)k;
    return -EINVAL;
}

json_object *rd_pkg_change_to_json(const rd_pkg_change *x, bool with_op)
{
    json_object *o = json_object_new_object();
    if (with_op)
        rd_json_set_str(o, "op", rd_pkg_op_name(x->op));
    rd_json_set_str(o, "name", x->name);
    rd_json_set_str(o, "version", x->version);
    if (x->old_version)
        rd_json_set_str(o, "old_version", x->old_version);
    if (x->size)
        rd_json_set_int(o, "size", (int64_t)x->size);
    return o;
}

json_object *rd_pkg_changes_to_json(const rd_pkg_changes *c)
{
    json_object *a = json_object_new_array();
    for (size_t i = 0; i < c->n; i++)
        json_object_array_add(a, rd_pkg_change_to_json(&c->items[i], true));
    return a;
}

void rd_pkg_changes_to_lists(const rd_pkg_changes *c, json_object *o)
{
    for (size_t k = 0; k < RD_PKG_OP_MAX; k++) {
        json_object *a = json_object_new_array();
        for (size_t i = 0; i < c->n; i++)
            if (c->items[i].op == (rd_pkg_op)k)
                json_object_array_add(a, rd_pkg_change_to_json(&c->items[i], false));
        json_object_object_add(o, rd_pkg_kinds[k].done, a);
    }
}

int rd_pkg_change_from_json(json_object *o, rd_pkg_op op, rd_pkg_change *ret)
{
    const char *name = rd_json_get_str(o, "name"), *verb = rd_json_get_str(o, "op");
    int k = verb ? rd_pkg_op_from_name(verb) : (int)op;
    if (!name || k < 0)
        return -EBADMSG;
    int64_t size = rd_json_get_int(o, "size", 0);
    *ret = (rd_pkg_change){
        .op = (rd_pkg_op)k,
        .name = xstrdup(name),
        .version = xstrdup_or_null(rd_json_get_str(o, "version")),
        .old_version = xstrdup_or_null(rd_json_get_str(o, "old_version")),
        .size = size > 0 ? (uint64_t)size : 0,
    };
    return 0;
}

void rd_pkg_change_clear(rd_pkg_change *x)
{
    free(x->name);
    free(x->version);
    free(x->old_version);
    *x = (rd_pkg_change){ 0 };
}

rd_pkg_change *rd_pkg_changes_add(rd_pkg_changes *c, const rd_pkg_change *x)
{
    rd_pkg_change *y = ARRAY_APPEND(c->items, c->n);
    *y = (rd_pkg_change){
        .op = x->op,
        .name = xstrdup(x->name),
        .version = xstrdup_or_null(x->version),
        .old_version = xstrdup_or_null(x->old_version),
        .size = x->size,
    };
    return y;
}

/* The records of array a appended to c: of kind op where one has no
 * "op", or all of kind op (a list of that kind). */
static void read_array(json_object *a, rd_pkg_op op, bool list, rd_pkg_changes *c)
{
    for (size_t i = 0; a && i < json_object_array_length(a); i++) {
        rd_pkg_change x;
        if (rd_pkg_change_from_json(json_object_array_get_idx(a, i), op, &x) < 0)
            continue;
        if (list)
            x.op = op;
        *ARRAY_APPEND(c->items, c->n) = x;
    }
}

int rd_pkg_changes_from_json(json_object *a, rd_pkg_changes *ret)
{
    if (!json_object_is_type(a, json_type_array))
        return -EBADMSG;
    read_array(a, RD_PKG_INSTALL, false, ret);
    return 0;
}

int rd_pkg_changes_from_lists(json_object *o, rd_pkg_changes *ret)
{
    if (!rd_json_get_array(o, rd_pkg_kinds[RD_PKG_INSTALL].done))
        return -ENOENT;
    for (size_t k = 0; k < RD_PKG_OP_MAX; k++)
        read_array(rd_json_get_array(o, rd_pkg_kinds[k].done), (rd_pkg_op)k, true, ret);
    return 0;
}
