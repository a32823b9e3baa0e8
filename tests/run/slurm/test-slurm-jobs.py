#!/usr/bin/env python3
"""`rocm-doctor slurm prolog` and `slurm epilog` as a real Slurm cluster's
Prolog and Epilog (slurmlib.Cluster, one node with one GPU gres): a job
(`srun --gres=gpu:1`) is refused when its GPU has an error and runs when it
is healthy; the epilog drains the node, with the id as the reason, when the
GPU's RAS uncorrectable count grew during the job, and leaves it when
nothing grew. The GPU is a facts file of the scenario test beds (an RX 7900
XTX), switched between prolog and epilog by the test; the RAS counts are set
in that facts file, as the health probe would record them.

Usage: test-slurm-jobs.py ROCM_DOCTOR TB_RUN"""
import json
import os
import stat
import subprocess
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


def facts_of(scenario):
    with fleetlib.Bed(scenario, binary, tb_run) as bed:
        p = bed.run("facts")
        if p.returncode != 0:
            raise RuntimeError("facts on %s exited %d: %s" % (scenario, p.returncode, p.stderr))
        return json.loads(p.stdout)


def with_ras(facts, ue):
    """The facts with RAS exposed on the GPU and ue uncorrectable errors in umc."""
    f = json.loads(json.dumps(facts))
    g = f["health"]["gpus"][0]
    g["ras_exposed"] = True
    g["ras"] = [{"block": "umc", "ue": ue, "ce": 0, "de": -1, "inaccessible": False}]
    return f


def write(path, facts):
    with open(path, "w") as f:
        json.dump(facts, f)


def script(c, mode):
    path = c.path(mode + ".sh")
    with open(path, "w") as f:
        f.write(f"""#!/bin/sh
export SLURM_CONF={c.conf} SLURMD_NODENAME={c.node}
export ROCM_DOCTOR_DATA_DIR={os.environ["ROCM_DOCTOR_DATA_DIR"]} ROCM_DOCTOR_SLURM_STATE_DIR={c.path("state-rd")}
exec {binary} slurm {mode} --facts "$(cat {c.path(mode + "-facts")})" 2>>{c.path(mode + ".err")}
""")
    os.chmod(path, 0o755)
    return path


def use(c, mode, path):
    with open(c.path(mode + "-facts"), "w") as f:
        f.write(path)


def wait_drain(c, timeout=15):
    end = time.time() + timeout
    while time.time() < end:
        if "DRAIN" in (c.node_field("State") or ""):
            return True
        time.sleep(0.3)
    return False


class Jobs:
    """The cluster with the prolog and epilog, and the facts files they are
    given, started once for the tests."""
    c = None

    @classmethod
    def get(cls):
        why = slurmlib.Cluster.jobs_missing()
        if why:
            rdtest.skip(why)
        if cls.c is None:
            cls.start()
        return cls.c, cls.path

    @classmethod
    def start(cls):
        tmp = rdtest.temp_dir("rocm-doctor-slurm-jobs-")
        healthy = facts_of("health-rx7900xtx-healthy")
        files = {"healthy": healthy, "broken": facts_of("health-aer-errors"),
                 "ras0": with_ras(healthy, 0), "ras2": with_ras(healthy, 2)}
        for name, f in files.items():
            write(os.path.join(tmp, name + ".json"), f)
        cls.path = {name: os.path.join(tmp, name + ".json") for name in files}
        c = slurmlib.Cluster(node_conf="Gres=gpu:1")
        # slurmd wants File= to be a character device: this machine has no render
        # node, so a stand-in with /dev/null's numbers (the GPU itself is the facts file)
        render = c.path("dev", "renderD128")
        os.makedirs(os.path.dirname(render))
        os.mknod(render, 0o600 | stat.S_IFCHR, os.makedev(1, 3))
        c.gres_conf = "NodeName=%s Name=gpu File=%s\n" % (c.node, render)
        c.extra_conf = "GresTypes=gpu\nProlog=%s\nEpilog=%s\n" % (script(c, "prolog"), script(c, "epilog"))
        c.start()
        cls.c = c

    @classmethod
    def stop(cls):
        if cls.c is not None:
            cls.c.stop()


@rdtest.test(root=True)
def a_broken_gpu_refuses_the_job():
    c, path = Jobs.get()
    use(c, "prolog", path["broken"])
    use(c, "epilog", path["broken"])
    p = c.run(["srun", "--gres=gpu:1", "-t", "1", "true"], timeout=60)
    print("# srun with the broken GPU: rc %d\n# %s" % (p.returncode, p.stderr.strip().replace("\n", "\n# ")))
    rdtest.check(p.returncode != 0, "broken GPU: the job does not run", p.stdout + p.stderr)
    err = open(c.path("prolog.err")).read() if os.path.exists(c.path("prolog.err")) else ""
    rdtest.check("refused: 0000:03:00.0: pcie.aer-errors:" in err,
                 "broken GPU: the prolog names the finding",
                 err)
    rdtest.check(wait_drain(c),
                 "broken GPU: Slurm drains the node after the prolog failed",
                 c.node_field("State"))
    c.run(["scontrol", "update", "nodename=" + c.node, "state=resume"])
    c.wait_idle()


@rdtest.test(root=True)
def a_healthy_gpu_runs_the_job():
    c, path = Jobs.get()
    use(c, "prolog", path["healthy"])
    use(c, "epilog", path["healthy"])
    p = c.run(["srun", "--gres=gpu:1", "-t", "1", "true"], timeout=60)
    rdtest.check(p.returncode == 0, "healthy GPU: the job runs", p.stdout + p.stderr)
    time.sleep(2)
    rdtest.check("DRAIN" not in (c.node_field("State") or ""),
                 "healthy GPU: not drained",
                 c.node_field("State"))
    rdtest.check(not os.listdir(c.path("state-rd")),
                 "healthy GPU: the epilog left no state",
                 os.listdir(c.path("state-rd")))


@rdtest.test(root=True)
def ras_growth_during_the_job_drains_the_node():
    c, path = Jobs.get()
    use(c, "prolog", path["ras0"])
    use(c, "epilog", path["ras2"])
    p = c.run(["srun", "--gres=gpu:1", "-t", "1", "true"], timeout=60)
    rdtest.check(p.returncode == 0, "RAS grew: the job itself ran", p.stdout + p.stderr)
    rdtest.check(wait_drain(c), "RAS grew: the epilog drains the node", c.node_field("State"))
    rdtest.check(c.reason() == "rocm-doctor: gpu.ras-uncorrectable",
                 "RAS grew: the reason names the id",
                 c.reason())
    err = open(c.path("epilog.err")).read()
    rdtest.check("0000:03:00.0: RAS uncorrectable errors 0 -> 2" in err,
                 "RAS grew: the epilog says what grew",
                 err)
    print("# sinfo -R after the epilog:\n# " + c.run(["sinfo", "-R"]).stdout.replace("\n", "\n# "))


@rdtest.test(root=True)
def the_epilog_removes_counters_it_cannot_read():
    """A counters file the epilog cannot read (a FIFO, a directory, one
    over the size limit) is removed as the man page says, with exit 3 and
    the reason on stderr; the next job of that id starts clean."""
    if slurmlib.Cluster.missing():
        rdtest.skip(slurmlib.Cluster.missing())
    base = rdtest.temp_dir("rocm-doctor-slurm-epilog-")
    env = dict(os.environ, ROCM_DOCTOR_SLURM_STATE_DIR=base, SLURMD_NODENAME="rdnode", SLURM_JOB_ID="77")
    job = os.path.join(base, "77")
    path = os.path.join(job, "counters.json")

    def fifo():
        os.mkfifo(path, 0o600)

    def directory():
        os.mkdir(path, 0o700)

    def huge():
        with open(path, "wb") as f:
            f.truncate(17 << 20)

    for make in (fifo, directory, huge):
        os.makedirs(job, 0o700, exist_ok=True)
        make()
        p = subprocess.run([binary, "slurm", "epilog"], env=env, capture_output=True, text=True, timeout=30)
        rdtest.check(p.returncode == 3 and "cannot read " + path in p.stderr,
                     "%s as counters.json: exit 3, says so" % make.__name__,
                     "%d %s" % (p.returncode, p.stderr))
        rdtest.check(not os.path.lexists(path) and not os.path.lexists(job),
                     "%s as counters.json: removed" % make.__name__,
                     os.listdir(base))
        if os.path.lexists(path):
            (os.rmdir if os.path.isdir(path) else os.unlink)(path)


status = rdtest.main()
Jobs.stop()
sys.exit(status)
