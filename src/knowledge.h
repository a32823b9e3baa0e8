/* SPDX-License-Identifier: MIT */
/* Knowledge that changes with ROCm and kernel releases, loaded at run time
 * from the versioned INI tables in conf/ (installed under the data dir). */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef enum {
    RD_ATOMICS_UNKNOWN,
    RD_ATOMICS_REQUIRED,
    RD_ATOMICS_NOT_REQUIRED,
    RD_ATOMICS_FIRMWARE, /* required unless MEC firmware >= atomics_fw */
} rd_atomics_rule;

typedef struct {
    char *gfx;
    uint32_t gfx_target_version;
    char *codename;
    char *family;
    bool apu;
    rd_atomics_rule atomics;
    uint32_t atomics_fw;
    char *override;
} rd_arch;

typedef struct {
    uint16_t device_id;
    char *gfx;
} rd_pci_id;

typedef struct {
    char *name, *version, *date;
} rd_table_info;

typedef struct {
    rd_arch *archs;
    size_t n_archs;
    rd_pci_id *pci_ids;
    size_t n_pci_ids;
    rd_pci_id *apu_pci_ids;      /* gfx holds the product name here */
    size_t n_apu_pci_ids;
    rd_table_info archs_info, pci_ids_info;
} rd_knowledge;

/* Loads archs.ini and pci-ids.ini from dir. A malformed table fails with
 * *ret_error naming the file and line. */
int rd_knowledge_load(const char *dir, rd_knowledge *ret, char **ret_error);
int rd_knowledge_load_archs(const char *path, rd_knowledge *k, char **ret_error);
int rd_knowledge_load_pci_ids(const char *path, rd_knowledge *k, char **ret_error);
void rd_knowledge_free(rd_knowledge *k);

const rd_arch *rd_knowledge_arch(const rd_knowledge *k, const char *gfx);
const rd_arch *rd_knowledge_arch_by_version(const rd_knowledge *k, uint32_t gfx_target_version);
const char *rd_knowledge_gfx_for_pci_id(const rd_knowledge *k, uint16_t device_id);
bool rd_knowledge_is_apu_pci_id(const rd_knowledge *k, uint16_t device_id);

/* gfx_target_version 90010 -> "gfx90a": major in decimal, minor and stepping
 * in hex, as KFD and the compiler spell targets. Returns false for 0 (CPU)
 * and for values that do not encode a target. */
bool rd_gfx_name(uint64_t gfx_target_version, char *buf, size_t size);

/* The support matrix (conf/support.ini). The newest ROCm release that
 * supports every gfx target in gfx[] on this OS (os-release ID and
 * VERSION_ID), e.g. "6.2.4"; NULL when none does or the table does not say. */
const char *rd_knowledge_pick_release(const rd_knowledge *k, const char *os_id, const char *os_version_id,
                                      char *const *gfx, size_t n_gfx);
/* The apt suite of repo.radeon.com for a ROCm release on an OS codename:
 * the codename ("noble", "jammy") for 6.x, "ubuntu" for 5.x; NULL when the
 * table has no such release. */
const char *rd_knowledge_apt_suite(const rd_knowledge *k, const char *release, const char *codename);
