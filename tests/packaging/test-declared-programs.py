#!/usr/bin/env python3
"""Every program the code runs is a declared dependency of the packages.

    test-declared-programs.py SOURCE_ROOT

Lists the programs src/, probes/ and fixes/ spawn (the first, literal word
of an argument vector: rd_strv_new("PROG", ...), char *argv[] = {
(char *)"PROG", ...}, the probes' execlp of a #define'd name) and checks each
against PROGRAMS below: a Debian package named in the rocm-doctor package's
Depends (or Recommends or Suggests, where marked) in debian/control and a Requires of
the rocm-doctor package in rocm-doctor.spec, or an exemption with its
reason for that family. A program the code runs that PROGRAMS does not name
fails, so a new one needs a decision. Where the program is installed on this
machine, `dpkg -S` must name the declared Debian package as its owner.
"""
import os
import re
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import rdtest  # noqa: E402

ROOT = os.path.abspath(sys.argv[1])

PM = "the host's own package manager: run only for the package family the host (or --root) has"
COREUTILS_DEB = "coreutils is Essential: yes (Debian policy: no dependency on Essential packages)"
COREUTILS_RPM = "coreutils is in every installation (rpm and systemd require it)"
USER_PYTHON = "runs the Python of the environment under diagnosis, never one the package provides"
FLEET_REMOTE = "fleet runs it on the nodes it checks, each of which has its own installation"
FLEET_SHELL = "fleet --hosts uses whichever parallel shell the head node has (clush, pdsh), else ssh"
FLEET_SLURM = "fleet --slurm runs on a Slurm head or login node, which has Slurm's commands"
RPM2ARCHIVE = "part of rpm (4.13 and later), which every rpm host has; rpm2cpio and cpio are the fallback"
DKMS = "run only after installing AMD's amdgpu-dkms, which depends on dkms"
DEB_ONLY = ("run by the fixes that write Debian's /etc/default/grub.d and initramfs-tools' "
            "configuration; neither exists on RHEL or SLES")

# Recommends are what a diagnosis host needs; Suggests what only some fixes
# run, on hosts that already have it: update-grub on a host that boots with
# GRUB (grub-pc and grub-efi depend on grub2-common), update-initramfs on one
# whose initramfs initramfs-tools builds. A container image or a host that
# boots otherwise does not get them pulled in.
SUGGESTS_ONLY = {"grub2-common", "initramfs-tools", "os-prober"}

# program: (Debian: ("depends"|"recommends"|"suggests", package) or ("exempt", reason),
#           RPM: ("requires", capability) or ("exempt", reason))
PROGRAMS = {
    "gpg": (("depends", "gpg"), ("requires", "gnupg2")),
    "curl": (("depends", "curl"), ("requires", "curl")),
    "usermod": (("depends", "passwd"), ("requires", "/usr/sbin/usermod")),
    "gpasswd": (("depends", "passwd"), ("requires", "/usr/bin/gpasswd")),
    "udevadm": (("recommends", "udev"), ("requires", "/usr/bin/udevadm")),
    "update-grub": (("suggests", "grub2-common"), ("exempt", DEB_ONLY)),
    "update-initramfs": (("suggests", "initramfs-tools"), ("exempt", DEB_ONLY)),
    "dkms": (("exempt", DKMS), ("exempt", DKMS)),
    "apt-get": (("exempt", PM), ("exempt", PM)),
    "dpkg": (("exempt", PM), ("exempt", PM)),
    "dpkg-query": (("exempt", PM), ("exempt", PM)),
    "apt-cache": (("exempt", PM), ("exempt", PM)),
    "dnf": (("exempt", PM), ("exempt", PM)),
    "zypper": (("exempt", PM), ("exempt", PM)),
    "rpm": (("exempt", PM), ("exempt", PM)),
    "chroot": (("exempt", COREUTILS_DEB), ("exempt", COREUTILS_RPM)),
    "env": (("exempt", COREUTILS_DEB), ("exempt", COREUTILS_RPM)),
    "python3": (("exempt", USER_PYTHON), ("exempt", USER_PYTHON)),
    "rocm-doctor": (("exempt", FLEET_REMOTE), ("exempt", FLEET_REMOTE)),
    "pdsh": (("suggests", "pdsh"), ("exempt", FLEET_SHELL)),
    "clush": (("suggests", "clustershell"), ("exempt", FLEET_SHELL)),
    "scancel": (("exempt", FLEET_SLURM), ("exempt", FLEET_SLURM)),
    "sinfo": (("exempt", FLEET_SLURM), ("exempt", FLEET_SLURM)),
    "srun": (("exempt", FLEET_SLURM), ("exempt", FLEET_SLURM)),
    "ssh": (("suggests", "openssh-client"), ("exempt", FLEET_SHELL)),
    "tar": (("exempt", "tar is Essential: yes (Debian policy: no dependency on Essential packages)"),
            ("requires", "tar")),
    "rpm2archive": (("exempt", "run only on rpm hosts (a release's installer .rpm), where rpm provides it"),
                    ("exempt", RPM2ARCHIVE)),
}


def spawned_programs():
    """(program, file:line) of every literal argv[0] in the C sources."""
    found = []
    pats = [
        re.compile(r'rd_strv_new\(\s*"([^"]+)"'),
        re.compile(r'\bargv\[\]\s*=\s*\{\s*\(char \*\)\(?(?:\w+ \? \w+ : )?"([^"]+)"'),
        re.compile(r'#define\s+PYTHON\s+"([^"]+)"'),
        # an argument vector filled one by one: its first element
        re.compile(r'char \*argv\[\d+\];\s*size_t n = 0;\s*argv\[n\+\+\] = \(char \*\)"([^"]+)"'),
    ]
    for top in ("src", "probes", "fixes"):
        for d, _, names in os.walk(os.path.join(ROOT, top)):
            for n in sorted(names):
                if not n.endswith(".c"):
                    continue
                path = os.path.join(d, n)
                text = open(path, encoding="utf-8").read()
                for pat in pats:
                    for m in pat.finditer(text):
                        line = text.count("\n", 0, m.start()) + 1
                        found.append((m.group(1), "%s:%d" % (os.path.relpath(path, ROOT), line)))
                # what chroot and env run: the first literal after them that
                # is neither an assignment nor an option
                for m in WRAPPED.finditer(text):
                    line = text.count("\n", 0, m.start()) + 1
                    for lit in re.findall(r'"([^"]*)"', m.group(2)):
                        if "=" not in lit and not lit.startswith("-"):
                            found.append((lit, "%s:%d" % (os.path.relpath(path, ROOT), line)))
                            break
    return found


WRAPPED = re.compile(r'rd_strv_new\(\s*"(chroot|env)"([^;]*?)NULL\)', re.S)


def deb_fields(package):
    """Depends, Recommends and Suggests of one binary package of debian/control, as package-name sets."""
    text = open(os.path.join(ROOT, "debian", "control"), encoding="utf-8").read()
    for para in text.split("\n\n"):
        if re.search(r"^Package:\s*%s\s*$" % re.escape(package), para, re.M):
            out = {}
            for field in ("Depends", "Recommends", "Suggests"):
                m = re.search(r"^%s:(.*(?:\n[ \t].*)*)" % field, para, re.M)
                names = set()
                for alt in (m.group(1).replace("\n", " ").split(",") if m else []):
                    for a in alt.split("|"):
                        a = a.strip().split()[0] if a.strip() else ""
                        if a and not a.startswith("${"):
                            names.add(a)
                out[field.lower()] = names
            return out
    return None


def spec_requires():
    """Requires: of the spec's main package (before the first %package or %description)."""
    text = open(os.path.join(ROOT, "rocm-doctor.spec"), encoding="utf-8").read()
    main = re.split(r"^%(?:package|description)\b", text, maxsplit=1, flags=re.M)[0]
    return {m.group(1).split()[0] for m in re.finditer(r"^Requires:\s*(\S.*)$", main, re.M)}


found = spawned_programs()
programs = sorted({p for p, _ in found})


@rdtest.test
def every_program_run_has_a_decision():
    rdtest.check("gpg" in programs and "apt-get" in programs and "curl" in programs,
                 "the sources spawn programs (gpg and apt-get among them)",
                 repr(found))
    for prog in programs:
        where = ", ".join(w for p, w in found if p == prog)
        rdtest.check(prog in PROGRAMS,
                     "%s (%s) has a decision for Debian and RPM" % (prog, where),
                     "add it to PROGRAMS in %s with the package or an exemption and its reason" % __file__)
    for prog in sorted(set(PROGRAMS) - set(programs)):
        rdtest.check(False, "%s, in PROGRAMS, is still run by the code" % prog, "remove it from PROGRAMS")


@rdtest.test
def every_program_is_declared_by_both_packages():
    deb = deb_fields("rocm-doctor")
    rdtest.check(deb is not None, "debian/control has the rocm-doctor package")
    rpm = spec_requires()
    rdtest.check(bool(rpm), "the spec's main package has Requires")
    deb = deb or {"depends": set(), "recommends": set(), "suggests": set()}
    for prog in programs:
        if prog not in PROGRAMS:
            continue
        (dkind, dval), (rkind, rval) = PROGRAMS[prog]
        if dkind == "exempt":
            rdtest.check(len(dval) > 20, "%s: exempt on Debian with a reason" % prog)
        else:
            rdtest.check(dval in deb[dkind],
                         "%s: debian/control's rocm-doctor %s %s" % (prog, dkind.capitalize(), dval),
                         "Depends: %s; Recommends: %s; Suggests: %s" % (sorted(deb["depends"]), sorted(deb["recommends"]),
                                                                        sorted(deb["suggests"])))
            path = shutil.which(prog, path="/usr/sbin:/usr/bin:/sbin:/bin")
            if path:
                real = os.path.realpath(path)
                owners = set()
                for cand in {path, real, real.replace("/usr/", "/", 1)}:
                    p = subprocess.run(["dpkg", "-S", cand], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
                    owners |= {o.strip().split(":")[0] for line in p.stdout.splitlines() for o in line.split(":", 1)[0].split(",")}
                rdtest.check(dval in owners, "%s: %s here belongs to the package %s" % (prog, path, dval), repr(owners))
            else:
                print("note: %s is not installed here; its Debian package is not cross-checked" % prog)
        if rkind == "exempt":
            rdtest.check(len(rval) > 20, "%s: exempt on RPM with a reason" % prog)
        else:
            rdtest.check(rval in rpm, "%s: the spec's rocm-doctor Requires %s" % (prog, rval), repr(sorted(rpm)))


@rdtest.test
def boot_tools_are_only_suggested():
    deb = deb_fields("rocm-doctor") or {"depends": set(), "recommends": set(), "suggests": set()}
    for pkg in sorted(SUGGESTS_ONLY):
        rdtest.check(pkg not in deb["depends"] | deb["recommends"],
                     "%s is neither a Depends nor a Recommends of rocm-doctor" % pkg,
                     "Depends: %s; Recommends: %s" % (sorted(deb["depends"]), sorted(deb["recommends"])))
    rdtest.check(deb["recommends"] == {"udev"}, "rocm-doctor Recommends only udev", repr(sorted(deb["recommends"])))


@rdtest.test
def build_depends_name_systemd_pc_on_every_release():
    text = open(os.path.join(ROOT, "debian", "control"), encoding="utf-8").read()
    m = re.search(r"^Build-Depends:(.*(?:\n[ \t].*)*)", text, re.M)
    deps = [d.strip() for d in (m.group(1) if m else "").replace("\n", " ").split(",")]
    # systemd.pc is in systemd-dev from systemd 253-2 (Debian 13, Ubuntu
    # 24.04), in systemd before (Debian 12).
    rdtest.check("systemd-dev | systemd (<< 253-2~)" in deps,
                 "Build-Depends has systemd-dev | systemd (<< 253-2~)", repr(deps))
    for path in ("rocm-doctor.install", "rocm-doctord.install"):
        lines = open(os.path.join(ROOT, "debian", path), encoding="utf-8").read().split()
        rdtest.check(not any("systemd/system/" in l for l in lines),
                     "debian/%s names no unit directory (debian/rules takes it from systemd.pc)" % path, repr(lines))


sys.exit(rdtest.main())
