#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""A release newer than the tables, read from AMD's installer package
(src/fix/installer.c): against a stand-in of AMD's server on 127.0.0.1
(amdserver.py: Apache-style indexes of amdgpu-install/, a real .deb and
.rpm of ROCm 7.3.0 with driver 30.40), through the test program
installer-read and through `rocm-doctor list releases --server`.

Usage: test-installer.py ROCM_DOCTOR INSTALLER_READ"""
import json
import os
import shutil
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "..", "lib"))
import rdtest  # noqa: E402

RD, READ = sys.argv[1], sys.argv[2]
SERVER = None


def server():
    global SERVER
    if SERVER is None:
        for tool in ("dpkg-deb", "rpmbuild", "rpm2archive", "tar", "curl"):
            if not shutil.which(tool):
                rdtest.skip("%s is not installed" % tool)
        import amdserver
        top = rdtest.temp_dir("rd-amdserver.")
        SERVER = amdserver.AmdServer(top, os.path.join(top, "script-ran"))
        SERVER.serve()
    return SERVER


def read(*args):
    """installer-read's lines as (r, {key: value or [values]})."""
    status, out, err = rdtest.run(READ, *args, timeout=300)
    if status != 0:
        rdtest.fail("installer-read %s exited %d" % (" ".join(args), status), out + err)
    fields = {}
    for line in out.splitlines():
        key, _, value = line.partition("=")
        if key in ("repo", "release") and args[0] == "list" or key == "repo":
            fields.setdefault(key, []).append(value)
        else:
            fields[key] = value
    return fields.get("r"), fields


@rdtest.test
def test_apt_folders():
    s = server()
    r, f = read("read", s.base, "7.3.0", "ubuntu", "22.04", "jammy")
    rdtest.eq(r, "0", "read: %s" % f.get("reason"))
    rdtest.eq(f.get("release"), "7.3.0", "the release")
    rdtest.eq(f.get("folder"), "7.3", "AMD's folder for 7.3.0")
    rdtest.eq(f.get("installer"), s.base + "/amdgpu-install/7.3/ubuntu/jammy/amdgpu-install_7.3.70300-1_all.deb",
              "the package read")
    rdtest.eq(f.get("repo"), [
        "apt amdgpu %s/amdgpu/30.40/ubuntu suite=jammy components=main file=/etc/apt/sources.list.d/amdgpu.list"
        % s.base,
        "apt rocm %s/rocm/apt/7.3 suite=jammy components=main file=/etc/apt/sources.list.d/rocm.list" % s.base,
        "apt graphics %s/graphics/7.3/ubuntu suite=jammy components=main file=/etc/apt/sources.list.d/rocm.list"
        % s.base,
    ], "the folders of amdgpu.list and rocm.list, on the mirror, the proprietary list and deb-src left out")
    rdtest.check(not os.path.exists(s.marker), "no maintainer script ran")
    # "7.3" is 7.3.0; Debian 12 gets Ubuntu's jammy, as support.ini says
    r, f = read("read", s.base, "7.3", "debian", "12", "bookworm")
    rdtest.eq((r, f.get("installer", "").rsplit("/", 3)[-3:]),
              ("0", ["ubuntu", "jammy", "amdgpu-install_7.3.70300-1_all.deb"]), "Debian 12: the jammy installer")


@rdtest.test
def test_el_folders():
    s = server()
    r, f = read("read", s.base, "7.3.0", "rhel", "9.6")
    rdtest.eq(r, "0", "read: %s" % f.get("reason"))
    rdtest.eq(f.get("installer"), s.base + "/amdgpu-install/7.3/el/9.6/amdgpu-install-7.3.70300-1.el9.noarch.rpm",
              "the package read")
    rdtest.eq(f.get("repo"), [
        "el amdgpu %s/amdgpu/30.40/el/9.6/main/x86_64/ suite=- components=- file=/etc/yum.repos.d/amdgpu.repo"
        % s.base,
        "el rocm %s/rocm/el9/7.3/main suite=- components=- file=/etc/yum.repos.d/rocm.repo" % s.base,
        "el graphics %s/graphics/7.3/el/9.6/main/x86_64/ suite=- components=- file=/etc/yum.repos.d/rocm.repo"
        % s.base,
    ], "the folders of amdgpu.repo ($amdgpudistro: the tree) and rocm.repo, the disabled source repo left out")
    rdtest.check(not os.path.exists(s.marker), "no %pre or %post ran")
    # Rocky 9.4: the nearest tree of its major the release has
    r, f = read("read", s.base, "7.3.0", "rocky", "9.4")
    rdtest.eq((r, f.get("installer", "").split("/amdgpu-install/")[-1]),
              ("0", "7.3/el/9.6/amdgpu-install-7.3.70300-1.el9.noarch.rpm"), "Rocky 9.4: the 9.6 installer")


@rdtest.test
def test_sles_folders():
    s = server()
    # SLES 15.6: the release's nearest tree of that major, 15.7
    r, f = read("read", s.base, "7.3.0", "sles", "15.6")
    rdtest.eq(r, "0", "read: %s" % f.get("reason"))
    rdtest.eq(f.get("installer"), s.base + "/amdgpu-install/7.3/sle/15.7/amdgpu-install-7.3.70300-1.noarch.rpm",
              "the package read")
    rdtest.eq(f.get("repo"), [
        "sles amdgpu %s/amdgpu/30.40/sle/15.7/main/x86_64/ suite=- components=- file=/etc/zypp/repos.d/amdgpu.repo"
        % s.base,
        "sles rocm %s/rocm/zyp/7.3/main suite=- components=- file=/etc/zypp/repos.d/rocm.repo" % s.base,
        "sles graphics %s/graphics/7.3/sle/15.7/main/x86_64/ suite=- components=- file=/etc/zypp/repos.d/rocm.repo"
        % s.base,
    ], "the folders of the zypper .repo files")
    rdtest.check(not os.path.exists(s.marker), "no %pre or %post ran")


@rdtest.test
def test_missing():
    s = server()
    r, f = read("read", s.base, "7.9.0", "ubuntu", "22.04", "jammy")
    rdtest.eq(r, "ENOENT", "a release the server lacks")
    rdtest.eq(f.get("reason"), "ROCm 7.9.0 is not on %s: amdgpu-install/ has no folder for it (its releases: 6.4.1 "
              "7.2.0 7.2.3 7.3.0)" % s.base, "the reason names it and what the server has")
    r, f = read("read", s.base, "7.3.0", "ubuntu", "24.04", "noble")
    rdtest.eq((r, f.get("reason")), ("ENOENT", "ROCm 7.3.0 has no installer for the apt suite noble on %s (its Ubuntu "
                                     "suites: jammy)" % s.base), "an OS the release has no installer for")
    r, f = read("read", s.base, "7.3.0", "rhel", "8.10")
    rdtest.eq((r, f.get("reason")), ("ENOENT", "ROCm 7.3.0 has no installer for EL 8.10 on %s (its trees: el/9.6)"
                                     % s.base), "an EL major the release has no tree for")
    r, f = read("read", s.base, "7.3.0", "sles", "12.5")
    rdtest.eq((r, f.get("reason")), ("ENOENT", "ROCm 7.3.0 has no installer for SLES 12.5 on %s (its trees: sle/15.7)"
                                     % s.base), "a SLES major the release has no tree for")


@rdtest.test
def test_unreachable():
    from standin import closed_port
    base = "http://127.0.0.1:%d" % closed_port()
    r, f = read("read", base, "7.3.0", "ubuntu", "22.04", "jammy")
    rdtest.eq(r, "EHOSTUNREACH", "a closed port")
    rdtest.check(f.get("reason", "").startswith("cannot reach the repository server for the index of AMD's "
                                                "installers (%s/amdgpu-install/): curl: (7)" % base),
                 "the reason says the server cannot be reached", f.get("reason"))
    r, f = read("list", base)
    rdtest.eq(r, "EHOSTUNREACH", "list: a closed port")


@rdtest.test
def test_malformed():
    s = server()
    r, f = read("read", s.broken_base, "7.3.0", "ubuntu", "22.04", "jammy")
    rdtest.eq(r, "EBADMSG", "a .deb cut in half")
    rdtest.check("the package is truncated" in f.get("reason", ""), "the reason says so", f.get("reason"))
    r, f = read("read", s.broken_base, "7.3.0", "rhel", "9.6")
    rdtest.eq(r, "EBADMSG", "an .rpm cut in half")
    rdtest.check("rpm2archive cannot read the package" in f.get("reason", ""), "the reason says so", f.get("reason"))
    rdtest.check(not os.path.exists(s.marker), "no maintainer script ran")


def config_for(base):
    d = rdtest.temp_dir("rd-installer-conf.")
    path = os.path.join(d, "rocm-doctor.conf")
    with open(path, "w") as f:
        f.write("[repository]\nmirror = %s\n" % base)
    return path


@rdtest.test
def test_list_server():
    s = server()
    r, f = read("list", s.base)
    rdtest.eq((r, f.get("release")), ("0", ["6.4.1", "7.2.0", "7.2.3", "7.3.0"]), "the index's releases")
    conf = config_for(s.base)
    status, out, err = rdtest.run(RD, "list", "releases", "--server", "--config", conf, timeout=120)
    rdtest.eq((status, err), (0, ""), "list releases --server")
    rdtest.eq(out, "Releases on %s that the tables lack (repos.ini of %s): 7.3.0\n" % (s.base, table_date()),
              "the releases the tables lack")
    status, out, err = rdtest.run(RD, "list", "releases", "--server", "--config", conf, "--json", timeout=120)
    rdtest.eq(status, 0, "list releases --server --json")
    j = json.loads(out)
    rdtest.eq(j, {"server": s.base, "releases": ["6.4.1", "7.2.0", "7.2.3", "7.3.0"], "not_in_tables": ["7.3.0"],
                  "repositories_table": j.get("repositories_table")}, "the JSON")
    rdtest.check(j.get("repositories_table", {}).get("date") == table_date(), "the table's date", out)


@rdtest.test
def test_list_server_unreachable():
    from standin import closed_port
    base = "http://127.0.0.1:%d" % closed_port()
    status, out, err = rdtest.run(RD, "list", "releases", "--server", "--config", config_for(base), timeout=120)
    rdtest.eq((status, out), (3, ""), "an unreachable server: exit 3, nothing on standard output")
    rdtest.check(err.startswith("rocm-doctor: cannot reach the repository server for the index of AMD's installers "
                                "(%s/amdgpu-install/): curl: (7)" % base), "the reason", err)
    status, out, err = rdtest.run(RD, "list", "archs", "--server", timeout=60)
    rdtest.eq((status, err.splitlines()[0] if err else ""),
              (3, "rocm-doctor: --server lists releases only: rocm-doctor list releases --server"),
              "--server with another list")


def table_date():
    with open(os.path.join(os.environ["ROCM_DOCTOR_DATA_DIR"], "repos.ini")) as f:
        for line in f:
            if line.startswith("date"):
                return line.split("=", 1)[1].strip()
    return None


if __name__ == "__main__":
    try:
        sys.exit(rdtest.main())
    finally:
        if SERVER:
            SERVER.stop()
