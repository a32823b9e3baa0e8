#!/usr/bin/env python3
"""Instructions (callgrind) of `rocm-doctor check` and `check --json` on the
8x MI300X test beds, for one or more binaries side by side: figures only,
nothing asserted. Instructions repeat from run to run whatever else the
machine does, which makes them the figure for "adds under N%" targets.
   tests/bench/instructions.py BUILD_DIR [BINARY...]
BINARY (default BUILD_DIR/rocm-doctor) may be an older build (say the one
before an area was added) measured on the same test beds; the first one is
the base the others are compared with.

Each figure comes twice: all instructions, and those outside the test bed's
umockdev preload (the calls into its wrappers of open, read, close, stat...
taken out with everything they run: path translation, locks, fd lists,
which a real host does not execute; libc's own system call stubs, a few
dozen instructions a call, go out with them).

Figures: tests/bench/README.md."""
import importlib
import os
import re
import subprocess
import sys
import tempfile

top = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(top, "tests", "run", "scenarios"))
sys.dont_write_bytecode = True
importlib.import_module("run")  # registers every scenarios_*.py
import scenarios  # noqa: E402

build = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else "build")
binaries = [os.path.abspath(b) for b in sys.argv[2:]] or [os.path.join(build, "rocm-doctor")]
tb_run = os.path.join(build, "tests", "tb-run")
os.environ["NO_COLOR"] = "1"
BEDS = os.environ.get("BENCH_SCENARIOS", "healthy-8x-mi300x mi300x-cpx").split()


def data_dir(binary):
    """The knowledge tables of the binary's own tree (BUILD/../conf): an older
    build refuses keys a newer table has."""
    conf = os.path.join(os.path.dirname(os.path.dirname(binary)), "conf")
    return conf if os.path.isdir(conf) else os.path.join(top, "conf")


def into_preload(path):
    """Inclusive instructions of the calls made into libumockdev-preload from
    outside it, read from a callgrind output file (name compression:
    "(id) name" defines an id, "(id)" reuses it)."""
    names, total = {}, 0
    caller_ob = callee_ob = None
    call = False
    for line in open(path):
        m = re.match(r"^(ob|cob|fn|cfn|fl|fi|fe|cfi|cfl)=\((\d+)\)(?: (.*))?$", line.rstrip("\n"))
        if m:
            kind, idx, name = m.groups()
            key = ("ob" if kind in ("ob", "cob") else kind, idx)
            if name:
                names[key] = name
            if kind == "ob":
                caller_ob, callee_ob = names.get(key), None
            elif kind == "cob":
                callee_ob = names.get(key)
            elif kind == "fn":
                callee_ob = None
            continue
        if line.startswith("calls="):
            call = True
            continue
        if call:
            target = callee_ob or caller_ob
            if target and "umockdev-preload" in target and "umockdev-preload" not in (caller_ob or ""):
                total += int(line.split()[1])
            call, callee_ob = False, None
    return total


def instructions(prefix, binary, root, json_out):
    """(all instructions, those outside the test bed's preload)"""
    cmd = [binary, "check", "--root", root] + (["--json"] if json_out else [])
    env = dict(os.environ, ROCM_DOCTOR_DATA_DIR=data_dir(binary))
    with tempfile.NamedTemporaryFile(prefix="rd-cg-") as out:
        p = subprocess.run(prefix + ["valgrind", "--tool=callgrind", "--callgrind-out-file=" + out.name] + cmd,
                           stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, env=env)
        m = re.search(r"Collected : (\d+)", p.stderr)
        n = int(m.group(1)) if m else -1
        return n, n - into_preload(out.name) if n > 0 else -1


print("%-44s %s" % ("", "  ".join("%22s" % os.path.basename(os.path.dirname(b)) for b in binaries)))
for name in BEDS:
    sc = scenarios.SCENARIOS[name]()
    with tempfile.TemporaryDirectory(prefix="rd-ins-") as work:
        paths = sc.tb.write(work)
        prefix = [tb_run, "-d", paths["umockdev"], "-o", paths["overlay"]] + sc.tb.node_args() + ["--"]
        for json_out in (False, True):
            rows, bases = ([], []), [None, None]
            for b in binaries:
                figures = instructions(prefix, b, paths["root"], json_out)
                for k, n in enumerate(figures):
                    bases[k] = bases[k] or n
                    rows[k].append("%12d (%+5.1f%%)" % (n, 100.0 * (n - bases[k]) / bases[k]) if bases[k] > 0
                                   else "%22d" % n)
            for k, what in enumerate(("", " outside preload")):
                label = "%s %s%s" % (name, "json" if json_out else "text", what)
                print("%-44s %s" % (label, "  ".join(rows[k])), flush=True)
