/* SPDX-License-Identifier: MIT */
/* Facts JSON: a facts file read back gives the same facts, and malformed
 * files fail with a message naming the JSON path. */
#include <glib.h>
#include <glib/gstdio.h>

#include "testlib.h"
#include "facts-json.h"
#include "facts.h"
#include "util.h"

#define BIG_U64 UINT64_C(16404946649897475633) /* a real MI300X unique_id */

static char *to_string(const rd_facts *f)
{
    json_object *j = rd_facts_to_json(f);
    char *s = g_strdup(json_object_to_json_string_ext(j, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_NOSLASHESCAPE));
    json_object_put(j);
    return s;
}

/* f to JSON and back into *back: the parse succeeds and writes the same JSON again. */
static void round_trip(const rd_facts *f, rd_facts *back)
{
    g_autofree char *first = to_string(f);
    g_autofree char *err = NULL;
    g_assert_cmpint(rd_facts_from_json_string(first, back, &err), ==, 0);
    g_assert_null(err);
    g_autofree char *second = to_string(back);
    g_assert_cmpstr(first, ==, second);
}

/* populate: the OS and the container. */
static void populate_os(rd_facts *f)
{
    f->os.id = xstrdup("ubuntu");
    f->os.id_like = xstrdup("debian");
    f->os.version_id = xstrdup("24.04");
    f->os.version_codename = xstrdup("noble");
    f->os.pretty_name = xstrdup("Ubuntu 24.04.1 LTS \"Noble\" \\ / \t\n \xc3\xa9\xe2\x9c\x93");
    f->os.kernel_release = xstrdup("6.8.0-45-generic");
    f->os.proc_version = xstrdup("Linux version 6.8.0-45-generic (buildd@lcy02-amd64-115)");
    f->os.container = xstrdup("docker");
    f->os.container_evidence = xstrdup("/.dockerenv exists");
    f->os.wsl = false;
    /* os_release_error, virtualization and wsl_evidence stay NULL */
}

/* populate: the GPU and its bridge. */
static void populate_pci(rd_facts *f)
{
    rd_pci_device *gpu = ARRAY_APPEND(f->pci.devices, f->pci.n_devices);
    gpu->address = xstrdup("0000:03:00.0");
    gpu->vendor_id = 0x1002;
    gpu->device_id = 0x744c;
    gpu->subsystem_vendor_id = 0x1da2;
    gpu->subsystem_device_id = 0xe471;
    gpu->revision = 0xc8;
    gpu->class_code = 0x030000;
    gpu->vendor_name = xstrdup("Advanced Micro Devices, Inc. [AMD/ATI]");
    gpu->device_name = xstrdup("Navi 31 [Radeon RX 7900 XT/7900 XTX/7900 GRE/7900M]");
    gpu->marketing_name = xstrdup("AMD Radeon RX 7900 XTX");
    gpu->driver = xstrdup("amdgpu");
    gpu->parent = xstrdup("0000:02:00.0");
    gpu->display = true;
    gpu->pcie_type = 0;
    gpu->caps_readable = true;
    gpu->atomic_comp32 = true;
    gpu->atomic_requester = true;
    gpu->current_link_speed = 2.5;
    gpu->max_link_speed = 16.0;
    gpu->current_link_width = 16;
    gpu->max_link_width = 16;
    gpu->bar_sizes = xcalloc(3, sizeof(uint64_t));
    gpu->bar_sizes[0] = UINT64_C(34359738368);
    gpu->bar_sizes[1] = 2 << 20;
    gpu->bar_sizes[2] = UINT64_MAX;
    gpu->n_bar_sizes = 3;
    gpu->resizable_bar = true;
    gpu->numa_node = -1;

    rd_pci_device *bridge = ARRAY_APPEND(f->pci.devices, f->pci.n_devices);
    bridge->address = xstrdup("0000:02:00.0");
    bridge->vendor_id = 0x1002;
    bridge->device_id = 0x1479;
    bridge->class_code = 0x060400;
    bridge->pcie_type = 6;
    bridge->caps_readable = true;
    bridge->atomic_routing = true;
    bridge->atomic_comp64 = true;
    bridge->atomic_comp128 = true;
    bridge->atomic_egress_blocking = true;
    bridge->current_link_speed = 0.1;
    bridge->numa_node = 0;
    f->pci.error = NULL;
}

/* populate: the DRM card and the KFD nodes. */
static void populate_drm_kfd(rd_facts *f)
{
    rd_drm_device *drm = ARRAY_APPEND(f->drm.devices, f->drm.n_devices);
    drm->pci_address = xstrdup("0000:03:00.0");
    drm->card = xstrdup("/dev/dri/card1");
    drm->render = xstrdup("/dev/dri/renderD128");
    drm->render_minor = 128;
    drm->driver = xstrdup("amdgpu");
    drm->product_name = xstrdup("");
    drm->vram_total = UINT64_C(25753026560);
    drm->unique_id = xstrdup("a1ff4b5b8e0c2a3f");
    drm->gc_version = xstrdup("11.0.0");
    f->drm.error = xstrdup("card0: EACCES");

    f->kfd.present = true;
    f->kfd.generation_id = 2;
    rd_kfd_node *cpu = ARRAY_APPEND(f->kfd.nodes, f->kfd.n_nodes);
    cpu->node_id = 0;
    cpu->name = xstrdup("");
    rd_test_kv_add(cpu, "cpu_cores_count", 32);
    rd_test_kv_add(cpu, "simd_count", 0);
    rd_kfd_node *n = ARRAY_APPEND(f->kfd.nodes, f->kfd.n_nodes);
    n->node_id = 1;
    n->name = xstrdup("gfx1100");
    n->gpu_id = 52123;
    rd_test_kv_add(n, "simd_count", 192);
    rd_test_kv_add(n, "gfx_target_version", 110000);
    rd_test_kv_add(n, "lds_Wsize_in_kb", 64);
    rd_test_kv_add(n, "unique_id", BIG_U64);
    rd_test_kv_add(n, "max", UINT64_MAX);
    n->vram_bytes = UINT64_C(25753026560);
    n->error = xstrdup("1 malformed line skipped");
    rd_kfd_node *hidden = ARRAY_APPEND(f->kfd.nodes, f->kfd.n_nodes);
    hidden->node_id = 2;
    hidden->error = xstrdup("EPERM: hidden by the device cgroup (container or scheduler)");
}

/* populate: the driver: parameters, modprobe lines, kernel log. */
static void populate_driver(rd_facts *f)
{
    rd_driver_facts *d = &f->driver;
    d->module_present = true;
    d->initstate = xstrdup("live");
    d->version = xstrdup("6.8.5");
    d->srcversion = xstrdup("E1B9B0A1D2F3C4B5A6978");
    rd_param *p = ARRAY_APPEND(d->parameters, d->n_parameters);
    p->name = xstrdup("ppfeaturemask");
    p->value = xstrdup("0xfff7bfff");
    p = ARRAY_APPEND(d->parameters, d->n_parameters);
    p->name = xstrdup("si_support");
    p->value = xstrdup("-1");
    d->radeon_loaded = true;
    rd_modprobe_line *l = ARRAY_APPEND(d->modprobe, d->n_modprobe);
    l->file = xstrdup("/etc/modprobe.d/blacklist-amdgpu.conf");
    l->line = 3;
    l->directive = xstrdup("blacklist");
    l->module = xstrdup("amdgpu");
    l->args = xstrdup("");
    d->modprobe_shadowed =
        strv_push(d->modprobe_shadowed, xstrdup("/usr/lib/modprobe.d/a.conf (hidden by /etc/modprobe.d/a.conf)"));
    d->modprobe_shadowed = strv_push(d->modprobe_shadowed, xstrdup(""));
    d->cmdline = xstrdup("BOOT_IMAGE=/vmlinuz root=UUID=x ro quiet splash");
    rd_kmsg_record *k = ARRAY_APPEND(d->kmsg, d->n_kmsg);
    k->priority = 4;
    k->seq = UINT64_MAX;
    k->usec = 5678901;
    k->text = xstrdup("kfd kfd: amdgpu: skipped device 1002:67df, PCI rejects atomics 730<0");
    d->kmsg_error = NULL;
}

/* populate: the device nodes, their ACLs and the users. */
static void populate_access(rd_facts *f)
{
    rd_dev_node *node = ARRAY_APPEND(f->access.nodes, f->access.n_nodes);
    node->path = xstrdup("/dev/kfd");
    node->role = xstrdup("kfd");
    node->exists = true;
    node->mode = 0660;
    node->uid = 0;
    node->gid = 992;
    node->group = xstrdup("render");
    node = ARRAY_APPEND(f->access.nodes, f->access.n_nodes);
    node->path = xstrdup("/dev/dri/renderD128");
    node->role = xstrdup("render");
    node->exists = true;
    node->mode = 0660;
    node->gid = 992;
    rd_acl_entry *acl = ARRAY_APPEND(node->acl, node->n_acl);
    acl->tag = xstrdup("user_obj");
    acl->id = -1;
    acl->perm = 6;
    acl = ARRAY_APPEND(node->acl, node->n_acl);
    acl->tag = xstrdup("user");
    acl->id = 1000;
    acl->perm = 6;
    rd_user_facts *u = ARRAY_APPEND(f->access.users, f->access.n_users);
    u->name = xstrdup("alice");
    u->uid = 1000;
    u->gid = 1000;
    u->source = xstrdup("SUDO_USER");
    u->groups = xcalloc(3, sizeof(int64_t));
    u->groups[0] = 1000;
    u->groups[1] = 44;
    u->groups[2] = INT64_MIN;
    u->n_groups = 3;
    u->session_known = true;
    u->session_groups = xcalloc(1, sizeof(int64_t));
    u->session_groups[0] = 1000;
    u->n_session_groups = 1;
    f->access.not_checked = NULL;
}

/* Every field type the schema knows, with the awkward values of each. */
static void populate(rd_facts *f)
{
    rd_facts_init(f);
    f->root = xstrdup("/");

    populate_os(f);
    populate_pci(f);
    populate_drm_kfd(f);
    populate_driver(f);
    populate_access(f);
}

static void test_round_trip(void)
{
    rd_facts f;
    populate(&f);
    rd_facts back;
    round_trip(&f, &back);

    /* spot checks on the C side: what a JSON comparison could hide */
    g_assert_cmpstr(back.schema, ==, RD_FACTS_SCHEMA);
    g_assert_cmpstr(back.os.pretty_name, ==, f.os.pretty_name);
    g_assert_null(back.os.os_release_error);
    g_assert_null(back.os.virtualization);
    g_assert_cmpuint(back.pci.n_devices, ==, 2);
    g_assert_cmpint(back.pci.devices[0].vendor_id, ==, 0x1002);
    g_assert_cmpint(back.pci.devices[0].numa_node, ==, -1);
    g_assert_cmpfloat(back.pci.devices[0].current_link_speed, ==, 2.5);
    g_assert_cmpfloat(back.pci.devices[1].current_link_speed, ==, 0.1);
    g_assert_cmpuint(back.pci.devices[0].n_bar_sizes, ==, 3);
    g_assert_cmpuint(back.pci.devices[0].bar_sizes[2], ==, UINT64_MAX);
    g_assert_true(back.pci.devices[1].atomic_egress_blocking);
    g_assert_false(back.pci.devices[1].atomic_requester);
    g_assert_cmpstr(back.drm.devices[0].product_name, ==, "");
    g_assert_cmpuint(back.kfd.n_nodes, ==, 3);
    const rd_kfd_node *n = &back.kfd.nodes[1];
    g_assert_cmpuint(n->n_properties, ==, 5);
    g_assert_cmpstr(n->properties[2].key, ==, "lds_Wsize_in_kb");
    g_assert_cmpstr(n->properties[3].key, ==, "unique_id");
    g_assert_cmpuint(n->properties[3].value, ==, BIG_U64);
    g_assert_cmpuint(rd_kfd_prop_or(n, "max", 0), ==, UINT64_MAX);
    g_assert_cmpuint(back.kfd.nodes[2].n_properties, ==, 0);
    g_assert_cmpuint(back.driver.kmsg[0].seq, ==, UINT64_MAX);
    g_assert_cmpuint(strv_length(back.driver.modprobe_shadowed), ==, 2);
    g_assert_cmpstr(back.driver.modprobe_shadowed[1], ==, "");
    g_assert_cmpint(back.access.users[0].groups[2], ==, INT64_MIN);
    g_assert_cmpuint(back.access.nodes[1].n_acl, ==, 2);
    g_assert_cmpint(back.access.nodes[1].acl[1].id, ==, 1000);

    rd_facts_free(&back);
    rd_facts_free(&f);
}

static void test_round_trip_empty(void)
{
    rd_facts f;
    rd_facts_init(&f);
    rd_facts back;
    round_trip(&f, &back);
    g_assert_cmpuint(back.pci.n_devices, ==, 0);
    g_assert_null(back.driver.modprobe_shadowed);
    rd_facts_free(&back);
    rd_facts_free(&f);
}

static void test_duplicate_property_keys(void)
{
    /* The KFD parser keeps a repeated key and look-ups take the first; a
     * replayed facts file must answer the same. */
    rd_facts f;
    rd_facts_init(&f);
    rd_kfd_node *n = ARRAY_APPEND(f.kfd.nodes, f.kfd.n_nodes);
    rd_test_kv_add(n, "simd_count", 4);
    rd_test_kv_add(n, "simd_count", 0);
    rd_facts back;
    round_trip(&f, &back);
    g_assert_cmpuint(rd_kfd_prop_or(&back.kfd.nodes[0], "simd_count", 99), ==,
                     rd_kfd_prop_or(&f.kfd.nodes[0], "simd_count", 99));
    rd_facts_free(&back);
    rd_facts_free(&f);
}

static void test_minimal_and_unknown_keys(void)
{
    rd_facts f;
    g_autofree char *err = NULL;
    g_assert_cmpint(rd_facts_from_json_string("{\"schema\": \"rocm-doctor-facts/1\"}", &f, &err), ==, 0);
    g_assert_cmpstr(f.schema, ==, RD_FACTS_SCHEMA);
    g_assert_cmpuint(f.pci.n_devices, ==, 0);
    g_assert_false(f.kfd.present);
    rd_facts_free(&f);

    /* fields from newer versions are ignored; null strings are NULL */
    g_assert_cmpint(rd_facts_from_json_string("{\"schema\": \"rocm-doctor-facts/1\", \"future\": [1, {}],"
                                              " \"os\": {\"id\": null, \"new_field\": true, \"wsl\": true}}\n\n",
                                              &f, &err),
                    ==, 0);
    g_assert_null(f.os.id);
    g_assert_true(f.os.wsl);
    rd_facts_free(&f);

    /* integers are numbers for doubles */
    g_assert_cmpint(rd_facts_from_json_string("{\"schema\": \"rocm-doctor-facts/1\", \"pci\": {\"devices\": "
                                              "[{\"max_link_speed\": 16}]}}",
                                              &f, &err),
                    ==, 0);
    g_assert_cmpfloat(f.pci.devices[0].max_link_speed, ==, 16.0);
    rd_facts_free(&f);
}

static void expect_error(const char *text, const char *message)
{
    rd_facts f = { .tool_version = (char *)"untouched" };
    g_autofree char *err = NULL;
    int r = rd_facts_from_json_string(text, &f, &err);
    g_assert_cmpint(r, ==, -EINVAL);
    if (r == 0) {
        rd_facts_free(&f);
        return;
    }
    g_assert_cmpstr(err, ==, message);
    g_assert_cmpstr(f.tool_version, ==, "untouched");
}

static void expect_error_prefix(const char *text, const char *prefix)
{
    rd_facts f = { 0 };
    g_autofree char *err = NULL;
    int r = rd_facts_from_json_string(text, &f, &err);
    g_assert_cmpint(r, ==, -EINVAL);
    if (r == 0) {
        rd_facts_free(&f);
        return;
    }
    g_assert_nonnull(err);
    if (err && !g_str_has_prefix(err, prefix)) {
        g_test_message("\"%s\" does not start with \"%s\"", err, prefix);
        g_test_fail();
    }
}

#define HEAD "{\"schema\": \"rocm-doctor-facts/1\", "

static void test_not_json(void)
{
    expect_error_prefix("", "not valid JSON near byte 0");
    expect_error_prefix("hello", "not valid JSON near byte");
    expect_error_prefix("\xff\xfe{}", "not valid JSON near byte 0");
    expect_error("{\"schema\": \"rocm-doctor-facts/1\", \"os\": {",
                 "not valid JSON near byte 41: unexpected end of file");
    expect_error_prefix("{\"schema\": \"rocm-doctor-facts/1\", \"os\": {\"id\": \"ubu", "not valid JSON near byte");
    expect_error("{\"schema\": \"rocm-doctor-facts/1\"} x", "trailing data after the JSON document at byte 34");
    expect_error("{\"schema\": \"rocm-doctor-facts/1\"}{}", "trailing data after the JSON document at byte 33");

    /* the NUL ends the text */
    static const char with_nul[] = "{\"schema\": \"rocm-doctor-facts/1\"\0}";
    expect_error(with_nul, "not valid JSON near byte 32: unexpected end of file");

    /* nesting deeper than the parser allows */
    GString *deep = g_string_new(HEAD "\"future\": ");
    for (int i = 0; i < 200; i++)
        g_string_append_c(deep, '[');
    for (int i = 0; i < 200; i++)
        g_string_append_c(deep, ']');
    g_string_append_c(deep, '}');
    expect_error_prefix(deep->str, "not valid JSON near byte");
    g_string_free(deep, TRUE);
}

static void test_schema(void)
{
    const char *no_schema = "not a rocm-doctor facts file (no \"schema\" key; expected \"rocm-doctor-facts/1\")";
    expect_error("{}", no_schema);
    expect_error("[]", no_schema);
    expect_error("\"rocm-doctor-facts/1\"", no_schema);
    expect_error("{\"schema\": 1}", no_schema);
    expect_error("{\"schema\": null}", no_schema);
    expect_error("{\"Schema\": \"rocm-doctor-facts/1\"}", no_schema);
    expect_error("{\"schema\": \"rocm-doctor-facts/2\"}",
                 "unsupported schema \"rocm-doctor-facts/2\" (this version reads \"rocm-doctor-facts/1\")");
    expect_error("{\"schema\": \"rocm-doctor/1\"}",
                 "unsupported schema \"rocm-doctor/1\" (this version reads \"rocm-doctor-facts/1\")");
}

static void test_wrong_types(void)
{
    expect_error(HEAD "\"pci\": {\"devices\": [{\"vendor_id\": \"0x1002\"}]}}",
                 "pci.devices[0].vendor_id: expected an integer");
    expect_error(HEAD "\"pci\": {\"devices\": [{}, {\"vendor_id\": 4098.5}]}}",
                 "pci.devices[1].vendor_id: expected an integer");
    expect_error(HEAD "\"os\": {\"id\": 5}}", "os.id: expected a string");
    expect_error(HEAD "\"os\": {\"wsl\": 1}}", "os.wsl: expected true or false");
    expect_error(HEAD "\"os\": {\"wsl\": null}}", "os.wsl: expected true or false");
    expect_error(HEAD "\"os\": []}", "os: expected an object");
    expect_error(HEAD "\"os\": null}", "os: expected an object");
    expect_error(HEAD "\"tool_version\": {}}", "tool_version: expected a string");
    expect_error(HEAD "\"pci\": {\"devices\": {}}}", "pci.devices: expected an array of objects");
    expect_error(HEAD "\"pci\": {\"devices\": [5]}}", "pci.devices[0]: expected an object");
    expect_error(HEAD "\"pci\": {\"devices\": [{\"current_link_speed\": \"16 GT/s\"}]}}",
                 "pci.devices[0].current_link_speed: expected a number");
    expect_error(HEAD "\"pci\": {\"devices\": [{\"current_link_speed\": NaN}]}}",
                 "pci.devices[0].current_link_speed: expected a finite number");
    expect_error(HEAD "\"pci\": {\"devices\": [{\"bar_sizes\": [1, -1]}]}}",
                 "pci.devices[0].bar_sizes: expected an array of unsigned integers");
    expect_error(HEAD "\"pci\": {\"devices\": [{\"bar_sizes\": 5}]}}",
                 "pci.devices[0].bar_sizes: expected an array of integers");
    expect_error(HEAD "\"driver\": {\"modprobe_shadowed\": [\"a\", 1]}}",
                 "driver.modprobe_shadowed: expected an array of strings");
    expect_error(HEAD "\"driver\": {\"modprobe_shadowed\": \"a\"}}",
                 "driver.modprobe_shadowed: expected an array of strings");
    expect_error(HEAD "\"driver\": {\"kmsg\": [{\"seq\": 1.5}]}}", "driver.kmsg[0].seq: expected an unsigned integer");
    expect_error(HEAD "\"access\": {\"users\": [{\"groups\": [1, \"video\"]}]}}",
                 "access.users[0].groups: expected an array of integers");
    expect_error(HEAD "\"access\": {\"nodes\": [{}, {\"acl\": [{\"tag\": \"user\", \"perm\": \"rw\"}]}]}}",
                 "access.nodes[1].acl[0].perm: expected an integer");
    expect_error(HEAD "\"kfd\": {\"nodes\": [{\"properties\": []}]}}",
                 "kfd.nodes[0].properties: expected an object of unsigned integers");
    expect_error(HEAD "\"kfd\": {\"nodes\": [{\"properties\": {\"simd_count\": \"4\"}}]}}",
                 "kfd.nodes[0].properties.simd_count: expected an unsigned integer");
}

static void test_unsigned(void)
{
    expect_error(HEAD "\"kfd\": {\"nodes\": [{\"vram_bytes\": -1}]}}",
                 "kfd.nodes[0].vram_bytes: expected an unsigned integer");
    expect_error(HEAD "\"drm\": {\"devices\": [{\"vram_total\": -9223372036854775808}]}}",
                 "drm.devices[0].vram_total: expected an unsigned integer");
    expect_error(HEAD "\"kfd\": {\"nodes\": [{\"properties\": {\"simd_count\": 4, \"hive_id\": -5}}]}}",
                 "kfd.nodes[0].properties.hive_id: expected an unsigned integer");
    expect_error(HEAD "\"kfd\": {\"nodes\": [{\"vram_bytes\": 1e3}]}}",
                 "kfd.nodes[0].vram_bytes: expected an unsigned integer");

    rd_facts f;
    g_autofree char *err = NULL;
    g_assert_cmpint(rd_facts_from_json_string(HEAD "\"kfd\": {\"nodes\": [{\"vram_bytes\": 18446744073709551615,"
                                                   " \"properties\": {\"unique_id\": 16404946649897475633}}]}}",
                                              &f, &err),
                    ==, 0);
    g_assert_cmpuint(f.kfd.nodes[0].vram_bytes, ==, UINT64_MAX);
    g_assert_cmpuint(f.kfd.nodes[0].properties[0].value, ==, BIG_U64);
    rd_facts_free(&f);
}

static void test_signed_range(void)
{
    /* above INT64_MAX does not fit a signed field: it must not turn into INT64_MAX */
    expect_error(HEAD "\"pci\": {\"devices\": [{\"vendor_id\": 9223372036854775808}]}}",
                 "pci.devices[0].vendor_id: expected an integer in range");

    rd_facts f;
    g_autofree char *err = NULL;
    /* the extremes of an integer field without a range of its own (a PCI id
     * has one since facts are range-checked on load: see test-files-cli.py) */
    g_assert_cmpint(rd_facts_from_json_string(HEAD "\"kfd\": {\"generation_id\": 9223372036854775807,"
                                                   " \"nodes\": [{\"node_id\": -9223372036854775808}]}}",
                                              &f, &err),
                    ==, 0);
    g_assert_cmpint(f.kfd.generation_id, ==, INT64_MAX);
    g_assert_cmpint(f.kfd.nodes[0].node_id, ==, INT64_MIN);
    rd_facts_free(&f);
}

static void test_large_input(void)
{
    /* 10 MB of junk inside an array: a clean parse error, no crash */
    GString *s = g_string_new(HEAD "\"pci\": {\"devices\": [");
    while (s->len < 10 * 1024 * 1024)
        g_string_append(s, "junk, ");
    g_string_append(s, "]}}");
    expect_error_prefix(s->str, "not valid JSON near byte");
    g_string_free(s, TRUE);

    /* 10 MB of well-formed JSON of the wrong type: the path names the first one */
    s = g_string_new(HEAD "\"pci\": {\"devices\": [");
    while (s->len < 10 * 1024 * 1024)
        g_string_append(s, "123456789, ");
    g_string_append(s, "0]}}");
    expect_error(s->str, "pci.devices[0]: expected an object");
    g_string_free(s, TRUE);

    /* and a large valid array is read whole */
    s = g_string_new(HEAD "\"access\": {\"users\": [{\"groups\": [");
    for (int i = 0; i < 100000; i++)
        g_string_append_printf(s, "%d, ", i);
    g_string_append(s, "-1]}]}}");
    rd_facts f;
    g_autofree char *err = NULL;
    g_assert_cmpint(rd_facts_from_json_string(s->str, &f, &err), ==, 0);
    g_assert_cmpuint(f.access.users[0].n_groups, ==, 100001);
    g_assert_cmpint(f.access.users[0].groups[99999], ==, 99999);
    g_assert_cmpint(f.access.users[0].groups[100000], ==, -1);
    rd_facts_free(&f);
    g_string_free(s, TRUE);
}

static void test_load_file(void)
{
    GError *error = NULL;
    g_autofree char *dir = g_dir_make_tmp("rocm-doctor-facts-XXXXXX", &error);
    g_assert_no_error(error);
    g_autofree char *path = g_build_filename(dir, "facts.json", NULL);

    rd_facts f;
    populate(&f);
    g_autofree char *text = to_string(&f);
    rd_facts_free(&f);
    g_file_set_contents(path, text, -1, &error);
    g_assert_no_error(error);
    g_autofree char *err = NULL;
    g_assert_cmpint(rd_facts_load(path, &f, &err), ==, 0);
    g_autofree char *again = to_string(&f);
    g_assert_cmpstr(text, ==, again);
    rd_facts_free(&f);

    static const char with_nul[] = "{\"schema\": \"rocm-doctor-facts/1\"}\0 trailing";
    g_file_set_contents(path, with_nul, sizeof with_nul - 1, &error);
    g_assert_no_error(error);
    g_assert_cmpint(rd_facts_load(path, &f, &err), ==, -EINVAL);
    g_autofree char *nul_msg = g_strdup_printf("%s: contains a NUL byte: not a JSON facts file", path);
    g_assert_cmpstr(err, ==, nul_msg);
    g_clear_pointer(&err, g_free);

    g_file_set_contents(path, "{\"schema\": \"other\"}", -1, &error);
    g_assert_no_error(error);
    g_assert_cmpint(rd_facts_load(path, &f, &err), ==, -EINVAL);
    g_autofree char *schema_msg =
        g_strdup_printf("%s: unsupported schema \"other\" (this version reads \"rocm-doctor-facts/1\")", path);
    g_assert_cmpstr(err, ==, schema_msg);
    g_clear_pointer(&err, g_free);

    g_unlink(path);
    g_assert_cmpint(rd_facts_load(path, &f, &err), ==, -ENOENT);
    g_autofree char *enoent_msg = g_strdup_printf("%s: No such file or directory", path);
    g_assert_cmpstr(err, ==, enoent_msg);
    g_rmdir(dir);
}

static const rd_test_case tests[] = {
    { "/facts/json/round-trip", test_round_trip },
    { "/facts/json/round-trip-empty", test_round_trip_empty },
    { "/facts/json/duplicate-property-keys", test_duplicate_property_keys },
    { "/facts/json/minimal-and-unknown-keys", test_minimal_and_unknown_keys },
    { "/facts/json/not-json", test_not_json },
    { "/facts/json/schema", test_schema },
    { "/facts/json/wrong-types", test_wrong_types },
    { "/facts/json/unsigned", test_unsigned },
    { "/facts/json/signed-range", test_signed_range },
    { "/facts/json/large-input", test_large_input },
    { "/facts/load", test_load_file },
};

RD_TEST_MAIN(tests, true)
