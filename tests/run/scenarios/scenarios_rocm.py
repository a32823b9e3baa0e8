"""Scenarios of the ROCm user space on the host: none, several versions, PATH,
the distribution's own ROCm, and the kernels it ships for the GPU's gfx
target.
"""

from scenarios import Scenario, healthy_rx7900xtx_box, mi300x_box, scenario
from beds_rocm import (
    CompatTestbed, PATH_WITH_ROCM, PATH_WITHOUT_ROCM, UBUNTU_2204_OS_RELEASE, apt_rocm, debian_box,
    debian_rocm, dkms_tree, dpkg_status, rocm_box, rocm_install, rocm_packages, rx6700xt_box, secure_boot,
)


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
    an install that did not finish (or was half removed). The remedy names
    the release of the host's own sources, never the newest."""
    tb = CompatTestbed()
    healthy_rx7900xtx_box(tb)
    apt_rocm(tb)
    tb.root_link("opt/rocm", "/etc/alternatives/rocm")
    tb.root_link("etc/alternatives/rocm", "/opt/rocm-6.2.4")
    return Scenario(tb, [("rocm.not-installed", "warning")], 1,
                    evidence=[("rocm.not-installed", "/opt/rocm -> /etc/alternatives/rocm (missing)")],
                    remedy=[("rocm.not-installed", "Install ROCm 6.2.4 (the release this host's AMD sources "
                             "name)")],
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
