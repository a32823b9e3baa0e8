#!/usr/bin/env python3
"""`rocm-doctor slurm health` against a real single-node Slurm cluster
(slurmlib.Cluster): the GPU comes from facts gathered on the scenario test
beds (an RX 7900 XTX with a PCIe AER error, and the same card healthy). The
node is drained with the finding ids as its reason (as `sinfo -R` shows
it), left alone while still broken, resumed once healthy; an
administrator's drain stays; a check that cannot run drains (or, with
--on-unknown keep, leaves the node) and never resumes; a fresh status file
is taken as the verdict, a stale one is not, nor one that is not root's
alone; an administrator's DOWN or drain (even one whose reason starts like
rocm-doctor's) is never changed, nor a drain Slurm made itself; a list
as the node name is refused; a hanging scontrol is ended after its
deadline.

Usage: test-slurm-health.py ROCM_DOCTOR TB_RUN"""
import json
import os
import signal
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "fleet"))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "..", "lib"))
import fleetlib  # noqa: E402
import rdtest  # noqa: E402
import slurmlib  # noqa: E402

binary, tb_run = os.path.abspath(sys.argv[1]), sys.argv[2]


def facts_of(scenario, path):
    with fleetlib.Bed(scenario, binary, tb_run) as bed:
        p = bed.run("facts")
        if p.returncode != 0:
            raise RuntimeError("facts on %s exited %d: %s" % (scenario, p.returncode, p.stderr))
        with open(path, "w") as f:
            f.write(p.stdout)


def health(c, *args, env=None):
    p = c.run([binary, "slurm", "health"] + list(args), env=env)
    return p.returncode, p.stdout.strip(), p.stderr.strip()


FACTS = {}


def facts_files():
    """(tmp, broken, healthy): a directory and the two facts files in it,
    made once; skips where the cluster cannot run."""
    why = slurmlib.Cluster.missing()
    if why:
        rdtest.skip(why)
    if not FACTS:
        tmp = rdtest.temp_dir("rocm-doctor-slurm-facts-")
        broken, healthy = os.path.join(tmp, "broken.json"), os.path.join(tmp, "healthy.json")
        facts_of("health-aer-errors", broken)
        facts_of("health-rx7900xtx-healthy", healthy)
        FACTS.update(tmp=tmp, broken=broken, healthy=healthy)
    return FACTS["tmp"], FACTS["broken"], FACTS["healthy"]


@rdtest.test(root=True)
def health_drains_and_resumes_the_node():
    tmp, broken, healthy = facts_files()
    with slurmlib.Cluster() as c:
        node = c.node
        rc, out, err = health(c, "--facts", broken)
        rdtest.check(rc == 2, "broken GPU: exit 2", "%d %s %s" % (rc, out, err))
        rdtest.check(out == "%s: drained (rocm-doctor: pcie.aer-errors)" % node, "broken GPU: says it drained", out)
        rdtest.check("DRAIN" in (c.node_field("State") or ""), "broken GPU: State has DRAIN", c.node_field("State"))
        sinfo = c.sinfo_r()
        print("# sinfo -R after the drain:\n# " + c.run(["sinfo", "-R"]).stdout.replace("\n", "\n# "))
        rdtest.check(sinfo == "rocm-doctor: pcie.aer-errors|%s" % node, "sinfo -R shows the ids", sinfo)

        rc, out, err = health(c, "--facts", broken)
        rdtest.check(rc == 2 and c.reason() == "rocm-doctor: pcie.aer-errors",
                     "still broken: exit 2, reason kept",
                     "%d %s %s" % (rc, out, c.reason()))
        rdtest.check(out.startswith(node + ": IDLE+DRAIN (rocm-doctor:"), "still broken: no second drain", out)

        rc, out, err = health(c, "--facts", healthy)
        rdtest.check(rc == 0, "healthy: exit 0", "%d %s %s" % (rc, out, err))
        rdtest.check(out == "%s: resumed (was: rocm-doctor: pcie.aer-errors)" % node, "healthy: resumed", out)
        rdtest.check("DRAIN" not in (c.node_field("State") or "DRAIN"), "healthy: no DRAIN", c.node_field("State"))
        rdtest.check(c.reason() == slurmlib.resumed_reason(),
                     "healthy: no reason of rocm-doctor's own left (Slurm %d.%d)" % slurmlib.slurm_version(),
                     c.reason())
        rdtest.check(c.sinfo_r() == "", "healthy: sinfo -R empty", c.sinfo_r())

        c.run(["scontrol", "update", "nodename=" + node, "state=drain", "reason=disk replacement"])
        rc, out, err = health(c, "--facts", healthy)
        rdtest.check(rc == 0 and c.reason() == "disk replacement"
                     and "DRAIN" in c.node_field("State"),
                     "admin drain, healthy GPU: stays drained",
                     "%d %s %s" % (rc, out, c.reason()))
        rc, out, err = health(c, "--facts", broken)
        rdtest.check(rc == 2 and c.reason() == "disk replacement",
                     "admin drain, broken GPU: the admin's reason stays",
                     "%d %s %s" % (rc, out, c.reason()))
        c.run(["scontrol", "update", "nodename=" + node, "state=resume"])
        # what Slurm itself does with a reason on resume (the cause of the above)
        kept = "disk replacement" if slurmlib.resume_keeps_reason() else None
        rdtest.check(c.reason() == kept, "Slurm's own resume leaves the reason %r" % kept, c.reason())

        no_tables = {"ROCM_DOCTOR_DATA_DIR": os.path.join(tmp, "no-such-dir")}
        rc, out, err = health(c, "--facts", healthy, "--on-unknown", "keep", env=no_tables)
        rdtest.check(rc == 3 and "DRAIN" not in c.node_field("State"),
                     "check cannot run, keep: exit 3, node untouched",
                     "%d %s %s %s" % (rc, out, err, c.node_field("State")))
        rc, out, err = health(c, "--facts", healthy, env=no_tables)
        rdtest.check(rc == 3 and c.reason() == "rocm-doctor: check failed",
                     "check cannot run: drained, exit 3",
                     "%d %s %s %s" % (rc, out, err, c.reason()))
        rc, out, err = health(c, "--facts", healthy, env=no_tables)
        rdtest.check(rc == 3 and c.reason() == "rocm-doctor: check failed",
                     "check still cannot run: never resumed",
                     "%d %s %s" % (rc, out, c.reason()))
        rc, out, err = health(c, "--facts", healthy)
        rdtest.check(rc == 0 and c.reason() == slurmlib.resumed_reason(),
                     "check runs again, healthy: resumed",
                     "%d %s %s" % (rc, out, err))

        # a fresh status file is the verdict (this machine's own check would not name that id)
        status = os.path.join(tmp, "status.json")
        conf = os.path.join(tmp, "rocm-doctor.conf")
        with open(conf, "w") as f:
            f.write("[output]\nstatus_file = %s\n" % status)
        with open(status, "w") as f:
            json.dump({"schema": "rocm-doctor/1", "findings": [
                {"id": "gpu.ras-uncorrectable", "severity": "error"},
                {"id": "gpu.reset-seen", "severity": "warning"},
                {"id": "gpu.retired-pages", "severity": "error"}]}, f)
        rc, out, err = health(c, "--config", conf)
        rdtest.check(rc == 2 and
                     c.reason() == "rocm-doctor: gpu.ras-uncorrectable,gpu.retired-pages",
                     "fresh status: its error ids drain",
                     "%d %s %s %s" % (rc, out, err, c.reason()))
        rdtest.check(err == "rocm-doctor: the verdict of " + status,
                     "fresh status: says where the verdict came from",
                     err)
        old = time.time() - 3600
        os.utime(status, (old, old))
        rc, out, err = health(c, "--config", conf)
        rdtest.check("the verdict of" not in err and rc in (0, 1, 2, 3), "stale status: not taken", err)


@rdtest.test(root=True)
def only_root_and_only_its_own_drain_put_a_node_back():
    """Who may resume a node: a status file is a verdict only when root
    owns it and no one else may write it; only a drain whose whole reason
    is one rocm-doctor writes is resumed; a node DOWN or drained for
    someone else's reason is never changed; the node name is exactly one
    node; finding ids from the status file are checked; a scontrol that
    hangs is ended within seconds."""
    tmp, broken, healthy = facts_files()
    # a second node the list would reach; MessageTimeout: scontrol waits
    # this long for a slurmctld that does not answer; ReturnToService=0: an
    # administrator's DOWN stays until the administrator ends it (the
    # cluster's 2 would end it at slurmd's next registration)
    other = ("NodeName=rdother1 NodeAddr=127.0.0.1 Port=1 CPUs=1 State=UNKNOWN\nMessageTimeout=60\n"
             "ReturnToService=0\n")
    with slurmlib.Cluster(extra_conf=other) as c:
        node = c.node

        def drained_by_us():
            c.run(["scontrol", "update", "nodename=" + node, "state=resume"])
            rc, out, err = health(c, "--facts", broken)
            rdtest.check(rc == 2 and c.reason() == "rocm-doctor: pcie.aer-errors", "set up: drained by rocm-doctor",
                         "%d %s %s" % (rc, out, err))

        status = os.path.join(tmp, "status-owner.json")
        conf = os.path.join(tmp, "rocm-doctor-owner.conf")
        with open(conf, "w") as f:
            f.write("[output]\nstatus_file = %s\n" % status)

        def write_status(findings, uid=0, mode=0o644):
            if os.path.exists(status):
                os.unlink(status)
            with open(status, "w") as f:
                json.dump({"schema": "rocm-doctor/1", "findings": findings}, f)
            os.chown(status, uid, uid)
            os.chmod(status, mode)

        # a healthy verdict written by someone who is not root alone
        for uid, mode, what in ((65534, 0o644, "owned by a user"), (0, 0o666, "mode 0666"),
                                (0, 0o664, "group-writable")):
            drained_by_us()
            write_status([], uid, mode)
            rc, out, err = health(c, "--config", conf, "--on-unknown", "keep")
            rdtest.check(rc == 3 and c.reason() == "rocm-doctor: pcie.aer-errors" and "DRAIN" in c.node_field("State"),
                         "status file %s: no verdict, the node stays drained (exit 3)" % what,
                         "%d %s %s %s" % (rc, out, err, c.reason()))
            rdtest.check("is not a verdict" in err and status in err, "status file %s: says why" % what, err)
        # root's own, 0644: the verdict
        write_status([])
        rc, out, err = health(c, "--config", conf)
        rdtest.check(rc == 0 and c.reason() == slurmlib.resumed_reason(), "status file root's alone: the verdict resumes",
                     "%d %s %s %s" % (rc, out, err, c.reason()))

        # an id that is not a finding id never reaches Slurm or the output
        write_status([{"id": "gpu.hot\nfake: resumed", "severity": "error"}])
        rc, out, err = health(c, "--config", conf)
        rdtest.check(rc == 3 and len(out.splitlines()) == 1 and c.reason() == "rocm-doctor: check failed",
                     "status file with a bad id: not a verdict, one line, 'check failed'",
                     "%d %r %r %r" % (rc, out, err, c.reason()))
        os.unlink(status)

        # an administrator's drain that starts like ours
        admin = "rocm-doctor: maintenance by admin, do not resume"
        c.run(["scontrol", "update", "nodename=" + node, "state=resume"])
        c.run(["scontrol", "update", "nodename=" + node, "state=drain", "reason=" + admin])
        rc, out, err = health(c, "--facts", healthy)
        rdtest.check(rc == 0 and c.reason() == admin and "DRAIN" in c.node_field("State"),
                     "admin drain with rocm-doctor's prefix: healthy check leaves it",
                     "%d %s %s %s" % (rc, out, err, c.reason()))
        rc, out, err = health(c, "--facts", broken)
        rdtest.check(rc == 2 and c.reason() == admin, "admin drain with rocm-doctor's prefix: reason kept",
                     "%d %s %s" % (rc, out, c.reason()))

        # an administrator's DOWN
        c.run(["scontrol", "update", "nodename=" + node, "state=resume"])
        c.run(["scontrol", "update", "nodename=" + node, "state=down", "reason=hw swap"])
        for facts, want in ((broken, 2), (healthy, 0)):
            rc, out, err = health(c, "--facts", facts)
            state = c.node_field("State") or ""
            rdtest.check(rc == want and out.startswith(node + ": DOWN") and c.reason() == "hw swap"
                         and state.startswith("DOWN"),
                         "node DOWN (hw swap), exit %d: never changed" % want,
                         "%d %s %s %s %s" % (rc, out, err, c.reason(), state))
        c.run(["scontrol", "update", "nodename=" + node, "state=resume"])
        c.wait_idle()

        # a list as the node name
        rc, out, err = health(c, "--facts", broken, env={"SLURMD_NODENAME": node + ",rdother1"})
        rdtest.check(rc == 3 and "not one node name" in err, "SLURMD_NODENAME a list: refused, exit 3",
                     "%d %s %s" % (rc, out, err))
        p = c.run(["sinfo", "-R", "-h", "-o", "%N|%E", "-n", node + ",rdother1"])
        rdtest.check("rocm-doctor" not in p.stdout, "SLURMD_NODENAME a list: no node drained", p.stdout)
        for name in ("rdnode[1-2]", "rd node"):
            rc, out, err = health(c, "--facts", broken, env={"SLURMD_NODENAME": name})
            rdtest.check(rc == 3 and "not one node name" in err, "SLURMD_NODENAME %r: refused" % name, err)

        # slurmctld stopped: scontrol hangs (MessageTimeout=60); ended within the deadline
        pid = c.pids["slurmctld"]
        os.kill(pid, signal.SIGSTOP)
        try:
            start = time.time()
            rc, out, err = health(c, "--facts", healthy)
            took = time.time() - start
        finally:
            os.kill(pid, signal.SIGCONT)
        print("# a hanging scontrol: slurm health took %.1f s" % took)
        rdtest.check(rc == 3 and took < 20, "hanging scontrol: exit 3 within 20 s", "%d %.1f s %s" % (rc, took, err))
        rdtest.check("did not finish within 10 seconds" in err, "hanging scontrol: says so", err)


@rdtest.test(root=True)
def a_drain_slurm_made_is_never_resumed():
    """rocm-doctor drains the node and resumes it; then slurmd registers
    with less memory than slurm.conf now says, and Slurm drains the node
    itself. Slurm's own drain keeps a reason the node still has, and Slurm
    23.11 to 25.11 keep rocm-doctor's on resume (slurmlib.
    resume_keeps_reason): that is why rocm-doctor puts "rocm-doctor:
    resumed" in place of its own, and a healthy check leaves Slurm's drain
    alone either way."""
    tmp, broken, healthy = facts_files()
    with slurmlib.Cluster() as c:
        node = c.node
        rc, out, err = health(c, "--facts", broken)
        rdtest.check(rc == 2 and c.reason() == "rocm-doctor: pcie.aer-errors", "rocm-doctor drains",
                     "%d %s %s %s" % (rc, out, err, c.reason()))
        rc, out, err = health(c, "--facts", healthy)
        rdtest.check(rc == 0 and out == node + ": resumed (was: rocm-doctor: pcie.aer-errors)"
                     and c.reason() == slurmlib.resumed_reason(),
                     "rocm-doctor resumes, leaving the reason %r" % slurmlib.resumed_reason(),
                     "%d %s %s %s" % (rc, out, err, c.reason()))
        c.wait_idle()
        with open(c.conf) as f:
            conf = f.read()
        with open(c.conf, "w") as f:
            f.write(conf.replace(" CPUs=1 State=UNKNOWN", " CPUs=1 RealMemory=100000000 State=UNKNOWN"))
        p = c.run(["scontrol", "reconfigure"])
        rdtest.check(p.returncode == 0, "scontrol reconfigure", p.stdout + p.stderr)
        rdtest.check(wait_for(c, lambda: "DRAIN" in (c.node_field("State") or "")),
                     "slurmd registers with less memory: Slurm drains the node", c.node_field("State"))
        slurms = c.reason()
        print("# Slurm's drain: %s (%s)" % (c.node_field("State"), slurms))
        if slurmlib.resume_keeps_reason():
            rdtest.check(slurms == "rocm-doctor: resumed", "Slurm's drain keeps the reason the node had", slurms)
        else:
            rdtest.check((slurms or "").startswith("Low RealMemory"), "Slurm's drain has Slurm's reason", slurms)
        rc, out, err = health(c, "--facts", healthy)
        rdtest.check(rc == 0 and "DRAIN" in (c.node_field("State") or "") and c.reason() == slurms
                     and not out.startswith(node + ": resumed"),
                     "Slurm's drain: a healthy check leaves it",
                     "%d %s %s %s %s" % (rc, out, err, c.node_field("State"), c.reason()))


def wait_for(c, cond, timeout=30):
    end = time.time() + timeout
    while time.time() < end:
        if cond():
            return True
        time.sleep(0.5)
    return False


@rdtest.test(root=True)
def slurmd_runs_it_as_its_health_check_program():
    """slurmd itself runs the health check as its HealthCheckProgram (the
    wrapper of contrib/slurm, with the facts file the test points it at)."""
    tmp, broken, healthy = facts_files()
    c = slurmlib.Cluster()
    current = os.path.join(tmp, "current")
    with open(current, "w") as f:
        f.write(broken)
    wrapper = c.path("rocm-doctor-health")
    with open(wrapper, "w") as f:
        f.write("#!/bin/sh\nexport SLURM_CONF=%s ROCM_DOCTOR_DATA_DIR=%s\nexec %s slurm health --facts \"$(cat %s)\"\n"
                % (c.conf, os.environ["ROCM_DOCTOR_DATA_DIR"], binary, current))
    os.chmod(wrapper, 0o755)
    c.extra_conf = "HealthCheckProgram=%s\nHealthCheckInterval=2\nHealthCheckNodeState=ANY\n" % wrapper
    with c:
        rdtest.check(wait_for(c, lambda: c.reason() == "rocm-doctor: pcie.aer-errors"),
                     "HealthCheckProgram: slurmd's run drains the node",
                     c.reason())
        with open(current, "w") as f:
            f.write(healthy)
        rdtest.check(wait_for(c, lambda: c.reason() == slurmlib.resumed_reason()
                              and "DRAIN" not in (c.node_field("State") or "DRAIN")),
                     "HealthCheckProgram: slurmd's next run resumes it",
                     "%s %s" % (c.reason(), c.node_field("State")))


sys.exit(rdtest.main())
