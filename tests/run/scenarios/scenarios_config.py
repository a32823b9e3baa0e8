"""Scenarios for rocm-doctor.conf: the expected GPU count, the users whose
access is checked, ignored findings and severity overrides, all read from
/etc/rocm-doctor under the scenario's root tree.
"""

import scenarios
from scenarios import Scenario, healthy_rx7900xtx_box, mi300x_box, scenario
from testbed import Testbed


CONF = "etc/rocm-doctor/rocm-doctor.conf"


DROPIN = "etc/rocm-doctor/conf.d/50-fleet.conf"


@scenario("config-count-mismatch")
def config_count_mismatch():
    """A workstation configured for two GPUs; only the RX 7900 XTX is there."""
    tb = Testbed()
    healthy_rx7900xtx_box(tb)
    tb.root_file(CONF, "[check]\nexpected_gpus = 2\n")
    return Scenario(tb, [("gpu.count-mismatch", "error")], 2, gpu_count=1,
                    evidence=[("gpu.count-mismatch", "expected_gpus = 2 ("),
                              ("gpu.count-mismatch", "/etc/rocm-doctor/rocm-doctor.conf:2)"),
                              ("gpu.count-mismatch", "found 1 AMD GPU")],
                    text=[("gpu.count-mismatch", "1 AMD GPU visible, 2 expected")],
                    remedy=[("gpu.count-mismatch", "lspci -d 1002:")])


@scenario("config-mi300x-one-missing")
def config_mi300x_one_missing():
    """An eight-OAM MI300X server where the fleet drop-in expects 8 GPUs, but
    the eighth (bus e5) is gone from the bus: seven GPUs, all healthy."""
    tb = Testbed()
    all_gpus = scenarios.MI300X_GPUS
    scenarios.MI300X_GPUS = all_gpus[:7]
    try:
        mi300x_box(tb, cpx=False)
    finally:
        scenarios.MI300X_GPUS = all_gpus
    tb.root_file(CONF, "[check]\nexpected_gpus = 4\n")
    tb.root_file(DROPIN, "# fleet inventory\n[check]\nexpected_gpus = 8\n")
    return Scenario(tb, [("gpu.count-mismatch", "error")], 2, gpu_count=7,
                    evidence=[("gpu.count-mismatch", "expected_gpus = 8 ("),
                              ("gpu.count-mismatch", "/etc/rocm-doctor/conf.d/50-fleet.conf:3)"),
                              ("gpu.count-mismatch", "found 7 AMD GPUs")])


@scenario("config-8x-mi300x-as-expected")
def config_8x_mi300x_as_expected():
    """The full eight-GPU server with expected_gpus = 8: no count finding, not
    even at info level (the only info is that this image has no ROCm user space)."""
    tb = Testbed()
    mi300x_box(tb, cpx=True)
    tb.root_file(DROPIN, "[check]\nexpected_gpus = 8\n")
    return Scenario(tb, [("rocm.not-installed", "info")], 0, gpu_count=8, compare_info=True)


@scenario("config-more-gpus-than-expected")
def config_more_gpus_than_expected():
    """expected_gpus = 4 on the eight-GPU server: info only, exit 0."""
    tb = Testbed()
    mi300x_box(tb, cpx=False)
    tb.root_file(CONF, "[check]\nexpected_gpus = 4\n")
    return Scenario(tb, [("gpu.count-mismatch", "info"), ("rocm.not-installed", "info")], 0, gpu_count=8,
                    compare_info=True,
                    text=[("gpu.count-mismatch", "8 AMD GPUs visible, 4 expected")])


@scenario("config-users")
def config_users():
    """No --user; the configuration names alice and bob. bob is in render and
    video, alice in no group but her own: only alice is reported."""
    tb = Testbed()
    healthy_rx7900xtx_box(tb)
    tb.user("bob", 1001, 1001, "Bob")
    tb.add_to_group("bob", "video")
    tb.add_to_group("bob", "render")
    tb.root_file(CONF, "[check]\nusers = alice,\n  bob\n")
    return Scenario(tb, [("kfd.no-access", "error"), ("render.no-access", "error")], 2,
                    evidence=[("kfd.no-access", "alice (uid 1000, users in rocm-doctor.conf) is not in group"),
                              ("render.no-access", "alice (uid 1000, users in rocm-doctor.conf)")],
                    remedy=[("kfd.no-access", "usermod -aG render,video alice")])


@scenario("config-users-all-fine")
def config_users_all_fine():
    """The configuration names only bob, who is in render: nothing to report
    (the same box as config-users, so the configured list decides)."""
    tb = Testbed()
    healthy_rx7900xtx_box(tb)
    tb.user("bob", 1001, 1001, "Bob")
    tb.add_to_group("bob", "render")
    tb.root_file(CONF, "[check]\nusers = bob\n")
    return Scenario(tb, [], 0)


@scenario("config-user-option-wins")
def config_user_option_wins():
    """--user alice overrides the configured users (bob, who has access)."""
    tb = Testbed()
    healthy_rx7900xtx_box(tb)
    tb.user("bob", 1001, 1001, "Bob")
    tb.add_to_group("bob", "render")
    tb.root_file(CONF, "[check]\nusers = bob\n")
    return Scenario(tb, [("kfd.no-access", "error"), ("render.no-access", "error")], 2,
                    args=["--user", "alice"],
                    evidence=[("kfd.no-access", "alice (uid 1000, --user)")])


@scenario("config-ignore-and-severity")
def config_ignore_and_severity():
    """alice lacks access; the site ignores render.no-access and downgrades
    kfd.no-access to a warning: exit 1 instead of 2."""
    tb = Testbed()
    healthy_rx7900xtx_box(tb)
    tb.root_file(CONF, "[check]\nignore = render.no-access\n")
    tb.root_file(DROPIN, "[check]\nseverity = kfd.no-access:warning\n")
    return Scenario(tb, [("kfd.no-access", "warning")], 1, args=["--user", "alice"])
