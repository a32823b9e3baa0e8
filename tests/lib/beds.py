# SPDX-License-Identifier: MIT
"""The beds the tests that run the binary build to run it on: temporary OS
trees and their snapshots, facts files, and the scenarios' umockdev
testbeds (tests/run/scenarios), written by run.py or built in this process.
The fix, setup, fleet, slurm and scenario tests share it; their helpers
(fixrun.py, fixlib.py, setuplib.py, fleetlib.py) add only what is their
own. A test script puts tests/lib on its path once (see rdtest.py) or
imports its area's helper, which does.

    beds.use("fix", "scenarios")     tests/run/fix and tests/run/scenarios on the path
    r = beds.Root()                  a small Debian-like tree: users, groups, /var/lib
    snap = beds.tree(r.path)         every entry: type, mode, owner, content hash
    f = beds.write_facts(beds.load_facts(), beds.temp_dir("rd-x."))
    root, cmd = beds.write_scenario("access-nodes", directory)   run.py --write
    with beds.ScenarioBed("access-nodes", BINARY, TB_RUN) as bed: bed.run("check")
    path = beds.scenario_facts("access-nodes", BINARY, TB_RUN, directory)
"""
import hashlib
import importlib
import json
import os
import shutil
import stat
import subprocess
import sys
import tempfile

LIB = os.path.dirname(os.path.abspath(__file__))
SOURCE_ROOT = os.path.dirname(os.path.dirname(LIB))
RUN = os.path.join(SOURCE_ROOT, "tests", "run")
FACTS_DIR = os.path.join(RUN, "cli", "facts")
if LIB not in sys.path:
    sys.path.insert(0, LIB)
import rdtest  # noqa: E402


def use(*areas):
    """Puts tests/run/AREA on the module path for each area (fix, setup,
    scenarios, slurm, fleet): their helpers import as modules."""
    for area in areas:
        path = os.path.join(RUN, area)
        if path not in sys.path:
            sys.path.insert(0, path)


# a temporary folder removed when the test program exits
temp_dir = rdtest.temp_dir

PASSWD = "root:x:0:0:root:/root:/bin/bash\nalice:x:1000:1000:Alice:/home/alice:/bin/bash\n" \
         "bob:x:1001:1001:Bob:/home/bob:/bin/bash\n"
SHADOW = "root:*:19000:0:99999:7:::\nalice:!:19000:0:99999:7:::\nbob:!:19000:0:99999:7:::\n"
GROUP = "root:x:0:\nvideo:x:44:\nrender:x:992:\nalice:x:1000:\nbob:x:1001:\n"
GSHADOW = "root:*::\nvideo:*::\nrender:!::\nalice:!::\nbob:!::\n"

# rocm-doctor's own state under a root: a tree snapshot leaves it out
JOURNAL_DIR = "var/lib/rocm-doctor"


def tree(path, skip=(JOURNAL_DIR,)):
    """Every entry below path with its type, mode, owner and content hash
    (links by their target, device nodes and fifos by their numbers, never
    read), keyed by the path relative to path; the folders of skip (and
    what they hold) are left out."""
    out = {}
    for dirpath, dirnames, filenames in os.walk(path):
        rel = os.path.relpath(dirpath, path)
        dirnames[:] = [d for d in dirnames if os.path.normpath(os.path.join(rel, d)) not in skip]
        for name in dirnames + filenames:
            full = os.path.join(dirpath, name)
            key = os.path.normpath(os.path.join(rel, name))
            st = os.lstat(full)
            if stat.S_ISLNK(st.st_mode):
                out[key] = ("link", os.readlink(full))
            elif stat.S_ISDIR(st.st_mode):
                out[key] = ("dir", oct(st.st_mode & 0o7777), st.st_uid, st.st_gid)
            elif stat.S_ISREG(st.st_mode):
                with open(full, "rb") as f:
                    h = hashlib.sha256(f.read()).hexdigest()
                out[key] = ("file", oct(st.st_mode & 0o7777), st.st_uid, st.st_gid, h)
            else:
                out[key] = ("node", oct(st.st_mode), st.st_rdev)
    return out


class Root:
    """A small Debian-like OS tree: users, groups, /var/lib."""

    def __init__(self):
        self.path = temp_dir("rd-fix-root.")
        for d in ("etc", "var/lib", "usr/lib"):
            os.makedirs(os.path.join(self.path, d))
        self.write("/etc/passwd", PASSWD)
        self.write("/etc/shadow", SHADOW, 0o640)
        self.write("/etc/group", GROUP)
        self.write("/etc/gshadow", GSHADOW, 0o640)

    @classmethod
    def at(cls, path):
        """A Root over a tree that exists already (nothing is written)."""
        r = cls.__new__(cls)
        r.path = path
        return r

    def p(self, path):
        return os.path.join(self.path, path.lstrip("/"))

    def write(self, path, text, mode=0o644):
        full = self.p(path)
        os.makedirs(os.path.dirname(full), exist_ok=True)
        with open(full, "wb") as f:
            f.write(text.encode() if isinstance(text, str) else text)
        os.chmod(full, mode)

    def read(self, path):
        with open(self.p(path)) as f:
            return f.read()

    def exists(self, path):
        return os.path.lexists(self.p(path))

    def tree(self):
        """tree() of the root: the journal directory (rocm-doctor's own
        state) left out."""
        return tree(self.path)

    def all_text(self):
        """Concatenated content of every regular file outside the journal."""
        parts = []
        for key, val in sorted(self.tree().items()):
            if val[0] == "file":
                with open(self.p(key), "rb") as f:
                    parts.append(f.read().decode("utf-8", "replace"))
        return "\n".join(parts)


def load_facts(name="rx7900xtx-no-access.json"):
    """A facts file of tests/run/cli/facts, parsed."""
    with open(os.path.join(FACTS_DIR, name)) as f:
        return json.load(f)


def write_facts(facts, directory):
    """facts as a new JSON file in directory; its path."""
    fd, path = tempfile.mkstemp(suffix=".json", dir=directory)
    with os.fdopen(fd, "w") as f:
        json.dump(facts, f)
    return path


def write_scenario(name, directory):
    """Writes scenario `name`'s testbed into directory with run.py --write:
    (its root, the tb-run arguments that run a program inside it, without
    tb-run itself). The root has /var/lib: the tool's state goes there, and
    a tree snapshot leaves out only /var/lib/rocm-doctor."""
    runner = os.path.join(RUN, "scenarios", "run.py")
    out = subprocess.run([sys.executable, runner, name, "--write", directory], capture_output=True, text=True,
                         check=True).stdout.split()
    rdtest.check(out[0] == "tb-run" and out[-1] == "CMD", "run.py --write: %s" % out)
    os.makedirs(os.path.join(directory, "root", "var", "lib"), exist_ok=True)
    return directory + "/root", out[1:-1]


def catalogue():
    """The scenario catalogue (tests/run/scenarios/scenarios.py) with every
    scenarios_*.py imported (run.py imports them); tests/run/scenarios is on
    the path after."""
    use("scenarios")
    importlib.import_module("run")
    return importlib.import_module("scenarios")


class ScenarioBed:
    """A scenario's testbed built in this process (the scenario tests'
    builders) and written to a temporary directory; removed on leaving a
    `with` block.

    prepare(sc) may add to sc.tb (root files, kernel log) before it is written."""

    def __init__(self, name, binary, tb_run, prepare=None):
        use("scenarios")
        import run as scenario_run  # imports every scenarios_*.py
        import scenarios
        self._run = scenario_run
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
        full = self._run.tb_run_command(self.tb_run, self.paths, self.sc.tb, self.tool(verb, args, wrap))
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
        full = self._run.tb_run_command(self.tb_run, self.paths, self.sc.tb,
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


def scenario_facts(name, binary, tb_run, directory):
    """DIRECTORY/NAME.facts.json: the facts the binary gathers in scenario
    name's testbed (made once; a failure ends the test)."""
    path = os.path.join(directory, name + ".facts.json")
    if not os.path.exists(path):
        with ScenarioBed(name, binary, tb_run) as bed:
            p = bed.run("facts")
            if p.returncode != 0:
                rdtest.fail("facts of %s" % name, p.stderr)
        with open(path, "w") as f:
            f.write(p.stdout)
    return path
