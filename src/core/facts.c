/* SPDX-License-Identifier: MIT */
#include "facts.h"

#include <inttypes.h>
#include "rootfs.h"
#include "util.h"

void rd_facts_note_unreadable(rd_facts *f, const char *path, int r, const char *unchecked)
{
    if (r >= 0 || r == -ENOENT || r == -ENOTDIR)
        return;
    for (size_t i = 0; i < f->n_unreadable; i++)
        if (streq(f->unreadable[i].path, path))
            return;
    rd_unreadable_file *u = ARRAY_APPEND(f->unreadable, f->n_unreadable);
    u->path = xstrdup(path);
    u->error = xstrdup(rootfs_strerror(r));
    u->unchecked = xstrdup(unchecked);
}

const rd_pci_device *rd_pci_find(const rd_facts *f, const char *address)
{
    if (!address)
        return NULL;
    for (size_t i = 0; i < f->pci.n_devices; i++)
        if (f->pci.devices[i].address && streq(f->pci.devices[i].address, address))
            return &f->pci.devices[i];
    return NULL;
}

bool rd_kfd_prop(const rd_kfd_node *n, const char *key, uint64_t *ret)
{
    /* the first byte before the whole key: a node has some 60 properties
     * and this runs a few hundred times a check */
    for (size_t i = 0; i < n->n_properties; i++)
        if (n->properties[i].key[0] == key[0] && streq(n->properties[i].key, key)) {
            *ret = n->properties[i].value;
            return true;
        }
    return false;
}

uint64_t rd_kfd_prop_or(const rd_kfd_node *n, const char *key, uint64_t fallback)
{
    uint64_t v;
    return rd_kfd_prop(n, key, &v) ? v : fallback;
}

void rd_dev_node_mode(const rd_dev_node *n, char buf[static 8])
{
    snprintf(buf, 8, "%04o", (unsigned)(n->mode & 07777));
}

void rd_acl_perm(int64_t perm, char buf[static 4])
{
    buf[0] = perm & 4 ? 'r' : '-';
    buf[1] = perm & 2 ? 'w' : '-';
    buf[2] = perm & 1 ? 'x' : '-';
    buf[3] = 0;
}

char *rd_acl_entry_text(const rd_acl_entry *e)
{
    char perm[4];
    rd_acl_perm(e->perm, perm);
    const char *tag = strempty(e->tag);
    if (streq(tag, "user") || streq(tag, "group"))
        return xasprintf("%s:%" PRId64 ":%s", tag, e->id, perm);
    const char *base = streq(tag, "user_obj") ? "user" : streq(tag, "group_obj") ? "group" : tag;
    return xasprintf("%s::%s", base, perm);
}
