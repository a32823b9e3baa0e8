#!/usr/bin/env python3
"""Level 2 through the real binary, against whatever runtime this host has.

    test-runtime.py BINARY DOUBLE LEVEL1-FACTS.json

- The binary is not linked against libhsa-runtime64 or libamdhip64 (its
  NEEDED entries), so it runs where ROCm is missing.
- On a host without /dev/kfd (a CI container) and with Debian's (or AMD's)
  runtime installed, `check --level 2` reports the runtime's real error,
  HSA_STATUS_ERROR_OUT_OF_RESOURCES from hsa_init, as runtime.hsa-init-failed
  naming the level-1 cause, or, with no AMD GPU at all, as evidence of
  gpu.none (one error for the one cause). On a host with a GPU this part skips: the
  result there depends on the hardware.
- `verify` prints its per-GPU table (with the test double: its GPUs are the
  host's KFD nodes, none here, so the table says why nothing was tested).
- Usage errors of verify; facts --level 2 carries the runtime facts.
"""
import json
import os
import struct
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "lib"))
import rdtest  # noqa: E402

binary, double, level1_facts = sys.argv[1], os.path.abspath(sys.argv[2]), sys.argv[3]
HAVE_KFD = os.path.exists("/dev/kfd")


def run(*args, env=None):
    e = {k: v for k, v in os.environ.items() if not k.startswith(("ROCM_DOCTOR_RUNTIME", "ROCM_DOCTOR_TEST"))}
    e.update(env or {})
    p = subprocess.run([binary] + list(args), capture_output=True, text=True, env=e, timeout=120)
    return p.returncode, p.stdout, p.stderr


def needed(path):
    """DT_NEEDED entries of an ELF64 little-endian file, read directly."""
    data = open(path, "rb").read()
    phoff, = struct.unpack_from("<Q", data, 0x20)
    phentsize, phnum = struct.unpack_from("<HH", data, 0x36)
    dyn = None
    loads = []
    for i in range(phnum):
        ptype, _, off, vaddr, _, filesz, _, _ = struct.unpack_from("<IIQQQQQQ", data, phoff + i * phentsize)
        if ptype == 2:
            dyn = (off, filesz)
        elif ptype == 1:
            loads.append((vaddr, off, filesz))

    def to_off(addr):
        for vaddr, off, size in loads:
            if vaddr <= addr < vaddr + size:
                return addr - vaddr + off
        raise ValueError("address not in a segment")
    entries = []
    strtab = None
    for k in range(dyn[1] // 16):
        tag, val = struct.unpack_from("<qQ", data, dyn[0] + k * 16)
        if tag == 0:
            break
        entries.append((tag, val))
        if tag == 5:
            strtab = to_off(val)
    out = []
    for tag, val in entries:
        if tag == 1:
            start = strtab + val
            out.append(data[start:data.index(b"\0", start)].decode())
    return out


@rdtest.test
def not_linked_against_the_runtime():
    libs = needed(binary)
    rdtest.check(any(n.startswith("libc.so") for n in libs), "NEEDED entries were read", str(libs))
    rdtest.check(not any("hsa-runtime" in n for n in libs), "not linked against libhsa-runtime64", str(libs))
    rdtest.check(not any("amdhip" in n or "hiprtc" in n for n in libs),
                 "not linked against libamdhip64 or hiprtc",
                 str(libs))


@rdtest.test
def the_real_runtime_on_this_host():
    # --- the real runtime on this host
    rc, out, err = run("check", "--level", "2", "--json")
    rdtest.check(rc in (0, 1, 2) and out.startswith("{"),
                 "check --level 2 runs (exit 0-2) and prints JSON",
                 err)
    report = json.loads(out) if out.startswith("{") else {}
    rt = report.get("runtime") or {}
    rdtest.check((rt.get("child") or {}).get("status") == "exited",
                 "the report has a runtime object with the child's status",
                 json.dumps(rt.get("child")))
    ids = {f["id"]: f for f in report.get("findings", [])}
    hsa = rt.get("hsa") or {}
    if HAVE_KFD:
        rdtest.skip("this host has /dev/kfd: the real-failure checks need a host without it")
    if not hsa.get("library"):
        rdtest.check("runtime.hsa-missing" in ids,
                     "without the runtime: runtime.hsa-missing",
                     json.dumps(report.get("findings")))
    else:
        rdtest.check(hsa.get("init_status") == "HSA_STATUS_ERROR_OUT_OF_RESOURCES" and hsa.get("init_status_code") == 0x1008,
                     "real hsa_init fails with HSA_STATUS_ERROR_OUT_OF_RESOURCES",
                     json.dumps(hsa))
        none = ids.get("gpu.none")
        if none and none["severity"] == "error":
            # no AMD GPU here: gpu.none is the one error, the runtime's
            # failure its evidence
            rdtest.check("runtime.hsa-init-failed" not in ids, "no second error beside gpu.none", str(list(ids)))
            rdtest.check(any(e.startswith("level 2: ") and "hsa_init: HSA_STATUS_ERROR_OUT_OF_RESOURCES (0x1008)" in e
                             for e in none["evidence"]),
                         "gpu.none's evidence has hsa_init's status", str(none["evidence"]))
        else:
            f = ids.get("runtime.hsa-init-failed")
            rdtest.check(f is not None and f["severity"] == "error",
                         "runtime.hsa-init-failed is an error",
                         json.dumps(report.get("findings")))
            if f:
                causes = [e for e in f["evidence"] if e.startswith("cause: ")]
                level1 = [i for i, x in ids.items() if not i.startswith("runtime.") and x["severity"] == "error"]
                rdtest.check(len(causes) == 1 and causes[0].split()[1] in level1,
                             "it names the level-1 cause, one of this host's errors",
                             "%s / %s" % (causes, level1))
                rdtest.check(any("(0x1008): " in e for e in f["evidence"]),
                             "its evidence quotes hsa_status_string",
                             str(f["evidence"]))
        rdtest.check("runtime.no-device" not in ids, "HIP's own failure is not reported separately", str(list(ids)))
        hip = rt.get("hip") or {}
        rdtest.check(hip.get("library") and hip.get("device_count") == 0,
                     "libamdhip64 was loaded and asked",
                     json.dumps(hip))
        rdtest.check(rt.get("devices") == [], "no runtime device was tested", json.dumps(rt.get("devices")))
        ver = hip.get("runtime_version") or ""
        want_cov = 4 if ver.startswith("5.") else 5
        rdtest.check(hip.get("code_object_version") == want_cov,
                     "the runtime's version %s calls for code object v%d" % (ver, want_cov),
                     json.dumps(hip))

        rc, out, err = run("verify")
        rdtest.check(rc == 2, "verify exits 2", "rc=%d %s" % (rc, err))
        rdtest.check("Runtime (level 2)" in out and "no GPU tested: hsa_init: HSA_STATUS_ERROR_OUT_OF_RESOURCES" in out,
                     "verify prints the runtime header and why nothing was tested",
                     out)
        if none and none["severity"] == "error":
            rdtest.check("No GPU was tested." in out and "see rocm-doctor check" in out and
                         "[runtime.hsa-init-failed]" not in out,
                         "verify says no GPU was tested and points to check for gpu.none", out)
        else:
            rdtest.check("[runtime.hsa-init-failed]" in out, "verify shows the runtime finding", out)


@rdtest.test
def the_double_without_gpus():
    # --- the test double without GPUs: hsa_init fails as the real one does without /dev/kfd
    if HAVE_KFD:
        rdtest.skip("this host has /dev/kfd: the double without GPUs needs a host without it")
    rc, out, err = run("check", "--level", "2", "--json", env={"ROCM_DOCTOR_RUNTIME_LIB": double})
    rep = json.loads(out)
    rdtest.check(rep["runtime"]["hsa"]["library"] == double,
                 "the double is loaded from ROCM_DOCTOR_RUNTIME_LIB",
                 json.dumps(rep["runtime"]["hsa"]))
    rc, out, err = run("check", "--level", "2", "--json", env={"ROCM_DOCTOR_RUNTIME_LIB": "/nonexistent/lib.so"})
    rep = json.loads(out)
    ids2 = [f["id"] for f in rep["findings"]]
    rdtest.check(rc == 2 and "runtime.hsa-missing" in ids2 and "runtime.hip-missing" in ids2,
                 "an unloadable runtime is runtime.hsa-missing and runtime.hip-missing, not a crash",
                 str(ids2))
    ev = [f for f in rep["findings"] if f["id"] == "runtime.hsa-missing"]
    rdtest.check(ev and "libhsa-runtime64-1" in (ev[0]["remedy"] or "")
                 or ev and "hsa-rocr" in (ev[0]["remedy"] or ""),
                 "runtime.hsa-missing names the package",
                 json.dumps(ev))


@rdtest.test
def rocm_path_search_order():
    # --- where the libraries come from: $ROCM_PATH/lib before the system path,
    # the newest soname first
    with tempfile.TemporaryDirectory() as rocm:
        os.mkdir(os.path.join(rocm, "lib"))
        for name in ("libhsa-runtime64.so.1", "libamdhip64.so.7", "libamdhip64.so.5"):
            os.symlink(double, os.path.join(rocm, "lib", name))
        rc, out, err = run("check", "--level", "2", "--json", env={"ROCM_PATH": rocm})
        rep = json.loads(out)
        rdtest.check(rep["runtime"]["hsa"]["library"] == rocm + "/lib/libhsa-runtime64.so.1",
                     "ROCM_PATH/lib is searched first",
                     json.dumps(rep["runtime"]["hsa"]))
        rdtest.check(rep["runtime"]["hip"]["library"] == rocm + "/lib/libamdhip64.so.7",
                     "libamdhip64.so.7 is preferred to .so.5",
                     json.dumps(rep["runtime"]["hip"]))
        # a file that is no library: the next candidate is used, here the system's
        for name in ("libhsa-runtime64.so.1", "libamdhip64.so.7", "libamdhip64.so.5"):
            os.unlink(os.path.join(rocm, "lib", name))
            with open(os.path.join(rocm, "lib", name), "w") as f:
                f.write("not a library\n")
        rc, out, err = run("check", "--level", "2", "--json", env={"ROCM_PATH": rocm})
        rep = json.loads(out)
        lib = rep["runtime"]["hsa"]["library"] or ""
        err_text = rep["runtime"]["hsa"]["load_error"] or ""
        rdtest.check(rc in (1, 2) and not lib.startswith(rocm) and (lib or "invalid ELF header" in err_text or rocm in err_text),
                     "a broken library under ROCM_PATH is passed over (no crash)",
                     json.dumps(rep["runtime"]["hsa"]))


@rdtest.test
def verify_rocm_path_dir():
    # --- verify --rocm-path DIR: the runtime from DIR alone, as a wheel's
    # _rocm_sdk_core/lib holds it (the sonames only); here links to the host's
    # real libraries (Debian's libhsa-runtime64-1 and libamdhip64-5 in CI)
    real = {}
    for name, soname in (("hsa", "libhsa-runtime64.so.1"), ("hip", "libamdhip64.so.5")):
        for d in ("/usr/lib/x86_64-linux-gnu", "/usr/lib64", "/usr/lib"):
            if os.path.exists(os.path.join(d, soname)):
                real[name] = (os.path.join(d, soname), soname)
                break
    if len(real) < 2 or HAVE_KFD:
        rdtest.skip("verify --rocm-path needs Debian's libhsa-runtime64.so.1 and libamdhip64.so.5 and no /dev/kfd")
    with tempfile.TemporaryDirectory() as top:
        venv = os.path.join(top, "venv")
        sp = os.path.join(venv, "lib", "python3.12", "site-packages")
        lib = os.path.join(sp, "_rocm_sdk_core", "lib")
        os.makedirs(lib)
        for path, soname in real.values():
            os.symlink(path, os.path.join(lib, soname))
        os.makedirs(os.path.join(sp, "rocm_sdk_core-7.1.0.dist-info"))
        with open(os.path.join(sp, "rocm_sdk_core-7.1.0.dist-info", "METADATA"), "w") as f:
            f.write("Metadata-Version: 2.1\nName: rocm-sdk-core\nVersion: 7.1.0\n")
        os.makedirs(os.path.join(venv, "bin"))
        os.symlink(sys.executable, os.path.join(venv, "bin", "python"))
        # ROCM_PATH points at the test double: --rocm-path must win over it
        with tempfile.TemporaryDirectory() as other:
            os.mkdir(os.path.join(other, "lib"))
            for name in ("libhsa-runtime64.so.1", "libamdhip64.so.5"):
                os.symlink(double, os.path.join(other, "lib", name))
            rc, out, err = run("verify", "--rocm-path", lib, "--json", env={"ROCM_PATH": other})
        rep = json.loads(out) if out.startswith("{") else {}
        rt = rep.get("runtime") or {}
        rdtest.check(rt.get("rocm_path") == lib,
                     "verify --rocm-path: runtime.rocm_path names the directory",
                     "rc=%d %s %s" % (rc, json.dumps(rt.get("rocm_path")), err))
        rdtest.check((rt.get("hsa") or {}).get("library") == os.path.join(lib, "libhsa-runtime64.so.1"),
                     "verify --rocm-path loads libhsa-runtime64 from DIR, not ROCM_PATH",
                     json.dumps(rt.get("hsa")))
        rdtest.check((rt.get("hip") or {}).get("library") == os.path.join(lib, "libamdhip64.so.5"),
                     "verify --rocm-path loads libamdhip64 from DIR",
                     json.dumps(rt.get("hip")))
        rdtest.check((rt.get("hsa") or {}).get("init_status") == "HSA_STATUS_ERROR_OUT_OF_RESOURCES" and rc == 2,
                     "the real runtime from DIR fails as it does without /dev/kfd",
                     "rc=%d %s" % (rc, json.dumps(rt.get("hsa"))))
        rc, out, err = run("verify", "--rocm-path", lib)
        unwrapped = "".join(line.strip() for line in out.splitlines())
        rdtest.check(rc == 2 and os.path.join(lib, "libhsa-runtime64.so.1") + ", HIP 5." in unwrapped,
                     "verify --rocm-path in text: the runtime section names DIR's library",
                     out)

        rc, out, err = run("verify", "--python", os.path.join(venv, "bin", "python"), "--json")
        rep = json.loads(out) if out.startswith("{") else {}
        rt = rep.get("runtime") or {}
        rdtest.check(rt.get("rocm_path") == lib and (rt.get("hip") or {}).get("library") == os.path.join(
                         lib, "libamdhip64.so.5"),
                     "verify --python VENV runs level 2 with the wheels' runtime",
                     "rc=%d %s %s" % (rc, json.dumps(rt), err))
        rdtest.check([w.get("version") for w in rep.get("wheels", []) if w.get("source") == "--python"] == ["7.1.0"],
                     "verify --python VENV reports the wheels",
                     json.dumps(rep.get("wheels")))

        rc, out, err = run("check", "--python", venv)
        unwrapped = " ".join(line.strip() for line in out.splitlines())
        rdtest.check("ROCm Python wheels ROCm 7.1.0, %s (--python)" % venv in unwrapped and
                     "_rocm_sdk_core/lib/libamdhip64.so.5" in unwrapped.replace(" ", ""),
                     "check --python VENV: the text report lists the wheels",
                     out)

        empty = os.path.join(top, "empty")
        os.mkdir(empty)
        rc, out, err = run("verify", "--rocm-path", empty, "--json")
        rep = json.loads(out) if out.startswith("{") else {}
        ids3 = [f["id"] for f in rep.get("findings", [])]
        hsa = (rep.get("runtime") or {}).get("hsa") or {}
        rdtest.check(rc == 2 and "runtime.hsa-missing" in ids3 and "runtime.hip-missing" in ids3,
                     "verify --rocm-path with no runtime there: runtime.hsa-missing and runtime.hip-missing",
                     str(ids3))
        rdtest.check(hsa.get("library") is None and
                     (empty + " only") in (hsa.get("load_error") or ""),
                     "... and the system's libraries are not tried",
                     json.dumps(hsa))


@rdtest.test
def rocm_path_usage_errors():
    rc, out, err = run("verify", "--rocm-path", "/nonexistent/rocm/lib")
    rdtest.check(rc == 3 and "--rocm-path /nonexistent/rocm/lib: ENOENT" in err,
                 "verify --rocm-path with a missing directory is a usage error",
                 "rc=%d %s" % (rc, err))
    rc, out, err = run("check", "--rocm-path", "/tmp")
    rdtest.check(rc == 3 and "--rocm-path is not an option of the check command" in err,
                 "check --rocm-path is rejected",
                 err)


@rdtest.test
def facts_level_2_carry_the_runtime():
    # --- facts --level 2 carries the runtime; check --facts re-assesses it
    rc, out, err = run("facts", "--level", "2")
    out_facts = out
    facts = json.loads(out) if rc == 0 else {}
    rdtest.check(facts.get("runtime", {}).get("ran") is True, "facts --level 2 includes runtime facts", err)
    if facts.get("runtime", {}).get("ran"):
        with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as tmp:
            tmp.write(out_facts)
        rdtest.remove_at_exit(tmp.name)
        try:
            rc, out, err = run("check", "--facts", tmp.name, "--json")
            rep = json.loads(out) if out.startswith("{") else {}
            out_live = run("check", "--level", "2", "--json")[1]
            report = json.loads(out_live) if out_live.startswith("{") else {}
            live = sorted(f["id"] for f in report.get("findings", []))
            again = sorted(f["id"] for f in rep.get("findings", []))
            rdtest.check(rc in (0, 1, 2) and again == live,
                         "check --facts re-assesses saved level-2 facts to the same findings",
                         "%s / %s" % (again, live))
            rc, out, err = run("verify", "--facts", tmp.name)
            rdtest.check("Runtime (level 2)" in out and rc in (0, 1, 2),
                         "verify --facts with level-2 facts prints the table",
                         out + err)
        finally:
            os.unlink(tmp.name)
    rc, out, err = run("verify", "--facts", level1_facts)
    rdtest.check(rc == 3 and level1_facts in err and "no level-2 results" in err,
                 "verify --facts with level-1 facts: exit 3 naming the file",
                 err)
    rc, out, err = run("facts")
    rdtest.check(json.loads(out).get("runtime", {}).get("ran") is False,
                 "facts at level 1 does not run the runtime",
                 out[:200])


@rdtest.test
def with_python_runs_the_python_interpreter():
    # --- --with-python runs --python's interpreter
    fake_torch = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "scenarios", "fake-torch")
    with tempfile.TemporaryDirectory() as venv:
        os.makedirs(os.path.join(venv, "bin"))
        py = os.path.join(venv, "bin", "python3")
        with open(py, "w") as f:
            f.write("#!/bin/sh\nROCM_DOCTOR_FAKE_TORCH=rocm:6.2.41133:gfx942 exec %s \"$@\"\n" % sys.executable)
        os.chmod(py, 0o755)
        env = {"PYTHONPATH": os.path.abspath(fake_torch), "PYTHONDONTWRITEBYTECODE": "1", "ROCM_DOCTOR_FAKE_TORCH": "cpu"}
        rc, out, err = run("facts", "--with-python", "--python", venv, env=env)
        torch = json.loads(out).get("torch", {}) if out.startswith("{") else {}
        rdtest.check(torch.get("python") == py and torch.get("hip") == "6.2.41133",
                     "--with-python --python VENV runs VENV/bin/python3",
                     json.dumps(torch) + err)
        rc, out, err = run("facts", "--with-python", env=env)
        torch = json.loads(out).get("torch", {}) if out.startswith("{") else {}
        rdtest.check(torch.get("python") == "python3" and torch.get("hip") is None,
                     "--with-python alone runs python3 from PATH",
                     json.dumps(torch) + err)


@rdtest.test
def usage_errors():
    # --- usage
    rc, out, err = run("verify", "--level", "1")
    rdtest.check(rc == 3 and "verify always runs level 2" in err, "verify --level 1 is a usage error", err)
    rc, out, err = run("verify", "extra")
    rdtest.check(rc == 3 and 'unexpected argument "extra"' in err,
                 "verify with an argument is a usage error",
                 err)
    rc, out, err = run("verify", "--apply")
    rdtest.check(rc == 3 and "--apply is not an option of the verify command" in err,
                 "verify --apply is rejected",
                 err)


sys.exit(rdtest.main())
