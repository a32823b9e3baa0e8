#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The root rule of the Python tests: a script that declares a root-only
test (@rdtest.test(root=...) or @rdtest.plan_and_root, tests/lib/rdtest.py)
is registered in meson in suite 'root' with RDTEST_ROOT=only, so that those
tests run where the suite runs as root and are skipped and counted
elsewhere; and no script without one is in that suite.

Usage: test-root-suite.py SOURCE_ROOT"""
import json
import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import rdtest  # noqa: E402

ROOT, BUILD = sys.argv[1], sys.argv[2]
DECLARES_ROOT = re.compile(r"^\s*@?rdtest\.(test\([^)]*\broot=(?!False)|plan_and_root\b)", re.M)


def scripts():
    """The Python test scripts under tests/, relative to tests/ (but the
    harness and its own test, in tests/lib)."""
    out = []
    for d, _, files in os.walk(os.path.join(ROOT, "tests")):
        if os.path.relpath(d, os.path.join(ROOT, "tests")) == "lib":
            continue
        out += [os.path.relpath(os.path.join(d, f), os.path.join(ROOT, "tests")) for f in files if f.endswith(".py")]
    return sorted(out)


def registrations():
    """(test name, script, suites, RDTEST_ROOT) for each meson test that runs
    a Python script of tests/, from meson's own account of its tests
    (meson-info/intro-tests.json in the build directory)."""
    with open(os.path.join(BUILD, "meson-info", "intro-tests.json")) as f:
        tests = json.load(f)
    tests_dir = os.path.realpath(os.path.join(ROOT, "tests"))
    out = []
    for t in tests:
        suites = {s.split(":", 1)[-1] for s in t.get("suite", [])}
        for arg in t.get("cmd", []):
            if not isinstance(arg, str) or not arg.endswith(".py"):
                continue
            path = os.path.realpath(arg if os.path.isabs(arg) else os.path.join(t.get("workdir") or BUILD, arg))
            if path.startswith(tests_dir + os.sep):
                out.append((t["name"], os.path.relpath(path, tests_dir), suites, t.get("env", {}).get("RDTEST_ROOT")))
                break
    return out


@rdtest.test
def the_rule_finds_the_registrations():
    regs = registrations()
    rdtest.check(len(regs) >= 30, "at least 30 registrations of Python tests found", len(regs))
    rdtest.check(any(s == "run/daemon/test-nfd-lifecycle.py" for _, s, _, _ in regs),
                 "daemon-nfd-lifecycle's script is among them", sorted({s for _, s, _, _ in regs}))


@rdtest.test
def a_script_with_root_tests_runs_them_in_suite_root():
    regs = registrations()
    for script in scripts():
        with open(os.path.join(ROOT, "tests", script)) as f:
            declares = bool(DECLARES_ROOT.search(f.read()))
        mine = [(n, suites, mode) for n, s, suites, mode in regs if s == script]
        shown = "\n".join("%s: suites %s, RDTEST_ROOT=%s" % (n, sorted(su), m) for n, su, m in mine)
        if declares:
            rdtest.check(any("root" in su and m == "only" for _, su, m in mine),
                         "%s has root-only tests: registered in suite 'root' with RDTEST_ROOT=only" % script,
                         shown or "not registered")
            rdtest.check(all(m in ("only", "none") for _, _, m in mine),
                         "%s: each registration says RDTEST_ROOT (only or none)" % script, shown)
        for n, su, m in mine:
            rdtest.check(("root" in su) == (m == "only"),
                         "%s: in suite 'root' exactly when RDTEST_ROOT=only" % n, shown)
        if not declares:
            rdtest.check(not any("root" in su for _, su, _ in mine),
                         "%s has no root-only test: not in suite 'root'" % script, shown)


sys.exit(rdtest.main())
