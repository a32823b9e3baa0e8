"""Scenarios of the environment area: variables that steer ROCm (set in the
process environment or in the files a login reads: visible devices, gfx
version overrides, PyTorch's target list) and an iGPU next to a dGPU.

PyTorch is replaced by the test double in tests/run/scenarios/fake-torch (a package on
PYTHONPATH); no AMD build of PyTorch can be installed on a machine without a GPU.
"""

import os

from scenarios import Scenario, cpu_kfd_node, healthy_navi21_box, healthy_rx7900xtx_box, scenario
from beds_hosts import STRIX_HALO_KFD, apu, healthy, mi210_box, rembrandt_box, report
from beds_rocm import CompatTestbed, PATH_WITH_ROCM, rocm_box
from scenarios_apu import apu_plus_dgpu
from testbed import GiB, Testbed


FAKE_TORCH = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fake-torch")


RX7900XTX_UUID = "GPU-a1ffc9d1799c317f"


ETC_ENVIRONMENT = 'PATH="/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"\n'


@scenario("env-override-wrong-family")
def env_override_wrong_family():
    """An RX 7900 XTX (gfx1100) with the RDNA2 value from an old guide in
    /etc/environment: every kernel load fails with HSA_STATUS_ERROR_INVALID_ISA."""
    tb = Testbed()
    healthy_rx7900xtx_box(tb)
    tb.root_file("etc/environment", ETC_ENVIRONMENT + "HSA_OVERRIDE_GFX_VERSION=10.3.0\n")
    return Scenario(tb, [("arch.override-wrong-family", "error")], 2,
                    evidence=[("arch.override-wrong-family",
                               "/etc/environment:2: HSA_OVERRIDE_GFX_VERSION=10.3.0"),
                              ("arch.override-wrong-family", "gfx1100, family gfx11")],
                    remedy=[("arch.override-wrong-family", "HSA_OVERRIDE_GFX_VERSION_1=11.0.0")])


@scenario("env-override-per-node-wrong-family")
def env_override_per_node_wrong_family():
    """RX 6900 XT (gfx1030, KFD node 1) with an RDNA3 value for node 1 in a
    profile.d script."""
    tb = Testbed()
    healthy_navi21_box(tb)
    tb.root_file("etc/profile.d/rocm.sh",
                 "# ROCm settings\n"
                 "export PATH=$PATH:/opt/rocm/bin\n"
                 "export HSA_OVERRIDE_GFX_VERSION_1=11.0.0\n")
    return Scenario(tb, [("arch.override-wrong-family", "error")], 2,
                    evidence=[("arch.override-wrong-family",
                               "/etc/profile.d/rocm.sh:3: HSA_OVERRIDE_GFX_VERSION_1=11.0.0")],
                    remedy=[("arch.override-wrong-family", "HSA_OVERRIDE_GFX_VERSION_1=10.3.0")])


@scenario("env-override-same-family")
def env_override_same_family():
    """The right per-node value of the GPU's own family: nothing to report."""
    tb = Testbed()
    healthy_navi21_box(tb)
    tb.root_file("etc/profile.d/rocm.sh", "export HSA_OVERRIDE_GFX_VERSION_1=10.3.0\n")
    return Scenario(tb, [], 0, gpu_count=1)


@scenario("env-override-invalid")
def env_override_invalid():
    """Two numbers instead of three in the process environment: libhsakmt
    rejects the value and the runtime does not start."""
    tb = Testbed()
    healthy_navi21_box(tb)
    return Scenario(tb, [("arch.override-invalid", "error")], 2,
                    env={"HSA_OVERRIDE_GFX_VERSION": "10.3"},
                    evidence=[("arch.override-invalid",
                               "process environment: HSA_OVERRIDE_GFX_VERSION=\"10.3\"")])


@scenario("env-override-global-with-igpu")
def env_override_global_with_igpu():
    """Ryzen 8000G + RX 7900 XTX; alice exports a global override in ~/.profile.
    It hits the iGPU too (same family here, so no wrong-family finding)."""
    tb = apu_plus_dgpu_testbed()
    tb.add_to_group("alice", "render")
    tb.add_to_group("alice", "video")
    tb.root_file("home/alice/.profile",
                 "# ~/.profile: executed by the command interpreter for login shells.\n"
                 "if [ -d \"$HOME/bin\" ] ; then\n"
                 "    PATH=\"$HOME/bin:$PATH\"\n"
                 "fi\n"
                 "export HSA_OVERRIDE_GFX_VERSION=11.0.0\n")
    return Scenario(tb, [("apu.igpu-conflict", "warning"),
                         ("arch.override-global-with-igpu", "warning")], 1,
                    args=["--user", "alice"],
                    evidence=[("arch.override-global-with-igpu",
                               "/home/alice/.profile:5: HSA_OVERRIDE_GFX_VERSION=11.0.0")])


@scenario("env-visible-devices-hides-all")
def env_visible_devices_hides_all():
    """One GPU, but ROCR_VISIBLE_DEVICES=1 in the process environment."""
    tb = Testbed()
    healthy_rx7900xtx_box(tb)
    return Scenario(tb, [("env.visible-devices-hides-all", "error")], 2,
                    env={"ROCR_VISIBLE_DEVICES": "1"},
                    evidence=[("env.visible-devices-hides-all",
                               "process environment: ROCR_VISIBLE_DEVICES=1: \"1\" names no GPU"),
                              ("env.visible-devices-hides-all", RX7900XTX_UUID)])


@scenario("env-visible-devices-stale-uuid")
def env_visible_devices_stale_uuid():
    """environment.d keeps the UUID of a card that was replaced."""
    tb = Testbed()
    healthy_rx7900xtx_box(tb)
    tb.root_file("etc/environment.d/90-rocm.conf",
                 "# pin ROCm to the compute card\nHIP_VISIBLE_DEVICES=GPU-946d7e1ef9b172dd\n")
    return Scenario(tb, [("env.visible-devices-hides-all", "error")], 2,
                    evidence=[("env.visible-devices-hides-all",
                               "/etc/environment.d/90-rocm.conf:2: HIP_VISIBLE_DEVICES=GPU-946d7e1ef9b172dd")])


@scenario("env-visible-devices-by-uuid")
def env_visible_devices_by_uuid():
    """The right UUID: nothing to report."""
    tb = Testbed()
    healthy_rx7900xtx_box(tb)
    return Scenario(tb, [], 0, env={"ROCR_VISIBLE_DEVICES": RX7900XTX_UUID})


@scenario("env-pytorch-arch-mismatch")
def env_pytorch_arch_mismatch():
    """PYTORCH_ROCM_ARCH copied from an Instinct guide on an RX 6900 XT host."""
    tb = Testbed()
    healthy_navi21_box(tb)
    tb.root_file("etc/environment", ETC_ENVIRONMENT + 'PYTORCH_ROCM_ARCH="gfx90a;gfx942"\n')
    return Scenario(tb, [("env.pytorch-arch-mismatch", "warning")], 1,
                    evidence=[("env.pytorch-arch-mismatch",
                               "/etc/environment:2: PYTORCH_ROCM_ARCH=gfx90a;gfx942")],
                    remedy=[("env.pytorch-arch-mismatch", 'PYTORCH_ROCM_ARCH="gfx1030"')])


@scenario("env-amdgpu-targets-match")
def env_amdgpu_targets_match():
    """AMDGPU_TARGETS with a feature suffix that includes the GPU: fine."""
    tb = Testbed()
    healthy_navi21_box(tb)
    return Scenario(tb, [], 0, env={"AMDGPU_TARGETS": "gfx90a:xnack-,gfx1030"})


def apu_plus_dgpu_testbed():
    """The Ryzen 8000G + RX 7900 XTX machine of the apu-plus-dgpu scenario."""
    return apu_plus_dgpu().tb


@scenario("apu-igpu-hidden-by-uuid")
def apu_igpu_hidden_by_uuid():
    """The iGPU is hidden the robust way, by the dGPU's UUID in /etc/environment."""
    tb = apu_plus_dgpu_testbed()
    tb.root_file("etc/environment", ETC_ENVIRONMENT + "ROCR_VISIBLE_DEVICES=%s\n" % RX7900XTX_UUID)
    return Scenario(tb, [], 0, gpu_count=2)


def without_render_nodes(tb):
    """/dev/kfd was passed into the container, /dev/dri was not: sysfs still
    shows the host's DRM devices."""
    for r in tb.extra_records:
        if "/drm/renderD" in r.path:
            r.nodes = []
    for path in [p for p in tb.nodes if p.startswith("dev/dri/")]:
        del tb.nodes[path]


def amd_iommu(tb, units=4):
    """AMD-Vi enabled: one ivhd unit per IOMMU, as /sys/class/iommu lists them."""
    for i in range(units):
        tb.overlay_file("sys/class/iommu/ivhd%d/uevent" % i, "")


def torch_env(kind):
    return {"PYTHONPATH": os.path.abspath(FAKE_TORCH), "ROCM_DOCTOR_FAKE_TORCH": kind,
            "PYTHONDONTWRITEBYTECODE": "1"}


@scenario("env-environment-comment")
def env_environment_comment():
    """/etc/environment with a comment right after the value: pam_env ends the
    value at '#', so the override is the valid 11.0.0 of the GPU's family."""
    tb = Testbed()
    healthy_rx7900xtx_box(tb)
    tb.root_file("etc/environment", ETC_ENVIRONMENT + "HSA_OVERRIDE_GFX_VERSION_1=11.0.0# RX 7900 XTX\n")
    return Scenario(tb, [], 0, gpu_count=1)


@scenario("env-environment-comment-blank")
def env_environment_comment_blank():
    """The same with a blank before the '#': pam_env keeps the blank, and the
    runtime rejects "11.0.0 "."""
    tb = Testbed()
    healthy_rx7900xtx_box(tb)
    tb.root_file("etc/environment", ETC_ENVIRONMENT + "HSA_OVERRIDE_GFX_VERSION_1=11.0.0 # RX 7900 XTX\n")
    return Scenario(tb, [("arch.override-invalid", "error")], 2, gpu_count=1,
                    evidence=[("arch.override-invalid",
                               '/etc/environment:2: HSA_OVERRIDE_GFX_VERSION_1="11.0.0 ": white space or a CR '
                               'after the number')])


@scenario("env-profile-reassigned")
def env_profile_reassigned():
    """A profile.d script that first sets the RDNA2 value of an old guide and
    later, after an unset, the right one: only the last line holds."""
    tb = Testbed()
    healthy_rx7900xtx_box(tb)
    tb.root_file("etc/profile.d/rocm.sh",
                 "export HSA_OVERRIDE_GFX_VERSION=10.3.0\n"
                 "export ROCR_VISIBLE_DEVICES=3\n"
                 "unset HSA_OVERRIDE_GFX_VERSION ROCR_VISIBLE_DEVICES\n"
                 "export HSA_OVERRIDE_GFX_VERSION_1=11.0.0\n")
    return Scenario(tb, [], 0, gpu_count=1)


@scenario("env-override-igpu-hidden")
def env_override_igpu_hidden():
    """Ryzen 8000G + RX 7900 XTX; alice's ~/.profile sets a global override and
    hides the iGPU by the dGPU's UUID, as the common guides do: the override
    never reaches the iGPU, nothing to report."""
    tb = apu_plus_dgpu_testbed()
    tb.add_to_group("alice", "render")
    tb.add_to_group("alice", "video")
    tb.root_file("home/alice/.profile",
                 "export HSA_OVERRIDE_GFX_VERSION=11.0.0\n"
                 "export ROCR_VISIBLE_DEVICES=%s\n" % RX7900XTX_UUID)
    return Scenario(tb, [], 0, gpu_count=2, args=["--user", "alice"])


#
# The remedy installs torch again from the index the build came from. pip
# writes no record of the index for `pip install --index-url` (direct_url.json
# only for a URL or file install:
# https://packaging.python.org/en/latest/specifications/direct-url/), so the
# version's local tag tells: AMD's release wheels in
# repo.radeon.com/rocm/manylinux/rocm-rel-X.Y.Z carry the full ROCm release and
# a build suffix, pytorch.org's the series. The target lists below are
# representative (a build without the RX 7900 XTX's gfx1100).
def torch_index_box(kind):
    """An RX 7900 XTX with ROCm 7.1.0 from AMD's repository, and the torch
    build `kind` (tests/run/scenarios/fake-torch) in the Python that runs."""
    tb = CompatTestbed()
    healthy_rx7900xtx_box(tb)
    rocm_box(tb, "7.1.0")
    env = torch_env(kind)
    env["PATH"] = PATH_WITH_ROCM
    return tb, env


AMD_TORCH = "2.4.0+rocm6.1.3.git2a9c6ea2"


PT_NIGHTLY = "2.10.0.dev20251015+rocm7.0"


PT_STABLE = "2.5.1+rocm6.2"


@report("rembrandt-override-10.3.0", "https://github.com/ROCm/legacy-rocm-build/issues/2061")
def rembrandt_override(twin):
    """The same 680M (gfx1035) with ROCm 6.2.4, which has rocBLAS kernels for
    gfx1030 but not gfx1035, and HSA_OVERRIDE_GFX_VERSION=10.3.0 as for an
    RX 6600 (ROCm#2061) or RX 6700 XT: the override is honoured (info, not
    arch.no-kernels as an error).  The fault: no override set."""
    tb = CompatTestbed()
    rembrandt_box(tb, 8 * GiB)
    rocm_box(tb, suite="jammy", codename_version="22.04")
    env = {"PATH": "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin:/opt/rocm/bin"}
    # arch.unsupported (ROCm supports no iGPU officially) stays in both, as for
    # an RX 6700 XT; the override decides arch.no-kernels
    if twin:
        env["HSA_OVERRIDE_GFX_VERSION"] = "10.3.0"
        return Scenario(tb, [("arch.unsupported", "warning")], 1, env=env)
    return Scenario(tb, [("arch.no-kernels", "error"), ("arch.unsupported", "warning")], 2, env=env,
                    remedy=[("arch.no-kernels", "HSA_OVERRIDE_GFX_VERSION_1=10.3.0")])


@report("mi210-stale-override", "https://github.com/ROCm/legacy-rocm-build/issues/5238")
def mi210_override(twin):
    """MI210 (gfx90a) with HSA_OVERRIDE_GFX_VERSION=10.3.0 left from another
    card: "Memory access fault by GPU node-2".  Twin: no override."""
    tb = CompatTestbed()
    mi210_box(tb)
    if twin:
        return healthy(tb)
    return Scenario(tb, [("arch.override-wrong-family", "error")], 2,
                    env={"HSA_OVERRIDE_GFX_VERSION": "10.3.0"})


@report("strix-halo-override-12.0.1", "https://github.com/ROCm/rocm-systems/issues/3531")
def strix_override(twin):
    """Framework Desktop, Strix Halo (gfx1151), Debian 13, ComfyUI with
    HSA_OVERRIDE_GFX_VERSION=12.0.1: "KFD node 0 ih_fifo overflow", kernel
    crash.  Twin: no override."""
    tb = CompatTestbed()
    tb.host_bridge("0000:00:00.0", 0x1022, 0x14e8)
    gpu, node = apu(tb, 0x1586, 0xc1, STRIX_HALO_KFD, 64 * GiB, gtt=32 * GiB, gc=(11, 5, 1))
    tb.module_amdgpu("live")
    tb.kfd([cpu_kfd_node(tb, 32, mem=64 * GiB), node])
    if twin:
        return healthy(tb)
    return Scenario(tb, [("arch.override-wrong-family", "error")], 2,
                    env={"HSA_OVERRIDE_GFX_VERSION": "12.0.1"})
