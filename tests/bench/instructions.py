#!/usr/bin/env python3
"""Instructions (callgrind) of `rocm-doctor check` and `check --json` on the
8x MI300X test beds, for one or more binaries side by side: figures only,
nothing asserted. Instructions repeat from run to run whatever else the
machine does, which makes them the figure for "adds under N%" targets.
   tests/bench/instructions.py BUILD_DIR [BINARY...]
BINARY (default BUILD_DIR/rocm-doctor) may be an older build (say the one
before an area was added) measured on the same test beds; the first one is
the base the others are compared with.

Figures: tests/bench/README.md."""
import os
import re
import subprocess
import sys
import tempfile

top = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(top, "tests", "scenarios"))
sys.dont_write_bytecode = True
import run  # noqa: E402,F401  (registers every scenarios_*.py)
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


def instructions(prefix, binary, root, json_out):
    cmd = [binary, "check", "--root", root] + (["--json"] if json_out else [])
    env = dict(os.environ, ROCM_DOCTOR_DATA_DIR=data_dir(binary))
    p = subprocess.run(prefix + ["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null"] + cmd,
                       stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, env=env)
    m = re.search(r"Collected : (\d+)", p.stderr)
    return int(m.group(1)) if m else -1


print("%-28s %s" % ("", "  ".join("%22s" % os.path.basename(os.path.dirname(os.path.dirname(b))) for b in binaries)))
for name in BEDS:
    sc = scenarios.SCENARIOS[name]()
    with tempfile.TemporaryDirectory(prefix="rd-ins-") as work:
        paths = sc.tb.write(work)
        prefix = [tb_run, "-d", paths["umockdev"], "-o", paths["overlay"]] + sc.tb.node_args() + ["--"]
        for json_out in (False, True):
            row, base = [], None
            for b in binaries:
                n = instructions(prefix, b, paths["root"], json_out)
                base = base or n
                row.append("%12d (%+5.1f%%)" % (n, 100.0 * (n - base) / base) if base > 0 else "%22d" % n)
            print("%-28s %s" % ("%s %s" % (name, "json" if json_out else "text"), "  ".join(row)), flush=True)
