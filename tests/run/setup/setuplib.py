# SPDX-License-Identifier: MIT
"""The Debian host of the setup tests (test-setup.py, test-setup-hostile.py):
a debootstrap'd minimal tree (built once and cached), stand-in packages
with AMD's names in local repositories laid out as AMD's mirror, the real
apt-get and dpkg; the rpm host for dnf --installroot and zypper --root.

It reads the scripts' arguments: ROCM_DOCTOR SOURCE_DIR CACHE_DIR."""
import fcntl
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "lib"))
import beds  # noqa: E402
from beds import Root, temp_dir  # noqa: E402,F401
beds.use("fix")
import fixlib  # noqa: E402
import rdtest  # noqa: E402
import standin  # noqa: E402

RD, SRC = sys.argv[1], sys.argv[2]
# a shared cache (CI sets it for its two builds), else the build directory
CACHE = os.environ.get("ROCM_DOCTOR_TEST_CACHE") or sys.argv[3]
KERNEL = standin.KERNEL
OLD_KERNEL = standin.OLD_KERNEL
STATE = {}


def need_root():
    if os.geteuid() != 0:
        rdtest.skip("installing packages into a root needs root (chroot, dpkg)")


SUITES = {"bookworm": "Debian 12", "trixie": "Debian 13"}


def base_tar(suite="bookworm"):
    """The cached debootstrap'd minimal tree of a Debian release (a tarball):
    Debian 12 unless suite names another. A release this machine cannot
    debootstrap (its debootstrap lacks the script, no mirror) skips."""
    need_root()
    tar = os.path.join(CACHE, "%s-minbase.tar" % suite)
    if os.path.exists(tar):
        return tar
    if not shutil.which("debootstrap"):
        rdtest.skip("needs debootstrap")
    os.makedirs(CACHE, exist_ok=True)
    work = tempfile.mkdtemp(prefix="rd-debootstrap.", dir=CACHE)
    mirror = os.environ.get("ROCM_DOCTOR_DEBIAN_MIRROR", "http://deb.debian.org/debian")
    p = subprocess.run(["debootstrap", "--variant=minbase", suite, work + "/root", mirror],
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if p.returncode != 0:
        shutil.rmtree(work, ignore_errors=True)
        rdtest.skip("debootstrap could not build a %s root (%s): %s" % (SUITES[suite], mirror, p.stdout[-500:]))
    subprocess.run(["tar", "-C", work + "/root", "-cf", tar + ".part", "."], check=True)
    os.rename(tar + ".part", tar)
    shutil.rmtree(work, ignore_errors=True)
    return tar


def mirror():
    if "mirror" not in STATE:
        m = standin.Mirror(temp_dir("rd-setup-mirror."))
        m.serve()
        STATE["mirror"] = m
    return STATE["mirror"]


def expect(h, what, text):
    """Compares a plan or run text of host h with
    tests/expected/setup/TEST.WHAT-N.txt (fixlib.expect_next): the local
    mirror as http://MIRROR, its key's ids named, the sizes of the stand-in
    packages and their download (their build stamps vary them) as SIZE, another local
    address (a closed port) as http://127.0.0.1:PORT."""
    m = mirror()
    more = fixlib.key_names(m.fingerprint, armored=m.key_file)
    more[m.base] = "http://MIRROR"
    text = re.sub(r"download \d+(\.\d+)? [kM]?B\b", "download SIZE", text)
    text = re.sub(r"^(     \w+ +\S+ \S+) \(\d+(\.\d+)? [kM]?B\)$", r"\1 (SIZE)", text, flags=re.M)
    text = text.replace(m.base, "http://MIRROR")
    text = re.sub(r"http://127\.0\.0\.1:\d+", "http://127.0.0.1:PORT", text)  # a closed port
    return fixlib.expect_next(what, text, h.path, getattr(h, "facts", None), more, area="setup")


def facts(kernel=KERNEL):
    fa = beds.load_facts()
    fa["os"]["kernel_release"] = kernel
    return fa


class Host:
    """A fresh copy of the base tree, made to look like a bare Ubuntu 24.04
    host: its apt sources name only the local distribution repository."""

    def __init__(self, kernel=KERNEL, mirror_base=None, conf_extra="", suite="bookworm", distro_source=None,
                 own_os_release=False):
        tar = base_tar(suite)
        m = mirror()
        self.path = temp_dir("rd-setup-root.")
        subprocess.run(["tar", "-C", self.path, "-xf", tar], check=True)
        self.r = Root.at(self.path)
        if not own_os_release:
            self.r.write("/etc/os-release", 'NAME="Ubuntu"\nVERSION_ID="24.04"\nID=ubuntu\nID_LIKE=debian\n'
                                             'VERSION_CODENAME=noble\nPRETTY_NAME="Ubuntu 24.04.1 LTS"\n')
        self.r.write("/etc/apt/sources.list", distro_source or "deb [trusted=yes] %s/distro noble main\n" % m.base)
        # hermetic apt: no caches kept, no recommends from the host's taste
        self.r.write("/etc/apt/apt.conf.d/99rd-test", 'Dir::Cache::pkgcache "";\nDir::Cache::srcpkgcache "";\n')
        with open(self.r.p("/etc/group"), "a") as f:
            f.write("render:x:992:\nalice:x:1000:\n")
        with open(self.r.p("/etc/passwd"), "a") as f:
            f.write("alice:x:1000:1000:Alice:/home/alice:/bin/bash\n")
        with open(self.r.p("/etc/shadow"), "a") as f:
            f.write("alice:!:19000:0:99999:7:::\n")
        with open(self.r.p("/etc/gshadow"), "a") as f:
            f.write("render:!::\nalice:!::\n")
        base = mirror_base or (m.base + "/radeon")
        self.r.write("/etc/rocm-doctor/rocm-doctor.conf",
                     "[fix]\napt_key_file = %s\napt_key_fingerprint = %s\npackage_lock_timeout_s = 2\n%s"
                     "[repository]\nmirror = %s\n" % (m.key_file, m.fingerprint, conf_extra, base))
        self.facts = rdtest.remove_at_exit(self.path + ".facts.json")
        self.write_facts(facts(kernel))
        q = self.chroot("apt-get", "update")
        rdtest.eq(q.returncode, 0, "apt-get update in the root: " + q.stdout)

    def write_facts(self, fa):
        with open(self.facts, "w") as f:
            json.dump(fa, f)

    def chroot(self, *argv):
        return subprocess.run(["chroot", self.path, "env", "DEBIAN_FRONTEND=noninteractive", "LC_ALL=C"] + list(argv),
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)

    def rd(self, *args, timeout=300):
        env = dict(os.environ, NO_COLOR="1", LC_ALL="C")
        if getattr(self, "home", None):
            env["HOME"] = self.home
        facts = [] if args[0] == "undo" else ["--facts", self.facts]
        return subprocess.run([RD] + list(args) + ["--root", self.path] + facts,
                              capture_output=True, text=True, env=env, timeout=timeout)

    def setup(self, *args, **kw):
        return self.rd("setup", "--release", "6.4.1", *args, **kw)

    def packages(self):
        """dpkg -l of the root: name, version and state of every package."""
        q = subprocess.run(["dpkg-query", "--admindir=" + self.r.p("/var/lib/dpkg"), "-W", "-f",
                            "${binary:Package} ${Version} ${db:Status-Abbrev}\n"], capture_output=True, text=True)
        rdtest.eq(q.returncode, 0, "dpkg-query: " + q.stderr)
        return sorted(l.strip() for l in q.stdout.splitlines() if l.strip())

    def tree(self):
        """beds.tree() of the root without the state apt and dpkg keep about
        themselves (indexes, logs, the status file's backups) and
        rocm-doctor's journal."""
        return beds.tree(self.path, skip=("var/lib/apt", "var/cache/apt", "var/lib/dpkg", "var/log",
                                          "var/cache/debconf", "var/cache/ldconfig", "tmp", "var/lib/rocm-doctor",
                                          "proc", "sys"))

    # what lists the root's packages, as the checks name it
    LISTING = "dpkg -l"

    def planned_nothing(self, pkgs, tree):
        """Planning left the packages (packages()) and the tree (tree()) as
        they were."""
        rdtest.eq(self.packages(), pkgs, "planning installed nothing")
        same_tree(self.tree(), tree, "planning wrote nothing")

    def undo_restores(self, pkgs, tree, what=""):
        """undo ends with 0 and leaves the packages (packages()) and the tree
        (tree()) as they were before; what follows "after undo" in the
        checks' names. Returns undo's process."""
        p = self.rd("undo")
        rdtest.eq(p.returncode, 0, "undo: %s %s" % (p.stdout, p.stderr))
        rdtest.eq(self.packages(), pkgs, "%s after undo%s" % (self.LISTING, what))
        same_tree(self.tree(), tree, "the tree after undo%s" % what)
        return p

    def run_ids(self):
        d = self.r.p("/var/lib/rocm-doctor/journal")
        return sorted(os.listdir(d)) if os.path.isdir(d) else []

    def journal(self, run_id):
        with open(self.r.p("/var/lib/rocm-doctor/journal/%s/journal.json" % run_id)) as f:
            return json.load(f)

    def install(self, *names):
        q = self.chroot("apt-get", "install", "-y", "--no-install-recommends", *names)
        rdtest.eq(q.returncode, 0, "apt-get install %s: %s" % (names, q.stdout))


def check_ids(h):
    """The warning and error ids of a check of the root (this machine's
    hardware, the root's files)."""
    env = dict(os.environ, NO_COLOR="1", HOME=getattr(h, "home", None) or os.environ.get("HOME", "/root"))
    p = subprocess.run([RD, "check", "--json", "--root", h.path], capture_output=True, text=True, env=env)
    rdtest.check(p.returncode in (0, 1, 2), "check: %s" % p.stderr)
    return {f["id"] for f in json.loads(p.stdout)["findings"] if f["severity"] in ("warning", "error")}


def mirror_recognised(h, missing, others):
    """After setup through the mirror the check raises neither missing nor
    others; without the mirror in the configuration it raises missing."""
    ids = check_ids(h)
    rdtest.check(not ids & ({missing} | others), "after setup, through the mirror: %s" % sorted(ids))
    conf = h.r.read("/etc/rocm-doctor/rocm-doctor.conf")
    h.r.write("/etc/rocm-doctor/rocm-doctor.conf", conf.split("[repository]")[0])
    rdtest.check(missing in check_ids(h), "without the mirror configured: %s" % missing)
    h.r.write("/etc/rocm-doctor/rocm-doctor.conf", conf)


def same_tree(got, want, what):
    """Trees compared entry by entry; the difference is what is shown."""
    diff = ["- %s %s" % (k, want[k]) for k in sorted(want) if k not in got]
    diff += ["+ %s %s" % (k, got[k]) for k in sorted(got) if k not in want]
    diff += ["~ %s %s -> %s" % (k, want[k], got[k]) for k in sorted(want) if k in got and got[k] != want[k]]
    if diff:
        raise AssertionError("%s:\n%s" % (what, "\n".join(diff[:40])))


def package_lines(text):
    """The plan's package lines: (op, name, version)."""
    out = []
    for line in text.splitlines():
        m = re.match(r"^     (install|upgrade|downgrade|remove)\s+(\S+) (\S+)", line)
        if m:
            out.append(m.groups())
    return out


WANT_INSTALL = [("install", n, v) for n, v in (
    ("hip-runtime-amd", "6.4.43483." + standin.BUILD), ("hsa-rocr", "1.15.0." + standin.BUILD),
    ("rocm", "6.4.1." + standin.BUILD), ("rocm-core", "6.4.1." + standin.BUILD),
    ("rocm-hip-runtime", "6.4.1." + standin.BUILD), ("rocm-opencl-runtime", "6.4.1." + standin.BUILD),
    ("rocminfo", "1.0.0." + standin.BUILD))]


def rx9070xt_facts(kernel):
    """The RX 7900 XTX host's facts with an RX 9070 XT (1002:7550, gfx1201)
    instead, which no driver took: the kernel's amdgpu is not loaded."""
    fa = facts(kernel)
    d = fa["pci"]["devices"][0]
    d.update(device_id=0x7550, revision=0xC0, marketing_name="AMD Radeon RX 9070 XT")
    del d["driver"]
    fa["kfd"] = {"present": False}
    fa["driver"] = {"module_present": False, "cmdline": fa["driver"]["cmdline"]}
    return fa


def setup_killed_at(h, marker):
    """setup --apply, killed with its package manager (SIGKILL to the
    process group) once marker appears, or when it ends by itself."""
    proc = subprocess.Popen([RD, "setup", "--release", "6.4.1", "--apply", "--yes", "--root", h.path,
                             "--facts", h.facts], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            start_new_session=True)
    for _ in range(1200):
        if os.path.exists(marker) or proc.poll() is not None:
            break
        time.sleep(0.1)
    kill_and_wait_for_the_lock(h, proc)


def kill_and_wait_for_the_lock(h, proc):
    """Kills proc's process group (rocm-doctor started with
    start_new_session) and waits until the run's lock is free. The package
    manager runs in a group of its own under a leader process that holds
    the lock too; the leader ends that group when rocm-doctor dies, which
    on a loaded machine can be a while after rocm-doctor was reaped."""
    if proc.poll() is None:
        os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()
    for _ in range(600):
        try:
            os.killpg(proc.pid, 0)
        except ProcessLookupError:
            break
        time.sleep(0.05)
    lock = h.r.p("/var/lib/rocm-doctor/lock")
    if not os.path.exists(lock):
        return
    with open(lock, "rb") as f:
        for _ in range(1200):
            try:
                fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                time.sleep(0.1)
                continue
            fcntl.flock(f, fcntl.LOCK_UN)
            return
    rdtest.check(False, "the killed run's lock is released within 120 s", lock)


def ansible_play(h, m, tmp, mirror_base, **more):
    """The rocm_doctor role's setup path on the root h, AMD's key given as
    the role's variables (a key file on the controller, its fingerprint)."""
    facts_dir = os.path.join(tmp, "facts.d")
    rdd = os.path.join(os.path.dirname(os.path.abspath(RD)), "rocm-doctord")
    extra = {
        "rocm_doctor_bin": os.path.abspath(RD), "rocm_doctor_daemon_bin": rdd, "rocm_doctor_root": h.path,
        "rocm_doctor_install": False, "rocm_doctor_manage_units": False, "rocm_doctor_fact_dir": facts_dir,
        "rocm_doctor_fact_script": os.path.join(SRC, "..", "..", "..", "conf", "ansible", "rocm_doctor.fact"),
        "rocm_doctor_setup": True, "rocm_doctor_setup_release": "6.4.1", "rocm_doctor_setup_usecases": ["runtime"],
        "rocm_doctor_gpu_users": ["alice"],
        "rocm_doctor_key_file": m.key_file, "rocm_doctor_key_fingerprint": m.fingerprint,
        "rocm_doctor_config": {"fix": {"package_lock_timeout_s": 2},
                               "repository": {"mirror": mirror_base},
                               "output": {"status_file": os.path.join(tmp, "status.json")}},
    }
    extra.update(more)
    env = dict(os.environ, HOME=tmp, ANSIBLE_LOCAL_TEMP=os.path.join(tmp, "l"),
               PATH=os.path.dirname(os.path.abspath(RD)) + os.pathsep + os.environ.get("PATH", "/usr/bin:/bin"),
               ANSIBLE_REMOTE_TEMP=os.path.join(tmp, "r"), ANSIBLE_NOCOLOR="1", ANSIBLE_LOCALHOST_WARNING="False",
               ANSIBLE_PYTHON_INTERPRETER=sys.executable, ANSIBLE_STDOUT_CALLBACK="default",
               ANSIBLE_DEPRECATION_WARNINGS="False")
    playbook = os.path.join(SRC, "..", "..", "..", "contrib", "ansible", "playbook.yml")
    p = subprocess.run(["ansible-playbook", "-i", "localhost,", "-c", "local", "-e", json.dumps(extra), playbook],
                       capture_output=True, text=True, env=env, timeout=900)
    recap = p.stdout[p.stdout.rfind("PLAY RECAP"):]
    return p, recap


def task_output(out, name):
    """What the play printed under the task `name` of the role."""
    parts = out.split("TASK [rocm_doctor : %s]" % name)
    return parts[1].split("TASK [")[0].split("PLAY RECAP")[0] if len(parts) > 1 else ""


def rpm_mirror():
    m = mirror()
    if "rpm" not in STATE:
        standin.add_rpm_trees(m)
        STATE["rpm"] = True
    return m


def rpm_key_name(m):
    """The name rpm gives the mirror's key once imported:
    gpg-pubkey-SHORTID-CREATED, the creation time in hex."""
    q = subprocess.run(["gpg", "--homedir", temp_dir("rd-gpg-home."), "--batch", "--with-colons", "--show-keys",
                        m.key_file], capture_output=True, text=True)
    created = [l.split(":")[5] for l in q.stdout.splitlines() if l.startswith("pub:")]
    rdtest.check(len(created) == 1, "gpg --show-keys %s: %s" % (m.key_file, q.stdout + q.stderr))
    return "gpg-pubkey-%s-%08x" % (m.fingerprint[-8:].lower(), int(created[0]))


def instinct_facts(os_id, version_id, kernel, device_id, gfx_target_version, name):
    fa = facts(kernel)
    fa["os"] = {"id": os_id, "version_id": version_id, "kernel_release": kernel}
    fa["pci"]["devices"][0].update({"device_id": device_id, "marketing_name": name})
    for n in fa["kfd"]["nodes"]:
        if n["properties"].get("gfx_target_version"):
            n["properties"].update({"gfx_target_version": gfx_target_version, "device_id": device_id})
    return fa


class RpmHost:
    """An empty tree with an os-release, users, the distribution's
    repository and the policy: dnf --installroot or zypper --root fill it.
    dbpath: where the tree keeps its rpm database (/var/lib/rpm, or
    /usr/lib/sysimage/rpm as rpm 4.16 and later do: Fedora 36 on, RHEL 10,
    SUSE). macros=False: rocm-doctor runs with no ~/.rpmmacros, so Debian's
    rpm would take ~/.rpmdb unless told the tree's database (zypper finds
    it by itself; dnf takes rpm's macros, so a dnf host keeps them)."""

    def __init__(self, pm, dbpath="/var/lib/rpm", macros=True):
        need_root()
        if not shutil.which(pm) or not shutil.which("rpmbuild") or not shutil.which("createrepo_c"):
            rdtest.skip("needs %s, rpmbuild and createrepo_c" % pm)
        m = rpm_mirror()
        self.pm = pm
        self.dbpath = dbpath
        self.r = Root()
        self.path = self.r.path
        # Debian's rpm keeps its database in ~/.rpmdb; RHEL's and SUSE's
        # tools use the tree's own: the same for rpm, dnf and zypper here
        self.home = temp_dir("rd-setup-home.")
        if macros:
            with open(os.path.join(self.home, ".rpmmacros"), "w") as f:
                f.write("%%_dbpath %s\n" % dbpath)
        if dbpath != "/var/lib/rpm":
            os.makedirs(self.r.p(dbpath))
            self.rpm("--initdb")
        if pm == "dnf":
            self.r.write("/etc/os-release", 'NAME="Red Hat Enterprise Linux"\nVERSION_ID="9.6"\nID="rhel"\n'
                                             'ID_LIKE="fedora"\nPRETTY_NAME="Red Hat Enterprise Linux 9.6 (Plow)"\n')
            self.r.write("/etc/yum.repos.d/distro.repo", "[baseos]\nname=BaseOS\nbaseurl=%s/el9-distro\n"
                                                          "enabled=1\ngpgcheck=0\n" % m.base)
            fa = instinct_facts("rhel", "9.6", standin.EL9_KERNEL, 0x74a1, 90402, "AMD Instinct MI300X")
        else:
            self.r.write("/etc/os-release", 'NAME="SLES"\nVERSION_ID="15.6"\nID="sles"\nID_LIKE="suse"\n'
                                             'PRETTY_NAME="SUSE Linux Enterprise Server 15 SP6"\n')
            self.r.write("/etc/zypp/repos.d/distro.repo", "[sles-distro]\nname=SLES\nbaseurl=%s/sles-distro\n"
                                                           "enabled=1\ngpgcheck=0\nautorefresh=1\n" % m.base)
            fa = instinct_facts("sles", "15.6", standin.SLES_KERNEL, 0x740f, 90010, "AMD Instinct MI210")
        self.r.write("/etc/rocm-doctor/rocm-doctor.conf",
                     "[fix]\napt_key_file = %s\napt_key_fingerprint = %s\npackage_lock_timeout_s = 2\n"
                     "[repository]\nmirror = %s/radeon\n" % (m.key_file, m.fingerprint, m.base))
        self.facts = rdtest.remove_at_exit(self.path + ".facts.json")
        with open(self.facts, "w") as f:
            json.dump(fa, f)
        # the base every installed system has (and its rpm database)
        env = dict(os.environ, HOME=self.home)
        argv = (["dnf", "-y", "-q", "--installroot", self.path, "--releasever=9", "install", "filesystem"]
                if pm == "dnf" else ["zypper", "-n", "--root", self.path, "install", "filesystem"])
        q = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env)
        rdtest.eq(q.returncode, 0, "%s: %s" % (" ".join(argv), q.stdout[-2000:]))
        if dbpath != "/var/lib/rpm" and os.path.islink(self.r.p("/var/lib/rpm")):
            os.unlink(self.r.p("/var/lib/rpm"))  # zypper's link to it: the tree has only the one folder

    def rpm(self, *args):
        """rpm on the tree's own database, named (not from ~/.rpmmacros)."""
        return subprocess.run(["rpm", "--root", self.path, "--dbpath", self.dbpath] + list(args),
                              capture_output=True, text=True, env=dict(os.environ, HOME=self.home))

    def pubkeys(self):
        """The gpg-pubkey-SHORTID-CREATED names in the tree's database."""
        q = self.rpm("-q", "gpg-pubkey", "--qf", "%{NAME}-%{VERSION}-%{RELEASE}\n")
        rdtest.check(q.returncode in (0, 1), "rpm -q gpg-pubkey: " + q.stdout + q.stderr)
        return sorted(l for l in q.stdout.splitlines() if l.startswith("gpg-pubkey-"))

    rd = Host.rd
    setup = Host.setup
    run_ids = Host.run_ids
    journal = Host.journal
    LISTING = "rpm -qa"
    planned_nothing = Host.planned_nothing
    undo_restores = Host.undo_restores

    def packages(self):
        q = self.rpm("-qa", "--qf", "%{NAME} %{VERSION}-%{RELEASE}\n")
        return sorted(l for l in q.stdout.splitlines() if l)

    def tree(self):
        # the package managers' own state: databases, caches, logs, module state
        skip = ("var/lib/rpm", "var/cache/dnf", "var/lib/dnf", "var/log", "var/cache/zypp", "var/lib/zypp", "etc/dnf",
                "var/cache/ldconfig", "tmp", "var/lib/rocm-doctor", "run", "var/run", "usr/lib/sysimage")
        return {k: v for k, v in self.r.tree().items() if not k.startswith(skip)}


RPM_WANT = [("install", n, v + "-" + r) for n, (v, r, _, _) in standin.RPM_ROCM.items()]


def rpm_roundtrip(pm, want_headers):
    h = RpmHost(pm)
    pkgs_before, tree_before = h.packages(), h.tree()
    p = h.setup()
    expect(h, "plan", p.stdout)
    out = p.stdout
    rdtest.eq(p.returncode, 1, "plan (stderr %s): %s" % (p.stderr, out))
    rdtest.check("packages, through %s (indexes refreshed first):" % pm in out, out)
    got = package_lines(out)
    for w in RPM_WANT + [("install", "amdgpu-dkms", "6.12.12-2164967.el9")] + want_headers:
        rdtest.check(w in got, "%s in the plan: %s" % (w, out))
    rdtest.check(re.search(r"to install, 0 to upgrade, 0 to downgrade, 0 to remove; download \d", out), out)
    rdtest.check("/radeon/amdgpu/6.4.1/" in out, "the driver repository, through the mirror: " + out)
    rdtest.eq(h.packages(), pkgs_before, "planning installed nothing")
    p = h.setup("--apply", "--yes")
    expect(h, "apply", p.stdout)
    rdtest.eq(p.returncode in (0, 1), True, "apply: %s %s" % (p.stdout, p.stderr))
    now = h.packages()
    for _, name, version in RPM_WANT:
        rdtest.check("%s %s" % (name, version) in now, "%s %s installed: %s" % (name, version, now))
    j = h.journal(h.run_ids()[0])
    rdtest.eq(j["state"], "applied", "journal")
    rdtest.check(sorted(x["name"] for x in j["packages"]["installed"]) ==
                 sorted([w[1] for w in RPM_WANT] + ["amdgpu-dkms"] + [w[1].split("-5.14")[0].split("-6.4")[0]
                                                               for w in want_headers]),
                 "journal: installed %s" % j["packages"]["installed"])
    rdtest.eq(j["steps"][-1]["effect"], "reboot", "the driver waits for the reboot")
    mirror_recognised(h, "%s.repo-missing" % pm, {"dnf.release-mismatch", "zypper.release-mismatch"})
    p = h.setup()
    rdtest.eq((p.returncode, p.stdout), (0, "Nothing to do in this root.\n"), "a second setup plans nothing")
    h.undo_restores(pkgs_before, tree_before)
    return out


def real_layout(release, apply=False, suite="bookworm"):
    """setup --release on the mirror laid out as AMD's server really is
    (standin.REAL_LAYOUT, written by hand): the sources name those folders
    and apt's dry run resolves every package from them, which it cannot
    when a folder is one AMD does not serve (apt update fails with 404).
    With suite="trixie": a Debian 13 host as it is, its own os-release."""
    rocm_dir, drv_dir, gfx_dir, build, _ = standin.REAL_LAYOUT[release]
    h = Host(conf_extra="apt_driver = yes\napt_graphics = yes\n", suite=suite, own_os_release=suite != "bookworm")
    base = mirror().base + "/radeon/"
    p = h.rd("setup", "--release", release)
    expect(h, "plan", p.stdout)
    out = p.stdout.replace(h.path, "ROOT")
    rdtest.eq(p.returncode, 1, "plan: steps to carry out (stderr %s)\n%s" % (p.stderr, out))
    want = sorted(base + d for d in (rocm_dir, drv_dir, gfx_dir) if d)
    rdtest.eq(sorted(re.findall(r"^\+URIs: (\S+)$", out, re.M)), want, "the folders of AMD's layout: " + out)
    rdtest.check("Not planned" not in out, "every step planned: " + out)
    pk = dict((n, v) for _, n, v in package_lines(out))
    rdtest.eq(pk.get("rocm-core"), "%s.%s" % (release, build), "rocm-core from %s: %s" % (rocm_dir, out))
    rdtest.eq(len(pk), 7, "the seven ROCm packages resolved: %s" % pk)
    if not apply:
        return
    pkgs_before, tree_before = h.packages(), h.tree()
    p = h.rd("setup", "--release", release, "--apply", "--yes")
    expect(h, "apply", p.stdout)
    rdtest.eq(p.returncode, 0, "apply (stdout %s, stderr %s)" % (p.stdout, p.stderr))
    rdtest.check(any(l.startswith("rocm-core %s.%s ii" % (release, build)) for l in h.packages()), h.packages())
    q = h.chroot("apt-get", "update")
    rdtest.eq(q.returncode, 0, "apt-get update in the set-up root reads every source: " + q.stdout)
    h.undo_restores(pkgs_before, tree_before)


def broken(pkgs):
    """The packages dpkg has not finished (any state but installed, or
    reinstallation required)."""
    return [l for l in pkgs if not l.endswith(" ii")]


def unfinished_undo_then_fixed(h, pkgs_before, tree_before, cause_gone):
    """Undo while the cause is still there keeps the repository files and
    says what is left; once it is gone, the next undo finishes."""
    rdtest.eq(h.r.exists("/etc/apt/sources.list.d/rocm.sources"), True, "the repository is kept until the packages are out")
    cause_gone()
    h.undo_restores(pkgs_before, tree_before)


def local_deb(h, name, version, depends, files):
    """A package built here and installed with dpkg -i: no repository has it."""
    work = temp_dir("rd-setup-deb.")
    standin.build_deb(work, os.path.join(work, "out"), name, version, depends, files)
    deb = "%s_%s_amd64.deb" % (name, version)
    shutil.copy(os.path.join(work, "out", deb), h.r.p("/tmp/" + deb))
    q = h.chroot("dpkg", "-i", "/tmp/" + deb)
    rdtest.eq(q.returncode, 0, "dpkg -i %s: %s" % (deb, q.stdout))
    os.unlink(h.r.p("/tmp/" + deb))
