#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""What every fix shares (src/fix): the journal and undo, the lock,
rollback on failure, edits between plan and apply, leftover temporary
files, symlinks out of the root, root for --apply, usage errors, the
plan's diff, allowed_fixes.

How each fix is tested: fixrun.py.

Usage: test-engine.py ROCM_DOCTOR FIX_DRIVER SOURCE_DIR [TB_RUN]"""
import fcntl
import json
import os
import re
import shutil
import subprocess
import sys

from fixrun import ACCESS, base_facts, DRIVER, expect, fixlib, IS_ROOT, Live, RD, rdtest, run, setup


@rdtest.test(root=True)
def created_directories_ignore_umask():
    r, facts = setup(base_facts())
    old = os.umask(0o077)
    try:
        p = run(["fix", "--root", r.path, "--facts", facts, "--only", "env", "--apply", "--yes"])
        expect("created_directories_ignore_umask.apply", p.stdout, r, facts)
    finally:
        os.umask(old)
    rdtest.eq(p.returncode, 0, "apply (stderr %s)" % p.stderr)
    rdtest.eq(oct(os.stat(r.p("/etc/profile.d")).st_mode & 0o777), "0o755", "/etc/profile.d mode")
    rdtest.eq(oct(os.stat(r.p("/etc/profile.d/rocm-doctor.sh")).st_mode & 0o777), "0o644", "drop-in mode")


@rdtest.test(root=True)
def undo_under_root_runs_no_command():
    """Apply under --root never runs a command (they wait for the tree's
    first boot), so undo there runs none either, whatever the journal says:
    a journal edited to claim a command ran "now" gets it listed for the
    first boot, not run on this host."""
    r, facts = setup(fixlib.root_only_nodes(base_facts()))
    rdtest.eq(run(["fix", "--root", r.path, "--facts", facts, "--apply", "--yes"] + ACCESS).returncode, 0, "apply")
    jdir = r.p("/var/lib/rocm-doctor/journal")
    run_id = os.listdir(jdir)[0]
    path = os.path.join(jdir, run_id, "journal.json")
    import json
    with open(path) as f:
        j = json.load(f)
    marker = os.path.join(fixlib.temp_dir("rd-undo-marker."), "ran")
    j["commands"] = [{"argv": ["true"], "undo": ["touch", marker], "when": "now", "ran": True}]
    with open(path, "w") as f:
        json.dump(j, f)
    p = run(["undo", "--root", r.path])
    expect("undo_under_root_runs_no_command.undo", p.stdout, r, facts, {marker: "MARKER"})
    rdtest.eq(p.returncode, 0, "undo (stderr: %s)" % p.stderr)
    rdtest.check(not os.path.exists(marker), "the journal's command did not run")
    rdtest.check("touch %s" % marker in p.stdout, "it is listed for the first boot: " + p.stdout)


@rdtest.test(root=True)
def edit_between_plan_and_apply_aborts():
    r, facts = setup(base_facts())
    proc = subprocess.Popen([RD, "fix", "--root", r.path, "--facts", facts, "--apply"] + ACCESS, stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    buf = ""
    while not buf.endswith("[y/N] "):
        c = proc.stdout.read(1)
        if not c:
            break
        buf += c
    rdtest.check(buf.endswith("? [y/N] "), "prompt: " + buf)
    with open(r.p("/etc/group"), "a") as f:
        f.write("docker:x:999:\n")
    edited = r.tree()
    out, err = proc.communicate("y\n", timeout=60)
    rdtest.eq(proc.returncode, 3, "exit status")
    rdtest.check("/etc/group changed after the plan was made; nothing was written" in err, err)
    rdtest.eq(r.tree(), edited, "nothing written")


@rdtest.test(root=True)
def answer_no_changes_nothing():
    r, facts = setup(base_facts())
    before = r.tree()
    p = run(["fix", "--root", r.path, "--facts", facts, "--apply"] + ACCESS, stdin="n\n")
    expect("answer_no_changes_nothing", p.stdout, r, facts)
    rdtest.eq(p.returncode, 1, "exit status")
    rdtest.check(p.stdout.endswith("Nothing was changed.\n"), p.stdout)
    rdtest.eq(r.tree(), before, "tree")


@rdtest.test(root=True)
def failure_half_way_rolls_back():
    for n in ("1", "2", "0"):
        r, facts = setup(fixlib.root_only_nodes(base_facts()))
        r.write("/etc/modprobe.d/blacklist-amdgpu.conf", "blacklist amdgpu\n")
        before = r.tree()
        p = run(["fix", "--root", r.path, "--facts", facts, "--apply", "--yes", "--only", "udev,cmdline"],
                env_extra={"ROCM_DOCTOR_FIX_FAIL_AFTER": n})
        rdtest.eq(p.returncode, 3, "exit status after an injected failure (after %s)" % n)
        rdtest.check("injected failure" in p.stderr and "everything done before was rolled back" in p.stderr, p.stderr)
        rdtest.eq(r.tree(), before, "tree rolled back (failure after %s actions)" % n)
        p = run(["undo", "--root", r.path])
        rdtest.check("no applied run to undo" in p.stderr, "a rolled-back run is not undoable: " + p.stderr)


@rdtest.test(root=True)
def concurrent_runs_serialised():
    r, facts = setup(base_facts())
    before = r.tree()
    os.makedirs(r.p("/var/lib/rocm-doctor"), exist_ok=True)
    with open(r.p("/var/lib/rocm-doctor/lock"), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        p = run(["fix", "--root", r.path, "--facts", facts, "--apply", "--yes"] + ACCESS)
        rdtest.eq(p.returncode, 3, "refused while another run holds the lock")
        rdtest.check("another rocm-doctor fix or undo is running on %s" % r.path in p.stderr, p.stderr)
        rdtest.eq(r.tree(), before, "nothing written")
    # two real runs at once: exactly one applies, the other waits its turn or refuses
    procs = [subprocess.Popen([RD, "fix", "--root", r.path, "--facts", facts, "--apply", "--yes"] + ACCESS,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for _ in range(2)]
    res = [(q.wait(60), q.stdout.read(), q.stderr.read()) for q in procs]
    for q in procs:
        q.stdout.close()
        q.stderr.close()
    applied = [x for x in res if x[0] == 0 and "Applied as run" in x[1]]
    rdtest.eq(len(applied), 1, "one run applied: %s" % res)
    other = [x for x in res if x not in applied][0]
    rdtest.check(other[0] == 0 and other[1] == "Nothing to do in this root.\n" or
                 (other[0] == 3 and ("another rocm-doctor" in other[2] or "changed after the plan" in other[2])),
                 "the other one: %s" % (other,))
    rdtest.eq(r.read("/etc/group").count("alice"), 3, "alice added once to render and video (and her own group)")
    with open(r.p("/var/lib/rocm-doctor/lock"), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        p = run(["undo", "--root", r.path])
        rdtest.eq(p.returncode, 3, "undo refused while the lock is held")
        rdtest.check("another rocm-doctor fix or undo is running" in p.stderr, p.stderr)
    rdtest.eq(run(["undo", "--root", r.path]).returncode, 0, "undo once the lock is free")
    rdtest.eq(r.tree(), before, "tree after undo")


def fake_run(r, run_id, state="applied"):
    """A journal entry of a run that touched no file."""
    import json
    d = r.p("/var/lib/rocm-doctor/journal/" + run_id)
    os.makedirs(os.path.join(d, "files"))
    with open(os.path.join(d, "journal.json"), "w") as f:
        json.dump({"schema": "rocm-doctor-journal/1", "run_id": run_id, "root": r.path, "state": state,
                   "files": [], "groups": [], "commands": [], "directories_created": []}, f)


@rdtest.test(root=True)
def undo_last_picks_the_newest_of_one_second():
    """Ten or more runs in one second: undo --last takes the last one made
    (-10 after -9; new ids are zero-padded so they sort as made anyway)."""
    r = fixlib.Root()
    for run_id in ["20261130-105800"] + ["20261130-105800-%d" % n for n in range(2, 12)] + ["20261130-105759-12"]:
        fake_run(r, run_id)
    p = run(["undo", "--root", r.path, "--last"])
    rdtest.eq((p.returncode, p.stdout), (0, "Undid run 20261130-105800-11.\n"), "undo --last (stderr %s)" % p.stderr)
    p = run(["undo", "--root", r.path])
    rdtest.eq(p.stdout, "Undid run 20261130-105800-10.\n", "then the one before")
    r2, facts = setup(base_facts())
    ids = []
    for _ in range(3):
        p = run(["fix", "--root", r2.path, "--facts", facts, "--apply", "--yes", "--json"] + ACCESS)
        rdtest.eq(p.returncode, 0, "apply (stderr %s)" % p.stderr)
        ids.append(__import__("json").loads(p.stdout)["run_id"])
        rdtest.eq(run(["undo", "--root", r2.path]).returncode, 0, "undo")
    for i in ids:
        rdtest.check(re.fullmatch(r"\d{8}-\d{6}(-\d{3})?", i), "run id %s" % i)
    rdtest.eq(sorted(ids), ids, "ids sort as made")


@rdtest.test(root=True)
def leftover_temp_files_swept():
    """A kill between creating a temporary file and renaming it leaves
    .#NAME.PID.N behind: the next run under the lock removes it (a dead
    writer's only), and so does undo."""
    r, facts = setup(fixlib.root_only_nodes(base_facts()))
    dead = subprocess.Popen(["true"])
    dead.wait()
    r.write("/etc/udev/rules.d/.#70-rocm-doctor-gpu.rules.%d.0" % dead.pid, "half")
    r.write("/etc/.#group.%d.3" % dead.pid, "half")
    r.write("/etc/.#group.%d.0" % os.getpid(), "a live writer's")
    r.write("/etc/.#other.%d.0" % dead.pid, "not a file of the plan")
    before = {k: v for k, v in r.tree().items() if ".#" not in k}
    p = run(["fix", "--root", r.path, "--facts", facts, "--apply", "--yes"] + ACCESS)
    rdtest.eq(p.returncode, 0, "apply (stderr %s)" % p.stderr)
    rdtest.eq(sorted(n for n in os.listdir(r.p("/etc/udev/rules.d")) if n.startswith(".#")), [], "rules.d swept")
    rdtest.eq(sorted(n for n in os.listdir(r.p("/etc")) if n.startswith(".#")),
              [".#group.%d.0" % os.getpid(), ".#other.%d.0" % dead.pid], "/etc swept of the plan's stale files only")
    os.unlink(r.p("/etc/.#group.%d.0" % os.getpid()))
    os.unlink(r.p("/etc/.#other.%d.0" % dead.pid))
    rdtest.eq(run(["undo", "--root", r.path]).returncode, 0, "undo")
    rdtest.eq(r.tree(), before, "tree after undo")


@rdtest.test(root=True)
def interrupted_run_blocks_fix_until_undone():
    """A run left "applying" (killed): fix --apply refuses, naming the run
    and the undo that resolves it, even when it has nothing new to do; undo
    rolls it back from the before-copies."""
    r, facts = setup(base_facts())
    before = r.tree()
    p = run(["fix", "--root", r.path, "--facts", facts, "--apply", "--yes", "--json"] + ACCESS)
    rdtest.eq(p.returncode, 0, "apply (stderr %s)" % p.stderr)
    run_id = __import__("json").loads(p.stdout)["run_id"]
    jpath = r.p("/var/lib/rocm-doctor/journal/%s/journal.json" % run_id)
    with open(jpath) as f:
        text = f.read()
    with open(jpath, "w") as f:  # as a kill before the last journal write leaves it
        f.write(text.replace('"state":"applied"', '"state":"applying"'))
    for args in (ACCESS, ["--only", "cmdline"]):
        p = run(["fix", "--root", r.path, "--facts", facts, "--apply", "--yes"] + args)
        rdtest.eq(p.returncode, 3, "refused")
        rdtest.eq(p.stderr, "rocm-doctor: run %s was interrupted while it was being applied and is not resolved; nothing "
                  "was written. Run `rocm-doctor undo --root %s %s` first: it rolls the interrupted run back.\n"
                  % (run_id, r.path, run_id), "message")
    p = run(["undo", "--root", r.path, "--json"])
    rdtest.eq(p.returncode, 0, "undo (stderr %s)" % p.stderr)
    j = __import__("json").loads(p.stdout)
    rdtest.eq((j["run_id"], j["interrupted"]), (run_id, True), "undo of the interrupted run")
    rdtest.eq(r.tree(), before, "tree after undo")
    with open(jpath) as f:
        rdtest.eq(__import__("json").load(f)["state"], "rolled-back", "journal state")


@rdtest.test
def symlink_out_of_root_refused():
    outside = fixlib.temp_dir("rd-outside.")
    r, facts = setup(fixlib.root_only_nodes(base_facts()))
    os.makedirs(r.p("/etc/udev"))
    os.symlink(outside, r.p("/etc/udev/rules.d"))
    p = run(["fix", "--root", r.path, "--facts", facts] + ACCESS)
    expect("symlink_out_of_root_refused.udev", p.stdout, r, facts)
    rdtest.check("udev: /etc/udev/rules.d/70-rocm-doctor-gpu.rules: a symlink on the way is absolute or leads out of the root; refusing to follow it"
                 in p.stdout, p.stdout)
    r2, facts2 = setup(base_facts())
    target = os.path.join(outside, "environment")
    with open(target, "w") as f:
        f.write("KEEP=1\n")
    os.makedirs(r2.p("/etc/environment.d"))
    os.symlink(target, r2.p("/etc/environment.d/50-rocm-doctor.conf"))
    p = run(["fix", "--root", r2.path, "--facts", facts2, "--only", "env"])
    expect("symlink_out_of_root_refused.env", p.stdout, r2, facts2)
    rdtest.check("env: /etc/environment.d/50-rocm-doctor.conf: is a symlink; refusing to replace or follow it" in p.stdout,
                 p.stdout)
    if IS_ROOT:
        run(["fix", "--root", r.path, "--facts", facts, "--apply", "--yes"] + ACCESS)
        run(["fix", "--root", r2.path, "--facts", facts2, "--only", "env", "--apply", "--yes"])
    rdtest.eq(sorted(os.listdir(outside)), ["environment"], "nothing written outside the root")
    with open(target) as f:
        rdtest.eq(f.read(), "KEEP=1\n", "file outside untouched")


@rdtest.test
def apply_needs_root():
    r, facts = setup(base_facts())
    os.chmod(r.path, 0o755)
    os.chmod(os.path.dirname(facts), 0o755)
    os.chmod(facts, 0o644)
    rd, env = RD, None
    if IS_ROOT:
        if not shutil.which("setpriv"):
            rdtest.skip("needs setpriv")
        # nobody runs a copy of the binary and of the tables in a directory
        # it can reach (a build under /root, mode 0700, is out of its reach).
        staged = fixlib.temp_dir("rd-fix-nobody.")
        os.chmod(staged, 0o755)
        rd = os.path.join(staged, "rocm-doctor")
        shutil.copy(RD, rd)
        os.chmod(rd, 0o755)
        env = dict(os.environ)
        if env.get("ROCM_DOCTOR_DATA_DIR"):
            env["ROCM_DOCTOR_DATA_DIR"] = os.path.join(staged, "data")
            shutil.copytree(os.environ["ROCM_DOCTOR_DATA_DIR"], env["ROCM_DOCTOR_DATA_DIR"])
            for d, _, files in os.walk(env["ROCM_DOCTOR_DATA_DIR"]):
                os.chmod(d, 0o755)
                for f in files:
                    os.chmod(os.path.join(d, f), 0o644)
    args = [rd, "fix", "--root", r.path, "--facts", facts, "--apply", "--yes"] + ACCESS + ACCESS
    if IS_ROOT:
        args = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"] + args
    p = subprocess.run(args, capture_output=True, text=True, env=env)
    rdtest.eq(p.returncode, 3, "exit status")
    rdtest.check("applying the plan needs root" in p.stderr, p.stderr)


@rdtest.test
def usage_errors():
    p = run(["fix", "--only", "bogus"])
    rdtest.eq(p.returncode, 3, "unknown --only id")
    fixes = [f["id"] for f in json.loads(run(["list", "fixes", "--json"]).stdout)["fixes"]]
    rdtest.check(len(fixes) >= 10 and "slurm-gres" in fixes, "list fixes --json: the registry", fixes)
    rdtest.check('--only: "bogus" is neither a fix (%s) nor a finding id' % ", ".join(fixes) in p.stderr,
                 "the error names every fix of the registry", p.stderr)
    p = run(["undo", "--last", "20261130-105800"])
    rdtest.eq(p.returncode, 3, "--last and an id")
    p = run(["fix", "--apply", "--json"])
    rdtest.check("needs --yes" in p.stderr, p.stderr)
    if IS_ROOT:
        r = fixlib.Root()
        p = run(["undo", "--root", r.path])
        rdtest.eq((p.returncode, p.stderr), (3, "rocm-doctor: no applied run to undo in %s/var/lib/rocm-doctor/journal\n"
                                      % r.path), "undo without a journal")
        rdtest.check(not r.exists("/var/lib/rocm-doctor"), "undo without a journal creates nothing")


DIFF_EXACT = [
    ("a\nb\nc\n", "a\nB\nc\n", "--- a/file\n+++ b/file\n@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n"),
    ("a\n", "a", "--- a/file\n+++ b/file\n@@ -1 +1 @@\n-a\n+a\n\\ No newline at end of file\n"),
    ("".join("%d\n" % i for i in range(1, 21)), "".join("%d\n" % i for i in range(1, 21) if i not in (2, 19)),
     "--- a/file\n+++ b/file\n@@ -1,5 +1,4 @@\n 1\n-2\n 3\n 4\n 5\n@@ -16,5 +15,4 @@\n 16\n 17\n 18\n-19\n 20\n"),
    ("x\n", "x\n", "--- a/file\n+++ b/file\n"),
]


@rdtest.test
def diff_exact_cases():
    d = fixlib.temp_dir("rd-diff.")
    for i, (a, b, want) in enumerate(DIFF_EXACT):
        fa, fb = os.path.join(d, "a%d" % i), os.path.join(d, "b%d" % i)
        with open(fa, "w") as f:
            f.write(a)
        with open(fb, "w") as f:
            f.write(b)
        rdtest.eq(run([fa, fb, "diff"], prog=DRIVER).stdout, want, "diff case %d" % i)


@rdtest.test
def diff_applies_with_patch():
    """Random edits of a configuration-like file: patch(1) turns the old
    file into the new one with the diff, so every hunk is right."""
    if not shutil.which("patch"):
        rdtest.skip("needs patch")
    import random
    rnd = random.Random(4)
    d = fixlib.temp_dir("rd-diff.")
    words = ["blacklist amdgpu", "options amdgpu x=1", "", "# comment", "Types: deb", "Suites: noble", "a", "b"]
    for case in range(60):
        a = [rnd.choice(words) for _ in range(rnd.randint(0, 40))]
        b = list(a)
        for _ in range(rnd.randint(1, 6)):
            op = rnd.randint(0, 2)
            pos = rnd.randint(0, len(b))
            if op == 0:
                b.insert(pos, rnd.choice(words) + " new")
            elif op == 1 and b:
                del b[min(pos, len(b) - 1)]
            elif b:
                b[min(pos, len(b) - 1)] += " changed"
        ta = "\n".join(a) + ("\n" if a and rnd.random() < 0.8 else "")
        tb = "\n".join(b) + ("\n" if b and rnd.random() < 0.8 else "")
        fa, fb, out = os.path.join(d, "a"), os.path.join(d, "b"), os.path.join(d, "out")
        with open(fa, "w") as f:
            f.write(ta)
        with open(fb, "w") as f:
            f.write(tb)
        diff = run([fa, fb, "diff"], prog=DRIVER).stdout
        if ta == tb:
            continue
        p = subprocess.run(["patch", "--quiet", "--force", "-o", out, fa], input=diff, capture_output=True,
                           text=True)
        rdtest.eq(p.returncode, 0, "patch case %d: %s\n%s" % (case, p.stdout + p.stderr, diff))
        with open(out) as f:
            rdtest.eq(f.read(), tb, "patched case %d\n%s" % (case, diff))


@rdtest.test
def real_allowed_fixes_restricts_the_plan():
    for conf, want in (("[fix]\nallowed_fixes = udev env\n", "   group: not among allowed_fixes in the configuration\n"),
                       ("[fix]\nallowed_fixes = none\n", "   group: not among allowed_fixes in the configuration\n")):
        t = Live("user-not-in-render", conf=conf)
        p = t.rd("fix", "--user", "alice")
        expect("real_allowed_fixes_restricts_the_plan." + conf.split("= ")[1].strip().replace(" ", "-"), p.stdout, t.root)
        rdtest.eq(p.returncode, 0, "nothing planned (stderr %s)" % p.stderr)
        rdtest.check(p.stdout.startswith("Nothing planned in this root: 1 not planned (below).\n\nNot planned:\n") and want in p.stdout, p.stdout)
    t = Live("user-not-in-render", conf="[fix]\nallowed_fixes = bogus\n")
    p = t.rd("fix", "--user", "alice")
    rdtest.eq(p.returncode, 3, "a bad allowed_fixes stops the run")
    rdtest.check("rocm-doctor.conf:2" in p.stderr and "bogus" in p.stderr, p.stderr)


if __name__ == "__main__":
    sys.exit(rdtest.main())
