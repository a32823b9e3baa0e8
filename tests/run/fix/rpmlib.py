"""Real rpm databases for test roots: packages built with rpmbuild from
specs/package.spec (cached per name, version and release) and installed with
`rpm --root ROOT --dbpath /var/lib/rpm` as the hosts have them."""

import os
import shutil
import subprocess
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
SPEC = os.path.join(HERE, "specs", "package.spec")
CACHE = os.environ.get("ROCM_DOCTOR_RPM_CACHE") or os.path.join(tempfile.gettempdir(), "rocm-doctor-test-rpms")


def have_rpm_tools():
    return bool(shutil.which("rpm") and shutil.which("rpmbuild"))


def build(name, version, release, arch="x86_64", summary=None):
    """The path of a built .rpm (built once, then taken from the cache)."""
    os.makedirs(CACHE, exist_ok=True)
    out = os.path.join(CACHE, "%s-%s-%s.%s.rpm" % (name, version, release, arch))
    if os.path.exists(out):
        return out
    top = tempfile.mkdtemp(prefix="rpmbuild.", dir=CACHE)
    try:
        defines = {
            "_topdir": top, "pkg_name": name, "pkg_version": version, "pkg_release": release,
            "pkg_arch": arch, "pkg_summary": summary or ("%s (test package)" % name),
            "_build_id_links": "none", "__os_install_post": "%{nil}", "_binary_payload": "w.gzdio",
        }
        cmd = ["rpmbuild", "-bb", "--quiet", "--target", arch]
        for k, v in defines.items():
            cmd += ["--define", "%s %s" % (k, v)]
        subprocess.run(cmd + [SPEC], check=True, capture_output=True)
        for dirpath, _, files in os.walk(os.path.join(top, "RPMS")):
            for f in files:
                os.replace(os.path.join(dirpath, f), out + ".tmp")
                os.replace(out + ".tmp", out)
                return out
        raise RuntimeError("rpmbuild made no package for %s" % name)
    finally:
        shutil.rmtree(top, ignore_errors=True)


def rpm(root, *args, check=True):
    return subprocess.run(["rpm", "--root", root, "--dbpath", "/var/lib/rpm"] + list(args),
                          check=check, capture_output=True, text=True)


# Imported keys: rpm names a key gpg-pubkey-SHORTID-CREATED and, from 4.20
# on, refuses to install a package of that name ("use rpmkeys --import").
# keys/short-id-SHORTID.asc is a certificate of that short id
# (keys/make-short-id-key.py), imported with the real rpmkeys.
KEYS = os.path.join(HERE, "keys")


def key_file(short_id):
    path = os.path.join(KEYS, "short-id-%s.asc" % short_id)
    if not os.path.exists(path):
        raise RuntimeError("no test key of short id %s: make %s with keys/make-short-id-key.py" % (short_id, path))
    return path


def install(root, packages):
    """An rpm database under root/var/lib/rpm with these (name, version,
    release[, arch]) packages installed; a ("gpg-pubkey", SHORTID, ...)
    entry is an imported key of that short id (its release is the test
    key's creation time, not the one given)."""
    os.makedirs(os.path.join(root, "var/lib/rpm"), exist_ok=True)
    rpm(root, "--initdb")
    keys = [p[1] for p in packages if p[0] == "gpg-pubkey"]
    for k in keys:
        p = subprocess.run(["rpmkeys", "--root", root, "--dbpath", "/var/lib/rpm", "--import", key_file(k)],
                           capture_output=True, text=True)
        if p.returncode != 0:
            raise RuntimeError("rpmkeys --import %s: %s" % (key_file(k), p.stdout + p.stderr))
    files = [build(*p) for p in packages if p[0] != "gpg-pubkey"]
    if files:
        rpm(root, "-i", "--nodeps", "--noscripts", "--nosignature", "--ignorearch", "--ignoreos",
            "--excludedocs", *files)


def query(root):
    return sorted(rpm(root, "-qa", "--qf", "%{NAME}-%{VERSION}-%{RELEASE}\\n").stdout.split())
