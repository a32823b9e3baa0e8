/* SPDX-License-Identifier: MIT */
/* Facts: rpm hosts: the packages installed and the repositories configured
 * (dnf, zypper). */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* One installed rpm package that the checks care about. */
typedef struct {
    char *name;
    char *version; /* VERSION-RELEASE, "6.2.4.60204-139.el9" */
    char *arch;
    char *summary; /* gpg-pubkey entries: the key's user id */
} rd_rpm_package;

typedef struct {
    bool present;             /* an rpm database is in the root */
    char *dbpath;             /* where: /var/lib/rpm, /usr/lib/sysimage/rpm */
    bool queried;             /* `rpm -qa` ran and answered */
    rd_rpm_package *packages; /* the ROCm, driver, kernel-devel, key and prerequisite packages */
    size_t n_packages;
    char *error; /* why the database could not be read ("rpm: not found") */
} rd_rpm_facts;

/* One repository section of a dnf (.repo in /etc/yum.repos.d) or zypper
 * (/etc/zypp/repos.d) file. */
typedef struct {
    char *file;
    int64_t line; /* the [id] line */
    char *id;
    char *name;
    char *baseurl; /* as written (the first URL) */
    char *url;     /* with $releasever, $basearch and the vars expanded */
    int64_t baseurl_line;
    bool enabled;
    char *gpgcheck;      /* the value as written; NULL: not set in the section */
    char *gpgkey;        /* as written */
    bool gpgkey_missing; /* gpgkey names a file:// path that is not in the root */
    bool amd;            /* baseurl on AMD's host */
} rd_rpm_repo;

typedef struct {
    char *manager;    /* "dnf" or "zypper" */
    bool present;     /* its repository directory exists */
    char *releasever; /* what $releasever expands to */
    char *basearch;
    char *main_gpgcheck; /* dnf.conf [main] gpgcheck as written; NULL: not set */
    rd_rpm_repo *repos;
    size_t n_repos;
    char **problems; /* "FILE:LINE: what is wrong" for lines dnf/zypper would reject */
} rd_repo_config;

typedef struct {
    rd_repo_config dnf, zypper;
} rd_repos_facts;
