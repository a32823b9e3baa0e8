"""Scenarios of hosts the support table does not list or judges per release:
Ubuntu interim releases, Debian testing, Fedora, openSUSE Tumbleweed, EL8 and
EL10, with the GPUs new on them (RDNA4, Strix Point, Strix Halo).

Each failing host has a twin, NAME-twin: the same host with the cause fixed,
which reports nothing above info.  Facts that do not depend on the table
(DKMS built or not for the running kernel, its headers, AMD's repository
layout) are judged on every host; kernel and repository advice for a release
the table does not list comes from the nearest listed release of its family.
Ids, kernels, versions and messages are the cited reports'; bus numbers, build
numbers and KFD properties are representative.
"""

from scenarios import NAVI31_KFD, Scenario, cpu_kfd_node, matisse_host, matisse_root_port
from scenarios_compat import (
    PATH_WITH_ROCM, ROCM_GFX, CompatTestbed, amd_folders, apt_rocm, dkms_tree, dpkg_status, rocm_packages,
)
from scenarios_compat import rocm_install as compat_rocm_install
from scenarios_platforms import KEY, GPGKEY, RpmTestbed, fedora42_own_rocm, kernel_build_dir
from scenarios_reports import PHOENIX_KFD, STRIX_HALO_KFD, apu, card, host_os, kfd_props, os_release, report
from testbed import GiB

UBUNTU_2504 = os_release("ubuntu", "25.04", "Ubuntu 25.04", "debian", "plucky")
UBUNTU_2510 = os_release("ubuntu", "25.10", "Ubuntu 25.10", "debian", "questing")
UBUNTU_2404 = os_release("ubuntu", "24.04", "Ubuntu 24.04.3 LTS", "debian", "noble")
DEBIAN_TESTING = ('PRETTY_NAME="Debian GNU/Linux forky/sid"\nNAME="Debian GNU/Linux"\n'
                  'VERSION_CODENAME=forky\nID=debian\n')
TUMBLEWEED = ('NAME="openSUSE Tumbleweed"\nID="opensuse-tumbleweed"\nID_LIKE="opensuse suse"\n'
              'VERSION_ID="20250601"\nPRETTY_NAME="openSUSE Tumbleweed"\n')
FEDORA_42 = os_release("fedora", "42", "Fedora Linux 42 (Workstation Edition)")
ROCKY_810 = os_release("rocky", "8.10", "Rocky Linux 8.10 (Green Obsidian)", "rhel centos fedora")
RHEL_810 = os_release("rhel", "8.10", "Red Hat Enterprise Linux 8.10 (Ootpa)", "fedora")
RHEL_100 = os_release("rhel", "10.0", "Red Hat Enterprise Linux 10.0 (Coughlan)", "centos fedora")

def rocm_install(tb, version, build="139"):
    """/opt/rocm-VERSION with rocBLAS kernels for the GPUs of these hosts too."""
    compat_rocm_install(tb, version, build=build, gfx=ROCM_GFX + ["gfx1150", "gfx1151", "gfx1201"])


RDNA4_KFD = kfd_props(NAVI31_KFD, 120001, 128)
STRIX_POINT_KFD = kfd_props(PHOENIX_KFD, 110500, 32, fw_version=30)


def rx9070xt_box(tb, driver="amdgpu"):
    """Ryzen 5000 desktop with an RX 9070 XT (Navi 48 1002:7550 rev c0,
    gfx1201) behind its card switch (1002:1478/1479)."""
    matisse_host(tb)
    rp = matisse_root_port(tb)
    gpu, node = card(tb, rp, 0x03, 0x7550, 0xc0, RDNA4_KFD, vram=16 * GiB, switch=(0x1002, 0x1478, 0x1479),
                     driver=driver)
    if driver == "amdgpu":
        tb.kfd([cpu_kfd_node(tb, 16), node])
    return gpu


def headers(tb, kernel):
    """linux-headers-KERNEL as Ubuntu installs it: /lib/modules/KERNEL/build."""
    tb.root_file("usr/src/linux-headers-%s/Makefile" % kernel, "# kernel headers\n")
    tb.root_link("lib/modules/%s/build" % kernel, "/usr/src/linux-headers-%s" % kernel)


def dkms_failed(tb, version, built_for, tried):
    """/var/lib/dkms/amdgpu/VERSION built for built_for; its last build, for
    tried, failed (make.log names tried, no module for it)."""
    dkms_tree(tb, version, kernel=built_for)
    tb.root_file("var/lib/dkms/amdgpu/%s/build/make.log" % version,
                 "DKMS make.log for amdgpu-%s for kernel %s (x86_64)\nMon Oct 13 09:12:44 CEST 2025\n"
                 "amd/amdgpu/amdgpu_drv.c:2416:25: error: implicit declaration of function "
                 "'drm_fbdev_ttm_setup' [-Werror=implicit-function-declaration]\n" % (version, tried))


def ubuntu_rocm(tb, version, dkms):
    rocm_install(tb, version)
    apt_rocm(tb, version, "noble")
    dpkg_status(tb, rocm_packages(version, codename_version="24.04", dkms=dkms))


def sles_repos(tb, version, tree):
    """AMD's SLES repositories of ROCm version: rocm/zyp/F/main and, when tree
    is given, amdgpu/D/sle/TREE/main/x86_64 (F, D: AMD_FOLDERS)."""
    folder, driver = amd_folders(version)
    tb.root_file("etc/zypp/repos.d/rocm.repo",
                 "[rocm]\nname=ROCm %s\nbaseurl=https://repo.radeon.com/rocm/zyp/%s/main\n"
                 "enabled=1\ngpgcheck=1\ngpgkey=%s\n" % (version, folder, GPGKEY))
    if tree:
        tb.root_file("etc/zypp/repos.d/amdgpu.repo",
                     "[amdgpu]\nname=amdgpu\nbaseurl=https://repo.radeon.com/amdgpu/%s/sle/%s/main/x86_64/\n"
                     "enabled=1\ngpgcheck=1\ngpgkey=%s\n" % (driver, tree, GPGKEY))


# ==============================================================================
# 1. Releases the table does not list: DKMS, kernels, repositories

@report("ubuntu2510-rx9070xt-dkms-failed", "https://github.com/ROCm/legacy-rocm-build/issues/5624")
def ubuntu2510_dkms(twin):
    """Ubuntu 25.10 (kernel 6.17.0-6-generic), RX 9070 XT, ROCm 7.0.2 with its
    amdgpu-dkms 6.14.14 from AMD's noble repository: DKMS fails to build on
    6.17 (ROCm/ROCm#5624, "AMDGPU DKMS fails to build on kernel 6.17.0-6
    (Ubuntu 25.10)"), the headers are there, the kernel's own amdgpu runs.
    25.10 is not in support.ini: the kernel is judged against Ubuntu 24.04's
    (6.8, 6.11, 6.14), the nearest listed release.  Twin: amdgpu-dkms
    removed, ROCm on the kernel's own amdgpu (kernel.unsupported stays info)."""
    tb = CompatTestbed()
    host_os(tb, UBUNTU_2510, "6.17.0-6-generic")
    rx9070xt_box(tb)
    tb.module_amdgpu("live")
    rocm_install(tb, "7.0.2")
    apt_rocm(tb, "7.0.2", "noble")
    headers(tb, "6.17.0-6-generic")
    info = [("kernel.unsupported", "info"), ("os.not-validated", "info")]
    if twin:
        dpkg_status(tb, rocm_packages("7.0.2", codename_version="24.04"))
        return Scenario(tb, info, 0, compare_info=True, env={"PATH": PATH_WITH_ROCM})
    dpkg_status(tb, rocm_packages("7.0.2", codename_version="24.04", dkms="6.14.14"))
    dkms_failed(tb, "6.14.14-2212064.24.04", "6.14.0-33-generic", "6.17.0-6-generic")
    return Scenario(tb, [("driver.dkms-build-failed", "warning"), ("kernel.unsupported", "warning"),
                         ("os.not-validated", "info")], 1, compare_info=True,
                    evidence=[("driver.dkms-build-failed", "/var/lib/dkms/amdgpu/6.14.14-2212064.24.04/build/make.log: "
                               "the last build was for 6.17.0-6-generic"),
                              ("driver.dkms-build-failed", "/lib/modules/6.17.0-6-generic/build: present"),
                              ("kernel.unsupported", "judged by ubuntu 24.04, the nearest release ROCm 7.0 lists")],
                    text=[("kernel.unsupported", "Kernel 6.17 is newer than any kernel ROCm 7.0 was validated with "
                           "(6.14 on ubuntu 24.04)")],
                    remedy=[("driver.dkms-build-failed", "ROCm 7.0 was validated on ubuntu 24.04 with kernels 6.8, "
                             "6.11, 6.14 (the nearest release it lists to ubuntu 25.10)"),
                            ("driver.dkms-build-failed", "`sudo apt purge amdgpu-dkms`")],
                    env={"PATH": PATH_WITH_ROCM})


@report("ubuntu2404-rx9070xt-kernel-6.8", "https://github.com/ROCm/legacy-rocm-build/issues/5102")
def ubuntu2404_rx9070xt_kernel_68(twin):
    """Ubuntu 24.04 on its GA kernel 6.8 with an RX 9070 XT and ROCm 6.4.1
    from AMD's noble repository, no amdgpu-dkms: 6.8's amdgpu does not know
    the GPU (ROCm/ROCm#5102, "Ubuntu 24.04.02 with 6.8 Kernel didn't
    recognize the GPU"), so no driver binds and the module never loads.
    The cause is the kernel series (gfx1201: 6.14), not a module to load.
    Twin: the HWE kernel 6.14, whose amdgpu drives it."""
    tb = CompatTestbed()
    host_os(tb, UBUNTU_2404, "6.14.0-33-generic" if twin else "6.8.0-60-generic")
    rx9070xt_box(tb, driver="amdgpu" if twin else None)
    if twin:
        tb.module_amdgpu("live")
    rocm_install(tb, "6.4.1")
    apt_rocm(tb, "6.4.1", "noble")
    dpkg_status(tb, rocm_packages("6.4.1", codename_version="24.04"))
    if twin:
        return Scenario(tb, [], 0, env={"PATH": PATH_WITH_ROCM})
    return Scenario(tb, [("driver.kernel-too-old", "error")], 2,
                    evidence=[("driver.kernel-too-old", "packages.ini [driver] inbox-kernel: gfx1201:6.14"),
                              ("driver.kernel-too-old", "/proc/sys/kernel/osrelease: 6.8.0-60-generic")],
                    text=[("driver.kernel-too-old", "The running kernel's amdgpu cannot drive 0000:05:00.0 AMD Radeon "
                           "RX 9070 XT (gfx1201): it serves it from kernel 6.14, this is 6.8.0-60-generic")],
                    remedy=[("driver.kernel-too-old", "`sudo rocm-doctor setup --apply` plans both; or boot kernel "
                             "6.14 or later: the HWE kernel (`sudo apt install linux-generic-hwe-24.04`)")],
                    env={"PATH": PATH_WITH_ROCM})


@report("ubuntu2504-dkms-failed-not-loaded", "https://github.com/ROCm/amdgpu/issues/187")
def ubuntu2504_dkms(twin):
    """Ubuntu 25.04 (6.14.0-15-generic), RX 7800 XT (Navi 32 1002:747e),
    ROCm 6.4.1's amdgpu-dkms 6.12.12 does not compile on 6.14 ("amdgpu-dkms
    fails to install on Ubuntu 25.04 kernel 6.14.0-15-generic"); amdgpu is not
    loaded.  ROCm 6.4 was validated on 24.04 with 6.8 and 6.11 only, and does
    not list gfx1101 (arch.unsupported, a warning the report shows too).  Twin:
    ROCm 7.0.2, whose amdgpu-dkms 6.14.14 built and loaded on 6.14."""
    tb = CompatTestbed()
    host_os(tb, UBUNTU_2504, "6.14.0-15-generic")
    matisse_host(tb)
    rp = matisse_root_port(tb)
    headers(tb, "6.14.0-15-generic")
    if twin:
        gpu, node = card(tb, rp, 0x03, 0x747e, 0xc8, kfd_props(NAVI31_KFD, 110001, 120), vram=16 * GiB,
                         switch=(0x1002, 0x1478, 0x1479))
        tb.kfd([cpu_kfd_node(tb, 16), node])
        tb.module_amdgpu("live", version="6.14.14")
        ubuntu_rocm(tb, "7.0.2", "6.14.14")
        dkms_tree(tb, "6.14.14-2212064.24.04", kernel="6.14.0-15-generic")
        return Scenario(tb, [("os.not-validated", "info")], 0, compare_info=True, env={"PATH": PATH_WITH_ROCM})
    card(tb, rp, 0x03, 0x747e, 0xc8, None, vram=16 * GiB, switch=(0x1002, 0x1478, 0x1479), driver=None)
    ubuntu_rocm(tb, "6.4.1", "6.12.12")
    dkms_failed(tb, "6.12.12-2164967.24.04", "6.11.0-26-generic", "6.14.0-15-generic")
    return Scenario(tb, [("arch.unsupported", "warning"), ("driver.dkms-build-failed", "error"),
                         ("driver.not-loaded", "error"), ("kernel.unsupported", "warning")], 2,
                    evidence=[("driver.dkms-build-failed", "/var/lib/dkms/amdgpu: 6.12.12-2164967.24.04 for "
                               "6.11.0-26-generic"),
                              ("kernel.unsupported", "ROCm 6.4 on ubuntu 24.04: kernels 6.8, 6.11")],
                    text=[("driver.dkms-build-failed", "failed to build for the running kernel 6.14.0-15-generic")],
                    env={"PATH": PATH_WITH_ROCM})


@report("tumbleweed-strix-halo-snapshot-tree", "https://github.com/ROCm/legacy-rocm-build/issues/3191")
def tumbleweed_tree(twin):
    """openSUSE Tumbleweed 20250601 on a Strix Halo (1002:1586, gfx1151)
    with AMD's SLES repositories whose tree is $releasever: zypper expands it
    to the snapshot date, a tree AMD's server does not have ("Repo not found":
    amdgpu/6.1.1/sle/20240524/main/x86_64 answered 404).  SLES 15.7 is the
    nearest listed release of the family.  Twin: the 15.7 tree."""
    tb = RpmTestbed()
    host_os(tb, TUMBLEWEED, "6.4.0-150700.53.3-default")
    tb.host_bridge("0000:00:00.0", 0x1022, 0x14e8)
    gpu, node = apu(tb, 0x1586, 0xc1, STRIX_HALO_KFD, 96 * GiB, gtt=16 * GiB, gc=(11, 5, 1))
    tb.module_amdgpu("live")
    tb.kfd([cpu_kfd_node(tb, 32, mem=32 * GiB), node])
    rocm_install(tb, "7.1.0", build="20")
    tree = "15.7" if twin else "$releasever"
    sles_repos(tb, "7.1.0", tree)
    tb.rpm_packages = [("rocm-core", "7.1.0.70100", "20.sles157"), KEY]
    info = [("os.not-validated", "info")]
    if twin:
        return Scenario(tb, info, 0, compare_info=True, env={"PATH": PATH_WITH_ROCM})
    return Scenario(tb, info + [("zypper.release-mismatch", "error")], 2, compare_info=True,
                    evidence=[("zypper.release-mismatch", "sle/$releasever/main/x86_64/ -> https://repo.radeon.com/"
                               "amdgpu/30.20/sle/20250601/main/x86_64/: the 20250601 tree, which AMD's server does "
                               "not have")],
                    remedy=[("zypper.release-mismatch", "the 15.7 tree (sles 15.7, the nearest release ROCm 7.2 "
                             "lists")],
                    env={"PATH": PATH_WITH_ROCM})


@report("tumbleweed-kernel-newer-dkms", "https://github.com/ROCm/amdgpu/issues/209")
def tumbleweed_kernel(twin):
    """Tumbleweed with its 6.18 kernel and AMD's amdgpu-dkms 30.20 (ROCm
    7.1) built and loaded on it, on a Strix Halo: newer than any kernel ROCm
    7.1 was validated with on SLES 15.7 (6.4), the family's nearest listed
    release; amdgpu-dkms 6.16.13 does not follow 6.18 kernels (ROCm/amdgpu#209,
    gfx1151 users on 6.18).  Twin: the kernel's own amdgpu (info only)."""
    tb = RpmTestbed()
    host_os(tb, TUMBLEWEED, "6.18.3-1-default")
    tb.host_bridge("0000:00:00.0", 0x1022, 0x14e8)
    gpu, node = apu(tb, 0x1586, 0xc1, STRIX_HALO_KFD, 96 * GiB, gtt=16 * GiB, gc=(11, 5, 1))
    tb.kfd([cpu_kfd_node(tb, 32, mem=32 * GiB), node])
    rocm_install(tb, "7.1.0", build="20")
    sles_repos(tb, "7.1.0", None)
    tb.rpm_packages = [("rocm-core", "7.1.0.70100", "20.sles157"), KEY]
    info = [("kernel.unsupported", "info"), ("os.not-validated", "info")]
    if twin:
        tb.module_amdgpu("live")
        return Scenario(tb, info, 0, compare_info=True, env={"PATH": PATH_WITH_ROCM})
    tb.module_amdgpu("live", version="6.16.13")
    dkms_tree(tb, "6.16.13-2278356.sles157", kernel="6.18.3-1-default")
    return Scenario(tb, [("kernel.unsupported", "warning"), ("os.not-validated", "info")], 1, compare_info=True,
                    text=[("kernel.unsupported", "Kernel 6.18 is newer than any kernel ROCm 7.1 was validated with "
                           "(6.4 on sles 15.7)")],
                    evidence=[("kernel.unsupported", "judged by sles 15.7, the nearest release ROCm 7.1 lists of its "
                               "family")],
                    env={"PATH": PATH_WITH_ROCM})


@report("debian-testing-suite-forky", "https://github.com/ROCm/legacy-rocm-build/issues/836")
def debian_testing(twin):
    """Debian testing (forky: no VERSION_ID) with an RX 9070 XT and AMD's
    ROCm 7.1 source written with the host's codename: AMD's repository has no
    such suite, `apt update` answers 404 as for any suite it lacks
    (ROCm/ROCm#836).  Debian 13 (suite noble) is the nearest listed release.
    Twin: suite noble."""
    tb = CompatTestbed()
    host_os(tb, DEBIAN_TESTING, "6.16.12-amd64")
    rx9070xt_box(tb)
    tb.module_amdgpu("live")
    rocm_install(tb, "7.1.0")
    apt_rocm(tb, "7.1.0", "noble" if twin else "forky")
    dpkg_status(tb, rocm_packages("7.1.0", codename_version="24.04"))
    info = [("kernel.unsupported", "info"), ("os.not-validated", "info")]
    if twin:
        return Scenario(tb, info, 0, compare_info=True, env={"PATH": PATH_WITH_ROCM})
    return Scenario(tb, info + [("apt.suite-mismatch", "error")], 2, compare_info=True,
                    evidence=[("apt.suite-mismatch", "its nearest, debian 13, uses noble (AMD's repository has no "
                               "forky suite)")],
                    remedy=[("apt.suite-mismatch", "Use the suite noble")],
                    env={"PATH": PATH_WITH_ROCM})


@report("ubuntu2504-suite-plucky", "https://github.com/ROCm/legacy-rocm-build/issues/4691")
def ubuntu2504_suite(twin):
    """Ubuntu 25.04 with ROCm 7.0.2's sources written for the host's own
    codename (plucky): "Release 404 Not Found" as in ROCm/ROCm#4691 for a path
    AMD's server lacks.  Ubuntu 24.04 (noble) is the nearest listed release.
    Twin: suite noble, the inbox amdgpu on 6.14 (validated on 24.04)."""
    tb = CompatTestbed()
    host_os(tb, UBUNTU_2504, "6.14.0-15-generic")
    rx9070xt_box(tb)
    tb.module_amdgpu("live")
    rocm_install(tb, "7.0.2")
    apt_rocm(tb, "7.0.2", "noble" if twin else "plucky")
    dpkg_status(tb, rocm_packages("7.0.2", codename_version="24.04"))
    if twin:
        return Scenario(tb, [("os.not-validated", "info")], 0, compare_info=True, env={"PATH": PATH_WITH_ROCM})
    return Scenario(tb, [("apt.suite-mismatch", "error")], 2,
                    evidence=[("apt.suite-mismatch", "https://repo.radeon.com/rocm/apt/7.0.2 plucky main: suite "
                               "plucky; plucky is not a release ROCm 7.0 lists: its nearest, ubuntu 24.04, uses "
                               "noble")],
                    remedy=[("apt.suite-mismatch", "Use the suite noble")],
                    env={"PATH": PATH_WITH_ROCM})


@report("fedora42-strix-point-el-releasever", "https://github.com/CosmicFusion/fedora-amdgpu-pro/issues/19")
def fedora42_releasever(twin):
    """Fedora 42 on a Strix Point laptop (Radeon 890M, 1002:150e, gfx1150)
    with AMD's EL repositories copied from a RHEL guide with $releasever:
    dnf makes rocm/el42, a tree AMD's server does not have (people on Fedora
    point at the RHEL 9 tree by hand).  Twin: Fedora's own ROCm, no AMD
    repository."""
    tb = RpmTestbed()
    host_os(tb, FEDORA_42, "6.14.9-300.fc42.x86_64")
    tb.host_bridge("0000:00:00.0", 0x1022, 0x1507)
    gpu, node = apu(tb, 0x150e, 0xc1, STRIX_POINT_KFD, 4 * GiB, gtt=16 * GiB, gc=(11, 5, 0))
    tb.module_amdgpu("live")
    tb.kfd([cpu_kfd_node(tb, 24, mem=32 * GiB), node])
    fedora42_own_rocm(tb)
    if twin:
        return Scenario(tb, [], 0, env={"PATH": PATH_WITH_ROCM})
    tb.rpm_packages.append(KEY)
    tb.root_file("etc/yum.repos.d/rocm.repo",
                 "[rocm]\nname=ROCm 7.1.0\nbaseurl=https://repo.radeon.com/rocm/el$releasever/7.1/main\n"
                 "enabled=1\npriority=50\ngpgcheck=1\ngpgkey=%s\n" % GPGKEY)
    return Scenario(tb, [("dnf.release-mismatch", "error")], 2,
                    evidence=[("dnf.release-mismatch", "https://repo.radeon.com/rocm/el42/7.1/main: the EL42 tree, "
                               "which AMD's server does not have")],
                    env={"PATH": PATH_WITH_ROCM})


# ==============================================================================
# 2. explain: the cause that stops the build first (tests/run/explain uses these)

@report("ubuntu2404-hwe-headers-missing", "https://github.com/ROCm/legacy-rocm-build/issues/3701")
def hwe_headers_missing(twin):
    """Ubuntu 24.04 after the HWE update to 6.17.0-14-generic without its
    headers, ROCm 7.0.2 with amdgpu-dkms 6.14.14 built for 6.14.0-33: dpkg
    says "Bad return status for module build" (ROCm/ROCm#3701 after a kernel
    update), the build never started.  6.17 is also not a kernel ROCm 7.0
    lists for 24.04.  Twin: booted back into 6.14.0-33, where the DKMS module
    is built and loaded."""
    tb = CompatTestbed()
    rx9070xt_box(tb, driver="amdgpu" if twin else None)
    host_os(tb, UBUNTU_2404, "6.14.0-33-generic" if twin else "6.17.0-14-generic")
    ubuntu_rocm(tb, "7.0.2", "6.14.14")
    dkms_tree(tb, "6.14.14-2212064.24.04", kernel="6.14.0-33-generic")
    headers(tb, "6.14.0-33-generic")
    if twin:
        tb.module_amdgpu("live", version="6.14.14")
        return Scenario(tb, [], 0, compare_info=True, env={"PATH": PATH_WITH_ROCM})
    return Scenario(tb, [("driver.not-loaded", "error"), ("kernel.devel-missing", "error"),
                         ("kernel.unsupported", "warning")], 2,
                    remedy=[("kernel.devel-missing", "sudo apt install linux-headers-6.17.0-14-generic")],
                    env={"PATH": PATH_WITH_ROCM})


# ==============================================================================
# 3. Prerequisite repositories per EL release

def el_host(tb, os_text, kernel, el, rocm="6.4.3", dkms="6.12.12"):
    """An MI210 (1002:740f, gfx90a) server with ROCm and amdgpu-dkms from
    AMD's EL repositories for the OS tree el ("8.10"; "10" from 7.0.2, whose
    EL 10 trees are named by the major alone)."""
    host_os(tb, os_text, kernel)
    matisse_host(tb)
    rp = matisse_root_port(tb)
    gpu, node = card(tb, rp, 0x03, 0x740f, 0x02, kfd_props(NAVI31_KFD, 90010, 416, wave_front_size=64),
                     vram=64 * GiB, audio=None, cls=0x038000, bar0=64 * GiB)
    tb.kfd([cpu_kfd_node(tb, 64), node])
    tb.module_amdgpu("live", version=dkms)
    rocm_install(tb, rocm, build="128")
    major = el.split(".")[0]
    dist = "el%s" % major.replace(".", "_")
    dkms_tree(tb, "%s-2187269.%s" % (dkms, dist), kernel=kernel)
    kernel_build_dir(tb, kernel)
    folder, driver = amd_folders(rocm)
    tb.root_file("etc/yum.repos.d/rocm.repo",
                 "[rocm]\nname=ROCm %s repository\nbaseurl=https://repo.radeon.com/rocm/el%s/%s/main\n"
                 "enabled=1\npriority=50\ngpgcheck=1\ngpgkey=%s\n" % (rocm, major, folder, GPGKEY))
    tb.root_file("etc/yum.repos.d/amdgpu.repo",
                 "[amdgpu]\nname=amdgpu\nbaseurl=https://repo.radeon.com/amdgpu/%s/el/%s/main/x86_64/\n"
                 "enabled=1\npriority=50\ngpgcheck=1\ngpgkey=%s\n" % (driver, el, GPGKEY))
    parts = rocm.split(".")
    num = "%d%02d%02d" % (int(parts[0]), int(parts[1]), int(parts[2]))
    v, r = kernel.rsplit(".", 1)[0].split("-", 1)
    return [("rocm-core", "%s.%s" % (rocm, num), "128.%s" % dist),
            ("hip-runtime-amd", "6.4.43484.%s" % num, "128.%s" % dist),
            ("amdgpu-dkms", "%s.%s" % (dkms, num), "2187269.%s" % dist, "noarch"),
            ("kernel-devel", v, r), KEY]


def epel(tb, major):
    tb.root_file("etc/yum.repos.d/epel.repo",
                 "[epel]\nname=Extra Packages for Enterprise Linux %s - $basearch\n"
                 "metalink=https://mirrors.fedoraproject.org/metalink?repo=epel-%s&arch=$basearch\n"
                 "enabled=1\ngpgcheck=1\n" % (major, major))


EL8_KERNEL = "4.18.0-553.el8_10.x86_64"
EL10_KERNEL = "6.12.0-55.9.1.el10_0.x86_64"


@report("rocky810-powertools-disabled", "https://github.com/ROCm/hip/issues/2330")
def rocky8_powertools(twin):
    """Rocky Linux 8.10, ROCm 6.4.3: PowerTools (repo id powertools on EL8)
    is off, so hip's perl-File-BaseDir cannot be installed ("nothing provides
    perl-File-BaseDir needed by hip-base", ROCm/hip#2330, where enabling
    powertools was the answer).  The remedy names powertools, not EL9's crb.
    Twin: PowerTools on."""
    tb = RpmTestbed()
    tb.rpm_packages = el_host(tb, ROCKY_810, EL8_KERNEL, "8.10")
    tb.root_file("etc/yum.repos.d/Rocky-PowerTools.repo",
                 "[powertools]\nname=Rocky Linux $releasever - PowerTools\n"
                 "mirrorlist=https://mirrors.rockylinux.org/mirrorlist?arch=$basearch&repo=PowerTools-$releasever\n"
                 "gpgcheck=1\nenabled=%d\n" % (1 if twin else 0))
    epel(tb, "8")
    if twin:
        return Scenario(tb, [], 0, env={"PATH": PATH_WITH_ROCM})
    return Scenario(tb, [("dnf.prereq-repo-missing", "warning")], 1,
                    evidence=[("dnf.prereq-repo-missing", "[powertools] enabled=0")],
                    remedy=[("dnf.prereq-repo-missing", "`sudo dnf config-manager --set-enabled powertools`")],
                    env={"PATH": PATH_WITH_ROCM})


@report("rhel810-codeready-disabled", "https://github.com/ROCm/legacy-rocm-build/issues/1448")
def rhel8_codeready(twin):
    """RHEL 8.10 with ROCm 6.4.3: CodeReady Linux Builder for RHEL 8 is off
    and EPEL absent (ROCm/ROCm#1448: perl-URI-Encode is in EPEL, not in
    CodeReady).  The remedy names RHEL 8's repo id and EPEL 8.  Twin: both
    enabled."""
    tb = RpmTestbed()
    tb.rpm_packages = el_host(tb, RHEL_810, EL8_KERNEL, "8.10")
    tb.root_file("etc/yum.repos.d/redhat.repo",
                 "[codeready-builder-for-rhel-8-x86_64-rpms]\n"
                 "name = Red Hat CodeReady Linux Builder for RHEL 8 x86_64 (RPMs)\n"
                 "baseurl = https://cdn.redhat.com/content/dist/rhel8/$releasever/x86_64/codeready-builder/os\n"
                 "enabled = %d\ngpgcheck = 1\n" % (1 if twin else 0))
    if twin:
        epel(tb, "8")
        return Scenario(tb, [], 0, env={"PATH": PATH_WITH_ROCM})
    return Scenario(tb, [("dnf.prereq-repo-missing", "warning")], 1,
                    remedy=[("dnf.prereq-repo-missing", "subscription-manager repos --enable "
                             "codeready-builder-for-rhel-8-$(arch)-rpms"),
                            ("dnf.prereq-repo-missing", "epel-release-latest-8.noarch.rpm")],
                    env={"PATH": PATH_WITH_ROCM})


@report("rhel10-crb-disabled", "https://github.com/ROCm/legacy-rocm-build/issues/2381")
def rhel10_crb(twin):
    """RHEL 10.0 with ROCm 7.1.0 (rocm/el10/7.1, amdgpu/30.20/el/10): CodeReady
    Builder for RHEL 10 off and perl-File-BaseDir not installed ("nothing
    provides perl-File-BaseDir needed by hipcc", ROCm/ROCm#2381 on RHEL 9.2).
    Twin: CRB still off, but ROCm's perl dependencies are installed (the rpm
    database says so): nothing is missing, nothing to report."""
    tb = RpmTestbed()
    pk = el_host(tb, RHEL_100, EL10_KERNEL, "10", rocm="7.1.0", dkms="30.20.0")
    tb.root_file("etc/yum.repos.d/redhat.repo",
                 "[codeready-builder-for-rhel-10-x86_64-rpms]\n"
                 "name = Red Hat CodeReady Linux Builder for RHEL 10 x86_64 (RPMs)\n"
                 "baseurl = https://cdn.redhat.com/content/dist/rhel10/$releasever/x86_64/codeready-builder/os\n"
                 "enabled = 0\ngpgcheck = 1\n")
    epel(tb, "10")
    if twin:
        pk += [("perl-File-BaseDir", "0.09", "11.el10", "noarch"), ("perl-URI-Encode", "1.1.1", "25.el10_0", "noarch")]
        tb.rpm_packages = pk
        return Scenario(tb, [], 0, env={"PATH": PATH_WITH_ROCM})
    tb.rpm_packages = pk
    return Scenario(tb, [("dnf.prereq-repo-missing", "warning")], 1,
                    remedy=[("dnf.prereq-repo-missing", "codeready-builder-for-rhel-10-$(arch)-rpms")],
                    env={"PATH": PATH_WITH_ROCM})
