#!/usr/bin/env python3
"""What the DaemonSet of contrib/kubernetes/ may see and how it stays honest.

    test-kubernetes-access.py MANIFEST README ROCM_DOCTOR ROCM_DOCTORD

- Host files: every OS file or directory a check declares it reads
  (`rocm-doctor list checks --json`, "reads") is mounted read-only at
  --root + its path, or is one of the paths README.md names as left out.
  Nothing else of the host's OS tree is mounted: each host mount covers a
  declared read (or is /lib, the home of modprobe.d and the kernel modules,
  or one of the hardware and udev mounts).
- The probes need nothing else: rocm-doctord --once with the ConfigMap's
  configuration runs under strace on a copy of this host's files; every
  path it tries under --root is covered by a mount, is left out in the
  README, or is its own output (strace missing: that part skips).
- Device nodes: /dev is a hostPath of type Directory (the pod starts when
  /dev/kfd is gone); no hostPath is a CharDevice, BlockDevice or Socket.
- Device events: no hostNetwork and no /run/udev, so the daemon polls (the
  host-network variant adds both: test-kubernetes.py).
- Liveness: the probe's command, run against a scratch status file, passes
  for a fresh file and fails for one 20 minutes old and for a missing one.
- Scheduling: no system-node-critical or system-cluster-critical priority
  outside kube-system.
- The Containerfile builds the packages of debian/control and installs
  them in a Debian 12 image whose entry point is rocm-doctord.
"""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import rdtest  # noqa: E402

try:
    import yaml
except ImportError as e:
    print("SKIP: %s (Debian: python3-yaml)" % e)
    sys.exit(rdtest.EXIT_SKIP)

MANIFEST, README, DOCTOR, DAEMON = sys.argv[1], sys.argv[2], os.path.abspath(sys.argv[3]), os.path.abspath(sys.argv[4])
SRC = os.path.dirname(os.path.dirname(os.path.abspath(MANIFEST)))
SRC = os.path.dirname(SRC)

docs = {d["kind"]: d for d in yaml.safe_load_all(open(MANIFEST)) if d}
ds = docs["DaemonSet"]
pod = ds["spec"]["template"]["spec"]
(c,) = pod["containers"]
args = c["args"]
root = args[args.index("--root") + 1].rstrip("/")
volumes = {v["name"]: v for v in pod["volumes"]}
mounts = {m["name"]: m for m in c["volumeMounts"]}
readme = open(README).read()

# The paths README.md says are left out: the table "Left out" in the
# section on host files, one `path` per row, with its reason.
left_out = {}
section = readme.split("### Left out", 1)[1].split("\n#", 1)[0] if "### Left out" in readme else ""
for line in section.splitlines():
    m = re.match(r"\|\s*(`.*)\|\s*(.+?)\s*\|\s*$", line)
    if m:
        for p in re.findall(r"`([^`]+)`", m.group(1)):
            left_out[p] = m.group(2)
host_os = {}  # host path -> mount path, for mounts under --root
hardware = {}
for n, v in volumes.items():
    hp = v.get("hostPath")
    if not hp:
        continue
    mp = mounts[n]["mountPath"]
    if mp.startswith(root + "/"):
        host_os[hp["path"]] = mp
    else:
        hardware[hp["path"]] = (mp, hp.get("type"), mounts[n].get("readOnly"))


def covered(path):
    return any(path == hp or path.startswith(hp.rstrip("/") + "/") for hp in host_os)


def excused(path):
    return any(path == p or path.startswith(p.rstrip("/") + "/") for p in left_out)


checks = json.loads(subprocess.run([DOCTOR, "list", "checks", "--json"], capture_output=True, text=True,
                                   check=True).stdout)["checks"]
declared = sorted({r["path"] for ch in checks for r in ch["reads"]})
missing = [p for p in declared if not covered(p) and not excused(p)]
both = [p for p in declared if covered(p) and p in left_out]
nfd_dir = "/etc/kubernetes/node-feature-discovery/features.d"
extra = [hp for hp in host_os if hp not in (nfd_dir, "/lib") and not any(
    p == hp or p.startswith(hp.rstrip("/") + "/") or hp.startswith(p.rstrip("/") + "/") for p in declared)]
prio = pod.get("priorityClassName", "")
conf_text = docs["ConfigMap"]["data"]["rocm-doctor.conf"]
outputs = [v.strip() for k, v in (l.split("=", 1) for l in conf_text.splitlines() if "=" in l and not
                                  l.lstrip().startswith("#")) if k.strip().endswith("_file")]


@rdtest.test
def readme_lists_what_is_left_out():
    rdtest.check(len(left_out) >= 5 and all(len(r) > 10 for r in left_out.values()),
                 "README.md lists the host paths left out, each with a reason",
                 left_out)


@rdtest.test
def host_os_mounts_land_at_root():
    rdtest.check(all(
                 mp == root + hp for hp, mp in host_os.items()),
                 "every host OS mount lands at --root + its host path",
                 host_os)


@rdtest.test
def every_declared_read_is_mounted_or_left_out():
    rdtest.check(len(declared) >= 20, "the checks declare the files they read", declared)
    rdtest.check(not missing, "every declared read is mounted or left out with a reason", missing)
    rdtest.check(not both, "no path is both mounted and said to be left out", both)
    rdtest.check(not extra, "no host mount that no check reads", extra)
    for secret in ("/", "/etc", "/etc/shadow", "/root", "/home", "/var/lib/kubelet", "/etc/kubernetes", "/var"):
        rdtest.check(secret not in host_os and secret not in hardware and not
                     any(secret.startswith(hp.rstrip("/") + "/") for hp in host_os if hp != "/lib" and hp != nfd_dir and
                         not secret.startswith(nfd_dir)),
                     "%s is not mounted" % secret)


@rdtest.test
def devices_events_and_priority():
    rdtest.check(hardware.get("/dev") == ("/dev", "Directory", True),
                 "/dev is a read-only hostPath of type Directory at /dev",
                 hardware.get("/dev"))
    rdtest.check(not any(
                 v["hostPath"].get("type") in ("CharDevice", "BlockDevice", "Socket") for v in volumes.values() if "hostPath" in v),
                 "no hostPath is a device node or socket")
    rdtest.check(hardware.get("/sys", ("",))[0] == "/sys" and hardware["/sys"][2] is True,
                 "/sys is mounted read-only")
    rdtest.check(not pod.get("hostNetwork") and "/run/udev" not in hardware,
                 "no hostNetwork and no /run/udev: the daemon sees no device events and polls (the host-network variant "
                 "adds both; test-kubernetes.py)",
                 hardware.get("/run/udev"))
    rdtest.check(not c.get("terminationMessagePath", "/dev/termination-log")
                 .startswith("/dev/"),
                 "the termination log is not in the host's /dev",
                 c.get("terminationMessagePath"))
    rdtest.check(not prio.startswith("system-") or ds["metadata"]["namespace"] == "kube-system",
                 "no system-*-critical priority outside kube-system",
                 prio)


@rdtest.test
def the_daemon_needs_nothing_else():
    """The probes need nothing else: what rocm-doctord opens under --root,
    under strace."""
    strace = shutil.which("strace")
    if not strace:
        rdtest.skip("strace is not installed")
    tmp = tempfile.mkdtemp(prefix="rocm-doctor-k8s-access-")
    try:
        tree = os.path.join(tmp, "host")
        # A copy of this host's files the mounts would show (what exists here).
        for p in sorted(set(declared) | set(host_os)):
            if p in ("/usr", "/lib", "/opt") or p == nfd_dir:
                continue
            if os.path.isfile(p):
                os.makedirs(os.path.dirname(tree + p), exist_ok=True)
                shutil.copy(p, tree + p)
            elif os.path.isdir(p) and p not in ("/usr/local/lib", "/usr/lib/python3/dist-packages"):
                shutil.copytree(p, tree + p, symlinks=True, ignore_dangling_symlinks=True, dirs_exist_ok=True,
                                ignore=lambda d, names: [n for n in names if not os.path.isfile(os.path.join(d, n))
                                                         and not os.path.isdir(os.path.join(d, n))])
        for d in ("/opt/rocm-6.2.0/lib", "/var/lib/dkms", "/lib/modules/%s" % os.uname().release):
            os.makedirs(tree + d, exist_ok=True)
        with open(os.path.join(tmp, "rocm-doctor.conf"), "w") as f:
            f.write(conf_text)
        log = os.path.join(tmp, "strace.log")
        p = subprocess.run([strace, "-f", "-y", "-qq", "-o", log, "-e",
                            "trace=open,openat,openat2,newfstatat,statx,access,faccessat,faccessat2,readlinkat",
                            DAEMON, "--once", "--root", tree, "--config", os.path.join(tmp, "rocm-doctor.conf")],
                           capture_output=True, text=True, timeout=300)
        rdtest.check(p.returncode in (0, 1, 2),
                     "rocm-doctord --once runs under strace (exit 0-2)",
                     p.stderr[-2000:])
        tried = set()
        for line in open(log):
            for m in re.finditer(r'\((?:AT_FDCWD|\d+<%s([^>]*)>), "([^"]*)"' % re.escape(tree), line):
                base, rel = m.group(1), m.group(2)
                path = os.path.normpath("/" + (base.lstrip("/") + "/" if base else "") + rel) if rel else base
                tried.add(path or "/")
            for m in re.finditer(r'"%s(/[^"]*)"' % re.escape(tree), line):
                tried.add(os.path.normpath(m.group(1)))
        tried.discard("/")
        rdtest.check(len(tried) >= 20, "strace saw the checks read under --root", sorted(tried))
        parents = {os.path.dirname(x) for x in declared} | {os.path.dirname(x) for x in host_os}
        # an output, or its temporary file (a dot file next to it)
        own = {x for x in tried if any(x == o or (os.path.dirname(x) == os.path.dirname(o) and
                                                  os.path.basename(x).startswith(".")) for o in outputs)}
        unexplained = sorted(x for x in tried if not covered(x) and not excused(x) and x not in own and
                             not any(x == o or o.startswith(x + "/") for o in outputs) and
                             not any(hp.startswith(x + "/") for hp in host_os) and x not in parents)
        rdtest.check(not unexplained,
                     "every path the daemon tries under --root is mounted, left out with a reason, or its output",
                     unexplained)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


@rdtest.test
def liveness_reads_a_fresh_status_file():
    tmp = tempfile.mkdtemp(prefix="rocm-doctor-k8s-access-")
    try:
        # Liveness, for real, against a scratch status file.
        cmd = c["livenessProbe"]["exec"]["command"]
        status = root + "/run/rocm-doctor/status.json"
        rdtest.check(status in " ".join(cmd), "the liveness command reads the status file", cmd)
        scratch = os.path.join(tmp, "status.json")

        def live():
            return subprocess.run([a.replace(status, scratch) for a in cmd], capture_output=True).returncode

        rdtest.check(live() != 0, "liveness fails without a status file")
        with open(scratch, "w") as f:
            f.write("{}\n")
        rdtest.check(live() == 0, "liveness passes for a fresh status file")
        old = time.time() - 20 * 60
        os.utime(scratch, (old, old))
        rdtest.check(live() != 0, "liveness fails for a status file 20 minutes old (a hung daemon)")
        old = time.time() - 5 * 60
        os.utime(scratch, (old, old))
        rdtest.check(live() == 0, "liveness passes 5 minutes after the last renewal (renewed every 300 s)")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


@rdtest.test
def the_containerfile_builds_the_packages():
    # The Containerfile builds the project's Debian packages and installs them.
    cf = open(os.path.join(os.path.dirname(MANIFEST), "Containerfile")).read()
    control = open(os.path.join(SRC, "debian", "control")).read()
    packages = re.findall(r"^Package: (\S+)", control, re.M)
    froms = re.findall(r"^FROM (\S+)", cf, re.M)
    rdtest.check(len(froms) == 2 and all(f.startswith("debian:bookworm") for f in froms),
                 "the Containerfile builds on Debian 12 and runs on Debian 12",
                 froms)
    rdtest.check("apt-get build-dep" in cf and "dpkg-buildpackage" in cf,
                 "it builds the packages with dpkg-buildpackage after apt-get build-dep")
    rdtest.check(packages and all(
                 re.search(r"/%s_\*\.deb" % re.escape(p), cf) for p in packages),
                 "it installs every binary package of debian/control",
                 packages)
    rdtest.check('ENTRYPOINT ["/usr/sbin/rocm-doctord"]' in cf and c["command"] == ["/usr/sbin/rocm-doctord"],
                 "its entry point is rocm-doctord, as the DaemonSet's command")
    rdtest.check(ds["spec"]["template"]["spec"]["containers"][0]["image"] in cf,
                 "the DaemonSet's image is the one the Containerfile's comment builds")


sys.exit(rdtest.main())
