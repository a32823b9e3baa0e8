# SPDX-License-Identifier: MIT
"""A stand-in for AMD's server (repo.radeon.com) as far as its installers
go: amdgpu-install/ with Apache-style directory indexes, and installer
packages in AMD's formats and names for a release the tables lack, ROCm
7.3.0 with driver 30.40, built with the real tools (dpkg-deb, rpmbuild):

  amdgpu-install/7.3/ubuntu/jammy/amdgpu-install_7.3.70300-1_all.deb
  amdgpu-install/7.3/el/9.6/amdgpu-install-7.3.70300-1.el9.noarch.rpm
  amdgpu-install/7.3/sle/15.7/amdgpu-install-7.3.70300-1.noarch.rpm

Their repository files (conffiles) name 7.3's folders; their maintainer
scripts would leave a marker file if anything ran them. A second tree has
the same packages cut in half. This machine cannot reach AMD's server, so
the server is this one, on 127.0.0.1."""
import functools
import html
import http.server
import os
import shutil
import socketserver
import threading
import urllib.parse

import standin
from standin import run

RELEASE_FOLDER = "7.3"
DEB = "amdgpu-install_7.3.70300-1_all.deb"
RPM = "amdgpu-install-7.3.70300-1.el9.noarch.rpm"
SLES_RPM = "amdgpu-install-7.3.70300-1.noarch.rpm"
# the other releases the index lists: ones the tables know (7.2 is 7.2.0,
# as AMD names X.Y.0's folder), and AMD's moving folder
OTHER_FOLDERS = ["6.4.1", "7.2", "7.2.3", "latest"]

# AMD's installer writes the release's folders on repo.radeon.com
APT_SOURCES = {
    "/etc/apt/sources.list.d/amdgpu.list":
        "deb [arch=amd64,i386] https://repo.radeon.com/amdgpu/30.40/ubuntu jammy main\n"
        "#deb-src [arch=amd64,i386] https://repo.radeon.com/amdgpu/30.40/ubuntu jammy main\n",
    "/etc/apt/sources.list.d/rocm.list":
        "deb [arch=amd64] https://repo.radeon.com/rocm/apt/7.3 jammy main\n"
        "deb [arch=amd64] https://repo.radeon.com/graphics/7.3/ubuntu jammy main\n",
    # the closed graphics stack: not ROCm's, left out
    "/etc/apt/sources.list.d/amdgpu-proprietary.list":
        "deb [arch=amd64,i386] https://repo.radeon.com/amdgpu/30.40/ubuntu jammy proprietary\n",
}
# amdgpu.repo with AMD's $amdgpudistro (the OS tree, which the package's
# scriptlet would set as a dnf variable: tests/run/setup/standin.py)
EL_SOURCES = {
    "/etc/yum.repos.d/amdgpu.repo":
        "[amdgpu]\nname=amdgpu\nbaseurl=https://repo.radeon.com/amdgpu/30.40/el/$amdgpudistro/main/x86_64/\n"
        "enabled=1\npriority=50\ngpgcheck=1\ngpgkey=https://repo.radeon.com/rocm/rocm.gpg.key\n\n"
        "[amdgpu-src]\nname=amdgpu sources\nbaseurl=https://repo.radeon.com/amdgpu/30.40/el/9.6/main/SRPMS/\n"
        "enabled=0\n",
    "/etc/yum.repos.d/rocm.repo":
        "[rocm]\nname=ROCm 7.3\nbaseurl=https://repo.radeon.com/rocm/el9/7.3/main\nenabled=1\npriority=50\n"
        "gpgcheck=1\ngpgkey=https://repo.radeon.com/rocm/rocm.gpg.key\n\n"
        "[graphics]\nname=AMD graphics 7.3\nbaseurl=https://repo.radeon.com/graphics/7.3/el/9.6/main/x86_64/\n"
        "enabled=1\npriority=50\ngpgcheck=1\ngpgkey=https://repo.radeon.com/rocm/rocm.gpg.key\n",
}

SLES_SOURCES = {
    "/etc/zypp/repos.d/amdgpu.repo":
        "[amdgpu]\nname=amdgpu\nbaseurl=https://repo.radeon.com/amdgpu/30.40/sle/15.7/main/x86_64/\nenabled=1\n"
        "gpgcheck=1\ngpgkey=https://repo.radeon.com/rocm/rocm.gpg.key\n",
    "/etc/zypp/repos.d/rocm.repo":
        "[rocm]\nname=ROCm 7.3\nbaseurl=https://repo.radeon.com/rocm/zyp/7.3/main\nenabled=1\ngpgcheck=1\n"
        "gpgkey=https://repo.radeon.com/rocm/rocm.gpg.key\n\n"
        "[graphics]\nname=AMD graphics 7.3\nbaseurl=https://repo.radeon.com/graphics/7.3/sle/15.7/main/x86_64/\n"
        "enabled=1\ngpgcheck=1\ngpgkey=https://repo.radeon.com/rocm/rocm.gpg.key\n",
}


def build_installer_deb(work, out, marker):
    d = os.path.join(work, "deb")
    os.makedirs(os.path.join(d, "DEBIAN"))
    for path, text in APT_SOURCES.items():
        full = os.path.join(d, path.lstrip("/"))
        os.makedirs(os.path.dirname(full), exist_ok=True)
        with open(full, "w") as f:
            f.write(text)
    with open(os.path.join(d, "DEBIAN", "control"), "w") as f:
        f.write("Package: amdgpu-install\nVersion: 7.3.70300-1\nArchitecture: all\n"
                "Maintainer: Stand-in <standin@example.org>\nSection: admin\nPriority: optional\n"
                "Description: stand-in for AMD's installer\n")
    with open(os.path.join(d, "DEBIAN", "conffiles"), "w") as f:
        f.write("".join(p + "\n" for p in sorted(APT_SOURCES)))
    for script in ("preinst", "postinst"):
        p = os.path.join(d, "DEBIAN", script)
        with open(p, "w") as f:
            f.write("#!/bin/sh\ntouch %s\nexit 0\n" % marker)
        os.chmod(p, 0o755)
    os.makedirs(os.path.dirname(out), exist_ok=True)
    # xz, as dpkg-deb writes by default on Debian and AMD's packages are
    run(["dpkg-deb", "--root-owner-group", "-Zxz", "--build", d, out])


def build_installer_rpm(work, out, marker, sources, release):
    top = os.path.join(work, "rpm-" + release)
    os.makedirs(os.path.join(top, "SOURCES"))
    spec = ["Name: amdgpu-install", "Version: 7.3.70300", "Release: " + release,
            "Summary: stand-in for AMD's installer", "License: MIT", "BuildArch: noarch", "AutoReqProv: no"]
    for i, path in enumerate(sorted(sources)):
        with open(os.path.join(top, "SOURCES", os.path.basename(path)), "w") as f:
            f.write(sources[path])
        spec.append("Source%d: %s" % (i, os.path.basename(path)))
    spec += ["%description", "stand-in", "%install"]
    for i, path in enumerate(sorted(sources)):
        spec.append("install -D -m 0644 %%{SOURCE%d} %%{buildroot}%s" % (i, path))
    spec += ["%pre", "touch %s" % marker, "%post", "touch %s" % marker, "%files"]
    spec += ["%%config(noreplace) %s" % p for p in sorted(sources)]
    with open(os.path.join(top, "amdgpu-install.spec"), "w") as f:
        f.write("\n".join(spec) + "\n")
    run(["rpmbuild", "--define", "_topdir " + top, "--target", "noarch", "-bb",
         os.path.join(top, "amdgpu-install.spec")])
    os.makedirs(os.path.dirname(out), exist_ok=True)
    shutil.copy(os.path.join(top, "RPMS", "noarch", os.path.basename(out)), out)


# the 7.3 repositories themselves, as the installer's conffiles name them:
# stand-ins with AMD's names at 7.3.0's versions, suite jammy
REPO_BUILD = "70300-1"
APT_REPOS = {
    "rocm/apt/7.3": "rocm",
    "graphics/7.3/ubuntu": "graphics",
    "amdgpu/30.40/ubuntu": "driver",
}


def new_key(gnupghome, uid):
    """A signing key of its own in gnupghome; its fingerprint."""
    os.makedirs(gnupghome, mode=0o700)
    env = dict(os.environ, GNUPGHOME=gnupghome)
    run(["gpg", "--batch", "--passphrase", "", "--quick-gen-key", uid, "rsa2048", "sign", "never"], env=env)
    out = run(["gpg", "--batch", "--with-colons", "--list-keys"], env=env)
    return [l.split(":")[9] for l in out.splitlines() if l.startswith("fpr:")][0]


def add_release(www, gnupghome, work, marker):
    """Under www (a mirror's base): amdgpu-install/7.3/ubuntu/jammy/ with the
    installer .deb, and the apt repositories its conffiles name, signed with
    the key in gnupghome."""
    build_installer_deb(os.path.join(work, "installer"),
                        os.path.join(www, "amdgpu-install", RELEASE_FOLDER, "ubuntu", "jammy", DEB), marker)
    for folder, what in APT_REPOS.items():
        repo = os.path.join(www, folder)
        w = os.path.join(work, what)
        if what == "rocm":
            for name, (v, dep, files) in standin.rocm_standins("7.3.0", REPO_BUILD).items():
                standin.build_deb(w, os.path.join(repo, "pool"), name, v, dep, files)
        elif what == "graphics":
            standin.build_deb(w, os.path.join(repo, "pool"), "libdrm-amdgpu-common", "1.0.0." + REPO_BUILD, "",
                              {"/opt/amdgpu/share/libdrm/amdgpu.ids": "# stand-in\n"})
        else:
            standin.build_deb(w, os.path.join(repo, "pool"), "amdgpu-dkms", "1:6.18.4.30400000-2400000.22.04", "",
                              {"/usr/src/amdgpu-6.18.4.30400000/dkms.conf": "PACKAGE_NAME=amdgpu\n"})
        standin.index(repo, "jammy", "repo.radeon.com", gnupghome)


# EL 9's, as the EL installer's .repo files name them ($amdgpudistro: 9.6)
EL_REPOS = {
    "rocm/el9/7.3/main": "rocm",
    "graphics/7.3/el/9.6/main/x86_64": "graphics",
    "amdgpu/30.40/el/9.6/main/x86_64": "driver",
}
EL_RPMS = {
    "rocm": {n: (v.replace("6.4.1", "7.3.0").replace("60401", "70300").replace("6.4.", "7.3."), "1.el9", req,
                 {p.replace("6.4.1", "7.3.0").replace(".so.6", ".so.7"): c.replace("6.4.1-83", "7.3.0-1")
                  for p, c in files.items()})
             for n, (v, _, req, files) in standin.RPM_ROCM.items()},
    "graphics": {"libdrm-amdgpu-common": ("1.0.0.70300", "1.el9", "", {"/opt/amdgpu/share/libdrm/amdgpu.ids":
                                                                        "# stand-in"})},
    "driver": {"amdgpu-dkms": ("6.18.4", "2400000.el9", "", {"/usr/src/amdgpu-6.18.4/dkms.conf": "PACKAGE_NAME=amdgpu"})},
}


def add_release_el(www, gnupghome, work, marker):
    """Under www: amdgpu-install/7.3/el/9.6/ with the EL installer .rpm, and
    the EL 9 repositories it names, signed with the key in gnupghome."""
    build_installer_rpm(os.path.join(work, "installer-el"),
                        os.path.join(www, "amdgpu-install", RELEASE_FOLDER, "el", "9.6", RPM), marker, EL_SOURCES,
                        "1.el9")
    for folder, what in EL_REPOS.items():
        repo = os.path.join(www, folder)
        for name, (v, rel, req, files) in EL_RPMS[what].items():
            standin.build_rpm(os.path.join(work, "el-" + what), repo, gnupghome, name, v, rel, req, files)
        standin.rpm_repo(repo, gnupghome)


def _apache_index(path, url_path):
    """A directory index as Apache's mod_autoindex writes it."""
    rows = []
    for name in sorted(os.listdir(path)):
        is_dir = os.path.isdir(os.path.join(path, name))
        shown = name + ("/" if is_dir else "")
        size = "  - " if is_dir else "%dK" % max(1, os.path.getsize(os.path.join(path, name)) // 1024)
        rows.append('<tr><td valign="top"><img src="/icons/%s" alt="[%s]"></td><td><a href="%s">%s</a></td>'
                    '<td align="right">2026-11-20 14:03  </td><td align="right">%s</td><td>&nbsp;</td></tr>'
                    % ("folder.gif" if is_dir else "unknown.gif", "DIR" if is_dir else "   ",
                       urllib.parse.quote(shown), html.escape(shown), size))
    title = html.escape(url_path.rstrip("/") or "/")
    return ('<!DOCTYPE HTML PUBLIC "-//W3C//DTD HTML 3.2 Final//EN">\n<html>\n <head>\n  <title>Index of %s</title>\n'
            ' </head>\n <body>\n<h1>Index of %s</h1>\n  <table>\n'
            '   <tr><th valign="top"><img src="/icons/blank.gif" alt="[ICO]"></th><th><a href="?C=N;O=D">Name</a>'
            '</th><th><a href="?C=M;O=A">Last modified</a></th><th><a href="?C=S;O=A">Size</a></th>'
            '<th><a href="?C=D;O=A">Description</a></th></tr>\n   <tr><th colspan="5"><hr></th></tr>\n'
            '<tr><td valign="top"><img src="/icons/back.gif" alt="[PARENTDIR]"></td><td><a href="%s">'
            'Parent Directory</a></td><td>&nbsp;</td><td align="right">  - </td><td>&nbsp;</td></tr>\n%s\n'
            '   <tr><th colspan="5"><hr></th></tr>\n</table>\n<address>Apache Server at repo.radeon.com Port 443'
            '</address>\n</body></html>\n' % (title, title, os.path.dirname(url_path.rstrip("/")) + "/",
                                               "\n".join(rows)))


class _Handler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass

    def list_directory(self, path):
        body = _apache_index(path, urllib.parse.urlsplit(self.path).path).encode()
        self.send_response(200)
        self.send_header("Content-Type", "text/html;charset=UTF-8")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)
        return None


class AmdServer:
    """www: amdgpu-install/ as on AMD's server; broken: the same packages
    cut in half. serve() starts both; base and broken_base are their URLs."""

    def __init__(self, top, marker):
        self.top = top
        self.marker = marker
        self.www = os.path.join(top, "www")
        self.broken = os.path.join(top, "broken")
        work = os.path.join(top, "work")
        rel = os.path.join(self.www, "amdgpu-install", RELEASE_FOLDER)
        self.deb = os.path.join(rel, "ubuntu", "jammy", DEB)
        self.rpm = os.path.join(rel, "el", "9.6", RPM)
        build_installer_deb(work, self.deb, marker)
        build_installer_rpm(work, self.rpm, marker, EL_SOURCES, "1.el9")
        self.sles_rpm = os.path.join(rel, "sle", "15.7", SLES_RPM)
        build_installer_rpm(work, self.sles_rpm, marker, SLES_SOURCES, "1")
        for folder in OTHER_FOLDERS:
            os.makedirs(os.path.join(self.www, "amdgpu-install", folder, "ubuntu"))
        for pkg in (self.deb, self.rpm):
            cut = os.path.join(self.broken, os.path.relpath(pkg, self.www))
            os.makedirs(os.path.dirname(cut), exist_ok=True)
            with open(pkg, "rb") as f:
                data = f.read()
            with open(cut, "wb") as f:
                f.write(data[:len(data) // 2])
        self.servers = []

    def _serve(self, directory):
        handler = functools.partial(_Handler, directory=directory)
        server = socketserver.ThreadingTCPServer(("127.0.0.1", 0), handler)
        server.daemon_threads = True
        threading.Thread(target=server.serve_forever, daemon=True).start()
        self.servers.append(server)
        return "http://127.0.0.1:%d" % server.server_address[1]

    def serve(self):
        self.base = self._serve(self.www)
        self.broken_base = self._serve(self.broken)
        return self.base

    def stop(self):
        for s in self.servers:
            s.shutdown()
            s.server_close()
