#!/usr/bin/env python3
"""Runs a command N times under GNU time and prints the median wall and CPU
time and the largest peak RSS. GNU time forks from a small process, so the
peak RSS is the command's own, not this interpreter's."""
import statistics
import subprocess
import sys
import tempfile

label, n, cmd = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
walls, cpus, rss = [], [], []
with tempfile.NamedTemporaryFile("r") as out:
    for _ in range(n):
        p = subprocess.run(["/usr/bin/time", "-q", "-f", "%e %U %S %M", "-o", out.name, *cmd],
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        out.seek(0)
        e, u, s, m = out.read().split()[-4:]
        walls.append(float(e))
        cpus.append(float(u) + float(s))
        rss.append(int(m))
print(f"{label:<34} wall {statistics.median(walls) * 1000:6.0f} ms   cpu {statistics.median(cpus) * 1000:6.0f} ms"
      f"   peak RSS {max(rss) / 1024:6.2f} MiB   (exit {p.returncode}, {n} runs)")
