#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""setup of a release newer than the tables, end to end: the stand-in of
AMD's server (amdserver.py) on the setup tests' local mirror serves the
installer package of ROCm 7.3.0 under amdgpu-install/ and the repositories
its conffiles name (rocm/apt/7.3, graphics/7.3/ubuntu, amdgpu/30.40/ubuntu,
suite jammy) signed with the test key; `setup --release 7.3.0` on an
Ubuntu 22.04 root plans exactly those folders with the versions apt
resolves from them, and --apply installs them with the real apt and dpkg.
An installer that names folders another key signs is not planned; a
release the server lacks and an unreachable server are refused, nothing
written.

Usage: test-setup-newer.py ROCM_DOCTOR SOURCE_DIR CACHE_DIR"""
import json
import os
import re
import sys

from setuplib import (Host, RpmHost, expect, facts, mirror, need_root, package_lines, rdtest, rpm_mirror, same_tree,
                      standin, temp_dir)

STATE = {}
VERSION = "7.3.0." + "70300-1"
JAMMY = ('NAME="Ubuntu"\nVERSION_ID="22.04"\nID=ubuntu\nID_LIKE=debian\nVERSION_CODENAME=jammy\n'
         'PRETTY_NAME="Ubuntu 22.04.5 LTS"\n')
BOOKWORM = ('PRETTY_NAME="Debian GNU/Linux 12 (bookworm)"\nNAME="Debian GNU/Linux"\nVERSION_ID="12"\n'
            'VERSION_CODENAME=bookworm\nID=debian\n')


def server():
    """The mirror with 7.3.0 under radeon/ (signed with the pinned test
    key) and under radeon-other/ (the same installer; its repositories
    signed with another key)."""
    need_root()
    if "m" not in STATE:
        import amdserver
        m = mirror()
        work = temp_dir("rd-setup-newer.")
        STATE["marker"] = os.path.join(work, "script-ran")
        amdserver.add_release(os.path.join(m.www, "radeon"), m.gnupghome, os.path.join(work, "good"),
                              STATE["marker"])
        other = os.path.join(work, "other-gnupg")
        STATE["other_fpr"] = amdserver.new_key(other, "Someone Else <else@example.org>")
        amdserver.add_release(os.path.join(m.www, "radeon-other"), other, os.path.join(work, "other"),
                              STATE["marker"])
        STATE["m"] = m
    return STATE["m"]


def server_el():
    """The mirror with 7.3.0's EL installer and EL 9 repositories too."""
    m = server()
    if "el" not in STATE:
        import amdserver
        rpm_mirror()
        amdserver.add_release_el(os.path.join(m.www, "radeon"), m.gnupghome, temp_dir("rd-setup-newer-el."),
                                 STATE["marker"])
        STATE["el"] = True
    return m


def host(os_release=JAMMY, mirror_base=None):
    m = server()
    h = Host(mirror_base=mirror_base or m.base + "/radeon", conf_extra="apt_driver = yes\napt_graphics = yes\n")
    h.r.write("/etc/os-release", os_release)
    fa = facts()
    fa["os"] = dict((l.split("=", 1)[0].lower(), l.split("=", 1)[1].strip('"'))
                    for l in os_release.splitlines() if l.split("=")[0] in ("ID", "VERSION_ID", "VERSION_CODENAME"))
    fa["os"]["kernel_release"] = standin.KERNEL
    h.write_facts(fa)
    return h


def installer_plan(h, m, why, *args):
    """A plan (setup --release 7.3.0, compared with its expected text; or
    the command of args) with steps to carry out and exactly the jammy
    installer's folders on the mirror as its sources; its text, the root as
    ROOT."""
    p = h.rd(*(args or ("setup", "--release", "7.3.0")))
    if not args:
        expect(h, "plan", p.stdout)
    out = p.stdout.replace(h.path, "ROOT")
    rdtest.eq(p.returncode, 1, "plan: steps to carry out (stderr %s)\n%s" % (p.stderr, out))
    base = m.base + "/radeon/"
    rdtest.eq(uris(out), [base + "amdgpu/30.40/ubuntu", base + "graphics/7.3/ubuntu", base + "rocm/apt/7.3"],
              "%s: %s" % (why, out))
    return out


def uris(out):
    """The URIs of the sources a plan writes."""
    return sorted(re.findall(r"^\+URIs: (\S+)$", out, re.M))


def file_uris(text):
    return sorted(re.findall(r"^URIs: (\S+)$", text, re.M))


@rdtest.test(root=True)
def release_from_the_installer_plan_apply_undo():
    m = server()
    h = host()
    pkgs_before, tree_before = h.packages(), h.tree()
    out = installer_plan(h, m, "exactly the installer's folders, on the mirror")
    base = m.base + "/radeon/"
    rdtest.check(base + "amdgpu-install/7.3/ubuntu/jammy/amdgpu-install_7.3.70300-1_all.deb" in out,
                 "the plan names the installer the folders came from: " + out)
    rdtest.check("Not planned" not in out, "every step planned: " + out)
    pk = dict((n, v) for _, n, v in package_lines(out))
    rdtest.eq(pk.get("rocm-core"), VERSION, "rocm-core from rocm/apt/7.3: %s" % out)
    rdtest.eq(pk.get("rocm"), VERSION, "rocm from rocm/apt/7.3: %s" % out)
    h.planned_nothing(pkgs_before, tree_before)
    rdtest.check(not os.path.exists(STATE["marker"]), "no maintainer script of the installer ran")

    p = h.rd("setup", "--release", "7.3.0", "--apply", "--yes")
    expect(h, "apply", p.stdout)
    rdtest.eq(p.returncode, 0, "apply (stdout %s, stderr %s)" % (p.stdout, p.stderr))
    rdtest.check(any(l.startswith("rocm-core %s ii" % VERSION) for l in h.packages()), h.packages())
    rdtest.check(any(l.startswith("rocm %s ii" % VERSION) for l in h.packages()), h.packages())
    rdtest.eq(file_uris(h.r.read("/etc/apt/sources.list.d/rocm.sources")),
              [base + "amdgpu/30.40/ubuntu", base + "graphics/7.3/ubuntu", base + "rocm/apt/7.3"],
              "rocm.sources: exactly the installer's folders")
    q = h.chroot("apt-get", "update")
    rdtest.eq(q.returncode, 0, "apt-get update in the set-up root reads every source: " + q.stdout)
    p = h.rd("setup", "--release", "7.3.0")
    rdtest.eq((p.returncode, p.stdout), (0, "Nothing to do in this root.\n"), "a second setup plans nothing")
    h.undo_restores(pkgs_before, tree_before)


@rdtest.test(root=True)
def release_from_the_installer_debian_12():
    m = server()
    h = host(BOOKWORM)
    tree_before = h.tree()
    out = installer_plan(h, m, "Debian 12: the jammy installer's folders")
    rdtest.eq(dict((n, v) for _, n, v in package_lines(out)).get("rocm-core"), VERSION, out)
    same_tree(h.tree(), tree_before, "planning wrote nothing")


@rdtest.test(root=True)
def configured_release_fix_apt():
    """rocm_release = 7.3.0 in the configuration: fix --only apt plans the
    installer's folders; the check of the root names no release problem."""
    m = server()
    h = host()
    conf = h.r.read("/etc/rocm-doctor/rocm-doctor.conf").replace("[fix]\n", "[fix]\nrocm_release = 7.3.0\n")
    h.r.write("/etc/rocm-doctor/rocm-doctor.conf", conf)
    tree_before = h.tree()
    out = installer_plan(h, m, "the configured release's folders, from its installer", "fix", "--only", "apt")
    rdtest.check("2. apt: AMD's apt repository for ROCm 7.3.0 (from AMD's installer package)" in out or
                 "1. apt: AMD's apt repository for ROCm 7.3.0 (from AMD's installer package)" in out, out)
    same_tree(h.tree(), tree_before, "planning wrote nothing")
    p = h.rd("check", "--json")
    ids = sorted(f["id"] for f in json.loads(p.stdout)["findings"] if f["severity"] in ("warning", "error"))
    rdtest.check(not [i for i in ids if "release" in i or i.startswith("tables.")],
                 "no release finding for the configured newer release: %s" % ids)


@rdtest.test(root=True)
def installer_naming_folders_of_another_key_not_planned():
    m = server()
    h = host(mirror_base=m.base + "/radeon-other")
    pkgs_before, tree_before = h.packages(), h.tree()
    p = h.rd("setup", "--release", "7.3.0")
    # apt's own line names the missing key: apt 2 (Debian 12) "W: GPG
    # error: URL jammy InRelease: ... NO_PUBKEY KEYID", apt 3 (Debian 13,
    # sqv) "W: OpenPGP signature verification failed: URL jammy InRelease:
    # ... Missing key FINGERPRINT, ..."; the expected text has apt 2's
    other = STATE["other_fpr"]
    apt3 = re.compile(r"W: OpenPGP signature verification failed: (\S+ jammy InRelease): .*Missing key "
                      r"(?:%s|%s)\b.*$" % (other, other[-16:]), re.M)
    expect(h, "plan", apt3.sub(r"W: GPG error: \1: The following signatures couldn't be verified because the public "
                               r"key is not available: NO_PUBKEY OTHER-KEYID", p.stdout).replace(other[-16:], "OTHER-KEYID"))
    out = p.stdout.replace(h.path, "ROOT")
    rdtest.eq(p.returncode, 2, "the plan has steps it cannot carry out (stderr %s)\n%s" % (p.stderr, out))
    rdtest.eq(re.findall(r"^\+URIs: (\S+)$", out, re.M), [], "no folder of the installer is written: " + out)
    rdtest.eq([l for l in package_lines(out) if l[1].startswith("rocm")], [], "no ROCm package planned: " + out)
    installer = m.base + "/radeon-other/amdgpu-install/7.3/ubuntu/jammy/amdgpu-install_7.3.70300-1_all.deb"
    rdtest.check(re.search(r"^   apt: ROCm 7\.3\.0's folders, read from AMD's installer package %s, are not planned: apt "
                           r"cannot fetch their indexes signed by AMD's key \(fingerprint %s\): W: (GPG error|OpenPGP "
                           r"signature verification failed): %s/radeon-other/\S+ jammy InRelease: .*(NO_PUBKEY %s|"
                           r"Missing key (%s|%s)\b.*)$"
                           % (re.escape(installer), m.fingerprint, re.escape(m.base), other[-16:], other, other[-16:]),
                           out, re.M), "the plan says the folders are not signed by AMD's key: " + out)
    rdtest.eq(h.packages(), pkgs_before, "nothing installed")
    same_tree(h.tree(), tree_before, "nothing written")
    p = h.rd("setup", "--release", "7.3.0", "--apply", "--yes")
    rdtest.eq(p.returncode, 2, "apply carries out the rest and says what it did not: %s %s" % (p.stdout, p.stderr))
    rdtest.eq(h.packages(), pkgs_before, "apply installed nothing")
    after = h.tree()
    rdtest.eq(sorted(k for k in set(after) | set(tree_before) if after.get(k) != tree_before.get(k)),
              ["etc/group", "etc/group-", "etc/gshadow", "etc/gshadow-"], "apply wrote the groups alone, no apt file")


@rdtest.test(root=True)
def release_from_the_installer_el9_plan_apply_undo():
    m = server_el()
    h = RpmHost("dnf")
    pkgs_before, tree_before = h.packages(), h.tree()
    p = h.rd("setup", "--release", "7.3.0")
    expect(h, "plan", p.stdout)
    out = p.stdout.replace(h.path, "ROOT")
    rdtest.eq(p.returncode, 1, "plan: steps to carry out (stderr %s)\n%s" % (p.stderr, out))
    base = m.base + "/radeon/"
    rdtest.eq(sorted(re.findall(r"^\+baseurl=(\S+)$", out, re.M)),
              [base + "amdgpu/30.40/el/9.6/main/x86_64/", base + "graphics/7.3/el/9.6/main/x86_64/",
               base + "rocm/el9/7.3/main"], "exactly the EL installer's folders, on the mirror: " + out)
    rdtest.check(base + "amdgpu-install/7.3/el/9.6/amdgpu-install-7.3.70300-1.el9.noarch.rpm" in out,
                 "the plan names the installer the folders came from: " + out)
    rdtest.check("Not planned" not in out, "every step planned: " + out)
    pk = dict((n, v) for _, n, v in package_lines(out))
    rdtest.eq(pk.get("rocm-core"), "7.3.0.70300-1.el9", "rocm-core from rocm/el9/7.3/main: %s" % out)
    rdtest.eq(pk.get("amdgpu-dkms"), "6.18.4-2400000.el9", "the driver from amdgpu/30.40: %s" % out)
    h.planned_nothing(pkgs_before, tree_before)
    p = h.rd("setup", "--release", "7.3.0", "--apply", "--yes")
    expect(h, "apply", p.stdout)
    rdtest.eq(p.returncode, 0, "apply (stdout %s, stderr %s)" % (p.stdout, p.stderr))
    rdtest.check("rocm-core 7.3.0.70300-1.el9" in h.packages(), h.packages())
    rdtest.check(not os.path.exists(STATE["marker"]), "no scriptlet of the installer ran")
    h.undo_restores(pkgs_before, tree_before)


@rdtest.test(root=True)
def release_the_server_lacks_refused():
    m = server()
    h = host()
    tree_before = h.tree()
    for args in ((), ("--apply", "--yes")):
        p = h.rd("setup", "--release", "7.4.0", *args)
        rdtest.eq((p.returncode, p.stdout), (3, ""), "refused, exit 3 (stderr %s)" % p.stderr)
        rdtest.check(p.stderr.startswith("rocm-doctor: --release 7.4.0: ROCm 7.4.0 is not on %s/radeon: amdgpu-install/ "
                                         "has no folder for it (its releases: 7.3.0); the releases rocm-doctor's "
                                         "tables have for ubuntu 22.04: " % m.base) and "7.2 (7.2.4)" in p.stderr,
                     "the refusal names the release and the valid ones", p.stderr)
    same_tree(h.tree(), tree_before, "nothing written")


@rdtest.test(root=True)
def unreachable_server_refused():
    base = "http://127.0.0.1:%d" % standin.closed_port()
    h = host(mirror_base=base)
    tree_before = h.tree()
    for args in ((), ("--apply", "--yes")):
        p = h.rd("setup", "--release", "7.3.0", *args)
        rdtest.eq((p.returncode, p.stdout), (3, ""), "refused, exit 3 (stderr %s)" % p.stderr)
        rdtest.check(p.stderr.startswith("rocm-doctor: --release 7.3.0: cannot reach the repository server for the "
                                         "index of AMD's installers (%s/amdgpu-install/): curl: (7)" % base),
                     "the refusal says the server cannot be reached", p.stderr)
    same_tree(h.tree(), tree_before, "nothing written")


if __name__ == "__main__":
    sys.exit(rdtest.main())
