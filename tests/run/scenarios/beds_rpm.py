"""Builders of rpm-based hosts (RHEL and its rebuilds, SLES, Fedora) and of
the kernel headers DKMS needs (all families).

The rpm database of each root is real: small packages built with rpmbuild
(tests/run/fix/specs/package.spec) under the names and versions the hosts
have, installed with `rpm --root ROOT --dbpath /var/lib/rpm`. AMD's signing key
appears in the database as gpg-pubkey-1a693c5c-5d438912, the name rpm gives it
(https://github.com/ROCm/legacy-rocm-build/issues/1762); here it is a test key
of the same short id (1a693c5c, the part of the name the check reads),
imported with the real `rpmkeys --import` (rpmlib.install). Repository files
are written as AMD's install guides write them; package build numbers are
representative.
"""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "fix"))

import rpmlib  # noqa: E402
from scenarios import mi300x_box
from beds_rocm import CompatTestbed, amd_folders, dkms_tree, rocm_install


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
