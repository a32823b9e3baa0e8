/* SPDX-License-Identifier: MIT */
/* Distribution families from os-release ID and ID_LIKE: which package
 * manager, repository layout and kernel-header package a host has. One pure
 * function, shared by the probes, the fixes and the remedies. */
#pragma once

typedef enum {
    RD_DISTRO_UNKNOWN,
    RD_DISTRO_DEBIAN,   /* Debian, Ubuntu, Mint, Pop!_OS: dpkg, apt */
    RD_DISTRO_RHEL,     /* RHEL, Rocky, Alma, Oracle Linux, CentOS Stream: rpm, dnf */
    RD_DISTRO_FEDORA,   /* Fedora: rpm, dnf, its own ROCm packages */
    RD_DISTRO_SUSE,     /* SLES, openSUSE Leap/Tumbleweed: rpm, zypper */
} rd_distro_family;

/* The family of os-release ID (e.g. "rocky") and ID_LIKE (e.g. "rhel centos
 * fedora"); either may be NULL. ID wins over ID_LIKE, and the first ID_LIKE
 * word that names a family wins over later ones. */
rd_distro_family rd_distro_family_of(const char *id, const char *id_like);
/* "debian", "rhel", "fedora", "suse", "unknown" */
const char *rd_distro_family_name(rd_distro_family f);
/* The package manager a remedy names: "apt", "dnf", "zypper"; NULL for unknown. */
const char *rd_distro_package_manager(rd_distro_family f);
