#!/usr/bin/env python3
"""The man page documents every long option the binary accepts and every
finding id the probes can emit."""
import re
import subprocess
import sys

binary, src = sys.argv[1], sys.argv[2]
page = open(f"{src}/man/rocm-doctor.8.scd").read()
helptext = subprocess.run([binary, "--help"], capture_output=True, text=True).stdout
main_c = open(f"{src}/src/main.c").read()

options = set(re.findall(r'\{ "([a-z][a-z0-9-]*)", (?:required|no|optional)_argument', main_c))
options |= set(o[2:] for o in re.findall(r"--[a-z][a-z0-9-]*", helptext))
ids = set()
for f in ["os", "pci", "drm", "kfd", "driver", "access"]:
    text = open(f"{src}/probes/{f}.c").read()
    found = re.findall(r'"((?:gpu|pcie|driver|kfd|render|group|access|host)\.[a-z-]+)"', text)
    ids |= set(i for i in found if not i.endswith(".h"))  # headers named in #include lines

passed = failed = 0
for o in sorted(options):
    if f"*--{o}*" in page:
        passed += 1
    else:
        failed += 1
        print(f"FAIL - --{o} is not documented in rocm-doctor.8.scd")
for i in sorted(ids):
    if f"*{i}*" in page:
        passed += 1
    else:
        failed += 1
        print(f"FAIL - finding {i} is not documented in rocm-doctor.8.scd")
if len(options) < 7 or len(ids) < 15:
    failed += 1
    print(f"FAIL - found only {len(options)} options and {len(ids)} ids: the extraction is broken")
print(f"{passed} passed, {failed} failed")
sys.exit(1 if failed else 0)
