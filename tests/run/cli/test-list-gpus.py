#!/usr/bin/env python3
"""`rocm-doctor list gpus` through the real binary: one row per product of
health.ini [vram] with its ids, target, memory, ROCm lines and name (text
and JSON), the ids left out with their reason, and a table that names an
unknown section failing with file:line.

    test-list-gpus.py ROCM_DOCTOR
"""
import json
import os
import shutil
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "lib"))
import rdtest  # noqa: E402
BIN = os.path.abspath(sys.argv[1])
SRC = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
CONF = os.environ.get("ROCM_DOCTOR_DATA_DIR", os.path.join(SRC, "conf"))



def run(*args, env=None):
    return rdtest.run(BIN, *args, env=env)


def vram_keys():
    """The keys of health.ini [vram], in order."""
    keys, inside = [], False
    with open(os.path.join(CONF, "health.ini"), encoding="utf-8") as f:
        for line in f:
            line = line.strip()
            if line.startswith("["):
                inside = line == "[vram]"
            elif inside and "=" in line and not line.startswith("#"):
                keys.append(line.split("=")[0].strip())
    return keys


def text_rows():
    """The text listing's lines, its rows by name and the GFX column."""
    lines = run("list", "gpus")[1].splitlines()
    w = lines[3].index("GFX")
    rows = {}
    for line in lines[4:]:
        if not line:
            break
        rows[line[w + 30:]] = line
    return lines, rows


@rdtest.test
def text_table():
    # ---- text ----
    rc, out, err = run("list", "gpus")
    rdtest.check(rc == 0 and err == "", "list gpus: exit 0, nothing on stderr", f"rc={rc} err={err!r}")
    lines = out.splitlines()
    rdtest.check(lines[0].startswith("# health.ini: table health, version ") and lines[1].startswith("# pci-ids.ini: table")
                 and lines[2].startswith("# support.ini: table"),
                 "list gpus: states each table's version and date",
                 lines[:3])
    head = lines[3]
    rdtest.check(head.split() == ["PCI", "ID", "GFX", "VRAM", "ROCM", "NAME"], "list gpus: the header", head)
    w = head.index("GFX")
    rows = {}
    for line in lines[4:]:
        if not line:
            break
        rows[line[w + 30:]] = line
    rdtest.check(rows.get("AMD Radeon PRO W7900") ==
                 "7448".ljust(w) + "gfx1100  48 GiB  5.7-7.2      AMD Radeon PRO W7900",
                 "list gpus: the W7900 row",
                 rows.get("AMD Radeon PRO W7900"))
    rdtest.check(rows.get("AMD Radeon RX 9070 XT") ==
                 "7550.c0".ljust(w) + "gfx1201  16 GiB  6.4-7.2      AMD Radeon RX 9070 XT",
                 "list gpus: the RX 9070 XT row (one revision)",
                 rows.get("AMD Radeon RX 9070 XT"))
    rdtest.check(rows.get("AMD Instinct MI355X") ==
                 "75a3".ljust(w) + "gfx950   288 GiB 7.0-7.2      AMD Instinct MI355X",
                 "list gpus: the MI355X row",
                 rows.get("AMD Instinct MI355X"))
    rdtest.check(rows.get("AMD Radeon RX 6900 XT") ==
                 "73af.c0 73bf.c0".ljust(w) + "gfx1030  16 GiB  5.0-7.2      AMD Radeon RX 6900 XT",
                 "list gpus: two devices of one product share a row",
                 rows.get("AMD Radeon RX 6900 XT"))
    rdtest.check(rows.get("AMD Radeon 8060S Graphics") ==
                 "1586.c1/c3/c6/d1".ljust(w) + "gfx1151  shared  7.1-7.2      AMD Radeon 8060S Graphics",
                 "list gpus: revisions of one device share a row; an APU's memory is shared",
                 rows.get("AMD Radeon 8060S Graphics"))
    rdtest.check(rows.get("AMD Radeon RX 7600") ==
                 "7480.cf".ljust(w) + "gfx1102  8 GiB   -            AMD Radeon RX 7600",
                 "list gpus: a target no release supports has no ROCm lines",
                 rows.get("AMD Radeon RX 7600"))
    rdtest.check(rows.get("AMD Radeon VII", "").split()[4:6] == ["5.0-5.7", "d6.4"],
                 "list gpus: a deprecated target",
                 rows.get("AMD Radeon VII"))
    keys = vram_keys()
    listed = sum(len(l[:w].split()) + sum(t.count("/") for t in l[:w].split()) for l in rows.values())
    rdtest.check(listed == len(keys), "list gpus: every [vram] key is in exactly one row", (listed, len(keys)))
    rdtest.check(len(rows) == len(set(rows)), "list gpus: no name twice", len(rows))
    i = lines.index("Left out on purpose (no memory size to judge by):")
    rdtest.check(lines[i + 1].split(None, 1) == ["66a1.02", "one id and revision for the Instinct MI50 (16 or 32 GB) "
                                                 "and the MI60 (32 GB)"] and
                 any(l.split(None, 1) == ["7590.c0", "Radeon RX 9060 XT: sold with 8 GB and with 16 GB under one id and "
                                                     "revision"] for l in lines[i:]),
                 "list gpus: the ids left out, with their reason",
                 lines[i:i + 3])


@rdtest.test
def json_agrees_with_the_text():
    # ---- JSON ----
    lines, rows = text_rows()
    i = lines.index("Left out on purpose (no memory size to judge by):")
    rc, out, err = run("list", "gpus", "--json")
    doc = json.loads(out) if rc == 0 else {}
    rdtest.check(rc == 0 and err == "", "list gpus --json: exit 0", err)
    rdtest.check([t.get("name") for t in doc.get("tables", [])] == ["health", "pci-ids", "support"],
                 "list gpus --json: health, pci-ids and support tables",
                 doc.get("tables"))
    by_name = {g["name"]: g for g in doc.get("gpus", [])}
    rdtest.check(len(by_name) == len(rows),
                 "list gpus --json: as many products as text rows",
                 (len(by_name), len(rows)))
    w7900 = by_name.get("AMD Radeon PRO W7900", {})
    rdtest.check(w7900 == {
                 "name": "AMD Radeon PRO W7900", "pci_ids": [{"vendor_id": "1002", "device_id": "7448", "revision": None}],
                 "gfx": "gfx1100", "vram_gib": 48, "shared_memory": False,
                 "supported_in": ["5.7", "6.0", "6.1", "6.2", "6.3", "6.4", "7.0", "7.1", "7.2"], "deprecated_in": []},
                 "list gpus --json: the W7900",
                 w7900)
    halo = by_name.get("AMD Radeon 8060S Graphics", {})
    rdtest.check([p["revision"] for p in halo.get("pci_ids", [])] == ["c1", "c3", "c6", "d1"] and halo.get("vram_gib") is None
                 and halo.get("shared_memory") is True and halo.get("supported_in") == ["7.1", "7.2"],
                 "list gpus --json: Strix Halo 8060S: four revisions, shared memory",
                 halo)
    left = {x["pci_id"]: x["reason"] for x in doc.get("left_out", [])}
    rdtest.check(left.get("74b5", "").startswith("Instinct MI300X VF (SR-IOV)")
                 and len(left) == len(lines) - i - 6,
                 "list gpus --json: left out, with reasons",
                 left)


@rdtest.test
def a_malformed_row_fails_with_file_and_line():
    # ---- a malformed [vram] row stops it with file:line ----
    tmp = tempfile.mkdtemp(prefix="rocm-doctor-list-gpus-")
    try:
        conf = os.path.join(tmp, "conf")
        shutil.copytree(CONF, conf)
        with open(os.path.join(conf, "health.ini"), "a", encoding="utf-8") as f:
            f.write("[vram]\n7fff = 48GB AMD Radeon PRO W7900\n")
        n = sum(1 for _ in open(os.path.join(conf, "health.ini"), encoding="utf-8"))
        rc, out, err = run("list", "gpus", env={"ROCM_DOCTOR_DATA_DIR": conf})
        rdtest.check(rc == 3 and out == "" and
                     err.strip() == 'rocm-doctor: %s/health.ini:%d: "48GB AMD Radeon PRO W7900" is not "GIB PRODUCT NAME" '
                     'or "shared PRODUCT NAME"' % (conf, n),
                     "list gpus: a malformed row: exit 3 naming file and line",
                     f"rc={rc} err={err!r}")
    finally:
        shutil.rmtree(tmp)


sys.exit(rdtest.main())
