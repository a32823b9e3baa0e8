/* SPDX-License-Identifier: MIT */
/* The facts model: everything the probes learned about a host, as plain C
 * structs. Facts round-trip through JSON (facts-json.c), so every field here
 * has an entry in the schema tables there; add fields, never rename them. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "facts-apt.h"
#include "facts-container.h"
#include "facts-env.h"
#include "facts-health.h"
#include "facts-kernel.h"
#include "facts-python.h"
#include "facts-rocm.h"
#include "facts-rpm.h"
#include "facts-runtime.h"
#include "facts-slurm.h"
#include "facts-tuning.h"

#define RD_FACTS_SCHEMA "rocm-doctor-facts/1"

typedef struct {
    char *key;
    uint64_t value;
} rd_kv;

typedef struct {
    char *name;
    char *value;
} rd_param;

typedef struct rd_os_facts {
    char *id, *id_like, *version_id, *version_codename, *pretty_name;
    char *family; /* debian, rhel, fedora, suse, unknown (from ID, ID_LIKE) */
    char *os_release_error;
    char *kernel_release;
    char *proc_version;
    char *virtualization; /* "kvm", "vmware", ...; NULL on bare metal or unknown */
    char *container;      /* "docker", "podman", "kubernetes", "lxc"; NULL if none */
    char *container_evidence;
    bool wsl;
    char *wsl_evidence;
} rd_os_facts;

typedef struct {
    char *address; /* 0000:03:00.0 */
    int64_t vendor_id, device_id, subsystem_vendor_id, subsystem_device_id;
    int64_t revision, class_code;    /* class_code: 24-bit, 0x030000 */
    char *vendor_name, *device_name; /* pci.ids */
    char *marketing_name;            /* libdrm amdgpu.ids, AMD GPUs only */
    char *driver;                    /* bound driver, NULL when none */
    char *parent;                    /* upstream bridge, NULL at a root bus */
    char **children;                 /* bridges: every function directly below, NULL unknown */
    bool display;                    /* class 0x03xxxx; other entries are bridges on a path */
    int64_t pcie_type;               /* PCI_EXP_TYPE_*, -1: no PCIe capability */
    bool caps_readable;              /* config space past 64 bytes was readable */
    bool atomic_routing, atomic_comp32, atomic_comp64, atomic_comp128;
    bool atomic_requester, atomic_egress_blocking;
    double current_link_speed, max_link_speed;  /* GT/s, 0 unknown */
    int64_t current_link_width, max_link_width; /* lanes, 0 unknown */
    uint64_t *bar_sizes;                        /* memory BARs, bytes */
    size_t n_bar_sizes;
    bool resizable_bar; /* extended capability present */
    int64_t numa_node;
} rd_pci_device;

typedef struct {
    rd_pci_device *devices;
    size_t n_devices;
    char *error;
} rd_pci_facts;

typedef struct {
    char *pci_address;    /* NULL for partition nodes on platform devices */
    char *card;           /* /dev/dri/card0, NULL if none */
    char *render;         /* /dev/dri/renderD128, NULL if none */
    int64_t render_minor; /* -1: none */
    char *driver;
    char *product_name;
    uint64_t vram_total;
    uint64_t gtt_total; /* mem_info_gtt_total, bytes; 0 unknown */
    char *unique_id;    /* hex, as in sysfs */
    char *gc_version;   /* "11.0.0" from IP discovery */
} rd_drm_device;

typedef struct {
    rd_drm_device *devices;
    size_t n_devices;
    char *error;
} rd_drm_facts;

typedef struct {
    int64_t node_id;
    char *name;
    int64_t gpu_id;
    rd_kv *properties; /* every key, in file order, unknown ones too */
    size_t n_properties;
    uint64_t vram_bytes; /* sum of the frame-buffer memory banks */
    char *error;         /* e.g. "EPERM: hidden by the device cgroup" */
} rd_kfd_node;

typedef struct {
    bool present; /* /sys/class/kfd/kfd exists */
    int64_t generation_id;
    rd_kfd_node *nodes;
    size_t n_nodes;
    char *error;
} rd_kfd_facts;

typedef struct {
    char *file; /* path as on the host, e.g. /etc/modprobe.d/x.conf */
    int64_t line;
    char *directive; /* blacklist, install, options, softdep */
    char *module;
    char *args;
} rd_modprobe_line;

typedef struct {
    int64_t priority;
    uint64_t seq, usec;
    char *text;
} rd_kmsg_record;

typedef struct {
    bool module_present; /* /sys/module/amdgpu exists */
    char *initstate;     /* "live", "coming", "going"; NULL when built in */
    bool builtin;
    char *version; /* DKMS driver only */
    char *srcversion;
    rd_param *parameters;
    size_t n_parameters;
    bool radeon_loaded;
    rd_modprobe_line *modprobe; /* effective lines about amdgpu and radeon */
    size_t n_modprobe;
    char **modprobe_shadowed; /* "/usr/lib/... hidden by /etc/..." */
    char *modprobe_error;
    char *cmdline;
    char *cmdline_error;
    rd_kmsg_record *kmsg; /* only records that concern the GPU stack */
    size_t n_kmsg;
    char *kmsg_error;
} rd_driver_facts;

typedef struct {
    char *tag;    /* user_obj, user, group_obj, group, mask, other */
    int64_t id;   /* uid/gid for user/group entries, else -1 */
    int64_t perm; /* rwx bits */
} rd_acl_entry;

/* A GPU device node, as the access probe found it; the JSON report carries
 * these fields as access.nodes[] (mode as "0660"), and the access findings'
 * evidence is written from them. */
typedef struct {
    char *path;
    char *role; /* "kfd", "render", "card" */
    bool exists;
    int64_t mode, uid, gid; /* mode: permission bits only */
    char *group;            /* name of gid, NULL if unknown */
    rd_acl_entry *acl;
    size_t n_acl;
    char *error;
} rd_dev_node;

typedef struct {
    char *name;
    int64_t uid, gid;
    char *source;    /* "--user", "SUDO_USER", "invoking user" */
    int64_t *groups; /* from the group database, primary gid included */
    size_t n_groups;
    bool session_known; /* the process runs as this user */
    int64_t *session_groups;
    size_t n_session_groups;
    char *error;
} rd_user_facts;

typedef struct {
    rd_dev_node *nodes;
    size_t n_nodes;
    rd_user_facts *users;
    size_t n_users;
    char *not_checked; /* why no user was checked */
} rd_access_facts;

/* An OS file a probe could not read (not a missing one): evidence that a
 * check saw less than it should (facts.unreadable). */
typedef struct {
    char *path;      /* as on the host */
    char *error;     /* "Permission denied", "is not a regular file ..." */
    char *unchecked; /* what reading it would have checked */
} rd_unreadable_file;

typedef struct {
    char *schema;
    char *tool_version;
    char *root;
    rd_os_facts os;
    rd_pci_facts pci;
    rd_drm_facts drm;
    rd_kfd_facts kfd;
    rd_driver_facts driver;
    rd_access_facts access;
    rd_rocm_facts rocm;
    rd_apt_facts apt;
    rd_boot_facts boot;
    rd_env_facts env;
    rd_container_facts container_env;
    rd_tuning_facts tuning;
    rd_torch_facts torch;
    rd_runtime_facts runtime;
    rd_health_facts health;
    rd_unreadable_file *unreadable;
    size_t n_unreadable;
    rd_rpm_facts rpm;
    rd_repos_facts repos;
    rd_kernel_devel_facts kernel_devel;
    rd_wheel_facts wheels;
    rd_slurm_facts slurm;
} rd_facts;

void rd_facts_init(rd_facts *f);
void rd_facts_free(rd_facts *f);
/* Records path as unreadable when r is a read error other than "missing"
 * (ENOENT, ENOTDIR); once per path. r >= 0 records nothing. */
void rd_facts_note_unreadable(rd_facts *f, const char *path, int r, const char *unchecked);

/* Look-ups shared by assess functions and renderers. */
const rd_pci_device *rd_pci_find(const rd_facts *f, const char *address);
bool rd_kfd_prop(const rd_kfd_node *n, const char *key, uint64_t *ret);
uint64_t rd_kfd_prop_or(const rd_kfd_node *n, const char *key, uint64_t fallback);
/* A device node's permission bits as "0660". */
void rd_dev_node_mode(const rd_dev_node *n, char buf[static 8]);
/* ACL permission bits as "rw-". */
void rd_acl_perm(int64_t perm, char buf[static 4]);
/* One ACL entry as getfacl writes it: "user::rw-", "group:44:rw-", "mask::rw-". */
char *rd_acl_entry_text(const rd_acl_entry *e);
