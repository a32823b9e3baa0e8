#!/usr/bin/env python3
"""rocm-doctor fleet --hosts through real sshd "nodes" on loopback addresses
127.0.0.2 to 127.0.0.9, driven by pdsh, clush and plain ssh in turn.

Each node is an sshd of its own on its address (one port for all); the key's
forced command puts the node's own bin folder first on PATH and runs the
command it was given, so `rocm-doctor check --json` is that node's
`rocm-doctor`: a wrapper that diagnoses the node's facts file (built from
the scenario beds with the real binary). 127.0.0.7's sshd is stopped,
127.0.0.8's rocm-doctor hangs, 127.0.0.9 has none.

    test-fleet-hosts.py ROCM_DOCTOR TB_RUN
"""
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time

sys.dont_write_bytecode = True
import fleetlib  # noqa: E402
import rdtest  # noqa: E402  (fleetlib puts tests/lib on the path)

BIN, TB_RUN = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
SSHD = shutil.which("sshd") or "/usr/sbin/sshd"
NODES = ["127.0.0.%d" % i for i in range(2, 10)]
STOPPED, HANGS, NO_TOOL, ERROR = "127.0.0.7", "127.0.0.8", "127.0.0.9", "127.0.0.6"


class Cluster:
    def __init__(self):
        self.tmp = rdtest.temp_dir("rocm-doctor-fleet-hosts-")
        os.chmod(self.tmp, 0o755)
        self.procs = []

    def free_port(self):
        with socket.socket() as s:
            s.bind(("127.0.0.2", 0))
            return s.getsockname()[1]

    def facts(self, scenario):
        return fleetlib.scenario_facts(scenario, BIN, TB_RUN, self.tmp)

    def start(self):
        t = self.tmp
        user = os.environ.get("USER") or subprocess.run(["id", "-un"], capture_output=True, text=True).stdout.strip()
        for key in ("host_key", "client_key"):
            subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", os.path.join(t, key)], check=True)
        healthy, error = self.facts("healthy-rx7900xtx"), self.facts("access-nodes")
        data_dir = os.environ.get("ROCM_DOCTOR_DATA_DIR", "")
        for node in NODES:
            bindir = os.path.join(t, "nodes", node, "bin")
            os.makedirs(bindir)
            if node == NO_TOOL:
                continue
            tool = os.path.join(bindir, "rocm-doctor")
            with open(tool, "w") as f:
                f.write("#!/bin/sh\n")
                if node == HANGS:
                    f.write("exec sleep 600\n")
                else:
                    f.write('ROCM_DOCTOR_DATA_DIR="%s" exec "%s" "$@" --facts "%s"\n'
                            % (data_dir, BIN, error if node == ERROR else healthy))
            os.chmod(tool, 0o755)
        # the forced command: the node (the address the client reached) gets
        # its bin first on PATH, then the system's without any rocm-doctor
        # installed there (NO_TOOL has none)
        system = rdtest.path_without(("rocm-doctor", "rocm-doctord"), "/usr/bin:/bin", t)
        forced = os.path.join(t, "forced-command")
        with open(forced, "w") as f:
            f.write('#!/bin/sh\nnode=$(echo "$SSH_CONNECTION" | cut -d" " -f3)\n'
                    'PATH="%s/nodes/$node/bin:%s"; export PATH\n'
                    'exec /bin/sh -c "$SSH_ORIGINAL_COMMAND"\n' % (t, system))
        os.chmod(forced, 0o755)
        with open(os.path.join(t, "client_key.pub")) as f:
            pub = f.read().strip()
        with open(os.path.join(t, "authorized_keys"), "w") as f:
            f.write('command="%s",no-pty,no-port-forwarding %s\n' % (forced, pub))
        self.port = self.free_port()
        os.makedirs("/run/sshd", exist_ok=True) if os.geteuid() == 0 else None
        for node in NODES:
            if node == STOPPED:
                continue
            conf = os.path.join(t, "sshd-%s.conf" % node)
            with open(conf, "w") as f:
                f.write("ListenAddress %s:%d\nHostKey %s\nAuthorizedKeysFile %s\nPidFile none\nStrictModes no\n"
                        "PasswordAuthentication no\nKbdInteractiveAuthentication no\nUsePAM no\n"
                        "PermitRootLogin forced-commands-only\nAllowUsers %s\nLogLevel ERROR\nMaxStartups 100\n"
                        % (node, self.port, os.path.join(t, "host_key"), os.path.join(t, "authorized_keys"), user))
            self.procs.append(subprocess.Popen([SSHD, "-D", "-e", "-f", conf], stdout=subprocess.DEVNULL,
                                               stderr=open(os.path.join(t, "sshd-%s.log" % node), "w")))
        # the client: an ssh first on PATH that reads this configuration (pdsh, clush and fleet's ssh run "ssh")
        client = os.path.join(t, "client-bin")
        os.mkdir(client)
        with open(os.path.join(t, "ssh_config"), "w") as f:
            f.write("Host 127.0.0.*\n  Port %d\n  User %s\n  IdentityFile %s\n  IdentitiesOnly yes\n"
                    "  StrictHostKeyChecking no\n  UserKnownHostsFile /dev/null\n  LogLevel ERROR\n"
                    % (self.port, user, os.path.join(t, "client_key")))
        with open(os.path.join(client, "ssh"), "w") as f:
            f.write('#!/bin/sh\nexec %s -F %s "$@"\n' % (shutil.which("ssh"), os.path.join(t, "ssh_config")))
        os.chmod(os.path.join(client, "ssh"), 0o755)
        self.path = client + ":" + os.environ.get("PATH", "/usr/bin:/bin")
        # wait for the listeners
        deadline = time.time() + 20
        for node in NODES:
            if node == STOPPED:
                continue
            while True:
                try:
                    socket.create_connection((node, self.port), timeout=1).close()
                    break
                except OSError:
                    if time.time() > deadline:
                        rdtest.fail("sshd on %s:%d is listening" % (node, self.port))
                    time.sleep(0.1)

    def stop(self):
        for p in self.procs:
            p.terminate()
            p.wait()


cluster = None


def fleet(shell, *args, popen=False):
    env = dict(os.environ, PATH=cluster.path, ROCM_DOCTOR_FLEET_SHELL=shell, NO_COLOR="1", LC_ALL="C.UTF-8")
    # 15 s: room for a loaded machine's checks; the hanging node still times out
    argv = [BIN, "fleet", "--hosts", "127.0.0.[2-9]", "--node-timeout", "15", *args]
    if popen:
        return subprocess.Popen(argv, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    return subprocess.run(argv, env=env, capture_output=True, text=True, timeout=120)


def setup():
    global cluster
    if not os.path.exists(SSHD) or not shutil.which("ssh"):
        rdtest.skip("sshd or ssh is not installed (openssh-server, openssh-client)")
    if cluster is None:
        cluster = Cluster()
        cluster.start()


def check_fleet(shell):
    setup()
    if shell != "ssh" and not shutil.which(shell):
        rdtest.skip("%s is not installed" % shell)
    t0 = time.monotonic()
    p = fleet(shell, "--json")
    took = time.monotonic() - t0
    rdtest.eq(p.returncode, 3, "%s: exit status 3 (nodes not checked)" % shell)
    try:
        j = json.loads(p.stdout)
    except ValueError:
        rdtest.fail("%s: JSON on stdout" % shell, p.stdout + p.stderr)
    status = {n["name"]: n["status"] for n in j["nodes"]}
    reasons = {u["node"]: u["reason"] for u in j["unreachable"]}
    want = {"127.0.0.2": "ok", "127.0.0.3": "ok", "127.0.0.4": "ok", "127.0.0.5": "ok", "127.0.0.6": "error",
            "127.0.0.7": "unreachable", "127.0.0.8": "unreachable", "127.0.0.9": "unreachable"}
    rdtest.check(status == want, "%s: each node's status" % shell, "want %s\ngot %s\n%s" % (want, status, reasons))
    rdtest.check("refused" in reasons.get(STOPPED, "").lower() or "exit code 255" in reasons.get(STOPPED, ""),
                 "%s: the stopped sshd's node: connection refused" % shell, reasons)
    rdtest.check("timed out" in reasons.get(HANGS, "") or "timeout" in reasons.get(HANGS, ""),
                 "%s: the hanging node timed out" % shell, reasons)
    rdtest.check("not found" in reasons.get(NO_TOOL, "") or "127" in reasons.get(NO_TOOL, ""),
                 "%s: the node without rocm-doctor says so" % shell, reasons)
    causes = {c["id"]: c["hostlist"] for c in j["causes"]}
    rdtest.eq(causes.get("kfd.no-access"), ERROR, "%s: the cause on its node" % shell)
    rdtest.check(took < 90, "%s: bounded by the node timeout (took %.1f s)" % (shell, took))


@rdtest.test
def through_pdsh():
    check_fleet("pdsh")


@rdtest.test
def through_clush():
    check_fleet("clush")


@rdtest.test
def through_ssh():
    check_fleet("ssh")
    p = fleet("ssh", "--parallel", "2")
    rdtest.eq(p.returncode, 3, "ssh --parallel 2: exit status 3")
    rdtest.check(p.stdout.startswith("8 nodes: 4 healthy, 1 with errors, 3 not checked"), "ssh --parallel 2: text",
                 p.stdout)


@rdtest.test
def ctrl_c_prints_what_arrived():
    setup()
    p = fleet("ssh", "--json", "--node-timeout", "300", popen=True)  # the later --node-timeout wins
    time.sleep(8)  # the healthy nodes answer; the hanging one does not
    p.send_signal(signal.SIGINT)
    out, err = p.communicate(timeout=60)
    rdtest.eq(p.returncode, 3, "interrupted: exit status 3")
    j = json.loads(out)
    status = {n["name"]: n["status"] for n in j["nodes"]}
    rdtest.eq(status.get("127.0.0.2"), "ok", "a node that had answered is in the report")
    reasons = {u["node"]: u["reason"] for u in j["unreachable"]}
    rdtest.eq(reasons.get(HANGS), "interrupted before its report arrived", "the hanging node: interrupted")
    rdtest.check("interrupted" in err, "stderr says it was interrupted", err)


if __name__ == "__main__":
    try:
        rc = rdtest.main()
    finally:
        if cluster:
            cluster.stop()
    sys.exit(rc)
