"""Scenarios for situations that only the kernel log or /proc/version shows:
missing firmware, a kernel whose KFD does not know the GPU, WSL; and a
container started without the GPU devices.  They are check scenarios like the
others; `explain` tests (tests/run/explain/) use them too."""

from scenarios import (
    NAVI21_KFD, Scenario, Testbed, amdgpu_boot_log, cpu_kfd_node, healthy_rx7900xtx_box,
    matisse_host, matisse_root_port, navi21, no_gpu_box, scenario,
)
from testbed import Bar, CLASS_AUDIO, MiB


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


@scenario("wsl2-kernel")
def wsl2_kernel():
    """Windows Subsystem for Linux 2: no AMD PCI device, /proc/version names
    the Microsoft kernel."""
    tb = Testbed()
    no_gpu_box(tb)
    tb.kernel(release="5.15.167.4-microsoft-standard-WSL2",
              version="Linux version 5.15.167.4-microsoft-standard-WSL2 (root@f9c826d3017f) "
                      "(gcc (GCC) 11.2.0, GNU ld (GNU Binutils) 2.37) #1 SMP Tue Nov 5 00:21:55 "
                      "UTC 2024\n")
    return Scenario(tb, [("host.wsl", "error")], 2, gpu_count=0)


class HostKfdOnlyTestbed(Testbed):
    """A container's view: sysfs shows the host's KFD (/sys/class/kfd/kfd),
    but /dev/kfd was not passed in, so the KFD device record has no node."""

    def records(self):
        out = super().records()
        for r in out:
            if r.path == "/devices/virtual/kfd/kfd":
                r.nodes = []
        return out


@scenario("docker-no-gpu-devices")
def docker_no_gpu_devices():
    """`docker run` without --device=/dev/kfd --device=/dev/dri on an RX 7900 XTX
    host: the container sees the host's sysfs (amdgpu bound, KFD topology) but
    neither /dev/kfd nor the render node; `docker run --device=/dev/kfd` on a
    host without KFD would have said "/dev/kfd: no such file or directory"."""
    tb = HostKfdOnlyTestbed()
    healthy_rx7900xtx_box(tb)
    for r in tb.extra_records:
        if "/drm/renderD" in r.path:
            r.nodes = []
    for path in [p for p in tb.nodes if p == "dev/kfd" or p.startswith("dev/dri/")]:
        del tb.nodes[path]
    tb.root_file(".dockerenv", "")
    # one cause, one finding: the host has KFD, only the container lacks the nodes
    return Scenario(tb, [("container.devices-missing", "error")], 2,
                    gpu_count=1,
                    evidence=[("container.devices-missing", "/dev/kfd: absent in the container"),
                              ("container.devices-missing", "/dev/dri/renderD128: absent in the container"),
                              ("container.devices-missing", "/sys/class/kfd/kfd: present")],
                    remedy=[("container.devices-missing", "--device=/dev/kfd --device=/dev/dri")])
