/* SPDX-License-Identifier: MIT */
/* The environment area: the parsers of environment files, override values,
 * visible-devices lists and target lists, and the assess rules of the env,
 * container, tuning and torch probes (facts in, findings out). */
#include <glib.h>
#include <glib/gstdio.h>
#include <unistd.h>

#include "testlib.h"
#include "check.h"
#include "registry.h"
#include "context.h"
#include "env.h"
#include "facts.h"
#include "findings.h"
#include "util.h"

static rd_knowledge knowledge;

static void free_vars(rd_env_var *v, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        free(v[i].name);
        free(v[i].value);
        free(v[i].source);
    }
    free(v);
}

static void check_var(const rd_env_var *v, const char *name, const char *value, int64_t line)
{
    g_assert_cmpstr(v->name, ==, name);
    g_assert_cmpstr(v->value, ==, value);
    g_assert_cmpint(v->line, ==, line);
}

static void test_parse_pam(void)
{
    rd_env_var *v = NULL;
    size_t n = 0;
    rd_env_parse_text("PATH=\"/usr/bin:/bin\"\n"
                      "# HSA_OVERRIDE_GFX_VERSION=9.0.0\n"
                      "HSA_OVERRIDE_GFX_VERSION=\"10.3.0\"\n"
                      "  export ROCR_VISIBLE_DEVICES=0\n"
                      "HSA_OVERRIDE_GFX_VERSION_OLLAMA=11.0.0\n"
                      "HIP_VISIBLE_DEVICES='1'\n"
                      "GPU_TARGETS=$X\n",
                      RD_ENV_SYNTAX_PAM, "/etc/environment", &v, &n);
    g_assert_cmpuint(n, ==, 4);
    check_var(&v[0], "HSA_OVERRIDE_GFX_VERSION", "10.3.0", 3);
    check_var(&v[1], "ROCR_VISIBLE_DEVICES", "0", 4);
    check_var(&v[2], "HIP_VISIBLE_DEVICES", "1", 6);
    /* pam_env does not expand: the value is what the process gets */
    check_var(&v[3], "GPU_TARGETS", "$X", 7);
    g_assert_cmpstr(v[0].source, ==, "/etc/environment");
    free_vars(v, n);
}

static void test_parse_systemd(void)
{
    rd_env_var *v = NULL;
    size_t n = 0;
    rd_env_parse_text("PYTORCH_ROCM_ARCH=gfx1030\nAMDGPU_TARGETS=${PYTORCH_ROCM_ARCH}\n; comment\n",
                      RD_ENV_SYNTAX_SYSTEMD, "/etc/environment.d/90-rocm.conf", &v, &n);
    g_assert_cmpuint(n, ==, 1);
    check_var(&v[0], "PYTORCH_ROCM_ARCH", "gfx1030", 1);
    free_vars(v, n);
}

static void test_parse_shell(void)
{
    rd_env_var *v = NULL;
    size_t n = 0;
    rd_env_parse_text("export HSA_OVERRIDE_GFX_VERSION=10.3.0 ROCR_VISIBLE_DEVICES=GPU-a1ffc9d1799c317f\n"
                      "HIP_VISIBLE_DEVICES=1 python3 train.py\n"
                      "if [ -d /opt/rocm ]; then export PYTORCH_ROCM_ARCH=\"gfx90a;gfx942\"; fi\n"
                      "export AMDGPU_TARGETS=$(rocm_agent_enumerator)\n"
                      "declare -x HSA_OVERRIDE_GFX_VERSION_1='11.0.0'  # the 7900 XTX\n"
                      "export GPU_TARGETS=\"gfx1100\\\"\" \n"
                      "echo HIP_VISIBLE_DEVICES=0\n"
                      "CUDA_VISIBLE_DEVICES=0; export CUDA_VISIBLE_DEVICES\n",
                      RD_ENV_SYNTAX_SHELL, "/home/alice/.bashrc", &v, &n);
    g_assert_cmpuint(n, ==, 6);
    check_var(&v[0], "HSA_OVERRIDE_GFX_VERSION", "10.3.0", 1);
    check_var(&v[1], "ROCR_VISIBLE_DEVICES", "GPU-a1ffc9d1799c317f", 1);
    check_var(&v[2], "PYTORCH_ROCM_ARCH", "gfx90a;gfx942", 3);
    check_var(&v[3], "HSA_OVERRIDE_GFX_VERSION_1", "11.0.0", 5);
    check_var(&v[4], "GPU_TARGETS", "gfx1100\"", 6);
    check_var(&v[5], "CUDA_VISIBLE_DEVICES", "0", 8);
    free_vars(v, n);
}

/* pam_env ends a value at '#' and keeps the blanks before it; libhsakmt then
 * rejects "10.3.0 ". The comment must not become part of the value. */
static void test_parse_pam_comment(void)
{
    rd_env_var *v = NULL;
    size_t n = 0;
    rd_env_parse_text("HSA_OVERRIDE_GFX_VERSION=10.3.0# RX 6700 XT\n"
                      "ROCR_VISIBLE_DEVICES=\"0\" # the dGPU\n"
                      "HIP_VISIBLE_DEVICES=1\r\n"
                      "PYTORCH_ROCM_ARCH=\"gfx1030\"\n",
                      RD_ENV_SYNTAX_PAM, "/etc/environment", &v, &n);
    g_assert_cmpuint(n, ==, 4);
    check_var(&v[0], "HSA_OVERRIDE_GFX_VERSION", "10.3.0", 1);
    /* pam_env keeps the closing quote when it is not the last character */
    check_var(&v[1], "ROCR_VISIBLE_DEVICES", "0\" ", 2);
    check_var(&v[2], "HIP_VISIBLE_DEVICES", "1\r", 3);
    check_var(&v[3], "PYTORCH_ROCM_ARCH", "gfx1030", 4);
    free_vars(v, n);
}

/* Within one file the last assignment holds, and unset removes the earlier
 * ones: a stale line must not be reported. */
static void test_parse_reassigned(void)
{
    rd_env_var *v = NULL;
    size_t n = 0;
    rd_env_parse_text("export HSA_OVERRIDE_GFX_VERSION=11.0.0\n"
                      "export ROCR_VISIBLE_DEVICES=3\n"
                      "export HSA_OVERRIDE_GFX_VERSION=10.3.0\n"
                      "unset -v ROCR_VISIBLE_DEVICES HIP_VISIBLE_DEVICES\n"
                      "export PYTORCH_ROCM_ARCH=gfx900; unset PYTORCH_ROCM_ARCH; export PYTORCH_ROCM_ARCH=gfx1030\n",
                      RD_ENV_SYNTAX_SHELL, "/home/alice/.bashrc", &v, &n);
    g_assert_cmpuint(n, ==, 2);
    check_var(&v[0], "HSA_OVERRIDE_GFX_VERSION", "10.3.0", 3);
    check_var(&v[1], "PYTORCH_ROCM_ARCH", "gfx1030", 5);
    free_vars(v, n);

    /* another file's definitions are not touched by this one's unset */
    v = NULL;
    n = 0;
    rd_env_parse_text("HSA_OVERRIDE_GFX_VERSION=11.0.0\nHSA_OVERRIDE_GFX_VERSION=10.3.0\n", RD_ENV_SYNTAX_PAM,
                      "/etc/environment", &v, &n);
    rd_env_parse_text("unset HSA_OVERRIDE_GFX_VERSION\n", RD_ENV_SYNTAX_SHELL, "/home/alice/.profile", &v, &n);
    g_assert_cmpuint(n, ==, 1);
    check_var(&v[0], "HSA_OVERRIDE_GFX_VERSION", "10.3.0", 2);
    free_vars(v, n);
}

static void test_override_parse(void)
{
    unsigned a, b, c;
    g_assert_cmpint(rd_gfx_override_parse("10.3.0", &a, &b, &c), ==, 0);
    g_assert_cmpuint(a, ==, 10);
    g_assert_cmpuint(b, ==, 3);
    g_assert_cmpuint(c, ==, 0);
    g_assert_cmpint(rd_gfx_override_parse(" 11.0.2", &a, &b, &c), ==, 0);
    g_assert_cmpuint(c, ==, 2);
    g_assert_cmpint(rd_gfx_override_parse("10.3", &a, &b, &c), ==, -EINVAL);
    g_assert_cmpint(rd_gfx_override_parse("10.3.0 ", &a, &b, &c), ==, -EINVAL);
    g_assert_cmpint(rd_gfx_override_parse("gfx1030", &a, &b, &c), ==, -EINVAL);
    g_assert_cmpint(rd_gfx_override_parse("10.3.0.1", &a, &b, &c), ==, -EINVAL);
    g_assert_cmpint(rd_gfx_override_parse("", &a, &b, &c), ==, -EINVAL);
    g_assert_cmpint(rd_gfx_override_parse("64.0.0", &a, &b, &c), ==, -ERANGE);
    g_assert_cmpint(rd_gfx_override_parse("11.0.256", &a, &b, &c), ==, -ERANGE);
    g_assert_cmpint(rd_gfx_override_parse("99999999999.0.0", &a, &b, &c), ==, -ERANGE);
}

static void test_visible_devices(void)
{
    rd_agent agents[3] = {
        { .node_id = 1, .unique_id = 0 },
        { .node_id = 2, .unique_id = UINT64_C(0xa1ffc9d1799c317f) },
        { .node_id = 3, .unique_id = UINT64_C(0x946d7e1ef9b172dd) },
    };
    bool keep[3];
    char *bad = NULL;
    g_assert_cmpuint(rd_visible_devices_apply("0,2", agents, 3, keep, &bad), ==, 2);
    g_assert_true(keep[0] && !keep[1] && keep[2]);
    g_assert_null(bad);
    g_assert_cmpuint(rd_visible_devices_apply("GPU-A1FFC9D1799C317F", agents, 3, keep, &bad), ==, 1);
    g_assert_true(keep[1]);
    /* the runtime stops at the first entry that names no device */
    g_assert_cmpuint(rd_visible_devices_apply("1,5,2", agents, 3, keep, &bad), ==, 1);
    g_assert_cmpstr(bad, ==, "5");
    free(bad);
    g_assert_cmpuint(rd_visible_devices_apply("3", agents, 3, keep, &bad), ==, 0);
    g_assert_cmpstr(bad, ==, "3");
    free(bad);
    g_assert_cmpuint(rd_visible_devices_apply("", agents, 3, keep, &bad), ==, 0);
    g_assert_null(bad);
    char uuid[32];
    rd_agent_uuid(&agents[1], uuid, sizeof uuid);
    g_assert_cmpstr(uuid, ==, "GPU-a1ffc9d1799c317f");
    rd_agent_uuid(&agents[0], uuid, sizeof uuid);
    g_assert_cmpstr(uuid, ==, "");
}

static void test_gfx_list(void)
{
    _cleanup_strv_free_ char **l = rd_gfx_list_split("gfx90a:xnack-;gfx1030 gfx1100,,gfx1100");
    g_assert_cmpuint(strv_length(l), ==, 3);
    g_assert_cmpstr(l[0], ==, "gfx90a");
    g_assert_cmpstr(l[1], ==, "gfx1030");
    g_assert_cmpstr(l[2], ==, "gfx1100");
}

/* ---- assess ---- */

static void add_gpu(rd_facts *f, unsigned bus, int64_t class_code, uint64_t gfx_target_version, uint64_t device_id)
{
    rd_pci_device *d = ARRAY_APPEND(f->pci.devices, f->pci.n_devices);
    d->address = xasprintf("0000:%02x:00.0", bus);
    d->vendor_id = 0x1002;
    d->device_id = (int64_t)device_id;
    d->class_code = class_code;
    d->display = true;
    d->driver = xstrdup("amdgpu");
    d->pcie_type = -1;
    d->numa_node = -1;
    if (f->kfd.n_nodes == 0) {
        rd_kfd_node *c = ARRAY_APPEND(f->kfd.nodes, f->kfd.n_nodes);
        rd_test_kv_add(c, "cpu_cores_count", 96);
        rd_test_kv_add(c, "simd_count", 0);
    }
    f->kfd.present = true;
    rd_kfd_node *n = ARRAY_APPEND(f->kfd.nodes, f->kfd.n_nodes);
    n->node_id = (int64_t)f->kfd.n_nodes - 1;
    rd_test_kv_add(n, "simd_count", 1216);
    rd_test_kv_add(n, "gfx_target_version", gfx_target_version);
    rd_test_kv_add(n, "location_id", (uint64_t)bus << 8);
    rd_test_kv_add(n, "domain", 0);
    rd_test_kv_add(n, "unique_id", 0x1000 + bus);
}

static void assess(const rd_facts *f, rd_findings *out)
{
    rd_gpu_view view;
    rd_assess(&rd_probe_registry, f, &knowledge, &view, out);
    rd_gpu_view_free(&view);
}

static void add_node(rd_facts *f, const char *path, const char *role, bool exists, int64_t gid)
{
    rd_dev_node *n = ARRAY_APPEND(f->access.nodes, f->access.n_nodes);
    n->path = xstrdup(path);
    n->role = xstrdup(role);
    n->exists = exists;
    n->mode = 0660;
    n->gid = gid;
}

static void test_container_kubernetes(void)
{
    rd_facts f;
    rd_facts_init(&f);
    add_gpu(&f, 0x05, 0x120000, 90402, 0x74a1);
    f.os.container = xstrdup("kubernetes");
    add_node(&f, "/dev/kfd", "kfd", false, 0);
    add_node(&f, "/dev/dri/renderD128", "render", false, 0);
    rd_findings out = { 0 };
    assess(&f, &out);
    const rd_finding *fd = rd_findings_get(&out, "container.devices-missing");
    g_assert_nonnull(fd);
    g_assert_cmpint(fd->severity, ==, RD_SEV_ERROR);
    g_assert_nonnull(strstr(fd->remedy, "amd.com/gpu"));
    /* one cause, one finding: the host has KFD, so /dev/kfd missing in the
     * container is this finding's, not kfd.missing's */
    g_assert_false(rd_findings_has(&out, "kfd.missing"));
    g_assert_cmpstr(fd->evidence[1], ==, "/dev/kfd: absent in the container");
    g_assert_cmpstr(fd->evidence[2], ==, "/dev/dri/renderD128: absent in the container");
    g_assert_cmpstr(fd->evidence[3], ==, "/sys/class/kfd/kfd: present (the host has KFD)");
    g_assert_null(fd->evidence[4]);
    g_assert_false(rd_findings_has(&out, "container.gid-mismatch"));
    rd_findings_free(&out);

    /* devices passed, process in the right group: nothing */
    f.access.nodes[0].exists = f.access.nodes[1].exists = true;
    f.access.nodes[0].gid = f.access.nodes[1].gid = 109;
    f.container_env.uid = 1000;
    f.container_env.groups = xcalloc(2, sizeof(int64_t));
    f.container_env.groups[0] = 1000;
    f.container_env.groups[1] = 109;
    f.container_env.n_groups = 2;
    assess(&f, &out);
    g_assert_false(rd_findings_has(&out, "container.devices-missing"));
    g_assert_false(rd_findings_has(&out, "container.gid-mismatch"));
    rd_findings_free(&out);

    /* without the gid: supplemental group 109 */
    f.container_env.n_groups = 1;
    assess(&f, &out);
    fd = rd_findings_get(&out, "container.gid-mismatch");
    g_assert_nonnull(fd);
    g_assert_nonnull(strstr(fd->remedy, "supplementalGroups: [109]"));
    rd_findings_free(&out);
    rd_facts_free(&f);
}

static void test_tuning(void)
{
    rd_facts f;
    rd_facts_init(&f);
    for (unsigned i = 0; i < 2; i++)
        add_gpu(&f, 0x05 + 0x20 * i, 0x120000, 90402, 0x74a1);
    f.tuning.numa_balancing = 1;
    f.driver.cmdline = xstrdup("BOOT_IMAGE=/vmlinuz ro amd_iommu=on");
    f.os.id = xstrdup("ubuntu");
    rd_findings out = { 0 };
    assess(&f, &out);
    g_assert_true(rd_findings_has(&out, "tuning.numa-balancing"));
    const rd_finding *fd = rd_findings_get(&out, "tuning.iommu-pt");
    g_assert_nonnull(fd);
    g_assert_cmpstr(fd->fix, ==, "cmdline");
    g_assert_nonnull(strstr(fd->remedy, "`sudo update-grub`"));
    rd_findings_free(&out);
    /* the fix runs update-grub: not offered on RHEL, whose remedy is grubby */
    free(f.os.id);
    f.os.id = xstrdup("rhel");
    assess(&f, &out);
    fd = rd_findings_get(&out, "tuning.iommu-pt");
    g_assert_nonnull(fd);
    g_assert_null(fd->fix);
    g_assert_nonnull(strstr(fd->remedy, "grubby --update-kernel=ALL --args=\"iommu=pt\""));
    rd_findings_free(&out);

    free(f.driver.cmdline);
    f.driver.cmdline = xstrdup("BOOT_IMAGE=/vmlinuz ro amd_iommu=on iommu=pt -- iommu=off");
    f.tuning.numa_balancing = 0;
    assess(&f, &out);
    g_assert_false(rd_findings_has(&out, "tuning.numa-balancing"));
    g_assert_false(rd_findings_has(&out, "tuning.iommu-pt"));
    rd_findings_free(&out);

    /* one Instinct GPU is not a multi-GPU host */
    f.pci.n_devices = 1;
    f.tuning.numa_balancing = 1;
    assess(&f, &out);
    g_assert_false(rd_findings_has(&out, "tuning.numa-balancing"));
    f.pci.n_devices = 2;
    rd_findings_free(&out);
    rd_facts_free(&f);
}

static void test_torch_override_remedy(void)
{
    rd_facts f;
    rd_facts_init(&f);
    add_gpu(&f, 0x03, 0x030000, 100301, 0x73df); /* RX 6700 XT, gfx1031 */
    f.torch.ran = f.torch.imported = true;
    f.torch.version = xstrdup("2.5.1+rocm6.2");
    f.torch.hip = xstrdup("6.2.41133");
    f.torch.arch_list_known = true;
    f.torch.arch_list = strv_push(strv_push(NULL, xstrdup("gfx90a")), xstrdup("gfx1030"));
    f.rocm.default_version = xstrdup("6.2.4");
    rd_findings out = { 0 };
    assess(&f, &out);
    const rd_finding *fd = rd_findings_get(&out, "arch.no-kernels");
    g_assert_nonnull(fd);
    g_assert_nonnull(strstr(fd->remedy, "HSA_OVERRIDE_GFX_VERSION_1=10.3.0"));
    rd_findings_free(&out);

    /* the same-family override in place: the wheel's gfx1030 kernels run */
    rd_env_var *v = ARRAY_APPEND(f.env.vars, f.env.n_vars);
    v->name = xstrdup("HSA_OVERRIDE_GFX_VERSION_1");
    v->value = xstrdup("10.3.0");
    v->source = xstrdup(RD_ENV_PROCESS);
    assess(&f, &out);
    g_assert_false(rd_findings_has(&out, "arch.no-kernels"));
    g_assert_false(rd_findings_has(&out, "arch.override-wrong-family"));
    rd_findings_free(&out);

    /* a CPU wheel, with the index of the installed ROCm series */
    free(f.torch.hip);
    f.torch.hip = NULL;
    assess(&f, &out);
    fd = rd_findings_get(&out, "arch.no-kernels");
    g_assert_nonnull(fd);
    g_assert_nonnull(strstr(fd->remedy, "https://download.pytorch.org/whl/rocm6.2"));
    rd_findings_free(&out);
    rd_facts_free(&f);
}

/* The index a torch build came from: direct_url.json decides, else the
 * version's local tag (AMD's carries the full release and a build suffix). */
static void test_torch_origin(void)
{
    /* clang-format off */
    static const struct {
        const char *version, *direct_url;
        rd_torch_index index;
        bool certain;
        const char *series, *from;
    } cases[] = {
        { "2.6.0+rocm6.4.1.git1ded221d", NULL, RD_TORCH_INDEX_AMD_RELEASE, true, "6.4.1", "the version's local tag" },
        { "2.8.0+rocm7.1.0.lw.git56765e8c", NULL, RD_TORCH_INDEX_AMD_RELEASE, true, "7.1.0", "the version's local tag" },
        { "2.7.1+rocm6.3", NULL, RD_TORCH_INDEX_PYTORCH, true, "6.3", "the version's local tag" },
        { "2.6.0+rocm6.2.4", NULL, RD_TORCH_INDEX_PYTORCH, false, "6.2.4", "the version's local tag" },
        { "2.10.0.dev20251015+rocm7.0", NULL, RD_TORCH_INDEX_PYTORCH_NIGHTLY, true, "7.0", "the version's local tag" },
        { "2.9.1+rocm7.2.1", "https://repo.radeon.com/rocm/manylinux/rocm-rel-7.2.1/torch-2.9.1%2Brocm7.2.1-cp312"
                             "-cp312-linux_x86_64.whl",
          RD_TORCH_INDEX_AMD_RELEASE, true, "7.2.1", "direct_url.json" },
        { "2.6.0+rocm6.4.1.git1ded221d", "file:///tmp/torch-2.6.0%2Brocm6.4.1.git1ded221d-cp312-cp312-linux_x86_64.whl",
          RD_TORCH_INDEX_AMD_RELEASE, true, "6.4.1", "the version's local tag" },
        { "2.5.1+cpu", NULL, RD_TORCH_INDEX_UNKNOWN, false, "", "the version's local tag" },
        { "2.5.1", NULL, RD_TORCH_INDEX_UNKNOWN, false, "", "the version's local tag" },
        { "2.5.1+rocm", NULL, RD_TORCH_INDEX_UNKNOWN, false, "", "the version's local tag" },
        { NULL, NULL, RD_TORCH_INDEX_UNKNOWN, false, "", "the version's local tag" },
    };
    /* clang-format on */
    for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
        rd_torch_origin o;
        rd_torch_origin_of(cases[i].version, cases[i].direct_url, &o);
        g_assert_cmpint(o.index, ==, cases[i].index);
        g_assert_cmpint(o.certain, ==, cases[i].certain);
        g_assert_cmpstr(o.series, ==, cases[i].series);
        g_assert_cmpstr(o.from, ==, cases[i].from);
    }
    rd_torch_facts t = { 0 };
    rd_torch_parse_output(&t, "version\t2.9.1+rocm7.2.1\ndirecturl\thttps://repo.radeon.com/rocm/manylinux/"
                              "rocm-rel-7.2.1/torch.whl\n");
    g_assert_cmpstr(t.direct_url, ==, "https://repo.radeon.com/rocm/manylinux/rocm-rel-7.2.1/torch.whl");
    free(t.version);
    free(t.direct_url);
}

/* The remedy's index follows the build's: AMD's release directory of the
 * host's ROCm for AMD's wheels, pytorch.org's for pytorch.org's. */
static void test_torch_index_remedy(void)
{
    rd_facts f;
    rd_facts_init(&f);
    add_gpu(&f, 0x03, 0x030000, 110000, 0x744c); /* RX 7900 XTX, gfx1100 */
    f.torch.ran = f.torch.imported = true;
    f.torch.version = xstrdup("2.4.0+rocm6.1.3.git2a9c6ea2");
    f.torch.hip = xstrdup("6.1.40093");
    f.torch.arch_list_known = true;
    f.torch.arch_list = strv_push(NULL, xstrdup("gfx942"));
    f.rocm.default_version = xstrdup("7.1.0");
    rd_findings out = { 0 };
    assess(&f, &out);
    const rd_finding *fd = rd_findings_get(&out, "arch.no-kernels");
    g_assert_nonnull(fd);
    g_assert_nonnull(strstr(fd->remedy, "`pip3 install --force-reinstall torch --find-links "
                                        "https://repo.radeon.com/rocm/manylinux/rocm-rel-7.1/`, AMD's release "
                                        "wheels, which torch 2.4.0+rocm6.1.3.git2a9c6ea2 came from (its version's "
                                        "local tag says so)"));
    g_assert_null(strstr(fd->remedy, "download.pytorch.org"));
    rd_findings_free(&out);

    free(f.rocm.default_version);
    f.rocm.default_version = xstrdup("6.4.1");
    free(f.torch.version);
    f.torch.version = xstrdup("2.6.0+rocm6.2.4");
    assess(&f, &out);
    fd = rd_findings_get(&out, "arch.no-kernels");
    g_assert_nonnull(fd);
    g_assert_nonnull(strstr(fd->remedy, "`pip3 install --force-reinstall torch --index-url "
                                        "https://download.pytorch.org/whl/rocm6.4`, pytorch.org's wheels, which "
                                        "torch 2.6.0+rocm6.2.4 came from (its version's local tag suggests so)"));
    rd_findings_free(&out);
    rd_facts_free(&f);
}

/* A Kubernetes pod given one GPU of two: sysfs shows both, /dev/dri has the
 * allocated render node only. That is the device plugin at work. */
static void test_container_gpu_subset(void)
{
    rd_facts f;
    rd_facts_init(&f);
    add_gpu(&f, 0x05, 0x120000, 90402, 0x74a1);
    add_gpu(&f, 0x25, 0x120000, 90402, 0x74a1);
    f.os.container = xstrdup("kubernetes");
    add_node(&f, "/dev/kfd", "kfd", true, 109);
    add_node(&f, "/dev/dri/renderD128", "render", true, 109);
    add_node(&f, "/dev/dri/renderD136", "render", false, 0);
    rd_findings out = { 0 };
    assess(&f, &out);
    g_assert_false(rd_findings_has(&out, "container.devices-missing"));
    rd_findings_free(&out);

    /* no render node at all: still an error */
    f.access.nodes[1].exists = false;
    assess(&f, &out);
    const rd_finding *fd = rd_findings_get(&out, "container.devices-missing");
    g_assert_nonnull(fd);
    g_assert_cmpstr(fd->evidence[1], ==, "/dev/dri/renderD128: absent in the container");
    g_assert_cmpstr(fd->evidence[2], ==, "/dev/dri/renderD136: absent in the container");
    rd_findings_free(&out);
    rd_facts_free(&f);
}

/* ROCR_VISIBLE_DEVICES keeps the second GPU; HIP_VISIBLE_DEVICES names it
 * by UUID: one GPU is visible, nothing is hidden. */
static void test_visible_hip_after_rocr(void)
{
    rd_facts f;
    rd_facts_init(&f);
    add_gpu(&f, 0x03, 0x030000, 110000, 0x744c);
    add_gpu(&f, 0x43, 0x030000, 110000, 0x744c);
    const char *const names[] = { "ROCR_VISIBLE_DEVICES", "HIP_VISIBLE_DEVICES" };
    const char *const values[] = { "1", "GPU-0000000000001043" };
    for (size_t i = 0; i < 2; i++) {
        rd_env_var *v = ARRAY_APPEND(f.env.vars, f.env.n_vars);
        v->name = xstrdup(names[i]);
        v->value = xstrdup(values[i]);
        v->source = xstrdup(RD_ENV_PROCESS);
    }
    rd_findings out = { 0 };
    assess(&f, &out);
    g_assert_false(rd_findings_has(&out, "env.visible-devices-hides-all"));
    rd_findings_free(&out);

    /* the first GPU's UUID is hidden by ROCr already */
    free(f.env.vars[1].value);
    f.env.vars[1].value = xstrdup("GPU-0000000000001003");
    assess(&f, &out);
    const rd_finding *fd = rd_findings_get(&out, "env.visible-devices-hides-all");
    g_assert_nonnull(fd);
    if (fd)
        g_assert_cmpstr(
            fd->evidence[0], ==,
            "process environment: HIP_VISIBLE_DEVICES=GPU-0000000000001003: \"GPU-0000000000001003\" names no "
            "GPU (1 GPU is visible after ROCR_VISIBLE_DEVICES)");
    rd_findings_free(&out);
    rd_facts_free(&f);
}

/* Ryzen 7000 iGPU (gfx1036, RDNA2) next to an RX 7900 XTX, a global 11.0.0
 * and the iGPU hidden by the dGPU's UUID: the override never reaches the
 * iGPU, so neither override finding may fire. */
static void test_override_igpu_hidden(void)
{
    rd_facts f;
    rd_facts_init(&f);
    add_gpu(&f, 0x03, 0x030000, 110000, 0x744c);
    add_gpu(&f, 0x7c, 0x030000, 100306, 0x164e);
    rd_env_parse_text("export HSA_OVERRIDE_GFX_VERSION=11.0.0\n", RD_ENV_SYNTAX_SHELL, "/home/alice/.profile",
                      &f.env.vars, &f.env.n_vars);
    rd_findings out = { 0 };
    assess(&f, &out);
    g_assert_true(rd_findings_has(&out, "arch.override-wrong-family"));
    g_assert_true(rd_findings_has(&out, "arch.override-global-with-igpu"));
    rd_findings_free(&out);

    rd_env_parse_text("ROCR_VISIBLE_DEVICES=GPU-0000000000001003\n", RD_ENV_SYNTAX_PAM, "/etc/environment", &f.env.vars,
                      &f.env.n_vars);
    assess(&f, &out);
    g_assert_false(rd_findings_has(&out, "arch.override-wrong-family"));
    g_assert_false(rd_findings_has(&out, "arch.override-global-with-igpu"));
    g_assert_false(rd_findings_has(&out, "apu.igpu-conflict"));
    rd_findings_free(&out);
    rd_facts_free(&f);
}

/* Rootless Podman: the host's render group is not mapped, the nodes show
 * group 65534; "--group-add 65534" would be advice that cannot work. */
static void test_container_unmapped_gid(void)
{
    rd_facts f;
    rd_facts_init(&f);
    add_gpu(&f, 0x03, 0x030000, 110000, 0x744c);
    f.os.container = xstrdup("podman");
    add_node(&f, "/dev/kfd", "kfd", true, 65534);
    add_node(&f, "/dev/dri/renderD128", "render", true, 65534);
    f.container_env.uid = 1000;
    f.container_env.groups = xcalloc(1, sizeof(int64_t));
    f.container_env.groups[0] = 1000;
    f.container_env.n_groups = 1;
    rd_findings out = { 0 };
    assess(&f, &out);
    const rd_finding *fd = rd_findings_get(&out, "container.gid-mismatch");
    g_assert_nonnull(fd);
    g_assert_null(strstr(fd->remedy, "--group-add 65534"));
    g_assert_nonnull(strstr(fd->remedy, "--group-add keep-groups"));
    g_assert_cmpstr(fd->evidence[3], ==,
                    "group 65534: the host's group is not mapped into this container's user namespace");
    rd_findings_free(&out);

    /* a mapped gid keeps the numeric advice */
    f.access.nodes[0].gid = f.access.nodes[1].gid = 992;
    assess(&f, &out);
    fd = rd_findings_get(&out, "container.gid-mismatch");
    g_assert_nonnull(fd);
    g_assert_nonnull(strstr(fd->remedy, "--group-add 992 ..."));
    rd_findings_free(&out);
    rd_facts_free(&f);
}

/* The IOMMU groups of the GPUs already pass through (a kernel built with
 * IOMMU_DEFAULT_PASSTHROUGH): no iommu=pt needed. */
static void test_tuning_identity(void)
{
    rd_facts f;
    rd_facts_init(&f);
    for (unsigned i = 0; i < 2; i++)
        add_gpu(&f, 0x05 + 0x20 * i, 0x120000, 90402, 0x74a1);
    f.tuning.numa_balancing = 0;
    f.tuning.iommu_units = strv_push(NULL, xstrdup("ivhd0"));
    f.driver.cmdline = xstrdup("BOOT_IMAGE=/vmlinuz ro");
    rd_findings out = { 0 };
    assess(&f, &out);
    g_assert_true(rd_findings_has(&out, "tuning.iommu-pt"));
    rd_findings_free(&out);

    /* one of two in pass-through: still translated for the other */
    f.tuning.iommu_identity = strv_push(NULL, xstrdup("0000:05:00.0"));
    assess(&f, &out);
    g_assert_true(rd_findings_has(&out, "tuning.iommu-pt"));
    rd_findings_free(&out);

    f.tuning.iommu_identity = strv_push(f.tuning.iommu_identity, xstrdup("0000:25:00.0"));
    assess(&f, &out);
    g_assert_false(rd_findings_has(&out, "tuning.iommu-pt"));
    rd_findings_free(&out);

    /* iommu.passthrough takes every form of true the kernel reads */
    strv_free(f.tuning.iommu_identity);
    f.tuning.iommu_identity = NULL;
    const char *const yes[] = { "1", "y", "Y", "true", "on", "ON" };
    for (size_t i = 0; i < ELEMENTSOF(yes); i++) {
        free(f.driver.cmdline);
        f.driver.cmdline = xasprintf("ro iommu.passthrough=%s", yes[i]);
        assess(&f, &out);
        g_assert_false(rd_findings_has(&out, "tuning.iommu-pt"));
        rd_findings_free(&out);
    }
    free(f.driver.cmdline);
    f.driver.cmdline = xstrdup("ro iommu.passthrough=0");
    assess(&f, &out);
    g_assert_true(rd_findings_has(&out, "tuning.iommu-pt"));
    rd_findings_free(&out);
    rd_facts_free(&f);
}

/* An invalid override from /etc/environment with a trailing comment: the
 * evidence says what is wrong with the value the process really gets. */
static void test_override_trailing_blank(void)
{
    rd_facts f;
    rd_facts_init(&f);
    add_gpu(&f, 0x03, 0x030000, 100301, 0x73df);
    rd_env_parse_text("HSA_OVERRIDE_GFX_VERSION=10.3.0 # RX 6700 XT\n", RD_ENV_SYNTAX_PAM, "/etc/environment",
                      &f.env.vars, &f.env.n_vars);
    rd_findings out = { 0 };
    assess(&f, &out);
    const rd_finding *fd = rd_findings_get(&out, "arch.override-invalid");
    g_assert_nonnull(fd);
    g_assert_cmpstr(fd->evidence[0], ==,
                    "/etc/environment:1: HSA_OVERRIDE_GFX_VERSION=\"10.3.0 \": white space or a CR after the "
                    "number (in /etc/environment a # comment ends the value, the blanks before it stay)");
    rd_findings_free(&out);
    rd_facts_free(&f);
}

/* python -c would import a torch.py from the working directory. */
static void test_torch_cwd(void)
{
    g_autofree char *dir = g_dir_make_tmp("rd-torch-XXXXXX", NULL);
    g_assert_nonnull(dir);
    g_autofree char *file = g_build_filename(dir, "torch.py", NULL);
    g_assert_true(g_file_set_contents(file, "__version__ = 'shadow'\n", -1, NULL));
    g_autofree char *old = g_get_current_dir();
    g_autofree char *pythonpath = g_strdup(g_getenv("PYTHONPATH"));
    g_unsetenv("PYTHONPATH");
    g_assert_cmpint(chdir(dir), ==, 0);
    rd_ctx ctx = { .root = (char *)"/", .root_fd = -1, .with_python = true, .runtime_timeout_s = 20 };
    rd_facts f;
    rd_facts_init(&f);
    rd_probe_torch.gather(&ctx, &f);
    g_assert_cmpint(chdir(old), ==, 0);
    if (pythonpath)
        g_setenv("PYTHONPATH", pythonpath, TRUE);
    if (f.torch.ran && f.torch.exit_status == 127 && !f.torch.imported) {
        rd_facts_free(&f);
        g_unlink(file);
        g_rmdir(dir);
        g_test_skip("python3 is not installed");
        return;
    }
    g_assert_true(f.torch.ran);
    g_assert_cmpstr(f.torch.version, !=, "shadow");
    rd_facts_free(&f);
    g_unlink(file);
    g_rmdir(dir);
}

static const rd_test_case tests[] = {
    { "/env/parse/pam", test_parse_pam },
    { "/env/parse/systemd", test_parse_systemd },
    { "/env/parse/shell", test_parse_shell },
    { "/env/parse/pam-comment", test_parse_pam_comment },
    { "/env/parse/reassigned", test_parse_reassigned },
    { "/env/parse/override", test_override_parse },
    { "/env/parse/visible-devices", test_visible_devices },
    { "/env/parse/gfx-list", test_gfx_list },
    { "/env/assess/container-kubernetes", test_container_kubernetes },
    { "/env/assess/tuning", test_tuning },
    { "/env/assess/tuning-identity", test_tuning_identity },
    { "/env/assess/container-gpu-subset", test_container_gpu_subset },
    { "/env/assess/visible-hip-after-rocr", test_visible_hip_after_rocr },
    { "/env/assess/override-igpu-hidden", test_override_igpu_hidden },
    { "/env/assess/container-unmapped-gid", test_container_unmapped_gid },
    { "/env/assess/override-trailing-blank", test_override_trailing_blank },
    { "/env/gather/torch-cwd", test_torch_cwd },
    { "/env/assess/torch-override", test_torch_override_remedy },
    { "/env/parse/torch-origin", test_torch_origin },
    { "/env/assess/torch-index-remedy", test_torch_index_remedy },
};

RD_TEST_MAIN_KNOWLEDGE(tests, true, &knowledge)
