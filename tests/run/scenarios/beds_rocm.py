"""Builders of ROCm installations on a host: the ROCm trees, apt sources and
keys, dpkg status, DKMS and Secure Boot.

The ROCm trees are what AMD's packages install, reduced to the files the tool
reads: /opt/rocm-X.Y.Z/.info/version, the runtime libraries in lib/, bin/,
rocBLAS kernel files in lib/rocblas/library/ (named as rocBLAS names them), and
/opt/rocm -> /etc/alternatives/rocm -> /opt/rocm-X.Y.Z as update-alternatives
leaves it.  apt files are written as AMD's install guide writes them.  Package
versions follow AMD's scheme (rocm-core 6.2.4.60204-139~24.04); the build
numbers are representative.
"""

import base64
import hashlib
import os
import struct

from scenarios import (
    NAVI21_KFD, amdgpu_boot_log, cpu_kfd_node, healthy_navi21_box, matisse_host, matisse_root_port, navi21,
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
# keyring file holding AMD's key does. It is a stand-in: a key whose
# fingerprint is AMD's cannot be made here, and rocm-doctor takes a key as
# AMD's only by its whole fingerprint. The beds that hold it pin its
# fingerprint (STAND_IN_FPR) in a drop-in of rocm-doctor.conf, the way a site
# pins a newer AMD key (key_fingerprint in [fix]).
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
    return armor(data)


def armor(data):
    b64 = base64.b64encode(data).decode()
    lines = [b64[i:i + 64] for i in range(0, len(b64), 64)]
    crc = base64.b64encode(struct.pack(">I", _crc24(data))[1:]).decode()
    return ("-----BEGIN PGP PUBLIC KEY BLOCK-----\n\n" + "\n".join(lines) + "\n=" + crc
            + "\n-----END PGP PUBLIC KEY BLOCK-----\n")



def v4_fingerprint(key_packet_body):
    """A v4 key's fingerprint: SHA-1 of 0x99, the body's two-byte length, the body."""
    return hashlib.sha1(b"\x99" + struct.pack(">H", len(key_packet_body)) + key_packet_body).hexdigest().upper()


def _stand_in_fpr():
    data = pgp_key_block(armored=False)
    n = data[1] if data[1] < 192 else ((data[1] - 192) << 8) + data[2] + 192
    start = 2 if data[1] < 192 else 3
    return v4_fingerprint(data[start:start + n])


STAND_IN_FPR = _stand_in_fpr()
# where the beds pin it
STAND_IN_CONF = "etc/rocm-doctor/conf.d/00-stand-in-key.conf"


def pin_stand_in_key(tb):
    tb.root_file(STAND_IN_CONF, "# the beds' stand-in for AMD's key (beds_rocm.pgp_key_block)\n"
                 "[fix]\nkey_fingerprint = %s\n" % STAND_IN_FPR)


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
        pin_stand_in_key(tb)
    elif key == "trusted.gpg.d":
        tb.root_file("etc/apt/trusted.gpg.d/rocm.asc", pgp_key_block())
        pin_stand_in_key(tb)
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
