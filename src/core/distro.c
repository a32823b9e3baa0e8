/* SPDX-License-Identifier: MIT */
#include "distro.h"

#include "util.h"

static const struct {
    const char *id;
    rd_os_family family;
} known_ids[] = {
    { "debian", RD_OS_DEBIAN }, { "ubuntu", RD_OS_DEBIAN },      { "linuxmint", RD_OS_DEBIAN },
    { "pop", RD_OS_DEBIAN },    { "raspbian", RD_OS_DEBIAN },    { "rhel", RD_OS_RHEL },
    { "rocky", RD_OS_RHEL },    { "almalinux", RD_OS_RHEL },     { "ol", RD_OS_RHEL },
    { "centos", RD_OS_RHEL },   { "fedora", RD_OS_FEDORA },      { "sles", RD_OS_SUSE },
    { "sled", RD_OS_SUSE },     { "opensuse-leap", RD_OS_SUSE }, { "opensuse-tumbleweed", RD_OS_SUSE },
    { "opensuse", RD_OS_SUSE }, { "suse", RD_OS_SUSE },
};

static rd_os_family family_of_word(const char *w, size_t len)
{
    for (size_t i = 0; i < ELEMENTSOF(known_ids); i++)
        if (strlen(known_ids[i].id) == len && strncmp(known_ids[i].id, w, len) == 0)
            return known_ids[i].family;
    return RD_OS_UNKNOWN;
}

rd_os_family rd_os_family_of(const char *id, const char *id_like)
{
    /* the ID first: Oracle Linux says ID_LIKE="fedora", Rocky "rhel centos fedora" */
    if (id) {
        rd_os_family f = family_of_word(id, strlen(id));
        if (f != RD_OS_UNKNOWN)
            return f;
    }
    for (const char *p = id_like; p && *p;) {
        p += strspn(p, " \t");
        size_t len = strcspn(p, " \t");
        rd_os_family f = family_of_word(p, len);
        if (f != RD_OS_UNKNOWN)
            return f;
        p += len;
    }
    return RD_OS_UNKNOWN;
}

static const char *const family_names[] = {
    [RD_OS_UNKNOWN] = "unknown", [RD_OS_DEBIAN] = "debian", [RD_OS_RHEL] = "rhel",
    [RD_OS_FEDORA] = "fedora",   [RD_OS_SUSE] = "suse",
};

const char *rd_os_family_name(rd_os_family f)
{
    return (size_t)f < ELEMENTSOF(family_names) ? family_names[f] : "unknown";
}

const char *rd_os_package_manager(rd_os_family f)
{
    static const char *const managers[] = {
        [RD_OS_UNKNOWN] = NULL, [RD_OS_DEBIAN] = "apt",  [RD_OS_RHEL] = "dnf",
        [RD_OS_FEDORA] = "dnf", [RD_OS_SUSE] = "zypper",
    };
    return (size_t)f < ELEMENTSOF(managers) ? managers[f] : NULL;
}

rd_os_family rd_os_family_from_name(const char *name)
{
    for (size_t i = 0; name && i < ELEMENTSOF(family_names); i++)
        if (streq(family_names[i], name))
            return (rd_os_family)i;
    return RD_OS_UNKNOWN;
}

rd_os_family rd_os_family_facts(const rd_os_facts *os)
{
    if (os->family)
        return rd_os_family_from_name(os->family);
    return rd_os_family_of(os->id, os->id_like);
}

bool rd_os_is_ubuntu(const rd_os_facts *os)
{
    return streq_ptr(os->id, "ubuntu");
}

/* Package names: Debian splits the non-free blobs into firmware-amd-graphics,
 * Ubuntu ships linux-firmware, Fedora splits amd-gpu-firmware out of
 * linux-firmware, SUSE kernel-firmware-amdgpu out of kernel-firmware. */
static const rd_distro distro_unknown = { 0 };
static const rd_distro distro_debian = { "sudo apt install", "sudo update-initramfs -u", "firmware-amd-graphics",
                                         "a newer kernel from backports (linux-image-amd64 from "
                                         "<codename>-backports)" };
static const rd_distro distro_ubuntu = { "sudo apt install", "sudo update-initramfs -u", "linux-firmware",
                                         "the HWE kernel (`sudo apt install linux-generic-hwe-<release>`)" };
static const rd_distro distro_debian_like = { "sudo apt install", "sudo update-initramfs -u", "linux-firmware",
                                              "a newer kernel from the distribution" };
static const rd_distro distro_rhel = { "sudo dnf install", "sudo dracut -f", "linux-firmware",
                                       "a newer minor release's kernel (`sudo dnf upgrade kernel`)" };
static const rd_distro distro_fedora = { "sudo dnf install", "sudo dracut -f", "amd-gpu-firmware",
                                         "the current Fedora kernel (`sudo dnf upgrade kernel`)" };
static const rd_distro distro_suse = { "sudo zypper install", "sudo dracut -f", "kernel-firmware-amdgpu",
                                       "a newer kernel (`sudo zypper update kernel-default`)" };

const rd_distro *rd_distro_of(const rd_os_facts *os)
{
    switch (rd_os_family_facts(os)) {
    case RD_OS_DEBIAN:
        if (streq_ptr(os->id, "debian"))
            return &distro_debian;
        return rd_os_is_ubuntu(os) ? &distro_ubuntu : &distro_debian_like;
    case RD_OS_RHEL: return &distro_rhel;
    case RD_OS_FEDORA: return &distro_fedora;
    case RD_OS_SUSE: return &distro_suse;
    case RD_OS_UNKNOWN:
    default: return &distro_unknown;
    }
}

char *rd_distro_install_hint(const rd_os_facts *os, const char *debian_pkg, const char *rpm_pkg, const char *suse_pkg,
                             const char *words)
{
    rd_os_family f = rd_os_family_facts(os);
    const char *pkg = f == RD_OS_DEBIAN ? debian_pkg : f == RD_OS_SUSE ? suse_pkg : rpm_pkg;
    const rd_distro *d = rd_distro_of(os);
    if (f == RD_OS_UNKNOWN || !pkg || !d->install)
        return xasprintf("install %s with the distribution's package manager", words);
    return xasprintf("`%s %s`", d->install, pkg);
}

char *rd_distro_cmdline_remove(const rd_os_facts *os, const char *args)
{
    switch (rd_os_family_facts(os)) {
    case RD_OS_DEBIAN:
        return xasprintf("remove %s from GRUB_CMDLINE_LINUX and GRUB_CMDLINE_LINUX_DEFAULT in /etc/default/grub "
                         "(and /etc/default/grub.d/), run `sudo update-grub`",
                         args);
    case RD_OS_RHEL:
    case RD_OS_FEDORA:
        return xasprintf("run `sudo grubby --update-kernel=ALL --remove-args=\"%s\"` (and remove it from "
                         "GRUB_CMDLINE_LINUX in /etc/default/grub)",
                         args);
    case RD_OS_SUSE:
        return xasprintf("remove %s from GRUB_CMDLINE_LINUX_DEFAULT in /etc/default/grub, run `sudo grub2-mkconfig "
                         "-o /boot/grub2/grub.cfg`",
                         args);
    case RD_OS_UNKNOWN:
    default: break;
    }
    return xasprintf("remove %s from the kernel command line in the boot loader's configuration, the way this "
                     "distribution sets it",
                     args);
}

char *rd_distro_cmdline_add(const rd_os_facts *os, const char *args)
{
    switch (rd_os_family_facts(os)) {
    case RD_OS_DEBIAN:
        return xasprintf("add %s to GRUB_CMDLINE_LINUX_DEFAULT in /etc/default/grub (or a file in "
                         "/etc/default/grub.d/), run `sudo update-grub`",
                         args);
    case RD_OS_RHEL:
    case RD_OS_FEDORA: return xasprintf("run `sudo grubby --update-kernel=ALL --args=\"%s\"`", args);
    case RD_OS_SUSE:
        return xasprintf("add %s to GRUB_CMDLINE_LINUX_DEFAULT in /etc/default/grub, run `sudo grub2-mkconfig -o "
                         "/boot/grub2/grub.cfg`",
                         args);
    case RD_OS_UNKNOWN:
    default: break;
    }
    return xasprintf("add %s to the kernel command line in the boot loader's configuration, the way this "
                     "distribution sets it",
                     args);
}

char *rd_distro_remove_hint(const rd_os_facts *os, const char *pkg)
{
    switch (rd_os_family_facts(os)) {
    case RD_OS_DEBIAN: return xasprintf("`sudo apt purge %s`", pkg);
    case RD_OS_RHEL:
    case RD_OS_FEDORA: return xasprintf("`sudo dnf remove %s`", pkg);
    case RD_OS_SUSE: return xasprintf("`sudo zypper remove %s`", pkg);
    case RD_OS_UNKNOWN:
    default: return xasprintf("remove %s with the package manager that installed it", pkg);
    }
}

bool rd_distro_debian_tools(const rd_os_facts *os)
{
    return rd_os_family_facts(os) == RD_OS_DEBIAN;
}

/* The EL major of the host ("8", "9", "10"); "9" when os-release does not say. */
static char *el_major(const rd_os_facts *os)
{
    const char *v = os->version_id && os->version_id[0] >= '0' && os->version_id[0] <= '9' ? os->version_id : "9";
    return xstrndup(v, strcspn(v, "."));
}

char *rd_distro_crb_hint(const rd_os_facts *os)
{
    _cleanup_free_ char *major = el_major(os);
    bool el8 = streq(major, "8");
    if (streq_ptr(os->id, "rhel"))
        return xasprintf("Enable CodeReady Linux Builder: `sudo subscription-manager repos --enable "
                         "codeready-builder-for-rhel-%s-$(arch)-rpms`. ",
                         major);
    if (streq_ptr(os->id, "ol"))
        return xasprintf("Enable CodeReady Builder: `sudo dnf config-manager --set-enabled ol%s_codeready_builder`. ",
                         major);
    return xasprintf("Enable %s: `sudo dnf config-manager --set-enabled %s`. ", el8 ? "PowerTools" : "CRB",
                     el8 ? "powertools" : "crb");
}

char *rd_distro_epel_hint(const rd_os_facts *os)
{
    _cleanup_free_ char *major = el_major(os);
    if (streq_ptr(os->id, "rhel"))
        return xasprintf("Add EPEL: `sudo dnf install https://dl.fedoraproject.org/pub/epel/"
                         "epel-release-latest-%s.noarch.rpm`. ",
                         major);
    return xstrdup("Add EPEL: `sudo dnf install epel-release`. ");
}

char *rd_distro_kernel_upgrade(const rd_os_facts *os)
{
    if (rd_os_is_ubuntu(os) && os->version_id)
        return xasprintf("the HWE kernel (`sudo apt install linux-generic-hwe-%s`)", os->version_id);
    const rd_distro *d = rd_distro_of(os);
    return xstrdup(d->kernel_upgrade ? d->kernel_upgrade : "a newer kernel the way this distribution provides one");
}
