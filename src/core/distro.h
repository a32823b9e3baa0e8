/* SPDX-License-Identifier: MIT */
/* Distribution families (from os-release ID and ID_LIKE) and the words a
 * remedy uses on each: the package manager, the initramfs and boot loader
 * commands, the firmware package. A remedy names only the host's own tools;
 * for a family it does not know it says what to do in words. Pure. */
#pragma once

#include <stdbool.h>
#include "facts.h"

typedef enum {
    RD_OS_UNKNOWN,
    RD_OS_DEBIAN, /* Debian, Ubuntu, Mint, Pop!_OS, ... */
    RD_OS_RHEL,   /* RHEL, Rocky, Alma, Oracle Linux, CentOS Stream */
    RD_OS_FEDORA,
    RD_OS_SUSE, /* SLES, openSUSE Leap and Tumbleweed */
} rd_os_family;

rd_os_family rd_os_family_of(const char *id, const char *id_like);
/* "debian", "rhel", "fedora", "suse", "unknown" */
const char *rd_os_family_name(rd_os_family f);
rd_os_family rd_os_family_from_name(const char *name);
/* The family of the facts: os.family when recorded, else derived from ID and
 * ID_LIKE (facts written by an older version). */
rd_os_family rd_os_family_facts(const rd_os_facts *os);
/* The package manager a remedy names: "apt", "dnf", "zypper"; NULL for
 * unknown. */
const char *rd_os_package_manager(rd_os_family f);
/* Ubuntu itself (the HWE kernels and linux-modules-extra are Ubuntu's). */
bool rd_os_is_ubuntu(const rd_os_facts *os);

typedef struct {
    const char *install;        /* "sudo apt install", NULL when unknown */
    const char *initramfs;      /* "sudo update-initramfs -u" */
    const char *firmware;       /* package with amdgpu's firmware blobs */
    const char *kernel_upgrade; /* how to get a newer kernel, in words */
} rd_distro;

/* Never NULL; the fields of the unknown family are NULL. */
const rd_distro *rd_distro_of(const rd_os_facts *os);

/* "Install PKG: `sudo apt install PKG`" for a known family; for an unknown one
 * "Install WORDS with the distribution's package manager". Returns a new
 * string. */
char *rd_distro_install_hint(const rd_os_facts *os, const char *debian_pkg, const char *rpm_pkg, const char *suse_pkg,
                             const char *words);
/* How to drop kernel command line arguments ARGS for good, in the host's
 * terms: update-grub, grubby, grub2-mkconfig; in words when unknown. */
/* How to get a newer kernel here, in words with the command where known
 * (Ubuntu: its HWE kernel): a new string. */
char *rd_distro_kernel_upgrade(const rd_os_facts *os);
char *rd_distro_cmdline_remove(const rd_os_facts *os, const char *args);
/* How to enable the repository with hip's Perl modules on this EL release,
 * as a sentence: PowerTools (powertools) on EL8, CRB (crb) from EL9 on, and on
 * RHEL CodeReady Linux Builder (codeready-builder-for-rhel-N-$(arch)-rpms)
 * through subscription-manager. */
char *rd_distro_crb_hint(const rd_os_facts *os);
/* How to add EPEL on this EL release, as a sentence. */
char *rd_distro_epel_hint(const rd_os_facts *os);
/* How to add ARGS to the kernel command line for good, in the host's terms. */
char *rd_distro_cmdline_add(const rd_os_facts *os, const char *args);
/* "`sudo apt purge PKG`", "`sudo dnf remove PKG`", ...; words when unknown. */
char *rd_distro_remove_hint(const rd_os_facts *os, const char *pkg);
/* Whether the fixes that run Debian's tools (update-initramfs, update-grub)
 * apply to this host. */
bool rd_distro_debian_tools(const rd_os_facts *os);
