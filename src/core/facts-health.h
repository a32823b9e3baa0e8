/* SPDX-License-Identifier: MIT */
/* Facts about GPU health, read at level 1 from amdgpu's sysfs files, the
 * PCIe AER counters and the kernel log: RAS error counts and retired pages,
 * resets and hangs, XGMI, thermal and power state, firmware and inventory.
 * Included by facts.h; every field needs an entry in facts-json-health.c.
 *
 * A number that the kernel does not expose is -1 (or the *_exposed flag is
 * false), never 0: an interface missing on this kernel is not a healthy
 * reading. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* One ras/<block>_err_count file: "ue: N\nce: N[\nde: N]\n". */
typedef struct {
    char *block;        /* "umc", "gfx", "xgmi_wafl", ... */
    int64_t ue, ce, de; /* -1: the file has no such line */
    bool inaccessible;  /* "Query currently inaccessible" (during a reset) */
} rd_ras_count;

/* One hwmon temperature channel. */
typedef struct {
    char *name;       /* "temp1" */
    char *label;      /* tempN_label: "edge", "junction", "mem"; NULL when absent */
    int64_t input_mc; /* millidegrees Celsius; -1 not exposed */
    int64_t crit_mc;
    int64_t emergency_mc;
} rd_temp_sensor;

/* The binary gpu_metrics file, reduced to what the checks use. Parsed by
 * the header's format and content revision; a revision whose layout this
 * version does not know is "not understood", and nothing is read from it. */
typedef struct {
    bool exposed;                              /* the file exists and could be read */
    int64_t size;                              /* bytes read */
    int64_t structure_size;                    /* the header's structure_size; -1 when the header is short */
    int64_t format_revision, content_revision; /* -1 unknown */
    bool understood;
    char *layout;            /* "gpu_metrics_v1_3", "gpu_metrics_v1_6 (384 bytes)", ... */
    char *note;              /* why it was not understood, or a caveat */
    int64_t throttle_status; /* ASIC-dependent raw bits, not decoded; -1 not in this layout */
    bool has_indep_throttle;
    uint64_t indep_throttle_status; /* SMU_THROTTLER_*_BIT, ASIC independent */
    /* v1_6 and later: residency counters accumulated by the firmware, in the
     * same samples as accumulation_counter; -1 not in this layout */
    int64_t accumulation_counter;
    int64_t prochot_residency, ppt_residency, socket_thm_residency, vr_thm_residency, hbm_thm_residency;
} rd_gpu_metrics;

/* A kernel log line about one GPU's health, classified when gathered. */
typedef struct {
    char *kind;    /* see RD_HEALTH_EV_* in probes/health.h */
    uint64_t usec; /* since boot */
    char *detail;  /* ring name, RAS block, process "name pid N" */
    int64_t count; /* RAS lines: the errors they report; threshold lines: the threshold; else -1 */
    char *text;
} rd_health_event;

/* The AER counters of one PCI device on the path from a GPU to its root
 * port (the GPU first). */
typedef struct {
    char *address;
    bool exposed;                         /* aer_dev_* files present */
    int64_t correctable, nonfatal, fatal; /* TOTAL_ERR_*; -1 not exposed */
} rd_aer_device;

/* A KFD io_link of type XGMI (11). */
typedef struct {
    int64_t node_from, node_to;
    int64_t weight;
} rd_xgmi_link;

/* A KFD GPU node of a hive whose io_links were read: the first node of
 * each GPU (its other compute partitions share the socket's XGMI links). */
typedef struct {
    int64_t node_id;
    int64_t io_links; /* io_link files read, of any type */
} rd_io_links_read;

typedef struct {
    char *pci_address;
    /* RAS */
    bool ras_exposed;     /* device/ras/ exists (RAS enabled for the device) */
    int64_t ras_features; /* feature mask without the socket bits 29..31; -1 unknown */
    rd_ras_count *ras;
    size_t n_ras;
    bool bad_pages_exposed; /* ras/gpu_vram_bad_pages */
    int64_t bad_pages_reserved, bad_pages_pending, bad_pages_failed;
    int64_t bad_page_threshold; /* debugfs bad_page_cnt_threshold (root only); -1 unreadable */
    /* thermal and power (hwmon) */
    bool hwmon_exposed;
    rd_temp_sensor *temps;
    size_t n_temps;
    int64_t power_uw; /* power1_average, else power1_input; -1 */
    int64_t power_cap_uw, power_cap_default_uw, power_cap_max_uw;
    rd_gpu_metrics metrics;
    /* firmware and inventory */
    char **firmware; /* "mec=0x000000c4", from fw_version/<name>_fw_version, name order */
    char *vbios_version;
    char *serial_number;
    char *unique_id;
    char *product_name;
    int64_t vram_total;     /* mem_info_vram_total, bytes; -1 not exposed */
    char *memory_partition; /* current_memory_partition ("NPS1"), MI300 */
    /* XGMI (amdgpu sysfs) */
    uint64_t xgmi_hive_id;  /* 0: not in a hive or not exposed */
    int64_t xgmi_hive_size; /* node* entries in xgmi_hive_info; -1 not exposed */
    /* kernel log since boot */
    rd_health_event *events;
    size_t n_events;
    rd_aer_device *aer; /* the GPU, then every port up to the root */
    size_t n_aer;
    char **not_exposed; /* interfaces this kernel or GPU does not have */
} rd_health_gpu;

typedef struct {
    rd_health_gpu *gpus; /* AMD GPUs bound to amdgpu, in PCI address order */
    size_t n_gpus;
    rd_xgmi_link *xgmi_links; /* the XGMI io_links of the nodes in io_links_read */
    size_t n_xgmi_links;
    rd_io_links_read *io_links_read;
    size_t n_io_links_read;
    rd_health_event *events; /* health lines that name no GPU, on a multi-GPU host */
    size_t n_events;
    char *bad_page_threshold_param; /* /sys/module/amdgpu/parameters/bad_page_threshold */
    char *kmsg_error;
    char *error;
} rd_health_facts;

/* Look-ups shared by the health assess step and the renderers
 * (facts-json-health.c). */
const rd_health_gpu *rd_health_gpu_find(const rd_health_facts *h, const char *pci_address);
/* The sum of one counter ('u'e, 'c'e or 'd'e) over the RAS blocks; -1 when
 * no block reports it. */
int64_t rd_health_ras_total(const rd_health_gpu *g, char which);
/* Rows of gpu_vram_bad_pages (reserved, pending and failed); -1 when the
 * file is not exposed. */
int64_t rd_health_retired_pages(const rd_health_gpu *g);
size_t rd_health_event_count(const rd_health_gpu *g, const char *kind);
/* A sensor's name in the reports: its label ("junction"), else "temp1". */
const char *rd_health_temp_sensor(const rd_temp_sensor *t);
/* "correctable", "nonfatal", "fatal": the order of rd_aer_device's counts. */
extern const char *const rd_aer_type_names[3];
/* The AER counts summed over the GPU's path to the root, in that order;
 * -1 where no device exposes the type. */
void rd_health_aer_sum(const rd_health_gpu *g, int64_t ret[3]);

/* The finding ids the health probe (probes/health.c) reports, NULL-ended:
 * its descriptor's list, and the ids whose worst severity is a GPU's health
 * status in the reports. */
extern const char *const rd_health_finding_ids[];

/* Throttle reasons, as bit indexes of a mask. */
enum {
    RD_THROTTLE_POWER,
    RD_THROTTLE_CURRENT,
    RD_THROTTLE_THERMAL,
    RD_THROTTLE_PROCHOT,
    RD_THROTTLE_OTHER,
    RD_THROTTLE_N,
};
const char *rd_throttle_reason_name(unsigned reason);
/* The reasons set in indep_throttle_status (SMU_THROTTLER_*_BIT classes of
 * amdgpu_smu.h): 0 when the layout has no such field. */
unsigned rd_throttle_active(const rd_gpu_metrics *m);
/* The share of samples each reason throttled the GPU, from the residency
 * counters of gpu_metrics v1_6 and later; false when the layout has none or
 * the accumulation counter is 0. */
bool rd_throttle_residency(const rd_gpu_metrics *m, double ret[RD_THROTTLE_N]);
