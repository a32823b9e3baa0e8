#!/usr/bin/env python3
"""rocm-doctor fleet --slurm through the tests' real Slurm (slurmlib.Cluster:
munged, slurmctld and one slurmd on this host): `srun`, one task per node,
runs the node's `rocm-doctor check --json` (a wrapper first on PATH, which
srun passes on, diagnosing a facts file of the scenario beds); by --nodes
and by --partition; with the saved reports of other nodes (--from) in the
same run; a node whose check hangs past --node-timeout; a node list Slurm
does not know. Debian's slurmd runs one node per host, so the other nodes
come from --from.

    test-fleet-slurm.py ROCM_DOCTOR TB_RUN
"""
import json
import os
import subprocess
import sys
import time

sys.dont_write_bytecode = True
import fleetlib  # noqa: E402
import beds  # noqa: E402  (fleetlib puts tests/lib on the path)
import rdtest  # noqa: E402
beds.use("slurm")
import slurmlib  # noqa: E402

BIN, TB_RUN = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
cluster = None
tmp = rdtest.temp_dir("rocm-doctor-fleet-slurm-")
os.chmod(tmp, 0o755)


def facts(scenario):
    return fleetlib.scenario_facts(scenario, BIN, TB_RUN, tmp)


def setup():
    global cluster
    why = slurmlib.Cluster.jobs_missing()
    if why:
        rdtest.skip(why)
    if cluster is None:
        bindir = os.path.join(tmp, "bin")
        os.mkdir(bindir)
        with open(os.path.join(bindir, "rocm-doctor"), "w") as f:
            f.write('#!/bin/sh\n[ -n "$FLEET_TEST_HANG" ] && exec sleep 600\n'
                    'ROCM_DOCTOR_DATA_DIR="%s" exec "%s" "$@" --facts "%s"\n'
                    % (os.environ.get("ROCM_DOCTOR_DATA_DIR", ""), BIN, facts("access-nodes")))
        os.chmod(os.path.join(bindir, "rocm-doctor"), 0o755)
        c = slurmlib.Cluster()
        c.start()
        cluster = c
        cluster.bindir = bindir


def fleet(*args, env=None):
    e = dict(cluster.env, PATH=cluster.bindir + ":" + os.environ.get("PATH", "/usr/bin:/bin"), NO_COLOR="1",
             LC_ALL="C.UTF-8")
    e.update(env or {})
    return subprocess.run([BIN, "fleet", "--slurm", *args], env=e, capture_output=True, text=True, timeout=300)


@rdtest.test(root=True)
def by_nodes_and_partition():
    setup()
    for how in (["--nodes", cluster.node], ["--partition", "debug"]):
        p = fleet(*how, "--json")
        rdtest.eq(p.returncode, 2, "%s: exit status 2 (the node's errors)" % how[0])
        try:
            j = json.loads(p.stdout)
        except ValueError:
            rdtest.fail("%s: JSON" % how[0], p.stdout + p.stderr + cluster.log("slurmd")[-2000:])
        rdtest.eq([(n["name"], n["status"]) for n in j["nodes"]], [(cluster.node, "error")],
                  "%s: the node, checked through srun" % how[0])
        rdtest.eq({c["id"]: c["hostlist"] for c in j["causes"]}.get("kfd.no-access"), cluster.node,
                  "%s: its cause" % how[0])


@rdtest.test(root=True)
def with_saved_reports():
    setup()
    saved = os.path.join(tmp, "saved")
    os.mkdir(saved)
    with fleetlib.Bed("healthy-rx7900xtx", BIN, TB_RUN) as bed:
        report = bed.run("check", "--json").stdout
    for i in range(1, 8):
        with open(os.path.join(saved, "gpu%02d.json" % i), "w") as f:
            f.write(report)
    p = fleet("--nodes", cluster.node, "--from", saved)
    rdtest.eq(p.returncode, 2, "saved and live: exit status 2")
    rdtest.check(p.stdout.startswith("8 nodes: 7 healthy, 1 with errors\n"), "the live node among the saved ones",
                 p.stdout + p.stderr)
    rdtest.check("nodes: %s\n" % cluster.node in p.stdout, "the cause names the Slurm node", p.stdout)


@rdtest.test(root=True)
def a_node_that_hangs():
    setup()
    t0 = time.monotonic()
    p = fleet("--nodes", cluster.node, "--node-timeout", "5", "--json", env={"FLEET_TEST_HANG": "1"})
    took = time.monotonic() - t0
    rdtest.eq(p.returncode, 3, "a hanging node: exit status 3")
    j = json.loads(p.stdout)
    rdtest.eq(j["unreachable"], [{"node": cluster.node, "reason": "timed out after 5 s"}], "timed out, never healthy")
    rdtest.check(took < 30, "bounded by --node-timeout (%.1f s)" % took)
    # the step is gone
    for _ in range(50):
        q = cluster.run(["squeue", "-h"])
        if not q.stdout.strip():
            break
        time.sleep(0.2)
    rdtest.eq(cluster.run(["squeue", "-h"]).stdout.strip(), "", "no job left behind")


@rdtest.test(root=True)
def unknown_nodes():
    setup()
    p = fleet("--nodes", "ghost[1-2]", "--node-timeout", "20", "--json")
    rdtest.eq(p.returncode, 3, "nodes Slurm does not know: exit status 3")
    j = json.loads(p.stdout)
    rdtest.eq([u["node"] for u in j["unreachable"]], ["ghost1", "ghost2"], "each is not checked")
    rdtest.check(all(u["reason"].startswith("no report: ") for u in j["unreachable"]), "with srun's word",
                 j["unreachable"])
    p = fleet("--partition", "nosuch")
    rdtest.eq(p.returncode, 3, "an unknown partition: exit status 3")
    p = fleet()
    rdtest.eq(p.returncode, 3, "--slurm alone: a usage error")


if __name__ == "__main__":
    try:
        rc = rdtest.main()
    finally:
        if cluster:
            cluster.stop()
    sys.exit(rc)
