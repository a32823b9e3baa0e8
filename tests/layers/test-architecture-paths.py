#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""ARCHITECTURE.md stays true: every descriptor field it names in backticks
(`.needs`) is a field of a struct in a header under src/, and every file
and folder it names in backticks exists: from the source root (`src/cli/main.c`,
`tests/unit/probes/test-<area>.c`) or, as the text names a file of the
folder it speaks of (`check.c`, `probes/test-apt.c` under tests/unit/,
`kernels/`), below some folder of the tree. `<word>` and `*` are
wildcards: at least one file must match. A trailing "/" names a folder; a
name with neither "/" at its end nor a file ending may be either.

Usage: test-architecture-paths.py SOURCE_ROOT"""
import fnmatch
import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import rdtest  # noqa: E402

ROOT = os.path.abspath(sys.argv[1]) if len(sys.argv) > 1 else rdtest.SOURCE_ROOT
FILE_END = re.compile(r"\.(c|h|py|md|ini|scd|txt|json|build|sh|in)$")
NAME = re.compile(r"^[\w.<>*/-]+$")


def tree(root):
    """Every file and folder below root, relative, folders ending in "/";
    build folders (a meson-private inside) and .git left out."""
    out = []
    for d, dirs, files in os.walk(root):
        dirs[:] = sorted(x for x in dirs if x != ".git" and not os.path.isdir(os.path.join(d, x, "meson-private")))
        rel = os.path.relpath(d, root)
        for x in dirs:
            out.append(os.path.normpath(os.path.join(rel, x)) + "/")
        for x in files:
            out.append(os.path.normpath(os.path.join(rel, x)))
    return out


def named_paths(text):
    """The backticked names of text that are paths (no commands, options,
    symbols or absolute paths)."""
    out = []
    for tok in re.findall(r"`([^`\n]+)`", text):
        if not NAME.match(tok) or tok[0] in "-./#" or tok.endswith("()"):
            continue
        if "/" in tok or FILE_END.search(tok):
            out.append(tok)
    return out


def named_fields(text):
    """The backticked descriptor fields of text (`.needs`)."""
    return re.findall(r"`\.([a-z_][a-z0-9_]*)`", text)


def struct_fields(root):
    """The member names declared in the headers below root (a line
    `type name;`, `type *name;`, `type (*name)(...);` or with an array)."""
    out = set()
    pointer = re.compile(r"^\s+[\w\s*]+\(\s*\*\s*(\w+)\s*\)\s*\(")
    member = re.compile(r"^\s+[\w\s*]+?[\s*](\w+)\s*(\[[^]]*\])?\s*;")
    for d, dirs, files in os.walk(root):
        dirs[:] = [x for x in dirs if x != ".git" and not os.path.isdir(os.path.join(d, x, "meson-private"))]
        for x in files:
            if x.endswith(".h"):
                with open(os.path.join(d, x), encoding="utf-8", errors="replace") as f:
                    for line in f:
                        m = pointer.match(line) or member.match(line)
                        if m:
                            out.add(m.group(1))
    return out


def missing(names, paths):
    """The names that match no path of the tree."""
    out = []
    for name in names:
        pattern = re.sub(r"<[\w-]+>", "*", name)
        folder = pattern.endswith("/")
        either = not folder and not FILE_END.search(pattern)
        found = False
        for p in paths:
            if not either and folder != p.endswith("/"):
                continue
            p = p.rstrip("/") if either else p
            if fnmatch.fnmatchcase(p, pattern) or fnmatch.fnmatchcase(p, "*/" + pattern):
                found = True
                break
        if not found:
            out.append(name)
    return out


@rdtest.test
def rule_can_fail():
    paths = ["src/", "src/cli/", "src/cli/verb-fix.c", "tests/", "tests/unit/", "tests/unit/probes/",
             "tests/unit/probes/test-pci.c", "src/runtime/", "src/runtime/kernels/"]
    rdtest.eq(missing(["src/cli/verb-<name>.c", "probes/test-pci.c", "kernels/", "verb-fix.c", "src/cli"], paths), [],
              "patterns, names under a folder and bare names are found")
    rdtest.eq(missing(["src/cli/verb-<name>.h", "src/cli/gone.c", "unit/probes/test-kfd.c", "src/runtime",
                       "cli/verb-fix.c/", "probes/test-pci.c"], paths[:7]),
              ["src/cli/verb-<name>.h", "src/cli/gone.c", "unit/probes/test-kfd.c", "src/runtime", "cli/verb-fix.c/"],
              "a name no path matches is reported (a folder is not a file, a file not a folder)")
    rdtest.eq(named_paths("`--root` `rd_run_params.probes` `/apt/parse/keyring` `main()` `grep -l x probes/` "
                          "`fixes/<z>.c` `check.c` `tests/layers/` `x.y`"),
              ["fixes/<z>.c", "check.c", "tests/layers/"], "only the paths are taken")


@rdtest.test
def every_named_field_exists():
    rdtest.eq(named_fields("`.needs` and `.after`, not `..` or `.ci/run`"), ["needs", "after"],
              "only the fields are taken")
    with open(os.path.join(ROOT, "ARCHITECTURE.md"), encoding="utf-8") as f:
        names = named_fields(f.read())
    fields = struct_fields(os.path.join(ROOT, "src"))
    rdtest.check("needs" in fields and "gather" in fields and "findings" in fields,
                 "the probe descriptor's fields are read from src/core/probe.h")
    rdtest.check("after" not in fields, "no header declares a field .after")
    gone = [n for n in names if n not in fields]
    rdtest.eq(gone, [], "the descriptor fields ARCHITECTURE.md names exist")


@rdtest.test
def every_named_path_exists():
    with open(os.path.join(ROOT, "ARCHITECTURE.md"), encoding="utf-8") as f:
        names = named_paths(f.read())
    rdtest.check(len(names) >= 60, "ARCHITECTURE.md names its files (%d found)" % len(names))
    gone = missing(names, tree(ROOT))
    rdtest.eq(gone, [], "the files and folders ARCHITECTURE.md names exist")


sys.exit(rdtest.main())
