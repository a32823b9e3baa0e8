/* SPDX-License-Identifier: MIT */
/* src/fix/installer.c's parsers: the names a directory index links to
 * (Apache's, nginx's, Python's http.server), and the repositories of an
 * installer's apt sources and dnf/zypper .repo files, mapped to the
 * configured base. The downloads and the packages are tested against a
 * stand-in server by tests/run/setup/test-installer.py. */
#include <glib.h>

#include "installer.h"
#include "util.h"
#include "testlib.h"

static rd_knowledge knowledge;

static char *joined(char **v)
{
    char *s = v ? strv_join(v, " ") : xstrdup("");
    strv_free(v);
    return s;
}

static void test_index_apache(void)
{
    const char *html =
        "<html><head><title>Index of /amdgpu-install</title></head><body><h1>Index of /amdgpu-install</h1>"
        "<table><tr><th><a href=\"?C=N;O=D\">Name</a></th><th><a href=\"?C=M;O=A\">Last modified</a></th></tr>"
        "<tr><td><a href=\"/\">Parent Directory</a></td></tr>"
        "<tr><td valign=\"top\"><img src=\"/icons/folder.gif\" alt=\"[DIR]\"></td><td><a href=\"6.4.1/\">6.4.1/</a>"
        "</td></tr><tr><td><a href=\"7.3/\">7.3/</a></td></tr><tr><td><a HREF=\"latest/\">latest/</a></td></tr>"
        "<tr><td><a href=\"amdgpu-install_7.3.70300-1_all.deb\">x</a></td></tr></table></body></html>";
    _cleanup_free_ char *got = joined(rd_installer_index_names(html));
    g_assert_cmpstr(got, ==, "6.4.1/ 7.3/ latest/ amdgpu-install_7.3.70300-1_all.deb");
}

static void test_index_others(void)
{
    /* nginx's autoindex: the parent as ../; Python's: ./-less names */
    const char *nginx = "<html><body><h1>Index of /x/</h1><hr><pre><a href=\"../\">../</a>\n"
                        "<a href=\"7.2.3/\">7.2.3/</a>   20-Nov-2026 14:03   -\n"
                        "<a href='./7.3/'>7.3/</a>\n<a href=7.4/>7.4/</a>\n"
                        "<a href=\"https://example.org/7.5/\">elsewhere</a><a href=\"/abs/\">abs</a>"
                        "<a href=\"a b/\">space</a><a href=\"7.3/\">again</a><a href=\"x/y/\">deep</a></pre>";
    _cleanup_free_ char *got = joined(rd_installer_index_names(nginx));
    g_assert_cmpstr(got, ==, "7.2.3/ 7.3/ 7.4/");
    _cleanup_free_ char *none = joined(rd_installer_index_names("<html>no links</html>"));
    g_assert_cmpstr(none, ==, "");
}

/* "family kind url suite components file" per repository */
static char *described(rd_installer_repo *repos, size_t n)
{
    strbuf b = { 0 };
    strbuf_append(&b, "");
    for (size_t i = 0; i < n; i++) {
        _cleanup_free_ char *c = repos[i].components ? strv_join(repos[i].components, ",") : xstrdup("-");
        strbuf_printf(&b, "%s %s %s %s %s %s\n", rd_repo_family_name(repos[i].family), rd_repo_kind_name(repos[i].kind),
                      repos[i].url, repos[i].suite ? repos[i].suite : "-", c, repos[i].file);
    }
    rd_installer_info info = { .repos = repos, .n_repos = n };
    rd_installer_info_done(&info);
    return strbuf_steal(&b);
}

static void test_sources_apt(void)
{
    rd_config c;
    rd_config_init(&c);
    c.mirror = xstrdup("https://mirror.example.org/radeon");
    rd_installer_repo *repos = NULL;
    size_t n = 0;
    rd_installer_parse_sources(
        &c, &knowledge, "/etc/apt/sources.list.d/rocm.list",
        "# ROCm 7.3\n"
        "deb [arch=amd64 signed-by=/etc/apt/keyrings/rocm.gpg] https://repo.radeon.com/rocm/apt/7.3 "
        "jammy main\n"
        "deb-src https://repo.radeon.com/rocm/apt/7.3 jammy main\n"
        "#deb https://repo.radeon.com/rocm/apt/7.2 jammy main\n"
        "  deb http://repo.radeon.com/graphics/7.3/ubuntu jammy main # the graphics stack\n"
        "deb https://archive.ubuntu.com/ubuntu jammy main\n"
        "deb https://repo.radeon.com/amdgpu-install/7.3/ubuntu jammy main\n"
        "deb https://repo.radeon.com/amdgpu/30.40/ubuntu\n",
        &repos, &n);
    _cleanup_free_ char *got = described(repos, n);
    g_assert_cmpstr(got, ==,
                    "apt rocm https://mirror.example.org/radeon/rocm/apt/7.3 jammy main "
                    "/etc/apt/sources.list.d/rocm.list\n"
                    "apt graphics https://mirror.example.org/radeon/graphics/7.3/ubuntu jammy main "
                    "/etc/apt/sources.list.d/rocm.list\n");
    rd_config_free(&c);
}

static void test_sources_repo(void)
{
    rd_config c;
    rd_config_init(&c);
    rd_installer_repo *repos = NULL;
    size_t n = 0;
    rd_installer_parse_sources(&c, &knowledge, "/etc/yum.repos.d/amdgpu.repo",
                               "[amdgpu]\nname=amdgpu\n"
                               "baseurl = https://repo.radeon.com/amdgpu/30.40/el/9.6/main/x86_64/ "
                               "https://other.example.org/x\n"
                               "enabled=1\ngpgcheck=1\n\n"
                               "[amdgpu-src]\nbaseurl=https://repo.radeon.com/amdgpu/30.40/el/9.6/main/SRPMS/\n"
                               "enabled=0\n"
                               "; a comment\n[epel]\nbaseurl=https://download.example.org/epel/9/\n"
                               "[rocm]\nenabled=1\nbaseurl=https://repo.radeon.com/rocm/el9/7.3/main\n",
                               &repos, &n);
    rd_installer_parse_sources(&c, &knowledge, "/etc/zypp/repos.d/rocm.repo",
                               "[rocm]\nname=ROCm 7.3\nbaseurl=https://repo.radeon.com/rocm/zyp/7.3/main\n"
                               "enabled=yes\n",
                               &repos, &n);
    _cleanup_free_ char *got = described(repos, n);
    /* no mirror: AMD's own base */
    g_assert_cmpstr(got, ==,
                    "el amdgpu https://repo.radeon.com/amdgpu/30.40/el/9.6/main/x86_64/ - - "
                    "/etc/yum.repos.d/amdgpu.repo\n"
                    "el rocm https://repo.radeon.com/rocm/el9/7.3/main - - /etc/yum.repos.d/amdgpu.repo\n"
                    "sles rocm https://repo.radeon.com/rocm/zyp/7.3/main - - /etc/zypp/repos.d/rocm.repo\n");
    rd_config_free(&c);
}

static const rd_test_case tests[] = {
    { "/installer/index/apache", test_index_apache },
    { "/installer/index/others", test_index_others },
    { "/installer/sources/apt", test_sources_apt },
    { "/installer/sources/repo", test_sources_repo },
};

RD_TEST_MAIN_KNOWLEDGE(tests, true, &knowledge)
