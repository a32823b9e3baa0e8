#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The beds library (tests/lib/beds.py) the fix, setup, fleet and scenario
tests share: a Root holds exactly its users and groups; a tree snapshot
names every kind of entry (a fifo by its numbers, never opened) and sees
every change of content, mode and link target, and leaves out the folders
it is told to; facts files read and written back are the same; a scenario
written by run.py --write has its root and the tb-run arguments.

Usage: test-beds.py"""
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import beds  # noqa: E402
import rdtest  # noqa: E402


@rdtest.test
def root_has_its_users_and_groups():
    r = beds.Root()
    rdtest.eq(r.read("/etc/passwd"), beds.PASSWD, "passwd")
    rdtest.eq(r.read("/etc/group"), beds.GROUP, "group")
    rdtest.eq(oct(os.stat(r.p("/etc/shadow")).st_mode & 0o777), "0o640", "shadow's mode")
    rdtest.eq(sorted(beds.tree(r.path)), ["etc", "etc/group", "etc/gshadow", "etc/passwd", "etc/shadow", "usr",
                                          "usr/lib", "var", "var/lib"], "what a new root holds")
    rdtest.eq(beds.Root.at(r.path).read("/etc/gshadow"), beds.GSHADOW, "Root.at reads the same tree")


@rdtest.test
def tree_sees_every_change():
    r = beds.Root()
    r.write("/etc/a.conf", "one\n")
    os.symlink("a.conf", r.p("/etc/link"))
    os.mkfifo(r.p("/etc/fifo"))
    before = r.tree()
    rdtest.eq(before["etc/fifo"][0], "node", "a fifo is named by its numbers, not read")
    rdtest.eq(before["etc/link"], ("link", "a.conf"), "a link by its target")
    r.write("/etc/a.conf", "two\n")
    rdtest.check(r.tree()["etc/a.conf"] != before["etc/a.conf"], "a change of content is seen")
    r.write("/etc/a.conf", "one\n", 0o600)
    rdtest.check(r.tree()["etc/a.conf"] != before["etc/a.conf"], "a change of mode is seen")
    r.write("/etc/a.conf", "one\n")
    os.unlink(r.p("/etc/link"))
    os.symlink("b.conf", r.p("/etc/link"))
    rdtest.eq(r.tree()["etc/link"], ("link", "b.conf"), "a change of link target is seen")


@rdtest.test
def tree_leaves_out_the_journal_and_what_it_is_told():
    r = beds.Root()
    r.write("/var/lib/rocm-doctor/journal/1/journal.json", "{}")
    r.write("/var/cache/apt/pkgcache.bin", "x")
    got = beds.tree(r.path)
    rdtest.check("var/lib" in got and not any(k.startswith("var/lib/rocm-doctor") for k in got),
                 "the journal is left out, its parent kept", sorted(got))
    rdtest.check("var/cache/apt/pkgcache.bin" in got, "what skip does not name is kept")
    got = beds.tree(r.path, skip=("var/cache/apt", "var/lib/rocm-doctor"))
    rdtest.eq([k for k in got if k.startswith("var/cache")], ["var/cache"], "a skipped folder and what it holds")


@rdtest.test
def facts_written_read_back():
    f = beds.load_facts()
    rdtest.check("pci" in f and "access" in f, "the RX 7900 XTX facts", sorted(f))
    path = beds.write_facts(f, beds.temp_dir("rd-beds-facts."))
    with open(path) as fp:
        rdtest.eq(json.load(fp), f, "the facts file holds what was written")


@rdtest.test
def scenario_written_by_run_py():
    d = beds.temp_dir("rd-beds-tb.")
    root, args = beds.write_scenario("access-nodes", d)
    rdtest.eq(root, d + "/root", "the scenario's root")
    rdtest.check(os.path.isdir(os.path.join(root, "var", "lib")), "the root has /var/lib for the tool's state")
    rdtest.check(args and "tb-run" not in args and "CMD" not in args, "the tb-run arguments alone", args)


if __name__ == "__main__":
    sys.exit(rdtest.main())
