#!/usr/bin/env python3
"""Where `rocm-doctor report` writes: a default file name, `-o -` for
standard output, never over an existing file, exit 0 once written.

    test-report-output.py ROCM_DOCTOR

The check runs on this host's hardware with an OS tree of its own (--root):
only where the bundle goes is under test, not what it holds.
"""
import io
import os
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile

sys.dont_write_bytecode = True  # keep the source tree clean
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "lib"))
import rdtest  # noqa: E402

BIN = os.path.abspath(sys.argv[1])
tmp = tempfile.mkdtemp(prefix="rocm-doctor-report-out-")
root = os.path.join(tmp, "root")
os.makedirs(os.path.join(root, "etc"))
shutil.copy("/etc/os-release", os.path.join(root, "etc", "os-release"))
work = os.path.join(tmp, "work")
os.mkdir(work)
env = dict(os.environ, NO_COLOR="1", LC_ALL="C.UTF-8")
for k in ("SUDO_UID", "SUDO_GID", "SUDO_USER"):
    env.pop(k, None)


def report(*args, stdout=subprocess.PIPE):
    return subprocess.run([BIN, "report", "--root", root, *args], cwd=work, env=env, stdout=stdout,
                          stderr=subprocess.PIPE, timeout=300)


def members(data):
    with tarfile.open(fileobj=io.BytesIO(data)) as t:
        return sorted(m.name for m in t.getmembers())


status = subprocess.run([BIN, "check", "--root", root], env=env, capture_output=True).returncode
found = {0: "no problem", 1: "warnings", 2: "errors"}.get(status, "?")


@rdtest.test
def without_o_writes_the_default_file():

    # no -o: rocm-doctor-report-HOST-YYYYMMDDTHHMMSSZ.tar in the working directory
    p = report()
    names = os.listdir(work)
    host = re.sub(r"[^A-Za-z0-9.-]", "_", os.uname().nodename)
    rdtest.check(p.returncode == 0, "without -o: exit 0", p.stderr.decode())
    rdtest.check(len(names) == 1 and re.fullmatch(r"rocm-doctor-report-%s-\d{8}T\d{6}Z\.tar" % re.escape(host), names[0])
                 is not None,
                 "without -o: one file named rocm-doctor-report-HOST-TIME.tar in the working directory",
                 names)
    if len(names) == 1:
        data = open(os.path.join(work, names[0]), "rb").read()
        rdtest.check("rocm-doctor-report/README.txt" in members(data), "the default file is the bundle")
        rdtest.check(p.stdout.decode() == (
                     "Support bundle written to %s: " % names[0]) + p.stdout.decode().split(": ", 1)[1] and
                     p.stdout.decode().endswith("The check found %s (see README.txt in the bundle).\n" % found),
                     "it says where it wrote and what the check found",
                     p.stdout.decode())


@rdtest.test
def o_dash_writes_to_stdout():
    # -o -: the archive on stdout, the message on stderr, no file
    for n in os.listdir(work):
        os.unlink(os.path.join(work, n))
    p = report("-o", "-")
    rdtest.check(p.returncode == 0, "-o -: exit 0", p.stderr.decode())
    rdtest.check(os.listdir(work) == [], "-o -: no file is made (not even one named -)", os.listdir(work))
    try:
        got = members(p.stdout)
    except tarfile.TarError as e:
        got = [str(e)]
    rdtest.check("rocm-doctor-report/facts.json" in got and
                 "rocm-doctor-report/README.txt" in got,
                 "-o -: standard output is the tar archive",
                 got[:5])
    rdtest.check(p.stderr.decode().startswith(
                 "Support bundle written to standard output: "),
                 "-o -: the summary goes to stderr",
                 p.stderr.decode())


@rdtest.test
def an_existing_file_is_never_replaced():

    # an existing file is never replaced
    target = os.path.join(work, "b.tar")
    with open(target, "w") as f:
        f.write("keep me\n")
    p = report("-o", target)
    rdtest.check(p.returncode == 3 and p.stderr.decode() ==
                 "rocm-doctor: %s exists; remove it first, or name another file with -o\n" % target,
                 "an existing -o FILE: exit 3, one line saying so",
                 p.stderr.decode())
    rdtest.check(open(target).read() == "keep me\n" and os.listdir(work) == ["b.tar"],
                 "the existing file is left alone, nothing else written",
                 os.listdir(work))
    p = report("-o", "")
    rdtest.check(p.returncode == 3 and b"-o needs a file name, or - for standard output" in p.stderr,
                 "-o '': a usage error",
                 p.stderr.decode())
    if os.path.exists("/dev/tty") and os.isatty(0):
        print("# (terminal refusal not tested: needs a pseudo-terminal)")


status = rdtest.main()
shutil.rmtree(tmp, ignore_errors=True)
sys.exit(status)
