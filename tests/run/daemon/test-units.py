#!/usr/bin/env python3
"""The systemd units: `systemd-analyze verify` finds nothing to complain
about, and `systemd-analyze security --offline=yes` rates the exposure of
each unit at 2.0 or less.

    test-units.py SYSTEMD_ANALYZE ROCM_DOCTORD UNIT...

verify checks that ExecStart= can run, so it runs on a copy of each unit
whose ExecStart= points at the built rocm-doctord instead of the installed
path; the man pages are not installed either, hence --man=no."""
import os
import re
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "lib"))
import rdtest  # noqa: E402

analyze, daemon, units = sys.argv[1], sys.argv[2], sys.argv[3:]
top = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..")
if not shutil.which(analyze) and not os.path.exists(analyze):
    print("SKIP: systemd-analyze is not installed")
    sys.exit(rdtest.EXIT_SKIP)

MAX_EXPOSURE = 2.0


def check_unit(unit, tmp):
    name = os.path.basename(unit)
    text = open(unit).read()
    m = re.search(r"^ExecStart=(\S+)", text, re.M)
    rdtest.check(m is not None and m.group(1).endswith("/rocm-doctord"),
                 "%s: ExecStart= runs rocm-doctord" % name, m.group(0) if m else "no ExecStart=")
    copy = os.path.join(tmp, name)
    with open(copy, "w") as f:
        f.write(re.sub(r"^ExecStart=\S+", "ExecStart=" + os.path.abspath(daemon), text, flags=re.M))

    v = subprocess.run([analyze, "verify", "--man=no", copy], capture_output=True, text=True)
    # Only lines about our unit count: verify also loads the units ours
    # refer to (systemd-udevd.service...), which a container may lack.
    ours = [l for l in (v.stdout + v.stderr).splitlines() if name in l]
    rdtest.check(v.returncode == 0 and not ours, "%s: systemd-analyze verify is clean" % name,
                 v.stdout + v.stderr)

    s = subprocess.run([analyze, "security", "--offline=yes", "--no-pager", copy],
                       capture_output=True, text=True)
    m = re.search(r"Overall exposure level for \S+: ([0-9.]+)", s.stdout + s.stderr)
    level = float(m.group(1)) if m else None
    rdtest.check(level is not None and level <= MAX_EXPOSURE,
                 "%s: exposure %s <= %.1f" % (name, level, MAX_EXPOSURE),
                 "" if level is not None and level <= MAX_EXPOSURE else s.stdout + s.stderr)

    for setting in ("ProtectSystem=strict", "ProtectHome=yes", "NoNewPrivileges=yes",
                    "RestrictAddressFamilies=AF_UNIX AF_NETLINK", "SystemCallFilter=@system-service",
                    "DevicePolicy=closed", "DeviceAllow=/dev/kfd", "DeviceAllow=char-drm",
                    "RuntimeDirectory=rocm-doctor", "RuntimeDirectoryPreserve=yes", "CapabilityBoundingSet="):
        rdtest.check(re.search(r"^" + re.escape(setting), text, re.M) is not None,
                     "%s: %s" % (name, setting))
    # The boot check never fixes anything and must not delay boot.
    if "boot" in name:
        rdtest.check(re.search(r"^Type=oneshot$", text, re.M) is not None, "%s: Type=oneshot" % name)
        rdtest.check(re.search(r"^ExecStart=\S+ --once$", text, re.M) is not None, "%s: runs --once" % name)
        rdtest.check(re.search(r"^Before=", text, re.M) is None, "%s: no Before= ordering" % name)
        rdtest.check(re.search(r"^DefaultDependencies=no", text, re.M) is None,
                     "%s: default dependencies" % name)
        rdtest.check("fix" not in re.findall(r"^ExecStart.*$", text, re.M)[0], "%s: applies no fix" % name)
        rdtest.check(re.search(r"^PrivateNetwork=yes$", text, re.M) is not None, "%s: PrivateNetwork=yes" % name)
    else:
        rdtest.check(re.search(r"^Type=notify$", text, re.M) is not None, "%s: Type=notify" % name)
        # `systemctl reload` runs /bin/kill: the packages must bring it
        # (procps on Debian, util-linux on RHEL and SLES).
        m = re.search(r"^ExecReload=(.*)$", text, re.M)
        eq_reload = m.group(1) if m else None
        rdtest.check(eq_reload == "/bin/kill -HUP $MAINPID", "%s: ExecReload= sends SIGHUP" % name, repr(eq_reload))
        control = open(os.path.join(top, "debian", "control")).read()
        deps = re.search(r"^Package: rocm-doctord\n(?:.+\n)*?Depends: (.*)$", control, re.M)
        rdtest.check(deps is not None and "procps" in [d.strip().split(" ")[0] for d in deps.group(1).split(",")],
                     "debian/control: rocm-doctord depends on procps (/bin/kill)", deps.group(0) if deps else "")
        spec = open(os.path.join(top, "rocm-doctor.spec")).read()
        rdtest.check(re.search(r"^Requires:\s+/usr/bin/kill$", spec, re.M) is not None,
                     "rocm-doctor.spec: rocm-doctord requires /usr/bin/kill")
        rdtest.check(re.search(r"^IPAddressDeny=any$", text, re.M) is not None, "%s: IPAddressDeny=any" % name)


def unit_test(unit):
    """Registers the test of one unit, named by its file."""
    def t():
        with tempfile.TemporaryDirectory() as tmp:
            check_unit(unit, tmp)
    t.__name__ = re.sub(r"\W", "_", os.path.basename(unit))
    rdtest.test(t)


for u in units:
    unit_test(u)
sys.exit(rdtest.main())
