"""A test double for PyTorch: no AMD wheel can be installed on a machine
without a GPU, so the scenario tests put this package on PYTHONPATH instead.

It has the attributes rocm-doctor reads, with the values of the build named by
ROCM_DOCTOR_FAKE_TORCH:

    cpu                      a CPU-only wheel (torch.version.hip and .cuda None)
    cuda:12.4                a CUDA wheel
    rocm:6.2.41133:gfx900,gfx1030   a ROCm wheel built for those targets
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

__version__ = {"cpu": "2.5.1+cpu", "cuda": "2.5.1+cu124", "rocm": "2.5.1+rocm6.2"}[_kind[0]]
version = types.SimpleNamespace(
    hip=_kind[1] if _kind[0] == "rocm" else None,
    cuda=_kind[1] if _kind[0] == "cuda" else None,
)
_archs = _kind[2].split(",") if _kind[0] == "rocm" else []


def _is_available():
    return False


def _get_arch_list():
    # like the real one: empty when no GPU can be used
    return _archs if _is_available() else []


cuda = types.SimpleNamespace(is_available=_is_available, get_arch_list=_get_arch_list)
_C = types.SimpleNamespace(_cuda_getArchFlags=lambda: " ".join(_archs) if _archs else None)
