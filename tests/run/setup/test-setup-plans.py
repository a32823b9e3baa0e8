#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The repository folders `setup` and `fix` plan, per ROCm release and OS,
against AMD's real layout as its install instructions and public logs show
it. The expectations are written here by hand (from the sources named in
EXPECT), not read from conf/repos.ini: a wrong table fails this test.

Roots are small trees (os-release, users); the GPU comes from a facts file;
no package is installed (the package manager's dry run cannot reach AMD's
server here and is not what this test looks at).

Usage: test-setup-plans.py ROCM_DOCTOR SOURCE_DIR"""
import json
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "fix"))
from fixlib import Root, expect, key_names, load_facts, temp_dir  # noqa: E402
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "lib"))
import rdtest  # noqa: E402

RD, SRC = sys.argv[1], sys.argv[2]
AMD = "https://repo.radeon.com/"

# os key: (os-release text, facts "os", package manager)
OSES = {
    "ubuntu-22.04": ('ID=ubuntu\nVERSION_ID="22.04"\nVERSION_CODENAME=jammy\nID_LIKE=debian\n',
                     {"id": "ubuntu", "version_id": "22.04", "version_codename": "jammy", "id_like": "debian"},
                     "apt"),
    "ubuntu-24.04": ('ID=ubuntu\nVERSION_ID="24.04"\nVERSION_CODENAME=noble\nID_LIKE=debian\n',
                     {"id": "ubuntu", "version_id": "24.04", "version_codename": "noble", "id_like": "debian"},
                     "apt"),
    "debian-12": ('ID=debian\nVERSION_ID="12"\nVERSION_CODENAME=bookworm\n',
                  {"id": "debian", "version_id": "12", "version_codename": "bookworm"}, "apt"),
    "rhel-9.6": ('ID="rhel"\nVERSION_ID="9.6"\nID_LIKE="fedora"\n',
                 {"id": "rhel", "version_id": "9.6", "version_codename": None, "id_like": "fedora"}, "dnf"),
    "sles-15.6": ('ID="sles"\nVERSION_ID="15.6"\nID_LIKE="suse"\n',
                  {"id": "sles", "version_id": "15.6", "version_codename": None, "id_like": "suse"}, "zypper"),
}
# an OS release no ROCm release lists
UNLISTED = {"ubuntu-25.10": ('ID=ubuntu\nVERSION_ID="25.10"\nVERSION_CODENAME=questing\nID_LIKE=debian\n',
                             {"id": "ubuntu", "version_id": "25.10", "version_codename": "questing",
                              "id_like": "debian"}, "apt")}

# The folders AMD serves, by release and family, as (URL, apt suite or None).
# Sources: AMD's instructions (ROCm/amdgpu-docs docs/conf.py at 6.4.0 9dcf720,
# 6.4.1 43ab98f, 7.0.2 670ffb1 and 30.30.3; ROCm/rocm-install-on-linux 6.2's
# conf.py: "the folder names on repo.radeon.com use 6.2 for minor releases")
# and logs: rocm/apt/6.4.0 404 but rocm/apt/6.4 served (ROCm/ROCm#4691);
# amdgpu/30.10.2, rocm/apt/7.0.2, graphics/7.0.2 (#5509); amdgpu/30.20,
# rocm/apt/7.1, graphics/7.1 (#5671), no amdgpu/7.1 (#5625, #5798);
# rocm/el9/7.1/main with graphics/7.1/el/9.6 (rocm-install-on-linux#628);
# rocm/zyp/V/main and graphics/V/sle/15.7 (#6144). 6.4.0 and 6.4.1 have no
# EL 9.6 driver tree (their RHEL list is 9.5 9.4 8.10): the nearest, 9.5.
# ROCm 7.x serves SLES 15.7 only: a 15.6 host gets the 15.7 trees.
J, N = "jammy", "noble"


def apt(rocm, driver, graphics=None):
    out = {"rocm": AMD + rocm, "amdgpu": AMD + driver}
    if graphics:
        out["graphics"] = AMD + graphics
    return out


EXPECT = {
    ("6.4.0", "apt"): apt("rocm/apt/6.4", "amdgpu/6.4/ubuntu"),
    ("6.4.1", "apt"): apt("rocm/apt/6.4.1", "amdgpu/6.4.1/ubuntu"),
    ("7.0.2", "apt"): apt("rocm/apt/7.0.2", "amdgpu/30.10.2/ubuntu", "graphics/7.0.2/ubuntu"),
    ("7.1.0", "apt"): apt("rocm/apt/7.1", "amdgpu/30.20/ubuntu", "graphics/7.1/ubuntu"),
    ("7.2.3", "apt"): apt("rocm/apt/7.2.3", "amdgpu/30.30.3/ubuntu", "graphics/7.2.3/ubuntu"),
    ("6.4.0", "dnf"): apt("rocm/el9/6.4/main", "amdgpu/6.4/el/9.5/main/x86_64"),
    ("6.4.1", "dnf"): apt("rocm/el9/6.4.1/main", "amdgpu/6.4.1/el/9.6/main/x86_64"),
    ("7.0.2", "dnf"): apt("rocm/el9/7.0.2/main", "amdgpu/30.10.2/el/9.6/main/x86_64",
                          "graphics/7.0.2/el/9.6/main/x86_64"),
    ("7.1.0", "dnf"): apt("rocm/el9/7.1/main", "amdgpu/30.20/el/9.6/main/x86_64", "graphics/7.1/el/9.6/main/x86_64"),
    ("7.2.3", "dnf"): apt("rocm/el9/7.2.3/main", "amdgpu/30.30.3/el/9.6/main/x86_64",
                          "graphics/7.2.3/el/9.6/main/x86_64"),
    ("6.4.0", "zypper"): apt("rocm/zyp/6.4/main", "amdgpu/6.4/sle/15.6/main/x86_64"),
    ("6.4.1", "zypper"): apt("rocm/zyp/6.4.1/main", "amdgpu/6.4.1/sle/15.6/main/x86_64"),
    ("7.0.2", "zypper"): apt("rocm/zyp/7.0.2/main", "amdgpu/30.10.2/sle/15.7/main/x86_64",
                             "graphics/7.0.2/sle/15.7/main/x86_64"),
    ("7.1.0", "zypper"): apt("rocm/zyp/7.1/main", "amdgpu/30.20/sle/15.7/main/x86_64",
                             "graphics/7.1/sle/15.7/main/x86_64"),
    ("7.2.3", "zypper"): apt("rocm/zyp/7.2.3/main", "amdgpu/30.30.3/sle/15.7/main/x86_64",
                             "graphics/7.2.3/sle/15.7/main/x86_64"),
}
# AMD's apt suite for each OS (Debian 12 through jammy: ROCm/amdgpu-docs conf.py
# debian_version_numbers [('13', 'noble'), ('12', 'jammy')]).
SUITE = {"ubuntu-22.04": J, "ubuntu-24.04": N, "debian-12": J}
RELEASES = ["6.4.0", "6.4.1", "7.0.2", "7.1.0", "7.2.3"]
# ROCm 7.x ships no SLES 15 SP6 packages (its OS list is SLES 15.7): refused
REFUSED = {("7.0.2", "sles-15.6"), ("7.1.0", "sles-15.6"), ("7.2.3", "sles-15.6")}

STATE = {}


def key():
    """A signing key the configuration names by fingerprint (AMD's cannot be
    fetched here)."""
    if "key" not in STATE:
        home = temp_dir("rd-plans-gpg.")
        os.chmod(home, 0o700)
        env = dict(os.environ, GNUPGHOME=home)
        subprocess.run(["gpg", "--batch", "--passphrase", "", "--quick-gen-key", "Stand-in <s@example.org>",
                        "rsa2048", "sign", "never"], env=env, check=True, capture_output=True)
        out = subprocess.run(["gpg", "--batch", "--with-colons", "--list-keys"], env=env, check=True,
                             capture_output=True, text=True).stdout
        fpr = [l.split(":")[9] for l in out.splitlines() if l.startswith("fpr:")][0]
        path = os.path.join(home, "key.asc")
        with open(path, "w") as f:
            f.write(subprocess.run(["gpg", "--batch", "--armor", "--export"], env=env, check=True,
                                   capture_output=True, text=True).stdout)
        STATE["key"] = (path, fpr)
    return STATE["key"]


def host(os_key):
    text, os_facts, pm = OSES[os_key] if os_key in OSES else UNLISTED[os_key]
    r = Root()
    r.write("/etc/os-release", text)
    path, fpr = key()
    r.write("/etc/rocm-doctor/rocm-doctor.conf",
            "[fix]\napt_key_file = %s\napt_key_fingerprint = %s\napt_driver = yes\napt_graphics = yes\n" % (path, fpr))
    facts = load_facts(SRC)
    facts["os"].update(os_facts)
    fpath = rdtest.remove_at_exit(r.path + ".facts.json")
    with open(fpath, "w") as f:
        json.dump(facts, f)
    return r, fpath, pm


def urls(text, pm):
    """The repository URLs a plan writes: apt's URIs with their suites, the
    baseurls of .repo files."""
    if pm == "apt":
        return re.findall(r"^\+URIs: (\S+)\n\+Suites: (\S+)$", text, re.M)
    return [(u.rstrip("/"), None) for u in re.findall(r"^\+baseurl=(\S+)$", text, re.M)]


def run(r, fpath, *args):
    env = dict(os.environ, NO_COLOR="1", LC_ALL="C")
    return subprocess.run([RD] + list(args) + ["--root", r.path, "--facts", fpath], capture_output=True, text=True,
                          env=env, timeout=120)


def plans_for(release, os_key):
    r, fpath, pm = host(os_key)
    fam = pm
    if (release, os_key) in REFUSED:
        p = run(r, fpath, "setup", "--release", release)
        rdtest.eq(p.returncode, 3, "%s on %s: refused (%s)" % (release, os_key, p.stdout + p.stderr))
        rdtest.check("AMD does not ship ROCm %s for sles 15.6" % release in p.stderr, p.stderr)
        return
    want = EXPECT[(release, fam)]
    suite = SUITE.get(os_key)
    want_urls = sorted((u, suite) for u in want.values())
    conf = r.read("/etc/rocm-doctor/rocm-doctor.conf")
    for verb in (["setup", "--release", release], ["fix", "--only", pm]):
        if verb[0] == "fix":  # fix takes the release from the configuration
            r.write("/etc/rocm-doctor/rocm-doctor.conf", conf + "rocm_release = %s\n" % release)
        p = run(r, fpath, *verb)
        expect("plan_%s_%s.%s" % (release.replace(".", "_"), os_key.replace(".", "_").replace("-", "_"), verb[0]),
               p.stdout, r, fpath, key_names(key()[1], armored=key()[0]), area="setup")
        got = sorted(urls(p.stdout, pm))
        rdtest.eq(got, want_urls, "%s %s on %s: the folders planned (exit %d, stderr %s)\n%s" %
                  (" ".join(verb), release, os_key, p.returncode, p.stderr, p.stdout))
        if release.endswith(".0"):
            rdtest.check("/%s/" % release not in "".join(u + "/" for u, _ in got), "no x.y.0 folder: %s" % got)


def make_test(release, os_key):
    def fn():
        plans_for(release, os_key)
    fn.__name__ = "plan_%s_%s" % (release.replace(".", "_"), os_key.replace(".", "_").replace("-", "_"))
    return fn


for _rel in RELEASES:
    for _os in OSES:
        rdtest.test(make_test(_rel, _os))


@rdtest.test
def release_not_in_the_table_is_refused():
    r, fpath, _ = host("ubuntu-24.04")
    p = run(r, fpath, "setup", "--release", "7.3.0")
    rdtest.eq(p.returncode, 3, "a release the tables lack: " + p.stdout + p.stderr)
    rdtest.check("--release 7.3.0" in p.stderr, p.stderr)


@rdtest.test
def x_y_names_the_x_y_0_release():
    """`--release 7.1` is ROCm 7.1.0, as AMD's folder names it."""
    r, fpath, pm = host("ubuntu-24.04")
    p = run(r, fpath, "setup", "--release", "7.1")
    rdtest.eq(sorted(urls(p.stdout, pm)), sorted((u, N) for u in EXPECT[("7.1.0", "apt")].values()),
              "setup --release 7.1: " + p.stdout + p.stderr)


@rdtest.test
def fix_corrects_a_folder_amd_never_served():
    """A host whose sources name amdgpu/7.2/ubuntu (ROCm/ROCm#5968) and
    rocm/apt/7.2: the check says apt.repo-path with the folder AMD serves,
    and fix rewrites the driver source to it."""
    r, fpath, pm = host("ubuntu-24.04")
    path, _ = key()
    r.write("/etc/apt/keyrings/rocm.gpg", open(path).read())
    r.write("/etc/apt/sources.list.d/rocm.list",
            "deb [arch=amd64 signed-by=/etc/apt/keyrings/rocm.gpg] https://repo.radeon.com/rocm/apt/7.2 noble main\n")
    r.write("/etc/apt/sources.list.d/amdgpu.list",
            "deb [arch=amd64,i386 signed-by=/etc/apt/keyrings/rocm.gpg] https://repo.radeon.com/amdgpu/7.2/ubuntu "
            "noble main\n")
    env = dict(os.environ, NO_COLOR="1")
    c = subprocess.run([RD, "check", "--json", "--root", r.path], capture_output=True, text=True, env=env)
    rep = json.loads(c.stdout)
    f = [x for x in rep["findings"] if x["id"] == "apt.repo-path"]
    rdtest.eq(len(f), 1, "apt.repo-path: %s" % [x["id"] for x in rep["findings"]])
    rdtest.eq(f[0]["severity"], "error", "severity")
    rdtest.check(any("https://repo.radeon.com/amdgpu/30.30/ubuntu" in e and "amdgpu.list:1" in e for e in f[0]["evidence"]),
                 f[0]["evidence"])
    rdtest.check(not [x for x in rep["findings"] if x["id"] == "apt.suite-mismatch"], "no suite finding")
    # the host's own sources, gathered from the root (no facts file)
    p = subprocess.run([RD, "fix", "--only", "apt", "--root", r.path], capture_output=True, text=True, env=env)
    # set right where they are: the lines of the two lists as the diff shows them
    got = sorted(re.findall(r"^[+ ]deb \[[^\]]*\] (\S+) (\S+) main$", p.stdout, re.M))
    rdtest.eq(got, sorted([(AMD + "rocm/apt/7.2", N), (AMD + "amdgpu/30.30/ubuntu", N), (AMD + "graphics/7.2/ubuntu", N)]),
              "fix plans 7.2.0's folders: " + p.stdout + p.stderr)
    rdtest.eq(re.findall(r"^-deb .*$", p.stdout, re.M),
              ["-deb [arch=amd64,i386 signed-by=/etc/apt/keyrings/rocm.gpg] %samdgpu/7.2/ubuntu noble main" % AMD],
              "only the driver line is taken out: " + p.stdout)
    rdtest.check("rocm.sources" not in p.stdout and ".disabled" not in p.stdout, "in place: " + p.stdout)


@rdtest.test
def dnf_fix_corrects_an_x_y_0_folder():
    """RHEL 9.6 whose rocm.repo names rocm/el9/7.1.0/main (a folder AMD
    names 7.1): dnf.repo-path with the folder AMD serves, and fix writes
    7.1.0's folders."""
    r, fpath, pm = host("rhel-9.6")
    r.write("/etc/yum.repos.d/rocm.repo", "[rocm]\nname=ROCm 7.1.0\nbaseurl=https://repo.radeon.com/rocm/el9/7.1.0/main\n"
            "enabled=1\ngpgcheck=1\ngpgkey=https://repo.radeon.com/rocm/rocm.gpg.key\n")
    env = dict(os.environ, NO_COLOR="1")
    c = subprocess.run([RD, "check", "--json", "--root", r.path], capture_output=True, text=True, env=env)
    f = [x for x in json.loads(c.stdout)["findings"] if x["id"] == "dnf.repo-path"]
    rdtest.eq(len(f), 1, "dnf.repo-path: " + c.stdout[-2000:])
    rdtest.check(any("rocm.repo:3" in e and "https://repo.radeon.com/rocm/el9/7.1/main" in e for e in f[0]["evidence"]),
                 f[0]["evidence"])
    p = subprocess.run([RD, "fix", "--only", "dnf", "--root", r.path], capture_output=True, text=True, env=env)
    rdtest.eq(sorted(urls(p.stdout, pm)), sorted((u, None) for u in EXPECT[("7.1.0", "dnf")].values()),
              "fix writes 7.1.0's folders: " + p.stdout + p.stderr)


@rdtest.test
def unlisted_os_release_one_refusal_then_the_nearest():
    """Ubuntu 25.10, which no ROCm release lists: setup refuses once, naming
    the nearest release AMD ships for (24.04) and the option that picks it;
    with that option the plan uses the nearest release's suite."""
    r, fpath, pm = host("ubuntu-25.10")
    p = run(r, fpath, "setup")
    expect("unlisted_os_release_one_refusal_then_the_nearest", p.stdout, r, fpath,
           key_names(key()[1], armored=key()[0]), area="setup")
    out = p.stdout.replace(r.path, "ROOT")
    rdtest.check("AMD ships no ROCm for ubuntu 25.10; the nearest release of it that AMD ships for is ubuntu 24.04 "
                 "(ROCm 7.2.4, whose packages are built for it): choose that with `--release 7.2.4`" in out, out + p.stderr)
    rdtest.eq(p.returncode, 2, "setup could not plan its repository step")
    p = run(r, fpath, "setup", "--release", "7.2.4")
    rdtest.eq(sorted(urls(p.stdout, pm)), sorted([(AMD + "rocm/apt/7.2.4", N), (AMD + "amdgpu/30.30.4/ubuntu", N),
                                           (AMD + "graphics/7.2.4/ubuntu", N)]),
              "setup --release 7.2.4 on 25.10: noble's folders (stderr %s)\n%s" % (p.stderr, p.stdout))


@rdtest.test
def headline_counts_what_is_not_planned():
    """A step that cannot be planned (the key's fingerprint is another's):
    the headline says so, never "Nothing to do" above the list."""
    r, fpath, pm = host("ubuntu-24.04")
    conf = r.read("/etc/rocm-doctor/rocm-doctor.conf")
    r.write("/etc/rocm-doctor/rocm-doctor.conf",
            re.sub(r"apt_key_fingerprint = \S+", "apt_key_fingerprint = " + "0" * 24 + "9386B48A1A693C5C", conf))
    p = run(r, fpath, "fix", "--only", "apt")
    expect("headline_counts_what_is_not_planned", p.stdout, r, fpath, key_names(key()[1], armored=key()[0]),
           area="setup")
    first = p.stdout.splitlines()[0] if p.stdout else ""
    rdtest.eq(first, "Nothing planned in this root: 1 not planned (below).", "headline: " + p.stdout + p.stderr)
    rdtest.check("Nothing to do" not in p.stdout, p.stdout)


@rdtest.test
def no_amd_gpu_nothing_to_set_up():
    """This machine has no AMD GPU: setup on it says so and plans nothing
    (exit 0); given --root it prepares that tree as asked."""
    env = dict(os.environ, NO_COLOR="1", LC_ALL="C")
    p = subprocess.run([RD, "setup"], capture_output=True, text=True, env=env, timeout=120)
    gpus = subprocess.run([RD, "check", "--json"], capture_output=True, text=True, env=env, timeout=120)
    if json.loads(gpus.stdout).get("gpus"):
        rdtest.skip("this machine has an AMD GPU: the case is a machine without one")
    rdtest.eq((p.returncode, p.stdout), (0, "No AMD GPU is visible on this host (gpu.none): nothing to set up here. To "
                                     "prepare an OS image for a machine with one, pass --root DIR (and --facts FILE "
                                     "of that machine).\n"), "setup without a GPU: " + p.stderr)
    p = subprocess.run([RD, "setup", "--json"], capture_output=True, text=True, env=env, timeout=120)
    j = json.loads(p.stdout)
    rdtest.eq((p.returncode, j["steps"], j["not_planned"]), (0, [], []), "setup --json without a GPU")
    rdtest.check("nothing to set up" in j["nothing_to_set_up"], j)


@rdtest.test
def unreachable_mirror_still_names_every_package():
    """The package manager's dry run cannot reach AMD's server: the plan
    still names every package it would install (the driver and the running
    kernel's headers for a 5.15 kernel whose amdgpu does not serve gfx1100),
    unresolved, with one line of cause; --verbose and the JSON carry what apt
    printed."""
    r, fpath, pm = host("ubuntu-24.04")
    with open(fpath) as f:
        fa = json.load(f)
    fa["os"]["kernel_release"] = "5.15.0-91-generic"
    with open(fpath, "w") as f:
        json.dump(fa, f)
    p = run(r, fpath, "setup", "--release", "7.2.3")
    line = [l for l in p.stdout.splitlines() if l.startswith("   packages: ")]
    rdtest.eq(len(line), 1, "one packages line: " + p.stdout)
    rdtest.check("the apt dry run could not run (the repository server cannot be reached from here)" in line[0]
                 and " install " in line[0] and "(unresolved)" in line[0], line[0])
    words = line[0].split(" install ")[1].replace(" (unresolved)", "").split()
    for name in ("rocm", "amdgpu-dkms", "linux-headers-5.15.0-91-generic"):
        rdtest.check(name in words, "%s among the packages: %s" % (name, line[0]))
    rdtest.check("apt-get" not in line[0], "no command line in the plan's line: " + line[0])
    rdtest.check("(--verbose shows what the package manager printed)" in p.stdout, p.stdout)
    v = run(r, fpath, "setup", "--release", "7.2.3", "--verbose")
    rdtest.check(re.search(r"^      \| .*apt-get", v.stdout, re.M), "--verbose: apt's command line: " + v.stdout)
    j = run(r, fpath, "setup", "--release", "7.2.3", "--json")
    np = [x for x in json.loads(j.stdout)["not_planned"] if x["fix"] == "packages"]
    rdtest.eq(len(np), 1, "JSON not_planned: " + j.stdout[-1500:])
    rdtest.check("apt-get" in (np[0].get("detail") or ""), np[0])


if __name__ == "__main__":
    sys.exit(rdtest.main())
