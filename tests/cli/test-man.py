#!/usr/bin/env python3
"""The man page documents every long option the binary accepts and every
finding id the program can emit."""
import glob
import os
import re
import subprocess
import sys

binary, src = sys.argv[1], sys.argv[2]
page = "".join(open(p).read() for p in sorted(glob.glob(f"{src}/man/rocm-doctor.1-*.scd")))
helptext = subprocess.run([binary, "--help"], capture_output=True, text=True).stdout
main_c = open(f"{src}/src/cli/main.c").read()

options = set(re.findall(r'\{ "([a-z][a-z0-9-]*)", (?:required|no|optional)_argument', main_c))
options |= set(o[2:] for o in re.findall(r"--[a-z][a-z0-9-]*", helptext))

# Finding ids are string literals "area.name" with one of the catalogue's areas.
AREAS = ("gpu", "pcie", "driver", "kernel", "kfd", "render", "group", "access", "container",
         "host", "rocm", "apt", "path", "arch", "apu", "env", "runtime", "tuning", "torch", "config",
         "facts", "dnf", "zypper", "rpm")
id_re = re.compile(r'"((?:%s)\.[a-z][a-z0-9-]*)"' % "|".join(AREAS))
ids = set()
for f in glob.glob(f"{src}/probes/*.c") + glob.glob(f"{src}/src/**/*.c", recursive=True) + glob.glob(f"{src}/fixes/*.c"):
    for line in open(f):
        if line.lstrip().startswith("#include"):
            continue
        ids |= set(i for i in id_re.findall(line) if not re.search(r"\.(h|c|so|ini|conf|json|repo)$", i))

passed = failed = 0
for o in sorted(options):
    if f"*--{o}*" in page:
        passed += 1
    else:
        failed += 1
        print(f"FAIL - --{o} is not documented in rocm-doctor(1)")
for i in sorted(ids):
    if f"*{i}*" in page:
        passed += 1
    else:
        failed += 1
        print(f"FAIL - finding {i} is not documented in rocm-doctor(1)")
if len(options) < 7 or len(ids) < 15:
    failed += 1
    print(f"FAIL - found only {len(options)} options and {len(ids)} ids: the extraction is broken")
print(f"{passed} passed, {failed} failed")
sys.exit(1 if failed else 0)
