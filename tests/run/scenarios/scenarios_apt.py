"""Scenarios of apt hosts (Debian, Ubuntu): AMD's repository, its suite, path,
key and pin, deb822 sources.
"""

from scenarios import Scenario, healthy_navi21_box, healthy_rx7900xtx_box, scenario
from beds_distros import DEBIAN_TESTING, UBUNTU_2504, rocm_install_new_gfx, rx9070xt_box
from beds_hosts import host_os, report
from beds_rocm import (
    CompatTestbed, PATH_WITH_ROCM, PATH_WITHOUT_ROCM, UBUNTU_2204_OS_RELEASE, apt_rocm, debian_box,
    dpkg_status, pgp_key_block, pin_stand_in_key, rocm_box, rocm_install, rocm_packages,
)
from beds_rpm import DEBIAN_13_OS_RELEASE


def signed_rocm_list(tb, *folders):
    """AMD's key in /etc/apt/keyrings/rocm.gpg (the beds' stand-in, pinned),
    the 600 pin on repo.radeon.com, and rocm.list with a signed source for
    each "FOLDER SUITE" of folders (on https://repo.radeon.com/, component
    main)."""
    tb.root_file("etc/apt/keyrings/rocm.gpg", pgp_key_block())
    pin_stand_in_key(tb)
    tb.root_file("etc/apt/preferences.d/rocm-pin-600",
                 "Package: *\nPin: release o=repo.radeon.com\nPin-Priority: 600\n")
    tb.root_file("etc/apt/sources.list.d/rocm.list",
                 "".join("deb [arch=amd64 signed-by=/etc/apt/keyrings/rocm.gpg] https://repo.radeon.com/%s main\n" % f
                         for f in folders))


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
    signed_rocm_list(tb, "rocm/apt/7.3 noble", "graphics/7.3/ubuntu noble")
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
    rocm_install_new_gfx(tb, "7.1.0")
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
    rocm_install_new_gfx(tb, "7.0.2")
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


# --------------------------------------------------------------------------
# the open world: releases before the tables, moving folders, unknown folders
@scenario("ubuntu2204-rocm56-old-guide")
def ubuntu2204_rocm56_old_guide():
    """Ubuntu 22.04 set up by an old guide for ROCm 5.6: a one-line source with
    the suite "ubuntu" (which 5.3 and later answer with focal's index), AMD's
    key added with apt-key to trusted.gpg, no signed-by, no pin, ROCm 5.6.0
    installed. Judged within 5.6: the suite is jammy for 5.6 on 22.04."""
    tb = CompatTestbed()
    healthy_navi21_box(tb)
    tb.root_file("etc/os-release", UBUNTU_2204_OS_RELEASE)
    tb.kernel(release="5.15.0-76-generic")
    rocm_install(tb, "5.6.0", build="67")
    dpkg_status(tb, rocm_packages("5.6.0", build="67", codename_version="22.04"))
    tb.root_file("etc/apt/trusted.gpg.d/rocm.asc", pgp_key_block())
    pin_stand_in_key(tb)
    tb.root_file("etc/apt/sources.list.d/rocm.list", "deb [arch=amd64] https://repo.radeon.com/rocm/apt/5.6 ubuntu main\n")
    return Scenario(tb, [("apt.suite-mismatch", "error"), ("apt.key-deprecated", "warning"),
                         ("apt.no-signed-by", "warning"), ("apt.pin-missing", "warning")], 2,
                    evidence=[("apt.suite-mismatch", "/etc/apt/sources.list.d/rocm.list:1: deb "
                               "https://repo.radeon.com/rocm/apt/5.6 ubuntu main: suite ubuntu, "
                               "ROCm 5.6 on jammy uses jammy")],
                    env={"PATH": PATH_WITH_ROCM})


@scenario("apt-latest-noble")
def apt_latest_noble():
    """Ubuntu 24.04 following AMD's moving folders (rocm/apt/latest and
    graphics/latest/ubuntu, suite noble), signed and pinned; apt's index says
    they serve 7.2.4 today: right for this OS, but the host changes release
    at every upgrade (said as info)."""
    tb = CompatTestbed()
    healthy_rx7900xtx_box(tb)
    rocm_install(tb, "7.2.0")
    dpkg_status(tb, rocm_packages("7.2.0"))
    signed_rocm_list(tb, "rocm/apt/latest noble", "graphics/latest/ubuntu noble")
    tb.root_file("var/lib/apt/lists/repo.radeon.com_rocm_apt_latest_dists_noble_InRelease",
                 "Origin: repo.radeon.com\nLabel: repo.radeon.com\nSuite: noble\nCodename: noble\nVersion: 7.2.4\n"
                 "Architectures: amd64\nComponents: main\n")
    return Scenario(tb, [("rocm.release-moving", "info")], 0, compare_info=True,
                    evidence=[("rocm.release-moving", "/etc/apt/sources.list.d/rocm.list:1: "
                               "https://repo.radeon.com/rocm/apt/latest (serves ROCm 7.2.4 today, by the index "
                               "apt fetched last)"),
                              ("rocm.release-moving", "/etc/apt/sources.list.d/rocm.list:2: "
                               "https://repo.radeon.com/graphics/latest/ubuntu")],
                    env={"PATH": PATH_WITH_ROCM})


@scenario("apt-latest-jammy-on-noble")
def apt_latest_jammy_on_noble():
    """Ubuntu 24.04 with AMD's moving folder under the 22.04 suite (a guide
    copied from a jammy host): judged as the newest release the tables know,
    the suite is wrong."""
    tb = CompatTestbed()
    healthy_rx7900xtx_box(tb)
    rocm_install(tb, "7.2.0")
    dpkg_status(tb, rocm_packages("7.2.0"))
    signed_rocm_list(tb, "rocm/apt/latest jammy")
    return Scenario(tb, [("apt.suite-mismatch", "error"), ("rocm.release-moving", "info")], 2, compare_info=True,
                    evidence=[("apt.suite-mismatch", "/etc/apt/sources.list.d/rocm.list:1: deb "
                               "https://repo.radeon.com/rocm/apt/latest jammy main: suite jammy, "
                               "ROCm 7.2 on noble uses noble"),
                              ("rocm.release-moving", "/etc/apt/sources.list.d/rocm.list:1: "
                               "https://repo.radeon.com/rocm/apt/latest")],
                    env={"PATH": PATH_WITH_ROCM})


@scenario("debian13-rocm631-sources")
def debian13_rocm631_sources():
    """Debian 13 with ROCm 6.3.1's sources (rocm/apt/6.3.1 jammy, as for
    Debian 12): 6.3 has no packages for Debian 13; the first release that has
    is 7.0.2 (noble suite)."""
    tb = CompatTestbed()
    healthy_rx7900xtx_box(tb)
    tb.root_file("etc/os-release", DEBIAN_13_OS_RELEASE)
    tb.kernel(release="6.12.48+deb13-amd64")
    signed_rocm_list(tb, "rocm/apt/6.3.1 jammy")
    return Scenario(tb, [("apt.suite-mismatch", "error"), ("rocm.not-installed", "warning")], 2,
                    evidence=[("apt.suite-mismatch", "/etc/apt/sources.list.d/rocm.list:1: deb "
                               "https://repo.radeon.com/rocm/apt/6.3.1 jammy main: ROCm 6.3 has no packages for "
                               "debian 13; the first release that has is ROCm 7.0 (7.0.2)")],
                    remedy=[("apt.suite-mismatch", "Move to ROCm 7.0.2 or later")],
                    env={"PATH": PATH_WITHOUT_ROCM})


@scenario("apt-rocm45-and-unknown-folder")
def apt_rocm45_and_unknown_folder():
    """A host still on ROCm 4.5's folder (older than any release the tools
    support) and a folder on AMD's server the tables do not know: both said,
    neither judged nor rewritten."""
    tb = CompatTestbed()
    healthy_navi21_box(tb)
    tb.root_file("etc/os-release", UBUNTU_2204_OS_RELEASE)
    tb.kernel(release="5.15.0-76-generic")
    signed_rocm_list(tb, "rocm/apt/4.5 ubuntu", "rocm/apt/beta jammy")
    return Scenario(tb, [("rocm.not-installed", "warning"), ("rocm.release-unsupported", "warning"),
                         ("tables.folder-unknown", "info")], 1, compare_info=True,
                    evidence=[("rocm.release-unsupported", "/etc/apt/sources.list.d/rocm.list:1: "
                               "https://repo.radeon.com/rocm/apt/4.5 names ROCm 4.5"),
                              ("tables.folder-unknown", "/etc/apt/sources.list.d/rocm.list:2: "
                               "https://repo.radeon.com/rocm/apt/beta")],
                    env={"PATH": PATH_WITHOUT_ROCM})
