/* SPDX-License-Identifier: MIT */
/* The Slurm area: the parser of Slurm's configuration syntax, bracket
 * ranges, gathering slurm.conf, gres.conf and cgroup.conf from a root tree,
 * and the assess rules with their file:line evidence. */
#include <glib.h>
#include <glib/gstdio.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "testlib.h"
#include "check.h"
#include "context.h"
#include "facts-json.h"
#include "json-util.h"
#include "registry.h"
#include "slurm-conf.h"
#include "slurm-job.h"
#include "slurm-node.h"
#include "util.h"

static rd_knowledge knowledge;

typedef struct {
    GString *out;
} collected;

static int collect(const rd_slurm_line *l, void *userdata)
{
    GString *s = userdata;
    g_string_append_printf(s, "%u:", l->line);
    if (l->error)
        g_string_append_printf(s, "error(%s)", l->error);
    if (l->include)
        g_string_append_printf(s, "include(%s)", l->include);
    for (size_t i = 0; i < l->n_pairs; i++)
        g_string_append_printf(s, "[%s=%s]", l->pairs[i].key, l->pairs[i].value);
    g_string_append(s, "\n");
    return 0;
}

static void test_parse(void)
{
    const char *text = "# gres.conf\n"
                       "\n"
                       "NodeName=gpu[01-02] Name=gpu Type=mi300x \\\n"
                       "   File=/dev/dri/renderD[128-129]   # two\n"
                       "Name=gpu Type=\"mi 300\" Cores=0-3\r\n"
                       "Include /etc/slurm/gres.d/extra.conf\n"
                       "Name=gpu File=/dev/x\\#1\n"
                       "this is wrong\n"
                       "include\n"
                       "=value\n"
                       "AutoDetect=rsmi";
    GString *s = g_string_new("");
    g_assert_cmpint(rd_slurm_conf_parse(text, strlen(text), collect, s), ==, 0);
    g_assert_cmpstr(s->str, ==,
                    "3:[NodeName=gpu[01-02]][Name=gpu][Type=mi300x][File=/dev/dri/renderD[128-129]]\n"
                    "5:[Name=gpu][Type=mi 300][Cores=0-3]\n"
                    "6:include(/etc/slurm/gres.d/extra.conf)\n"
                    "7:[Name=gpu][File=/dev/x#1]\n"
                    "8:error(this is wrong)\n"
                    "9:error(include)\n"
                    "10:error(=value)\n"
                    "11:[AutoDetect=rsmi]\n");
    g_string_free(s, TRUE);

    rd_slurm_pair pairs[] = { { "Name", "gpu" }, { "TYPE", "a" }, { "type", "b" } };
    rd_slurm_line l = { .pairs = pairs, .n_pairs = 3 };
    g_assert_cmpstr(rd_slurm_line_get(&l, "Type"), ==, "b");
    g_assert_null(rd_slurm_line_get(&l, "File"));
}

static void check_expand(const char *spec, const char *joined)
{
    char **names = NULL, *error = NULL;
    g_assert_cmpint(rd_slurm_list_expand(spec, &names, &error), ==, 0);
    _cleanup_free_ char *j = strv_join(names, " ");
    g_assert_cmpstr(j, ==, joined);
    strv_free(names);
}

static void check_expand_fails(const char *spec, const char *error_text)
{
    char **names = NULL, *error = NULL;
    g_assert_cmpint(rd_slurm_list_expand(spec, &names, &error), ==, -EINVAL);
    g_assert_null(names);
    g_assert_cmpstr(error, ==, error_text);
    free(error);
}

static void test_expand(void)
{
    check_expand("/dev/dri/renderD[128-131]", "/dev/dri/renderD128 /dev/dri/renderD129 /dev/dri/renderD130 "
                                              "/dev/dri/renderD131");
    check_expand("node[01-03,7],login", "node01 node02 node03 node7 login");
    check_expand("r[1-2]n[8-9]", "r1n8 r1n9 r2n8 r2n9");
    check_expand("a,,b", "a b");
    check_expand_fails("renderD[128-", "an unbalanced '[' after \"renderD[128-\"");
    check_expand_fails("renderD[130-128]", "a range that runs backwards after \"renderD\"");
    check_expand_fails("x[1-a]", "a bad range after \"x\"");
    check_expand_fails("x]", "a ']' without '[' after \"x]\"");
    check_expand_fails("n[0-99999999]", "more than 256 names after \"n\"");
    check_expand_fails("n[0-255],x", "more than 256 names after \"\"");

    g_assert_true(rd_slurm_hostlist_has("gpu[01-16]", "gpu07"));
    g_assert_false(rd_slurm_hostlist_has("gpu[01-16]", "gpu7"));
    g_assert_true(rd_slurm_hostlist_has("ALL", "x"));
    g_assert_false(rd_slurm_hostlist_has("gpu[01-", "gpu01"));
    /* matched without expanding: a cluster of 100000 nodes */
    g_assert_true(rd_slurm_hostlist_has("login,gpu[00001-99999]", "gpu54321"));
    g_assert_false(rd_slurm_hostlist_has("gpu[00001-99999]", "gpu0005"));
    g_assert_true(rd_slurm_hostlist_has("r[1-2]n[8-9],x", "r2n9"));
    g_assert_true(rd_slurm_hostlist_has("n[1-3]0", "n20"));
    g_assert_false(rd_slurm_hostlist_has("n[1-3]0", "n40"));
    g_assert_true(rd_slurm_hostlist_has("n[7,10-12]", "n11"));
    g_assert_false(rd_slurm_hostlist_has("n[7,10-12]", "n1"));

    bool bits[16];
    g_assert_cmpint(rd_slurm_cpulist_parse("0-2,9", bits, 16), ==, 0);
    g_assert_true(bits[0] && bits[2] && bits[9]);
    g_assert_false(bits[3]);
    g_assert_cmpint(rd_slurm_cpulist_parse("0-16", bits, 16), ==, -EINVAL);
    g_assert_cmpint(rd_slurm_cpulist_parse("", bits, 16), ==, -EINVAL);
}

/* An AMD GPU at bus with its render node renderD<minor> on NUMA node numa. */
static void add_gpu(rd_facts *f, unsigned bus, int minor, int64_t numa)
{
    rd_pci_device *d = ARRAY_APPEND(f->pci.devices, f->pci.n_devices);
    d->address = xasprintf("0000:%02x:00.0", bus);
    d->vendor_id = 0x1002;
    d->device_id = 0x74a1;
    d->class_code = 0x120000;
    d->display = true;
    d->driver = xstrdup("amdgpu");
    d->pcie_type = -1;
    d->numa_node = numa;
    rd_drm_device *r = ARRAY_APPEND(f->drm.devices, f->drm.n_devices);
    r->pci_address = xstrdup(d->address);
    r->render = xasprintf("/dev/dri/renderD%d", minor);
    r->card = xasprintf("/dev/dri/card%d", minor - 127);
    r->render_minor = minor;
}

typedef struct {
    char *root;
    rd_ctx ctx;
    rd_facts facts;
    rd_findings out;
} slurm_host;

/* A root with these files (NULL: none), two GPUs, gathered as node gpu01. */
static void host_gather(slurm_host *h, const char *slurm_conf, const char *gres_conf, const char *cgroup_conf)
{
    h->root = g_dir_make_tmp("rd-slurm-XXXXXX", NULL);
    g_assert_nonnull(h->root);
    if (slurm_conf)
        rd_test_write_file(h->root, "etc/slurm/slurm.conf", slurm_conf);
    if (gres_conf)
        rd_test_write_file(h->root, "etc/slurm/gres.conf", gres_conf);
    if (cgroup_conf)
        rd_test_write_file(h->root, "etc/slurm/cgroup.conf", cgroup_conf);
    g_setenv("SLURMD_NODENAME", "gpu01", TRUE);
    char *error = NULL;
    g_assert_cmpint(rd_ctx_init(&h->ctx, h->root, NULL, &error), ==, 0);
    rd_facts_init(&h->facts);
    add_gpu(&h->facts, 0x05, 128, 0);
    add_gpu(&h->facts, 0x25, 129, 1);
    rd_probe_slurm.gather(&h->ctx, &h->facts);
    h->out = (rd_findings){ 0 };
    rd_gpu_view view;
    rd_assess(&rd_probe_registry, &h->facts, &knowledge, &view, &h->out);
    rd_gpu_view_free(&view);
}

static void host_free(slurm_host *h)
{
    rd_findings_free(&h->out);
    rd_facts_free(&h->facts);
    rd_ctx_free(&h->ctx);
    rd_test_rm_rf(h->root);
    g_free(h->root);
}

/* The ids of the slurm.* findings, in order, space-separated. */
static char *slurm_ids(const rd_findings *out)
{
    strbuf b = { 0 };
    strbuf_append(&b, "");
    for (size_t i = 0; i < out->n; i++)
        if (startswith(out->items[i].id, "slurm."))
            strbuf_printf(&b, "%s%s", b.len ? " " : "", out->items[i].id);
    return strbuf_steal(&b);
}

static void check_evidence(const rd_findings *out, const char *id, size_t index, const char *text)
{
    const rd_finding *fd = rd_findings_get(out, id);
    g_assert_nonnull(fd);
    g_assert_cmpuint(fd->n_evidence, >, index);
    g_assert_cmpstr(fd->evidence[index], ==, text);
}

static const char *const good_slurm_conf = "ClusterName=test\n"
                                           "GresTypes=gpu\n"
                                           "NodeName=gpu[01-04] CPUs=8 Gres=gpu:mi300x:2 State=UNKNOWN\n";

static void test_gather_good(void)
{
    slurm_host h;
    host_gather(&h, good_slurm_conf,
                "# this node's GPUs\n"
                "NodeName=gpu[01-04] Name=gpu Type=mi300x File=/dev/dri/renderD[128-129]\n",
                "ConstrainDevices=yes\n");
    const rd_slurm_facts *s = &h.facts.slurm;
    g_assert_true(s->present);
    g_assert_cmpstr(s->conf_dir, ==, "/etc/slurm");
    g_assert_cmpstr(s->node_name, ==, "gpu01");
    g_assert_cmpuint(s->n_nodes, ==, 1);
    g_assert_cmpstr(s->nodes[0].gres, ==, "gpu:mi300x:2");
    g_assert_cmpint(s->nodes[0].line, ==, 3);
    g_assert_cmpuint(s->n_gres, ==, 1);
    g_assert_cmpint(s->gres[0].line, ==, 2);
    g_assert_cmpstr(s->gres[0].file, ==, "/etc/slurm/gres.conf");
    g_assert_cmpuint(strv_length(s->gres[0].files), ==, 2);
    g_assert_cmpint(s->gres[0].count, ==, -1);
    g_assert_cmpuint(s->n_settings, ==, 2); /* GresTypes, ConstrainDevices */
    g_assert_null(s->allowed_devices_file);
    g_assert_null(s->errors);
    _cleanup_free_ char *ids = slurm_ids(&h.out);
    g_assert_cmpstr(ids, ==, "");

    /* the facts round trip */
    json_object *j = rd_facts_to_json(&h.facts);
    rd_facts back;
    char *error = NULL;
    g_assert_cmpint(rd_facts_from_json_string(json_object_to_json_string(j), &back, &error), ==, 0);
    g_assert_cmpstr(back.slurm.gres[0].files[1], ==, "/dev/dri/renderD129");
    g_assert_cmpstr(back.slurm.settings[1].key, ==, "ConstrainDevices");
    g_assert_cmpint(back.slurm.settings[1].line, ==, 1);
    rd_facts_free(&back);
    json_object_put(j);
    host_free(&h);
}

static void test_absent(void)
{
    slurm_host h;
    host_gather(&h, NULL, NULL, "ConstrainDevices=yes\n");
    g_assert_false(h.facts.slurm.present);
    _cleanup_free_ char *ids = slurm_ids(&h.out);
    g_assert_cmpstr(ids, ==, "");
    host_free(&h);
}

static void test_count_and_file(void)
{
    slurm_host h;
    host_gather(&h, good_slurm_conf,
                "NodeName=gpu01 Name=gpu Type=mi300x File=/dev/dri/card[1-2]\n"
                "NodeName=gpu02 Name=gpu Type=mi300x File=/dev/dri/renderD[128-129]\n"
                "Name=gpu Type=mi300x File=/dev/dri/renderD130\n",
                NULL);
    _cleanup_free_ char *ids = slurm_ids(&h.out);
    g_assert_cmpstr(ids, ==, "slurm.gres-count slurm.gres-file");
    check_evidence(&h.out, "slurm.gres-count", 0,
                   "/etc/slurm/gres.conf:1: Name=gpu File=/dev/dri/card[1-2] Type=mi300x (2 GPUs)");
    check_evidence(&h.out, "slurm.gres-count", 1,
                   "/etc/slurm/gres.conf:3: Name=gpu File=/dev/dri/renderD130 Type=mi300x (1 GPUs)");
    check_evidence(&h.out, "slurm.gres-count", 2, "this node has 2 AMD GPUs: /dev/dri/renderD128 /dev/dri/renderD129");
    check_evidence(&h.out, "slurm.gres-file", 0,
                   "/etc/slurm/gres.conf:1: File=/dev/dri/card1: a display node (/dev/dri/card*), not a render node");
    check_evidence(&h.out, "slurm.gres-file", 2,
                   "/etc/slurm/gres.conf:3: File=/dev/dri/renderD130: no AMD GPU's "
                   "render node");
    g_assert_cmpint(rd_findings_get(&h.out, "slurm.gres-count")->severity, ==, RD_SEV_ERROR);
    host_free(&h);

    /* slurm.conf counts 8 on a node of 2; gres.conf through an Include */
    host_gather(&h,
                "GresTypes=gpu\n"
                "NodeName=DEFAULT Gres=gpu:8\n"
                "NodeName=gpu01\n",
                "Include gres.d/local.conf\n", NULL);
    rd_test_write_file(h.root, "etc/slurm/gres.d/local.conf", "Name=gpu Count=2\n");
    rd_findings_free(&h.out);
    rd_facts_free(&h.facts);
    rd_facts_init(&h.facts);
    add_gpu(&h.facts, 0x05, 128, 0);
    add_gpu(&h.facts, 0x25, 129, 1);
    rd_probe_slurm.gather(&h.ctx, &h.facts);
    rd_gpu_view view;
    rd_assess(&rd_probe_registry, &h.facts, &knowledge, &view, &h.out);
    rd_gpu_view_free(&view);
    g_assert_cmpstr(h.facts.slurm.gres[0].file, ==, "/etc/slurm/gres.d/local.conf");
    g_free(ids);
    ids = slurm_ids(&h.out);
    g_assert_cmpstr(ids, ==, "slurm.gres-count");
    check_evidence(&h.out, "slurm.gres-count", 0, "/etc/slurm/slurm.conf:3: NodeName=gpu01 Gres=gpu:8 (8 GPUs)");
    host_free(&h);
}

static void test_types(void)
{
    slurm_host h;
    host_gather(&h, "GresTypes=mps\nNodeName=gpu01 Gres=gpu:mi300x:2\n",
                "Name=gpu Type=mi250 File=/dev/dri/renderD128\n"
                "Name=gpu File=/dev/dri/renderD129\n",
                NULL);
    _cleanup_free_ char *ids = slurm_ids(&h.out);
    g_assert_cmpstr(ids, ==, "slurm.grestypes-missing slurm.gres-type");
    check_evidence(&h.out, "slurm.grestypes-missing", 1, "/etc/slurm/slurm.conf:1: GresTypes=mps");
    check_evidence(&h.out, "slurm.gres-type", 0, "/etc/slurm/slurm.conf:2: NodeName=gpu01 Gres=gpu:mi300x:2");
    check_evidence(&h.out, "slurm.gres-type", 1, "/etc/slurm/gres.conf:1: Name=gpu Type=mi250");
    check_evidence(&h.out, "slurm.gres-type", 2, "/etc/slurm/gres.conf:2: Name=gpu no Type=");
    host_free(&h);
}

static void test_autodetect(void)
{
    slurm_host h;
    host_gather(&h, good_slurm_conf, "AutoDetect=rsmi\nNodeName=gpu09 AutoDetect=off\n", NULL);
    _cleanup_free_ char *ids = slurm_ids(&h.out);
    g_assert_cmpstr(ids, ==, "slurm.gres-autodetect");
    check_evidence(&h.out, "slurm.gres-autodetect", 0, "/etc/slurm/gres.conf:1: AutoDetect=rsmi");
    check_evidence(&h.out, "slurm.gres-autodetect", 1,
                   "Slurm's gpu_rsmi plugin is not installed (this Slurm was built without ROCm SMI)");
    check_evidence(&h.out, "slurm.gres-autodetect", 2, "librocm_smi64.so not found (rocm-smi-lib is not installed)");
    host_free(&h);

    /* this node's own line wins over the line for every node, before or after it */
    host_gather(&h, good_slurm_conf, "NodeName=gpu[01-02] AutoDetect=off\nAutoDetect=rsmi\n", NULL);
    g_free(ids);
    ids = slurm_ids(&h.out);
    g_assert_cmpstr(ids, ==, "");
    host_free(&h);

    /* with the plugin and the library in the root: nothing to say */
    h.root = NULL;
    host_gather(&h, good_slurm_conf, "AutoDetect=rsmi\n", NULL);
    rd_test_write_file(h.root, "usr/lib64/slurm/gpu_rsmi.so", "");
    rd_test_write_file(h.root, "opt/rocm/lib/librocm_smi64.so.7", "");
    rd_findings_free(&h.out);
    rd_facts_free(&h.facts);
    rd_facts_init(&h.facts);
    add_gpu(&h.facts, 0x05, 128, 0);
    add_gpu(&h.facts, 0x25, 129, 1);
    rd_probe_slurm.gather(&h.ctx, &h.facts);
    g_assert_true(h.facts.slurm.rsmi_plugin);
    g_assert_cmpstr(h.facts.slurm.rsmi_library, ==, "/opt/rocm/lib/librocm_smi64.so.7");
    rd_gpu_view view;
    rd_assess(&rd_probe_registry, &h.facts, &knowledge, &view, &h.out);
    rd_gpu_view_free(&view);
    g_free(ids);
    ids = slurm_ids(&h.out);
    g_assert_cmpstr(ids, ==, "");
    host_free(&h);
}

static void test_cgroup(void)
{
    slurm_host h;
    host_gather(&h, good_slurm_conf, "Name=gpu Type=mi300x File=/dev/dri/renderD[128-129]\n",
                "CgroupAutomount=yes\nConstrainDevices=yes\nAllowedDevicesFile=/etc/slurm/allowed.conf\n");
    /* the named file does not exist: Slurm fails on it, and so does the check */
    _cleanup_free_ char *ids = slurm_ids(&h.out);
    g_assert_cmpstr(ids, ==, "slurm.conf-invalid");
    host_free(&h);

    host_gather(&h, good_slurm_conf, "Name=gpu Type=mi300x File=/dev/dri/renderD[128-129]\n",
                "CgroupAutomount=yes\nConstrainDevices=yes\n");
    g_assert_null(h.facts.slurm.allowed_devices_file);
    host_free(&h);

    /* the default whitelist file beside cgroup.conf, without /dev/kfd */
    h.root = g_dir_make_tmp("rd-slurm-XXXXXX", NULL);
    rd_test_write_file(h.root, "etc/slurm/cgroup_allowed_devices_file.conf",
                       "/dev/null\n/dev/urandom\n/dev/zero\n/dev/sda*\n/dev/cpu/*/*\n/dev/pts/*\n");
    rd_test_write_file(h.root, "etc/slurm/slurm.conf", good_slurm_conf);
    rd_test_write_file(h.root, "etc/slurm/gres.conf", "Name=gpu Type=mi300x File=/dev/dri/renderD[128-129]\n");
    rd_test_write_file(h.root, "etc/slurm/cgroup.conf", "CgroupAutomount=yes\nConstrainDevices=yes\n");
    char *error = NULL;
    g_assert_cmpint(rd_ctx_init(&h.ctx, h.root, NULL, &error), ==, 0);
    rd_facts_init(&h.facts);
    add_gpu(&h.facts, 0x05, 128, 0);
    add_gpu(&h.facts, 0x25, 129, 1);
    rd_probe_slurm.gather(&h.ctx, &h.facts);
    h.out = (rd_findings){ 0 };
    rd_gpu_view view;
    rd_assess(&rd_probe_registry, &h.facts, &knowledge, &view, &h.out);
    rd_gpu_view_free(&view);
    g_free(ids);
    ids = slurm_ids(&h.out);
    g_assert_cmpstr(ids, ==, "slurm.cgroup-kfd");
    check_evidence(&h.out, "slurm.cgroup-kfd", 0, "/etc/slurm/cgroup.conf:2: ConstrainDevices=yes");
    check_evidence(&h.out, "slurm.cgroup-kfd", 1,
                   "/etc/slurm/cgroup_allowed_devices_file.conf: no line allows /dev/kfd");
    /* a pattern that covers /dev/kfd */
    rd_findings_free(&h.out);
    h.facts.slurm.allowed_devices = strv_push(h.facts.slurm.allowed_devices, xstrdup("/dev/kf?"));
    rd_assess(&rd_probe_registry, &h.facts, &knowledge, &view, &h.out);
    rd_gpu_view_free(&view);
    g_assert_false(rd_findings_has(&h.out, "slurm.cgroup-kfd"));
    host_free(&h);
}

static void test_cores(void)
{
    slurm_host h;
    host_gather(&h, good_slurm_conf,
                "Name=gpu Type=mi300x File=/dev/dri/renderD128 Cores=0-3\n"
                "Name=gpu Type=mi300x File=/dev/dri/renderD129 Cores=0-3\n",
                NULL);
    /* the NUMA cores come from this machine's sysfs: set them as the facts say */
    rd_slurm_facts *s = &h.facts.slurm;
    for (size_t i = 0; i < s->n_numa; i++)
        free(s->numa[i].cores);
    free(s->numa);
    s->numa = xcalloc(2, sizeof(rd_slurm_numa));
    s->n_numa = 2;
    s->numa[0] = (rd_slurm_numa){ 0, xstrdup("0-3") };
    s->numa[1] = (rd_slurm_numa){ 1, xstrdup("4-7") };
    rd_findings_free(&h.out);
    rd_gpu_view view;
    rd_assess(&rd_probe_registry, &h.facts, &knowledge, &view, &h.out);
    rd_gpu_view_free(&view);
    _cleanup_free_ char *ids = slurm_ids(&h.out);
    g_assert_cmpstr(ids, ==, "slurm.gres-cores");
    check_evidence(&h.out, "slurm.gres-cores", 0, "NUMA node 0 (AMD GPUs): cores 0-3");
    check_evidence(&h.out, "slurm.gres-cores", 2, "/etc/slurm/gres.conf:2: File=/dev/dri/renderD129 Cores=0-3");
    g_assert_cmpuint(rd_findings_get(&h.out, "slurm.gres-cores")->n_evidence, ==, 3);
    host_free(&h);
}

static void test_invalid(void)
{
    slurm_host h;
    host_gather(&h, good_slurm_conf,
                "Name=gpu Type=mi300x File=/dev/dri/renderD[128-129]\n"
                "Name=gpu Count=two\n"
                "Include missing.conf\n"
                "garbage here\n",
                NULL);
    const rd_finding *fd = rd_findings_get(&h.out, "slurm.conf-invalid");
    g_assert_nonnull(fd);
    g_assert_cmpuint(fd->n_evidence, ==, 3);
    g_assert_cmpstr(fd->evidence[0], ==, "/etc/slurm/gres.conf:2: Count= is not a number");
    g_assert_cmpstr(fd->evidence[1], ==, "/etc/slurm/gres.conf:3: Include missing.conf: No such file or directory");
    g_assert_cmpstr(fd->evidence[2], ==, "/etc/slurm/gres.conf:4: not Key=Value pairs: garbage here");
    host_free(&h);
}

/* Gathers and assesses again (after more files were written in the root). */
static void regather(slurm_host *h)
{
    rd_facts_free(&h->facts);
    rd_findings_free(&h->out);
    rd_facts_init(&h->facts);
    add_gpu(&h->facts, 0x05, 128, 0);
    add_gpu(&h->facts, 0x25, 129, 1);
    rd_probe_slurm.gather(&h->ctx, &h->facts);
    h->out = (rd_findings){ 0 };
    rd_gpu_view view;
    rd_assess(&rd_probe_registry, &h->facts, &knowledge, &view, &h->out);
    rd_gpu_view_free(&view);
}

/* A gres.conf that includes itself n times, after its one GPU line. */
static char *self_including(unsigned n)
{
    strbuf b = { 0 };
    strbuf_append(&b, "NodeName=gpu01 Name=gpu File=/dev/dri/renderD128\n");
    for (unsigned i = 0; i < n; i++)
        strbuf_append(&b, "Include gres.conf\n");
    return strbuf_steal(&b);
}

/* Each file is read once per parse: a file that includes itself is read
 * once, its lines counted once, each repeat said; small N, and N=20 (out
 * of memory when every Include is followed to the depth limit). */
static void test_include_once(void)
{
    for (unsigned n = 1; n <= 20; n += 19) {
        _cleanup_free_ char *gres = self_including(n);
        slurm_host h;
        host_gather(&h, good_slurm_conf, gres, NULL);
        g_assert_cmpuint(h.facts.slurm.n_gres, ==, 1);
        g_assert_null(h.facts.slurm.limits);
        const rd_finding *fd = rd_findings_get(&h.out, "slurm.conf-invalid");
        g_assert_nonnull(fd);
        g_assert_cmpuint(fd->n_evidence, ==, n);
        g_assert_cmpstr(fd->evidence[0], ==,
                        "/etc/slurm/gres.conf:2: Include gres.conf: /etc/slurm/gres.conf was read already (an "
                        "Include cycle or repeat): not read again");
        g_assert_null(rd_findings_get(&h.out, "slurm.conf-too-large"));
        host_free(&h);
    }
    /* a cycle of two files: each read once */
    slurm_host h;
    host_gather(&h, good_slurm_conf, "Include a.conf\n", NULL);
    rd_test_write_file(h.root, "etc/slurm/a.conf",
                       "NodeName=gpu01 Name=gpu File=/dev/dri/renderD128\nInclude b.conf\n");
    rd_test_write_file(h.root, "etc/slurm/b.conf",
                       "NodeName=gpu01 Name=gpu File=/dev/dri/renderD129\nInclude a.conf\n");
    regather(&h);
    g_assert_cmpuint(h.facts.slurm.n_gres, ==, 2);
    check_evidence(&h.out, "slurm.conf-invalid", 0,
                   "/etc/slurm/b.conf:2: Include a.conf: /etc/slurm/a.conf was read already (an Include cycle or "
                   "repeat): not read again");
    host_free(&h);
}

/* The bounds of one parse: files, lines, File= expansions; the
 * finding says which and where. */
static void test_parse_bounds(void)
{
    /* 70 included files: the 65th is not read */
    strbuf b = { 0 };
    strbuf_append(&b, "");
    for (int i = 0; i < 70; i++)
        strbuf_printf(&b, "Include part%d.conf\n", i);
    _cleanup_free_ char *many = strbuf_steal(&b);
    slurm_host h;
    host_gather(&h, good_slurm_conf, many, NULL);
    for (int i = 0; i < 70; i++) {
        _cleanup_free_ char *name = g_strdup_printf("etc/slurm/part%d.conf", i);
        rd_test_write_file(h.root, name, "NodeName=other Name=gpu Count=1\n");
    }
    regather(&h);
    /* slurm.conf and gres.conf are two of the 64 files */
    g_assert_cmpuint(h.facts.slurm.n_gres, ==, 62);
    check_evidence(&h.out, "slurm.conf-too-large", 0,
                   "/etc/slurm/part62.conf: more than 64 files in all: this one and the rest are not read");
    host_free(&h);

    /* File= ranges of 256 names on 1100 lines: expansions stop at 262144 */
    b = (strbuf){ 0 };
    strbuf_append(&b, "");
    for (int i = 0; i < 1100; i++)
        strbuf_printf(&b, "NodeName=other%d Name=gpu File=/dev/dri/renderD[0-255]\n", i);
    _cleanup_free_ char *wide = strbuf_steal(&b);
    host_gather(&h, good_slurm_conf, wide, NULL);
    g_assert_cmpuint(h.facts.slurm.n_gres, ==, 1100);
    size_t expanded = 0;
    for (size_t i = 0; i < h.facts.slurm.n_gres; i++)
        expanded += strv_length(h.facts.slurm.gres[i].files);
    g_assert_cmpuint(expanded, ==, 1024 * 256);
    check_evidence(&h.out, "slurm.conf-too-large", 0,
                   "/etc/slurm/gres.conf: File= ranges name more than 262144 files in all: the rest are not "
                   "expanded");
    host_free(&h);

    /* more than 200000 lines in all: the rest is not read */
    b = (strbuf){ 0 };
    strbuf_append(&b, "");
    for (int i = 0; i < 200010; i++)
        strbuf_append(&b, "X=1\n");
    _cleanup_free_ char *longer = strbuf_steal(&b);
    host_gather(&h, good_slurm_conf, longer, NULL);
    const rd_finding *fd = rd_findings_get(&h.out, "slurm.conf-too-large");
    g_assert_nonnull(fd);
    g_assert_cmpstr(fd->evidence[0], ==, "/etc/slurm/gres.conf: more than 200000 lines in all: the rest is not read");
    host_free(&h);
}

static void test_node_state(void)
{
    rd_slurm_node_state st = { 0 };
    g_assert_cmpint(rd_slurm_node_state_parse("NodeName=gpu01 Arch=x86_64 CoresPerSocket=1\n"
                                              "   State=IDLE+DRAIN ThreadsPerCore=1 TmpDisk=0\n"
                                              "   Reason=rocm-doctor: gpu.hot [root@2026-12-06T04:47:08]\n",
                                              &st),
                    ==, 0);
    g_assert_cmpstr(st.state, ==, "IDLE+DRAIN");
    g_assert_true(st.drain);
    g_assert_cmpstr(st.reason, ==, "rocm-doctor: gpu.hot");
    rd_slurm_node_state_done(&st);
    g_assert_cmpint(rd_slurm_node_state_parse("NodeName=gpu01\n   State=MIXED ThreadsPerCore=1\n", &st), ==, 0);
    g_assert_false(st.drain);
    g_assert_null(st.reason);
    rd_slurm_node_state_done(&st);
    g_assert_cmpint(rd_slurm_node_state_parse("Node gpu01 not found\n", &st), ==, -EINVAL);
    /* DOWN, DOWN*, ERROR and the FAIL flag are never rocm-doctor's; POWERED_DOWN is no DOWN */
    const struct {
        const char *state;
        bool drain, down;
    } states[] = {
        { "DOWN", false, true },           { "DOWN*+DRAIN", true, true },  { "IDLE+FAIL", false, true },
        { "IDLE+DRAIN+FAIL", true, true }, { "ERROR", false, true },       { "IDLE+POWERED_DOWN", false, false },
        { "MIXED+DRAIN", true, false },    { "IDLE*+DRAIN", true, false }, { "IDLE~", false, false },
    };
    for (size_t i = 0; i < G_N_ELEMENTS(states); i++) {
        _cleanup_free_ char *text = g_strdup_printf("NodeName=n State=%s Weight=1\n", states[i].state);
        g_assert_cmpint(rd_slurm_node_state_parse(text, &st), ==, 0);
        g_assert_cmpstr(st.state, ==, states[i].state);
        g_assert_cmpint(st.drain, ==, states[i].drain);
        g_assert_cmpint(st.down, ==, states[i].down);
        rd_slurm_node_state_done(&st);
    }
}

static void test_node_name(void)
{
    g_assert_true(rd_slurm_node_name_valid("rdnode"));
    g_assert_true(rd_slurm_node_name_valid("gpu-01.a_b"));
    const char *bad[] = {
        "",   "rdnode,rdother1", "rdnode[1-2]", "gpu[01]", "rd node", "rd\tnode", "rdnode\n", "-n", "ALL", "all", "n=1",
        "n;x"
    };
    for (size_t i = 0; i < G_N_ELEMENTS(bad); i++)
        g_assert_false(rd_slurm_node_name_valid(bad[i]));
    g_assert_false(rd_slurm_node_name_valid(NULL));
}

static void test_reason(void)
{
    _cleanup_free_ char *none = rd_slurm_reason(NULL);
    g_assert_cmpstr(none, ==, (char *)"rocm-doctor: check failed");
    char *two[] = { (char *)"gpu.ras-uncorrectable", (char *)"pcie.aer-errors", NULL };
    _cleanup_free_ char *r = rd_slurm_reason(two);
    g_assert_cmpstr(r, ==, (char *)"rocm-doctor: gpu.ras-uncorrectable,pcie.aer-errors");
    g_assert_true(rd_slurm_reason_is_ours(r));
    g_assert_false(rd_slurm_reason_is_ours("Not responding"));
    /* the whole reason is one rocm-doctor writes, not only its prefix */
    g_assert_true(rd_slurm_reason_is_ours("rocm-doctor: check failed"));
    g_assert_true(rd_slurm_reason_is_ours("rocm-doctor: gpu.hot,+3"));
    g_assert_true(rd_slurm_reason_is_ours("rocm-doctor: +21"));
    const char *foreign[] = { "rocm-doctor: maintenance by admin, do not resume",
                              "rocm-doctor:",
                              "rocm-doctor: ",
                              "rocm-doctor:gpu.hot",
                              "rocm-doctor: gpu.hot,",
                              "rocm-doctor: gpu.hot,,gpu.cold",
                              "rocm-doctor: gpu.hot keep",
                              "rocm-doctor: +3,gpu.hot",
                              "rocm-doctor: gpu.hot,+0",
                              "rocm-doctor: GPU.hot",
                              "rocm-doctor: check failed, see ticket 12",
                              "rocm-doctor: gpu.hot\nother",
                              "admin rocm-doctor: gpu.hot" };
    for (size_t i = 0; i < G_N_ELEMENTS(foreign); i++)
        g_assert_false(rd_slurm_reason_is_ours(foreign[i]));
    /* what replaces a reason Slurm kept after the resume is not ours */
    g_assert_cmpstr(RD_SLURM_REASON_RESUMED, ==, "rocm-doctor: resumed");
    g_assert_false(rd_slurm_reason_is_ours(RD_SLURM_REASON_RESUMED));
    /* many ids: cut with a count of the rest, within the limit */
    char *many[21];
    for (int i = 0; i < 20; i++)
        many[i] = (char *)"gpu.ras-uncorrectable";
    many[20] = NULL;
    _cleanup_free_ char *cut = rd_slurm_reason(many);
    g_assert_cmpuint(strlen(cut), <=, RD_SLURM_REASON_MAX);
    g_assert_cmpstr(cut, ==,
                    (char *)"rocm-doctor: gpu.ras-uncorrectable,gpu.ras-uncorrectable,gpu.ras-uncorrectable,"
                            "gpu.ras-uncorrectable,+16");
}

static void test_reason_kept(void)
{
    /* resumed, Slurm kept the reason: replaced */
    rd_slurm_node_state kept = { .state = (char *)"IDLE*", .reason = (char *)"rocm-doctor: pcie.aer-errors" };
    g_assert_true(rd_slurm_reason_kept(&kept));
    kept.reason = (char *)"rocm-doctor: check failed";
    g_assert_true(rd_slurm_reason_kept(&kept));
    /* Slurm cleared it, or it is someone else's, or already replaced */
    const char *not_ours[] = { NULL, "bad DIMM", "rocm-doctor: maintenance by admin, do not resume",
                               RD_SLURM_REASON_RESUMED };
    for (size_t i = 0; i < G_N_ELEMENTS(not_ours); i++) {
        rd_slurm_node_state s = { .state = (char *)"IDLE", .reason = (char *)not_ours[i] };
        g_assert_false(rd_slurm_reason_kept(&s));
    }
    /* still drained (the resume did not take), or DOWN: left alone */
    rd_slurm_node_state drained = { .state = (char *)"IDLE+DRAIN",
                                    .reason = (char *)"rocm-doctor: gpu.hot",
                                    .drain = true };
    g_assert_false(rd_slurm_reason_kept(&drained));
    rd_slurm_node_state down = { .state = (char *)"DOWN*", .reason = (char *)"rocm-doctor: gpu.hot", .down = true };
    g_assert_false(rd_slurm_reason_kept(&down));
}

static void test_decide(void)
{
    char *ids[] = { (char *)"gpu.hot", NULL };
    rd_slurm_node_state idle = { .state = (char *)"IDLE" };
    rd_slurm_node_state ours = { .state = (char *)"IDLE+DRAIN",
                                 .reason = (char *)"rocm-doctor: gpu.hot",
                                 .drain = true };
    rd_slurm_node_state ours_other = { .state = (char *)"IDLE+DRAIN",
                                       .reason = (char *)"rocm-doctor: gpu.none",
                                       .drain = true };
    rd_slurm_node_state admin = { .state = (char *)"IDLE+DRAIN", .reason = (char *)"bad DIMM", .drain = true };
    rd_slurm_node_state admin_prefix = { .state = (char *)"IDLE+DRAIN",
                                         .reason = (char *)"rocm-doctor: maintenance by admin, do not resume",
                                         .drain = true };
    rd_slurm_node_state down = { .state = (char *)"DOWN", .reason = (char *)"hw swap", .down = true };
    rd_slurm_node_state down_ours = {
        .state = (char *)"DOWN+DRAIN", .reason = (char *)"rocm-doctor: gpu.hot", .drain = true, .down = true
    };
    char *reason = NULL;
    /* never an administrator's drain, never a node DOWN, whatever the verdict */
    for (int status = 0; status <= 3; status++)
        for (int u = 0; u <= 1; u++) {
            rd_slurm_on_unknown ou = u ? RD_SLURM_UNKNOWN_KEEP : RD_SLURM_UNKNOWN_DRAIN;
            g_assert_cmpint(rd_slurm_decide(status, ids, ou, &admin_prefix, &reason), ==, RD_SLURM_KEEP);
            g_assert_cmpint(rd_slurm_decide(status, ids, ou, &down, &reason), ==, RD_SLURM_KEEP);
            g_assert_cmpint(rd_slurm_decide(status, ids, ou, &down_ours, &reason), ==, RD_SLURM_KEEP);
            g_assert_null(reason);
        }
    g_assert_cmpint(rd_slurm_decide(2, ids, RD_SLURM_UNKNOWN_DRAIN, &idle, &reason), ==, RD_SLURM_DRAIN);
    g_assert_cmpstr(reason, ==, (char *)"rocm-doctor: gpu.hot");
    g_clear_pointer(&reason, free);
    g_assert_cmpint(rd_slurm_decide(2, ids, RD_SLURM_UNKNOWN_DRAIN, &ours, &reason), ==, RD_SLURM_KEEP);
    g_assert_cmpint(rd_slurm_decide(2, ids, RD_SLURM_UNKNOWN_DRAIN, &ours_other, &reason), ==, RD_SLURM_DRAIN);
    g_assert_cmpstr(reason, ==, (char *)"rocm-doctor: gpu.hot");
    g_clear_pointer(&reason, free);
    g_assert_cmpint(rd_slurm_decide(2, ids, RD_SLURM_UNKNOWN_DRAIN, &admin, &reason), ==, RD_SLURM_KEEP);
    for (int status = 0; status <= 1; status++) {
        g_assert_cmpint(rd_slurm_decide(status, NULL, RD_SLURM_UNKNOWN_DRAIN, &ours, &reason), ==, RD_SLURM_RESUME);
        g_assert_cmpint(rd_slurm_decide(status, NULL, RD_SLURM_UNKNOWN_DRAIN, &admin, &reason), ==, RD_SLURM_KEEP);
        g_assert_cmpint(rd_slurm_decide(status, NULL, RD_SLURM_UNKNOWN_DRAIN, &idle, &reason), ==, RD_SLURM_KEEP);
    }
    /* the check could not run: drain or keep, never resume */
    g_assert_cmpint(rd_slurm_decide(3, NULL, RD_SLURM_UNKNOWN_KEEP, &ours, &reason), ==, RD_SLURM_KEEP);
    g_assert_cmpint(rd_slurm_decide(3, NULL, RD_SLURM_UNKNOWN_KEEP, &idle, &reason), ==, RD_SLURM_KEEP);
    g_assert_cmpint(rd_slurm_decide(3, NULL, RD_SLURM_UNKNOWN_DRAIN, &ours, &reason), ==, RD_SLURM_DRAIN);
    g_assert_cmpstr(reason, ==, (char *)"rocm-doctor: check failed");
    g_clear_pointer(&reason, free);
    g_assert_cmpint(rd_slurm_decide(3, NULL, RD_SLURM_UNKNOWN_DRAIN, &admin, &reason), ==, RD_SLURM_KEEP);
    g_assert_null(reason);
}

static char *job_gpus(const rd_facts *f, const char *list, int expect)
{
    rd_gpu_view view;
    rd_gpu_view_build(f, &knowledge, &view);
    const rd_slurm_job_env env = { .job_gpus = list };
    char **gpus = NULL, *error = NULL;
    g_assert_cmpint(rd_slurm_job_gpus(f, &view, &knowledge, &env, &gpus, &error), ==, expect);
    rd_gpu_view_free(&view);
    char *joined = expect == 0 ? strv_join(gpus, " ") : error;
    if (expect == 0)
        free(error);
    strv_free(gpus);
    return joined;
}

static void test_job_gpus(void)
{
    rd_facts f;
    rd_facts_init(&f);
    add_gpu(&f, 0x25, 129, 1);
    add_gpu(&f, 0x05, 128, 0);
    add_gpu(&f, 0x45, 130, 0);
    /* no gres.conf: the GPUs in PCI address order */
    _cleanup_free_ char *a = job_gpus(&f, "2,0", 0);
    g_assert_cmpstr(a, ==, "0000:05:00.0 0000:45:00.0");
    /* gres.conf's File= order for this node */
    f.slurm.present = true;
    f.slurm.node_name = xstrdup("gpu01");
    rd_slurm_gres *g = ARRAY_APPEND(f.slurm.gres, f.slurm.n_gres);
    g->name = xstrdup("gpu");
    g->node_name = xstrdup("gpu[01-02]");
    g->files = strv_split("/dev/dri/renderD130 /dev/dri/renderD129 /dev/dri/renderD128", " ");
    g->count = -1;
    _cleanup_free_ char *b = job_gpus(&f, "0", 0);
    g_assert_cmpstr(b, ==, "0000:45:00.0");
    _cleanup_free_ char *c = job_gpus(&f, "1,1", 0);
    g_assert_cmpstr(c, ==, "0000:25:00.0");
    _cleanup_free_ char *d = job_gpus(&f, "0,3", -EINVAL);
    g_assert_cmpstr(d, ==, "SLURM_JOB_GPUS=0,3: 3 names none of this node's 3 GPUs");
    _cleanup_free_ char *e = job_gpus(&f, "", 0);
    g_assert_cmpstr(e, ==, "");
    rd_facts_free(&f);
}

static void set_ras(rd_facts *f, const char *addr, int64_t ue, int64_t ce)
{
    rd_health_gpu *g = NULL;
    for (size_t i = 0; i < f->health.n_gpus; i++)
        if (streq(f->health.gpus[i].pci_address, addr))
            g = &f->health.gpus[i];
    if (!g) {
        g = ARRAY_APPEND(f->health.gpus, f->health.n_gpus);
        g->pci_address = xstrdup(addr);
        g->ras_exposed = true;
        g->ras = xcalloc(1, sizeof(rd_ras_count));
        g->n_ras = 1;
        g->ras[0].block = xstrdup("umc");
        g->ras[0].de = -1;
        g->bad_pages_reserved = g->bad_pages_pending = g->bad_pages_failed = -1;
    }
    g->ras[0].ue = ue;
    g->ras[0].ce = ce;
}

static void test_counters(void)
{
    rd_facts f;
    rd_facts_init(&f);
    set_ras(&f, "0000:05:00.0", 0, 3);
    set_ras(&f, "0000:25:00.0", 1, 0);
    char *gpus[] = { (char *)"0000:05:00.0", (char *)"0000:25:00.0", (char *)"0000:99:00.0", NULL };
    json_object *saved = rd_slurm_counters_json(&f, "42", gpus);
    g_assert_cmpstr(rd_json_get_str(saved, "job"), ==, "42");
    json_object *list = json_object_object_get(saved, "gpus");
    g_assert_cmpuint(json_object_array_length(list), ==, 3);
    g_assert_cmpint(rd_json_get_int(json_object_array_get_idx(list, 1), "ras_uncorrectable", -2), ==, 1);
    g_assert_cmpint(rd_json_get_int(json_object_array_get_idx(list, 2), "ras_uncorrectable", -2), ==, -1);
    char **ids = NULL, **evidence = NULL;
    rd_slurm_counters_grown(saved, &f, &ids, &evidence);
    g_assert_null(ids);
    set_ras(&f, "0000:25:00.0", 4, 0);
    set_ras(&f, "0000:05:00.0", 0, 9);
    rd_slurm_counters_grown(saved, &f, &ids, &evidence);
    _cleanup_free_ char *i = strv_join(ids, " ");
    _cleanup_free_ char *e = strv_join(evidence, "|");
    g_assert_cmpstr(i, ==, "gpu.ras-uncorrectable gpu.ras-correctable");
    g_assert_cmpstr(e, ==, "0000:25:00.0: RAS uncorrectable errors 1 -> 4|0000:05:00.0: RAS correctable errors 3 -> 9");
    strv_free(ids);
    strv_free(evidence);
    json_object_put(saved);
    rd_facts_free(&f);
}

/* The health verdict of a report: the exit status its findings make and
 * the error ids; a finding whose id is no finding id is no report. */
static void test_report_verdict(void)
{
    char **ids = NULL;
    json_object *j = json_tokener_parse("{\"findings\": [{\"id\": \"kfd.missing\", \"severity\": \"error\"}, "
                                        "{\"id\": \"pcie.bar-small\", \"severity\": \"warning\"}, "
                                        "{\"id\": \"gpu.none\", \"severity\": \"error\"}]}");
    g_assert_cmpint(rd_slurm_report_verdict(j, &ids), ==, 2);
    _cleanup_free_ char *joined = strv_join(ids, " ");
    g_assert_cmpstr(joined, ==, "kfd.missing gpu.none");
    strv_free(TAKE_PTR(ids));
    json_object_put(j);
    j = json_tokener_parse("{\"findings\": [{\"id\": \"pcie.bar-small\", \"severity\": \"warning\"}]}");
    g_assert_cmpint(rd_slurm_report_verdict(j, &ids), ==, 1);
    g_assert_null(ids);
    json_object_put(j);
    j = json_tokener_parse("{\"findings\": [{\"id\": \"x; rm -rf /\", \"severity\": \"error\"}]}");
    g_assert_cmpint(rd_slurm_report_verdict(j, &ids), ==, -EINVAL);
    json_object_put(j);
    strv_free(ids);
    ids = NULL;
    j = json_tokener_parse("{\"gpus\": []}");
    g_assert_cmpint(rd_slurm_report_verdict(j, &ids), ==, -EINVAL);
    json_object_put(j);
    strv_free(ids);
}

/* The status file: fresh and root's alone is a verdict; older than the
 * limit, -ESTALE; writable by the group, -EPERM; absent, not opened. */
static void test_status_verdict(void)
{
    _cleanup_free_ char *root = g_dir_make_tmp("rd-slurm-status-XXXXXX", NULL);
    rd_test_write_file(root, "run/status.json", "{\"findings\": [{\"id\": \"kfd.missing\", \"severity\": \"error\"}]}");
    _cleanup_free_ char *path = g_build_filename(root, "run/status.json", NULL);
    _cleanup_close_ int fd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    g_assert_cmpint(fd, >=, 0);
    char **ids = NULL;
    bool opened = false;
    time_t now = time(NULL);
    if (getuid() == 0) {
        g_assert_cmpint(rd_slurm_status_verdict(fd, "/run/status.json", now, &ids, &opened), ==, 2);
        g_assert_true(opened);
        g_assert_cmpstr(ids ? ids[0] : NULL, ==, "kfd.missing");
        strv_free(TAKE_PTR(ids));
        g_assert_cmpint(
            rd_slurm_status_verdict(fd, "/run/status.json", now + RD_SLURM_STATUS_MAX_AGE_S + 60, &ids, &opened), ==,
            -ESTALE);
        g_assert_cmpint(chmod(path, 0664), ==, 0);
    }
    /* not root's alone: another owner (a test not run as root), or group-writable */
    g_assert_cmpint(rd_slurm_status_verdict(fd, "/run/status.json", now, &ids, &opened), ==, -EPERM);
    g_assert_true(opened);
    g_assert_cmpint(rd_slurm_status_verdict(fd, "/run/none.json", now, &ids, &opened), ==, -ENOENT);
    g_assert_false(opened);
    g_assert_null(ids);
    rd_test_rm_rf(root);
}

/* What the prolog keeps for the epilog: saved, read back, dropped. */
static void test_counters_state(void)
{
    _cleanup_free_ char *base = g_dir_make_tmp("rd-slurm-state-XXXXXX", NULL);
    _cleanup_free_ char *dir = g_build_filename(base, "a/42", NULL);
    g_assert_true(rd_slurm_job_id_valid("42_7"));
    g_assert_false(rd_slurm_job_id_valid("../42"));
    g_assert_false(rd_slurm_job_id_valid(""));
    g_assert_false(rd_slurm_job_id_valid(NULL));
    json_object *c = json_tokener_parse("{\"job\": \"42\", \"gpus\": []}"), *back = NULL;
    char *what = NULL;
    g_assert_cmpint(rd_slurm_counters_save(dir, c, &what), ==, 0);
    g_assert_null(what);
    g_assert_cmpint(rd_slurm_counters_load(dir, &back), ==, 0);
    g_assert_true(json_object_equal(c, back));
    json_object_put(back);
    rd_slurm_counters_drop(dir);
    g_assert_cmpint(rd_slurm_counters_load(dir, &back), ==, -ENOENT);
    g_assert_false(g_file_test(dir, G_FILE_TEST_EXISTS));
    rd_test_write_file(dir, "counters.json", "not json");
    g_assert_cmpint(rd_slurm_counters_load(dir, &back), ==, -EBADMSG);
    rd_slurm_counters_drop(dir);
    g_assert_false(g_file_test(dir, G_FILE_TEST_EXISTS));
    json_object_put(c);
    rd_test_rm_rf(base);
}

static const rd_test_case tests[] = {
    { "/slurm/parse/lines", test_parse },
    { "/slurm/parse/ranges", test_expand },
    { "/slurm/gather/good", test_gather_good },
    { "/slurm/gather/absent", test_absent },
    { "/slurm/assess/count-and-file", test_count_and_file },
    { "/slurm/assess/types", test_types },
    { "/slurm/assess/autodetect", test_autodetect },
    { "/slurm/assess/cgroup-kfd", test_cgroup },
    { "/slurm/assess/cores", test_cores },
    { "/slurm/assess/invalid", test_invalid },
    { "/slurm/conf/include-once", test_include_once },
    { "/slurm/conf/parse-bounds", test_parse_bounds },
    { "/slurm/node/state", test_node_state },
    { "/slurm/node/name", test_node_name },
    { "/slurm/node/reason", test_reason },
    { "/slurm/node/reason-kept", test_reason_kept },
    { "/slurm/node/decide", test_decide },
    { "/slurm/job/gpus", test_job_gpus },
    { "/slurm/job/counters", test_counters },
    { "/slurm/node/report-verdict", test_report_verdict },
    { "/slurm/node/status-verdict", test_status_verdict },
    { "/slurm/job/counters-state", test_counters_state },
};

RD_TEST_MAIN_KNOWLEDGE(tests, true, &knowledge)
