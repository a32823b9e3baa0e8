"""Level 2 with the host's real ROCm runtime libraries (Debian's
libhsa-runtime64-1 and libamdhip64-5 in CI) under a umockdev testbed.

The runtime opens /dev/kfd through umockdev's redirection, finds none in these
testbeds, and fails the way it fails for a user: hsa_init returns
HSA_STATUS_ERROR_OUT_OF_RESOURCES. The report must name the level-1 finding
behind it. Scenarios with a working GPU need one; those paths are covered by
the test double in tests/run/runtime/.
"""

from scenarios import (
    NAVI31_KFD, Scenario, cpu_kfd_node, healthy_rx7900xtx_box, matisse_host, matisse_root_port, no_gpu_box,
    rx7900xtx, scenario,
)
from beds_hosts import ROCKY_94, healthy, host_os, report
from beds_rocm import CompatTestbed
from testbed import Testbed


@report("rocky94-rocm-not-installed", "https://github.com/ROCm/legacy-rocm-build/issues/1888")
def rocky_runtime(twin):
    """Rocky Linux 9.4, RX 7900 XTX, level 2 with no ROCm runtime: the remedy
    installs with dnf, never apt.  Twin: level 1 on the same host."""
    tb = CompatTestbed()
    host_os(tb, ROCKY_94, "5.14.0-427.13.1.el9_4.x86_64")
    matisse_host(tb)
    gpu = rx7900xtx(tb, matisse_root_port(tb), bus=1)
    tb.module_amdgpu("live")
    tb.kfd([cpu_kfd_node(tb, 16), tb.kfd_gpu_node(gpu, NAVI31_KFD, mem_bytes=25753026560)])
    if twin:
        return healthy(tb)
    return Scenario(tb, [("runtime.hip-missing", "error"), ("runtime.hsa-missing", "error")], 2,
                    args=["--level", "2"],
                    env={"ROCM_DOCTOR_RUNTIME_LIB": "/nonexistent/libhsa-runtime64.so.1"},
                    remedy=[("runtime.hsa-missing", "sudo dnf install")])


@scenario("runtime-real-no-gpu")
def runtime_real_no_gpu():
    """No AMD GPU at all: the real hsa_init fails. One cause, one error:
    gpu.none, with the runtime's failure as its evidence (not a second
    runtime.hsa-init-failed error)."""
    tb = Testbed()
    no_gpu_box(tb)
    return Scenario(tb, [("gpu.none", "error")], 2,
                    args=["--level", "2"], gpu_count=0,
                    evidence=[("gpu.none", "level 2: /lib/x86_64-linux-gnu/libhsa-runtime64.so.1: hsa_init: "
                                           "HSA_STATUS_ERROR_OUT_OF_RESOURCES (0x1008)"),
                              ("gpu.none", "level 2: hipGetDeviceCount: hipErrorNoDevice, 0 devices")])


@scenario("runtime-real-kfd-missing")
def runtime_real_kfd_missing():
    """amdgpu drives an RX 7900 XTX but the kernel has no KFD: the real
    runtime's OUT_OF_RESOURCES is the missing /dev/kfd."""
    tb = Testbed()
    healthy_rx7900xtx_box(tb, with_kfd=False)
    return Scenario(tb, [("kfd.missing", "error"), ("runtime.hsa-init-failed", "error")], 2,
                    args=["--level", "2"], gpu_count=1,
                    evidence=[("runtime.hsa-init-failed", "HSA_STATUS_ERROR_OUT_OF_RESOURCES"),
                              ("runtime.hsa-init-failed", "cause: kfd.missing")])


@scenario("runtime-real-kfd-refuses")
def runtime_real_kfd_refuses():
    """/dev/kfd exists and is open to root, but it is not a working KFD (in the
    testbed, umockdev's stand-in node answers no ioctl): the real runtime still
    says OUT_OF_RESOURCES, and with no level-1 cause the remedy says what else
    that status means."""
    tb = Testbed()
    healthy_rx7900xtx_box(tb)
    return Scenario(tb, [("runtime.hsa-init-failed", "error")], 2, args=["--level", "2"],
                    remedy=[("runtime.hsa-init-failed", "With /dev/kfd present and accessible")])
