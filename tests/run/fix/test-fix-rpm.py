#!/usr/bin/env python3
"""dnf and zypper fixes on temporary roots, through the real binary: plan,
apply, the real dnf/zypper read what was written, apply again (nothing to do),
undo (every file byte for byte as before; the rpm database unchanged, since
under --root the key import is deferred to the tree's first boot).

Usage: test-fix-rpm.py ROCM_DOCTOR. Exit 0 pass, 1 fail, 77 skipped."""

import os
import re
import shutil
import sys
import tempfile

sys.dont_write_bytecode = True
import repolib  # noqa: E402
import rpmlib  # noqa: E402
from rpmfix import expect, make_root, need_tools, rdtest, run, tree  # noqa: E402

RD = os.path.abspath(sys.argv[1])
PLAN_EXIT = 1  # a plan with steps to apply (rocm-doctor(1), fix)


def roundtrip(kind, os_release, repo_dir, bad_repo, packages, expect_plan, client_check):
    tmp = tempfile.mkdtemp(prefix="rd-fix-%s." % kind)
    try:
        root, armored, fpr = make_root(tmp, os_release, repo_dir, bad_repo, packages)
        db_before = rpmlib.query(root)
        before = tree(root)

        p = run(RD, "fix", "--root", root, "--only", kind, "--key-file", armored)
        expect("%s_roundtrip" % kind, p.stdout, root, fpr)
        rdtest.check(p.returncode == PLAN_EXIT, "%s: plan exits %d" % (kind, PLAN_EXIT), p.stdout + p.stderr)
        for line in expect_plan:
            rdtest.check(line in p.stdout, "%s: plan says %r" % (kind, line), p.stdout)
        bad = run(RD, "fix", "--root", root, "--only", kind, "--key-file", "/etc/hostname")
        rdtest.check("not an OpenPGP key file" in bad.stdout + bad.stderr, "%s: a file that is no key is refused" % kind,
                     bad.stdout + bad.stderr)

        a = run(RD, "fix", "--apply", "--yes", "--root", root, "--only", kind, "--key-file", armored)
        expect("%s_roundtrip.apply" % kind, a.stdout, root, fpr)
        rdtest.check(a.returncode in (0, 1, 2), "%s: apply ran" % kind, a.stdout + a.stderr)
        rocm = open(os.path.join(root, repo_dir.lstrip("/"), "rocm.repo")).read()
        rdtest.check("gpgcheck=1\n" in rocm and "gpgkey=file:///etc/pki/rpm-gpg/RPM-GPG-KEY-rocm\n" in rocm,
                     "%s: rocm.repo checks signatures" % kind, rocm)
        client_check(root)

        again = run(RD, "fix", "--root", root, "--only", kind, "--key-file", armored)
        rdtest.check("write " not in again.stdout, "%s: planning again writes nothing" % kind, again.stdout)

        u = run(RD, "undo", "--root", root)
        rdtest.check(u.returncode == 0, "%s: undo exits 0" % kind, u.stdout + u.stderr)
        rdtest.check(tree(root) == before, "%s: undo gives every file back byte for byte" % kind,
                     "%r\n%r" % (sorted(set(tree(root).items()) ^ set(before.items())), ""))
        rdtest.check(rpmlib.query(root) == db_before, "%s: rpm database unchanged" % kind)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def refused(kind, os_release, repo_dir, bad_repo, packages):
    """The fix asked for with --only is refused (its target, rocm.repo, is a
    symlink): the plan and --apply say why and exit 1, not 0, and nothing
    is written."""
    tmp = tempfile.mkdtemp(prefix="rd-fix-refused-%s." % kind)
    try:
        root, armored, fpr = make_root(tmp, os_release, repo_dir, bad_repo, packages, before_install=lambda r:
                                       os.symlink("amdgpu.repo", os.path.join(r, repo_dir.lstrip("/"), "rocm.repo")))
        before = tree(root)
        for args in (["fix"], ["fix", "--apply", "--yes"]):
            p = run(RD, *args, "--root", root, "--only", kind, "--key-file", armored)
            expect("%s_refused.%s" % (kind, "plan" if args == ["fix"] else "apply"), p.stdout, root, fpr)
            rdtest.check(p.returncode == 1, "%s: %s --only %s on a symlinked target exits 1" % (kind, " ".join(args), kind),
                         "exit %d\n%s%s" % (p.returncode, p.stdout, p.stderr))
            rdtest.check("Not planned" in p.stdout or "not planned" in p.stdout, "%s: %s says it was not planned"
                         % (kind, " ".join(args)), p.stdout)
        rdtest.check(tree(root) == before, "%s: nothing written when the fix is refused" % kind)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def dnf_reads(root):
    if not shutil.which("dnf"):
        print("# dnf missing: its read is skipped")
        return
    p = run("dnf", "--installroot=" + root, "--setopt=reposdir=" + root + "/etc/yum.repos.d",
            "--setopt=cachedir=/var/cache/dnf-test", "--releasever=9", "-q", "repolist", "--all")
    shutil.rmtree(os.path.join(root, "var/cache/dnf-test"), ignore_errors=True)
    rdtest.check(p.returncode == 0 and "ROCm-6.4.3" in p.stdout and "amdgpu" in p.stdout,
                 "dnf: the real dnf reads both repositories", p.stdout + p.stderr)
    dnf_fetches(root)


def dnf_fetches(orig_root):
    """dnf downloads the metadata of both repositories from the URLs the fix
    wrote, over https: repo.radeon.com is a local createrepo_c copy behind a
    local proxy (nothing in the .repo files is rewritten)."""
    if not repolib.have_tools():
        print("# createrepo_c or openssl missing: the download is skipped")
        return
    work = tempfile.mkdtemp(prefix="rd-repo.")
    top = os.path.join(work, "www")
    repolib.make_repo(top, "rocm/el9/6.4.3/main", [rpmlib.build("rocm-core", "6.4.3.60403", "128.el9")])
    repolib.make_repo(top, "amdgpu/6.4.3/el/9.6/main/x86_64",
                      [rpmlib.build("amdgpu-dkms", "6.12.12.60403", "2187269.el9", "noarch")])
    server = repolib.Server(top, work)
    # dnf opens the root's rpm database (and makes one where it looks): a
    # copy of the tree keeps the undo comparison to what the fix did
    root = os.path.join(work, "root")
    shutil.copytree(orig_root, root, symlinks=True)
    try:
        p = run("dnf", "--installroot=" + root, "--setopt=reposdir=" + root + "/etc/yum.repos.d",
                "--setopt=cachedir=/var/cache/dnf-test", "--releasever=9", "--setopt=proxy=" + server.proxy_url,
                "--setopt=sslcacert=" + server.cert, "repoquery", "--qf", "%{name}.%{arch} %{version}-%{release} %{repoid}")
        # what each repository holds, whether or not the tree has it
        # installed (`list --available` leaves out what the tree's rpm
        # database has: dnf reads it where the host's rpm says, ~/.rpmdb on
        # Debian 12 and the tree's /var/lib/rpm on Debian 13)
        rdtest.check(p.returncode == 0 and re.search(r"^rocm-core\.x86_64 6\.4\.3\.60403-128\.el9 ROCm-6\.4\.3$",
                                              p.stdout, re.M) and
                     re.search(r"^amdgpu-dkms\.noarch 6\.12\.12\.60403-2187269\.el9 amdgpu$", p.stdout, re.M),
                     "dnf: the real dnf downloads both repositories over https and lists their packages",
                     p.stdout + p.stderr)
        for path in ("/rocm/el9/6.4.3/main/repodata/repomd.xml", "/amdgpu/6.4.3/el/9.6/main/x86_64/repodata/repomd.xml"):
            rdtest.check(path in server.requests, "dnf: fetched https://repo.radeon.com" + path, str(server.requests))
    finally:
        server.close()
        shutil.rmtree(work, ignore_errors=True)


def zypper_reads(root):
    if not shutil.which("zypper"):
        print("# zypper missing: its read is skipped")
        return
    p = run("zypper", "--root", root, "--non-interactive", "lr", "-d")
    rdtest.check(p.returncode == 0 and "https://repo.radeon.com/rocm/zyp/6.4.3/main" in p.stdout and
                 "https://repo.radeon.com/amdgpu/6.4.3/sle/15.6/main/x86_64/" in p.stdout and "( ) No" not in p.stdout,
                 "zypper: the real zypper reads both repositories with GPG checks", p.stdout + p.stderr)


@rdtest.test(root=True)
def dnf_roundtrip():
    need_tools()
    roundtrip("dnf", 'NAME="Red Hat Enterprise Linux"\nID="rhel"\nID_LIKE="fedora"\nVERSION_ID="9.6"\n',
              "/etc/yum.repos.d",
              "[amdgpu]\nname=amdgpu\nbaseurl=https://repo.radeon.com/amdgpu/6.4.3/el/8.10/main/x86_64/\n"
              "enabled=1\ngpgcheck=0\n",
              [("rocm-core", "6.4.3.60403", "128.el9"), ("amdgpu-dkms", "6.12.12.60403", "2187269.el9", "noarch")],
              ["1. dnf: AMD's dnf repositories for ROCm 6.4.3 (rhel 9.6)",
               "   write /etc/pki/rpm-gpg/RPM-GPG-KEY-rocm (mode 0644, root:root)",
               "run on first boot: rpm --import /etc/pki/rpm-gpg/RPM-GPG-KEY-rocm (undo: rpm -e --allmatches "
               "gpg-pubkey-",
               "+baseurl=https://repo.radeon.com/rocm/el9/6.4.3/main",
               "+baseurl=https://repo.radeon.com/amdgpu/6.4.3/el/9.6/main/x86_64/"],
              dnf_reads)


@rdtest.test(root=True)
def dnf_refused():
    need_tools()
    refused("dnf", 'NAME="Red Hat Enterprise Linux"\nID="rhel"\nID_LIKE="fedora"\nVERSION_ID="9.6"\n',
            "/etc/yum.repos.d",
            "[amdgpu]\nname=amdgpu\nbaseurl=https://repo.radeon.com/amdgpu/6.4.3/el/8.10/main/x86_64/\n"
            "enabled=1\ngpgcheck=0\n",
            [("rocm-core", "6.4.3.60403", "128.el9"), ("amdgpu-dkms", "6.12.12.60403", "2187269.el9", "noarch")])


@rdtest.test(root=True)
def zypper_roundtrip():
    need_tools()
    roundtrip("zypper", 'NAME="SLES"\nID="sles"\nID_LIKE="suse"\nVERSION_ID="15.6"\n', "/etc/zypp/repos.d",
              "[amdgpu]\nname=amdgpu\nbaseurl=https://repo.radeon.com/amdgpu/6.4.3/sle/15.5/main/x86_64/\n"
              "enabled=1\ngpgcheck=0\n",
              [("rocm-core", "6.4.3.60403", "128.sles156")],
              ["1. zypper: AMD's zypper repositories for ROCm 6.4.3 (sles 15.6)",
               "+baseurl=https://repo.radeon.com/rocm/zyp/6.4.3/main",
               "+baseurl=https://repo.radeon.com/amdgpu/6.4.3/sle/15.6/main/x86_64/"],
              zypper_reads)


if __name__ == "__main__":
    sys.exit(rdtest.main())
