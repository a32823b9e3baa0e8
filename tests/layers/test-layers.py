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

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import rdtest  # noqa: E402

build, src = sys.argv[1], os.path.realpath(sys.argv[2])

# folder -> (a header it may include, headers of layers it may not include)
FORBIDDEN_ALL = {"cli": "cli.h", "daemon": "daemon.h"}
LAYERS = {
    "src/shared": ("util.h", ["facts.h", "report.h", "fix.h", "runtime.h", "registry.h", "fixes.h"]),
    "src/core": ("util.h", ["report.h", "fix.h", "runtime.h", "registry.h", "fixes.h", "slurm-conf.h"]),
    "src/knowledge": ("facts.h", ["report.h", "fix.h", "runtime.h", "registry.h", "fixes.h", "slurm-conf.h"]),
    "src/slurm": ("knowledge.h", ["report.h", "fix.h", "runtime.h", "registry.h", "fixes.h"]),
    "src/runtime": ("facts.h", ["report.h", "fix.h", "registry.h", "fixes.h", "slurm-conf.h"]),
    "src/report": ("fix.h", ["runtime.h", "registry.h", "fixes.h", "slurm-conf.h"]),
    "src/fix": ("facts.h", ["report.h", "runtime.h", "registry.h", "fixes.h", "slurm-conf.h"]),
    "probes": ("slurm-conf.h", ["report.h", "fix.h", "fixes.h"]),
    "fixes": ("slurm-conf.h", ["report.h", "runtime.h", "registry.h"]),
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


def check_layer(folder, allowed, forbidden):
    c = command_for(folder)
    if not rdtest.check(c is not None, f"a compile command for a source in {folder}"):
        return
    with tempfile.TemporaryDirectory() as tmp:
        ok, err = compiles(c, allowed, tmp)
        rdtest.check(ok, f"{folder} can include {allowed}, which its layer may use", err)
        for header in forbidden + [h for k, h in FORBIDDEN_ALL.items() if not folder.endswith(k)]:
            if header == allowed:
                continue
            ok, err = compiles(c, header, tmp)
            rdtest.check(not ok and "No such file" in err,
                         f"{folder} cannot include {header}, which its layer may not use (No such file)",
                         "it compiles" if ok else err)


def layer_test(folder, allowed, forbidden):
    """Registers the test of one layer, named by its folder."""
    def t():
        check_layer(folder, allowed, forbidden)
    t.__name__ = folder.replace("/", "_")
    rdtest.test(t)


for folder, (allowed, forbidden) in LAYERS.items():
    layer_test(folder, allowed, forbidden)
sys.exit(rdtest.main())
