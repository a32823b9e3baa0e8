"""The scenario registry and the building blocks every area shares.

scenario(NAME) registers a function that builds a Testbed and returns a
Scenario: the testbed, how to run the tool (extra arguments, environment, a
wrapper command) and what the tool must report. The scenarios themselves are
in scenarios_AREA.py, one module per area (the probe area of their main
finding); the builders beyond the platforms and cards here are in beds_*.py.
Values (PCI ids, revisions, subsystem ids, BAR addresses, VRAM sizes, KFD
properties, kernel log lines) are taken from dumps of real machines; where no
dump exists the comment says the value is representative.
"""

import health_sysfs
from testbed import (
    Bar, GiB, MiB, CLASS_AUDIO, CLASS_ETHERNET, CLASS_HOST_BRIDGE,
)


SCENARIOS = {}


def scenario(name):
    def register(fn):
        if name in SCENARIOS:
            raise ValueError("duplicate scenario " + name)
        SCENARIOS[name] = fn
        fn.scenario_name = name
        return fn
    return register


class Len:
    """Expected value: a list of this length."""

    def __init__(self, n):
        self.n = n

    def __eq__(self, other):
        return isinstance(other, list) and len(other) == self.n

    def __repr__(self):
        return "<list of %d>" % self.n


class Scenario:
    """What to run and what to expect.

    findings: [(id, severity)] the tool must report, compared as a sorted list
        against its findings of severity warning and error (ok and info findings
        are not compared unless compare_info is set).
    exit_status: the tool's exit status.
    evidence: [(finding_id, text)]: text must occur in an evidence string of
        that finding.
    text: [(finding_id, text)]: text must occur in the finding's summary,
        evidence or remedy.
    remedy: [(finding_id, text)]: text must occur in the finding's remedy.
    gpu_count: length of `gpus`.
    gpus: [(selector, expected)]: the one GPU whose fields equal selector must
        have the expected fields (dotted keys reach into "link").
    gpus_all: fields every GPU must have.
    report: [(dotted_key, expected)]: values anywhere in the JSON report
        ("access.nodes"), compared whole.
    args: extra arguments after `check --json --root ROOT`; "{root}" in one
        stands for ROOT.
    stderr: a refusal: the tool must exit with exit_status, print no report
        and write this text (whole, with the root directory as "{root}") on
        standard error; findings must then be empty.
    wrap: command prefix for the tool (e.g. setpriv ...).
    needs_root: skip (exit 77) unless run as root.
    """

    def __init__(self, tb, findings, exit_status, evidence=(), text=(), remedy=(),
                 gpu_count=None, gpus=(), gpus_all=None, args=(), env=None, wrap=(),
                 needs_root=False, compare_info=False, report=(), stderr=None):
        self.tb = tb
        self.findings = sorted(findings)
        self.exit_status = exit_status
        self.evidence = list(evidence)
        self.text = list(text)
        self.remedy = list(remedy)
        self.gpu_count = gpu_count
        self.gpus = list(gpus)
        self.gpus_all = dict(gpus_all or {})
        self.args = list(args)
        self.env = dict(env or {})
        self.wrap = list(wrap)
        self.needs_root = needs_root
        self.compare_info = compare_info
        self.report = list(report)
        self.stderr = stderr


def matisse_host(tb):
    """A Ryzen 5000 (Matisse) desktop: root complex and its dummy host bridge."""
    tb.host_bridge("0000:00:00.0", 0x1022, 0x1480, subsys=(0x1022, 0x1480))
    tb.pci(None, "0000:00:01.0", 0x1022, 0x1482, CLASS_HOST_BRIDGE, pcie=False)


def matisse_root_port(tb, bdf="0000:00:01.1", atomics=True, slot=0):
    """A Matisse GPP bridge: Gen4 x16, AtomicOp routing and 32/64-bit completer."""
    return tb.root_port(bdf, 0x1022, 0x1483, speed=16.0, width=16, atomics=atomics,
                        slot=slot)


def genoa_root_complex(tb, rc_bus, numa):
    """One of the eight root complexes of a two-socket EPYC 9004 (Genoa) server:
    host bridge RR:00.0 and the Gen5 x16 root port RR:01.1 of a GPU slot."""
    tb.host_bridge("0000:%02x:00.0" % rc_bus, 0x1022, 0x14a4, numa_node=numa)
    return tb.root_port("0000:%02x:01.1" % rc_bus, 0x1022, 0x14ab, speed=32.0, width=16,
                        atomics=True, numa_node=numa, slot=rc_bus // 0x20)


def cpu_kfd_node(tb, cores, mem=64 * GiB, clk=4000):
    return tb.kfd_cpu_node(cores, mem, clk=clk)


# KFD properties of an RX 7900 XTX (gfx1100), in kernel order, as captured from a
# real card (tinygrad's mock GPU).  Identity keys are filled in by the builder.
NAVI31_KFD = {
    "cpu_cores_count": 0, "simd_count": 192, "mem_banks_count": 1, "caches_count": 206,
    "io_links_count": 1, "p2p_links_count": 5, "cpu_core_id_base": 0,
    "simd_id_base": 2147488032, "max_waves_per_simd": 16, "lds_size_in_kb": 64,
    "gds_size_in_kb": 0, "num_gws": 64, "wave_front_size": 32, "array_count": 12,
    "simd_arrays_per_engine": 2, "cu_per_simd_array": 8, "simd_per_cu": 2,
    "max_slots_scratch_cu": 32, "gfx_target_version": 110000, "vendor_id": 0,
    "device_id": 0, "location_id": 0, "domain": 0, "drm_render_minor": 0, "hive_id": 0,
    "num_sdma_engines": 2, "num_sdma_xgmi_engines": 0, "num_sdma_queues_per_engine": 6,
    "num_cp_queues": 8, "max_engine_clk_fcompute": 2482, "local_mem_size": 0,
    "fw_version": 2140, "capability": 671588992, "debug_prop": 1495,
    "sdma_fw_version": 20, "unique_id": 0, "num_xcc": 1, "max_engine_clk_ccompute": 2400,
}


# gfx1030 (Navi21).  No full KFD dump of a Navi21 exists in the corpus; this is
# the gfx10.3 Navi23 node (same family: fw_version, capability, debug_prop,
# queue layout) with Navi21's shader array and engine counts (80 CUs in 8 arrays,
# 4 SDMA engines).  Representative, not captured.
NAVI21_KFD = {
    "cpu_cores_count": 0, "simd_count": 160, "mem_banks_count": 1, "caches_count": 0,
    "io_links_count": 1, "p2p_links_count": 0, "cpu_core_id_base": 0,
    "simd_id_base": 2147487744, "max_waves_per_simd": 16, "lds_size_in_kb": 64,
    "gds_size_in_kb": 0, "num_gws": 64, "wave_front_size": 32, "array_count": 8,
    "simd_arrays_per_engine": 2, "cu_per_simd_array": 10, "simd_per_cu": 2,
    "max_slots_scratch_cu": 32, "gfx_target_version": 100300, "vendor_id": 0,
    "device_id": 0, "location_id": 0, "domain": 0, "drm_render_minor": 0, "hive_id": 0,
    "num_sdma_engines": 4, "num_sdma_xgmi_engines": 0, "num_sdma_queues_per_engine": 8,
    "num_cp_queues": 8, "max_engine_clk_fcompute": 2660, "local_mem_size": 0,
    "fw_version": 122, "capability": 671326848, "capability2": 0, "debug_prop": 1495,
    "sdma_fw_version": 76, "unique_id": 0, "num_xcc": 1, "max_engine_clk_ccompute": 4000,
}


# Radeon 780M (Phoenix1, gfx1103) of a Ryzen 7040/8000 APU, from a real machine (LACT).
PHOENIX_KFD = {
    "cpu_cores_count": 0, "simd_count": 24, "mem_banks_count": 1, "caches_count": 27,
    "io_links_count": 1, "p2p_links_count": 0, "cpu_core_id_base": 0,
    "simd_id_base": 2147487744, "max_waves_per_simd": 16, "lds_size_in_kb": 64,
    "gds_size_in_kb": 0, "num_gws": 64, "wave_front_size": 32, "array_count": 2,
    "simd_arrays_per_engine": 2, "cu_per_simd_array": 6, "simd_per_cu": 2,
    "max_slots_scratch_cu": 32, "gfx_target_version": 110003, "vendor_id": 0,
    "device_id": 0, "location_id": 0, "domain": 0, "drm_render_minor": 0, "hive_id": 0,
    "num_sdma_engines": 1, "num_sdma_xgmi_engines": 0, "num_sdma_queues_per_engine": 6,
    "num_cp_queues": 8, "max_engine_clk_fcompute": 2700, "local_mem_size": 0,
    "fw_version": 67, "capability": 709075584, "capability2": 0, "debug_prop": 1495,
    "sdma_fw_version": 23, "unique_id": 0, "num_xcc": 1, "max_engine_clk_ccompute": 3301,
}


# MI300X in SPX mode (one node with 8 XCCs), from a real node (rocprofiler-sdk test data).
MI300X_SPX_KFD = {
    "cpu_cores_count": 0, "simd_count": 1216, "mem_banks_count": 1, "caches_count": 0,
    "io_links_count": 8, "p2p_links_count": 1, "cpu_core_id_base": 0,
    "simd_id_base": 2147487784, "max_waves_per_simd": 8, "lds_size_in_kb": 64,
    "gds_size_in_kb": 0, "num_gws": 64, "wave_front_size": 64, "array_count": 32,
    "simd_arrays_per_engine": 1, "cu_per_simd_array": 10, "simd_per_cu": 4,
    "max_slots_scratch_cu": 32, "gfx_target_version": 90402, "vendor_id": 0,
    "device_id": 0, "location_id": 0, "domain": 0, "drm_render_minor": 0, "hive_id": 0,
    "num_sdma_engines": 2, "num_sdma_xgmi_engines": 14, "num_sdma_queues_per_engine": 8,
    "num_cp_queues": 24, "cwsr_size": 23203840, "ctl_stack_size": 12288,
    "max_engine_clk_fcompute": 2100, "local_mem_size": 0, "fw_version": 192,
    "capability": 2893521536, "capability2": 1, "debug_prop": 1511, "sdma_fw_version": 25,
    "unique_id": 0, "num_xcc": 8, "max_engine_clk_ccompute": 2400,
}


# One CPX partition of an MI300X (one XCC), from a real 8-GPU box in CPX mode
# (ROCm k8s-device-plugin test data).
MI300X_CPX_KFD = {
    "cpu_cores_count": 0, "simd_count": 152, "mem_banks_count": 1, "caches_count": 80,
    "io_links_count": 63, "p2p_links_count": 1, "cpu_core_id_base": 0,
    "simd_id_base": 2147488064, "max_waves_per_simd": 8, "lds_size_in_kb": 64,
    "gds_size_in_kb": 0, "num_gws": 64, "wave_front_size": 64, "array_count": 4,
    "simd_arrays_per_engine": 1, "cu_per_simd_array": 10, "simd_per_cu": 4,
    "max_slots_scratch_cu": 32, "gfx_target_version": 90402, "vendor_id": 0,
    "device_id": 0, "location_id": 0, "domain": 0, "drm_render_minor": 0, "hive_id": 0,
    "num_sdma_engines": 2, "num_sdma_xgmi_engines": 0, "num_sdma_queues_per_engine": 8,
    "num_cp_queues": 24, "max_engine_clk_fcompute": 2100, "local_mem_size": 0,
    "fw_version": 177, "capability": 2893521536, "debug_prop": 1511,
    "sdma_fw_version": 24, "unique_id": 0, "num_xcc": 1, "max_engine_clk_ccompute": 2750,
}


# That CPX box: hive id shared by all eight GPUs, per-GPU PCI bus and unique_id.
MI300X_HIVE_ID = 15188982192727901047


MI300X_SYSTEM_PROPERTIES = {"platform_oem": 4777524452235890003,
                            "platform_id": 85015745549651, "platform_rev": 2}


MI300X_GPUS = [  # (PCI bus, unique_id)
    (0x05, 16404946649897475633), (0x27, 2472748907779728154),
    (0x47, 15565237874008425757), (0x65, 12035684874187068538),
    (0x85, 15304831566906821053), (0xa7, 13644590235195043050),
    (0xc7, 13326531576914550249), (0xe5, 15931900197903628278),
]


MI300X_VRAM = 192 * GiB


MI300X_KFD_VRAM = 201310208 * 1024   # the VRAM pool rocminfo reports on an MI300X


def rx7900xtx(tb, parent, bus, card=0, render=128, driver="amdgpu", routing=True,
              atomics_requester=None, numa_node=-1):
    """A Sapphire RX 7900 XTX (Navi31, 1002:744c rev c8) behind its internal switch:
    upstream port at bus:00.0, downstream at bus+1:00.0, GPU and HDMI audio at
    bus+2:00.0/.1.  BAR0 is resized to 32 GiB (ReBAR active).  The AtomicOp
    requester is enabled when the driver is bound and the switch routes atomics,
    unless atomics_requester says otherwise.  Returns the GPU."""
    down = tb.amd_switch(parent, bus, routing=routing)
    gpu_bus = bus + 2
    bdf = "0000:%02x:00.0" % gpu_bus
    bound = driver == "amdgpu"
    if atomics_requester is None:
        atomics_requester = bound and routing
    gpu = tb.gpu(down, bdf, 0x1002, 0x744c, rev=0xc8, subsys=(0x1da2, 0xe471),
                 driver=driver, speed=16.0, width=16, vram=25753026560,
                 bars=[Bar(0, 0x28800000000, 32 * GiB), Bar(2, 0x28400000000, 2 * MiB),
                       Bar(4, 0xe000, 256, "io"), Bar(5, 0xfcb00000, 1 * MiB, "mem32"),
                       Bar(6, 0xfcc00000, 128 * 1024, "rom")],
                 rebar={0: (256 * MiB, 32 * GiB), 2: (2 * MiB, 256 * MiB)},
                 atomics_requester=atomics_requester,
                 product_name="", unique_id=0xa1ffc9d1799c317f, vbios="113-D70401XT-N11",
                 gc_ip=(11, 0, 0), numa_node=numa_node, irq=120)
    tb.pci(down, "0000:%02x:00.1" % gpu_bus, 0x1002, 0xab30, CLASS_AUDIO,
           subsys=(0x1da2, 0xe471), driver="snd_hda_intel" if bound else None,
           max_speed=16.0, max_width=16, bars=[Bar(0, 0xfcc20000, 16 * 1024, "mem32")],
           numa_node=numa_node, irq=121)
    if bound:
        tb.drm(gpu, card=card, render=render)
    return gpu


def navi21(tb, parent, bus, card=0, render=128, driver="amdgpu", rev=0xc0,
           subsys=(0x1da2, 0x440e)):
    """A Sapphire RX 6900 XT (Navi21, 1002:73bf rev c0; rev c1 is the 6800 XT) with
    its internal switch at bus and bus+1 and the GPU at bus+2:00.0.  BAR0 16 GiB."""
    down = tb.amd_switch(parent, bus)
    gpu_bus = bus + 2
    bound = driver == "amdgpu"
    gpu = tb.gpu(down, "0000:%02x:00.0" % gpu_bus, 0x1002, 0x73bf, rev=rev, subsys=subsys,
                 driver=driver, speed=16.0, width=16, vram=17163091968,
                 bars=[Bar(0, 0xf800000000, 16 * GiB), Bar(2, 0xfc00000000, 256 * MiB),
                       Bar(4, 0xe000, 256, "io"), Bar(5, 0xfcb00000, 1 * MiB, "mem32"),
                       Bar(6, 0xfcc00000, 128 * 1024, "rom")],
                 rebar={0: (256 * MiB, 16 * GiB), 2: (2 * MiB, 256 * MiB)},
                 atomics_requester=bound, product_name="", unique_id=0x946d7e1ef9b172dd,
                 vbios="113-D4121EXT-CO1", gc_ip=(10, 3, 0), irq=157)
    tb.pci(down, "0000:%02x:00.1" % gpu_bus, 0x1002, 0xab28, CLASS_AUDIO,
           subsys=subsys, driver="snd_hda_intel" if bound else None,
           max_speed=16.0, max_width=16, bars=[Bar(0, 0xfcc20000, 16 * 1024, "mem32")],
           irq=158)
    if bound:
        tb.drm(gpu, card=card, render=render)
    return gpu


def amdgpu_boot_log(gpu, ids, vram_mib, kfd=True, minor=0):
    """The kernel log of a healthy amdgpu probe (messages as amdgpu prints them)."""
    dev = "amdgpu %s" % gpu.bdf
    lines = [
        "[drm] amdgpu kernel modesetting enabled.",
        "amdgpu: Topology: Add CPU node",
        "%s: enabling device (0006 -> 0007)" % dev,
        "[drm] initializing kernel modesetting (IP DISCOVERY %s)." % ids,
        "%s: amdgpu: VRAM: %dM 0x0000008000000000 - 0x%016X (%dM used)"
        % (dev, vram_mib, 0x8000000000 + vram_mib * MiB - 1, vram_mib),
        "[drm] amdgpu: %dM of VRAM memory ready" % vram_mib,
    ]
    if kfd:
        lines += ["kfd kfd: amdgpu: Allocated 3969056 bytes on gart",
                  "kfd kfd: amdgpu: added device %04x:%04x" % (gpu.vendor, gpu.device)]
    lines.append("[drm] Initialized amdgpu 3.57.0 20150101 for %s on minor %d"
                 % (gpu.bdf, minor))
    return [(4.1 + 0.05 * i, text) for i, text in enumerate(lines)]


def healthy_rx7900xtx_box(tb, with_kfd=True):
    """Ryzen 5000 desktop, RX 7900 XTX in the CPU's Gen4 x16 slot, amdgpu loaded."""
    matisse_host(tb)
    rp = matisse_root_port(tb)
    gpu = rx7900xtx(tb, rp, bus=1)
    tb.module_amdgpu("live")
    if with_kfd:
        tb.kfd([cpu_kfd_node(tb, 16),
                tb.kfd_gpu_node(gpu, NAVI31_KFD, mem_bytes=25753026560, mem_width=384,
                                mem_clk=1249)])
    tb.kmsg(amdgpu_boot_log(gpu, "0x1002:0x744C 0x1DA2:0xE471 0xC8", 24560, kfd=with_kfd))
    return gpu


def healthy_navi21_box(tb):
    """Ryzen 5000 desktop, RX 6900 XT at 0000:0c:00.0 behind root port 00:03.1."""
    matisse_host(tb)
    rp = matisse_root_port(tb, "0000:00:03.1", slot=1)
    gpu = navi21(tb, rp, bus=0x0a)
    tb.module_amdgpu("live")
    tb.kfd([cpu_kfd_node(tb, 16),
            tb.kfd_gpu_node(gpu, NAVI21_KFD, mem_bytes=17163091968, name="sienna_cichlid",
                            mem_width=256, mem_clk=1000)])
    tb.kmsg(amdgpu_boot_log(gpu, "0x1002:0x73BF 0x1DA2:0x440E 0xC0", 16368))
    return gpu


def mi300x_box(tb, cpx):
    """Two-socket EPYC 9004 server with eight MI300X OAMs.

    Each GPU sits in its own root complex behind a Broadcom PEX890xx Gen5 switch
    (upstream port, then downstream ports down to the GPU's bus), with AtomicOp
    routing everywhere.  Besides the PCI device's card/renderD node, amdgpu
    registers seven amdgpu_xcp platform devices per GPU for compute partitions,
    which is why the GPUs' primary render minors are 128, 136, ... 184; in CPX mode
    KFD shows eight nodes per GPU that use those partition render nodes.
    """
    gpus = []
    for i, (bus, uid) in enumerate(MI300X_GPUS):
        rc = bus & 0xE0
        numa = i // 4
        rp = genoa_root_complex(tb, rc, numa)
        # Switch upstream port on rc+1; downstream ports on rc+2, one per bus
        # from rc+3 up to the GPU's bus (the others lead to NICs and NVMe drives
        # not modelled here, so their links are down).
        downs = tb.switch(rp, "0000:%02x:00.0" % (rc + 1),
                          ["0000:%02x:%02x.0" % (rc + 2, d) for d in range(bus - rc - 2)],
                          0x1000, 0xc030, speed=32.0, width=16, routing=True, rev=0xb0,
                          numa_node=numa)
        for d in downs[:-1]:
            d.secondary_override = d.bus + 1 + d.dev
            d.set_link(2.5, 0)
        bar0 = 0x20000000000 + i * 0x8000000000
        gpu = tb.gpu(downs[-1], "0000:%02x:00.0" % bus, 0x1002, 0x74a1, rev=0x00,
                     subsys=(0x1002, 0x74a1), cls=0x120000, speed=32.0, width=16,
                     vram=MI300X_VRAM,
                     bars=[Bar(0, bar0, 256 * GiB), Bar(2, bar0 + 256 * GiB, 2 * MiB),
                           Bar(5, 0xf0000000 - i * 0x1000000, 512 * 1024, "mem32")],
                     rebar={0: (256 * MiB, 256 * GiB)},
                     product_name="AMD Instinct MI300X", unique_id=uid,
                     vbios="113-M3000100-102", gc_ip=(9, 4, 3), gc_instances=8,
                     numa_node=numa, irq=200 + i, multifunction=False)
        tb.drm(gpu, card=8 * i, render=128 + 8 * i)
        for k in range(1, 8):
            path = tb.platform_device("amdgpu_xcp.%d" % (7 * i + k - 1))
            tb.drm(path, card=8 * i + k, render=128 + 8 * i + k)
        gpus.append(gpu)

    nodes = [cpu_kfd_node(tb, 96, mem=768 * GiB, clk=2750),
             cpu_kfd_node(tb, 96, mem=768 * GiB, clk=2750)]
    for i, gpu in enumerate(gpus):
        if cpx:
            for k in range(8):
                nodes.append(tb.kfd_gpu_node(gpu, MI300X_CPX_KFD,
                                             mem_bytes=MI300X_KFD_VRAM // 8,
                                             partition=k, render_minor=128 + 8 * i + k,
                                             hive_id=MI300X_HIVE_ID, mem_width=8192,
                                             mem_clk=1300))
        else:
            nodes.append(tb.kfd_gpu_node(gpu, MI300X_SPX_KFD, mem_bytes=MI300X_KFD_VRAM,
                                         hive_id=MI300X_HIVE_ID, mem_width=8192,
                                         mem_clk=1300))
    tb.kfd(nodes, generation=80 if cpx else 2,
           system_properties=MI300X_SYSTEM_PROPERTIES)
    health_sysfs.mi300x_health(tb, gpus, MI300X_HIVE_ID)
    tb.module_amdgpu("live", params={"bad_page_threshold": "-1"})
    tb.kmsg(["[drm] amdgpu kernel modesetting enabled."]
            + ["kfd kfd: amdgpu: added device 1002:74a1"] * len(gpus))
    return gpus


def no_gpu_box(tb):
    """A host bridge and an Intel I210 NIC: no display device, no amdgpu, no KFD."""
    matisse_host(tb)
    rp = tb.root_port("0000:00:01.2", 0x1022, 0x1483, speed=16.0, width=16)
    tb.pci(rp, "0000:01:00.0", 0x8086, 0x1533, CLASS_ETHERNET, rev=0x03,
           subsys=(0x15d9, 0x1533), max_speed=2.5, max_width=1, driver="igb",
           bars=[Bar(0, 0xfc800000, 1 * MiB, "mem32"), Bar(2, 0xd000, 32, "io"),
                 Bar(3, 0xfc900000, 16 * 1024, "mem32")], irq=40)
    rp.set_link(2.5, 1)
    tb.module("igb", "live", srcversion="3B0B1C6A3F2E3D4C5B6A798")


def unbound_rx7900xtx_box(tb):
    """RX 7900 XTX present, amdgpu not loaded: no driver link, no DRM nodes, no KFD."""
    matisse_host(tb)
    rp = matisse_root_port(tb)
    rx7900xtx(tb, rp, bus=1, driver=None)


def access_node(path, role, mode, uid, gid, group):
    """An entry of the report's access.nodes."""
    return {"path": path, "role": role, "exists": True, "mode": mode, "uid": uid, "gid": gid,
            "group": group, "acl": [], "error": None}


def build(name):
    """Return the Scenario called name."""
    return SCENARIOS[name]()
