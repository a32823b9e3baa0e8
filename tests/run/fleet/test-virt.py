#!/usr/bin/env python3
"""Virtualization is recognised as systemd-detect-virt does: DMI strings,
else the device tree's hypervisor node, /sys/hypervisor/type, and the CPUID
hypervisor signature where /proc/cpuinfo has the hypervisor flag. A KVM
guest without DMI strings is a KVM guest.

    test-virt.py ROCM_DOCTOR TB_RUN

Each case is a scenario testbed (umockdev: /sys and /proc as given); the
CPUID signature comes from ROCM_DOCTOR_TEST_CPUID_VENDOR, since the
instruction itself answers for the machine running the test.
"""
import json
import os
import re
import sys

sys.dont_write_bytecode = True  # keep the source tree clean
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "lib"))
import fleetlib  # noqa: E402
import rdtest  # noqa: E402

BIN, TB_RUN = sys.argv[1:3]
FLAGS_VM = "processor\t: 0\nvendor_id\t: AuthenticAMD\nflags\t\t: fpu sse2 hypervisor avx2\n"
FLAGS_METAL = "processor\t: 0\nvendor_id\t: AuthenticAMD\nflags\t\t: fpu sse2 avx2\n"

CASES = [
    # (what, overlay files, CPUID signature, expected virtualization, expected text header part)
    ("a KVM guest without DMI strings (CPUID KVMKVMKVM)", {"proc/cpuinfo": FLAGS_VM}, "KVMKVMKVM", "kvm"),
    ("KVM with Hyper-V enlightenments", {"proc/cpuinfo": FLAGS_VM}, "Linux KVM Hv", "kvm"),
    ("QEMU's TCG", {"proc/cpuinfo": FLAGS_VM}, "TCGTCGTCGTCG", "qemu"),
    ("the hypervisor flag with an unknown signature", {"proc/cpuinfo": FLAGS_VM}, "NotAVendor12", "vm-other"),
    ("bare metal: no flag, the CPUID signature is not asked", {"proc/cpuinfo": FLAGS_METAL}, "KVMKVMKVM", None),
    ("a device-tree guest (arm64 KVM)", {"proc/cpuinfo": FLAGS_METAL,
                                          "proc/device-tree/hypervisor/compatible": "linux,kvm\0"}, "", "kvm"),
    ("a device-tree Xen guest, second compatible string", {
        "proc/cpuinfo": FLAGS_METAL, "proc/device-tree/hypervisor/compatible": "xen,xen-4.17\0xen\0"}, "", "xen"),
    ("/sys/hypervisor/type", {"proc/cpuinfo": FLAGS_METAL, "sys/hypervisor/type": "xen\n"}, "", "xen"),
    ("DMI strings win over CPUID", {"proc/cpuinfo": FLAGS_VM, "sys/class/dmi/id/sys_vendor": "QEMU\n"},
     "Microsoft Hv", "qemu"),
]

def run_case(what, files, vendor, want):
    def prepare(sc):
        sc.tb.overlay_files.update(files)
    with fleetlib.Bed("healthy-rx7900xtx", BIN, TB_RUN, prepare=prepare) as bed:
        p = bed.run("facts", env={"ROCM_DOCTOR_TEST_CPUID_VENDOR": vendor})
        try:
            got = json.loads(p.stdout)["os"]["virtualization"]
        except (ValueError, KeyError) as e:
            got = "unparsable: %s %s" % (e, p.stderr[-500:])
        rdtest.check(got == want, "%s: %s" % (what, want), "got %r" % (got,))
        if want == "kvm" and what.startswith("a KVM guest"):
            p = bed.run("check", "--color", "never", env={"ROCM_DOCTOR_TEST_CPUID_VENDOR": vendor})
            header = p.stdout.split("\n\n")[0].replace("\n  ", " ")
            rdtest.check(", kvm VM" in header, "the text header says so", header)


def case_test(case):
    """Registers the test of one case, named by what it is."""
    def t():
        run_case(*case)
    t.__name__ = re.sub(r"\W+", "_", case[0]).strip("_").lower()
    rdtest.test(t)


for c in CASES:
    case_test(c)
sys.exit(rdtest.main())
