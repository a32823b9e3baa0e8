#!/usr/bin/env python3
"""The man page documents every long option the binary accepts, every
finding id the program can emit and every fix. The finding ids come from
`rocm-doctor list checks --json` (the probes' catalogues) and the fix ids
from `list fixes --json` (the fix registry), so an area or a fix added to
the program is checked without touching this test. A finding is documented
by an entry: a line of rocm-doctor(1) that starts with its id in asterisks
(alone or among others, "*dnf.key-missing*, *zypper.key-missing* (error)");
a fix by its entry in the FIXES section (rocm-doctor.1-50-fixes.scd), a
line that starts with its *id* and goes on to "(findings ...)"."""
import glob
import json
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "lib"))
import rdtest  # noqa: E402

binary, src = sys.argv[1], sys.argv[2]
pages = sorted(glob.glob(f"{src}/man/rocm-doctor.1-*.scd"))
page = "".join(open(p).read() for p in pages)
fixes_page = open(f"{src}/man/rocm-doctor.1-50-fixes.scd").read()
helptext = subprocess.run([binary, "--help"], capture_output=True, text=True).stdout
main_c = open(f"{src}/src/cli/main.c").read()

options = set(re.findall(r'\{ "([a-z][a-z0-9-]*)", (?:required|no|optional)_argument', main_c))
options |= set(o[2:] for o in re.findall(r"--[a-z][a-z0-9-]*", helptext))


def listed(what):
    p = subprocess.run([binary, "list", what, "--json"], capture_output=True, text=True)
    if p.returncode != 0:
        print(f"FAIL - list {what} --json exited {p.returncode}: {p.stderr}")
        sys.exit(1)
    return json.loads(p.stdout)


ids = set(i for c in listed("checks")["checks"] for i in c["findings"])
fix_ids = set(f["id"] for f in listed("fixes")["fixes"])

# The ids an entry line names: "*a.b*, *c.d* (warning)" names a.b and c.d.
entry_re = re.compile(r"^((?:\*[a-z][a-z0-9.-]*\*(?:, |$| ))+)", re.M)
entries = set()
for m in entry_re.finditer(page.replace("\\_", "_")):
    entries |= set(re.findall(r"\*([a-z][a-z0-9.-]*)\*", m.group(1)))

@rdtest.test
def every_option_is_documented():
    for o in sorted(options):
        rdtest.check(f"*--{o}*" in page, f"--{o} is documented in rocm-doctor(1)")


@rdtest.test
def every_finding_has_an_entry():
    for i in sorted(ids):
        rdtest.check(i in entries, f"finding {i} has an entry in rocm-doctor(1)")


@rdtest.test
def every_entry_is_a_finding():
    # the other way: an entry of the FINDINGS pages names a finding of the
    # catalogue (src/core/catalogue.def), not one removed or misspelt
    findings = "".join(open(p).read() for p in pages if re.search(r"/rocm-doctor\.1-3\d-findings", p))
    named = set()
    for m in entry_re.finditer(findings.replace("\\_", "_")):
        named |= set(re.findall(r"\*([a-z][a-z0-9-]*\.[a-z0-9.-]+)\*", m.group(1)))
    rdtest.check(len(named) >= 90, "the FINDINGS pages have entries", len(named))
    for i in sorted(named):
        rdtest.check(i in ids, f"the entry {i} of rocm-doctor(1)'s FINDINGS is a finding the program reports")


@rdtest.test
def every_fix_has_an_entry():
    for f in sorted(fix_ids):
        rdtest.check(re.search(r"^(\*[a-z]+\*, )*\*%s\*(, \*[a-z]+\*)* \(" % re.escape(f), fixes_page, re.M)
                     is not None, f"fix {f} has an entry in the FIXES section of rocm-doctor(1)")


@rdtest.test
def the_extraction_finds_enough():
    rdtest.check(len(options) >= 7 and len(ids) >= 15 and len(fix_ids) >= 5,
                 "the extraction finds at least 7 options, 15 finding ids and 5 fixes",
                 f"found only {len(options)} options, {len(ids)} finding ids and {len(fix_ids)} fixes")


sys.exit(rdtest.main())
