#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""rocm-doctor setup on a real Debian root: a debootstrap'd minimal tree
(built once and cached), stand-in packages with AMD's names from local
repositories laid out as AMD's mirror, the real apt-get and dpkg installing
into the root (rocm-doctor runs them chrooted there), and undo putting back
exactly what was there. The GPU comes from a facts file (an RX 7900 XTX on
Ubuntu 24.04): no AMD GPU is needed.

Usage: test-setup.py ROCM_DOCTOR SOURCE_DIR CACHE_DIR"""
import fcntl
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time

from setuplib import (
    RD,
    Host,
    KERNEL,
    OLD_KERNEL,
    RpmHost,
    WANT_INSTALL,
    expect,
    ansible_play,
    facts,
    local_deb,
    mirror,
    mirror_recognised,
    package_lines,
    real_layout,
    rpm_key_name,
    rpm_mirror,
    rpm_roundtrip,
    rx9070xt_facts,
    same_tree,
    kill_and_wait_for_the_lock,
    rdtest,
    setup_killed_at,
    standin,
    task_output,
    temp_dir,
    unfinished_undo_then_fixed)


@rdtest.test(root=True)
def bare_host_plan_apply_again_undo():
    h = Host()
    pkgs_before, tree_before = h.packages(), h.tree()
    p = h.setup()
    expect(h, "plan", p.stdout)
    rdtest.eq(p.returncode, 1, "plan: steps to carry out (stderr %s)" % p.stderr)
    out = p.stdout.replace(h.path, "ROOT")
    rdtest.check("1. group: " in out and "add alice to group render" in out, out)
    rdtest.check("2. apt: AMD's apt repository for ROCm 6.4.1 (noble)" in out, out)
    rdtest.check("+URIs: %s/radeon/rocm/apt/6.4.1\n" % mirror().base in out, "the mirror's URL in the sources: " + out)
    rdtest.check("3. packages: ROCm packages (rocm, driver)" in out, out)
    rdtest.check("   packages, through apt (indexes refreshed first):\n" in out, out)
    rdtest.eq(sorted(package_lines(out)), WANT_INSTALL, "every package with its exact version, from apt's dry run")
    m = re.search(r"     7 to install, 0 to upgrade, 0 to downgrade, 0 to remove; download (\d+(\.\d+)? [kM]?B)\n", out)
    rdtest.check(m, "the download size: " + out)
    rdtest.check("driver: not installed, the running kernel %s's own amdgpu serves the GPUs here (gfx1100 needs kernel 6.2)"
                 % KERNEL in out, "the driver rule says why not: " + out)
    rdtest.check("To carry it out: sudo rocm-doctor setup --apply --root ROOT --facts" in out, out)
    rdtest.eq(h.packages(), pkgs_before, "planning installed nothing")
    same_tree(h.tree(), tree_before, "planning wrote nothing")

    p = h.setup("--apply", "--yes")
    expect(h, "apply", p.stdout)
    rdtest.eq(p.returncode, 0, "apply (stdout %s, stderr %s)" % (p.stdout, p.stderr))
    after = h.packages()
    for _, name, version in WANT_INSTALL:
        rdtest.check("%s %s ii " % (name, version) in [l + " " for l in after] or
                     any(l.startswith("%s %s ii" % (name, version)) for l in after), "%s %s installed: %s" % (name, version,
                                                                                                   after))
    src = h.r.read("/etc/apt/sources.list.d/rocm.sources")
    rdtest.check("URIs: %s/radeon/rocm/apt/6.4.1\nSuites: noble\n" % mirror().base in src, src)
    rdtest.check("alice" in [l for l in h.r.read("/etc/group").splitlines() if l.startswith("render:")][0], "group")
    ids = h.run_ids()
    rdtest.eq(len(ids), 1, "one run")
    j = h.journal(ids[0])
    rdtest.eq(j["state"], "applied", "journal state")
    got = sorted((x["name"], x["version"]) for x in j["packages"]["installed"])
    rdtest.eq(got, sorted((n, v) for _, n, v in WANT_INSTALL), "the journal: what the run installed, with versions")
    rdtest.eq(j["packages"]["removed"], [], "nothing removed")

    # the check takes the mirror for AMD's repository: no false alarm; the
    # same tree without the mirror in the configuration has one
    mirror_recognised(h, "apt.repo-missing", {"apt.suite-mismatch", "apt.key-missing", "rocm.not-installed"})

    # the check now sees ROCm (its facts come from the root's files)
    p = h.setup()
    rdtest.eq((p.returncode, p.stdout), (0, "Nothing to do in this root.\n"), "setup a second time plans nothing")

    p = h.undo_restores(pkgs_before, tree_before)
    expect(h, "undo", p.stdout)


@rdtest.test(root=True)
def shadowing_distribution_package_removed_and_put_back():
    h = Host()
    h.install("libhsa-runtime64-1")
    # the administrator's edit of its configuration file survives setup and undo
    conf = "/etc/stand-in/libhsa-runtime64-1.conf"
    h.r.write(conf, "# edited by the administrator\n")
    pkgs_before, tree_before = h.packages(), h.tree()
    rdtest.check("libhsa-runtime64-1 5.7.1-3 ii" in pkgs_before, pkgs_before)
    p = h.setup("--usecase", "runtime")
    expect(h, "plan", p.stdout)
    out = p.stdout
    rdtest.check(("remove", "libhsa-runtime64-1", "5.7.1-3") in package_lines(out), "the distribution's copy goes: " + out)
    rdtest.check("3. packages: ROCm packages (runtime), distribution ROCm packages out" in out, out)
    p = h.setup("--usecase", "runtime", "--apply", "--yes")
    expect(h, "apply", p.stdout)
    rdtest.eq(p.returncode, 0, "apply: %s %s" % (p.stdout, p.stderr))
    now = h.packages()
    rdtest.check("libhsa-runtime64-1 5.7.1-3 rc" in now, "removed, its configuration kept (not purged): %s" % now)
    rdtest.eq(h.r.read(conf), "# edited by the administrator\n", "the edited configuration file is kept")
    rdtest.check(any(l.startswith("rocm-hip-runtime 6.4.1.") for l in now), now)
    rdtest.check(not any(l.startswith("rocm ") for l in now), "runtime only: no rocm meta package: %s" % now)
    j = h.journal(h.run_ids()[0])
    rdtest.eq(j["packages"]["removed"], [{"name": "libhsa-runtime64-1", "version": "5.7.1-3"}], "journal: removed")
    p = h.rd("undo")
    expect(h, "undo", p.stdout)
    rdtest.eq(p.returncode, 0, "undo: %s %s" % (p.stdout, p.stderr))
    rdtest.eq(h.packages(), pkgs_before, "the distribution's package is back at its version")
    same_tree(h.tree(), tree_before, "tree after undo")


@rdtest.test(root=True)
def driver_when_the_kernel_is_too_old():
    h = Host(kernel=OLD_KERNEL)
    p = h.setup()
    expect(h, "plan", p.stdout)
    out = p.stdout
    got = package_lines(out)
    rdtest.check(("install", "amdgpu-dkms", "1:6.12.12.60401-2164967.24.04") in got, out)
    rdtest.check(("install", "linux-headers-" + OLD_KERNEL, "5.15.0-91.101") in got, "the running kernel's headers: " + out)
    rdtest.check("URIs: %s/radeon/amdgpu/6.4.1/ubuntu" % mirror().base in out, "the driver repository: " + out)
    rdtest.check("run on first boot: dkms autoinstall -k %s" % OLD_KERNEL in out, out)
    rdtest.check("Afterwards: AMD's amdgpu driver because the running kernel %s is older than 6.2, the first whose amdgpu "
                 "serves AMD Radeon RX 7900 XTX (gfx1100); reboot so that it is the one loaded" % OLD_KERNEL in out, out)
    j = json.loads(h.setup("--json").stdout)
    step = [s for s in j["steps"] if s["fix"] == "packages"][0]
    rdtest.eq(step["effect"], "reboot", "the package step waits for a reboot")
    act = [a for a in step["actions"] if a["action"] == "packages"][0]
    rdtest.eq(act["package_manager"], "apt", "package manager")
    rdtest.check(act["download_size"] > 0, "download size in JSON")


@rdtest.test(root=True)
def rx9070xt_on_kernel_6_8_one_rule_in_check_and_setup():
    """gfx1201 on Ubuntu 24.04's 6.8 kernel: the check says the kernel's
    amdgpu cannot serve it (not "modprobe amdgpu"), with the series that can
    and the driver package; setup plans that driver, for the same reason."""
    h = Host()
    h.write_facts(rx9070xt_facts(KERNEL))
    p = h.rd("check", "--json")
    rdtest.eq(p.returncode, 2, "check: " + p.stderr)
    found = {(f["id"], f.get("gpu")): f for f in json.loads(p.stdout)["findings"]}
    fd = found.get(("driver.kernel-too-old", "0000:03:00.0"))
    rdtest.check(fd is not None, "driver.kernel-too-old for the GPU: %s" % sorted(found))
    rdtest.check(("driver.not-loaded", None) not in found, "no modprobe advice: %s" % sorted(found))
    rdtest.eq(fd["severity"], "error", "severity")
    rdtest.check("packages.ini [driver] inbox-kernel: gfx1201:6.14" in fd["evidence"], fd["evidence"])
    rdtest.check("amdgpu-dkms" in fd["remedy"] and "kernel 6.14 or later" in fd["remedy"], fd["remedy"])
    rdtest.check("modprobe" not in fd["remedy"], fd["remedy"])
    p = h.setup()
    expect(h, "plan", p.stdout)
    out = p.stdout
    got = package_lines(out)
    rdtest.check(("install", "amdgpu-dkms", "1:6.12.12.60401-2164967.24.04") in got, out)
    rdtest.check(("install", "linux-headers-" + KERNEL, "6.8.0-45.45") in got, "the running kernel's headers: " + out)
    rdtest.check("AMD's amdgpu driver because the running kernel %s is older than 6.14, the first whose amdgpu serves AMD "
                 "Radeon RX 9070 XT (gfx1201)" % KERNEL in out, out)
    j = json.loads(h.setup("--json").stdout)
    step = [s for s in j["steps"] if s["fix"] == "packages"][0]
    rdtest.check("driver.kernel-too-old" in step["findings"], "setup's package step addresses the check's finding: %s"
                 % step.get("findings"))


@rdtest.test(root=True)
def refusals_list_the_valid_values():
    h = Host()
    p = h.setup("--release", "9.9")
    # newer than the tables: AMD's installers are asked, and the stand-in
    # mirror has none; the refusal names the valid releases too
    rdtest.check(p.returncode == 3 and "--release 9.9: the index of AMD's installers is not on the repository server"
                 in p.stderr and "the releases rocm-doctor's tables have for ubuntu 24.04:" in p.stderr and
                 "6.4 (6.4.3)" in p.stderr, p.stderr)
    p = h.rd("setup", "--release", "5.6")
    rdtest.check(p.returncode == 3 and "AMD does not ship ROCm 5.6 for ubuntu 24.04" in p.stderr, p.stderr)
    p = h.setup("--usecase", "rocm,games")
    rdtest.eq((p.returncode, p.stderr.strip()), (3, 'rocm-doctor: --usecase: "games" is not a use case (rocm, runtime, '
                                             'hip-sdk, ml-sdk, driver)\nTry \'rocm-doctor --help\' for more '
                                             'information.'.strip()), "unknown use case")


@rdtest.test(root=True)
def lock_held_by_another_process():
    h = Host()
    pkgs_before, tree_before = h.packages(), h.tree()
    with open(h.r.p("/var/lib/dpkg/lock-frontend"), "w") as lock:
        fcntl.lockf(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        t0 = time.monotonic()
        p = h.setup("--apply", "--yes")
        waited = time.monotonic() - t0
    rdtest.eq(p.returncode, 3, "apply fails: %s" % p.stdout)
    rdtest.check("/var/lib/dpkg/lock-frontend is held by process %d (python3), still after 2 s" % os.getpid() in p.stderr,
                 p.stderr)
    rdtest.check("everything done before was rolled back" in p.stderr, p.stderr)
    rdtest.check(waited >= 2, "waited for the lock (%.1f s)" % waited)
    rdtest.eq(h.packages(), pkgs_before, "nothing installed")
    same_tree(h.tree(), tree_before, "nothing half-written")


@rdtest.test(root=True)
def unreachable_repository():
    port = standin.closed_port()
    h = Host(mirror_base="http://127.0.0.1:%d/radeon" % port)
    pkgs_before, tree_before = h.packages(), h.tree()
    p = h.setup()
    expect(h, "plan", p.stdout)
    out = p.stdout
    rdtest.eq(p.returncode, 2, "a step setup needs could not be planned")
    rdtest.check("packages: the apt dry run could not run (the repository server cannot be reached from here), so no "
                 "version is resolved; the plan would install rocm (unresolved)" in out, out)
    rdtest.check("127.0.0.1:%d" % port not in out.split("Not planned:")[1], "the package manager's output only with "
                 "--verbose: " + out)
    p = h.setup("--verbose")
    rdtest.check("127.0.0.1:%d" % port in p.stdout.split("Not planned:")[1], "--verbose names the repository: " + p.stdout)
    p = h.setup("--apply", "--yes")
    rdtest.check(p.returncode == 2 and "packages: the apt dry run could not run" in p.stdout, p.stdout)
    rdtest.eq(h.packages(), pkgs_before, "nothing installed")
    rdtest.eq(h.r.exists("/etc/apt/sources.list.d/rocm.sources"), True, "the repository step itself was applied")
    rdtest.eq(h.rd("undo").returncode, 0, "undo")
    same_tree(h.tree(), tree_before, "undo")


@rdtest.test(root=True)
def unreachable_repository_still_names_driver_and_headers():
    """The mirror unreachable on a host whose GPU needs AMD's driver (kernel
    5.15 for gfx1100): the plan still names every package it means to
    install, the driver and the running kernel's headers among them."""
    port = standin.closed_port()
    h = Host(kernel=OLD_KERNEL, mirror_base="http://127.0.0.1:%d/radeon" % port)
    p = h.setup()
    expect(h, "plan", p.stdout)
    rdtest.eq(p.returncode, 2, "a step setup needs could not be planned: " + p.stdout)
    rdtest.check("packages: the apt dry run could not run (the repository server cannot be reached from here), so no "
                 "version is resolved; the plan would install rocm amdgpu-dkms linux-headers-%s (unresolved)" % OLD_KERNEL
                 in p.stdout, p.stdout)
    rdtest.check(p.stdout.startswith("Plan for %s: 2 steps, 1 not planned (below)" % h.path), p.stdout.split("\n")[0])


@rdtest.test(root=True)
def held_package():
    h = Host()
    h.install("rocm-core")
    rdtest.check(any(l.startswith("rocm-core 6.3.0.") for l in h.packages()), "the distribution's older rocm-core")
    q = h.chroot("apt-mark", "hold", "rocm-core")
    rdtest.eq(q.returncode, 0, q.stdout)
    # AMD's rocm meta package needs the held one upgraded
    p = h.setup()
    expect(h, "plan", p.stdout)
    rdtest.check("packages: the apt dry run could not run (" in p.stdout and "held" in p.stdout.lower(), p.stdout)


@rdtest.test(root=True)
def killed_in_the_package_phase_undo_restores():
    h = Host()
    pkgs_before, tree_before = h.packages(), h.tree()
    marker = h.r.p("/tmp/rd-dpkg-ran")
    # apt's own hook, after dpkg: the run is killed before it records what it did
    h.r.write("/etc/apt/apt.conf.d/99rd-kill", 'DPkg::Post-Invoke { "touch /tmp/rd-dpkg-ran; sleep 60"; };\n')
    setup_killed_at(h, marker)
    rdtest.check(os.path.exists(marker), "dpkg ran")
    os.unlink(h.r.p("/etc/apt/apt.conf.d/99rd-kill"))
    os.unlink(marker)
    rdtest.eq(h.journal(h.run_ids()[0])["state"], "applying", "the killed run")
    rdtest.check(any(l.startswith("rocm ") for l in h.packages()), "dpkg had installed the packages")
    p = h.setup("--apply", "--yes")
    rdtest.check(p.returncode == 3 and "was interrupted" in p.stderr, "a new run waits for undo: " + p.stderr)
    h.undo_restores(pkgs_before, tree_before, " of the killed run")


@rdtest.test(root=True)
def killed_while_dpkg_configures_undo_finishes_dpkg_then_restores():
    h = Host()
    pkgs_before, tree_before = h.packages(), h.tree()
    h.r.write("/tmp/rd-slow-postinst", "")
    marker = h.r.p("/tmp/rd-in-postinst")
    setup_killed_at(h, marker)
    rdtest.check(os.path.exists(marker), "dpkg ran the postinst")
    os.unlink(marker)
    state = [l for l in h.packages() if l.startswith("rocm-opencl-runtime ")]
    rdtest.check(state and state[0].split()[-1] in ("iU", "iF", "iH"), "dpkg left it unconfigured: %s" % state)
    h.undo_restores(pkgs_before, tree_before)


@rdtest.test(root=True)
def undo_refused_while_something_depends():
    h = Host()
    p = h.setup("--usecase", "runtime", "--apply", "--yes")
    rdtest.eq(p.returncode, 0, p.stderr)
    # installed later, depending on what the run installed
    h.install("rocm")
    p = h.rd("undo")
    rdtest.eq(p.returncode, 3, "undo refused")
    rdtest.check("rocm installed since run" in p.stderr and "nothing was undone" in p.stderr, p.stderr)
    rdtest.check(any(l.startswith("rocm-hip-runtime ") for l in h.packages()), "nothing removed")


@rdtest.test(root=True)
def ansible_setup_path():
    """The rocm_doctor role's setup path on the root: setup --apply, the boot
    check, the verdict asserted; a second run changes nothing. (The role's
    reboot is for hosts, not --root trees: it is skipped here.) The key
    comes from rocm_doctor_key_file and rocm_doctor_key_fingerprint."""
    if not shutil.which("ansible-playbook"):
        rdtest.skip("needs ansible-core")
    h = Host()
    m = mirror()
    tmp = temp_dir("rd-setup-ansible.")
    p, recap = ansible_play(h, m, tmp, m.base + "/radeon")
    rdtest.check(p.returncode == 0 and "failed=0" in recap, "first run: %s\n%s" % (p.stdout[-3000:], p.stderr[-2000:]))
    conf = h.r.read("/etc/rocm-doctor/rocm-doctor.conf")
    rdtest.check("key_file = %s/etc/rocm-doctor/repository.gpg.key\n" % h.path in conf and
                 "key_fingerprint = %s\n" % m.fingerprint in conf, conf)
    with open(m.key_file, "rb") as f, open(h.r.p("/etc/rocm-doctor/repository.gpg.key"), "rb") as g:
        rdtest.eq(g.read(), f.read(), "the key file copied")
    rdtest.check("changed: [localhost]" in task_output(p.stdout, "Apply the setup"), "applied: " + p.stdout[-3000:])
    rdtest.check("ok: [localhost]" in task_output(p.stdout, "The run is verified, or needed no reboot and fixed what it "
                                                     "addressed"), "verdict: " + p.stdout)
    rdtest.check(any(l.startswith("rocm-hip-runtime 6.4.1.") for l in h.packages()), "installed: %s" % h.packages())
    p, recap = ansible_play(h, m, tmp, m.base + "/radeon")
    rdtest.check(p.returncode == 0 and "changed=0" in recap and "failed=0" in recap,
                 "second run: changed=0: %s" % p.stdout[-3000:])


@rdtest.test(root=True)
def ansible_setup_not_planned():
    """The role's setup path where a step setup needs cannot be planned (the
    repository server cannot be reached: setup exits 2): the play stops with
    a readable message naming the step and its cause, not the plan's JSON,
    and applies nothing."""
    if not shutil.which("ansible-playbook"):
        rdtest.skip("needs ansible-core")
    port = standin.closed_port()
    base = "http://127.0.0.1:%d/radeon" % port
    h = Host(mirror_base=base)
    m = mirror()
    pkgs_before = h.packages()
    tmp = temp_dir("rd-setup-ansible.")
    p, recap = ansible_play(h, m, tmp, base)
    said = task_output(p.stdout, "Steps that could not be planned")
    rdtest.check(p.returncode != 0 and "failed=1" in recap, "the play fails: %s" % p.stdout[-3000:])
    rdtest.check("fatal: [localhost]: FAILED! => {\"changed\": false, \"msg\": \"localhost: rocm-doctor setup cannot plan "
                 "every step it needs, so nothing was applied. Not planned: packages: the apt dry run could not run (the "
                 "repository server cannot be reached from here)" in said, "readable: " + (said or p.stdout[-3000:]))
    rdtest.check("`rocm-doctor setup --verbose` on the host" in said and "\"steps\"" not in said and "stdout" not in said,
                 "no JSON dump: " + said)
    rdtest.check("Apply the setup" not in p.stdout, "not applied: " + p.stdout[-2000:])
    rdtest.eq(h.packages(), pkgs_before, "nothing installed")
    rdtest.eq(h.r.exists("/etc/apt/sources.list.d/rocm.sources"), False, "no repository written")


@rdtest.test(root=True)
def rpm_failing_scriptlet_undo_removes_without_it():
    """amdgpu-dkms's %preun fails: dnf cannot remove it, so undo removes
    the run's packages with rpm -e --noscripts, then the repository."""
    h = RpmHost("dnf")
    pkgs_before, tree_before = h.packages(), h.tree()
    p = h.setup("--apply", "--yes")
    rdtest.check(p.returncode in (0, 1), "apply: %s %s" % (p.stdout, p.stderr))
    rdtest.check(any(l.startswith("amdgpu-dkms ") for l in h.packages()), h.packages())
    h.r.write("/tmp/rd-dkms-fails", "")
    p = h.undo_restores(pkgs_before, tree_before)
    rdtest.check("Note: amdgpu-dkms could not be finished by the package manager" in " ".join(p.stdout.split()),
                 "undo says which: " + p.stdout)


@rdtest.test(root=True)
def rhel_dnf_installroot():
    out = rpm_roundtrip("dnf", [("install", "kernel-devel", "5.14.0-570.12.1.el9_6"),
                                ("install", "kernel-headers", "5.14.0-570.12.1.el9_6")])
    rdtest.check("MI300X" in out or "gfx942" in out or "amdgpu-dkms" in out, out)


@rdtest.test(root=True)
def sles_zypper_root():
    rpm_roundtrip("zypper", [("install", "kernel-default-devel", "6.4.0-150600.23.25.1")])


@rdtest.test(root=True)
def sles_rpm_database_in_sysimage():
    """A tree whose rpm database is /usr/lib/sysimage/rpm and nothing at
    /var/lib/rpm, set up with this host's rpm, whose own database is
    ~/.rpmdb (no ~/.rpmmacros): the key goes into the tree's database (rpm
    --dbpath) and undo takes it out again; a key imported before is found
    there (the journal's keys before) and kept by undo; the check reads
    the same database."""
    m = rpm_mirror()
    key = rpm_key_name(m)
    for imported_before in (False, True):
        what = "key imported before" if imported_before else "no key before"
        h = RpmHost("zypper", dbpath="/usr/lib/sysimage/rpm", macros=False)
        rdtest.eq(os.path.lexists(h.r.p("/var/lib/rpm")), False, "no /var/lib/rpm in the tree")
        rdtest.check(os.path.exists(h.r.p("/usr/lib/sysimage/rpm/rpmdb.sqlite")), "the database is in sysimage")
        if imported_before:
            q = h.rpm("--import", m.key_file)
            rdtest.eq(q.returncode, 0, "rpm --import: " + q.stdout + q.stderr)
        before = [key] if imported_before else []
        rdtest.eq(h.pubkeys(), before, what)
        pkgs_before, tree_before = h.packages(), h.tree()
        p = h.setup("--apply", "--yes")
        rdtest.check(p.returncode in (0, 1), "%s: apply: %s %s" % (what, p.stdout, p.stderr))
        rdtest.eq(h.pubkeys(), [key], "%s: the key in /usr/lib/sysimage/rpm" % what)
        for name, (version, release, _, _) in standin.RPM_ROCM.items():
            rdtest.check("%s %s-%s" % (name, version, release) in h.packages(),
                         "%s: %s installed: %s" % (what, name, h.packages()))
        rdtest.eq(os.path.lexists(h.r.p(h.home + "/.rpmdb")), False, "%s: no ~/.rpmdb in the tree" % what)
        j = h.journal(h.run_ids()[0])
        rdtest.eq(j["packages"]["pubkeys_before"], before, "%s: the journal's keys before" % what)
        q = subprocess.run([RD, "facts", "--root", h.path], capture_output=True, text=True,
                           env=dict(os.environ, HOME=h.home))  # the probe on the tree, not the facts file
        rpm = json.loads(q.stdout)["rpm"] if q.returncode in (0, 1, 2) and q.stdout.startswith("{") else {}
        rdtest.eq(rpm.get("dbpath"), "/usr/lib/sysimage/rpm", "%s: the check's database: %s" % (what, q.stderr))
        rdtest.eq(sorted("%s-%s" % (x["name"], x["version"]) for x in rpm.get("packages", [])
                         if x["name"] == "gpg-pubkey"), [key], "%s: the check finds the key" % what)
        h.undo_restores(pkgs_before, tree_before, " (%s)" % what)
        rdtest.eq(h.pubkeys(), before, "%s: after undo" % what)


@rdtest.test(root=True)
def rpm_lock_held_by_another_process():
    """rpm's lock is .rpm.lock in the tree's database folder: held there by
    another process, apply waits for it (package_lock_timeout_s = 2), then
    fails naming it, with nothing installed. Both layouts: the database in
    /usr/lib/sysimage/rpm (no /var/lib/rpm) and in /var/lib/rpm."""
    for dbpath in ("/usr/lib/sysimage/rpm", "/var/lib/rpm"):
        h = RpmHost("dnf", dbpath=dbpath)
        rdtest.eq(os.path.lexists(h.r.p("/var/lib/rpm")), dbpath == "/var/lib/rpm", "/var/lib/rpm in the tree")
        pkgs_before, tree_before = h.packages(), h.tree()
        with open(h.r.p(dbpath + "/.rpm.lock"), "a") as lock:
            fcntl.lockf(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
            t0 = time.monotonic()
            p = h.setup("--apply", "--yes", timeout=120)
            waited = time.monotonic() - t0
        rdtest.eq(p.returncode, 3, "%s: apply fails: %s %s" % (dbpath, p.stdout, p.stderr))
        rdtest.check("%s%s/.rpm.lock is held by process %d (python3), still after 2 s" % (h.path, dbpath, os.getpid())
                     in p.stderr, "%s: the lock named: %s" % (dbpath, p.stderr))
        rdtest.check("everything done before was rolled back" in p.stderr, p.stderr)
        rdtest.check(waited >= 2, "waited for the lock (%.1f s)" % waited)
        rdtest.eq(h.packages(), pkgs_before, "%s: nothing installed" % dbpath)
        rdtest.eq(h.pubkeys(), [], "%s: no key imported" % dbpath)
        same_tree(h.tree(), tree_before, "%s: the tree after the rollback" % dbpath)


@rdtest.test(root=True)
def amdgpu_install_host_left_alone():
    """A host set up as amdgpu-install leaves it (rocm.list, amdgpu.list with
    the driver line's arch=amd64,i386, the keyring and its pin): setup plans
    no repository step and moves nothing aside; the packages resolve from
    those files."""
    h = Host()
    base = mirror().base + "/radeon"
    q = subprocess.run(["gpg", "--dearmor", "-o", h.r.p("/etc/apt/keyrings/rocm.gpg"), mirror().key_file],
                       capture_output=True, text=True)
    rdtest.eq(q.returncode, 0, "gpg --dearmor: " + q.stderr)
    h.r.write("/etc/apt/sources.list.d/rocm.list",
              "deb [arch=amd64 signed-by=/etc/apt/keyrings/rocm.gpg] %s/rocm/apt/6.4.1 noble main\n" % base)
    h.r.write("/etc/apt/sources.list.d/amdgpu.list",
              "deb [arch=amd64,i386 signed-by=/etc/apt/keyrings/rocm.gpg] %s/amdgpu/6.4.1/ubuntu noble main\n"
              "#deb-src [arch=amd64,i386 signed-by=/etc/apt/keyrings/rocm.gpg] %s/amdgpu/6.4.1/ubuntu noble main\n"
              % (base, base))
    h.r.write("/etc/apt/preferences.d/rocm-pin-600", "Package: *\nPin: release o=repo.radeon.com\nPin-Priority: 600\n")
    # the GPU comes from the facts file; the root's apt files as the check reads them
    env = dict(os.environ, NO_COLOR="1")
    q = subprocess.run([RD, "facts", "--root", h.path], capture_output=True, text=True, env=env)
    fa = facts()
    fa["apt"] = json.loads(q.stdout)["apt"]
    rdtest.eq(len(fa["apt"]["sources"]), 2, "the two lists as the check reads them: %s" % fa["apt"])
    h.write_facts(fa)
    tree_before = h.tree()
    p = h.setup()
    expect(h, "plan", p.stdout)
    out = p.stdout.replace(h.path, "ROOT")
    rdtest.check(not re.search(r"^\d+\. apt: ", out, re.M), "no repository step: " + out)
    rdtest.check(".disabled" not in out and "rocm.sources" not in out, "nothing moved aside or written: " + out)
    rdtest.eq(dict((n, v) for _, n, v in package_lines(out)).get("rocm-core"), "6.4.1." + standin.BUILD,
       "the packages resolve from amdgpu-install's files: " + out)
    same_tree(h.tree(), tree_before, "planning wrote nothing")


@rdtest.test(root=True)
def amdgpu_install_host_partly_wrong_edited_in_place():
    """amdgpu-install's files of ROCm 6.4.0, the driver line with the wrong
    suite (jammy on noble), set up for 6.4.1: only the wrong lines change,
    in their own files (arch=amd64,i386 and the commented deb-src line
    kept); nothing is moved aside, no second file or pin is written; apply
    and undo bring back the very files."""
    h = Host()
    base = mirror().base + "/radeon"
    q = subprocess.run(["gpg", "--dearmor", "-o", h.r.p("/etc/apt/keyrings/rocm.gpg"), mirror().key_file],
                       capture_output=True, text=True)
    rdtest.eq(q.returncode, 0, "gpg --dearmor: " + q.stderr)
    opts = "[arch=amd64,i386 signed-by=/etc/apt/keyrings/rocm.gpg]"
    h.r.write("/etc/apt/sources.list.d/rocm.list",
              "deb [arch=amd64 signed-by=/etc/apt/keyrings/rocm.gpg] %s/rocm/apt/6.4 noble main\n" % base)
    h.r.write("/etc/apt/sources.list.d/amdgpu.list",
              "deb %s %s/amdgpu/6.4/ubuntu jammy main\n#deb-src %s %s/amdgpu/6.4/ubuntu jammy main\n"
              % (opts, base, opts, base))
    h.r.write("/etc/apt/preferences.d/rocm-pin-600", "Package: *\nPin: release o=repo.radeon.com\nPin-Priority: 600\n")
    env = dict(os.environ, NO_COLOR="1")
    q = subprocess.run([RD, "facts", "--root", h.path], capture_output=True, text=True, env=env)
    fa = facts()
    fa["apt"] = json.loads(q.stdout)["apt"]
    h.write_facts(fa)

    def apt_ids():
        q = subprocess.run([RD, "check", "--json", "--root", h.path], capture_output=True, text=True, env=env)
        return sorted(f["id"] for f in json.loads(q.stdout)["findings"] if f["id"].startswith("apt."))
    rdtest.eq(apt_ids(), ["apt.suite-mismatch"], "the check of the root before")
    tree_before = h.tree()
    p = h.setup()
    expect(h, "plan", p.stdout)
    out = p.stdout.replace(h.path, "ROOT")
    rdtest.check(re.search(r"^\d+\. apt: AMD's apt repository for ROCm 6\.4\.1 \(noble\)$", out, re.M), out)
    rdtest.check(".disabled" not in out and "rocm.sources" not in out and "rocm-pin-600" not in out,
                 "nothing moved aside, no second file or pin: " + out)
    rdtest.check("-deb %s %s/amdgpu/6.4/ubuntu jammy main\n+deb %s %s/amdgpu/6.4.1/ubuntu noble main\n"
                 % (opts, base, opts, base) in out, "the driver line's diff: " + out)
    rdtest.eq(dict((n, v) for _, n, v in package_lines(out)).get("rocm-core"), "6.4.1." + standin.BUILD,
       "the packages resolve from the edited files: " + out)
    p = h.setup("--apply", "--yes")
    expect(h, "apply", p.stdout)
    # the apt finding came from the facts file, so the run cannot check it again
    rdtest.eq(p.returncode, 1, "apply: %s %s" % (p.stdout, p.stderr))
    rdtest.check("apt.suite-mismatch       still failing: not checked again: the diagnosis comes from --facts" in p.stdout,
                 p.stdout)
    rdtest.eq(apt_ids(), [], "the check of the root after apply: no apt finding")
    rdtest.eq(h.r.read("/etc/apt/sources.list.d/rocm.list"),
       "deb [arch=amd64 signed-by=/etc/apt/keyrings/rocm.gpg] %s/rocm/apt/6.4.1 noble main\n" % base, "rocm.list")
    rdtest.eq(h.r.read("/etc/apt/sources.list.d/amdgpu.list"),
       "deb %s %s/amdgpu/6.4.1/ubuntu noble main\n#deb-src %s %s/amdgpu/6.4/ubuntu jammy main\n"
       % (opts, base, opts, base), "amdgpu.list: the wrong line changed, the comment kept")
    rdtest.eq(h.r.exists("/etc/apt/sources.list.d/rocm.sources"), False, "no second source file")
    p = h.rd("undo")
    expect(h, "undo", p.stdout)
    rdtest.eq(p.returncode, 0, "undo: %s %s" % (p.stdout, p.stderr))
    same_tree(h.tree(), tree_before, "the tree after undo")


@rdtest.test(root=True)
def real_layout_6_4_0():
    real_layout("6.4.0")


@rdtest.test(root=True)
def real_layout_7_1_0():
    real_layout("7.1.0")


@rdtest.test(root=True)
def real_layout_7_2_3_apply_undo():
    real_layout("7.2.3", apply=True)


@rdtest.test(root=True)
def debian13_host_release_7_2_4_apply_undo():
    """A Debian 13 host as debootstrap makes it (its os-release, apt 3 and
    sqv, the keyrings that are links): setup --release 7.2.4 names AMD's
    noble folders of 7.2.4, resolves every package's version with the root's
    own apt, installs them with its dpkg and undoes it."""
    real_layout("7.2.4", apply=True, suite="trixie")


@rdtest.test(root=True)
def failing_postinst_rolled_back():
    """amdgpu-dkms's postinst fails, as it does when its DKMS build fails,
    and again at every `dpkg --configure -a`: the rollback removes it
    half-configured and the packages apt left unconfigured behind it, then
    the repository files; the root is as it was."""
    h = Host(kernel=OLD_KERNEL)
    pkgs_before, tree_before = h.packages(), h.tree()
    h.r.write("/tmp/rd-dkms-fails", "")
    p = h.setup("--apply", "--yes")
    rdtest.eq(p.returncode, 3, "apply fails: %s %s" % (p.stdout, p.stderr))
    rdtest.check("Bad return status for module build" in p.stderr, "the postinst's own line: " + p.stderr)
    rdtest.check("everything done before was rolled back (amdgpu-dkms could not be finished by the package manager (a "
                 "maintainer script failed, or it was interrupted) and was removed with its force options)" in p.stderr and
                 "incomplete" not in p.stderr, p.stderr)
    rdtest.eq(h.packages(), pkgs_before, "dpkg -l after the rollback")
    same_tree(h.tree(), tree_before, "the tree after the rollback")
    rdtest.eq(h.journal(h.run_ids()[0])["state"], "rolled-back", "the journal")
    rdtest.eq(h.r.read("/tmp/rd-dkms-builds"), "build\n", "the failing build ran once: the rollback did not run it again")
    rdtest.eq(h.rd("undo").returncode, 3, "nothing left to undo")


@rdtest.test(root=True)
def failing_postinst_killed_rollback_undo_finishes():
    """The run is killed while the postinst fails (before its rollback):
    undo removes the half-configured packages although `dpkg --configure
    -a` keeps failing, and only then the repository files."""
    h = Host(kernel=OLD_KERNEL)
    pkgs_before, tree_before = h.packages(), h.tree()
    h.r.write("/tmp/rd-dkms-fails", "")
    marker = h.r.p("/tmp/rd-dpkg-ran")
    h.r.write("/etc/apt/apt.conf.d/99rd-kill", 'DPkg::Post-Invoke { "touch /tmp/rd-dpkg-ran; sleep 60"; };\n')
    setup_killed_at(h, marker)
    rdtest.check(os.path.exists(marker), "dpkg ran")
    os.unlink(h.r.p("/etc/apt/apt.conf.d/99rd-kill"))
    os.unlink(marker)
    rdtest.check(any(l.startswith("amdgpu-dkms ") and l.endswith(" iF") for l in h.packages()),
                 "amdgpu-dkms half-configured: %s" % h.packages())
    p = h.undo_restores(pkgs_before, tree_before)
    rdtest.check("amdgpu-dkms could not be finished by the package manager" in " ".join(p.stdout.split()),
                 "undo says which: " + p.stdout)


@rdtest.test(root=True)
def killed_while_unpacking_undo_restores():
    """kill -9 while dpkg unpacks hsa-rocr (it is half-installed and needs
    reinstallation): undo removes it with dpkg's force option, the
    packages around it with apt, then the repository."""
    h = Host()
    pkgs_before, tree_before = h.packages(), h.tree()
    h.r.write("/tmp/rd-slow-preinst", "")
    marker = h.r.p("/tmp/rd-in-preinst")
    setup_killed_at(h, marker)
    rdtest.check(os.path.exists(marker), "dpkg ran the preinst")
    os.unlink(marker)
    state = [l for l in h.packages() if l.startswith("hsa-rocr ")]
    rdtest.check(state and state[0].split()[-1] in ("iHR", "iH"), "half-installed: %s" % state)
    p = h.undo_restores(pkgs_before, tree_before)
    rdtest.check("Note: hsa-rocr, rocm-core could not be finished by the package manager (a maintainer script failed, or it "
                 "was interrupted) and were removed with its force options." in " ".join(p.stdout.split()),
                 "undo says which (rocm-core unpacked, not configured): " + p.stdout)
    rdtest.eq(h.journal(h.run_ids()[0])["state"], "rolled-back", "the journal")


@rdtest.test(root=True)
def undo_while_dpkg_is_locked_keeps_the_repository():
    """Undo of a killed run while another process holds dpkg's lock: it
    names the holder and removes nothing, the repository files included;
    once the lock is free the next undo finishes."""
    h = Host()
    pkgs_before, tree_before = h.packages(), h.tree()
    marker = h.r.p("/tmp/rd-dpkg-ran")
    h.r.write("/etc/apt/apt.conf.d/99rd-kill", 'DPkg::Post-Invoke { "touch /tmp/rd-dpkg-ran; sleep 60"; };\n')
    setup_killed_at(h, marker)
    os.unlink(h.r.p("/etc/apt/apt.conf.d/99rd-kill"))
    os.unlink(marker)
    installed = h.packages()
    with open(h.r.p("/var/lib/dpkg/lock-frontend"), "w") as lock:
        fcntl.lockf(lock, fcntl.LOCK_EX)  # once the killed apt-get's children are gone
        p = h.rd("undo")
    rdtest.eq(p.returncode, 3, "undo fails while the lock is held: %s" % p.stdout)
    rdtest.check("/var/lib/dpkg/lock-frontend is held by process %d (python3)" % os.getpid() in p.stderr, p.stderr)
    rdtest.eq(h.packages(), installed, "no package touched")
    rdtest.eq(h.journal(h.run_ids()[0])["state"], "undo-incomplete", "the journal")
    unfinished_undo_then_fixed(h, pkgs_before, tree_before, lambda: None)


@rdtest.test(root=True)
def disk_full_while_unpacking_rolled_back():
    """/opt is a small file system that is full: dpkg cannot unpack
    rocm-core's files there. The rollback (or, when the rollback cannot
    finish, undo once there is room) leaves the root as it was."""
    h = Host()
    opt = h.r.p("/opt")
    q = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=256k,mode=0755", "rd-full", opt], capture_output=True,
                       text=True)
    if q.returncode != 0:
        rdtest.skip("cannot mount a small tmpfs: " + q.stderr)
    try:
        fd = os.open(os.path.join(opt, "filler"), os.O_WRONLY | os.O_CREAT, 0o644)
        try:
            while os.write(fd, b"\0" * 4096) > 0:
                pass
        except OSError:
            pass
        os.close(fd)
        pkgs_before, tree_before = h.packages(), h.tree()
        p = h.setup("--apply", "--yes")
        rdtest.eq(p.returncode, 3, "apply fails: %s %s" % (p.stdout, p.stderr))
        rdtest.check("No space left on device" in p.stderr, p.stderr)
        rdtest.check("everything done before was rolled back" in p.stderr, p.stderr)
        rdtest.eq(h.packages(), pkgs_before, "dpkg -l after the rollback")
        same_tree(h.tree(), tree_before, "the tree after the rollback")
    finally:
        subprocess.run(["umount", "-l", opt])


@rdtest.test(root=True)
def damaged_journal_refused():
    """Undo refuses a journal it cannot trust, names the run and what is
    wrong, and touches nothing: the newest journal cut in half (--last
    does not fall back to the run before it), the package list saved
    before the run missing, an entry of the installed list that the saved
    list contradicts."""
    h = Host()
    pkgs_before, tree_before = h.packages(), h.tree()
    p = h.setup("--usecase", "runtime", "--apply", "--yes")
    rdtest.eq(p.returncode, 0, "apply: %s %s" % (p.stdout, p.stderr))
    run_id = h.run_ids()[0]
    jdir = h.r.p("/var/lib/rocm-doctor/journal/" + run_id)
    pkgs_applied, tree_applied = h.packages(), h.tree()

    def refused(what, *args):
        p = h.rd("undo", *args)
        rdtest.eq(p.returncode, 3, "%s: undo refused (%s)" % (what, p.stdout))
        rdtest.eq(h.packages(), pkgs_applied, what + ": no package touched")
        same_tree(h.tree(), tree_applied, what + ": no file touched")
        rdtest.eq(h.journal(run_id)["state"], "applied", what + ": the run's journal untouched")
        return p.stderr

    newer = "99991231-235959"
    os.makedirs(h.r.p("/var/lib/rocm-doctor/journal/%s/files" % newer))
    with open(os.path.join(jdir, "journal.json")) as f:
        text = f.read()
    h.r.write("/var/lib/rocm-doctor/journal/%s/journal.json" % newer, text.replace(run_id, newer)[:len(text) // 2])
    err = refused("the newest journal cut in half", "--last")
    rdtest.check("run %s has a damaged journal" % newer in err and "not valid JSON (cut short?)" in err and
                 run_id not in err, err)
    err = refused("undo of that run by its id", newer)
    rdtest.check("%s/journal.json: not valid JSON (cut short?)" % newer in err, err)
    shutil.rmtree(h.r.p("/var/lib/rocm-doctor/journal/" + newer))

    saved = os.path.join(jdir, "files", "packages-before")
    os.rename(saved, saved + ".aside")
    err = refused("the saved package list missing")
    rdtest.check("the journal of run %s is damaged: the package list saved before the run" % run_id in err and
                 "packages-before) is missing; nothing was undone" in err, err)
    os.rename(saved + ".aside", saved)

    j = h.journal(run_id)
    base = [l for l in pkgs_before if l.startswith("base-files ")][0].split()
    j["packages"]["installed"].append({"name": "base-files", "version": base[1]})
    with open(os.path.join(jdir, "journal.json"), "w") as f:
        json.dump(j, f)
    err = refused("an installed entry the saved list contradicts")
    rdtest.check('"installed" names base-files, but the package list saved before the run has it (%s)' % base[1] in err,
                 err)
    with open(os.path.join(jdir, "journal.json"), "w") as f:
        f.write(text)

    h.undo_restores(pkgs_before, tree_before)


@rdtest.test(root=True)
def undo_refused_when_a_downgrade_would_remove_a_package():
    """The run upgraded rocm-core; a package installed since needs the new
    version. Undo would downgrade rocm-core and apt would remove that
    package: undo refuses, naming it, and touches nothing."""
    h = Host()
    h.install("rocm-core")
    rdtest.check(any(l.startswith("rocm-core 6.3.0.") for l in h.packages()), "the distribution's older rocm-core")
    p = h.setup("--usecase", "runtime", "--apply", "--yes")
    rdtest.eq(p.returncode, 0, "apply: %s %s" % (p.stdout, p.stderr))
    j = h.journal(h.run_ids()[0])
    rdtest.eq([(x["name"], x["old_version"]) for x in j["packages"]["upgraded"]], [("rocm-core", "6.3.0.60300-39~24.04")],
       "the run upgraded rocm-core")
    local_deb(h, "site-tool", "1.0", "rocm-core (>= 6.4.1)", {"/usr/local/bin/site-tool": "#!/bin/sh\n"})
    pkgs, tree = h.packages(), h.tree()
    p = h.rd("undo")
    rdtest.eq(p.returncode, 3, "undo refused: %s" % p.stdout)
    rdtest.check("site-tool installed since run %s depends on packages it installed or on the versions it left" %
                 j["run_id"] in p.stderr and "nothing was undone" in p.stderr, p.stderr)
    rdtest.eq(h.packages(), pkgs, "no package touched")
    same_tree(h.tree(), tree, "no file touched")
    rdtest.eq(h.journal(j["run_id"])["state"], "applied", "the run stays applied")


@rdtest.test(root=True)
def shadowing_package_from_a_file_is_kept():
    """A shadowing package installed from a file that no repository offers
    at its version is not removed: undo could not put it back. The plan
    says so."""
    h = Host()
    local_deb(h, "libhsa-runtime64-1", "5.7.1-3+site1", "", {"/usr/lib/x86_64-linux-gnu/libhsa-runtime64.so.1":
                                                            "built here\n"})
    p = h.setup("--usecase", "runtime")
    expect(h, "plan", p.stdout)
    out = p.stdout
    rdtest.check(("remove", "libhsa-runtime64-1", "5.7.1-3+site1") not in package_lines(out), "not removed: " + out)
    rdtest.check("libhsa-runtime64-1 5.7.1-3+site1 stays: no configured repository offers that version" in
                 " ".join(out.split()), out)
    p = h.setup("--usecase", "runtime", "--apply", "--yes")
    expect(h, "apply", p.stdout)
    rdtest.eq(p.returncode, 0, "apply: %s %s" % (p.stdout, p.stderr))
    rdtest.check("libhsa-runtime64-1 5.7.1-3+site1 ii" in h.packages(), h.packages())
    rdtest.eq(h.journal(h.run_ids()[0])["packages"]["removed"], [], "the journal: nothing removed")


@rdtest.test(root=True)
def undo_killed_between_packages_and_repository_finished_by_the_next():
    """Undo is killed after apt removed the run's packages and before the
    repository files go: the next undo finds the packages out and puts the
    files back."""
    h = Host()
    pkgs_before, tree_before = h.packages(), h.tree()
    p = h.setup("--usecase", "runtime", "--apply", "--yes")
    rdtest.eq(p.returncode, 0, "apply: %s %s" % (p.stdout, p.stderr))
    marker = h.r.p("/tmp/rd-dpkg-ran")
    h.r.write("/etc/apt/apt.conf.d/99rd-kill", 'DPkg::Post-Invoke { "touch /tmp/rd-dpkg-ran; sleep 60"; };\n')
    proc = subprocess.Popen([RD, "undo", "--root", h.path], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            start_new_session=True)
    for _ in range(1200):
        if os.path.exists(marker) or proc.poll() is not None:
            break
        time.sleep(0.1)
    rdtest.check(os.path.exists(marker), "apt removed the packages")
    kill_and_wait_for_the_lock(h, proc)
    os.unlink(h.r.p("/etc/apt/apt.conf.d/99rd-kill"))
    os.unlink(marker)
    rdtest.eq(h.journal(h.run_ids()[0])["state"], "undoing", "the killed undo")
    rdtest.check(not any(l.startswith("rocm-core ") for l in h.packages()), "the packages are out: %s" % h.packages())
    rdtest.eq(h.r.exists("/etc/apt/sources.list.d/rocm.sources"), True, "the repository file is still there")
    h.undo_restores(pkgs_before, tree_before)
    rdtest.eq(h.journal(h.run_ids()[0])["state"], "undone", "the journal")


@rdtest.test(root=True)
def second_apply_while_the_first_is_in_dpkg():
    """A run in progress (it holds the lock) is in progress, not
    interrupted: the second apply names it and advises no undo."""
    h = Host()
    h.r.write("/tmp/rd-slow-postinst", "")
    marker = h.r.p("/tmp/rd-in-postinst")
    proc = subprocess.Popen([RD, "setup", "--release", "6.4.1", "--apply", "--yes", "--root", h.path,
                             "--facts", h.facts], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            start_new_session=True)
    try:
        for _ in range(1200):
            if os.path.exists(marker) or proc.poll() is not None:
                break
            time.sleep(0.1)
        rdtest.check(os.path.exists(marker), "the first run is in the postinst")
        run_id = h.run_ids()[0]
        p = h.setup("--apply", "--yes")
        rdtest.eq(p.returncode, 3, "the second apply is refused: %s" % p.stderr)
        rdtest.check("run %s is in progress" % run_id in p.stderr, p.stderr)
        rdtest.check("interrupted" not in p.stderr and "undo" not in p.stderr, "no undo advised: " + p.stderr)
        p = h.rd("undo")
        rdtest.eq(p.returncode, 3, "undo is refused too")
        rdtest.check("run %s is in progress" % run_id in p.stderr, p.stderr)
        rdtest.eq(h.journal(run_id)["state"], "applying", "the first run's journal untouched")
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()


def keyring_link(h, target):
    keyrings = h.r.p("/usr/share/keyrings")
    binary = subprocess.run(["gpg", "--dearmor"], input=open(mirror().key_file, "rb").read(),
                            stdout=subprocess.PIPE, check=True).stdout
    with open(os.path.join(keyrings, "rd-archive-keyring.pgp"), "wb") as f:
        f.write(binary)
    link = os.path.join(keyrings, "rd-archive-keyring.gpg")
    if os.path.lexists(link):
        os.unlink(link)
    os.symlink(target, link)


@rdtest.test(root=True)
def debian13_keyring_links_followed_in_the_root():
    h = Host(suite="trixie")
    # the layout this is about, as Debian 13 has it
    real = h.r.p("/usr/share/keyrings/debian-archive-keyring.gpg")
    rdtest.check(os.path.islink(real) and os.readlink(real) == "debian-archive-keyring.pgp",
                 "Debian 13's archive keyring is a link to the .pgp: %r" % (os.path.islink(real) and os.readlink(real)))
    m = mirror()
    h.r.write("/etc/apt/sources.list",
              "deb [signed-by=/usr/share/keyrings/rd-archive-keyring.gpg] %s/distro noble main\n" % m.base)
    keyring_link(h, "rd-archive-keyring.pgp")
    q = h.chroot("apt-get", "update")
    rdtest.eq(q.returncode, 0, "the root's own apt verifies the source through the link: " + q.stdout)
    pkgs_before, tree_before = h.packages(), h.tree()
    p = h.setup()
    out = p.stdout.replace(h.path, "ROOT")
    rdtest.eq(p.returncode, 1, "plan: steps to carry out (stdout %s, stderr %s)" % (out, p.stderr))
    rdtest.check("could not run" not in out and "(unresolved)" not in out, "the dry run ran: " + out)
    rdtest.eq(sorted(package_lines(out)), WANT_INSTALL, "every package with its exact version, from apt's dry run")
    rdtest.eq(h.packages(), pkgs_before, "planning installed nothing")
    same_tree(h.tree(), tree_before, "planning wrote nothing")

    # a link that climbs above the root is refused, named, not read
    keyring_link(h, "../../../../../../../../etc/rd-outside.pgp")
    p = h.setup()
    out = p.stdout.replace(h.path, "ROOT")
    rdtest.check("/usr/share/keyrings/rd-archive-keyring.gpg is a link that leads outside the root" in out,
                 "the link is named: stdout %s stderr %s" % (out, p.stderr))
    rdtest.check("Not planned:\n   packages: " in out, "the packages step is not planned: " + out)
    rdtest.eq(package_lines(out), [], "no version resolved")

    # a keyring in the root that is no key: apt 3's sqv fails, and the
    # cause says so in whole words (it was "... error message is: Error: Fa")
    keyring_link(h, "rd-archive-keyring.pgp")
    h.r.write("/usr/share/keyrings/rd-archive-keyring.pgp", "not a key\n")
    p = h.setup()
    out = p.stdout.replace(h.path, "ROOT")
    rdtest.check("the apt dry run could not run (the repository's signature cannot be checked (its key is missing or "
                 "another)), so no version is resolved" in out, "sqv's failure read as a signature problem: " + out)

if __name__ == "__main__":
    # ROCM_DOCTOR_SETUP_TESTS=a,b: only these (CI's sanitizer build runs one
    # case per package manager and the kill cases); the same as RDTEST_SELECT
    only = os.environ.get("ROCM_DOCTOR_SETUP_TESTS", "")
    if only:
        os.environ["RDTEST_SELECT"] = only
    sys.exit(rdtest.main())
