/* SPDX-License-Identifier: MIT */
/* src/shared/redact.c: secrets out of text, environment files, configuration
 * files and JSON, by the policy the caller hands in. */
#include <glib.h>

#include "redact.h"
#include "util.h"
#include "testlib.h"

static bool test_value_shown(const char *name, size_t len)
{
    static const char *const shown[] = { "PATH", "ROCM_PATH", "HIP_VISIBLE_DEVICES" };
    for (size_t i = 0; i < ELEMENTSOF(shown); i++)
        if (strlen(shown[i]) == len && strncmp(name, shown[i], len) == 0)
            return true;
    return false;
}

static const char *const test_hosts[] = { "repo.radeon.com", NULL };
static const rd_redact_policy policy = { .value_shown = test_value_shown, .public_hosts = test_hosts };

typedef char *(*redactor)(const rd_redact_policy *, const char *, unsigned *);

static void assert_redacted_by(redactor fn, const char *in, const char *want, unsigned want_count)
{
    unsigned n = 0;
    _cleanup_free_ char *out = fn(&policy, in, &n);
    g_assert_cmpstr(out, ==, want);
    g_assert_cmpuint(n, ==, want_count);
}

static void assert_redacted(const char *in, const char *want, unsigned want_count)
{
    assert_redacted_by(rd_redact_text, in, want, want_count);
}

static void test_redact_urls(void)
{
    /* scheme and host only, unless the host's paths are public */
    assert_redacted("deb [arch=amd64 signed-by=/etc/apt/keyrings/rocm.gpg] "
                    "https://bob:s3cret@repo.example.com/rocm/apt/6.2 jammy main\n",
                    "deb [arch=amd64 signed-by=/etc/apt/keyrings/rocm.gpg] "
                    "https://<redacted>@repo.example.com/<redacted> jammy main\n",
                    2);
    assert_redacted("URIs: https://ghp_abcdef123456@mirror.example/debian\n",
                    "URIs: https://<redacted>@mirror.example/<redacted>\n", 2);
    assert_redacted("deb https://repo.radeon.com/rocm/apt/6.2.4 jammy main\n",
                    "deb https://repo.radeon.com/rocm/apt/6.2.4 jammy main\n", 0);
    assert_redacted("https://u:p@REPO.radeon.com/rocm/apt/6.2?token=x#f (see)",
                    "https://<redacted>@REPO.radeon.com/rocm/apt/6.2?<redacted> (see)", 2);
    assert_redacted("hook https://hooks.slack.com/services/T0/B0/XYZ\n", "hook https://hooks.slack.com/<redacted>\n",
                    1);
    /* an @ in the path is not user info */
    assert_redacted("see https://example.com/a@b\n", "see https://example.com/<redacted>\n", 1);
    assert_redacted("proxy http://proxy.example:3128/ and http://h\n",
                    "proxy http://proxy.example:3128/ and http://h\n", 0);
}

static void test_redact_keys(void)
{
    assert_redacted("HF_TOKEN=hf_abc\nROCM_PATH=/opt/rocm\n", "HF_TOKEN=<redacted>\nROCM_PATH=/opt/rocm\n", 1);
    assert_redacted("export GITHUB_TOKEN=\"a b c\" # x\n", "export GITHUB_TOKEN=\"<redacted>\" # x\n", 1);
    assert_redacted("Authorization: Bearer eyJhbGciOi.x.y\n", "Authorization: <redacted>\n", 1);
    assert_redacted("curl -H 'Proxy-Authorization: Basic Zm9vOmJhcg==' url", "curl -H 'Proxy-Authorization: <redacted>",
                    1);
    assert_redacted("machine repo.example.com login bob password hunter2\n",
                    "machine repo.example.com login bob password <redacted>\n", 1);
    assert_redacted("db_password: hunter2, api_key=xyz&sig=abc&x=1\n",
                    "db_password: <redacted>, api_key=<redacted>&sig=<redacted>&x=1\n", 3);
    assert_redacted("{\"client_secret\": \"abc\"}", "{\"client_secret\": \"<redacted>\"}", 1);
    /* variables: values only of those the policy shows, whatever the name */
    assert_redacted(
        "MYSQL_PWD=x AZURE_KEY='y z';GPU_CREDS=q PATH=/bin make KERNELRELEASE=6.8\n",
        "MYSQL_PWD=<redacted> AZURE_KEY='<redacted>';GPU_CREDS=<redacted> PATH=/bin make KERNELRELEASE=<redacted>\n",
        4);
    /* not where a command starts, not a variable */
    assert_redacted("root=UUID=abc-1 a.b=C X==1\n", "root=UUID=abc-1 a.b=C X==1\n", 0);
    /* nothing secret about these */
    assert_redacted("options amdgpu ppfeaturemask=0xffffffff\nSigned-By: /usr/share/keyrings/rocm.gpg\n",
                    "options amdgpu ppfeaturemask=0xffffffff\nSigned-By: /usr/share/keyrings/rocm.gpg\n", 0);
    assert_redacted("PASSWORD=\n", "PASSWORD=\n", 0);
    assert_redacted("cannot read /etc/passwd: No such file or directory",
                    "cannot read /etc/passwd: No such file or directory", 0);
    assert_redacted("", "", 0);
}

static void test_redact_env(void)
{
    assert_redacted_by(rd_redact_env,
                       "# old key: abc\n"
                       "PATH=/usr/bin:/opt/rocm/bin\n"
                       "  export HIP_VISIBLE_DEVICES=\"0,1\"\n"
                       "MYSQL_PWD='p w'\n"
                       "export ROCM_PATH=/opt/rocm; export HIDDEN=x\n"
                       "if [ -d /opt/rocm ]; then\n"
                       "export FOO BAR\n"
                       "HIP_VISIBLE_DEVICES=https://u:p@h.example/x\n"
                       "EMPTY=\n"
                       "\n",
                       "# <redacted>\n"
                       "PATH=/usr/bin:/opt/rocm/bin\n"
                       "  export HIP_VISIBLE_DEVICES=\"0,1\"\n"
                       "MYSQL_PWD=<redacted>\n"
                       "export ROCM_PATH=/opt/rocm <redacted>\n"
                       "<redacted>\n"
                       "export FOO BAR\n"
                       "HIP_VISIBLE_DEVICES=https://<redacted>@h.example/<redacted>\n"
                       "EMPTY=\n"
                       "\n",
                       6);
    assert_redacted_by(rd_redact_config, "# token abc\noptions amdgpu x=1\n#\n  ## \n",
                       "# <redacted>\noptions amdgpu x=1\n#\n  #\n", 1);
}

static void test_redact_private_key(void)
{
    assert_redacted(
        "a\n-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXk\nAAAA\n-----END OPENSSH PRIVATE KEY-----\nz\n",
        "a\n-----<redacted> private key-----\nz\n", 1);
    /* public keys stay */
    assert_redacted("-----BEGIN PGP PUBLIC KEY BLOCK-----\nmQINBF\n", "-----BEGIN PGP PUBLIC KEY BLOCK-----\nmQINBF\n",
                    0);
}

static void test_redact_json(void)
{
    json_object *j = json_tokener_parse(
        "{\"env\":[{\"name\":\"HF_TOKEN\",\"value\":\"hf_x\"},{\"name\":\"HIP_VISIBLE_DEVICES\",\"value\":\"0\"},"
        "{\"name\":\"OTHER\",\"value\":\"v\"}],\"parameters\":[{\"name\":\"ppfeaturemask\",\"value\":\"0xfff7bfff\"}],"
        "\"api_key\":\"k\",\"cmdline\":\"root=/dev/sda1 amdgpu.gpu_recovery=1\",\"n\":5,"
        "\"lines\":[\"https://u:p@h/x\"]}");
    g_assert_nonnull(j);
    unsigned n = 0;
    rd_redact_json(&policy, j, &n);
    g_assert_cmpstr(
        json_object_to_json_string_ext(j, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE), ==,
        "{\"env\":[{\"name\":\"HF_TOKEN\",\"value\":\"<redacted>\"},{\"name\":\"HIP_VISIBLE_DEVICES\",\"value\":\"0\"},"
        "{\"name\":\"OTHER\",\"value\":\"<redacted>\"}],\"parameters\":[{\"name\":\"ppfeaturemask\",\"value\":"
        "\"0xfff7bfff\"}],"
        "\"api_key\":\"<redacted>\",\"cmdline\":\"root=/dev/sda1 amdgpu.gpu_recovery=1\",\"n\":5,"
        "\"lines\":[\"https://<redacted>@h/<redacted>\"]}");
    g_assert_cmpuint(n, ==, 5);
    json_object_put(j);
}

static void test_mask_url_passwords(void)
{
    static const struct {
        const char *in, *want;
    } cases[] = {
        { "mirror = http://user:SECRET@host/radeon", "mirror = http://user:*****@host/radeon" },
        { "https://u:p%40ss@h:8080/a and ftp://v:w@x", "https://u:*****@h:8080/a and ftp://v:*****@x" },
        /* the last @ of the authority ends the password */
        { "http://u:se@cret@h/p", "http://u:*****@h/p" },
        /* no password, or an @ only in the path: nothing to mask */
        { "http://user@host/x https://example.com/a@b:c", "http://user@host/x https://example.com/a@b:c" },
        { "no url here", "no url here" },
        { "'http://a:b@c' \"https://d:e@f\"", "'http://a:*****@c' \"https://d:*****@f\"" },
    };
    for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
        _cleanup_free_ char *got = rd_mask_url_passwords(cases[i].in);
        g_assert_cmpstr(got, ==, cases[i].want);
    }
}

static const rd_test_case tests[] = {
    { "/redact/mask-url-passwords", test_mask_url_passwords },
    { "/redact/urls", test_redact_urls },
    { "/redact/keys", test_redact_keys },
    { "/redact/env-and-config", test_redact_env },
    { "/redact/private-key", test_redact_private_key },
    /* the JSON of reports and facts */
    { "/redact/json", test_redact_json },
};

RD_TEST_MAIN(tests, false)
