"""Scenarios of the health area: RAS errors and retired pages, resets and
hangs, XGMI links and hives, PCIe AER, temperature, power cap, throttling and
VRAM, each next to a healthy twin that must stay silent.

The MI300X node is the eight-GPU box of scenarios.py, whose healthy files
(every counter zero) come from health_sysfs.mi300x_health; the Radeon values
(hwmon limits, power caps, vbios) are those of the LACT snapshots of an RX
7900 XTX, RX 9070 and RX 9070 XT in the corpus.
"""

import health_sysfs as hs
from scenarios import (
    MI300X_GPUS, MI300X_SPX_KFD, NAVI31_KFD, Scenario, cpu_kfd_node, healthy_rx7900xtx_box, matisse_host,
    matisse_root_port, mi300x_box, scenario,
)
from beds_hosts import (
    STRIX_HALO_KFD, apu, card, healthy, host_os, instinct_tuned, kfd_props, os_release, report,
)
from beds_rocm import CompatTestbed
from health_sysfs import add_firmware
from testbed import GiB, MiB, Testbed


MI300X_BAD = 3                       # the GPU at 0000:65:00.0


MI300X_BAD_BDF = "0000:%02x:00.0" % MI300X_GPUS[MI300X_BAD][0]


SPX_NODE = 2                          # KFD node of GPU 0 in SPX mode (two CPU nodes first)


def mi300x(tb):
    return mi300x_box(tb, cpx=False)


def bad_pages(n, flag="R", start=0x1000):
    return [(start + 17 * i, flag) for i in range(n)]


def reset_log(bdf, times, ring="gfx_0.1.0", failed=False, start=1200.0):
    """The kernel log of `times` job timeouts each followed by a GPU reset
    (message texts as amdgpu_job.c / amdgpu_device.c print them)."""
    dev = "amdgpu %s: amdgpu:" % bdf
    lines = []
    for k in range(times):
        t = start + 600.0 * k
        lines += [
            (t, "%s ring %s timeout, signaled seq=%d, emitted seq=%d" % (dev, ring, 4521 + k, 4523 + k), 3),
            (t + 0.0001, "%s Process information: process python3 pid 48213 thread python3 pid 48213"
             % dev, 3),
            (t + 0.01, "%s GPU reset begin!" % dev, 4),
            (t + 1.2, ("%s GPU reset(%d) failed" if failed and k == times - 1
                       else "%s GPU reset(%d) succeeded!") % (dev, k + 1), 6),
        ]
    return lines


@scenario("health-8x-mi300x-one-bad-gpu")
def health_8x_mi300x_one_bad_gpu():
    """GPU 3 of eight MI300X: a thousand uncorrectable ECC errors in UMC, 130
    retired pages (past the 128-page default of newer kernels), its XGMI link
    to GPU 5 down, three resets since boot.  The other seven are healthy and
    must not be named."""
    tb = Testbed()
    gpus = mi300x(tb)
    bad = gpus[MI300X_BAD]
    hs.add_ras(bad, hs.MI300X_RAS_BLOCKS, counts={"umc": (1000, 37, 2)}, bad_pages=bad_pages(130),
               socket=MI300X_BAD)
    tb.kfd_xgmi_missing.add(frozenset((SPX_NODE + MI300X_BAD, SPX_NODE + 5)))
    tb.kmsg(reset_log(MI300X_BAD_BDF, 3) + [
        (3100.0, "amdgpu %s: amdgpu: {7}socket: %d, die: 0, 1000 uncorrectable hardware errors detected in "
                 "total in umc block" % (MI300X_BAD_BDF, MI300X_BAD), 6),
        (3100.1, "amdgpu %s: amdgpu: Saved bad pages 130 reaches threshold value 128" % MI300X_BAD_BDF, 4),
    ])
    return Scenario(tb, [("gpu.ras-uncorrectable", "error"), ("gpu.retired-pages", "error"),
                         ("gpu.reset-seen", "warning"), ("xgmi.link-missing", "error")], 2,
                    evidence=[("gpu.ras-uncorrectable", "/ras/umc_err_count: ue: 1000"),
                              ("gpu.retired-pages", "130 reserved (R)"),
                              ("gpu.retired-pages", "threshold 128 from the kernel log"),
                              ("xgmi.link-missing", "nodes/5/io_links: no link of type 11 (XGMI) to node 7"),
                              ("gpu.reset-seen", "ring gfx_0.1.0 timeout")],
                    text=[("gpu.reset-seen", "reset 3 times"),
                          ("xgmi.link-missing", "0000:65:00.0 and GPU 0000:a7:00.0")])


@scenario("health-xgmi-not-exposed")
def health_xgmi_not_exposed():
    """Twin: a hive whose KFD topology has no io_links at all (io_links_count
    0, a kernel or container that does not show them): nothing to judge the
    links by, so nothing is said."""
    tb = Testbed()
    mi300x_box(tb, cpx=True)
    tb.kfd_io_links = False
    return Scenario(tb, [], 0)


@scenario("health-xgmi-no-links")
def health_xgmi_no_links():
    """Eight MI300X in one hive (xgmi_hive_id in sysfs, hive_id in KFD) whose
    io_links list only the PCIe link to the CPU: no XGMI link anywhere, the
    hive never trained. One finding for the hive, not one per pair."""
    tb = Testbed()
    mi300x(tb)
    tb.kfd_xgmi = False
    return Scenario(tb, [("xgmi.link-missing", "error")], 2,
                    text=[("xgmi.link-missing", "none of the 8 GPUs of hive")],
                    evidence=[("xgmi.link-missing", "nodes/2/io_links (0000:05:00.0): 1 links, none of type 11")])


def cpx_node(gpu, partition=0):
    """KFD node of a partition of MI300X number gpu in CPX mode."""
    return SPX_NODE + 8 * gpu + partition


@scenario("health-xgmi-cpx-link-missing")
def health_xgmi_cpx_link_missing():
    """The eight MI300X in CPX mode (64 KFD GPU nodes, 4032 XGMI io_links),
    the link between the sockets of GPU 3 and GPU 5 down: none of the eight
    partitions of either lists a link to a partition of the other. One
    finding for the pair of GPUs, none for partitions of one GPU."""
    tb = Testbed()
    mi300x_box(tb, cpx=True)
    tb.kfd_xgmi_missing |= {frozenset((cpx_node(MI300X_BAD, p), cpx_node(5, q)))
                            for p in range(8) for q in range(8)}
    return Scenario(tb, [("xgmi.link-missing", "error")], 2,
                    text=[("xgmi.link-missing", "0000:65:00.0 and GPU 0000:a7:00.0")],
                    evidence=[("xgmi.link-missing", "nodes/26/io_links: no link of type 11 (XGMI) to any of the 8 "
                                                    "partition nodes 42-49 of 0000:a7:00.0")])


@scenario("health-xgmi-cpx-partitions-unlinked")
def health_xgmi_cpx_partitions_unlinked():
    """Twin: the CPX box whose partitions list no XGMI link to the other
    partitions of their own GPU (they share one socket; only links between
    sockets are XGMI hops): silent."""
    tb = Testbed()
    mi300x_box(tb, cpx=True)
    tb.kfd_xgmi_missing |= {frozenset((cpx_node(g, p), cpx_node(g, q)))
                            for g in range(8) for p in range(8) for q in range(8) if p != q}
    return Scenario(tb, [], 0)


@scenario("health-xgmi-hive-incomplete")
def health_xgmi_hive_incomplete():
    """The last MI300X did not join the hive: the others list seven nodes and
    it has no xgmi_hive_info."""
    tb = Testbed()
    gpus = mi300x(tb)
    for fn in gpus[:-1]:
        for k in [k for k in fn.links if k.startswith("xgmi_hive_info/node8")]:
            del fn.links[k]
    last = gpus[-1]
    for k in [k for k in last.attrs if k.startswith("xgmi")]:
        del last.attrs[k]
    for k in [k for k in last.links if k.startswith("xgmi")]:
        del last.links[k]
    return Scenario(tb, [("xgmi.hive-incomplete", "error")], 2,
                    text=[("xgmi.hive-incomplete", "has 7 of 8 GPUs")],
                    evidence=[("xgmi.hive-incomplete", "0000:e5:00.0: the same model (1002:74a1), not in the hive")])


@scenario("health-ras-correctable")
def health_ras_correctable():
    """250 correctable errors on one GPU's HBM (limit 100)."""
    tb = Testbed()
    gpus = mi300x(tb)
    hs.add_ras(gpus[0], hs.MI300X_RAS_BLOCKS, counts={"umc": (0, 250, 0)})
    return Scenario(tb, [("gpu.ras-correctable", "warning")], 1,
                    evidence=[("gpu.ras-correctable", "0000:05:00.0/ras/umc_err_count: ce: 250")])


@scenario("health-ras-correctable-at-limit")
def health_ras_correctable_at_limit():
    """Twin: exactly the limit (100) is not above it; and a raised limit in
    rocm-doctor.conf silences 250 on another GPU."""
    tb = Testbed()
    gpus = mi300x(tb)
    hs.add_ras(gpus[0], hs.MI300X_RAS_BLOCKS, counts={"umc": (0, 100, 0)})
    hs.add_ras(gpus[1], hs.MI300X_RAS_BLOCKS, counts={"umc": (0, 250, 0)})
    tb.root_file("etc/rocm-doctor/conf.d/50-health.conf", "[health]\ncorrectable_errors_max = 300\n")
    return Scenario(tb, [], 0)


@scenario("health-ras-poison-log")
def health_ras_poison_log():
    """No counter in sysfs yet, but the kernel log shows consumed poison."""
    tb = Testbed()
    mi300x(tb)
    tb.kmsg([(812.5, "amdgpu 0000:27:00.0: amdgpu: {3}poison is consumed by client 12, kick off gpu reset flow", 4)])
    return Scenario(tb, [("gpu.ras-uncorrectable", "error")], 2,
                    evidence=[("gpu.ras-uncorrectable", "poison is consumed by client 12")])


@scenario("health-retired-pages-near")
def health_retired_pages_near():
    """120 retired pages: at 90 % of the MI300X default threshold (128)."""
    tb = Testbed()
    gpus = mi300x(tb)
    hs.add_ras(gpus[2], hs.MI300X_RAS_BLOCKS, bad_pages=bad_pages(118) + bad_pages(2, "P", 0x9000))
    return Scenario(tb, [("gpu.retired-pages", "warning")], 1,
                    evidence=[("gpu.retired-pages", "118 reserved (R), 2 pending (P)"),
                              ("gpu.retired-pages", "threshold 128 from an estimate")])


@scenario("health-retired-pages-few")
def health_retired_pages_few():
    """Twin: 100 retired pages, below 90 % of 128."""
    tb = Testbed()
    gpus = mi300x(tb)
    hs.add_ras(gpus[2], hs.MI300X_RAS_BLOCKS, bad_pages=bad_pages(100))
    return Scenario(tb, [], 0)


@scenario("health-retired-pages-param")
def health_retired_pages_param():
    """amdgpu.bad_page_threshold=200 set by the admin, 210 pages retired."""
    tb = Testbed()
    gpus = mi300x(tb)
    tb.module_amdgpu("live", params={"bad_page_threshold": "200"})
    hs.add_ras(gpus[4], hs.MI300X_RAS_BLOCKS, bad_pages=bad_pages(210))
    return Scenario(tb, [("gpu.retired-pages", "error")], 2,
                    evidence=[("gpu.retired-pages", "threshold 200 from amdgpu.bad_page_threshold=200")])


@scenario("health-reset-failed")
def health_reset_failed():
    """A ring timeout, a reset that failed: the GPU needs a reboot."""
    tb = Testbed()
    mi300x(tb)
    tb.kmsg(reset_log("0000:85:00.0", 1, ring="comp_1.0.0", failed=True))
    return Scenario(tb, [("gpu.reset-failed", "error"), ("gpu.reset-seen", "warning")], 2,
                    evidence=[("gpu.reset-failed", "GPU reset(1) failed")],
                    text=[("gpu.reset-seen", "ring comp_1.0.0 timed out")])


@scenario("health-reset-radeon-drm-error")
def health_reset_radeon_drm_error():
    """One RX 7900 XTX, old DRM_ERROR-style lines without a PCI address:
    attributed to the only GPU."""
    tb = Testbed()
    healthy_rx7900xtx_box(tb)
    tb.kmsg([(95.0, "[drm:amdgpu_job_timedout [amdgpu]] *ERROR* ring gfx_0.0.0 timeout, signaled seq=1201, "
                    "emitted seq=1203", 3),
             (95.1, "amdgpu 0000:03:00.0: amdgpu: GPU reset begin!", 4),
             (96.3, "amdgpu 0000:03:00.0: amdgpu: GPU reset(2) succeeded!", 6)])
    return Scenario(tb, [("gpu.reset-seen", "warning")], 1,
                    text=[("gpu.reset-seen", "0000:03:00.0 reset 1 times and hung 1 times")])


def rx7900xtx_health(tb, gpu):
    """The RX 7900 XTX's hwmon as LACT captured it, zero AER counters."""
    hs.add_hwmon(gpu, 8, [("edge", 53000, 100000, 105000), ("junction", 61000, 110000, 115000),
                          ("mem", 68000, 108000, 113000)],
                 power_uw=68000000, cap=290000000, cap_default=290000000, cap_max=333000000,
                 cap_min=0)
    gpu.attrs["gpu_metrics"] = hs.gpu_metrics(1, 3, indep=0)
    hs.add_aer_path(gpu)


@scenario("health-rx7900xtx-healthy")
def health_rx7900xtx_healthy():
    """Twin of the Radeon health scenarios: LACT's values, nothing to say."""
    tb = Testbed()
    gpu = healthy_rx7900xtx_box(tb)
    rx7900xtx_health(tb, gpu)
    return Scenario(tb, [("rocm.not-installed", "info")], 0, compare_info=True)


@scenario("health-aer-errors")
def health_aer_errors():
    """A non-fatal error on the GPU and 250 corrected errors on the card's
    switch upstream port."""
    tb = Testbed()
    gpu = healthy_rx7900xtx_box(tb)
    rx7900xtx_health(tb, gpu)
    hs.add_aer(gpu, nonfatal={"CmpltTO": 1})
    hs.add_aer(gpu.parent.parent, correctable={"BadTLP": 200, "BadDLLP": 50})
    return Scenario(tb, [("pcie.aer-errors", "error")], 2,
                    evidence=[("pcie.aer-errors", "0000:03:00.0/aer_dev_*: 0 fatal, 1 non-fatal, 0 correctable (the GPU)"),
                              ("pcie.aer-errors", "0000:01:00.0/aer_dev_*: 0 fatal, 0 non-fatal, 250 correctable")])


@scenario("health-aer-correctable")
def health_aer_correctable():
    """Only corrected errors above the limit: a warning naming the port."""
    tb = Testbed()
    gpu = healthy_rx7900xtx_box(tb)
    rx7900xtx_health(tb, gpu)
    hs.add_aer(gpu.parent.parent.parent, correctable={"RxErr": 180})
    return Scenario(tb, [("pcie.aer-errors", "warning")], 1,
                    text=[("pcie.aer-errors", "worst at 0000:00:01.1")])


@scenario("health-hot")
def health_hot():
    """Junction at 107 °C, within 5 °C of its 110 °C critical limit."""
    tb = Testbed()
    gpu = healthy_rx7900xtx_box(tb)
    rx7900xtx_health(tb, gpu)
    hs.add_hwmon(gpu, 8, [("edge", 88000, 100000, 105000), ("junction", 107000, 110000, 115000),
                          ("mem", 90000, 108000, 113000)], power_uw=280000000, cap=290000000,
                 cap_default=290000000, cap_max=333000000, cap_min=0)
    return Scenario(tb, [("gpu.hot", "warning")], 1,
                    text=[("gpu.hot", "junction temperature 107 °C")])


@scenario("health-hot-emergency")
def health_hot_emergency():
    """Memory at its 113 °C emergency (shutdown) limit."""
    tb = Testbed()
    gpu = healthy_rx7900xtx_box(tb)
    rx7900xtx_health(tb, gpu)
    hs.add_hwmon(gpu, 8, [("edge", 80000, 100000, 105000), ("junction", 95000, 110000, 115000),
                          ("mem", 113000, 108000, 113000)])
    return Scenario(tb, [("gpu.hot", "error")], 2, text=[("gpu.hot", "emergency")])


@scenario("health-power-capped")
def health_power_capped():
    """The RX 9070 XT snapshot's values: cap 120 W, default 304 W (39 %)."""
    tb = Testbed()
    gpu = healthy_rx7900xtx_box(tb)
    rx7900xtx_health(tb, gpu)
    hs.add_hwmon(gpu, 8, [("edge", 42000, 110000, 115000)], power_uw=55000000, cap=120000000,
                 cap_default=304000000, cap_max=340000000)
    return Scenario(tb, [("gpu.power-capped", "warning")], 1,
                    text=[("gpu.power-capped", "120 W, below its default of 304 W (39%)")])


@scenario("health-power-capped-slightly")
def health_power_capped_slightly():
    """The RX 9070 snapshot's values: cap 200 W, default 220 W: info only."""
    tb = Testbed()
    gpu = healthy_rx7900xtx_box(tb)
    rx7900xtx_health(tb, gpu)
    hs.add_hwmon(gpu, 8, [("edge", 48000, 110000, 115000)], power_uw=49000000, cap=200000000,
                 cap_default=220000000, cap_max=245000000)
    return Scenario(tb, [("gpu.power-capped", "info"), ("rocm.not-installed", "info")], 0,
                    compare_info=True)


@scenario("health-throttled-indep")
def health_throttled_indep():
    """gpu_metrics v1_3: indep_throttle_status has PPT0 (bit 0) and
    TEMP_HOTSPOT (bit 36) set."""
    tb = Testbed()
    gpu = healthy_rx7900xtx_box(tb)
    rx7900xtx_health(tb, gpu)
    gpu.attrs["gpu_metrics"] = hs.gpu_metrics(1, 3, indep=(1 << 0) | (1 << 36))
    return Scenario(tb, [("gpu.throttled", "warning")], 1,
                    text=[("gpu.throttled", "throttled: power, thermal")],
                    evidence=[("gpu.throttled", "indep_throttle_status 0x0000001000000001")])


@scenario("health-throttled-residency")
def health_throttled_residency():
    """gpu_metrics v1_8 on an MI300X: HBM thermal throttling in 25 % of the
    samples since the counters started."""
    tb = Testbed()
    gpus = mi300x(tb)
    gpus[6].attrs["gpu_metrics"] = hs.gpu_metrics(1, 8, residency=(40000, 0, 1200, 0, 0, 10000))
    return Scenario(tb, [("gpu.throttled", "warning")], 1,
                    evidence=[("gpu.throttled", "thermal throttling in 25.0% of 40000 samples")])


@scenario("health-metrics-unknown-revision")
def health_metrics_unknown_revision():
    """gpu_metrics v1_9 (attribute-encoded) and a truncated v1_8: not
    understood, so nothing is claimed either way."""
    tb = Testbed()
    gpus = mi300x(tb)
    gpus[0].attrs["gpu_metrics"] = hs.gpu_metrics(1, 9, size=1024)
    gpus[1].attrs["gpu_metrics"] = hs.gpu_metrics(1, 8, residency=(100, 0, 90, 0, 0, 0))[:200]
    return Scenario(tb, [], 0)


@scenario("health-vram-missing")
def health_vram_missing():
    """An MI300X reporting 144 GiB: one HBM stack of eight gone."""
    tb = Testbed()
    gpus = mi300x(tb)
    gpus[5].attrs["mem_info_vram_total"] = "%d\n" % (144 * GiB)
    return Scenario(tb, [("gpu.vram-missing", "error")], 2,
                    text=[("gpu.vram-missing", "reports 144.0 GiB of VRAM; an AMD Instinct MI300X has 192 GiB")])


@scenario("health-vram-nps4")
def health_vram_nps4():
    """Twin: in NPS4 mode the device reports a quarter: not comparable."""
    tb = Testbed()
    gpus = mi300x(tb)
    for g in gpus:
        g.attrs["mem_info_vram_total"] = "%d\n" % (48 * GiB)
        g.attrs["current_memory_partition"] = "NPS4\n"
    return Scenario(tb, [], 0)


#
# The hosts have no /usr/share/libdrm/amdgpu.ids under --root (Debian 12's,
# libdrm 2.4.114, has none of 7448, 7550, 7551, 74a5, 75a3 either), so the
# name of each GPU is the product table's: the report must not say "AMD GPU".
# KFD properties: the Navi31 node of scenarios.py with each chip's target and
# CU count (representative, not captured); the VRAM a healthy board reports
# is the board's size less the 16 MiB the driver keeps, as the RX 7900 XTX of
# scenarios.py shows (24560 of 24576 MiB).
NAVI48_KFD = kfd_props(NAVI31_KFD, 120001, 128, array_count=8, fw_version=2420)


NAVI31_SWITCH = (0x1002, 0x1478, 0x1479)


def usable(gib):
    """What a healthy board of gib GiB reports in mem_info_vram_total."""
    return gib * GiB - 16 * MiB


def radeon_box(tb, device, rev, kfd, vram):
    """A Ryzen desktop with one card in the CPU's x16 slot, behind the card's
    own switch; amdgpu and KFD up."""
    matisse_host(tb)
    gpu, node = card(tb, matisse_root_port(tb), 0x01, device, rev, kfd, vram=vram, switch=NAVI31_SWITCH,
                     bar0=32 * GiB)
    tb.module_amdgpu("live")
    tb.kfd([cpu_kfd_node(tb, 16), node])
    return gpu


def w7900(twin):
    """Radeon PRO W7900 (1002:7448 rev 00, Navi31, gfx1100, 48 GiB), the host
    of https://github.com/ROCm/legacy-rocm-build/issues/6137 (W7900 at
    03:00.0 on a Ryzen host, kernel 6.x). The board reports 32 GiB: a third of
    its GDDR6 is gone (the fault is modelled; the host is the report's).
    Twin: the board reports its 48 GiB."""
    tb = Testbed()
    radeon_box(tb, 0x7448, 0x00, NAVI31_KFD, usable(48) if twin else 32 * GiB)
    named = [({"pci_address": "0000:03:00.0"}, {"name": "AMD Radeon PRO W7900", "gfx": "gfx1100"})]
    if twin:
        return Scenario(tb, [], 0, gpus=named)
    return Scenario(tb, [("gpu.vram-missing", "error")], 2, gpus=named,
                    text=[("gpu.vram-missing",
                           "GPU 0000:03:00.0 reports 32.0 GiB of VRAM; an AMD Radeon PRO W7900 has 48 GiB")],
                    evidence=[("gpu.vram-missing", "conf/health.ini [vram]: PCI id 1002:7448 rev 00: 48 GiB")])


scenario("health-vram-missing-w7900")(lambda: w7900(False))


scenario("health-vram-w7900-twin")(lambda: w7900(True))


def r9700(twin):
    """Radeon AI PRO R9700 (1002:7551 rev c0, Navi48, gfx1201, 32 GiB) on a
    Ryzen 9 9950X with ROCm 7.1.1: amd-smi shows 30576 MB of memory, and
    the reporter asks whether the card is defective,
    https://github.com/ROCm/legacy-rocm-build/issues/5832. 30576 MiB is 6.7 %
    short of 32 GiB, past the 5 % [health] vram_missing_percent. Twin: the
    31.9 GB another R9700 shows (https://github.com/Andyyyy64/whichllm/pull/68)."""
    tb = Testbed()
    radeon_box(tb, 0x7551, 0xc0, NAVI48_KFD, usable(32) if twin else 30576 * MiB)
    named = [({"pci_address": "0000:03:00.0"}, {"name": "AMD Radeon AI PRO R9700", "gfx": "gfx1201"})]
    if twin:
        return Scenario(tb, [], 0, gpus=named)
    return Scenario(tb, [("gpu.vram-missing", "error")], 2, gpus=named,
                    text=[("gpu.vram-missing",
                           "reports 29.9 GiB of VRAM; an AMD Radeon AI PRO R9700 has 32 GiB")])


scenario("health-vram-missing-r9700")(lambda: r9700(False))


scenario("health-vram-r9700-twin")(lambda: r9700(True))


@scenario("named-rx9070xt-rx9070")
def named_rx9070():
    """An RX 9070 XT (1002:7550 rev c0, gfx1201, 16 GiB) as in
    https://github.com/ublue-os/bazzite/issues/5638, next to an RX 9070 (the
    same id, rev c3): the revision tells the two apart, both healthy."""
    tb = Testbed()
    matisse_host(tb)
    xt, n1 = card(tb, matisse_root_port(tb), 0x01, 0x7550, 0xc0, NAVI48_KFD, vram=usable(16),
                  switch=NAVI31_SWITCH)
    rp2 = matisse_root_port(tb, "0000:00:03.1", slot=1)
    non_xt, n2 = card(tb, rp2, 0x0a, 0x7550, 0xc3, kfd_props(NAVI48_KFD, 120001, 112), vram=usable(16),
                      switch=NAVI31_SWITCH, card_no=1, render=129)
    tb.module_amdgpu("live")
    tb.kfd([cpu_kfd_node(tb, 16), n1, n2])
    return Scenario(tb, [], 0, gpu_count=2,
                    gpus=[({"pci_address": "0000:03:00.0"}, {"name": "AMD Radeon RX 9070 XT", "gfx": "gfx1201",
                                                             "vram_bytes": usable(16)}),
                          ({"pci_address": "0000:0c:00.0"}, {"name": "AMD Radeon RX 9070", "gfx": "gfx1201"})])


def instinct(device, gfx_target_version, gib, twin_vram=None):
    """One Instinct OAM (SPX, NPS1) in a Ryzen host's x16 slot, BAR0 over
    all of its memory (the next power of two)."""
    tb = Testbed()
    instinct_tuned(tb)
    matisse_host(tb)
    vram = twin_vram if twin_vram is not None else gib * GiB
    gpu, node = card(tb, matisse_root_port(tb), 0x03, device, 0x00,
                     kfd_props(MI300X_SPX_KFD, gfx_target_version, 1024), vram=vram, audio=None,
                     bar0=(1 << (gib - 1).bit_length()) * GiB, cls=0x120000)
    gpu.attrs["current_memory_partition"] = "NPS1\n"
    tb.module_amdgpu("live")
    tb.kfd([cpu_kfd_node(tb, 32), node])
    return tb


@scenario("named-mi325x")
def named_mi325x():
    """An Instinct MI325X (1002:74a5, gfx942, 256 GiB HBM3E), the gfx94X
    machines ROCm's CI runs on (https://github.com/ROCm/rocm-systems/pull/4277);
    256 GiB from amd.com/en/products/accelerators/instinct/mi300/mi325x.html.
    Named by the table, its memory as expected."""
    tb = instinct(0x74a5, 90402, 256)
    return Scenario(tb, [], 0, gpus=[({"pci_address": "0000:03:00.0"},
                                      {"name": "AMD Instinct MI325X", "gfx": "gfx942"})])


def mi355x(twin):
    """An Instinct MI355X (1002:75a3, gfx950, 288 GiB HBM3E) named by the
    table; it reports 252 GiB, one of its eight 36 GiB HBM stacks gone (the
    fault is modelled; the MI350-series ids and sizes are those of
    https://github.com/ROCm/rocm-systems/pull/10274's MI350X topology).
    Twin: all 288 GiB."""
    tb = instinct(0x75a3, 90500, 288, None if twin else 252 * GiB)
    named = [({"pci_address": "0000:03:00.0"}, {"name": "AMD Instinct MI355X", "gfx": "gfx950"})]
    if twin:
        return Scenario(tb, [], 0, gpus=named)
    return Scenario(tb, [("gpu.vram-missing", "error")], 2, gpus=named,
                    text=[("gpu.vram-missing", "reports 252.0 GiB of VRAM; an AMD Instinct MI355X has 288 GiB")])


scenario("health-vram-missing-mi355x")(lambda: mi355x(False))


scenario("health-vram-mi355x-twin")(lambda: mi355x(True))


def strix_halo(twin):
    """Strix Halo (Ryzen AI Max+ 395, 1002:1586 rev c1, gfx1151) with the
    firmware's 512 MiB carve-out, as in
    https://github.com/ROCm/legacy-rocm-build/issues/5444: named "Radeon
    8060S"; the carve-out is apu.small-carveout, and never gpu.vram-missing:
    an integrated GPU's memory is system RAM, [vram] says "shared".
    Twin: the 96 GiB carve-out the reporter set."""
    tb = Testbed()
    tb.host_bridge("0000:00:00.0", 0x1022, 0x14e8)
    gpu, node = apu(tb, 0x1586, 0xc1, STRIX_HALO_KFD, 96 * GiB if twin else 512 * MiB, gtt=96 * GiB,
                    gc=(11, 5, 1))
    tb.module_amdgpu("live")
    tb.kfd([cpu_kfd_node(tb, 32, mem=128 * GiB), node])
    named = [({"pci_address": "0000:64:00.0"},
              {"name": "AMD Radeon 8060S Graphics", "gfx": "gfx1151", "integrated": True})]
    if twin:
        return Scenario(tb, [], 0, gpus=named)
    return Scenario(tb, [("apu.small-carveout", "warning")], 1, gpus=named)


scenario("named-strix-halo-512m")(lambda: strix_halo(False))


scenario("named-strix-halo-twin")(lambda: strix_halo(True))


@report("strix-halo-mes-0x83", "https://github.com/ROCm/legacy-rocm-build/issues/5724")
def strix_halo_mes(twin):
    """Strix Halo (gfx1151) on Fedora 43 whose amd-gpu-firmware shipped MES
    firmware 0x83: GPU hangs and memory access faults under compute load,
    assessed by AMD (ROCm#5724), fixed by rolling the firmware package back.
    Twin: MES 0x82."""
    tb = CompatTestbed()
    host_os(tb, os_release("fedora", "43", "Fedora Linux 43"), "6.17.12-300.fc43.x86_64")
    tb.host_bridge("0000:00:00.0", 0x1022, 0x14e8)
    gpu, node = apu(tb, 0x1586, 0xc1, STRIX_HALO_KFD, 96 * GiB, gtt=96 * GiB, gc=(11, 5, 1))
    add_firmware(gpu, {"mec": 0x2a4, "mes": 0x82 if twin else 0x83, "mes_kiq": 0x6f, "sos": 0x004e0044})
    tb.module_amdgpu("live")
    tb.kfd([cpu_kfd_node(tb, 32, mem=128 * GiB), node])
    if twin:
        return healthy(tb, [])
    return Scenario(tb, [("gpu.firmware-known-bad", "warning")], 1,
                    text=[("gpu.firmware-known-bad", "GPU 0000:64:00.0 (gfx1151) runs mes firmware 0x00000083")],
                    remedy=[("gpu.firmware-known-bad", "amd-gpu-firmware on Fedora")])
