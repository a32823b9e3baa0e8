"""The amdgpu health files of a GPU, in the formats the kernel writes them.

Formats (as amdgpu_ras.c and friends write them): ras/<block>_err_count
"ue: %lu\\nce: %lu\\nde: %lu\\n" (ACA, MI300-class: three lines for every
block), ras/features "feature mask: 0x%x\\n", ras/gpu_vram_bad_pages rows
"0x%08x : 0x%08x : %1s\\n", aer_dev_* one "NAME COUNT" line per named bit
then "TOTAL_ERR_* N", hwmon in millidegrees and microwatts, gpu_metrics
laid out by the kgd_pp_interface.h structs (little endian, natural
alignment).  Values that come from a real dump say so; the others are
representative.
"""

import os
import struct

# Named bits of aer_dev_correctable / aer_dev_{fatal,nonfatal} (aer.c, short names).
AER_COR = ["RxErr", "BadTLP", "BadDLLP", "Rollover", "Timeout", "NonFatalErr", "CorrIntErr",
           "HeaderOF"]
AER_UNCOR = ["Undefined", "DLP", "SDES", "TLP", "FCP", "CmpltTO", "CmpltAbrt", "UnxCmplt",
             "RxOF", "MalfTLP", "ECRC", "UnsupReq", "ACSViol", "UncorrIntErr", "BlockedTLP",
             "AtomicOpBlocked", "TLPBlockedErr", "PoisonTLPBlocked"]

# RAS blocks an MI300X reports (ras_block_string names).
MI300X_RAS_BLOCKS = ["umc", "sdma", "gfx", "mmhub", "pcie_bif", "hdp", "xgmi_wafl", "mp1", "jpeg", "vcn"]


def aer_text(kind, counts=None):
    """aer_dev_correctable / _nonfatal / _fatal with counts {name: n}."""
    counts = dict(counts or {})
    names = AER_COR if kind == "correctable" else AER_UNCOR
    total_key = {"correctable": "TOTAL_ERR_COR", "nonfatal": "TOTAL_ERR_NONFATAL",
                 "fatal": "TOTAL_ERR_FATAL"}[kind]
    lines = ["%s %d" % (n, counts.get(n, 0)) for n in names]
    lines.append("%s %d" % (total_key, sum(counts.values())))
    return "\n".join(lines) + "\n"


def add_aer(fn, correctable=None, nonfatal=None, fatal=None):
    fn.attrs["aer_dev_correctable"] = aer_text("correctable", correctable)
    fn.attrs["aer_dev_nonfatal"] = aer_text("nonfatal", nonfatal)
    fn.attrs["aer_dev_fatal"] = aer_text("fatal", fatal)


def add_aer_path(gpu):
    """Zero AER counters on the GPU and every port up to the root."""
    node = gpu
    while node is not None:
        if node.pcie:
            add_aer(node)
        node = node.parent


def add_ras(fn, blocks, counts=None, bad_pages=(), features=0x3fff, socket=0):
    """ras/: blocks with (ue, ce, de) from counts {block: (ue, ce, de)}."""
    counts = counts or {}
    fn.attrs["ras/features"] = "feature mask: 0x%x\n" % (features | (socket << 29))
    for b in blocks:
        ue, ce, de = counts.get(b, (0, 0, 0))
        fn.attrs["ras/%s_err_count" % b] = "ue: %d\nce: %d\nde: %d\n" % (ue, ce, de)
    fn.attrs["ras/gpu_vram_bad_pages"] = "".join(
        "0x%08x : 0x%08x : %s\n" % (pfn, 0x1000, flag) for pfn, flag in bad_pages)


AMDGPU_TEMP_CHANNEL = {"edge": 1, "junction": 2, "mem": 3}


def add_hwmon(fn, index, temps, power_uw=None, cap=None, cap_default=None, cap_max=None,
              cap_min=None, power_input=False):
    """hwmon/hwmonN: temps [(label, input_mC, crit_mC, emergency_mC)], each on
    the channel amdgpu gives that label (amdgpu_pm.c: temp1 edge, temp2
    junction, temp3 mem; MI300 parts have no edge sensor, so temp2 and
    temp3 only)."""
    base = "hwmon/hwmon%d/" % index
    fn.attrs[base + "name"] = "amdgpu\n"
    for label, value, crit, emergency in temps:
        i = AMDGPU_TEMP_CHANNEL[label]
        fn.attrs[base + "temp%d_input" % i] = "%d\n" % value
        fn.attrs[base + "temp%d_label" % i] = label + "\n"
        if crit is not None:
            fn.attrs[base + "temp%d_crit" % i] = "%d\n" % crit
        if emergency is not None:
            fn.attrs[base + "temp%d_emergency" % i] = "%d\n" % emergency
    if power_uw is not None:
        fn.attrs[base + ("power1_input" if power_input else "power1_average")] = "%d\n" % power_uw
    for name, v in (("power1_cap", cap), ("power1_cap_default", cap_default),
                    ("power1_cap_max", cap_max), ("power1_cap_min", cap_min)):
        if v is not None:
            fn.attrs[base + name] = "%d\n" % v


def add_firmware(fn, versions):
    for name, v in versions.items():
        fn.attrs["fw_version/%s_fw_version" % name] = "0x%08x\n" % v


# -- gpu_metrics ------------------------------------------------------------

# sizeof and field offsets per (format, content) revision, from the header
# structs (kgd_pp_interface.h, struct gpu_metrics_vX_Y).
GPU_METRICS_SIZE = {
    (1, 0): 80, (1, 1): 96, (1, 2): 104, (1, 3): 120, (1, 4): 288, (1, 5): 360,
    (1, 6): 1664, (1, 7): 2208, (1, 8): 3872, (2, 0): 120, (2, 1): 120, (2, 2): 128,
    (2, 3): 152, (2, 4): 168, (3, 0): 264,
}
GPU_METRICS_V1_6_OLD_SIZE = 384
INDEP_THROTTLE_OFFSET = {(1, 3): 112, (2, 2): 120, (2, 3): 120, (2, 4): 120}
RESIDENCY_OFFSET = {(1, 6): 32, (1, 7): 40, (1, 8): 40}  # accumulation_counter, then 5 u32


def gpu_metrics(fmt, content, indep=None, residency=None, temperature_hotspot=None,
                size=None):
    """A gpu_metrics blob: header, then the fields the checks read.
    residency: (accumulation_counter, prochot, ppt, socket_thm, vr_thm, hbm_thm)."""
    n = size or GPU_METRICS_SIZE[(fmt, content)]
    blob = bytearray(n)
    struct.pack_into("<HBB", blob, 0, n, fmt, content)
    if indep is not None:
        struct.pack_into("<Q", blob, INDEP_THROTTLE_OFFSET[(fmt, content)], indep)
    if residency is not None:
        struct.pack_into("<6I", blob, RESIDENCY_OFFSET[(fmt, content)], *residency)
    if temperature_hotspot is not None and fmt == 1 and content >= 4:
        struct.pack_into("<H", blob, 4, temperature_hotspot)
    return bytes(blob)


# -- XGMI -------------------------------------------------------------------

def add_xgmi_hive(gpus, hive_id):
    """xgmi_hive_info of each GPU: the hive id and a nodeK link per member
    (the kernel puts the directory under the first device and a symlink
    under the others; reading through either gives the same entries)."""
    for phys, fn in enumerate(gpus):
        fn.attrs["xgmi_hive_info/xgmi_hive_id"] = "%d\n" % hive_id
        fn.attrs["xgmi_physical_id"] = "%d\n" % phys
        fn.attrs["xgmi_device_id"] = "%d\n" % (0x100000 + phys)
        for k, member in enumerate(gpus, 1):
            fn.links["xgmi_hive_info/node%d" % k] = os.path.relpath(
                "/sys" + member.sysfs_path, "/sys" + fn.sysfs_path + "/xgmi_hive_info")


# -- a healthy MI300X ------------------------------------------------------

MI300X_FIRMWARE = {  # representative values for an MI300X on ROCm 6.x firmware
    "mec": 0x000000b1, "rlc": 0x00000011, "sdma": 0x00000013, "sos": 0x00d80001,
    "asd": 0x21000109, "ta_ras": 0x1b00013e, "ta_xgmi": 0x20000010, "smc": 0x00556d00,
    "vcn": 0x0e117001, "mes": 0x00000000,
}


def mi300x_health(tb, gpus, hive_id):
    """Every counter at zero, temperatures well below the limits, the power
    cap at its default, gpu_metrics v1_8 with no throttle residency."""
    for i, gpu in enumerate(gpus):
        add_ras(gpu, MI300X_RAS_BLOCKS, socket=i)
        add_hwmon(gpu, 2 + i, [("junction", 38000, 100000, 105000), ("mem", 35000, 95000, 105000)],
                  power_uw=142000000, cap=750000000, cap_default=750000000, cap_max=750000000,
                  cap_min=0, power_input=True)
        gpu.attrs["gpu_metrics"] = gpu_metrics(1, 8, residency=(51234, 0, 0, 0, 0, 0),
                                               temperature_hotspot=38)
        add_firmware(gpu, {k: v for k, v in MI300X_FIRMWARE.items() if v})
        gpu.attrs["serial_number"] = "692251%06d\n" % (1000 + i)
        gpu.attrs["product_number"] = "102-G30211-00\n"
        gpu.attrs["current_memory_partition"] = "NPS1\n"
        add_aer_path(gpu)
    add_xgmi_hive(gpus, hive_id)
