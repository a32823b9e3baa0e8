#!/usr/bin/env python3
"""Run one scenario test: build its testbed, run the tool inside it, compare.

    run.py --list
    run.py NAME --binary PATH --tb-run PATH       run the tool, compare (exit 0/1/77)
    run.py NAME --tb-run PATH -- CMD [ARGS...]    run CMD in the testbed instead
    run.py NAME --write DIR                       only write the testbed to DIR

Set ROCM_DOCTOR_KEEP_TESTBED=1 to keep the temporary directory.
"""

import argparse
import json
import os
import shlex
import shutil
import subprocess
import sys
import tempfile

# The runner is started from the source tree; keep it free of __pycache__.
sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import glob  # noqa: E402
import importlib  # noqa: E402

import expected  # noqa: E402
import rdtest  # noqa: E402
import scenarios  # noqa: E402

# Each area adds its scenarios in its own module, scenarios_AREA.py, which
# registers them with scenarios.scenario() on import.
for _path in sorted(glob.glob(os.path.join(os.path.dirname(os.path.abspath(__file__)), "scenarios_*.py"))):
    importlib.import_module(os.path.basename(_path)[:-3])
# The catalogue whose outputs tests/expected/scenarios holds; another one
# (tests/run/runtime's level-2 scenarios) may reuse this runner.
CATALOGUE = dict(scenarios.SCENARIOS)

EXIT_SKIP = 77
SEVERITIES = ("ok", "info", "warning", "error")

# Variables that change what the ROCm stack (and so the tool) sees; the host's
# values must not leak into a scenario.
SCRUB_PREFIXES = ("HSA_", "ROCR_", "HIP_", "GPU_DEVICE_ORDINAL", "CUDA_VISIBLE_DEVICES",
                  "AMD_LOG_LEVEL", "AMD_SERIALIZE", "PYTORCH_ROCM_ARCH", "UMOCKDEV_",
                  "VIRTUAL_ENV", "CONDA_PREFIX")


def tb_run_command(tb_run, paths, tb, cmd):
    return ([tb_run, "-d", paths["umockdev"], "-o", paths["overlay"]]
            + tb.node_args() + ["--"] + cmd)


SOURCE_TESTS = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def stage_source_dirs(env, tmp):
    """env with each value that is a directory of the source tree (the fake
    PyTorch package on PYTHONPATH) pointed at a copy in the testbed's
    temporary directory: what the tool reports of it then does not depend on
    where the tree is checked out (the text report wraps by length)."""
    out = dict(env)
    for k, v in env.items():
        if isinstance(v, str) and v.startswith(SOURCE_TESTS + os.sep) and os.path.isdir(v):
            copy = os.path.join(tmp, os.path.basename(v))
            if not os.path.exists(copy):
                shutil.copytree(v, copy, symlinks=True)
                for d, _, _ in os.walk(copy):
                    os.chmod(d, 0o755)
            out[k] = copy
    return out


def child_env(extra):
    env = {k: v for k, v in os.environ.items() if not k.startswith(SCRUB_PREFIXES)}
    env["NO_COLOR"] = "1"
    env.update(extra)
    return env


def root_skip_reason(sc):
    """Why a scenario that runs the tool under another uid cannot run here
    (not root, the wrapper missing), or None."""
    if os.geteuid() != 0:
        return "needs root (to run the tool under another uid)"
    if not shutil.which(sc.wrap[0]):
        return "%s is not installed" % sc.wrap[0]
    return None


def stage_for_wrap(sc, tmp, binary, env):
    """The binary and environment to run the tool with: when a scenario runs
    it under another uid (wrap), the binary and its tables must be in that
    uid's reach, as copies in TMP (a directory it can reach) when they are not."""
    binary = os.path.abspath(binary)
    if not sc.wrap:
        return binary, env
    staged = os.path.join(tmp, "staged")
    os.mkdir(staged)
    os.chmod(staged, 0o755)
    env = dict(env)
    if env.get("ROCM_DOCTOR_DATA_DIR"):
        env["ROCM_DOCTOR_DATA_DIR"] = rdtest.reachable_copy(env["ROCM_DOCTOR_DATA_DIR"], staged)
    return rdtest.reachable_copy(binary, staged), env


# The formats the scenario test renders on the live run, in its one testbed,
# and compares with tests/expected/scenarios/NAME/ (expected.py): a run
# there costs about 0.05 s, building the testbed several times that.
LIVE_FORMATS = ("json", "text", "prometheus", "nfd")
FORMAT_ARGS = {"json": ["--json"], "text": ["--format", "text"], "prometheus": ["--format", "prometheus"],
               "nfd": ["--format", "nfd"]}


def live_formats(name):
    """The formats to render: LIVE_FORMATS on a scenario of this catalogue,
    the JSON report alone on another catalogue's."""
    if scenarios.SCENARIOS.get(name) is CATALOGUE.get(name):
        return LIVE_FORMATS
    return ("json",)


def run_batch(tb_run, paths, sc, tmp, runs, env):
    """Runs each command of runs ({key: argv}) in one testbed, one after the
    other (building the testbed costs more than a run). Returns the tb-run
    command line and {key: (exit status, stdout, stderr)}, or None for the
    latter when it timed out."""
    out = os.path.join(tmp, "out")
    os.mkdir(out)
    script = ""
    for i, argv in enumerate(runs.values()):
        script += "%s >%s/%d.out 2>%s/%d.err; echo $? >%s/%d.rc\n" % (
            " ".join(map(shlex.quote, argv)), out, i, out, i, out, i)
    full = tb_run_command(os.path.abspath(tb_run), paths, sc.tb, ["sh", "-c", script])
    try:
        p = subprocess.run(full, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, timeout=300)
    except subprocess.TimeoutExpired:
        return full, None
    ran = {}
    for i, key in enumerate(runs):
        def read(ext):
            with open(os.path.join(out, "%d.%s" % (i, ext)), "rb") as f:
                return f.read().decode("utf-8", "replace")
        try:
            ran[key] = (int(read("rc")), read("out"), read("err"))
        except (OSError, ValueError) as e:
            raise RuntimeError("tb-run did not run %s (exit %d, %s): %s"
                               % (key, p.returncode, e, p.stderr.decode("utf-8", "replace")))
    return full, ran


def check_expected(name, ran, root, tmp):
    """Compares each live format's output with tests/expected/scenarios/NAME/
    (expected.py); returns 1 when one differs."""
    if live_formats(name) != LIVE_FORMATS:
        return 0
    why = expected.compared()
    if why:
        print("note %s: outputs not compared with tests/expected: %s" % (name, why))
        return 0
    hip = expected.hip_release(ran["json"][1])
    bad = [fmt for fmt in LIVE_FORMATS
           if not expected.expect(name, fmt, ran[fmt][1], ran[fmt][2], root, tmp, hip=hip)]
    if bad:
        print("FAIL %s: the %s output differs from tests/expected/scenarios/%s/" % (name, " and ".join(bad), name))
        return 1
    return 0


def check_refusal(name, sc, status, out, err, root, full):
    """A run the tool must refuse: its exit status, no report, the message."""
    want = sc.stderr.replace("{root}", root)
    problems = []
    if status != sc.exit_status:
        problems.append("exit status: expected %d, got %d" % (sc.exit_status, status))
    if out:
        problems.append("stdout: expected nothing, got %d bytes" % len(out))
    if err != want:
        problems.append("stderr: expected %r, got %r" % (want, err))
    if sc.findings:
        problems.append("a refusal has no findings: expected [] in the scenario")
    if problems:
        print("FAIL %s" % name)
        for p in problems:
            print("  " + p)
        print("command: %s" % " ".join(full))
        return 1
    print("PASS %s: refused, exit %d" % (name, status))
    return 0


def lookup(d, dotted):
    for part in dotted.split("."):
        if not isinstance(d, dict) or part not in d:
            return KeyError
        d = d[part]
    return d


def compare(sc, report, status):
    """Return a list of mismatch descriptions (empty when everything matches)."""
    problems = []
    levels = {"warning", "error"} | ({"info"} if sc.compare_info else set())
    findings = report.get("findings", [])
    got = sorted((f.get("id"), f.get("severity")) for f in findings
                 if f.get("severity") in levels)
    if got != sc.findings:
        problems.append("findings: expected %s, got %s" % (sc.findings, got))
    if status != sc.exit_status:
        problems.append("exit status: expected %d, got %d" % (sc.exit_status, status))
    if report.get("exit_status") != status:
        problems.append("report exit_status %r differs from the process's %d"
                        % (report.get("exit_status"), status))
    for f in findings:
        if f.get("severity") not in SEVERITIES:
            problems.append("finding %s: unknown severity %r" % (f.get("id"), f.get("severity")))

    def by_id(fid):
        return [f for f in findings if f.get("id") == fid]

    def check_text(kind, fid, text, fields):
        hay = []
        for f in by_id(fid):
            for field in fields:
                v = f.get(field)
                if isinstance(v, list):
                    hay += [x for x in v if isinstance(x, str)]
                elif isinstance(v, str):
                    hay.append(v)
        if not any(text in h for h in hay):
            problems.append("%s of %s: expected a string containing %r, got %r"
                            % (kind, fid, text, hay))

    for fid, text in sc.evidence:
        check_text("evidence", fid, text, ("evidence",))
    for fid, text in sc.remedy:
        check_text("remedy", fid, text, ("remedy",))
    for fid, text in sc.text:
        check_text("summary/evidence/remedy", fid, text, ("summary", "evidence", "remedy"))

    for key, want in sc.report:
        have = lookup(report, key)
        if have is KeyError or not want == have:
            problems.append("report %s: expected %r, got %r"
                            % (key, want, "<missing>" if have is KeyError else have))

    gpus = report.get("gpus", [])
    if sc.gpu_count is not None and len(gpus) != sc.gpu_count:
        problems.append("gpus: expected %d, got %d" % (sc.gpu_count, len(gpus)))
    for key, want in sc.gpus_all.items():
        for g in gpus:
            have = lookup(g, key)
            if have is KeyError or not want == have:
                problems.append("gpu %s: %s expected %r, got %r"
                                % (g.get("pci_address"), key, want,
                                   "<missing>" if have is KeyError else have))
    for selector, fields in sc.gpus:
        match = [g for g in gpus if all(lookup(g, k) == v for k, v in selector.items())]
        if len(match) != 1:
            problems.append("gpus matching %s: expected 1, got %d" % (selector, len(match)))
            continue
        for key, want in fields.items():
            have = lookup(match[0], key)
            if have is KeyError or not want == have:
                problems.append("gpu %s: %s expected %r, got %r"
                                % (selector, key, want,
                                   "<missing>" if have is KeyError else have))
    return problems


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--list", action="store_true", help="print the scenario names")
    ap.add_argument("name", nargs="?")
    ap.add_argument("--binary", help="the rocm-doctor binary")
    ap.add_argument("--tb-run", help="the tb-run helper")
    ap.add_argument("--write", metavar="DIR", help="only write the testbed into DIR")
    argv = sys.argv[1:]
    # Everything after "--" is a command to run in the testbed instead of the tool.
    cmd = []
    if "--" in argv:
        cmd = argv[argv.index("--") + 1:]
        argv = argv[:argv.index("--")]
    args = ap.parse_args(argv)

    if args.list:
        print("\n".join(scenarios.SCENARIOS))
        return 0
    if not args.name:
        ap.error("a scenario name is needed (see --list)")
    if args.name not in scenarios.SCENARIOS:
        ap.error("no scenario %r (see --list)" % args.name)
    sc = scenarios.build(args.name)

    if args.write:
        paths = sc.tb.write(args.write)
        print(" ".join(tb_run_command("tb-run", paths, sc.tb, ["CMD"])))
        return 0

    if not args.tb_run or not (cmd or args.binary):
        ap.error("--tb-run and either --binary or -- CMD are needed")

    if sc.needs_root and not cmd:
        why = root_skip_reason(sc)
        if why:
            print("SKIP %s: %s" % (args.name, why))
            return EXIT_SKIP

    keep = bool(os.environ.get("ROCM_DOCTOR_KEEP_TESTBED"))
    tmp = tempfile.mkdtemp(prefix="rocm-doctor-%s-" % args.name, dir=expected.TESTBED_DIR)
    # Scenarios may run the tool under an unprivileged uid; it must read the root tree.
    os.chmod(tmp, 0o755)
    try:
        paths = sc.tb.write(tmp)
        if cmd:
            full = tb_run_command(args.tb_run, paths, sc.tb, cmd)
            return subprocess.call(full, env=child_env(sc.env))

        binary, env = stage_for_wrap(sc, tmp, args.binary, child_env(stage_source_dirs(sc.env, tmp)))
        extra = [a.replace("{root}", paths["root"]) for a in sc.args]
        # the JSON report (compared field by field) and the other formats, in one testbed
        runs = {fmt: sc.wrap + [binary, "check"] + FORMAT_ARGS[fmt] + ["--root", paths["root"]] + extra
                for fmt in live_formats(args.name)}
        full, ran = run_batch(args.tb_run, paths, sc, tmp, runs, env)
        if ran is None:
            print("FAIL %s: timed out\ncommand: %s" % (args.name, " ".join(full)))
            return 1
        status, out, err = ran["json"]
        if sc.stderr is not None:
            rc = check_refusal(args.name, sc, status, out, err, paths["root"], full)
            return rc or check_expected(args.name, ran, paths["root"], tmp)
        try:
            report = json.loads(out)
        except ValueError as e:
            print("FAIL %s: stdout is not JSON (%s), exit status %d\ncommand: %s\n"
                  "--- stdout\n%s\n--- stderr\n%s"
                  % (args.name, e, status, " ".join(full), out, err))
            return 1
        problems = compare(sc, report, status)
        for fmt in ran:
            if ran[fmt][0] != status:
                problems.append("%s report: exit status %d, the JSON run's %d" % (fmt, ran[fmt][0], status))
        if problems:
            print("FAIL %s" % args.name)
            for p in problems:
                print("  " + p)
            print("command: %s" % " ".join(full))
            print("--- report\n%s" % json.dumps(report, indent=2))
            if err.strip():
                print("--- stderr\n%s" % err)
            return 1
        if check_expected(args.name, ran, paths["root"], tmp):
            return 1
        print("PASS %s: %s, exit %d" % (args.name, sc.findings or "no findings", status))
        return 0
    finally:
        if keep:
            print("testbed kept in %s" % tmp, file=sys.stderr)
        else:
            shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
