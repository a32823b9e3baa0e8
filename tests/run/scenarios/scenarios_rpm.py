"""Scenarios of rpm hosts (RHEL and its rebuilds, Fedora, SLES, openSUSE
Tumbleweed): dnf and zypper repositories, keys and gpgcheck, release trees,
prerequisite repositories (CRB, PowerTools, CodeReady).
"""

from scenarios import Scenario, cpu_kfd_node, healthy_rx7900xtx_box, scenario
from beds_distros import (
    EL10_KERNEL, EL8_KERNEL, FEDORA_42, RHEL_100, RHEL_810, ROCKY_810, STRIX_POINT_KFD, TUMBLEWEED, el_host,
    epel, rocm_install_new_gfx, sles_repos,
)
from beds_hosts import STRIX_HALO_KFD, apu, host_os, report
from beds_rocm import PATH_WITH_ROCM
from beds_rpm import (
    FEDORA_42_OS_RELEASE, GPGKEY, KEY, ROCKY_96_OS_RELEASE, RpmTestbed, el_prereqs, el_repos,
    fedora42_own_rocm, rhel_mi300x, sles_mi300x,
)
from testbed import GiB


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
    rocm_install_new_gfx(tb, "7.1.0", build="20")
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


# --------------------------------------------------------------------------
# RHEL family
@scenario("healthy-rhel96-8x-mi300x")
def healthy_rhel96_8x_mi300x():
    """RHEL 9.6, eight MI300X, ROCm 7.0.2 and amdgpu-dkms from AMD's
    repositories, AMD's key imported, kernel-devel for the running kernel."""
    tb = RpmTestbed()
    rhel_mi300x(tb)
    return Scenario(tb, [], 0, gpu_count=8, compare_info=True, env={"PATH": PATH_WITH_ROCM})


@scenario("rhel9-rhel8-tree")
def rhel9_rhel8_tree():
    """RHEL 9.6 whose AMD repositories point at the EL8 trees (a repo file
    copied from an EL8 host; from 7.0.2 AMD names the EL 8 driver and
    graphics trees "8")."""
    tb = RpmTestbed()
    rhel_mi300x(tb)
    el_repos(tb, tree="8", major="8")
    return Scenario(tb, [("dnf.release-mismatch", "error")], 2,
                    evidence=[("dnf.release-mismatch", "/etc/yum.repos.d/rocm.repo:3: [rocm] "
                               "baseurl=https://repo.radeon.com/rocm/el8/7.0.2/main: the EL8 tree"),
                              ("dnf.release-mismatch", "/etc/yum.repos.d/amdgpu.repo:3: [amdgpu] baseurl="
                               "https://repo.radeon.com/amdgpu/30.10.2/el/8/main/x86_64/: the 8 tree"),
                              ("dnf.release-mismatch", "/etc/os-release: ID=rhel VERSION_ID=9.6")],
                    remedy=[("dnf.release-mismatch", "sudo dnf clean all")],
                    env={"PATH": PATH_WITH_ROCM})


@scenario("rhel9-repo-path-710")
def rhel9_repo_path_710():
    """RHEL 9.6 moving from ROCm 7.0.2 to 7.1: rocm.repo was rewritten with
    the release's full number, rocm/el9/7.1.0/main, but AMD names an X.Y.0
    release's folder X.Y (rocm/el9/7.1/main, ROCm/rocm-install-on-linux#628);
    the graphics and driver lines are 7.1's real ones (graphics/7.1,
    amdgpu/30.20): `dnf upgrade` fails on the rocm folder alone (404)."""
    tb = RpmTestbed()
    rhel_mi300x(tb)
    el_repos(tb, rocm="7.1", amdgpu="30.20", rocm_folder="7.1.0")
    return Scenario(tb, [("dnf.repo-path", "error")], 2,
                    evidence=[("dnf.repo-path", "/etc/yum.repos.d/rocm.repo:3: [rocm] "
                               "baseurl=https://repo.radeon.com/rocm/el9/7.1.0/main"),
                              ("dnf.repo-path", "https://repo.radeon.com/rocm/el9/7.1/main")],
                    remedy=[("dnf.repo-path", "sudo dnf clean all")],
                    env={"PATH": PATH_WITH_ROCM})


@scenario("rhel9-gpgcheck-off")
def rhel9_gpgcheck_off():
    """gpgcheck=0 in AMD's repositories (a common workaround for an expired key)."""
    tb = RpmTestbed()
    rhel_mi300x(tb)
    el_repos(tb, gpgcheck=0)
    return Scenario(tb, [("dnf.gpgcheck-off", "warning")], 1,
                    evidence=[("dnf.gpgcheck-off", "/etc/yum.repos.d/rocm.repo:3: [rocm] "
                               "baseurl=https://repo.radeon.com/rocm/el9/7.0.2/main: gpgcheck=0"),
                              ("dnf.gpgcheck-off", "/etc/yum.repos.d/amdgpu.repo:3: [amdgpu]")],
                    remedy=[("dnf.gpgcheck-off", "gpgcheck=1")],
                    env={"PATH": PATH_WITH_ROCM})


@scenario("rhel9-key-not-imported")
def rhel9_key_not_imported():
    """AMD's key was never imported into the rpm database."""
    tb = RpmTestbed()
    rhel_mi300x(tb, key=False)
    return Scenario(tb, [("dnf.key-missing", "warning")], 1,
                    evidence=[("dnf.key-missing", "rpm -q gpg-pubkey: no gpg-pubkey-1a693c5c-* (fingerprint "
                               "CA8BB4727A47B4D09B4EE8969386B48A1A693C5C)")],
                    remedy=[("dnf.key-missing", "rpm --import")],
                    env={"PATH": PATH_WITH_ROCM})


@scenario("rhel9-crb-disabled")
def rhel9_crb_disabled():
    """CodeReady Builder is off: hip's perl-File-BaseDir cannot be installed."""
    tb = RpmTestbed()
    rhel_mi300x(tb)
    el_prereqs(tb, crb=False)
    return Scenario(tb, [("dnf.prereq-repo-missing", "warning")], 1,
                    evidence=[("dnf.prereq-repo-missing", "/etc/yum.repos.d/redhat.repo:10: "
                               "[codeready-builder-for-rhel-9-x86_64-rpms] enabled=0 (CRB (PowerTools on EL8); "
                               "ROCm's hip needs perl-File-BaseDir from it)")],
                    remedy=[("dnf.prereq-repo-missing", "sudo subscription-manager repos --enable "
                             "codeready-builder-for-rhel-9-$(arch)-rpms")],
                    env={"PATH": PATH_WITH_ROCM})


@scenario("rhel9-crb-disabled-packages-installed")
def rhel9_crb_disabled_packages_installed():
    """The twin: CRB off, but the packages ROCm needs from it are installed."""
    tb = RpmTestbed()
    rhel_mi300x(tb, prereq_pkgs=True)
    el_prereqs(tb, crb=False, epel=False)
    return Scenario(tb, [], 0, compare_info=True, env={"PATH": PATH_WITH_ROCM})


@scenario("rocky9-as-rhel9")
def rocky9_as_rhel9():
    """Rocky Linux 9.6 (ID=rocky) is judged by the RHEL 9.6 rows: healthy with
    its own crb repository id."""
    tb = RpmTestbed()
    rhel_mi300x(tb, os_release=ROCKY_96_OS_RELEASE, rhel=False)
    return Scenario(tb, [], 0, gpu_count=8, compare_info=True, env={"PATH": PATH_WITH_ROCM})


@scenario("rocky9-rhel8-tree")
def rocky9_rhel8_tree():
    """The same Rocky host with the EL8 rocm tree: the mismatch is found as on RHEL."""
    tb = RpmTestbed()
    rhel_mi300x(tb, os_release=ROCKY_96_OS_RELEASE, rhel=False)
    el_repos(tb, major="8")
    return Scenario(tb, [("dnf.release-mismatch", "error")], 2,
                    evidence=[("dnf.release-mismatch", "/etc/os-release: ID=rocky VERSION_ID=9.6")],
                    env={"PATH": PATH_WITH_ROCM})


@scenario("rhel9-repo-missing")
def rhel9_repo_missing():
    """rocm-core and amdgpu-dkms installed, AMD's repository files removed."""
    tb = RpmTestbed()
    rhel_mi300x(tb)
    tb.root_file("etc/yum.repos.d/rocm.repo", "")
    tb.root_file("etc/yum.repos.d/amdgpu.repo", "")
    return Scenario(tb, [("dnf.repo-missing", "warning")], 1,
                    evidence=[("dnf.repo-missing", "rpm database: rocm-core 7.0.2.70002-56.el9 installed")],
                    env={"PATH": PATH_WITH_ROCM})


@scenario("rhel9-rpm-missing")
def rhel9_rpm_missing():
    """The rpm database is there, the rpm program is not (a minimal container
    image inspecting a host root): said once, the other checks still run."""
    tb = RpmTestbed()
    rhel_mi300x(tb)
    el_repos(tb, tree="8", major="8")
    return Scenario(tb, [("dnf.release-mismatch", "error"), ("rpm.database-unreadable", "warning")], 2,
                    evidence=[("rpm.database-unreadable", "/nonexistent/rpm: not found")],
                    env={"PATH": PATH_WITH_ROCM, "ROCM_DOCTOR_RPM": "/nonexistent/rpm"})


@scenario("rhel9-bad-repo-files")
def rhel9_bad_repo_files():
    """Repository files dnf cannot use: a duplicate section, a section without
    baseurl, CRLF line ends (fine), binary garbage, a 100 MB file."""
    tb = RpmTestbed()
    rhel_mi300x(tb)
    tb.root_file("etc/yum.repos.d/dup.repo", "[x]\nbaseurl=https://example.com/a\n[x]\nbaseurl=https://example.com/b\n")
    tb.root_file("etc/yum.repos.d/nourl.repo", "[lonely]\nname=no URL\nenabled=1\n")
    tb.root_file("etc/yum.repos.d/crlf.repo", "[crlf]\r\nname=CRLF\r\nbaseurl=https://example.com/c\r\nenabled=1\r\n")
    tb.root_file("etc/yum.repos.d/garbage.repo", "\x7fELF\x02\x01\x01\x00\x00\x00garbage\n\x00\x01\x02\n")
    tb.big_files = [("etc/yum.repos.d/huge.repo", 100 * 1024 * 1024)]
    return Scenario(tb, [("dnf.repo-invalid", "warning")], 1,
                    evidence=[("dnf.repo-invalid", "/etc/yum.repos.d/dup.repo:3: [x] again (first at line 1)"),
                              ("dnf.repo-invalid", "/etc/yum.repos.d/nourl.repo:1: [lonely] has no baseurl"),
                              ("dnf.repo-invalid", "/etc/yum.repos.d/garbage.repo:1: binary data"),
                              ("dnf.repo-invalid", "/etc/yum.repos.d/huge.repo: larger than 1024 KiB")],
                    env={"PATH": PATH_WITH_ROCM})


@scenario("healthy-sles156-8x-mi300x")
def healthy_sles156_8x_mi300x():
    """SLES 15 SP6, eight MI300X, ROCm 6.4.3 from AMD's zypper repositories."""
    tb = RpmTestbed()
    sles_mi300x(tb)
    return Scenario(tb, [], 0, gpu_count=8, compare_info=True, env={"PATH": PATH_WITH_ROCM})


@scenario("sles156-sp5-tree")
def sles156_sp5_tree():
    """SLES 15 SP6 whose amdgpu repository is still the SP5 tree. ROCm 6.3.3,
    whose driver AMD serves for both (sle/15.5 and sle/15.6); 6.4.x has no
    15.5 tree, where the same line would be a folder AMD does not serve."""
    tb = RpmTestbed()
    sles_mi300x(tb, tree="15.5", rocm="6.3.3")
    return Scenario(tb, [("zypper.release-mismatch", "error")], 2,
                    evidence=[("zypper.release-mismatch", "/etc/zypp/repos.d/amdgpu.repo:3: [amdgpu] baseurl="
                               "https://repo.radeon.com/amdgpu/6.3.3/sle/15.5/main/x86_64/: the 15.5 tree")],
                    remedy=[("zypper.release-mismatch", "sudo zypper refresh")],
                    env={"PATH": PATH_WITH_ROCM})


@scenario("sles156-gpgcheck-off")
def sles156_gpgcheck_off():
    tb = RpmTestbed()
    sles_mi300x(tb)
    tb.root_file("etc/zypp/repos.d/rocm.repo",
                 "[ROCm-6.4.3]\nname=ROCm6.4.3\nbaseurl=https://repo.radeon.com/rocm/zyp/6.4.3/main\n"
                 "enabled=1\ngpgcheck=0\n")
    return Scenario(tb, [("zypper.gpgcheck-off", "warning")], 1, env={"PATH": PATH_WITH_ROCM})


# --------------------------------------------------------------------------
# Fedora: its own ROCm, no AMD repository
@scenario("healthy-fedora42-own-rocm")
def healthy_fedora42_own_rocm():
    """Fedora 42 with its own ROCm 6.3 (rocm-runtime, rocm-hip under /usr/lib64)
    and no AMD repository: nothing to report."""
    tb = RpmTestbed()
    healthy_rx7900xtx_box(tb)
    tb.root_file("etc/os-release", FEDORA_42_OS_RELEASE)
    tb.kernel(release="6.14.9-300.fc42.x86_64")
    fedora42_own_rocm(tb, "libhiprtc.so.6.3.42134")
    return Scenario(tb, [], 0, gpu_count=1, env={"PATH": PATH_WITH_ROCM})


# --------------------------------------------------------------------------
# AMD's moving folders
def el_latest_repos(tb, rocm_major, driver_tree):
    tb.root_file("etc/yum.repos.d/rocm.repo",
                 "[rocm]\nname=ROCm latest\nbaseurl=https://repo.radeon.com/rocm/%s/latest/main\n"
                 "enabled=1\npriority=50\ngpgcheck=1\ngpgkey=%s\n" % (rocm_major, GPGKEY))
    tb.root_file("etc/yum.repos.d/amdgpu.repo",
                 "[amdgpu]\nname=amdgpu\nbaseurl=https://repo.radeon.com/amdgpu/latest/%s/main/x86_64/\n"
                 "enabled=1\npriority=50\ngpgcheck=1\ngpgkey=%s\n" % (driver_tree, GPGKEY))


@scenario("rhel9-latest-el8")
def rhel9_latest_el8():
    """RHEL 9.6 whose configuration management still pushes AMD's moving
    folders of EL 8 (rocm/rhel8/latest/main, amdgpu/latest/rhel/8.10): the
    el8 trees on EL 9 are a mismatch, and the host follows whatever release
    AMD published last."""
    tb = RpmTestbed()
    rhel_mi300x(tb)
    el_latest_repos(tb, "rhel8", "rhel/8.10")
    return Scenario(tb, [("dnf.release-mismatch", "error"), ("rocm.release-moving", "info")], 2, compare_info=True,
                    evidence=[("dnf.release-mismatch", "/etc/yum.repos.d/rocm.repo:3: [rocm] "
                               "baseurl=https://repo.radeon.com/rocm/rhel8/latest/main: the EL8 tree"),
                              ("dnf.release-mismatch", "/etc/yum.repos.d/amdgpu.repo:3: [amdgpu] "
                               "baseurl=https://repo.radeon.com/amdgpu/latest/rhel/8.10/main/x86_64/: the 8.10 tree"),
                              ("rocm.release-moving", "/etc/yum.repos.d/rocm.repo:3: "
                               "https://repo.radeon.com/rocm/rhel8/latest/main")],
                    env={"PATH": PATH_WITH_ROCM})


@scenario("rhel9-latest-el9")
def rhel9_latest_el9():
    """RHEL 9.6 on AMD's moving folders of its own major (rocm/el9/latest/main,
    amdgpu/latest/el/9.6): only the information that it changes release at
    every upgrade."""
    tb = RpmTestbed()
    rhel_mi300x(tb)
    el_latest_repos(tb, "el9", "el/9.6")
    return Scenario(tb, [("rocm.release-moving", "info")], 0, compare_info=True,
                    evidence=[("rocm.release-moving", "/etc/yum.repos.d/rocm.repo:3: "
                               "https://repo.radeon.com/rocm/el9/latest/main"),
                              ("rocm.release-moving", "/etc/yum.repos.d/amdgpu.repo:3: "
                               "https://repo.radeon.com/amdgpu/latest/el/9.6/main/x86_64/")],
                    env={"PATH": PATH_WITH_ROCM})
