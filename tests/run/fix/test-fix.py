#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The fixer through the real binary: on temporary roots with facts files,
and on the findings of real scenarios (their umockdev testbed and root
tree), with the policy from a rocm-doctor.conf under the root. Exact plans,
apply, apply again, check again, undo byte for byte, and the safety
properties. FIX_DRIVER prints the plan's diff of two files.

Usage: test-fix.py ROCM_DOCTOR FIX_DRIVER SOURCE_DIR [TB_RUN]"""
import fcntl
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "lib"))
import fixlib  # noqa: E402
import rdtest  # noqa: E402

RD, DRIVER, SRC = sys.argv[1:4]
TB_RUN = sys.argv[4] if len(sys.argv) > 4 else None
IS_ROOT = os.geteuid() == 0
expect = fixlib.expect


def run(args, stdin=None, env_extra=None, prog=None):
    env = dict(os.environ)
    env.update(env_extra or {})
    p = subprocess.run([prog or RD] + args, input=stdin, capture_output=True, text=True, env=env, timeout=120)
    rdtest.check("Sanitizer" not in p.stderr, "sanitizer report:\n" + p.stderr)
    return p


def setup(facts, root=None):
    r = root or fixlib.Root()
    factsdir = fixlib.temp_dir("rd-fix-facts.")
    return r, fixlib.write_facts(facts, factsdir)


# The access findings only: the plans stay exact whatever other checks find
ACCESS = ["--only", "kfd.no-access,render.no-access"]


def base_facts():
    return fixlib.load_facts(SRC)


def conf(r, text):
    """rocm-doctor.conf under the root: `fix --root` reads the policy there."""
    r.write("/etc/rocm-doctor/rocm-doctor.conf", text)


def plan(r, facts, *args, env_extra=None):
    return run(["fix", "--root", r.path, "--facts", facts] + list(args), env_extra=env_extra)


# ---- group ----

GROUP_PLAN = """Plan for ROOT: 1 step

1. group: add alice to render and video
   Fixes: kfd.no-access, render.no-access
   add alice to group render: usermod -aG render alice (undo: gpasswd -d alice render)
   add alice to group video: usermod -aG video alice (undo: gpasswd -d alice video)
--- a/etc/group
+++ b/etc/group
@@ -1,5 +1,5 @@
 root:x:0:
-video:x:44:
-render:x:992:
+video:x:44:alice
+render:x:992:alice
 alice:x:1000:
 bob:x:1001:
   Afterwards: alice must log out and back in (or reboot) for the new groups to count; `newgrp render` gives one shell the group meanwhile

To carry it out: sudo rocm-doctor fix --apply --root ROOT --facts FACTS --only kfd.no-access,render.no-access
"""


@rdtest.test
def group_plan_exact():
    r, facts = setup(base_facts())
    before = r.tree()
    p = run(["fix", "--root", r.path, "--facts", facts] + ACCESS)
    expect("group_plan_exact", p.stdout, r, facts)
    rdtest.eq(p.stdout.replace(r.path, "ROOT").replace(facts, "FACTS"), GROUP_PLAN, "group plan")
    rdtest.eq(p.returncode, 1, "exit status of a plan with steps")
    rdtest.eq(r.tree(), before, "planning wrote nothing")


@rdtest.test
def group_plan_json():
    import json
    r, facts = setup(base_facts())
    p = run(["fix", "--root", r.path, "--facts", facts, "--json"] + ACCESS)
    j = json.loads(p.stdout)
    rdtest.eq(j["schema"], "rocm-doctor-plan/1", "schema")
    rdtest.eq([s["fix"] for s in j["steps"]], ["group"], "steps")
    rdtest.eq([(a["action"], a["user"], a["group"]) for a in j["steps"][0]["actions"]],
       [("group-add", "alice", "render"), ("group-add", "alice", "video")], "actions")
    rdtest.eq(j["steps"][0]["findings"], ["kfd.no-access", "render.no-access"], "findings")
    rdtest.eq(j["steps"][0]["effect"], "relogin", "effect")


@rdtest.test(root=True)
def group_roundtrip():
    r, facts = setup(base_facts())
    before = r.tree()
    p = run(["fix", "--root", r.path, "--facts", facts, "--apply", "--yes"] + ACCESS)
    expect("group_roundtrip.apply", p.stdout, r, facts)
    rdtest.eq(p.returncode, 0, "apply exit status (stderr: %s)" % p.stderr)
    rdtest.check(re.search(r"kfd\.no-access +fixed after re-login", p.stdout), "per-finding result: " + p.stdout)
    rdtest.check("render:x:992:alice\n" in r.read("/etc/group"), "alice in render")
    rdtest.check("video:x:44:alice\n" in r.read("/etc/group"), "alice in video")
    rdtest.check("render:!::alice\n" in r.read("/etc/gshadow"), "gshadow updated by the shadow tools")
    p = run(["fix", "--root", r.path, "--facts", facts, "--apply", "--yes"] + ACCESS)
    rdtest.eq((p.returncode, p.stdout), (0, "Nothing to do in this root.\n"), "apply again")
    p = run(["undo", "--root", r.path, "--last"])
    expect("group_roundtrip.undo", p.stdout, r, facts)
    rdtest.eq(p.returncode, 0, "undo exit status (stderr: %s)" % p.stderr)
    rdtest.check(p.stdout.startswith("Undid run "), p.stdout)
    rdtest.eq(r.tree(), before, "tree after undo")
    p = run(["undo", "--root", r.path, "--last"])
    rdtest.eq(p.returncode, 3, "a second undo has nothing to undo")
    rdtest.check("no applied run to undo" in p.stderr, p.stderr)


@rdtest.test(root=True)
def group_relogin_when_groups_changed_meanwhile():
    """Another change to /etc/group after the run: undo reverses only its
    own membership, with gpasswd, and keeps the other change."""
    r, facts = setup(base_facts())
    rdtest.eq(run(["fix", "--root", r.path, "--facts", facts, "--apply", "--yes"] + ACCESS).returncode, 0, "apply")
    subprocess.run(["usermod", "-R", r.path, "-aG", "video", "bob"], check=True)
    p = run(["undo", "--root", r.path])
    expect("group_relogin_when_groups_changed_meanwhile.undo", p.stdout, r, facts)
    rdtest.eq(p.returncode, 0, "undo (stderr: %s)" % p.stderr)
    rdtest.check("reversed with gpasswd" in p.stdout, p.stdout)
    g = r.read("/etc/group")
    rdtest.check("video:x:44:bob\n" in g and "render:x:992:\n" in g, g)


@rdtest.test(root=True)
def group_apply_json():
    import json
    r, facts = setup(base_facts())
    p = run(["fix", "--root", r.path, "--facts", facts, "--apply", "--yes", "--json"] + ACCESS)
    rdtest.eq(p.returncode, 0, "apply (stderr %s)" % p.stderr)
    j = json.loads(p.stdout)
    rdtest.eq(j["applied"], True, "applied")
    rdtest.check(re.fullmatch(r"\d{8}-\d{6}(-\d+)?", j["run_id"]), j["run_id"])
    rdtest.eq([(x["finding"], x["fix"], x["status"]) for x in j["results"]],
       [("kfd.no-access", "group", "fixed-after-relogin"), ("render.no-access", "group", "fixed-after-relogin")],
       "results")
    with open(r.p("/var/lib/rocm-doctor/journal/%s/journal.json" % j["run_id"])) as f:
        jr = json.load(f)
    rdtest.eq((jr["schema"], jr["state"]), ("rocm-doctor-journal/1", "applied"), "journal")
    rdtest.eq(sorted(x["path"] for x in jr["files"] if x["existed"]),
       ["/etc/group", "/etc/gshadow", "/etc/passwd", "/etc/shadow"], "journaled files")
    rdtest.eq(oct(os.stat(r.p("/var/lib/rocm-doctor/journal/%s" % j["run_id"])).st_mode & 0o777), "0o700",
       "the journal keeps copies of /etc/shadow: root only")
    p = run(["undo", "--root", r.path, j["run_id"], "--json"])
    rdtest.eq(json.loads(p.stdout)["run_id"], j["run_id"], "undo by id")


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


# ---- udev ----

UDEV_PLAN = """Plan for ROOT: 1 step

1. udev: give /dev/kfd and the render nodes to group render, mode 0660
   Fixes: kfd.no-access, render.no-access
   write /etc/udev/rules.d/70-rocm-doctor-gpu.rules (mode 0644, root:root)
   add alice to group render: usermod -aG render alice (undo: gpasswd -d alice render)
   run on first boot: udevadm control --reload (undo: udevadm control --reload)
   run on first boot: udevadm trigger --subsystem-match=kfd --subsystem-match=drm (undo: udevadm trigger --subsystem-match=kfd --subsystem-match=drm)
--- /dev/null
+++ b/etc/udev/rules.d/70-rocm-doctor-gpu.rules
@@ -0,0 +1,5 @@
+# generated by rocm-doctor; undo with rocm-doctor undo
+# /dev/kfd and the GPU render nodes belong to group render; only its members
+# may use the GPUs.
+KERNEL=="kfd", GROUP="render", MODE="0660"
+SUBSYSTEM=="drm", KERNEL=="renderD*", GROUP="render", MODE="0660"
--- a/etc/group
+++ b/etc/group
@@ -1,5 +1,5 @@
 root:x:0:
 video:x:44:
-render:x:992:
+render:x:992:alice
 alice:x:1000:
 bob:x:1001:
   Afterwards: alice must log out and back in for group render to count

To carry it out: sudo rocm-doctor fix --apply --root ROOT --facts FACTS --only kfd.no-access,render.no-access
"""

UDEV_RULE = """# generated by rocm-doctor; undo with rocm-doctor undo
# /dev/kfd and the GPU render nodes belong to group render; only its members
# may use the GPUs.
KERNEL=="kfd", GROUP="render", MODE="0660"
SUBSYSTEM=="drm", KERNEL=="renderD*", GROUP="render", MODE="0660"
"""


@rdtest.test
def udev_plan_exact():
    r, facts = setup(fixlib.root_only_nodes(base_facts()))
    p = run(["fix", "--root", r.path, "--facts", facts] + ACCESS)
    expect("udev_plan_exact", p.stdout, r, facts)
    rdtest.eq(p.stdout.replace(r.path, "ROOT").replace(facts, "FACTS"), UDEV_PLAN, "udev plan")


@rdtest.test(root=True)
def udev_roundtrip_never_chmod_666():
    """The naive answer to 'Permission denied on /dev/kfd' is chmod 666:
    this writes a 0660 group rule and touches no device node."""
    r, facts = setup(fixlib.root_only_nodes(base_facts()))
    before = r.tree()
    p = run(["fix", "--root", r.path, "--facts", facts, "--apply", "--yes"] + ACCESS)
    expect("udev_roundtrip_never_chmod_666.apply", p.stdout, r, facts)
    rdtest.eq(p.returncode, 0, "apply (stderr: %s)" % p.stderr)
    rdtest.eq(r.read("/etc/udev/rules.d/70-rocm-doctor-gpu.rules"), UDEV_RULE, "rule")
    rdtest.eq(oct(os.stat(r.p("/etc/udev/rules.d/70-rocm-doctor-gpu.rules")).st_mode & 0o7777), "0o644", "rule mode")
    rdtest.check("Run on the first boot of %s (not run now):\n   udevadm control --reload\n" % r.path in p.stdout, p.stdout)
    rdtest.check(re.search(r"kfd\.no-access +fixed after reboot", p.stdout), "rule applies at the first boot: " + p.stdout)
    text = r.all_text() + p.stdout
    rdtest.check("chmod" not in text and "0666" not in text, "no chmod, no 0666")
    rdtest.eq(run(["fix", "--root", r.path, "--facts", facts, "--apply", "--yes"] + ACCESS).stdout, "Nothing to do in this root.\n",
       "apply again")
    rdtest.eq(run(["undo", "--root", r.path]).returncode, 0, "undo")
    rdtest.eq(r.tree(), before, "tree after undo (rules.d and udev/ removed again)")


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


@rdtest.test
def udev_all_users_only_when_asked():
    r, facts = setup(fixlib.root_only_nodes(base_facts()))
    conf(r, "[fix]\nudev_all_users = no\n")
    p = plan(r, facts, *ACCESS)
    expect("udev_all_users_only_when_asked.0660", p.stdout, r, facts)
    rdtest.check('MODE="0666"' not in p.stdout and 'MODE="0660"' in p.stdout, p.stdout)
    import json
    import hashlib
    p = run(["fix", "--root", r.path, "--facts", facts, "--json"] + ACCESS)
    w = [a for a in json.loads(p.stdout)["steps"][0]["actions"] if a["action"] == "write"][0]
    rdtest.eq((w["path"], w["mode"], w["sha256"]),
       ("/etc/udev/rules.d/70-rocm-doctor-gpu.rules", "0644", hashlib.sha256(UDEV_RULE.encode()).hexdigest()),
       "write action in JSON")
    conf(r, "[fix]\nudev_all_users = yes\n")
    p = plan(r, facts, *ACCESS)
    expect("udev_all_users_only_when_asked.0666", p.stdout, r, facts)
    rdtest.check('KERNEL=="kfd", GROUP="render", MODE="0666"' in p.stdout, p.stdout)
    rdtest.check("usermod" not in p.stdout, "no group change needed with the all-users rule")


@rdtest.test
def udev_missing_group_not_planned():
    r, facts = setup(fixlib.root_only_nodes(base_facts()))
    conf(r, "[fix]\naccess_group = gpu\n")
    p = plan(r, facts, *ACCESS)
    expect("udev_missing_group_not_planned", p.stdout, r, facts)
    rdtest.eq(p.stdout.replace(r.path, "ROOT"),
       "Nothing planned in this root: 1 not planned (below).\n\nNot planned:\n   udev: group gpu does not exist in ROOT/etc/group\n",
       "plan")


# ---- modprobe ----

def blacklist_facts(files):
    f = base_facts()
    f["driver"] = {"module_present": False, "cmdline": "BOOT_IMAGE=/vmlinuz ro quiet",
                   "modprobe": [{"file": path, "line": line, "directive": d, "module": "amdgpu", "args": a}
                                for path, line, d, a in files]}
    return f


MODPROBE_PLAN = """Plan for ROOT: 1 step, 1 not planned (below)

1. modprobe: let amdgpu load and drive every AMD GPU
   Fixes: driver.blacklisted
   remove /etc/modprobe.d/blacklist-amdgpu.conf (kept in the journal)
   write /etc/modprobe.d/local.conf (mode 0644, root:root)
   write /etc/modprobe.d/amdgpu-off.conf (mode 0644, root:root)
   run on first boot: update-initramfs -u (undo: update-initramfs -u)
--- a/etc/modprobe.d/blacklist-amdgpu.conf
+++ /dev/null
@@ -1,2 +0,0 @@
-# left behind by an aborted driver install
-blacklist amdgpu
--- a/etc/modprobe.d/local.conf
+++ b/etc/modprobe.d/local.conf
@@ -1,3 +1,3 @@
 options snd_hda_intel power_save=0
-blacklist amdgpu
+# disabled by rocm-doctor (undo with rocm-doctor undo): blacklist amdgpu
 blacklist nouveau
--- /dev/null
+++ b/etc/modprobe.d/amdgpu-off.conf
@@ -0,0 +1,3 @@
+# generated by rocm-doctor; undo with rocm-doctor undo
+# Hides /usr/lib/modprobe.d/amdgpu-off.conf, whose amdgpu blacklist is disabled here.
+# disabled by rocm-doctor (undo with rocm-doctor undo): install amdgpu /bin/false
   Afterwards: reboot for the driver change to take effect

Not planned:
   modprobe: /etc/modprobe.d/gpu-operator.conf looks deliberate (GPU Operator's driver): left alone; name it with --only modprobe to disable it anyway
"""


def modprobe_root():
    r = fixlib.Root()
    r.write("/etc/modprobe.d/blacklist-amdgpu.conf", "# left behind by an aborted driver install\nblacklist amdgpu\n")
    r.write("/etc/modprobe.d/local.conf", "options snd_hda_intel power_save=0\nblacklist amdgpu\nblacklist nouveau\n")
    r.write("/usr/lib/modprobe.d/amdgpu-off.conf", "install amdgpu /bin/false\n")
    r.write("/etc/modprobe.d/gpu-operator.conf", "# AMD GPU Operator: out-of-tree driver\nblacklist amdgpu\n")
    facts = blacklist_facts([("/etc/modprobe.d/blacklist-amdgpu.conf", 2, "blacklist", None),
                             ("/etc/modprobe.d/local.conf", 2, "blacklist", None),
                             ("/usr/lib/modprobe.d/amdgpu-off.conf", 1, "install", "/bin/false"),
                             ("/etc/modprobe.d/gpu-operator.conf", 2, "blacklist", None)])
    return setup(facts, r)


@rdtest.test
def modprobe_plan_exact():
    r, facts = modprobe_root()
    p = run(["fix", "--root", r.path, "--facts", facts, "--only", "driver.blacklisted"])
    expect("modprobe_plan_exact", p.stdout, r, facts)
    rdtest.eq(p.stdout.replace(r.path, "ROOT").split("\nTo carry it out")[0] + p.stdout.split("--only driver.blacklisted\n")[1],
       MODPROBE_PLAN, "modprobe plan")
    p = run(["fix", "--root", r.path, "--facts", facts, "--only", "modprobe"])
    expect("modprobe_plan_exact.only-modprobe", p.stdout, r, facts)
    rdtest.check("remove /etc/modprobe.d/gpu-operator.conf (kept in the journal)" in p.stdout, "--only modprobe includes the deliberate one")


@rdtest.test(root=True)
def modprobe_roundtrip():
    r, facts = modprobe_root()
    before = r.tree()
    p = run(["fix", "--root", r.path, "--facts", facts, "--only", "driver.blacklisted", "--apply", "--yes"])
    expect("modprobe_roundtrip.apply", p.stdout, r, facts)
    rdtest.eq(p.returncode, 0, "apply (stderr %s)" % p.stderr)
    rdtest.check(not r.exists("/etc/modprobe.d/blacklist-amdgpu.conf"), "stale file removed")
    rdtest.check(re.search(r"driver\.blacklisted +fixed after reboot", p.stdout), p.stdout)
    rdtest.check("blacklist amdgpu" in r.read("/etc/modprobe.d/gpu-operator.conf"), "deliberate one kept")
    p = run(["fix", "--root", r.path, "--facts", facts, "--only", "driver.blacklisted", "--apply", "--yes"])
    expect("modprobe_roundtrip.apply-again", p.stdout, r, facts)
    rdtest.check(p.stdout.startswith("Nothing planned in this root: 1 not planned (below).\n"), "apply again: " + p.stdout)
    rdtest.eq(p.returncode, 0, "apply again exit status")
    rdtest.eq(run(["undo", "--root", r.path]).returncode, 0, "undo")
    rdtest.eq(r.tree(), before, "tree after undo (removed file back, byte for byte)")


@rdtest.test(root=True)
def modprobe_with_cmdline_blacklist_partly_fixed():
    """A blacklist in modprobe.d and another on the kernel command line,
    which the fix does not edit: the run removes the first, lists the second
    under "Not planned" and reports driver.blacklisted partly fixed, with
    what is left, never fixed; the exit status says a finding remains."""
    r = fixlib.Root()
    r.write("/etc/modprobe.d/blacklist-amdgpu.conf", "blacklist amdgpu\n")
    f = blacklist_facts([("/etc/modprobe.d/blacklist-amdgpu.conf", 1, "blacklist", None)])
    f["driver"]["cmdline"] = "BOOT_IMAGE=/vmlinuz ro quiet modprobe.blacklist=amdgpu"
    r, facts = setup(f, r)
    p = run(["fix", "--root", r.path, "--facts", facts, "--only", "driver.blacklisted", "--apply", "--yes"])
    expect("modprobe_with_cmdline_blacklist_partly_fixed.apply", p.stdout, r, facts)
    rdtest.check("Not planned:\n   modprobe: the kernel command line blacklists amdgpu" in p.stdout, p.stdout)
    rdtest.check(re.search(r"driver\.blacklisted +partly fixed: the kernel command line blacklists amdgpu", p.stdout),
          p.stdout)
    rdtest.check(not re.search(r"driver\.blacklisted +fixed", p.stdout), "never fixed: " + p.stdout)
    rdtest.eq(p.returncode, 1, "a finding remains (stderr %s)" % p.stderr)
    rdtest.check(not r.exists("/etc/modprobe.d/blacklist-amdgpu.conf"), "the modprobe.d part was done")
    rdtest.eq(run(["undo", "--root", r.path]).returncode, 0, "undo")


@rdtest.test
def radeon_to_amdgpu_options():
    f = base_facts()
    dev = f["pci"]["devices"][0]
    dev.update({"device_id": 26520, "driver": "radeon", "marketing_name": "AMD Radeon HD 7970"})
    f["kfd"]["nodes"] = f["kfd"]["nodes"][:1]
    f["drm"]["devices"] = []
    r, facts = setup(f)
    p = run(["fix", "--root", r.path, "--facts", facts, "--only", "gpu.radeon-bound"])
    expect("radeon_to_amdgpu_options", p.stdout, r, facts)
    rdtest.check("+options amdgpu si_support=1\n+options radeon si_support=0\n" in p.stdout, p.stdout)
    rdtest.check("blacklist" not in p.stdout, "never a blacklist")


def gathered_modprobe(r):
    """The driver.modprobe facts rocm-doctor gathers from the root's files."""
    import json
    p = run(["facts", "--json", "--root", r.path])
    rdtest.eq(p.returncode, 0, "facts (stderr %s)" % p.stderr)
    return json.loads(p.stdout)["driver"]["modprobe"]


def modprobe_facts_of(r):
    """The RX 7900 XTX without its driver, with the modprobe.d lines the
    probe finds in the root."""
    f = base_facts()
    f["pci"]["devices"][0]["driver"] = None
    f["driver"] = {"module_present": False, "cmdline": "BOOT_IMAGE=/vmlinuz ro quiet",
                   "modprobe": gathered_modprobe(r)}
    return setup(f, r)[1]


@rdtest.test
def modprobe_crlf_check_and_fix_agree():
    """A CRLF blacklist: kmod reads the module name as "amdgpu\\r", so the
    line blacklists nothing. The check does not report driver.blacklisted
    and says why in the evidence; the fix has nothing to do and says so.
    The same line with LF is reported and fixed."""
    import json
    r = fixlib.Root()
    r.write("/etc/modprobe.d/crlf.conf", "# from a Windows editor\r\nblacklist amdgpu\r\n")
    rdtest.eq([(m["file"], m["line"], m["directive"], m["module"]) for m in gathered_modprobe(r)],
       [("/etc/modprobe.d/crlf.conf", 2, "blacklist", "amdgpu\r")], "the line as kmod reads it")
    facts = modprobe_facts_of(r)
    c = json.loads(run(["check", "--facts", facts, "--json"]).stdout)
    ids = {f["id"]: f for f in c["findings"]}
    rdtest.check("driver.blacklisted" not in ids, "no blacklist: %s" % sorted(ids))
    rdtest.check('/etc/modprobe.d/crlf.conf:2: "blacklist amdgpu" does nothing: the line ends in a carriage return (a '
          'Windows line ending), so kmod reads the module name as "amdgpu\\r"' in ids["driver.not-loaded"]["evidence"],
          ids["driver.not-loaded"]["evidence"])
    p = plan(r, facts, "--only", "modprobe")
    expect("modprobe_crlf_check_and_fix_agree", p.stdout, r, facts)
    rdtest.eq((p.returncode, p.stdout), (0, "Nothing planned in this root: 1 not planned (below).\n\nNot planned:\n   modprobe: /etc/modprobe.d/crlf.conf:2: "
       "\"blacklist amdgpu\" ends in a carriage return, so kmod reads the module name as \"amdgpu\\r\" and the line "
       "does nothing: left as it is\n"), "fix --only modprobe")
    rdtest.check("modprobe" not in plan(r, facts).stdout, "fix plans nothing for it")
    # the healthy twin: LF, and a space before the CR (kmod stops the word there)
    for text in ("blacklist amdgpu\n", "blacklist amdgpu \r\n"):
        r2 = fixlib.Root()
        r2.write("/etc/modprobe.d/lf.conf", text)
        facts2 = modprobe_facts_of(r2)
        c = json.loads(run(["check", "--facts", facts2, "--json"]).stdout)
        rdtest.check("driver.blacklisted" in [f["id"] for f in c["findings"]], "%r is a blacklist" % text)
        p = plan(r2, facts2, "--only", "driver.blacklisted")
        rdtest.check("   remove /etc/modprobe.d/lf.conf (kept in the journal)\n" in p.stdout, p.stdout)


@rdtest.test
def modprobe_continued_blacklist_disabled():
    """A blacklist continued over two lines is disabled by commenting out
    its first line, which makes the whole logical line a comment."""
    r = fixlib.Root()
    r.write("/etc/modprobe.d/local.conf", "options snd x=1\nblacklist \\\namdgpu\n")
    facts = modprobe_facts_of(r)
    p = plan(r, facts, "--only", "driver.blacklisted")
    expect("modprobe_continued_blacklist_disabled", p.stdout, r, facts)
    rdtest.check("-blacklist \\\n+# disabled by rocm-doctor (undo with rocm-doctor undo): blacklist \\\n amdgpu\n" in p.stdout,
          p.stdout)


# ---- env, APU ----

ENV_FILE = """# generated by rocm-doctor; undo with rocm-doctor undo
# ROCm settings for the GPUs of this host (systemd user sessions).
PYTORCH_ROCM_ARCH=gfx1100
AMDGPU_TARGETS=gfx1100
ROCR_VISIBLE_DEVICES=GPU-2f7c3a4b5d6e7f80
"""


@rdtest.test(root=True)
def apu_never_blacklist_amdgpu():
    """With an iGPU next to the dGPU, the naive fix is `blacklist amdgpu`,
    which kills both: this hides the iGPU from ROCm by UUID instead."""
    r, facts = setup(fixlib.with_igpu(base_facts()))
    before = r.tree()
    p = run(["fix", "--root", r.path, "--facts", facts, "--only", "env,group,modprobe,udev,cmdline",
             "--apply", "--yes"])
    expect("apu_never_blacklist_amdgpu.apply", p.stdout, r, facts)
    rdtest.eq(p.returncode, 0, "apply (stderr %s)" % p.stderr)
    rdtest.eq(r.read("/etc/environment.d/50-rocm-doctor.conf"), ENV_FILE, "environment.d drop-in")
    rdtest.check("export ROCR_VISIBLE_DEVICES='GPU-2f7c3a4b5d6e7f80'\n" in r.read("/etc/profile.d/rocm-doctor.sh"),
          "profile.d drop-in")
    text = r.all_text() + p.stdout
    rdtest.check(not re.search(r"^\s*blacklist\s+amdgpu", text, re.M), "no blacklist amdgpu anywhere")
    rdtest.check("HSA_OVERRIDE_GFX_VERSION=" not in text, "no global override")
    rdtest.eq(run(["fix", "--root", r.path, "--facts", facts, "--only", "env,group,modprobe,udev,cmdline", "--apply",
            "--yes"]).returncode, 0, "apply again")
    rdtest.eq(run(["undo", "--root", r.path]).returncode, 0, "undo")
    rdtest.eq(r.tree(), before, "tree after undo")


@rdtest.test
def env_override_needs_a_finding():
    """No override without a finding that asks for one, whatever the
    configuration allows (the per-node override itself: real_env_*)."""
    f = base_facts()
    f["kfd"]["nodes"][1]["properties"]["gfx_target_version"] = 110002  # RX 7600, gfx1102
    r, facts = setup(f)
    conf(r, "[fix]\nallow_overrides = yes\n")
    p = plan(r, facts, "--only", "env")
    expect("env_override_needs_a_finding", p.stdout, r, facts)
    rdtest.check("PYTORCH_ROCM_ARCH=gfx1102\n" in p.stdout, p.stdout)
    rdtest.check("HSA_OVERRIDE_GFX_VERSION" not in p.stdout, "no override without a finding")


def live_facts(name):
    """The facts of a scenario, gathered inside its testbed, and a copy of
    its root to plan on."""
    root, prefix = testbed(name)
    p = live(prefix, ["facts", "--json", "--root", root])
    rdtest.eq(p.returncode, 0, "facts (stderr %s)" % p.stderr)
    import json
    r = fixlib.Root.at(fixlib.temp_dir("rd-fix-copy."))
    shutil.rmtree(r.path)
    shutil.copytree(root, r.path, symlinks=True)
    return r, json.loads(p.stdout)


@rdtest.test
def cmdline_from_facts():
    """The facts of the MI300X box without iommu=pt, planned with --facts on
    a copy of its root; once the command line has it, nothing to do."""
    r, f = live_facts("mi300x-iommu-no-pt")
    facts = fixlib.write_facts(f, fixlib.temp_dir("rd-fix-facts."))
    p = plan(r, facts, "--only", "tuning.iommu-pt")
    expect("cmdline_from_facts", p.stdout, r, facts)
    rdtest.check("1. cmdline: add iommu=pt to the kernel command line\n   Fixes: tuning.iommu-pt\n" in p.stdout, p.stdout)
    f["driver"]["cmdline"] = f["driver"]["cmdline"].rstrip("\n") + " iommu=pt"
    facts = fixlib.write_facts(f, fixlib.temp_dir("rd-fix-facts."))
    p = plan(r, facts, "--only", "tuning.iommu-pt")
    rdtest.eq(p.stdout, "Nothing to do in this root.\n", "iommu=pt already on the command line")


# ---- cmdline ----

CMDLINE_PLAN = """Plan for ROOT: 1 step

1. cmdline: add iommu=pt to the kernel command line
   write /etc/default/grub.d/50-rocm-doctor-iommu.cfg (mode 0644, root:root)
   run on first boot: update-grub (undo: update-grub)
--- /dev/null
+++ b/etc/default/grub.d/50-rocm-doctor-iommu.cfg
@@ -0,0 +1,3 @@
+# generated by rocm-doctor; undo with rocm-doctor undo
+# Pass-through IOMMU mode for GPU peer-to-peer and RCCL (multi-GPU) traffic.
+GRUB_CMDLINE_LINUX_DEFAULT="${GRUB_CMDLINE_LINUX_DEFAULT} iommu=pt"
   Afterwards: reboot for the new kernel command line to take effect

To carry it out: sudo rocm-doctor fix --apply --root ROOT --facts FACTS --only cmdline
"""


def _cmdline_roundtrip(apply):
    r, facts = setup(base_facts())
    before = r.tree()
    p = run(["fix", "--root", r.path, "--facts", facts, "--only", "cmdline"])
    expect("cmdline_roundtrip", p.stdout, r, facts)
    rdtest.eq(p.stdout.replace(r.path, "ROOT").replace(facts, "FACTS"), CMDLINE_PLAN, "cmdline plan")
    if not apply:
        return
    rdtest.eq(run(["fix", "--root", r.path, "--facts", facts, "--only", "cmdline", "--apply", "--yes"]).returncode, 0,
       "apply")
    rdtest.eq(run(["fix", "--root", r.path, "--facts", facts, "--only", "cmdline", "--apply", "--yes"]).stdout,
       "Nothing to do in this root.\n", "apply again")
    # an edit to our file after the run: undo refuses rather than lose it
    with open(r.p("/etc/default/grub.d/50-rocm-doctor-iommu.cfg"), "a") as f:
        f.write("# local note\n")
    p = run(["undo", "--root", r.path])
    expect("cmdline_roundtrip.undo-refused", p.stderr, r, facts)
    rdtest.eq(p.returncode, 3, "undo refuses")
    rdtest.check("50-rocm-doctor-iommu.cfg changed after run" in p.stderr and "nothing was undone" in p.stderr, p.stderr)
    with open(r.p("/etc/default/grub.d/50-rocm-doctor-iommu.cfg")) as f:
        text = f.read()
    r.write("/etc/default/grub.d/50-rocm-doctor-iommu.cfg", text.replace("# local note\n", ""))
    rdtest.eq(run(["undo", "--root", r.path]).returncode, 0, "undo")
    rdtest.eq(r.tree(), before, "tree after undo")


@rdtest.test
def cmdline_roundtrip_plan():
    """The part of cmdline_roundtrip that needs no root."""
    _cmdline_roundtrip(False)


@rdtest.test(root=True)
def cmdline_roundtrip():
    _cmdline_roundtrip(True)


# ---- apt ----

def gpg(home, *args, stdin=None):
    return subprocess.run(["gpg", "--homedir", home, "--batch", "--no-tty"] + list(args), input=stdin,
                          capture_output=True, check=True)


def make_key(name):
    home = fixlib.temp_dir("rd-gpg.")
    gpg(home, "--passphrase", "", "--quick-gen-key", "%s <%s@example.invalid>" % (name, name), "ed25519", "sign",
        "never")
    out = gpg(home, "--with-colons", "--list-keys").stdout.decode()
    fpr = re.search(r"^fpr:+([0-9A-F]{40}):", out, re.M).group(1)
    armored = os.path.join(home, "key.asc")
    with open(armored, "wb") as f:
        f.write(gpg(home, "--armor", "--export").stdout)
    binary = gpg(home, "--export").stdout
    return fpr, armored, binary


def key_names(fpr, armored, binary):
    """What the expected files say for a key made by make_key."""
    return fixlib.key_names(fpr, binary)


APT_SOURCES = """# generated by rocm-doctor; undo with rocm-doctor undo
# ROCm 6.2.4 from AMD's repository.
Types: deb
URIs: https://repo.radeon.com/rocm/apt/6.2.4
Suites: noble
Components: main
Architectures: amd64
Signed-By: /etc/apt/keyrings/rocm.gpg
"""

APT_PLAN_TAIL = """--- /dev/null
+++ b/etc/apt/sources.list.d/rocm.sources
@@ -0,0 +1,8 @@
+# generated by rocm-doctor; undo with rocm-doctor undo
+# ROCm 6.2.4 from AMD's repository.
+Types: deb
+URIs: https://repo.radeon.com/rocm/apt/6.2.4
+Suites: noble
+Components: main
+Architectures: amd64
+Signed-By: /etc/apt/keyrings/rocm.gpg
--- /dev/null
+++ b/etc/apt/preferences.d/rocm-pin-600
@@ -0,0 +1,5 @@
+# generated by rocm-doctor; undo with rocm-doctor undo
+# AMD's packages win over the distribution's ROCm packages.
+Package: *
+Pin: release o=repo.radeon.com
+Pin-Priority: 600
rename /etc/apt/sources.list.d/rocm.list to /etc/apt/sources.list.d/rocm.list.disabled, content unchanged (66 bytes)
"""


def apt_root(binary_key):
    r = fixlib.Root()
    for d in ("var/lib/dpkg", "var/lib/apt/lists/partial", "var/cache/apt/archives/partial",
              "etc/apt/preferences.d", "etc/apt/apt.conf.d"):
        os.makedirs(r.p(d), exist_ok=True)
    r.write("/var/lib/dpkg/status", "")
    r.write("/etc/apt/sources.list.d/rocm.list", "deb [arch=amd64] https://repo.radeon.com/rocm/apt/5.7 ubuntu main\n")
    r.write("/etc/apt/trusted.gpg.d/rocm.gpg", binary_key)  # what `apt-key add` left
    return r


def apt_cmd(root, *args):
    """Real apt on ROOT, with every option it depends on set here: the host's
    apt.conf.d is never read (APT_CONFIG names this configuration, and Dir
    puts apt.conf.d under ROOT before it is read), and apt writes no binary
    caches (var/cache/apt/*.bin would be left in the root the tests compare
    before and after)."""
    conf = {"Dir": root + "/", "Dir::State::status": root + "/var/lib/dpkg/status",
            "Dir::Cache::pkgcache": "", "Dir::Cache::srcpkgcache": "", "Debug::NoLocking": "1"}
    with tempfile.TemporaryDirectory(prefix="rd-apt-conf.") as d:
        path = os.path.join(d, "apt.conf")
        with open(path, "w") as f:
            for k, v in conf.items():
                f.write('%s "%s";\n' % (k, v))
        env = dict(os.environ, APT_CONFIG=path)
        opts = [x for k, v in conf.items() for x in ("-o", "%s=%s" % (k, v))]
        return subprocess.run([args[0]] + opts + list(args[1:]), capture_output=True, text=True, env=env)


def _apt_roundtrip_real_apt(apply):
    if not shutil.which("gpg") or not shutil.which("apt-get"):
        rdtest.skip("needs gpg and apt")
    fpr, armored, binary = make_key("rocm-test")
    r = apt_root(binary)
    r2, facts = setup(base_facts(), r)
    before = r.tree()
    apt_policy = "[fix]\nrocm_release = 6.2.4\napt_key_fingerprint = %s\n" % fpr
    conf(r, apt_policy)
    before = r.tree()
    opts = ["--only", "apt", "--key-file", armored]
    p = plan(r, facts, *opts)
    expect("apt_roundtrip_real_apt", p.stdout, r, facts, key_names(fpr, armored, binary))
    import hashlib
    head = ("Plan for ROOT: 1 step\n\n1. apt: AMD's apt repository for ROCm 6.2.4 (noble)\n"
            "   write /etc/apt/keyrings/rocm.gpg (mode 0644, root:root)\n"
            "   write /etc/apt/sources.list.d/rocm.sources (mode 0644, root:root)\n"
            "   write /etc/apt/preferences.d/rocm-pin-600 (mode 0644, root:root)\n"
            "   move /etc/apt/sources.list.d/rocm.list aside to /etc/apt/sources.list.d/rocm.list.disabled (kept in "
            "the journal)\n"
            "   move /etc/apt/trusted.gpg.d/rocm.gpg aside to /etc/apt/trusted.gpg.d/rocm.gpg.disabled (kept in the "
            "journal)\n"
            "Binary file /etc/apt/keyrings/rocm.gpg: %d bytes, sha256 %s\n"
            % (len(binary), hashlib.sha256(binary).hexdigest()))
    h = hashlib.sha256(binary).hexdigest()
    tail = ("rename /etc/apt/trusted.gpg.d/rocm.gpg to /etc/apt/trusted.gpg.d/rocm.gpg.disabled, content unchanged "
            "(%d bytes)\n"
            "   Afterwards: run `apt-get update`, then install what you need (for example `apt-get install "
            "rocm`)\n" % len(binary))
    rdtest.check(h, "hash")
    got = p.stdout.replace(r.path, "ROOT").split("\nTo carry it out")[0]
    rdtest.eq(got, head + APT_PLAN_TAIL + tail, "apt plan")
    rdtest.check("apt-key" not in p.stdout, "never apt-key")
    if not apply:
        return
    p = plan(r, facts, "--apply", "--yes", *opts)
    expect("apt_roundtrip_real_apt.apply", p.stdout, r, facts, key_names(fpr, armored, binary))
    rdtest.eq(p.returncode, 0, "apply (stderr %s)" % p.stderr)
    rdtest.eq(r.read("/etc/apt/sources.list.d/rocm.sources"), APT_SOURCES, "sources")
    with open(r.p("/etc/apt/keyrings/rocm.gpg"), "rb") as f:
        rdtest.eq(f.read(), binary, "keyring: the dearmored key")
    # real apt reads what was written
    q = apt_cmd(r.path, "apt-get", "update", "--print-uris")
    rdtest.eq(q.returncode, 0, "apt-get update --print-uris: " + q.stderr)
    rdtest.check("'https://repo.radeon.com/rocm/apt/6.2.4/dists/noble/InRelease'" in q.stdout, q.stdout)
    rdtest.check("5.7" not in q.stdout, "the old one-line source is gone: " + q.stdout)
    q = apt_cmd(r.path, "apt-cache", "policy")
    rdtest.eq((q.returncode, q.stderr), (0, ""), "apt-cache policy parses the pin")
    q = apt_cmd(r.path, "apt-config", "dump")
    rdtest.eq(q.returncode, 0, "apt-config")
    p = plan(r, facts, "--apply", "--yes", *opts)
    rdtest.eq((p.returncode, p.stdout), (0, "Nothing to do in this root.\n"), "apply again")
    rdtest.eq(run(["undo", "--root", r.path]).returncode, 0, "undo")
    rdtest.eq(r.tree(), before, "tree after undo")
    # the graphics and driver repositories, when the configuration asks
    conf(r, apt_policy + "apt_graphics = yes\napt_driver = yes\n")
    p = plan(r, facts, "--apply", "--yes", *opts)
    expect("apt_roundtrip_real_apt.apply-graphics-driver", p.stdout, r, facts, key_names(fpr, armored, binary))
    rdtest.eq(p.returncode, 0, "apply with graphics and driver (stderr %s)" % p.stderr)
    src = r.read("/etc/apt/sources.list.d/rocm.sources")
    # AMD has no graphics repository before ROCm 7.0 (repos.ini): the driver's only
    rdtest.check("graphics/" not in src and
          "\nURIs: https://repo.radeon.com/amdgpu/6.2.4/ubuntu\nSuites: noble\n" in src, src)
    q = apt_cmd(r.path, "apt-get", "update", "--print-uris")
    rdtest.eq(q.returncode, 0, "apt-get: " + q.stderr)
    for uri in ("rocm/apt/6.2.4/dists/noble/InRelease", "amdgpu/6.2.4/ubuntu/dists/noble/InRelease"):
        rdtest.check("'https://repo.radeon.com/%s'" % uri in q.stdout, q.stdout)
    rdtest.eq(run(["undo", "--root", r.path]).returncode, 0, "undo")
    conf(r, apt_policy)
    rdtest.eq(r.tree(), before, "tree after the second undo")


@rdtest.test
def apt_roundtrip_real_apt_plan():
    """The part of apt_roundtrip_real_apt that needs no root."""
    _apt_roundtrip_real_apt(False)


@rdtest.test(root=True)
def apt_roundtrip_real_apt():
    _apt_roundtrip_real_apt(True)


@rdtest.test
def apt_key_downloaded_and_checked():
    """apt_key_url: the key is fetched over https (a local server with a
    throw-away certificate here) and checked before it is planned."""
    for tool in ("gpg", "openssl", "curl"):
        if not shutil.which(tool):
            rdtest.skip("needs " + tool)
    fpr, armored, binary = make_key("rocm-download")
    d = fixlib.temp_dir("rd-https.")
    shutil.copy(armored, os.path.join(d, "rocm.gpg.key"))
    base, cert, stop = fixlib.https_server(d)
    try:
        url = base + "/rocm.gpg.key"
        r, facts = setup(base_facts())
        env = {"CURL_CA_BUNDLE": cert}
        policy = "[fix]\nrocm_release = 6.2.4\napt_key_url = %s\napt_key_fingerprint = %s\n"
        conf(r, policy % (url, fpr))
        p = plan(r, facts, "--only", "apt", env_extra=env)
        expect("apt_key_downloaded_and_checked", p.stdout, r, facts, dict(key_names(fpr, armored, binary), **{base: "https://localhost:PORT"}))
        rdtest.check("Binary file /etc/apt/keyrings/rocm.gpg: %d bytes, sha256 %s\n"
              % (len(binary), __import__("hashlib").sha256(binary).hexdigest()) in p.stdout, p.stdout)
        other = "0" * 24 + "9386B48A1A693C5C"
        conf(r, policy % (url, other))
        p = plan(r, facts, "--only", "apt", env_extra=env)
        expect("apt_key_downloaded_and_checked.other-fingerprint", p.stdout, r, facts, dict(key_names(fpr, armored, binary), **{base: "https://localhost:PORT"}))
        rdtest.check("apt: %s holds key %s, not the expected %s: not installed" % (url, fpr, other) in p.stdout,
              p.stdout)
        conf(r, policy % (url.replace("rocm.gpg.key", "missing"), fpr))
        p = plan(r, facts, "--only", "apt", env_extra=env)
        expect("apt_key_downloaded_and_checked.missing", p.stdout, r, facts, dict(key_names(fpr, armored, binary), **{base: "https://localhost:PORT"}))
        rdtest.check("apt: cannot download the key from" in p.stdout and "404" in p.stdout, p.stdout)
    finally:
        stop()


@rdtest.test
def key_fetched_from_where_the_table_says():
    """No key configured: the key is fetched from rocm/rocm.gpg.key under the
    repository base (a mirror served over HTTPS here, laid out as AMD's) and
    installed only with the pinned fingerprint: the stand-in key passes when
    the configuration names its fingerprint, and is refused against AMD's
    own, which repos.ini pins, naming both."""
    for tool in ("gpg", "openssl", "curl"):
        if not shutil.which(tool):
            rdtest.skip("needs " + tool)
    fpr, armored, binary = make_key("rocm-mirror")
    d = fixlib.temp_dir("rd-https.")
    os.makedirs(os.path.join(d, "radeon", "rocm"))
    shutil.copy(armored, os.path.join(d, "radeon", "rocm", "rocm.gpg.key"))
    base, cert, stop = fixlib.https_server(d)
    try:
        r, facts = setup(base_facts())
        env = {"CURL_CA_BUNDLE": cert}
        mirror = "[repository]\nmirror = %s/radeon\n" % base
        conf(r, "[fix]\nrocm_release = 6.2.4\nkey_fingerprint = %s\n%s" % (fpr, mirror))
        p = plan(r, facts, "--only", "apt", env_extra=env)
        expect("key_fetched_from_where_the_table_says", p.stdout, r, facts, dict(key_names(fpr, armored, binary), **{base: "https://localhost:PORT"}))
        rdtest.check("Binary file /etc/apt/keyrings/rocm.gpg: %d bytes, sha256 %s\n"
              % (len(binary), __import__("hashlib").sha256(binary).hexdigest()) in p.stdout, p.stdout)
        rdtest.check("URIs: %s/radeon/rocm/apt/6.2.4\n" % base in p.stdout, p.stdout)
        conf(r, "[fix]\nrocm_release = 6.2.4\n" + mirror)
        p = plan(r, facts, "--only", "apt", env_extra=env)
        expect("key_fetched_from_where_the_table_says.amd-key", p.stdout, r, facts, dict(key_names(fpr, armored, binary), **{base: "https://localhost:PORT"}))
        rdtest.check("apt: %s/radeon/rocm/rocm.gpg.key holds key %s, not the expected "
              "CA8BB4727A47B4D09B4EE8969386B48A1A693C5C (AMD's, pinned in repos.ini): not installed" % (base, fpr)
              in p.stdout, p.stdout)
        rdtest.check("/etc/apt/keyrings/rocm.gpg" not in p.stdout.split("Not planned")[0], "nothing written: " + p.stdout)
    finally:
        stop()


@rdtest.test
def apt_wrong_key_refused():
    if not shutil.which("gpg"):
        rdtest.skip("needs gpg")
    fpr, armored, binary = make_key("someone-else")
    r, facts = setup(base_facts())
    want = "0" * 24 + "9386B48A1A693C5C"
    conf(r, "[fix]\nrocm_release = 6.2.4\napt_key_fingerprint = %s\n" % want)
    p = plan(r, facts, "--only", "apt", "--key-file", armored)
    expect("apt_wrong_key_refused", p.stdout, r, facts, key_names(fpr, armored, binary))
    rdtest.eq(p.stdout.replace(r.path, "ROOT"), "Nothing planned in this root: 1 not planned (below).\n\nNot planned:\n   apt: %s holds key %s, not "
       "the expected %s: not installed\n" % (armored, fpr, want), "plan")
    junk = os.path.join(fixlib.temp_dir("rd-junk."), "rocm.gpg.key")
    with open(junk, "w") as f:
        f.write("<html>404 Not Found</html>\n")
    p = plan(r, facts, "--only", "apt", "--key-file", junk)
    expect("apt_wrong_key_refused.not-a-key", p.stdout, r, facts, key_names(fpr, armored, binary))
    rdtest.eq(p.stdout.replace(r.path, "ROOT"), "Nothing planned in this root: 1 not planned (below).\n\nNot planned:\n   apt: %s is not an OpenPGP key "
       "file (gpg: no valid OpenPGP data found.)\n" % junk, "plan with a file that holds no key")


@rdtest.test
def apt_needs_release_and_key():
    # The support table picks the release for an RX 7900 XTX on Ubuntu 24.04;
    # without a key nothing is planned.
    r, facts = setup(base_facts())
    p = run(["fix", "--root", r.path, "--facts", facts, "--only", "apt"])
    expect("apt_needs_release_and_key", p.stdout, r, facts)
    rdtest.eq(p.returncode, 1, "nothing planned while the apt finding stays")
    # AMD's key is fetched from where repos.ini says; this machine cannot reach it
    rdtest.check("apt: cannot download the key from https://repo.radeon.com/rocm/rocm.gpg.key" in p.stdout
          and "pass --key-file FILE on a host that cannot reach it" in p.stdout and "rocm_release" not in p.stdout,
          p.stdout)
    # An OS release the table does not know: the release must be configured.
    f = base_facts()
    f["os"]["version_id"] = "23.10"
    f["os"]["version_codename"] = "mantic"
    r, facts = setup(f)
    p = run(["fix", "--root", r.path, "--facts", facts, "--only", "apt"])
    expect("apt_needs_release_and_key.unknown-os", p.stdout, r, facts)
    rdtest.eq(p.returncode, 1, "nothing planned while the apt finding stays")
    rdtest.check("apt: AMD ships no ROCm for ubuntu 23.10; the nearest release of it that AMD ships for is ubuntu 22.04 "
          "(ROCm 7.2.4, whose packages are built for it): choose that with `--release 7.2.4`" in p.stdout, p.stdout)
    conf(r, "[fix]\nrocm_release = 6.2.4\n")
    p = plan(r, facts, "--only", "apt")
    expect("apt_needs_release_and_key.release-set", p.stdout, r, facts)
    rdtest.check("apt: cannot download the key from https://repo.radeon.com/rocm/rocm.gpg.key" in p.stdout, p.stdout)


# ---- safety ----

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
    rdtest.check('"bogus" is neither a fix' in p.stderr, p.stderr)
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


# ---- the diff itself ----

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


# ---- live: the hardware from a umockdev testbed, the OS from its root ----

def testbed(name):
    """Writes scenario `name` and returns (root, command prefix that runs a
    program inside the testbed)."""
    if not TB_RUN:
        rdtest.skip("umockdev is not available")
    d = fixlib.temp_dir("rd-fix-tb.")
    os.chmod(d, 0o755)
    runner = os.path.join(SRC, "..", "scenarios", "run.py")
    out = subprocess.run([sys.executable, runner, name, "--write", d], capture_output=True, text=True,
                         check=True).stdout.split()
    rdtest.check(out[0] == "tb-run" and out[-1] == "CMD", "run.py --write: %s" % out)
    # rocm-doctor's own state goes to /var/lib/rocm-doctor; the tree
    # comparison leaves that directory out, not its parents
    os.makedirs(os.path.join(d, "root", "var", "lib"), exist_ok=True)
    return d + "/root", [TB_RUN] + out[1:-1]


def live(prefix, args, **kw):
    env = {k: v for k, v in os.environ.items() if not k.startswith(("HSA_", "ROCR_", "HIP_", "UMOCKDEV_"))}
    env.update(kw.pop("env_extra", {}))
    return subprocess.run(prefix + [RD] + args, capture_output=True, text=True, env=env, timeout=120)


def _live_group_roundtrip(apply):
    root, prefix = testbed("user-not-in-render")
    r = fixlib.Root.at(root)
    before = r.tree()
    p = live(prefix, ACCESS + ["fix", "--root", root, "--user", "alice"])
    expect("live_group_roundtrip", p.stdout, root)
    rdtest.eq(p.returncode, 1, "plan exit status (stderr %s)" % p.stderr)
    rdtest.check("   add alice to group render: usermod -aG render alice (undo: gpasswd -d alice render)\n" in p.stdout
          and "-video:x:44:\n-render:x:992:\n+video:x:44:alice\n+render:x:992:alice\n" in p.stdout, p.stdout)
    if not apply:
        return
    p = live(prefix, ACCESS + ["fix", "--root", root, "--user", "alice", "--apply", "--yes"])
    expect("live_group_roundtrip.apply", p.stdout, root)
    rdtest.eq(p.returncode, 0, "apply (stderr %s)" % p.stderr)
    rdtest.check(re.search(r"kfd\.no-access +fixed after re-login", p.stdout), p.stdout)
    c = live(prefix, ["check", "--root", root, "--user", "alice", "--json"])
    rdtest.check('"kfd.no-access"' not in c.stdout, "the check passes now: " + c.stdout[-400:])
    p = live(prefix, ACCESS + ["fix", "--root", root, "--user", "alice", "--apply", "--yes"])
    rdtest.eq((p.returncode, p.stdout), (0, "Nothing to do in this root.\n"), "apply again")
    rdtest.eq(run(["undo", "--root", root]).returncode, 0, "undo")
    rdtest.eq(r.tree(), before, "tree after undo")


@rdtest.test
def live_group_roundtrip_plan():
    """The part of live_group_roundtrip that needs no root."""
    _live_group_roundtrip(False)


@rdtest.test(root=True)
def live_group_roundtrip():
    _live_group_roundtrip(True)


def _live_blacklist_roundtrip(apply):
    root, prefix = testbed("blacklisted-etc")
    r = fixlib.Root.at(root)
    before = r.tree()
    p = live(prefix, ["fix", "--root", root, "--only", "driver.blacklisted"])
    expect("live_blacklist_roundtrip", p.stdout, root)
    rdtest.check("1. modprobe: let amdgpu load and drive every AMD GPU\n   Fixes: driver.blacklisted\n"
          "   remove /etc/modprobe.d/blacklist-amdgpu.conf (kept in the journal)\n"
          "   run on first boot: update-initramfs -u (undo: update-initramfs -u)\n"
          "--- a/etc/modprobe.d/blacklist-amdgpu.conf\n+++ /dev/null\n@@ -1,3 +0,0 @@\n" in p.stdout, p.stdout)
    if not apply:
        return
    p = live(prefix, ["fix", "--root", root, "--only", "driver.blacklisted", "--apply", "--yes"])
    expect("live_blacklist_roundtrip.apply", p.stdout, root)
    rdtest.eq(p.returncode, 0, "apply (stderr %s)" % p.stderr)
    rdtest.check(re.search(r"driver\.blacklisted +fixed after reboot", p.stdout), p.stdout)
    rdtest.check(not r.exists("/etc/modprobe.d/blacklist-amdgpu.conf"), "file removed")
    rdtest.eq(live(prefix, ["fix", "--root", root, "--only", "driver.blacklisted", "--apply", "--yes"]).stdout,
       "Nothing to do in this root.\n", "apply again")
    # driver.not-loaded stays until the reboot and has no fix of its own: said so
    p = live(prefix, ["fix", "--root", root])
    expect("live_blacklist_roundtrip.after", p.stdout, root)
    rdtest.check(re.search(r"^\d+ problems? found by the check ha(s|ve) no automatic fix: see `rocm-doctor check`\.$",
                    p.stdout, re.M), p.stdout)
    rdtest.eq(run(["undo", "--root", root]).returncode, 0, "undo")
    rdtest.eq(r.tree(), before, "tree after undo")


@rdtest.test
def live_blacklist_roundtrip_plan():
    """The part of live_blacklist_roundtrip that needs no root."""
    _live_blacklist_roundtrip(False)


@rdtest.test(root=True)
def live_blacklist_roundtrip():
    _live_blacklist_roundtrip(True)


# ---- every fix on the findings of real scenarios, policy from rocm-doctor.conf ----

class Live:
    """A scenario's testbed: its root tree, the command prefix that runs a
    program inside it, and rocm-doctor.conf under the root."""

    def __init__(self, name, conf=None, nodes=None):
        self.name = name
        self.more = {}  # more for fixlib.normalise: a generated key's names
        self.root, self.prefix = testbed(name)
        self.r = fixlib.Root.at(self.root)
        if nodes:
            self.nodes(nodes)
        if conf is not None:
            self.r.write("/etc/rocm-doctor/rocm-doctor.conf", conf)

    def nodes(self, spec):
        """Replaces the --node arguments: {"dev/kfd": "0660:0:0", ...}."""
        out = []
        skip = False
        for i, a in enumerate(self.prefix):
            if skip:
                skip = False
                continue
            if a == "--node" and self.prefix[i + 1].split(":")[0] in spec:
                path = self.prefix[i + 1].split(":")[0]
                out += ["--node", "%s:%s" % (path, spec[path])]
                skip = True
                continue
            out.append(a)
        self.prefix = out

    def expect_name(self, what=None):
        """tests/expected/fix/TEST.SCENARIO[.WHAT]: TEST the test that
        called roundtrip."""
        test = sys._getframe(2).f_code.co_name
        return "%s.%s" % (test, self.name) + ("." + what if what else "")

    def rd(self, *args, env_extra=None):
        return live(self.prefix, list(args) + ["--root", self.root], env_extra=env_extra or {})

    def findings(self, *args):
        import json
        p = self.rd("check", "--json", *args)
        rdtest.check(p.returncode in (0, 1, 2), "check: %s" % p.stderr)
        return {f["id"]: f for f in json.loads(p.stdout)["findings"] if f["severity"] in ("warning", "error")}

    def roundtrip(self, fix_args, want_plan, results, gone, check_args=(), after=None, still=()):
        """plan, apply, apply again, check again, undo: the tree is back."""
        before = self.r.tree()
        f = self.findings(*check_args)
        for fid in gone + list(still):
            rdtest.check(fid in f, "%s before the fix: %s" % (fid, sorted(f)))
        p = self.rd("fix", *fix_args)
        expect(self.expect_name(), p.stdout, self.root, more=self.more)
        rdtest.eq(p.returncode, 1, "plan exit status (stderr %s)" % p.stderr)
        for w in want_plan:
            rdtest.check(w in p.stdout, "plan lacks %r:\n%s" % (w, p.stdout))
        rdtest.eq(self.r.tree(), before, "planning wrote nothing")
        p = self.rd("fix", "--apply", "--yes", *fix_args)
        expect(self.expect_name("apply"), p.stdout, self.root, more=self.more)
        rdtest.eq(p.returncode, 0, "apply (stdout %s, stderr %s)" % (p.stdout, p.stderr))
        for fid, res in results:
            rdtest.check(re.search(r"^   %s +%s$" % (re.escape(fid), res), p.stdout, re.M),
                  "result %s %s:\n%s" % (fid, res, p.stdout))
        applied = self.r.tree()
        p = self.rd("fix", "--apply", "--yes", *fix_args)
        rdtest.eq(p.returncode, 0, "apply again exit status (stderr %s)" % p.stderr)
        rdtest.check(p.stdout.startswith("Nothing to do in this root.\n"), "apply again: " + p.stdout)
        rdtest.eq(self.r.tree(), applied, "apply again changed nothing")
        if after:
            after(self)
        f_after = self.findings(*check_args)
        for fid in gone:
            rdtest.check(fid not in f_after, "%s still reported after the fix: %s" % (fid, f_after.get(fid)))
        rdtest.eq(sorted(set(f_after) - set(f)), [], "problems the fix brought")
        p = run(["undo", "--root", self.root])
        rdtest.eq(p.returncode, 0, "undo (stderr %s)" % p.stderr)
        rdtest.eq(self.r.tree(), before, "tree after undo")
        return applied


@rdtest.test(root=True)
def real_group_user_not_in_render():
    t = Live("user-not-in-render", conf="[fix]\nallowed_fixes = group\n")
    t.roundtrip(["--user", "alice"],
                ["1. group: add alice to render and video\n   Fixes: kfd.no-access, render.no-access\n"],
                [("kfd.no-access", "fixed after re-login"), ("render.no-access", "fixed after re-login")],
                ["kfd.no-access", "render.no-access"], check_args=["--user", "alice"])


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


UDEV_0660 = 'KERNEL=="kfd", GROUP="render", MODE="0660"\n'
UDEV_0666 = 'KERNEL=="kfd", GROUP="render", MODE="0666"\n'
ROOT_ONLY = {"dev/kfd": "0660:0:0", "dev/dri/renderD128": "0660:0:0"}


@rdtest.test(root=True)
def real_udev_group_rule():
    """Nodes that belong to root: a 0660 render rule and alice in render.
    After the reboot (the nodes as the rule makes them) the check passes."""
    t = Live("user-not-in-render", conf="[fix]\nudev_all_users = no\n", nodes=ROOT_ONLY)

    def rebooted(t):
        rdtest.check(UDEV_0660 in t.r.read("/etc/udev/rules.d/70-rocm-doctor-gpu.rules"), "0660 rule")
        t.nodes({"dev/kfd": "0660:0:992", "dev/dri/renderD128": "0660:0:992"})
    t.roundtrip(["--user", "alice"],
                ["1. udev: give /dev/kfd and the render nodes to group render, mode 0660\n",
                 "   add alice to group render: usermod -aG render alice", "+" + UDEV_0660],
                [("kfd.no-access", "fixed after reboot"), ("render.no-access", "fixed after reboot")],
                ["kfd.no-access", "render.no-access"], check_args=["--user", "alice"], after=rebooted)


@rdtest.test(root=True)
def real_udev_all_users_rule():
    t = Live("user-not-in-render", conf="[fix]\nudev_all_users = yes\n", nodes=ROOT_ONLY)

    def rebooted(t):
        t.nodes({"dev/kfd": "0666:0:992", "dev/dri/renderD128": "0666:0:992"})
    applied = t.roundtrip(["--user", "alice"],
                          ["1. udev: give /dev/kfd and the render nodes to group render, mode 0666\n", "+" + UDEV_0666],
                          [("kfd.no-access", "fixed after reboot")], ["kfd.no-access", "render.no-access"],
                          check_args=["--user", "alice"], after=rebooted)
    rdtest.check("etc/group" not in [k for k, v in applied.items() if v != t.r.tree().get(k)] and
          "usermod" not in t.rd("fix", "--user", "alice").stdout, "no group change with the all-users rule")


@rdtest.test(root=True)
def real_modprobe_blacklisted_etc():
    t = Live("blacklisted-etc", conf="[fix]\nallowed_fixes = modprobe\n")
    t.roundtrip([], ["1. modprobe: let amdgpu load and drive every AMD GPU\n   Fixes: driver.blacklisted\n"],
                [("driver.blacklisted", "fixed after reboot")], ["driver.blacklisted"])


@rdtest.test(root=True)
def real_cmdline_mi300x_iommu():
    t = Live("mi300x-iommu-no-pt", conf="")
    t.roundtrip([], ["1. cmdline: add iommu=pt to the kernel command line\n   Fixes: tuning.iommu-pt\n",
                     "   run on first boot: update-grub (undo: update-grub)\n",
                     '+GRUB_CMDLINE_LINUX_DEFAULT="${GRUB_CMDLINE_LINUX_DEFAULT} iommu=pt"\n'],
                [("tuning.iommu-pt", "fixed after reboot")], [],
                still=["tuning.iommu-pt"])


@rdtest.test(root=True)
def real_env_apu_plus_dgpu():
    t = Live("apu-plus-dgpu", conf="")
    t.roundtrip([], ["1. env: ROCm environment for the GPUs present\n   Fixes: apu.igpu-conflict\n",
                     "+ROCR_VISIBLE_DEVICES=GPU-a1ffc9d1799c317f\n",
                     "+export ROCR_VISIBLE_DEVICES='GPU-a1ffc9d1799c317f'\n"],
                [("apu.igpu-conflict", "fixed after re-login")], ["apu.igpu-conflict"])


@rdtest.test(root=True)
def real_env_pytorch_arch_mismatch():
    t = Live("env-pytorch-arch-mismatch", conf="")
    t.roundtrip([], ["   Fixes: env.pytorch-arch-mismatch\n", "+PYTORCH_ROCM_ARCH=gfx1030\n",
                     '-PYTORCH_ROCM_ARCH="gfx90a;gfx942"\n+# disabled by rocm-doctor (undo with rocm-doctor undo): '
                     'PYTORCH_ROCM_ARCH="gfx90a;gfx942"\n'],
                [("env.pytorch-arch-mismatch", "fixed after re-login")], ["env.pytorch-arch-mismatch"])


@rdtest.test
def real_env_wrong_family_override_off():
    """Without allow_overrides: no per-node value, said why."""
    t = Live("env-override-per-node-wrong-family", conf="")
    p = t.rd("fix")
    expect("real_env_wrong_family_override_off", p.stdout, t.root)
    rdtest.check("env: no HSA_OVERRIDE_GFX_VERSION for gfx1030: overrides are off (allow_overrides in the configuration)"
          in p.stdout and "+HSA_OVERRIDE_GFX_VERSION" not in p.stdout, p.stdout)


@rdtest.test(root=True)
def real_env_wrong_family_override():
    """The cross-family line is commented out either way; a per-node value
    of the GPU's own family only when allow_overrides = yes."""
    t = Live("env-override-per-node-wrong-family", conf="[fix]\nallow_overrides = yes\n")
    applied_env = {}

    def look(t):
        applied_env["text"] = t.r.read("/etc/profile.d/rocm-doctor.sh") + t.r.read("/etc/profile.d/rocm.sh")
    t.roundtrip([], ["   Fixes: arch.override-wrong-family\n", "+HSA_OVERRIDE_GFX_VERSION_1=10.3.0\n",
                     "+# disabled by rocm-doctor (undo with rocm-doctor undo): export HSA_OVERRIDE_GFX_VERSION_1=11.0.0\n"],
                [("arch.override-wrong-family", "fixed after re-login")], ["arch.override-wrong-family"], after=look)
    rdtest.check("export HSA_OVERRIDE_GFX_VERSION_1='10.3.0'\n" in applied_env["text"], applied_env["text"])
    rdtest.check(not re.search(r"^(export )?HSA_OVERRIDE_GFX_VERSION=", applied_env["text"], re.M), "never a global override")
    t = Live("env-override-wrong-family", conf="[fix]\nallow_overrides = yes\n")
    t.roundtrip([], ["-HSA_OVERRIDE_GFX_VERSION=10.3.0\n+# disabled by rocm-doctor (undo with rocm-doctor undo): "
                     "HSA_OVERRIDE_GFX_VERSION=10.3.0\n", "+HSA_OVERRIDE_GFX_VERSION_1=11.0.0\n"],
                [("arch.override-wrong-family", "fixed after re-login")], ["arch.override-wrong-family"])


@rdtest.test
def real_env_no_kernels_override_off():
    """Without allow_overrides: nothing planned, said why."""
    t = Live("rx6700xt-gfx1031", conf="")
    p = t.rd("fix")
    expect("real_env_no_kernels_override_off", p.stdout, t.root)
    rdtest.eq(p.returncode, 0, "nothing planned without allow_overrides")
    rdtest.check("Nothing planned in this root: 1 not planned (below).\n\nNot planned:\n   env: no HSA_OVERRIDE_GFX_VERSION for gfx1031: overrides are "
          "off (allow_overrides in the configuration)\n" in p.stdout, p.stdout)


@rdtest.test(root=True)
def real_env_no_kernels_override():
    """RX 6700 XT (gfx1031) and a ROCm whose rocBLAS has gfx1030 kernels: a
    per-node 10.3.0 only when allow_overrides = yes, and the build targets
    name the code the GPU then runs."""
    t = Live("rx6700xt-gfx1031", conf="[fix]\nallow_overrides = yes\n")
    t.roundtrip([], ["   Fixes: arch.no-kernels\n", "+HSA_OVERRIDE_GFX_VERSION_1=10.3.0\n", "+PYTORCH_ROCM_ARCH=gfx1030\n",
                     "+export HSA_OVERRIDE_GFX_VERSION_1='10.3.0'\n"],
                [("arch.no-kernels", "fixed after re-login")], ["arch.no-kernels"])


def apt_conf(armored, fpr, extra=""):
    return "[fix]\napt_key_file = %s\napt_key_fingerprint = %s\n%s" % (armored, fpr, extra)


def apt_check_real(t, uris, absent=()):
    q = apt_cmd(t.root, "apt-get", "update", "--print-uris")
    rdtest.eq(q.returncode, 0, "apt-get update --print-uris: " + q.stderr)
    for u in uris:
        rdtest.check("'https://repo.radeon.com/%s/InRelease'" % u in q.stdout, q.stdout)
    for u in absent:
        rdtest.check(u not in q.stdout, q.stdout)
    q = apt_cmd(t.root, "apt-cache", "policy")
    rdtest.eq(q.returncode, 0, "apt-cache policy: " + q.stderr)
    rdtest.check("600 https://repo.radeon.com" in q.stdout or "release o=repo.radeon.com" in q.stdout or q.stderr == "",
          q.stdout)


def apt_live(name, extra=""):
    if not shutil.which("gpg") or not shutil.which("apt-get"):
        rdtest.skip("needs gpg and apt")
    fpr, armored, binary = make_key(name)
    t = Live(name, conf=apt_conf(armored, fpr, extra))
    t.more = key_names(fpr, armored, binary)
    for d in ("var/lib/apt/lists/partial", "var/cache/apt/archives/partial", "etc/apt/apt.conf.d"):
        os.makedirs(t.r.p(d), exist_ok=True)
    if not t.r.exists("/var/lib/dpkg/status"):
        t.r.write("/var/lib/dpkg/status", "")
    return t, binary


@rdtest.test(root=True)
def real_apt_key_legacy():
    """apt-key's key and two one-line sources without signed-by: the key
    goes to /etc/apt/keyrings, the sources become one deb822 file of the
    same release (6.2.4) with the driver repository kept, apt-key's file is
    moved aside."""
    t, binary = apt_live("apt-key-legacy")
    t.roundtrip([], ["1. apt: AMD's apt repository for ROCm 6.2.4 (noble)\n",
                     "   move /etc/apt/trusted.gpg.d/rocm.asc aside to /etc/apt/trusted.gpg.d/rocm.asc.disabled (kept in "
                     "the journal)\n",
                     "+URIs: https://repo.radeon.com/amdgpu/6.2.4/ubuntu\n"],
                [("apt.no-signed-by", "fixed"), ("apt.key-deprecated", "fixed")],
                ["apt.no-signed-by", "apt.key-deprecated"],
                after=lambda t: apt_check_real(t, ["rocm/apt/6.2.4/dists/noble", "amdgpu/6.2.4/ubuntu/dists/noble"]))


@rdtest.test(root=True)
def real_apt_suite_mismatch():
    t, binary = apt_live("apt-suite-mismatch")
    # set right where they are: only the suite of each line changes
    t.roundtrip([], ["1. apt: AMD's apt repository for ROCm 6.2.4 (noble)\n",
                     "-deb [arch=amd64 signed-by=/etc/apt/keyrings/rocm.gpg] https://repo.radeon.com/rocm/apt/6.2.4 "
                     "jammy main\n+deb [arch=amd64 signed-by=/etc/apt/keyrings/rocm.gpg] "
                     "https://repo.radeon.com/rocm/apt/6.2.4 noble main\n"],
                [("apt.suite-mismatch", "fixed")], ["apt.suite-mismatch"],
                after=lambda t: apt_check_real(t, ["rocm/apt/6.2.4/dists/noble"], absent=["jammy", "/ubuntu/dists/ubuntu"]))


@rdtest.test(root=True)
def real_apt_pin_missing():
    t, binary = apt_live("apt-pin-missing")
    t.roundtrip([], ["   write /etc/apt/preferences.d/rocm-pin-600 (mode 0644, root:root)\n"],
                [("apt.pin-missing", "fixed")], ["apt.pin-missing"],
                after=lambda t: apt_check_real(t, ["rocm/apt/6.2.4/dists/noble"]))


@rdtest.test
def real_apt_rocm_not_installed():
    """rocm.not-installed names the apt fix; on a host whose repository is
    already set up as AMD's guide does it (rocm.list and amdgpu.list of
    6.2.4, the keyring and the pin), the fix leaves those files alone and
    says that setup installs ROCm from them; the finding stays."""
    t, binary = apt_live("rocm-not-installed")
    before = t.r.tree()
    p = t.rd("fix")
    expect("real_apt_rocm_not_installed", p.stdout, t.root)
    rdtest.eq(p.returncode, 0, "plan (stderr %s)" % p.stderr)
    rdtest.check(p.stdout.startswith("Nothing planned in this root: 1 not planned (below).\n"), p.stdout)
    rdtest.check("apt: AMD's apt repository for ROCm 6.2.4 (noble) is already set up here; `rocm-doctor setup` installs "
          "ROCm from it" in p.stdout, p.stdout)
    rdtest.eq(t.r.tree(), before, "nothing written")
    apt_check_real(t, ["rocm/apt/6.2.4/dists/noble", "amdgpu/6.2.4/ubuntu/dists/noble"])


if __name__ == "__main__":
    sys.exit(rdtest.main())
