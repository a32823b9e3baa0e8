"""Level-2 scenarios with the TEST DOUBLE of the ROCm runtime.

The hardware comes from a umockdev testbed as in every scenario; the runtime
is tests/run/runtime/runtime-double.c (ROCM_DOCTOR_RUNTIME_LIB, set by
run-double.py), whose GPUs are the testbed's KFD nodes and whose behaviour
ROCM_DOCTOR_TEST_RUNTIME picks. These are the paths no real AMD GPU has
exercised in this project's CI: success, wrong results, launch errors, hangs
and crashes.
"""

import scenarios_apu
from scenarios import Scenario, healthy_rx7900xtx_box, scenario
from testbed import Testbed

GPU = "0000:03:00.0"

# Scenarios that run the embedded code objects: skipped by run-double.py
# when the build has none (-Dhip-kernels=disabled, or no AMDGPU compiler).
NEEDS_KERNELS = {"success", "wrong-result", "launch-error", "hang", "crash", "hiprtc-fail", "two-gpus"}


def double(mode, findings, exit_status, args=(), **kw):
    tb = Testbed()
    healthy_rx7900xtx_box(tb)
    return Scenario(tb, findings, exit_status, args=["--level", "2"] + list(args),
                    env={"ROCM_DOCTOR_TEST_RUNTIME": mode}, **kw)


@scenario("success")
def success():
    """The kernel runs and every value is right; hiprtc compiles it too."""
    return double("success", [], 0,
                  text=[("runtime.kernel-ok", GPU + " gfx1100 computes correctly: launch"),
                        ("runtime.kernel-ok", "hiprtc compiled the kernel for this GPU"),
                        ("runtime.kernel-ok", "HSA agent gfx1100: ISA amdgcn-amd-amdhsa--gfx1100, 96 compute units, 24 GiB device memory; KFD node 1: gfx1100, 96 compute units")])


@scenario("wrong-result")
def wrong_result():
    """One element of the vector add is off by one."""
    return double("wrong-result", [("runtime.kernel-failed", "error")], 2,
                  evidence=[("runtime.kernel-failed", "rd_vector_add: c[12345] = ")],
                  text=[("runtime.kernel-failed", "computes wrong results")])


@scenario("launch-error")
def launch_error():
    """hipModuleLaunchKernel fails."""
    return double("launch-error", [("runtime.kernel-failed", "error")], 2,
                  text=[("runtime.kernel-failed",
                         GPU + " gfx1100: hipModuleLaunchKernel failed with hipErrorLaunchFailure")],
                  evidence=[("runtime.kernel-failed", "hipModuleLaunchKernel: hipErrorLaunchFailure (719)")])


@scenario("hang")
def hang():
    """The first kernel never completes: the 2 s deadline kills the child."""
    return double("hang", [("runtime.kernel-timeout", "error")], 2, args=["--timeout", "2"],
                  text=[("runtime.kernel-timeout", "did not finish within 2 s")],
                  evidence=[("runtime.kernel-timeout", "killed with SIGKILL after 2."),
                            ("runtime.kernel-timeout",
                             "it was at: hipDeviceSynchronize after rd_vector_add (embedded code object) "
                             "on HIP device 0 (" + GPU + ")")])


@scenario("crash")
def crash():
    """A memory access fault aborts the runtime process."""
    return double("crash", [("runtime.kernel-failed", "error")], 2,
                  text=[("runtime.kernel-failed", "The ROCm runtime crashed (SIGABRT)")],
                  evidence=[("runtime.kernel-failed", "its last output: Memory access fault by GPU node-1"),
                            ("runtime.kernel-failed", "hipModuleLaunchKernel rd_vector_add")])


@scenario("hiprtc-fail")
def hiprtc_fail():
    """Prebuilt code runs, but run-time compilation fails: a warning."""
    return double("hiprtc-fail", [("runtime.kernel-failed", "warning")], 1,
                  evidence=[("runtime.kernel-failed", "1 error generated")],
                  text=[("runtime.kernel-ok", "computes correctly")])


@scenario("kfd-missing")
def kfd_missing():
    """No /dev/kfd: the double's hsa_init fails as ROCr's does, and the
    finding names the level-1 cause."""
    tb = Testbed()
    healthy_rx7900xtx_box(tb, with_kfd=False)
    return Scenario(tb, [("kfd.missing", "error"), ("runtime.hsa-init-failed", "error")], 2,
                    args=["--level", "2"], env={"ROCM_DOCTOR_TEST_RUNTIME": "success"},
                    evidence=[("runtime.hsa-init-failed", "cause: kfd.missing")])


@scenario("two-gpus")
def two_gpus():
    """Ryzen 8000G with a Radeon 780M iGPU (gfx1103) and an RX 7900 XTX
    (gfx1100): each GPU gets its own code object and its own result."""
    sc = scenarios_apu.apu_plus_dgpu()
    sc.args += ["--level", "2"]
    sc.env["ROCM_DOCTOR_TEST_RUNTIME"] = "success"
    sc.text += [("runtime.kernel-ok", "0000:64:00.0 gfx1103 computes correctly"),
                ("runtime.kernel-ok", "0000:03:00.0 gfx1100 computes correctly"),
                ("runtime.kernel-ok", "KFD node 2")]
    return sc


@scenario("hiprtc-only")
def hiprtc_only():
    """A GPU of a target this build has no code object for (gfx700): the
    kernel compiled by hiprtc for it is run instead."""
    sc = double("success", [], 0, text=[("runtime.kernel-ok", GPU + " gfx700 computes correctly (kernel "
                                                              "compiled with hiprtc)")])
    sc.env["ROCM_DOCTOR_TEST_RUNTIME_ISA"] = "gfx700"
    return sc


@scenario("untested")
def untested():
    """No code object and no working hiprtc: the GPU is reported untested."""
    sc = double("hiprtc-fail", [], 0, compare_info=True)
    sc.findings = [("rocm.not-installed", "info"), ("runtime.kernel-untested", "info")]  # the box has no ROCm user space
    sc.env["ROCM_DOCTOR_TEST_RUNTIME_ISA"] = "gfx700"
    sc.text = [("runtime.kernel-untested", GPU + " gfx700 was not tested"),
               ("runtime.kernel-untested", "hiprtc: hiprtcCompileProgram for gfx700: HIPRTC_ERROR_COMPILATION")]
    return sc
