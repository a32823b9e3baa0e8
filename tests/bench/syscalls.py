#!/usr/bin/env python3
"""System calls and instructions of `rocm-doctor check` on the MI300X CPX test
bed with 1, 2, 4 and 8 GPUs (8, 16, 32, 64 KFD GPU nodes): figures only,
nothing asserted. Linear shows as calls per node that stay flat.
   tests/bench/syscalls.py BUILD_DIR [BINARY]
BINARY (default BUILD_DIR/rocm-doctor) lets an older build be measured on the
same test beds."""
import os
import re
import subprocess
import sys
import tempfile

top = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(top, "tests", "run", "scenarios"))
sys.dont_write_bytecode = True
import scenarios  # noqa: E402
from testbed import Testbed  # noqa: E402

build = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else "build")
binary = os.path.abspath(sys.argv[2]) if len(sys.argv) > 2 else os.path.join(build, "rocm-doctor")
tb_run = os.path.join(build, "tests", "tb-run")
os.environ.setdefault("ROCM_DOCTOR_DATA_DIR", os.path.join(top, "conf"))
ALL = list(scenarios.MI300X_GPUS)


def testbed(n_gpus, outdir):
    scenarios.MI300X_GPUS = ALL[:n_gpus]
    tb = Testbed()
    scenarios.mi300x_box(tb, cpx=True)
    scenarios.MI300X_GPUS = ALL
    paths = tb.write(outdir)
    return paths, tb.node_args()


def strace_counts(prefix, root):
    out = os.path.join(os.path.dirname(root), "strace.txt")
    # -f: the child the check forks (if any) counts too; only the tool's own
    # process tree is traced, not tb-run's set-up
    subprocess.run(prefix + ["strace", "-f", "-c", "-o", out, binary, "check", "--json", "--root", root],
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    calls = {}
    for line in open(out):
        m = re.match(r"\s*[\d.]+\s+[\d.]+\s+\d+\s+(\d+)\s+(?:\d+\s+)?(\w+)\s*$", line)
        if m and m.group(2) != "total":  # strace's own sum line
            calls[m.group(2)] = int(m.group(1))
    return calls


def instructions(prefix, root):
    p = subprocess.run(prefix + ["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", binary,
                                 "check", "--json", "--root", root],
                       stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    m = re.search(r"Collected : (\d+)", p.stderr)
    return int(m.group(1)) if m else -1


print("%-10s %8s %8s %7s %7s %7s %9s %12s %10s" % ("KFD nodes", "calls", "per node", "opens", "stats",
                                                  "reads", "readlinks", "instructions", "per node"))
for n_gpus in (1, 2, 4, 8):
    with tempfile.TemporaryDirectory(prefix="rd-sys-") as work:
        paths, node_args = testbed(n_gpus, work)
        prefix = [tb_run, "-d", paths["umockdev"], "-o", paths["overlay"]] + node_args + ["--"]
        c = strace_counts(prefix, paths["root"])
        ins = instructions(prefix, paths["root"])
        nodes = 8 * n_gpus
        total = sum(c.values())
        opens = sum(v for k, v in c.items() if k.startswith("open"))
        stats = sum(v for k, v in c.items() if "stat" in k)
        reads = c.get("read", 0) + c.get("pread64", 0)
        print("%-10d %8d %8.1f %7d %7d %7d %9d %12d %10.0f" % (nodes, total, total / nodes, opens, stats, reads,
                                                              c.get("readlink", 0) + c.get("readlinkat", 0),
                                                              ins, ins / nodes))
