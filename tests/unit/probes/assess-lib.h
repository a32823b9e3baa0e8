/* SPDX-License-Identifier: MIT */
/* Facts built in C the way the probes record them, assessed through the
 * whole probe table, and checks of the findings: what the assess tests of
 * the probe areas share (test-pci.c, test-driver.c, test-kfd.c,
 * test-access.c, test-os.c, test-registry.c, core/test-findings.c,
 * core/test-distro.c). */
#pragma once

#include <glib.h>

#include "testlib.h"
#include "check.h"
#include "registry.h"
#include "context.h"
#include "facts.h"
#include "findings.h"
#include "distro.h"
#include "report.h"
#include "util.h"

#define GIB (UINT64_C(1) << 30)
#define MIB (UINT64_C(1) << 20)
#define RENDER_GID 992
#define VIDEO_GID 44
#define NAVI31 "0000:03:00.0"
#define NAVI31_NAME "AMD Radeon RX 7900 XTX"
#define NAVI31_UPSTREAM "0000:01:00.0"
#define ROOT_PORT "0000:00:01.1"

/* The shipped tables, loaded by RD_TEST_MAIN_KNOWLEDGE. */
extern rd_knowledge knowledge;

enum {
    WITH_DRIVER = 1 << 0, /* amdgpu loaded and bound, DRM node present */
    WITH_KFD = 1 << 1,    /* KFD present with the GPU's node */
    WITH_ACCESS = 1 << 2, /* /dev/kfd and the render node 0660 root:render, alice in render */
    HEALTHY = WITH_DRIVER | WITH_KFD | WITH_ACCESS,
};

typedef struct {
    rd_gpu_view view;
    rd_findings fs;
} result;

rd_pci_device *add_pci(rd_facts *f, const char *address, int64_t vendor, int64_t device, int64_t class_code,
                       const char *parent);
rd_pci_device *add_port(rd_facts *f, const char *address, int64_t vendor, int64_t device, int type, const char *parent);
void set_link(rd_pci_device *d, double cur_speed, int64_t cur_width, double max_speed, int64_t max_width);
void add_cpu_node(rd_facts *f);
rd_kfd_node *add_gpu_node(rd_facts *f, uint64_t location_id, uint64_t gfx_target_version, uint64_t device_id);
void add_kmsg(rd_facts *f, int64_t priority, const char *text);
void add_modprobe(rd_facts *f, const char *file, int64_t line, const char *directive, const char *module,
                  const char *args);
rd_dev_node *add_dev_node(rd_facts *f, const char *path, const char *role, int64_t mode, int64_t gid,
                          const char *group);
int64_t *gid_list(size_t n, const int64_t *src);
rd_user_facts *add_user(rd_facts *f, const char *name, int64_t uid, const int64_t *groups, size_t n_groups);
/* The first user's groups. */
void set_user_groups(rd_facts *f, const int64_t *groups, size_t n);
void navi31_host(rd_facts *f, unsigned what);
rd_pci_device *find_pci(rd_facts *f, const char *address);
void assess(const rd_facts *f, result *r);
void result_free(result *r);
char *ids_of(const rd_findings *fs);
void assert_ids(const rd_findings *fs, const char *expected);
const rd_finding *get(const rd_findings *fs, const char *id);
void assert_evidence(const rd_finding *f, size_t index, const char *expected);
void assert_n_evidence(const rd_finding *f, size_t n);
void assert_contains(const char *haystack, const char *needle);
