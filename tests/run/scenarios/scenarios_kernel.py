"""Scenarios of the kernel: releases the support table does not list, DKMS
builds and the headers they need, Secure Boot, WSL.
"""

from scenarios import (
    NAVI31_KFD, Scenario, cpu_kfd_node, healthy_rx7900xtx_box, matisse_host, matisse_root_port, no_gpu_box,
    scenario, unbound_rx7900xtx_box,
)
from beds_distros import (
    TUMBLEWEED, UBUNTU_2404, UBUNTU_2504, UBUNTU_2510, dkms_failed, headers, rocm_install_new_gfx,
    rx9070xt_box, sles_repos, ubuntu_rocm,
)
from beds_hosts import STRIX_HALO_KFD, apu, card, host_os, kfd_props, report
from beds_rocm import (
    CompatTestbed, PATH_WITH_ROCM, SECURE_BOOT_VAR, apt_rocm, dkms_tree, dpkg_status, rocm_box, rocm_install,
    rocm_packages, secure_boot,
)
from beds_rpm import EL9_KERNEL, KEY, RHEL_96_OS_RELEASE, RpmTestbed, el_packages, el_prereqs, el_repos
from testbed import GiB, Testbed


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
    rocm_install_new_gfx(tb, "7.0.2")
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
    rocm_install_new_gfx(tb, "6.4.1")
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
    rocm_install_new_gfx(tb, "7.1.0", build="20")
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


@scenario("rhel9-kernel-devel-missing")
def rhel9_kernel_devel_missing():
    """amdgpu-dkms installed after a kernel update without kernel-devel: DKMS
    never built the module for the running kernel, amdgpu is not loaded."""
    tb = RpmTestbed()
    unbound_rx7900xtx_box(tb)
    tb.root_file("etc/os-release", RHEL_96_OS_RELEASE)
    tb.kernel(release=EL9_KERNEL)
    rocm_install(tb, "7.0.2", build="56")
    dkms_tree(tb, "6.14.14-2204008.el9", kernel="5.14.0-503.40.1.el9_5.x86_64")
    tb.root_link("lib/modules/%s/build" % EL9_KERNEL, "/usr/src/kernels/%s" % EL9_KERNEL)
    el_repos(tb)
    el_prereqs(tb)
    tb.rpm_packages = el_packages(kernel_devel=False)
    return Scenario(tb, [("driver.not-loaded", "error"), ("kernel.devel-missing", "error")], 2,
                    evidence=[("kernel.devel-missing", "/var/lib/dkms/amdgpu/6.14.14-2204008.el9: the DKMS driver "
                               "is installed"),
                              ("kernel.devel-missing", "/lib/modules/%s/build: missing" % EL9_KERNEL),
                              ("kernel.devel-missing", "rpm database: no kernel-devel package for %s" % EL9_KERNEL)],
                    remedy=[("kernel.devel-missing", "sudo dnf install kernel-devel-%s" % EL9_KERNEL)],
                    env={"PATH": PATH_WITH_ROCM})


@scenario("ubuntu-kernel-headers-missing")
def ubuntu_kernel_headers_missing():
    """Ubuntu 24.04 after a kernel update without linux-headers: DKMS did not
    build amdgpu for the running kernel."""
    tb = CompatTestbed()
    unbound_rx7900xtx_box(tb)
    tb.kernel(release="6.8.0-51-generic")
    from beds_rocm import rocm_box
    rocm_box(tb, dkms="6.8.5")
    dkms_tree(tb, "6.8.5-2041575.24.04", kernel="6.8.0-45-generic")
    return Scenario(tb, [("driver.not-loaded", "error"), ("kernel.devel-missing", "error")], 2,
                    evidence=[("kernel.devel-missing", "/lib/modules/6.8.0-51-generic/build: missing")],
                    remedy=[("kernel.devel-missing", "sudo apt install linux-headers-6.8.0-51-generic")],
                    env={"PATH": PATH_WITH_ROCM})


@scenario("ubuntu-kernel-headers-present")
def ubuntu_kernel_headers_present():
    """The twin: the headers are installed (DKMS will build at the next boot)."""
    tb = CompatTestbed()
    unbound_rx7900xtx_box(tb)
    tb.kernel(release="6.8.0-51-generic")
    from beds_rocm import rocm_box
    rocm_box(tb, dkms="6.8.5")
    dkms_tree(tb, "6.8.5-2041575.24.04", kernel="6.8.0-45-generic")
    tb.root_file("usr/src/linux-headers-6.8.0-51-generic/Makefile", "")
    tb.root_link("lib/modules/6.8.0-51-generic/build", "/usr/src/linux-headers-6.8.0-51-generic")
    return Scenario(tb, [("driver.not-loaded", "error")], 2, env={"PATH": PATH_WITH_ROCM})
