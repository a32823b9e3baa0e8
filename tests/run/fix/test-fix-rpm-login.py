#!/usr/bin/env python3
"""A mirror URL with a login (http://user:password@host/...) through the dnf
and zypper fixes on temporary roots: the .repo files name the mirror without
the login; dnf's hold username= and password= and are 0600, zypper's name a
credentials file (0600) with ?credentials=; no output shows the password;
undo gives every file back.

Usage: test-fix-rpm-login.py ROCM_DOCTOR. Exit 0 pass, 1 fail, 77 skipped."""

import os
import shutil
import stat
import sys
import tempfile

sys.dont_write_bytecode = True
from rpmfix import expect, make_root, need_tools, rdtest, run, tree  # noqa: E402

RD = os.path.abspath(sys.argv[1])

SECRET = "Sx7qSECRET"
MIRROR = "http://mirror-user:%s@mirror.example:8080/radeon" % SECRET
BASE = "http://mirror.example:8080/radeon"
RHEL = 'NAME="Red Hat Enterprise Linux"\nID="rhel"\nID_LIKE="fedora"\nVERSION_ID="9.6"\n'
SLES = 'NAME="SLES"\nID="sles"\nID_LIKE="suse"\nVERSION_ID="15.6"\n'


def holding(root, needle):
    hits = []
    for dirpath, _, files in os.walk(root):
        for f in files:
            full = os.path.join(dirpath, f)
            if os.path.isfile(full) and not os.path.islink(full):
                with open(full, "rb") as fh:
                    if needle.encode() in fh.read():
                        hits.append("/" + os.path.relpath(full, root))
    return sorted(hits)


def mode(root, path):
    st = os.stat(os.path.join(root, path.lstrip("/")))
    return oct(stat.S_IMODE(st.st_mode)), st.st_uid


def login_roundtrip(kind, os_release, repo_dir, bad_repo, packages, secret_files, shown, written):
    tmp = tempfile.mkdtemp(prefix="rd-fix-login-%s." % kind)
    try:
        root, armored, fpr = make_root(tmp, os_release, repo_dir, bad_repo, packages,
                                       conf_extra="[repository]\nmirror = %s\n" % MIRROR)
        before = tree(root)
        outs = []
        p = run(RD, "fix", "--root", root, "--only", kind, "--key-file", armored)
        outs.append(p.stdout + p.stderr)
        expect("%s_login_roundtrip" % kind, p.stdout, root, fpr)
        rdtest.check(p.returncode == 1, "%s: plan exits 1" % kind, p.stdout + p.stderr)
        for line in shown:
            rdtest.check(line in p.stdout, "%s: the plan shows %r" % (kind, line), p.stdout)
        p = run(RD, "fix", "--json", "--root", root, "--only", kind, "--key-file", armored)
        outs.append(p.stdout + p.stderr)
        p = run(RD, "fix", "--apply", "--yes", "--root", root, "--only", kind, "--key-file", armored)
        outs.append(p.stdout + p.stderr)
        expect("%s_login_roundtrip.apply" % kind, p.stdout, root, fpr)
        rdtest.check(p.returncode in (0, 1, 2), "%s: apply ran" % kind, p.stdout + p.stderr)
        for path in secret_files:
            rdtest.check(mode(root, path) == ("0o600", 0), "%s: %s is root's and 0600" % (kind, path), str(mode(root, path)))
        for path, text in written:
            got = open(os.path.join(root, path.lstrip("/"))).read()
            rdtest.check(text in got, "%s: %s holds %r" % (kind, path, text), got)
        rdtest.check(holding(root, SECRET) == sorted(secret_files + ["/etc/rocm-doctor/rocm-doctor.conf"]),
                     "%s: the password only in the credential files" % kind, str(holding(root, SECRET)))
        for args in (["fix", "--status"], ["undo"]):
            p = run(RD, *args, "--root", root)
            outs.append(p.stdout + p.stderr)
        rdtest.check(p.returncode == 0, "%s: undo exits 0" % kind, p.stdout + p.stderr)
        rdtest.check(all(SECRET not in o for o in outs), "%s: no output shows the password" % kind,
                     "\n".join(o for o in outs if SECRET in o))
        rdtest.check(tree(root) == before, "%s: undo gives every file back" % kind)
        rdtest.check(holding(root, SECRET) == ["/etc/rocm-doctor/rocm-doctor.conf"], "%s: no credential file left" % kind,
                     str(holding(root, SECRET)))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)



@rdtest.test(root=True)
def dnf_login_roundtrip():
    need_tools()
    login_roundtrip("dnf", RHEL, "/etc/yum.repos.d",
                    "[amdgpu]\nname=amdgpu\nbaseurl=https://repo.radeon.com/amdgpu/6.4.3/el/8.10/main/x86_64/\n"
                    "enabled=1\ngpgcheck=0\n",
                    [("rocm-core", "6.4.3.60403", "128.el9")],
                    ["/etc/yum.repos.d/rocm.repo", "/etc/yum.repos.d/amdgpu.repo"],
                    ["   write /etc/yum.repos.d/rocm.repo (mode 0600, root:root)",
                     "+baseurl=%s/rocm/el9/6.4.3/main\n" % BASE, "+username=mirror-user\n", "+password=*****\n"],
                    [("/etc/yum.repos.d/rocm.repo", "baseurl=%s/rocm/el9/6.4.3/main\n" % BASE),
                     ("/etc/yum.repos.d/rocm.repo", "username=mirror-user\npassword=%s\n" % SECRET)])


@rdtest.test(root=True)
def zypper_login_roundtrip():
    need_tools()
    login_roundtrip("zypper", SLES, "/etc/zypp/repos.d",
                    "[amdgpu]\nname=amdgpu\nbaseurl=https://repo.radeon.com/amdgpu/6.4.3/sle/15.5/main/x86_64/\n"
                    "enabled=1\ngpgcheck=0\n",
                    [("rocm-core", "6.4.3.60403", "128.sles156")],
                    ["/etc/zypp/credentials.d/rocm-doctor"],
                    ["   write /etc/zypp/credentials.d/rocm-doctor (mode 0600, root:root)",
                     "+baseurl=%s/rocm/zyp/6.4.3/main?credentials=rocm-doctor\n" % BASE, "+password=*****\n"],
                    [("/etc/zypp/repos.d/rocm.repo", "baseurl=%s/rocm/zyp/6.4.3/main?credentials=rocm-doctor\n" % BASE),
                     ("/etc/zypp/credentials.d/rocm-doctor", "username=mirror-user\npassword=%s\n" % SECRET)])


if __name__ == "__main__":
    sys.exit(rdtest.main())
