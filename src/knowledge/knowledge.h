/* SPDX-License-Identifier: MIT */
/* Knowledge that changes with ROCm and kernel releases, loaded at run time
 * from the versioned INI tables in conf/ (installed under the data dir). */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "facts.h"

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
    char *override;      /* NULL: none (safe value unknown or none exists) */
    bool override_known; /* the table gave a value or an explicit "none" */
    bool no_kfd;         /* no kernel's KFD drives it (SI, Bonaire, Kabini): never ROCm */
} rd_arch;

typedef struct {
    uint16_t device_id;
    char *gfx;
} rd_pci_id;

typedef struct {
    char *name, *version, *date;
} rd_table_info;

/* conf/support.ini: one OS a release supports. */
typedef struct {
    char *id, *version_id; /* os-release ID and VERSION_ID */
    char *codename;        /* VERSION_CODENAME; NULL for an OS without apt */
    char *apt_suite;       /* the suite of AMD's repository for it; NULL without apt */
    char *tree;            /* the OS part of AMD's rpm repository paths ({os}): "9.6", "10",
                                  * "15.6"; the VERSION_ID unless the line says "tree TREE" */
    char **kernels;        /* validated kernel series, "6.8" */
} rd_release_os;

typedef enum {
    RD_WINDOW_RELEASES, /* driver and user space at most N release lines apart */
    RD_WINDOW_MONTHS,   /* ... at most N months apart */
} rd_window_kind;

/* One ROCm release line, e.g. 6.2 (latest 6.2.4). */
typedef struct {
    char *line;   /* "6.2" */
    char *latest; /* "6.2.4" */
    char *date;   /* "2024-08": when X.Y.0 came out */
    char **gfx;   /* officially supported targets */
    char **deprecated;
    bool apt_suite_ubuntu; /* the 5.x repositories: suite "ubuntu" */
    char *dkms;            /* amdgpu-dkms driver version it ships, "6.8.5" */
    rd_window_kind window_kind;
    uint32_t window;
    rd_release_os *os;
    size_t n_os;
} rd_release;

/* conf/health.ini [vram]: a product and the memory it has, per PCI device
 * id (and revision where one id covers boards with different memory). */
typedef struct {
    uint16_t device_id;
    int16_t revision;    /* -1: any */
    uint64_t vram_bytes; /* 0: "shared", an integrated GPU (system RAM) */
    char *product;
} rd_product_memory;
/* conf/health.ini [vram-left-out]: an id [vram] leaves out on purpose. */
typedef struct {
    uint16_t device_id;
    int16_t revision; /* -1: any */
    char *reason;
} rd_product_left_out;
/* conf/health.ini [firmware-known-bad]: a firmware version (sysfs
 * fw_version/NAME_fw_version) that AMD has acknowledged as broken on a
 * target. */
typedef struct {
    char *gfx;  /* "gfx1151" */
    char *name; /* "mes" */
    uint32_t version;
    char *reason; /* what goes wrong, and the source */
} rd_firmware_bad;
/* [rpm]: AMD's rpm repositories and their prerequisites. */
typedef struct {
    char *host;        /* repo.radeon.com */
    char *fingerprint; /* 40 hex digits, upper case */
    char *gpgkey;      /* the key URL AMD's .repo files name */
    char **crb_repos;  /* ids of CRB/PowerTools repositories (fnmatch patterns) */
    char **epel_repos;
    char **crb_packages; /* what ROCm needs from them */
    char **epel_packages;
    char **sles_modules; /* SUSEConnect modules AMD lists */
    char **sles_repos;   /* zypper repositories AMD adds (ids, fnmatch patterns) */
} rd_rpm_info;

/* conf/wheels.ini: a GPU family the ROCm wheels (TheRock) are built for. */
typedef struct {
    char *name; /* "gfx94X-dcgpu", as the table spells it */
    char **gfx; /* its targets */
    bool index; /* AMD publishes a pip index for it */
} rd_wheel_family;

/* conf/packages.ini: what setup installs. A use case names its packages
 * per package manager (apt, dnf, zypper). */
typedef struct {
    char *name; /* "rocm", "runtime", "driver" */
    char *summary;
    char *since; /* the first ROCm release that ships it ("6.0"), or NULL */
    char **apt, **dnf, **zypper;
    bool driver; /* the kernel driver: planned only where the rule says so */
} rd_usecase;

typedef struct {
    rd_usecase *usecases;
    size_t n_usecases;
    char **default_usecases; /* when setup is given none */
    char **headers[3];       /* apt, dnf, zypper; {kernel}: the running kernel's release */
    char **shadow[3];        /* distribution packages that shadow AMD's (removed by setup) */
    char **dkms_gfx;         /* targets for which AMD's driver is the supported one */
    char **inbox_kernel;     /* "gfx1100:6.2": the first kernel whose amdgpu serves a target */
    rd_table_info info;
} rd_packages_table;

/* conf/repos.ini: the folders AMD serves for one ROCm release, as AMD's
 * install instructions of that release write them. A path is relative to
 * the repository base (AMD's server or a mirror laid out the same way);
 * its only placeholders name the OS: {suite} (the apt suite), {major} (the
 * EL major), {os} (the OS tree: "9.6", "10", "15.6"). */
typedef enum {
    RD_REPO_APT,  /* Ubuntu, and Debian through AMD's Ubuntu suites */
    RD_REPO_EL,   /* RHEL and its rebuilds (dnf) */
    RD_REPO_SLES, /* SLES (zypper) */
    RD_REPO_N_FAMILIES,
} rd_repo_family;
typedef enum {
    RD_REPO_ROCM,
    RD_REPO_AMDGPU,    /* the kernel driver (amdgpu-dkms) */
    RD_REPO_GRAPHICS,  /* 7.x: the user-space graphics stack */
    RD_REPO_INSTALLER, /* the amdgpu-install package (a file, not a folder) */
    RD_REPO_N_KINDS,
} rd_repo_kind;

typedef struct {
    char *release; /* "6.4.0" */
    char *date;    /* "2025-04-11" */
    char *driver;  /* the version in the driver's folders: "6.4", "30.10.1" */
    char *apt_rocm, *apt_amdgpu, *apt_graphics, *apt_installer;
    char *el_rocm, *el_amdgpu, *el_graphics, *el_installer;
    char *sles_rocm, *sles_amdgpu, *sles_graphics, *sles_installer;
    char **suites;     /* the Ubuntu suites its apt folders serve */
    char **el_trees;   /* the EL trees ({os}) of its rpm folders */
    char **sles_trees; /* the SLES trees */
    char **also;       /* other folders AMD serves for it (a driver hotfix): accepted, never written */
    char **sources;    /* where each fact was read */
} rd_repo_row;

/* The OS parts a path is expanded with (NULL: unknown). */
typedef struct {
    const char *suite, *major, *os;
} rd_repo_os;

/* What a repository path (a URL without its base) is. */
typedef struct {
    rd_repo_family family;
    rd_repo_kind kind;
    const rd_repo_row *row;    /* the row that serves exactly this folder; NULL: none */
    char *version;             /* the version the path names: "6.4.0", "30.10", "debian" */
    bool versioned;            /* version is a number ("latest" and "debian" are not) */
    const rd_repo_row *meant;  /* no row serves it: the release that version names */
    const rd_repo_row *os_row; /* a row that serves this folder, but for other OS trees */
    bool newer;                /* the version is newer than the table knows */
    bool older;                /* ... older than the table knows (before its first release) */
    char *major, *os;          /* the OS parts the path names (rpm) */
} rd_repo_match;

/* The tables, as bits: which to load now (rd_knowledge_open) and which a
 * query needs (rd_knowledge_need). */
enum {
    RD_KT_ARCHS = 1u << 0,
    RD_KT_PCI_IDS = 1u << 1,
    RD_KT_SUPPORT = 1u << 2, /* needs archs.ini: its gfx lists name its targets */
    RD_KT_HEALTH = 1u << 3,
    RD_KT_WHEELS = 1u << 4,
    RD_KT_PACKAGES = 1u << 5,
    RD_KT_REPO_KEY = 1u << 6, /* repos.ini's [table] and [key] */
    RD_KT_REPOS = 1u << 7,    /* ... and its release rows */
    RD_KT_ALL = (1u << 8) - 1,
    /* What every check consults: the GPUs' targets, the support matrix,
     * the packages of the use cases. */
    RD_KT_CHECK = RD_KT_ARCHS | RD_KT_PCI_IDS | RD_KT_SUPPORT | RD_KT_PACKAGES,
};

struct kn_lazy;

typedef struct {
    rd_arch *archs;
    size_t n_archs;
    rd_pci_id *pci_ids;
    size_t n_pci_ids;
    rd_pci_id *apu_pci_ids; /* gfx holds the product name here */
    size_t n_apu_pci_ids;
    rd_release *releases; /* oldest first */
    size_t n_releases;
    char *apt_host, *apt_key_id, *apt_pin_origin;
    rd_rpm_info rpm; /* rpm.host NULL: the table has no [rpm] section */
    rd_table_info archs_info, pci_ids_info, support_info;
    rd_product_memory *product_memory; /* conf/health.ini, optional */
    size_t n_product_memory;
    rd_product_left_out *product_left_out;
    size_t n_product_left_out;
    rd_firmware_bad *firmware_bad;
    size_t n_firmware_bad;
    rd_table_info health_info;
    rd_wheel_family *wheel_families; /* conf/wheels.ini, optional */
    size_t n_wheel_families;
    char *wheel_index;    /* pip index URL template, {family} */
    char *wheel_packages; /* what to install from it */
    char *wheel_release;  /* AMD's release wheels, {series} */
    rd_table_info wheels_info;
    rd_packages_table packages; /* conf/packages.ini, optional */
    rd_repo_row *repos;         /* conf/repos.ini, oldest first */
    size_t n_repos;
    char *repo_key;         /* the signing key's path under the base */
    char *repo_fingerprint; /* its fingerprint, 40 hex digits */
    rd_table_info repos_info;
    struct kn_lazy *lazy; /* the tables not loaded yet; NULL: all are */
} rd_knowledge;

/* Loads archs.ini, pci-ids.ini and support.ini from dir (support.ini may be
 * absent: then n_releases is 0 and the release checks are skipped). A malformed table fails with
 * *ret_error naming the file and line. */
int rd_knowledge_load(const char *dir, rd_knowledge *ret, char **ret_error);
/* Loads the tables of now (RD_KT_ bits) from dir, the others on first use:
 * each query of a table that is not loaded yet loads it (and a gather or
 * assess step that reads a table's fields calls rd_knowledge_need first).
 * A table is parsed once; one that fails leaves its fields empty and its
 * error for rd_knowledge_error. */
int rd_knowledge_open(const char *dir, unsigned now, rd_knowledge *ret, char **ret_error);
/* Loads the tables (RD_KT_ bits) not loaded yet; 0, or the -errno of the
 * first that failed, with *ret_error (when not NULL) naming file and line.
 * k is const to its readers: loading fills what they will read. */
int rd_knowledge_need(const rd_knowledge *k, unsigned tables, char **ret_error);
/* The first table that failed to load on first use: its -errno and
 * *ret_error; 0 when none did. */
int rd_knowledge_error(const rd_knowledge *k, char **ret_error);
int rd_knowledge_load_archs(const char *path, rd_knowledge *k, char **ret_error);
int rd_knowledge_load_pci_ids(const char *path, rd_knowledge *k, char **ret_error);
int rd_knowledge_load_support(const char *path, rd_knowledge *k, char **ret_error);
int rd_knowledge_load_health(const char *path, rd_knowledge *k, char **ret_error);
int rd_knowledge_load_wheels(const char *path, rd_knowledge *k, char **ret_error);
int rd_knowledge_load_packages(const char *path, rd_knowledge *k, char **ret_error);
int rd_knowledge_load_repos(const char *path, rd_knowledge *k, char **ret_error);
const rd_usecase *rd_knowledge_usecase(const rd_knowledge *k, const char *name);
/* The packages of a use case for a package manager ("apt", "dnf", "zypper"). */
char *const *rd_usecase_packages(const rd_usecase *u, const char *pm);
/* Index of a package manager's column in headers[] and shadow[]: -1 unknown. */
int rd_packages_pm_index(const char *pm);
/* Whether the running kernel's own amdgpu serves a target for compute: the
 * one rule the driver check and setup share (packages.ini [driver]). */
typedef enum {
    RD_KERNEL_SERVES,     /* at least the first series that serves it */
    RD_KERNEL_TOO_OLD,    /* older than that series (*ret_min), or the kernel is unknown */
    RD_KERNEL_DKMS_ONLY,  /* AMD supports the target on its amdgpu-dkms driver only */
    RD_KERNEL_UNLISTED,   /* the table names no series for the target */
    RD_KERNEL_BACKPORTED, /* an EL or SLES kernel: amdgpu is backported, its version tells nothing */
} rd_kernel_verdict;
struct rd_os_facts;
rd_kernel_verdict rd_packages_kernel_serves(const rd_packages_table *t, const char *gfx, const struct rd_os_facts *os,
                                            const char **ret_min);
/* The wheel family of this name, compared without case (dist-info names
 * are lower-cased: "gfx94x-dcgpu"); NULL when the table lacks it. */
const rd_wheel_family *rd_knowledge_wheel_family(const rd_knowledge *k, const char *name);
/* The first published family (index = yes) that holds gfx; NULL: none. */
const rd_wheel_family *rd_knowledge_wheel_family_for(const rd_knowledge *k, const char *gfx);
void rd_knowledge_free(rd_knowledge *k);
/* The product (name and memory) for a PCI device id and revision: the row
 * of that revision, else the row of the bare id; NULL when the table does
 * not list it. */
const rd_product_memory *rd_knowledge_product_memory(const rd_knowledge *k, uint16_t device_id, uint8_t revision);
/* The [firmware-known-bad] row for this target, firmware and version, or NULL. */
const rd_firmware_bad *rd_knowledge_firmware_bad(const rd_knowledge *k, const char *gfx, const char *name,
                                                 uint32_t version);

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
 * table has no such release or that release has no repository for the
 * codename (for Debian the suite is the Ubuntu one AMD uses, "jammy"). */
const char *rd_knowledge_apt_suite(const rd_knowledge *k, const char *release, const char *codename);

/* Compares dotted version strings numerically ("6.10" > "6.9"); a missing
 * component counts as 0, anything after a '-' is ignored. */
int rd_version_compare(const char *a, const char *b);
/* Is the running kernel (os->kernel_release) at least version v ("6.10")?
 * 1 yes, 0 no, -1 unknown (no release read). The in-tree amdgpu's rule: with
 * the DKMS driver its own version decides, which callers check first. */
int rd_kernel_at_least(const rd_os_facts *os, const char *v);
/* The release line a version belongs to ("6.2.4-139" -> the 6.2 line); NULL
 * when the table has none. */
const rd_release *rd_knowledge_release(const rd_knowledge *k, const char *version);
/* The release line whose amdgpu-dkms driver has this version ("6.8.5"). */
const rd_release *rd_knowledge_release_by_dkms(const rd_knowledge *k, const char *driver_version);
/* The os line for os-release ID and VERSION_ID; an ID the table does not
 * list is looked up as its family's ("rocky" 9.6 as "rhel" 9.6). */
const rd_release_os *rd_release_find_os(const rd_release *r, const char *id, const char *version_id);
/* "gpg-pubkey-1a693c5c": the rpm name of an imported key with this fingerprint. */
char *rd_rpm_key_name(const char *fingerprint);
bool rd_release_supports(const rd_release *r, const char *gfx);
bool rd_release_deprecates(const rd_release *r, const char *gfx);

/* Which row of support.ini judges a host (knowledge-support.c). */
/* The row of release rel's OS list nearest to this host: the same ID, else
 * the same family (Rocky, Alma and Oracle Linux against RHEL); the newest
 * version not above the host's, else the oldest above it. NULL: none. */
const rd_release_os *rd_support_nearest_os(const rd_release *rel, const rd_os_facts *os);
/* The row that judges this host for release rel: its own (ID and
 * VERSION_ID), else the nearest (*ret_nearest set; see above). NULL: none of
 * its family either. */
const rd_release_os *rd_support_os_for(const rd_release *rel, const rd_os_facts *os, bool *ret_nearest);
/* The newest kernel series of row, or of every row of rel when row is NULL
 * (*ret_row: the row it comes from). NULL: no kernels listed. */
const char *rd_support_newest_kernel(const rd_release *rel, const rd_release_os *row, const rd_release_os **ret_row);
/* Whether any release lists this OS release (ID and VERSION_ID, a rebuild
 * as its family's reference). */
bool rd_support_lists_os(const rd_knowledge *k, const rd_os_facts *os);
/* The oldest release line that has packages for this OS; NULL: none. */
const rd_release *rd_support_first_for_os(const rd_knowledge *k, const rd_os_facts *os);
/* Why no release can be picked for this host and how to choose one, as one
 * sentence: on an OS release AMD does not ship ROCm for, the nearest one of
 * its family that a release supporting every gfx target ships for, and the
 * option that picks it ("--release 7.2.4"); else that no release supports
 * every GPU here. */
char *rd_support_no_release_reason(const rd_knowledge *k, const rd_os_facts *os, char *const *gfx, size_t n_gfx);
/* "ROCm 7.1 was validated on ubuntu 24.04 with kernels 6.8, 6.11, 6.14",
 * with " (the nearest release it lists to ID VERSION)" when the row is not
 * the host's own. NULL: no row of the host's family. */
char *rd_support_validated_kernels(const rd_release *rel, const rd_os_facts *os);

/* The repository table (conf/repos.ini, knowledge-repos.c): the only place
 * that knows how AMD names its folders. */
/* The row of a release: "6.4.0"; "6.4" is 6.4.0, as AMD names its folder;
 * a build suffix ("6.4.0-47") is ignored. NULL: the table lacks it. */
const rd_repo_row *rd_repos_find(const rd_knowledge *k, const char *release);
/* Why a release is refused: "ROCm "7.3.0" is not a release of the
 * repository table (repos.ini of DATE, FIRST to NEWEST): ...". */
char *rd_repos_unknown_release(const rd_knowledge *k, const char *release);
/* Whether the table has no rows (repos.ini is absent); loads them. */
bool rd_repos_empty(const rd_knowledge *k);
/* The newest row; NULL for an empty table. */
const rd_repo_row *rd_repos_newest(const rd_knowledge *k);
/* The newest row of a release line ("6.4"); NULL: none. */
const rd_repo_row *rd_repos_newest_of_line(const rd_knowledge *k, const char *line);
const char *rd_repo_path(const rd_repo_row *r, rd_repo_family f, rd_repo_kind kind);
/* base/path expanded for os; NULL when the release has no such folder or
 * the path needs an OS part os lacks. */
char *rd_repos_url(const char *base, const rd_repo_row *r, rd_repo_family f, rd_repo_kind kind, const rd_repo_os *os);
/* Whether the release serves this apt suite / EL or SLES tree. */
bool rd_repo_serves_suite(const rd_repo_row *r, const char *suite);
bool rd_repo_serves_tree(const rd_repo_row *r, rd_repo_family f, const char *tree);
/* The tree of the release's rpm folders for an OS version: its own when
 * served, else the nearest served one of the same major (the newest below,
 * else the oldest above); NULL: none of that major. */
const char *rd_repo_pick_tree(const rd_repo_row *r, rd_repo_family f, const char *version);
/* Whether path (a URL without the base, no leading '/') is one of AMD's
 * repository folders: 1 with *ret filled (free with rd_repo_match_done),
 * 0 when it is none of AMD's kinds. */
int rd_repos_classify(const rd_knowledge *k, const char *path, rd_repo_match *ret);
void rd_repo_match_done(rd_repo_match *m);
/* Whether a path is judged: a version in the table's range that no row
 * serves, which the package manager fails on (404). */
bool rd_repo_match_unserved(const rd_repo_match *m);
/* Whether the path is one of AMD's moving folders (rocm/apt/latest,
 * amdgpu/latest/...): it serves whatever release AMD published last. */
bool rd_repo_match_moving(const rd_repo_match *m);
/* Whether any release of the table has an OS tree of this major in family f
 * (EL 8, 9, 10; SLES 15): a rolling release's version names none. */
bool rd_repos_tree_major_known(const rd_knowledge *k, rd_repo_family f, const char *major);
/* The URL of AMD's signing key under base; NULL without a table. */
char *rd_repos_key_url(const rd_knowledge *k, const char *base);
const char *rd_repo_family_name(rd_repo_family f);
const char *rd_repo_kind_name(rd_repo_kind k);
