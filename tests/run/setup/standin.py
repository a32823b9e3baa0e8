# SPDX-License-Identifier: MIT
"""Stand-in package repositories for the setup tests, built with the real
tools: .debs with AMD's package names, versions and dependencies
(dpkg-deb), indexed with apt-ftparchive and signed with gpg; laid out as
AMD's server is (rocm/apt/RELEASE, amdgpu/RELEASE/ubuntu), plus a
"distribution" repository with the running kernel's headers and the
distribution's ROCm 5.7 libraries. Served over http from 127.0.0.1.

The packages carry no code, and no maintainer scripts but those that a
test switches on (a marker file in the root's /tmp) to hold dpkg up or make
it fail: they stand in for AMD's, whose downloads this machine cannot
reach."""
import functools
import http.server
import os
import shutil
import socketserver
import subprocess
import threading

RELEASE = "6.4.1"
BUILD = "60401-83~24.04"
KERNEL = "6.8.0-45-generic"
OLD_KERNEL = "5.15.0-91-generic"

# name: (version, depends, files {path: content or ("link", target)})
AMD_ROCM = {
    "rocm-core": ("6.4.1." + BUILD, "", {
        "/opt/rocm-6.4.1/.info/version": "6.4.1-83\n",
        "/opt/rocm": ("link", "rocm-6.4.1"),
    }),
    "hsa-rocr": ("1.15.0." + BUILD, "rocm-core (= 6.4.1.%s)" % BUILD, {
        "/opt/rocm-6.4.1/lib/libhsa-runtime64.so.1": "stand-in\n",
    }),
    "rocminfo": ("1.0.0." + BUILD, "hsa-rocr", {"/opt/rocm-6.4.1/bin/rocminfo": "#!/bin/sh\n"}),
    "hip-runtime-amd": ("6.4.43483." + BUILD, "hsa-rocr", {
        "/opt/rocm-6.4.1/lib/libamdhip64.so.6": "stand-in\n",
    }),
    "rocm-hip-runtime": ("6.4.1." + BUILD, "rocminfo, hip-runtime-amd, rocm-core", {}),
    "rocm-opencl-runtime": ("6.4.1." + BUILD, "rocm-core", {}),
    "rocm": ("6.4.1." + BUILD, "rocm-hip-runtime, rocm-opencl-runtime", {}),
}
# A maintainer script that can be held up, so that a test can kill dpkg
# while it configures (the package stays half-configured).
POSTINST = {
    "rocm-opencl-runtime": "#!/bin/sh\nif [ -e /tmp/rd-slow-postinst ]; then\n  rm -f /tmp/rd-slow-postinst\n"
                           "  touch /tmp/rd-in-postinst\n  sleep 120\nfi\nexit 0\n",
    # amdgpu-dkms's postinst builds the module with DKMS; when the build
    # fails it exits 1, and again at every `dpkg --configure -a`
    "amdgpu-dkms": "#!/bin/sh\nif [ -e /tmp/rd-dkms-fails ]; then\n  echo build >> /tmp/rd-dkms-builds\n"
                   "  echo 'Error! Bad return status for module build on kernel: stand-in' >&2\n  exit 1\nfi\nexit 0\n",
}
# A preinst that can be held up: dpkg has marked the package half-installed
# (reinstallation required) and not unpacked it yet.
PREINST = {
    "hsa-rocr": "#!/bin/sh\nif [ -e /tmp/rd-slow-preinst ]; then\n  rm -f /tmp/rd-slow-preinst\n"
                "  touch /tmp/rd-in-preinst\n  sleep 120\nfi\nexit 0\n",
}
AMD_DRIVER = {
    "amdgpu-dkms": ("1:6.12.12.60401-2164967.24.04", "", {"/usr/src/amdgpu-6.12.12/dkms.conf": "PACKAGE_NAME=amdgpu\n"}),
}
DISTRO = {
    "linux-headers-" + KERNEL: ("6.8.0-45.45", "", {"/usr/src/linux-headers-%s/Makefile" % KERNEL: "# stand-in\n"}),
    "linux-headers-" + OLD_KERNEL: ("5.15.0-91.101", "", {
        "/usr/src/linux-headers-%s/Makefile" % OLD_KERNEL: "# stand-in\n"}),
    # with a configuration file (a conffile, as every file under /etc), so
    # that removing it without purging can be told from purging it
    "libhsa-runtime64-1": ("5.7.1-3", "", {"/usr/lib/x86_64-linux-gnu/libhsa-runtime64.so.1": "distribution\n",
                                           "/etc/stand-in/libhsa-runtime64-1.conf": "# shipped default\n"}),
    # an older ROCm core, for a host that holds it back
    "rocm-core": ("6.3.0.60300-39~24.04", "", {"/opt/rocm-6.3.0/.info/version": "6.3.0-39\n"}),
}


# AMD's server as it really is for three releases, written by hand from
# AMD's install instructions and public logs (not from conf/repos.ini, so
# that a wrong table fails the setup tests):
#   6.4.0: rocm/apt/6.4 (rocm/apt/6.4.0 is 404: ROCm/ROCm#4691) and
#          amdgpu/6.4/ubuntu (ROCm/amdgpu-docs@9dcf720 package-manager-ubuntu.rst);
#   7.1.0: rocm/apt/7.1, graphics/7.1/ubuntu, amdgpu/30.20/ubuntu (Hit lines
#          in ROCm/ROCm#5671; no amdgpu/7.1: #5625, #5798);
#   7.2.3: rocm/apt/7.2.3, graphics/7.2.3/ubuntu, amdgpu/30.30.3/ubuntu
#          (ROCm/amdgpu-docs conf.py at 30.30.3: amdgpu_url_version 30.30.3).
# release: (rocm folder, driver folder, graphics folder or None, package build, dkms version)
REAL_LAYOUT = {
    "6.4.0": ("rocm/apt/6.4", "amdgpu/6.4/ubuntu", None, "60400-47~24.04", "1:6.12.12.60400-2158099.24.04"),
    "7.1.0": ("rocm/apt/7.1", "amdgpu/30.20/ubuntu", "graphics/7.1/ubuntu", "70100-20~24.04",
              "1:6.16.6.30200000-2238411.24.04"),
    "7.2.3": ("rocm/apt/7.2.3", "amdgpu/30.30.3/ubuntu", "graphics/7.2.3/ubuntu", "70203-72~24.04",
              "1:6.16.13.30300300-2318901.24.04"),
    # the folders as conf/repos.ini has them; the build numbers are stand-ins
    "7.2.4": ("rocm/apt/7.2.4", "amdgpu/30.30.4/ubuntu", "graphics/7.2.4/ubuntu", "70204-1~24.04",
              "1:6.16.13.30300400-1.24.04"),
}


def rocm_standins(release, build):
    """AMD_ROCM's packages with the names and versions of another release."""
    opt = "/opt/rocm-%s" % release
    v = "%s.%s" % (release, build)
    return {
        "rocm-core": (v, "", {opt + "/.info/version": "%s-%s\n" % (release, build.split("-")[1].split("~")[0]),
                              "/opt/rocm": ("link", "rocm-%s" % release)}),
        "hsa-rocr": ("1.15.0." + build, "rocm-core (= %s)" % v, {opt + "/lib/libhsa-runtime64.so.1": "stand-in\n"}),
        "rocminfo": ("1.0.0." + build, "hsa-rocr", {opt + "/bin/rocminfo": "#!/bin/sh\n"}),
        "hip-runtime-amd": ("%s.%s" % (release.rsplit(".", 1)[0], build), "hsa-rocr",
                            {opt + "/lib/libamdhip64.so.7": "stand-in\n"}),
        "rocm-hip-runtime": (v, "rocminfo, hip-runtime-amd, rocm-core", {}),
        "rocm-opencl-runtime": (v, "rocm-core", {}),
        "rocm": (v, "rocm-hip-runtime, rocm-opencl-runtime", {}),
    }


def run(argv, **kw):
    p = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, **kw)
    if p.returncode != 0:
        raise RuntimeError("%s failed (%d): %s" % (" ".join(argv), p.returncode, p.stdout))
    return p.stdout


def build_deb(work, out_dir, name, version, depends, files):
    d = os.path.join(work, "pkg-" + name)
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(os.path.join(d, "DEBIAN"))
    for path, content in files.items():
        full = os.path.join(d, path.lstrip("/"))
        os.makedirs(os.path.dirname(full), exist_ok=True)
        if isinstance(content, tuple):
            os.symlink(content[1], full)
        else:
            with open(full, "w") as f:
                f.write(content)
    control = ["Package: " + name, "Version: " + version, "Architecture: amd64",
               "Maintainer: Stand-in <standin@example.org>", "Section: devel", "Priority: optional",
               "Description: stand-in for " + name]
    if depends:
        control.insert(3, "Depends: " + depends)
    with open(os.path.join(d, "DEBIAN", "control"), "w") as f:
        f.write("\n".join(control) + "\n")
    conffiles = sorted(p for p, c in files.items() if p.startswith("/etc/") and not isinstance(c, tuple))
    if conffiles:
        with open(os.path.join(d, "DEBIAN", "conffiles"), "w") as f:
            f.write("".join(p + "\n" for p in conffiles))
    for script, table in (("postinst", POSTINST), ("preinst", PREINST)):
        if name in table:
            with open(os.path.join(d, "DEBIAN", script), "w") as f:
                f.write(table[name])
            os.chmod(os.path.join(d, "DEBIAN", script), 0o755)
    os.makedirs(out_dir, exist_ok=True)
    run(["dpkg-deb", "--root-owner-group", "-Zgzip", "--build", d,
         os.path.join(out_dir, "%s_%s_amd64.deb" % (name, version.split(":")[-1]))])


def index(repo, suite, origin, gnupghome=None):
    """dists/SUITE/main/binary-amd64/Packages and a Release (signed when a key is given)."""
    bin_dir = os.path.join(repo, "dists", suite, "main", "binary-amd64")
    os.makedirs(bin_dir, exist_ok=True)
    packages = run(["apt-ftparchive", "packages", "pool"], cwd=repo)
    with open(os.path.join(bin_dir, "Packages"), "w") as f:
        f.write(packages)
    release = run(["apt-ftparchive", "-o", "APT::FTPArchive::Release::Origin=" + origin,
                   "-o", "APT::FTPArchive::Release::Suite=" + suite,
                   "-o", "APT::FTPArchive::Release::Codename=" + suite,
                   "-o", "APT::FTPArchive::Release::Architectures=amd64",
                   "-o", "APT::FTPArchive::Release::Components=main",
                   "release", os.path.join("dists", suite)], cwd=repo)
    rel = os.path.join(repo, "dists", suite, "Release")
    with open(rel, "w") as f:
        f.write(release)
    if gnupghome:
        env = dict(os.environ, GNUPGHOME=gnupghome)
        run(["gpg", "--batch", "--yes", "--clearsign", "-o", os.path.join(repo, "dists", suite, "InRelease"), rel],
            env=env)


class Mirror:
    """AMD's layout under one base URL, and a distribution repository."""

    def __init__(self, top):
        self.top = top
        self.www = os.path.join(top, "www")
        self.gnupghome = os.path.join(top, "gnupg")
        os.makedirs(self.gnupghome, mode=0o700)
        env = dict(os.environ, GNUPGHOME=self.gnupghome)
        run(["gpg", "--batch", "--passphrase", "", "--quick-gen-key", "Stand-in ROCm <rocm@example.org>",
             "rsa2048", "sign", "never"], env=env)
        out = run(["gpg", "--batch", "--with-colons", "--list-keys"], env=env)
        self.fingerprint = [l.split(":")[9] for l in out.splitlines() if l.startswith("fpr:")][0]
        self.key_file = os.path.join(top, "rocm.gpg.key")
        with open(self.key_file, "w") as f:
            f.write(run(["gpg", "--batch", "--armor", "--export"], env=env))
        work = os.path.join(top, "work")
        rocm = os.path.join(self.www, "radeon", "rocm", "apt", RELEASE)
        for name, (v, dep, files) in AMD_ROCM.items():
            build_deb(work, os.path.join(rocm, "pool"), name, v, dep, files)
        index(rocm, "noble", "repo.radeon.com", self.gnupghome)
        drv = os.path.join(self.www, "radeon", "amdgpu", RELEASE, "ubuntu")
        for name, (v, dep, files) in AMD_DRIVER.items():
            build_deb(work, os.path.join(drv, "pool"), name, v, dep, files)
        index(drv, "noble", "repo.radeon.com", self.gnupghome)
        for release, (rocm_dir, drv_dir, gfx_dir, build, dkms) in REAL_LAYOUT.items():
            w = os.path.join(work, release)
            repo = os.path.join(self.www, "radeon", rocm_dir)
            for name, (v, dep, files) in rocm_standins(release, build).items():
                build_deb(w, os.path.join(repo, "pool"), name, v, dep, files)
            index(repo, "noble", "repo.radeon.com", self.gnupghome)
            repo = os.path.join(self.www, "radeon", drv_dir)
            build_deb(w, os.path.join(repo, "pool"), "amdgpu-dkms", dkms, "",
                      {"/usr/src/amdgpu-%s/dkms.conf" % dkms.split(":")[1].split("-")[0]: "PACKAGE_NAME=amdgpu\n"})
            index(repo, "noble", "repo.radeon.com", self.gnupghome)
            if gfx_dir:
                repo = os.path.join(self.www, "radeon", gfx_dir)
                build_deb(w, os.path.join(repo, "pool"), "libdrm-amdgpu-common", "1.0.0." + build, "",
                          {"/opt/amdgpu/share/libdrm/amdgpu.ids": "# stand-in\n"})
                index(repo, "noble", "repo.radeon.com", self.gnupghome)
        distro = os.path.join(self.www, "distro")
        for name, (v, dep, files) in DISTRO.items():
            build_deb(work, os.path.join(distro, "pool"), name, v, dep, files)
        # signed too, for the hosts whose sources name a keyring (Signed-By)
        index(distro, "noble", "Ubuntu", self.gnupghome)
        self.server = None

    def serve(self):
        handler = functools.partial(_QuietHandler, directory=self.www)
        self.server = socketserver.ThreadingTCPServer(("127.0.0.1", 0), handler)
        self.server.daemon_threads = True
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        self.base = "http://127.0.0.1:%d" % self.server.server_address[1]
        return self.base

    def stop(self):
        if self.server:
            self.server.shutdown()
            self.server.server_close()


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


def closed_port():
    """A local port nothing listens on (bound, then released)."""
    import socket
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


# ---- rpm: AMD's names and versions for EL9 and SLES 15 ----

RPM_RELEASE = "6.4.1"
# name: (version, release, requires, files)
RPM_ROCM = {
    "rocm-core": ("6.4.1.60401", "83.el9", "", {"/opt/rocm-6.4.1/.info/version": "6.4.1-83\n"}),
    "hsa-rocr": ("1.15.0.60401", "83.el9", "rocm-core", {"/opt/rocm-6.4.1/lib/libhsa-runtime64.so.1": "stand-in\n"}),
    "rocminfo": ("1.0.0.60401", "83.el9", "hsa-rocr", {"/opt/rocm-6.4.1/bin/rocminfo": "stand-in\n"}),
    "hip-runtime-amd": ("6.4.43483.60401", "83.el9", "hsa-rocr",
                        {"/opt/rocm-6.4.1/lib/libamdhip64.so.6": "stand-in\n"}),
    "rocm-hip-runtime": ("6.4.1.60401", "83.el9", "rocminfo hip-runtime-amd rocm-core", {}),
    "rocm-opencl-runtime": ("6.4.1.60401", "83.el9", "rocm-core", {}),
    "rocm": ("6.4.1.60401", "83.el9", "rocm-hip-runtime rocm-opencl-runtime", {}),
}
RPM_DRIVER = {
    "amdgpu-dkms": ("6.12.12", "2164967.el9", "", {"/usr/src/amdgpu-6.12.12/dkms.conf": "PACKAGE_NAME=amdgpu\n"}),
}


# amdgpu-dkms's %preun removes the module with DKMS; a test makes it fail
# (in Lua: the roots have no shell)
RPM_SCRIPTS = {
    "amdgpu-dkms": ["%preun -p <lua>", 'if posix.access("/tmp/rd-dkms-fails") then',
                    '  error("Error! dkms remove failed (stand-in)")', "end"],
}


EL9_KERNEL = "5.14.0-570.12.1.el9_6.x86_64"
# a root's base: the directories every installed system has
FILESYSTEM_DIRS = ["/opt", "/usr", "/usr/src", "/usr/include", "/usr/include/linux", "/var", "/var/cache"]
RPM_EL9_DISTRO = {
    "filesystem": ("3.16", "5.el9", "", {"/etc/stand-in-filesystem": "base\n"}),
    "kernel-devel": ("5.14.0", "570.12.1.el9_6", "", {"/usr/src/kernels/%s/Makefile" % EL9_KERNEL: "# stand-in\n"}),
    "kernel-headers": ("5.14.0", "570.12.1.el9_6", "", {"/usr/include/linux/stand-in.h": "/* stand-in */\n"}),
}
SLES_KERNEL = "6.4.0-150600.23.25-default"
RPM_SLES_DISTRO = {
    "filesystem": ("15.0", "150600.1.1", "", {"/etc/stand-in-filesystem": "base\n"}),
    "kernel-default-devel": ("6.4.0", "150600.23.25.1", "", {"/usr/src/linux-6.4.0-150600.23.25-obj/Makefile":
                                                             "# stand-in\n"}),
}


def build_rpm(work, out_dir, gnupghome, name, version, release, requires, files, arch="noarch"):
    top = os.path.join(work, "rpm-" + name)
    shutil.rmtree(top, ignore_errors=True)
    os.makedirs(top)
    spec = ["Name: " + name, "Version: " + version, "Release: " + release, "Summary: stand-in for " + name,
            "License: MIT", "AutoReqProv: no"]
    if arch == "noarch":
        spec.append("BuildArch: noarch")
    for r in requires.split():
        spec.append("Requires: " + r)
    spec += ["%description", "stand-in", "%install"]
    for path, content in files.items():
        spec.append("mkdir -p %%{buildroot}%s" % os.path.dirname(path))
        spec.append("printf '%%s' '%s' > %%{buildroot}%s" % (content.replace("\n", ""), path))
    # the package owns the directories it creates, as AMD's do
    dirs = set(FILESYSTEM_DIRS if name == "filesystem" else [])
    for path in files:
        d = os.path.dirname(path)
        while d not in ("/", "/opt", "/usr", "/usr/src", "/usr/include", "/usr/include/linux"):
            dirs.add(d)
            d = os.path.dirname(d)
    spec += RPM_SCRIPTS.get(name, [])
    spec += ["%files"] + ["%%dir %s" % d for d in sorted(dirs)] + list(files)
    if name == "filesystem":
        spec[spec.index("%install") + 1:spec.index("%install") + 1] = [
            "mkdir -p %%{buildroot}%s" % d for d in FILESYSTEM_DIRS]
    with open(os.path.join(top, name + ".spec"), "w") as f:
        f.write("\n".join(spec) + "\n")
    run(["rpmbuild", "--define", "_topdir " + top, "--define", "debug_package %{nil}", "--target", arch, "-bb",
         os.path.join(top, name + ".spec")])
    rpm = os.path.join(top, "RPMS", arch, "%s-%s-%s.%s.rpm" % (name, version, release, arch))
    run(["rpmsign", "--define", "__gpg /usr/bin/gpg", "--define", "_gpg_name Stand-in ROCm",
         "--define", "_gpg_path " + gnupghome,
         "--define", "_gpg_sign_cmd_extra_args --pinentry-mode loopback --passphrase ''", "--addsign", rpm],
        env=dict(os.environ, GNUPGHOME=gnupghome))
    os.makedirs(out_dir, exist_ok=True)
    shutil.copy(rpm, out_dir)


def rpm_repo(repo, gnupghome):
    run(["createrepo_c", "-q", repo])
    env = dict(os.environ, GNUPGHOME=gnupghome)
    md = os.path.join(repo, "repodata", "repomd.xml")
    run(["gpg", "--batch", "--yes", "--armor", "--detach-sign", "-o", md + ".asc", md], env=env)
    with open(md + ".key", "w") as f:
        f.write(run(["gpg", "--batch", "--armor", "--export"], env=env))


def add_rpm_trees(m):
    """AMD's EL9 and SLES 15.6 trees under the mirror m (a Mirror)."""
    work = os.path.join(m.top, "rpmwork")
    trees = {
        os.path.join("rocm", "el9", RPM_RELEASE, "main"): RPM_ROCM,
        # 6.4.1's RHEL trees are 9.6 9.5 9.4 8.10 (9.6 added after the release:
        # ROCm/rocm-install-on-linux#475, cherry-picked to docs/6.4.1; log
        # ROCm/ROCm#4899 of amdgpu-install/6.4.1/rhel/9.6): an EL 9.6 host
        # gets its own tree
        os.path.join("amdgpu", RPM_RELEASE, "el", "9.6", "main", "x86_64"): RPM_DRIVER,
        os.path.join("rocm", "zyp", RPM_RELEASE, "main"): RPM_ROCM,
        os.path.join("amdgpu", RPM_RELEASE, "sle", "15.6", "main", "x86_64"): RPM_DRIVER,
    }
    for sub, pkgs in trees.items():
        repo = os.path.join(m.www, "radeon", sub)
        for name, (v, rel, req, files) in pkgs.items():
            build_rpm(work, repo, m.gnupghome, name, v, rel, req, files)
        rpm_repo(repo, m.gnupghome)
    for sub, pkgs, arch in (("el9-distro", RPM_EL9_DISTRO, "x86_64"), ("sles-distro", RPM_SLES_DISTRO, "noarch")):
        repo = os.path.join(m.www, sub)
        for name, (v, rel, req, files) in pkgs.items():
            build_rpm(work, repo, m.gnupghome, name, v, rel, req, files, arch)
        rpm_repo(repo, m.gnupghome)
