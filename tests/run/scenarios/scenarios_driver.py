"""Scenarios of the kernel driver: amdgpu not bound or not loaded (blacklists,
nomodeset, radeon bound, missing firmware, no driver at all), a KFD that does
not support the GPU, and the driver against the ROCm user space.
"""

from scenarios import (
    MI300X_SPX_KFD, NAVI31_KFD, Scenario, cpu_kfd_node, healthy_rx7900xtx_box, matisse_host,
    matisse_root_port, navi21, rx7900xtx, scenario, unbound_rx7900xtx_box,
)
from beds_hosts import (
    ALMA_91, FEDORA_41, HAWAII_KFD, MI100_KFD, NAVI22_KFD, NIXOS, POLARIS_KFD, UBUNTU_2004, UBUNTU_2204,
    UBUNTU_2210, VEGA20_KFD, card, healthy, host_os, hybrid_oland_laptop, instinct_tuned, os_release, report,
)
from beds_rocm import CompatTestbed, PATH_WITH_ROCM, dkms_tree, rocm_box
from testbed import Bar, CLASS_AUDIO, GiB, MiB, Testbed


@scenario("no-driver")
def no_driver():
    """RX 6800 XT with no driver bound although amdgpu is loaded (/dev/kfd holds
    only the CPU node)."""
    tb = Testbed()
    matisse_host(tb)
    rp = matisse_root_port(tb, "0000:00:03.1", slot=1)
    navi21(tb, rp, bus=0x0a, driver=None, rev=0xc1)
    tb.module_amdgpu("live")
    tb.kfd([cpu_kfd_node(tb, 16)])
    tb.kmsg([(3.9, "[drm] amdgpu kernel modesetting enabled."),
             (3.91, "amdgpu: Virtual CRAT table created for CPU"),
             (3.92, "amdgpu: Topology: Add CPU node")])
    return Scenario(tb, [("gpu.no-driver", "error")], 2, gpu_count=1,
                    gpus=[({"pci_address": "0000:0c:00.0"}, {"driver": None})])


@scenario("blacklisted-etc")
def blacklisted_etc():
    """A stale `blacklist amdgpu` in /etc/modprobe.d keeps the driver out."""
    tb = Testbed()
    unbound_rx7900xtx_box(tb)
    tb.root_file("etc/modprobe.d/blacklist-amdgpu.conf",
                 "# Keep the GPU driver from loading while the ROCm stack is reinstalled.\n"
                 "# Remove this file afterwards.\n"
                 "blacklist amdgpu\n")
    return Scenario(tb, [("driver.blacklisted", "error"), ("driver.not-loaded", "error")], 2,
                    evidence=[("driver.blacklisted", "/etc/modprobe.d/blacklist-amdgpu.conf:3")])


@scenario("etc-overrides-usr-blacklist")
def etc_overrides_usr_blacklist():
    """/usr/lib/modprobe.d/amdgpu.conf blacklists amdgpu, but /etc/modprobe.d has
    a file of the same name, which replaces it: no blacklist is in effect."""
    tb = Testbed()
    healthy_rx7900xtx_box(tb)
    tb.modules["amdgpu"].params["gpu_recovery"] = "1"
    tb.root_file("usr/lib/modprobe.d/amdgpu.conf", "blacklist amdgpu\n")
    tb.root_file("etc/modprobe.d/amdgpu.conf", "options amdgpu gpu_recovery=1\n")
    return Scenario(tb, [], 0, gpu_count=1)


@scenario("nomodeset")
def nomodeset():
    """`nomodeset` on the kernel command line: amdgpu refuses to load."""
    tb = Testbed()
    unbound_rx7900xtx_box(tb)
    cmdline = ("BOOT_IMAGE=/boot/vmlinuz-6.8.0-45-generic "
               "root=UUID=5b1f7e0c-2a4d-4c36-9d1e-7f1c2b3a4d5e ro quiet splash nomodeset "
               "vt.handoff=7")
    tb.cmdline(cmdline)
    tb.kmsg([(0.0, "Command line: " + cmdline, 6),
             (0.21, "Kernel command line: " + cmdline, 5),
             (0.52, "Booted with the nomodeset parameter. Only the system framebuffer "
                    "will be available", 4)])
    return Scenario(tb, [("driver.nomodeset", "error"), ("driver.not-loaded", "error")], 2)


@scenario("radeon-gcn1")
def radeon_gcn1():
    """Radeon HD 7870 (Pitcairn, GCN1/SI) driven by the legacy radeon driver."""
    tb = Testbed()
    matisse_host(tb)
    rp = matisse_root_port(tb, slot=0)
    rp.set_link(8.0, 16)
    gpu = tb.gpu(rp, "0000:01:00.0", 0x1002, 0x6818, rev=0x00, subsys=(0x174b, 0xe217),
                 driver="radeon", speed=8.0, width=16, completer=False,
                 atomics_requester=False, boot_vga=True,
                 bars=[Bar(0, 0xe0000000, 256 * MiB), Bar(2, 0xfce00000, 256 * 1024, "mem64"),
                       Bar(4, 0xe000, 256, "io"), Bar(6, 0xfce40000, 128 * 1024, "rom")],
                 irq=60)
    tb.pci(rp, "0000:01:00.1", 0x1002, 0xaab0, CLASS_AUDIO, subsys=(0x174b, 0xaab0),
           driver="snd_hda_intel", max_speed=8.0, max_width=16,
           bars=[Bar(0, 0xfce60000, 16 * 1024, "mem64")], irq=61)
    tb.drm(gpu, card=0, render=128)
    tb.module("radeon", "live", srcversion="5A1B3C7D9E0F2A4B6C8D0E1",
              params={"si_support": "1", "cik_support": "1", "modeset": "-1"})
    tb.kmsg([(3.8, "[drm] radeon kernel modesetting enabled."),
             (3.81, "radeon 0000:01:00.0: enabling device (0006 -> 0007)"),
             (3.9, "[drm] initializing kernel modesetting (PITCAIRN 0x1002:0x6818 "
                   "0x174B:0xE217 0x00)."),
             (4.0, "radeon 0000:01:00.0: VRAM: 2048M 0x0000000000000000 - "
                   "0x000000007FFFFFFF (2048M used)"),
             (4.3, "[drm] Initialized radeon 2.50.0 20080528 for 0000:01:00.0 on minor 0")])
    return Scenario(tb, [("gpu.radeon-bound", "error")], 2, gpu_count=1,
                    gpus=[({"device_id": 0x6818}, {"driver": "radeon"})],
                    remedy=[("gpu.radeon-bound", "si_support=1")])


@scenario("driver-userspace-mismatch")
def driver_userspace_mismatch():
    """ROCm 6.4.3 user space over the amdgpu-dkms 6.3.6 of ROCm 6.0: only the user
    space was upgraded."""
    tb = CompatTestbed()
    healthy_rx7900xtx_box(tb)
    tb.module_amdgpu("live", version="6.3.6")
    rocm_box(tb, "6.4.3", dkms="6.3.6")
    dkms_tree(tb, "6.3.6-1718217.24.04")
    return Scenario(tb, [("driver.userspace-mismatch", "warning")], 1,
                    evidence=[("driver.userspace-mismatch",
                               "/sys/module/amdgpu/version: 6.3.6 (amdgpu-dkms of ROCm 6.0)"),
                              ("driver.userspace-mismatch", "16 months apart, 12 allowed")],
                    env={"PATH": PATH_WITH_ROCM})


@scenario("navi21-firmware-missing")
def navi21_firmware_missing():
    """RX 6900 XT whose firmware is missing from the initramfs: amdgpu loads,
    fails to initialise the GPU and lets go of it."""
    tb = Testbed()
    matisse_host(tb)
    rp = matisse_root_port(tb, "0000:00:03.1", slot=1)
    navi21(tb, rp, bus=0x0a, driver=None)
    tb.module_amdgpu("live")
    tb.kfd([cpu_kfd_node(tb, 16)])
    # Messages as amdgpu prints them when a blob is absent (the file name is
    # that of Navi21's SMU firmware).
    tb.kmsg([(3.9, "[drm] amdgpu kernel modesetting enabled."),
             (3.95, "[drm] initializing kernel modesetting (SIENNA_CICHLID 0x1002:0x73BF "
                    "0x1DA2:0x440E 0xC0)."),
             (4.01, "amdgpu 0000:0c:00.0: Direct firmware load for "
                    "amdgpu/sienna_cichlid_smc.bin failed with error -2", 4),
             (4.02, "amdgpu 0000:0c:00.0: amdgpu: Failed to load firmware!", 3),
             (4.03, "amdgpu 0000:0c:00.0: amdgpu: Fatal error during GPU init", 3),
             (4.04, "amdgpu: probe of 0000:0c:00.0 failed with error -2", 4)])
    return Scenario(tb, [("driver.firmware-missing", "error"), ("gpu.no-driver", "error")], 2,
                    gpu_count=1,
                    evidence=[("driver.firmware-missing", "sienna_cichlid_smc.bin")])


@scenario("rx7900xtx-kfd-unsupported")
def rx7900xtx_kfd_unsupported():
    """amdgpu drives an RX 7900 XTX (display works) but the kernel's KFD has no
    compute node for it: only the CPU node is in the topology."""
    tb = Testbed()
    healthy_rx7900xtx_box(tb, with_kfd=False)
    tb.kfd([cpu_kfd_node(tb, 16)])
    tb.kmsg([(4.5, "amdgpu: GC IP 0b0000 not supported in kfd", 4)])
    return Scenario(tb, [("driver.kfd-unsupported", "error")], 2, gpu_count=1)


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
    gpu = rx7900xtx(tb, rp, bus=1, driver="amdgpu" if twin else None)
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
