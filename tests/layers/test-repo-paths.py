#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The repository rule: no C code composes a path of AMD's repository
server (rocm/apt/..., rocm/el9/..., rocm/zyp/..., amdgpu/<v>/ubuntu,
graphics/<v>/..., amdgpu-install/..., the key's path). Those folders come
from conf/repos.ini through its loader, src/core/knowledge-repos.c, the one
file allowed to know their shapes.

Usage: test-repo-paths.py SOURCE_ROOT"""
import os
import re
import sys

ROOT = sys.argv[1]
ALLOWED = {os.path.join("src", "core", "knowledge-repos.c")}
# A C string literal holding a piece of one of AMD's repository paths.
PATTERN = re.compile(r'rocm/(apt|zyp|yum|el\d|el[{%]|rhel)|/?(amdgpu|graphics)/(%s|\{|\d)|amdgpu-install/'
                     r'|rocm\.gpg\.key|(el|rhel|sle)/%s/main|/ubuntu\b')
STRING = re.compile(r'"((?:[^"\\\n]|\\.)*)"')


def offending(text):
    """(line, literal) of each string literal that composes a repository path."""
    out = []
    for no, line in enumerate(text.splitlines(), 1):
        for m in STRING.finditer(line):
            lit = m.group(1)
            # the host's own paths that share a word: /sys/module/amdgpu/...,
            # /var/lib/dkms/amdgpu/..., firmware "amdgpu/<blob>"
            if lit.startswith(("/sys/", "/var/lib/dkms/", "/lib/firmware")) or "dkms" in lit:
                continue
            if PATTERN.search(lit):
                out.append((no, lit))
    return out


def main():
    # the rule can fail: the shapes the table replaced are caught
    for bad in ('"URIs: %s/rocm/apt/%s\\n"', '"https://%s/amdgpu/%s/ubuntu"', '"rocm/el%s/%s/main"',
                '"https://repo.radeon.com/rocm/rocm.gpg.key"', '"%s/graphics/%s/ubuntu"',
                '"amdgpu-install/%s/ubuntu"', '"/rocm/apt/"'):
        assert offending(bad), "the pattern misses " + bad
    for fine in ('"/sys/module/amdgpu/version"', '"/var/lib/dkms/amdgpu/%s/build/make.log"',
                 '"amdgpu/navy_flounder_sos.bin"', '"repo.radeon.com"'):
        assert not offending(fine), "the pattern catches " + fine
    bad = []
    n = 0
    for top in ("src", "probes", "fixes"):
        for d, _, files in os.walk(os.path.join(ROOT, top)):
            for f in files:
                if not f.endswith((".c", ".h")):
                    continue
                rel = os.path.relpath(os.path.join(d, f), ROOT)
                n += 1
                if rel in ALLOWED:
                    continue
                with open(os.path.join(ROOT, rel), encoding="utf-8") as fh:
                    for no, lit in offending(fh.read()):
                        bad.append("%s:%d: \"%s\"" % (rel, no, lit))
    assert n > 100, "found only %d C files under %s" % (n, ROOT)
    if bad:
        print("repository paths composed outside src/core/knowledge-repos.c (use conf/repos.ini):")
        print("\n".join(bad))
        return 1
    print("ok: %d C files, no repository path composed outside the table's loader" % n)
    return 0


if __name__ == "__main__":
    sys.exit(main())
