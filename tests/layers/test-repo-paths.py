#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The repository rule: no C code composes a path of AMD's repository
server (rocm/apt/..., rocm/el9/..., rocm/zyp/..., amdgpu/<v>/ubuntu,
graphics/<v>/..., amdgpu-install/..., the key's path). Those folders come
from conf/repos.ini through its loader, src/knowledge/knowledge-repos.c, the one
file allowed to know their shapes.

Usage: test-repo-paths.py SOURCE_ROOT"""
import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import rdtest  # noqa: E402

ROOT = sys.argv[1]
ALLOWED = {os.path.join("src", "knowledge", "knowledge-repos.c")}
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


@rdtest.test
def the_pattern_can_fail():
    """The shapes the table replaced are caught; the host's own paths are not."""
    for bad in ('"URIs: %s/rocm/apt/%s\\n"', '"https://%s/amdgpu/%s/ubuntu"', '"rocm/el%s/%s/main"',
                '"https://repo.radeon.com/rocm/rocm.gpg.key"', '"%s/graphics/%s/ubuntu"',
                '"amdgpu-install/%s/ubuntu"', '"/rocm/apt/"'):
        rdtest.check(offending(bad), "the pattern catches " + bad)
    for fine in ('"/sys/module/amdgpu/version"', '"/var/lib/dkms/amdgpu/%s/build/make.log"',
                 '"amdgpu/navy_flounder_sos.bin"', '"repo.radeon.com"'):
        rdtest.check(not offending(fine), "the pattern lets " + fine + " through")


@rdtest.test
def no_repository_path_outside_the_loader():
    n = 0
    for top in ("src", "probes", "fixes"):
        for d, _, files in os.walk(os.path.join(ROOT, top)):
            for f in sorted(files):
                if not f.endswith((".c", ".h")):
                    continue
                rel = os.path.relpath(os.path.join(d, f), ROOT)
                n += 1
                if rel in ALLOWED:
                    continue
                with open(os.path.join(ROOT, rel), encoding="utf-8") as fh:
                    bad = ["%s:%d: \"%s\"" % (rel, no, lit) for no, lit in offending(fh.read())]
                rdtest.check(not bad, "%s composes no repository path (use conf/repos.ini)" % rel, "\n".join(bad))
    rdtest.check(n > 100, "over 100 C files under %s" % ROOT, "found only %d" % n)


sys.exit(rdtest.main())
