#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The layer rule is enforced by the build: each folder's library sees only
the include directories its layer may use. For every layer, compile (with
the exact command the build uses for one of its sources) a file that
includes a header its layer may use, which must compile, and one header of
every layer it may not use, which must fail with "No such file". A layer
that could reach a forbidden header fails this test.

Usage: test-layers.py BUILD_DIR SOURCE_DIR"""
import json
import os
import shlex
import subprocess
import sys
import tempfile

build, src = sys.argv[1], os.path.realpath(sys.argv[2])

# folder -> (a header it may include, headers of layers it may not include)
FORBIDDEN_ALL = {"cli": "cli.h", "daemon": "daemon.h"}
LAYERS = {
    "src/shared": ("util.h", ["facts.h", "report.h", "fix.h", "runtime.h", "registry.h", "fixes.h"]),
    "src/core": ("util.h", ["report.h", "fix.h", "runtime.h", "registry.h", "fixes.h"]),
    "src/runtime": ("facts.h", ["report.h", "fix.h", "registry.h", "fixes.h"]),
    "src/report": ("fix.h", ["runtime.h", "registry.h", "fixes.h"]),
    "src/fix": ("facts.h", ["report.h", "runtime.h", "registry.h", "fixes.h"]),
    "probes": ("runtime.h", ["report.h", "fix.h", "fixes.h"]),
    "fixes": ("fix.h", ["report.h", "runtime.h", "registry.h"]),
    "src/cli": ("registry.h", ["daemon.h"]),
    "src/daemon": ("registry.h", ["cli.h"]),
}

with open(os.path.join(build, "compile_commands.json")) as f:
    commands = json.load(f)


def command_for(folder):
    for c in commands:
        path = os.path.realpath(os.path.join(c["directory"], c["file"]))
        if os.path.dirname(path) == os.path.join(src, folder) and path.endswith(".c"):
            return c
    return None


def compiles(c, header, tmp):
    probe = os.path.join(tmp, "layer-probe.c")
    with open(probe, "w") as f:
        f.write(f'#include "{header}"\nint layer_probe(void);\nint layer_probe(void) {{ return 0; }}\n')
    argv = shlex.split(c["command"])
    out = []
    skip = False
    for a in argv:
        if skip:
            skip = False
            continue
        if a in ("-o", "-MF", "-MQ", "-c"):
            skip = True
            continue
        if a.startswith("-MD"):
            continue
        out.append(a)
    out += ["-fsyntax-only", probe]
    r = subprocess.run(out, cwd=c["directory"], capture_output=True, text=True)
    return r.returncode == 0, r.stderr


failures = 0
checked = 0
with tempfile.TemporaryDirectory() as tmp:
    for folder, (allowed, forbidden) in LAYERS.items():
        c = command_for(folder)
        if c is None:
            print(f"not ok: no compile command for a source in {folder}")
            failures += 1
            continue
        ok, err = compiles(c, allowed, tmp)
        if not ok:
            print(f"not ok: {folder} cannot include {allowed}, which its layer may use:\n{err}")
            failures += 1
        for header in forbidden + [h for k, h in FORBIDDEN_ALL.items() if not folder.endswith(k)]:
            if header == allowed:
                continue
            ok, err = compiles(c, header, tmp)
            checked += 1
            if ok:
                print(f"not ok: {folder} can include {header}, which its layer may not use")
                failures += 1
            elif "No such file" not in err:
                print(f"not ok: {folder} including {header} failed for another reason:\n{err}")
                failures += 1
print(f"{checked} forbidden includes tried, {failures} problems")
sys.exit(1 if failures else 0)
