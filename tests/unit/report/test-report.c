/* SPDX-License-Identifier: MIT */
/* Units of the fleet outputs: secret redaction, the ustar writer, and the
 * Prometheus and NFD renderers on hand-built GPU views (values that no
 * scenario produces: quotes in names, duplicate findings, odd versions). */
#include <glib.h>
#include <fcntl.h>
#include <sys/stat.h>

#include "facts.h"
#include "findings.h"
#include "gpus.h"
#include "redact.h"
#include "report.h"
#include "tar.h"
#include "util.h"
#include "testlib.h"

/* ---- redaction ---- */

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

/* ---- tar ---- */

static unsigned header_sum(const unsigned char *h)
{
    unsigned sum = 0;
    for (size_t i = 0; i < 512; i++)
        sum += (i >= 148 && i < 156) ? ' ' : h[i];
    return sum;
}

static void test_tar(void)
{
    char path[] = "/tmp/rd-test-tar-XXXXXX";
    int fd = mkstemp(path);
    g_assert_cmpint(fd, >=, 0);
    unlink(path);
    rd_tar t;
    rd_tar_init(&t, fd, 1700000000);
    g_assert_cmpint(rd_tar_add(&t, "d/hello.txt", "hello\n", 6, 0644), ==, 0);
    char longname[256];
    memset(longname, 'a', sizeof longname);
    memcpy(longname + 120, "/", 1);
    longname[200] = 0; /* 120-byte prefix, 79-byte name */
    g_assert_cmpint(rd_tar_add(&t, longname, "", 0, 0600), ==, 0);
    longname[200] = 'a';
    longname[255] = 0;
    g_assert_cmpint(rd_tar_add(&t, longname, "", 0, 0600), ==, -ENAMETOOLONG);
    g_assert_cmpint(rd_tar_finish(&t), ==, 0);
    g_assert_cmpuint(t.offset, ==, 512 + 512 + 512 + 1024);

    unsigned char buf[2560];
    g_assert_cmpint(pread(fd, buf, sizeof buf, 0), ==, (ssize_t)sizeof buf);
    close(fd);
    g_assert_cmpstr((char *)buf, ==, "d/hello.txt");
    g_assert_cmpstr((char *)buf + 124, ==, "00000000006"); /* size */
    g_assert_cmpstr((char *)buf + 136, ==, "14524770400"); /* mtime */
    g_assert_cmpstr((char *)buf + 100, ==, "0000644");
    g_assert_cmpint(buf[156], ==, '0');
    g_assert_cmpint(memcmp(buf + 257,
                           "ustar\0"
                           "00",
                           8),
                    ==, 0);
    g_assert_cmpuint(strtoul((char *)buf + 148, NULL, 8), ==, header_sum(buf));
    g_assert_cmpint(memcmp(buf + 512, "hello\n\0\0", 8), ==, 0);
    unsigned char *h2 = buf + 1024;
    g_assert_cmpint(strnlen((char *)h2 + 345, 155), ==, 120); /* prefix */
    g_assert_cmpint(strnlen((char *)h2, 100), ==, 79);
    g_assert_cmpuint(strtoul((char *)h2 + 148, NULL, 8), ==, header_sum(h2));
    for (size_t i = 1536; i < sizeof buf; i++)
        g_assert_cmpint(buf[i], ==, 0);
}

/* ---- renderers ---- */

typedef struct {
    rd_facts facts;
    rd_pci_device pci[3];
    rd_gpu gpus[3];
    rd_gpu_view view;
    rd_arch arch11, arch942;
    rd_findings findings;
} fixture;

static void fixture_init(fixture *x)
{
    memset(x, 0, sizeof *x);
    rd_facts_init(&x->facts);
    x->arch11 = (rd_arch){ .gfx = (char *)"gfx1100", .family = (char *)"gfx11" };
    x->arch942 = (rd_arch){ .gfx = (char *)"gfx1103", .family = (char *)"gfx11" };
    const char *addr[] = { "0000:03:00.0", "0000:04:00.0", "0000:64:00.0" };
    for (int i = 0; i < 3; i++) {
        x->pci[i] = (rd_pci_device){ .address = (char *)addr[i],
                                     .driver = (char *)"amdgpu",
                                     .current_link_speed = 16.0,
                                     .max_link_speed = 16.0,
                                     .current_link_width = i == 1 ? 4 : 16,
                                     .max_link_width = 16 };
        x->gpus[i] = (rd_gpu){ .pci = &x->pci[i], .link = &x->pci[i], .name = "AMD GPU" };
    }
    strcpy(x->gpus[0].gfx, "gfx1100");
    x->gpus[0].arch = &x->arch11;
    x->gpus[0].vram_bytes = 24 * (UINT64_C(1) << 30);
    x->gpus[0].name = "Radeon \"Pro\" \\ W7900\nX";
    strcpy(x->gpus[1].gfx, "gfx1100");
    x->gpus[1].arch = &x->arch11;
    x->gpus[1].vram_bytes = 20 * (UINT64_C(1) << 30) + 5;
    strcpy(x->gpus[2].gfx, "gfx1103");
    x->gpus[2].arch = &x->arch942;
    x->gpus[2].integrated = true;
    x->gpus[2].vram_bytes = 512 << 20;
    x->view = (rd_gpu_view){ .gpus = x->gpus, .n_gpus = 3 };
}

static void fixture_free(fixture *x)
{
    rd_findings_free(&x->findings);
    rd_facts_free(&x->facts);
}

static char *render(int (*fn)(FILE *, const rd_facts *, const rd_gpu_view *, const rd_findings *), fixture *x)
{
    char *buf = NULL;
    size_t size = 0;
    FILE *f = open_memstream(&buf, &size);
    g_assert_nonnull(f);
    g_assert_cmpint(fn(f, &x->facts, &x->view, &x->findings), ==, 0);
    fclose(f);
    return buf;
}

static void test_prometheus(void)
{
    fixture x;
    fixture_init(&x);
    rd_finding_add(&x.findings, "kfd.no-access", RD_SEV_ERROR, NULL, "user a");
    rd_finding_add(&x.findings, "kfd.no-access", RD_SEV_ERROR, NULL, "user b");
    rd_finding_add(&x.findings, "pcie.link-degraded", RD_SEV_WARNING, "0000:04:00.0", "x4");
    _cleanup_free_ char *out = render(rd_report_prometheus, &x);
    g_assert_nonnull(strstr(out,
                            "\nrocm_doctor_gpu_info{pci_address=\"0000:03:00.0\",gfx=\"gfx1100\",family=\"gfx11\","
                            "name=\"Radeon \\\"Pro\\\" \\\\ W7900\\nX\",driver=\"amdgpu\",integrated=\"false\"} 1\n"));
    /* the same id for the host twice: one series, counted */
    g_assert_nonnull(strstr(out, "\nrocm_doctor_finding{id=\"kfd.no-access\",severity=\"error\",gpu=\"\"} 2\n"));
    g_assert_null(strstr(strstr(out, "kfd.no-access") + 1, "kfd.no-access"));
    g_assert_nonnull(
        strstr(out, "\nrocm_doctor_finding{id=\"pcie.link-degraded\",severity=\"warning\",gpu=\"0000:04:00.0\"} 1\n"));
    g_assert_nonnull(strstr(out, "\nrocm_doctor_exit_status 2\n"));
    g_assert_nonnull(strstr(out, "\nrocm_doctor_findings{severity=\"error\"} 2\n"));
    g_assert_nonnull(strstr(out, "\nrocm_doctor_gpus 3\n"));
    g_assert_nonnull(strstr(out, "\nrocm_doctor_gpu_vram_bytes{pci_address=\"0000:04:00.0\"} 21474836485\n"));
    g_assert_nonnull(
        strstr(out, "\nrocm_doctor_gpu_pcie_link_width_lanes{pci_address=\"0000:04:00.0\",link=\"current\"} 4\n"));
    g_assert_nonnull(strstr(out, "\nrocm_doctor_gpu_pcie_link_speed_transfers_per_second{pci_address=\"0000:03:00.0\","
                                 "link=\"max\"} 16000000000\n"));
    g_assert_nonnull(strstr(out, "\n# TYPE rocm_doctor_gpu_kfd_nodes gauge\n"));
    fixture_free(&x);
}

/* Level 2: what the runtime double cannot produce: two HIP devices on one
 * PCI address (partitions), a device with no address, one not finished, one
 * with no code object, and nothing measured. */
static void test_prometheus_runtime(void)
{
    fixture x;
    fixture_init(&x);
    _cleanup_free_ char *level1 = render(rd_report_prometheus, &x);
    g_assert_null(strstr(level1, "rocm_doctor_gpu_kernel"));
    g_assert_null(strstr(level1, "bandwidth"));

    rd_runtime_facts *rt = &x.facts.runtime;
    rt->ran = true;
    rt->n_devices = 5;
    rt->devices = xcalloc(rt->n_devices, sizeof(rd_runtime_device));
    const char *addr[] = { "0000:03:00.0", "0000:03:00.0", NULL, "0000:04:00.0", "0000:64:00.0" };
    const char *result[] = { "ok", "wrong-result", "error", NULL, "no-code-object" };
    for (size_t i = 0; i < rt->n_devices; i++) {
        rd_runtime_device *d = &rt->devices[i];
        d->index = (int64_t)i;
        d->kfd_node = -1;
        d->pci_address = addr[i] ? xstrdup(addr[i]) : NULL;
        d->result = result[i] ? xstrdup(result[i]) : NULL;
    }
    rt->devices[0].launch_latency_us = 12.5;
    rt->devices[0].h2d_gbps = 25.25;
    rt->devices[0].d2h_gbps = 26.5;
    rt->devices[1].launch_latency_us = 7;
    _cleanup_free_ char *out = render(rd_report_prometheus, &x);
    g_assert_nonnull(strstr(out, "\n# TYPE rocm_doctor_gpu_kernel_ok gauge\n"
                                 "rocm_doctor_gpu_kernel_ok{pci_address=\"0000:03:00.0\",hip_device=\"0\"} 1\n"
                                 "rocm_doctor_gpu_kernel_ok{pci_address=\"0000:03:00.0\",hip_device=\"1\"} 0\n"
                                 "rocm_doctor_gpu_kernel_ok{pci_address=\"\",hip_device=\"2\"} 0\n"
                                 "rocm_doctor_gpu_kernel_ok{pci_address=\"0000:04:00.0\",hip_device=\"3\"} 0\n"
                                 "# HELP rocm_doctor_gpu_kernel_launch_latency_seconds "));
    g_assert_nonnull(
        strstr(out, "\n# TYPE rocm_doctor_gpu_kernel_launch_latency_seconds gauge\n"
                    "rocm_doctor_gpu_kernel_launch_latency_seconds{pci_address=\"0000:03:00.0\",hip_device=\"0\"} "
                    "1.2500000000000001e-05\n"
                    "rocm_doctor_gpu_kernel_launch_latency_seconds{pci_address=\"0000:03:00.0\",hip_device=\"1\"} "
                    "6.9999999999999999e-06\n# HELP "));
    g_assert_nonnull(strstr(out,
                            "\nrocm_doctor_gpu_host_to_device_bandwidth_bytes_per_second{pci_address=\"0000:03:00.0\","
                            "hip_device=\"0\"} 25250000000\n# HELP "));
    g_assert_nonnull(strstr(out,
                            "\nrocm_doctor_gpu_device_to_host_bandwidth_bytes_per_second{pci_address=\"0000:03:00.0\","
                            "hip_device=\"0\"} 26500000000\n"));
    /* the untested GPU has no series at all */
    g_assert_null(strstr(out, "hip_device=\"4\""));
    g_assert_true(g_str_has_suffix(out, "hip_device=\"0\"} 26500000000\n"));

    /* level 2 ran but HIP offered no device: no per-device metric */
    rd_facts_free(&x.facts);
    rd_facts_init(&x.facts);
    x.facts.runtime.ran = true;
    _cleanup_free_ char *none = render(rd_report_prometheus, &x);
    g_assert_null(strstr(none, "rocm_doctor_gpu_kernel"));
    fixture_free(&x);
}

static void test_nfd(void)
{
    fixture x;
    fixture_init(&x);
    x.facts.rocm.default_version = xstrdup("6.2.4");
    _cleanup_free_ char *out = render(rd_report_nfd, &x);
    /* the iGPU's carve-out does not count next to discrete GPUs; gfx and family once each */
    g_assert_cmpstr(strchr(out, '\n') + 1, ==,
                    "rocm-doctor.feature.node.kubernetes.io/health=ok\n"
                    "rocm-doctor.feature.node.kubernetes.io/gpu.count=3\n"
                    "rocm-doctor.feature.node.kubernetes.io/gpu.gfx.gfx1100=true\n"
                    "rocm-doctor.feature.node.kubernetes.io/gpu.gfx.gfx1103=true\n"
                    "rocm-doctor.feature.node.kubernetes.io/gpu.family.gfx11=true\n"
                    "rocm-doctor.feature.node.kubernetes.io/gpu.vram-gib=20\n"
                    "rocm-doctor.feature.node.kubernetes.io/rocm.version=6.2.4\n");
    free(out);
    /* a value a label cannot carry is left out, not mangled */
    free(x.facts.rocm.default_version);
    x.facts.rocm.default_version = xstrdup("6.2 (beta)");
    rd_finding_add(&x.findings, "pcie.link-degraded", RD_SEV_WARNING, "0000:04:00.0", "x4");
    out = render(rd_report_nfd, &x);
    g_assert_null(strstr(out, "rocm.version"));
    g_assert_nonnull(strstr(out, "/health=warning\n"));
    fixture_free(&x);
}

static const rd_test_case tests[] = {
    { "/fleet/redact/urls", test_redact_urls },
    { "/fleet/redact/keys", test_redact_keys },
    { "/fleet/redact/env-and-config", test_redact_env },
    { "/fleet/redact/private-key", test_redact_private_key },
    { "/fleet/redact/json", test_redact_json },
    { "/fleet/tar", test_tar },
    { "/fleet/prometheus", test_prometheus },
    { "/fleet/prometheus-runtime", test_prometheus_runtime },
    { "/fleet/nfd", test_nfd },
};

RD_TEST_MAIN(tests, false)
