"""Scenarios for situations that only the kernel log or /proc/version shows:
missing firmware, a kernel whose KFD does not know the GPU, WSL.  They are
check scenarios like the others; `explain` tests (tests/explain/) use them
too."""

from scenarios import (
    Scenario, Testbed, cpu_kfd_node, healthy_rx7900xtx_box, matisse_host,
    matisse_root_port, navi21, no_gpu_box, scenario,
)


@scenario("navi21-firmware-missing")
def navi21_firmware_missing():
    """RX 6900 XT whose firmware is missing from the initramfs: amdgpu loads,
    fails to initialise the GPU and lets go of it."""
    tb = Testbed()
    matisse_host(tb)
    rp = matisse_root_port(tb, "0000:00:03.1", slot=1)
    navi21(tb, rp, bus=0x0a, driver=None)
    tb.module_amdgpu("live")
    tb.kfd([cpu_kfd_node(tb, 16)])
    # Messages as amdgpu prints them when a blob is absent (the file name is
    # that of Navi21's SMU firmware).
    tb.kmsg([(3.9, "[drm] amdgpu kernel modesetting enabled."),
             (3.95, "[drm] initializing kernel modesetting (SIENNA_CICHLID 0x1002:0x73BF "
                    "0x1DA2:0x440E 0xC0)."),
             (4.01, "amdgpu 0000:0c:00.0: Direct firmware load for "
                    "amdgpu/sienna_cichlid_smc.bin failed with error -2", 4),
             (4.02, "amdgpu 0000:0c:00.0: amdgpu: Failed to load firmware!", 3),
             (4.03, "amdgpu 0000:0c:00.0: amdgpu: Fatal error during GPU init", 3),
             (4.04, "amdgpu: probe of 0000:0c:00.0 failed with error -2", 4)])
    return Scenario(tb, [("driver.firmware-missing", "error"), ("gpu.no-driver", "error")], 2,
                    gpu_count=1,
                    evidence=[("driver.firmware-missing", "sienna_cichlid_smc.bin")])


@scenario("rx7900xtx-kfd-unsupported")
def rx7900xtx_kfd_unsupported():
    """amdgpu drives an RX 7900 XTX (display works) but the kernel's KFD has no
    compute node for it: only the CPU node is in the topology."""
    tb = Testbed()
    healthy_rx7900xtx_box(tb, with_kfd=False)
    tb.kfd([cpu_kfd_node(tb, 16)])
    tb.kmsg([(4.5, "amdgpu: GC IP 0b0000 not supported in kfd", 4)])
    return Scenario(tb, [("driver.kfd-unsupported", "error")], 2, gpu_count=1)


@scenario("wsl2")
def wsl2():
    """Windows Subsystem for Linux 2: no AMD PCI device, /proc/version names
    the Microsoft kernel."""
    tb = Testbed()
    no_gpu_box(tb)
    tb.kernel(release="5.15.167.4-microsoft-standard-WSL2",
              version="Linux version 5.15.167.4-microsoft-standard-WSL2 (root@f9c826d3017f) "
                      "(gcc (GCC) 11.2.0, GNU ld (GNU Binutils) 2.37) #1 SMP Tue Nov 5 00:21:55 "
                      "UTC 2024\n")
    return Scenario(tb, [("host.wsl", "error")], 2, gpu_count=0)
