"""Scenarios of ROCm installed as Python wheels (AMD's TheRock build) and of the
installed PyTorch build (CPU, CUDA or ROCm wheels, the gfx targets they carry,
an import that hangs).

The site-packages trees are laid out as pip leaves them (ROCm/TheRock
RELEASES.md and docs/packaging/python_packaging.md): one <name>-<version>.dist-info
directory with a METADATA file per distribution (dist-info names lower-cased
and with underscores, the METADATA Name as published), the platform directory
_rocm_sdk_core/lib holding the runtime under its SONAME, and
_rocm_sdk_libraries_<family>/lib the family's libraries. The files are empty:
the tool only looks for them. Versions are representative of the 7.1 wheels.

PyTorch is replaced by the test double in tests/run/scenarios/fake-torch.
"""

from scenarios import (
    NAVI21_KFD, Scenario, cpu_kfd_node, healthy_rx7900xtx_box, matisse_host, matisse_root_port, mi300x_box,
    scenario,
)
from beds_hosts import NAVI23_KFD, RAVEN_KFD, apu, card, report
from beds_rocm import CompatTestbed, PATH_WITH_ROCM, rocm_box
from scenarios_env import AMD_TORCH, PT_NIGHTLY, PT_STABLE, torch_env, torch_index_box
from testbed import GiB, Testbed


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


@report("raven-ridge-torch-no-gfx902", "https://github.com/pytorch/pytorch/issues/73534")
def raven_torch(twin):
    """Ryzen Embedded V1605B (Raven, gfx902) with a ROCm wheel built for
    gfx900/906/908/90a/1030: hipErrorNoBinaryForGpu on is_available().  A 4 GiB
    carve-out.  Twin: a wheel that has gfx902."""
    tb = CompatTestbed()
    tb.host_bridge("0000:00:00.0", 0x1022, 0x15d0)
    gpu, node = apu(tb, 0x15dd, 0xc1, RAVEN_KFD, 4 * GiB, gtt=8 * GiB, gc=(9, 2, 2))
    tb.module_amdgpu("live")
    tb.kfd([cpu_kfd_node(tb, 4, mem=16 * GiB), node])
    archs = "gfx900,gfx902,gfx906" if twin else "gfx900,gfx906,gfx908,gfx90a,gfx1030"
    sc = Scenario(tb, [] if twin else [("arch.no-kernels", "error")], 0 if twin else 2, args=["--with-python"],
                  env=torch_env("rocm:5.0.0:" + archs))
    if not twin:
        sc.remedy = [("arch.no-kernels", "HSA_OVERRIDE_GFX_VERSION_1=9.0.0")]
    return sc


@report("rx6600-torch-gfx1030-only", "https://github.com/ROCm/legacy-rocm-build/issues/2061")
def rx6600_torch(twin):
    """RX 6600 (Navi23, gfx1032) with a PyTorch wheel that has gfx1030 only:
    hipErrorNoBinaryForGpu.  Twin: HSA_OVERRIDE_GFX_VERSION=10.3.0, which the
    reporter used."""
    tb = CompatTestbed()
    matisse_host(tb)
    gpu, node = card(tb, matisse_root_port(tb), 0x0a, 0x73ff, 0xc7, NAVI23_KFD, vram=8 * GiB,
                     switch=(0x1002, 0x1478, 0x1479))
    tb.module_amdgpu("live")
    tb.kfd([cpu_kfd_node(tb, 6), node])
    env = torch_env("rocm:5.4.22803:gfx900,gfx906,gfx908,gfx90a,gfx1030")
    if twin:
        env["HSA_OVERRIDE_GFX_VERSION"] = "10.3.0"
        return Scenario(tb, [], 0, args=["--with-python"], env=env)
    return Scenario(tb, [("arch.no-kernels", "error")], 2, args=["--with-python"], env=env,
                    remedy=[("arch.no-kernels", "HSA_OVERRIDE_GFX_VERSION_1=10.3.0")])


@report("rx6900xt-rocm42-wheel-abort", "https://github.com/ROCm/legacy-rocm-build/issues/1471")
def rocm42_abort(twin):
    """RX 6900 XT (gfx1030) with a ROCm 4.2 wheel built for gfx900/906/908:
    `import torch` works, torch.cuda.is_available() aborts with
    hipErrorNoBinaryForGpu (ROCm#1471 shows the same abort for gfx803).  The
    targets come from the build without starting HIP; the abort is evidence.
    Twin: a wheel with gfx1030."""
    tb = CompatTestbed()
    matisse_host(tb)
    gpu, node = card(tb, matisse_root_port(tb, "0000:00:03.1", slot=1), 0x0a, 0x73bf, 0xc0, NAVI21_KFD,
                     vram=16 * GiB, switch=(0x1002, 0x1478, 0x1479))
    tb.module_amdgpu("live")
    tb.kfd([cpu_kfd_node(tb, 16), node])
    if twin:
        return Scenario(tb, [], 0, args=["--with-python"],
                        env=torch_env("rocm:6.2.41133:gfx900,gfx906,gfx908,gfx90a,gfx1030,gfx1100"))
    return Scenario(tb, [("arch.no-kernels", "error")], 2, args=["--with-python"],
                    env=torch_env("rocm-abort:4.2.21155"),
                    evidence=[("arch.no-kernels", "libtorch_hip.so (code objects): gfx900 gfx906 gfx908"),
                              ("arch.no-kernels", "hipErrorNoBinaryForGpu")])


VENV = "/home/ml/venv"


SITE = VENV + "/lib/python3.12/site-packages"


def wheels(tb, family, version="7.1.0", site=SITE, prefix=VENV):
    """rocm[libraries] for one GPU family in site, and the venv around it."""
    sp = site.lstrip("/")
    dists = [("rocm", "rocm"), ("rocm_sdk_core", "rocm-sdk-core"),
             ("rocm_sdk_libraries_" + family.replace("-", "_").lower(), "rocm-sdk-libraries-" + family)]
    for dirname, name in dists:
        tb.root_file("%s/%s-%s.dist-info/METADATA" % (sp, dirname, version),
                     "Metadata-Version: 2.1\nName: %s\nVersion: %s\nSummary: ROCm SDK\n"
                     "Requires-Python: >=3.9\n\nVersion: 0.0.0 (in the description: not a header)\n"
                     % (name, version))
        tb.root_file("%s/%s-%s.dist-info/RECORD" % (sp, dirname, version), "")
    for lib in ("libamdhip64.so.7", "libhsa-runtime64.so.1", "libhiprtc.so.7", "libamd_comgr.so.3"):
        tb.root_file("%s/_rocm_sdk_core/lib/%s" % (sp, lib), "")
    for lib in ("librocblas.so.5", "libhipblaslt.so.1", "libMIOpen.so.1"):
        tb.root_file("%s/_rocm_sdk_libraries_%s/lib/%s" % (sp, family.replace("-", "_"), lib), "")
    tb.root_file("%s/rocm_sdk/_dist_info.py" % sp,
                 "__version__ = \"%s\"\nDEFAULT_TARGET_FAMILY = \"%s\"\n" % (version, family))
    if prefix:
        tb.root_file(prefix.lstrip("/") + "/pyvenv.cfg",
                     "home = /usr/bin\ninclude-system-site-packages = false\nversion = 3.12.3\n")
        tb.root_link(prefix.lstrip("/") + "/bin/python", "/usr/bin/python3")
        # the interpreter the link names, in the image (--python follows it there)
        tb.root_file("usr/bin/python3", "")


def wheel_report(family, gfx, source, version="7.1.0"):
    return [{
        "site_packages": SITE, "source": source, "prefix": VENV, "version": version,
        "family": family, "gfx": gfx, "lib_dir": SITE + "/_rocm_sdk_core/lib",
        "hip_library": "libamdhip64.so.7",
        "dists": ["rocm %s" % version, "rocm-sdk-core %s" % version,
                  "rocm-sdk-libraries-%s %s" % (family, version)],
    }]


def mi300x_tuned_box(tb):
    mi300x_box(tb, cpx=False)
    tb.overlay_file("proc/sys/kernel/numa_balancing", "0\n")


@scenario("mi300x-venv-gfx110x-wheels")
def mi300x_venv_gfx110x_wheels():
    """Eight MI300X, no system ROCm, and a virtual environment (active:
    VIRTUAL_ENV) with the wheels of the gfx110X-all family, the index for
    Radeon RX 7000 cards: nothing in them runs on gfx942."""
    tb = CompatTestbed()
    mi300x_tuned_box(tb)
    wheels(tb, "gfx110X-all")
    return Scenario(tb, [("arch.no-kernels", "error")], 2, gpu_count=8, compare_info=True,
                    env={"VIRTUAL_ENV": VENV},
                    text=[("arch.no-kernels", "built for gfx110X-all: no kernels for AMD Instinct MI300X (gfx942)")],
                    evidence=[("arch.no-kernels", SITE + ": rocm-sdk-libraries-gfx110X-all 7.1.0"),
                              ("arch.no-kernels", "gfx1100 gfx1101 gfx1102 gfx1103"),
                              ("arch.no-kernels", "8 GPUs 0000:05:00.0, 0000:27:00.0, 0000:47:00.0, 0000:65:00.0, "
                                                  "0000:85:00.0, 0000:a7:00.0, 0000:c7:00.0, 0000:e5:00.0: gfx942")],
                    remedy=[("arch.no-kernels", "gfx94X-dcgpu (gfx942): `/home/ml/venv/bin/python -m pip install "
                                                "--force-reinstall --index-url "
                                                "https://rocm.nightlies.amd.com/v2/gfx94X-dcgpu/ "
                                                "\"rocm[libraries,devel]\"`")],
                    report=[("wheels", wheel_report("gfx110X-all", ["gfx1100", "gfx1101", "gfx1102", "gfx1103"],
                                                    "VIRTUAL_ENV"))])


@scenario("mi300x-venv-gfx94x-wheels")
def mi300x_venv_gfx94x_wheels():
    """The healthy twin: the gfx94X-dcgpu wheels on the MI300X host, no system
    ROCm. Nothing to report, not even rocm.not-installed: the wheels are the
    ROCm install."""
    tb = CompatTestbed()
    mi300x_tuned_box(tb)
    wheels(tb, "gfx94X-dcgpu")
    return Scenario(tb, [], 0, gpu_count=8, compare_info=True, env={"VIRTUAL_ENV": VENV},
                    report=[("wheels", wheel_report("gfx94X-dcgpu", ["gfx942"], "VIRTUAL_ENV"))])


@scenario("mi300x-rocm64-and-wheels-71")
def mi300x_rocm64_and_wheels_71():
    """ROCm 6.4.3 from AMD's repository in /opt/rocm, and the ROCm 7.1.0
    gfx94X wheels in the environment given with --python: two runtimes, and
    Python in the venv loads the wheels' one."""
    tb = CompatTestbed()
    mi300x_tuned_box(tb)
    rocm_box(tb, "6.4.3")
    wheels(tb, "gfx94X-dcgpu")
    return Scenario(tb, [("rocm.multiple-versions", "warning")], 1, gpu_count=8,
                    args=["--python", VENV + "/bin/python"], env={"PATH": PATH_WITH_ROCM},
                    text=[("rocm.multiple-versions", "ROCm 7.1.0 as wheels in /home/ml/venv and ROCm 6.4.3 in "
                                                     "/opt/rocm-6.4.3: Python there loads the wheels' 7.1.0 runtime")],
                    evidence=[("rocm.multiple-versions", SITE + "/rocm_sdk_core-7.1.0.dist-info/METADATA: Version: "
                                                         "7.1.0"),
                              ("rocm.multiple-versions", SITE + "/_rocm_sdk_core/lib/libamdhip64.so.7"),
                              ("rocm.multiple-versions", "/etc/ld.so.conf.d/10-rocm-opencl.conf:1: "
                                                         "/opt/rocm-6.4.3/lib (programs that find libamdhip64 "
                                                         "through the loader get ROCm 6.4.3)")],
                    report=[("wheels", wheel_report("gfx94X-dcgpu", ["gfx942"], "--python"))])


@scenario("mi300x-rocm71-and-wheels-71")
def mi300x_rocm71_and_wheels_71():
    """The healthy twin: the system's ROCm and the wheels are both 7.1.0."""
    tb = CompatTestbed()
    mi300x_tuned_box(tb)
    rocm_box(tb, "7.1.0")
    wheels(tb, "gfx94X-dcgpu")
    return Scenario(tb, [], 0, gpu_count=8, compare_info=True,
                    args=["--python", VENV], env={"PATH": PATH_WITH_ROCM})


@scenario("mi300x-system-wheels-gfx110x")
def mi300x_system_wheels_gfx110x():
    """The gfx110X wheels installed into the system's Python with
    --break-system-packages (/usr/local/lib/python3.12/dist-packages on
    Ubuntu 24.04): found without any environment named."""
    tb = CompatTestbed()
    mi300x_tuned_box(tb)
    wheels(tb, "gfx110X-all", site="/usr/local/lib/python3.12/dist-packages", prefix=None)
    return Scenario(tb, [("arch.no-kernels", "error")], 2, gpu_count=8,
                    text=[("arch.no-kernels", "The ROCm 7.1.0 wheels in /usr/local are built for gfx110X-all")],
                    remedy=[("arch.no-kernels", "`python3 -m pip install --force-reinstall --index-url "
                                                "https://rocm.nightlies.amd.com/v2/gfx94X-dcgpu/")])


#
# The image is a python:3.12 container image: its interpreter is
# /usr/local/bin/python3.12, with /usr/local/bin/python3 a relative link to it
# (docker-library/python, https://github.com/docker-library/python/pull/714),
# and no such file on the host that inspects the image. A venv made in the
# image (`python3 -m venv /home/u/venv`) has bin/python an absolute link to the
# interpreter it was made with and bin/python3 a relative link to python.
IMG_VENV = "/home/u/venv"


IMG_SITE = IMG_VENV + "/lib/python3.12/site-packages"


IMG_PY3 = IMG_VENV + "/bin/python3"


def image_venv(tb, family, python3="python", python="/usr/local/bin/python3"):
    """The gfx family's wheels in the image's venv, and the interpreter links."""
    wheels(tb, family, site=IMG_SITE, prefix=None)
    tb.root_file(IMG_VENV.lstrip("/") + "/pyvenv.cfg",
                 "home = /usr/local/bin\ninclude-system-site-packages = false\nversion = 3.12.7\n"
                 "executable = /usr/local/bin/python3.12\n")
    tb.root_link(IMG_PY3, python3)
    tb.root_link(IMG_VENV + "/bin/python", python)
    tb.root_link("/usr/local/bin/python3", "python3.12")
    tb.root_file("usr/local/bin/python3.12", "")


def image_wheel_report(family, gfx, version="7.1.0"):
    return [{
        "site_packages": IMG_SITE, "source": "--python", "prefix": IMG_VENV, "version": version,
        "family": family, "gfx": gfx, "lib_dir": IMG_SITE + "/_rocm_sdk_core/lib",
        "hip_library": "libamdhip64.so.7",
        "dists": ["rocm %s" % version, "rocm-sdk-core %s" % version,
                  "rocm-sdk-libraries-%s %s" % (family, version)],
    }]


GFX110X = ["gfx1100", "gfx1101", "gfx1102", "gfx1103"]


IMG_GFX110X_REMEDY = ("gfx94X-dcgpu (gfx942): `/home/u/venv/bin/python -m pip install --force-reinstall "
                      "--index-url https://rocm.nightlies.amd.com/v2/gfx94X-dcgpu/ \"rocm[libraries,devel]\"`")


def image_venv_scenario(family, python_arg):
    """An MI300X host inspecting an image whose venv holds family's wheels."""
    tb = CompatTestbed()
    mi300x_tuned_box(tb)
    image_venv(tb, family)
    if family == "gfx110X-all":
        return Scenario(tb, [("arch.no-kernels", "error")], 2, gpu_count=8, compare_info=True,
                        args=["--python", python_arg],
                        text=[("arch.no-kernels", "The ROCm 7.1.0 wheels in /home/u/venv are built for "
                                                  "gfx110X-all: no kernels for AMD Instinct MI300X (gfx942)")],
                        remedy=[("arch.no-kernels", IMG_GFX110X_REMEDY)],
                        report=[("wheels", image_wheel_report(family, GFX110X))])
    return Scenario(tb, [], 0, gpu_count=8, compare_info=True, args=["--python", python_arg],
                    report=[("wheels", image_wheel_report(family, ["gfx942"]))])


@scenario("mi300x-image-venv-python-chain")
def mi300x_image_venv_python_chain():
    """`check --root IMAGE --python /home/u/venv/bin/python3` on a venv built in
    a python:3.12 image, holding the gfx110X wheels: bin/python3 -> python ->
    /usr/local/bin/python3 -> python3.12, relative, absolute, relative. The
    absolute link is the image's file, not the host's (which has none), so the
    venv is read and its wheels found without kernels for the MI300X. A venv's
    interpreter link that only resolves inside its own image:
    https://github.com/basicmachines-co/basic-memory/pull/510."""
    return image_venv_scenario("gfx110X-all", IMG_PY3)


@scenario("mi300x-image-venv-python-chain-ok")
def mi300x_image_venv_python_chain_ok():
    """The healthy twin: the same image venv with the gfx94X-dcgpu wheels."""
    return image_venv_scenario("gfx94X-dcgpu", IMG_PY3)


@scenario("mi300x-image-venv-python-prefixed")
def mi300x_image_venv_python_prefixed():
    """The same image with --python written as the host sees it,
    IMAGE/home/u/venv/bin/python3 (tab completion from the host's shell): the
    image's path is not there, so IMAGE is taken off and the venv read as
    /home/u/venv (https://github.com/alisw/ali-bot/pull/1452: a venv's python
    link inside a container image)."""
    return image_venv_scenario("gfx110X-all", "{root}" + IMG_PY3)


@scenario("mi300x-image-venv-python-prefixed-ok")
def mi300x_image_venv_python_prefixed_ok():
    """The healthy twin: the gfx94X-dcgpu wheels, --python with the prefix."""
    return image_venv_scenario("gfx94X-dcgpu", "{root}" + IMG_PY3)


USAGE_TAIL = "Try 'rocm-doctor --help' for more information.\n"


@scenario("image-venv-python-loop")
def image_venv_python_loop():
    """bin/python3 -> python -> python3: the venv's interpreter link points
    back at the venv instead of at a Python (venv interpreter links broken when
    a venv is seen from a container:
    https://github.com/YelpArchive/venv-update/pull/99; here the breakage is a
    loop). Refused after 40 links, naming the link, exit 3; no report."""
    tb = CompatTestbed()
    mi300x_tuned_box(tb)
    image_venv(tb, "gfx94X-dcgpu", python="python3")
    return Scenario(tb, [], 3, args=["--python", IMG_PY3],
                    stderr="rocm-doctor: --python /home/u/venv/bin/python3: more than 40 symbolic links inside "
                           "{root}: a loop (/home/u/venv/bin/python3 links to python)\n" + USAGE_TAIL)


@scenario("image-venv-python-loop-ok")
def image_venv_python_loop_ok():
    """The healthy twin: bin/python links to the interpreter again."""
    tb = CompatTestbed()
    mi300x_tuned_box(tb)
    image_venv(tb, "gfx94X-dcgpu")
    return Scenario(tb, [], 0, gpu_count=8, args=["--python", IMG_PY3],
                    report=[("wheels", image_wheel_report("gfx94X-dcgpu", ["gfx942"]))])


@scenario("image-venv-python-escape")
def image_venv_python_escape():
    """bin/python3 is a relative link with one ".." too many
    (../../../../../usr/local/bin/python3.12 from /home/u/venv/bin): in the
    image it climbs above the image's top. Refused, never followed to the
    host's /usr/local/bin, exit 3 (links that only work on the machine that
    made them: https://github.com/Markbnj/venv2docker/issues/2)."""
    tb = CompatTestbed()
    mi300x_tuned_box(tb)
    image_venv(tb, "gfx94X-dcgpu", python3="../../../../../usr/local/bin/python3.12")
    return Scenario(tb, [], 3, args=["--python", IMG_PY3],
                    stderr="rocm-doctor: --python /home/u/venv/bin/python3: /home/u/venv/bin/python3 leads above "
                           "{root} with \"..\" (/home/u/venv/bin/python3 links to "
                           "../../../../../usr/local/bin/python3.12); a link of the image must resolve inside it\n"
                           + USAGE_TAIL)


@scenario("image-venv-python-escape-ok")
def image_venv_python_escape_ok():
    """The healthy twin: four ".." reach the image's top exactly."""
    tb = CompatTestbed()
    mi300x_tuned_box(tb)
    image_venv(tb, "gfx94X-dcgpu", python3="../../../../usr/local/bin/python3.12")
    return Scenario(tb, [], 0, gpu_count=8, args=["--python", IMG_PY3],
                    report=[("wheels", image_wheel_report("gfx94X-dcgpu", ["gfx942"]))])


AMD_TORCH_71 = "2.8.0+rocm7.1.0.lw.git56765e8c"  # representative of AMD's rocm-rel-7.1 wheels


def torch_dist(tb, version, site=SITE, url=None):
    """torch's dist-info as pip leaves it; direct_url.json for a URL install."""
    d = "%s/torch-%s.dist-info" % (site.lstrip("/"), version)
    tb.root_file(d + "/METADATA", "Metadata-Version: 2.1\nName: torch\nVersion: %s\n\n" % version)
    tb.root_file(d + "/INSTALLER", "pip\n")
    if url:
        tb.root_file(d + "/direct_url.json", '{"archive_info": {}, "url": "%s"}' % url)


@scenario("mi300x-venv-gfx110x-wheels-amd-torch")
def mi300x_venv_gfx110x_wheels_amd_torch():
    """The gfx110X wheels on an MI300X host, in a venv whose torch came from
    AMD's release wheels by URL (pip records it in direct_url.json:
    https://packaging.python.org/en/latest/specifications/direct-url/; the
    rocm-rel-X.Y.Z directories: https://github.com/unslothai/unsloth/pull/4770).
    The remedy keeps torch on AMD's release directory of its series, not the
    family's nightly index."""
    tb = CompatTestbed()
    mi300x_tuned_box(tb)
    wheels(tb, "gfx110X-all")
    torch_dist(tb, AMD_TORCH_71, url="https://repo.radeon.com/rocm/manylinux/rocm-rel-7.1/"
                                     "torch-2.8.0%2Brocm7.1.0.lw.git56765e8c-cp312-cp312-linux_x86_64.whl")
    return Scenario(tb, [("arch.no-kernels", "error")], 2, gpu_count=8, env={"VIRTUAL_ENV": VENV},
                    remedy=[("arch.no-kernels", "\"rocm[libraries,devel]\"`, and torch %s from where it came "
                                                "from, AMD's release wheels "
                                                "https://repo.radeon.com/rocm/manylinux/rocm-rel-7.1/ (its "
                                                "direct_url.json says so), not from that index" % AMD_TORCH_71)])


@scenario("mi300x-venv-gfx94x-wheels-amd-torch")
def mi300x_venv_gfx94x_wheels_amd_torch():
    """The healthy twin: the gfx94X-dcgpu wheels next to the same torch."""
    tb = CompatTestbed()
    mi300x_tuned_box(tb)
    wheels(tb, "gfx94X-dcgpu")
    torch_dist(tb, AMD_TORCH_71, url="https://repo.radeon.com/rocm/manylinux/rocm-rel-7.1/"
                                     "torch-2.8.0%2Brocm7.1.0.lw.git56765e8c-cp312-cp312-linux_x86_64.whl")
    return Scenario(tb, [], 0, gpu_count=8, compare_info=True, env={"VIRTUAL_ENV": VENV},
                    report=[("wheels", wheel_report("gfx94X-dcgpu", ["gfx942"], "VIRTUAL_ENV"))])


@scenario("mi300x-venv-gfx110x-wheels-pytorch-torch")
def mi300x_venv_gfx110x_wheels_pytorch_torch():
    """The gfx110X wheels next to torch from pytorch.org's index (no
    direct_url.json: an index install; the tag +rocm6.4 tells), as in
    https://github.com/renfald/tail-tagger/issues/17: the remedy names
    pytorch.org's index for torch."""
    tb = CompatTestbed()
    mi300x_tuned_box(tb)
    wheels(tb, "gfx110X-all")
    torch_dist(tb, "2.8.0+rocm6.4")
    return Scenario(tb, [("arch.no-kernels", "error")], 2, gpu_count=8, env={"VIRTUAL_ENV": VENV},
                    remedy=[("arch.no-kernels", "\"rocm[libraries,devel]\"`, and torch 2.8.0+rocm6.4 from where "
                                                "it came from, https://download.pytorch.org/whl/rocm6.4 (its "
                                                "version's local tag says so), not from that index")])


@scenario("mi300x-venv-gfx94x-wheels-pytorch-torch")
def mi300x_venv_gfx94x_wheels_pytorch_torch():
    """The healthy twin: the gfx94X-dcgpu wheels next to pytorch.org's torch."""
    tb = CompatTestbed()
    mi300x_tuned_box(tb)
    wheels(tb, "gfx94X-dcgpu")
    torch_dist(tb, "2.8.0+rocm6.4")
    return Scenario(tb, [], 0, gpu_count=8, compare_info=True, env={"VIRTUAL_ENV": VENV},
                    report=[("wheels", wheel_report("gfx94X-dcgpu", ["gfx942"], "VIRTUAL_ENV"))])


@scenario("image-venv-python-dangling")
def image_venv_python_dangling():
    """The venv's bin/python names /opt/python/bin/python3, which the image
    lacks (made in a build stage whose Python did not reach the final image:
    https://github.com/basicmachines-co/basic-memory/pull/510). The host's
    file of that name is never taken for it: refused, naming the link and how
    to read the site-packages anyway, exit 3. Healthy twin:
    mi300x-image-venv-python-chain-ok."""
    tb = CompatTestbed()
    mi300x_tuned_box(tb)
    image_venv(tb, "gfx94X-dcgpu", python="/opt/python/bin/python3")
    return Scenario(tb, [], 3, args=["--python", IMG_PY3],
                    stderr="rocm-doctor: --python /home/u/venv/bin/python3: /opt does not exist inside {root} "
                           "(/home/u/venv/bin/python links to /opt/python/bin/python3); name the environment's "
                           "directory to read its site-packages anyway\n" + USAGE_TAIL)
