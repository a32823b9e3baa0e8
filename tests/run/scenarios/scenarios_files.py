"""Scenarios for the OS files themselves: a FIFO where a file should be (the
check must return and name the file as unreadable evidence, never block in
open), and line-based files larger than any fixed limit.
"""

from scenarios import Scenario, healthy_rx7900xtx_box, scenario, unbound_rx7900xtx_box
from testbed import FIFO, Testbed


NOT_REGULAR = "is not a regular file"


# Where a FIFO can stand in the root tree, and what reading it would have told.
FIFO_PLACES = {
    "fifo-modprobe-d": "etc/modprobe.d/fifo.conf",
    "fifo-os-release": "etc/os-release",
    "fifo-environment": "etc/environment",
    "fifo-passwd": "etc/passwd",
    "fifo-group": "etc/group",
    "fifo-apt-sources": "etc/apt/sources.list.d/rocm.list",
}


def fifo_scenario(path):
    def build():
        tb = Testbed()
        healthy_rx7900xtx_box(tb)
        tb.root_file(path, FIFO)
        return Scenario(tb, [("facts.unreadable", "warning")], 1,
                        evidence=[("facts.unreadable", "/%s: %s" % (path, NOT_REGULAR)),
                                  ("facts.unreadable", "not checked: ")],
                        args=["--user", "root"])
    build.__doc__ = "A FIFO at /%s: the check returns and names it as unreadable." % path
    return build


for _name, _path in FIFO_PLACES.items():
    scenario(_name)(fifo_scenario(_path))


@scenario("modprobe-d-oversized-blacklist")
def modprobe_d_oversized_blacklist():
    """A 1.19 MB /etc/modprobe.d/amdgpu.conf that starts with `blacklist amdgpu`
    and continues with comments: its size does not hide the blacklist."""
    tb = Testbed()
    unbound_rx7900xtx_box(tb)
    filler = "# %s\n" % ("x" * 76)
    tb.root_file("etc/modprobe.d/amdgpu.conf",
                 "blacklist amdgpu\n" + filler * (1190000 // len(filler)))
    return Scenario(tb, [("driver.blacklisted", "error"), ("driver.not-loaded", "error")], 2,
                    evidence=[("driver.blacklisted", "/etc/modprobe.d/amdgpu.conf:1")])


@scenario("os-release-oversized")
def os_release_oversized():
    """An /etc/os-release over 64 KiB (a long comment block first) is read:
    the release is known, nothing is reported unreadable."""
    tb = Testbed()
    healthy_rx7900xtx_box(tb)
    text = tb.root_files["etc/os-release"]
    tb.root_file("etc/os-release", ("# %s\n" % ("y" * 100)) * 700 + text)
    return Scenario(tb, [], 0, gpu_count=1)
