"""Build a umockdev testbed for one scenario from a compact description.

A Testbed collects PCI functions, DRM nodes, the KFD topology, kernel modules,
kernel state (/proc, /dev/kmsg) and an OS root tree, then writes three things:

    DIR/testbed.umockdev   device records for umockdev (tb-run -d)
    DIR/overlay/           files copied over the testbed root (tb-run -o):
                           sys/bus/pci/drivers/*, sys/module/*, proc/*, dev/kmsg
    DIR/root/              the OS tree passed to the tool with --root

plus the device node permissions, returned by Testbed.node_args() as tb-run
--node arguments.

Everything the kernel would derive from something else is derived here too, so a
scenario states a fact once: PCI config space is assembled from the fields of a
PciFunction (taking atomics away is one flag), bridge bus ranges come from the
devices below them, KFD location_id/domain/drm_render_minor/unique_id come from
the GPU's PCI function and DRM nodes.

Only the Python standard library is used.
"""

import os
import struct
import zlib

# --------------------------------------------------------------------------
# PCI constants

# Link speed (GT/s) -> encoding used by LnkCap/LnkSta/LnkCtl2 (PCIe spec).
LINK_SPEED_CODE = {2.5: 1, 5.0: 2, 8.0: 3, 16.0: 4, 32.0: 5, 64.0: 6}

# PCI Express capability, device/port type (flags bits 7:4).
PCIE_ENDPOINT = 0
PCIE_LEGACY_ENDPOINT = 1
PCIE_ROOT_PORT = 4
PCIE_SWITCH_UPSTREAM = 5
PCIE_SWITCH_DOWNSTREAM = 6
PCIE_TO_PCI_BRIDGE = 7
PCIE_ROOT_COMPLEX_ENDPOINT = 9

CLASS_HOST_BRIDGE = 0x060000
CLASS_PCI_BRIDGE = 0x060400
CLASS_VGA = 0x030000
CLASS_3D = 0x030200
CLASS_DISPLAY_OTHER = 0x038000
CLASS_AUDIO = 0x040300
CLASS_ETHERNET = 0x020000

# Where the capabilities sit in the config space we build.  The layout follows
# what AMD GPUs use (PM at 0x50, PCIe at 0x64, MSI at 0xa0); the tool must find
# them by walking the list, so the exact offsets do not matter.
CAP_PM = 0x50
CAP_EXP = 0x64
CAP_MSI = 0xA0
EXT_CAP_START = 0x100

# Flags of the sysfs `resource` file (kernel IORESOURCE_* bits plus the BAR's
# own low bits), per BAR kind.
_RES_FLAGS = {
    "mem64pref": 0x14220C,
    "mem64": 0x140204,
    "mem32pref": 0x042208,
    "mem32": 0x040200,
    "io": 0x040101,
    "rom": 0x046200,
}

GiB = 1 << 30
MiB = 1 << 20


def speed_text(gts):
    """A link speed as the kernel writes it into current_link_speed."""
    return "%.1f GT/s PCIe" % gts


class Bar:
    """One PCI BAR (or the expansion ROM, index 6)."""

    def __init__(self, index, start, size, kind="mem64pref"):
        if kind not in _RES_FLAGS:
            raise ValueError("unknown BAR kind %r" % kind)
        self.index, self.start, self.size, self.kind = index, start, size, kind

    def resource_line(self):
        return "0x%016x 0x%016x 0x%016x" % (self.start, self.start + self.size - 1,
                                            _RES_FLAGS[self.kind])


class PciFunction:
    """A PCI function: its identity, its PCIe capability and where it sits.

    Link fields: max_speed/max_width go into LnkCap (and max_link_*), speed/width
    into LnkSta (and current_link_*).  Atomics fields map to DevCap2 (routing for
    ports, 32/64-bit and 128-bit CAS completer) and DevCtl2 (requester enable,
    egress blocking).
    """

    def __init__(self, tb, parent, bdf, vendor, device, cls, rev=0x00,
                 subsys=(0, 0), pcie_type=PCIE_ENDPOINT, pcie=True,
                 max_speed=16.0, max_width=16, speed=None, width=None,
                 atomic_routing=False, atomic_comp32=False, atomic_comp64=False,
                 atomic_cas128=False, atomic_req_en=False, atomic_egress_block=False,
                 bars=(), rebar=None, driver=None, numa_node=-1, irq=0,
                 multifunction=False, slot=None, attrs=None, links=None):
        self.tb = tb
        self.parent = parent
        self.bdf = bdf.lower()
        dom, bus, devfn = self.bdf.split(":")
        dev, fn = devfn.split(".")
        self.domain, self.bus = int(dom, 16), int(bus, 16)
        self.dev, self.fn = int(dev, 16), int(fn, 16)
        self.vendor, self.device, self.cls, self.rev = vendor, device, cls, rev
        self.subsys = subsys
        self.pcie, self.pcie_type = pcie, pcie_type
        self.max_speed, self.max_width = max_speed, max_width
        self.speed = max_speed if speed is None else speed
        self.width = max_width if width is None else width
        self.atomic_routing = atomic_routing
        self.atomic_comp32 = atomic_comp32
        self.atomic_comp64 = atomic_comp64
        self.atomic_cas128 = atomic_cas128
        self.atomic_req_en = atomic_req_en
        self.atomic_egress_block = atomic_egress_block
        self.bars = list(bars)
        # rebar: {bar_index: (min_bytes, max_bytes)}; the current size is the BAR's size.
        self.rebar = rebar or {}
        self.driver = driver
        self.numa_node = numa_node
        self.irq = irq
        self.multifunction = multifunction
        self.slot = slot
        self.attrs = dict(attrs or {})   # extra sysfs attributes (driver-provided ones)
        self.links = dict(links or {})   # extra attribute symlinks
        self.children = []
        # Secondary bus of a bridge with nothing below it (an empty slot).
        self.secondary_override = None
        if parent is not None:
            parent.children.append(self)
        # Filled by Testbed.drm(): the DRM minors of this function.
        self.cards = []
        self.renders = []
        self.unique_id = None

    # -- derived values ------------------------------------------------------

    @property
    def devfn(self):
        return (self.dev << 3) | self.fn

    @property
    def location_id(self):
        """KFD's location_id: (bus << 8) | devfn."""
        return (self.bus << 8) | self.devfn

    @property
    def is_bridge(self):
        return (self.cls >> 8) == 0x0604

    @property
    def sysfs_path(self):
        """Device path under /sys, e.g. /devices/pci0000:00/0000:00:01.1/0000:01:00.0."""
        chain = []
        node = self
        while node is not None:
            chain.append(node.bdf)
            node = node.parent
        root_bus = chain[-1].rsplit(":", 1)[0]  # "0000:00" of the topmost function
        return "/devices/pci%s/%s" % (root_bus, "/".join(reversed(chain)))

    def subtree_buses(self):
        buses = {self.bus}
        if self.secondary_override is not None:
            buses.add(self.secondary_override)
        for c in self.children:
            buses |= c.subtree_buses()
        return buses

    def secondary_bus(self):
        if not self.children:
            return self.secondary_override or 0
        return min(c.bus for c in self.children)

    def subordinate_bus(self):
        if not self.children:
            return self.secondary_override or 0
        return max(max(c.subtree_buses()) for c in self.children)

    def descendant_bars(self):
        for c in self.children:
            yield from c.bars
            yield from c.descendant_bars()

    def windows(self):
        """The (io, mem, prefetchable) windows a bridge needs for everything below
        it, as (first, last) or None, aligned the way bridge windows are."""
        groups = {"io": [], "mem": [], "pref": []}
        for bar in self.descendant_bars():
            if bar.kind == "io":
                groups["io"].append(bar)
            elif bar.kind.endswith("pref"):
                groups["pref"].append(bar)
            else:  # non-prefetchable memory and expansion ROMs
                groups["mem"].append(bar)
        out = []
        for kind, align in (("io", 0x1000), ("mem", MiB), ("pref", MiB)):
            bars = groups[kind]
            if not bars:
                out.append(None)
                continue
            lo = min(b.start for b in bars) & ~(align - 1)
            hi = max(b.start + b.size for b in bars)
            hi = ((hi + align - 1) & ~(align - 1)) - 1
            out.append((lo, hi))
        return out

    def set_link(self, speed=None, width=None):
        if speed is not None:
            self.speed = speed
        if width is not None:
            self.width = width

    # -- config space --------------------------------------------------------

    def config_space(self):
        """The 4096-byte config space, assembled from the fields."""
        cfg = bytearray(4096)

        def w8(off, v):
            cfg[off] = v & 0xFF

        def w16(off, v):
            struct.pack_into("<H", cfg, off, v & 0xFFFF)

        def w32(off, v):
            struct.pack_into("<I", cfg, off, v & 0xFFFFFFFF)

        w16(0x00, self.vendor)
        w16(0x02, self.device)
        # Command: I/O, memory, bus master (and SERR for bridges).
        w16(0x04, 0x0407 if self.is_bridge else 0x0007)
        has_caps = self.pcie
        w16(0x06, 0x0010 if has_caps else 0x0000)  # status bit 4: capability list
        w8(0x08, self.rev)
        w8(0x09, self.cls & 0xFF)
        w8(0x0A, (self.cls >> 8) & 0xFF)
        w8(0x0B, (self.cls >> 16) & 0xFF)
        w8(0x0C, 0x10)  # cache line size: 64 bytes
        header = 1 if self.is_bridge else 0
        w8(0x0E, header | (0x80 if self.multifunction else 0))

        for bar in self.bars:
            if bar.index == 6:
                rom_off = 0x38 if self.is_bridge else 0x30
                w32(rom_off, bar.start & 0xFFFFF800)
                continue
            off = 0x10 + 4 * bar.index
            if bar.kind == "io":
                w32(off, (bar.start & 0xFFFFFFFC) | 0x1)
            else:
                low = bar.start & 0xFFFFFFF0
                if bar.kind.startswith("mem64"):
                    low |= 0x4
                if bar.kind.endswith("pref"):
                    low |= 0x8
                w32(off, low)
                if bar.kind.startswith("mem64"):
                    w32(off + 4, bar.start >> 32)

        if self.is_bridge:
            w8(0x18, self.bus)
            w8(0x19, self.secondary_bus())
            w8(0x1A, self.subordinate_bus())
            io, mem, pref = self.windows()
            # A closed window has its base above its limit.
            lo, hi = io or (0xF000, 0x0FFF)
            w8(0x1C, ((lo >> 8) & 0xF0) | 0x1)
            w8(0x1D, ((hi >> 8) & 0xF0) | 0x1)
            lo, hi = mem or (0xFFF00000, 0x000FFFFF)
            w16(0x20, (lo >> 16) & 0xFFF0)
            w16(0x22, (hi >> 16) & 0xFFF0)
            lo, hi = pref or (0xFFF00000, 0x000FFFFF)
            w16(0x24, ((lo >> 16) & 0xFFF0) | 0x1)
            w16(0x26, ((hi >> 16) & 0xFFF0) | 0x1)
            w32(0x28, lo >> 32)
            w32(0x2C, hi >> 32)
        else:
            w16(0x2C, self.subsys[0])
            w16(0x2E, self.subsys[1])
        if has_caps:
            w8(0x34, CAP_PM)
        w8(0x3C, self.irq & 0xFF)
        w8(0x3D, 0x01)

        if has_caps:
            # Power management capability -> PCI Express capability -> MSI.
            w8(CAP_PM, 0x01)
            w8(CAP_PM + 1, CAP_EXP)
            w16(CAP_PM + 2, 0x0603)
            self._pcie_cap(cfg, w8, w16, w32)
            w8(CAP_MSI, 0x05)
            w8(CAP_MSI + 1, 0x00)
            w16(CAP_MSI + 2, 0x0080)  # 64-bit MSI, disabled
            self._ext_caps(w16, w32)
        return bytes(cfg)

    def _pcie_cap(self, cfg, w8, w16, w32):
        c = CAP_EXP
        is_port = self.pcie_type in (PCIE_ROOT_PORT, PCIE_SWITCH_DOWNSTREAM)
        w8(c + 0x00, 0x10)
        w8(c + 0x01, CAP_MSI)
        flags = 0x2 | (self.pcie_type << 4)  # capability version 2
        if is_port and self.slot is not None:
            flags |= 0x100  # slot implemented
        w16(c + 0x02, flags)
        # DevCap: MaxPayload 256, role-based error reporting; endpoints also
        # function-level reset.
        devcap = 0x00008001 | (0x10000000 if self.pcie_type == PCIE_ENDPOINT else 0)
        w32(c + 0x04, devcap)
        w16(c + 0x08, 0x2930 if self.pcie_type == PCIE_ENDPOINT else 0x0030)
        lnkcap = (LINK_SPEED_CODE[self.max_speed] | (self.max_width << 4)
                  | (0x3 << 10)  # ASPM L0s/L1
                  | (self.dev << 24 if is_port else 0))
        if is_port:
            lnkcap |= 0x00300000  # data link layer active reporting, bandwidth notification
        w32(c + 0x0C, lnkcap)
        w16(c + 0x10, 0x0040)  # LnkCtl: common clock
        lnksta = LINK_SPEED_CODE[self.speed] | (self.width << 4) | 0x1000  # slot clock
        if is_port and self.width:
            lnksta |= 0x2000  # data link layer link active
        w16(c + 0x12, lnksta)
        if is_port and self.slot is not None:
            w32(c + 0x14, (self.slot << 19) | 0x00000060)  # physical slot, hot-plug surprise
            w16(c + 0x1A, 0x0040)  # presence detect state
        devcap2 = 0x0000081F  # completion timeout ranges A-D + disable, LTR
        if is_port:
            devcap2 |= 0x20  # ARI forwarding
        if self.atomic_routing:
            devcap2 |= 1 << 6
        if self.atomic_comp32:
            devcap2 |= 1 << 7
        if self.atomic_comp64:
            devcap2 |= 1 << 8
        if self.atomic_cas128:
            devcap2 |= 1 << 9
        w32(c + 0x24, devcap2)
        devctl2 = 0
        if self.atomic_req_en:
            devctl2 |= 1 << 6
        if self.atomic_egress_block:
            devctl2 |= 1 << 7
        w16(c + 0x28, devctl2)
        # LnkCap2: supported speeds vector up to max_speed.
        vec = 0
        for code in range(1, LINK_SPEED_CODE[self.max_speed] + 1):
            vec |= 1 << code
        w32(c + 0x2C, vec)
        w16(c + 0x30, LINK_SPEED_CODE[self.max_speed])  # LnkCtl2 target speed

    def _ext_caps(self, w16, w32):
        """Extended capabilities: Resizable BAR when the function has one."""
        if not self.rebar:
            return
        off = EXT_CAP_START
        w32(off, 0x15 | (1 << 16))  # id 0x15, version 1, no next capability
        bars = {b.index: b for b in self.bars}
        for i, (index, (lo, hi)) in enumerate(sorted(self.rebar.items())):
            supported = 0
            size = lo
            while size <= hi:
                supported |= 1 << (4 + (size // MiB).bit_length() - 1)
                size *= 2
            current = (bars[index].size // MiB).bit_length() - 1
            ctrl = index | (current << 8)
            if i == 0:
                ctrl |= len(self.rebar) << 5
            w32(off + 4 + 8 * i, supported)
            w32(off + 8 + 8 * i, ctrl)

    # -- sysfs ---------------------------------------------------------------

    def resource_text(self):
        count = 17 if self.is_bridge else 13
        lines = ["0x%016x 0x%016x 0x%016x" % (0, 0, 0)] * count
        for bar in self.bars:
            lines[bar.index] = bar.resource_line()
        if self.is_bridge:
            # Bridge windows are resources 13 (I/O), 14 (memory), 15 (prefetchable).
            for index, window, flags in zip((13, 14, 15), self.windows(),
                                            (0x101, 0x200, 0x102201)):
                if window:
                    lines[index] = "0x%016x 0x%016x 0x%016x" % (window[0], window[1], flags)
        return "\n".join(lines) + "\n"

    def record(self):
        """This function's umockdev record."""
        cls_hex = "%X" % self.cls
        modalias = "pci:v%08Xd%08Xsv%08Xsd%08Xbc%02Xsc%02Xi%02X" % (
            self.vendor, self.device, self.subsys[0], self.subsys[1],
            self.cls >> 16, (self.cls >> 8) & 0xFF, self.cls & 0xFF)
        r = Record(self.sysfs_path)
        if self.driver:
            r.env("DRIVER", self.driver)
        r.env("PCI_CLASS", cls_hex)
        r.env("PCI_ID", "%04X:%04X" % (self.vendor, self.device))
        r.env("PCI_SUBSYS_ID", "%04X:%04X" % self.subsys)
        r.env("PCI_SLOT_NAME", self.bdf)
        r.env("MODALIAS", modalias)
        r.env("SUBSYSTEM", "pci")
        r.attr("vendor", "0x%04x\n" % self.vendor)
        r.attr("device", "0x%04x\n" % self.device)
        r.attr("subsystem_vendor", "0x%04x\n" % self.subsys[0])
        r.attr("subsystem_device", "0x%04x\n" % self.subsys[1])
        r.attr("revision", "0x%02x\n" % self.rev)
        r.attr("class", "0x%06x\n" % self.cls)
        r.attr("irq", "%d\n" % self.irq)
        r.attr("numa_node", "%d\n" % self.numa_node)
        r.attr("enable", "1\n" if self.driver else "0\n")
        r.attr("modalias", modalias + "\n")
        r.attr("resource", self.resource_text())
        if (self.cls >> 8) == 0x0300:
            r.attr("boot_vga", "1\n" if self.tb.boot_vga is self else "0\n")
        if self.pcie:
            r.attr("current_link_speed", speed_text(self.speed) + "\n")
            r.attr("current_link_width", "%d\n" % self.width)
            r.attr("max_link_speed", speed_text(self.max_speed) + "\n")
            r.attr("max_link_width", "%d\n" % self.max_width)
        for k, v in self.attrs.items():
            if isinstance(v, bytes):
                r.binattr(k, v)   # binary attributes such as gpu_metrics
            else:
                r.attr(k, v)
        if self.driver:
            target = os.path.relpath("/sys/bus/pci/drivers/" + self.driver,
                                     "/sys" + self.sysfs_path)
            r.link("driver", target)
        for k, v in self.links.items():
            r.link(k, v)
        r.binattr("config", self.config_space())
        return r


class Record:
    """One device record in umockdev's text format."""

    def __init__(self, path):
        self.path = path
        self.lines = []
        self.nodes = []

    @staticmethod
    def _esc(value):
        # umockdev decodes C-style escapes in values; a record is one line each.
        return value.replace("\\", "\\\\").replace("\n", "\\n")

    def env(self, key, value):
        self.lines.append("E: %s=%s" % (key, value))

    def attr(self, key, value):
        self.lines.append("A: %s=%s" % (key, self._esc(value)))

    def link(self, key, target):
        self.lines.append("L: %s=%s" % (key, target))

    def binattr(self, key, data):
        self.lines.append("H: %s=%s" % (key, data.hex()))

    def node(self, devname, content=b"\x00"):
        """A device node under /dev (path relative to /dev)."""
        self.nodes.append("N: %s=%s" % (devname, content.hex()))

    def text(self):
        return "\n".join(["P: " + self.path] + self.nodes + self.lines) + "\n"


class KfdNode:
    """One node of /sys/class/kfd/kfd/topology/nodes.

    props is an ordered dict of the `properties` file (values as the kernel
    prints them, decimal).  Counts of mem_banks/io_links/p2p_links/caches are
    set to match what is written.
    """

    def __init__(self, props, name="", gpu_id=0, mem_banks=(), io_links=()):
        self.props = dict(props)
        self.name = name
        self.gpu_id = gpu_id
        self.mem_banks = list(mem_banks)   # list of dicts
        self.io_links = list(io_links)     # list of dicts, node_from filled in later
        self.gpu = None                    # PciFunction for GPU nodes

    @property
    def is_gpu(self):
        return int(self.props.get("simd_count", 0)) > 0


def props_text(d):
    return "".join("%s %s\n" % (k, v) for k, v in d.items())


def mem_bank(size, heap_type=1, width=0, mem_clk_max=0, flags=0):
    return {"heap_type": heap_type, "size_in_bytes": size, "flags": flags,
            "width": width, "mem_clk_max": mem_clk_max}


# Property keys of a CPU node, in the order the kernel prints them.
CPU_NODE_KEYS = [
    "cpu_cores_count", "simd_count", "mem_banks_count", "caches_count",
    "io_links_count", "p2p_links_count", "cpu_core_id_base", "simd_id_base",
    "max_waves_per_simd", "lds_size_in_kb", "gds_size_in_kb", "num_gws",
    "wave_front_size", "array_count", "simd_arrays_per_engine",
    "cu_per_simd_array", "simd_per_cu", "max_slots_scratch_cu",
    "gfx_target_version", "vendor_id", "device_id", "location_id", "domain",
    "drm_render_minor", "hive_id", "num_sdma_engines", "num_sdma_xgmi_engines",
    "num_sdma_queues_per_engine", "num_cp_queues", "max_engine_clk_ccompute",
]


class Module:
    """A kernel module as /sys/module shows it."""

    def __init__(self, name, state="live", version=None, srcversion=None, params=None,
                 refcnt=0, pci_driver=False):
        if state not in ("live", "builtin", "coming", "going"):
            raise ValueError("module state %r" % state)
        self.name, self.state = name, state
        # A PCI driver module registers /sys/bus/pci/drivers/NAME when it loads,
        # whether or not a device binds to it.
        self.pci_driver = pci_driver
        self.version, self.srcversion = version, srcversion
        self.params = dict(params or {})
        self.refcnt = refcnt


# --------------------------------------------------------------------------
# Defaults of the OS root tree

UBUNTU_2404_OS_RELEASE = """\
PRETTY_NAME="Ubuntu 24.04.1 LTS"
NAME="Ubuntu"
VERSION_ID="24.04"
VERSION="24.04.1 LTS (Noble Numbat)"
VERSION_CODENAME=noble
ID=ubuntu
ID_LIKE=debian
HOME_URL="https://www.ubuntu.com/"
SUPPORT_URL="https://help.ubuntu.com/"
BUG_REPORT_URL="https://bugs.launchpad.net/ubuntu/"
PRIVACY_POLICY_URL="https://www.ubuntu.com/legal/terms-and-policies/privacy-policy"
UBUNTU_CODENAME=noble
LOGO=ubuntu-logo
"""

DEFAULT_KERNEL_RELEASE = "6.8.0-45-generic"
DEFAULT_CMDLINE = ("BOOT_IMAGE=/boot/vmlinuz-6.8.0-45-generic "
                   "root=UUID=5b1f7e0c-2a4d-4c36-9d1e-7f1c2b3a4d5e ro quiet splash vt.handoff=7")
DEFAULT_PROC_VERSION = (
    "Linux version 6.8.0-45-generic (buildd@lcy02-amd64-115) "
    "(x86_64-linux-gnu-gcc-13 (Ubuntu 13.2.0-23ubuntu4) 13.2.0, GNU ld (GNU Binutils "
    "for Ubuntu) 2.42) #45-Ubuntu SMP PREEMPT_DYNAMIC Fri Aug 30 12:02:04 UTC 2024\n")

GID_VIDEO = 44
GID_RENDER = 992


class Testbed:
    def __init__(self):
        self.functions = []          # PciFunction, parents before children
        self.extra_records = []      # Records for non-PCI devices (DRM, platform)
        self.kfd_nodes = None        # None: no /dev/kfd at all
        self.kfd_major = 235
        self.kfd_generation = 1
        self.kfd_system_properties = {"platform_oem": 0, "platform_id": 0, "platform_rev": 0}
        # GPU nodes sharing a non-zero hive_id get XGMI io_links (type 11) to
        # each other, as the MI300X CPX dump shows (weight 13, 819200 MB/s);
        # node index pairs listed here are left out (a link that is down).
        # kfd_xgmi = False writes none (only the PCIe links); kfd_io_links =
        # False writes no io_links at all (io_links_count 0). The io_link
        # files go into the overlay, not the device records: umockdev takes
        # some 6 ms per record attribute, and a CPX box has 4032 XGMI links.
        self.kfd_xgmi = True
        self.kfd_io_links = True
        self.kfd_xgmi_missing = set()
        self.modules = {}
        self.drivers = set()         # PCI driver directories to create
        self.boot_vga = None
        self.kernel_release = DEFAULT_KERNEL_RELEASE
        self.cmdline_text = DEFAULT_CMDLINE
        self.proc_version = DEFAULT_PROC_VERSION
        self.kmsg_records = []
        self.overlay_files = {}      # path (relative to testbed root) -> text
        self.root_files = {"etc/os-release": UBUNTU_2404_OS_RELEASE}
        self.passwd = [
            ("root", 0, 0, "root", "/root", "/bin/bash"),
            ("daemon", 1, 1, "daemon", "/usr/sbin", "/usr/sbin/nologin"),
            ("alice", 1000, 1000, "Alice", "/home/alice", "/bin/bash"),
        ]
        # name -> [gid, [members]], kept in file order
        self.groups = {
            "root": [0, []],
            "daemon": [1, []],
            "adm": [4, []],
            "video": [GID_VIDEO, []],
            "render": [GID_RENDER, []],
            "alice": [1000, []],
        }
        self.nodes = {}              # "dev/..." -> (mode, uid, gid)

    # -- PCI -----------------------------------------------------------------

    def _add(self, fn):
        self.functions.append(fn)
        if fn.driver:
            self.drivers.add(fn.driver)
        return fn

    def pci(self, parent, bdf, vendor, device, cls, **kw):
        """Any PCI function."""
        return self._add(PciFunction(self, parent, bdf, vendor, device, cls, **kw))

    def host_bridge(self, bdf, vendor, device, **kw):
        """A root complex host bridge: conventional PCI, no capabilities."""
        kw.setdefault("pcie", False)
        return self.pci(None, bdf, vendor, device, CLASS_HOST_BRIDGE, **kw)

    def root_port(self, bdf, vendor, device, speed=16.0, width=16, atomics=True,
                  cas128=False, slot=None, **kw):
        """A CPU root port.  atomics=True: AtomicOp routing and 32/64-bit completer."""
        kw.setdefault("driver", "pcieport")
        return self.pci(None, bdf, vendor, device, CLASS_PCI_BRIDGE,
                        pcie_type=PCIE_ROOT_PORT, max_speed=speed, max_width=width,
                        atomic_routing=atomics, atomic_comp32=atomics,
                        atomic_comp64=atomics, atomic_cas128=atomics and cas128,
                        slot=slot, **kw)

    def bridge_port(self, parent, bdf, vendor, device, pcie_type, speed=16.0, width=16,
                    routing=True, **kw):
        """A switch port (upstream or downstream) or another PCIe bridge."""
        kw.setdefault("driver", "pcieport")
        return self.pci(parent, bdf, vendor, device, CLASS_PCI_BRIDGE,
                        pcie_type=pcie_type, max_speed=speed, max_width=width,
                        atomic_routing=routing, **kw)

    def switch(self, parent, up_bdf, down_bdfs, vendor, up_device, down_device=None,
               speed=16.0, width=16, routing=True, rev=0x00, **kw):
        """A PCIe switch: its upstream port and downstream ports; returns the
        list of downstream ports."""
        up = self.bridge_port(parent, up_bdf, vendor, up_device, PCIE_SWITCH_UPSTREAM,
                              speed=speed, width=width, routing=routing, rev=rev, **kw)
        downs = []
        for bdf in down_bdfs:
            downs.append(self.bridge_port(up, bdf, vendor, down_device or up_device,
                                          PCIE_SWITCH_DOWNSTREAM, speed=speed, width=width,
                                          routing=routing, rev=rev, slot=None, **kw))
        return downs

    def amd_switch(self, parent, bus, speed=16.0, width=16, routing=True, domain=0):
        """The PCIe switch inside Radeon RX 6000/7000 cards: upstream port
        1002:1478 at bus:00.0, downstream port 1002:1479 at (bus+1):00.0.
        Returns the downstream port."""
        up_bdf = "%04x:%02x:00.0" % (domain, bus)
        down_bdf = "%04x:%02x:00.0" % (domain, bus + 1)
        return self.switch(parent, up_bdf, [down_bdf], 0x1002, 0x1478, 0x1479,
                           speed=speed, width=width, routing=routing, rev=0xc8)[0]

    def gpu(self, parent, bdf, vendor, device, rev=0x00, subsys=(0, 0), cls=CLASS_VGA,
            driver="amdgpu", speed=16.0, width=16, max_speed=None, max_width=None,
            vram=None, bars=(), rebar=None, atomics_requester=True, completer=True,
            product_name=None, unique_id=None, vbios=None, gc_ip=None, gc_instances=1,
            numa_node=-1, irq=0, multifunction=True, boot_vga=False, attrs=None):
        """A GPU: a display (0x03xxxx) or processing accelerator (0x1200xx) function.

        The attributes a bound amdgpu adds (mem_info_*, product_name, unique_id,
        vbios_version, ip_discovery/...) are only written when driver == "amdgpu".
        unique_id=0 writes an empty unique_id file, as APUs do.
        gc_ip: (major, minor, revision) of the GC block in the IP discovery table.
        completer: DevCap2 32/64-bit AtomicOp completer; atomics_requester:
        DevCtl2 AtomicOp requester enable (the kernel sets it only when the whole
        path to the root port routes atomics).
        """
        a = dict(attrs or {})
        if driver == "amdgpu":
            if vram is not None:
                a["mem_info_vram_total"] = "%d\n" % vram
                a["mem_info_vis_vram_total"] = "%d\n" % min(
                    vram, max([b.size for b in bars if b.index == 0] or [vram]))
                a["mem_info_vram_used"] = "%d\n" % (vram // 100)
            if product_name is not None:
                a["product_name"] = product_name + "\n"
            if unique_id is not None:
                a["unique_id"] = ("%016x\n" % unique_id) if unique_id else "\n"
            if vbios is not None:
                a["vbios_version"] = vbios + "\n"
        fn = self.pci(parent, bdf, vendor, device, cls, rev=rev, subsys=subsys,
                      pcie_type=PCIE_ENDPOINT,
                      max_speed=max_speed or speed, max_width=max_width or width,
                      speed=speed, width=width,
                      atomic_comp32=completer, atomic_comp64=completer,
                      atomic_req_en=atomics_requester, bars=bars, rebar=rebar,
                      driver=driver, numa_node=numa_node, irq=irq,
                      multifunction=multifunction, attrs=a)
        fn.unique_id = unique_id
        if driver == "amdgpu" and gc_ip is not None:
            self._ip_discovery(fn, gc_ip, gc_instances)
        if boot_vga:
            self.boot_vga = fn
        return fn

    @staticmethod
    def _ip_discovery(fn, gc_ip, instances):
        # The kernel names the directories by hardware id (GC is 11) and adds a
        # symlink per block name.
        major, minor, rev = gc_ip
        base = "ip_discovery/die/0/11"
        for inst in range(instances):
            d = "%s/%d" % (base, inst)
            fn.attrs[d + "/major"] = "%d\n" % major
            fn.attrs[d + "/minor"] = "%d\n" % minor
            fn.attrs[d + "/revision"] = "%d\n" % rev
            fn.attrs[d + "/hw_id"] = "11\n"
            fn.attrs[d + "/num_instance"] = "%d\n" % inst
            fn.attrs[d + "/harvest"] = "0x0\n"
        fn.attrs["ip_discovery/die/0/num_ips"] = "1\n"
        fn.links["ip_discovery/die/0/GC"] = "11"

    def set_path_link(self, fn, speed=None, width=None):
        """Set the negotiated link of fn and of every link above it up to the
        root port.  The other functions of a device share its link."""
        node = fn
        while node is not None:
            for other in self.functions:
                if (other.pcie and other.parent is node.parent
                        and (other.domain, other.bus, other.dev)
                        == (node.domain, node.bus, node.dev)):
                    other.set_link(speed, width)
            node = node.parent

    # -- DRM -----------------------------------------------------------------

    def drm(self, fn, card=None, render=None, mode_card=(0o660, 0, GID_VIDEO),
            mode_render=(0o660, 0, GID_RENDER)):
        """card/renderD nodes of a PCI function (or a platform device path)."""
        parent_path = fn.sysfs_path if isinstance(fn, PciFunction) else fn
        parent_name = parent_path.rsplit("/", 1)[1]
        for kind, minor, mode in (("card", card, mode_card),
                                  ("renderD", render, mode_render)):
            if minor is None:
                continue
            name = "%s%d" % (kind, minor)
            dev_minor = minor
            r = Record("%s/drm/%s" % (parent_path, name))
            r.node("dri/" + name)
            r.link("device", "../../../" + parent_name)
            r.env("DEVNAME", "/dev/dri/" + name)
            r.env("DEVTYPE", "drm_minor")
            r.env("MAJOR", "226")
            r.env("MINOR", str(dev_minor))
            r.env("SUBSYSTEM", "drm")
            r.attr("dev", "226:%d\n" % dev_minor)
            self.extra_records.append(r)
            self.nodes["dev/dri/" + name] = mode
            if isinstance(fn, PciFunction):
                (fn.cards if kind == "card" else fn.renders).append(minor)

    def platform_device(self, name, attrs=None):
        """A /devices/platform/NAME device (e.g. amdgpu_xcp.0); returns its path."""
        path = "/devices/platform/" + name
        r = Record(path)
        r.env("SUBSYSTEM", "platform")
        r.env("MODALIAS", "platform:" + name.split(".")[0])
        r.attr("modalias", "platform:" + name.split(".")[0] + "\n")
        for k, v in (attrs or {}).items():
            r.attr(k, v)
        self.extra_records.append(r)
        return path

    # -- KFD -----------------------------------------------------------------

    def kfd_cpu_node(self, cores, mem_bytes, clk=3000, extra=None):
        props = {k: 0 for k in CPU_NODE_KEYS}
        props["cpu_cores_count"] = cores
        props["max_engine_clk_ccompute"] = clk
        props.update(extra or {})
        return KfdNode(props, name="", gpu_id=0,
                       mem_banks=[mem_bank(mem_bytes, heap_type=0, width=64,
                                           mem_clk_max=2400)])

    def kfd_gpu_node(self, gpu, props, mem_bytes, name="ip discovery", partition=0,
                     render_minor=None, mem_width=0, mem_clk=0, hive_id=None):
        """A GPU node: props is the family's property set in kernel order;
        the identity keys are filled from the PCI function."""
        p = dict(props)
        p["vendor_id"] = gpu.vendor
        p["device_id"] = gpu.device
        # Compute partitions of one device report location_id | partition index.
        p["location_id"] = gpu.location_id | partition
        p["domain"] = gpu.domain
        if render_minor is None:
            render_minor = gpu.renders[0] if gpu.renders else 0
        p["drm_render_minor"] = render_minor
        if hive_id is not None:
            p["hive_id"] = hive_id
        if "unique_id" in p:
            p["unique_id"] = gpu.unique_id or 0
        node = KfdNode(p, name=name, mem_banks=[mem_bank(mem_bytes, heap_type=1,
                                                         width=mem_width,
                                                         mem_clk_max=mem_clk)])
        node.gpu = gpu
        # gpu_id is a hash over the node's properties in the kernel; any stable
        # non-zero 16-bit value will do.
        key = "%s/%d/%d" % (gpu.bdf, partition, render_minor)
        node.gpu_id = (zlib.crc32(key.encode()) & 0xFFFF) or 1
        return node

    def kfd(self, nodes, major=235, generation=1, system_properties=None):
        """Create /dev/kfd with this topology (CPU nodes first)."""
        self.kfd_nodes = list(nodes)
        self.kfd_major = major
        self.kfd_generation = generation
        if system_properties is not None:
            self.kfd_system_properties = dict(system_properties)
        self.nodes.setdefault("dev/kfd", (0o660, 0, GID_RENDER))

    def _kfd_record(self):
        r = Record("/devices/virtual/kfd/kfd")
        r.node("kfd")
        r.env("DEVNAME", "/dev/kfd")
        r.env("MAJOR", str(self.kfd_major))
        r.env("MINOR", "0")
        r.env("SUBSYSTEM", "kfd")
        r.attr("dev", "%d:0\n" % self.kfd_major)
        r.attr("topology/generation_id", "%d\n" % self.kfd_generation)
        r.attr("topology/system_properties", props_text(self.kfd_system_properties))
        nodes = self.kfd_nodes
        links = self._kfd_links()
        for i, n in enumerate(nodes):
            props = dict(n.props)
            props["mem_banks_count"] = len(n.mem_banks)
            props["caches_count"] = 0
            props["io_links_count"] = len(links[i])
            if "p2p_links_count" in props:
                props["p2p_links_count"] = 0
            base = "topology/nodes/%d" % i
            r.attr(base + "/name", n.name + "\n")
            r.attr(base + "/gpu_id", "%d\n" % n.gpu_id)
            r.attr(base + "/properties", props_text(props))
            for m, bank in enumerate(n.mem_banks):
                r.attr("%s/mem_banks/%d/properties" % (base, m), props_text(bank))
        return r

    def _kfd_links(self):
        """{node index: [(to, type, weight)]}: each GPU has a PCIe link to the
        CPU node of its NUMA node and each CPU node the reverse link (type
        2), then the XGMI links (type 11) within a hive."""
        nodes = self.kfd_nodes
        cpu_ids = [i for i, n in enumerate(nodes) if not n.is_gpu]
        links = {i: [] for i in range(len(nodes))}
        if not self.kfd_io_links:
            return links
        for i, n in enumerate(nodes):
            if not n.is_gpu or not cpu_ids:
                continue
            numa = n.gpu.numa_node if n.gpu is not None and n.gpu.numa_node >= 0 else 0
            cpu = cpu_ids[min(numa, len(cpu_ids) - 1)]
            links[i].append((cpu, 2, 20))
            links[cpu].append((i, 2, 20))
        for i, n in enumerate(nodes):
            hive = int(n.props.get("hive_id", 0)) if n.is_gpu and self.kfd_xgmi else 0
            for j, m in enumerate(nodes):
                if (hive and i != j and m.is_gpu and int(m.props.get("hive_id", 0)) == hive
                        and frozenset((i, j)) not in self.kfd_xgmi_missing):
                    links[i].append((j, 11, 13))
        return links

    def _kfd_link_files(self):
        """The io_links/N/properties files, as overlay paths."""
        files = {}
        base = "sys/devices/virtual/kfd/kfd/topology/nodes"
        for i, node_links in self._kfd_links().items():
            for m, (to, typ, weight) in enumerate(node_links):
                bw = (819200, 819200) if typ == 11 else (312, 64000)
                files["%s/%d/io_links/%d/properties" % (base, i, m)] = (
                    "type %d\nversion_major 0\nversion_minor 0\nnode_from %d\nnode_to %d\nweight %d\n"
                    "min_latency 0\nmax_latency 0\nmin_bandwidth %d\nmax_bandwidth %d\n"
                    "recommended_transfer_size 0\nflags 1\n" % (typ, i, to, weight, bw[0], bw[1]))
        return files

    # -- modules, kernel, OS -------------------------------------------------

    def module(self, name, state="live", version=None, srcversion=None, params=None,
               refcnt=0, pci_driver=True):
        """A kernel module in /sys/module (a PCI driver unless pci_driver=False)."""
        self.modules[name] = Module(name, state, version, srcversion, params, refcnt,
                                    pci_driver)
        return self.modules[name]

    def module_amdgpu(self, state="live", version=None, params=None):
        """amdgpu in /sys/module: state "live" (loadable module) or "builtin";
        version only for the DKMS driver."""
        p = {"audio": "-1", "dc": "-1", "gttsize": "-1", "ppfeaturemask": "0xfff7bfff",
             "runpm": "-1", "noretry": "-1", "sched_policy": "0", "vm_update_mode": "-1"}
        p.update(params or {})
        return self.module("amdgpu", state=state, version=version,
                           srcversion="9F4B6C4A8E2B1D7C35A0E11" if state == "live" else None,
                           params=p, refcnt=2)

    def kernel(self, release=None, cmdline=None, version=None):
        if release is not None:
            self.kernel_release = release
        if cmdline is not None:
            self.cmdline_text = cmdline
        if version is not None:
            self.proc_version = version

    def cmdline(self, text):
        self.cmdline_text = text

    def kmsg(self, lines):
        """Append kernel log records.  Each line is TEXT or (seconds, TEXT) or
        (seconds, TEXT, level); level defaults to 6 (info)."""
        for item in lines:
            if isinstance(item, str):
                secs, text, level = None, item, 6
            elif len(item) == 2:
                (secs, text), level = item, 6
            else:
                secs, text, level = item
            if secs is None:
                secs = (self.kmsg_records[-1][0] + 0.000137) if self.kmsg_records else 0.0
            self.kmsg_records.append((secs, text, level))

    def overlay_file(self, path, text):
        self.overlay_files[path] = text

    def root_file(self, path, text):
        self.root_files[path.lstrip("/")] = text

    def docker_container(self):
        """Inside a container Docker started: /.dockerenv in the root, and
        what the engine does that an image booted as a VM lacks: /etc/hostname,
        /etc/hosts and /etc/resolv.conf bind-mounted in (mountinfo)."""
        self.root_file(".dockerenv", "")
        cid = "/var/lib/docker/containers/4f1c0a4d2b7e"
        self.overlay_file("proc/self/mountinfo", "".join([
            "612 551 0:52 / / rw,relatime master:303 - overlay overlay rw,lowerdir=/var/lib/docker/overlay2/l/A,"
            "upperdir=/var/lib/docker/overlay2/4f1c/diff,workdir=/var/lib/docker/overlay2/4f1c/work\n",
            "613 612 0:55 / /proc rw,nosuid,nodev,noexec,relatime - proc proc rw\n",
            "640 612 259:2 %s/resolv.conf /etc/resolv.conf rw,relatime - ext4 /dev/nvme0n1p2 rw\n" % cid,
            "641 612 259:2 %s/hostname /etc/hostname rw,relatime - ext4 /dev/nvme0n1p2 rw\n" % cid,
            "642 612 259:2 %s/hosts /etc/hosts rw,relatime - ext4 /dev/nvme0n1p2 rw\n" % cid]))
        self.overlay_file("proc/1/cgroup", "0::/\n")

    def user(self, name, uid, gid, gecos="", home=None, shell="/bin/bash"):
        self.passwd.append((name, uid, gid, gecos, home or "/home/" + name, shell))
        self.groups.setdefault(name, [gid, []])

    def add_to_group(self, user, group):
        self.groups[group][1].append(user)

    def node_mode(self, path, mode, uid, gid):
        """Mode and owner of a device node (path like "dev/kfd")."""
        self.nodes[path.lstrip("/")] = (mode, uid, gid)

    def node_args(self):
        """tb-run --node arguments for every device node."""
        args = []
        for path, (mode, uid, gid) in sorted(self.nodes.items()):
            args += ["--node", "%s:%04o:%d:%d" % (path, mode, uid, gid)]
        return args

    # -- output --------------------------------------------------------------

    def records(self):
        out = [fn.record() for fn in self.functions]
        out += self.extra_records
        if self.kfd_nodes is not None:
            out.append(self._kfd_record())
        return out

    def _overlay(self):
        files = {}
        links = {}
        dirs = set()
        # PCI driver directories: a device's driver link must resolve, and the
        # kernel lists the bound devices there.
        # Every kernel has these built-in entries; /sys/module is never empty.
        for builtin in ("kernel", "pcie_aspm", "printk"):
            dirs.add("sys/module/%s/parameters" % builtin)
        files["sys/module/pcie_aspm/parameters/policy"] = \
            "[default] performance powersave powersupersave\n"
        files["sys/module/printk/parameters/time"] = "Y\n"
        drivers = set(self.drivers)
        drivers |= {m.name for m in self.modules.values() if m.pci_driver}
        for drv in sorted(drivers):
            dirs.add("sys/bus/pci/drivers/" + drv)
            mod = self.modules.get(drv)
            if mod is not None:
                links["sys/bus/pci/drivers/%s/module" % drv] = "../../../../module/" + drv
                links["sys/module/%s/drivers/pci:%s" % (drv, drv)] = \
                    "../../../bus/pci/drivers/" + drv
        for fn in self.functions:
            if fn.driver:
                links["sys/bus/pci/drivers/%s/%s" % (fn.driver, fn.bdf)] = \
                    "../../../../devices" + fn.sysfs_path[len("/devices"):]
        for mod in self.modules.values():
            base = "sys/module/" + mod.name
            dirs.add(base)
            if mod.state != "builtin":
                files[base + "/initstate"] = mod.state + "\n"
                files[base + "/refcnt"] = "%d\n" % mod.refcnt
                files[base + "/coresize"] = "%d\n" % 15175680
                files[base + "/taint"] = ("OE\n" if mod.version else "\n")
            if mod.srcversion:
                files[base + "/srcversion"] = mod.srcversion + "\n"
            if mod.version:
                files[base + "/version"] = mod.version + "\n"
            dirs.add(base + "/parameters")
            for k, v in mod.params.items():
                files["%s/parameters/%s" % (base, k)] = v + "\n"
        files["proc/cmdline"] = self.cmdline_text + "\n"
        files["proc/sys/kernel/osrelease"] = self.kernel_release + "\n"
        files["proc/version"] = self.proc_version
        kmsg = []
        for seq, (secs, text, level) in enumerate(self.kmsg_records):
            kmsg.append("%d,%d,%d,-;%s\n" % (level, seq, int(round(secs * 1e6)), text))
        files["dev/kmsg"] = "".join(kmsg)
        # Tuning reads it; without a default the host's value would leak in.
        files["proc/sys/kernel/numa_balancing"] = "0\n"
        # The os probe reads its flags (the hypervisor bit): a bare-metal
        # CPU unless a scenario says otherwise, whatever runs the tests.
        files["proc/cpuinfo"] = "processor\t: 0\nvendor_id\t: AuthenticAMD\nflags\t\t: fpu sse2 ssse3 avx2\n"
        # The os probe reads them (is this a container an engine started?):
        # a host booted as such unless a scenario says otherwise, whatever
        # runs the tests (CI may run in a container).
        files["proc/self/mountinfo"] = ("22 1 259:2 / / rw,relatime shared:1 - ext4 /dev/nvme0n1p2 rw\n"
                                        "23 22 0:21 / /proc rw,nosuid,nodev,noexec,relatime shared:12 - proc proc rw\n")
        files["proc/1/cgroup"] = "0::/init.scope\n"
        if self.kfd_nodes is not None:
            files.update(self._kfd_link_files())
        files.update(self.overlay_files)
        return files, links, dirs

    def _root_tree(self):
        files = dict(self.root_files)
        files.setdefault("etc/passwd", "".join(
            "%s:x:%d:%d:%s:%s:%s\n" % u for u in self.passwd))
        files.setdefault("etc/group", "".join(
            "%s:x:%d:%s\n" % (name, gid, ",".join(members))
            for name, (gid, members) in self.groups.items()))
        return files

    def write(self, outdir):
        """Write testbed.umockdev, overlay/ and root/ into outdir; return paths."""
        os.makedirs(outdir, exist_ok=True)
        umockdev = os.path.join(outdir, "testbed.umockdev")
        with open(umockdev, "w") as f:
            f.write("\n".join(r.text() for r in self.records()))
        overlay = os.path.join(outdir, "overlay")
        files, links, dirs = self._overlay()
        for d in sorted(dirs):
            os.makedirs(os.path.join(overlay, d), exist_ok=True)
        for path, text in files.items():
            _write(os.path.join(overlay, path), text)
        for path, target in links.items():
            p = os.path.join(overlay, path)
            os.makedirs(os.path.dirname(p), exist_ok=True)
            os.symlink(target, p)
        root = os.path.join(outdir, "root")
        os.makedirs(root, exist_ok=True)
        for path, text in self._root_tree().items():
            _write(os.path.join(root, path), text)
        return {"umockdev": umockdev, "overlay": overlay, "root": root}


# root_file(path, FIFO) makes a named pipe: a file no reader may block on.
FIFO = object()


def _write(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    if text is FIFO:
        os.mkfifo(path)
        return
    with open(path, "w") as f:
        f.write(text)
