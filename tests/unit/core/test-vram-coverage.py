#!/usr/bin/env python3
"""Every product of libdrm's amdgpu.ids whose gfx target a ROCm release of
conf/support.ini supports is in conf/health.ini [vram] (name and memory) or
in [vram-left-out] (with its reason), and every id of amdgpu.ids has a gfx
target in conf/pci-ids.ini: a newer amdgpu.ids with a new card fails here
until the tables know it.

Usage: test-vram-coverage.py CONF_DIR [AMDGPU_IDS]
Reads the system's /usr/share/libdrm/amdgpu.ids (Debian: libdrm-common);
exit 77 (skipped) only when that file is absent."""

import configparser
import os
import sys


def read_ini(path):
    p = configparser.ConfigParser(interpolation=None, strict=True)
    p.optionxform = str
    p.read(path)
    return p


def amdgpu_ids(path):
    """(device, revision, name) of each line: "DEV, REV, NAME" (tabs or spaces)."""
    rows = []
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            line = line.strip()
            if not line or line.startswith("#") or "," not in line:
                continue
            dev, rev, name = (x.strip() for x in line.split(",", 2))
            rows.append((int(dev, 16), int(rev, 16), name))
    return rows


def product_keys(section):
    keys = set()
    for k in section:
        dev, _, rev = k.partition(".")
        keys.add((int(dev, 16), int(rev, 16) if rev else None))
    return keys


def main():
    conf = sys.argv[1]
    ids_path = sys.argv[2] if len(sys.argv) > 2 else "/usr/share/libdrm/amdgpu.ids"
    if not os.path.exists(ids_path):
        print("1..0 # SKIP %s is absent (Debian package libdrm-common)" % ids_path)
        return 77
    health = read_ini(os.path.join(conf, "health.ini"))
    pci = read_ini(os.path.join(conf, "pci-ids.ini"))
    gfx_of = {int(k, 16): v for k, v in pci["pci-ids"].items()}
    # support.ini repeats keys (os = ...), which configparser refuses: its
    # "gfx = " lines are the targets of each [rocm X.Y] release
    supported = set()
    with open(os.path.join(conf, "support.ini"), encoding="utf-8") as f:
        for line in f:
            key, eq, value = line.partition("=")
            if eq and key.strip() == "gfx":
                supported |= set(value.split())
    if not supported:
        print("1..1\nnot ok 1 - support.ini lists no gfx target")
        return 1
    vram = product_keys(health["vram"])
    left = product_keys(health["vram-left-out"])

    problems = []
    rows = amdgpu_ids(ids_path)
    checked = 0
    for dev, rev, name in rows:
        gfx = gfx_of.get(dev)
        if gfx is None:
            problems.append("1002:%04x rev %02x (%s): no gfx target in pci-ids.ini" % (dev, rev, name))
            continue
        if gfx not in supported:
            continue
        checked += 1
        for keys, what in ((vram, "[vram]"), (left, "[vram-left-out]")):
            if (dev, rev) in keys or (dev, None) in keys:
                break
        else:
            problems.append("1002:%04x rev %02x (%s, %s): neither in health.ini [vram] nor in [vram-left-out]"
                            % (dev, rev, name, gfx))
    # the tables' own consistency: each [vram] id has a target, no id is in both
    for dev in sorted({dev for dev, _ in vram}):
        if dev not in gfx_of:
            problems.append("health.ini [vram] 1002:%04x: no gfx target in pci-ids.ini" % dev)
    for key in sorted(vram & left, key=lambda x: (x[0], x[1] or -1)):
        problems.append("1002:%04x%s is in [vram] and in [vram-left-out]"
                        % (key[0], "" if key[1] is None else ".%02x" % key[1]))

    print("1..1")
    print("# %s: %d lines, %d with a supported target" % (ids_path, len(rows), checked))
    for p in problems:
        print("# " + p)
    if not rows or problems:
        print("not ok 1 - amdgpu.ids is covered by the GPU tables")
        return 1
    print("ok 1 - amdgpu.ids is covered by the GPU tables")
    return 0


if __name__ == "__main__":
    sys.exit(main())
