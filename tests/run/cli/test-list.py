#!/usr/bin/env python3
"""`rocm-doctor list` through the real binary (text and JSON, errors, a
malformed table), and the facts round trip of the compatibility checks:
`facts` inside a scenario's testbed, then `check --facts` gives the same
findings as `check` there.

    test-list.py ROCM_DOCTOR [TB_RUN]
"""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "lib"))
import rdtest  # noqa: E402
BIN = os.path.abspath(sys.argv[1])
TB_RUN = os.path.abspath(sys.argv[2]) if len(sys.argv) > 2 else None
SRC = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
CONF = os.environ.get("ROCM_DOCTOR_DATA_DIR", os.path.join(SRC, "conf"))


SECTIONS = re.findall(r"^\[(gfx[0-9a-f]+)\]", open(os.path.join(CONF, "archs.ini")).read(), re.M)


def run(*args, env=None):
    return rdtest.run(BIN, *args, env=env)


@rdtest.test
def list_archs_text():
    # ---- list archs ----
    rc, out, err = run("list", "archs")
    lines = out.splitlines()
    rdtest.check(rc == 0 and err == "", "list archs: exit 0, nothing on stderr", err)
    rdtest.check(re.match(r"# archs.ini: table archs, version \S+, \d{4}-\d\d-\d\d$", lines[0]) is not None
                 and re.match(r"# support.ini: table support, version \S+, \d{4}-\d\d-\d\d$", lines[1]) is not None,
                 "list archs: states each table's version and date",
                 out)
    rdtest.check(all(len(l) <= 80 for l in lines),
                 "list archs: fits 80 columns",
                 "\n".join(l for l in lines if len(l) > 80))
    rows = {l.split()[0]: l.split() for l in lines if l.startswith("gfx")}
    rdtest.check(sorted(rows) == sorted(SECTIONS),
                 "list archs: one row per gfx target of archs.ini",
                 f"{sorted(rows)} != {sorted(SECTIONS)}")
    rdtest.check(rows.get("gfx1100", [])[:7] ==
                 ["gfx1100", "110000", "gfx11", "no", "fw<509", "11.0.0", "5.7-7.2"],
                 "list archs: gfx1100 row",
                 rows.get("gfx1100"))
    rdtest.check(rows.get("gfx906", [])[6:8] == ["5.0-5.7", "d6.4"],
                 "list archs: gfx906 deprecated after 5.7",
                 rows.get("gfx906"))
    rdtest.check(rows.get("gfx1031", [])[:7] == ["gfx1031", "100301", "gfx10.3", "no", "fw<92", "10.3.0", "-"],
                 "list archs: gfx1031 unsupported, override of its family",
                 rows.get("gfx1031"))


@rdtest.test
def list_archs_json():
    rc, out, err = run("list", "archs", "--json")
    try:
        j = json.loads(out)
    except ValueError as e:
        j = {}
        rdtest.check(False, "list archs --json is JSON", f"{e}: {out[:300]}")
    archs = {a["gfx"]: a for a in j.get("archs", [])}
    rdtest.check(rc == 0 and
                 [t["name"] for t in j.get("tables", [])] == ["archs", "support"],
                 "list archs --json: exit 0, the two tables",
                 out[:300])
    rdtest.check(sorted(archs) == sorted(SECTIONS), "list archs --json: every target")
    g = archs.get("gfx1100", {})
    rdtest.check(g.get("gfx_target_version") == 110000 and g.get("family") == "gfx11" and g.get("apu") is False
                 and g.get("atomics") == "firmware" and g.get("atomics_min_firmware") == 509
                 and g.get("override") == "11.0.0" and "6.2" in g.get("supported_in", [])
                 and g.get("deprecated_in") == [],
                 "list archs --json: gfx1100 fields",
                 g)
    g = archs.get("gfx942", {})
    rdtest.check(g.get("atomics") == "not-required" and g.get("atomics_min_firmware") is None
                 and g.get("supported_in", [None])[0] == "6.0",
                 "list archs --json: gfx942 needs no atomics, no firmware threshold",
                 g)
    rdtest.check(archs.get("gfx906", {}).get("deprecated_in") == ["6.0", "6.1", "6.2", "6.3", "6.4"],
                 "list archs --json: gfx906 deprecated 6.0-6.4",
                 archs.get("gfx906"))
    rdtest.check(archs.get("gfx1151", {}).get("apu") is True
                 and archs.get("gfx90c", {}).get("apu") is True,
                 "list archs --json: APUs flagged")


@rdtest.test
def list_releases():
    # ---- list releases ----
    rc, out, err = run("list", "releases")
    rdtest.check(rc == 0 and "ROCm 6.2 (latest 6.2.4, 2024-08), amdgpu-dkms 6.8.5, driver window "
                 "2 releases" in out and "  debian 12, apt suite jammy, kernels 6.1" in out,
                 "list releases: text",
                 out[:600])
    rc, out, err = run("list", "releases", "--json")
    j = json.loads(out) if rc == 0 else {}
    rels = j.get("releases", [])
    rdtest.check([r["release"] for r in rels][:3] == ["5.0", "5.1", "5.2"] and j.get("table", {}).get("name") == "support",
                 "list releases --json: oldest first, table stated",
                 out[:300])
    r62 = next((r for r in rels if r["release"] == "6.2"), {})
    rdtest.check(r62.get("latest") == "6.2.4" and r62.get("apt_suite") == "codename"
                 and r62.get("window") == {"releases": 2} and r62.get("dkms") == "6.8.5"
                 and {"id": "ubuntu", "version_id": "24.04", "codename": "noble", "apt_suite": "noble",
                      "kernels": ["6.8"]} in r62.get("os", []),
                 "list releases --json: 6.2",
                 r62)
    r57 = next((r for r in rels if r["release"] == "5.7"), {})
    # rocm/apt/5.7 jammy (ROCm/ROCm#4575): the codename, as from 5.3 on
    rdtest.check(r57.get("apt_suite") == "codename", "list releases --json: 5.7 uses the codename suite", r57)
    repos = {r["release"]: r for r in j.get("repositories", [])}
    r640 = repos.get("6.4.0", {})
    rdtest.check(j.get("repositories_table", {}).get("name") == "repos" and j["repositories_table"].get("date")
                 and r640.get("apt", {}).get("rocm") == "rocm/apt/6.4" and r640.get("driver") == "6.4"
                 and r640.get("el", {}).get("rocm") == "rocm/el{major}/6.4/main" and "9.5" in r640.get("el", {}).get("trees", [])
                 and r640.get("sources"),
                 "list releases --json: the repository table, its date and 6.4.0's folders",
                 r640)
    r720 = repos.get("7.2.0", {})
    rdtest.check(r720.get("driver") == "30.30"
                 and r720.get("apt", {}).get("amdgpu") == "amdgpu/30.30/ubuntu"
                 and r720.get("apt", {}).get("graphics") == "graphics/7.2/ubuntu",
                 "list releases --json: 7.2.0's driver has its own number",
                 r720)
    rc, out, err = run("list", "releases")
    rdtest.check(re.search(r"^# repos.ini: table repos, version 1, \d{4}-\d\d-\d\d$", out, re.M) is not None
                 and "  7.2.3 (2026-05-05), driver 30.30.3: rocm/apt/7.2.3, amdgpu/30.30.3/ubuntu, graphics/7.2.3/ubuntu\n"
                 in out,
                 "list releases: the repository table's date and 7.2.3's folders",
                 out[:400])
    rdtest.check("(null)" not in out and "  6.0.1 (date not known), driver 6.0.1: rocm/apt/6.0.1" in out,
                 "list releases: a point release without a date says so (never \"(null)\")",
                 [l for l in out.splitlines() if "6.0.1" in l])


@rdtest.test
def list_checks_and_usecases():
    # ---- list checks ----
    rc, out, err = run("list", "checks", "--json")
    j = json.loads(out) if rc == 0 else {}
    checks = {c["id"]: c for c in j.get("checks", [])}
    ids = [c["id"] for c in j.get("checks", [])]
    rdtest.check(ids[:11] == ["os", "pci", "drm", "driver", "kfd", "access", "boot", "packages-rpm", "rocm", "apt",
                              "repos-rpm"],
                 "list checks --json: probes in gather order",
                 ids)
    rdtest.check(checks.get("repos-rpm", {}).get("findings") ==
                 ["dnf.repo-invalid", "dnf.repo-missing", "dnf.repo-path", "dnf.release-mismatch", "dnf.gpgcheck-off",
                  "dnf.key-missing", "dnf.prereq-repo-missing", "zypper.repo-invalid", "zypper.repo-missing", "zypper.repo-path",
                  "zypper.release-mismatch", "zypper.gpgcheck-off", "zypper.key-missing"],
                 "list checks --json: repos-rpm's findings",
                 checks.get("repos-rpm"))
    rdtest.check(checks.get("packages-rpm", {}).get("findings") ==
                 ["rpm.database-unreadable", "kernel.devel-missing"],
                 "list checks --json: packages-rpm's findings",
                 checks.get("packages-rpm"))
    rdtest.check(checks.get("rocm", {}).get("findings") ==
                 ["rocm.not-installed", "rocm.multiple-versions", "path.rocm-bin-missing", "arch.no-kernels",
                  "arch.unsupported", "driver.userspace-mismatch", "kernel.unsupported", "tables.older-than-host",
                  "rocm.release-moving", "rocm.release-unsupported", "tables.folder-unknown"],
                 "list checks --json: rocm's findings",
                 checks.get("rocm"))
    rdtest.check(checks.get("apt", {}).get("findings") ==
                 ["apt.repo-missing", "apt.repo-path", "apt.suite-mismatch", "apt.key-missing", "apt.key-deprecated",
                  "apt.no-signed-by", "apt.pin-missing"],
                 "list checks --json: apt's findings",
                 checks.get("apt"))
    rdtest.check(checks.get("boot", {}).get("findings") == ["driver.secure-boot-dkms",
                                                                                       "driver.dkms-build-failed"]
                 and checks["boot"]["level"] == 1 and checks["boot"]["title"] == "Secure Boot, lockdown and DKMS",
                 "list checks --json: boot")
    rc, out, err = run("list", "checks")
    rdtest.check(rc == 0 and re.search(r"^apt +apt repositories, keys and pinning\n +apt.repo-missing$", out, re.M) is not None,
                 "list checks: text names probes and their findings",
                 out)

    rc, out, err = run("list", "usecases", "--json")
    j = json.loads(out) if rc == 0 else {}
    uc = {u["usecase"]: u for u in j.get("usecases", [])}
    rdtest.check(list(uc) == ["rocm", "runtime", "hip-sdk", "ml-sdk",
                                                                                     "driver"],
                 "list usecases --json: the use cases of packages.ini",
                 out)
    rdtest.check(uc.get("runtime", {}).get("packages") == {"apt": ["rocm-hip-runtime", "rocm-opencl-runtime"],
                                                           "dnf": ["rocm-hip-runtime", "rocm-opencl-runtime"],
                                                           "zypper": ["rocm-hip-runtime", "rocm-opencl-runtime"]},
                 "list usecases --json: runtime's packages per manager",
                 out)
    rdtest.check([n for n, u in uc.items() if u["default"]] == ["rocm", "driver"] and uc.get("driver", {}).get("driver") is True,
                 "list usecases --json: the defaults and the driver",
                 out)
    rc, out, err = run("list", "usecases")
    rdtest.check(rc == 0 and "\nruntime: what applications need to run" in out and
                 "  apt     amdgpu-dkms\n" in out,
                 "list usecases: text",
                 out)


@rdtest.test
def list_fixes_and_the_files_checks_read():
    # ---- fixes, and the files each check reads ----
    rc, out, err = run("list", "fixes", "--json")
    fixes = [f["id"] for f in json.loads(out)["fixes"]] if rc == 0 else []
    rdtest.check(fixes ==
                 ["group", "udev", "modprobe", "apt", "dnf", "zypper", "packages", "env", "cmdline", "slurm-gres"],
                 "list fixes --json: the fix ids in plan order",
                 fixes)
    rc, out, err = run("list", "fixes")
    rdtest.check(rc == 0 and [l.split()[0] for l in out.splitlines()] == fixes,
                 "list fixes: one line per fix, id first",
                 out)
    reads = {c["id"]: c["reads"] for c in json.loads(run("list", "checks", "--json")[1])["checks"]}
    rdtest.check(reads.get("os") == [
                 {"path": "/etc/os-release", "directory": False}, {"path": "/usr/lib/os-release", "directory": False}],
                 "list checks --json: os reads the two os-release files",
                 reads.get("os"))
    rdtest.check(reads.get("pci") == [],
                 "list checks --json: a check that reads no OS file has empty reads",
                 reads.get("pci"))


@rdtest.test
def errors_exit_3_with_the_hint():
    # ---- errors ----
    for args, needle in [(["list"], "list needs what to list: archs, releases, gpus, checks, fixes or usecases"),
                         (["list", "boards"], 'cannot list "boards": archs, releases, gpus, checks, fixes or usecases'),
                         (["list", "archs", "more"], 'unexpected argument "more"'),
                         (["list", "archs", "--root", "/"], "--root is not an option of the list command"),
                         (["list", "checks", "--format", "prometheus"], "list prints text or json")]:
        rc, out, err = run(*args)
        rdtest.check(rc == 3 and out == "" and
                     err.splitlines()[0] == "rocm-doctor: " + needle and len(err.splitlines()) == 2,
                     f"{' '.join(args)}: exit 3, one line and the hint",
                     f"rc={rc} err={err!r}")


@rdtest.test
def a_malformed_table_fails_with_file_and_line():
    # ---- a malformed table stops list and check with file:line ----
    tmp = tempfile.mkdtemp(prefix="rocm-doctor-list-")
    try:
        for name in ("archs.ini", "pci-ids.ini", "support.ini"):
            shutil.copy(os.path.join(CONF, name), tmp)
        path = os.path.join(tmp, "support.ini")
        text = open(path).read().splitlines(keepends=True)
        n = next(i for i, l in enumerate(text) if l.startswith("gfx = ")) + 1
        text[n - 1] = "gfx = gfx942 gfx4242\n"
        open(path, "w").writelines(text)
        want = f'rocm-doctor: {path}:{n}: gfx: "gfx4242" is not a gfx target of archs.ini'
        for args in (["list", "archs"], ["check", "--json"]):
            rc, out, err = run(*args, env={"ROCM_DOCTOR_DATA_DIR": tmp})
            rdtest.check(rc == 3 and err.strip() == want and out == "",
                         f"malformed support.ini: {' '.join(args)} exits 3 naming file and line",
                         f"rc={rc} err={err!r} want={want!r}")
        rc, out, err = run("list", "checks", env={"ROCM_DOCTOR_DATA_DIR": tmp})
        rdtest.check(rc == 0, "list checks needs no table", err)
    finally:
        shutil.rmtree(tmp)


@rdtest.test
def facts_round_trip_on_testbeds():
    # ---- facts round trip on scenario testbeds ----
    if not (TB_RUN and os.path.exists(TB_RUN)):
        rdtest.skip("tb-run not built: the facts round trip on testbeds needs it")
    sys.path.insert(0, os.path.join(SRC, "tests", "run", "scenarios"))
    sys.dont_write_bytecode = True
    import run as scenario_run  # noqa: E402  (registers every scenarios_*.py)
    import scenarios  # noqa: E402

    def key(report):
        return [(f["id"], f["severity"], f["evidence"], f["remedy"]) for f in report["findings"]]

    for name in ("healthy-8x-mi300x-rocm-dkms", "rocm-multiple-versions", "arch-no-kernels", "apt-key-legacy",
                 "apt-suite-mismatch", "secure-boot-dkms", "driver-userspace-mismatch"):
        sc = scenarios.build(name)
        d = tempfile.mkdtemp(prefix="rocm-doctor-rt-")
        try:
            paths = sc.tb.write(d)
            env = scenario_run.child_env(sc.env)
            live = subprocess.run(scenario_run.tb_run_command(TB_RUN, paths, sc.tb,
                                                              [BIN, "check", "--json", "--root", paths["root"]]),
                                  capture_output=True, text=True, env=env)
            facts = subprocess.run(scenario_run.tb_run_command(TB_RUN, paths, sc.tb,
                                                               [BIN, "facts", "--root", paths["root"]]),
                                   capture_output=True, text=True, env=env)
            fpath = os.path.join(d, "facts.json")
            open(fpath, "w").write(facts.stdout)
            again = subprocess.run([BIN, "check", "--json", "--facts", fpath], capture_output=True, text=True,
                                   env=env)
            try:
                a, b = json.loads(live.stdout), json.loads(again.stdout)
                fj = json.loads(facts.stdout)
            except ValueError as e:
                rdtest.check(False, f"round trip {name}: JSON", f"{e}\n{live.stderr}{facts.stderr}{again.stderr}")
                continue
            rdtest.check(key(a) == key(b) and live.returncode == again.returncode and key(a) != [] or
                         (name.startswith("healthy") and key(a) == key(b) == []),
                         f"round trip {name}: check --facts reports what check did",
                         f"live {key(a)}\nfacts {key(b)}")
            rdtest.check(fj["rocm"]["checked"] is True and fj["apt"]["present"] is True
                         and isinstance(fj["boot"]["secure_boot"], int),
                         f"round trip {name}: the facts hold the compat areas",
                         json.dumps(fj["rocm"])[:300])
        finally:
            shutil.rmtree(d, ignore_errors=True)


sys.exit(rdtest.main())
