#!/usr/bin/env python3
"""Scaling figures for inputs that used to cost quadratic time: prints wall
seconds per size (and the ratio to the smallest size), asserts nothing.
   tests/bench/scale.py BUILD_DIR [--instructions] [SERIES...]
Linear shows as a ratio that follows the size (x2 size, about x2 time).
With --instructions each run goes under callgrind and the figure is the
instructions executed: the algorithm's cost without the memory hierarchy's
(a working set of hundreds of megabytes makes each item slower to reach,
which wall time shows and instructions do not)."""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

build = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else "build")
instructions = "--instructions" in sys.argv[2:]
only = [a for a in sys.argv[2:] if a != "--instructions"]
top = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
binary = os.path.join(build, "rocm-doctor")
os.environ.setdefault("ROCM_DOCTOR_DATA_DIR", os.path.join(top, "conf"))
work = tempfile.mkdtemp(prefix="rd-scale-")


def timed(argv):
    if instructions:
        if argv[0] == "sh":  # explain reads a file on stdin through sh -c
            argv = ["sh", "-c", "valgrind --tool=callgrind --callgrind-out-file=/dev/null " + argv[2]]
        else:
            argv = ["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null"] + argv
        p = subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, timeout=3600)
        m = re.search(r"Collected : (\d+)", p.stderr)
        return (int(m.group(1)) if m else -1), p.returncode
    t = time.perf_counter()
    p = subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, timeout=600)
    return time.perf_counter() - t, p.returncode


def series(title, sizes, make):
    if only and not any(o in title for o in only):
        return
    base = None
    for n in sizes:
        argv = make(n)
        secs, rc = timed(argv)
        base = base or (secs / n)
        figure = f"{secs:14,d} instructions" if instructions else f"{secs:8.3f} s"
        print(f"{title:<40} n={n:<8} {figure}  exit {rc}  per-item ratio {secs / n / base:5.2f}", flush=True)


def modprobe_root(n):
    root = os.path.join(work, f"modprobe-{n}")
    d = os.path.join(root, "etc/modprobe.d")
    os.makedirs(d, exist_ok=True)
    for i in range(n):
        open(os.path.join(d, f"f{i:06d}.conf"), "w").write("options snd index=0\n")
    return [binary, "facts", "--root", root]


def group_root(n):
    root = os.path.join(work, f"group-{n}")
    os.makedirs(os.path.join(root, "etc"), exist_ok=True)
    open(os.path.join(root, "etc/passwd"), "w").write("root:x:0:0::/root:/bin/sh\nalice:x:1000:1000::/home/alice:/bin/sh\n")
    members = ",".join(f"u{i}" for i in range(n))
    open(os.path.join(root, "etc/group"), "w").write(f"root:x:0:\nrender:x:992:{members}\nvideo:x:44:{members}\nalice:x:1000:\n")
    facts = os.path.join(top, "tests/run/cli/facts/rx7900xtx-no-access.json")
    return [binary, "fix", "--root", root, "--facts", facts, "--user", "alice", "--only",
            "kfd.no-access,render.no-access"]


def facts_file(n):
    path = os.path.join(work, f"facts-{n}.json")
    devs = [{"address": f"0000:{i >> 8 & 0xff:02x}:{i >> 3 & 0x1f:02x}.{i & 7}" if i < 65536 else
             f"{i >> 16:04x}:{i >> 8 & 0xff:02x}:{i >> 3 & 0x1f:02x}.{i & 7}",
             "vendor_id": 0x1002, "device_id": 0x74a1, "class_code": 0x120000 if i else 0x030000,
             "display": True, "driver": "amdgpu", "pcie_type": 0,
             "parent": None} for i in range(n)]
    json.dump({"schema": "rocm-doctor-facts/1", "pci": {"devices": devs}, "drm": {"devices": []},
               "kfd": {"present": False, "nodes": []}}, open(path, "w"))
    return [binary, "check", "--facts", path]


def explain_text(n):
    path = os.path.join(work, f"explain-{n}.txt")
    line = "hipErrorNoBinaryForGpu: Unable to find code object for all current devices!\n"
    open(path, "w").write(line * (n // len(line)))
    return ["sh", "-c", f"{binary} explain - < {path}"]


try:
    print(f"rocm-doctor scaling, {os.cpu_count()} cores")
    series("facts: files in etc/modprobe.d", [12500, 25000, 50000], modprobe_root)
    series("fix plan: members on one /etc/group line", [25000, 50000, 100000, 200000], group_root)
    series("check --facts: PCI devices", [12500, 25000, 50000, 100000], facts_file)
    series("explain: bytes of text on stdin", [75000, 150000, 300000, 600000], explain_text)
finally:
    shutil.rmtree(work, ignore_errors=True)
