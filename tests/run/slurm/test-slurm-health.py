#!/usr/bin/env python3
"""`rocm-doctor slurm health` against a real single-node Slurm cluster
(slurmlib.Cluster): the GPU comes from facts gathered on the scenario test
beds (an RX 7900 XTX with a PCIe AER error, and the same card healthy). The
node is drained with the finding ids as its reason (as `sinfo -R` shows
it), left alone while still broken, resumed once healthy; an
administrator's drain stays; a check that cannot run drains (or, with
--on-unknown keep, leaves the node) and never resumes; a fresh status file
is taken as the verdict, a stale one is not.

Usage: test-slurm-health.py ROCM_DOCTOR TB_RUN"""
import json
import os
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "fleet"))
import fleetlib  # noqa: E402
import slurmlib  # noqa: E402

binary, tb_run = os.path.abspath(sys.argv[1]), sys.argv[2]
res = fleetlib.Results()


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


def main():
    why = slurmlib.Cluster.missing()
    if why:
        print("SKIP: " + why)
        return slurmlib.EXIT_SKIP
    tmp = tempfile.mkdtemp(prefix="rocm-doctor-slurm-facts-")
    broken, healthy = os.path.join(tmp, "broken.json"), os.path.join(tmp, "healthy.json")
    facts_of("health-aer-errors", broken)
    facts_of("health-rx7900xtx-healthy", healthy)
    with slurmlib.Cluster() as c:
        node = c.node
        rc, out, err = health(c, "--facts", broken)
        res.check("broken GPU: exit 2", rc == 2, "%d %s %s" % (rc, out, err))
        res.check("broken GPU: says it drained", out == "%s: drained (rocm-doctor: pcie.aer-errors)" % node, out)
        res.check("broken GPU: State has DRAIN", "DRAIN" in (c.node_field("State") or ""), c.node_field("State"))
        sinfo = c.sinfo_r()
        print("# sinfo -R after the drain:\n# " + c.run(["sinfo", "-R"]).stdout.replace("\n", "\n# "))
        res.check("sinfo -R shows the ids", sinfo == "rocm-doctor: pcie.aer-errors|%s" % node, sinfo)

        rc, out, err = health(c, "--facts", broken)
        res.check("still broken: exit 2, reason kept", rc == 2 and c.reason() == "rocm-doctor: pcie.aer-errors",
                  "%d %s %s" % (rc, out, c.reason()))
        res.check("still broken: no second drain", out.startswith(node + ": IDLE+DRAIN (rocm-doctor:"), out)

        rc, out, err = health(c, "--facts", healthy)
        res.check("healthy: exit 0", rc == 0, "%d %s %s" % (rc, out, err))
        res.check("healthy: resumed", out == "%s: resumed (was: rocm-doctor: pcie.aer-errors)" % node, out)
        res.check("healthy: no DRAIN", "DRAIN" not in (c.node_field("State") or "DRAIN"), c.node_field("State"))
        res.check("healthy: sinfo -R empty", c.sinfo_r() == "", c.sinfo_r())

        c.run(["scontrol", "update", "nodename=" + node, "state=drain", "reason=disk replacement"])
        rc, out, err = health(c, "--facts", healthy)
        res.check("admin drain, healthy GPU: stays drained", rc == 0 and c.reason() == "disk replacement"
                  and "DRAIN" in c.node_field("State"), "%d %s %s" % (rc, out, c.reason()))
        rc, out, err = health(c, "--facts", broken)
        res.check("admin drain, broken GPU: the admin's reason stays", rc == 2 and c.reason() == "disk replacement",
                  "%d %s %s" % (rc, out, c.reason()))
        c.run(["scontrol", "update", "nodename=" + node, "state=resume"])

        no_tables = {"ROCM_DOCTOR_DATA_DIR": os.path.join(tmp, "no-such-dir")}
        rc, out, err = health(c, "--facts", healthy, "--on-unknown", "keep", env=no_tables)
        res.check("check cannot run, keep: exit 3, node untouched", rc == 3 and "DRAIN" not in c.node_field("State"),
                  "%d %s %s %s" % (rc, out, err, c.node_field("State")))
        rc, out, err = health(c, "--facts", healthy, env=no_tables)
        res.check("check cannot run: drained, exit 3", rc == 3 and c.reason() == "rocm-doctor: check failed",
                  "%d %s %s %s" % (rc, out, err, c.reason()))
        rc, out, err = health(c, "--facts", healthy, env=no_tables)
        res.check("check still cannot run: never resumed", rc == 3 and c.reason() == "rocm-doctor: check failed",
                  "%d %s %s" % (rc, out, c.reason()))
        rc, out, err = health(c, "--facts", healthy)
        res.check("check runs again, healthy: resumed", rc == 0 and c.reason() is None, "%d %s %s" % (rc, out, err))

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
        res.check("fresh status: its error ids drain", rc == 2 and
                  c.reason() == "rocm-doctor: gpu.ras-uncorrectable,gpu.retired-pages",
                  "%d %s %s %s" % (rc, out, err, c.reason()))
        res.check("fresh status: says where the verdict came from", err == "rocm-doctor: the verdict of " + status, err)
        old = time.time() - 3600
        os.utime(status, (old, old))
        rc, out, err = health(c, "--config", conf)
        res.check("stale status: not taken", "the verdict of" not in err and rc in (0, 1, 2, 3), err)
    wired(tmp, broken, healthy)
    return res.finish()


def wait_for(c, cond, timeout=30):
    end = time.time() + timeout
    while time.time() < end:
        if cond():
            return True
        time.sleep(0.5)
    return False


def wired(tmp, broken, healthy):
    """slurmd itself runs the health check as its HealthCheckProgram (the
    wrapper of contrib/slurm, with the facts file the test points it at)."""
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
        res.check("HealthCheckProgram: slurmd's run drains the node",
                  wait_for(c, lambda: c.reason() == "rocm-doctor: pcie.aer-errors"), c.reason())
        with open(current, "w") as f:
            f.write(healthy)
        res.check("HealthCheckProgram: slurmd's next run resumes it",
                  wait_for(c, lambda: c.reason() is None and "DRAIN" not in (c.node_field("State") or "DRAIN")),
                  "%s %s" % (c.reason(), c.node_field("State")))


sys.exit(main())
