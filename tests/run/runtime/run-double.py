#!/usr/bin/env python3
"""Run a level-2 scenario with the TEST DOUBLE of the ROCm runtime.

    run-double.py --list
    run-double.py NAME --binary PATH --tb-run PATH --double LIB --kernels N
    run-double.py verify-table --binary PATH --tb-run PATH --double LIB --kernels N
    run-double.py code-object-choice --binary PATH --tb-run PATH --double LIB --kernels N

N is the number of GPU code objects the build embeds; scenarios that need
them skip (exit 77) when it is 0.

The scenarios are in scenarios_double.py and run through the scenario
runner (tests/run/scenarios/run.py) with ROCM_DOCTOR_RUNTIME_LIB=LIB.
verify-table runs `rocm-doctor verify` on the healthy RX 7900 XTX testbed
and checks its per-GPU table. code-object-choice checks which embedded code
object version is loaded for a ROCm 5 and a ROCm 6 runtime, and the fallback
to the other version when the runtime refuses one.
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile

sys.dont_write_bytecode = True
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "scenarios"))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "..", "lib"))

import rdtest  # noqa: E402
import run  # noqa: E402  (imports the catalogue)
import scenarios  # noqa: E402

scenarios.SCENARIOS.clear()
import scenarios_double  # noqa: E402,F401


ARGS = {}  # --binary and --tb-run


def verify_table():
    sc = scenarios.build("success")
    tmp = tempfile.mkdtemp(prefix="rocm-doctor-verify-")
    try:
        paths = sc.tb.write(tmp)
        cmd = run.tb_run_command(os.path.abspath(ARGS["tb_run"]), paths, sc.tb,
                                 [os.path.abspath(ARGS["binary"]), "verify", "--root", paths["root"]])
        p = subprocess.run(cmd, env=run.child_env(sc.env), capture_output=True, text=True, timeout=120)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    out = p.stdout
    shown = "--- stdout\n" + out + "--- stderr\n" + p.stderr
    lines = out.splitlines()
    header = [l for l in lines if l.split()[:3] == ["GPU", "gfx", "kernel"]]
    row = [l for l in lines if l.split()[:3] == ["0000:03:00.0", "gfx1100", "ok"]]
    rdtest.eq(p.returncode, 0, "exit status")
    rdtest.check("Runtime (level 2)" in out, "a runtime section", shown)
    rdtest.check(len(header) == 1 and "launch" in header[0] and "hiprtc" in header[0], "the table header", shown)
    rdtest.check(len(row) == 1 and " µs" in row[0] and row[0].count("GB/s") == 2 and row[0].rstrip().endswith("ok"),
                 "a table row for 0000:03:00.0 with latency, two bandwidths and hiprtc ok", shown)
    rdtest.check("The kernel computes correctly on 1 GPU." in out, "the closing line", shown)
    rdtest.check(not any(len(l) > 80 for l in lines), "every line fits 80 columns", shown)
    print(out)


# (test double's hipRuntimeGetVersion, versions it refuses) -> (hip.code_object_version,
# the device's code_object_version, its code_object_fallback, its result)
COV_CASES = [
    ("60241134", "", 5, 5, None, "ok"),
    ("50221153", "", 4, 4, None, "ok"),
    ("60241134", "5", 5, 4, "code object v5: hipModuleLoadData failed with hipErrorInvalidImage", "ok"),
    ("50221153", "4", 4, 5, "code object v4: hipModuleLoadData failed with hipErrorInvalidImage", "ok"),
    ("60241134", "45", 5, 4, "code object v5: hipModuleLoadData failed with hipErrorInvalidImage", "error"),
]


def code_object_choice():
    """The code object version the runtime's version calls for is loaded
    first; the other one when the runtime refuses it."""
    sc = scenarios.build("success")
    tmp = tempfile.mkdtemp(prefix="rocm-doctor-cov-")
    try:
        paths = sc.tb.write(tmp)
        cmd = run.tb_run_command(os.path.abspath(ARGS["tb_run"]), paths, sc.tb,
                                 [os.path.abspath(ARGS["binary"]), "check", "--json", "--level", "2", "--root",
                                  paths["root"]])
        for version, refuse, want_hip, want_dev, want_fallback, want_result in COV_CASES:
            env = dict(sc.env, ROCM_DOCTOR_TEST_RUNTIME_VERSION=version, ROCM_DOCTOR_TEST_RUNTIME_REFUSE_COV=refuse)
            p = subprocess.run(cmd, env=run.child_env(env), capture_output=True, text=True, timeout=120)
            rt = json.loads(p.stdout).get("runtime") or {} if p.stdout.startswith("{") else {}
            dev = (rt.get("devices") or [{}])[0]
            got = ((rt.get("hip") or {}).get("code_object_version"), dev.get("code_object_version"),
                   dev.get("code_object_fallback"), dev.get("result"))
            want = (want_hip, want_dev, want_fallback, want_result)
            label = "runtime %s, refusing %s" % (version, refuse or "nothing")
            rdtest.check(got == want, "%s: (hip, device) code object, fallback, result" % label,
                         "got %s, expected %s\n%s" % (got, want, p.stderr[-2000:]))
            if want_result == "error":
                rdtest.eq(dev.get("error_call"), "hipModuleLoadData", "%s: error_call" % label)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def main():
    argv = sys.argv[1:]
    if "--list" in argv:
        print("\n".join(list(scenarios.SCENARIOS) + ["verify-table", "code-object-choice"]))
        return 0
    if "--double" in argv:
        i = argv.index("--double")
        os.environ["ROCM_DOCTOR_RUNTIME_LIB"] = os.path.abspath(argv[i + 1])
        del argv[i:i + 2]
    else:
        print("run-double.py: --double LIB is needed", file=sys.stderr)
        return 2
    kernels = 0
    if "--kernels" in argv:
        i = argv.index("--kernels")
        kernels = int(argv[i + 1])
        del argv[i:i + 2]
    name = argv[0] if argv else ""
    if kernels == 0 and (name in scenarios_double.NEEDS_KERNELS or name in ("verify-table", "code-object-choice")):
        print("SKIP %s: this build embeds no GPU code objects" % name)
        return rdtest.EXIT_SKIP
    if name in ("verify-table", "code-object-choice"):
        ARGS["binary"] = argv[argv.index("--binary") + 1]
        ARGS["tb_run"] = argv[argv.index("--tb-run") + 1]
        rdtest.test(verify_table if name == "verify-table" else code_object_choice)
        return rdtest.main()
    sys.argv = [sys.argv[0]] + argv
    return run.main()


if __name__ == "__main__":
    sys.exit(main())
