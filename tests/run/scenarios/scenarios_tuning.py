"""Scenarios of multi-GPU tuning: NUMA balancing, IOMMU passthrough.
"""

from scenarios import Scenario, cpu_kfd_node, mi300x_box, scenario
from beds_hosts import MI210_KFD, SLES_156, card, healthy, host_os, report
from beds_rocm import CompatTestbed
from scenarios_env import amd_iommu
from testbed import GiB, Testbed


@scenario("mi300x-numa-balancing")
def mi300x_numa_balancing():
    """Eight MI300X with automatic NUMA balancing on (the distribution default)."""
    tb = Testbed()
    mi300x_box(tb, cpx=False)
    tb.overlay_file("proc/sys/kernel/numa_balancing", "1\n")
    return Scenario(tb, [("tuning.numa-balancing", "warning")], 1, gpu_count=8,
                    evidence=[("tuning.numa-balancing", "/proc/sys/kernel/numa_balancing: 1")])


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


@report("sles-mi210-iommu", "https://github.com/ROCm/legacy-rocm-build/issues/597")
def sles_iommu(twin):
    """Two MI210 (gfx90a) with the IOMMU translating DMA (ROCm#597: "ROCm
    doesn't support intel_iommu=on without iommu=pt"), on SLES 15 SP6: the
    remedy is grub2-mkconfig, not update-grub.  Twin: iommu=pt."""
    tb = CompatTestbed()
    host_os(tb, SLES_156, "6.4.0-150600.23.25-default")
    tb.host_bridge("0000:00:00.0", 0x1022, 0x14a4)
    nodes = [cpu_kfd_node(tb, 64)]
    for i, bus in enumerate((0x03, 0x43)):
        rp = tb.root_port("0000:00:%02x.1" % (1 + i), 0x1022, 0x14ab, speed=16.0, width=16)
        gpu, node = card(tb, rp, bus, 0x740f, 0x02, MI210_KFD, vram=64 * GiB, audio=None, bar0=64 * GiB, card_no=i,
                         render=128 + i)
        nodes.append(node)
    tb.module_amdgpu("live")
    tb.kfd(nodes)
    for i in range(2):
        tb.overlay_file("sys/class/iommu/ivhd%d/uevent" % i, "")
    tb.overlay_file("proc/sys/kernel/numa_balancing", "0\n")
    if twin:
        tb.cmdline("BOOT_IMAGE=/boot/vmlinuz-6.4.0-150600.23.25-default root=UUID=1 ro iommu=pt")
        return healthy(tb)
    return Scenario(tb, [("tuning.iommu-pt", "warning")], 1, remedy=[("tuning.iommu-pt", "grub2-mkconfig")])
