"""Scenarios of /dev/kfd missing while amdgpu drives the GPU.
"""

from scenarios import (
    NAVI31_KFD, Scenario, cpu_kfd_node, healthy_rx7900xtx_box, matisse_host, matisse_root_port, rx7900xtx,
    scenario,
)
from beds_hosts import ARCH, VEGA20_KFD, card, healthy, host_os, os_release, report
from beds_rocm import CompatTestbed
from testbed import GiB, Testbed


@scenario("kfd-missing")
def kfd_missing():
    """amdgpu drives the GPU but the kernel has no KFD (no /dev/kfd)."""
    tb = Testbed()
    healthy_rx7900xtx_box(tb, with_kfd=False)
    return Scenario(tb, [("kfd.missing", "error")], 2, gpu_count=1)


@report("arch-cachyos-no-kfd", "https://github.com/CachyOS/linux-cachyos/issues/643")
def cachyos_no_kfd(twin):
    """RX 7900 (Navi31) on a custom CachyOS kernel: amdgpu loads, KFD never
    comes up ("sched_policy has invalid value").  Arch is no family we know:
    the remedy says CONFIG_HSA_AMD, not another distribution's kernel package.
    Twin: KFD present."""
    tb = CompatTestbed()
    host_os(tb, ARCH, "6.12.1-2-cachyos")
    matisse_host(tb)
    rp = matisse_root_port(tb)
    gpu = rx7900xtx(tb, rp, bus=1)
    tb.module_amdgpu("live", params={"sched_policy": "7"})
    if twin:
        tb.kfd([cpu_kfd_node(tb, 16), tb.kfd_gpu_node(gpu, NAVI31_KFD, mem_bytes=25753026560)])
        return healthy(tb)
    tb.kmsg([(3.0, "amdgpu: sched_policy has invalid value, using default value instead")])
    return Scenario(tb, [("kfd.missing", "error")], 2, remedy=[("kfd.missing", "CONFIG_HSA_AMD=y")])


@report("ubuntu1804-radeon-vii-no-kfd", "https://github.com/ROCm/legacy-rocm-build/issues/753")
def radeon_vii(twin):
    """Radeon VII (Vega 20 1002:66af, gfx906) on Ubuntu 18.04 with kernel 4.18,
    for which rock-dkms did not build: amdgpu (inbox) drives the card, no
    /dev/kfd.  Twin: kernel 4.15 with KFD."""
    tb = CompatTestbed()
    host_os(tb, os_release("ubuntu", "18.04", "Ubuntu 18.04.2 LTS", "debian", "bionic"),
            "4.15.0-46-generic" if twin else "4.18.0-16-generic")
    matisse_host(tb)
    rp = matisse_root_port(tb)
    gpu, node = card(tb, rp, 0x03, 0x66af, 0xc1, VEGA20_KFD, vram=16 * GiB)
    tb.module_amdgpu("live")
    if twin:
        tb.kfd([cpu_kfd_node(tb, 8), node])
        return healthy(tb)
    return Scenario(tb, [("kfd.missing", "error")], 2, remedy=[("kfd.missing", "linux-generic or the HWE kernel")])
