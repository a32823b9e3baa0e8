#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The loop after the reboot, through the real binaries: a fix run whose
step needs a reboot is applied on a scenario's root and stays pending in its
journal; `rocm-doctord --once` on the same boot leaves it pending; on a new
boot (another boot id in the testbed's /proc, the hardware as the reboot
left it, the level-2 runtime from the TEST DOUBLE) it gives the verdict:
verified, or failed with the finding that still fails or the GPU kernel
that failed. The verdict is in the run's journal, in `fix --status`, in
status.json, in the Prometheus and NFD files and in a journal entry with its
own MESSAGE_ID (sent to a socket of the test's own).

Usage: test-verify.py ROCM_DOCTOR ROCM_DOCTORD SOURCE_DIR TB_RUN RUNTIME_DOUBLE [PROMTOOL]"""
import fcntl
import json
import os
import re
import shutil
import socket
import subprocess
import sys

import fixlib
from fixlib import rdtest

RD, RDD, SRC, TB_RUN, DOUBLE = sys.argv[1:6]
PROMTOOL = sys.argv[6] if len(sys.argv) > 6 else None

BOOT_A = "5f3a2c1e-8b7d-4e6f-9a0b-1c2d3e4f5a6b"
BOOT_B = "0d9c8b7a-6f5e-4d3c-8b2a-190817263544"
# rocm-doctord(8): the hash of "rocm-doctor:event:fix-verification"
MESSAGE_ID = "421677117ace8da9a15e95ab75129e23"
GPU = "0000:03:00.0"
PROM = "/var/lib/prometheus/node-exporter/rocm-doctor.prom"
NFD = "/etc/kubernetes/node-feature-discovery/features.d/rocm-doctor"
NFD_PREFIX = "rocm-doctor.feature.node.kubernetes.io/"
BLACKLISTED = "amdgpu is blacklisted"


class Bed:
    """A scenario's testbed (its hardware, /proc with a boot id of our
    choice) and the command prefix that runs a program inside it."""

    def __init__(self, name, boot_id):
        self.dir = fixlib.temp_dir("rd-verify-tb.")
        os.chmod(self.dir, 0o755)
        out = subprocess.run([sys.executable, os.path.join(SRC, "..", "scenarios", "run.py"), name, "--write",
                              self.dir], capture_output=True, text=True, check=True).stdout.split()
        rdtest.check(out[0] == "tb-run" and out[-1] == "CMD", "run.py --write: %s" % out)
        self.prefix = [TB_RUN] + out[1:-1]
        self.root = os.path.join(self.dir, "root")
        os.makedirs(os.path.join(self.root, "var", "lib"), exist_ok=True)
        self.boot(boot_id)

    def boot(self, boot_id):
        path = os.path.join(self.dir, "overlay", "proc", "sys", "kernel", "random", "boot_id")
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w") as f:
            f.write(boot_id + "\n")

    def run(self, prog, args, env_extra=None):
        env = {k: v for k, v in os.environ.items()
               if not k.startswith(("HSA_", "ROCR_", "HIP_", "UMOCKDEV_", "ROCM_DOCTOR_TEST", "ROCM_DOCTOR_RUNTIME",
                                    "ROCM_DOCTOR_JOURNAL"))}
        env["NO_COLOR"] = "1"
        env.update(env_extra or {})
        p = subprocess.run(self.prefix + [prog] + args, capture_output=True, text=True, env=env, timeout=180)
        rdtest.check("Sanitizer" not in p.stderr, "sanitizer report:\n" + p.stderr)
        return p


class Journal:
    """A datagram socket speaking the journal's native protocol (one
    KEY=VALUE a line; no binary fields in these entries)."""

    def __init__(self):
        self.path = os.path.join(fixlib.temp_dir("rd-verify-journal."), "socket")
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        self.sock.bind(self.path)
        self.sock.setblocking(False)

    def entries(self):
        out = []
        while True:
            try:
                data = self.sock.recv(65536)
            except BlockingIOError:
                return out
            out.append(dict(line.split("=", 1) for line in data.decode().split("\n") if "=" in line))

    def verdicts(self):
        return [e for e in self.entries() if e.get("MESSAGE_ID") == MESSAGE_ID]


def setup(conf_extra=""):
    """The blacklisted-etc scenario on boot A, outputs configured, and the
    modprobe fix applied: the run id."""
    bed = Bed("blacklisted-etc", BOOT_A)
    r = fixlib.Root.at(bed.root)
    r.write("/etc/rocm-doctor/rocm-doctor.conf",
            "[output]\nprometheus_file = %s\nnfd_file = %s\n%s" % (PROM, NFD, conf_extra))
    p = bed.run(RD, ["fix", "--root", bed.root, "--only", "driver.blacklisted", "--apply", "--yes"])
    rdtest.eq(p.returncode, 0, "apply (stdout %s, stderr %s)" % (p.stdout, p.stderr))
    fixlib.expect_next("apply", p.stdout, bed.root)
    rdtest.check(re.search(r"driver\.blacklisted +fixed after reboot", p.stdout), p.stdout)
    ids = os.listdir(r.p("/var/lib/rocm-doctor/journal"))
    rdtest.eq(len(ids), 1, "one run in the journal")
    rdtest.check(p.stdout.endswith("\nThe boot check verifies this run after the reboot or re-login it needs:\n"
                            "`rocm-doctor fix --status --root %s %s` shows the verdict.\n" % (bed.root, ids[0])),
                 p.stdout)
    return bed, r, ids[0]


def journal_of(r, run_id):
    with open(r.p("/var/lib/rocm-doctor/journal/%s/journal.json" % run_id)) as f:
        return json.load(f)


def status_json(r):
    with open(r.p("/run/rocm-doctor/status.json")) as f:
        return json.load(f)


def prom_runs(r):
    """rocm_doctor_fix_runs by state, from the textfile."""
    text = open(r.p(PROM)).read()
    rdtest.check("# TYPE rocm_doctor_fix_runs gauge\n" in text, text[-600:])
    return {m.group(1): int(m.group(2))
            for m in re.finditer(r'^rocm_doctor_fix_runs\{state="([a-z]+)"\} (\d+)$', text, re.M)}


def nfd_labels(r):
    out = {}
    for line in open(r.p(NFD)).read().splitlines():
        if line.startswith(NFD_PREFIX):
            k, v = line[len(NFD_PREFIX):].split("=", 1)
            out[k] = v
    return out


def promtool_clean(r):
    if not PROMTOOL:
        return
    p = subprocess.run([PROMTOOL, "check", "metrics"], stdin=open(r.p(PROM)), capture_output=True, text=True)
    rdtest.eq((p.returncode, p.stdout + p.stderr), (0, ""), "promtool check metrics")


def fix_status(bed, *args):
    """fix --status, its wrapped lines (indented by 8) joined again."""
    p = bed.run(RD, ["fix", "--status", "--root", bed.root] + list(args))
    rdtest.eq(p.returncode, 0, "fix --status (stderr %s)" % p.stderr)
    if "--json" not in args:
        fixlib.expect_next("status", p.stdout, bed.root)
    if "--json" not in args:
        rdtest.check(all(len(line) <= 80 for line in p.stdout.splitlines() if not line.startswith("  Root: ")),
                     "a line is wider than 80 columns:\n" + p.stdout)
    return re.sub(r"\n {8}(?=\S)", " ", p.stdout)


def once(bed, journal, env_extra=None, root=None):
    env = {"ROCM_DOCTOR_JOURNAL_SOCKET": journal.path}
    env.update(env_extra or {})
    return bed.run(RDD, ["--once", "--root", root or bed.root], env_extra=env)


def double(mode):
    return {"ROCM_DOCTOR_RUNTIME_LIB": os.path.abspath(DOUBLE), "ROCM_DOCTOR_TEST_RUNTIME": mode}


def pending_then_same_boot(bed, r, run_id, journal):
    """Pending after apply, and still after a boot check on the same boot."""
    j = journal_of(r, run_id)
    rdtest.eq((j["state"], j["boot_id"], j["verification"]), ("applied", BOOT_A, {"state": "pending", "needs": "reboot"}),
              "journal after apply")
    st = json.loads(fix_status(bed, "--json"))
    rdtest.eq((st["pending"], st["verified"], st["failed"], len(st["runs"])), (1, 0, 0, 1), "fix --status --json counts")
    run = st["runs"][0]
    rdtest.eq((run["run_id"], run["state"], run["verification"]["state"]), (run_id, "applied", "pending"), "the run")
    rdtest.eq(run["changes"]["files_removed"], ["/etc/modprobe.d/blacklist-amdgpu.conf"], "files removed")
    rdtest.eq([c["argv"] for c in run["changes"]["commands"]], [["update-initramfs", "-u"]], "commands")
    rdtest.eq([s["fix"] for s in run["steps"]], ["modprobe"], "steps")
    text = fix_status(bed)
    rdtest.check(text.startswith("Run %s: applied " % run_id) and ", pending\n" in text.splitlines()[0] + "\n", text)
    rdtest.check("    removed   /etc/modprobe.d/blacklist-amdgpu.conf\n" in text, text)
    rdtest.check("    command   update-initramfs -u (on first boot)\n" in text, text)
    rdtest.check("  Verification: pending until the boot check after a reboot\n" in text, text)
    rdtest.check(text.endswith("\n1 pending, 0 verified, 0 failed.\n"), text)

    p = once(bed, journal, double("success"))
    rdtest.check(p.returncode in (1, 2), "boot check on the same boot: %d %s" % (p.returncode, p.stderr))
    rdtest.eq(journal_of(r, run_id)["verification"], {"state": "pending", "needs": "reboot"}, "same boot: still pending")
    s = status_json(r)
    rdtest.eq((s["fix_runs"]["pending"], s["fix_runs"]["verified"], s["fix_runs"]["failed"]), (1, 0, 0), "status counts")
    rdtest.eq(s["fix_runs"]["runs"][0]["verification"]["state"], "pending", "status.json run")
    rdtest.eq(s.get("runtime"), None, "no level 2 when no run is due")
    rdtest.eq(prom_runs(r), {"pending": 1, "verified": 0, "failed": 0}, "metric while pending")
    promtool_clean(r)
    labels = nfd_labels(r)
    rdtest.eq((labels.get("fix.pending"), labels.get("fix.failed")), ("true", "false"), "NFD while pending")
    rdtest.eq(journal.verdicts(), [], "no verdict entry on the same boot")


@rdtest.test(root=True)
def verified_after_reboot():
    bed, r, run_id = setup()
    journal = Journal()
    pending_then_same_boot(bed, r, run_id, journal)
    # the reboot: amdgpu binds now that the blacklist is gone, another boot id
    after = Bed("healthy-rx7900xtx", BOOT_B)
    p = once(after, journal, double("success"), root=bed.root)
    rdtest.check(p.returncode in (0, 1), "boot check after the reboot: %d %s" % (p.returncode, p.stderr))
    v = journal_of(r, run_id)["verification"]
    rdtest.check(re.match(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$", v.pop("time", "")), "time of the verdict")
    rdtest.eq(v, {"state": "verified", "needs": "reboot", "boot_id": BOOT_B,
           "results": [{"finding": "driver.blacklisted", "fix": "modprobe", "status": "fixed"}],
           "runtime": {"status": "ok", "gpus": 1}}, "verification in the journal")
    s = status_json(r)
    rdtest.eq((s["fix_runs"]["pending"], s["fix_runs"]["verified"], s["fix_runs"]["failed"]), (0, 1, 0), "status counts")
    rdtest.eq(s["fix_runs"]["runs"][0]["verification"]["state"], "verified", "status.json run")
    rdtest.eq(s["fix_runs"]["runs"][0]["verification"]["results"][0]["status"], "fixed", "status.json result")
    rdtest.check(s["runtime"]["devices"][0]["result"] == "ok", "level 2 ran for the verdict")
    rdtest.eq(prom_runs(r), {"pending": 0, "verified": 1, "failed": 0}, "metric after the verdict")
    promtool_clean(r)
    labels = nfd_labels(r)
    rdtest.eq((labels.get("fix.pending"), labels.get("fix.failed")), ("false", "false"), "NFD after the verdict")
    entries = journal.verdicts()
    rdtest.eq(len(entries), 1, "one verdict entry")
    e = entries[0]
    rdtest.eq((e["PRIORITY"], e["ROCM_DOCTOR_FIX_RUN"], e["ROCM_DOCTOR_VERIFICATION"], e["ROCM_DOCTOR_BOOT_ID"],
        e["SYSLOG_IDENTIFIER"]), ("6", run_id, "verified", BOOT_B, "rocm-doctord"), "verdict entry")
    rdtest.eq(e["MESSAGE"], "fix run %s verified: driver.blacklisted fixed; GPU kernel ok on 1 GPU" % run_id, "MESSAGE")
    text = fix_status(bed, run_id)
    rdtest.check(re.search(r"^Run %s: applied \S+Z, verified\n" % run_id, text, re.M), text)
    rdtest.check("  Verified at %s on boot %s:\n" % (journal_of(r, run_id)["verification"]["time"], BOOT_B) in text, text)
    rdtest.check(re.search(r"^    \S driver\.blacklisted +fixed$", text, re.M), text)
    rdtest.check(re.search(r"^    \S GPU kernel +ok on 1 GPU$", text, re.M), text)
    print("# fix --status %s:\n# " % run_id + text.rstrip("\n").replace("\n", "\n# "))
    # the next boot check: the verdict stays as it is, no second entry
    before = open(r.p("/var/lib/rocm-doctor/journal/%s/journal.json" % run_id), "rb").read()
    after.boot("77777777-6f5e-4d3c-8b2a-190817263544")
    once(after, journal, double("wrong-result"), root=bed.root)
    rdtest.eq(open(r.p("/var/lib/rocm-doctor/journal/%s/journal.json" % run_id), "rb").read(), before, "idempotent")
    rdtest.eq(journal.verdicts(), [], "no second verdict entry")
    rdtest.eq(status_json(r).get("runtime"), None, "no level 2 without a due run")


@rdtest.test(root=True)
def failed_finding_persists():
    """Another blacklist shows up before the reboot: driver.blacklisted is
    still failing, with the check's own words; the kernel is not run
    (verify_runtime = no)."""
    bed, r, run_id = setup("[fix]\nverify_runtime = no\n")
    journal = Journal()
    r.write("/etc/modprobe.d/zz-local.conf", "blacklist amdgpu\n")
    bed.boot(BOOT_B)
    p = once(bed, journal, double("success"))
    rdtest.eq(p.returncode, 2, "boot check with the blacklist back (stderr %s)" % p.stderr)
    v = journal_of(r, run_id)["verification"]
    v.pop("time")
    results = v.pop("results")
    rdtest.eq(v, {"state": "failed", "needs": "reboot", "boot_id": BOOT_B,
           "runtime": {"status": "not-run", "why": "verify_runtime = no in the configuration"}}, "verification")
    rdtest.eq(len(results), 1, "one result")
    rdtest.eq((results[0]["finding"], results[0]["fix"], results[0]["status"]),
              ("driver.blacklisted", "modprobe", "still-failing"), "result")
    s = status_json(r)
    rdtest.check(BLACKLISTED in results[0]["why"], "why: %s" % results[0]["why"])
    rdtest.check([f["summary"] for f in s["findings"] if f["id"] == "driver.blacklisted"] == [results[0]["why"]],
                 "the why is the check's summary")
    rdtest.eq(s.get("runtime"), None, "verify_runtime = no: no level 2")
    rdtest.eq((s["fix_runs"]["pending"], s["fix_runs"]["verified"], s["fix_runs"]["failed"]), (0, 0, 1), "status counts")
    rdtest.eq(prom_runs(r), {"pending": 0, "verified": 0, "failed": 1}, "metric")
    promtool_clean(r)
    rdtest.eq(nfd_labels(r).get("fix.failed"), "true", "NFD fix.failed")
    e = journal.verdicts()
    rdtest.eq([(x["PRIORITY"], x["ROCM_DOCTOR_VERIFICATION"]) for x in e], [("3", "failed")], "verdict entry")
    rdtest.eq(e[0]["MESSAGE"], "fix run %s failed verification: driver.blacklisted still failing (%s)"
              % (run_id, results[0]["why"]), "MESSAGE")
    text = fix_status(bed, run_id)
    rdtest.check(re.search(r"^  Failed at \S+ on boot %s:$" % BOOT_B, text, re.M), text)
    rdtest.check(re.search(r"^    \S driver\.blacklisted +still failing: %s$" % re.escape(results[0]["why"]), text, re.M),
                 text)
    rdtest.check(re.search(r"^    - GPU kernel +not run \(verify_runtime = no\)$", text, re.M), text)


@rdtest.test(root=True)
def failed_kernel():
    """The finding is gone after the reboot, but the GPU kernel computes
    wrong results: failed, and the runtime says why."""
    bed, r, run_id = setup()
    journal = Journal()
    after = Bed("healthy-rx7900xtx", BOOT_B)
    p = once(after, journal, double("wrong-result"), root=bed.root)
    rdtest.eq(p.returncode, 2, "boot check with a failing kernel (stderr %s)" % p.stderr)
    v = journal_of(r, run_id)["verification"]
    v.pop("time")
    rdtest.eq(v, {"state": "failed", "needs": "reboot", "boot_id": BOOT_B,
           "results": [{"finding": "driver.blacklisted", "fix": "modprobe", "status": "fixed"}],
           "runtime": {"status": "failed", "finding": "runtime.kernel-failed",
                       "why": GPU + " gfx1100 runs kernels but computes wrong results"}}, "verification")
    rdtest.eq(prom_runs(r), {"pending": 0, "verified": 0, "failed": 1}, "metric")
    e = journal.verdicts()
    rdtest.eq([(x["PRIORITY"], x["ROCM_DOCTOR_VERIFICATION"], x["ROCM_DOCTOR_FIX_RUN"]) for x in e],
              [("3", "failed", run_id)], "verdict entry")
    text = fix_status(bed)
    rdtest.check(re.search(r"^    \S GPU kernel +failed: %s gfx1100 runs kernels but computes wrong results$"
                    % re.escape(GPU), text, re.M), text)
    rdtest.check(text.endswith("\n0 pending, 0 verified, 1 failed.\n"), text)


@rdtest.test(root=True)
def failed_untested_gpu():
    """No kernel could run on the GPU (no code object, hiprtc fails): not
    proven, so failed."""
    bed, r, run_id = setup()
    journal = Journal()
    after = Bed("healthy-rx7900xtx", BOOT_B)
    env = dict(double("hiprtc-fail"), ROCM_DOCTOR_TEST_RUNTIME_ISA="gfx700")
    once(after, journal, env, root=bed.root)
    v = journal_of(r, run_id)["verification"]
    rdtest.eq((v["state"], v["results"][0]["status"], v["runtime"]),
              ("failed", "fixed", {"status": "failed", "finding": "runtime.kernel-untested",
                            "why": GPU + " gfx700 was not tested: this rocm-doctor has no kernel for it"}),
              "verification")


@rdtest.test(root=True)
def relogin_verified_at_the_next_boot_check():
    """A run that needs only a re-login (the group fix) is verified by the
    next boot check, on the same boot: the check reads the group database,
    which has the change already."""
    bed = Bed("user-not-in-render", BOOT_A)
    r = fixlib.Root.at(bed.root)
    r.write("/etc/rocm-doctor/rocm-doctor.conf",
            "[check]\nusers = alice\n[fix]\nallowed_fixes = group\n[output]\nprometheus_file = %s\n" % PROM)
    p = bed.run(RD, ["fix", "--root", bed.root, "--user", "alice", "--apply", "--yes"])
    rdtest.eq(p.returncode, 0, "apply (stdout %s, stderr %s)" % (p.stdout, p.stderr))
    run_id = os.listdir(r.p("/var/lib/rocm-doctor/journal"))[0]
    j = journal_of(r, run_id)
    rdtest.eq((j["boot_id"], j["verification"]), (BOOT_A, {"state": "pending", "needs": "relogin"}), "journal after apply")
    text = fix_status(bed)
    rdtest.check("    group     added alice to group render\n" in text, text)
    rdtest.check("  Verification: pending until the next boot check (re-login)\n" in text, text)
    journal = Journal()
    p = once(bed, journal, double("success"))
    rdtest.eq(p.returncode, 0, "boot check (stdout %s, stderr %s)" % (p.stdout, p.stderr))
    v = journal_of(r, run_id)["verification"]
    v.pop("time")
    rdtest.eq(v, {"state": "verified", "needs": "relogin", "boot_id": BOOT_A,
           "results": [{"finding": "kfd.no-access", "fix": "group", "status": "fixed"},
                       {"finding": "render.no-access", "fix": "group", "status": "fixed"}],
           "runtime": {"status": "ok", "gpus": 1}}, "verified on the same boot")
    rdtest.eq(prom_runs(r), {"pending": 0, "verified": 1, "failed": 0}, "metric")
    rdtest.eq([(e["ROCM_DOCTOR_FIX_RUN"], e["ROCM_DOCTOR_VERIFICATION"]) for e in journal.verdicts()],
              [(run_id, "verified")], "verdict entry")


@rdtest.test(root=True)
def lock_held_stays_pending():
    """While a fix or undo holds the journal's lock, the boot check leaves the
    runs pending and says why; the next boot check verifies them."""
    bed, r, run_id = setup("[fix]\nverify_runtime = no\n")
    journal = Journal()
    bed.boot(BOOT_B)
    with open(r.p("/var/lib/rocm-doctor/lock"), "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        p = once(bed, journal)
        fcntl.flock(lock, fcntl.LOCK_UN)
    rdtest.check("rocm-doctord: the pending fix runs were not all verified: another rocm-doctor fix or undo is running"
                 in p.stderr, p.stderr)
    rdtest.eq(journal_of(r, run_id)["verification"], {"state": "pending", "needs": "reboot"}, "still pending")
    rdtest.eq(journal.verdicts(), [], "no verdict entry")
    once(bed, journal)
    rdtest.eq(journal_of(r, run_id)["verification"]["state"], "verified", "verified by the next boot check")
    rdtest.eq(len(journal.verdicts()), 1, "one verdict entry")


@rdtest.test(root=True)
def packages_shown():
    """A run that changed packages (its journal's "packages") shows them,
    with their versions, in text and in JSON."""
    bed, r, run_id = setup()
    path = r.p("/var/lib/rocm-doctor/journal/%s/journal.json" % run_id)
    j = journal_of(r, run_id)
    packages = {"installed": [{"name": "rocm", "version": "6.4.1.60401-83~24.04"}],
                "upgraded": [{"name": "hip-runtime-amd", "version": "6.4.1", "old_version": "6.2.4"}],
                "removed": [{"name": "rocminfo", "version": "5.7.1-3"}]}
    j["packages"] = packages
    with open(path, "w") as f:
        json.dump(j, f)
    run = json.loads(fix_status(bed, "--json", run_id))["runs"][0]
    rdtest.eq(run["changes"]["packages"], packages, "packages in JSON")
    text = fix_status(bed, run_id)
    rdtest.check("    installed rocm 6.4.1.60401-83~24.04\n"
                 "    upgraded  hip-runtime-amd 6.4.1 (was 6.2.4)\n"
                 "    removed   rocminfo 5.7.1-3\n" in text, text)


@rdtest.test(root=True)
def undone_run_is_not_verified():
    """A pending run that was undone before the reboot gets no verdict and
    counts nowhere."""
    bed, r, run_id = setup()
    journal = Journal()
    p = bed.run(RD, ["undo", "--root", bed.root, run_id])
    rdtest.eq(p.returncode, 0, "undo (stderr %s)" % p.stderr)
    bed.boot(BOOT_B)
    once(bed, journal, double("success"))
    rdtest.eq(journal_of(r, run_id)["verification"], {"state": "pending", "needs": "reboot"}, "left alone")
    s = status_json(r)
    rdtest.eq((s["fix_runs"]["pending"], s["fix_runs"]["verified"], s["fix_runs"]["failed"]), (0, 0, 0), "counts")
    rdtest.eq(journal.verdicts(), [], "no verdict entry")
    text = fix_status(bed)
    rdtest.check("  Verification: not done: the run is undone\n" in text, text)


@rdtest.test(root=True)
def status_usage():
    bed = Bed("blacklisted-etc", BOOT_A)
    p = bed.run(RD, ["fix", "--status", "--root", bed.root])
    rdtest.eq((p.returncode, p.stdout), (0, "No fix run was applied to %s (%s/var/lib/rocm-doctor/journal holds none).\n"
                                  % (bed.root, bed.root)), "no runs")
    p = bed.run(RD, ["fix", "--status", "--root", bed.root, "--json"])
    rdtest.eq((p.returncode, json.loads(p.stdout)), (0, {"pending": 0, "verified": 0, "failed": 0, "runs": []}),
              "no runs, JSON")
    p = bed.run(RD, ["fix", "--status", "--root", bed.root, "20200101-000000"])
    rdtest.eq((p.returncode, p.stderr), (3, "rocm-doctor: no run 20200101-000000 in %s/var/lib/rocm-doctor/journal\n"
                                  % bed.root), "unknown run")
    p = bed.run(RD, ["fix", "--status", "--apply", "--root", bed.root])
    rdtest.eq(p.returncode, 3, "--status with --apply")
    rdtest.check("--apply is not an option of the fix --status command" in p.stderr, p.stderr)
    # the journal is root's: another user is told so, not "no runs"
    os.makedirs(os.path.join(bed.root, "var/lib/rocm-doctor/journal"), mode=0o700)
    os.chmod(os.path.join(bed.root, "var/lib/rocm-doctor"), 0o700)
    os.chmod(bed.root, 0o755)
    if shutil.which("setpriv"):
        p = subprocess.run(["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", RD, "fix", "--status",
                            "--root", bed.root], capture_output=True, text=True)
        rdtest.eq((p.returncode, p.stderr), (3, "rocm-doctor: cannot read %s/var/lib/rocm-doctor/journal: Permission "
                                      "denied (the journal is root's: use sudo)\n" % bed.root), "not root")


if __name__ == "__main__":
    sys.exit(rdtest.main())
