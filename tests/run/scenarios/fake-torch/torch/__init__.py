"""A test double for PyTorch: no AMD wheel can be installed on a machine
without a GPU, so the scenario tests put this package on PYTHONPATH instead.

It has the attributes rocm-doctor reads, with the values of the build named by
ROCM_DOCTOR_FAKE_TORCH:

    cpu                      a CPU-only wheel (torch.version.hip and .cuda None)
    cuda:12.4                a CUDA wheel
    rocm:6.2.41133:gfx900,gfx1030   a ROCm wheel built for those targets
    rocm:6.4.43483:gfx1100:2.6.0+rocm6.4.1.git1ded221d
                             the same, with that torch.__version__ (the
                             local tag tells the index it came from)
    rocm-abort:4.2.21155     a ROCm 4.2 wheel whose build flags are not exposed
                             (its targets are the code objects in
                             lib/libtorch_hip.so: gfx900, gfx906, gfx908) and
                             whose torch.cuda.is_available() aborts the process
                             the way HIP does on a GPU it has no code for
    hang                     importing never finishes
    hang-closed              importing closes standard output and error, then
                             never finishes
"""
import os
import time
import types

_kind = os.environ.get("ROCM_DOCTOR_FAKE_TORCH", "cpu").split(":")

if _kind[0] == "hang":
    time.sleep(3600)
if _kind[0] == "hang-closed":
    os.close(1)
    os.close(2)
    time.sleep(3600)

__version__ = {"cpu": "2.5.1+cpu", "cuda": "2.5.1+cu124", "rocm": "2.5.1+rocm6.2",
               "rocm-abort": "1.9.0+rocm4.2"}[_kind[0]]
if _kind[0] == "rocm" and len(_kind) > 3:
    __version__ = _kind[3]
version = types.SimpleNamespace(
    hip=_kind[1] if _kind[0] in ("rocm", "rocm-abort") else None,
    cuda=_kind[1] if _kind[0] == "cuda" else None,
)
_archs = _kind[2].split(",") if _kind[0] == "rocm" else []


def _is_available():
    if _kind[0] == "rocm-abort":
        # what HIP prints before abort() when no code object fits the GPU
        os.write(2, b"\"hipErrorNoBinaryForGpu: Unable to find code object for all current devices!\"\n")
        os.abort()
    return False


def _get_arch_list():
    # like the real one: empty when no GPU can be used
    return _archs if _is_available() else []


cuda = types.SimpleNamespace(is_available=_is_available, get_arch_list=_get_arch_list)
_C = types.SimpleNamespace(_cuda_getArchFlags=lambda: " ".join(_archs) if _archs else None)
