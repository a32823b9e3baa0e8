#!/usr/bin/env python3
"""The harness's own rules: a test without checks fails, a failed check
fails its test, skips exit 77 and root skips are counted, RDTEST_SELECT and
RDTEST_ROOT select, expect_file compares and regenerates, temporaries go at
exit."""
import os
import subprocess
import sys
import tempfile

sys.dont_write_bytecode = True
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import rdtest  # noqa: E402

PROLOGUE = "import sys\nsys.path.insert(0, %r)\nimport rdtest\n" % HERE


def script(body, env=None):
    """Runs a test script made of body; returns (exit status, stdout)."""
    with tempfile.NamedTemporaryFile("w", suffix=".py", delete=False) as f:
        f.write(PROLOGUE + body + "\nsys.exit(rdtest.main())\n")
    try:
        e = {k: v for k, v in os.environ.items() if not k.startswith("RDTEST_")}
        e.update(env or {})
        p = subprocess.run([sys.executable, f.name], capture_output=True, text=True, env=e)
        return p.returncode, p.stdout
    finally:
        os.unlink(f.name)


@rdtest.test
def temporaries_go_at_exit_unless_kept():
    body = ("import os\n@rdtest.test\ndef t():\n"
            "    d = rdtest.temp_dir('rd-rdtest-')\n"
            "    f = rdtest.remove_at_exit(d + '.json')\n"
            "    open(f, 'w').close()\n"
            "    os.makedirs(os.path.join(d, 'a', 'b'))\n"
            "    print('MADE', d, f)\n"
            "    rdtest.check(True, 'x')\n")
    for keep in (False, True):
        code, out = script(body, {"ROCM_DOCTOR_KEEP_TESTBED": "1"} if keep else {})
        rdtest.eq(code, 0, "exit status (keep %s)" % keep)
        made = [l.split()[1:] for l in out.splitlines() if l.startswith("MADE ")]
        rdtest.check(len(made) == 1, "the test made a folder and a file", out)
        for path in made[0] if made else []:
            rdtest.eq(os.path.exists(path), keep, "%s after the exit (ROCM_DOCTOR_KEEP_TESTBED %s)" % (path, keep))
            if keep:
                subprocess.run(["rm", "-rf", path], check=True)


@rdtest.test
def a_test_without_checks_fails():
    code, out = script("@rdtest.test\ndef nothing():\n    pass\n")
    rdtest.eq(code, 1, "exit status")
    rdtest.check("the test ran no check" in out, "says why", out)
    rdtest.check("not ok - nothing" in out, "names the test", out)


@rdtest.test
def a_failed_check_fails_and_the_test_goes_on():
    code, out = script("@rdtest.test\ndef t():\n    rdtest.eq(1, 2, 'one')\n"
                       "    rdtest.check(True, 'two')\n")
    rdtest.eq(code, 1, "exit status")
    rdtest.check("FAIL: one" in out and "want: 2" in out, "prints want and got", out)
    rdtest.check("0 passed, 1 failed, 0 skipped (0 for want of root); 2 checks" in out,
                 "both checks counted", out)


@rdtest.test
def an_exception_is_a_failure():
    code, out = script("@rdtest.test\ndef t():\n    rdtest.check(True, 'x')\n    {}['k']\n")
    rdtest.eq(code, 1, "exit status")
    rdtest.check("FAIL: raised KeyError" in out, "names the exception", out)


@rdtest.test
def all_skipped_is_77_and_root_skips_are_counted():
    body = ("@rdtest.test\ndef s():\n    rdtest.skip('no tool')\n"
            "@rdtest.test(root=True)\ndef r():\n    rdtest.check(True, 'x')\n")
    code, out = script(body)
    if os.geteuid() == 0:
        rdtest.eq(code, 0, "as root the root test runs")
        rdtest.check("1 passed, 0 failed, 1 skipped (0 for want of root)" in out, "summary", out)
    else:
        rdtest.eq(code, 77, "all skipped")
        rdtest.check("0 passed, 0 failed, 2 skipped (1 for want of root)" in out, "summary", out)


@rdtest.test
def select_and_root_mode():
    body = ("@rdtest.test\ndef a():\n    rdtest.check(True, 'a')\n"
            "@rdtest.test(root=True)\ndef b():\n    rdtest.check(True, 'b')\n")
    code, out = script(body, {"RDTEST_ROOT": "none"})
    rdtest.check(code == 0 and "ok - a" in out and "- b" not in out, "RDTEST_ROOT=none", out)
    code, out = script(body, {"RDTEST_ROOT": "only"})
    rdtest.check("ok - a" not in out and "- b" in out, "RDTEST_ROOT=only", out)
    code, out = script(body, {"RDTEST_SELECT": "a"})
    rdtest.check(code == 0 and "- b" not in out, "RDTEST_SELECT=a", out)
    code, out = script(body, {"RDTEST_SELECT": "zz"})
    rdtest.eq(code, 1, "an unknown name is an error")
    rdtest.check("no test named zz" in out, "names it", out)
    code, out = script("", {})
    rdtest.eq(code, 1, "no test at all fails")


@rdtest.test
def plan_and_root_registers_two_tests():
    body = ("@rdtest.plan_and_root\ndef _trip(apply):\n    print('apply=%s' % apply)\n"
            "    rdtest.check(True, 'x')\n")
    code, out = script(body, {"RDTEST_ROOT": "none"})
    rdtest.check(code == 0 and "ok - trip_plan" in out and "apply=False" in out and "- trip\n" not in out,
                 "RDTEST_ROOT=none: the part that needs no root, as NAME_plan", out)
    code, out = script(body, {"RDTEST_ROOT": "only"})
    rdtest.check("- trip_plan" not in out and "--- trip\n" in out, "RDTEST_ROOT=only: NAME, the root part", out)
    if os.geteuid() == 0:
        rdtest.check(code == 0 and "apply=True" in out, "as root it runs with apply", out)
    else:
        rdtest.eq(code, 77, "skipped for want of root")


@rdtest.test
def expect_file_compares_and_regenerates():
    rel = "rdtest-self/%d.txt" % os.getpid()
    path = os.path.join(rdtest.EXPECTED_DIR, rel)
    body = "@rdtest.test\ndef t():\n    rdtest.expect_file(%r, 'one\\ntwo\\n')\n" % rel
    try:
        code, out = script(body)
        rdtest.eq(code, 1, "a missing file fails")
        rdtest.check("ROCM_DOCTOR_REGENERATE=1" in out, "says how to write it", out)
        code, out = script(body, {"ROCM_DOCTOR_REGENERATE": "1"})
        rdtest.eq(code, 0, "regenerating passes")
        with open(path) as f:
            rdtest.eq(f.read(), "one\ntwo\n", "the file written")
        code, out = script(body)
        rdtest.eq(code, 0, "then it matches")
        with open(path, "w") as f:
            f.write("one\n")
        code, out = script(body)
        rdtest.eq(code, 1, "a difference fails")
        rdtest.check("+two" in out, "shows the diff", out)
    finally:
        if os.path.exists(path):
            os.unlink(path)
        os.rmdir(os.path.dirname(path))
        if not os.listdir(rdtest.EXPECTED_DIR):
            os.rmdir(rdtest.EXPECTED_DIR)


@rdtest.test
def current_names_the_running_test():
    rdtest.eq(rdtest.current(), "current_names_the_running_test", "the name")


@rdtest.test
def normalise_replaces_paths_and_times():
    got = rdtest.normalise("/tmp/rd.x/etc at 2026-12-06T07:53:53Z run 20261206-075353-002 and 20261206-075353\n",
                           {"/tmp/rd.x": "ROOT"})
    rdtest.eq(got, "ROOT/etc at TIME run RUN-ID and RUN-ID\n", "normalised")


sys.exit(rdtest.main())
