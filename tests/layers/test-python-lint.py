#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The project's Python (tests, benchmarks, man/assemble.py, tools) passes
pyflakes: no unused import, no undefined name, no loop variable shadowing an
import. pyflakes reads the files; it runs none of them.

Usage: test-python-lint.py SOURCE_ROOT"""
import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import rdtest  # noqa: E402

ROOT = os.path.abspath(sys.argv[1]) if len(sys.argv) > 1 else rdtest.SOURCE_ROOT
PYFLAKES = shutil.which("pyflakes3") or shutil.which("pyflakes")
SKIP_DIRS = {".git", "__pycache__", "subprojects"}


def python_files(top):
    """The .py files under top; build folders (build*/ at the top, and any
    meson made) left out."""
    out = []
    for d, dirs, files in os.walk(top):
        dirs[:] = sorted(x for x in dirs
                         if x not in SKIP_DIRS and not (d == top and x.startswith("build"))
                         and not os.path.exists(os.path.join(d, x, "meson-info")))
        out += [os.path.join(d, f) for f in sorted(files) if f.endswith(".py")]
    return out


def lint(paths):
    """pyflakes' complaints about paths, one per line."""
    p = subprocess.run([PYFLAKES, *paths], capture_output=True, text=True)
    return [line for line in (p.stdout + p.stderr).splitlines() if line.strip()]


@rdtest.test
def rule_can_fail():
    if not PYFLAKES:
        rdtest.skip("pyflakes3 is not installed (.ci/packages/test.txt)")
    with tempfile.TemporaryDirectory() as d:
        bad = os.path.join(d, "bad.py")
        with open(bad, "w") as f:
            f.write("import os\nimport sys\n\nfor sys in range(2):\n    print(undefined_name)\n")
        got = [line.split(":", 3)[-1].strip() for line in lint([bad])]
        rdtest.eq(sorted(got), sorted(["'os' imported but unused",
                                       "import 'sys' from line 2 shadowed by loop variable",
                                       "undefined name 'undefined_name'"]),
                  "an unused import, a shadowing loop variable and an undefined name are reported")


@rdtest.test
def project_python_is_clean():
    if not PYFLAKES:
        rdtest.skip("pyflakes3 is not installed (.ci/packages/test.txt)")
    files = python_files(ROOT)
    rdtest.check(len(files) >= 50, "the project's Python files are found (%d)" % len(files))
    rdtest.eq(lint(files), [], "pyflakes finds nothing")


sys.exit(rdtest.main())
