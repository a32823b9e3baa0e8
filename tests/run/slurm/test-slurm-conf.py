#!/usr/bin/env python3
"""The Slurm configuration checks through the real binary on a scenario test
bed (one RX 7900 XTX, render node /dev/dri/renderD128) with slurm.conf,
gres.conf and cgroup.conf written into its root: each mistake gives its
finding with file:line evidence, a correct configuration gives none. Then
Slurm's own reading of a gres.conf with ranges, a continuation line, a
comment and a relative Include (`slurmd -G`, from Debian's slurmd) is
compared with what `rocm-doctor facts` read from it.

Usage: test-slurm-conf.py ROCM_DOCTOR TB_RUN"""
import json
import os
import re
import shutil
import signal
import stat
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "fleet"))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "..", "lib"))
import fleetlib  # noqa: E402
import rdtest  # noqa: E402
import slurmlib  # noqa: E402

binary, tb_run = os.path.abspath(sys.argv[1]), sys.argv[2]
NODE = "gpu01"
GOOD_SLURM = "ClusterName=c\nGresTypes=gpu\nNodeName=gpu[01-16] CPUs=8 Gres=gpu:rx7900xtx:1\n"
GOOD_GRES = "Name=gpu Type=rx7900xtx File=/dev/dri/renderD128\n"

CASES = [
    # name, slurm.conf, gres.conf, cgroup.conf, other files, expected {id: [evidence lines that must be there]}
    ("correct", GOOD_SLURM, GOOD_GRES, "ConstrainDevices=yes\n", {}, {}),
    ("count and file", GOOD_SLURM, "Name=gpu Type=rx7900xtx File=/dev/dri/renderD[128-129]\n", None, {},
     {"slurm.gres-count": ["/etc/slurm/gres.conf:1: Name=gpu File=/dev/dri/renderD[128-129] Type=rx7900xtx "
                           "(2 GPUs)"],
      "slurm.gres-file": ["/etc/slurm/gres.conf:1: File=/dev/dri/renderD129: no AMD GPU's render node"]}),
    ("card node", GOOD_SLURM, "# the display node\nName=gpu Type=rx7900xtx File=/dev/dri/card0\n", None, {},
     {"slurm.gres-file": ["/etc/slurm/gres.conf:2: File=/dev/dri/card0: a display node (/dev/dri/card*), "
                          "not a render node"]}),
    ("type", GOOD_SLURM.replace("rx7900xtx", "mi300x"), GOOD_GRES, None, {},
     {"slurm.gres-type": ["/etc/slurm/slurm.conf:3: NodeName=gpu[01-16] Gres=gpu:mi300x:1",
                          "/etc/slurm/gres.conf:1: Name=gpu Type=rx7900xtx"]}),
    ("grestypes", GOOD_SLURM.replace("GresTypes=gpu", "GresTypes=shard"), GOOD_GRES, None, {},
     {"slurm.grestypes-missing": ["/etc/slurm/slurm.conf:2: GresTypes=shard"]}),
    ("autodetect", GOOD_SLURM, "AutoDetect=rsmi\n" + GOOD_GRES, None, {},
     {"slurm.gres-autodetect": ["/etc/slurm/gres.conf:1: AutoDetect=rsmi"]}),
    ("count in slurm.conf", GOOD_SLURM.replace(":1\n", ":8\n"), None, None, {},
     {"slurm.gres-count": ["/etc/slurm/slurm.conf:3: NodeName=gpu[01-16] Gres=gpu:rx7900xtx:8 (8 GPUs)"]}),
    ("cgroup whitelist without kfd", GOOD_SLURM, GOOD_GRES, "CgroupAutomount=yes\nConstrainDevices=yes\n",
     {"cgroup_allowed_devices_file.conf": "/dev/null\n/dev/urandom\n/dev/zero\n/dev/sda*\n/dev/cpu/*/*\n"},
     {"slurm.cgroup-kfd": ["/etc/slurm/cgroup.conf:2: ConstrainDevices=yes",
                           "/etc/slurm/cgroup_allowed_devices_file.conf: no line allows /dev/kfd"]}),
    ("cgroup whitelist with kfd", GOOD_SLURM, GOOD_GRES, "ConstrainDevices=yes\n",
     {"cgroup_allowed_devices_file.conf": "/dev/null\n/dev/kfd\n"}, {}),
]


def write_conf(root, slurm, gres, cgroup, others):
    d = os.path.join(root, "etc", "slurm")
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(d)
    for name, text in [("slurm.conf", slurm), ("gres.conf", gres), ("cgroup.conf", cgroup)] + list(others.items()):
        if text is not None:
            os.makedirs(os.path.dirname(os.path.join(d, name)), exist_ok=True)
            with open(os.path.join(d, name), "w") as f:
                f.write(text)


def slurm_findings(bed):
    p = bed.run("check", "--json", env={"SLURMD_NODENAME": NODE})
    report = json.loads(p.stdout)
    return {f["id"]: f["evidence"] for f in report["findings"] if f["id"].startswith("slurm.")}


def expand(spec):
    """A File= list as Slurm writes it back (one bracket group)."""
    out = []
    for m in re.finditer(r"([^,\[]+)(?:\[([^\]]*)\])?", spec):
        head, ranges = m.group(1), m.group(2)
        if ranges is None:
            out.append(head)
            continue
        for r in ranges.split(","):
            lo, _, hi = r.partition("-")
            out += ["%s%s" % (head, str(v).zfill(len(lo))) for v in range(int(lo), int(hi or lo) + 1)]
    return out


def start_munged(tmp):
    """A real munged of its own (key, socket and pid file in tmp), which
    slurm.conf's AuthInfo names: Slurm 24.11's slurmd -G fails without a
    munged to talk to. Returns its pid."""
    if not shutil.which("munged"):
        rdtest.skip("munged is not installed (apt-get install munge)")
    key, pidfile = os.path.join(tmp, "munge.key"), os.path.join(tmp, "munged.pid")
    with open(key, "wb") as f:
        f.write(os.urandom(128))
    os.chmod(key, 0o600)
    p = subprocess.run(["munged", "--force", "--key-file=" + key, "--socket=" + os.path.join(tmp, "munge.sock"),
                        "--pid-file=" + pidfile, "--log-file=" + os.path.join(tmp, "munged.log"),
                        "--seed-file=" + os.path.join(tmp, "munge.seed")], capture_output=True, text=True, timeout=60)
    rdtest.check(p.returncode == 0, "munged starts", p.stdout + p.stderr)
    for _ in range(100):
        try:
            with open(pidfile) as f:
                return int(f.read().split()[0])
        except (OSError, ValueError, IndexError):
            time.sleep(0.1)
    raise RuntimeError("munged wrote no pid file " + pidfile)


def stop(pid):
    os.kill(pid, signal.SIGTERM)
    for _ in range(100):
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return
        time.sleep(0.1)
    os.kill(pid, signal.SIGKILL)


def slurmd_agrees(bed, tmp):
    """slurmd -G and rocm-doctor facts on the same gres.conf."""
    dev = os.path.join(tmp, "dev")
    os.makedirs(dev, exist_ok=True)
    for i in range(128, 132):  # slurmd wants character devices: stand-ins with /dev/null's numbers
        os.mknod(os.path.join(dev, "renderD%d" % i), 0o600 | stat.S_IFCHR, os.makedev(1, 3))
    gres = ("# GPUs of gpu01\nNodeName=gpu[01-02] Name=gpu Type=mi300x File=%s/renderD[128-129] \\\n"
            "    Cores=0\nInclude gres.d/more.conf\n" % dev)
    write_conf(bed.root, "ClusterName=c\nSlurmctldHost=localhost\nGresTypes=gpu\nAuthType=auth/munge\n"
               "AuthInfo=socket=%s/munge.sock\nProctrackType=proctrack/linuxproc\nTaskPlugin=task/none\n"
               "NodeName=gpu01 CPUs=1 Gres=gpu:mi300x:2,gpu:mi250:2\nPartitionName=p Nodes=gpu01\n" % tmp, gres,
               slurmlib.no_cgroup_conf(),
               {"gres.d/more.conf": "NodeName=gpu01 Name=gpu Type=mi250 File=%s/renderD[130,131] # two\n" % dev})
    env = dict(os.environ, SLURM_CONF=os.path.join(bed.root, "etc", "slurm", "slurm.conf"))
    p = subprocess.run(["slurmd", "-G", "-N", NODE], env=env, capture_output=True, text=True, timeout=60)
    theirs = sorted((m.group(1), int(m.group(2)), tuple(expand(m.group(3))))
                    for m in re.finditer(r"Gres Name=gpu Type=(\S+) Count=(\d+) .*?File=(\S+)", p.stdout + p.stderr))
    f = json.loads(bed.run("facts", env={"SLURMD_NODENAME": NODE}).stdout)["slurm"]
    ours = sorted((g["type"], len(g["files"]), tuple(g["files"])) for g in f["gres"])
    print("# slurmd -G: %s\n# rocm-doctor facts: %s" % (theirs, ours))
    rdtest.check(theirs == ours and len(ours) == 2,
                 "slurmd -G reads the gres.conf as the check does",
                 "%s\n%s\n%s" % (theirs, ours, p.stderr))
    rdtest.check([(g["file"], g["line"]) for g in f["gres"]] == [("/etc/slurm/gres.conf", 2),
                                                                  ("/etc/slurm/gres.d/more.conf", 1)],
                 "the included file's line is recorded with its file and line",
                 f["gres"])


class Shared:
    """The scenario's test bed, made once for the tests."""
    bed = None

    @classmethod
    def get(cls):
        if cls.bed is None:
            cls.bed = fleetlib.Bed("health-rx7900xtx-healthy", binary, tb_run)
        return cls.bed

    @classmethod
    def close(cls):
        if cls.bed is not None:
            cls.bed.__exit__(None, None, None)


def check_case(name, slurm, gres, cgroup, others, want):
    bed = Shared.get()
    write_conf(bed.root, slurm, gres, cgroup, others)
    got = slurm_findings(bed)
    rdtest.check(sorted(got) == sorted(want),
                 "%s: the slurm findings are %s" % (name, sorted(want) or "none"),
                 json.dumps(got, indent=1))
    for fid, lines in want.items():
        for line in lines:
            rdtest.check(line in got.get(fid, []), "%s: %s says %s" % (name, fid, line), got.get(fid))


def case_test(case):
    """Registers the test of one configuration, named by it."""
    def t():
        check_case(*case)
    t.__name__ = "configuration_" + re.sub(r"\W+", "_", case[0])
    rdtest.test(t)


for c in CASES:
    case_test(c)

GRES_OLD = "AutoDetect=off\nName=gpu Type=rx7900xtx File=/dev/dri/card[0-1]\nName=shard Count=4\n"
GRES_WANT = ("AutoDetect=off\nName=shard Count=4\n# This node's 1 AMD GPU, one line each (rocm-doctor fix --only "
             "slurm-gres).\nName=gpu Type=rx7900xtx File=/dev/dri/renderD128\n")


@rdtest.test
def the_gres_fix_is_proposed():
    """`fix --only slurm-gres` proposes this node's gres.conf: the wrong gpu
    line replaced by the GPU's render node with slurm.conf's type, other
    lines kept; nothing without --only."""
    bed = Shared.get()
    env = {"SLURMD_NODENAME": NODE}
    write_conf(bed.root, GOOD_SLURM, GRES_OLD, None, {})
    p = bed.run("fix", env=env)
    rdtest.check("gres.conf" not in p.stdout, "fix alone plans no gres.conf", p.stdout)
    p = bed.run("fix", "--only", "slurm-gres", env=env)
    diff = "".join("+" + line + "\n" for line in GRES_WANT.splitlines()[2:])
    rdtest.check(diff in p.stdout and "-Name=gpu Type=rx7900xtx File=/dev/dri/card[0-1]\n" in p.stdout and
                 "Fixes: slurm.gres-count, slurm.gres-file" in p.stdout,
                 "the plan proposes the node's line, for the findings it fixes",
                 p.stdout)
    print("# the findings on the card-node gres.conf:")
    write_conf(bed.root, GOOD_SLURM, "Name=gpu Type=rx7900xtx File=/dev/dri/card[0-1]\n", None, {})
    p = bed.run("check", env={"SLURMD_NODENAME": NODE, "COLUMNS": "200"})
    print("# " + "\n# ".join(p.stdout.splitlines()))


@rdtest.test(root=True)
def the_gres_fix_applied_and_undone():
    """Applied, the check finds nothing; undo gives the file back."""
    bed = Shared.get()
    env = {"SLURMD_NODENAME": NODE}
    write_conf(bed.root, GOOD_SLURM, GRES_OLD, None, {})
    p = bed.run("fix", "--only", "slurm-gres", "--apply", "--yes", env=env)
    path = os.path.join(bed.root, "etc", "slurm", "gres.conf")
    with open(path) as f:
        got = f.read()
    rdtest.check((p.returncode, got) == (0, GRES_WANT),
                 "applied: gres.conf as proposed",
                 "%s\n%s%s" % (got, p.stdout, p.stderr))
    rdtest.check(slurm_findings(bed) == {}, "applied: no slurm finding left", slurm_findings(bed))
    p = bed.run("undo", env=env)
    with open(path) as f:
        rdtest.check((p.returncode, f.read()) == (0, GRES_OLD),
                     "undo gives the old gres.conf back",
                     p.stdout + p.stderr)


@rdtest.test(root=True)
def slurmd_reads_gres_conf_as_the_check_does():
    """Its stand-in device nodes need mknod, hence root."""
    if not shutil.which("slurmd"):
        rdtest.skip("slurmd is not installed")
    tmp = tempfile.mkdtemp(prefix="rocm-doctor-slurmd-")
    munged = None
    try:
        munged = start_munged(tmp)
        slurmd_agrees(Shared.get(), tmp)
    finally:
        if munged:
            stop(munged)
        shutil.rmtree(tmp, ignore_errors=True)


status = rdtest.main()
Shared.close()
sys.exit(status)
