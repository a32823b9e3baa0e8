#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""setup's planning time next to the package manager's own work on the same
local mirror: prints figures, asserts nothing.

    tests/bench/setup-bench.py BUILD_DIR DEBIAN_TAR [RUNS]

DEBIAN_TAR is the debootstrap'd Debian 12 tree the setup tests cache
(BUILD_DIR/tests/run/setup/cache/bookworm-minbase.tar, or
/var/cache/rocm-doctor-ci/ in CI). Needs root (chroot).

setup: `rocm-doctor setup --release 6.4.1 --root ROOT --facts FILE` (the
plan: every fix, and apt's index update and dry run against the mirror).
apt: in a copy of ROOT that already has the sources and key setup would
write, `apt-get update` then `apt-get -s install rocm`, chrooted. The goal
(issue: setup's own cost) is at most 1.2 times apt's."""
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

TOP = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
sys.path.insert(0, os.path.join(TOP, "tests", "run", "setup"))
import standin  # noqa: E402


def timed(argv, **kw):
    t = time.monotonic()
    p = subprocess.run(argv, capture_output=True, text=True, **kw)
    return time.monotonic() - t, p


def root_from(tar, work, name, m):
    path = os.path.join(work, name)
    os.makedirs(path)
    subprocess.run(["tar", "-C", path, "-xf", tar], check=True)
    with open(os.path.join(path, "etc/os-release"), "w") as f:
        f.write('ID=ubuntu\nVERSION_ID="24.04"\nVERSION_CODENAME=noble\nID_LIKE=debian\n')
    with open(os.path.join(path, "etc/apt/sources.list"), "w") as f:
        f.write("deb [trusted=yes] %s/distro noble main\n" % m.base)
    os.makedirs(os.path.join(path, "etc/rocm-doctor"), exist_ok=True)
    with open(os.path.join(path, "etc/rocm-doctor/rocm-doctor.conf"), "w") as f:
        f.write("[fix]\nrocm_release = 6.4.1\nkey_file = %s\nkey_fingerprint = %s\n[repository]\nmirror = %s/radeon\n"
                % (m.key_file, m.fingerprint, m.base))
    return path


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    build, tar = sys.argv[1], sys.argv[2]
    runs = int(sys.argv[3]) if len(sys.argv) > 3 else 5
    if os.geteuid() != 0:
        sys.exit("needs root (chroot)")
    rd = os.path.join(build, "rocm-doctor")
    env = dict(os.environ, NO_COLOR="1", ROCM_DOCTOR_DATA_DIR=os.path.join(TOP, "conf"))
    work = tempfile.mkdtemp(prefix="rd-setup-bench.")
    try:
        m = standin.Mirror(os.path.join(work, "mirror"))
        m.serve()
        with open(os.path.join(TOP, "tests", "run", "cli", "facts", "rx7900xtx-no-access.json")) as f:
            facts = json.load(f)
        facts["os"]["kernel_release"] = standin.KERNEL
        fpath = os.path.join(work, "facts.json")
        with open(fpath, "w") as f:
            json.dump(facts, f)
        plan_root = root_from(tar, work, "plan", m)
        apt_root = root_from(tar, work, "apt", m)
        # the apt root gets what setup would write, through setup itself
        p = subprocess.run([rd, "fix", "--only", "apt", "--root", apt_root, "--facts", fpath, "--apply", "--yes"],
                           capture_output=True, text=True, env=env)
        if not os.path.exists(os.path.join(apt_root, "etc/apt/sources.list.d/rocm.sources")):
            sys.exit("fix --only apt wrote no sources:\n" + p.stdout + p.stderr)
        chroot = ["chroot", apt_root, "env", "DEBIAN_FRONTEND=noninteractive", "LC_ALL=C"]
        setup_t, apt_t = [], []
        for _ in range(runs):
            t, p = timed([rd, "setup", "--release", "6.4.1", "--root", plan_root, "--facts", fpath], env=env)
            if "rocm-core 6.4.1" not in p.stdout:
                sys.exit("setup did not plan the packages:\n" + p.stdout + p.stderr)
            setup_t.append(t)
            shutil.rmtree(os.path.join(apt_root, "var/lib/apt/lists"), ignore_errors=True)
            os.makedirs(os.path.join(apt_root, "var/lib/apt/lists/partial"))
            t1, p1 = timed(chroot + ["apt-get", "update"])
            t2, p2 = timed(chroot + ["apt-get", "-s", "install", "rocm"])
            if p1.returncode or p2.returncode:
                sys.exit("apt failed:\n" + p1.stdout + p1.stderr + p2.stdout + p2.stderr)
            apt_t.append(t1 + t2)
        s, a = statistics.median(setup_t), statistics.median(apt_t)
        print("setup planning (every fix, apt's update and dry run): median %.2f s over %d runs" % (s, runs))
        print("apt-get update + apt-get -s install rocm:            median %.2f s" % a)
        print("ratio: %.2f (goal: at most 1.2)" % (s / a))
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
