"""Scenarios of GPU discovery and the PCIe path: which AMD GPUs the PCI tree
shows (none, NVIDIA only, partitions, one GCD of two), AtomicOps routing,
link width and speed, BAR space; and the healthy baselines (RX 7900 XTX,
8x MI300X, CPX).
"""

from scenarios import (
    Len, MI300X_GPUS, NAVI21_KFD, NAVI31_KFD, Scenario, amdgpu_boot_log, cpu_kfd_node, healthy_navi21_box,
    healthy_rx7900xtx_box, matisse_host, matisse_root_port, mi300x_box, no_gpu_box, scenario,
)
from beds_hosts import (
    MI210_KFD, POLARIS_KFD, VEGA10_KFD, card, fn_at, healthy, instinct_tuned, intel_host, kfd_props, report,
)
from beds_rocm import CompatTestbed
from testbed import Bar, CLASS_3D, CLASS_AUDIO, CLASS_HOST_BRIDGE, GiB, MiB, PCIE_TO_PCI_BRIDGE, Testbed


@scenario("healthy-rx7900xtx")
def healthy_rx7900xtx():
    """Everything right: RX 7900 XTX on a CPU root port with atomics, Gen4 x16,
    ReBAR, KFD node 1, amdgpu loaded; run as root."""
    tb = Testbed()
    healthy_rx7900xtx_box(tb)
    return Scenario(tb, [], 0, gpu_count=1,
                    gpus=[({"pci_address": "0000:03:00.0"},
                           {"gfx": "gfx1100", "driver": "amdgpu", "vendor_id": 0x1002,
                            "device_id": 0x744c, "integrated": False, "kfd_nodes": [1],
                            "render_minor": 128, "vram_bytes": 25753026560,
                            "link.current_width": 16, "link.max_width": 16})])


@scenario("healthy-8x-mi300x")
def healthy_8x_mi300x():
    """Eight MI300X (class 0x1200, processing accelerator) in SPX mode."""
    tb = Testbed()
    mi300x_box(tb, cpx=False)
    return Scenario(tb, [], 0, gpu_count=8,
                    gpus_all={"gfx": "gfx942", "partitions": 1, "driver": "amdgpu"},
                    gpus=[({"pci_address": "0000:%02x:00.0" % bus},
                           {"render_minor": 128 + 8 * i, "kfd_nodes": [2 + i]})
                          for i, (bus, _) in enumerate(MI300X_GPUS)])


@scenario("mi300x-cpx")
def mi300x_cpx():
    """The same eight MI300X in CPX mode: 64 KFD GPU nodes, 8 per device."""
    tb = Testbed()
    mi300x_box(tb, cpx=True)
    return Scenario(tb, [], 0, gpu_count=8,
                    gpus_all={"gfx": "gfx942", "partitions": 8, "kfd_nodes": Len(8)},
                    gpus=[({"pci_address": "0000:%02x:00.0" % bus},
                           {"kfd_nodes": list(range(2 + 8 * i, 10 + 8 * i))})
                          for i, (bus, _) in enumerate(MI300X_GPUS)])


@scenario("no-gpu")
def no_gpu():
    """No display device at all."""
    tb = Testbed()
    no_gpu_box(tb)
    return Scenario(tb, [("gpu.none", "error")], 2, gpu_count=0)


@scenario("nvidia-only")
def nvidia_only():
    """An H200 bound to nvidia and the BMC's ASPEED VGA bound to ast."""
    tb = Testbed()
    tb.host_bridge("0000:00:00.0", 0x1022, 0x14a4)
    rp = tb.root_port("0000:00:01.1", 0x1022, 0x14ab, speed=32.0, width=16)
    h200 = tb.gpu(rp, "0000:01:00.0", 0x10de, 0x2335, rev=0xa1, subsys=(0x10de, 0x18be),
           cls=CLASS_3D, driver="nvidia", speed=32.0, width=16, multifunction=False,
           bars=[Bar(0, 0xf4000000, 16 * MiB, "mem32"),
                 Bar(1, 0x22000000000, 256 * GiB), Bar(3, 0x22400000000, 32 * MiB)],
           atomics_requester=True, irq=90)
    # BMC graphics: root port -> AST1150 PCIe-to-PCI bridge -> conventional PCI VGA.
    rp2 = tb.root_port("0000:00:05.2", 0x1022, 0x14ab, speed=5.0, width=1, atomics=False)
    br = tb.bridge_port(rp2, "0000:02:00.0", 0x1a03, 0x1150, PCIE_TO_PCI_BRIDGE,
                        speed=5.0, width=1, routing=False, rev=0x06, driver=None)
    vga = tb.gpu(br, "0000:03:00.0", 0x1a03, 0x2000, rev=0x52, subsys=(0x15d9, 0x1b95),
                 driver="ast", multifunction=False, atomics_requester=False,
                 completer=False, boot_vga=True,
                 bars=[Bar(0, 0xf2000000, 64 * MiB, "mem32"),
                       Bar(1, 0xf5000000, 256 * 1024, "mem32"),
                       Bar(2, 0xc000, 128, "io")], irq=16)
    vga.pcie = False
    tb.drm(vga, card=0)          # ast is a display-only driver: no render node
    tb.drm(h200, card=1, render=128)
    tb.module("nvidia", "live", version="550.127.08", srcversion="A5C7D0B1E9F24C2B7A3E512")
    tb.module("nvidia_drm", "live", version="550.127.08",
              srcversion="1F0E3D2C4B5A69788796A5B", params={"modeset": "Y"},
              pci_driver=False)
    tb.module("ast", "live", srcversion="7B0C9D3E2F1A4B5C6D7E8F9")
    return Scenario(tb, [("gpu.none", "error")], 2, gpu_count=0,
                    evidence=[("gpu.none", "10de:2335"), ("gpu.none", "driver nvidia")])


@scenario("rx580-no-atomics")
def rx580_no_atomics():
    """RX 580 (gfx803, needs PCIe atomics) on an X58 board behind a PLX PEX 8747
    switch without AtomicOp routing: KFD skips the GPU."""
    tb = Testbed()
    tb.host_bridge("0000:00:00.0", 0x8086, 0x3405, rev=0x13)
    rp = tb.root_port("0000:00:03.0", 0x8086, 0x340a, speed=5.0, width=16, atomics=False,
                      rev=0x13)
    downs = tb.switch(rp, "0000:01:00.0", ["0000:02:08.0", "0000:02:10.0"], 0x10b5, 0x8747,
                      speed=8.0, width=16, routing=False, rev=0xca)
    downs[0].parent.set_link(5.0, 16)   # the switch's uplink trains at the root port's Gen2
    downs[1].set_link(2.5, 0)          # empty slot
    downs[1].secondary_override = 0x04
    gpu = tb.gpu(downs[0], "0000:03:00.0", 0x1002, 0x67df, rev=0xe7, subsys=(0x1da2, 0xe387),
                 speed=8.0, width=16, vram=4294967296,
                 bars=[Bar(0, 0xd0000000, 256 * MiB), Bar(2, 0xe0000000, 2 * MiB),
                       Bar(4, 0xd000, 256, "io"), Bar(5, 0xfce00000, 256 * 1024, "mem32"),
                       Bar(6, 0xfce40000, 128 * 1024, "rom")],
                 atomics_requester=False, product_name="", boot_vga=True, irq=30)
    tb.pci(downs[0], "0000:03:00.1", 0x1002, 0xaaf0, CLASS_AUDIO, subsys=(0x1da2, 0xaaf0),
           driver="snd_hda_intel", max_speed=8.0, max_width=16,
           bars=[Bar(0, 0xfce60000, 16 * 1024, "mem64")], irq=31)
    tb.drm(gpu, card=0, render=128)
    tb.module_amdgpu("live")
    tb.kfd([cpu_kfd_node(tb, 12, mem=24 * GiB, clk=2667)])
    tb.kmsg([(6.55, "[drm] amdgpu kernel modesetting enabled."),
             (6.56, "amdgpu: Virtual CRAT table created for CPU"),
             (6.57, "amdgpu: Topology: Add CPU node"),
             (6.61, "[drm] initializing kernel modesetting (POLARIS10 0x1002:0x67DF "
                    "0x1DA2:0xE387 0xE7)."),
             (7.026427, "kfd kfd: amdgpu: skipped device 1002:67df, PCI rejects atomics 730<0"),
             (7.41, "[drm] Initialized amdgpu 3.57.0 20150101 for 0000:03:00.0 on minor 0")])
    return Scenario(tb, [("pcie.atomics-missing", "error")], 2, gpu_count=1,
                    evidence=[("pcie.atomics-missing", "PCI rejects atomics")],
                    gpus=[({"device_id": 0x67df}, {"driver": "amdgpu", "kfd_nodes": []})])


@scenario("link-idle-gen1")
def link_idle_gen1():
    """Idle power saving: the link trains down to 2.5 GT/s; width is full."""
    tb = Testbed()
    gpu = healthy_navi21_box(tb)
    tb.set_path_link(gpu, speed=2.5)
    return Scenario(tb, [], 0, gpu_count=1,
                    gpus=[({"pci_address": "0000:0c:00.0"},
                           {"gfx": "gfx1030", "link.current_speed_gts": 2.5,
                            "link.max_speed_gts": 16.0, "link.current_width": 16})])


@scenario("link-x4")
def link_x4():
    """The card trained at x4 in an x16 slot (dirty contacts, riser, bifurcation)."""
    tb = Testbed()
    gpu = healthy_navi21_box(tb)
    tb.set_path_link(gpu, width=4)
    return Scenario(tb, [("pcie.link-degraded", "warning")], 1, gpu_count=1,
                    evidence=[("pcie.link-degraded", "x4")],
                    gpus=[({"pci_address": "0000:0c:00.0"},
                           {"link.current_width": 4, "link.max_width": 16})])


@scenario("navi21-bar-no-space")
def navi21_bar_no_space():
    """RX 6900 XT on a board with Above 4G Decoding off: the kernel cannot place
    the 16 GiB BAR, the card runs with a 256 MiB window."""
    tb = Testbed()
    matisse_host(tb)
    rp = matisse_root_port(tb, "0000:00:03.1", slot=1)
    down = tb.amd_switch(rp, 0x0a)
    gpu = tb.gpu(down, "0000:0c:00.0", 0x1002, 0x73bf, rev=0xc0, subsys=(0x1da2, 0x440e),
                 speed=16.0, width=16, vram=17163091968,
                 bars=[Bar(0, 0xd0000000, 256 * MiB), Bar(2, 0xe0000000, 2 * MiB),
                       Bar(4, 0xe000, 256, "io"), Bar(5, 0xfcb00000, 1 * MiB, "mem32"),
                       Bar(6, 0xfcc00000, 128 * 1024, "rom")],
                 atomics_requester=True, product_name="", unique_id=0x946d7e1ef9b172dd,
                 vbios="113-D4121EXT-CO1", gc_ip=(10, 3, 0), irq=157)
    tb.pci(down, "0000:0c:00.1", 0x1002, 0xab28, CLASS_AUDIO, subsys=(0x1da2, 0x440e),
           driver="snd_hda_intel", max_speed=16.0, max_width=16,
           bars=[Bar(0, 0xfcc20000, 16 * 1024, "mem32")], irq=158)
    tb.drm(gpu, card=0, render=128)
    tb.module_amdgpu("live")
    tb.kfd([cpu_kfd_node(tb, 16),
            tb.kfd_gpu_node(gpu, NAVI21_KFD, mem_bytes=17163091968, name="sienna_cichlid",
                            mem_width=256, mem_clk=1000)])
    tb.kmsg([(0.61, "pci 0000:0c:00.0: BAR 0: no space for [mem size 0x400000000 64bit pref]", 6),
             (0.61, "pci 0000:0c:00.0: BAR 0: failed to assign [mem size 0x400000000 64bit pref]", 6)]
            + amdgpu_boot_log(gpu, "0x1002:0x73BF 0x1DA2:0x440E 0xC0", 16368))
    return Scenario(tb, [("pcie.bar-small", "warning")], 1, gpu_count=1,
                    evidence=[("pcie.bar-small", "BAR 0: no space")])


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
