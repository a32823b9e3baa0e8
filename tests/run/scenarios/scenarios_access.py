"""Scenarios of access to /dev/kfd and the render nodes: the user's groups, the
nodes' modes and groups, a login older than the group change.
"""

from scenarios import (
    NAVI31_KFD, Scenario, access_node, cpu_kfd_node, healthy_rx7900xtx_box, matisse_host, matisse_root_port,
    rx7900xtx, scenario,
)
from beds_hosts import report
from beds_rocm import CompatTestbed
from testbed import Testbed


@scenario("user-not-in-render")
def user_not_in_render():
    """alice is in no group but her own; /dev/kfd and renderD128 are 0660 root:render."""
    tb = Testbed()
    healthy_rx7900xtx_box(tb)
    return Scenario(tb, [("kfd.no-access", "error"), ("render.no-access", "error")], 2,
                    args=["--user", "alice"])


@scenario("access-nodes")
def access_nodes():
    """user-not-in-render's host with the card node open to everyone and the
    render node owned by a group that /etc/group does not name:
    the report carries each node's fields, and the evidence says the same."""
    tb = Testbed()
    healthy_rx7900xtx_box(tb)
    tb.node_mode("/dev/dri/card0", 0o666, 0, 44)
    tb.node_mode("/dev/dri/renderD128", 0o640, 0, 4321)
    kfd = access_node("/dev/kfd", "kfd", "0660", 0, 992, "render")
    render = access_node("/dev/dri/renderD128", "render", "0640", 0, 4321, None)
    card = access_node("/dev/dri/card0", "card", "0666", 0, 44, "video")
    return Scenario(tb, [("kfd.no-access", "error"), ("render.no-access", "error")], 2,
                    args=["--user", "alice"], report=[("access.nodes", [kfd, render, card])],
                    evidence=[("kfd.no-access", "/dev/kfd: mode 0660, owner uid 0, group render"),
                              ("render.no-access", "/dev/dri/renderD128: mode 0640, owner uid 0, group 4321"),
                              ("access.world-writable", "/dev/dri/card0: mode 0666, owner uid 0, group video")])


@scenario("relogin-needed")
def relogin_needed():
    """alice was added to render and video, but her session predates it: the
    process (uid 1000) carries no supplementary groups."""
    tb = Testbed()
    healthy_rx7900xtx_box(tb)
    tb.add_to_group("alice", "video")
    tb.add_to_group("alice", "render")
    return Scenario(tb, [("group.relogin-needed", "warning")], 1,
                    wrap=["setpriv", "--reuid=1000", "--regid=1000", "--clear-groups"],
                    needs_root=True)


@report("rocminfo-user-only-in-video", "https://github.com/ROCm/rocminfo/issues/34")
def only_video(twin):
    """/dev/kfd root:render (newer kernels), the user only in video: rocminfo
    says HSA_STATUS_ERROR_OUT_OF_RESOURCES.  Twin: the user in render too."""
    tb = CompatTestbed()
    matisse_host(tb)
    gpu = rx7900xtx(tb, matisse_root_port(tb), bus=1)
    tb.module_amdgpu("live")
    tb.kfd([cpu_kfd_node(tb, 16), tb.kfd_gpu_node(gpu, NAVI31_KFD, mem_bytes=25753026560)])
    tb.add_to_group("alice", "video")
    if twin:
        tb.add_to_group("alice", "render")
        return Scenario(tb, [], 0, args=["--user", "alice"])
    return Scenario(tb, [("kfd.no-access", "error"), ("render.no-access", "error")], 2, args=["--user", "alice"],
                    remedy=[("kfd.no-access", "usermod -aG render,video alice")])
