#!/usr/bin/env python3
"""gres.conf that includes itself N times: `facts --root` on a tree whose
/etc/slurm/gres.conf holds one GPU line and N lines `Include gres.conf`.
Prints wall seconds and peak RSS per N; asserts nothing.
   tests/bench/gres-include.py BUILD_DIR [--binary PATH] [--timeout S] [N...]
Each file is read once per parse, so the cost follows N (the N Include
lines), not N to the power of the include depth. --binary measures another
build on the same inputs; --timeout (default 120) stops the series at the
first run longer than S seconds."""
import os
import shutil
import subprocess
import sys
import tempfile
import time

args = sys.argv[1:]
build = os.path.abspath(args.pop(0) if args and not args[0].startswith("--") else "build")
binary, timeout, sizes = os.path.join(build, "rocm-doctor"), 120.0, []
while args:
    a = args.pop(0)
    if a == "--binary":
        binary = os.path.abspath(args.pop(0))
    elif a == "--timeout":
        timeout = float(args.pop(0))
    else:
        sizes.append(int(a))
sizes = sizes or [1, 2, 3, 4, 5, 6, 8, 20, 1000, 100000]
top = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
os.environ.setdefault("ROCM_DOCTOR_DATA_DIR", os.path.join(top, "conf"))
work = tempfile.mkdtemp(prefix="rd-gres-include-")


def root_for(n):
    root = os.path.join(work, f"n{n}")
    d = os.path.join(root, "etc/slurm")
    os.makedirs(d)
    with open(os.path.join(d, "slurm.conf"), "w") as f:
        f.write("ClusterName=bench\nGresTypes=gpu\nNodeName=bench Gres=gpu:1\n")
    with open(os.path.join(d, "gres.conf"), "w") as f:
        f.write("NodeName=bench Name=gpu File=/dev/dri/renderD128\n" + "Include gres.conf\n" * n)
    return root


try:
    print(f"gres.conf including itself N times: {binary}, {os.cpu_count()} cores")
    for n in sizes:
        root = root_for(n)
        env = dict(os.environ, SLURMD_NODENAME="bench")
        t = time.perf_counter()
        proc = subprocess.Popen([binary, "facts", "--root", root], env=env, stdout=subprocess.DEVNULL,
                                stderr=subprocess.DEVNULL)
        rc, rss = None, 0
        while rc is None:
            pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
            if pid:
                rc, rss = str(os.waitstatus_to_exitcode(status)), usage.ru_maxrss
                proc.returncode = 0
            elif time.perf_counter() - t > timeout:
                proc.kill()
                _, _, usage = os.wait4(proc.pid, 0)
                proc.returncode = -9
                rc, rss = f"killed after {timeout:.0f} s", usage.ru_maxrss
            else:
                time.sleep(0.005)
        secs = time.perf_counter() - t
        print(f"N={n:<8} {secs:9.3f} s  peak RSS {rss / 1024:8.1f} MiB  exit {rc}", flush=True)
        shutil.rmtree(root, ignore_errors=True)
        if rc.startswith("killed"):
            print(f"stopped: N={n} ran past {timeout:.0f} s")
            break
finally:
    shutil.rmtree(work, ignore_errors=True)
