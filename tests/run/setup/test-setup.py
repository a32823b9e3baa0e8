#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""rocm-doctor setup on a real Debian root: a debootstrap'd minimal tree
(built once and cached), stand-in packages with AMD's names from local
repositories laid out as AMD's mirror, the real apt-get and dpkg installing
into the root (rocm-doctor runs them chrooted there), and undo putting back
exactly what was there. The GPU comes from a facts file (an RX 7900 XTX on
Ubuntu 24.04): no AMD GPU is needed.

Usage: test-setup.py ROCM_DOCTOR SOURCE_DIR CACHE_DIR"""
import copy
import fcntl
import hashlib
import json
import os
import re
import shutil
import signal
import stat
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "fix"))
sys.path.insert(0, HERE)
from fixlib import Root, Skip, check, eq, main, test, temp_dir  # noqa: E402
import standin  # noqa: E402

RD, SRC = sys.argv[1], sys.argv[2]
# a shared cache (CI sets it for its two builds), else the build directory
CACHE = os.environ.get("ROCM_DOCTOR_TEST_CACHE") or sys.argv[3]
KERNEL = standin.KERNEL
OLD_KERNEL = standin.OLD_KERNEL
STATE = {}


def need_root():
    if os.geteuid() != 0:
        raise Skip("installing packages into a root needs root (chroot, dpkg)")


def base_tar():
    """The cached debootstrap'd Debian 12 minimal tree (a tarball)."""
    need_root()
    tar = os.path.join(CACHE, "bookworm-minbase.tar")
    if os.path.exists(tar):
        return tar
    if not shutil.which("debootstrap"):
        raise Skip("needs debootstrap")
    os.makedirs(CACHE, exist_ok=True)
    work = tempfile.mkdtemp(prefix="rd-debootstrap.", dir=CACHE)
    mirror = os.environ.get("ROCM_DOCTOR_DEBIAN_MIRROR", "http://deb.debian.org/debian")
    p = subprocess.run(["debootstrap", "--variant=minbase", "bookworm", work + "/root", mirror],
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if p.returncode != 0:
        shutil.rmtree(work, ignore_errors=True)
        raise Skip("debootstrap could not build a Debian 12 root (%s): %s" % (mirror, p.stdout[-500:]))
    subprocess.run(["tar", "-C", work + "/root", "-cf", tar + ".part", "."], check=True)
    os.rename(tar + ".part", tar)
    shutil.rmtree(work, ignore_errors=True)
    return tar


def mirror():
    if "mirror" not in STATE:
        m = standin.Mirror(temp_dir("rd-setup-mirror."))
        m.serve()
        STATE["mirror"] = m
    return STATE["mirror"]


def facts(kernel=KERNEL):
    with open(os.path.join(SRC, "..", "cli", "facts", "rx7900xtx-no-access.json")) as f:
        fa = json.load(f)
    fa = copy.deepcopy(fa)
    fa["os"]["kernel_release"] = kernel
    return fa


class Host:
    """A fresh copy of the base tree, made to look like a bare Ubuntu 24.04
    host: its apt sources name only the local distribution repository."""

    def __init__(self, kernel=KERNEL, mirror_base=None, conf_extra=""):
        tar = base_tar()
        m = mirror()
        self.path = temp_dir("rd-setup-root.")
        subprocess.run(["tar", "-C", self.path, "-xf", tar], check=True)
        self.r = Root.at(self.path)
        self.r.write("/etc/os-release", 'NAME="Ubuntu"\nVERSION_ID="24.04"\nID=ubuntu\nID_LIKE=debian\n'
                                         'VERSION_CODENAME=noble\nPRETTY_NAME="Ubuntu 24.04.1 LTS"\n')
        self.r.write("/etc/apt/sources.list", "deb [trusted=yes] %s/distro noble main\n" % m.base)
        # hermetic apt: no caches kept, no recommends from the host's taste
        self.r.write("/etc/apt/apt.conf.d/99rd-test", 'Dir::Cache::pkgcache "";\nDir::Cache::srcpkgcache "";\n')
        with open(self.r.p("/etc/group"), "a") as f:
            f.write("render:x:992:\nalice:x:1000:\n")
        with open(self.r.p("/etc/passwd"), "a") as f:
            f.write("alice:x:1000:1000:Alice:/home/alice:/bin/bash\n")
        with open(self.r.p("/etc/shadow"), "a") as f:
            f.write("alice:!:19000:0:99999:7:::\n")
        with open(self.r.p("/etc/gshadow"), "a") as f:
            f.write("render:!::\nalice:!::\n")
        base = mirror_base or (m.base + "/radeon")
        self.r.write("/etc/rocm-doctor/rocm-doctor.conf",
                     "[fix]\napt_key_file = %s\napt_key_fingerprint = %s\npackage_lock_timeout_s = 2\n%s"
                     "[repository]\nmirror = %s\n" % (m.key_file, m.fingerprint, conf_extra, base))
        self.facts = os.path.join(self.path, "..", os.path.basename(self.path) + ".facts.json")
        self.write_facts(facts(kernel))
        q = self.chroot("apt-get", "update")
        eq(q.returncode, 0, "apt-get update in the root: " + q.stdout)

    def write_facts(self, fa):
        with open(self.facts, "w") as f:
            json.dump(fa, f)

    def chroot(self, *argv):
        return subprocess.run(["chroot", self.path, "env", "DEBIAN_FRONTEND=noninteractive", "LC_ALL=C"] + list(argv),
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)

    def rd(self, *args, timeout=300):
        env = dict(os.environ, NO_COLOR="1", LC_ALL="C")
        if getattr(self, "home", None):
            env["HOME"] = self.home
        facts = [] if args[0] == "undo" else ["--facts", self.facts]
        return subprocess.run([RD] + list(args) + ["--root", self.path] + facts,
                              capture_output=True, text=True, env=env, timeout=timeout)

    def setup(self, *args, **kw):
        return self.rd("setup", "--release", "6.4.1", *args, **kw)

    def packages(self):
        """dpkg -l of the root: name, version and state of every package."""
        q = subprocess.run(["dpkg-query", "--admindir=" + self.r.p("/var/lib/dpkg"), "-W", "-f",
                            "${binary:Package} ${Version} ${db:Status-Abbrev}\n"], capture_output=True, text=True)
        eq(q.returncode, 0, "dpkg-query: " + q.stderr)
        return sorted(l.strip() for l in q.stdout.splitlines() if l.strip())

    def tree(self):
        """Every entry with its type, mode, owner and content hash, without
        the state apt and dpkg keep about themselves (indexes, logs, the
        status file's backups) and rocm-doctor's journal; device nodes by
        their numbers, never read."""
        skip = ("var/lib/apt", "var/cache/apt", "var/lib/dpkg", "var/log", "var/cache/debconf", "var/cache/ldconfig",
                "tmp", "var/lib/rocm-doctor", "proc", "sys")
        out = {}
        for dirpath, dirnames, filenames in os.walk(self.path):
            rel = os.path.relpath(dirpath, self.path)
            dirnames[:] = [d for d in dirnames if os.path.normpath(os.path.join(rel, d)) not in skip]
            for name in dirnames + filenames:
                full = os.path.join(dirpath, name)
                key = os.path.normpath(os.path.join(rel, name))
                st = os.lstat(full)
                if stat.S_ISLNK(st.st_mode):
                    out[key] = ("link", os.readlink(full))
                elif stat.S_ISDIR(st.st_mode):
                    out[key] = ("dir", oct(st.st_mode & 0o7777), st.st_uid, st.st_gid)
                elif stat.S_ISREG(st.st_mode):
                    with open(full, "rb") as f:
                        h = hashlib.sha256(f.read()).hexdigest()
                    out[key] = ("file", oct(st.st_mode & 0o7777), st.st_uid, st.st_gid, h)
                else:
                    out[key] = ("node", oct(st.st_mode), st.st_rdev)
        return out

    def run_ids(self):
        d = self.r.p("/var/lib/rocm-doctor/journal")
        return sorted(os.listdir(d)) if os.path.isdir(d) else []

    def journal(self, run_id):
        with open(self.r.p("/var/lib/rocm-doctor/journal/%s/journal.json" % run_id)) as f:
            return json.load(f)

    def install(self, *names):
        q = self.chroot("apt-get", "install", "-y", "--no-install-recommends", *names)
        eq(q.returncode, 0, "apt-get install %s: %s" % (names, q.stdout))


def check_ids(h):
    """The warning and error ids of a check of the root (this machine's
    hardware, the root's files)."""
    env = dict(os.environ, NO_COLOR="1", HOME=getattr(h, "home", None) or os.environ.get("HOME", "/root"))
    p = subprocess.run([RD, "check", "--json", "--root", h.path], capture_output=True, text=True, env=env)
    check(p.returncode in (0, 1, 2), "check: %s" % p.stderr)
    return {f["id"] for f in json.loads(p.stdout)["findings"] if f["severity"] in ("warning", "error")}


def mirror_recognised(h, missing, others):
    """After setup through the mirror the check raises neither missing nor
    others; without the mirror in the configuration it raises missing."""
    ids = check_ids(h)
    check(not ids & ({missing} | others), "after setup, through the mirror: %s" % sorted(ids))
    conf = h.r.read("/etc/rocm-doctor/rocm-doctor.conf")
    h.r.write("/etc/rocm-doctor/rocm-doctor.conf", conf.split("[repository]")[0])
    check(missing in check_ids(h), "without the mirror configured: %s" % missing)
    h.r.write("/etc/rocm-doctor/rocm-doctor.conf", conf)


def same_tree(got, want, what):
    """Trees compared entry by entry; the difference is what is shown."""
    diff = ["- %s %s" % (k, want[k]) for k in sorted(want) if k not in got]
    diff += ["+ %s %s" % (k, got[k]) for k in sorted(got) if k not in want]
    diff += ["~ %s %s -> %s" % (k, want[k], got[k]) for k in sorted(want) if k in got and got[k] != want[k]]
    if diff:
        raise AssertionError("%s:\n%s" % (what, "\n".join(diff[:40])))


def package_lines(text):
    """The plan's package lines: (op, name, version)."""
    out = []
    for line in text.splitlines():
        m = re.match(r"^     (install|upgrade|downgrade|remove)\s+(\S+) (\S+)", line)
        if m:
            out.append(m.groups())
    return out


WANT_INSTALL = [("install", n, v) for n, v in (
    ("hip-runtime-amd", "6.4.43483." + standin.BUILD), ("hsa-rocr", "1.15.0." + standin.BUILD),
    ("rocm", "6.4.1." + standin.BUILD), ("rocm-core", "6.4.1." + standin.BUILD),
    ("rocm-hip-runtime", "6.4.1." + standin.BUILD), ("rocm-opencl-runtime", "6.4.1." + standin.BUILD),
    ("rocminfo", "1.0.0." + standin.BUILD))]


@test
def bare_host_plan_apply_again_undo():
    h = Host()
    pkgs_before, tree_before = h.packages(), h.tree()
    p = h.setup()
    eq(p.returncode, 1, "plan: steps to carry out (stderr %s)" % p.stderr)
    out = p.stdout.replace(h.path, "ROOT")
    check("1. group: " in out and "add alice to group render" in out, out)
    check("2. apt: AMD's apt repository for ROCm 6.4.1 (noble)" in out, out)
    check("+URIs: %s/radeon/rocm/apt/6.4.1\n" % mirror().base in out, "the mirror's URL in the sources: " + out)
    check("3. packages: ROCm packages (rocm, driver)" in out, out)
    check("   packages, through apt (indexes refreshed first):\n" in out, out)
    eq(sorted(package_lines(out)), WANT_INSTALL, "every package with its exact version, from apt's dry run")
    m = re.search(r"     7 to install, 0 to upgrade, 0 to downgrade, 0 to remove; download (\d+(\.\d+)? [kM]?B)\n", out)
    check(m, "the download size: " + out)
    check("driver: not installed, the running kernel %s's own amdgpu serves the GPUs here (gfx1100 needs kernel 6.2)"
          % KERNEL in out, "the driver rule says why not: " + out)
    check("To carry it out: sudo rocm-doctor setup --apply --root ROOT --facts" in out, out)
    eq(h.packages(), pkgs_before, "planning installed nothing")
    same_tree(h.tree(), tree_before, "planning wrote nothing")

    p = h.setup("--apply", "--yes")
    eq(p.returncode, 0, "apply (stdout %s, stderr %s)" % (p.stdout, p.stderr))
    after = h.packages()
    for _, name, version in WANT_INSTALL:
        check("%s %s ii " % (name, version) in [l + " " for l in after] or
              any(l.startswith("%s %s ii" % (name, version)) for l in after), "%s %s installed: %s" % (name, version,
                                                                                                   after))
    src = h.r.read("/etc/apt/sources.list.d/rocm.sources")
    check("URIs: %s/radeon/rocm/apt/6.4.1\nSuites: noble\n" % mirror().base in src, src)
    check("alice" in [l for l in h.r.read("/etc/group").splitlines() if l.startswith("render:")][0], "group")
    ids = h.run_ids()
    eq(len(ids), 1, "one run")
    j = h.journal(ids[0])
    eq(j["state"], "applied", "journal state")
    got = sorted((x["name"], x["version"]) for x in j["packages"]["installed"])
    eq(got, sorted((n, v) for _, n, v in WANT_INSTALL), "the journal: what the run installed, with versions")
    eq(j["packages"]["removed"], [], "nothing removed")

    # the check takes the mirror for AMD's repository: no false alarm; the
    # same tree without the mirror in the configuration has one
    mirror_recognised(h, "apt.repo-missing", {"apt.suite-mismatch", "apt.key-missing", "rocm.not-installed"})

    # the check now sees ROCm (its facts come from the root's files)
    p = h.setup()
    eq((p.returncode, p.stdout), (0, "Nothing to do in this root.\n"), "setup a second time plans nothing")

    p = h.rd("undo")
    eq(p.returncode, 0, "undo: %s %s" % (p.stdout, p.stderr))
    eq(h.packages(), pkgs_before, "dpkg -l after undo")
    same_tree(h.tree(), tree_before, "the tree after undo")


@test
def shadowing_distribution_package_removed_and_put_back():
    h = Host()
    h.install("libhsa-runtime64-1")
    # the administrator's edit of its configuration file survives setup and undo
    conf = "/etc/stand-in/libhsa-runtime64-1.conf"
    h.r.write(conf, "# edited by the administrator\n")
    pkgs_before, tree_before = h.packages(), h.tree()
    check("libhsa-runtime64-1 5.7.1-3 ii" in pkgs_before, pkgs_before)
    p = h.setup("--usecase", "runtime")
    out = p.stdout
    check(("remove", "libhsa-runtime64-1", "5.7.1-3") in package_lines(out), "the distribution's copy goes: " + out)
    check("3. packages: ROCm packages (runtime), distribution ROCm packages out" in out, out)
    p = h.setup("--usecase", "runtime", "--apply", "--yes")
    eq(p.returncode, 0, "apply: %s %s" % (p.stdout, p.stderr))
    now = h.packages()
    check("libhsa-runtime64-1 5.7.1-3 rc" in now, "removed, its configuration kept (not purged): %s" % now)
    eq(h.r.read(conf), "# edited by the administrator\n", "the edited configuration file is kept")
    check(any(l.startswith("rocm-hip-runtime 6.4.1.") for l in now), now)
    check(not any(l.startswith("rocm ") for l in now), "runtime only: no rocm meta package: %s" % now)
    j = h.journal(h.run_ids()[0])
    eq(j["packages"]["removed"], [{"name": "libhsa-runtime64-1", "version": "5.7.1-3"}], "journal: removed")
    p = h.rd("undo")
    eq(p.returncode, 0, "undo: %s %s" % (p.stdout, p.stderr))
    eq(h.packages(), pkgs_before, "the distribution's package is back at its version")
    same_tree(h.tree(), tree_before, "tree after undo")


@test
def driver_when_the_kernel_is_too_old():
    h = Host(kernel=OLD_KERNEL)
    p = h.setup()
    out = p.stdout
    got = package_lines(out)
    check(("install", "amdgpu-dkms", "1:6.12.12.60401-2164967.24.04") in got, out)
    check(("install", "linux-headers-" + OLD_KERNEL, "5.15.0-91.101") in got, "the running kernel's headers: " + out)
    check("URIs: %s/radeon/amdgpu/6.4.1/ubuntu" % mirror().base in out, "the driver repository: " + out)
    check("run on first boot: dkms autoinstall -k %s" % OLD_KERNEL in out, out)
    check("Afterwards: AMD's amdgpu driver because the running kernel %s is older than 6.2, the first whose amdgpu "
          "serves AMD Radeon RX 7900 XTX (gfx1100); reboot so that it is the one loaded" % OLD_KERNEL in out, out)
    j = json.loads(h.setup("--json").stdout)
    step = [s for s in j["steps"] if s["fix"] == "packages"][0]
    eq(step["effect"], "reboot", "the package step waits for a reboot")
    act = [a for a in step["actions"] if a["action"] == "packages"][0]
    eq(act["package_manager"], "apt", "package manager")
    check(act["download_size"] > 0, "download size in JSON")


def rx9070xt_facts(kernel):
    """The RX 7900 XTX host's facts with an RX 9070 XT (1002:7550, gfx1201)
    instead, which no driver took: the kernel's amdgpu is not loaded."""
    fa = facts(kernel)
    d = fa["pci"]["devices"][0]
    d.update(device_id=0x7550, revision=0xC0, marketing_name="AMD Radeon RX 9070 XT")
    del d["driver"]
    fa["kfd"] = {"present": False}
    fa["driver"] = {"module_present": False, "cmdline": fa["driver"]["cmdline"]}
    return fa


@test
def rx9070xt_on_kernel_6_8_one_rule_in_check_and_setup():
    """gfx1201 on Ubuntu 24.04's 6.8 kernel: the check says the kernel's
    amdgpu cannot serve it (not "modprobe amdgpu"), with the series that can
    and the driver package; setup plans that driver, for the same reason."""
    h = Host()
    h.write_facts(rx9070xt_facts(KERNEL))
    p = h.rd("check", "--json")
    eq(p.returncode, 2, "check: " + p.stderr)
    found = {(f["id"], f.get("gpu")): f for f in json.loads(p.stdout)["findings"]}
    fd = found.get(("driver.kernel-too-old", "0000:03:00.0"))
    check(fd is not None, "driver.kernel-too-old for the GPU: %s" % sorted(found))
    check(("driver.not-loaded", None) not in found, "no modprobe advice: %s" % sorted(found))
    eq(fd["severity"], "error", "severity")
    check("packages.ini [driver] inbox-kernel: gfx1201:6.14" in fd["evidence"], fd["evidence"])
    check("amdgpu-dkms" in fd["remedy"] and "kernel 6.14 or later" in fd["remedy"], fd["remedy"])
    check("modprobe" not in fd["remedy"], fd["remedy"])
    p = h.setup()
    out = p.stdout
    got = package_lines(out)
    check(("install", "amdgpu-dkms", "1:6.12.12.60401-2164967.24.04") in got, out)
    check(("install", "linux-headers-" + KERNEL, "6.8.0-45.45") in got, "the running kernel's headers: " + out)
    check("AMD's amdgpu driver because the running kernel %s is older than 6.14, the first whose amdgpu serves AMD "
          "Radeon RX 9070 XT (gfx1201)" % KERNEL in out, out)
    j = json.loads(h.setup("--json").stdout)
    step = [s for s in j["steps"] if s["fix"] == "packages"][0]
    check("driver.kernel-too-old" in step["findings"], "setup's package step addresses the check's finding: %s"
          % step.get("findings"))


@test
def refusals_list_the_valid_values():
    h = Host()
    p = h.setup("--release", "9.9")
    check(p.returncode == 3 and "--release 9.9: no such ROCm release" in p.stderr and "6.4 (6.4.3)" in p.stderr,
          p.stderr)
    p = h.rd("setup", "--release", "5.6")
    check(p.returncode == 3 and "AMD does not ship ROCm 5.6 for ubuntu 24.04" in p.stderr, p.stderr)
    p = h.setup("--usecase", "rocm,games")
    eq((p.returncode, p.stderr.strip()), (3, 'rocm-doctor: --usecase: "games" is not a use case (rocm, runtime, '
                                             'hip-sdk, ml-sdk, driver)\nTry \'rocm-doctor --help\' for more '
                                             'information.'.strip()), "unknown use case")


@test
def lock_held_by_another_process():
    h = Host()
    pkgs_before, tree_before = h.packages(), h.tree()
    with open(h.r.p("/var/lib/dpkg/lock-frontend"), "w") as lock:
        fcntl.lockf(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        t0 = time.monotonic()
        p = h.setup("--apply", "--yes")
        waited = time.monotonic() - t0
    eq(p.returncode, 3, "apply fails: %s" % p.stdout)
    check("/var/lib/dpkg/lock-frontend is held by process %d (python3), still after 2 s" % os.getpid() in p.stderr,
          p.stderr)
    check("everything done before was rolled back" in p.stderr, p.stderr)
    check(waited >= 2, "waited for the lock (%.1f s)" % waited)
    eq(h.packages(), pkgs_before, "nothing installed")
    same_tree(h.tree(), tree_before, "nothing half-written")


@test
def unreachable_repository():
    port = standin.closed_port()
    h = Host(mirror_base="http://127.0.0.1:%d/radeon" % port)
    pkgs_before, tree_before = h.packages(), h.tree()
    p = h.setup()
    out = p.stdout
    eq(p.returncode, 2, "a step setup needs could not be planned")
    check("packages: the apt dry run could not run (the repository server cannot be reached from here), so no "
          "version is resolved; the plan would install rocm (unresolved)" in out, out)
    check("127.0.0.1:%d" % port not in out.split("Not planned:")[1], "the package manager's output only with "
          "--verbose: " + out)
    p = h.setup("--verbose")
    check("127.0.0.1:%d" % port in p.stdout.split("Not planned:")[1], "--verbose names the repository: " + p.stdout)
    p = h.setup("--apply", "--yes")
    check(p.returncode == 2 and "packages: the apt dry run could not run" in p.stdout, p.stdout)
    eq(h.packages(), pkgs_before, "nothing installed")
    eq(h.r.exists("/etc/apt/sources.list.d/rocm.sources"), True, "the repository step itself was applied")
    eq(h.rd("undo").returncode, 0, "undo")
    same_tree(h.tree(), tree_before, "undo")


@test
def unreachable_repository_still_names_driver_and_headers():
    """The mirror unreachable on a host whose GPU needs AMD's driver (kernel
    5.15 for gfx1100): the plan still names every package it means to
    install, the driver and the running kernel's headers among them."""
    port = standin.closed_port()
    h = Host(kernel=OLD_KERNEL, mirror_base="http://127.0.0.1:%d/radeon" % port)
    p = h.setup()
    eq(p.returncode, 2, "a step setup needs could not be planned: " + p.stdout)
    check("packages: the apt dry run could not run (the repository server cannot be reached from here), so no "
          "version is resolved; the plan would install rocm amdgpu-dkms linux-headers-%s (unresolved)" % OLD_KERNEL
          in p.stdout, p.stdout)
    check(p.stdout.startswith("Plan for %s: 2 steps, 1 not planned (below)" % h.path), p.stdout.split("\n")[0])


@test
def held_package():
    h = Host()
    h.install("rocm-core")
    check(any(l.startswith("rocm-core 6.3.0.") for l in h.packages()), "the distribution's older rocm-core")
    q = h.chroot("apt-mark", "hold", "rocm-core")
    eq(q.returncode, 0, q.stdout)
    # AMD's rocm meta package needs the held one upgraded
    p = h.setup()
    check("packages: the apt dry run could not run (" in p.stdout and "held" in p.stdout.lower(), p.stdout)


def setup_killed_at(h, marker):
    """setup --apply, killed with its package manager (SIGKILL to the
    process group) once marker appears, or when it ends by itself."""
    proc = subprocess.Popen([RD, "setup", "--release", "6.4.1", "--apply", "--yes", "--root", h.path,
                             "--facts", h.facts], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            start_new_session=True)
    for _ in range(1200):
        if os.path.exists(marker) or proc.poll() is not None:
            break
        time.sleep(0.1)
    if proc.poll() is None:
        os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()


@test
def killed_in_the_package_phase_undo_restores():
    h = Host()
    pkgs_before, tree_before = h.packages(), h.tree()
    marker = h.r.p("/tmp/rd-dpkg-ran")
    # apt's own hook, after dpkg: the run is killed before it records what it did
    h.r.write("/etc/apt/apt.conf.d/99rd-kill", 'DPkg::Post-Invoke { "touch /tmp/rd-dpkg-ran; sleep 60"; };\n')
    setup_killed_at(h, marker)
    check(os.path.exists(marker), "dpkg ran")
    os.unlink(h.r.p("/etc/apt/apt.conf.d/99rd-kill"))
    os.unlink(marker)
    eq(h.journal(h.run_ids()[0])["state"], "applying", "the killed run")
    check(any(l.startswith("rocm ") for l in h.packages()), "dpkg had installed the packages")
    p = h.setup("--apply", "--yes")
    check(p.returncode == 3 and "was interrupted" in p.stderr, "a new run waits for undo: " + p.stderr)
    p = h.rd("undo")
    eq(p.returncode, 0, "undo: %s %s" % (p.stdout, p.stderr))
    eq(h.packages(), pkgs_before, "dpkg -l after undo of the killed run")
    same_tree(h.tree(), tree_before, "tree after undo of the killed run")


@test
def killed_while_dpkg_configures_undo_finishes_dpkg_then_restores():
    h = Host()
    pkgs_before, tree_before = h.packages(), h.tree()
    h.r.write("/tmp/rd-slow-postinst", "")
    marker = h.r.p("/tmp/rd-in-postinst")
    setup_killed_at(h, marker)
    check(os.path.exists(marker), "dpkg ran the postinst")
    os.unlink(marker)
    state = [l for l in h.packages() if l.startswith("rocm-opencl-runtime ")]
    check(state and state[0].split()[-1] in ("iU", "iF", "iH"), "dpkg left it unconfigured: %s" % state)
    p = h.rd("undo")
    eq(p.returncode, 0, "undo: %s %s" % (p.stdout, p.stderr))
    eq(h.packages(), pkgs_before, "dpkg -l after undo")
    same_tree(h.tree(), tree_before, "tree after undo")


@test
def undo_refused_while_something_depends():
    h = Host()
    p = h.setup("--usecase", "runtime", "--apply", "--yes")
    eq(p.returncode, 0, p.stderr)
    # installed later, depending on what the run installed
    h.install("rocm")
    p = h.rd("undo")
    eq(p.returncode, 3, "undo refused")
    check("rocm installed since run" in p.stderr and "nothing was undone" in p.stderr, p.stderr)
    check(any(l.startswith("rocm-hip-runtime ") for l in h.packages()), "nothing removed")


def ansible_play(h, m, tmp, mirror_base, **more):
    """The rocm_doctor role's setup path on the root h, AMD's key given as
    the role's variables (a key file on the controller, its fingerprint)."""
    facts_dir = os.path.join(tmp, "facts.d")
    rdd = os.path.join(os.path.dirname(os.path.abspath(RD)), "rocm-doctord")
    extra = {
        "rocm_doctor_bin": os.path.abspath(RD), "rocm_doctor_daemon_bin": rdd, "rocm_doctor_root": h.path,
        "rocm_doctor_install": False, "rocm_doctor_manage_units": False, "rocm_doctor_fact_dir": facts_dir,
        "rocm_doctor_fact_script": os.path.join(SRC, "..", "..", "..", "conf", "ansible", "rocm_doctor.fact"),
        "rocm_doctor_setup": True, "rocm_doctor_setup_release": "6.4.1", "rocm_doctor_setup_usecases": ["runtime"],
        "rocm_doctor_gpu_users": ["alice"],
        "rocm_doctor_key_file": m.key_file, "rocm_doctor_key_fingerprint": m.fingerprint,
        "rocm_doctor_config": {"fix": {"package_lock_timeout_s": 2},
                               "repository": {"mirror": mirror_base},
                               "output": {"status_file": os.path.join(tmp, "status.json")}},
    }
    extra.update(more)
    env = dict(os.environ, HOME=tmp, ANSIBLE_LOCAL_TEMP=os.path.join(tmp, "l"),
               PATH=os.path.dirname(os.path.abspath(RD)) + os.pathsep + os.environ.get("PATH", "/usr/bin:/bin"),
               ANSIBLE_REMOTE_TEMP=os.path.join(tmp, "r"), ANSIBLE_NOCOLOR="1", ANSIBLE_LOCALHOST_WARNING="False",
               ANSIBLE_PYTHON_INTERPRETER=sys.executable, ANSIBLE_STDOUT_CALLBACK="default",
               ANSIBLE_DEPRECATION_WARNINGS="False")
    playbook = os.path.join(SRC, "..", "..", "..", "contrib", "ansible", "playbook.yml")
    p = subprocess.run(["ansible-playbook", "-i", "localhost,", "-c", "local", "-e", json.dumps(extra), playbook],
                       capture_output=True, text=True, env=env, timeout=900)
    recap = p.stdout[p.stdout.rfind("PLAY RECAP"):]
    return p, recap


def task_output(out, name):
    """What the play printed under the task `name` of the role."""
    parts = out.split("TASK [rocm_doctor : %s]" % name)
    return parts[1].split("TASK [")[0].split("PLAY RECAP")[0] if len(parts) > 1 else ""


@test
def ansible_setup_path():
    """The rocm_doctor role's setup path on the root: setup --apply, the boot
    check, the verdict asserted; a second run changes nothing. (The role's
    reboot is for hosts, not --root trees: it is skipped here.) The key
    comes from rocm_doctor_key_file and rocm_doctor_key_fingerprint."""
    if not shutil.which("ansible-playbook"):
        raise Skip("needs ansible-core")
    h = Host()
    m = mirror()
    tmp = temp_dir("rd-setup-ansible.")
    p, recap = ansible_play(h, m, tmp, m.base + "/radeon")
    check(p.returncode == 0 and "failed=0" in recap, "first run: %s\n%s" % (p.stdout[-3000:], p.stderr[-2000:]))
    conf = h.r.read("/etc/rocm-doctor/rocm-doctor.conf")
    check("key_file = %s/etc/rocm-doctor/repository.gpg.key\n" % h.path in conf and
          "key_fingerprint = %s\n" % m.fingerprint in conf, conf)
    with open(m.key_file, "rb") as f, open(h.r.p("/etc/rocm-doctor/repository.gpg.key"), "rb") as g:
        eq(g.read(), f.read(), "the key file copied")
    check("changed: [localhost]" in task_output(p.stdout, "Apply the setup"), "applied: " + p.stdout[-3000:])
    check("ok: [localhost]" in task_output(p.stdout, "The run is verified, or needed no reboot and fixed what it "
                                                     "addressed"), "verdict: " + p.stdout)
    check(any(l.startswith("rocm-hip-runtime 6.4.1.") for l in h.packages()), "installed: %s" % h.packages())
    p, recap = ansible_play(h, m, tmp, m.base + "/radeon")
    check(p.returncode == 0 and "changed=0" in recap and "failed=0" in recap,
          "second run: changed=0: %s" % p.stdout[-3000:])


@test
def ansible_setup_not_planned():
    """The role's setup path where a step setup needs cannot be planned (the
    repository server cannot be reached: setup exits 2): the play stops with
    a readable message naming the step and its cause, not the plan's JSON,
    and applies nothing."""
    if not shutil.which("ansible-playbook"):
        raise Skip("needs ansible-core")
    port = standin.closed_port()
    base = "http://127.0.0.1:%d/radeon" % port
    h = Host(mirror_base=base)
    m = mirror()
    pkgs_before = h.packages()
    tmp = temp_dir("rd-setup-ansible.")
    p, recap = ansible_play(h, m, tmp, base)
    said = task_output(p.stdout, "Steps that could not be planned")
    check(p.returncode != 0 and "failed=1" in recap, "the play fails: %s" % p.stdout[-3000:])
    check("fatal: [localhost]: FAILED! => {\"changed\": false, \"msg\": \"localhost: rocm-doctor setup cannot plan "
          "every step it needs, so nothing was applied. Not planned: packages: the apt dry run could not run (the "
          "repository server cannot be reached from here)" in said, "readable: " + (said or p.stdout[-3000:]))
    check("`rocm-doctor setup --verbose` on the host" in said and "\"steps\"" not in said and "stdout" not in said,
          "no JSON dump: " + said)
    check("Apply the setup" not in p.stdout, "not applied: " + p.stdout[-2000:])
    eq(h.packages(), pkgs_before, "nothing installed")
    eq(h.r.exists("/etc/apt/sources.list.d/rocm.sources"), False, "no repository written")


def rpm_mirror():
    m = mirror()
    if "rpm" not in STATE:
        standin.add_rpm_trees(m)
        STATE["rpm"] = True
    return m


def instinct_facts(os_id, version_id, kernel, device_id, gfx_target_version, name):
    fa = facts(kernel)
    fa["os"] = {"id": os_id, "version_id": version_id, "kernel_release": kernel}
    fa["pci"]["devices"][0].update({"device_id": device_id, "marketing_name": name})
    for n in fa["kfd"]["nodes"]:
        if n["properties"].get("gfx_target_version"):
            n["properties"].update({"gfx_target_version": gfx_target_version, "device_id": device_id})
    return fa


class RpmHost:
    """An empty tree with an os-release, users, the distribution's
    repository and the policy: dnf --installroot or zypper --root fill it."""

    def __init__(self, pm):
        need_root()
        if not shutil.which(pm) or not shutil.which("rpmbuild") or not shutil.which("createrepo_c"):
            raise Skip("needs %s, rpmbuild and createrepo_c" % pm)
        m = rpm_mirror()
        self.pm = pm
        self.r = Root()
        self.path = self.r.path
        # Debian's rpm keeps its database in ~/.rpmdb; RHEL's and SUSE's
        # tools use the tree's own: the same for rpm, dnf and zypper here
        self.home = temp_dir("rd-setup-home.")
        with open(os.path.join(self.home, ".rpmmacros"), "w") as f:
            f.write("%_dbpath /var/lib/rpm\n")
        if pm == "dnf":
            self.r.write("/etc/os-release", 'NAME="Red Hat Enterprise Linux"\nVERSION_ID="9.6"\nID="rhel"\n'
                                             'ID_LIKE="fedora"\nPRETTY_NAME="Red Hat Enterprise Linux 9.6 (Plow)"\n')
            self.r.write("/etc/yum.repos.d/distro.repo", "[baseos]\nname=BaseOS\nbaseurl=%s/el9-distro\n"
                                                          "enabled=1\ngpgcheck=0\n" % m.base)
            fa = instinct_facts("rhel", "9.6", standin.EL9_KERNEL, 0x74a1, 90402, "AMD Instinct MI300X")
        else:
            self.r.write("/etc/os-release", 'NAME="SLES"\nVERSION_ID="15.6"\nID="sles"\nID_LIKE="suse"\n'
                                             'PRETTY_NAME="SUSE Linux Enterprise Server 15 SP6"\n')
            self.r.write("/etc/zypp/repos.d/distro.repo", "[sles-distro]\nname=SLES\nbaseurl=%s/sles-distro\n"
                                                           "enabled=1\ngpgcheck=0\nautorefresh=1\n" % m.base)
            fa = instinct_facts("sles", "15.6", standin.SLES_KERNEL, 0x740f, 90010, "AMD Instinct MI210")
        self.r.write("/etc/rocm-doctor/rocm-doctor.conf",
                     "[fix]\napt_key_file = %s\napt_key_fingerprint = %s\npackage_lock_timeout_s = 2\n"
                     "[repository]\nmirror = %s/radeon\n" % (m.key_file, m.fingerprint, m.base))
        self.facts = self.path + ".facts.json"
        with open(self.facts, "w") as f:
            json.dump(fa, f)
        # the base every installed system has (and its rpm database)
        env = dict(os.environ, HOME=self.home)
        argv = (["dnf", "-y", "-q", "--installroot", self.path, "--releasever=9", "install", "filesystem"]
                if pm == "dnf" else ["zypper", "-n", "--root", self.path, "install", "filesystem"])
        q = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env)
        eq(q.returncode, 0, "%s: %s" % (" ".join(argv), q.stdout[-2000:]))

    rd = Host.rd
    setup = Host.setup
    run_ids = Host.run_ids
    journal = Host.journal

    def packages(self):
        q = subprocess.run(["rpm", "--root", self.path, "-qa", "--qf", "%{NAME} %{VERSION}-%{RELEASE}\n"],
                           capture_output=True, text=True, env=dict(os.environ, HOME=self.home))
        return sorted(l for l in q.stdout.splitlines() if l)

    def tree(self):
        # the package managers' own state: databases, caches, logs, module state
        skip = ("var/lib/rpm", "var/cache/dnf", "var/lib/dnf", "var/log", "var/cache/zypp", "var/lib/zypp", "etc/dnf",
                "var/cache/ldconfig", "tmp", "var/lib/rocm-doctor", "run", "var/run", "usr/lib/sysimage")
        return {k: v for k, v in self.r.tree().items() if not k.startswith(skip)}


RPM_WANT = [("install", n, v + "-" + r) for n, (v, r, _, _) in standin.RPM_ROCM.items()]


def rpm_roundtrip(pm, want_headers):
    h = RpmHost(pm)
    pkgs_before, tree_before = h.packages(), h.tree()
    p = h.setup()
    out = p.stdout
    eq(p.returncode, 1, "plan (stderr %s): %s" % (p.stderr, out))
    check("packages, through %s (indexes refreshed first):" % pm in out, out)
    got = package_lines(out)
    for w in RPM_WANT + [("install", "amdgpu-dkms", "6.12.12-2164967.el9")] + want_headers:
        check(w in got, "%s in the plan: %s" % (w, out))
    check(re.search(r"to install, 0 to upgrade, 0 to downgrade, 0 to remove; download \d", out), out)
    check("/radeon/amdgpu/6.4.1/" in out, "the driver repository, through the mirror: " + out)
    eq(h.packages(), pkgs_before, "planning installed nothing")
    p = h.setup("--apply", "--yes")
    eq(p.returncode in (0, 1), True, "apply: %s %s" % (p.stdout, p.stderr))
    now = h.packages()
    for _, name, version in RPM_WANT:
        check("%s %s" % (name, version) in now, "%s %s installed: %s" % (name, version, now))
    j = h.journal(h.run_ids()[0])
    eq(j["state"], "applied", "journal")
    check(sorted(x["name"] for x in j["packages"]["installed"]) ==
          sorted([w[1] for w in RPM_WANT] + ["amdgpu-dkms"] + [w[1].split("-5.14")[0].split("-6.4")[0]
                                                               for w in want_headers]),
          "journal: installed %s" % j["packages"]["installed"])
    eq(j["steps"][-1]["effect"], "reboot", "the driver waits for the reboot")
    mirror_recognised(h, "%s.repo-missing" % pm, {"dnf.release-mismatch", "zypper.release-mismatch"})
    p = h.setup()
    eq((p.returncode, p.stdout), (0, "Nothing to do in this root.\n"), "a second setup plans nothing")
    p = h.rd("undo")
    eq(p.returncode, 0, "undo: %s %s" % (p.stdout, p.stderr))
    eq(h.packages(), pkgs_before, "rpm -qa after undo")
    same_tree(h.tree(), tree_before, "the tree after undo")
    return out


@test
def rpm_failing_scriptlet_undo_removes_without_it():
    """amdgpu-dkms's %preun fails: dnf cannot remove it, so undo removes
    the run's packages with rpm -e --noscripts, then the repository."""
    h = RpmHost("dnf")
    pkgs_before, tree_before = h.packages(), h.tree()
    p = h.setup("--apply", "--yes")
    check(p.returncode in (0, 1), "apply: %s %s" % (p.stdout, p.stderr))
    check(any(l.startswith("amdgpu-dkms ") for l in h.packages()), h.packages())
    h.r.write("/tmp/rd-dkms-fails", "")
    p = h.rd("undo")
    eq(p.returncode, 0, "undo: %s %s" % (p.stdout, p.stderr))
    check("Note: amdgpu-dkms could not be finished by the package manager" in " ".join(p.stdout.split()),
          "undo says which: " + p.stdout)
    eq(h.packages(), pkgs_before, "rpm -qa after undo")
    same_tree(h.tree(), tree_before, "the tree after undo")


@test
def rhel_dnf_installroot():
    out = rpm_roundtrip("dnf", [("install", "kernel-devel", "5.14.0-570.12.1.el9_6"),
                                ("install", "kernel-headers", "5.14.0-570.12.1.el9_6")])
    check("MI300X" in out or "gfx942" in out or "amdgpu-dkms" in out, out)


@test
def sles_zypper_root():
    rpm_roundtrip("zypper", [("install", "kernel-default-devel", "6.4.0-150600.23.25.1")])


def real_layout(release, apply=False):
    """setup --release on the mirror laid out as AMD's server really is
    (standin.REAL_LAYOUT, written by hand): the sources name those folders
    and apt's dry run resolves every package from them, which it cannot
    when a folder is one AMD does not serve (apt update fails with 404)."""
    rocm_dir, drv_dir, gfx_dir, build, _ = standin.REAL_LAYOUT[release]
    h = Host(conf_extra="apt_driver = yes\napt_graphics = yes\n")
    base = mirror().base + "/radeon/"
    p = h.rd("setup", "--release", release)
    out = p.stdout.replace(h.path, "ROOT")
    eq(p.returncode, 1, "plan: steps to carry out (stderr %s)\n%s" % (p.stderr, out))
    want = sorted(base + d for d in (rocm_dir, drv_dir, gfx_dir) if d)
    eq(sorted(re.findall(r"^\+URIs: (\S+)$", out, re.M)), want, "the folders of AMD's layout: " + out)
    check("Not planned" not in out, "every step planned: " + out)
    pk = dict((n, v) for _, n, v in package_lines(out))
    eq(pk.get("rocm-core"), "%s.%s" % (release, build), "rocm-core from %s: %s" % (rocm_dir, out))
    eq(len(pk), 7, "the seven ROCm packages resolved: %s" % pk)
    if not apply:
        return
    pkgs_before, tree_before = h.packages(), h.tree()
    p = h.rd("setup", "--release", release, "--apply", "--yes")
    eq(p.returncode, 0, "apply (stdout %s, stderr %s)" % (p.stdout, p.stderr))
    check(any(l.startswith("rocm-core %s.%s ii" % (release, build)) for l in h.packages()), h.packages())
    q = h.chroot("apt-get", "update")
    eq(q.returncode, 0, "apt-get update in the set-up root reads every source: " + q.stdout)
    p = h.rd("undo")
    eq(p.returncode, 0, "undo: %s %s" % (p.stdout, p.stderr))
    eq(h.packages(), pkgs_before, "dpkg -l after undo")
    same_tree(h.tree(), tree_before, "the tree after undo")


@test
def amdgpu_install_host_left_alone():
    """A host set up as amdgpu-install leaves it (rocm.list, amdgpu.list with
    the driver line's arch=amd64,i386, the keyring and its pin): setup plans
    no repository step and moves nothing aside; the packages resolve from
    those files."""
    h = Host()
    base = mirror().base + "/radeon"
    q = subprocess.run(["gpg", "--dearmor", "-o", h.r.p("/etc/apt/keyrings/rocm.gpg"), mirror().key_file],
                       capture_output=True, text=True)
    eq(q.returncode, 0, "gpg --dearmor: " + q.stderr)
    h.r.write("/etc/apt/sources.list.d/rocm.list",
              "deb [arch=amd64 signed-by=/etc/apt/keyrings/rocm.gpg] %s/rocm/apt/6.4.1 noble main\n" % base)
    h.r.write("/etc/apt/sources.list.d/amdgpu.list",
              "deb [arch=amd64,i386 signed-by=/etc/apt/keyrings/rocm.gpg] %s/amdgpu/6.4.1/ubuntu noble main\n"
              "#deb-src [arch=amd64,i386 signed-by=/etc/apt/keyrings/rocm.gpg] %s/amdgpu/6.4.1/ubuntu noble main\n"
              % (base, base))
    h.r.write("/etc/apt/preferences.d/rocm-pin-600", "Package: *\nPin: release o=repo.radeon.com\nPin-Priority: 600\n")
    # the GPU comes from the facts file; the root's apt files as the check reads them
    env = dict(os.environ, NO_COLOR="1")
    q = subprocess.run([RD, "facts", "--root", h.path], capture_output=True, text=True, env=env)
    fa = facts()
    fa["apt"] = json.loads(q.stdout)["apt"]
    eq(len(fa["apt"]["sources"]), 2, "the two lists as the check reads them: %s" % fa["apt"])
    h.write_facts(fa)
    tree_before = h.tree()
    p = h.setup()
    out = p.stdout.replace(h.path, "ROOT")
    check(not re.search(r"^\d+\. apt: ", out, re.M), "no repository step: " + out)
    check(".disabled" not in out and "rocm.sources" not in out, "nothing moved aside or written: " + out)
    eq(dict((n, v) for _, n, v in package_lines(out)).get("rocm-core"), "6.4.1." + standin.BUILD,
       "the packages resolve from amdgpu-install's files: " + out)
    same_tree(h.tree(), tree_before, "planning wrote nothing")


@test
def amdgpu_install_host_partly_wrong_edited_in_place():
    """amdgpu-install's files of ROCm 6.4.0, the driver line with the wrong
    suite (jammy on noble), set up for 6.4.1: only the wrong lines change,
    in their own files (arch=amd64,i386 and the commented deb-src line
    kept); nothing is moved aside, no second file or pin is written; apply
    and undo bring back the very files."""
    h = Host()
    base = mirror().base + "/radeon"
    q = subprocess.run(["gpg", "--dearmor", "-o", h.r.p("/etc/apt/keyrings/rocm.gpg"), mirror().key_file],
                       capture_output=True, text=True)
    eq(q.returncode, 0, "gpg --dearmor: " + q.stderr)
    opts = "[arch=amd64,i386 signed-by=/etc/apt/keyrings/rocm.gpg]"
    h.r.write("/etc/apt/sources.list.d/rocm.list",
              "deb [arch=amd64 signed-by=/etc/apt/keyrings/rocm.gpg] %s/rocm/apt/6.4 noble main\n" % base)
    h.r.write("/etc/apt/sources.list.d/amdgpu.list",
              "deb %s %s/amdgpu/6.4/ubuntu jammy main\n#deb-src %s %s/amdgpu/6.4/ubuntu jammy main\n"
              % (opts, base, opts, base))
    h.r.write("/etc/apt/preferences.d/rocm-pin-600", "Package: *\nPin: release o=repo.radeon.com\nPin-Priority: 600\n")
    env = dict(os.environ, NO_COLOR="1")
    q = subprocess.run([RD, "facts", "--root", h.path], capture_output=True, text=True, env=env)
    fa = facts()
    fa["apt"] = json.loads(q.stdout)["apt"]
    h.write_facts(fa)

    def apt_ids():
        q = subprocess.run([RD, "check", "--json", "--root", h.path], capture_output=True, text=True, env=env)
        return sorted(f["id"] for f in json.loads(q.stdout)["findings"] if f["id"].startswith("apt."))
    eq(apt_ids(), ["apt.suite-mismatch"], "the check of the root before")
    tree_before = h.tree()
    p = h.setup()
    out = p.stdout.replace(h.path, "ROOT")
    check(re.search(r"^\d+\. apt: AMD's apt repository for ROCm 6\.4\.1 \(noble\)$", out, re.M), out)
    check(".disabled" not in out and "rocm.sources" not in out and "rocm-pin-600" not in out,
          "nothing moved aside, no second file or pin: " + out)
    check("-deb %s %s/amdgpu/6.4/ubuntu jammy main\n+deb %s %s/amdgpu/6.4.1/ubuntu noble main\n"
          % (opts, base, opts, base) in out, "the driver line's diff: " + out)
    eq(dict((n, v) for _, n, v in package_lines(out)).get("rocm-core"), "6.4.1." + standin.BUILD,
       "the packages resolve from the edited files: " + out)
    p = h.setup("--apply", "--yes")
    # the apt finding came from the facts file, so the run cannot check it again
    eq(p.returncode, 1, "apply: %s %s" % (p.stdout, p.stderr))
    check("apt.suite-mismatch       still failing: not checked again: the diagnosis comes from --facts" in p.stdout,
          p.stdout)
    eq(apt_ids(), [], "the check of the root after apply: no apt finding")
    eq(h.r.read("/etc/apt/sources.list.d/rocm.list"),
       "deb [arch=amd64 signed-by=/etc/apt/keyrings/rocm.gpg] %s/rocm/apt/6.4.1 noble main\n" % base, "rocm.list")
    eq(h.r.read("/etc/apt/sources.list.d/amdgpu.list"),
       "deb %s %s/amdgpu/6.4.1/ubuntu noble main\n#deb-src %s %s/amdgpu/6.4/ubuntu jammy main\n"
       % (opts, base, opts, base), "amdgpu.list: the wrong line changed, the comment kept")
    eq(h.r.exists("/etc/apt/sources.list.d/rocm.sources"), False, "no second source file")
    p = h.rd("undo")
    eq(p.returncode, 0, "undo: %s %s" % (p.stdout, p.stderr))
    same_tree(h.tree(), tree_before, "the tree after undo")


@test
def real_layout_6_4_0():
    real_layout("6.4.0")


@test
def real_layout_7_1_0():
    real_layout("7.1.0")


@test
def real_layout_7_2_3_apply_undo():
    real_layout("7.2.3", apply=True)


def broken(pkgs):
    """The packages dpkg has not finished (any state but installed, or
    reinstallation required)."""
    return [l for l in pkgs if not l.endswith(" ii")]


@test
def failing_postinst_rolled_back():
    """amdgpu-dkms's postinst fails, as it does when its DKMS build fails,
    and again at every `dpkg --configure -a`: the rollback removes it
    half-configured and the packages apt left unconfigured behind it, then
    the repository files; the root is as it was."""
    h = Host(kernel=OLD_KERNEL)
    pkgs_before, tree_before = h.packages(), h.tree()
    h.r.write("/tmp/rd-dkms-fails", "")
    p = h.setup("--apply", "--yes")
    eq(p.returncode, 3, "apply fails: %s %s" % (p.stdout, p.stderr))
    check("Bad return status for module build" in p.stderr, "the postinst's own line: " + p.stderr)
    check("everything done before was rolled back (amdgpu-dkms could not be finished by the package manager (a "
          "maintainer script failed, or it was interrupted) and was removed with its force options)" in p.stderr and
          "incomplete" not in p.stderr, p.stderr)
    eq(h.packages(), pkgs_before, "dpkg -l after the rollback")
    same_tree(h.tree(), tree_before, "the tree after the rollback")
    eq(h.journal(h.run_ids()[0])["state"], "rolled-back", "the journal")
    eq(h.r.read("/tmp/rd-dkms-builds"), "build\n", "the failing build ran once: the rollback did not run it again")
    eq(h.rd("undo").returncode, 3, "nothing left to undo")


def unfinished_undo_then_fixed(h, pkgs_before, tree_before, cause_gone):
    """Undo while the cause is still there keeps the repository files and
    says what is left; once it is gone, the next undo finishes."""
    eq(h.r.exists("/etc/apt/sources.list.d/rocm.sources"), True, "the repository is kept until the packages are out")
    cause_gone()
    p = h.rd("undo")
    eq(p.returncode, 0, "undo: %s %s" % (p.stdout, p.stderr))
    eq(h.packages(), pkgs_before, "dpkg -l after undo")
    same_tree(h.tree(), tree_before, "the tree after undo")


@test
def failing_postinst_killed_rollback_undo_finishes():
    """The run is killed while the postinst fails (before its rollback):
    undo removes the half-configured packages although `dpkg --configure
    -a` keeps failing, and only then the repository files."""
    h = Host(kernel=OLD_KERNEL)
    pkgs_before, tree_before = h.packages(), h.tree()
    h.r.write("/tmp/rd-dkms-fails", "")
    marker = h.r.p("/tmp/rd-dpkg-ran")
    h.r.write("/etc/apt/apt.conf.d/99rd-kill", 'DPkg::Post-Invoke { "touch /tmp/rd-dpkg-ran; sleep 60"; };\n')
    setup_killed_at(h, marker)
    check(os.path.exists(marker), "dpkg ran")
    os.unlink(h.r.p("/etc/apt/apt.conf.d/99rd-kill"))
    os.unlink(marker)
    check(any(l.startswith("amdgpu-dkms ") and l.endswith(" iF") for l in h.packages()),
          "amdgpu-dkms half-configured: %s" % h.packages())
    p = h.rd("undo")
    eq(p.returncode, 0, "undo with the postinst still failing: %s %s" % (p.stdout, p.stderr))
    check("amdgpu-dkms could not be finished by the package manager" in " ".join(p.stdout.split()),
          "undo says which: " + p.stdout)
    eq(h.packages(), pkgs_before, "dpkg -l after undo")
    same_tree(h.tree(), tree_before, "the tree after undo")


@test
def killed_while_unpacking_undo_restores():
    """kill -9 while dpkg unpacks hsa-rocr (it is half-installed and needs
    reinstallation): undo removes it with dpkg's force option, the
    packages around it with apt, then the repository."""
    h = Host()
    pkgs_before, tree_before = h.packages(), h.tree()
    h.r.write("/tmp/rd-slow-preinst", "")
    marker = h.r.p("/tmp/rd-in-preinst")
    setup_killed_at(h, marker)
    check(os.path.exists(marker), "dpkg ran the preinst")
    os.unlink(marker)
    state = [l for l in h.packages() if l.startswith("hsa-rocr ")]
    check(state and state[0].split()[-1] in ("iHR", "iH"), "half-installed: %s" % state)
    p = h.rd("undo")
    eq(p.returncode, 0, "undo: %s %s" % (p.stdout, p.stderr))
    check("Note: hsa-rocr, rocm-core could not be finished by the package manager (a maintainer script failed, or it "
          "was interrupted) and were removed with its force options." in " ".join(p.stdout.split()),
          "undo says which (rocm-core unpacked, not configured): " + p.stdout)
    eq(h.packages(), pkgs_before, "dpkg -l after undo")
    same_tree(h.tree(), tree_before, "the tree after undo")
    eq(h.journal(h.run_ids()[0])["state"], "rolled-back", "the journal")


@test
def undo_while_dpkg_is_locked_keeps_the_repository():
    """Undo of a killed run while another process holds dpkg's lock: it
    names the holder and removes nothing, the repository files included;
    once the lock is free the next undo finishes."""
    h = Host()
    pkgs_before, tree_before = h.packages(), h.tree()
    marker = h.r.p("/tmp/rd-dpkg-ran")
    h.r.write("/etc/apt/apt.conf.d/99rd-kill", 'DPkg::Post-Invoke { "touch /tmp/rd-dpkg-ran; sleep 60"; };\n')
    setup_killed_at(h, marker)
    os.unlink(h.r.p("/etc/apt/apt.conf.d/99rd-kill"))
    os.unlink(marker)
    installed = h.packages()
    with open(h.r.p("/var/lib/dpkg/lock-frontend"), "w") as lock:
        fcntl.lockf(lock, fcntl.LOCK_EX)  # once the killed apt-get's children are gone
        p = h.rd("undo")
    eq(p.returncode, 3, "undo fails while the lock is held: %s" % p.stdout)
    check("/var/lib/dpkg/lock-frontend is held by process %d (python3)" % os.getpid() in p.stderr, p.stderr)
    eq(h.packages(), installed, "no package touched")
    eq(h.journal(h.run_ids()[0])["state"], "undo-incomplete", "the journal")
    unfinished_undo_then_fixed(h, pkgs_before, tree_before, lambda: None)


@test
def disk_full_while_unpacking_rolled_back():
    """/opt is a small file system that is full: dpkg cannot unpack
    rocm-core's files there. The rollback (or, when the rollback cannot
    finish, undo once there is room) leaves the root as it was."""
    h = Host()
    opt = h.r.p("/opt")
    q = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=256k,mode=0755", "rd-full", opt], capture_output=True,
                       text=True)
    if q.returncode != 0:
        raise Skip("cannot mount a small tmpfs: " + q.stderr)
    try:
        fd = os.open(os.path.join(opt, "filler"), os.O_WRONLY | os.O_CREAT, 0o644)
        try:
            while os.write(fd, b"\0" * 4096) > 0:
                pass
        except OSError:
            pass
        os.close(fd)
        pkgs_before, tree_before = h.packages(), h.tree()
        p = h.setup("--apply", "--yes")
        eq(p.returncode, 3, "apply fails: %s %s" % (p.stdout, p.stderr))
        check("No space left on device" in p.stderr, p.stderr)
        check("everything done before was rolled back" in p.stderr, p.stderr)
        eq(h.packages(), pkgs_before, "dpkg -l after the rollback")
        same_tree(h.tree(), tree_before, "the tree after the rollback")
    finally:
        subprocess.run(["umount", "-l", opt])


@test
def damaged_journal_refused():
    """Undo refuses a journal it cannot trust, names the run and what is
    wrong, and touches nothing: the newest journal cut in half (--last
    does not fall back to the run before it), the package list saved
    before the run missing, an entry of the installed list that the saved
    list contradicts."""
    h = Host()
    pkgs_before, tree_before = h.packages(), h.tree()
    p = h.setup("--usecase", "runtime", "--apply", "--yes")
    eq(p.returncode, 0, "apply: %s %s" % (p.stdout, p.stderr))
    run_id = h.run_ids()[0]
    jdir = h.r.p("/var/lib/rocm-doctor/journal/" + run_id)
    pkgs_applied, tree_applied = h.packages(), h.tree()

    def refused(what, *args):
        p = h.rd("undo", *args)
        eq(p.returncode, 3, "%s: undo refused (%s)" % (what, p.stdout))
        eq(h.packages(), pkgs_applied, what + ": no package touched")
        same_tree(h.tree(), tree_applied, what + ": no file touched")
        eq(h.journal(run_id)["state"], "applied", what + ": the run's journal untouched")
        return p.stderr

    newer = "99991231-235959"
    os.makedirs(h.r.p("/var/lib/rocm-doctor/journal/%s/files" % newer))
    with open(os.path.join(jdir, "journal.json")) as f:
        text = f.read()
    h.r.write("/var/lib/rocm-doctor/journal/%s/journal.json" % newer, text.replace(run_id, newer)[:len(text) // 2])
    err = refused("the newest journal cut in half", "--last")
    check("run %s has a damaged journal" % newer in err and "not valid JSON (cut short?)" in err and
          run_id not in err, err)
    err = refused("undo of that run by its id", newer)
    check("%s/journal.json: not valid JSON (cut short?)" % newer in err, err)
    shutil.rmtree(h.r.p("/var/lib/rocm-doctor/journal/" + newer))

    saved = os.path.join(jdir, "files", "packages-before")
    os.rename(saved, saved + ".aside")
    err = refused("the saved package list missing")
    check("the journal of run %s is damaged: the package list saved before the run" % run_id in err and
          "packages-before) is missing; nothing was undone" in err, err)
    os.rename(saved + ".aside", saved)

    j = h.journal(run_id)
    base = [l for l in pkgs_before if l.startswith("base-files ")][0].split()
    j["packages"]["installed"].append({"name": "base-files", "version": base[1]})
    with open(os.path.join(jdir, "journal.json"), "w") as f:
        json.dump(j, f)
    err = refused("an installed entry the saved list contradicts")
    check('"installed" names base-files, but the package list saved before the run has it (%s)' % base[1] in err,
          err)
    with open(os.path.join(jdir, "journal.json"), "w") as f:
        f.write(text)

    p = h.rd("undo")
    eq(p.returncode, 0, "undo of the intact journal: %s %s" % (p.stdout, p.stderr))
    eq(h.packages(), pkgs_before, "dpkg -l after undo")
    same_tree(h.tree(), tree_before, "the tree after undo")


def local_deb(h, name, version, depends, files):
    """A package built here and installed with dpkg -i: no repository has it."""
    work = temp_dir("rd-setup-deb.")
    standin.build_deb(work, os.path.join(work, "out"), name, version, depends, files)
    deb = "%s_%s_amd64.deb" % (name, version)
    shutil.copy(os.path.join(work, "out", deb), h.r.p("/tmp/" + deb))
    q = h.chroot("dpkg", "-i", "/tmp/" + deb)
    eq(q.returncode, 0, "dpkg -i %s: %s" % (deb, q.stdout))
    os.unlink(h.r.p("/tmp/" + deb))


@test
def undo_refused_when_a_downgrade_would_remove_a_package():
    """The run upgraded rocm-core; a package installed since needs the new
    version. Undo would downgrade rocm-core and apt would remove that
    package: undo refuses, naming it, and touches nothing."""
    h = Host()
    h.install("rocm-core")
    check(any(l.startswith("rocm-core 6.3.0.") for l in h.packages()), "the distribution's older rocm-core")
    p = h.setup("--usecase", "runtime", "--apply", "--yes")
    eq(p.returncode, 0, "apply: %s %s" % (p.stdout, p.stderr))
    j = h.journal(h.run_ids()[0])
    eq([(x["name"], x["old_version"]) for x in j["packages"]["upgraded"]], [("rocm-core", "6.3.0.60300-39~24.04")],
       "the run upgraded rocm-core")
    local_deb(h, "site-tool", "1.0", "rocm-core (>= 6.4.1)", {"/usr/local/bin/site-tool": "#!/bin/sh\n"})
    pkgs, tree = h.packages(), h.tree()
    p = h.rd("undo")
    eq(p.returncode, 3, "undo refused: %s" % p.stdout)
    check("site-tool installed since run %s depends on packages it installed or on the versions it left" %
          j["run_id"] in p.stderr and "nothing was undone" in p.stderr, p.stderr)
    eq(h.packages(), pkgs, "no package touched")
    same_tree(h.tree(), tree, "no file touched")
    eq(h.journal(j["run_id"])["state"], "applied", "the run stays applied")


@test
def shadowing_package_from_a_file_is_kept():
    """A shadowing package installed from a file that no repository offers
    at its version is not removed: undo could not put it back. The plan
    says so."""
    h = Host()
    local_deb(h, "libhsa-runtime64-1", "5.7.1-3+site1", "", {"/usr/lib/x86_64-linux-gnu/libhsa-runtime64.so.1":
                                                            "built here\n"})
    p = h.setup("--usecase", "runtime")
    out = p.stdout
    check(("remove", "libhsa-runtime64-1", "5.7.1-3+site1") not in package_lines(out), "not removed: " + out)
    check("libhsa-runtime64-1 5.7.1-3+site1 stays: no configured repository offers that version" in
          " ".join(out.split()), out)
    p = h.setup("--usecase", "runtime", "--apply", "--yes")
    eq(p.returncode, 0, "apply: %s %s" % (p.stdout, p.stderr))
    check("libhsa-runtime64-1 5.7.1-3+site1 ii" in h.packages(), h.packages())
    eq(h.journal(h.run_ids()[0])["packages"]["removed"], [], "the journal: nothing removed")


@test
def undo_killed_between_packages_and_repository_finished_by_the_next():
    """Undo is killed after apt removed the run's packages and before the
    repository files go: the next undo finds the packages out and puts the
    files back."""
    h = Host()
    pkgs_before, tree_before = h.packages(), h.tree()
    p = h.setup("--usecase", "runtime", "--apply", "--yes")
    eq(p.returncode, 0, "apply: %s %s" % (p.stdout, p.stderr))
    marker = h.r.p("/tmp/rd-dpkg-ran")
    h.r.write("/etc/apt/apt.conf.d/99rd-kill", 'DPkg::Post-Invoke { "touch /tmp/rd-dpkg-ran; sleep 60"; };\n')
    proc = subprocess.Popen([RD, "undo", "--root", h.path], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            start_new_session=True)
    for _ in range(1200):
        if os.path.exists(marker) or proc.poll() is not None:
            break
        time.sleep(0.1)
    check(os.path.exists(marker), "apt removed the packages")
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()
    os.unlink(h.r.p("/etc/apt/apt.conf.d/99rd-kill"))
    os.unlink(marker)
    eq(h.journal(h.run_ids()[0])["state"], "undoing", "the killed undo")
    check(not any(l.startswith("rocm-core ") for l in h.packages()), "the packages are out: %s" % h.packages())
    eq(h.r.exists("/etc/apt/sources.list.d/rocm.sources"), True, "the repository file is still there")
    p = h.rd("undo")
    eq(p.returncode, 0, "the next undo: %s %s" % (p.stdout, p.stderr))
    eq(h.packages(), pkgs_before, "dpkg -l after undo")
    same_tree(h.tree(), tree_before, "the tree after undo")
    eq(h.journal(h.run_ids()[0])["state"], "undone", "the journal")


@test
def second_apply_while_the_first_is_in_dpkg():
    """A run in progress (it holds the lock) is in progress, not
    interrupted: the second apply names it and advises no undo."""
    h = Host()
    h.r.write("/tmp/rd-slow-postinst", "")
    marker = h.r.p("/tmp/rd-in-postinst")
    proc = subprocess.Popen([RD, "setup", "--release", "6.4.1", "--apply", "--yes", "--root", h.path,
                             "--facts", h.facts], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            start_new_session=True)
    try:
        for _ in range(1200):
            if os.path.exists(marker) or proc.poll() is not None:
                break
            time.sleep(0.1)
        check(os.path.exists(marker), "the first run is in the postinst")
        run_id = h.run_ids()[0]
        p = h.setup("--apply", "--yes")
        eq(p.returncode, 3, "the second apply is refused: %s" % p.stderr)
        check("run %s is in progress" % run_id in p.stderr, p.stderr)
        check("interrupted" not in p.stderr and "undo" not in p.stderr, "no undo advised: " + p.stderr)
        p = h.rd("undo")
        eq(p.returncode, 3, "undo is refused too")
        check("run %s is in progress" % run_id in p.stderr, p.stderr)
        eq(h.journal(run_id)["state"], "applying", "the first run's journal untouched")
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()


if __name__ == "__main__":
    # ROCM_DOCTOR_SETUP_TESTS=a,b: only these (CI's sanitizer build runs one
    # case per package manager and the kill cases)
    only = [t for t in os.environ.get("ROCM_DOCTOR_SETUP_TESTS", "").split(",") if t]
    if only:
        from fixlib import TESTS
        unknown = set(only) - {t.__name__ for t in TESTS}
        if unknown:
            sys.exit("ROCM_DOCTOR_SETUP_TESTS names no test %s" % ", ".join(sorted(unknown)))
        TESTS[:] = [t for t in TESTS if t.__name__ in only]
    sys.exit(main())
