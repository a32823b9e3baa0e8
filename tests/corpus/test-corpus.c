/* SPDX-License-Identifier: MIT */
/* Replays every KFD topology found under $ROCM_DOCTOR_CORPUS (real dumps from
 * real machines) through the topology reader and the assess step: every tree
 * parses, every GPU node gets the gfx target the machine really has, and no
 * finding comes without evidence. Without the variable, the folder given as
 * its argument (meson passes ../shared/corpus beside the source tree); skips
 * (77) when neither names a folder. */
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <sys/stat.h>
#include "check.h"
#include "registry.h"
#include "context.h"
#include "gpus.h"
#include "kfd.h"
#include "util.h"

/* What the machines behind the dumps are (their documentation says so). */
static const struct {
    const char *suffix;
    const char *gfx; /* every GPU node */
    size_t gpu_nodes;
} expected[] = {
    { "rocm-k8s-device-plugin/testdata/topo-mi300-cpx/topology", "gfx942", 63 },
    { "rocm-k8s-device-plugin/testdata/topology-parsing-mi308/topology", "gfx942", 32 },
    { "rocm-k8s-device-plugin/testdata/topo-mi210-xgmi-pcie", "gfx90a", 8 },
    { "rocm-k8s-device-plugin/testdata/topology-parsing/topology", "gfx900", 2 },
    { "issues/mi300a-4socket-test-resources/topology", "gfx942", 4 },
    { "lact/tests/snapshots/amd/phoenix/kfd/topology", "gfx1103", 1 },
    { "lact/tests/snapshots/amd/strixpoint/kfd/topology", "gfx1150", 1 },
    { "lact/tests/snapshots/amd/vangogh/kfd/topology", "gfx1033", 1 },
    { "mrodden-rocmi/sys/class/kfd/kfd/topology", "gfx908", 1 },
    { "tinygrad-mockgpu", "gfx1100", 1 },
    { "rocprofiler-sdk-testdata/topology", NULL, 6 },
};

static int failures, topologies;
static rd_knowledge knowledge;

#define FAIL(...)                                                                                                      \
    do {                                                                                                               \
        failures++;                                                                                                    \
        printf("not ok - " __VA_ARGS__);                                                                               \
        putchar('\n');                                                                                                 \
    } while (0)

static const char *node_gfx(const rd_kfd_node *n, char *buf, size_t size)
{
    uint64_t v;
    if (rd_kfd_prop(n, "gfx_target_version", &v))
        return rd_gfx_name(v, buf, size) ? buf : NULL;
    /* old kernels lack the key: the PCI id table is how tools name those */
    if (!rd_kfd_prop(n, "device_id", &v))
        return NULL;
    const char *g = rd_knowledge_gfx_for_pci_id(&knowledge, (uint16_t)v);
    return g ? snprintf(buf, size, "%s", g), buf : NULL;
}

static void replay(const char *dir)
{
    rd_facts f;
    rd_facts_init(&f);
    f.kfd.present = true;
    if (rd_kfd_read_topology(dir, &f.kfd) < 0) {
        FAIL("%s: unreadable: %s", dir, strempty(f.kfd.error));
        rd_facts_free(&f);
        return;
    }
    topologies++;
    size_t gpus = 0;
    const char *want = NULL;
    size_t want_n = SIZE_MAX;
    for (size_t i = 0; i < ELEMENTSOF(expected); i++)
        if (endswith(dir, expected[i].suffix)) {
            want = expected[i].gfx;
            want_n = expected[i].gpu_nodes;
        }
    for (size_t i = 0; i < f.kfd.n_nodes; i++) {
        const rd_kfd_node *n = &f.kfd.nodes[i];
        if (!rd_kfd_node_is_gpu(n))
            continue;
        gpus++;
        char buf[16];
        const char *gfx = node_gfx(n, buf, sizeof buf);
        if (!gfx)
            FAIL("%s node %" PRId64 ": no gfx target", dir, n->node_id);
        else if (!rd_knowledge_arch(&knowledge, gfx))
            FAIL("%s node %" PRId64 ": %s is not in archs.ini", dir, n->node_id, gfx);
        else if (want && !streq(want, gfx))
            FAIL("%s node %" PRId64 ": %s, expected %s", dir, n->node_id, gfx, want);
        uint64_t dev;
        const char *hint =
            rd_kfd_prop(n, "device_id", &dev) ? rd_knowledge_gfx_for_pci_id(&knowledge, (uint16_t)dev) : NULL;
        if (gfx && hint && !streq(hint, gfx))
            FAIL("%s node %" PRId64 ": pci-ids.ini says %s for %04" PRIx64 ", KFD says %s", dir, n->node_id, hint, dev,
                 gfx);
    }
    if (want_n != SIZE_MAX && gpus != want_n)
        FAIL("%s: %zu GPU nodes, expected %zu", dir, gpus, want_n);

    rd_gpu_view v;
    rd_findings fs;
    rd_assess(&rd_probe_registry, &f, &knowledge, &v, &fs);
    for (size_t i = 0; i < fs.n; i++)
        if (!fs.items[i].evidence || !fs.items[i].evidence[0])
            FAIL("%s: finding %s without evidence", dir, fs.items[i].id);
    printf("ok - %s: %zu nodes, %zu GPU nodes\n", dir, f.kfd.n_nodes, gpus);
    rd_findings_free(&fs);
    rd_gpu_view_free(&v);
    rd_facts_free(&f);
}

/* A loose "cat properties" capture (issue reports): parse it as one node. */
static void replay_file(const char *path)
{
    _cleanup_free_ char *text = NULL;
    if (read_file_at(AT_FDCWD, path, 1 << 20, &text, NULL) < 0) {
        FAIL("%s: unreadable", path);
        return;
    }
    rd_kv *kv;
    size_t n, bad;
    if (rd_kfd_parse_properties(text, &kv, &n, &bad) < 0 || n == 0)
        FAIL("%s: no properties parsed", path);
    else
        printf("ok - %s: %zu keys, %zu lines skipped\n", path, n, bad);
    for (size_t i = 0; i < n; i++)
        free(kv[i].key);
    free(kv);
}

static void walk(const char *dir, int depth)
{
    if (depth > 24)
        return;
    _cleanup_close_ int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0)
        return;
    _cleanup_free_ char *nodes = xasprintf("%s/nodes", dir);
    struct stat st;
    if (stat(nodes, &st) == 0 && S_ISDIR(st.st_mode))
        replay(dir);
    _cleanup_strv_free_ char **names = dir_names(fd, dir_name_visible, NULL, NULL);
    for (size_t i = 0; names && names[i]; i++) {
        if (streq(names[i], "nodes"))
            continue;
        _cleanup_free_ char *p = xasprintf("%s/%s", dir, names[i]);
        if (lstat(p, &st) < 0)
            continue;
        if (S_ISDIR(st.st_mode))
            walk(p, depth + 1);
        else if (S_ISREG(st.st_mode) && strstr(names[i], "properties") && !streq(names[i], "system_properties") &&
                 !streq(names[i], "properties"))
            replay_file(p);
    }
}

int main(int argc, char **argv)
{
    const char *corpus = getenv("ROCM_DOCTOR_CORPUS");
    struct stat st;
    if ((!corpus || !*corpus) && argc > 1 && stat(argv[1], &st) == 0 && S_ISDIR(st.st_mode))
        corpus = argv[1];
    if (!corpus || !*corpus) {
        printf("1..0 # SKIP ROCM_DOCTOR_CORPUS is not set and %s is not a folder\n", argc > 1 ? argv[1] : "(none)");
        return 77;
    }
    _cleanup_free_ char *err = NULL;
    if (rd_knowledge_load(rd_data_dir(), &knowledge, &err) < 0) {
        printf("Bail out! %s\n", err);
        return 1;
    }
    walk(corpus, 0);
    if (topologies < (int)ELEMENTSOF(expected))
        FAIL("found %d topologies under %s, expected at least %zu", topologies, corpus, ELEMENTSOF(expected));
    rd_knowledge_free(&knowledge);
    printf("%d topologies, %d failures\n", topologies, failures);
    return failures ? 1 : 0;
}
