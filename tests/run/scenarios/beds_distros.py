"""Builders of hosts the support table does not list or judges per release:
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

from scenarios import NAVI31_KFD, PHOENIX_KFD, cpu_kfd_node, matisse_host, matisse_root_port
from beds_hosts import card, host_os, kfd_props, os_release
from beds_rocm import (
    ROCM_GFX, amd_folders, apt_rocm, dkms_tree, dpkg_status, rocm_install as compat_rocm_install,
    rocm_packages,
)
from beds_rpm import GPGKEY, KEY, kernel_build_dir
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


def rocm_install_new_gfx(tb, version, build="139"):
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
    rocm_install_new_gfx(tb, version)
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
    rocm_install_new_gfx(tb, rocm, build="128")
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
