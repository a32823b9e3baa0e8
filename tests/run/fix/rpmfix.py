# SPDX-License-Identifier: MIT
"""What the dnf and zypper fix tests (test-fix-rpm.py, test-fix-rpm-login.py)
share: running a program, a tree's file hashes, a throw-away signing key."""
import hashlib
import os
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "lib"))
import rdtest  # noqa: E402
import rpmlib  # noqa: E402


def run(*args, env=None):
    e = dict(os.environ, NO_COLOR="1")
    e.update(env or {})
    return subprocess.run(args, capture_output=True, text=True, env=e, timeout=120)


def tree(root):
    out = {}
    for dirpath, dirnames, files in os.walk(root):
        rel = os.path.relpath(dirpath, root)
        # rocm-doctor's journal, the rpm database (compared through rpm), and
        # what dnf and zypper themselves leave when they read the files
        if rel.startswith(("var/lib/rocm-doctor", "var/lib/rpm", "var/lib/dnf", "var/log", "var/cache",
                           "etc/dnf", "var/lib/zypp", "etc/zypp/services.d", "etc/zypp/credentials.d")):
            dirnames[:] = []
            continue
        for f in files:
            with open(os.path.join(dirpath, f), "rb") as fh:
                out[os.path.join(rel, f)] = hashlib.sha256(fh.read()).hexdigest()
    return out


def make_key(home):
    os.makedirs(home, mode=0o700)
    subprocess.run(["gpg", "--homedir", home, "--batch", "--passphrase", "", "--quick-gen-key",
                    "Test ROCm key <rocm@example.com>", "rsa2048", "sign", "never"], check=True, capture_output=True)
    armored = os.path.join(home, "key.asc")
    with open(armored, "wb") as f:
        f.write(subprocess.run(["gpg", "--homedir", home, "--armor", "--export"], check=True,
                               capture_output=True).stdout)
    lines = subprocess.run(["gpg", "--homedir", home, "--with-colons", "--list-keys"], check=True,
                           capture_output=True, text=True).stdout.splitlines()
    fpr = [l.split(":")[9] for l in lines if l.startswith("fpr:")][0]
    return armored, fpr


def write(root, path, text):
    p = os.path.join(root, path.lstrip("/"))
    os.makedirs(os.path.dirname(p), exist_ok=True)
    with open(p, "w") as f:
        f.write(text)


def make_root(tmp, os_release, repo_dir, bad_repo, packages, conf_extra="", before_install=None):
    """An rpm host in tmp/root: its os-release, AMD's repository file as an
    old guide left it (repo_dir/amdgpu.repo), a configuration that pins the
    release and the key made in tmp/gnupg, and packages installed with the
    real rpm (before_install(root) runs just before). Returns (root, the
    armored key file, its fingerprint)."""
    root = os.path.join(tmp, "root")
    armored, fpr = make_key(os.path.join(tmp, "gnupg"))
    write(root, "/etc/os-release", os_release)
    write(root, repo_dir + "/amdgpu.repo", bad_repo)
    write(root, "/etc/rocm-doctor/rocm-doctor.conf",
          "[fix]\nrocm_release = 6.4.3\napt_key_fingerprint = %s\n%s" % (fpr, conf_extra))
    if before_install:
        before_install(root)
    rpmlib.install(root, packages)
    return root, armored, fpr


def need_tools():
    if not (rpmlib.have_rpm_tools() and shutil.which("gpg")):
        rdtest.skip("needs rpm, rpmbuild and gpg")


def expect(name, text, root, fpr):
    """Compares a plan or run text with tests/expected/fix/NAME.txt, the
    throw-away key's ids named (fixlib.key_names)."""
    import fixlib
    return fixlib.expect(name, text, root, more=fixlib.key_names(fpr))
