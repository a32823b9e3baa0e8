#!/usr/bin/env python3
"""The GPU code objects built for `verify` contain every requested gfx target,
each as code object version 4 and version 5.

    test-code-objects.py BINARY TARGETS(comma-separated) OBJECT.hsaco...

Each object is read as an ELF file (no ROCm tool needed): machine EM_AMDGPU,
the target in its metadata note and its e_flags, the three kernels in its
symbol table; the binary must embed them all.
"""
import os
import struct
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "lib"))
import rdtest  # noqa: E402

EM_AMDGPU = 224
# EF_AMDGPU_MACH values (llvm/BinaryFormat/ELF.h)
MACH = {
    0x02a: "gfx803", 0x02c: "gfx900", 0x02f: "gfx906", 0x030: "gfx908", 0x03f: "gfx90a",
    0x032: "gfx90c", 0x040: "gfx940", 0x04b: "gfx941", 0x04c: "gfx942", 0x04f: "gfx950",
    0x033: "gfx1010", 0x034: "gfx1011", 0x035: "gfx1012", 0x036: "gfx1030", 0x037: "gfx1031",
    0x038: "gfx1032", 0x039: "gfx1033", 0x03e: "gfx1034", 0x03d: "gfx1035", 0x045: "gfx1036",
    0x041: "gfx1100", 0x046: "gfx1101", 0x047: "gfx1102", 0x044: "gfx1103", 0x043: "gfx1150",
    0x04a: "gfx1151", 0x055: "gfx1152", 0x048: "gfx1200", 0x04e: "gfx1201",
}
# ELFABIVERSION_AMDGPU_HSA_V4, _V5
ABI_VERSION = {2: 4, 3: 5}
KERNELS = ("rd_vector_add", "rd_atomic_sum", "rd_empty")

def read_elf(path):
    data = open(path, "rb").read()
    if data[:4] != b"\x7fELF" or data[4] != 2:
        return None
    machine, = struct.unpack_from("<H", data, 18)
    flags, = struct.unpack_from("<I", data, 48)
    shoff, = struct.unpack_from("<Q", data, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", data, 0x3a)
    sections = []
    for i in range(shnum):
        name, stype, _, _, off, size, link, _, _, entsize = struct.unpack_from(
            "<IIQQQQIIQQ", data, shoff + i * shentsize)
        sections.append((name, stype, off, size, link, entsize))
    strtab = sections[shstrndx]

    def sname(off, table):
        start = table[2] + off
        return data[start:data.index(b"\0", start)].decode()
    notes = b"".join(data[s[2]:s[2] + s[3]] for s in sections if s[1] == 7)  # SHT_NOTE
    symbols = set()
    for s in sections:
        if s[1] in (2, 11):  # SHT_SYMTAB, SHT_DYNSYM
            table = sections[s[4]]
            for k in range(s[3] // s[5]):
                st_name, = struct.unpack_from("<I", data, s[2] + k * s[5])
                if st_name:
                    symbols.add(sname(st_name, table))
    names = [sname(s[0], strtab) for s in sections]
    return {"machine": machine, "mach": flags & 0xff, "abiversion": data[8], "notes": notes, "symbols": symbols,
            "sections": names}


BINARY, TARGETS, OBJECTS = sys.argv[1], sys.argv[2], sys.argv[3:]
REQUESTED = [t for t in TARGETS.split(",") if t]


def version_of(path):
    return 4 if path.endswith("-v4.hsaco") else 5 if path.endswith("-v5.hsaco") else None


@rdtest.test
def each_object_is_a_raw_code_object():
    rdtest.check(len(OBJECTS) == 2 * len(REQUESTED),
                 "two objects per target",
                 "%d objects, %d targets" % (len(OBJECTS), len(REQUESTED)))
    for path in OBJECTS:
        elf = read_elf(path)
        rdtest.check(elf is not None, path + " is ELF64")
        if not elf:
            continue
        rdtest.check(elf["machine"] == EM_AMDGPU, path + " is EM_AMDGPU", str(elf["machine"]))
        target = MACH.get(elf["mach"])
        rdtest.check(target is not None, path + " e_flags names a known target", hex(elf["mach"]))
        note = b"amdgcn-amd-amdhsa--" + (target or "?").encode()
        # the note must name this target exactly, not a longer one (gfx90 vs gfx90a)
        idx = elf["notes"].find(note)
        after = elf["notes"][idx + len(note):idx + len(note) + 1] if idx >= 0 else b""
        rdtest.check(idx >= 0 and not after.isalnum(), path + " metadata note names " + str(target), "")
        for k in KERNELS:
            rdtest.check(k in elf["symbols"] and k + ".kd" in elf["symbols"], path + " has kernel " + k)
        rdtest.check(".hip_fatbin" not in elf["sections"], path + " is a raw code object, not an offload bundle")
        version = version_of(path)
        rdtest.check(ABI_VERSION.get(elf["abiversion"]) == version,
                     path + " is code object v%s (EI_ABIVERSION)" % version,
                     str(elf["abiversion"]))


@rdtest.test
def every_target_is_built_as_v4_and_v5():
    found = {}
    for path in OBJECTS:
        elf = read_elf(path)
        if elf:
            found[(MACH.get(elf["mach"]), version_of(path))] = path
    for t in REQUESTED:
        for v in (4, 5):
            rdtest.check((t, v) in found, "target %s v%d was built" % (t, v), str(sorted(found)))


@rdtest.test
def the_binary_embeds_every_target():
    blob = open(BINARY, "rb").read()
    for t in REQUESTED:
        rdtest.check((b"amdgcn-amd-amdhsa--" + t.encode() + b"\0") in blob
                     or (b"amdgcn-amd-amdhsa--" + t.encode()) in blob,
                     "the binary embeds the %s code object" % t)


if not REQUESTED:
    print("SKIP: no GPU kernels were built (hip-kernels disabled or no AMDGPU compiler)")
    sys.exit(rdtest.EXIT_SKIP)
sys.exit(rdtest.main())
