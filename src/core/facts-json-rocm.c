/* SPDX-License-Identifier: MIT */
/* The schema of the rocm facts (facts-rocm.h). */
#include "facts-json.h"

static const rd_field install_fields[] = {
    F(rd_rocm_install, path, RD_FT_STR),        F(rd_rocm_install, kind, RD_FT_STR),
    F(rd_rocm_install, version, RD_FT_STR),     F(rd_rocm_install, version_source, RD_FT_STR),
    F(rd_rocm_install, lib_dir, RD_FT_STR),     F(rd_rocm_install, libraries, RD_FT_STRV),
    F(rd_rocm_install, runtime, RD_FT_BOOL),    F(rd_rocm_install, has_bin, RD_FT_BOOL),
    F(rd_rocm_install, rocblas_dir, RD_FT_STR), F(rd_rocm_install, rocblas_gfx, RD_FT_STRV),
};

static SCHEMA(install_schema, rd_rocm_install, install_fields);

static const rd_field package_fields[] = {
    F(rd_package, name, RD_FT_STR),
    F(rd_package, version, RD_FT_STR),
    F(rd_package, source, RD_FT_STR),
};

static SCHEMA(package_schema, rd_package, package_fields);

/* path_dropins and ld_conf (whole lines) were replaced by these, with new
 * names so that an older facts file loads (its lines are left unread). */
static const rd_field path_dropin_fields[] = {
    F(rd_path_dropin, file, RD_FT_STR),
    F(rd_path_dropin, line, RD_FT_INT),
    F(rd_path_dropin, dirs, RD_FT_STRV),
};

static SCHEMA(path_dropin_schema, rd_path_dropin, path_dropin_fields);

static const rd_field ld_conf_fields[] = {
    F(rd_ld_conf_dir, file, RD_FT_STR),
    F(rd_ld_conf_dir, line, RD_FT_INT),
    F(rd_ld_conf_dir, dir, RD_FT_STR),
};

static SCHEMA(ld_conf_schema, rd_ld_conf_dir, ld_conf_fields);

static const rd_field rocm_fields[] = {
    F(rd_rocm_facts, checked, RD_FT_BOOL),
    F(rd_rocm_facts, default_version, RD_FT_STR),
    F(rd_rocm_facts, default_path, RD_FT_STR),
    FA(rd_rocm_facts, installs, n_installs, install_schema),
    F(rd_rocm_facts, opt_rocm, RD_FT_STR),
    F(rd_rocm_facts, opt_rocm_dangling, RD_FT_BOOL),
    F(rd_rocm_facts, path_env, RD_FT_STR),
    FA(rd_rocm_facts, path_dropin_dirs, n_path_dropin_dirs, path_dropin_schema),
    FA(rd_rocm_facts, ld_conf_dirs, n_ld_conf_dirs, ld_conf_schema),
    FA(rd_rocm_facts, packages, n_packages, package_schema),
    F(rd_rocm_facts, error, RD_FT_STR),
};

SCHEMA(rd_rocm_facts_schema, rd_rocm_facts, rocm_fields);
