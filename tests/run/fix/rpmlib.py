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


def install(root, packages):
    """An rpm database under root/var/lib/rpm with these (name, version,
    release[, arch]) packages installed."""
    os.makedirs(os.path.join(root, "var/lib/rpm"), exist_ok=True)
    rpm(root, "--initdb")
    files = [build(*p) for p in packages]
    if files:
        rpm(root, "-i", "--nodeps", "--noscripts", "--nosignature", "--ignorearch", "--ignoreos",
            "--excludedocs", *files)


def query(root):
    return sorted(rpm(root, "-qa", "--qf", "%{NAME}-%{VERSION}-%{RELEASE}\\n").stdout.split())
