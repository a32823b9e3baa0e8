#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The root rule of the Python tests: a script that declares a root-only
test (@rdtest.test(root=...), tests/lib/rdtest.py) is registered in meson
in suite 'root' with RDTEST_ROOT=only, so that those tests run where the
suite runs as root and are skipped and counted elsewhere; and no script
without one is in that suite.

Usage: test-root-suite.py SOURCE_ROOT"""
import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import rdtest  # noqa: E402

ROOT = sys.argv[1]
DECLARES_ROOT = re.compile(r"^\s*@?rdtest\.test\([^)]*\broot=(?!False)", re.M)


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
    """(meson.build, script, the text of its test() call) for each test()
    call that names a script, directly or through a variable of files()."""
    out = []
    for d, _, files in os.walk(os.path.join(ROOT, "tests")):
        if "meson.build" not in files:
            continue
        path = os.path.join(d, "meson.build")
        text = open(path).read()
        names = {v: f for v, f in re.findall(r"^\s*(\w+)\s*=\s*\[?\s*files\('([^']+\.py)'\)", text, re.M)}
        for _ in range(2):  # a variable of a list that holds one of those: e2e_args = [explain_e2e, ...]
            for v, rhs in re.findall(r"^\s*(\w+)\s*\+?=\s*(.*)$", text, re.M):
                for known, f in list(names.items()):
                    if v not in names and re.search(r"\b%s\b" % known, rhs):
                        names[v] = f
        for call in re.finditer(r"^\s*test\((.*?)\)\n(?=\S|\s*(?:endif|endforeach|test\(|#|$))", text, re.M | re.S):
            body = call.group(1)
            named = re.findall(r"files\('([^']+\.py)'\)", body)
            named += [f for v, f in names.items() if re.search(r"\b%s\b" % v, body)]
            for f in named:
                out.append((os.path.relpath(path, ROOT), os.path.relpath(os.path.join(d, f), os.path.join(ROOT, "tests")),
                            body))
    return out


@rdtest.test
def the_rule_finds_the_registrations():
    regs = registrations()
    rdtest.check(len(regs) >= 30, "at least 30 registrations of Python tests found", len(regs))
    rdtest.check(any(s == "run/daemon/test-nfd-lifecycle.py" for _, s, _ in regs),
                 "daemon-nfd-lifecycle's script is among them", sorted({s for _, s, _ in regs}))


@rdtest.test
def a_script_with_root_tests_runs_them_in_suite_root():
    regs = registrations()
    for script in scripts():
        text = open(os.path.join(ROOT, "tests", script)).read()
        mine = [(m, b) for m, s, b in regs if s == script]
        in_root = [b for _, b in mine if "'root'" in b]
        if DECLARES_ROOT.search(text):
            rdtest.check(in_root and all("root_only" in b or "RDTEST_ROOT" in b for b in in_root),
                         "%s has root-only tests: registered in suite 'root' with RDTEST_ROOT=only" % script,
                         "\n".join(b for _, b in mine) or "not registered")
        elif mine:
            rdtest.check(not in_root, "%s has no root-only test: not in suite 'root'" % script,
                         "\n".join(in_root))


sys.exit(rdtest.main())
