#!/usr/bin/env python3
"""`rocm-doctor fleet --from` over 1,000 saved reports: wall time, CPU time
and peak RSS of each run (figures only; it never fails on time; the aim is
under a second and under 64 MiB).

    fleet.py BUILD_DIR [NODES] [RUNS]

The reports are the RX 7900 XTX beds' `check --json` and the MI300X beds'
(8 GPUs, `check --facts` of their facts) of tests/run/fleet/fleetfolder.py,
copied to NODES names (default 1000); one node in 50 has the bad GPU, one in
40 lacks the groups.
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

sys.dont_write_bytecode = True
HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(SOURCE, "tests", "run", "fleet"))
import fleetfolder  # noqa: E402


def main():
    build = os.path.abspath(sys.argv[1])
    nodes = int(sys.argv[2]) if len(sys.argv) > 2 else 1000
    runs = int(sys.argv[3]) if len(sys.argv) > 3 else 5
    binary = os.path.join(build, "rocm-doctor")
    env = dict(os.environ, ROCM_DOCTOR_DATA_DIR=os.path.join(SOURCE, "conf"), NO_COLOR="1")
    os.environ.update(env)
    tmp = tempfile.mkdtemp(prefix="rocm-doctor-fleet-bench-")
    try:
        beds = os.path.join(tmp, "beds")
        fleetfolder.build(binary, os.path.join(build, "tests", "tb-run"), beds)
        reports = {}
        for name, src in (("mi300x", "gpu001"), ("mi300x-bad", "gpu009"), ("ws", "ws01"), ("ws-access", "ws03")):
            path = os.path.join(beds, src + ".json")
            with open(path) as f:
                doc = json.load(f)
            if doc.get("schema") != "rocm-doctor/1":  # a facts file: its report
                p = subprocess.run([binary, "check", "--facts", path, "--json"], capture_output=True, text=True,
                                   env=env)
                doc = json.loads(p.stdout)
            reports[name] = json.dumps(doc, indent=2)
        folder = os.path.join(tmp, "reports")
        os.mkdir(folder)
        for i in range(1, nodes + 1):
            half = i <= nodes // 2
            kind = ("mi300x-bad" if i % 50 == 0 else "mi300x") if half else ("ws-access" if i % 40 == 0 else "ws")
            with open(os.path.join(folder, "node%04d.json" % i), "w") as f:
                f.write(reports[kind])
        size = sum(os.path.getsize(os.path.join(folder, n)) for n in os.listdir(folder))
        print("fleet --from: %d reports, %.1f MiB" % (nodes, size / 2**20))
        for fmt in ("text", "json"):
            walls, cpus, rss = [], [], []
            for _ in range(runs):
                t0 = time.monotonic()
                p = subprocess.Popen([binary, "fleet", "--from", folder, "--format", fmt], stdout=subprocess.DEVNULL,
                                     env=env)
                _, status, usage = os.wait4(p.pid, 0)
                p.returncode = os.waitstatus_to_exitcode(status)
                walls.append(time.monotonic() - t0)
                cpus.append(usage.ru_utime + usage.ru_stime)
                rss.append(usage.ru_maxrss / 1024)
                if p.returncode not in (0, 1, 2):
                    print("  exit %d" % p.returncode)
            walls.sort()
            print("  --format %-5s wall median %.3f s (min %.3f, max %.3f), CPU median %.3f s, peak RSS %.1f MiB "
                  "(%d runs)" % (fmt, walls[len(walls) // 2], walls[0], walls[-1], sorted(cpus)[len(cpus) // 2],
                                 max(rss), runs))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
