#!/usr/bin/env python3
"""`rocm-doctor check --json` beside rocminfo, `lspci -vvv` and /bin/true,
all in one interleaved loop (each round runs every command once, in an
order that rotates from round to round, so a busy moment of the machine
falls on all of them alike); then the Slurm prolog per job, on a facts file
and on this host. Figures only: nothing passes or fails on time.

   tests/bench/interleaved.py [--rounds N] [--facts FILE] [--gpus LIST]
                              [--strace PATH] BINARY[=LABEL]...

Several binaries (an older build first, say) are measured side by side,
each with the knowledge tables of its own tree (BINARY/../../conf, as
instructions.py has it). Wall time is taken around the child's whole life
(fork to wait4), CPU time and peak RSS from GNU time
(ROCM_DOCTOR_BENCH_TIME names another; /usr/bin/time by default). rocminfo and lspci
are measured where they are installed (PATH, then /usr/sbin and /sbin);
ROCM_DOCTOR_BENCH_ROCMINFO and ROCM_DOCTOR_BENCH_LSPCI name others.
--strace prints `strace -c -f` of each binary's check (the strace named,
looked up in PATH)."""
import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

top = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def data_dir(binary):
    conf = os.path.join(os.path.dirname(os.path.dirname(binary)), "conf")
    return conf if os.path.isdir(conf) else os.path.join(top, "conf")


def tool(name, env_name):
    path = os.environ.get(env_name)
    if path:
        return path if os.access(path, os.X_OK) else None
    return shutil.which(name) or shutil.which(name, path="/usr/sbin:/sbin")


GNU_TIME = os.environ.get("ROCM_DOCTOR_BENCH_TIME") or "/usr/bin/time"
if not os.access(GNU_TIME, os.X_OK):
    GNU_TIME = None
RUSAGE = tempfile.NamedTemporaryFile("r", prefix="rusage.")


def run_once(argv, env):
    """(wall seconds, user seconds, system seconds, peak RSS KiB, exit status).
    A child forked from this interpreter inherits its resident size into
    ru_maxrss, so the command runs under GNU time, which forks from a small
    process (its own start, about a millisecond, is in every figure alike:
    /bin/true shows it); without GNU time the peak RSS is not shown."""
    cmd = [GNU_TIME, "-f", "%U %S %M", "-o", RUSAGE.name] + argv if GNU_TIME else argv
    start = time.perf_counter()
    p = subprocess.run(cmd, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL)
    wall = time.perf_counter() - start
    if not GNU_TIME:
        return wall, 0.0, 0.0, 0, p.returncode
    RUSAGE.seek(0)
    user, system, rss = RUSAGE.read().split()[-3:]
    return wall, float(user), float(system), int(rss), p.returncode


def interleave(entries, rounds):
    """entries: [(label, argv, env)]; every round runs each once."""
    got = {label: [] for label, _, _ in entries}
    for _, argv, env in entries:  # warm the page cache and the dynamic loader
        run_once(argv, env)
    for r in range(rounds):
        k = r % len(entries)
        for label, argv, env in entries[k:] + entries[:k]:
            got[label].append(run_once(argv, env))
    return got


def report(entries, got, rounds):
    print(f"{'command':<44} {'median':>9} {'min':>8} {'user':>7} {'system':>7} {'peak RSS':>10}  exit")
    for label, _, _ in entries:
        rows = got[label]
        wall = statistics.median(x[0] for x in rows) * 1000
        low = min(x[0] for x in rows) * 1000
        user = statistics.median(x[1] for x in rows) * 1000
        system = statistics.median(x[2] for x in rows) * 1000
        rss = max(x[3] for x in rows) / 1024
        codes = sorted({x[4] for x in rows})
        print(f"{label:<44} {wall:6.2f} ms {low:5.2f} ms {user:4.0f} ms {system:4.0f} ms {rss:6.2f} MiB  "
              f"{','.join(map(str, codes))}")
    print(f"({rounds} interleaved rounds; medians; user and system: the command's CPU time as GNU time"
          " gives it, in 10 ms steps)")


def median_ms(got, label):
    return statistics.median(x[0] for x in got[label]) * 1000 if label in got else None


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("binaries", nargs="+", metavar="BINARY[=LABEL]")
    ap.add_argument("--rounds", type=int, default=20)
    ap.add_argument("--facts", help="a saved `facts --json` with AMD GPUs, for the prolog on a facts file")
    ap.add_argument("--gpus", default="0", help="SLURM_JOB_GPUS of the prolog runs (default 0)")
    ap.add_argument("--strace", metavar="PATH", help="strace -c -f of each binary's check, with this strace")
    a = ap.parse_args()

    binaries = []
    for b in a.binaries:
        path, _, label = b.partition("=")
        path = os.path.abspath(path)
        binaries.append((label or os.path.relpath(path), path))

    base_env = dict(os.environ, NO_COLOR="1")
    entries = []
    for label, path in binaries:
        env = dict(base_env, ROCM_DOCTOR_DATA_DIR=data_dir(path))
        entries.append((f"check --json [{label}]", [path, "check", "--json"], env))
    rocminfo = tool("rocminfo", "ROCM_DOCTOR_BENCH_ROCMINFO")
    lspci = tool("lspci", "ROCM_DOCTOR_BENCH_LSPCI")
    if rocminfo:
        entries.append(("rocminfo", [rocminfo], base_env))
    if lspci:
        entries.append(("lspci -vvv", [lspci, "-vvv"], base_env))
    entries.append(("/bin/true", ["/bin/true"], base_env))

    print(f"{os.uname().nodename}: {os.cpu_count()} cores, {os.uname().release}")
    for name, path in (("rocminfo", rocminfo), ("lspci", lspci)):
        if not path:
            print(f"{name}: not installed here, not measured")
    got = interleave(entries, a.rounds)
    report(entries, got, a.rounds)
    for label, _ in binaries:
        check = median_ms(got, f"check --json [{label}]")
        for other in ("rocminfo", "lspci -vvv"):
            if other in got:
                print(f"  check [{label}] / {other}: {check / median_ms(got, other):.2f}x")

    with tempfile.TemporaryDirectory() as state:
        prolog = []
        for label, path in binaries:
            env = dict(base_env, ROCM_DOCTOR_DATA_DIR=data_dir(path), SLURM_JOB_ID="4242",
                       SLURM_JOB_GPUS=a.gpus, ROCM_DOCTOR_SLURM_STATE_DIR=state)
            if a.facts:
                prolog.append((f"slurm prolog, facts file [{label}]",
                               [path, "slurm", "prolog", "--facts", os.path.abspath(a.facts)], env))
            prolog.append((f"slurm prolog, this host [{label}]", [path, "slurm", "prolog"], env))
        print()
        got = interleave(prolog, a.rounds)
        report(prolog, got, a.rounds)
        print("(the prolog on a host without AMD GPUs refuses the job: exit 1)")

    if a.strace:
        strace = shutil.which(a.strace) or (a.strace if os.access(a.strace, os.X_OK) else None)
        if not strace:
            print(f"\n{a.strace}: not found, no system call summary")
            return
        for label, path in binaries:
            env = dict(base_env, ROCM_DOCTOR_DATA_DIR=data_dir(path))
            with tempfile.NamedTemporaryFile("r", suffix=".strace") as out:
                subprocess.run([strace, "-c", "-f", "-o", out.name, path, "check", "--json"], env=env,
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
                lines = out.read().splitlines()
            print(f"\nstrace -c -f: check --json [{label}]")
            body = [x for x in lines if x.strip()]
            # the header, the busiest calls, the total
            print("\n".join(body[:14] + (["  ..."] if len(body) > 16 else []) + body[-2:]))


if __name__ == "__main__":
    sys.exit(main())
