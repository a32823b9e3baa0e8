"""Shared by the fleet-interface tests: scenario testbeds from
tests/run/scenarios (the same builders the scenario tests use) and the tool
run inside them. The tests count their checks with tests/lib/rdtest.py."""

import json
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
        # a scenario that runs the tool under another uid: the binary and the
        # tables as copies that uid can reach, as the scenario test runs them
        self.binary, self.env = scenario_run.stage_for_wrap(self.sc, self.tmp, self.binary,
                                                            scenario_run.child_env(self.sc.env))

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        shutil.rmtree(self.tmp, ignore_errors=True)

    def usable(self):
        """Scenarios that run the tool under another uid need root here."""
        return not self.sc.needs_root or (os.geteuid() == 0 and shutil.which(self.sc.wrap[0]))

    def tool(self, verb, args, wrap=True):
        """`rocm-doctor VERB --root ROOT <scenario args> ARGS`, wrapped as the
        scenario runs it ("{root}" in the scenario's arguments is its root, as
        run.py has it)."""
        return (self.sc.wrap if wrap else []) + [self.binary, verb, "--root", self.root] \
            + [a.replace("{root}", self.root) for a in self.sc.args] + list(args)

    def run(self, verb, *args, env=None, wrap=True):
        """Runs `rocm-doctor VERB --root ROOT <scenario args> ARGS` in the testbed."""
        full = scenario_run.tb_run_command(self.tb_run, self.paths, self.sc.tb, self.tool(verb, args, wrap))
        e = dict(self.env)
        e.update(env or {})
        return subprocess.run(full, env=e, capture_output=True, text=True, timeout=120)

    def batch(self, *runs):
        """Runs each (VERB, ARGS...) of runs as run() does, one after the
        other in one testbed: building a testbed costs more than a run on the
        8-GPU beds. Returns a Ran per run, in order."""
        spec = os.path.join(self.tmp, "batch.json")
        out = os.path.join(self.tmp, "batch-out.json")
        with open(spec, "w") as f:
            json.dump([self.tool(r[0], r[1:]) for r in runs], f)
        full = scenario_run.tb_run_command(self.tb_run, self.paths, self.sc.tb,
                                           [sys.executable, "-c", BATCH_RUNNER, spec, out])
        p = subprocess.run(full, env=dict(self.env), capture_output=True, text=True,
                           timeout=120 * len(runs))
        try:
            with open(out) as f:
                return [Ran(**r) for r in json.load(f)]
        except (OSError, ValueError) as e:
            raise RuntimeError("the batch in %s did not finish (rc %d, %s): %s" % (self.name, p.returncode, e,
                                                                                   p.stderr[-2000:]))


class Ran:
    """One run of a batch: what subprocess.run gives, and when it started
    and ended (time.time())."""

    def __init__(self, returncode, stdout, stderr, t0, t1):
        self.returncode, self.stdout, self.stderr, self.t0, self.t1 = returncode, stdout, stderr, t0, t1


# Runs inside the testbed: each command of the JSON list in argv[1], its
# results written to argv[2].
BATCH_RUNNER = """
import json, subprocess, sys, time
out = []
for argv in json.load(open(sys.argv[1])):
    t0 = time.time()
    p = subprocess.run(argv, capture_output=True, text=True, timeout=120)
    out.append(dict(returncode=p.returncode, stdout=p.stdout, stderr=p.stderr, t0=t0, t1=time.time()))
with open(sys.argv[2], "w") as f:
    json.dump(out, f)
"""
