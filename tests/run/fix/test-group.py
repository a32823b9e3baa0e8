#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The group fix (fixes/group.c): the user added to the GPU nodes' groups
with usermod, taken out again with gpasswd on undo.

How each fix is tested: fixrun.py.

Usage: test-group.py ROCM_DOCTOR FIX_DRIVER SOURCE_DIR [TB_RUN]"""
import os
import re
import subprocess
import sys

from fixrun import ACCESS, base_facts, expect, fixlib, Live, live, rdtest, run, setup, testbed


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
    expect("group_plan_json", p.stdout, r, facts)
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


@rdtest.plan_and_root
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


@rdtest.test(root=True)
def real_group_user_not_in_render():
    t = Live("user-not-in-render", conf="[fix]\nallowed_fixes = group\n")
    t.roundtrip(["--user", "alice"],
                ["1. group: add alice to render and video\n   Fixes: kfd.no-access, render.no-access\n"],
                [("kfd.no-access", "fixed after re-login"), ("render.no-access", "fixed after re-login")],
                ["kfd.no-access", "render.no-access"], check_args=["--user", "alice"])


if __name__ == "__main__":
    sys.exit(rdtest.main())
