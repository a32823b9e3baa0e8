"""Shared by the fleet-interface tests: scenario testbeds from
tests/run/scenarios (the same builders the scenario tests use), the tool run
inside them, and a small TAP-like result counter."""

import os
import shutil
import subprocess
import sys
import tempfile

sys.dont_write_bytecode = True
HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(HERE)))
sys.path.insert(0, os.path.join(SOURCE_ROOT, "tests", "run", "scenarios"))

import run as scenario_run  # noqa: E402  (imports every scenarios_*.py)
import scenarios  # noqa: E402

EXIT_SKIP = 77


class Results:
    def __init__(self):
        self.passed = self.failed = 0

    def check(self, name, cond, detail=""):
        if cond:
            self.passed += 1
            print("ok - %s" % name)
        else:
            self.failed += 1
            print("FAIL - %s\n%s" % (name, detail))
        return cond

    def finish(self):
        print("%d passed, %d failed" % (self.passed, self.failed))
        return 1 if self.failed or not self.passed else 0


def scenario_names():
    return list(scenarios.SCENARIOS)


class Bed:
    """A scenario's testbed written to a temporary directory.

    prepare(sc) may add to sc.tb (root files, kernel log) before it is written."""

    def __init__(self, name, binary, tb_run, prepare=None):
        self.name = name
        self.binary = os.path.abspath(binary)
        self.tb_run = os.path.abspath(tb_run)
        self.sc = scenarios.build(name)
        if prepare:
            prepare(self.sc)
        self.tmp = tempfile.mkdtemp(prefix="rocm-doctor-fleet-%s-" % name)
        os.chmod(self.tmp, 0o755)
        self.paths = self.sc.tb.write(os.path.join(self.tmp, "tb"))
        self.root = self.paths["root"]

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        shutil.rmtree(self.tmp, ignore_errors=True)

    def usable(self):
        """Scenarios that run the tool under another uid need root here."""
        return not self.sc.needs_root or (os.geteuid() == 0 and shutil.which(self.sc.wrap[0]))

    def run(self, verb, *args, env=None, wrap=True):
        """Runs `rocm-doctor VERB --root ROOT <scenario args> ARGS` in the testbed."""
        tool = (self.sc.wrap if wrap else []) + [self.binary, verb, "--root", self.root] \
            + self.sc.args + list(args)
        full = scenario_run.tb_run_command(self.tb_run, self.paths, self.sc.tb, tool)
        e = scenario_run.child_env(self.sc.env)
        e.update(env or {})
        return subprocess.run(full, env=e, capture_output=True, text=True, timeout=120)
