"""Scenarios of the compatibility checks: ROCm installations, apt, Secure Boot
and DKMS, the support matrix.

The ROCm trees are what AMD's packages install, reduced to the files the tool
reads: /opt/rocm-X.Y.Z/.info/version, the runtime libraries in lib/, bin/,
rocBLAS kernel files in lib/rocblas/library/ (named as rocBLAS names them), and
/opt/rocm -> /etc/alternatives/rocm -> /opt/rocm-X.Y.Z as update-alternatives
leaves it.  apt files are written as AMD's install guide writes them.  Package
versions follow AMD's scheme (rocm-core 6.2.4.60204-139~24.04); the build
numbers are representative.
"""

import base64
import os
import struct

from scenarios import (
    NAVI21_KFD, Scenario, amdgpu_boot_log, cpu_kfd_node, healthy_navi21_box, healthy_rx7900xtx_box,
    matisse_host, matisse_root_port, mi300x_box, navi21, scenario, unbound_rx7900xtx_box,
)
from testbed import Testbed

AMD_KEY_ID = bytes.fromhex("9386B48A1A693C5C")
SECURE_BOOT_VAR = "sys/firmware/efi/efivars/SecureBoot-8be4df61-93ca-11d2-aa0d-00e098032b8c"

UBUNTU_2204_OS_RELEASE = """\
PRETTY_NAME="Ubuntu 22.04.5 LTS"
NAME="Ubuntu"
VERSION_ID="22.04"
VERSION="22.04.5 LTS (Jammy Jellyfish)"
VERSION_CODENAME=jammy
ID=ubuntu
ID_LIKE=debian
UBUNTU_CODENAME=jammy
"""

DEBIAN_12_OS_RELEASE = """\
PRETTY_NAME="Debian GNU/Linux 12 (bookworm)"
NAME="Debian GNU/Linux"
VERSION_ID="12"
VERSION="12 (bookworm)"
VERSION_CODENAME=bookworm
ID=debian
"""
DEBIAN_12_PROC_VERSION = (
    "Linux version 6.1.0-26-amd64 (debian-kernel@lists.debian.org) (gcc-12 (Debian 12.2.0-14) "
    "12.2.0, GNU ld (GNU Binutils for Debian) 2.40) #1 SMP PREEMPT_DYNAMIC Debian 6.1.112-1 "
    "(2024-09-30)\n")

PATH_WITH_ROCM = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin:/opt/rocm/bin"
PATH_WITHOUT_ROCM = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"

# rocBLAS/Tensile kernel files per gfx, as in /opt/rocm-6.2.4/lib/rocblas/library.
ROCBLAS_FILES = [
    "Kernels.so-000-{gfx}.hsaco",
    "TensileLibrary_lazy_{gfx}.dat",
    "TensileLibrary_Type_HH_Contraction_l_Ailk_Bljk_Cijk_Dijk_{gfx}.co",
]
ROCM_GFX = ["gfx908", "gfx90a", "gfx942", "gfx1030", "gfx1100", "gfx1101", "gfx1102", "gfx906"]


class CompatTestbed(Testbed):
    """A Testbed whose root tree can also hold symbolic links."""

    def __init__(self):
        super().__init__()
        self.root_links = {}

    def root_link(self, path, target):
        self.root_links[path.lstrip("/")] = target

    def write(self, outdir):
        paths = super().write(outdir)
        for path, target in self.root_links.items():
            p = os.path.join(paths["root"], path)
            os.makedirs(os.path.dirname(p), exist_ok=True)
            os.symlink(target, p)
        return paths


# --------------------------------------------------------------------------
# OpenPGP: a public key block whose self-signature names the key id, as a
# keyring file holding AMD's key does.

def _packet(tag, body):
    n = len(body)
    if n < 192:
        head = bytes([0xC0 | tag, n])
    else:
        n -= 192
        head = bytes([0xC0 | tag, (n >> 8) + 192, n & 0xFF])
    return head + body


def _mpi(data):
    bits = (len(data) - 1) * 8 + data[0].bit_length()
    return struct.pack(">H", bits) + data


def _crc24(data):
    crc = 0xB704CE
    for b in data:
        crc ^= b << 16
        for _ in range(8):
            crc <<= 1
            if crc & 0x1000000:
                crc ^= 0x1864CFB
    return crc & 0xFFFFFF


def pgp_key_block(key_id=AMD_KEY_ID, uid=b"AMD MLSE DevOps", armored=True):
    # Deterministic filler for the RSA modulus and signature.
    filler = bytes((i * 151 + 7) & 0xFF for i in range(256))
    modulus = b"\xc5" + filler[1:]
    created = struct.pack(">I", 1562606400)
    key = _packet(6, b"\x04" + created + b"\x01" + _mpi(modulus) + _mpi(b"\x01\x00\x01"))
    user = _packet(13, uid)
    hashed = bytes([5, 2]) + created
    unhashed = bytes([9, 16]) + key_id
    sig = (b"\x04\x13\x01\x08" + struct.pack(">H", len(hashed)) + hashed
           + struct.pack(">H", len(unhashed)) + unhashed + b"\x5a\x3c" + _mpi(b"\x9e" + filler[:255]))
    data = key + user + _packet(2, sig)
    if not armored:
        return data
    b64 = base64.b64encode(data).decode()
    lines = [b64[i:i + 64] for i in range(0, len(b64), 64)]
    crc = base64.b64encode(struct.pack(">I", _crc24(data))[1:]).decode()
    return ("-----BEGIN PGP PUBLIC KEY BLOCK-----\n\n" + "\n".join(lines) + "\n=" + crc
            + "\n-----END PGP PUBLIC KEY BLOCK-----\n")


# --------------------------------------------------------------------------
# Building blocks

def dpkg_status(tb, packages):
    """/var/lib/dpkg/status with these (name, version) packages installed."""
    stanzas = []
    for name, version in packages:
        stanzas.append("Package: %s\nStatus: install ok installed\nPriority: optional\n"
                       "Section: devel\nMaintainer: ROCm Dev Support <rocm-dev.support@amd.com>\n"
                       "Architecture: amd64\nVersion: %s\nDescription: %s\n" % (name, version, name))
    # a package that is not installed any more must not count
    stanzas.append("Package: rocm-core5.7.1\nStatus: deinstall ok config-files\n"
                   "Architecture: amd64\nVersion: 5.7.1.50701-98~22.04\n")
    tb.root_file("var/lib/dpkg/status", "\n".join(stanzas))


def rocm_install(tb, version="6.2.4", build="139", gfx=ROCM_GFX, link=True):
    """/opt/rocm-VERSION as AMD's packages install it; /opt/rocm points at it
    through /etc/alternatives when link is set."""
    base = "opt/rocm-%s" % version
    tb.root_file(base + "/.info/version", "%s-%s\n" % (version, build))
    major = version.split(".")[0]
    for lib in ("libhsa-runtime64.so.1.14.0", "libamdhip64.so.%s.2.41134" % major,
                "libhiprtc.so.%s.2.41134" % major):
        tb.root_file(base + "/lib/" + lib, "\x7fELF")
    tb.root_link(base + "/lib/libhsa-runtime64.so.1", "libhsa-runtime64.so.1.14.0")
    tb.root_link(base + "/lib/libamdhip64.so", "libamdhip64.so.%s" % major)
    tb.root_link(base + "/lib/libamdhip64.so.%s" % major, "libamdhip64.so.%s.2.41134" % major)
    tb.root_link(base + "/lib/libhiprtc.so.%s" % major, "libhiprtc.so.%s.2.41134" % major)
    for tool in ("rocminfo", "rocm-smi", "hipcc", "amd-smi"):
        tb.root_file(base + "/bin/" + tool, "#!/bin/sh\n")
    for g in gfx:
        for pattern in ROCBLAS_FILES:
            tb.root_file(base + "/lib/rocblas/library/" + pattern.format(gfx=g), "")
    tb.root_file(base + "/lib/rocblas/library/TensileManifest.txt", "")
    if link:
        tb.root_link("etc/alternatives/rocm", "/" + base)
        tb.root_link("opt/rocm", "/etc/alternatives/rocm")
    tb.root_file("etc/ld.so.conf.d/10-rocm-opencl.conf", "/opt/rocm-%s/lib\n" % version)


def rocm_packages(version="6.2.4", build="139", codename_version="24.04", dkms=None):
    parts = version.split(".")
    num = "%d%02d%02d" % (int(parts[0]), int(parts[1]), int(parts[2]))
    full = "%s.%s-%s~%s" % (version, num, build, codename_version)
    pk = [("rocm-core", full), ("hip-runtime-amd", "6.2.41134.%s-%s~%s" % (num, build, codename_version)),
          ("hsa-rocr", "1.14.0.%s-%s~%s" % (num, build, codename_version)),
          ("rocminfo", "1.0.0.%s-%s~%s" % (num, build, codename_version))]
    if dkms:
        pk.append(("amdgpu-dkms", "1:%s.%s-2041575.%s" % (dkms, num, codename_version)))
    return pk


# AMD's folders on repo.radeon.com for the ROCm releases these scenarios
# install: ROCm version -> (the ROCm folder's name, the amdgpu driver folder's
# name), written by hand from what conf/repos.ini cites (never read from it, so
# the scenarios check the table): an X.Y.0 release's folders are named X.Y
# (ROCm/ROCm#4691: rocm/apt/6.4.0 answers 404, rocm/apt/6.4 serves); up to
# 6.4.x the driver's folder is the ROCm folder (ROCm/ROCm#4358 amdgpu/6.3.2,
# #4575 amdgpu/6.3.3, #5268 rocm/apt/6.4.2); from 7.0 it has its own number
# (ROCm/ROCm#5509 amdgpu/30.10.2, #5671 and #5798 amdgpu/30.20 for 7.1 and no
# amdgpu/7.1, #5968 amdgpu/30.30 for 7.2 and amdgpu/7.2 404). The graphics
# folder of 7.x is named as the ROCm folder (graphics/7.1/ubuntu, #5671).
# 5.6.1 is older than the table: ROCm 5.6.1's guide (docs/deploy/linux/
# os-native/install.md) writes rocm/apt/5.6.1 jammy and amdgpu/5.6.1/ubuntu.
AMD_FOLDERS = {
    "5.6.1": ("5.6.1", "5.6.1"),
    "6.2.4": ("6.2.4", "6.2.4"),
    "6.3.3": ("6.3.3", "6.3.3"),
    "6.4.1": ("6.4.1", "6.4.1"),
    "6.4.3": ("6.4.3", "6.4.3"),
    "7.0.2": ("7.0.2", "30.10.2"),
    "7.1.0": ("7.1", "30.20"),
    "7.1.1": ("7.1.1", "30.20.1"),
    "7.2.0": ("7.2", "30.30"),
}


def amd_folders(version):
    """(ROCm folder, driver folder) of a ROCm release on repo.radeon.com."""
    if version not in AMD_FOLDERS:
        raise ValueError("AMD_FOLDERS has no folders for ROCm %s: add them from conf/repos.ini's sources"
                         % version)
    return AMD_FOLDERS[version]


def apt_rocm(tb, version="6.2.4", suite="noble", deb822=False, signed=True, key="keyrings",
             pin=True, amdgpu=True):
    """AMD's repositories as the install guide sets them up: rocm/apt/F (and,
    from 7.0, graphics/F/ubuntu) in rocm.list, amdgpu/D/ubuntu in amdgpu.list,
    F and D the release's folders (AMD_FOLDERS)."""
    rocm, driver = amd_folders(version)
    graphics = int(version.split(".")[0]) >= 7
    keyring = "/etc/apt/keyrings/rocm.gpg"
    if key == "keyrings":
        tb.root_file(keyring, pgp_key_block())
    elif key == "trusted.gpg.d":
        tb.root_file("etc/apt/trusted.gpg.d/rocm.asc", pgp_key_block())
    opts = "arch=amd64 signed-by=%s" % keyring if signed else "arch=amd64"
    if deb822:
        stanzas = ["https://repo.radeon.com/rocm/apt/%s" % rocm]
        if graphics:
            stanzas.append("https://repo.radeon.com/graphics/%s/ubuntu" % rocm)
        text = ""
        for uri in stanzas:
            text += ("\n" if text else "") + ("Types: deb\nURIs: %s\nSuites: %s\n"
                                             "Components: main\nArchitectures: amd64\n" % (uri, suite))
            if signed:
                text += "Signed-By: %s\n" % keyring
        tb.root_file("etc/apt/sources.list.d/rocm.sources", text)
    else:
        text = "deb [%s] https://repo.radeon.com/rocm/apt/%s %s main\n" % (opts, rocm, suite)
        if graphics:
            text += "deb [%s] https://repo.radeon.com/graphics/%s/ubuntu %s main\n" % (opts, rocm, suite)
        tb.root_file("etc/apt/sources.list.d/rocm.list", text)
    if amdgpu:
        tb.root_file("etc/apt/sources.list.d/amdgpu.list",
                     "deb [%s] https://repo.radeon.com/amdgpu/%s/ubuntu %s main\n"
                     "#deb-src [%s] https://repo.radeon.com/amdgpu/%s/ubuntu %s main\n"
                     % (opts, driver, suite, opts, driver, suite))
    if pin:
        tb.root_file("etc/apt/preferences.d/rocm-pin-600",
                     "Package: *\nPin: release o=repo.radeon.com\nPin-Priority: 600\n")
    tb.root_file("etc/apt/sources.list",
                 "# Ubuntu sources have moved to /etc/apt/sources.list.d/ubuntu.sources\n")
    tb.root_file("etc/apt/sources.list.d/ubuntu.sources",
                 "Types: deb\nURIs: http://archive.ubuntu.com/ubuntu/\n"
                 "Suites: %s %s-updates %s-backports\nComponents: main restricted universe multiverse\n"
                 "Signed-By: /usr/share/keyrings/ubuntu-archive-keyring.gpg\n" % (suite, suite, suite))


def rocm_box(tb, version="6.2.4", suite="noble", codename_version="24.04", dkms=None, **kw):
    """A correct ROCm install from AMD's repository, for the healthy boxes."""
    rocm_install(tb, version)
    apt_rocm(tb, version, suite, **kw)
    dpkg_status(tb, rocm_packages(version, codename_version=codename_version, dkms=dkms))


def dkms_tree(tb, version, kernel="6.8.0-45-generic"):
    """/var/lib/dkms/amdgpu/VERSION built for kernel, as dkms leaves it."""
    base = "var/lib/dkms/amdgpu/%s" % version
    tb.root_file(base + "/%s/x86_64/module/amdgpu.ko.zst" % kernel, "")
    tb.root_file(base + "/build/make.log", "DKMS make.log for amdgpu-%s for kernel %s (x86_64)\n"
                 % (version, kernel))
    tb.root_link(base + "/source", "/usr/src/amdgpu-%s" % version)
    tb.root_link("var/lib/dkms/amdgpu/kernel-%s-x86_64" % kernel, version)
    tb.root_file("var/lib/dkms/mok.pub", "-----BEGIN CERTIFICATE-----\n")


def secure_boot(tb, on=True, lockdown="integrity"):
    tb.overlay_file(SECURE_BOOT_VAR, "\x06\x00\x00\x00" + ("\x01" if on else "\x00"))
    modes = ["none", "integrity", "confidentiality"]
    tb.overlay_file("sys/kernel/security/lockdown",
                    " ".join("[%s]" % m if m == lockdown else m for m in modes) + "\n")


# --------------------------------------------------------------------------
# Healthy: every compat finding absent (info included)

@scenario("healthy-rx7900xtx-rocm")
def healthy_rx7900xtx_rocm():
    """The healthy RX 7900 XTX with ROCm 6.2.4 from AMD's repository: alternatives
    link, signed-by key, pin, PATH with /opt/rocm/bin."""
    tb = CompatTestbed()
    healthy_rx7900xtx_box(tb)
    rocm_box(tb)
    return Scenario(tb, [], 0, gpu_count=1, compare_info=True, env={"PATH": PATH_WITH_ROCM})


@scenario("healthy-navi21-rocm-deb822")
def healthy_navi21_rocm_deb822():
    """RX 6900 XT, ROCm 6.3.3 with a deb822 .sources file, Ubuntu 22.04 on its 6.8
    HWE kernel, PATH set by /etc/profile.d/rocm.sh instead of the environment."""
    tb = CompatTestbed()
    healthy_navi21_box(tb)
    tb.root_file("etc/os-release", UBUNTU_2204_OS_RELEASE)
    tb.kernel(release="6.8.0-49-generic")
    rocm_box(tb, "6.3.3", "jammy", "22.04", deb822=True)
    tb.root_file("etc/profile.d/rocm.sh", "# ROCm tools\nexport PATH=$PATH:/opt/rocm/bin\n")
    return Scenario(tb, [], 0, gpu_count=1, compare_info=True, env={"PATH": PATH_WITHOUT_ROCM})


@scenario("healthy-8x-mi300x-rocm-dkms")
def healthy_8x_mi300x_rocm_dkms():
    """Eight MI300X, ROCm 6.4.3 with its amdgpu-dkms 6.12.12 loaded, Secure Boot on
    and the DKMS key enrolled (the module loaded)."""
    tb = CompatTestbed()
    mi300x_box(tb, cpx=False)
    tb.module_amdgpu("live", version="6.12.12")
    rocm_box(tb, "6.4.3", dkms="6.12.12")
    dkms_tree(tb, "6.12.12-2147987.24.04")
    secure_boot(tb, on=True)
    return Scenario(tb, [], 0, gpu_count=8, compare_info=True, env={"PATH": PATH_WITH_ROCM})


# --------------------------------------------------------------------------
# rocm

@scenario("rocm-not-installed")
def rocm_not_installed():
    """AMD's repository is set up, /opt/rocm points at a removed /opt/rocm-6.2.4:
    an install that did not finish (or was half removed)."""
    tb = CompatTestbed()
    healthy_rx7900xtx_box(tb)
    apt_rocm(tb)
    tb.root_link("opt/rocm", "/etc/alternatives/rocm")
    tb.root_link("etc/alternatives/rocm", "/opt/rocm-6.2.4")
    return Scenario(tb, [("rocm.not-installed", "warning")], 1,
                    evidence=[("rocm.not-installed", "/opt/rocm -> /etc/alternatives/rocm (missing)")],
                    remedy=[("rocm.not-installed", "Install ROCm 7.2.4 (the newest release that supports this OS "
                             "and these GPUs)")],
                    env={"PATH": PATH_WITH_ROCM})


@scenario("rocm-none-plain")
def rocm_none_plain():
    """No ROCm and nothing that asks for it (containers and PyTorch wheels bring
    their own): reported as info only."""
    tb = CompatTestbed()
    healthy_rx7900xtx_box(tb)
    return Scenario(tb, [("rocm.not-installed", "info")], 0, compare_info=True,
                    evidence=[("rocm.not-installed", "/opt/rocm: absent")],
                    env={"PATH": PATH_WITHOUT_ROCM})


@scenario("rocm-multiple-versions")
def rocm_multiple_versions():
    """ROCm 6.2.4 in use through /opt/rocm, 6.1.3 still installed and still in
    /etc/ld.so.conf.d: programs load 6.1.3's runtime."""
    tb = CompatTestbed()
    healthy_rx7900xtx_box(tb)
    rocm_box(tb)
    rocm_install(tb, "6.1.3", build="122", link=False)
    tb.root_file("etc/ld.so.conf.d/20-rocm-6.1.3.conf", "/opt/rocm-6.1.3/lib\n/opt/rocm-6.1.3/lib64\n")
    return Scenario(tb, [("rocm.multiple-versions", "warning")], 1,
                    evidence=[("rocm.multiple-versions",
                               "/etc/ld.so.conf.d/20-rocm-6.1.3.conf:1: /opt/rocm-6.1.3/lib"),
                              ("rocm.multiple-versions",
                               "/opt/rocm-6.1.3: ROCm 6.1.3 (/opt/rocm-6.1.3/.info/version: 6.1.3-122)")],
                    env={"PATH": PATH_WITH_ROCM})


@scenario("rocm-path-missing")
def rocm_path_missing():
    """ROCm 6.2.4 is fine but /opt/rocm/bin is on nobody's PATH: rocminfo: command
    not found."""
    tb = CompatTestbed()
    healthy_rx7900xtx_box(tb)
    rocm_box(tb)
    return Scenario(tb, [("path.rocm-bin-missing", "warning")], 1,
                    evidence=[("path.rocm-bin-missing",
                               "PATH (process environment): " + PATH_WITHOUT_ROCM)],
                    remedy=[("path.rocm-bin-missing", "/etc/profile.d/rocm.sh")],
                    env={"PATH": PATH_WITHOUT_ROCM})


@scenario("arch-no-kernels")
def arch_no_kernels():
    """An RX 7900 XTX with a ROCm 6.2.4 whose rocBLAS was built for Instinct only
    (GPU_TARGETS=gfx90a;gfx942, as in Instinct-only images)."""
    tb = CompatTestbed()
    healthy_rx7900xtx_box(tb)
    rocm_install(tb, gfx=["gfx90a", "gfx942"])
    apt_rocm(tb)
    dpkg_status(tb, rocm_packages())
    return Scenario(tb, [("arch.no-kernels", "error")], 2,
                    evidence=[("arch.no-kernels",
                               "/opt/rocm-6.2.4/lib/rocblas/library: kernel files for gfx90a, gfx942"),
                              ("arch.no-kernels", "gfx1100 (KFD gfx_target_version)")],
                    env={"PATH": PATH_WITH_ROCM})


@scenario("arch-unsupported")
def arch_unsupported():
    """An RX 6900 XT (gfx1030) is fine, but this one runs ROCm 5.6.1 on Ubuntu 22.04
    with an RX 7900 XTX: gfx1100 came to the support list with 5.7."""
    tb = CompatTestbed()
    healthy_rx7900xtx_box(tb)
    tb.root_file("etc/os-release", UBUNTU_2204_OS_RELEASE)
    tb.kernel(release="5.15.0-119-generic")
    rocm_install(tb, "5.6.1", build="95")
    apt_rocm(tb, "5.6.1", suite="jammy")
    dpkg_status(tb, rocm_packages("5.6.1", build="95", codename_version="22.04"))
    return Scenario(tb, [("arch.unsupported", "warning")], 1,
                    evidence=[("arch.unsupported", "ROCm 5.6 supports gfx90a, gfx908, gfx906, gfx1030")],
                    env={"PATH": PATH_WITH_ROCM})


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


@scenario("kernel-unsupported")
def kernel_unsupported():
    """ROCm 6.2.4 with its amdgpu-dkms on Ubuntu 24.04's 6.11 HWE kernel: 6.2 was
    validated with 6.8 only."""
    tb = CompatTestbed()
    healthy_rx7900xtx_box(tb)
    tb.kernel(release="6.11.0-19-generic")
    tb.module_amdgpu("live", version="6.8.5")
    rocm_box(tb, dkms="6.8.5")
    dkms_tree(tb, "6.8.5-2041575.24.04", kernel="6.11.0-19-generic")
    return Scenario(tb, [("kernel.unsupported", "warning")], 1,
                    evidence=[("kernel.unsupported", "/proc/sys/kernel/osrelease: 6.11.0-19-generic"),
                              ("kernel.unsupported", "ROCm 6.2 on ubuntu 24.04: kernels 6.8")],
                    env={"PATH": PATH_WITH_ROCM})


def rx6700xt_box(tb):
    """An RX 6700 XT (Navi22, 1002:73df rev c1, gfx1031) on the Ryzen desktop.  The
    board is the RX 6900 XT builder's with Navi22's ids and 40 CUs; the KFD
    values beyond gfx_target_version and simd_count are Navi21's (representative)."""
    matisse_host(tb)
    rp = matisse_root_port(tb, "0000:00:03.1", slot=1)
    gpu = navi21(tb, rp, bus=0x0a, rev=0xc1)
    gpu.device = 0x73df
    props = dict(NAVI21_KFD, gfx_target_version=100301, simd_count=80, array_count=4,
                 max_engine_clk_fcompute=2855)
    tb.module_amdgpu("live")
    tb.kfd([cpu_kfd_node(tb, 16),
            tb.kfd_gpu_node(gpu, props, mem_bytes=12868124672, name="navy_flounder", mem_width=192,
                            mem_clk=1000)])
    tb.kmsg(amdgpu_boot_log(gpu, "0x1002:0x73DF 0x1DA2:0x440E 0xC1", 12272))
    return gpu


@scenario("rx6700xt-gfx1031")
def rx6700xt_gfx1031():
    """RX 6700 XT with ROCm 6.2.4: gfx1031 is not supported and rocBLAS has no
    gfx1031 kernels; its family (gfx10.3) runs gfx1030's with a per-node override."""
    tb = CompatTestbed()
    rx6700xt_box(tb)
    rocm_box(tb)
    return Scenario(tb, [("arch.no-kernels", "error"), ("arch.unsupported", "warning")], 2,
                    gpu_count=1, gpus=[({"pci_address": "0000:0c:00.0"}, {"gfx": "gfx1031"})],
                    evidence=[("arch.no-kernels", "0000:0c:00.0"),
                              ("arch.unsupported", "0000:0c:00.0: gfx1031")],
                    remedy=[("arch.no-kernels", "HSA_OVERRIDE_GFX_VERSION_1=10.3.0 for this GPU only"),
                            ("arch.unsupported", "HSA_OVERRIDE_GFX_VERSION_1=10.3.0")],
                    env={"PATH": PATH_WITH_ROCM})


# --------------------------------------------------------------------------
# apt

@scenario("apt-placeholder")
def apt_placeholder():
    """amdgpu.list written from a template whose @AMDGPUVER@ was never replaced."""
    tb = CompatTestbed()
    healthy_rx7900xtx_box(tb)
    rocm_box(tb, amdgpu=False)
    tb.root_file("etc/apt/sources.list.d/amdgpu.list",
                 "# amdgpu repository\n"
                 "deb [arch=amd64 signed-by=/etc/apt/keyrings/rocm.gpg] "
                 "https://repo.radeon.com/amdgpu/@AMDGPUVER@/ubuntu noble main\n")
    return Scenario(tb, [("apt.repo-missing", "error")], 2,
                    evidence=[("apt.repo-missing", "/etc/apt/sources.list.d/amdgpu.list:2: deb "
                               "https://repo.radeon.com/amdgpu/@AMDGPUVER@/ubuntu noble main "
                               "(literal @AMDGPUVER@)")],
                    env={"PATH": PATH_WITH_ROCM})


@scenario("apt-repo-missing")
def apt_repo_missing():
    """ROCm 6.2.4 installed from AMD's packages; the source files were deleted since."""
    tb = CompatTestbed()
    healthy_rx7900xtx_box(tb)
    rocm_install(tb)
    dpkg_status(tb, rocm_packages())
    tb.root_file("etc/apt/sources.list.d/ubuntu.sources",
                 "Types: deb\nURIs: http://archive.ubuntu.com/ubuntu/\nSuites: noble\n"
                 "Components: main\nSigned-By: /usr/share/keyrings/ubuntu-archive-keyring.gpg\n")
    return Scenario(tb, [("apt.repo-missing", "warning")], 1,
                    evidence=[("apt.repo-missing", "/var/lib/dpkg/status: rocm-core 6.2.4.60204-139~24.04 installed")],
                    env={"PATH": PATH_WITH_ROCM})


@scenario("apt-suite-mismatch")
def apt_suite_mismatch():
    """Ubuntu 24.04 with lines copied from a 22.04 guide (jammy) and from a 5.x guide
    (suite "ubuntu" on a 6.x repository)."""
    tb = CompatTestbed()
    healthy_rx7900xtx_box(tb)
    rocm_box(tb, amdgpu=False)
    tb.root_file("etc/apt/sources.list.d/rocm.list",
                 "deb [arch=amd64 signed-by=/etc/apt/keyrings/rocm.gpg] "
                 "https://repo.radeon.com/rocm/apt/6.2.4 jammy main\n")
    tb.root_file("etc/apt/sources.list.d/amdgpu.list",
                 "deb [arch=amd64 signed-by=/etc/apt/keyrings/rocm.gpg] "
                 "https://repo.radeon.com/amdgpu/6.2.4/ubuntu ubuntu main\n")
    return Scenario(tb, [("apt.suite-mismatch", "error")], 2,
                    evidence=[("apt.suite-mismatch", "/etc/apt/sources.list.d/rocm.list:1: deb "
                               "https://repo.radeon.com/rocm/apt/6.2.4 jammy main: suite jammy, "
                               "ROCm 6.2 on noble uses noble"),
                              ("apt.suite-mismatch", "/etc/apt/sources.list.d/amdgpu.list:1:"),
                              ("apt.suite-mismatch", "VERSION_CODENAME=noble")],
                    remedy=[("apt.suite-mismatch", "Use the suite noble")],
                    env={"PATH": PATH_WITH_ROCM})


@scenario("apt-repo-path-amdgpu72")
def apt_repo_path_amdgpu72():
    """Ubuntu 24.04, RX 7900 XTX, ROCm 7.2.0 installed; amdgpu.list names the
    driver folder by the ROCm version, amdgpu/7.2/ubuntu, which AMD does not
    serve (ROCm/ROCm#5968: "Err https://repo.radeon.com/amdgpu/7.2/ubuntu noble
    Release 404"; 7.2's driver is amdgpu/30.30/ubuntu). The suite is right."""
    tb = CompatTestbed()
    healthy_rx7900xtx_box(tb)
    rocm_box(tb, "7.2.0", amdgpu=False)
    tb.root_file("etc/apt/sources.list.d/amdgpu.list",
                 "deb [arch=amd64,i386 signed-by=/etc/apt/keyrings/rocm.gpg] "
                 "https://repo.radeon.com/amdgpu/7.2/ubuntu noble main\n"
                 "#deb-src [signed-by=/etc/apt/keyrings/rocm.gpg] "
                 "https://repo.radeon.com/amdgpu/7.2/ubuntu noble main\n")
    return Scenario(tb, [("apt.repo-path", "error")], 2,
                    evidence=[("apt.repo-path", "/etc/apt/sources.list.d/amdgpu.list:1: deb "
                               "https://repo.radeon.com/amdgpu/7.2/ubuntu noble main"),
                              ("apt.repo-path", "https://repo.radeon.com/amdgpu/30.30/ubuntu")],
                    env={"PATH": PATH_WITH_ROCM})


@scenario("apt-rocm-newer-than-table")
def apt_rocm_newer_than_table():
    """Ubuntu 24.04 with a ROCm 7.3.0 newer than the repository table
    (rocm/apt/7.3 noble, graphics/7.3/ubuntu noble, /opt/rocm-7.3.0): the
    tool cannot judge its folders and says its tables are older than the
    host, no 404 claimed, no suite questioned."""
    tb = CompatTestbed()
    healthy_rx7900xtx_box(tb)
    rocm_install(tb, "7.3.0", build="31")
    dpkg_status(tb, rocm_packages("7.3.0", build="31"))
    tb.root_file("etc/apt/keyrings/rocm.gpg", pgp_key_block())
    tb.root_file("etc/apt/preferences.d/rocm-pin-600",
                 "Package: *\nPin: release o=repo.radeon.com\nPin-Priority: 600\n")
    tb.root_file("etc/apt/sources.list.d/rocm.list",
                 "deb [arch=amd64 signed-by=/etc/apt/keyrings/rocm.gpg] "
                 "https://repo.radeon.com/rocm/apt/7.3 noble main\n"
                 "deb [arch=amd64 signed-by=/etc/apt/keyrings/rocm.gpg] "
                 "https://repo.radeon.com/graphics/7.3/ubuntu noble main\n")
    return Scenario(tb, [("tables.older-than-host", "info")], 0, compare_info=True,
                    evidence=[("tables.older-than-host", "/opt/rocm-7.3.0/.info/version: 7.3.0-31: ROCm 7.3.0"),
                              ("tables.older-than-host", "/etc/apt/sources.list.d/rocm.list:1: "
                               "https://repo.radeon.com/rocm/apt/7.3 names ROCm 7.3")],
                    env={"PATH": PATH_WITH_ROCM})


@scenario("apt-key-legacy")
def apt_key_legacy():
    """The old guide: key added with apt-key (trusted.gpg.d), sources without
    signed-by."""
    tb = CompatTestbed()
    healthy_rx7900xtx_box(tb)
    rocm_install(tb)
    apt_rocm(tb, signed=False, key="trusted.gpg.d")
    dpkg_status(tb, rocm_packages())
    return Scenario(tb, [("apt.key-deprecated", "warning"), ("apt.no-signed-by", "warning")], 1,
                    evidence=[("apt.key-deprecated", "/etc/apt/trusted.gpg.d/rocm.asc holds key 9386B48A1A693C5C"),
                              ("apt.no-signed-by", "/etc/apt/sources.list.d/rocm.list:1: deb "
                               "https://repo.radeon.com/rocm/apt/6.2.4 noble main"),
                              ("apt.no-signed-by", "/etc/apt/sources.list.d/amdgpu.list:1:")],
                    env={"PATH": PATH_WITH_ROCM})


@scenario("apt-key-missing")
def apt_key_missing():
    """signed-by names /etc/apt/keyrings/rocm.gpg, which is not there: NO_PUBKEY."""
    tb = CompatTestbed()
    healthy_rx7900xtx_box(tb)
    rocm_install(tb)
    apt_rocm(tb, key=None, deb822=True, amdgpu=False)
    dpkg_status(tb, rocm_packages())
    return Scenario(tb, [("apt.key-missing", "error")], 2,
                    evidence=[("apt.key-missing", "/etc/apt/keyrings/rocm.gpg: missing"),
                              ("apt.key-missing", "/etc/apt/sources.list.d/rocm.sources:2: deb "
                               "https://repo.radeon.com/rocm/apt/6.2.4 noble main")],
                    text=[("apt.key-missing", "NO_PUBKEY 9386B48A1A693C5C")],
                    env={"PATH": PATH_WITH_ROCM})


@scenario("apt-pin-missing")
def apt_pin_missing():
    """AMD's repository without the preferences.d pin (Ubuntu 24.04 carries its own
    ROCm packages in universe)."""
    tb = CompatTestbed()
    healthy_rx7900xtx_box(tb)
    rocm_box(tb, pin=False)
    tb.root_file("etc/apt/preferences.d/no-snap.pref",
                 "Package: snapd\nPin: release a=*\nPin-Priority: -10\n")
    return Scenario(tb, [("apt.pin-missing", "warning")], 1,
                    evidence=[("apt.pin-missing", "no stanza in /etc/apt/preferences(.d) pins o=repo.radeon.com")],
                    remedy=[("apt.pin-missing", "/etc/apt/preferences.d/rocm-pin-600")],
                    env={"PATH": PATH_WITH_ROCM})


# --------------------------------------------------------------------------
# Secure Boot and DKMS

@scenario("secure-boot-dkms")
def secure_boot_dkms():
    """amdgpu-dkms built and signed with a MOK that was never enrolled; Secure
    Boot on, lockdown refuses the module: amdgpu is not loaded."""
    tb = CompatTestbed()
    unbound_rx7900xtx_box(tb)
    rocm_box(tb, dkms="6.8.5")
    dkms_tree(tb, "6.8.5-2041575.24.04")
    secure_boot(tb, on=True)
    tb.kmsg([(1.2, "Lockdown: swapper/0: hibernation is restricted; see man kernel_lockdown.7"),
             (5.8, "Lockdown: modprobe: unsigned module loading is restricted; see man kernel_lockdown.7"),
             (5.81, "PKCS#7 signature not signed with a trusted key")])
    return Scenario(tb, [("driver.not-loaded", "error"), ("driver.secure-boot-dkms", "error")], 2,
                    evidence=[("driver.secure-boot-dkms", SECURE_BOOT_VAR.replace("sys/", "/sys/", 1) + ": 1"),
                              ("driver.secure-boot-dkms",
                               "/var/lib/dkms/amdgpu: 6.8.5-2041575.24.04 for 6.8.0-45-generic"),
                              ("driver.secure-boot-dkms", "kernel: Lockdown: modprobe: unsigned module loading "
                               "is restricted"),
                              ("driver.secure-boot-dkms", "kernel: PKCS#7 signature not signed with a trusted key")],
                    remedy=[("driver.secure-boot-dkms", "sudo mokutil --import /var/lib/dkms/mok.pub"),
                            ("driver.secure-boot-dkms", "Disable Secure Boot only as the last resort")],
                    env={"PATH": PATH_WITH_ROCM})


@scenario("dkms-secure-boot-off")
def dkms_secure_boot_off():
    """The same unloaded DKMS driver with Secure Boot off: not a Secure Boot
    problem (driver.not-loaded stands alone)."""
    tb = CompatTestbed()
    unbound_rx7900xtx_box(tb)
    rocm_box(tb, dkms="6.8.5")
    dkms_tree(tb, "6.8.5-2041575.24.04")
    secure_boot(tb, on=False, lockdown="none")
    return Scenario(tb, [("driver.not-loaded", "error")], 2, env={"PATH": PATH_WITH_ROCM})


# --------------------------------------------------------------------------
# Debian 12: the distribution's ROCm 5.2 and AMD's

def debian_box(tb):
    """An RX 6900 XT on Debian 12 with its stock 6.1 kernel."""
    healthy_navi21_box(tb)
    tb.root_file("etc/os-release", DEBIAN_12_OS_RELEASE)
    tb.kernel(release="6.1.0-26-amd64", version=DEBIAN_12_PROC_VERSION,
              cmdline="BOOT_IMAGE=/boot/vmlinuz-6.1.0-26-amd64 root=UUID=0b7e5f0e-3c61-4a49-9d0c-"
                      "5f1a2b3c4d5e ro quiet")
    tb.root_file("etc/apt/sources.list.d/debian.sources",
                 "Types: deb\nURIs: http://deb.debian.org/debian\nSuites: bookworm bookworm-updates\n"
                 "Components: main contrib non-free non-free-firmware\n"
                 "Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg\n")


def debian_rocm(tb):
    """Debian's own ROCm 5.2 runtime (libhsa-runtime64-1, libamdhip64-5, rocminfo)."""
    lib = "usr/lib/x86_64-linux-gnu/"
    tb.root_file(lib + "libhsa-runtime64.so.1.5.0", "\x7fELF")
    tb.root_link(lib + "libhsa-runtime64.so.1", "libhsa-runtime64.so.1.5.0")
    tb.root_file(lib + "libamdhip64.so.5.2.21153", "\x7fELF")
    tb.root_link(lib + "libamdhip64.so.5", "libamdhip64.so.5.2.21153")
    tb.root_file("usr/bin/rocminfo", "\x7fELF")
    return [("libhsa-runtime64-1", "5.2.3-3"), ("libamdhip64-5", "5.2.3-8"), ("rocminfo", "5.2.3-2")]


@scenario("healthy-debian-distribution-rocm")
def healthy_debian_distribution_rocm():
    """Debian 12 with its packaged ROCm 5.2 runtime and nothing from AMD: fine, no
    /opt/rocm needed, no AMD repository to check."""
    tb = CompatTestbed()
    debian_box(tb)
    dpkg_status(tb, debian_rocm(tb))
    return Scenario(tb, [], 0, gpu_count=1, compare_info=True, env={"PATH": PATH_WITHOUT_ROCM})


@scenario("debian-two-rocms")
def debian_two_rocms():
    """Debian 12 with its ROCm 5.2 runtime and AMD's 6.3.3 (suite jammy, as AMD
    documents for Debian 12): both runtimes are on the loader's path."""
    tb = CompatTestbed()
    debian_box(tb)
    packages = debian_rocm(tb)
    rocm_install(tb, "6.3.3")
    apt_rocm(tb, "6.3.3", "jammy")
    tb.root_file("etc/apt/sources.list.d/debian.sources",
                 "Types: deb\nURIs: http://deb.debian.org/debian\nSuites: bookworm\nComponents: main\n")
    dpkg_status(tb, packages + rocm_packages("6.3.3", codename_version="22.04"))
    return Scenario(tb, [("rocm.multiple-versions", "warning")], 1,
                    evidence=[("rocm.multiple-versions", "/usr: ROCm 5.2.3 (/var/lib/dpkg/status: "
                               "libhsa-runtime64-1 5.2.3-3)"),
                              ("rocm.multiple-versions", "/opt/rocm-6.3.3: ROCm 6.3.3"),
                              ("rocm.multiple-versions", "the distribution's ROCm libraries in /usr and "
                               "AMD's in /opt are both on the loader's path")],
                    env={"PATH": PATH_WITH_ROCM})


@scenario("apt-suite-debian")
def apt_suite_debian():
    """Debian 12 with AMD's repository under the suite bookworm (AMD publishes
    Debian packages under jammy) and a leftover line of the old unversioned
    rocm/apt/debian repository."""
    tb = CompatTestbed()
    debian_box(tb)
    rocm_install(tb, "6.3.3")
    apt_rocm(tb, "6.3.3", "bookworm", amdgpu=False)
    tb.root_file("etc/apt/sources.list",
                 "deb http://deb.debian.org/debian bookworm main\n"
                 "deb [arch=amd64] https://repo.radeon.com/rocm/apt/debian/ xenial main\n")
    dpkg_status(tb, rocm_packages("6.3.3", codename_version="22.04"))
    return Scenario(tb, [("apt.no-signed-by", "warning"), ("apt.suite-mismatch", "error")], 2,
                    evidence=[("apt.suite-mismatch", "/etc/apt/sources.list.d/rocm.list:1: deb "
                               "https://repo.radeon.com/rocm/apt/6.3.3 bookworm main: suite bookworm, "
                               "ROCm 6.3 on bookworm uses jammy"),
                              ("apt.suite-mismatch", "/etc/apt/sources.list:2: deb "
                               "https://repo.radeon.com/rocm/apt/debian/ xenial main: the unversioned "
                               "repository of old ROCm releases (.../debian)"),
                              ("apt.no-signed-by", "/etc/apt/sources.list:2:")],
                    remedy=[("apt.suite-mismatch", "Replace the old line")],
                    env={"PATH": PATH_WITH_ROCM})
