"""What the Python tests share: a tally of checks and the binary run with
its output captured. A test script imports it with

    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "lib"))
    import rdtest
"""
import os
import subprocess
import sys


class Tally:
    """Counts checks and prints a line each.

    tap: TAP lines ("ok 3 - name", "not ok 4 - name" and the detail as "# "
    lines), "1..N" at the end (for meson's protocol: 'tap').
    Otherwise "ok - name" ("FAIL - name" and the detail) and "P passed,
    F failed" at the end; quiet: only the failures are printed."""

    def __init__(self, tap=False, quiet=False):
        self.tap, self.quiet = tap, quiet
        self.passed = self.failed = 0

    def check(self, name, cond, detail=""):
        """Counts cond as a pass or a failure; returns it."""
        cond = bool(cond)
        if cond:
            self.passed += 1
        else:
            self.failed += 1
        n = self.passed + self.failed
        if self.tap:
            print("%s %d - %s" % ("ok" if cond else "not ok", n, name))
            if not cond:
                for line in str(detail).strip().splitlines():
                    print("# " + line)
        elif not cond:
            print("FAIL - %s" % name + ("\n%s" % detail if detail != "" else ""))
        elif not self.quiet:
            print("ok - %s" % name)
        return cond

    def finish(self):
        """Prints the summary and exits: 1 when a check failed, else 0."""
        if self.tap:
            print("1..%d" % (self.passed + self.failed))
        else:
            print("%d passed, %d failed" % (self.passed, self.failed))
        sys.exit(1 if self.failed else 0)


def run(binary, *args, env=None, timeout=60):
    """Runs binary with args (env: variables added to this environment);
    returns (exit status, stdout, stderr)."""
    e = dict(os.environ)
    e.update(env or {})
    p = subprocess.run([binary, *args], capture_output=True, text=True, env=e, timeout=timeout)
    return p.returncode, p.stdout, p.stderr
