#!/usr/bin/env python3
"""`rocm-doctor explain` end to end: the real binary, on a scenario test bed
(tests/run/scenarios) or on a saved facts file, compared with the causes it must
name and its exit status.

    test-explain-e2e.py --list          the cases
    test-explain-e2e.py --list-root     the cases that need root
    test-explain-e2e.py NAME --binary PATH [--tb-run PATH]
    test-explain-e2e.py --coverage ERRORS_INI

--coverage checks the table of cases itself: every message of the errors
table, and every message the issue lists, has a case where one of its causes
applies and a case where none does.

A case runs as one test of tests/lib/rdtest.py, declared root=True where its
scenario switches uid. Exit status: 0 pass, 1 fail, 77 skipped (no tb-run,
or not root for a case that switches uid).
"""

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile

sys.dont_write_bytecode = True
HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.dirname(os.path.dirname(os.path.dirname(HERE)))
sys.path.insert(0, os.path.join(SRC, "tests", "run", "scenarios"))
sys.path.insert(0, os.path.join(SRC, "tests", "lib"))

import rdtest  # noqa: E402
import run as scenario_run  # noqa: E402  (imports every scenarios_*.py)
import scenarios  # noqa: E402

CLI_FACTS = os.path.join(SRC, "tests", "run", "cli", "facts")


class Case:
    """text: the message; scenario or facts: where; causes: the ids of the
    findings explain must name as applying, in order; exit_status; errors: the
    table entries it must recognise, in order; evidence: (id, text) that must be
    in that finding's evidence; stdout: strings the output must contain (text
    format, when json=False); args: more arguments; env: more environment."""

    def __init__(self, text, causes, exit_status, errors, scenario=None, facts=None,
                 evidence=(), json=True, stdout=(), args=(), unknown_findings=None, env=None):
        self.text = text
        self.causes = list(causes)
        self.exit_status = exit_status
        self.errors = list(errors)
        self.scenario = scenario
        self.facts = facts
        self.evidence = list(evidence)
        self.json = json
        self.stdout = list(stdout)
        self.args = list(args)
        self.unknown_findings = unknown_findings
        self.env = dict(env or {})


ACCESS = ["kfd.no-access", "render.no-access"]
CASES = {
    # hipErrorNoDevice: the access problem, a blacklist, the legacy driver; a
    # healthy box; a finding that is no cause of it (link-x4) gives exit 0.
    "hip-no-device-no-access": Case("hipErrorNoDevice", ACCESS, 2, ["hip-no-device"],
                                    scenario="user-not-in-render",
                                    evidence=[("kfd.no-access", "/dev/kfd")]),
    "hip-no-device-radeon": Case("HIP_ERROR_NoDevice", ["gpu.radeon-bound"], 2, ["hip-no-device"],
                                 scenario="radeon-gcn1"),
    "hip-no-device-code": Case("hipGetDeviceCount returned hipError 100", ["kfd.missing"], 2,
                               ["hip-no-device"], scenario="kfd-missing"),
    "hip-no-device-healthy": Case("hipErrorNoDevice", [], 0, ["hip-no-device"],
                                  scenario="healthy-rx7900xtx"),
    "hip-error-nodevice-healthy": Case("failed call to hipInit: HIP_ERROR_NoDevice", [], 0,
                                       ["hip-no-device"], scenario="link-idle-gen1"),
    "hip-no-device-other-warning": Case("hipErrorNoDevice", [], 0, ["hip-no-device"],
                                        scenario="link-x4"),
    "hip-no-device-wsl": Case("hipErrorNoDevice", ["host.wsl"], 2, ["hip-no-device"], scenario="wsl2-kernel"),
    # HIP_ERROR_InvalidDevice as TensorFlow logs it
    "hip-invalid-device-no-gpu": Case(
        "2024-02-26 07:35:02.170205: E tensorflow/compiler/xla/stream_executor/rocm/rocm_driver.cc:302] "
        "failed call to hipInit: HIP_ERROR_InvalidDevice", ["gpu.none"], 2, ["hip-invalid-device"],
        scenario="no-gpu"),
    "hip-invalid-device-healthy": Case("HIP_ERROR_InvalidDevice", [], 0, ["hip-invalid-device"],
                                       scenario="healthy-8x-mi300x"),
    # HSA_STATUS_ERROR_OUT_OF_RESOURCES, by name and by code
    "hsa-oor-no-access": Case("Call returned HSA_STATUS_ERROR_OUT_OF_RESOURCES", ACCESS, 2,
                              ["hsa-out-of-resources"], scenario="user-not-in-render"),
    "hsa-oor-code-kfd-missing": Case("hsa_init failed: 0x1008", ["kfd.missing"], 2,
                                     ["hsa-out-of-resources"], scenario="kfd-missing"),
    "hsa-oor-healthy": Case("HSA_STATUS_ERROR_OUT_OF_RESOURCES", [], 0, ["hsa-out-of-resources"],
                            scenario="mi300x-cpx"),
    # PyTorch
    "no-hip-gpus-blacklisted": Case("RuntimeError: No HIP GPUs are available",
                                    ["driver.blacklisted", "driver.not-loaded"], 2, ["no-hip-gpus"],
                                    scenario="blacklisted-etc",
                                    evidence=[("driver.blacklisted",
                                               "/etc/modprobe.d/blacklist-amdgpu.conf:3")]),
    "no-hip-gpus-healthy": Case("No HIP GPUs are available", [], 0, ["no-hip-gpus"],
                                scenario="apu-plus-dgpu"),
    # /dev/kfd and the render node
    "kfd-open-no-access": Case("Unable to open /dev/kfd read-write: Permission denied",
                               ["kfd.no-access"], 2, ["kfd-open-failed"], scenario="user-not-in-render"),
    "kfd-open-relogin": Case("Unable to open /dev/kfd read-write: Permission denied",
                             ["group.relogin-needed"], 1, ["kfd-open-failed"], scenario="relogin-needed"),
    "kfd-open-healthy": Case("Unable to open /dev/kfd read-write: Permission denied", [], 0,
                             ["kfd-open-failed"], scenario="healthy-rx7900xtx"),
    "kfd-missing-docker": Case(
        "docker: Error response from daemon: error gathering device information while adding custom "
        "device \"/dev/kfd\": no such file or directory.", ["kfd.missing"], 2, ["kfd-missing"],
        scenario="kfd-missing"),
    "kfd-missing-container-no-gpu": Case("Unable to open /dev/kfd read-write: No such file or directory",
                                         ["gpu.none"], 2, ["kfd-missing"], scenario="no-gpu-container"),
    "kfd-missing-healthy": Case("/dev/kfd: no such file or directory", [], 0, ["kfd-missing"],
                                scenario="healthy-rx7900xtx"),
    "render-open-no-access": Case("Failed to open /dev/dri/renderD128: Permission denied",
                                  ["render.no-access"], 2, ["render-open-failed"],
                                  scenario="user-not-in-render"),
    "render-open-healthy": Case("Failed to open /dev/dri/renderD128", [], 0, ["render-open-failed"],
                                scenario="healthy-rx7900xtx"),
    # PCIe atomics
    "pci-atomics-rx580": Case("kfd kfd: amdgpu: skipped device 1002:67df, PCI rejects atomics 730<0",
                              ["pcie.atomics-missing"], 2, ["pci-atomics"], scenario="rx580-no-atomics",
                              evidence=[("pcie.atomics-missing", "PCI rejects atomics")]),
    "pci-atomics-healthy": Case("PCI rejects atomics", [], 0, ["pci-atomics"], scenario="link-idle-gen1"),
    # no AMD GPU on the host: whatever the message, it came from no GPU here
    # (a log pasted from another machine); gpu.none is the answer, not "none
    # of its causes applies"
    "pci-atomics-no-gpu": Case("kfd kfd: amdgpu: skipped device 1002:7550, PCI rejects atomics 730<0",
                               ["gpu.none"], 2, ["pci-atomics"], scenario="no-gpu"),
    "gpu-hang-no-gpu-text": Case("HW Exception by GPU node-1 (Agent handle: 0x3508fba0) reason :GPU Hang", [], 2,
                                 ["gpu-hang"], scenario="nvidia-only", json=False,
                                 stdout=["The cause on this host:", "[gpu.none]", "No AMD GPU is visible",
                                         "cannot have come from this host's", "GPU."]),
    "memory-fault-no-gpu-container": Case("Memory access fault by GPU node-1 (Agent handle: 0x55d1c0e5a9d0) on "
                                          "address 0x7f2c5c000000. Reason: Page not present or supervisor "
                                          "privilege.", ["gpu.none"], 2, ["memory-access-fault"],
                                          scenario="no-gpu-container"),
    # the driver
    "rock-not-loaded-nomodeset": Case("ROCk module is NOT loaded, possibly no GPU devices",
                                      ["driver.nomodeset", "driver.not-loaded"], 2, ["rock-not-loaded"],
                                      scenario="nomodeset"),
    "rock-not-loaded-no-driver": Case("ROCk module is NOT loaded", ["gpu.no-driver"], 2,
                                      ["rock-not-loaded"], scenario="no-driver"),
    "rock-not-loaded-healthy": Case("ROCk module is NOT loaded", [], 0, ["rock-not-loaded"],
                                    scenario="etc-overrides-usr-blacklist"),
    "firmware-missing": Case("amdgpu 0000:0c:00.0: amdgpu: Fatal error during GPU init",
                             ["driver.firmware-missing", "gpu.no-driver"], 2, ["firmware-load-failed"],
                             scenario="navi21-firmware-missing",
                             evidence=[("driver.firmware-missing", "sienna_cichlid_smc.bin")]),
    "firmware-healthy": Case("Direct firmware load for amdgpu/sienna_cichlid_smc.bin failed with error -2",
                             [], 0, ["firmware-load-failed"], scenario="link-idle-gen1"),
    "bar-no-space": Case("pci 0000:0c:00.0: BAR 0: no space for [mem size 0x400000000 64bit pref]",
                         ["pcie.bar-small"], 1, ["bar-no-space"], scenario="navi21-bar-no-space",
                         evidence=[("pcie.bar-small", "BAR 0: no space")]),
    "bar-no-space-healthy": Case("BAR 0: no space", [], 0, ["bar-no-space"], scenario="healthy-8x-mi300x"),
    "kfd-unsupported": Case("amdgpu: GC IP 0b0000 not supported in kfd", ["driver.kfd-unsupported"], 2,
                            ["kfd-unsupported"], scenario="rx7900xtx-kfd-unsupported"),
    "kfd-unsupported-healthy": Case("not supported in kfd", [], 0, ["kfd-unsupported"],
                                    scenario="healthy-rx7900xtx"),
    "key-rejected-healthy": Case("modprobe: ERROR: could not insert 'amdgpu': Key was rejected by service",
                                 [], 0, ["secure-boot-key-rejected"], scenario="healthy-rx7900xtx"),
    # messages whose causes other checks report: none applies on a healthy box
    "no-binary-healthy": Case("hipErrorNoBinaryForGpu", [], 0, ["no-binary-for-gpu"],
                              scenario="healthy-rx7900xtx"),
    "invalid-device-function-healthy": Case("RuntimeError: HIP error: invalid device function", [], 0,
                                            ["invalid-device-function"], scenario="healthy-rx7900xtx"),
    "invalid-isa-healthy": Case("HSA_STATUS_ERROR_INVALID_ISA", [], 0, ["hsa-invalid-isa"],
                                scenario="healthy-rx7900xtx"),
    "invalid-isa-apu": Case("HSA_STATUS_ERROR_INVALID_ISA", ["apu.igpu-conflict"], 1, ["hsa-invalid-isa"],
                            scenario="apu-plus-dgpu"),
    "illegal-instruction-healthy": Case("HIP_ERROR_ILLEGAL_INSTRUCTION", [], 0, ["illegal-instruction"],
                                        scenario="healthy-rx7900xtx"),
    "no-pubkey-healthy": Case("W: GPG error: NO_PUBKEY 9386B48A1A693C5C", [], 0, ["apt-no-pubkey"],
                              scenario="healthy-rx7900xtx"),
    # causes the environment checks report: overrides of another family or
    # reaching an iGPU, visible-device variables, containers, an iGPU next to a
    # dGPU, build targets and the PyTorch build, IOMMU passthrough
    "invalid-isa-wrong-family": Case(
        "hsa_executable_load_agent_code_object failed: HSA_STATUS_ERROR_INVALID_ISA",
        ["arch.override-wrong-family"], 2, ["hsa-invalid-isa"], scenario="env-override-wrong-family",
        evidence=[("arch.override-wrong-family", "/etc/environment:2: HSA_OVERRIDE_GFX_VERSION=10.3.0")]),
    "illegal-instruction-wrong-family": Case(
        "HIP_ERROR_ILLEGAL_INSTRUCTION", ["arch.override-wrong-family"], 2, ["illegal-instruction"],
        scenario="env-override-per-node-wrong-family",
        evidence=[("arch.override-wrong-family", "/etc/profile.d/rocm.sh:3")]),
    "invalid-isa-global-igpu": Case("HSA_STATUS_ERROR_INVALID_ISA",
                                    ["arch.override-global-with-igpu", "apu.igpu-conflict"], 1,
                                    ["hsa-invalid-isa"], scenario="env-override-global-with-igpu",
                                    evidence=[("arch.override-global-with-igpu", "/home/alice/.profile:5")]),
    "illegal-instruction-global-igpu": Case("HSA_STATUS_ERROR_ILLEGAL_INSTRUCTION: code: 0x2a",
                                            ["arch.override-global-with-igpu", "apu.igpu-conflict"], 1,
                                            ["illegal-instruction"], scenario="env-override-global-with-igpu"),
    "invalid-isa-same-family": Case("HSA_STATUS_ERROR_INVALID_ISA", [], 0, ["hsa-invalid-isa"],
                                    scenario="env-override-same-family"),
    "hip-no-device-visible-devices": Case(
        "hipErrorNoDevice", ["env.visible-devices-hides-all"], 2, ["hip-no-device"],
        scenario="env-visible-devices-hides-all",
        evidence=[("env.visible-devices-hides-all", "ROCR_VISIBLE_DEVICES=1")]),
    "no-hip-gpus-stale-uuid": Case(
        "RuntimeError: No HIP GPUs are available", ["env.visible-devices-hides-all"], 2, ["no-hip-gpus"],
        scenario="env-visible-devices-stale-uuid",
        evidence=[("env.visible-devices-hides-all", "HIP_VISIBLE_DEVICES=GPU-946d7e1ef9b172dd")]),
    "no-hip-gpus-visible-by-uuid": Case("No HIP GPUs are available", [], 0, ["no-hip-gpus"],
                                        scenario="env-visible-devices-by-uuid"),
    "hsa-oor-override-invalid": Case("Call returned HSA_STATUS_ERROR_OUT_OF_RESOURCES",
                                     ["arch.override-invalid"], 2, ["hsa-out-of-resources"],
                                     scenario="env-override-invalid",
                                     evidence=[("arch.override-invalid", "HSA_OVERRIDE_GFX_VERSION=\"10.3\"")]),
    "kfd-missing-docker-no-devices": Case(
        "docker: Error response from daemon: error gathering device information while adding custom "
        "device \"/dev/kfd\": no such file or directory.", ["container.devices-missing"], 2,
        ["kfd-missing"], scenario="docker-no-gpu-devices",
        evidence=[("container.devices-missing", "/dev/dri/renderD128: absent in the container")]),
    "kfd-missing-docker-read-write": Case("Unable to open /dev/kfd read-write: No such file or directory",
                                          ["container.devices-missing"], 2, ["kfd-missing"],
                                          scenario="docker-no-gpu-devices"),
    "render-open-docker-no-render": Case("Failed to open /dev/dri/renderD128: No such file or directory",
                                         ["container.devices-missing"], 2, ["render-open-failed"],
                                         scenario="container-devices-missing"),
    "kfd-open-container-gid": Case("Unable to open /dev/kfd read-write: Permission denied",
                                   ["container.gid-mismatch"], 2, ["kfd-open-failed"],
                                   scenario="container-gid-mismatch",
                                   evidence=[("container.gid-mismatch", "group 992 (no name in this container)")]),
    "container-gid-name": Case("groups: cannot find name for group ID 992", ["container.gid-mismatch"], 2,
                               ["container-gid"], scenario="container-gid-mismatch"),
    "container-gid-healthy": Case("cannot find name for group ID 992", [], 0, ["container-gid"],
                                  scenario="healthy-rx7900xtx"),
    "memory-fault-apu": Case(
        "Memory access fault by GPU node-1 (Agent handle: 0x55d0c0e0) on address 0x7f0000. "
        "Reason: Page not present or supervisor privilege.", ["apu.igpu-conflict"], 1,
        ["memory-access-fault"], scenario="apu-plus-dgpu"),
    "memory-fault-apu-global-override": Case(
        "Memory access fault by GPU node-2", ["apu.igpu-conflict", "arch.override-global-with-igpu"], 1,
        ["memory-access-fault"], scenario="env-override-global-with-igpu"),
    "memory-fault-igpu-hidden": Case("Memory access fault by GPU node-1", [], 0, ["memory-access-fault"],
                                     scenario="apu-igpu-hidden-by-uuid"),
    "iommu-pt-missing": Case(
        "NCCL WARN Missing \"iommu=pt\" from kernel command line which can lead to system instablity or hang!",
        ["tuning.iommu-pt"], 1, ["iommu-pt"], scenario="mi300x-iommu-no-pt",
        evidence=[("tuning.iommu-pt", "/sys/class/iommu: ivhd0")]),
    "iommu-pt-set": Case("Missing \"iommu=pt\"", [], 0, ["iommu-pt"], scenario="mi300x-tuned"),
    "invalid-device-function-pytorch-arch": Case(
        "RuntimeError: HIP error: invalid device function", ["env.pytorch-arch-mismatch"], 1,
        ["invalid-device-function"], scenario="env-pytorch-arch-mismatch",
        evidence=[("env.pytorch-arch-mismatch", "PYTORCH_ROCM_ARCH=gfx90a;gfx942")]),
    "no-binary-pytorch-arch": Case("hipErrorNoBinaryForGpu: Unable to find code object for all current devices!",
                                   ["env.pytorch-arch-mismatch"], 1, ["no-binary-for-gpu"],
                                   scenario="env-pytorch-arch-mismatch"),
    "no-binary-targets-match": Case("hipErrorNoBinaryForGpu", [], 0, ["no-binary-for-gpu"],
                                    scenario="env-amdgpu-targets-match"),
    "no-binary-torch-wheel": Case("hipErrorNoBinaryForGpu", ["arch.no-kernels"], 2, ["no-binary-for-gpu"],
                                  scenario="torch-rocm-no-gfx1100",
                                  evidence=[("arch.no-kernels", "torch._C._cuda_getArchFlags()")]),
    # PyTorch aborts in is_available(): the abort is evidence (rocm-doctor#15)
    "no-binary-torch-abort": Case("hipErrorNoBinaryForGpu: Unable to find code object for all current devices!",
                                  ["arch.no-kernels"], 2, ["no-binary-for-gpu"],
                                  scenario="rx6900xt-rocm42-wheel-abort",
                                  evidence=[("arch.no-kernels", "hipErrorNoBinaryForGpu")]),
    "no-binary-torch-abort-healthy": Case("hipErrorNoBinaryForGpu", [], 0, ["no-binary-for-gpu"],
                                          scenario="rx6900xt-rocm42-wheel-abort-twin"),
    "hip-oom-apu-carveout": Case(
        "torch.cuda.OutOfMemoryError: HIP out of memory. Tried to allocate 2.00 MiB (GPU 0; 512.00 MiB total "
        "capacity; 150.39 MiB already allocated; 312.00 MiB free)", ["apu.small-carveout"], 1,
        ["hip-out-of-memory"], scenario="rembrandt-680m-512m-carveout",
        evidence=[("apu.small-carveout", "mem_info_vram_total: 536870912")]),
    "hip-oom-healthy": Case("hipErrorOutOfMemory", [], 0, ["hip-out-of-memory"],
                            scenario="rembrandt-680m-512m-carveout-twin"),
    "no-hip-gpus-cpu-wheel": Case("torch.cuda.is_available() returns False", ["arch.no-kernels"], 2,
                                  ["no-hip-gpus"], scenario="torch-cpu-wheel"),
    "no-hip-gpus-torch-ok": Case("No HIP GPUs are available", [], 0, ["no-hip-gpus"],
                                 scenario="torch-rocm-ok"),
    # apt: the key, the suite, placeholders, the pin
    "no-pubkey-key-missing": Case(
        "W: GPG error: https://repo.radeon.com/rocm/apt/6.2.4 noble InRelease: The following signatures "
        "couldn't be verified because the public key is not available: NO_PUBKEY 9386B48A1A693C5C",
        ["apt.key-missing"], 2, ["apt-no-pubkey"], scenario="apt-key-missing",
        evidence=[("apt.key-missing", "/etc/apt/keyrings/rocm.gpg: missing")]),
    "no-pubkey-apt-key-legacy": Case("NO_PUBKEY 9386B48A1A693C5C", ["apt.key-deprecated", "apt.no-signed-by"], 1,
                                     ["apt-no-pubkey"], scenario="apt-key-legacy",
                                     evidence=[("apt.key-deprecated", "/etc/apt/trusted.gpg.d/rocm.asc")]),
    "no-pubkey-rocm-healthy": Case("NO_PUBKEY 9386B48A1A693C5C", [], 0, ["apt-no-pubkey"],
                                   scenario="healthy-rx7900xtx-rocm"),
    "no-release-suite": Case(
        "E: The repository 'https://repo.radeon.com/amdgpu/6.2.4/ubuntu ubuntu Release' does not have a "
        "Release file.", ["apt.suite-mismatch"], 2, ["apt-no-release"], scenario="apt-suite-mismatch",
        evidence=[("apt.suite-mismatch", "/etc/apt/sources.list.d/amdgpu.list:1:")]),
    "no-release-placeholder": Case(
        "E: The repository 'https://repo.radeon.com/amdgpu/@AMDGPUVER@/ubuntu noble Release' does not have a "
        "Release file.", ["apt.repo-missing"], 2, ["apt-no-release"], scenario="apt-placeholder",
        evidence=[("apt.repo-missing", "(literal @AMDGPUVER@)")]),
    "no-release-rocm-healthy": Case("does not have a Release file", [], 0, ["apt-no-release"],
                                    scenario="healthy-navi21-rocm-deb822"),
    "unmet-deps-suite": Case("The following packages have unmet dependencies:\n"
                             " amdgpu-dkms : Depends: libpython3.10 but it is not installable",
                             ["apt.suite-mismatch"], 2, ["apt-unmet-dependencies"], scenario="apt-suite-mismatch"),
    "unmet-deps-pin": Case("E: Unable to correct problems, you have held broken packages.", ["apt.pin-missing"], 1,
                           ["apt-unmet-dependencies"], scenario="apt-pin-missing",
                           evidence=[("apt.pin-missing", "pins o=repo.radeon.com")]),
    "unmet-deps-rocm-healthy": Case("The following packages have unmet dependencies", [], 0,
                                    ["apt-unmet-dependencies"], scenario="healthy-rx7900xtx-rocm"),
    # Secure Boot and DKMS
    "key-rejected-secure-boot": Case("modprobe: ERROR: could not insert 'amdgpu': Key was rejected by service",
                                     ["driver.secure-boot-dkms", "driver.not-loaded"], 2,
                                     ["secure-boot-key-rejected"], scenario="secure-boot-dkms",
                                     evidence=[("driver.secure-boot-dkms", "/var/lib/dkms/amdgpu: 6.8.5-2041575.24.04")]),
    # rpm-based hosts (scenarios_rpm.py): dnf, zypper, DKMS headers
    "gpg-check-failed-key-missing": Case(
        "Public key for rocm-core-7.0.2.70002-56.el9.x86_64.rpm is not installed\nError: GPG check FAILED",
        ["dnf.key-missing"], 1, ["dnf-gpg-check-failed"], scenario="rhel9-key-not-imported",
        evidence=[("dnf.key-missing", "rpm -q gpg-pubkey: no gpg-pubkey-1a693c5c-*")]),
    "gpg-check-failed-healthy": Case("Error: GPG check FAILED", [], 0, ["dnf-gpg-check-failed"],
                                     scenario="healthy-rhel96-8x-mi300x"),
    "status-404-rhel8-tree": Case(
        "Errors during downloading metadata for repository 'amdgpu':\n  - Status code: 404 for "
        "https://repo.radeon.com/amdgpu/30.10.2/el/8.10/main/x86_64/repodata/repomd.xml (IP: 23.218.216.204)",
        ["dnf.repo-path", "dnf.release-mismatch"], 2, ["dnf-status-404"], scenario="rhel9-rhel8-tree",
        evidence=[("dnf.repo-path", "https://repo.radeon.com/amdgpu/30.10.2/el/8/main/x86_64")]),
    # a tree 7.0.2 does not have (its EL 9 trees are 9.4 and 9.6; the same 404
    # for 30.10.1 in ROCm/ROCm#5954), on a healthy host: the message's own URL
    "status-404-el97-tree": Case("Status code: 404 for https://repo.radeon.com/amdgpu/30.10.2/el/9.7/main/x86_64/",
                                 ["dnf.repo-path"], 2, ["dnf-status-404"], scenario="healthy-rhel96-8x-mi300x",
                                 evidence=[("dnf.repo-path", "https://repo.radeon.com/amdgpu/30.10.2/el/9.6/main/x86_64")]),
    # a folder AMD serves whose metadata was out of step (ROCm/ROCm#5476): no cause here
    "status-404-healthy": Case("Status code: 404 for https://repo.radeon.com/amdgpu/30.10.2/el/9.6/main/x86_64/"
                               "repodata/8397c2-primary.xml.gz", [], 0, ["dnf-status-404"],
                               scenario="healthy-rhel96-8x-mi300x"),
    "nothing-provides-crb": Case(
        "Problem: package hipcc-1.1.1.70002-56.el9.x86_64 requires perl-File-BaseDir, but none of the providers "
        "can be installed\n  - nothing provides perl-File-BaseDir needed by hipcc-1.1.1.70002-56.el9.x86_64",
        ["dnf.prereq-repo-missing"], 1, ["dnf-nothing-provides"], scenario="rhel9-crb-disabled"),
    "nothing-provides-healthy": Case("nothing provides perl-URI-Encode needed by hip-devel", [], 0,
                                     ["dnf-nothing-provides"], scenario="healthy-rhel96-8x-mi300x"),
    "no-match-repo-missing": Case("No match for argument: rocm\nError: Unable to find a match: rocm",
                                  ["dnf.repo-missing"], 1, ["dnf-no-match"], scenario="rhel9-repo-missing"),
    "no-match-healthy": Case("Error: Unable to find a match: rocm-dkms", [], 0, ["dnf-no-match"],
                             scenario="healthy-rhel96-8x-mi300x"),
    "zypper-signature-gpgcheck": Case(
        "Signature verification failed for file 'repomd.xml' from repository 'ROCm-6.4.3'.",
        ["zypper.gpgcheck-off"], 1, ["zypper-signature-failed"], scenario="sles156-gpgcheck-off"),
    "zypper-signature-healthy": Case("Signature verification failed for file 'repomd.xml'", [], 0,
                                     ["zypper-signature-failed"], scenario="healthy-sles156-8x-mi300x"),
    "dkms-headers-rhel": Case(
        "Error! Your kernel headers for kernel 5.14.0-570.12.1.el9_6.x86_64 cannot be found at "
        "/lib/modules/5.14.0-570.12.1.el9_6.x86_64/build or /lib/modules/5.14.0-570.12.1.el9_6.x86_64/source.",
        ["kernel.devel-missing", "driver.not-loaded"], 2, ["dkms-headers-missing"],
        scenario="rhel9-kernel-devel-missing"),
    "dkms-headers-healthy": Case("Your kernel headers for kernel 6.8.0-51-generic cannot be found", [], 0,
                                 ["dkms-headers-missing"], scenario="healthy-8x-mi300x-rocm-dkms"),
    "key-rejected-key-enrolled": Case("Key was rejected by service", [], 0, ["secure-boot-key-rejected"],
                                      scenario="healthy-8x-mi300x-rocm-dkms"),
    "rock-not-loaded-secure-boot": Case("ROCk module is NOT loaded", ["driver.secure-boot-dkms", "driver.not-loaded"],
                                        2, ["rock-not-loaded"], scenario="secure-boot-dkms"),
    "dkms-build-kernel-unsupported": Case(
        "Error! Bad return status for module build on kernel: 6.11.0-19-generic (x86_64)", ["kernel.unsupported"], 1,
        ["dkms-build-failed"], scenario="kernel-unsupported",
        evidence=[("kernel.unsupported", "/proc/sys/kernel/osrelease: 6.11.0-19-generic")]),
    "dkms-build-userspace-mismatch": Case("Bad return status for module build", ["driver.userspace-mismatch"], 1,
                                          ["dkms-build-failed"], scenario="driver-userspace-mismatch",
                                          evidence=[("driver.userspace-mismatch", "16 months apart, 12 allowed")]),
    "dkms-build-healthy": Case("Bad return status for module build", [], 0, ["dkms-build-failed"],
                               scenario="healthy-8x-mi300x-rocm-dkms"),
    # several causes hold: the one that stops the build first comes first (no
    # headers: the build cannot start), then the kernel the release lacks
    # (tests/run/scenarios/scenarios_kernel.py, ROCm/ROCm#3701 after an HWE update)
    "dkms-build-headers-first": Case(
        "Error! Bad return status for module build on kernel: 6.17.0-14-generic (x86_64)",
        ["kernel.devel-missing", "kernel.unsupported", "driver.not-loaded"], 2, ["dkms-build-failed"],
        scenario="ubuntu2404-hwe-headers-missing",
        evidence=[("kernel.devel-missing", "/lib/modules/6.17.0-14-generic/build: missing")]),
    "dkms-build-headers-first-text": Case(
        "Bad return status for module build", [], 2, ["dkms-build-failed"],
        scenario="ubuntu2404-hwe-headers-missing", json=False,
        stdout=["Causes on this host, most likely first:", "[kernel.devel-missing]",
                "sudo apt install linux-headers-6.17.0-14-generic"]),
    "dkms-build-headers-first-twin": Case("Bad return status for module build", [], 0, ["dkms-build-failed"],
                                          scenario="ubuntu2404-hwe-headers-missing-twin"),
    # the build ran against the headers and failed (ROCm/ROCm#5624, Ubuntu 25.10)
    "dkms-build-failed-unlisted": Case(
        "Error! Bad return status for module build on kernel: 6.17.0-6-generic (x86_64)",
        ["driver.dkms-build-failed", "kernel.unsupported"], 1, ["dkms-build-failed"],
        scenario="ubuntu2510-rx9070xt-dkms-failed"),
    "dkms-build-failed-unlisted-twin": Case("Bad return status for module build", [], 0, ["dkms-build-failed"],
                                            scenario="ubuntu2510-rx9070xt-dkms-failed-twin"),
    # no code for the GPU in the installation, or a release that does not support it
    "no-binary-arch-no-kernels": Case(
        "hipErrorNoBinaryForGpu: Unable to find code object for all current devices!", ["arch.no-kernels"], 2,
        ["no-binary-for-gpu"], scenario="arch-no-kernels",
        evidence=[("arch.no-kernels", "/opt/rocm-6.2.4/lib/rocblas/library: kernel files for gfx90a, gfx942")]),
    "no-binary-arch-unsupported": Case("hipErrorNoBinaryForGpu", ["arch.unsupported"], 1, ["no-binary-for-gpu"],
                                       scenario="arch-unsupported",
                                       evidence=[("arch.unsupported", "ROCm 5.6 supports gfx90a, gfx908")]),
    "no-binary-gfx1031": Case("hipErrorNoBinaryForGpu", ["arch.no-kernels", "arch.unsupported"], 2,
                              ["no-binary-for-gpu"], scenario="rx6700xt-gfx1031",
                              evidence=[("arch.unsupported", "0000:0c:00.0: gfx1031")]),
    "no-binary-multiple-versions": Case("hipErrorNoBinaryForGpu", ["rocm.multiple-versions"], 1,
                                        ["no-binary-for-gpu"], scenario="rocm-multiple-versions"),
    "no-binary-rocm-healthy": Case("hipErrorNoBinaryForGpu", [], 0, ["no-binary-for-gpu"],
                                   scenario="healthy-rx7900xtx-rocm"),
    "invalid-device-function-gfx1031": Case("RuntimeError: HIP error: invalid device function",
                                            ["arch.no-kernels", "arch.unsupported"], 2,
                                            ["invalid-device-function"], scenario="rx6700xt-gfx1031"),
    "invalid-device-function-arch-unsupported": Case("invalid device function", ["arch.unsupported"], 1,
                                                     ["invalid-device-function"], scenario="arch-unsupported"),
    "rocblas-arch-no-kernels": Case(
        "rocBLAS error: Cannot read /opt/rocm/lib/rocblas/library/TensileLibrary.dat: No such file or directory",
        ["arch.no-kernels"], 2, ["rocblas-no-kernels"], scenario="arch-no-kernels"),
    "rocblas-gfx1031": Case("rocBLAS error: Cannot read /opt/rocm/lib/rocblas/library/TensileLibrary.dat",
                            ["arch.no-kernels", "arch.unsupported"], 2, ["rocblas-no-kernels"],
                            scenario="rx6700xt-gfx1031"),
    "rocblas-rocm-healthy": Case("rocBLAS error: Cannot read TensileLibrary.dat", [], 0, ["rocblas-no-kernels"],
                                 scenario="healthy-rx7900xtx-rocm"),
    "invalid-isa-gfx1031": Case("HSA_STATUS_ERROR_INVALID_ISA", ["arch.no-kernels", "arch.unsupported"], 2,
                                ["hsa-invalid-isa"], scenario="rx6700xt-gfx1031"),
    "illegal-instruction-arch-no-kernels": Case("HIP_ERROR_ILLEGAL_INSTRUCTION", ["arch.no-kernels"], 2,
                                                ["illegal-instruction"], scenario="arch-no-kernels"),
    # the installation and PATH
    "command-not-found-path": Case("bash: rocminfo: command not found", ["path.rocm-bin-missing"], 1,
                                   ["rocm-command-not-found"], scenario="rocm-path-missing",
                                   evidence=[("path.rocm-bin-missing", "PATH (process environment)")]),
    "command-not-found-not-installed": Case("hipcc: command not found", ["rocm.not-installed"], 1,
                                            ["rocm-command-not-found"], scenario="rocm-not-installed",
                                            evidence=[("rocm.not-installed", "/opt/rocm -> /etc/alternatives/rocm")]),
    # ROCm absent and nothing asking for it: info in the check, still the answer here
    "command-not-found-no-rocm": Case("bash: rocminfo: command not found", ["rocm.not-installed"], 1,
                                      ["rocm-command-not-found"], scenario="rocm-none-plain",
                                      evidence=[("rocm.not-installed", "/opt/rocm: absent")]),
    "lib-missing-no-rocm-text": Case("libamdhip64.so.6: cannot open shared object file", [], 1,
                                     ["rocm-lib-missing"], scenario="rocm-none-plain", json=False,
                                     stdout=["The cause on this host:", "  i ", "[rocm.not-installed]"]),
    "command-not-found-rocm-healthy": Case("rocm-smi: command not found", [], 0, ["rocm-command-not-found"],
                                           scenario="healthy-rx7900xtx-rocm"),
    "lib-missing-not-installed": Case(
        "./saxpy: error while loading shared libraries: libamdhip64.so.6: cannot open shared object file: "
        "No such file or directory", ["rocm.not-installed"], 1, ["rocm-lib-missing"], scenario="rocm-not-installed"),
    "lib-missing-level2": Case(
        "OSError: libhsa-runtime64.so.1: cannot open shared object file: No such file or directory",
        ["runtime.hsa-missing", "runtime.hip-missing"], 2, ["rocm-lib-missing"], scenario="healthy-rx7900xtx-rocm",
        args=["--level", "2"], env={"ROCM_DOCTOR_RUNTIME_LIB": "/nonexistent/libhsa-runtime64.so.1"},
        evidence=[("runtime.hsa-missing", "/nonexistent/libhsa-runtime64.so.1")]),
    "lib-missing-rocm-healthy": Case("libamdhip64.so.6: cannot open shared object file", [], 0,
                                     ["rocm-lib-missing"], scenario="healthy-rx7900xtx-rocm"),
    # level 2: the real runtime (Debian's libhsa-runtime64) fails as it fails for users
    "hsa-oor-level2-kfd-missing": Case("Call returned HSA_STATUS_ERROR_OUT_OF_RESOURCES",
                                       ["kfd.missing", "runtime.hsa-init-failed"], 2, ["hsa-out-of-resources"],
                                       scenario="kfd-missing", args=["--level", "2"],
                                       evidence=[("runtime.hsa-init-failed", "cause: kfd.missing")]),
    "hsa-oor-level2-only": Case("hsa_init failed: 0x1008", ["runtime.hsa-init-failed"], 2,
                                ["hsa-out-of-resources"], scenario="runtime-real-kfd-refuses",
                                evidence=[("runtime.hsa-init-failed", "HSA_STATUS_ERROR_OUT_OF_RESOURCES")]),
    "hip-no-device-level2-no-gpu": Case("hipErrorNoDevice", ["gpu.none"], 2,
                                        ["hip-no-device"], scenario="runtime-real-no-gpu"),
    "text-report-level2-hint": Case("HSA_STATUS_ERROR_OUT_OF_RESOURCES", [], 0, ["hsa-out-of-resources"],
                                    scenario="healthy-rx7900xtx", json=False,
                                    stdout=["None of its known causes applies on this host.",
                                            "Checked only with --level 2: runtime.hsa-init-failed."]),
    # a GPU that hangs
    "gpu-hang-iommu": Case("HW Exception by GPU node-4 (Agent handle: 0x1ebc04e0) reason :GPU Hang",
                           ["tuning.iommu-pt"], 1, ["gpu-hang"], scenario="mi300x-iommu-no-pt"),
    "gpu-hang-tuned": Case("HW Exception by GPU node-1 (Agent handle: 0x3508fba0) reason :GPU Hang", [], 0,
                           ["gpu-hang"], scenario="mi300x-tuned"),
    # a pasted log with three messages: one cause, named once
    "log-three-messages": Case(
        "Unable to open /dev/kfd read-write: Permission denied\n"
        "Call returned HSA_STATUS_ERROR_OUT_OF_RESOURCES\n"
        "RuntimeError: No HIP GPUs are available\n", ACCESS, 2,
        ["kfd-open-failed", "hsa-out-of-resources", "no-hip-gpus"], scenario="user-not-in-render"),
    # a saved facts file instead of a test bed
    "facts-no-access": Case("hipErrorNoDevice", ACCESS, 2, ["hip-no-device"],
                            facts="rx7900xtx-no-access.json"),
    "facts-nvidia-only": Case("hipErrorNoDevice", ["gpu.none"], 2, ["hip-no-device"],
                              facts="nvidia-h200.json"),
    "facts-not-a-cause": Case("PCI rejects atomics", [], 0, ["pci-atomics"],
                              facts="rx7900xtx-no-access.json"),
    # unknown text: said so, the whole check instead, with its exit status
    "unknown-text": Case("the printer is on fire", [], 2, [], scenario="no-gpu",
                         unknown_findings=["gpu.none"]),
    "unknown-text-healthy": Case("everything is slow today", [], 0, [], scenario="healthy-rx7900xtx",
                                 unknown_findings=[]),
    # the text report
    "text-report": Case("hipErrorNoDevice", ACCESS, 2, ["hip-no-device"], scenario="user-not-in-render",
                        json=False,
                        stdout=["hipErrorNoDevice\n", "Causes on this host, most likely first:",
                                "[kfd.no-access]", "[render.no-access]", "Fix:"]),
    "text-report-none": Case("PCI rejects atomics", [], 0, ["pci-atomics"], scenario="healthy-rx7900xtx",
                             json=False,
                             stdout=["None of its known causes applies on this host.",
                                     "Checked: pcie.atomics-missing."]),
    "text-report-unknown": Case("the printer is on fire", [], 0, [], scenario="healthy-rx7900xtx",
                                json=False,
                                stdout=["rocm-doctor does not know this message",
                                        "0000:03:00.0", "gfx1100"]),
    # GPU health (tests/run/scenarios/scenarios_health.py): kernel log messages
    "gpu-reset-failed": Case("amdgpu 0000:85:00.0: amdgpu: GPU reset(1) failed",
                             ["gpu.reset-failed", "gpu.reset-seen"], 2, ["gpu-reset"],
                             scenario="health-reset-failed",
                             evidence=[("gpu.reset-failed", "GPU reset(1) failed")]),
    "gpu-reset-healthy": Case("amdgpu: GPU reset begin!", [], 0, ["gpu-reset"], scenario="healthy-8x-mi300x"),
    "ring-timeout": Case("[drm:amdgpu_job_timedout [amdgpu]] *ERROR* ring gfx_0.0.0 timeout, signaled seq=1201",
                         ["gpu.reset-seen"], 1, ["ring-timeout"], scenario="health-reset-radeon-drm-error"),
    "ring-timeout-healthy": Case("ring gfx timeout", [], 0, ["ring-timeout"], scenario="healthy-rx7900xtx"),
    "ecc-uncorrectable": Case("amdgpu: 1000 uncorrectable hardware errors detected in total in umc block",
                              ["gpu.ras-uncorrectable", "gpu.retired-pages"], 2, ["ecc-uncorrectable"],
                              scenario="health-8x-mi300x-one-bad-gpu"),
    "ecc-uncorrectable-healthy": Case("poison is consumed by client 12, kick off gpu reset flow", [], 0,
                                      ["ecc-uncorrectable"], scenario="healthy-8x-mi300x"),
    "ecc-correctable": Case("250 correctable hardware errors detected in umc block", ["gpu.ras-correctable"], 1,
                            ["ecc-correctable"], scenario="health-ras-correctable"),
    "ecc-correctable-healthy": Case("3 correctable hardware errors detected in umc block", [], 0,
                                    ["ecc-correctable"], scenario="healthy-8x-mi300x"),
    "bad-page-threshold": Case("amdgpu: Saved bad pages 210 reaches threshold value 200", ["gpu.retired-pages"], 2,
                               ["bad-page-threshold"], scenario="health-retired-pages-param"),
    "bad-page-threshold-healthy": Case("Saved bad pages 3 reaches threshold value 128", [], 0,
                                       ["bad-page-threshold"], scenario="healthy-8x-mi300x"),
    # Domains: a package manager's, DKMS's, pip's or a container's message is
    # matched against its own causes, GPU or not; gpu.none answers GPU
    # runtime and driver messages only (kfd-missing-container-no-gpu above).
    # Each message on a container without an AMD GPU and on a healthy host
    # with one: the same answer.
    "domain-apt-key-no-gpu": Case("NO_PUBKEY 9386B48A1A693C5C", [], 0, ["apt-no-pubkey"],
                                  scenario="no-gpu-container"),
    "domain-apt-key-gpu": Case("NO_PUBKEY 9386B48A1A693C5C", [], 0, ["apt-no-pubkey"],
                               scenario="healthy-rx7900xtx"),
    "domain-apt-folder-no-gpu": Case(
        "E: The repository 'https://repo.radeon.com/rocm/apt/6.4.0 jammy Release' does not have a Release file.",
        ["apt.repo-path"], 2, ["apt-no-release"], scenario="no-gpu-container",
        evidence=[("apt.repo-path", "AMD serves the rocm repository of ROCm 6.4.0 at "
                                    "https://repo.radeon.com/rocm/apt/6.4")]),
    "domain-apt-folder-gpu": Case(
        "E: The repository 'https://repo.radeon.com/rocm/apt/6.4.0 jammy Release' does not have a Release file.",
        ["apt.repo-path"], 2, ["apt-no-release"], scenario="healthy-rx7900xtx",
        evidence=[("apt.repo-path", "https://repo.radeon.com/rocm/apt/6.4")]),
    "domain-dkms-no-gpu": Case("Error! Bad return status for module build on kernel: 6.8.0-60-generic (x86_64)",
                               [], 0, ["dkms-build-failed"], scenario="no-gpu-container"),
    "domain-dkms-gpu": Case("Error! Bad return status for module build on kernel: 6.8.0-60-generic (x86_64)",
                            [], 0, ["dkms-build-failed"], scenario="healthy-rx7900xtx"),
    "domain-dnf-no-gpu": Case("Error: Unable to find a match: rocm-hip-sdk", [], 0, ["dnf-no-match"],
                              scenario="no-gpu-container"),
    "domain-dnf-gpu": Case("Error: Unable to find a match: rocm-hip-sdk", [], 0, ["dnf-no-match"],
                           scenario="healthy-rx7900xtx"),
    # Slurm's slurmd and slurmctld
    "slurm-discarded-rsmi": Case("error: Discarding the following config-only GPU due to lack of File specification:",
                                 ["slurm.gres-autodetect"], 2, ["slurm-gres-discarded"],
                                 scenario="slurm-autodetect-rsmi"),
    "slurm-discarded-healthy": Case("Discarding the following config-only GPU due to lack of File specification",
                                    [], 0, ["slurm-gres-discarded"], scenario="slurm-gres-correct"),
    "slurm-count-lower": Case("Reason=gres/gpu count reported lower than configured (1 < 2)",
                              ["slurm.gres-count", "slurm.gres-file"], 2, ["slurm-gres-count-lower"],
                              scenario="slurm-gres-two-files"),
    "slurm-count-lower-healthy": Case("gres/gpu count reported lower than configured (7 < 8)", [], 0,
                                      ["slurm-gres-count-lower"], scenario="healthy-rx7900xtx"),
    "domain-pip-no-gpu": Case("ERROR: No matching distribution found for torch==2.5.1+rocm6.2", [], 0,
                              ["pip-no-matching-distribution"], scenario="no-gpu-container"),
    "domain-pip-gpu": Case("ERROR: No matching distribution found for torch==2.5.1+rocm6.2", [], 0,
                           ["pip-no-matching-distribution"], scenario="healthy-rx7900xtx"),
    "domain-pip-arch-mismatch": Case("ERROR: Could not find a version that satisfies the requirement torch",
                                     ["env.pytorch-arch-mismatch"], 1, ["pip-no-matching-distribution"],
                                     scenario="env-pytorch-arch-mismatch"),
}


def compare(case, out, status, shown):
    """Checks explain's output and exit status against the case; shown: the
    command and its output, printed with a failed check."""
    rdtest.check(status == case.exit_status, "exit status %d" % case.exit_status, "got %d\n%s" % (status, shown))
    if not case.json:
        for s in case.stdout:
            rdtest.check(s in out, "output has %r" % s, shown)
        return
    try:
        doc = json.loads(out)
    except ValueError as e:
        rdtest.fail("stdout is JSON", "%s\n%s" % (e, shown))
    rdtest.eq(doc.get("schema"), "rocm-doctor-explain/1", "schema")
    rdtest.eq([e.get("id") for e in doc.get("errors", [])], case.errors, "errors recognised")
    rdtest.eq(doc.get("known"), bool(case.errors), "known")
    rdtest.check([f.get("id") for f in doc.get("findings", [])] == case.causes, "causes %s" % case.causes,
                 "got %s\n%s" % ([f.get("id") for f in doc.get("findings", [])], shown))
    rdtest.eq(doc.get("exit_status"), status, "exit_status is the process's")
    for e in doc.get("errors", []):
        for key in ("title", "matched", "meaning", "causes", "checked", "not_checked", "applying"):
            rdtest.check(key in e, "error %s has %r" % (e.get("id"), key))
        rdtest.check(sorted(e.get("checked", []) + e.get("not_checked", [])) == sorted(e.get("causes", [])),
                     "error %s: checked + not_checked = causes" % e.get("id"), json.dumps(e))
        for fid in e.get("applying", []):
            # gpu.none answers every message on a host without an AMD GPU
            if fid == "gpu.none" and e.get("applying") == ["gpu.none"]:
                continue
            rdtest.check(fid in e.get("causes", []) and fid in e.get("checked", []),
                         "error %s: %s applies and is a checked cause" % (e.get("id"), fid), json.dumps(e))
    for fid, text in case.evidence:
        ev = [x for f in doc.get("findings", []) if f.get("id") == fid for x in f.get("evidence", [])]
        rdtest.check(any(text in x for x in ev), "evidence of %s has %r" % (fid, text), ev)
    if case.unknown_findings is not None:
        report = doc.get("report")
        if rdtest.check(isinstance(report, dict), "unknown text: the whole report", shown):
            ids = sorted(f["id"] for f in report.get("findings", [])
                         if f.get("severity") in ("warning", "error"))
            rdtest.eq(ids, sorted(case.unknown_findings), "report findings")
    else:
        rdtest.check(doc.get("report") is None, "a known message carries no report", shown)


# The messages issue 3 lists for `explain`.
ISSUE_MESSAGES = [
    "hipErrorNoDevice", "HIP_ERROR_NoDevice", "HIP_ERROR_InvalidDevice", "HIP_ERROR_ILLEGAL_INSTRUCTION",
    "HSA_STATUS_ERROR_OUT_OF_RESOURCES", "HSA_STATUS_ERROR_INVALID_ISA", "hipErrorNoBinaryForGpu",
    "No HIP GPUs are available", "invalid device function", "Unable to open /dev/kfd read-write",
    "Failed to open /dev/dri/renderD128", "PCI rejects atomics", "NO_PUBKEY 9386B48A1A693C5C",
    "Key was rejected by service",
]


def table_entries(path):
    """The section names of an errors table, but [table]."""
    names = []
    with open(path, encoding="utf-8") as f:
        for line in f:
            line = line.strip()
            if line.startswith("[") and line.endswith("]") and line != "[table]":
                names.append(line[1:-1])
    return names


def coverage(errors_ini):
    """Each message, by table entry and by the issue's list, has a case where
    a cause applies and one where none does (a case that recognises that one
    message only, so that the causes are its own)."""
    single = [(n, c) for n, c in CASES.items() if len(c.errors) == 1]

    def cases_for(what, pick):
        applies = [n for n, c in single if pick(c) and c.causes]
        none = [n for n, c in single if pick(c) and not c.causes and c.exit_status == 0]
        rdtest.check(applies, "%s: a case where a cause applies" % what)
        rdtest.check(none, "%s: a case where none applies" % what)
        return applies, none

    entries = table_entries(errors_ini)
    rdtest.check(len(entries) >= 20, "%s: at least 20 entries" % errors_ini, "only %d" % len(entries))
    for e in entries:
        cases_for("[%s]" % e, lambda c, e=e: c.errors == [e])
    for msg in ISSUE_MESSAGES:
        a, n = cases_for('"%s"' % msg, lambda c, m=msg.lower(): m in c.text.lower())
        print("%-36s applies: %s; none: %s" % (msg, ", ".join(a[:3]), ", ".join(n[:2])))
    for n, c in CASES.items():
        if c.scenario:
            rdtest.check(c.scenario in scenarios.SCENARIOS, "case %s: scenario %s exists" % (n, c.scenario))
    print("coverage: %d entries, %d issue messages, %d cases" % (len(entries), len(ISSUE_MESSAGES), len(CASES)))


def needs_root(case):
    return case.scenario is not None and scenarios.build(case.scenario).needs_root


def run_case(name, case, binary, tb_run):
    """Runs explain for the case and checks what it says."""
    fmt = ["--json"] if case.json else []
    if case.facts:
        cmd = [binary, "explain"] + fmt + ["--facts", os.path.join(CLI_FACTS, case.facts)] + case.args
        proc = subprocess.run(cmd + ["--", case.text], env=scenario_run.child_env({}), stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, timeout=120)
        return report(name, case, proc, cmd)
    if not tb_run:
        rdtest.skip("no tb-run (umockdev is not installed)")
    sc = scenarios.build(case.scenario)
    why = scenario_run.root_skip_reason(sc) if sc.needs_root else None
    if why:
        rdtest.skip(why)
    tmp = tempfile.mkdtemp(prefix="rocm-doctor-explain-%s-" % name)
    os.chmod(tmp, 0o755)
    try:
        paths = sc.tb.write(tmp)
        run_binary, run_env = scenario_run.stage_for_wrap(sc, tmp, binary,
                                                          scenario_run.child_env(dict(sc.env, **case.env)))
        tool = (sc.wrap + [run_binary, "explain"] + fmt + ["--root", paths["root"]] + sc.args
                + case.args + ["--", case.text])
        cmd = scenario_run.tb_run_command(os.path.abspath(tb_run), paths, sc.tb, tool)
        proc = subprocess.run(cmd, env=run_env, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, timeout=120)
        return report(name, case, proc, cmd)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--list", action="store_true")
    ap.add_argument("--list-root", action="store_true")
    ap.add_argument("--coverage", metavar="ERRORS_INI")
    ap.add_argument("name", nargs="?")
    ap.add_argument("--binary")
    ap.add_argument("--tb-run")
    args = ap.parse_args()
    if args.list or args.list_root:
        print("\n".join(n for n, c in CASES.items() if args.list or needs_root(c)))
        return 0
    if args.coverage:
        def table_coverage():
            coverage(args.coverage)
        rdtest.test(table_coverage)
        return rdtest.main()
    if args.name not in CASES or not args.binary:
        ap.error("a case name (see --list) and --binary are needed")
    case = CASES[args.name]

    def t():
        run_case(args.name, case, os.path.abspath(args.binary), args.tb_run)
    t.__name__ = args.name.replace("-", "_")
    rdtest.test(t, root=needs_root(case))
    return rdtest.main()


def report(name, case, proc, cmd):
    out = proc.stdout.decode("utf-8", "replace")
    err = proc.stderr.decode("utf-8", "replace")
    compare(case, out, proc.returncode,
            "command: %s\n--- stdout\n%s\n--- stderr\n%s" % (" ".join(cmd), out, err))
    print("%s: causes %s, exit %d" % (name, case.causes or "none", proc.returncode))


if __name__ == "__main__":
    sys.exit(main())
