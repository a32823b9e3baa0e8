#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The one release decision (src/core/release.c) through the repository
fixes: a host on ROCm 5.7.1, 6.4.1 or 7.2.3, installed, with a broken key
and no rocm_release configured, keeps its release under apt, dnf and
zypper; nothing of the tables' newest release (7.2.4) is written. The
folders each release must get are written here by hand from AMD's
instructions (conf/repos.ini cites them), never read from the table, so the
test checks the table too.

Usage: test-release.py ROCM_DOCTOR. Exit 0 pass, 1 fail, 77 skipped."""

import os
import shutil
import sys
import tempfile

sys.dont_write_bytecode = True
import rpmlib  # noqa: E402
from rpmfix import make_key, need_tools, rdtest, run, write  # noqa: E402

RD = os.path.abspath(sys.argv[1])

UBUNTU_2204 = 'NAME="Ubuntu"\nID=ubuntu\nID_LIKE=debian\nVERSION_ID="22.04"\nVERSION_CODENAME=jammy\n'
RHEL = 'NAME="Red Hat Enterprise Linux"\nID="rhel"\nID_LIKE="fedora"\nVERSION_ID="%s"\n'
SLES = 'NAME="SLES"\nID="sles"\nID_LIKE="suse"\nVERSION_ID="%s"\n'

# release -> (rocm-core version, apt folders, the EL host and its folders, the SLES host and its folders)
HOSTS = {
    "5.7.1": ("5.7.1.50701",
              ["rocm/apt/5.7.1", "amdgpu/5.7.1/ubuntu"],
              ("9.2", ["rocm/rhel9/5.7.1/main", "amdgpu/5.7.1/rhel/9.2/main/x86_64/"]),
              ("15.5", ["rocm/zyp/5.7.1/main", "amdgpu/5.7.1/sle/15.5/main/x86_64/"])),
    "6.4.1": ("6.4.1.60401",
              ["rocm/apt/6.4.1", "amdgpu/6.4.1/ubuntu"],
              ("9.6", ["rocm/el9/6.4.1/main", "amdgpu/6.4.1/el/9.6/main/x86_64/"]),
              ("15.6", ["rocm/zyp/6.4.1/main", "amdgpu/6.4.1/sle/15.6/main/x86_64/"])),
    "7.2.3": ("7.2.3.70203",
              ["rocm/apt/7.2.3", "graphics/7.2.3/ubuntu", "amdgpu/30.30.3/ubuntu"],
              ("9.6", ["rocm/el9/7.2.3/main", "graphics/7.2.3/el/9.6/main/x86_64/",
                       "amdgpu/30.30.3/el/9.6/main/x86_64/"]),
              ("15.7", ["rocm/zyp/7.2.3/main", "graphics/7.2.3/sle/15.7/main/x86_64/",
                        "amdgpu/30.30.3/sle/15.7/main/x86_64/"])),
}
NEWEST = ("7.2.4", "30.30.4")


def conf(root, fpr):
    write(root, "/etc/rocm-doctor/rocm-doctor.conf", "[fix]\napt_key_fingerprint = %s\n" % fpr)


def plan(root, kind, armored):
    p = run(RD, "fix", "--root", root, "--only", kind, "--key-file", armored)
    rdtest.check(p.returncode == 1, "%s: a plan (exit 1)" % kind, p.stdout + p.stderr)
    return p.stdout


def written(text, key):
    return [line[len(key):].strip() for line in text.splitlines() if line.startswith(key)]


def keeps(kind, release, text, key, folders):
    urls = written(text, key)
    rdtest.check("for ROCm %s" % release in text, "%s %s: the plan names the host's release" % (kind, release), text)
    for f in folders:
        rdtest.check("https://repo.radeon.com/" + f in urls, "%s %s: writes %s" % (kind, release, f), "\n".join(urls))
    for u in urls:
        rdtest.check(not any(n in u for n in NEWEST), "%s %s: nothing of the newest release (%s)" % (kind, release, u))


@rdtest.test
def apt_keeps_the_hosts_release():
    """Ubuntu 22.04 with AMD's sources of the release, the keyring they name
    broken (a key file of zeros): the deb822 source keeps the release's
    folders."""
    if not shutil.which("gpg"):
        rdtest.skip("needs gpg")
    for release, (core, apt, _el, _sles) in HOSTS.items():
        tmp = tempfile.mkdtemp(prefix="rd-release-apt.")
        try:
            root = os.path.join(tmp, "root")
            armored, fpr = make_key(os.path.join(tmp, "gnupg"))
            write(root, "/etc/os-release", UBUNTU_2204)
            conf(root, fpr)
            write(root, "/etc/apt/keyrings/rocm.gpg", "\0" * 64)
            write(root, "/etc/apt/sources.list.d/rocm.list",
                  "".join("deb [arch=amd64 signed-by=/etc/apt/keyrings/rocm.gpg] https://repo.radeon.com/%s jammy main\n"
                          % f for f in apt))
            write(root, "/var/lib/dpkg/status",
                  "Package: rocm-core\nStatus: install ok installed\nVersion: %s-1~22.04\nArchitecture: amd64\n\n"
                  % core)
            keeps("apt", release, plan(root, "apt", armored), "+URIs:", apt)
        finally:
            shutil.rmtree(tmp, ignore_errors=True)


def rpm_host(kind, os_release, repo_dir, release, core, folders):
    tmp = tempfile.mkdtemp(prefix="rd-release-%s." % kind)
    try:
        root = os.path.join(tmp, "root")
        armored, fpr = make_key(os.path.join(tmp, "gnupg"))
        write(root, "/etc/os-release", os_release)
        conf(root, fpr)
        # the key AMD's repositories name is missing, and checks are off
        write(root, repo_dir + "/amd.repo",
              "".join("[amd%d]\nname=amd%d\nbaseurl=https://repo.radeon.com/%s\nenabled=1\ngpgcheck=0\n"
                      "gpgkey=file:///etc/pki/rpm-gpg/RPM-GPG-KEY-missing\n\n" % (i, i, f)
                      for i, f in enumerate(folders)))
        rpmlib.install(root, [("rocm-core", core, "1.el9" if kind == "dnf" else "1.sles")])
        keeps(kind, release, plan(root, kind, armored), "+baseurl=", folders)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


@rdtest.test(root=True)
def dnf_keeps_the_hosts_release():
    need_tools()
    for release, (core, _apt, (tree, folders), _sles) in HOSTS.items():
        rpm_host("dnf", RHEL % tree, "/etc/yum.repos.d", release, core, folders)


@rdtest.test(root=True)
def zypper_keeps_the_hosts_release():
    need_tools()
    for release, (core, _apt, _el, (tree, folders)) in HOSTS.items():
        rpm_host("zypper", SLES % tree, "/etc/zypp/repos.d", release, core, folders)


@rdtest.test
def installed_release_without_sources():
    """No AMD source left, ROCm 6.4.1 installed (rocm-core): the apt fix
    writes 6.4.1's folders, never the newest."""
    if not shutil.which("gpg"):
        rdtest.skip("needs gpg")
    tmp = tempfile.mkdtemp(prefix="rd-release-installed.")
    try:
        root = os.path.join(tmp, "root")
        armored, fpr = make_key(os.path.join(tmp, "gnupg"))
        write(root, "/etc/os-release", UBUNTU_2204)
        conf(root, fpr)
        os.makedirs(os.path.join(root, "etc/apt/sources.list.d"), exist_ok=True)
        write(root, "/var/lib/dpkg/status",
              "Package: rocm-core\nStatus: install ok installed\nVersion: 6.4.1.60401-83~22.04\nArchitecture: amd64\n\n")
        keeps("apt", "6.4.1", plan(root, "apt", armored), "+URIs:", ["rocm/apt/6.4.1"])
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(rdtest.main())
