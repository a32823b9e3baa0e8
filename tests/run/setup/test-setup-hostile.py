#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""setup on a real Debian root (test-setup.py's host: the cached debootstrap
tree, stand-in packages, the real apt-get and dpkg) against hostile input:
a mirror that trickles, package state that is a FIFO or a link out of the
root, a mirror URL with credentials, text from the mirror's index with
terminal escapes, mirror values that are shell.

Usage: test-setup-hostile.py ROCM_DOCTOR SOURCE_DIR CACHE_DIR"""
import base64
import functools
import http.server
import json
import os
import re
import shutil
import socketserver
import subprocess
import sys
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "fix"))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "..", "lib"))
from fixlib import temp_dir  # noqa: E402
import rdtest  # noqa: E402
import setuplib as ts  # noqa: E402

Host = ts.Host
RD = ts.RD


class _Trickle(http.server.BaseHTTPRequestHandler):
    """Every GET answers 200 with a long body, one byte every 2 s."""

    def do_GET(self):  # noqa: N802
        self.send_response(200)
        self.send_header("Content-Length", "100000")
        self.end_headers()
        try:
            for _ in range(1000):
                self.wfile.write(b"x")
                self.wfile.flush()
                time.sleep(2)
        except OSError:
            pass

    def log_message(self, *args):
        pass


def trickling_server():
    srv = socketserver.ThreadingTCPServer(("127.0.0.1", 0), _Trickle)
    srv.daemon_threads = True
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    return srv, "http://127.0.0.1:%d" % srv.server_address[1]


def set_conf(h, fix_extra="", mirror=None):
    """The host's rocm-doctor.conf with extra [fix] keys and its mirror."""
    m = ts.mirror()
    h.r.write("/etc/rocm-doctor/rocm-doctor.conf",
              "[fix]\napt_key_file = %s\napt_key_fingerprint = %s\npackage_lock_timeout_s = 2\n%s"
              "[repository]\nmirror = %s\n" % (m.key_file, m.fingerprint, fix_extra, mirror or m.base + "/radeon"))


@rdtest.test(root=True)
def trickling_mirror_ends_at_the_deadline():
    h = Host()
    srv, base = trickling_server()
    try:
        set_conf(h, "package_query_timeout_s = 6\n", base + "/radeon")
        pkgs_before, tree_before = h.packages(), h.tree()
        # the dry run's overlay goes under TMPDIR: its apt-get is found by it
        tmpdir = temp_dir("rd-trickle-tmp.")
        t0 = time.monotonic()
        p = subprocess.run([RD, "setup", "--release", "6.4.1", "--root", h.path, "--facts", h.facts],
                           capture_output=True, text=True, timeout=120,
                           env=dict(os.environ, NO_COLOR="1", LC_ALL="C", TMPDIR=tmpdir))
        took = time.monotonic() - t0
    finally:
        srv.shutdown()
        srv.server_close()
    out = p.stdout.replace(h.path, "ROOT")
    rdtest.eq(p.returncode, 2, "setup with its package step unplanned (stdout %s, stderr %s)" % (out, p.stderr))
    print("# the plan took %.1f s: %s" % (took, [l for l in out.splitlines() if "did not finish" in l]))
    rdtest.check(took < 40, "the plan ended about the deadline (6 s), not when the mirror gave up: %.1f s" % took)
    rdtest.check("packages: the apt dry run could not run (apt-get update did not finish within 6 s "
                 "(package_query_timeout_s) and was stopped; it was at: " in out, "the command and the deadline named: " + out)
    # the dry run's apt-get (its options name the plan's overlay) and its
    # http method were in the ended process group
    leftover = subprocess.run(["pgrep", "-f", "Dir::State=%s/rocm-doctor-plan\\." % tmpdir], capture_output=True,
                              text=True).stdout.split()
    rdtest.eq(leftover, [], "no apt-get left running")
    rdtest.eq(h.packages(), pkgs_before, "nothing installed")
    ts.same_tree(h.tree(), tree_before, "planning wrote nothing")


class _TrickleBounded(_Trickle):
    """The same, ending by itself after 150 bytes (300 s): past any
    deadline of a dry run, never past the test."""

    def do_GET(self):  # noqa: N802
        self.send_response(200)
        self.send_header("Content-Length", "100000")
        self.end_headers()
        try:
            for _ in range(150):
                self.wfile.write(b"x")
                self.wfile.flush()
                time.sleep(2)
        except OSError:
            pass


@rdtest.test(root=True)
def trickling_mirror_ends_at_the_default_deadline():
    """With no deadline configured, a mirror that answers and then trickles
    a byte every 2 s holds setup's dry run for package_query_timeout_s's
    default, 120 s, the dry run's runs together: not 300 s, not once per
    run."""
    h = Host()
    srv = socketserver.ThreadingTCPServer(("127.0.0.1", 0), _TrickleBounded)
    srv.daemon_threads = True
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    try:
        set_conf(h, "", "http://127.0.0.1:%d/radeon" % srv.server_address[1])
        tmpdir = temp_dir("rd-trickle-tmp.")
        t0 = time.monotonic()
        p = subprocess.run([RD, "setup", "--release", "6.4.1", "--root", h.path, "--facts", h.facts],
                           capture_output=True, text=True, timeout=400,
                           env=dict(os.environ, NO_COLOR="1", LC_ALL="C", TMPDIR=tmpdir))
        took = time.monotonic() - t0
    finally:
        srv.shutdown()
        srv.server_close()
    out = p.stdout.replace(h.path, "ROOT")
    print("# the plan took %.1f s: %s" % (took, [l for l in out.splitlines() if "did not finish" in l]))
    rdtest.eq(p.returncode, 2, "setup with its package step unplanned (stdout %s, stderr %s)" % (out, p.stderr))
    rdtest.check(took < 180, "the dry run ended within 180 s: %.1f s" % took)
    rdtest.check("apt-get update did not finish within 120 s (package_query_timeout_s) and was stopped" in out,
                 "the default deadline named: " + out)


class _TrickleDebs(http.server.SimpleHTTPRequestHandler):
    """The stand-in mirror, whose package archives (not its indexes) come
    one byte every 2 s."""

    def do_GET(self):  # noqa: N802
        if not self.path.endswith(".deb"):
            return super().do_GET()
        with open(self.translate_path(self.path), "rb") as f:
            data = f.read()
        self.send_response(200)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        try:
            for i in range(len(data)):
                self.wfile.write(data[i:i + 1])
                self.wfile.flush()
                time.sleep(2)
        except OSError:
            pass

    def log_message(self, *args):
        pass


@rdtest.test(root=True)
def trickling_download_ends_the_install_at_its_deadline():
    h = Host()
    handler = functools.partial(_TrickleDebs, directory=ts.mirror().www)
    srv = socketserver.ThreadingTCPServer(("127.0.0.1", 0), handler)
    srv.daemon_threads = True
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    try:
        set_conf(h, "package_timeout_s = 8\n", "http://127.0.0.1:%d/radeon" % srv.server_address[1])
        pkgs_before, tree_before = h.packages(), h.tree()
        t0 = time.monotonic()
        p = h.setup("--apply", "--yes", timeout=300)
        took = time.monotonic() - t0
    finally:
        srv.shutdown()
        srv.server_close()
    err = p.stderr.replace(h.path, "ROOT")
    print("# apply took %.1f s: %s" % (took, [l for l in err.splitlines() if "did not finish" in l]))
    rdtest.eq(p.returncode, 3, "apply fails (stdout %s, stderr %s)" % (p.stdout[-2000:], err))
    rdtest.check("apt-get install did not finish within 8 s (package_timeout_s) and was stopped; it was at: " in err,
                 "the command, the deadline and where it was: " + err)
    rdtest.check(took < 90, "apply ended about the deadline: %.1f s" % took)
    rdtest.eq(h.packages(), pkgs_before, "nothing installed")
    ts.same_tree(h.tree(), tree_before, "rolled back: the tree as before")


@rdtest.test(root=True)
def fifo_as_dpkg_status_refused_without_hanging():
    h = Host()
    status = h.r.p("/var/lib/dpkg/status")
    os.rename(status, status + ".real")
    os.mkfifo(status)
    try:
        p = h.setup(timeout=60)
        rdtest.eq(p.returncode, 3, "setup refuses the root (stdout %s, stderr %s)" % (p.stdout, p.stderr))
        rdtest.eq(p.stderr.replace(h.path, "ROOT"), "rocm-doctor: --root ROOT: ROOT/var/lib/dpkg/status is not a regular "
           "file (a FIFO, socket or device is never read)\n", "the path named")
        p = h.setup("--apply", "--yes", timeout=60)
        rdtest.eq(p.returncode, 3, "apply refuses it too: %s" % p.stderr)
        p = h.rd("undo", timeout=60)
        rdtest.eq((p.returncode, p.stderr.replace(h.path, "ROOT")),
           (3, "rocm-doctor: --root ROOT: ROOT/var/lib/dpkg/status is not a regular file (a FIFO, socket or device "
               "is never read)\n"), "undo refuses it too")
        # the check reads the status file through the safe opener: no hang
        p = subprocess.run([RD, "check", "--root", h.path], capture_output=True, text=True, timeout=60,
                           env=dict(os.environ, NO_COLOR="1"))
        rdtest.check(p.returncode in (0, 1, 2), "check with a FIFO for the status file ends: %s" % p.stderr)
    finally:
        os.unlink(status)
        os.rename(status + ".real", status)
    rdtest.eq(h.run_ids(), [], "no run started")


def decoy_dpkg(h):
    """ROOT/var/lib/dpkg as a relative link that climbs out of the root from
    the host (to a decoy beside it) and lands inside it under chroot."""
    top = os.path.dirname(h.path)
    name = os.path.basename(temp_dir("rd-decoy."))
    decoy = os.path.join(top, name)
    subprocess.run(["cp", "-a", h.r.p("/var/lib/dpkg"), os.path.join(decoy, "dpkg")], check=True)
    os.makedirs(h.r.p("/" + name))
    os.rename(h.r.p("/var/lib/dpkg"), h.r.p("/%s/dpkg" % name))
    target = "../../../%s/dpkg" % name
    os.symlink(target, h.r.p("/var/lib/dpkg"))
    return name, target, decoy


@rdtest.test(root=True)
def package_state_links_out_of_the_root_refused():
    h = Host()
    name, target, decoy = decoy_dpkg(h)
    pkgs_before = sorted(os.listdir(os.path.join(decoy, "dpkg", "info")))
    tree_before = h.tree()
    for args in (["setup", "--release", "6.4.1"], ["setup", "--release", "6.4.1", "--apply", "--yes"], ["undo"]):
        p = h.rd(*args, timeout=120)
        rdtest.eq(p.returncode, 3, "%s refuses the root (stdout %s, stderr %s)" % (args, p.stdout, p.stderr))
        rdtest.eq(p.stderr.replace(h.path, "ROOT"),
           "rocm-doctor: --root ROOT: ROOT/var/lib/dpkg leads outside the root (the link /var/lib/dpkg -> %s), "
           "to %s/dpkg as the host's programs follow it: the package manager's queries and its installs would not "
           "see the same tree; make it a directory or a link that stays in the root\n" % (target, decoy),
           "%s: the path, the link and where it leads" % args)
    rdtest.eq(sorted(os.listdir(os.path.join(decoy, "dpkg", "info"))), pkgs_before, "the decoy untouched")
    ts.same_tree(h.tree(), tree_before, "nothing written in the root")

    # dnf and zypper keep logs and caches under var/log and var/cache: an
    # absolute link there is the host's directory to a program run with
    # --installroot
    h2 = Host()
    outside = temp_dir("rd-outside.")
    os.rename(h2.r.p("/var/log"), h2.r.p("/var/log.real"))
    os.symlink(outside, h2.r.p("/var/log"))
    p = h2.setup(timeout=120)
    rdtest.eq(p.returncode, 3, "an absolute var/log link refused: %s %s" % (p.stdout, p.stderr))
    rdtest.check(("ROOT/var/log leads outside the root (the link /var/log -> %s), to %s as the host's programs follow it"
           % (outside, outside)) in p.stderr.replace(h2.path, "ROOT"), p.stderr)
    rdtest.eq(os.listdir(outside), [], "nothing written outside")


HOSTILE_VERSION = "6.4.1.\x1b]0;owned\x07\x1b[2J\x1b[31m" + "9" * 10000


def hostile_index_mirror():
    """The stand-in ROCm repository whose index gives rocm a version with
    terminal escapes and 10 kB of text, signed with the stand-in key."""
    m = ts.mirror()
    www = temp_dir("rd-hostile-www.")
    repo = os.path.join(www, "radeon", "rocm", "apt", "6.4.1")
    shutil.copytree(os.path.join(m.www, "radeon", "rocm", "apt", "6.4.1"), repo)
    pk = os.path.join(repo, "dists", "noble", "main", "binary-amd64", "Packages")
    with open(pk) as f:
        stanzas = f.read().split("\n\n")
    stanzas = [re.sub(r"(?m)^Version: .*$", "Version: " + HOSTILE_VERSION, st)
               if re.search(r"(?m)^Package: rocm$", st) else st for st in stanzas]
    with open(pk, "w") as f:
        f.write("\n\n".join(stanzas))
    for name in ("Release", "InRelease", "Release.gpg"):
        if os.path.exists(os.path.join(repo, "dists", "noble", name)):
            os.unlink(os.path.join(repo, "dists", "noble", name))
    _release(repo, m.gnupghome)
    handler = functools.partial(_Quiet, directory=www)
    srv = socketserver.ThreadingTCPServer(("127.0.0.1", 0), handler)
    srv.daemon_threads = True
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    return srv, "http://127.0.0.1:%d/radeon" % srv.server_address[1]


def _release(repo, gnupghome):
    out = subprocess.run(["apt-ftparchive", "-o", "APT::FTPArchive::Release::Origin=repo.radeon.com",
                          "-o", "APT::FTPArchive::Release::Suite=noble", "-o",
                          "APT::FTPArchive::Release::Codename=noble", "-o",
                          "APT::FTPArchive::Release::Architectures=amd64", "-o",
                          "APT::FTPArchive::Release::Components=main", "release", "dists/noble"],
                         cwd=repo, capture_output=True, text=True, check=True).stdout
    rel = os.path.join(repo, "dists", "noble", "Release")
    with open(rel, "w") as f:
        f.write(out)
    subprocess.run(["gpg", "--batch", "--yes", "--clearsign", "-o", os.path.join(repo, "dists", "noble", "InRelease"),
                    rel], env=dict(os.environ, GNUPGHOME=gnupghome), check=True, capture_output=True)


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


@rdtest.test(root=True)
def escapes_from_the_index_escaped_and_bounded():
    h = Host()
    srv, base = hostile_index_mirror()
    try:
        set_conf(h, mirror=base)
        pkgs_before = h.packages()
        runs = {"plan": h.setup(timeout=120), "apply": h.setup("--apply", "--yes", timeout=300)}
    finally:
        srv.shutdown()
        srv.server_close()
    # the index's version is no archive's: apt-get cannot install it, and
    # its error lines quote the version
    rdtest.eq(runs["plan"].returncode, 1, "planned: %s %s" % (runs["plan"].stdout[-2000:], runs["plan"].stderr[-2000:]))
    rdtest.eq(runs["apply"].returncode, 3, "apply fails and rolls back: %s" % runs["apply"].stderr[-3000:])
    rdtest.eq(h.packages(), pkgs_before, "nothing installed")
    for what, p in runs.items():
        out = p.stdout + p.stderr
        rdtest.check("\x1b" not in out and "\x07" not in out, "%s: no raw escape reaches the terminal" % what)
        line = [l for l in out.splitlines() if l.startswith("     install   rocm ")]
        nines = 128 - (len(HOSTILE_VERSION) - 10000)  # 128 bytes of the version are shown
        rdtest.check(len(line) == 1 and re.fullmatch(r"     install   rocm 6\.4\.1\.\\x1b\]0;owned\\x07\\x1b\[2J\\x1b\[31m"
                                              r"9{%d} \[%d more bytes\] \(\d+ B\)" % (nines, 10000 - nines), line[0]),
              "%s: the version escaped and bounded: %s" % (what, line))
        longest = max(len(l) for l in out.splitlines())
        rdtest.check(longest < 4200, "%s: every line bounded (the longest: %d bytes)" % (what, longest))
        print("# %s: the rocm line %r, longest line %d bytes" % (what, line[0][:90], longest))


SECRET = "Sx7qSECRET"


class _NeedsLogin(http.server.SimpleHTTPRequestHandler):
    """The stand-in mirror behind HTTP basic authentication: apt gets in
    only with the login rocm-doctor wrote for it."""
    want = "Basic " + base64.b64encode(("mirror-user:" + SECRET).encode()).decode()

    def do_GET(self):  # noqa: N802
        if self.headers.get("Authorization") != self.want:
            self.send_response(401)
            self.send_header("WWW-Authenticate", 'Basic realm="mirror"')
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        super().do_GET()

    def log_message(self, *args):
        pass


def login_server():
    handler = functools.partial(_NeedsLogin, directory=ts.mirror().www)
    srv = socketserver.ThreadingTCPServer(("127.0.0.1", 0), handler)
    srv.daemon_threads = True
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    return srv, "127.0.0.1:%d" % srv.server_address[1]


def files_holding(top, needle, skip=()):
    """Every regular file under top whose bytes hold needle."""
    hits = []
    for dirpath, dirnames, filenames in os.walk(top):
        dirnames[:] = [d for d in dirnames if d not in ("proc", "sys", "dev")]
        for name in filenames:
            full = os.path.join(dirpath, name)
            rel = "/" + os.path.relpath(full, top)
            if rel in skip or not os.path.isfile(full) or os.path.islink(full):
                continue
            with open(full, "rb") as f:
                if needle.encode() in f.read():
                    hits.append(rel)
    return sorted(hits)


@rdtest.test(root=True)
def mirror_credentials_never_shown():
    h = Host()
    srv, hostport = login_server()
    base = "http://%s/radeon" % hostport
    conf_skip = ("/etc/rocm-doctor/rocm-doctor.conf",)
    try:
        set_conf(h, mirror="http://mirror-user:%s@%s/radeon" % (SECRET, hostport))
        pkgs_before, tree_before = h.packages(), h.tree()
        outputs = {}
        p = h.setup()
        outputs["plan"] = p.stdout + p.stderr
        rdtest.eq(p.returncode, 1, "plan (stdout %s, stderr %s)" % (p.stdout, p.stderr))
        rdtest.check("+URIs: %s/rocm/apt/6.4.1\n" % base in p.stdout, "the sources hold the URL without the login: " +
              p.stdout)
        rdtest.check("   write /etc/apt/auth.conf.d/rocm-doctor.conf (mode 0600, root:root)\n" in p.stdout, p.stdout)
        rdtest.check("+machine %s login mirror-user password *****\n" % base in p.stdout, "the login masked: " + p.stdout)
        rdtest.check(("install", "rocm", "6.4.1." + ts.standin.BUILD) in ts.package_lines(p.stdout),
              "the dry run got through the login: " + p.stdout)
        p = h.setup("--json")
        outputs["plan --json"] = p.stdout + p.stderr
        act = [a for st in json.loads(p.stdout)["steps"] for a in st["actions"]
               if a.get("path") == "/etc/apt/auth.conf.d/rocm-doctor.conf"]
        rdtest.eq((len(act), act[0]["mode"], "sha256" in act[0]), (1, "0600", False), "the JSON: mode, no hash")
        p = h.setup("--apply", "--yes")
        outputs["apply"] = p.stdout + p.stderr
        rdtest.eq(p.returncode, 0, "apply through the login (stdout %s, stderr %s)" % (p.stdout, p.stderr))
        st = os.stat(h.r.p("/etc/apt/auth.conf.d/rocm-doctor.conf"))
        rdtest.eq((oct(st.st_mode & 0o7777), st.st_uid), ("0o600", 0), "the auth file: root's, 0600")
        rdtest.check("machine %s login mirror-user password %s\n" % (base, SECRET) in
              h.r.read("/etc/apt/auth.conf.d/rocm-doctor.conf"), "apt's auth.conf.d holds the login")
        src = h.r.read("/etc/apt/sources.list.d/rocm.sources")
        rdtest.check("URIs: %s/rocm/apt/6.4.1\n" % base in src and "mirror-user" not in src, src)
        rdtest.check(any(l.startswith("rocm 6.4.1.") for l in h.packages()), "installed through the login")
        rdtest.eq(files_holding(h.path, SECRET, conf_skip), ["/etc/apt/auth.conf.d/rocm-doctor.conf"],
           "the password only in apt's auth file (and the configuration it came from)")
        for args in (["fix", "--status"], ["check"], ["check", "--json"]):
            p = h.rd(*args)
            outputs[" ".join(args)] = p.stdout + p.stderr
        bundle = os.path.join(temp_dir("rd-bundle."), "bundle.tar")
        p = subprocess.run([RD, "report", "--root", h.path, "-o", bundle], capture_output=True, text=True)
        outputs["report"] = p.stdout + p.stderr
        rdtest.eq(p.returncode, 0, "the bundle: %s" % p.stderr)
        with open(bundle, "rb") as f:
            rdtest.check(SECRET.encode() not in f.read(), "the password is not in the bundle")
        p = h.rd("undo")
        outputs["undo"] = p.stdout + p.stderr
        rdtest.eq(p.returncode, 0, "undo: %s %s" % (p.stdout, p.stderr))
    finally:
        srv.shutdown()
        srv.server_close()
    for what, text in outputs.items():
        rdtest.check(SECRET not in text, "%s shows the password: %s" % (what, text))
    rdtest.eq(h.packages(), pkgs_before, "dpkg -l after undo")
    ts.same_tree(h.tree(), tree_before, "the tree after undo (the auth file gone)")


if __name__ == "__main__":
    # ROCM_DOCTOR_SETUP_TESTS=a,b (test-setup.py's switch): only those of
    # them that are here; none of them here: every test skipped
    only = [t for t in os.environ.get("ROCM_DOCTOR_SETUP_TESTS", "").split(",") if t]
    if only:
        here = [n for n in only if hasattr(globals().get(n), "rdtest_root")]
        if not here:
            print("ROCM_DOCTOR_SETUP_TESTS names none of these tests")
            sys.exit(rdtest.EXIT_SKIP)
        os.environ["RDTEST_SELECT"] = ",".join(here)
    sys.exit(rdtest.main())
