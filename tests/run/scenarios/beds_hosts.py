"""Builders of the hosts of public failure reports: operating systems, cards,
APUs and KFD property sets, and @report, which registers a report's two
scenarios.

Each report gives two scenarios: NAME, the host as the report describes it,
which must give the findings listed, and NAME-twin, the same host without the
fault, which must stay silent (exit status 0, no warning or error).  The
source of each is the URL passed to @report and repeated in the docstring.
Values the report does not show (bus numbers, subsystem ids, BARs, most KFD
properties) are representative; ids, gfx targets, kernel and OS releases and
log lines are the report's.

HostKfdOnlyTestbed serves situations that only the kernel log or
/proc/version shows (missing firmware, a kernel whose KFD does not know the
GPU, WSL).
"""

from scenarios import (
    NAVI21_KFD, NAVI31_KFD, PHOENIX_KFD, Scenario, cpu_kfd_node, matisse_host, matisse_root_port, rx7900xtx,
    scenario,
)
from testbed import Bar, CLASS_AUDIO, CLASS_HOST_BRIDGE, GiB, MiB, Testbed


class HostKfdOnlyTestbed(Testbed):
    """A container's view: sysfs shows the host's KFD (/sys/class/kfd/kfd),
    but /dev/kfd was not passed in, so the KFD device record has no node."""

    def records(self):
        out = super().records()
        for r in out:
            if r.path == "/devices/virtual/kfd/kfd":
                r.nodes = []
        return out


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


def container_box(tb, engine):
    gpu = rx7900xtx(tb, matisse_root_port(tb), bus=1)
    tb.module_amdgpu("live")
    tb.kfd([cpu_kfd_node(tb, 16), tb.kfd_gpu_node(gpu, NAVI31_KFD, mem_bytes=25753026560)])
    if engine == "docker":
        tb.docker_container()
    else:
        tb.root_file("run/.containerenv", 'engine="podman-4.9.3"\n')
    return gpu


# root in the container, with no supplementary groups of the test runner's
AS_ROOT = ["setpriv", "--reuid=0", "--regid=0", "--clear-groups"]


def rembrandt_box(tb, carveout, kernel="6.5.0-45-generic"):
    host_os(tb, UBUNTU_2204, kernel)
    tb.host_bridge("0000:00:00.0", 0x1022, 0x14b5)
    gpu, node = apu(tb, 0x1681, 0xc8, REMBRANDT_KFD, carveout, gtt=15 * GiB)
    tb.module_amdgpu("live")
    tb.kfd([cpu_kfd_node(tb, 16, mem=32 * GiB), node])
    return gpu


def mi210_box(tb):
    """One MI210 (gfx90a, 1002:740f) in a Ryzen host's x16 slot, BAR0 over all 64 GiB."""
    instinct_tuned(tb)
    matisse_host(tb)
    gpu, node = card(tb, matisse_root_port(tb), 0x03, 0x740f, 0x02, MI210_KFD, vram=64 * GiB, audio=None,
                     bar0=64 * GiB)
    tb.module_amdgpu("live")
    tb.kfd([cpu_kfd_node(tb, 32), node])
