"""Scenarios of APUs: an iGPU next to a dGPU, the VRAM carve-out, APUs the
support table does not list.
"""

from scenarios import NAVI31_KFD, PHOENIX_KFD, Scenario, amdgpu_boot_log, cpu_kfd_node, rx7900xtx, scenario
from beds_hosts import (
    DEBIAN_13, MENDOCINO_KFD, RAPHAEL_KFD, STRIX_HALO_KFD, UBUNTU_2204, apu, healthy, host_os, os_release,
    rembrandt_box, report,
)
from beds_rocm import CompatTestbed
from testbed import Bar, CLASS_AUDIO, CLASS_HOST_BRIDGE, GiB, MiB, Testbed


@scenario("apu-plus-dgpu")
def apu_plus_dgpu():
    """Ryzen 8000G desktop: Radeon 780M iGPU (Phoenix, 512 MiB carve-out, KFD node 1)
    plus an RX 7900 XTX (KFD node 2)."""
    tb = Testbed()
    tb.host_bridge("0000:00:00.0", 0x1022, 0x14e8)
    tb.pci(None, "0000:00:01.0", 0x1022, 0x14ea, CLASS_HOST_BRIDGE, pcie=False)
    rp = tb.root_port("0000:00:01.1", 0x1022, 0x14ed, speed=16.0, width=16, slot=0)
    tb.pci(None, "0000:00:08.0", 0x1022, 0x14ea, CLASS_HOST_BRIDGE, pcie=False)
    internal = tb.root_port("0000:00:08.1", 0x1022, 0x14eb, speed=16.0, width=16)
    igpu = tb.gpu(internal, "0000:64:00.0", 0x1002, 0x15bf, rev=0xdd,
                  subsys=(0x17aa, 0x50da), vram=512 * MiB, speed=16.0, width=16,
                  bars=[Bar(0, 0x7c10000000, 256 * MiB), Bar(2, 0x7c20000000, 2 * MiB),
                        Bar(4, 0x1000, 256, "io"), Bar(5, 0xfcd00000, 512 * 1024, "mem32")],
                  product_name="", unique_id=0, vbios="113-PHXGENERIC-001", gc_ip=(11, 0, 1),
                  boot_vga=True, irq=80,
                  attrs={"mem_info_gtt_total": "31433977856\n"})
    tb.pci(internal, "0000:64:00.1", 0x1002, 0x1640, CLASS_AUDIO, subsys=(0x17aa, 0x50da),
           driver="snd_hda_intel", bars=[Bar(0, 0xfcd80000, 16 * 1024, "mem32")], irq=81)
    tb.drm(igpu, card=0, render=128)
    dgpu = rx7900xtx(tb, rp, bus=1, card=1, render=129)
    tb.module_amdgpu("live")
    tb.kfd([cpu_kfd_node(tb, 16, mem=32 * GiB, clk=3301),
            tb.kfd_gpu_node(igpu, PHOENIX_KFD, mem_bytes=31433977856, mem_width=128,
                            mem_clk=800),
            tb.kfd_gpu_node(dgpu, NAVI31_KFD, mem_bytes=25753026560, mem_width=384,
                            mem_clk=1249)],
           major=237)
    tb.kmsg(amdgpu_boot_log(igpu, "0x1002:0x15BF 0x17AA:0x50DA 0xDD", 512, minor=0)
            + amdgpu_boot_log(dgpu, "0x1002:0x744C 0x1DA2:0xE471 0xC8", 24560, minor=1)[2:])
    return Scenario(tb, [("apu.igpu-conflict", "warning")], 1, gpu_count=2,
                    remedy=[("apu.igpu-conflict", "ROCR_VISIBLE_DEVICES=GPU-a1ffc9d1799c317f")],
                    gpus=[({"device_id": 0x15bf}, {"integrated": True, "gfx": "gfx1103",
                                                   "kfd_nodes": [1]}),
                          ({"device_id": 0x744c}, {"integrated": False, "gfx": "gfx1100",
                                                   "kfd_nodes": [2]})])


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
