/* SPDX-License-Identifier: MIT */
/* A ROCm release the repository table (conf/repos.ini) does not list yet,
 * read from AMD's own installer package on the repository base (AMD's
 * server or the configured mirror): the index of amdgpu-install/, the
 * release's folder, the package for this OS, and the repository files it
 * carries (its conffiles), taken out of the package without running any of
 * its scripts. The folders it names are what AMD's installer would write;
 * only the package manager's fetch of their signed indexes under AMD's
 * pinned key makes them trusted.
 *
 * Tools, on the host that runs rocm-doctor: curl; for a .deb, GNU tar (the
 * ar archive is read here, its data.tar.xz/.gz/.zst by tar, which calls xz
 * or zstd); for an .rpm, rpm2archive (rpm 4.13 and later: every EL 8+ and
 * SLES 15), else rpm2cpio and cpio. */
#pragma once

#include <stddef.h>
#include "config.h"
#include "facts.h"
#include "knowledge.h"

typedef struct {
    rd_repo_family family;
    rd_repo_kind kind; /* RD_REPO_ROCM, RD_REPO_AMDGPU or RD_REPO_GRAPHICS (from the path) */
    char *url;         /* the folder, https://repo.radeon.com mapped to the configured base */
    char *suite;       /* apt: the suite; NULL for rpm */
    char **components; /* apt: {"main"}; NULL for rpm */
    char *file;        /* the conffile it was read from: "/etc/apt/sources.list.d/rocm.list" */
} rd_installer_repo;

typedef struct {
    char *release;       /* "7.3.0" */
    char *folder;        /* the release's folder under amdgpu-install/: "7.3" */
    char *installer_url; /* the package read, on the configured base */
    rd_installer_repo *repos;
    size_t n_repos;
} rd_installer_info;

/* The folders of ROCm `release` ("7.3.0"; "7.3" is 7.3.0) for the OS of
 * `os` (os-release ID, VERSION_ID, VERSION_CODENAME; the family: Ubuntu
 * and Debian by apt, EL by dnf, SLES by zypper), read from the installer
 * package on rd_repo_base(config). k: support.ini gives Debian's Ubuntu
 * suite (the newest release that lists the codename), repos.ini classifies
 * the folders. 0 and *ret filled, or:
 *   -ENOENT    the server has no such release (the reason lists the ones it
 *              has), or no installer of it for this OS (it lists the OS
 *              folders the release has);
 *   -EHOSTUNREACH, -ETIMEDOUT, -EPROTO, -EACCES, -EIO
 *              the server cannot be reached or refuses (the reason names it
 *              and says what curl said);
 *   -EBADMSG   the package is malformed (truncated, not a .deb or .rpm, no
 *              repository file, no folder of AMD's in it);
 *   -EOPNOTSUPP an OS family AMD ships no installer for.
 * *ret_reason says why in every case. Runs no script of the package. */
int rd_installer_read(const rd_config *config, const rd_knowledge *k, const rd_os_facts *os, const char *release,
                      rd_installer_info *ret, char **ret_reason);
void rd_installer_info_done(rd_installer_info *info);
#define _cleanup_installer_info_ __attribute__((cleanup(rd_installer_info_done)))

/* The releases the installers' index (amdgpu-install/, as repos.ini's
 * installer paths name it) of rd_repo_base(config) lists
 * (its subfolders that are version numbers), as "X.Y.Z" ("7.3" is 7.3.0),
 * oldest first, each once; moving folders ("latest") are left out. 0, or
 * the errors of rd_installer_read for reaching the server. Free with
 * strv_free. */
int rd_installer_list_releases(const rd_config *config, const rd_knowledge *k, char ***ret_releases, char **ret_reason);

/* Parsers, for the tests: the names an HTML directory index links to
 * (Apache's, nginx's, Python's): relative names of one path component,
 * subfolders with their trailing '/'; sort links, the parent and absolute
 * links left out. */
char **rd_installer_index_names(const char *html);
/* The repositories of one apt sources file (one-line format) or one
 * dnf/zypper .repo file (its text, named `file` as on the target),
 * appended to *repos; AMD's folders only, mapped to config's base;
 * disabled ones and comments skipped. */
void rd_installer_parse_sources(const rd_config *config, const rd_knowledge *k, const char *file, const char *text,
                                rd_installer_repo **repos, size_t *n_repos);
