"""Scenarios of the Slurm area: a node's slurm.conf and gres.conf against its
GPU (the RX 7900 XTX box, render node /dev/dri/renderD128), each mistake next
to a correct configuration that must stay silent. No NodeName= on the lines,
so they concern every node, whatever the bed's host name.
"""

from scenarios import Scenario, healthy_rx7900xtx_box, scenario
from beds_hosts import healthy, mi210_box, report
from beds_rocm import CompatTestbed
from testbed import Testbed


@report("slurm-rocr-visible-empty", "https://github.com/ollama/ollama/issues/11220")
def slurm_visible(twin):
    """A node where the batch system sets ROCR_VISIBLE_DEVICES to an id that
    matches no GPU (ollama#11220: Slurm's ROCR_VISIBLE_DEVICES); here 4 on
    a one-GPU MI210 node.  Twin: unset."""
    tb = CompatTestbed()
    mi210_box(tb)
    if twin:
        return healthy(tb)
    return Scenario(tb, [("env.visible-devices-hides-all", "error")], 2, env={"ROCR_VISIBLE_DEVICES": "4"})


SLURM_CONF = "ClusterName=c\nGresTypes=gpu\n"


def slurm_box(gres):
    tb = Testbed()
    healthy_rx7900xtx_box(tb)
    tb.root_file("etc/slurm/slurm.conf", SLURM_CONF)
    tb.root_file("etc/slurm/gres.conf", gres)
    return tb


@scenario("slurm-gres-correct")
def slurm_gres_correct():
    """One render node for the one GPU: nothing to say."""
    return Scenario(slurm_box("Name=gpu Type=rx7900xtx File=/dev/dri/renderD128\n"), [], 0)


@scenario("slurm-gres-two-files")
def slurm_gres_two_files():
    """gres.conf names two render nodes on a node of one GPU."""
    return Scenario(slurm_box("# GPUs\nName=gpu Type=rx7900xtx File=/dev/dri/renderD[128-129]\n"),
                    [("slurm.gres-count", "error"), ("slurm.gres-file", "error")], 2,
                    evidence=[("slurm.gres-count", "/etc/slurm/gres.conf:2: Name=gpu File=/dev/dri/renderD[128-129]"),
                              ("slurm.gres-file", "/etc/slurm/gres.conf:2: File=/dev/dri/renderD129: no AMD GPU's")])


@scenario("slurm-autodetect-rsmi")
def slurm_autodetect_rsmi():
    """AutoDetect=rsmi where Slurm has no gpu_rsmi plugin (Debian's build)."""
    return Scenario(slurm_box("AutoDetect=rsmi\n"), [("slurm.gres-autodetect", "error")], 2,
                    evidence=[("slurm.gres-autodetect", "/etc/slurm/gres.conf:1: AutoDetect=rsmi")])
