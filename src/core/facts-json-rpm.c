/* SPDX-License-Identifier: MIT */
/* The schema of the rpm facts (facts-rpm.h). */
#include "facts-json.h"

static const rd_field rpm_package_fields[] = {
    F(rd_rpm_package, name, RD_FT_STR),
    F(rd_rpm_package, version, RD_FT_STR),
    F(rd_rpm_package, arch, RD_FT_STR),
    F(rd_rpm_package, summary, RD_FT_STR),
};

static SCHEMA(rpm_package_schema, rd_rpm_package, rpm_package_fields);

static const rd_field rpm_fields[] = {
    F(rd_rpm_facts, present, RD_FT_BOOL), F(rd_rpm_facts, dbpath, RD_FT_STR),
    F(rd_rpm_facts, queried, RD_FT_BOOL), FA(rd_rpm_facts, packages, n_packages, rpm_package_schema),
    F(rd_rpm_facts, error, RD_FT_STR),
};

SCHEMA(rd_rpm_facts_schema, rd_rpm_facts, rpm_fields);

static const rd_field repo_fields[] = {
    F(rd_rpm_repo, file, RD_FT_STR),
    F(rd_rpm_repo, line, RD_FT_INT),
    F(rd_rpm_repo, id, RD_FT_STR),
    F(rd_rpm_repo, name, RD_FT_STR),
    F(rd_rpm_repo, baseurl, RD_FT_STR),
    F(rd_rpm_repo, url, RD_FT_STR),
    F(rd_rpm_repo, baseurl_line, RD_FT_INT),
    F(rd_rpm_repo, enabled, RD_FT_BOOL),
    F(rd_rpm_repo, gpgcheck, RD_FT_STR),
    F(rd_rpm_repo, gpgkey, RD_FT_STR),
    F(rd_rpm_repo, gpgkey_missing, RD_FT_BOOL),
    F(rd_rpm_repo, amd, RD_FT_BOOL),
};

static SCHEMA(repo_schema, rd_rpm_repo, repo_fields);

static const rd_field repo_config_fields[] = {
    F(rd_repo_config, manager, RD_FT_STR),       F(rd_repo_config, present, RD_FT_BOOL),
    F(rd_repo_config, releasever, RD_FT_STR),    F(rd_repo_config, basearch, RD_FT_STR),
    F(rd_repo_config, main_gpgcheck, RD_FT_STR), FA(rd_repo_config, repos, n_repos, repo_schema),
    F(rd_repo_config, problems, RD_FT_STRV),
};

static SCHEMA(repo_config_schema, rd_repo_config, repo_config_fields);

static const rd_field repos_fields[] = {
    FS(rd_repos_facts, dnf, repo_config_schema),
    FS(rd_repos_facts, zypper, repo_config_schema),
};

SCHEMA(rd_repos_facts_schema, rd_repos_facts, repos_fields);
