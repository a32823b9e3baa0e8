/* SPDX-License-Identifier: MIT */
#include "distro.h"

#include <stddef.h>
#include <string.h>
#include "util.h"

/* os-release IDs by family. IDs not listed here are judged by ID_LIKE. */
static const struct {
    const char *id;
    rd_distro_family family;
} known_ids[] = {
    { "debian", RD_DISTRO_DEBIAN },   { "ubuntu", RD_DISTRO_DEBIAN },     { "linuxmint", RD_DISTRO_DEBIAN },
    { "pop", RD_DISTRO_DEBIAN },      { "rhel", RD_DISTRO_RHEL },         { "rocky", RD_DISTRO_RHEL },
    { "almalinux", RD_DISTRO_RHEL },  { "ol", RD_DISTRO_RHEL },           { "centos", RD_DISTRO_RHEL },
    { "fedora", RD_DISTRO_FEDORA },   { "sles", RD_DISTRO_SUSE },         { "sled", RD_DISTRO_SUSE },
    { "opensuse-leap", RD_DISTRO_SUSE }, { "opensuse-tumbleweed", RD_DISTRO_SUSE },
    { "opensuse", RD_DISTRO_SUSE },   { "suse", RD_DISTRO_SUSE },
};

static rd_distro_family family_of_word(const char *w, size_t n)
{
    for (size_t i = 0; i < ELEMENTSOF(known_ids); i++)
        if (strlen(known_ids[i].id) == n && strncmp(known_ids[i].id, w, n) == 0)
            return known_ids[i].family;
    return RD_DISTRO_UNKNOWN;
}

rd_distro_family rd_distro_family_of(const char *id, const char *id_like)
{
    rd_distro_family f = id ? family_of_word(id, strlen(id)) : RD_DISTRO_UNKNOWN;
    if (f != RD_DISTRO_UNKNOWN)
        return f;
    /* ID_LIKE lists the closest relative first: Rocky says "rhel centos fedora" */
    for (const char *p = id_like; p && *p;) {
        p += strspn(p, " \t");
        size_t n = strcspn(p, " \t");
        if (n == 0)
            break;
        f = family_of_word(p, n);
        if (f != RD_DISTRO_UNKNOWN)
            return f;
        p += n;
    }
    return RD_DISTRO_UNKNOWN;
}

const char *rd_distro_family_name(rd_distro_family f)
{
    switch (f) {
    case RD_DISTRO_DEBIAN:
        return "debian";
    case RD_DISTRO_RHEL:
        return "rhel";
    case RD_DISTRO_FEDORA:
        return "fedora";
    case RD_DISTRO_SUSE:
        return "suse";
    case RD_DISTRO_UNKNOWN:
        break;
    }
    return "unknown";
}

const char *rd_distro_package_manager(rd_distro_family f)
{
    switch (f) {
    case RD_DISTRO_DEBIAN:
        return "apt";
    case RD_DISTRO_RHEL:
    case RD_DISTRO_FEDORA:
        return "dnf";
    case RD_DISTRO_SUSE:
        return "zypper";
    case RD_DISTRO_UNKNOWN:
        break;
    }
    return NULL;
}
