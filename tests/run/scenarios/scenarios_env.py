"""Scenarios of the environment area: variables that steer ROCm (set in the
process environment or in the files a login reads), an iGPU next to a dGPU,
containers, multi-GPU tuning and the installed PyTorch build.

PyTorch is replaced by the test double in tests/run/scenarios/fake-torch (a package on
PYTHONPATH); no AMD build of PyTorch can be installed on a machine without a GPU.
"""

import os

from scenarios import (
    Scenario, scenario, apu_plus_dgpu, healthy_navi21_box, healthy_rx7900xtx_box,
    mi300x_box,
)
from scenarios_compat import PATH_WITH_ROCM, CompatTestbed, rocm_box
from testbed import Testbed

FAKE_TORCH = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fake-torch")
RX7900XTX_UUID = "GPU-a1ffc9d1799c317f"

ETC_ENVIRONMENT = 'PATH="/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"\n'


# -- architecture overrides -------------------------------------------------

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


# -- visible devices ----------------------------------------------------------

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


# -- build targets ------------------------------------------------------------

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


# -- APU ----------------------------------------------------------------------

def apu_plus_dgpu_testbed():
    """The Ryzen 8000G + RX 7900 XTX machine of the apu-plus-dgpu scenario."""
    return apu_plus_dgpu().tb


@scenario("apu-igpu-hidden-by-uuid")
def apu_igpu_hidden_by_uuid():
    """The iGPU is hidden the robust way, by the dGPU's UUID in /etc/environment."""
    tb = apu_plus_dgpu_testbed()
    tb.root_file("etc/environment", ETC_ENVIRONMENT + "ROCR_VISIBLE_DEVICES=%s\n" % RX7900XTX_UUID)
    return Scenario(tb, [], 0, gpu_count=2)


# -- containers ---------------------------------------------------------------

def without_render_nodes(tb):
    """/dev/kfd was passed into the container, /dev/dri was not: sysfs still
    shows the host's DRM devices."""
    for r in tb.extra_records:
        if "/drm/renderD" in r.path:
            r.nodes = []
    for path in [p for p in tb.nodes if p.startswith("dev/dri/")]:
        del tb.nodes[path]


@scenario("container-devices-missing")
def container_devices_missing():
    """docker run --device=/dev/kfd, without --device=/dev/dri."""
    tb = Testbed()
    healthy_rx7900xtx_box(tb)
    without_render_nodes(tb)
    tb.root_file(".dockerenv", "")
    return Scenario(tb, [("container.devices-missing", "error")], 2,
                    evidence=[("container.devices-missing", "/dev/dri/renderD128: absent in the container")],
                    remedy=[("container.devices-missing", "docker run --device=/dev/kfd --device=/dev/dri "
                                                          "--group-add 992 ...")])


@scenario("container-gid-mismatch")
def container_gid_mismatch():
    """Podman container running as uid 1000 without the host's render gid 992,
    which has no name in the container's /etc/group."""
    tb = Testbed()
    healthy_rx7900xtx_box(tb)
    del tb.groups["render"]
    tb.root_file("run/.containerenv", 'engine="podman-4.3.1"\n')
    return Scenario(tb, [("container.gid-mismatch", "error")], 2,
                    wrap=["setpriv", "--reuid=1000", "--regid=1000", "--clear-groups"],
                    needs_root=True,
                    evidence=[("container.gid-mismatch", "/dev/kfd: mode 0660, group 992 (no name in this "
                                                         "container)"),
                              ("container.gid-mismatch", "process uid 1000, groups 1000")],
                    remedy=[("container.gid-mismatch", "podman run --device=/dev/kfd --device=/dev/dri "
                                                       "--group-add 992 ")])


# -- tuning -------------------------------------------------------------------

@scenario("mi300x-numa-balancing")
def mi300x_numa_balancing():
    """Eight MI300X with automatic NUMA balancing on (the distribution default)."""
    tb = Testbed()
    mi300x_box(tb, cpx=False)
    tb.overlay_file("proc/sys/kernel/numa_balancing", "1\n")
    return Scenario(tb, [("tuning.numa-balancing", "warning")], 1, gpu_count=8,
                    evidence=[("tuning.numa-balancing", "/proc/sys/kernel/numa_balancing: 1")])


def amd_iommu(tb, units=4):
    """AMD-Vi enabled: one ivhd unit per IOMMU, as /sys/class/iommu lists them."""
    for i in range(units):
        tb.overlay_file("sys/class/iommu/ivhd%d/uevent" % i, "")


@scenario("mi300x-iommu-no-pt")
def mi300x_iommu_no_pt():
    """The IOMMU is on (four AMD-Vi units) and the command line lacks iommu=pt."""
    tb = Testbed()
    mi300x_box(tb, cpx=False)
    tb.overlay_file("proc/sys/kernel/numa_balancing", "0\n")
    amd_iommu(tb)
    return Scenario(tb, [("tuning.iommu-pt", "warning")], 1, gpu_count=8,
                    evidence=[("tuning.iommu-pt", "/sys/class/iommu: ivhd0 ivhd1 ivhd2 ivhd3")],
                    remedy=[("tuning.iommu-pt", "iommu=pt")])


@scenario("mi300x-tuned")
def mi300x_tuned():
    """IOMMU on with iommu=pt, NUMA balancing off: nothing to report."""
    tb = Testbed()
    mi300x_box(tb, cpx=False)
    tb.overlay_file("proc/sys/kernel/numa_balancing", "0\n")
    amd_iommu(tb)
    tb.cmdline("BOOT_IMAGE=/boot/vmlinuz-6.8.0-45-generic root=UUID=5b1f7e0c-2a4d-4c36-9d1e-7f1c2b3a4d5e "
               "ro iommu=pt")
    return Scenario(tb, [], 0, gpu_count=8)


# -- PyTorch ------------------------------------------------------------------

def torch_env(kind):
    return {"PYTHONPATH": os.path.abspath(FAKE_TORCH), "ROCM_DOCTOR_FAKE_TORCH": kind,
            "PYTHONDONTWRITEBYTECODE": "1"}


@scenario("torch-cpu-wheel")
def torch_cpu_wheel():
    """`pip install torch` from PyPI gave the CPU build on an RX 7900 XTX host."""
    tb = Testbed()
    healthy_rx7900xtx_box(tb)
    return Scenario(tb, [("arch.no-kernels", "error")], 2, args=["--with-python"],
                    env=torch_env("cpu"),
                    text=[("arch.no-kernels", "CPU-only build")],
                    remedy=[("arch.no-kernels", "--index-url https://download.pytorch.org/whl/rocm")])


@scenario("torch-cuda-wheel")
def torch_cuda_wheel():
    """A CUDA build of PyTorch on an AMD host."""
    tb = Testbed()
    healthy_rx7900xtx_box(tb)
    return Scenario(tb, [("arch.no-kernels", "error")], 2, args=["--with-python"],
                    env=torch_env("cuda:12.4"),
                    evidence=[("arch.no-kernels", "torch.version.cuda 12.4")])


@scenario("torch-rocm-no-gfx1100")
def torch_rocm_no_gfx1100():
    """A ROCm wheel built without gfx1100 on an RX 7900 XTX."""
    tb = Testbed()
    healthy_rx7900xtx_box(tb)
    return Scenario(tb, [("arch.no-kernels", "error")], 2, args=["--with-python"],
                    env=torch_env("rocm:6.2.41133:gfx900,gfx906,gfx908,gfx90a,gfx1030"),
                    evidence=[("arch.no-kernels",
                               "torch._C._cuda_getArchFlags(): gfx900 gfx906 gfx908 gfx90a gfx1030")])


@scenario("torch-rocm-ok")
def torch_rocm_ok():
    """A ROCm wheel with kernels for the GPU: nothing to report."""
    tb = Testbed()
    healthy_rx7900xtx_box(tb)
    return Scenario(tb, [], 0, args=["--with-python"],
                    env=torch_env("rocm:6.2.41133:gfx90a,gfx942,gfx1030,gfx1100"))


# -- review: parsing and container cases that must not raise false alarms ----

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


@scenario("container-one-of-eight-gpus")
def container_one_of_eight_gpus():
    """docker run --device=/dev/kfd --device=/dev/dri/renderD128 on an eight
    MI300X host: sysfs shows all eight, the other render nodes were left out
    on purpose."""
    tb = Testbed()
    mi300x_box(tb, cpx=False)
    for r in tb.extra_records:
        if "/drm/renderD" in r.path and not r.path.endswith("/renderD128"):
            r.nodes = []
    for path in [p for p in tb.nodes if p.startswith("dev/dri/") and p != "dev/dri/renderD128"]:
        del tb.nodes[path]
    tb.root_file(".dockerenv", "")
    return Scenario(tb, [], 0, gpu_count=8)


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


@scenario("torch-import-hangs")
def torch_import_hangs():
    """`import torch` never finishes: the child is killed after three times the
    runtime limit (--timeout 1: 3 s) and the check goes on."""
    tb = Testbed()
    healthy_rx7900xtx_box(tb)
    return Scenario(tb, [], 0, args=["--with-python", "--timeout", "1"], env=torch_env("hang"))


@scenario("torch-import-hangs-closed")
def torch_import_hangs_closed():
    """`import torch` closes its output and then never finishes: with both pipes
    at end of file the child is still waited for only until the deadline."""
    tb = Testbed()
    healthy_rx7900xtx_box(tb)
    return Scenario(tb, [], 0, args=["--with-python", "--timeout", "1"], env=torch_env("hang-closed"))


# -- PyTorch: the index a remedy names ---------------------------------------
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


@scenario("torch-amd-release-no-gfx1100")
def torch_amd_release_no_gfx1100():
    """torch from AMD's release wheels (repo.radeon.com/rocm/manylinux, where
    AMD points users for builds pytorch.org does not publish:
    https://github.com/ROCm/legacy-rocm-build/issues/3979), version
    2.4.0+rocm6.1.3.git..., without kernels for the RX 7900 XTX. The remedy
    names AMD's release directory of the host's ROCm 7.1, not pytorch.org's
    index."""
    tb, env = torch_index_box("rocm:6.1.40093:gfx900,gfx906,gfx908,gfx90a,gfx942:" + AMD_TORCH)
    return Scenario(tb, [("arch.no-kernels", "error")], 2, args=["--with-python"], env=env,
                    text=[("arch.no-kernels", "PyTorch %s (ROCm 6.1.40093) has no kernels for " % AMD_TORCH)],
                    remedy=[("arch.no-kernels",
                             "Install a wheel built for gfx1100 (a newer ROCm series: `pip3 install "
                             "--force-reinstall torch --find-links https://repo.radeon.com/rocm/manylinux/"
                             "rocm-rel-7.1/`, AMD's release wheels, which torch %s came from (its version's "
                             "local tag says so)), or build PyTorch from source with PYTORCH_ROCM_ARCH=gfx1100."
                             % AMD_TORCH)])


@scenario("torch-amd-release-ok")
def torch_amd_release_ok():
    """The healthy twin: AMD's release wheel with gfx1100 kernels."""
    tb, env = torch_index_box("rocm:6.1.40093:gfx90a,gfx942,gfx1030,gfx1100:" + AMD_TORCH)
    return Scenario(tb, [], 0, args=["--with-python"], env=env)


PT_NIGHTLY = "2.10.0.dev20251015+rocm7.0"


@scenario("torch-pytorch-nightly-no-gfx1100")
def torch_pytorch_nightly_no_gfx1100():
    """torch from pytorch.org's nightly index (download.pytorch.org/whl/nightly/rocm7.0,
    as in https://github.com/renfald/tail-tagger/issues/17), without kernels
    for the GPU: the remedy stays on pytorch.org's nightlies, for the host's
    ROCm 7.1, with --pre."""
    tb, env = torch_index_box("rocm:7.0.51831:gfx90a,gfx942,gfx950:" + PT_NIGHTLY)
    return Scenario(tb, [("arch.no-kernels", "error")], 2, args=["--with-python"], env=env,
                    remedy=[("arch.no-kernels",
                             "`pip3 install --pre --force-reinstall torch --index-url "
                             "https://download.pytorch.org/whl/nightly/rocm7.1`, PyTorch's nightly wheels, which "
                             "torch %s came from (its version's local tag says so)" % PT_NIGHTLY)])


@scenario("torch-pytorch-nightly-ok")
def torch_pytorch_nightly_ok():
    """The healthy twin: the nightly with gfx1100 kernels."""
    tb, env = torch_index_box("rocm:7.0.51831:gfx90a,gfx942,gfx950,gfx1100:" + PT_NIGHTLY)
    return Scenario(tb, [], 0, args=["--with-python"], env=env)


PT_STABLE = "2.5.1+rocm6.2"


@scenario("torch-pytorch-org-no-gfx1100")
def torch_pytorch_org_no_gfx1100():
    """torch 2.5.1+rocm6.2 from download.pytorch.org/whl/rocm6.2 (the index
    of https://github.com/ROCm/legacy-rocm-build/issues/3979's pip command),
    without kernels for the GPU: the remedy names pytorch.org's index of the
    host's ROCm 7.1, not AMD's."""
    tb, env = torch_index_box("rocm:6.2.41133:gfx900,gfx906,gfx908,gfx90a,gfx1030:" + PT_STABLE)
    return Scenario(tb, [("arch.no-kernels", "error")], 2, args=["--with-python"], env=env,
                    remedy=[("arch.no-kernels",
                             "`pip3 install --force-reinstall torch --index-url "
                             "https://download.pytorch.org/whl/rocm7.1`, pytorch.org's wheels, which torch %s "
                             "came from (its version's local tag says so)" % PT_STABLE)])


@scenario("torch-pytorch-org-ok")
def torch_pytorch_org_ok():
    """The healthy twin: pytorch.org's wheel with gfx1100 kernels."""
    tb, env = torch_index_box("rocm:6.2.41133:gfx90a,gfx942,gfx1030,gfx1100:" + PT_STABLE)
    return Scenario(tb, [], 0, args=["--with-python"], env=env)


@scenario("torch-cpu-wheel-index-assumed")
def torch_cpu_wheel_index_assumed():
    """The CPU build from PyPI (`pip install torch`,
    https://github.com/renfald/tail-tagger/issues/17) says nothing of a ROCm
    index: the remedy names pytorch.org's for ROCm 7.1 and says it is an
    assumption, with AMD's release directory as the alternative."""
    tb, env = torch_index_box("cpu")
    return Scenario(tb, [("arch.no-kernels", "error")], 2, args=["--with-python"], env=env,
                    remedy=[("arch.no-kernels",
                             "`pip3 install --force-reinstall torch --index-url "
                             "https://download.pytorch.org/whl/rocm7.1`; that index is assumed: torch 2.5.1+cpu "
                             "does not say where it came from (AMD's release wheels install with --find-links "
                             "https://repo.radeon.com/rocm/manylinux/rocm-rel-7.1/ instead)")])
