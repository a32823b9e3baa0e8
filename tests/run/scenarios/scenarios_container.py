"""Scenarios of containers: GPU devices not passed in, group ids that differ
from the host's, one GPU of eight, Apptainer's --containall.
"""

from scenarios import Scenario, healthy_rx7900xtx_box, matisse_host, mi300x_box, no_gpu_box, scenario
from beds_hosts import AS_ROOT, HostKfdOnlyTestbed, container_box, healthy, report
from beds_rocm import CompatTestbed
from scenarios_env import without_render_nodes
from testbed import Testbed


@scenario("no-gpu-container")
def no_gpu_container():
    """No GPU, inside a Docker container: the answer must say how to pass devices."""
    tb = Testbed()
    no_gpu_box(tb)
    tb.docker_container()
    return Scenario(tb, [("gpu.none", "error")], 2, gpu_count=0,
                    text=[("gpu.none", "--device=/dev/kfd")],
                    report=[("host.container", "docker")])


@scenario("vm-docker-built-image-no-gpu")
def vm_docker_built_image_no_gpu():
    """An image built with Docker, booted as a KVM guest with no AMD GPU (an
    NVIDIA one passed through): /.dockerenv is in the image, but no engine
    started this system (no bind-mounted /etc/hostname, PID 1's cgroup is
    systemd's). A VM, not a container: gpu.none says so, without the
    container remedy."""
    tb = Testbed()
    no_gpu_box(tb)
    tb.overlay_file("sys/class/dmi/id/sys_vendor", "QEMU\n")
    tb.root_file(".dockerenv", "")
    return Scenario(tb, [("gpu.none", "error")], 2, gpu_count=0,
                    text=[("gpu.none", "in a VM, pass one through")],
                    report=[("host.container", None)])


@scenario("container-devices-missing")
def container_devices_missing():
    """docker run --device=/dev/kfd, without --device=/dev/dri."""
    tb = Testbed()
    healthy_rx7900xtx_box(tb)
    without_render_nodes(tb)
    tb.docker_container()
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
    tb.docker_container()
    return Scenario(tb, [], 0, gpu_count=8)


@scenario("docker-no-gpu-devices")
def docker_no_gpu_devices():
    """`docker run` without --device=/dev/kfd --device=/dev/dri on an RX 7900 XTX
    host: the container sees the host's sysfs (amdgpu bound, KFD topology) but
    neither /dev/kfd nor the render node; `docker run --device=/dev/kfd` on a
    host without KFD would have said "/dev/kfd: no such file or directory"."""
    tb = HostKfdOnlyTestbed()
    healthy_rx7900xtx_box(tb)
    for r in tb.extra_records:
        if "/drm/renderD" in r.path:
            r.nodes = []
    for path in [p for p in tb.nodes if p == "dev/kfd" or p.startswith("dev/dri/")]:
        del tb.nodes[path]
    tb.docker_container()
    # one cause, one finding: the host has KFD, only the container lacks the nodes
    return Scenario(tb, [("container.devices-missing", "error")], 2,
                    gpu_count=1,
                    evidence=[("container.devices-missing", "/dev/kfd: absent in the container"),
                              ("container.devices-missing", "/dev/dri/renderD128: absent in the container"),
                              ("container.devices-missing", "/sys/class/kfd/kfd: present")],
                    remedy=[("container.devices-missing", "--device=/dev/kfd --device=/dev/dri")])


@report("apptainer-containall-no-kfd", "https://github.com/ROCm/legacy-rocm-build/issues/1798")
def apptainer_containall(twin):
    """RX 6900 XT host (Arch); a ROCm container started with --containall and
    no --bind=/dev/kfd,/dev/dri: "Unable to open /dev/kfd read-write: No such
    file or directory".  One cause, one finding: container.devices-missing,
    not kfd.missing too.  Twin: the devices are passed."""
    tb = HostKfdOnlyTestbed() if not twin else CompatTestbed()
    matisse_host(tb)
    container_box(tb, "docker")
    if twin:
        return healthy(tb)
    for r in tb.extra_records:
        if "/drm/renderD" in r.path:
            r.nodes = []
    for path in [p for p in tb.nodes if p == "dev/kfd" or p.startswith("dev/dri/")]:
        del tb.nodes[path]
    return Scenario(tb, [("container.devices-missing", "error")], 2,
                    evidence=[("container.devices-missing", "/dev/kfd: absent in the container")])


@report("docker-root-user-gid-109", "https://github.com/ROCm/ROCm-docker/issues/116")
def docker_user_gid(twin):
    """rocm-terminal: --device=/dev/kfd --device=/dev/dri --group-add video, the
    image's user lacks the host's render gid (109 here), which has no name in
    the container.  Checked as root with --user alice: usermod cannot grant a
    gid with no name, --group-add 109 can.  Twin: the container's database has
    the gid (as render) with alice in it."""
    tb = CompatTestbed()
    matisse_host(tb)
    container_box(tb, "docker")
    del tb.groups["render"]
    tb.node_mode("dev/kfd", 0o660, 0, 109)
    tb.node_mode("dev/dri/renderD128", 0o660, 0, 109)
    if twin:
        tb.groups["render"] = [109, ["alice"]]
        return Scenario(tb, [], 0, args=["--user", "alice"], needs_root=True, wrap=AS_ROOT)
    return Scenario(tb, [("container.gid-mismatch", "error")], 2, args=["--user", "alice"], needs_root=True,
                    wrap=AS_ROOT,
                    remedy=[("container.gid-mismatch", "--group-add 109")],
                    evidence=[("container.gid-mismatch", "group 109 (no name in this container)")])
