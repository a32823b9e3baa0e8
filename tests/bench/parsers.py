#!/usr/bin/env python3
"""Every parser of host input, up to its size cap: `facts --root` on a tree
whose one input grows (x2 per step), wall seconds or (with --instructions)
callgrind instructions per size, and the per-item ratio to the smallest
size. Linear shows as a ratio near 1 at every size; nothing is asserted.
   tests/bench/parsers.py BUILD_DIR [--instructions] [--binary PATH] [--timeout S] [SERIES...]
--binary measures another build (a tree before a change) with this tree's
inputs; --timeout stops a series at the first run longer than S seconds
(default 600); SERIES picks series whose title contains the word."""
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

args = sys.argv[1:]
build = os.path.abspath(args.pop(0) if args and not args[0].startswith("-") else "build")
instructions = "--instructions" in args
binary = os.path.join(build, "rocm-doctor")
if "--binary" in args:
    binary = os.path.abspath(args[args.index("--binary") + 1])
    del args[args.index("--binary"):args.index("--binary") + 2]
limit = 600
if "--timeout" in args:
    limit = float(args[args.index("--timeout") + 1])
    del args[args.index("--timeout"):args.index("--timeout") + 2]
only = [a for a in args if a != "--instructions"]
top = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
os.environ.setdefault("ROCM_DOCTOR_DATA_DIR", os.path.join(top, "conf"))
work = tempfile.mkdtemp(prefix="rd-parsers-")

DEBIAN = 'ID=debian\nVERSION_ID="12"\nVERSION_CODENAME=bookworm\nPRETTY_NAME="Debian GNU/Linux 12"\n'
FEDORA = 'ID=fedora\nVERSION_ID=40\nPRETTY_NAME="Fedora Linux 40"\n'


def measure(argv):
    if instructions:
        argv = ["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null"] + argv
        p = subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, timeout=limit * 50)
        m = re.search(r"Collected : (\d+)", p.stderr)
        return (int(m.group(1)) if m else -1), p.returncode
    t = time.perf_counter()
    p = subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=limit)
    return time.perf_counter() - t, p.returncode


def root_with(name, os_release, files):
    root = os.path.join(work, name)
    files = dict(files)
    files.setdefault("etc/os-release", os_release)
    files.setdefault("etc/passwd", "root:x:0:0::/root:/bin/sh\n")
    files.setdefault("etc/group", "root:x:0:\n")
    for path, text in files.items():
        full = os.path.join(root, path)
        os.makedirs(os.path.dirname(full), exist_ok=True)
        with open(full, "w") as f:
            f.write(text)
    return root


def lines_to(size, make_line):
    """Lines from make_line(i) up to size bytes, and how many."""
    out, n, total = [], 0, 0
    while total < size:
        line = make_line(n)
        out.append(line)
        total += len(line)
        n += 1
    return "".join(out), n


def series(title, unit, sizes, make):
    if only and not any(o in title for o in only):
        return
    base = None
    for size in sizes:
        root, n = make(size)
        try:
            figure, rc = measure([binary, "facts", "--root", root, "--user", "root"])
        except subprocess.TimeoutExpired:
            print(f"{title:<44} {size:>9,} {unit:<6} n={n:<7} over {limit:g} s: the series stops", flush=True)
            return
        finally:
            shutil.rmtree(root, ignore_errors=True)
        base = base or figure / n
        shown = f"{figure:15,d} instr" if instructions else f"{figure:8.3f} s"
        print(f"{title:<44} {size:>9,} {unit:<6} n={n:<7} {shown}  exit {rc}  per-item ratio {figure / n / base:5.2f}",
              flush=True)


def repo_sections(size):
    text, n = lines_to(size, lambda i: f"[s{i}]\nbaseurl=https://repo.radeon.com/rocm/el9/{i}/main\n")
    return root_with(f"repo-{size}", FEDORA, {"etc/yum.repos.d/big.repo": text}), n


def repo_empty(size):
    text, n = lines_to(size, lambda i: f"[e{i}]\n")
    return root_with(f"empty-{size}", FEDORA, {"etc/yum.repos.d/big.repo": text}), n


def repo_duplicates(size):
    text, n = lines_to(size, lambda i: "[rocm]\nname=x\n")
    return root_with(f"dup-{size}", FEDORA, {"etc/yum.repos.d/big.repo": text}), n


def apt_sources(size):
    text, n = lines_to(size, lambda i: f"deb [arch=amd64] https://repo.radeon.com/rocm/apt/6.{i} noble main\n")
    return root_with(f"apt-{size}", DEBIAN, {"etc/apt/sources.list.d/big.list": text}), n


def dpkg_status(size):
    text, n = lines_to(size, lambda i: f"Package: pkg{i}\nStatus: install ok installed\nVersion: 1.{i}\n"
                                       "Architecture: amd64\n\n")
    return root_with(f"dpkg-{size}", DEBIAN, {"var/lib/dpkg/status": text}), n


def environment(size):
    text, n = lines_to(size, lambda i: f'V{i}="/opt/rocm-{i}/bin" # note {i}\n')
    text += 'PATH="/usr/bin:/opt/rocm/bin"\n'
    return root_with(f"env-{size}", DEBIAN, {"etc/environment": text}), n


def profile_d(size):
    text, n = lines_to(size, lambda i: f'export PATH="$PATH:/opt/rocm-{i}/bin"\n')
    return root_with(f"profile-{size}", DEBIAN, {"etc/profile.d/big.sh": text}), n


def gres_conf(size):
    text, n = lines_to(size, lambda i: f"NodeName=gpu[{i:05d}-{i + 9:05d}],login{i} Name=gpu Type=mi300x "
                                       f"File=/dev/dri/renderD[128-135] Cores=0-47 # node {i}\n")
    return root_with(f"gres-{size}", DEBIAN, {"etc/slurm/gres.conf": text, "etc/slurm/slurm.conf":
                                              "GresTypes=gpu\nNodeName=gpu[00001-99999] Gres=gpu:mi300x:8\n"}), n


def gres_conf_bad(size):
    text, n = lines_to(size, lambda i: f"Name=gpu File=/dev/dri/renderD[{i}-\n")
    return root_with(f"gresbad-{size}", DEBIAN, {"etc/slurm/gres.conf": text}), n


def wheels(count):
    sp = "usr/lib/python3.12/site-packages"
    files = {f"{sp}/rocm_sdk_device_gfx{i:x}-7.0.0.dist-info/METADATA":
             f"Metadata-Version: 2.1\nName: rocm-sdk-device-gfx{i:x}\nVersion: 7.0.0\n" for i in range(count)}
    return root_with(f"wheels-{count}", DEBIAN, files), count


try:
    print(f"rocm-doctor parsers of host input, {binary}, {os.cpu_count()} cores")
    mib = 1024 * 1024
    series(".repo: sections with AMD baseurls", "bytes", [mib // 8, mib // 4, mib // 2, mib - 4096], repo_sections)
    series(".repo: empty [eN] sections", "bytes", [mib // 8, mib // 4, mib // 2, mib - 4096], repo_empty)
    series(".repo: one section, again and again", "bytes", [mib // 8, mib // 4, mib // 2, mib - 4096],
           repo_duplicates)
    series("apt sources.list.d (no cap)", "bytes", [mib, 2 * mib, 4 * mib, 8 * mib], apt_sources)
    series("dpkg status (no cap)", "bytes", [2 * mib, 4 * mib, 8 * mib, 16 * mib], dpkg_status)
    series("/etc/environment (no cap)", "bytes", [mib, 2 * mib, 4 * mib, 8 * mib], environment)
    series("profile.d (no cap)", "bytes", [mib, 2 * mib, 4 * mib, 8 * mib], profile_d)
    series("wheel dist-info directories", "dirs", [12500, 25000, 50000, 100000], wheels)
    series("gres.conf, ranged NodeName and File (no cap)", "bytes", [mib, 2 * mib, 4 * mib, 8 * mib], gres_conf)
    series("gres.conf, a bad range a line (no cap)", "bytes", [mib, 2 * mib, 4 * mib, 8 * mib], gres_conf_bad)
finally:
    shutil.rmtree(work, ignore_errors=True)
