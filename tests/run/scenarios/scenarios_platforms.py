"""Scenarios of rpm-based hosts (RHEL and its rebuilds, SLES, Fedora), of the
kernel headers DKMS needs (all families) and of Debian 13.

The rpm database of each root is real: small packages built with rpmbuild
(tests/run/fix/specs/package.spec) under the names and versions the hosts
have, installed with `rpm --root ROOT --dbpath /var/lib/rpm`. AMD's signing key
appears in the database as gpg-pubkey-1a693c5c-5d438912, the name rpm gives it
(https://github.com/ROCm/legacy-rocm-build/issues/1762); here it is a stand-in
package of that name, since the key itself cannot be made. Repository files
are written as AMD's install guides write them; package build numbers are
representative.
"""

import os
import shutil
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "fix"))

import rpmlib  # noqa: E402
from scenarios import Scenario, healthy_rx7900xtx_box, mi300x_box, scenario, unbound_rx7900xtx_box  # noqa: E402
from scenarios_compat import (  # noqa: E402
    PATH_WITH_ROCM, CompatTestbed, amd_folders, apt_rocm, dkms_tree, dpkg_status, rocm_install, rocm_packages,
)

RHEL_96_OS_RELEASE = """\
NAME="Red Hat Enterprise Linux"
VERSION="9.6 (Plow)"
ID="rhel"
ID_LIKE="fedora"
VERSION_ID="9.6"
PLATFORM_ID="platform:el9"
PRETTY_NAME="Red Hat Enterprise Linux 9.6 (Plow)"
"""
ROCKY_96_OS_RELEASE = """\
NAME="Rocky Linux"
VERSION="9.6 (Blue Onyx)"
ID="rocky"
ID_LIKE="rhel centos fedora"
VERSION_ID="9.6"
PLATFORM_ID="platform:el9"
PRETTY_NAME="Rocky Linux 9.6 (Blue Onyx)"
"""
SLES_156_OS_RELEASE = """\
NAME="SLES"
VERSION="15-SP6"
VERSION_ID="15.6"
PRETTY_NAME="SUSE Linux Enterprise Server 15 SP6"
ID="sles"
ID_LIKE="suse"
"""
FEDORA_42_OS_RELEASE = """\
NAME="Fedora Linux"
VERSION="42 (Workstation Edition)"
ID=fedora
VERSION_ID=42
PRETTY_NAME="Fedora Linux 42 (Workstation Edition)"
"""
DEBIAN_13_OS_RELEASE = """\
PRETTY_NAME="Debian GNU/Linux 13 (trixie)"
NAME="Debian GNU/Linux"
VERSION_ID="13"
VERSION="13 (trixie)"
VERSION_CODENAME=trixie
ID=debian
"""

EL9_KERNEL = "5.14.0-570.12.1.el9_6.x86_64"
SLES_KERNEL = "6.4.0-150600.23.25-default"
KEY = ("gpg-pubkey", "1a693c5c", "5d438912", "noarch")
GPGKEY = "https://repo.radeon.com/rocm/rocm.gpg.key"


class RpmTestbed(CompatTestbed):
    """A testbed whose root also holds a real rpm database."""

    def __init__(self):
        super().__init__()
        self.rpm_packages = []
        self.big_files = []

    def write(self, outdir):
        if not rpmlib.have_rpm_tools():
            print("SKIP: rpm and rpmbuild are needed (the rpm and rpm2cpio packages)")
            raise SystemExit(77)
        paths = super().write(outdir)
        rpmlib.install(paths["root"], self.rpm_packages)
        for path, size in self.big_files:
            with open(os.path.join(paths["root"], path), "wb") as f:
                f.write(b"[big]\nbaseurl=https://example.com/\n")
                f.truncate(size)
        return paths


def el_repos(tb, rocm="7.0.2", amdgpu="30.10.2", tree="9.6", major="9", gpgcheck=1, key=True, rocm_folder=None):
    """/etc/yum.repos.d/rocm.repo ([rocm] and [amdgraphics], 7.x) and
    amdgpu.repo as AMD's guides write them: rocm is the ROCm folder's name
    (7.0.2; 7.1 for 7.1.0), amdgpu the driver's (30.10.2), tree the OS tree;
    rocm_folder, when given, replaces the folder of [rocm] alone."""
    tb.root_file("etc/yum.repos.d/rocm.repo",
                 "[rocm]\nname=ROCm %s repository\nbaseurl=https://repo.radeon.com/rocm/el%s/%s/main\n"
                 "enabled=1\npriority=50\ngpgcheck=%d\ngpgkey=%s\n\n"
                 "[amdgraphics]\nname=AMD Graphics %s repository\n"
                 "baseurl=https://repo.radeon.com/graphics/%s/el/%s/main/x86_64/\n"
                 "enabled=1\npriority=50\ngpgcheck=%d\ngpgkey=%s\n"
                 % (rocm, major, rocm_folder or rocm, gpgcheck, GPGKEY, rocm, rocm, tree, gpgcheck, GPGKEY))
    tb.root_file("etc/yum.repos.d/amdgpu.repo",
                 "[amdgpu]\nname=amdgpu\nbaseurl=https://repo.radeon.com/amdgpu/%s/el/%s/main/x86_64/\n"
                 "enabled=1\npriority=50\ngpgcheck=%d\ngpgkey=%s\n" % (amdgpu, tree, gpgcheck, GPGKEY))
    tb.root_file("etc/dnf/dnf.conf", "[main]\ngpgcheck=1\ninstallonly_limit=3\nclean_requirements_on_remove=True\n"
                 "best=True\nskip_if_unavailable=False\n")


def el_prereqs(tb, crb=True, epel=True, rhel=True):
    if rhel:
        tb.root_file("etc/yum.repos.d/redhat.repo",
                     "#\n# Certificate-Based Repositories\n#\n"
                     "[rhel-9-for-x86_64-baseos-rpms]\nname = Red Hat Enterprise Linux 9 for x86_64 - BaseOS (RPMs)\n"
                     "baseurl = https://cdn.redhat.com/content/dist/rhel9/$releasever/x86_64/baseos/os\n"
                     "enabled = 1\ngpgcheck = 1\n\n"
                     "[codeready-builder-for-rhel-9-x86_64-rpms]\n"
                     "name = Red Hat CodeReady Linux Builder for RHEL 9 x86_64 (RPMs)\n"
                     "baseurl = https://cdn.redhat.com/content/dist/rhel9/$releasever/x86_64/codeready-builder/os\n"
                     "enabled = %d\ngpgcheck = 1\n" % (1 if crb else 0))
    else:
        tb.root_file("etc/yum.repos.d/rocky.repo",
                     "[baseos]\nname=Rocky Linux $releasever - BaseOS\n"
                     "mirrorlist=https://mirrors.rockylinux.org/mirrorlist?arch=$basearch&repo=BaseOS-$releasever$rltype\n"
                     "gpgcheck=1\nenabled=1\n\n"
                     "[crb]\nname=Rocky Linux $releasever - CRB\n"
                     "mirrorlist=https://mirrors.rockylinux.org/mirrorlist?arch=$basearch&repo=CRB-$releasever$rltype\n"
                     "gpgcheck=1\nenabled=%d\n" % (1 if crb else 0))
    if epel:
        tb.root_file("etc/yum.repos.d/epel.repo",
                     "[epel]\nname=Extra Packages for Enterprise Linux $releasever - $basearch\n"
                     "metalink=https://mirrors.fedoraproject.org/metalink?repo=epel-$releasever&arch=$basearch\n"
                     "enabled=1\ngpgcheck=1\ngpgkey=file:///etc/pki/rpm-gpg/RPM-GPG-KEY-EPEL-9\n")
        tb.root_file("etc/pki/rpm-gpg/RPM-GPG-KEY-EPEL-9", "-----BEGIN PGP PUBLIC KEY BLOCK-----\n")


def el_packages(rocm="7.0.2", build="56", dkms="6.14.14", kernel_devel=True, key=True, prereq_pkgs=False):
    parts = rocm.split(".")
    num = "%d%02d%02d" % (int(parts[0]), int(parts[1]), int(parts[2]))
    pk = [("rocm-core", "%s.%s" % (rocm, num), "%s.el9" % build),
          ("hip-runtime-amd", "6.4.43484.%s" % num, "%s.el9" % build),
          ("hsa-rocr", "1.18.0.%s" % num, "%s.el9" % build),
          ("amdgpu-dkms", "%s.%s" % (dkms, num), "2204008.el9", "noarch")]
    if kernel_devel:
        v, r = EL9_KERNEL.rsplit(".", 1)[0].split("-", 1)
        pk.append(("kernel-devel", v, r))
    if key:
        pk.append(KEY)
    if prereq_pkgs:
        pk += [("perl-File-BaseDir", "0.09", "1.el9", "noarch"), ("perl-URI-Encode", "1.1.1", "1.el9", "noarch")]
    return pk


def kernel_build_dir(tb, kernel):
    tb.root_file("usr/src/kernels/%s/Makefile" % kernel, "# kernel headers\n")
    tb.root_link("lib/modules/%s/build" % kernel, "/usr/src/kernels/%s" % kernel)


def rhel_mi300x(tb, os_release=RHEL_96_OS_RELEASE, rhel=True, **kw):
    """Eight MI300X on RHEL 9.6 with ROCm 7.0.2 and its amdgpu-dkms 6.14.14
    loaded, from AMD's repositories, CRB and EPEL enabled."""
    mi300x_box(tb, cpx=False)
    tb.root_file("etc/os-release", os_release)
    tb.kernel(release=EL9_KERNEL)
    tb.module_amdgpu("live", version="6.14.14")
    rocm_install(tb, "7.0.2", build="56")
    dkms_tree(tb, "6.14.14-2204008.el9", kernel=EL9_KERNEL)
    kernel_build_dir(tb, EL9_KERNEL)
    el_repos(tb)
    el_prereqs(tb, rhel=rhel)
    tb.rpm_packages = el_packages(**kw)


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


# --------------------------------------------------------------------------
# SLES

# ROCm release -> (rocm-core build, hip version, amdgpu-dkms) of the SLES
# boxes; dkms is support.ini's, builds and hip versions representative.
SLES_ROCM = {
    "6.4.3": ("128", "6.4.43483", "6.12.12"),
    "6.3.3": ("74", "6.3.42134", "6.10.5"),
}


def sles_mi300x(tb, tree="15.6", rocm="6.4.3"):
    """Eight MI300X on SLES 15 SP6 with ROCm and its amdgpu-dkms from AMD's
    zypper repositories (rocm/zyp/F/main, amdgpu/D/sle/TREE/main/x86_64)."""
    build, hip, dkms = SLES_ROCM[rocm]
    folder, driver = amd_folders(rocm)
    num = "%d%02d%02d" % tuple(int(x) for x in rocm.split("."))
    mi300x_box(tb, cpx=False)
    tb.root_file("etc/os-release", SLES_156_OS_RELEASE)
    tb.kernel(release=SLES_KERNEL)
    tb.module_amdgpu("live", version=dkms)
    rocm_install(tb, rocm, build=build)
    dkms_tree(tb, "%s-2187269.sles156" % dkms, kernel=SLES_KERNEL)
    tb.root_file("etc/zypp/repos.d/rocm.repo",
                 "[ROCm-%s]\nname=ROCm%s\nbaseurl=https://repo.radeon.com/rocm/zyp/%s/main\n"
                 "enabled=1\ngpgcheck=1\ngpgkey=%s\n" % (rocm, rocm, folder, GPGKEY))
    tb.root_file("etc/zypp/repos.d/amdgpu.repo",
                 "[amdgpu]\nname=amdgpu\nbaseurl=https://repo.radeon.com/amdgpu/%s/sle/%s/main/x86_64/\n"
                 "enabled=1\ngpgcheck=1\ngpgkey=%s\n" % (driver, tree, GPGKEY))
    v, r = "6.4.0", "150600.23.25.1"
    tb.rpm_packages = [("rocm-core", "%s.%s" % (rocm, num), "%s.sles156" % build),
                       ("hip-runtime-amd", "%s.%s" % (hip, num), "%s.sles156" % build),
                       ("amdgpu-dkms", "%s.%s" % (dkms, num), "2187269.sles156", "noarch"),
                       ("kernel-default-devel", v, r), KEY]


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


def fedora42_own_rocm(tb, *more_libs):
    """Fedora 42's own ROCm 6.3 packages (rocm-runtime, rocm-hip) under
    /usr/lib64 and Fedora's repository, no AMD one."""
    for lib in ("libhsa-runtime64.so.1.14.0", "libamdhip64.so.6.3.42134") + more_libs:
        tb.root_file("usr/lib64/" + lib, "\x7fELF")
    tb.root_link("usr/lib64/libhsa-runtime64.so.1", "libhsa-runtime64.so.1.14.0")
    tb.root_link("usr/lib64/libamdhip64.so.6", "libamdhip64.so.6.3.42134")
    tb.root_file("etc/yum.repos.d/fedora.repo",
                 "[fedora]\nname=Fedora $releasever - $basearch\n"
                 "metalink=https://mirrors.fedoraproject.org/metalink?repo=fedora-$releasever&arch=$basearch\n"
                 "enabled=1\ngpgcheck=1\n")
    tb.rpm_packages = [("rocm-runtime", "6.3.1", "4.fc42"), ("rocm-hip", "6.3.1", "4.fc42")]


# --------------------------------------------------------------------------
# Debian family

@scenario("healthy-debian13-rocm71")
def healthy_debian13_rocm71():
    """Debian 13 set up as AMD's guide says for ROCm 7.1: the noble suite."""
    tb = CompatTestbed()
    healthy_rx7900xtx_box(tb)
    tb.root_file("etc/os-release", DEBIAN_13_OS_RELEASE)
    tb.kernel(release="6.12.48+deb13-amd64")
    rocm_install(tb, "7.1.0")
    apt_rocm(tb, "7.1.0", "noble")
    dpkg_status(tb, rocm_packages("7.1.0", codename_version="24.04"))
    return Scenario(tb, [], 0, gpu_count=1, env={"PATH": PATH_WITH_ROCM})


@scenario("ubuntu-kernel-headers-missing")
def ubuntu_kernel_headers_missing():
    """Ubuntu 24.04 after a kernel update without linux-headers: DKMS did not
    build amdgpu for the running kernel."""
    tb = CompatTestbed()
    unbound_rx7900xtx_box(tb)
    tb.kernel(release="6.8.0-51-generic")
    from scenarios_compat import rocm_box
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
    from scenarios_compat import rocm_box
    rocm_box(tb, dkms="6.8.5")
    dkms_tree(tb, "6.8.5-2041575.24.04", kernel="6.8.0-45-generic")
    tb.root_file("usr/src/linux-headers-6.8.0-51-generic/Makefile", "")
    tb.root_link("lib/modules/6.8.0-51-generic/build", "/usr/src/linux-headers-6.8.0-51-generic")
    return Scenario(tb, [("driver.not-loaded", "error")], 2, env={"PATH": PATH_WITH_ROCM})
