#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Exit statuses that describe the system: fix --apply and undo carry the
run out, and a report that cannot be written (standard output on
/dev/full) does not turn that into "nothing was applied" (3).

    test-exit.py ROCM_DOCTOR SOURCE_DIR"""
import json
import os
import subprocess
import sys

from fixlib import rdtest, Root, load_facts, temp_dir, write_facts

RD, SRC = sys.argv[1], sys.argv[2]


def rd(args, stdout):
    env = dict(os.environ, NO_COLOR="1", LC_ALL="C")
    with open(stdout, "w") as out:
        return subprocess.run([RD] + args, stdout=out, stderr=subprocess.PIPE, text=True, env=env)


def journal_state(r):
    d = r.p("/var/lib/rocm-doctor/journal")
    runs = sorted(os.listdir(d))
    with open(os.path.join(d, runs[-1], "journal.json")) as f:
        return runs[-1], json.load(f)["state"]


def scenario(fmt):
    if not os.path.exists("/dev/full"):
        rdtest.skip("needs /dev/full")
    r = Root()
    facts = write_facts(load_facts(SRC), temp_dir("rd-exit-facts."))
    base = ["--root", r.path, "--facts", facts, "--user", "alice", "--only", "group"] + fmt
    p = rd(["fix", "--apply", "--yes"] + base, "/dev/full")
    run_id, state = journal_state(r)
    rdtest.eq(state, "applied", "the run was applied")
    rdtest.eq(p.returncode, 0, "fix --apply: the status says what the system is like (stderr %s)" % p.stderr)
    rdtest.check("cannot write to standard output; run %s was applied all the same" % run_id in p.stderr, p.stderr)
    p = rd(["undo", "--root", r.path] + fmt, "/dev/full")
    rdtest.eq(journal_state(r), (run_id, "undone"), "the run was undone")
    rdtest.eq(p.returncode, 0, "undo (stderr %s)" % p.stderr)
    rdtest.check("cannot write to standard output; run %s was undone all the same" % run_id in p.stderr, p.stderr)


@rdtest.test(root=True)
def apply_and_undo_text_on_dev_full():
    scenario([])


@rdtest.test(root=True)
def apply_and_undo_json_on_dev_full():
    scenario(["--json"])


if __name__ == "__main__":
    sys.exit(rdtest.main())
