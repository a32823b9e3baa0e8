/* SPDX-License-Identifier: MIT */
/* src/core/hostlist.c and src/core/fleet.c: host lists compressed and
 * expanded (zero padding, several ranges, prefixes and suffixes), nodes
 * read from reports, grouped by cause and compared for drift within their
 * class. */
#include <glib.h>

#include "fleet.h"
#include "hostlist.h"
#include "json-util.h"
#include "testlib.h"
#include "util.h"

static void assert_compress(const char *names, const char *want)
{
    _cleanup_strv_free_ char **v = strv_split(names, " ");
    _cleanup_free_ char *got = rd_hostlist_compress(v);
    g_assert_cmpstr(got, ==, want);
}

static void test_compress(void)
{
    assert_compress("", "");
    assert_compress("gpu003", "gpu003");
    assert_compress("gpu003 gpu017 gpu018 gpu019", "gpu[003,017-019]");
    assert_compress("gpu019 gpu003 gpu018 gpu017 gpu018", "gpu[003,017-019]");
    /* unpadded numbers of different lengths are one range */
    assert_compress("n9 n10 n11 n1", "n[1,9-11]");
    /* a padded range takes an unpadded name of its width */
    assert_compress("gpu098 gpu099 gpu100", "gpu[098-100]");
    /* padded and unpadded widths apart */
    assert_compress("gpu01 gpu1 gpu02", "gpu[01-02],gpu1");
    /* prefixes and suffixes */
    assert_compress("login1 gpu1 gpu2 login2", "login[1-2],gpu[1-2]");
    assert_compress("rack1-n01 rack1-n02 rack2-n01", "rack1-n[01-02],rack2-n01");
    assert_compress("node1-ib node2-ib node3-eth", "node[1-2]-ib,node3-eth");
    assert_compress("head localhost head", "head,localhost");
}

static void assert_expand(const char *list, const char *want)
{
    char **v = NULL;
    g_assert_cmpint(rd_hostlist_expand(list, 1000, &v), ==, 0);
    _cleanup_free_ char *got = strv_join(v, " ");
    g_assert_cmpstr(got, ==, want);
    strv_free(v);
}

static void test_expand(void)
{
    assert_expand("", "");
    assert_expand("gpu003", "gpu003");
    assert_expand("gpu[003,017-019]", "gpu003 gpu017 gpu018 gpu019");
    assert_expand("gpu[8-11]", "gpu8 gpu9 gpu10 gpu11");
    assert_expand("gpu[098-100],login1", "gpu098 gpu099 gpu100 login1");
    assert_expand("rack[1-2]-n[01-02]", "rack1-n01 rack1-n02 rack2-n01 rack2-n02");
    assert_expand("node[1-2]-ib", "node1-ib node2-ib");
    assert_expand("127.0.0.[2-4]", "127.0.0.2 127.0.0.3 127.0.0.4");
    char **v = NULL;
    g_assert_cmpint(rd_hostlist_expand("gpu[1-", 1000, &v), ==, -EINVAL);
    g_assert_cmpint(rd_hostlist_expand("gpu[3-1]", 1000, &v), ==, -EINVAL);
    g_assert_cmpint(rd_hostlist_expand("gpu1]", 1000, &v), ==, -EINVAL);
    g_assert_cmpint(rd_hostlist_expand("gpu[a-b]", 1000, &v), ==, -EINVAL);
    g_assert_cmpint(rd_hostlist_expand("gpu[]", 1000, &v), ==, -EINVAL);
    g_assert_cmpint(rd_hostlist_expand("gpu[1-2000]", 1000, &v), ==, -E2BIG);
    g_assert_cmpint(rd_hostlist_expand("a[1-40]b[1-40]", 1000, &v), ==, -E2BIG);
}

/* Compress and expand are each other's inverse on sorted unique names. */
static void test_round_trip(void)
{
    static const char *const lists[] = { "gpu[001-128]", "gpu[003,017-019],login[1-2]", "n[1-3,5,7-9]",
                                         "a1,b[01-02]-ib" };
    for (size_t i = 0; i < G_N_ELEMENTS(lists); i++) {
        char **v = NULL;
        g_assert_cmpint(rd_hostlist_expand(lists[i], 1000, &v), ==, 0);
        _cleanup_free_ char *back = rd_hostlist_compress(v);
        g_assert_cmpstr(back, ==, lists[i]);
        strv_free(v);
    }
}

/* A report of one node: GPUs of one model, a kernel, findings
 * "ID:SEVERITY:FIX" separated by spaces. */
static json_object *report(const char *gpu, int n_gpus, const char *kernel, double gts, const char *findings)
{
    json_object *o = json_object_new_object();
    int worst = 0;
    json_object *fs = json_object_new_array();
    _cleanup_strv_free_ char **ids = strv_split(findings ? findings : "", " ");
    for (char **id = ids; id && *id; id++) {
        _cleanup_strv_free_ char **p = strv_split(*id, ":");
        json_object *f = json_object_new_object();
        json_object_object_add(f, "id", json_object_new_string(p[0]));
        json_object_object_add(f, "severity", json_object_new_string(p[1]));
        json_object_object_add(f, "summary", json_object_new_string(p[0]));
        _cleanup_free_ char *remedy = xasprintf("remedy of %s", p[0]);
        json_object_object_add(f, "remedy", json_object_new_string(remedy));
        json_object_object_add(f, "fix", p[2] ? json_object_new_string(p[2]) : NULL);
        json_object_array_add(fs, f);
        int s = streq(p[1], "error") ? 2 : streq(p[1], "warning") ? 1 : 0;
        worst = s > worst ? s : worst;
    }
    json_object_object_add(o, "schema", json_object_new_string("rocm-doctor/1"));
    json_object_object_add(o, "exit_status", json_object_new_int(worst));
    json_object *host = json_object_new_object();
    json_object_object_add(host, "kernel", json_object_new_string(kernel));
    json_object_object_add(o, "host", host);
    json_object *gpus = json_object_new_array();
    for (int i = 0; i < n_gpus; i++) {
        json_object *g = json_object_new_object();
        _cleanup_free_ char *addr = xasprintf("0000:%02x:00.0", 0x10 + i);
        json_object_object_add(g, "name", json_object_new_string(gpu));
        json_object_object_add(g, "pci_address", json_object_new_string(addr));
        json_object *link = json_object_new_object();
        json_object_object_add(link, "current_speed_gts", json_object_new_double(i == 0 ? gts : 32.0));
        json_object_object_add(link, "current_width", json_object_new_int(16));
        json_object_object_add(g, "link", link);
        json_object_array_add(gpus, g);
    }
    json_object_object_add(o, "gpus", gpus);
    json_object_object_add(o, "findings", fs);
    return o;
}

static void add(rd_fleet *fleet, const char *name, json_object *j)
{
    rd_fleet_node node;
    _cleanup_free_ char *err = NULL;
    g_assert_cmpint(rd_fleet_node_from_report(j, name, &node, &err), ==, 0);
    g_assert_null(err);
    rd_fleet_add(fleet, &node);
    json_object_put(j);
}

static void test_not_a_report(void)
{
    rd_fleet_node node;
    _cleanup_free_ char *err = NULL;
    _cleanup_json_ json_object *facts = json_tokener_parse("{\"schema\": \"rocm-doctor-facts/1\"}");
    g_assert_cmpint(rd_fleet_node_from_report(facts, "n1", &node, &err), ==, -EINVAL);
    g_assert_cmpstr(err, ==, "not a rocm-doctor report: schema \"rocm-doctor-facts/1\", not \"rocm-doctor/1\"");
    free(err);
    err = NULL;
    _cleanup_json_ json_object *half = json_tokener_parse("{\"schema\": \"rocm-doctor/1\", \"exit_status\": 0}");
    g_assert_cmpint(rd_fleet_node_from_report(half, "n1", &node, &err), ==, -EINVAL);
    g_assert_cmpstr(err, ==, "not a complete rocm-doctor report: no exit_status or findings");
}

static void test_causes_and_drift(void)
{
    rd_fleet fleet = { 0 };
    /* class MI300X x8: gpu[001-006]; gpu004 has another kernel, gpu005 a slow link */
    for (int i = 1; i <= 6; i++) {
        _cleanup_free_ char *name = xasprintf("gpu%03d", i);
        const char *findings = i == 2 || i == 3 ? "access.not-in-group:error:groups env.hsa:info"
                               : i == 6         ? "health.retired-pages:warning access.not-in-group:error:groups"
                                                : NULL;
        add(&fleet, name, report("MI300X", 8, i == 4 ? "6.8.0-51" : "6.8.0-45", i == 5 ? 8.0 : 32.0, findings));
    }
    /* class W7900 x2 with its own kernel: no false drift against the MI300X nodes */
    add(&fleet, "ws10", report("W7900", 2, "6.11.0", 16.0, "env.hsa:info"));
    add(&fleet, "ws9", report("W7900", 2, "6.11.0", 16.0, NULL));
    rd_fleet_node u;
    rd_fleet_node_unreachable(&u, "gpu007", "timed out after 120 s");
    rd_fleet_add(&fleet, &u);
    rd_fleet_sort(&fleet);
    g_assert_cmpstr(fleet.nodes[7].name, ==, "ws9");
    g_assert_cmpstr(fleet.nodes[8].name, ==, "ws10");

    rd_fleet_analysis a;
    rd_fleet_analyse(&fleet, &a);
    g_assert_cmpint(a.exit_status, ==, 3);
    g_assert_cmpuint(a.n_status[0], ==, 5);
    g_assert_cmpuint(a.n_status[1], ==, 0);
    g_assert_cmpuint(a.n_status[2], ==, 3);
    g_assert_cmpuint(a.n_status[3], ==, 1);

    /* errors first, then warnings, then info; then by node count */
    g_assert_cmpuint(a.n_causes, ==, 3);
    g_assert_cmpstr(a.causes[0].finding->id, ==, "access.not-in-group");
    g_assert_cmpstr(a.causes[0].hostlist, ==, "gpu[002-003,006]");
    g_assert_cmpstr(a.causes[0].finding->remedy, ==, "remedy of access.not-in-group");
    _cleanup_free_ char *cmd = rd_fleet_fix_command(a.causes[0].finding);
    g_assert_cmpstr(cmd, ==, "rocm-doctor fix --only groups --apply");
    g_assert_cmpstr(a.causes[1].finding->id, ==, "health.retired-pages");
    g_assert_cmpstr(a.causes[1].hostlist, ==, "gpu006");
    g_assert_null(rd_fleet_fix_command(a.causes[1].finding));
    g_assert_cmpstr(a.causes[2].finding->id, ==, "env.hsa");
    g_assert_cmpstr(a.causes[2].hostlist, ==, "gpu[002-003],ws10");

    /* drift: within MI300X only, the kernel and one GPU's link */
    g_assert_cmpuint(a.n_drift, ==, 2);
    g_assert_cmpstr(a.drift[0].klass, ==, "MI300X");
    g_assert_cmpstr(a.drift[0].property, ==, "kernel");
    g_assert_cmpstr(a.drift[0].majority, ==, "6.8.0-45");
    g_assert_cmpuint(a.drift[0].n_majority, ==, 5);
    g_assert_cmpuint(a.drift[0].n_outliers, ==, 1);
    g_assert_cmpstr(a.drift[0].outliers[0].node, ==, "gpu004");
    g_assert_cmpstr(a.drift[0].outliers[0].value, ==, "6.8.0-51");
    g_assert_cmpstr(a.drift[1].property, ==, "pcie_link 0000:10:00.0");
    g_assert_cmpstr(a.drift[1].majority, ==, "32 GT/s x16");
    g_assert_cmpstr(a.drift[1].outliers[0].node, ==, "gpu005");
    g_assert_cmpstr(a.drift[1].outliers[0].value, ==, "8 GT/s x16");
    rd_fleet_analysis_free(&a);
    rd_fleet_free(&fleet);
}

/* A healthy fleet: no cause, no drift, exit 0; a tie takes the smaller value. */
static void test_healthy_and_tie(void)
{
    rd_fleet fleet = { 0 };
    add(&fleet, "a1", report("MI210", 4, "6.1", 16.0, NULL));
    add(&fleet, "a2", report("MI210", 4, "6.1", 16.0, NULL));
    rd_fleet_analysis a;
    rd_fleet_analyse(&fleet, &a);
    g_assert_cmpint(a.exit_status, ==, 0);
    g_assert_cmpuint(a.n_causes, ==, 0);
    g_assert_cmpuint(a.n_drift, ==, 0);
    rd_fleet_analysis_free(&a);
    add(&fleet, "a3", report("MI210", 4, "6.2", 16.0, NULL));
    add(&fleet, "a4", report("MI210", 4, "6.2", 16.0, NULL));
    rd_fleet_analyse(&fleet, &a);
    g_assert_cmpuint(a.n_drift, ==, 1);
    g_assert_cmpstr(a.drift[0].majority, ==, "6.1");
    g_assert_cmpuint(a.drift[0].n_outliers, ==, 2);
    rd_fleet_analysis_free(&a);
    rd_fleet_free(&fleet);
}

/* A node that lost a GPU stays in its class (the GPU model): its count and
 * the lost GPU's link are the drift; a node with no GPU is a class of its own. */
static void test_gpu_count_drift(void)
{
    rd_fleet fleet = { 0 };
    add(&fleet, "n1", report("MI250X", 8, "6.1", 16.0, NULL));
    add(&fleet, "n2", report("MI250X", 8, "6.1", 16.0, NULL));
    add(&fleet, "n3", report("MI250X", 7, "6.1", 16.0, NULL));
    add(&fleet, "n4", report("MI250X", 0, "6.1", 16.0, NULL));
    g_assert_cmpstr(fleet.nodes[3].klass, ==, "no GPU");
    rd_fleet_analysis a;
    rd_fleet_analyse(&fleet, &a);
    g_assert_cmpuint(a.n_drift, ==, 1);
    g_assert_cmpstr(a.drift[0].klass, ==, "MI250X");
    g_assert_cmpstr(a.drift[0].property, ==, "gpu_count");
    g_assert_cmpstr(a.drift[0].majority, ==, "8");
    g_assert_cmpuint(a.drift[0].n_outliers, ==, 1);
    g_assert_cmpstr(a.drift[0].outliers[0].node, ==, "n3");
    g_assert_cmpstr(a.drift[0].outliers[0].value, ==, "7");
    rd_fleet_analysis_free(&a);
    rd_fleet_free(&fleet);
}

static const rd_test_case tests[] = {
    { "/fleet/hostlist/compress", test_compress },        { "/fleet/hostlist/expand", test_expand },
    { "/fleet/hostlist/round-trip", test_round_trip },    { "/fleet/report/not-a-report", test_not_a_report },
    { "/fleet/causes-and-drift", test_causes_and_drift }, { "/fleet/healthy-and-tie", test_healthy_and_tie },
    { "/fleet/gpu-count-drift", test_gpu_count_drift },
};

RD_TEST_MAIN(tests, true)
