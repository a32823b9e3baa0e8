"""Scenarios rebuilt from public failure reports.

Each report gives two scenarios: NAME, the host as the report describes it,
which must give the findings listed, and NAME-twin, the same host without the
fault, which must stay silent (exit status 0, no warning or error).  The
source of each is the URL passed to @report and repeated in the docstring.
Values the report does not show (bus numbers, subsystem ids, BARs, most KFD
properties) are representative; ids, gfx targets, kernel and OS releases and
log lines are the report's.
"""

from scenarios import (
    MI300X_SPX_KFD, NAVI21_KFD, NAVI31_KFD, PHOENIX_KFD, Scenario, cpu_kfd_node,
    matisse_host, matisse_root_port, rx7900xtx, scenario,
)
from scenarios_compat import CompatTestbed, rocm_box
from scenarios_env import torch_env
from scenarios_explain import HostKfdOnlyTestbed
from health_sysfs import add_firmware
from testbed import Bar, CLASS_AUDIO, CLASS_HOST_BRIDGE, GiB, MiB

# name -> source URL, for the record and for test listings
SOURCES = {}


def report(name, url):
    """Register fn(twin) as NAME (twin=False) and NAME-twin (twin=True)."""
    def register(fn):
        SOURCES[name] = url
        scenario(name)(lambda: fn(False))
        scenario(name + "-twin")(lambda: fn(True))
        return fn
    return register


# -- operating systems --------------------------------------------------------

def os_release(id_, version_id, pretty, id_like=None, codename=None):
    text = 'PRETTY_NAME="%s"\nNAME="%s"\nID=%s\nVERSION_ID="%s"\n' % (pretty, pretty, id_, version_id)
    if id_like:
        text += 'ID_LIKE="%s"\n' % id_like
    if codename:
        text += "VERSION_CODENAME=%s\n" % codename
    return text


FEDORA_41 = os_release("fedora", "41", "Fedora Linux 41 (Workstation Edition)")
ALMA_91 = os_release("almalinux", "9.1", "AlmaLinux 9.1 (Lime Lynx)", "rhel centos fedora")
ROCKY_94 = os_release("rocky", "9.4", "Rocky Linux 9.4 (Blue Onyx)", "rhel centos fedora")
SLES_156 = os_release("sles", "15.6", "SUSE Linux Enterprise Server 15 SP6", "suse")
NIXOS = os_release("nixos", "24.05", "NixOS 24.05 (Uakari)", codename="uakari")
ARCH = 'NAME="Arch Linux"\nPRETTY_NAME="Arch Linux"\nID=arch\nBUILD_ID=rolling\n'
UBUNTU_2004 = os_release("ubuntu", "20.04", "Ubuntu 20.04.6 LTS", "debian", "focal")
UBUNTU_2204 = os_release("ubuntu", "22.04", "Ubuntu 22.04.5 LTS", "debian", "jammy")
UBUNTU_2210 = os_release("ubuntu", "22.10", "Ubuntu 22.10", "debian", "kinetic")
DEBIAN_13 = os_release("debian", "13", "Debian GNU/Linux 13 (trixie)", codename="trixie")


def host_os(tb, text, kernel):
    tb.root_file("etc/os-release", text)
    tb.kernel(release=kernel, version="Linux version %s (builder@host) #1 SMP PREEMPT_DYNAMIC\n" % kernel)


# -- KFD property sets (representative: NAVI21_KFD with the family's values) --

def kfd_props(base, gfx_target_version, simd, **kw):
    p = dict(base, gfx_target_version=gfx_target_version, simd_count=simd)
    p.update(kw)
    return p


VEGA10_KFD = kfd_props(NAVI21_KFD, 90000, 256, wave_front_size=64, array_count=4, cu_per_simd_array=16,
                       simd_per_cu=4, fw_version=446, sdma_fw_version=433, num_sdma_engines=2)
VEGA20_KFD = kfd_props(VEGA10_KFD, 90006, 240, cu_per_simd_array=15, fw_version=469)
MI100_KFD = kfd_props(VEGA10_KFD, 90008, 480, array_count=8, cu_per_simd_array=15, fw_version=71)
MI210_KFD = kfd_props(VEGA10_KFD, 90010, 416, array_count=8, cu_per_simd_array=13, fw_version=78)
POLARIS_KFD = kfd_props(VEGA10_KFD, 80003, 144, cu_per_simd_array=9, fw_version=730)
HAWAII_KFD = kfd_props(VEGA10_KFD, 70001, 160, cu_per_simd_array=10, fw_version=0)
NAVI23_KFD = kfd_props(NAVI21_KFD, 100302, 64, array_count=4, cu_per_simd_array=8)
NAVI22_KFD = kfd_props(NAVI21_KFD, 100301, 80, array_count=4)
REMBRANDT_KFD = kfd_props(PHOENIX_KFD, 100305, 24, fw_version=116)
RAVEN_KFD = kfd_props(PHOENIX_KFD, 90002, 44, wave_front_size=64, simd_per_cu=4, fw_version=425)
RAPHAEL_KFD = kfd_props(PHOENIX_KFD, 100306, 4, fw_version=21)
STRIX_HALO_KFD = kfd_props(PHOENIX_KFD, 110501, 80, array_count=4, fw_version=35)
MENDOCINO_KFD = kfd_props(PHOENIX_KFD, 100307, 4, fw_version=14)


# -- building blocks ------------------------------------------------------------

def card(tb, parent, bus, device, rev, kfd=None, vram=8 * GiB, switch=None, card_no=0, render=128,
         driver="amdgpu", speed=16.0, width=16, audio=0xaaf8, name="ip discovery", unique_id=None,
         bdf=None, cls=None, bar0=256 * MiB):
    """A discrete card at bus:00.0 (or behind its own switch at bus, bus+1,
    the GPU at bus+2).  switch: (vendor, upstream id, downstream id).
    Returns (gpu, kfd node or None)."""
    if switch:
        vendor, up_id, down_id = switch
        parent = tb.switch(parent, "0000:%02x:00.0" % bus, ["0000:%02x:00.0" % (bus + 1)], vendor,
                           up_id, down_id, speed=speed, width=width, rev=rev)[0]
        bus += 2
    extra = {"cls": cls} if cls else {}
    gpu = tb.gpu(parent, bdf or "0000:%02x:00.0" % bus, 0x1002, device, rev=rev, subsys=(0x1002, 0x0b36),
                 driver=driver, speed=speed, width=width, vram=vram,
                 bars=[Bar(0, 0x8000000000 * (1 + bus), bar0),
                       Bar(2, 0xf0000000 + bus * 0x200000 // 0x100, 2 * MiB),
                       Bar(5, 0xfce00000 + bus * 0x1000, 512 * 1024, "mem32")],
                 atomics_requester=driver == "amdgpu", product_name="",
                 unique_id=unique_id, irq=40 + bus, **extra)
    if audio:
        tb.pci(parent, "0000:%02x:00.1" % bus, 0x1002, audio, CLASS_AUDIO, subsys=(0x1002, audio),
               driver="snd_hda_intel" if driver else None, max_speed=speed, max_width=width,
               bars=[Bar(0, 0xfcf00000 + bus * 0x1000, 16 * 1024, "mem32")], irq=41 + bus)
    if driver == "amdgpu":
        tb.drm(gpu, card=card_no, render=render)
    node = tb.kfd_gpu_node(gpu, kfd, mem_bytes=vram, name=name) if kfd and driver == "amdgpu" else None
    return gpu, node


def apu(tb, device, rev, kfd, carveout, gtt=15 * GiB, gc=(10, 3, 5)):
    """An integrated GPU at 64:00.0 behind the internal root port 00:08.1."""
    tb.pci(None, "0000:00:08.0", 0x1022, 0x14b5, CLASS_HOST_BRIDGE, pcie=False)
    rp = tb.root_port("0000:00:08.1", 0x1022, 0x14b9, speed=16.0, width=16)
    gpu = tb.gpu(rp, "0000:64:00.0", 0x1002, device, rev=rev, subsys=(0x17aa, 0x3802), vram=carveout,
                 speed=16.0, width=16,
                 bars=[Bar(0, 0x7c10000000, 256 * MiB), Bar(2, 0x7c20000000, 2 * MiB),
                       Bar(5, 0xfcd00000, 512 * 1024, "mem32")],
                 product_name="", unique_id=0, gc_ip=gc, boot_vga=True, irq=80,
                 attrs={"mem_info_gtt_total": "%d\n" % gtt})
    tb.pci(rp, "0000:64:00.1", 0x1002, 0x1640, CLASS_AUDIO, subsys=(0x17aa, 0x3802),
           driver="snd_hda_intel", bars=[Bar(0, 0xfcd80000, 16 * 1024, "mem32")], irq=81)
    tb.drm(gpu, card=0, render=128)
    node = tb.kfd_gpu_node(gpu, kfd, mem_bytes=carveout) if kfd else None
    return gpu, node


def intel_host(tb, pch_ports=(), cpu_x16=True, atomics=True):
    """An Intel desktop: host bridge, optional CPU x16 root port 00:01.0 and
    PCH root ports (1c.N, given as (bdf, width)) that do not route AtomicOps."""
    tb.host_bridge("0000:00:00.0", 0x8086, 0x590f, rev=0x05)
    ports = []
    if cpu_x16:
        ports.append(tb.root_port("0000:00:01.0", 0x8086, 0x1901, speed=8.0, width=16, atomics=atomics))
    for bdf, width in pch_ports:
        rp = tb.root_port(bdf, 0x8086, 0xa290, speed=8.0, width=width, atomics=False)
        ports.append(rp)
    return ports


def fn_at(tb, bdf):
    return next(f for f in tb.functions if f.bdf == bdf)


def instinct_tuned(tb):
    """NUMA balancing off, as AMD's Instinct tuning guide sets it."""
    tb.overlay_file("proc/sys/kernel/numa_balancing", "0\n")


def healthy(tb, twin_findings=()):
    return Scenario(tb, list(twin_findings), 0)


# ==============================================================================
# Mining rigs and PCIe links

@report("rig-3x-vega64-x1-risers", "https://github.com/ROCm/legacy-rocm-build/issues/157")
def rig_vega64(twin):
    """Three Vega 64 (gfx900, 1002:687f) on x1 USB risers, the mining-rig
    layout of ROCm#157 (and #558: "$3 Chinese risers PCI-E 1x").  Each card
    has Vega 10's own switch (1022:1470 upstream, 1022:1471 downstream); the
    x1 is the upstream port's link.  Twin: the same cards in x16 slots."""
    tb = CompatTestbed()
    tb.host_bridge("0000:00:00.0", 0x8086, 0x590f, rev=0x05)
    nodes = [cpu_kfd_node(tb, 4, mem=8 * GiB)]
    for i in range(3):
        rp = tb.root_port("0000:00:1c.%d" % i, 0x8086, 0xa290 + i, speed=8.0,
                          width=16 if twin else 1)
        gpu, node = card(tb, rp, 1 + 3 * i, 0x687f, 0xc1, VEGA10_KFD, switch=(0x1022, 0x1470, 0x1471),
                         card_no=i, render=128 + i)
        if not twin:
            # the riser's x1 link: the root port and the card's upstream port
            rp.set_link(2.5, 1)
            fn_at(tb, "0000:%02x:00.0" % (1 + 3 * i)).set_link(2.5, 1)
        nodes.append(node)
    tb.module_amdgpu("live")
    tb.kfd(nodes)
    if twin:
        return healthy(tb)
    return Scenario(tb, [("pcie.link-degraded", "warning")] * 3, 1, gpu_count=3,
                    evidence=[("pcie.link-degraded", "link x1 of x16")],
                    gpus_all={"link.current_width": 1, "link.max_width": 16})


@report("x570-chipset-rx560", "https://github.com/ROCm/legacy-rocm-build/issues/910")
def x570_chipset(twin):
    """RX 560 (Baffin, gfx803, 1002:67ef) in the x4 slot behind the X570
    chipset's switch (AMD 1022 ports, several downstream ports): KFD logs
    "skipped device 1002:67ef, PCI rejects atomics".  The chipset switch is not
    the card's own, so the GPU's link is its own (x4 in an x4 slot: no link
    finding).  Twin: the card in the CPU's x16 slot."""
    tb = CompatTestbed()
    matisse_host(tb)
    rp = matisse_root_port(tb, "0000:00:01.2", atomics=not twin)
    if twin:
        gpu, node = card(tb, rp, 0x06, 0x67ef, 0xcf, POLARIS_KFD, vram=4 * GiB, speed=8.0, width=16)
    else:
        downs = tb.switch(rp, "0000:02:00.0", ["0000:03:02.0", "0000:03:08.0", "0000:03:09.0"], 0x1022,
                          0x57ad, 0x57a3, speed=16.0, width=4, routing=False)
        tb.pci(downs[1], "0000:07:00.0", 0x1022, 0x1485, CLASS_HOST_BRIDGE)   # chipset function
        gpu, node = card(tb, downs[0], 0x06, 0x67ef, 0xcf, POLARIS_KFD, vram=4 * GiB, speed=8.0, width=4)
        node = None
        tb.kmsg([(5.1, "kfd kfd: amdgpu: skipped device 1002:67ef, PCI rejects atomics 730<0")])
    tb.module_amdgpu("live")
    tb.kfd([cpu_kfd_node(tb, 8)] + ([node] if node else []))
    if twin:
        return healthy(tb)
    return Scenario(tb, [("pcie.atomics-missing", "error")], 2,
                    gpus=[({"device_id": 0x67ef}, {"link.address": "0000:06:00.0", "link.current_width": 4})])


@report("h270-second-rx570-pch", "https://github.com/ROCm/legacy-rocm-build/issues/364")
def h270_rx570(twin):
    """Two RX 570 (1002:67df, gfx803) on an ASRock H270 "miner-desktop": card 1
    on the CPU's 00:01.0, card 2 behind PCH root port 00:1c.0 (x4), which does
    not route AtomicOps: "skipped device 1002:67df, PCI rejects atomics".
    Twin: card 2 removed."""
    tb = CompatTestbed()
    cpu, pch = intel_host(tb, [("0000:00:1c.0", 4)])
    g1, n1 = card(tb, cpu, 0x01, 0x67df, 0xef, POLARIS_KFD, vram=4 * GiB, speed=8.0, width=16)
    nodes = [cpu_kfd_node(tb, 4), n1]
    if not twin:
        card(tb, pch, 0x02, 0x67df, 0xef, None, vram=4 * GiB, speed=8.0, width=4, card_no=1, render=129)
        tb.kmsg([(4.2, "kfd kfd: added device 1002:67df"),
                 (4.9, "kfd kfd: skipped device 1002:67df, PCI rejects atomics")])
    tb.module_amdgpu("live")
    tb.kfd(nodes)
    if twin:
        return healthy(tb)
    return Scenario(tb, [("pcie.atomics-missing", "error")], 2, gpu_count=2,
                    evidence=[("pcie.atomics-missing", "PCI rejects atomics")])


@report("laptop-rx550-chipset-port", "https://github.com/ROCm/legacy-rocm-build/issues/827")
def laptop_rx550(twin):
    """Samsung NP940X5N: Intel i7-8550U iGPU (i915) + Radeon RX 550 (Lexa,
    1002:699f) on a chipset root port that rejects atomics.  Twin: a laptop
    whose root port completes them (the dGPU gets its KFD node)."""
    tb = CompatTestbed()
    tb.host_bridge("0000:00:00.0", 0x8086, 0x5914, rev=0x08)
    igpu = tb.gpu(None, "0000:00:02.0", 0x8086, 0x5917, rev=0x07, driver="i915", boot_vga=True,
                  bars=[Bar(0, 0xa0000000, 16 * MiB)], irq=16)
    igpu.pcie = False
    tb.drm(igpu, card=0, render=128)
    tb.module("i915", "live", srcversion="A1B2C3D4E5F60718293A4B5")
    rp = tb.root_port("0000:00:1c.0", 0x8086, 0x9d10, speed=8.0, width=4, atomics=twin)
    gpu, node = card(tb, rp, 0x01, 0x699f, 0xc0, POLARIS_KFD, vram=2 * GiB, speed=8.0, width=4,
                     audio=None, card_no=1, render=129)
    tb.module_amdgpu("live")
    if twin:
        tb.kfd([cpu_kfd_node(tb, 8), node])
        return healthy(tb)
    tb.kfd([cpu_kfd_node(tb, 8)])
    tb.kmsg([(3.5, "kfd kfd: skipped device 1002:699f, PCI rejects atomics")])
    return Scenario(tb, [("pcie.atomics-missing", "error")], 2, gpu_count=1)


@report("kvm-guest-rx480-atomics", "https://github.com/ROCm/amdgpu/issues/26")
def kvm_rx480(twin):
    """RX 480 (gfx803) passed to a QEMU/KVM guest, where it sits on the root
    bus without a PCIe root port: the guest's KFD reports "PCI rejects atomics".
    Twin: a Vega 56 (gfx900, needs no atomics) passed the same way."""
    tb = CompatTestbed()
    tb.host_bridge("0000:00:00.0", 0x8086, 0x29c0, rev=0x00)
    tb.overlay_file("sys/class/dmi/id/sys_vendor", "QEMU\n")
    dev, props = (0x687f, VEGA10_KFD) if twin else (0x67df, POLARIS_KFD)
    gpu, node = card(tb, None, 0x00, dev, 0xc7, props, vram=8 * GiB, audio=None, bdf="0000:00:05.0")
    tb.module_amdgpu("live")
    if twin:
        tb.kfd([cpu_kfd_node(tb, 8), node])
        return healthy(tb)
    tb.kfd([cpu_kfd_node(tb, 8)])
    tb.kmsg([(2.1, "kfd kfd: skipped device 1002:67df, PCI rejects atomics")])
    return Scenario(tb, [("pcie.atomics-missing", "error")], 2)


# ==============================================================================
# Hardware no ROCm supports, and the legacy driver

def hybrid_oland_laptop(tb, twin):
    """Intel iGPU + HD 8790M (Oland 1002:6606, SI/gfx602) on amdgpu with
    si_support=1; twin: an RX 6600M (Navi23, gfx1032) instead."""
    tb.host_bridge("0000:00:00.0", 0x8086, 0x0c04, rev=0x06)
    igpu = tb.gpu(None, "0000:00:02.0", 0x8086, 0x0416, rev=0x06, driver="i915", boot_vga=True,
                  bars=[Bar(0, 0xc0000000, 4 * MiB)], irq=16)
    igpu.pcie = False
    tb.drm(igpu, card=0, render=128)
    tb.module("i915", "live", srcversion="A1B2C3D4E5F60718293A4B5")
    rp = tb.root_port("0000:00:01.0", 0x8086, 0x0c01, speed=8.0, width=8, atomics=False)
    dev, props = (0x73ff, NAVI23_KFD) if twin else (0x6606, None)
    gpu, node = card(tb, rp, 0x01, dev, 0x00, props, vram=2 * GiB, speed=8.0, width=8, audio=None,
                     card_no=1, render=129)
    tb.module_amdgpu("live", params={"si_support": "1"})
    tb.kfd([cpu_kfd_node(tb, 4)] + ([node] if node else []))
    if not twin:
        tb.kmsg([(3.1, "[drm] initializing kernel modesetting (OLAND 0x1002:0x6606 0x1025:0x0776 0x00)."),
                 (3.4, "kfd kfd: amdgpu: OLAND  not supported in kfd")])


@report("fedora-hd8790m-oland", "https://github.com/ROCm/legacy-rocm-build/issues/2232")
def fedora_oland(twin):
    """The issue's Fedora laptop: HD 8790M (Oland, gfx602) on amdgpu.  No KFD
    supports SI (as ROCm#2232 shows for Pitcairn: "not supported in kfd"): the
    answer is that it cannot run ROCm, not an Ubuntu HWE kernel."""
    tb = CompatTestbed()
    host_os(tb, FEDORA_41, "6.11.4-301.fc41.x86_64")
    hybrid_oland_laptop(tb, twin)
    if twin:
        return healthy(tb)
    return Scenario(tb, [("driver.kfd-unsupported", "error")], 2,
                    text=[("driver.kfd-unsupported", "cannot run ROCm")],
                    remedy=[("driver.kfd-unsupported", "Vulkan"), ("driver.kfd-unsupported", "gfx1100")])


@report("ubuntu2004-r9-270-pitcairn", "https://github.com/ROCm/legacy-rocm-build/issues/2232")
def pitcairn(twin):
    """R9 270 "Curacao PRO" (Pitcairn 1002:6811, GCN1) on Ubuntu 20.04, kernel
    5.4.0-54: "kfd kfd: amdgpu: PITCAIRN  not supported in kfd", /dev/kfd opens
    with ENOMEM.  Twin: an RX 580 (gfx803, with atomics) in the same slot."""
    tb = CompatTestbed()
    host_os(tb, UBUNTU_2004, "5.4.0-54-generic")
    matisse_host(tb)
    rp = matisse_root_port(tb)
    dev, props = (0x67df, POLARIS_KFD) if twin else (0x6811, None)
    gpu, node = card(tb, rp, 0x01, dev, 0x81, props, vram=2 * GiB, speed=8.0, width=16)
    tb.module_amdgpu("live", params={"si_support": "1"})
    tb.kfd([cpu_kfd_node(tb, 8)] + ([node] if node else []))
    if twin:
        return healthy(tb)
    tb.kmsg([(3.4, "kfd kfd: amdgpu: PITCAIRN  not supported in kfd")])
    return Scenario(tb, [("driver.kfd-unsupported", "error")], 2,
                    evidence=[("driver.kfd-unsupported", "PITCAIRN  not supported in kfd")],
                    text=[("driver.kfd-unsupported", "cannot run ROCm")])


@report("hawaii-radeon-bound", "https://github.com/ROCm/legacy-rocm-build/issues/691")
def hawaii(twin):
    """R9 290 (Hawaii 1002:67b1, CIK gfx701) on Ubuntu 18.04 with radeon bound
    (CIK defaults to radeon).  Twin: amdgpu with cik_support=1 and its KFD node."""
    tb = CompatTestbed()
    matisse_host(tb)
    rp = matisse_root_port(tb)
    drv = "amdgpu" if twin else "radeon"
    gpu, node = card(tb, rp, 0x01, 0x67b1, 0x00, HAWAII_KFD, vram=4 * GiB, speed=8.0, width=16, driver=drv)
    if twin:
        tb.module_amdgpu("live", params={"cik_support": "1"})
        tb.kfd([cpu_kfd_node(tb, 8), node])
        return healthy(tb)
    tb.drm(gpu, card=0, render=128)
    tb.module("radeon", "live", srcversion="5A1B3C7D9E0F2A4B6C8D0E1", params={"cik_support": "1"})
    return Scenario(tb, [("gpu.radeon-bound", "error")], 2, remedy=[("gpu.radeon-bound", "cik_support=1")])


# ==============================================================================
# Distributions: remedies in the host's own terms

@report("nixos-navy-flounder-firmware", "https://github.com/ROCm/legacy-rocm-build/issues/1357")
def nixos_firmware(twin):
    """An RX 6700 XT (Navi22, gfx1031) on NixOS whose navy_flounder_sos.bin is
    missing (the failure of ROCm#1357, there arcturus_gpu_info.bin on an
    MI100): the remedy must name the file and where the kernel looks, not
    apt or update-initramfs.  Twin: the firmware loads."""
    tb = CompatTestbed()
    host_os(tb, NIXOS, "6.6.52")
    matisse_host(tb)
    rp = matisse_root_port(tb, "0000:00:03.1", slot=1)
    gpu, node = card(tb, rp, 0x0a, 0x73df, 0xc1, NAVI22_KFD, vram=12 * GiB, driver="amdgpu" if twin else None,
                     switch=(0x1002, 0x1478, 0x1479))
    tb.module_amdgpu("live")
    if twin:
        tb.kfd([cpu_kfd_node(tb, 16), node])
        return healthy(tb)
    tb.kfd([cpu_kfd_node(tb, 16)])
    tb.kmsg([(4.01, "amdgpu 0000:0c:00.0: Direct firmware load for amdgpu/navy_flounder_sos.bin failed "
                    "with error -2", 4),
             (4.03, "amdgpu 0000:0c:00.0: amdgpu: Fatal error during GPU init", 3)])
    return Scenario(tb, [("driver.firmware-missing", "error"), ("gpu.no-driver", "error")], 2,
                    remedy=[("driver.firmware-missing", "/lib/firmware/amdgpu/navy_flounder_sos.bin")])


@report("ubuntu1804-mi100-firmware", "https://github.com/ROCm/legacy-rocm-build/issues/1357")
def mi100_firmware(twin):
    """MI100 (Arcturus 1002:738c, gfx908) on Ubuntu 18.04 / 4.15.0-130:
    "Direct firmware load for amdgpu/arcturus_gpu_info.bin failed with error -2",
    "Fatal error during GPU init".  Twin: the firmware is there."""
    tb = CompatTestbed()
    instinct_tuned(tb)
    host_os(tb, os_release("ubuntu", "18.04", "Ubuntu 18.04.5 LTS", "debian", "bionic"), "4.15.0-130-generic")
    matisse_host(tb)
    rp = matisse_root_port(tb)
    gpu, node = card(tb, rp, 0x23, 0x738c, 0x01, MI100_KFD, vram=32 * GiB, audio=None, bar0=32 * GiB,
                     driver="amdgpu" if twin else None)
    tb.module_amdgpu("live")
    if twin:
        tb.kfd([cpu_kfd_node(tb, 32), node])
        return healthy(tb)
    tb.kfd([cpu_kfd_node(tb, 32)])
    tb.kmsg([(5.0, "amdgpu 0000:23:00.0: Direct firmware load for amdgpu/arcturus_gpu_info.bin failed "
                   "with error -2", 4),
             (5.1, "amdgpu 0000:23:00.0: amdgpu: Fatal error during GPU init", 3),
             (5.2, "amdgpu: probe of 0000:23:00.0 failed with error -2", 4)])
    return Scenario(tb, [("driver.firmware-missing", "error"), ("gpu.no-driver", "error")], 2,
                    remedy=[("driver.firmware-missing", "`sudo apt install linux-firmware`")])


@report("alma91-amdgpu-not-loaded", "https://github.com/ROCm/legacy-rocm-build/issues/1888")
def alma_not_loaded(twin):
    """AlmaLinux 9.1 after a ROCm install: amdgpu does not load at all.  The
    remedy must not send an Alma user to Ubuntu's linux-modules-extra.
    Twin: amdgpu loaded."""
    tb = CompatTestbed()
    host_os(tb, ALMA_91, "5.14.0-162.6.1.el9_1.x86_64")
    matisse_host(tb)
    rp = matisse_root_port(tb)
    gpu, node = rx7900xtx(tb, rp, bus=1, driver="amdgpu" if twin else None), None
    if twin:
        tb.module_amdgpu("live")
        tb.kfd([cpu_kfd_node(tb, 16), tb.kfd_gpu_node(gpu, NAVI31_KFD, mem_bytes=25753026560)])
        return healthy(tb)
    return Scenario(tb, [("driver.not-loaded", "error")], 2,
                    remedy=[("driver.not-loaded", "modinfo amdgpu")])


@report("ubuntu2210-mi50-not-loaded", "https://github.com/ROCm/legacy-rocm-build/issues/1850")
def mi50_2210(twin):
    """MI50 (Vega 20 1002:66a1, gfx906) on Ubuntu 22.10 / 5.19.0-23: "ROCk module
    is NOT loaded".  22.10 is no release the table lists: info, nearest 22.04.
    Twin: Ubuntu 22.04 with amdgpu loaded."""
    tb = CompatTestbed()
    instinct_tuned(tb)
    host_os(tb, UBUNTU_2204 if twin else UBUNTU_2210, "5.15.0-122-generic" if twin else "5.19.0-23-generic")
    matisse_host(tb)
    rp = matisse_root_port(tb)
    gpu, node = card(tb, rp, 0x03, 0x66a1, 0x02, VEGA20_KFD, vram=16 * GiB, audio=None, bar0=16 * GiB,
                     driver="amdgpu" if twin else None)
    if twin:
        tb.module_amdgpu("live")
        tb.kfd([cpu_kfd_node(tb, 32), node])
        return healthy(tb)
    return Scenario(tb, [("driver.not-loaded", "error"), ("os.not-validated", "info"),
                         ("rocm.not-installed", "info")], 2, compare_info=True,
                    remedy=[("os.not-validated", "ubuntu 22.04")])


@report("debian13-strix-halo-unlisted", "https://github.com/ggml-org/llama.cpp/issues/20142")
def debian13(twin):
    """Framework Desktop, Ryzen AI Max+ 395 (Strix Halo 1002:1586, gfx1151) on
    Debian 13 with a backports 6.18 kernel.  When reported, no ROCm listed
    Debian 13; ROCm 7.1 does (support.ini), so the newest release validates it
    and os.not-validated stays silent: only the info that ROCm is not
    installed.  96 GiB carve-out.  Twin: the same machine's findings without
    info compared (healthy)."""
    tb = CompatTestbed()
    host_os(tb, DEBIAN_13, "6.18.12+bpo-amd64")
    tb.host_bridge("0000:00:00.0", 0x1022, 0x14e8)
    gpu, node = apu(tb, 0x1586, 0xc1, STRIX_HALO_KFD, 96 * GiB, gtt=16 * GiB, gc=(11, 5, 1))
    tb.module_amdgpu("live")
    tb.kfd([cpu_kfd_node(tb, 32, mem=32 * GiB), node])
    if twin:
        return healthy(tb)
    return Scenario(tb, [("rocm.not-installed", "info")], 0, compare_info=True)


@report("arch-cachyos-no-kfd", "https://github.com/CachyOS/linux-cachyos/issues/643")
def cachyos_no_kfd(twin):
    """RX 7900 (Navi31) on a custom CachyOS kernel: amdgpu loads, KFD never
    comes up ("sched_policy has invalid value").  Arch is no family we know:
    the remedy says CONFIG_HSA_AMD, not another distribution's kernel package.
    Twin: KFD present."""
    tb = CompatTestbed()
    host_os(tb, ARCH, "6.12.1-2-cachyos")
    matisse_host(tb)
    rp = matisse_root_port(tb)
    gpu = rx7900xtx(tb, rp, bus=1)
    tb.module_amdgpu("live", params={"sched_policy": "7"})
    if twin:
        tb.kfd([cpu_kfd_node(tb, 16), tb.kfd_gpu_node(gpu, NAVI31_KFD, mem_bytes=25753026560)])
        return healthy(tb)
    tb.kmsg([(3.0, "amdgpu: sched_policy has invalid value, using default value instead")])
    return Scenario(tb, [("kfd.missing", "error")], 2, remedy=[("kfd.missing", "CONFIG_HSA_AMD=y")])


@report("ubuntu1804-radeon-vii-no-kfd", "https://github.com/ROCm/legacy-rocm-build/issues/753")
def radeon_vii(twin):
    """Radeon VII (Vega 20 1002:66af, gfx906) on Ubuntu 18.04 with kernel 4.18,
    for which rock-dkms did not build: amdgpu (inbox) drives the card, no
    /dev/kfd.  Twin: kernel 4.15 with KFD."""
    tb = CompatTestbed()
    host_os(tb, os_release("ubuntu", "18.04", "Ubuntu 18.04.2 LTS", "debian", "bionic"),
            "4.15.0-46-generic" if twin else "4.18.0-16-generic")
    matisse_host(tb)
    rp = matisse_root_port(tb)
    gpu, node = card(tb, rp, 0x03, 0x66af, 0xc1, VEGA20_KFD, vram=16 * GiB)
    tb.module_amdgpu("live")
    if twin:
        tb.kfd([cpu_kfd_node(tb, 8), node])
        return healthy(tb)
    return Scenario(tb, [("kfd.missing", "error")], 2, remedy=[("kfd.missing", "linux-generic or the HWE kernel")])


@report("sles-mi210-iommu", "https://github.com/ROCm/legacy-rocm-build/issues/597")
def sles_iommu(twin):
    """Two MI210 (gfx90a) with the IOMMU translating DMA (ROCm#597: "ROCm
    doesn't support intel_iommu=on without iommu=pt"), on SLES 15 SP6: the
    remedy is grub2-mkconfig, not update-grub.  Twin: iommu=pt."""
    tb = CompatTestbed()
    host_os(tb, SLES_156, "6.4.0-150600.23.25-default")
    tb.host_bridge("0000:00:00.0", 0x1022, 0x14a4)
    nodes = [cpu_kfd_node(tb, 64)]
    for i, bus in enumerate((0x03, 0x43)):
        rp = tb.root_port("0000:00:%02x.1" % (1 + i), 0x1022, 0x14ab, speed=16.0, width=16)
        gpu, node = card(tb, rp, bus, 0x740f, 0x02, MI210_KFD, vram=64 * GiB, audio=None, bar0=64 * GiB, card_no=i,
                         render=128 + i)
        nodes.append(node)
    tb.module_amdgpu("live")
    tb.kfd(nodes)
    for i in range(2):
        tb.overlay_file("sys/class/iommu/ivhd%d/uevent" % i, "")
    tb.overlay_file("proc/sys/kernel/numa_balancing", "0\n")
    if twin:
        tb.cmdline("BOOT_IMAGE=/boot/vmlinuz-6.4.0-150600.23.25-default root=UUID=1 ro iommu=pt")
        return healthy(tb)
    return Scenario(tb, [("tuning.iommu-pt", "warning")], 1, remedy=[("tuning.iommu-pt", "grub2-mkconfig")])


# ==============================================================================
# Containers: one cause, one finding

def container_box(tb, engine):
    gpu = rx7900xtx(tb, matisse_root_port(tb), bus=1)
    tb.module_amdgpu("live")
    tb.kfd([cpu_kfd_node(tb, 16), tb.kfd_gpu_node(gpu, NAVI31_KFD, mem_bytes=25753026560)])
    if engine == "docker":
        tb.root_file(".dockerenv", "")
    else:
        tb.root_file("run/.containerenv", 'engine="podman-4.9.3"\n')
    return gpu


# root in the container, with no supplementary groups of the test runner's
AS_ROOT = ["setpriv", "--reuid=0", "--regid=0", "--clear-groups"]


@report("apptainer-containall-no-kfd", "https://github.com/ROCm/legacy-rocm-build/issues/1798")
def apptainer_containall(twin):
    """RX 6900 XT host (Arch); a ROCm container started with --containall and
    no --bind=/dev/kfd,/dev/dri: "Unable to open /dev/kfd read-write: No such
    file or directory".  One cause, one finding: container.devices-missing,
    not kfd.missing too.  Twin: the devices are passed."""
    tb = HostKfdOnlyTestbed() if not twin else CompatTestbed()
    matisse_host(tb)
    container_box(tb, "docker")
    if twin:
        return healthy(tb)
    for r in tb.extra_records:
        if "/drm/renderD" in r.path:
            r.nodes = []
    for path in [p for p in tb.nodes if p == "dev/kfd" or p.startswith("dev/dri/")]:
        del tb.nodes[path]
    return Scenario(tb, [("container.devices-missing", "error")], 2,
                    evidence=[("container.devices-missing", "/dev/kfd: absent in the container")])


@report("docker-root-user-gid-109", "https://github.com/ROCm/ROCm-docker/issues/116")
def docker_user_gid(twin):
    """rocm-terminal: --device=/dev/kfd --device=/dev/dri --group-add video, the
    image's user lacks the host's render gid (109 here), which has no name in
    the container.  Checked as root with --user alice: usermod cannot grant a
    gid with no name, --group-add 109 can.  Twin: the container's database has
    the gid (as render) with alice in it."""
    tb = CompatTestbed()
    matisse_host(tb)
    container_box(tb, "docker")
    del tb.groups["render"]
    tb.node_mode("dev/kfd", 0o660, 0, 109)
    tb.node_mode("dev/dri/renderD128", 0o660, 0, 109)
    if twin:
        tb.groups["render"] = [109, ["alice"]]
        return Scenario(tb, [], 0, args=["--user", "alice"], needs_root=True, wrap=AS_ROOT)
    return Scenario(tb, [("container.gid-mismatch", "error")], 2, args=["--user", "alice"], needs_root=True,
                    wrap=AS_ROOT,
                    remedy=[("container.gid-mismatch", "--group-add 109")],
                    evidence=[("container.gid-mismatch", "group 109 (no name in this container)")])


# ==============================================================================
# APUs: overrides and memory

def rembrandt_box(tb, carveout, kernel="6.5.0-45-generic"):
    host_os(tb, UBUNTU_2204, kernel)
    tb.host_bridge("0000:00:00.0", 0x1022, 0x14b5)
    gpu, node = apu(tb, 0x1681, 0xc8, REMBRANDT_KFD, carveout, gtt=15 * GiB)
    tb.module_amdgpu("live")
    tb.kfd([cpu_kfd_node(tb, 16, mem=32 * GiB), node])
    return gpu


@report("rembrandt-680m-512m-carveout", "https://github.com/ROCm/legacy-rocm-build/issues/2014")
def rembrandt_carveout(twin):
    """Ryzen 7 6800U, Radeon 680M (Rembrandt 1002:1681, gfx1035), Ubuntu 22.04:
    "HIP out of memory ... 512.00 MiB total capacity": the firmware's UMA frame
    buffer is 512 MiB and kernel 6.5 allocates from it only.  Twin: 8 GiB."""
    tb = CompatTestbed()
    rembrandt_box(tb, 8 * GiB if twin else 512 * MiB)
    if twin:
        return healthy(tb)
    return Scenario(tb, [("apu.small-carveout", "warning")], 1,
                    evidence=[("apu.small-carveout", "mem_info_vram_total: 536870912"),
                              ("apu.small-carveout", "mem_info_gtt_total: 16106127360")],
                    remedy=[("apu.small-carveout", "UMA Frame Buffer Size"),
                            ("apu.small-carveout", "Linux 6.10")])


@report("rembrandt-override-10.3.0", "https://github.com/ROCm/legacy-rocm-build/issues/2061")
def rembrandt_override(twin):
    """The same 680M (gfx1035) with ROCm 6.2.4, which has rocBLAS kernels for
    gfx1030 but not gfx1035, and HSA_OVERRIDE_GFX_VERSION=10.3.0 as for an
    RX 6600 (ROCm#2061) or RX 6700 XT: the override is honoured (info, not
    arch.no-kernels as an error).  The fault: no override set."""
    tb = CompatTestbed()
    rembrandt_box(tb, 8 * GiB)
    rocm_box(tb, suite="jammy", codename_version="22.04")
    env = {"PATH": "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin:/opt/rocm/bin"}
    # arch.unsupported (ROCm supports no iGPU officially) stays in both, as for
    # an RX 6700 XT; the override decides arch.no-kernels
    if twin:
        env["HSA_OVERRIDE_GFX_VERSION"] = "10.3.0"
        return Scenario(tb, [("arch.unsupported", "warning")], 1, env=env)
    return Scenario(tb, [("arch.no-kernels", "error"), ("arch.unsupported", "warning")], 2, env=env,
                    remedy=[("arch.no-kernels", "HSA_OVERRIDE_GFX_VERSION_1=10.3.0")])


@report("mendocino-610m-carveout", "https://github.com/rjmalagon/ollama-linux-amd-apu/issues/12")
def mendocino(twin):
    """Radeon 610M (Mendocino 1002:1506, gfx1037) for ollama with
    HSA_OVERRIDE_GFX_VERSION=10.3.0; a 512 MiB carve-out on Ubuntu 22.04's
    5.15 kernel.  Twin: 4 GiB."""
    tb = CompatTestbed()
    host_os(tb, UBUNTU_2204, "5.15.0-122-generic")
    tb.host_bridge("0000:00:00.0", 0x1022, 0x14b5)
    gpu, node = apu(tb, 0x1506, 0xc4, MENDOCINO_KFD, 4 * GiB if twin else 512 * MiB, gtt=7 * GiB,
                    gc=(10, 3, 7))
    tb.module_amdgpu("live")
    tb.kfd([cpu_kfd_node(tb, 4, mem=16 * GiB), node])
    if twin:
        return healthy(tb)
    return Scenario(tb, [("apu.small-carveout", "warning")], 1,
                    gpus=[({"device_id": 0x1506}, {"gfx": "gfx1037", "integrated": True})])


@report("strix-halo-512m-kernel-6.14", "https://github.com/ROCm/legacy-rocm-build/issues/5444")
def strix_halo_gtt(twin):
    """Strix Halo (gfx1151) with a 512 MiB carve-out and 96 GiB of GTT
    (ttm.pages_limit=25165824) on Fedora 42's 6.14 kernel: ROCm allocates from
    GTT there, but HIP showed 15.49 GiB total (ROCm#5444): info, with
    ttm.pages_limit.  Twin: a 96 GiB carve-out."""
    tb = CompatTestbed()
    host_os(tb, os_release("fedora", "42", "Fedora Linux 42"), "6.14.5-300.fc42.x86_64")
    tb.host_bridge("0000:00:00.0", 0x1022, 0x14e8)
    gpu, node = apu(tb, 0x1586, 0xc1, STRIX_HALO_KFD, 96 * GiB if twin else 512 * MiB, gtt=96 * GiB,
                    gc=(11, 5, 1))
    tb.module_amdgpu("live")
    tb.kfd([cpu_kfd_node(tb, 32, mem=128 * GiB), node])
    tb.cmdline("BOOT_IMAGE=/vmlinuz root=UUID=1 ro ttm.pages_limit=25165824 ttm.page_pool_size=25165824")
    if twin:
        return healthy(tb, [])
    return Scenario(tb, [("apu.small-carveout", "info"), ("os.not-validated", "info"),
                         ("rocm.not-installed", "info")], 0, compare_info=True,
                    remedy=[("apu.small-carveout", "ttm.pages_limit=25165824"),
                            ("apu.small-carveout", "amdgpu.gttsize alone")])


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


@report("raven-ridge-torch-no-gfx902", "https://github.com/pytorch/pytorch/issues/73534")
def raven_torch(twin):
    """Ryzen Embedded V1605B (Raven, gfx902) with a ROCm wheel built for
    gfx900/906/908/90a/1030: hipErrorNoBinaryForGpu on is_available().  A 4 GiB
    carve-out.  Twin: a wheel that has gfx902."""
    tb = CompatTestbed()
    tb.host_bridge("0000:00:00.0", 0x1022, 0x15d0)
    gpu, node = apu(tb, 0x15dd, 0xc1, RAVEN_KFD, 4 * GiB, gtt=8 * GiB, gc=(9, 2, 2))
    tb.module_amdgpu("live")
    tb.kfd([cpu_kfd_node(tb, 4, mem=16 * GiB), node])
    archs = "gfx900,gfx902,gfx906" if twin else "gfx900,gfx906,gfx908,gfx90a,gfx1030"
    sc = Scenario(tb, [] if twin else [("arch.no-kernels", "error")], 0 if twin else 2, args=["--with-python"],
                  env=torch_env("rocm:5.0.0:" + archs))
    if not twin:
        sc.remedy = [("arch.no-kernels", "HSA_OVERRIDE_GFX_VERSION_1=9.0.0")]
    return sc


@report("raphael-igpu-next-to-7900xt", "https://github.com/ROCm/rocm-cli/issues/395")
def raphael_igpu(twin):
    """RX 7900 XT (gfx1100) + Raphael iGPU (gfx1036) on a Ryzen 5 7500X3D: the
    iGPU is a ROCm device next to the dGPU.  Twin: hidden by UUID."""
    tb = CompatTestbed()
    tb.host_bridge("0000:00:00.0", 0x1022, 0x14d8)
    rp = tb.root_port("0000:00:01.1", 0x1022, 0x14db, speed=16.0, width=16)
    dgpu = rx7900xtx(tb, rp, bus=1, card=1, render=129)
    igpu, inode = apu(tb, 0x164e, 0xc9, RAPHAEL_KFD, 512 * MiB, gtt=16 * GiB, gc=(10, 3, 6))
    tb.module_amdgpu("live")
    tb.kfd([cpu_kfd_node(tb, 6), inode, tb.kfd_gpu_node(dgpu, NAVI31_KFD, mem_bytes=25753026560)])
    if twin:
        return Scenario(tb, [], 0, env={"ROCR_VISIBLE_DEVICES": "GPU-a1ffc9d1799c317f"})
    return Scenario(tb, [("apu.igpu-conflict", "warning")], 1)


# ==============================================================================
# Overrides and PyTorch

def mi210_box(tb):
    """One MI210 (gfx90a, 1002:740f) in a Ryzen host's x16 slot, BAR0 over all 64 GiB."""
    instinct_tuned(tb)
    matisse_host(tb)
    gpu, node = card(tb, matisse_root_port(tb), 0x03, 0x740f, 0x02, MI210_KFD, vram=64 * GiB, audio=None,
                     bar0=64 * GiB)
    tb.module_amdgpu("live")
    tb.kfd([cpu_kfd_node(tb, 32), node])


@report("mi210-stale-override", "https://github.com/ROCm/legacy-rocm-build/issues/5238")
def mi210_override(twin):
    """MI210 (gfx90a) with HSA_OVERRIDE_GFX_VERSION=10.3.0 left from another
    card: "Memory access fault by GPU node-2".  Twin: no override."""
    tb = CompatTestbed()
    mi210_box(tb)
    if twin:
        return healthy(tb)
    return Scenario(tb, [("arch.override-wrong-family", "error")], 2,
                    env={"HSA_OVERRIDE_GFX_VERSION": "10.3.0"})


@report("strix-halo-override-12.0.1", "https://github.com/ROCm/rocm-systems/issues/3531")
def strix_override(twin):
    """Framework Desktop, Strix Halo (gfx1151), Debian 13, ComfyUI with
    HSA_OVERRIDE_GFX_VERSION=12.0.1: "KFD node 0 ih_fifo overflow", kernel
    crash.  Twin: no override."""
    tb = CompatTestbed()
    tb.host_bridge("0000:00:00.0", 0x1022, 0x14e8)
    gpu, node = apu(tb, 0x1586, 0xc1, STRIX_HALO_KFD, 64 * GiB, gtt=32 * GiB, gc=(11, 5, 1))
    tb.module_amdgpu("live")
    tb.kfd([cpu_kfd_node(tb, 32, mem=64 * GiB), node])
    if twin:
        return healthy(tb)
    return Scenario(tb, [("arch.override-wrong-family", "error")], 2,
                    env={"HSA_OVERRIDE_GFX_VERSION": "12.0.1"})


@report("rx6600-torch-gfx1030-only", "https://github.com/ROCm/legacy-rocm-build/issues/2061")
def rx6600_torch(twin):
    """RX 6600 (Navi23, gfx1032) with a PyTorch wheel that has gfx1030 only:
    hipErrorNoBinaryForGpu.  Twin: HSA_OVERRIDE_GFX_VERSION=10.3.0, which the
    reporter used."""
    tb = CompatTestbed()
    matisse_host(tb)
    gpu, node = card(tb, matisse_root_port(tb), 0x0a, 0x73ff, 0xc7, NAVI23_KFD, vram=8 * GiB,
                     switch=(0x1002, 0x1478, 0x1479))
    tb.module_amdgpu("live")
    tb.kfd([cpu_kfd_node(tb, 6), node])
    env = torch_env("rocm:5.4.22803:gfx900,gfx906,gfx908,gfx90a,gfx1030")
    if twin:
        env["HSA_OVERRIDE_GFX_VERSION"] = "10.3.0"
        return Scenario(tb, [], 0, args=["--with-python"], env=env)
    return Scenario(tb, [("arch.no-kernels", "error")], 2, args=["--with-python"], env=env,
                    remedy=[("arch.no-kernels", "HSA_OVERRIDE_GFX_VERSION_1=10.3.0")])


@report("rx6900xt-rocm42-wheel-abort", "https://github.com/ROCm/legacy-rocm-build/issues/1471")
def rocm42_abort(twin):
    """RX 6900 XT (gfx1030) with a ROCm 4.2 wheel built for gfx900/906/908:
    `import torch` works, torch.cuda.is_available() aborts with
    hipErrorNoBinaryForGpu (ROCm#1471 shows the same abort for gfx803).  The
    targets come from the build without starting HIP; the abort is evidence.
    Twin: a wheel with gfx1030."""
    tb = CompatTestbed()
    matisse_host(tb)
    gpu, node = card(tb, matisse_root_port(tb, "0000:00:03.1", slot=1), 0x0a, 0x73bf, 0xc0, NAVI21_KFD,
                     vram=16 * GiB, switch=(0x1002, 0x1478, 0x1479))
    tb.module_amdgpu("live")
    tb.kfd([cpu_kfd_node(tb, 16), node])
    if twin:
        return Scenario(tb, [], 0, args=["--with-python"],
                        env=torch_env("rocm:6.2.41133:gfx900,gfx906,gfx908,gfx90a,gfx1030,gfx1100"))
    return Scenario(tb, [("arch.no-kernels", "error")], 2, args=["--with-python"],
                    env=torch_env("rocm-abort:4.2.21155"),
                    evidence=[("arch.no-kernels", "libtorch_hip.so (code objects): gfx900 gfx906 gfx908"),
                              ("arch.no-kernels", "hipErrorNoBinaryForGpu")])


@report("slurm-rocr-visible-empty", "https://github.com/ollama/ollama/issues/11220")
def slurm_visible(twin):
    """A node where the batch system sets ROCR_VISIBLE_DEVICES to an id that
    matches no GPU (ollama#11220: Slurm's ROCR_VISIBLE_DEVICES); here 4 on
    a one-GPU MI210 node.  Twin: unset."""
    tb = CompatTestbed()
    mi210_box(tb)
    if twin:
        return healthy(tb)
    return Scenario(tb, [("env.visible-devices-hides-all", "error")], 2, env={"ROCR_VISIBLE_DEVICES": "4"})


# ==============================================================================
# Instinct shapes

@report("mi250x-one-gcd", "https://github.com/ROCm/legacy-rocm-build/issues/2852")
def mi250x(twin):
    """MI250X OAM on an adapter that activates one of its two GCDs (gfx90a,
    1002:740c each): with expected_gpus = 2, one is missing.  Twin: both GCDs."""
    tb = CompatTestbed()
    instinct_tuned(tb)
    tb.host_bridge("0000:00:00.0", 0x1022, 0x14a4)
    nodes = [cpu_kfd_node(tb, 64)]
    for i in range(2 if twin else 1):
        rp = tb.root_port("0000:00:%02x.1" % (1 + i), 0x1022, 0x14ab, speed=16.0, width=16)
        gpu, node = card(tb, rp, 0x03 + 0x40 * i, 0x740c, 0x01, MI210_KFD, vram=64 * GiB, audio=None, bar0=64 * GiB,
                         card_no=i, render=128 + i)
        nodes.append(node)
    tb.module_amdgpu("live")
    tb.kfd(nodes)
    tb.root_file("etc/rocm-doctor/rocm-doctor.conf", "[check]\nexpected_gpus = 2\n")
    if twin:
        return healthy(tb)
    return Scenario(tb, [("gpu.count-mismatch", "error")], 2, gpu_count=1)


@report("mi300x-vf-cloud-guest", "https://github.com/AlphaMine-Tech/alpha-miner/issues/4")
def mi300x_vf(twin):
    """MI300X SR-IOV VF (1002:74b5, gfx942) in a KVM cloud guest, on the root
    bus (no PCIe root port, so no atomics path to judge): "kfd kfd: added device
    1002:74b5".  Nothing wrong on level 1 (the failure was ROCm 7.0's user
    space); the fault twin: a second VF whose KFD node is missing."""
    tb = CompatTestbed()
    instinct_tuned(tb)
    tb.host_bridge("0000:00:00.0", 0x8086, 0x29c0)
    tb.overlay_file("sys/class/dmi/id/sys_vendor", "QEMU\n")
    nodes = [cpu_kfd_node(tb, 24)]
    for i in range(1 if twin else 2):
        gpu, node = card(tb, None, 0x00, 0x74b5, 0x00, MI300X_SPX_KFD, vram=192 * GiB, audio=None, bar0=192 * GiB,
                         card_no=i, render=128 + i, bdf="0000:00:%02x.0" % (5 + i), cls=0x120000)
        if i == 0:
            nodes.append(node)
    tb.module_amdgpu("live")
    tb.kfd(nodes)
    tb.kmsg([(6.1, "kfd kfd: amdgpu: added device 1002:74b5")])
    if twin:
        return healthy(tb)
    return Scenario(tb, [("driver.kfd-unsupported", "error")], 2, gpu_count=2)


@report("mi300a-4-socket-apu", "https://github.com/ollama/ollama/pull/13463")
def mi300a(twin):
    """Four MI300A (1002:74a0, gfx942 APU) sockets, one GPU per PCI domain, whose
    memory is all GTT (mem_info_vram_total tiny): no carve-out warning for
    them.  Fault twin: one socket's GPU has no driver."""
    tb = CompatTestbed()
    instinct_tuned(tb)
    nodes = []
    gpus = []
    for d in range(4):
        rp = tb.root_port("%04x:00:01.1" % d, 0x1022, 0x14ab, speed=32.0, width=16)
        gpu = tb.gpu(rp, "%04x:02:00.0" % d, 0x1002, 0x74a0, rev=0x00, subsys=(0x1002, 0x74a0),
                     cls=0x120000, driver="amdgpu" if (twin or d) else None, vram=512 * MiB,
                     bars=[Bar(0, 0x20000000000 * (d + 1), 256 * MiB)], product_name="", unique_id=0x10 + d,
                     attrs={"mem_info_gtt_total": "%d\n" % (120 * GiB)}, irq=100 + d)
        if twin or d:
            tb.drm(gpu, card=8 * d, render=128 + 8 * d)
        gpus.append(gpu)
    for d in range(4):
        nodes.append(cpu_kfd_node(tb, 48, mem=128 * GiB))
    for d in range(4):
        if twin or d:
            nodes.append(tb.kfd_gpu_node(gpus[d], dict(MI300X_SPX_KFD, simd_count=912, num_xcc=6),
                                         mem_bytes=120 * GiB))
    tb.module_amdgpu("live")
    tb.kfd(nodes)
    if twin:
        return Scenario(tb, [], 0, gpu_count=4, gpus_all={"gfx": "gfx942"})
    return Scenario(tb, [("gpu.no-driver", "error")], 2, gpu_count=4)


@report("r9700-x8-link", "https://github.com/ROCm/legacy-rocm-build/issues/5832")
def r9700(twin):
    """Radeon AI PRO R9700 (Navi 48 1002:7551, gfx1201) behind its card switch
    (1002:1478/1479) on Ubuntu 24.04 / ROCm 7.1.1 next to a Ryzen 9950X:
    the card trained x8 in the x16 slot (the report looked at what the card
    showed).  Twin: x16, and an idle Gen1 speed that is not a fault."""
    tb = CompatTestbed()
    matisse_host(tb)
    rp = matisse_root_port(tb)
    gpu, node = card(tb, rp, 0x03, 0x7551, 0xc0, kfd_props(NAVI31_KFD, 120001, 128), vram=32 * GiB,
                     switch=(0x1002, 0x1478, 0x1479))
    tb.module_amdgpu("live")
    tb.kfd([cpu_kfd_node(tb, 16), node])
    if twin:
        tb.set_path_link(gpu, speed=2.5)
        return healthy(tb)
    tb.set_path_link(gpu, width=8)
    return Scenario(tb, [("pcie.link-degraded", "warning")], 1, evidence=[("pcie.link-degraded", "x8 of x16")])


# ==============================================================================
# Access

@report("rocminfo-user-only-in-video", "https://github.com/ROCm/rocminfo/issues/34")
def only_video(twin):
    """/dev/kfd root:render (newer kernels), the user only in video: rocminfo
    says HSA_STATUS_ERROR_OUT_OF_RESOURCES.  Twin: the user in render too."""
    tb = CompatTestbed()
    matisse_host(tb)
    gpu = rx7900xtx(tb, matisse_root_port(tb), bus=1)
    tb.module_amdgpu("live")
    tb.kfd([cpu_kfd_node(tb, 16), tb.kfd_gpu_node(gpu, NAVI31_KFD, mem_bytes=25753026560)])
    tb.add_to_group("alice", "video")
    if twin:
        tb.add_to_group("alice", "render")
        return Scenario(tb, [], 0, args=["--user", "alice"])
    return Scenario(tb, [("kfd.no-access", "error"), ("render.no-access", "error")], 2, args=["--user", "alice"],
                    remedy=[("kfd.no-access", "usermod -aG render,video alice")])


@report("rocky94-rocm-not-installed", "https://github.com/ROCm/legacy-rocm-build/issues/1888")
def rocky_runtime(twin):
    """Rocky Linux 9.4, RX 7900 XTX, level 2 with no ROCm runtime: the remedy
    installs with dnf, never apt.  Twin: level 1 on the same host."""
    tb = CompatTestbed()
    host_os(tb, ROCKY_94, "5.14.0-427.13.1.el9_4.x86_64")
    matisse_host(tb)
    gpu = rx7900xtx(tb, matisse_root_port(tb), bus=1)
    tb.module_amdgpu("live")
    tb.kfd([cpu_kfd_node(tb, 16), tb.kfd_gpu_node(gpu, NAVI31_KFD, mem_bytes=25753026560)])
    if twin:
        return healthy(tb)
    return Scenario(tb, [("runtime.hip-missing", "error"), ("runtime.hsa-missing", "error")], 2,
                    args=["--level", "2"],
                    env={"ROCM_DOCTOR_RUNTIME_LIB": "/nonexistent/libhsa-runtime64.so.1"},
                    remedy=[("runtime.hsa-missing", "sudo dnf install")])
