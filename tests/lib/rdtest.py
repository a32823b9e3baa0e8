"""The one harness of the Python tests.

A test script imports it with

    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "lib"))
    import rdtest

declares its tests as functions, and ends with rdtest.main():

    @rdtest.test
    def group_fix_adds_alice():
        code, out, err = rdtest.run(BINARY, "fix", "--root", root)
        rdtest.eq(code, 0, "exit status")
        rdtest.check("render" in out, "the plan names render", out)

    @rdtest.test(root=True)          # needs root: skipped and counted without it
    def runs_as_another_uid(): ...

    @rdtest.plan_and_root            # two tests: roundtrip_plan, body(False),
    def _roundtrip(apply): ...       # and roundtrip, body(True), root=True

    sys.exit(rdtest.main())

check(cond, what, detail="") and eq(got, want, what) count one check each;
a failed one is printed and the test goes on, and fails at its end. fail()
and an exception end a test at once; skip(why) skips it. A test that ran no
check fails, and so does a run in which no test ran a check.

The environment selects:
  RDTEST_ROOT=only    only the tests declared with root=True (meson's suite
                      "root" runs a script so); RDTEST_ROOT=none: the others.
  RDTEST_SELECT=a,b   only these tests, by function name (an unknown name is
                      an error).
  ROCM_DOCTOR_REGENERATE=1
                      expect_file() writes what it was given to tests/expected/
                      instead of comparing (then review the diff with git).

Exit status: 0 passed, 1 a test failed (or nothing was checked), 77 every
selected test was skipped (meson shows SKIP).
"""
import atexit
import difflib
import os
import re
import shutil
import stat
import subprocess
import sys
import tempfile

SOURCE_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
EXPECTED_DIR = os.path.join(SOURCE_ROOT, "tests", "expected")
EXIT_SKIP = 77

_TESTS = []


class Skip(Exception):
    """Raised by skip(): the test cannot run here."""


class Failure(Exception):
    """Raised by fail(): the test cannot go on."""


class _Current:
    name = None
    checks = 0
    failed = 0
    total_checks = 0


def test(fn=None, *, root=False):
    """Registers a test: @test, or @test(root=True) for one that needs root."""

    def register(f):
        f.rdtest_root = root
        _TESTS.append(f)
        return f

    return register(fn) if fn is not None else register


def plan_and_root(body):
    """Registers body(apply), a function named _NAME, as two tests: NAME_plan,
    body(False), the part that needs no root, and NAME, body(True), which
    needs root (as @test(root=True))."""
    name = body.__name__.lstrip("_")

    def plan_part():
        body(False)

    def whole():
        body(True)

    plan_part.__name__ = plan_part.__qualname__ = name + "_plan"
    plan_part.__doc__ = "The part of %s that needs no root." % name
    whole.__name__ = whole.__qualname__ = name
    test(plan_part)
    test(whole, root=True)
    return body


def check(cond, what, detail=""):
    """Counts one check; a false cond is printed with what and detail.
    Returns bool(cond)."""
    cond = bool(cond)
    _Current.checks += 1
    _Current.total_checks += 1
    if not cond:
        _Current.failed += 1
        print("  FAIL: %s" % what, flush=True)
        for line in str(detail).rstrip().splitlines():
            print("    " + line, flush=True)
    return cond


def eq(got, want, what):
    """Counts one check that got == want; prints both when not."""
    if got == want:
        return check(True, what)
    if isinstance(got, str) and isinstance(want, str) and "\n" in got + want:
        diff = difflib.unified_diff(want.splitlines(), got.splitlines(), "want", "got", lineterm="")
        return check(False, what, "\n".join(diff))
    return check(False, what, "want: %r\ngot:  %r" % (want, got))


def fail(what, detail=""):
    """Counts a failed check and ends the test."""
    check(False, what, detail)
    raise Failure(what)


def current():
    """The name of the test that is running (None outside one)."""
    return _Current.name


def skip(why):
    """Ends the test as skipped."""
    raise Skip(why)


def normalise(text, paths=None):
    """text with what changes from run to run replaced: each path of paths
    (a dict: path -> placeholder, longest first), ISO 8601 times (TIME), run
    ids (RUN-ID: 20261206-075353 and 20261206-075353-002, the ids of
    applied runs, and 20261206T075353Z, a bundle's stamp)."""
    for path, name in sorted((paths or {}).items(), key=lambda kv: -len(kv[0])):
        if path:
            text = text.replace(path, name)
    text = re.sub(r"\b\d{8}(-|T)\d{6}Z?(-\d{3})?\b", "RUN-ID", text)
    text = re.sub(r"\b\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:?\d{2})?", "TIME", text)
    return text


def expect_file(relpath, text):
    """Compares text with tests/expected/RELPATH (one check); with
    ROCM_DOCTOR_REGENERATE=1 writes it there instead."""
    path = os.path.join(EXPECTED_DIR, relpath)
    if os.environ.get("ROCM_DOCTOR_REGENERATE") == "1":
        os.makedirs(os.path.dirname(path), exist_ok=True)
        tmp = path + ".tmp"
        with open(tmp, "w") as f:
            f.write(text)
        os.replace(tmp, path)
        return check(True, "wrote tests/expected/" + relpath)
    try:
        with open(path) as f:
            want = f.read()
    except FileNotFoundError:
        return check(False, "tests/expected/%s exists" % relpath,
                     "missing: run the test with ROCM_DOCTOR_REGENERATE=1 to write it\n" + text)
    if text == want:
        return check(True, "output matches tests/expected/" + relpath)
    diff = difflib.unified_diff(want.splitlines(), text.splitlines(),
                                "tests/expected/" + relpath, "this run", lineterm="")
    return check(False, "output matches tests/expected/%s (ROCM_DOCTOR_REGENERATE=1 rewrites it)"
                 % relpath, "\n".join(diff))


def _selected():
    root_mode = os.environ.get("RDTEST_ROOT", "")
    names = [n for n in os.environ.get("RDTEST_SELECT", "").split(",") if n]
    known = {t.__name__ for t in _TESTS}
    unknown = [n for n in names if n not in known]
    if unknown:
        print("RDTEST_SELECT: no test named %s" % ", ".join(unknown))
        sys.exit(1)
    tests = [t for t in _TESTS if not names or t.__name__ in names]
    if root_mode == "only":
        tests = [t for t in tests if t.rdtest_root]
    elif root_mode == "none":
        tests = [t for t in tests if not t.rdtest_root]
    return tests


def _run_one(t):
    """Runs one test; returns "pass", "fail" or "skip: why"."""
    _Current.checks = _Current.failed = 0
    _Current.name = t.__name__
    if t.rdtest_root and os.geteuid() != 0:
        return "skip: needs root"
    try:
        t()
    except Skip as e:
        return "skip: %s" % e
    except Failure:
        return "fail"
    except Exception as e:  # noqa: BLE001  (an error in the test is its failure)
        check(False, "raised %s" % type(e).__name__, str(e))
        return "fail"
    if _Current.failed:
        return "fail"
    if not _Current.checks:
        print("  FAIL: the test ran no check", flush=True)
        return "fail"
    return "pass"


def main():
    """Runs the selected tests in their order; prints a line each and the
    summary; returns the exit status."""
    tests = _selected()
    passed, failed, skipped, root_skips = 0, 0, 0, 0
    for t in tests:
        print("--- %s" % t.__name__, flush=True)
        r = _run_one(t)
        if r == "pass":
            passed += 1
            print("ok - %s" % t.__name__, flush=True)
        elif r == "fail":
            failed += 1
            print("not ok - %s" % t.__name__, flush=True)
        else:
            skipped += 1
            root_skips += r == "skip: needs root"
            print("ok - %s # SKIP %s" % (t.__name__, r[6:]), flush=True)
    print("%d passed, %d failed, %d skipped (%d for want of root); %d checks"
          % (passed, failed, skipped, root_skips, _Current.total_checks), flush=True)
    if failed:
        return 1
    if not passed:
        if skipped:
            return EXIT_SKIP
        print("no test ran", flush=True)
        return 1
    return 0


def run(binary, *args, env=None, timeout=60, stdin=None):
    """Runs binary with args (env: variables added to this environment);
    returns (exit status, stdout, stderr)."""
    e = dict(os.environ)
    e.update(env or {})
    p = subprocess.run([binary, *args], capture_output=True, text=True, env=e, timeout=timeout,
                       input=stdin)
    return p.returncode, p.stdout, p.stderr


def other_users_can_run(path):
    """True if a process of another uid, without groups, can reach and execute path."""
    path = os.path.abspath(path)
    d = path
    while True:
        d = os.path.dirname(d)
        try:
            if not os.stat(d).st_mode & stat.S_IXOTH:
                return False
        except OSError:
            return False
        if d == "/":
            break
    try:
        m = os.stat(path).st_mode
    except OSError:
        return False
    return bool(m & stat.S_IXOTH and m & stat.S_IROTH)


_REMOVE_AT_EXIT = []


def remove_at_exit(path):
    """Removes path (a file or a folder) when the test program exits, unless
    ROCM_DOCTOR_KEEP_TESTBED is set; returns path."""
    _REMOVE_AT_EXIT.append(path)
    return path


def temp_dir(prefix):
    """A new temporary folder, removed when the test program exits."""
    return remove_at_exit(tempfile.mkdtemp(prefix=prefix))


def path_without(names, path, parent):
    """path (a PATH value) with the named programs taken out, for a test of
    a host that lacks them where this one has them (the README's Install
    puts rocm-doctor in /usr/bin): a folder that holds one is replaced by a
    folder of links to everything else in it, made in parent."""
    out = []
    for d in path.split(os.pathsep):
        if not any(os.path.lexists(os.path.join(d, n)) for n in names):
            out.append(d)
            continue
        shadow = os.path.join(parent, "path-without" + d.replace("/", "-"))
        os.makedirs(shadow, exist_ok=True)
        for entry in os.listdir(d):
            if entry not in names and not os.path.lexists(os.path.join(shadow, entry)):
                os.symlink(os.path.join(d, entry), os.path.join(shadow, entry))
        out.append(shadow)
    return os.pathsep.join(out)


@atexit.register
def _remove_temporaries():
    if os.environ.get("ROCM_DOCTOR_KEEP_TESTBED"):
        return
    for path in reversed(_REMOVE_AT_EXIT):
        if os.path.isdir(path) and not os.path.islink(path):
            shutil.rmtree(path, ignore_errors=True)
        else:
            try:
                os.unlink(path)
            except OSError:
                pass


def reachable_copy(path, tmp):
    """PATH itself when another uid can reach it, else a copy in TMP (mode
    0755) that it can: a checkout under /root or a home of mode 0700 is out
    of reach of a test's other uid (a scenario's user, a pod's)."""
    if other_users_can_run(path):
        return os.path.abspath(path)
    copy = os.path.join(tmp, os.path.basename(path))
    if os.path.isdir(path):
        shutil.copytree(path, copy, symlinks=False)
        for d, dirs, files in os.walk(copy):
            os.chmod(d, 0o755)
            for f in files:
                os.chmod(os.path.join(d, f), 0o644)
    else:
        shutil.copy2(path, copy)
        os.chmod(copy, 0o755)
    return copy
