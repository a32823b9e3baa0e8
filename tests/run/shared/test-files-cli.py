#!/usr/bin/env python3
"""OS files as the binary sees them under --root: a FIFO anywhere is named as
unreadable and never blocks; line-based files have no size limit; os-release
over 64 KiB is read; facts loaded from a file are range-checked; the support
bundle goes through the atomic writer."""
import json
import os
import stat
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "lib"))
import rdtest  # noqa: E402
binary, src = sys.argv[1], sys.argv[2]
os.environ.setdefault("ROCM_DOCTOR_DATA_DIR", os.path.join(src, "conf"))

OS_RELEASE = 'PRETTY_NAME="Ubuntu 24.04.1 LTS"\nID=ubuntu\nID_LIKE=debian\nVERSION_ID="24.04"\nVERSION_CODENAME=noble\n'
FIFOS = ["etc/modprobe.d/fifo.conf", "etc/os-release", "etc/environment", "etc/passwd", "etc/group",
         "etc/apt/sources.list.d/rocm.list"]


def run(args, timeout=20):
    try:
        return subprocess.run([binary] + args, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return None


def tree(files=(), fifos=()):
    root = rdtest.temp_dir("rd-files-")
    base = {"etc/os-release": OS_RELEASE, "etc/passwd": "root:x:0:0::/root:/bin/sh\n",
            "etc/group": "root:x:0:\n", "etc/apt/sources.list": ""}
    base.update(dict(files))
    for path in fifos:
        base.pop(path, None)
    for path, text in base.items():
        os.makedirs(os.path.dirname(os.path.join(root, path)), exist_ok=True)
        with open(os.path.join(root, path), "w") as f:
            f.write(text)
    for path in fifos:
        os.makedirs(os.path.dirname(os.path.join(root, path)), exist_ok=True)
        os.mkfifo(os.path.join(root, path))
    return root


def facts(root):
    p = run(["facts", "--root", root, "--user", "root"])
    rdtest.check(p is not None, "facts --root %s returns" % root)
    if p is None:
        return None
    rdtest.check(p.returncode == 0, "facts exit 0, got %d: %s" % (p.returncode, p.stderr))
    return json.loads(p.stdout) if p.returncode == 0 else None


def recheck(f):
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as t:
        json.dump(f, t)
    p = run(["check", "--json", "--facts", t.name])
    os.unlink(t.name)
    return json.loads(p.stdout)["findings"]


@rdtest.test
def each_fifo_alone_is_named():
    # Each FIFO alone: named in the facts and in a facts.unreadable finding.
    for path in FIFOS:
        f = facts(tree(fifos=[path]))
        if not f:
            continue
        got = [(u["path"], u["error"]) for u in f.get("unreadable", [])]
        rdtest.check(got == [("/" + path, "is not a regular file (a FIFO, socket or device is never read)")],
              "%s: unreadable %r" % (path, got))
        found = [x for x in recheck(f) if x["id"] == "facts.unreadable"]
        rdtest.check(len(found) == 1 and found[0]["severity"] == "warning", "%s: one facts.unreadable warning" % path)
        rdtest.check(found and found[0]["evidence"][0].startswith("/%s: is not a regular file" % path)
              and "; not checked: " in found[0]["evidence"][0], "%s: evidence %r" % (path, found and found[0]["evidence"]))


@rdtest.test
def six_fifos_at_once():
    # All at once, through check itself: it returns, and lists all six.
    root = tree(fifos=FIFOS)
    p = run(["check", "--json", "--root", root, "--user", "root"])
    rdtest.check(p is not None, "check --root with six FIFOs returns")
    if p:
        fs = {x["id"]: x for x in json.loads(p.stdout)["findings"]}
        ev = fs.get("facts.unreadable", {}).get("evidence", [])
        rdtest.check(sorted(e.split(":")[0] for e in ev) == sorted("/" + x for x in FIFOS), "six files named: %r" % ev)


@rdtest.test
def the_healthy_twin():
    # The healthy twin: regular files, nothing unreadable, no finding.
    f = facts(tree())
    if f:
        rdtest.check(f.get("unreadable") == [], "healthy tree: nothing unreadable (%r)" % f.get("unreadable"))
        rdtest.check(not [x for x in recheck(f) if x["id"] == "facts.unreadable"], "healthy tree: no facts.unreadable")


@rdtest.test
def an_os_release_fifo():
    # os-release FIFO: the error names the file and the reason, not ENOENT.
    f = facts(tree(fifos=["etc/os-release"]))
    if f:
        rdtest.check(f["os"]["os_release_error"] ==
              "/etc/os-release: is not a regular file (a FIFO, socket or device is never read)",
              "os-release error %r" % f["os"]["os_release_error"])


@rdtest.test
def os_release_over_64_kib():
    # os-release over 64 KiB (comments first) is read.
    big = ("# %s\n" % ("c" * 100)) * 700 + OS_RELEASE
    f = facts(tree({"etc/os-release": big}))
    if f:
        rdtest.check(len(big) > 64 * 1024, "os-release is over 64 KiB")
        rdtest.check(f["os"].get("id") == "ubuntu" and f["os"].get("version_id") == "24.04", "big os-release read: %r" % f["os"])
        rdtest.check(f["os"].get("os_release_error") is None, "big os-release: no error (%r)" % f["os"].get("os_release_error"))


@rdtest.test
def an_oversized_modprobe_file():
    # A 1.19 MB modprobe.d file starting with `blacklist amdgpu`.
    filler = "# %s\n" % ("x" * 76)
    f = facts(tree({"etc/modprobe.d/amdgpu.conf": "blacklist amdgpu\n" + filler * (1190000 // len(filler))}))
    if f:
        lines = [(m["file"], m["line"], m["directive"], m["module"]) for m in f["driver"].get("modprobe", [])]
        rdtest.check(lines == [("/etc/modprobe.d/amdgpu.conf", 1, "blacklist", "amdgpu")], "oversized blacklist: %r" % lines)
        rdtest.check(f["driver"].get("modprobe_error") is None, "oversized: no modprobe error")


@rdtest.test
def facts_from_a_file_are_range_checked():
    # Facts from a file are range-checked, the field named.
    with open(os.path.join(src, "tests/run/cli/facts/nvidia-h200.json")) as fh:
        good = json.load(fh)
    for field, value, want in [("vendor_id", -1, "pci.devices[0].vendor_id: expected an integer from 0 to 65535, not -1"),
                               ("device_id", 65536, "pci.devices[0].device_id: expected an integer from 0 to 65535, not 65536"),
                               ("class_code", 1 << 24, "pci.devices[0].class_code: expected an integer from 0 to 16777215"),
                               ("revision", 256, "pci.devices[0].revision: expected an integer from 0 to 255, not 256")]:
        bad = json.loads(json.dumps(good))
        bad["pci"]["devices"][0][field] = value
        with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as t:
            json.dump(bad, t)
        p = run(["check", "--facts", t.name])
        os.unlink(t.name)
        rdtest.check(p.returncode == 3 and want in p.stderr, "%s=%d refused: %d %r" % (field, value, p.returncode, p.stderr))
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as t:
        json.dump(good, t)
    p = run(["check", "--facts", t.name])
    os.unlink(t.name)
    rdtest.check(p.returncode in (0, 1, 2), "in-range facts load (exit %d, %r)" % (p.returncode, p.stderr))


@rdtest.test
def the_support_bundle_is_atomic():
    # The support bundle: written atomically, mode 0600, no temp file left, a
    # FIFO in the tree does not block it.
    root = tree(fifos=["etc/environment"])
    out_dir = rdtest.temp_dir("rd-bundle-")
    out = os.path.join(out_dir, "bundle.tar")
    p = run(["report", "-o", out, "--root", root, "--user", "root"], timeout=60)
    rdtest.check(p is not None and p.returncode in (0, 1, 2), "report returns (%r)" % ((p and (p.returncode, p.stderr)),))
    if p:
        rdtest.check(os.path.exists(out) and stat.S_IMODE(os.stat(out).st_mode) == 0o600, "bundle mode 0600")
        rdtest.check(os.listdir(out_dir) == ["bundle.tar"], "no temp file left: %r" % os.listdir(out_dir))


sys.exit(rdtest.main())
