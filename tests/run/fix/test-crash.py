#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Kill points: `fix --apply` and `undo` killed (SIGKILL through strace's
fault injection) at system calls of every kind they and their usermod and
gpasswd children make, on a plan with group, udev, modprobe, env and
cmdline steps on a scratch root. After any kill, `undo` puts the original
tree back byte for byte, and `fix --apply` refuses to start while an
interrupted run is unresolved, naming it and the command that resolves it.
Also: a full disk (a small tmpfs) at every point of the run.

ROCM_DOCTOR_KILL_POINTS=all tries every invocation of every system call
instead of a sample.

Usage: test-crash.py ROCM_DOCTOR SOURCE_DIR"""
import collections
import json
import os
import re
import shutil
import subprocess
import sys

import fixlib
from fixlib import rdtest

RD, SRC = sys.argv[1:3]
EXHAUSTIVE = os.environ.get("ROCM_DOCTOR_KILL_POINTS") == "all"
# what the engine calls (openat2 resolves paths beneath the root) and what
# the shadow tools call (rename, link, unlink)
SYSCALLS = ["renameat", "write", "fsync", "openat", "openat2", "unlinkat", "mkdirat", "rename", "link", "unlink"]
# every invocation of these; a sample of the others
ALWAYS_ALL = {"renameat", "unlinkat", "mkdirat", "rename", "link", "unlink", "write"}
SAMPLE = 8
ONLY = "group,modprobe,udev,env,cmdline"
counts = collections.Counter()


def need():
    if not shutil.which("strace"):
        rdtest.skip("needs strace")
    p = subprocess.run(["strace", "-qq", "-e", "inject=getpid:error=ENOSYS:when=1", "true"], capture_output=True)
    if p.returncode != 0:
        rdtest.skip("strace cannot trace here: %s" % p.stderr.decode().strip())


def traced_env():
    """LeakSanitizer stops under ptrace: no leak check in a traced run."""
    env = dict(os.environ)
    env["ASAN_OPTIONS"] = env.get("ASAN_OPTIONS", "") + ":detect_leaks=0"
    return env


def run(args, prefix=(), root=None):
    p = subprocess.run(list(prefix) + [RD] + args, capture_output=True, text=True, timeout=120,
                       env=traced_env() if prefix else None)
    rdtest.check("Sanitizer" not in p.stderr, "sanitizer report:\n" + p.stderr)
    return p


def scenario(root=None):
    """group (render, video), udev, modprobe (a line commented out, a file
    removed), env and cmdline: every kind of action."""
    f = fixlib.with_igpu(fixlib.load_facts(SRC))
    for n in f["access"]["nodes"]:
        if n["path"] == "/dev/kfd":
            n["gid"], n["group"] = 0, "root"
    f["driver"] = {"module_present": False, "cmdline": "BOOT_IMAGE=/vmlinuz ro quiet", "modprobe": [
        {"file": "/etc/modprobe.d/local.conf", "line": 2, "directive": "blacklist", "module": "amdgpu", "args": None},
        {"file": "/etc/modprobe.d/blacklist-amdgpu.conf", "line": 1, "directive": "blacklist", "module": "amdgpu",
         "args": None}]}
    r = fixlib.Root() if root is None else root
    r.write("/etc/modprobe.d/local.conf", "options snd_hda_intel power_save=0\nblacklist amdgpu\n")
    r.write("/etc/modprobe.d/blacklist-amdgpu.conf", "blacklist amdgpu\n")
    return r, fixlib.write_facts(f, fixlib.temp_dir("rd-crash-facts."))


def apply_args(r, facts):
    return ["fix", "--root", r.path, "--facts", facts, "--only", ONLY, "--apply", "--yes"]


def journal(r):
    """{run id: state, or None for a directory without journal.json}, and
    the temporary files left in the journal."""
    d = r.p("/var/lib/rocm-doctor/journal")
    runs, temps = {}, []
    for run_id in sorted(os.listdir(d)) if os.path.isdir(d) else []:
        for dirpath, _, names in os.walk(os.path.join(d, run_id)):
            temps += [os.path.join(dirpath, n) for n in names if n.startswith(".#")]
        try:
            with open(os.path.join(d, run_id, "journal.json")) as f:
                runs[run_id] = json.load(f)["state"]
        except FileNotFoundError:
            runs[run_id] = None
    return runs, temps


def unresolved(r):
    return [k for k, v in journal(r)[0].items() if v in ("applying", "undoing")]


def trace_counts(args, r):
    """How often each process calls each system call: the highest count
    over the processes (strace counts per process)."""
    log = os.path.join(fixlib.temp_dir("rd-crash-log."), "log")
    subprocess.run(["strace", "-f", "-qq", "-e", "trace=" + ",".join(SYSCALLS), "-o", log, RD] + args,
                   capture_output=True, check=True, env=traced_env())
    per = collections.Counter()
    with open(log) as f:
        for line in f:
            m = re.match(r"(\d+) +(\w+)\(", line)
            if m:
                per[(m.group(1), m.group(2))] += 1
    most = collections.Counter()
    for (_, sc), n in per.items():
        most[sc] = max(most[sc], n)
    return most


def points(sc, n):
    if EXHAUSTIVE or sc in ALWAYS_ALL or n <= SAMPLE:
        return list(range(1, n + 1))
    # evenly spread, the last one included
    return sorted({1 + (n - 1) * i // (SAMPLE - 1) for i in range(SAMPLE)})


def killed(sc, n, args):
    return run(args, prefix=["strace", "-f", "-qq", "-o", "/dev/null", "-e",
                             "inject=%s:signal=KILL:when=%d" % (sc, n)])


def check_refuses(r, facts, where):
    """fix --apply while a run is unresolved: refused, naming the run and
    the command that resolves it."""
    ids = unresolved(r)
    if not ids:
        return
    before = r.tree()
    p = run(apply_args(r, facts))
    rdtest.eq(p.returncode, 3, "%s: fix --apply with run %s unresolved (stdout %s)" % (where, ids[0], p.stdout))
    rdtest.check("run %s was interrupted" % ids[0] in p.stderr and
                 "`rocm-doctor undo --root %s %s`" % (r.path, ids[0]) in p.stderr, "%s: %s" % (where, p.stderr))
    rdtest.eq(r.tree(), before, "%s: the refused fix changed nothing" % where)


def check_settled(r, original, where):
    """undo: the original tree, and a journal with nothing left open."""
    p = run(["undo", "--root", r.path])
    rdtest.check(p.returncode == 0 or (p.returncode == 3 and "no applied run to undo" in p.stderr),
                 "%s: undo exit %d: %s" % (where, p.returncode, p.stderr))
    rdtest.eq(r.tree(), original, "%s: tree after undo" % where)
    runs, temps = journal(r)
    rdtest.eq([k for k, v in runs.items() if v not in ("undone", "rolled-back")], [],
              "%s: every run undone or rolled back (%s)" % (where, runs))
    rdtest.eq(temps, [], "%s: temporary files in the journal" % where)
    counts["settled"] += 1


def fresh(template):
    """A copy of the template root (faster than building one)."""
    r = fixlib.Root.__new__(fixlib.Root)
    r.path = fixlib.temp_dir("rd-crash-root.")
    shutil.rmtree(r.path)
    shutil.copytree(template.path, r.path, symlinks=True)
    return r


@rdtest.test(root=True)
def apply_killed_anywhere():
    need()
    template, facts = scenario()
    original = template.tree()
    probe = fresh(template)
    most = trace_counts(apply_args(probe, facts), probe)
    rdtest.check(most["renameat"] >= 10 and most["rename"] >= 2 and most["link"] >= 2,
                 "the plan writes files and runs usermod: %s" % dict(most))
    for sc in SYSCALLS:
        for n in points(sc, most[sc]):
            r = fresh(template)
            where = "apply killed at %s #%d" % (sc, n)
            killed(sc, n, apply_args(r, facts))
            check_refuses(r, facts, where)
            check_settled(r, original, where)
            counts["apply " + sc] += 1
            # the root works on: apply and undo once more
            if n == 1 or n == most[sc]:
                rdtest.eq(run(apply_args(r, facts)).returncode, 0, where + ": apply afterwards")
                check_settled(r, original, where + ", applied and undone again")


@rdtest.test(root=True)
def undo_killed_anywhere():
    need()
    template, facts = scenario()
    original = template.tree()
    rdtest.eq(run(apply_args(template, facts)).returncode, 0, "apply")
    applied = template.tree()
    probe = fresh(template)
    most = trace_counts(["undo", "--root", probe.path], probe)
    rdtest.eq(probe.tree(), original, "undo without a kill")
    for sc in SYSCALLS:
        for n in points(sc, most[sc]):
            r = fresh(template)
            rdtest.eq(r.tree(), applied, "copied root")
            where = "undo killed at %s #%d" % (sc, n)
            killed(sc, n, ["undo", "--root", r.path])
            check_refuses(r, facts, where)
            check_settled(r, original, where)
            counts["undo " + sc] += 1


def main_writes(args):
    """The main process's write calls, with the file each goes to."""
    log = os.path.join(fixlib.temp_dir("rd-crash-log."), "log")
    subprocess.run(["strace", "-qq", "-y", "-e", "trace=write", "-o", log, RD] + args, capture_output=True,
                   check=True, env=traced_env())
    with open(log) as f:
        return [m.group(1) for m in (re.match(r"write\(\d+<([^>]*)>", line) for line in f) if m]


@rdtest.test(root=True)
def disk_full_at_the_final_journal_write():
    """ENOSPC on the write of journal.json that marks the run applied:
    everything is rolled back, the journal says so, exit 3 (nothing
    applied), and the message names the journal under --root."""
    need()
    template, facts = scenario()
    original = template.tree()
    probe = fresh(template)
    writes = main_writes(apply_args(probe, facts))
    journal_writes = [i + 1 for i, w in enumerate(writes) if "/.#journal.json." in w]
    rdtest.check(len(journal_writes) == 2, "the journal is written twice: %s" % writes)
    r = fresh(template)
    p = run(apply_args(r, facts), prefix=["strace", "-qq", "-o", "/dev/null", "-e",
                                          "inject=write:error=ENOSPC:when=%d" % journal_writes[-1]])
    rdtest.eq(p.returncode, 3, "exit status (stderr %s)" % p.stderr)
    (run_id, state), = journal(r)[0].items()
    rdtest.eq(p.stderr, "rocm-doctor: cannot complete the journal %s/var/lib/rocm-doctor/journal/%s/journal.json: No space "
              "left on device; everything done before was rolled back\n" % (r.path, run_id), "message")
    rdtest.eq(state, "rolled-back", "journal state")
    rdtest.eq(r.tree(), original, "tree")
    check_settled(r, original, "after the full disk")


@rdtest.test(root=True)
def undo_with_gpasswd_killed_anywhere():
    """The group files changed after the run (bob joined video), so undo
    reverses alice's memberships with gpasswd: killed anywhere in there,
    the next undo finishes, alice is in no group the run added her to,
    bob's membership stays, every other file is back byte for byte."""
    need()
    template, facts = scenario()
    changed = ("etc/group", "etc/gshadow", "etc/group-", "etc/gshadow-", "etc/.pwd.lock")
    original = {k: v for k, v in template.tree().items() if k not in changed}
    rdtest.eq(run(apply_args(template, facts)).returncode, 0, "apply")
    subprocess.run(["usermod", "-R", template.path, "-aG", "video", "bob"], check=True)
    probe = fresh(template)
    most = trace_counts(["undo", "--root", probe.path], probe)
    rdtest.check(most["rename"] >= 2, "gpasswd ran: %s" % dict(most))
    for sc in ("rename", "link", "unlink", "write", "renameat", "openat"):
        for n in points(sc, most[sc]):
            r = fresh(template)
            where = "undo (gpasswd) killed at %s #%d" % (sc, n)
            killed(sc, n, ["undo", "--root", r.path])
            check_refuses(r, facts, where)
            p = run(["undo", "--root", r.path])
            rdtest.check(p.returncode == 0 or "no applied run to undo" in p.stderr, "%s: %s" % (where, p.stderr))
            group = r.read("/etc/group")
            rdtest.check("render:x:992:\n" in group and "video:x:44:bob\n" in group, "%s: %s" % (where, group))
            tree = {k: v for k, v in r.tree().items() if k not in changed}
            rdtest.eq(tree, original, where + ": the other files")
            rdtest.eq(unresolved(r), [], where + ": nothing left open")
            counts["undo-gpasswd " + sc] += 1


def tmpfs(size_kib):
    d = fixlib.temp_dir("rd-crash-tmpfs.")
    p = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=%dk,mode=0755" % size_kib, "tmpfs", d],
                       capture_output=True, text=True)
    if p.returncode != 0:
        rdtest.skip("cannot mount a tmpfs: %s" % p.stderr.strip())
    return d


def fill(path, free_pages):
    """Leaves free_pages pages free on the file system of path."""
    st = os.statvfs(path)
    filler = os.path.join(path, "filler")
    with open(filler, "ab") as f:
        left = st.f_bavail - free_pages
        if left > 0:
            f.write(b"\0" * left * st.f_frsize)
    return filler


@rdtest.test(root=True)
def disk_full_at_every_point():
    """The root on a small tmpfs, filled to leave 0..N pages: the run
    applies and says so, or fails with exit 3, the tree as it was and the
    journal saying "rolled-back" (or naming itself, with the --root prefix,
    and the undo that settles it)."""
    need()
    mnt = tmpfs(2048)
    try:
        outcomes = collections.Counter()
        for free in range(0, 40):
            root = os.path.join(mnt, "root")
            shutil.rmtree(root, ignore_errors=True)
            os.makedirs(root)
            r = fixlib.Root.__new__(fixlib.Root)
            r.path = root
            for d in ("etc", "var/lib", "usr/lib"):
                os.makedirs(r.p(d))
            r.write("/etc/passwd", fixlib.PASSWD)
            r.write("/etc/shadow", fixlib.SHADOW, 0o640)
            r.write("/etc/group", fixlib.GROUP)
            r.write("/etc/gshadow", fixlib.GSHADOW, 0o640)
            r, facts = scenario(r)
            original = r.tree()
            filler = fill(mnt, free)
            p = run(apply_args(r, facts))
            where = "%d free pages" % free
            runs = journal(r)[0]
            if p.returncode == 0:
                rdtest.eq(list(runs.values()), ["applied"], where + ": journal of an applied run")
                outcomes["applied"] += 1
            else:
                rdtest.eq(p.returncode, 3, where + ": exit status (stderr %s)" % p.stderr)
                rdtest.check("nothing was written" in p.stderr or "rolled back" in p.stderr, where + ": " + p.stderr)
                rdtest.check(not re.search(r"(^|[\s`(])/var/lib/rocm-doctor/journal", p.stderr),
                             where + ": the journal is named with the --root prefix: " + p.stderr)
                rdtest.eq(r.tree(), original, where + ": tree after the failed run")
                rdtest.check(all(v == "rolled-back" for v in runs.values()), where + ": journal %s" % runs)
                outcomes["rolled-back"] += 1
                m = re.match(r"rocm-doctor: (cannot \w+ [^/]*|usermod)", p.stderr)
                outcomes[m.group(1).strip() if m else p.stderr.strip()] += 1
            os.unlink(filler)
            check_settled(r, original, where)
        rdtest.check(outcomes["applied"] > 0 and outcomes["rolled-back"] > 0, "both outcomes seen: %s" % dict(outcomes))
        print("# disk full: %s" % dict(outcomes))
    finally:
        subprocess.run(["umount", "-l", mnt], capture_output=True)


if __name__ == "__main__":
    rc = rdtest.main()
    print("# kill points: %s" % dict(sorted(counts.items())))
    sys.exit(rc)
