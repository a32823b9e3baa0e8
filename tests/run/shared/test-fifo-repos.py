#!/usr/bin/env python3
"""FIFOs where the rpm repository probe reads: a .repo file in
/etc/yum.repos.d or /etc/zypp/repos.d, and the key a gpgkey=file:// line
names. check, the fix plan and report finish (under a timeout) and say
what they found: the .repo FIFO as a problem that names the file, the key
FIFO as a missing key."""
import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "lib"))
import rdtest  # noqa: E402
binary, src = sys.argv[1], sys.argv[2]
os.environ.setdefault("ROCM_DOCTOR_DATA_DIR", os.path.join(src, "conf"))

OS_RELEASE = 'NAME="Fedora Linux"\nID=fedora\nVERSION_ID=40\nPRETTY_NAME="Fedora Linux 40"\n'
REPO = ("[rocm]\nname=ROCm\nbaseurl=https://repo.radeon.com/rocm/el9/6.2/main\nenabled=1\ngpgcheck=1\n"
        "gpgkey=file:///etc/pki/rpm-gpg/RPM-GPG-KEY-rocm\n")
NOT_REGULAR = "is not a regular file (a FIFO, socket or device is never read)"


def run(args, timeout=30):
    try:
        return subprocess.run([binary] + args, capture_output=True, text=True, timeout=timeout,
                              stdin=subprocess.DEVNULL)
    except subprocess.TimeoutExpired:
        return None


def tree(files, fifos):
    root = rdtest.temp_dir("rd-fifo-")
    base = {"etc/os-release": OS_RELEASE, "etc/passwd": "root:x:0:0::/root:/bin/sh\n", "etc/group": "root:x:0:\n",
            "etc/dnf/dnf.conf": "[main]\ngpgcheck=1\n"}
    base.update(files)
    for path, text in base.items():
        os.makedirs(os.path.dirname(os.path.join(root, path)), exist_ok=True)
        with open(os.path.join(root, path), "w") as f:
            f.write(text)
    for path in fifos:
        os.makedirs(os.path.dirname(os.path.join(root, path)), exist_ok=True)
        os.mkfifo(os.path.join(root, path))
    return root


def all_three(name, root, want):
    """check, fix (the plan) and report finish; want(facts) says what the
    facts must show."""
    p = run(["check", "--json", "--root", root, "--user", "root"])
    rdtest.check(p is not None, "%s: check finishes" % name)
    p = run(["fix", "--root", root, "--user", "root"])
    rdtest.check(p is not None, "%s: fix (plan) finishes" % name)
    out = os.path.join(rdtest.temp_dir("rd-fifo-bundle-"), "bundle.tar")
    p = run(["report", "-o", out, "--root", root, "--user", "root"], timeout=60)
    rdtest.check(p is not None and p.returncode in (0, 1, 2) and os.path.exists(out),
                 "%s: report finishes" % name,
                 p and (p.returncode, p.stderr))
    p = run(["facts", "--root", root, "--user", "root"])
    rdtest.check(p is not None and p.returncode == 0, "%s: facts finishes" % name)
    if p is not None and p.returncode == 0:
        want(json.loads(p.stdout))


def repo_problem(manager, path):
    def want(f):
        problems = f["repos"][manager].get("problems", [])
        rdtest.check("%s: %s" % (path, NOT_REGULAR) in problems,
                     "%s: the FIFO is named as not a regular file" % path,
                     problems)
    return want


@rdtest.test
def yum_repo_fifo():
    all_three("yum.repos.d FIFO", tree({}, ["etc/yum.repos.d/rocm.repo"]),
              repo_problem("dnf", "/etc/yum.repos.d/rocm.repo"))


@rdtest.test
def zypp_repo_fifo():
    all_three("zypp FIFO", tree({}, ["etc/zypp/repos.d/rocm.repo"]),
              repo_problem("zypper", "/etc/zypp/repos.d/rocm.repo"))


def key_missing(f):
    repos = [r for r in f["repos"]["dnf"].get("repos", []) if r.get("id") == "rocm"]
    rdtest.check(len(repos) == 1 and repos[0].get("gpgkey_missing") is True,
                 "gpgkey FIFO: counted as missing", repos)


@rdtest.test
def gpgkey_fifo():
    all_three("gpgkey FIFO", tree({"etc/yum.repos.d/rocm.repo": REPO}, ["etc/pki/rpm-gpg/RPM-GPG-KEY-rocm"]),
              key_missing)


# The twin with a regular key: present.
def key_present(f):
    repos = [r for r in f["repos"]["dnf"].get("repos", []) if r.get("id") == "rocm"]
    rdtest.check(len(repos) == 1 and not repos[0].get("gpgkey_missing"), "regular key: present", repos)


@rdtest.test
def regular_key():
    all_three("regular key", tree({"etc/yum.repos.d/rocm.repo": REPO, "etc/pki/rpm-gpg/RPM-GPG-KEY-rocm": "key\n"},
                                  []), key_present)


sys.exit(rdtest.main())
