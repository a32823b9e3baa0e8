#!/usr/bin/env python3
"""Level 2 through the real binary, against whatever runtime this host has.

    test-runtime.py BINARY DOUBLE LEVEL1-FACTS.json

- The binary is not linked against libhsa-runtime64 or libamdhip64 (its
  NEEDED entries), so it runs where ROCm is missing.
- On a host without /dev/kfd (a CI container) and with Debian's (or AMD's)
  runtime installed, `check --level 2` reports the runtime's real error,
  HSA_STATUS_ERROR_OUT_OF_RESOURCES from hsa_init, as runtime.hsa-init-failed
  and names the level-1 cause. On a host with a GPU this part skips: the
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

binary, double, level1_facts = sys.argv[1], os.path.abspath(sys.argv[2]), sys.argv[3]
failed = passed = skipped = 0


def check(name, ok, detail=""):
    global failed, passed
    if ok:
        passed += 1
        print("ok - " + name)
    else:
        failed += 1
        print("FAIL - %s\n  %s" % (name, detail))


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


libs = needed(binary)
check("NEEDED entries were read", any(n.startswith("libc.so") for n in libs), str(libs))
check("not linked against libhsa-runtime64", not any("hsa-runtime" in n for n in libs), str(libs))
check("not linked against libamdhip64 or hiprtc", not any("amdhip" in n or "hiprtc" in n for n in libs), str(libs))

# --- the real runtime on this host
rc, out, err = run("check", "--level", "2", "--json")
check("check --level 2 runs (exit 0-2) and prints JSON", rc in (0, 1, 2) and out.startswith("{"), err)
report = json.loads(out) if out.startswith("{") else {}
rt = report.get("runtime") or {}
check("the report has a runtime object with the child's status", (rt.get("child") or {}).get("status") == "exited",
      json.dumps(rt.get("child")))
ids = {f["id"]: f for f in report.get("findings", [])}
have_kfd = os.path.exists("/dev/kfd")
hsa = rt.get("hsa") or {}
if have_kfd:
    skipped += 1
    print("skip - this host has /dev/kfd: the real-failure checks need a host without it")
elif not hsa.get("library"):
    check("without the runtime: runtime.hsa-missing", "runtime.hsa-missing" in ids, json.dumps(report.get("findings")))
else:
    check("real hsa_init fails with HSA_STATUS_ERROR_OUT_OF_RESOURCES",
          hsa.get("init_status") == "HSA_STATUS_ERROR_OUT_OF_RESOURCES" and hsa.get("init_status_code") == 0x1008,
          json.dumps(hsa))
    f = ids.get("runtime.hsa-init-failed")
    check("runtime.hsa-init-failed is an error", f is not None and f["severity"] == "error", json.dumps(report.get("findings")))
    if f:
        causes = [e for e in f["evidence"] if e.startswith("cause: ")]
        level1 = [i for i, x in ids.items() if not i.startswith("runtime.") and x["severity"] == "error"]
        check("it names the level-1 cause, one of this host's errors",
              len(causes) == 1 and causes[0].split()[1] in level1, "%s / %s" % (causes, level1))
        check("its evidence quotes hsa_status_string", any("(0x1008): " in e for e in f["evidence"]), str(f["evidence"]))
    check("HIP's own failure is not reported separately", "runtime.no-device" not in ids, str(list(ids)))
    hip = rt.get("hip") or {}
    check("libamdhip64 was loaded and asked", hip.get("library") and hip.get("device_count") == 0, json.dumps(hip))
    check("no runtime device was tested", rt.get("devices") == [], json.dumps(rt.get("devices")))
    ver = hip.get("runtime_version") or ""
    want_cov = 4 if ver.startswith("5.") else 5
    check("the runtime's version %s calls for code object v%d" % (ver, want_cov),
          hip.get("code_object_version") == want_cov, json.dumps(hip))

    rc, out, err = run("verify")
    check("verify exits 2", rc == 2, "rc=%d %s" % (rc, err))
    check("verify prints the runtime header and why nothing was tested",
          "Runtime (level 2)" in out and "no GPU tested: hsa_init: HSA_STATUS_ERROR_OUT_OF_RESOURCES" in out, out)
    check("verify shows the runtime finding", "[runtime.hsa-init-failed]" in out, out)

# --- the test double without GPUs: hsa_init fails as the real one does without /dev/kfd
if not have_kfd:
    rc, out, err = run("check", "--level", "2", "--json", env={"ROCM_DOCTOR_RUNTIME_LIB": double})
    rep = json.loads(out)
    check("the double is loaded from ROCM_DOCTOR_RUNTIME_LIB", rep["runtime"]["hsa"]["library"] == double,
          json.dumps(rep["runtime"]["hsa"]))
    rc, out, err = run("check", "--level", "2", "--json", env={"ROCM_DOCTOR_RUNTIME_LIB": "/nonexistent/lib.so"})
    rep = json.loads(out)
    ids2 = [f["id"] for f in rep["findings"]]
    check("an unloadable runtime is runtime.hsa-missing and runtime.hip-missing, not a crash",
          rc == 2 and "runtime.hsa-missing" in ids2 and "runtime.hip-missing" in ids2, str(ids2))
    ev = [f for f in rep["findings"] if f["id"] == "runtime.hsa-missing"]
    check("runtime.hsa-missing names the package", ev and "libhsa-runtime64-1" in (ev[0]["remedy"] or "")
          or ev and "hsa-rocr" in (ev[0]["remedy"] or ""), json.dumps(ev))

# --- where the libraries come from: $ROCM_PATH/lib before the system path,
# the newest soname first
with tempfile.TemporaryDirectory() as rocm:
    os.mkdir(os.path.join(rocm, "lib"))
    for name in ("libhsa-runtime64.so.1", "libamdhip64.so.7", "libamdhip64.so.5"):
        os.symlink(double, os.path.join(rocm, "lib", name))
    rc, out, err = run("check", "--level", "2", "--json", env={"ROCM_PATH": rocm})
    rep = json.loads(out)
    check("ROCM_PATH/lib is searched first", rep["runtime"]["hsa"]["library"] == rocm + "/lib/libhsa-runtime64.so.1",
          json.dumps(rep["runtime"]["hsa"]))
    check("libamdhip64.so.7 is preferred to .so.5", rep["runtime"]["hip"]["library"] == rocm + "/lib/libamdhip64.so.7",
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
    check("a broken library under ROCM_PATH is passed over (no crash)",
          rc in (1, 2) and not lib.startswith(rocm) and (lib or "invalid ELF header" in err_text or rocm in err_text),
          json.dumps(rep["runtime"]["hsa"]))

# --- verify --rocm-path DIR: the runtime from DIR alone, as a wheel's
# _rocm_sdk_core/lib holds it (the sonames only); here links to the host's
# real libraries (Debian's libhsa-runtime64-1 and libamdhip64-5 in CI)
real = {}
for name, soname in (("hsa", "libhsa-runtime64.so.1"), ("hip", "libamdhip64.so.5")):
    for d in ("/usr/lib/x86_64-linux-gnu", "/usr/lib64", "/usr/lib"):
        if os.path.exists(os.path.join(d, soname)):
            real[name] = (os.path.join(d, soname), soname)
            break
if len(real) < 2 or have_kfd:
    skipped += 1
    print("skip - verify --rocm-path needs Debian's libhsa-runtime64.so.1 and libamdhip64.so.5 and no /dev/kfd")
else:
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
        check("verify --rocm-path: runtime.rocm_path names the directory", rt.get("rocm_path") == lib,
              "rc=%d %s %s" % (rc, json.dumps(rt.get("rocm_path")), err))
        check("verify --rocm-path loads libhsa-runtime64 from DIR, not ROCM_PATH",
              (rt.get("hsa") or {}).get("library") == os.path.join(lib, "libhsa-runtime64.so.1"),
              json.dumps(rt.get("hsa")))
        check("verify --rocm-path loads libamdhip64 from DIR",
              (rt.get("hip") or {}).get("library") == os.path.join(lib, "libamdhip64.so.5"),
              json.dumps(rt.get("hip")))
        check("the real runtime from DIR fails as it does without /dev/kfd",
              (rt.get("hsa") or {}).get("init_status") == "HSA_STATUS_ERROR_OUT_OF_RESOURCES" and rc == 2,
              "rc=%d %s" % (rc, json.dumps(rt.get("hsa"))))
        rc, out, err = run("verify", "--rocm-path", lib)
        unwrapped = "".join(line.strip() for line in out.splitlines())
        check("verify --rocm-path in text: the runtime section names DIR's library",
              rc == 2 and os.path.join(lib, "libhsa-runtime64.so.1") + ", HIP 5." in unwrapped, out)

        rc, out, err = run("verify", "--python", os.path.join(venv, "bin", "python"), "--json")
        rep = json.loads(out) if out.startswith("{") else {}
        rt = rep.get("runtime") or {}
        check("verify --python VENV runs level 2 with the wheels' runtime",
              rt.get("rocm_path") == lib and (rt.get("hip") or {}).get("library") == os.path.join(
                  lib, "libamdhip64.so.5"), "rc=%d %s %s" % (rc, json.dumps(rt), err))
        check("verify --python VENV reports the wheels",
              [w.get("version") for w in rep.get("wheels", []) if w.get("source") == "--python"] == ["7.1.0"],
              json.dumps(rep.get("wheels")))

        rc, out, err = run("check", "--python", venv)
        unwrapped = " ".join(line.strip() for line in out.splitlines())
        check("check --python VENV: the text report lists the wheels",
              "ROCm Python wheels ROCm 7.1.0, %s (--python)" % venv in unwrapped and
              "_rocm_sdk_core/lib/libamdhip64.so.5" in unwrapped.replace(" ", ""), out)

        empty = os.path.join(top, "empty")
        os.mkdir(empty)
        rc, out, err = run("verify", "--rocm-path", empty, "--json")
        rep = json.loads(out) if out.startswith("{") else {}
        ids3 = [f["id"] for f in rep.get("findings", [])]
        hsa = (rep.get("runtime") or {}).get("hsa") or {}
        check("verify --rocm-path with no runtime there: runtime.hsa-missing and runtime.hip-missing",
              rc == 2 and "runtime.hsa-missing" in ids3 and "runtime.hip-missing" in ids3, str(ids3))
        check("... and the system's libraries are not tried", hsa.get("library") is None and
              (empty + " only") in (hsa.get("load_error") or ""), json.dumps(hsa))

rc, out, err = run("verify", "--rocm-path", "/nonexistent/rocm/lib")
check("verify --rocm-path with a missing directory is a usage error",
      rc == 3 and "--rocm-path /nonexistent/rocm/lib: ENOENT" in err, "rc=%d %s" % (rc, err))
rc, out, err = run("check", "--rocm-path", "/tmp")
check("check --rocm-path is rejected", rc == 3 and "--rocm-path is not an option of the check command" in err, err)

# --- facts --level 2 carries the runtime; check --facts re-assesses it
rc, out, err = run("facts", "--level", "2")
out_facts = out
facts = json.loads(out) if rc == 0 else {}
check("facts --level 2 includes runtime facts", facts.get("runtime", {}).get("ran") is True, err)
if facts.get("runtime", {}).get("ran"):
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as tmp:
        tmp.write(out_facts)
    try:
        rc, out, err = run("check", "--facts", tmp.name, "--json")
        rep = json.loads(out) if out.startswith("{") else {}
        live = sorted(f["id"] for f in report.get("findings", []))
        again = sorted(f["id"] for f in rep.get("findings", []))
        check("check --facts re-assesses saved level-2 facts to the same findings", rc in (0, 1, 2) and again == live,
              "%s / %s" % (again, live))
        rc, out, err = run("verify", "--facts", tmp.name)
        check("verify --facts with level-2 facts prints the table", "Runtime (level 2)" in out and rc in (0, 1, 2), out + err)
    finally:
        os.unlink(tmp.name)
rc, out, err = run("verify", "--facts", level1_facts)
check("verify --facts with level-1 facts: exit 3 naming the file",
      rc == 3 and level1_facts in err and "no level-2 results" in err, err)
rc, out, err = run("facts")
check("facts at level 1 does not run the runtime", json.loads(out).get("runtime", {}).get("ran") is False, out[:200])

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
    check("--with-python --python VENV runs VENV/bin/python3",
          torch.get("python") == py and torch.get("hip") == "6.2.41133", json.dumps(torch) + err)
    rc, out, err = run("facts", "--with-python", env=env)
    torch = json.loads(out).get("torch", {}) if out.startswith("{") else {}
    check("--with-python alone runs python3 from PATH", torch.get("python") == "python3" and torch.get("hip") is None,
          json.dumps(torch) + err)

# --- usage
rc, out, err = run("verify", "--level", "1")
check("verify --level 1 is a usage error", rc == 3 and "verify always runs level 2" in err, err)
rc, out, err = run("verify", "extra")
check("verify with an argument is a usage error", rc == 3 and 'unexpected argument "extra"' in err, err)
rc, out, err = run("verify", "--apply")
check("verify --apply is rejected", rc == 3 and "--apply is not an option of the verify command" in err, err)

print("%d passed, %d failed, %d skipped" % (passed, failed, skipped))
sys.exit(1 if failed else 0)
