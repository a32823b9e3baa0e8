"""A real single-node Slurm cluster for the tests: Debian's munged,
slurmctld and slurmd started on localhost with their configuration, state,
sockets and logs in a temporary directory, free TCP ports, no systemd; each
daemon stopped by its pid at the end. Needs root (slurmd runs jobs as their
users) and the packages munge, slurmctld, slurmd and slurm-client; Cluster.
missing() says what is absent so a test can skip (rdtest.skip)."""

import os
import re
import shutil
import signal
import socket
import subprocess
import tempfile
import time

TOOLS = ["munged", "slurmctld", "slurmd", "scontrol", "sinfo", "srun"]


def slurm_version():
    """(major, minor) of the slurmd installed, (0, 0) when it does not say."""
    p = subprocess.run(["slurmd", "-V"], capture_output=True, text=True)
    m = re.search(r"(\d+)\.(\d+)", p.stdout)
    return (int(m.group(1)), int(m.group(2))) if m else (0, 0)


def no_cgroup_conf():
    """The cluster uses no cgroup (proctrack/linuxproc, task/none), but
    slurmd starts its cgroup plugin all the same, and fails ("No filesystem
    mounted on /sys/fs/cgroup", "Unable to initialize cgroup plugin") where
    none is mounted, as in a chroot: CgroupPlugin=disabled, a value Slurm
    has since 24.05, spares it; None before."""
    return "CgroupPlugin=disabled\n" if slurm_version() >= (24, 5) else None


def resume_keeps_reason():
    """Whether `scontrol update state=resume` leaves the node's reason as it
    was on this cluster: Slurm 23.11 to 25.11 clear the reason of a node
    that comes back into service only through the accounting storage
    plugin, and this cluster has none (AccountingStorageType=
    accounting_storage/none); 22.05 clears it without one, and so does
    26.05 again ("Fix not clearing node reasons on resume when not using
    an accounting storage plugin")."""
    return (23, 11) <= slurm_version() < (26, 5)


def resumed_reason():
    """The reason of a node rocm-doctor resumed: none, or where Slurm keeps
    the reason, the one rocm-doctor puts in place of its own."""
    return "rocm-doctor: resumed" if resume_keeps_reason() else None


def free_port():
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def stop_pid(pid):
    """SIGTERM, and SIGKILL when it has not ended in 10 seconds."""
    try:
        os.kill(pid, signal.SIGTERM)
    except ProcessLookupError:
        return
    for _ in range(100):
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return
        time.sleep(0.1)
    os.kill(pid, signal.SIGKILL)


class Cluster:
    def __init__(self, node="rdnode", extra_conf="", gres_conf=None, cgroup_conf=None, node_conf=""):
        self.node = node
        self.node_conf = node_conf
        self.dir = tempfile.mkdtemp(prefix="rocm-doctor-slurm-")
        self.pids = {}
        self.extra_conf = extra_conf
        self.gres_conf = gres_conf
        self.cgroup_conf = cgroup_conf
        self.conf = os.path.join(self.dir, "slurm.conf")
        self.env = dict(os.environ, SLURM_CONF=self.conf, SLURMD_NODENAME=node, LC_ALL="C")

    @staticmethod
    def missing():
        if os.geteuid() != 0:
            return "not root (slurmd and munged need it)"
        absent = [t for t in TOOLS if not shutil.which(t)]
        if absent:
            return "missing %s (apt-get install munge slurmctld slurmd slurm-client)" % " ".join(absent)
        return None

    @staticmethod
    def jobs_missing():
        """Why jobs cannot run promptly here, or None: Slurm 24.11's
        slurmctld looks up srun's host name for each job and step, holding
        the job lock 10 seconds on a name that does not resolve (a chroot
        whose /etc/hosts lacks it): srun and its steps then linger."""
        why = Cluster.missing()
        if why or slurm_version() < (24, 11):
            return why
        name = socket.gethostname()
        try:
            socket.getaddrinfo(name, None)
        except OSError:
            return "this host's name %s does not resolve (add it to /etc/hosts): Slurm %d.%d's jobs wait on it" % (
                (name,) + slurm_version())
        return None

    def path(self, *parts):
        return os.path.join(self.dir, *parts)

    def write_conf(self):
        d = self.dir
        for sub in ("state", "spool", "log"):
            os.makedirs(self.path(sub), exist_ok=True)
        ctld, slurmd = free_port(), free_port()
        with open(self.conf, "w") as f:
            f.write(f"""ClusterName=rdtest
SlurmctldHost={socket.gethostname().split(".")[0]}(127.0.0.1)
SlurmctldPort={ctld}
SlurmdPort={slurmd}
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket={d}/munge.sock
CredType=cred/munge
StateSaveLocation={d}/state
SlurmdSpoolDir={d}/spool
SlurmctldPidFile={d}/slurmctld.pid
SlurmdPidFile={d}/slurmd.pid
SlurmctldLogFile={d}/log/slurmctld.log
SlurmdLogFile={d}/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SelectType=select/cons_tres
ReturnToService=2
MpiDefault=none
{self.extra_conf}
NodeName={self.node} NodeAddr=127.0.0.1 CPUs=1 State=UNKNOWN{self.node_gres()}
PartitionName=debug Nodes={self.node} Default=YES MaxTime=INFINITE State=UP
""")
        if self.gres_conf is not None:
            with open(self.path("gres.conf"), "w") as f:
                f.write(self.gres_conf)
        cgroup = self.cgroup_conf if self.cgroup_conf is not None else no_cgroup_conf()
        if cgroup is not None:
            with open(self.path("cgroup.conf"), "w") as f:
                f.write(cgroup)

    def node_gres(self):
        return (" " + self.node_conf) if self.node_conf else ""

    def start(self):
        self.write_conf()
        key = self.path("munge.key")
        with open(key, "wb") as f:
            f.write(os.urandom(128))
        os.chmod(key, 0o600)
        self.daemon("munged", ["munged", "--force", "--key-file=" + key, "--socket=" + self.path("munge.sock"),
                               "--pid-file=" + self.path("munged.pid"), "--log-file=" + self.path("log", "munged.log"),
                               "--seed-file=" + self.path("munge.seed")], self.path("munged.pid"))
        self.daemon("slurmctld", ["slurmctld", "-i"], self.path("slurmctld.pid"))
        self.daemon("slurmd", ["slurmd", "-N", self.node], self.path("slurmd.pid"))
        self.wait_idle()

    def daemon(self, name, argv, pidfile):
        p = subprocess.run(argv, env=self.env, capture_output=True, text=True, timeout=60)
        if p.returncode != 0:
            raise RuntimeError("%s exited %d: %s%s" % (name, p.returncode, p.stdout, p.stderr))
        for _ in range(100):
            try:
                with open(pidfile) as f:
                    self.pids[name] = int(f.read().split()[0])
                return
            except (OSError, ValueError, IndexError):
                time.sleep(0.1)
        raise RuntimeError("%s wrote no pid file %s" % (name, pidfile))

    def wait_idle(self, timeout=30):
        end = time.time() + timeout
        state = ""
        while time.time() < end:
            state = self.node_field("State")
            if state and not state.startswith(("UNKNOWN", "DOWN")) and "NOT_RESPONDING" not in state:
                return state
            time.sleep(0.3)
        raise RuntimeError("node %s did not come up (State=%s); slurmd log:\n%s" % (self.node, state,
                                                                                  self.log("slurmd")[-2000:]))

    def run(self, argv, timeout=60, env=None):
        e = dict(self.env)
        e.update(env or {})
        return subprocess.run(argv, env=e, capture_output=True, text=True, timeout=timeout)

    def node_field(self, key):
        p = self.run(["scontrol", "show", "node", self.node])
        for word in p.stdout.replace("\n", " ").split(" "):
            if word.startswith(key + "="):
                return word[len(key) + 1:]
        return None

    def reason(self):
        p = self.run(["scontrol", "show", "node", self.node])
        for line in p.stdout.splitlines():
            line = line.strip()
            if line.startswith("Reason="):
                return line[len("Reason="):].rsplit(" [", 1)[0]
        return None

    def sinfo_r(self):
        """`sinfo -R` with the reason's full width."""
        return self.run(["sinfo", "-R", "-h", "-o", "%E|%N"]).stdout.strip()

    def log(self, name):
        try:
            with open(self.path("log", name + ".log"), errors="replace") as f:
                return f.read()
        except OSError:
            return ""

    def stop(self):
        for name in ("slurmd", "slurmctld", "munged"):
            pid = self.pids.pop(name, None)
            if pid is None:
                continue
            # Slurm 24.11's `scontrol reconfigure` starts new daemons that
            # write their pid files, and the ones started here exit
            for p in sorted({pid, self.pid_in(name)} - {None}):
                stop_pid(p)
        shutil.rmtree(self.dir, ignore_errors=True)

    def pid_in(self, name):
        """The pid in the daemon's pid file now, when that process is this
        daemon (its command and SLURM_CONF or munge socket ours), or None."""
        try:
            with open(self.path(name + ".pid")) as f:
                pid = int(f.read().split()[0])
            with open("/proc/%d/cmdline" % pid, "rb") as f:
                argv = f.read().split(b"\0")
            with open("/proc/%d/environ" % pid, "rb") as f:
                env = f.read().split(b"\0")
        except (OSError, ValueError, IndexError):
            return None
        ours = (("SLURM_CONF=" + self.conf).encode() in env or
                ("--socket=" + self.path("munge.sock")).encode() in argv)
        return pid if os.path.basename(argv[0].decode(errors="replace")) == name and ours else None

    def __enter__(self):
        try:
            self.start()
        except BaseException:
            self.stop()  # the daemons that did start (a slurmd that failed leaves munged and slurmctld)
            raise
        return self

    def __exit__(self, *exc):
        self.stop()
