/* SPDX-License-Identifier: MIT */
/* The installer reader (src/fix/installer.c) against a server, for
 * test-installer.py:
 *   installer-read list BASE
 *   installer-read read BASE RELEASE ID VERSION_ID [CODENAME]
 * prints "r=0" or "r=ENAME" and "reason=...", then what was read, one line
 * each: "release=", "folder=", "installer=", and per folder
 * "repo=FAMILY KIND URL suite=S components=C file=F". BASE is the
 * configured mirror; the tables come from ROCM_DOCTOR_DATA_DIR. */
#include <stdio.h>
#include "distro.h"
#include "installer.h"
#include "util.h"

int main(int argc, char **argv)
{
    if (argc < 3 || (streq(argv[1], "read") && argc < 6)) {
        fprintf(stderr, "usage: installer-read list BASE | read BASE RELEASE ID VERSION_ID [CODENAME]\n");
        return 2;
    }
    rd_config config;
    rd_config_init(&config);
    config.mirror = xstrdup(argv[2]);
    rd_knowledge k = { 0 };
    _cleanup_free_ char *err = NULL, *reason = NULL;
    const char *data = getenv("ROCM_DOCTOR_DATA_DIR");
    if (rd_knowledge_load(data ? data : "conf", &k, &err) < 0) {
        fprintf(stderr, "cannot load the tables: %s\n", err);
        return 2;
    }
    int r;
    if (streq(argv[1], "list")) {
        _cleanup_strv_free_ char **releases = NULL;
        r = rd_installer_list_releases(&config, &k, &releases, &reason);
        printf("r=%s\n", r < 0 ? errno_name(-r) : "0");
        if (r < 0)
            printf("reason=%s\n", reason);
        for (size_t i = 0; releases && releases[i]; i++)
            printf("release=%s\n", releases[i]);
    } else {
        rd_os_facts os = { .id = argv[4], .version_id = argv[5], .version_codename = argc > 6 ? argv[6] : NULL };
        os.family = (char *)rd_os_family_name(rd_os_family_of(os.id, NULL));
        _cleanup_installer_info_ rd_installer_info info = { 0 };
        r = rd_installer_read(&config, &k, &os, argv[3], &info, &reason);
        printf("r=%s\n", r < 0 ? errno_name(-r) : "0");
        if (r < 0)
            printf("reason=%s\n", reason);
        else {
            printf("release=%s\nfolder=%s\ninstaller=%s\n", info.release, info.folder, info.installer_url);
            for (size_t i = 0; i < info.n_repos; i++) {
                const rd_installer_repo *p = &info.repos[i];
                _cleanup_free_ char *comps = p->components ? strv_join(p->components, ",") : xstrdup("-");
                printf("repo=%s %s %s suite=%s components=%s file=%s\n", rd_repo_family_name(p->family),
                       rd_repo_kind_name(p->kind), p->url, p->suite ? p->suite : "-", comps, p->file);
            }
        }
    }
    rd_config_free(&config);
    rd_knowledge_free(&k);
    return 0;
}
