# SPDX-License-Identifier: MIT
"""What the tests of each fix (test-<fix>.py) share, and all they import:
the binary run on a temporary root with a facts file, the policy written
under the root, a scenario's umockdev testbed (Live: plan, apply, apply
again, check again, undo); the beds come from tests/lib/beds.py.

Each fix is tested through the real binary: on temporary roots with facts
files, and on the findings of real scenarios (their umockdev testbed and
root tree), with the policy from a rocm-doctor.conf under the root. Plans,
applied runs and undo texts are compared with tests/expected/fix/
(README.md).

A script imports what it uses from here alone (Python puts the script's
folder, tests/run/fix, first on the path):

    from fixrun import base_facts, expect, fixlib, Live, plan, rdtest, run, setup

It reads the scripts' arguments: ROCM_DOCTOR FIX_DRIVER SOURCE_DIR
[TB_RUN]."""
import os
import re
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "lib"))
import beds  # noqa: E402
import fixlib  # noqa: E402
import rdtest  # noqa: E402

RD, DRIVER, SRC = sys.argv[1:4]
TB_RUN = sys.argv[4] if len(sys.argv) > 4 else None
IS_ROOT = os.geteuid() == 0
expect = fixlib.expect


def run(args, stdin=None, env_extra=None, prog=None):
    env = dict(os.environ)
    env.update(env_extra or {})
    p = subprocess.run([prog or RD] + args, input=stdin, capture_output=True, text=True, env=env, timeout=120)
    rdtest.check("Sanitizer" not in p.stderr, "sanitizer report:\n" + p.stderr)
    return p


def setup(facts, root=None):
    r = root or fixlib.Root()
    factsdir = fixlib.temp_dir("rd-fix-facts.")
    return r, fixlib.write_facts(facts, factsdir)


# The access findings only: the plans stay exact whatever other checks find
ACCESS = ["--only", "kfd.no-access,render.no-access"]


def base_facts():
    return fixlib.load_facts(SRC)


def conf(r, text):
    """rocm-doctor.conf under the root: `fix --root` reads the policy there."""
    r.write("/etc/rocm-doctor/rocm-doctor.conf", text)


def plan(r, facts, *args, env_extra=None):
    return run(["fix", "--root", r.path, "--facts", facts] + list(args), env_extra=env_extra)


def live_facts(name):
    """The facts of a scenario, gathered inside its testbed, and a copy of
    its root to plan on."""
    root, prefix = testbed(name)
    p = live(prefix, ["facts", "--json", "--root", root])
    rdtest.eq(p.returncode, 0, "facts (stderr %s)" % p.stderr)
    import json
    r = fixlib.Root.at(fixlib.temp_dir("rd-fix-copy."))
    shutil.rmtree(r.path)
    shutil.copytree(root, r.path, symlinks=True)
    return r, json.loads(p.stdout)


def testbed(name):
    """Writes scenario `name` and returns (root, command prefix that runs a
    program inside the testbed)."""
    if not TB_RUN:
        rdtest.skip("umockdev is not available")
    if not IS_ROOT:
        rdtest.skip("needs root")  # tb-run gives the device nodes their owners
    d = fixlib.temp_dir("rd-fix-tb.")
    os.chmod(d, 0o755)
    root, args = beds.write_scenario(name, d)
    return root, [TB_RUN] + args


def live(prefix, args, **kw):
    env = {k: v for k, v in os.environ.items() if not k.startswith(("HSA_", "ROCR_", "HIP_", "UMOCKDEV_"))}
    env.update(kw.pop("env_extra", {}))
    return subprocess.run(prefix + [RD] + args, capture_output=True, text=True, env=env, timeout=120)


class Live:
    """A scenario's testbed: its root tree, the command prefix that runs a
    program inside it, and rocm-doctor.conf under the root."""

    def __init__(self, name, conf=None, nodes=None):
        self.name = name
        self.more = {}  # more for fixlib.normalise: a generated key's names
        self.root, self.prefix = testbed(name)
        self.r = fixlib.Root.at(self.root)
        if nodes:
            self.nodes(nodes)
        if conf is not None:
            self.r.write("/etc/rocm-doctor/rocm-doctor.conf", conf)

    def nodes(self, spec):
        """Replaces the --node arguments: {"dev/kfd": "0660:0:0", ...}."""
        out = []
        skip = False
        for i, a in enumerate(self.prefix):
            if skip:
                skip = False
                continue
            if a == "--node" and self.prefix[i + 1].split(":")[0] in spec:
                path = self.prefix[i + 1].split(":")[0]
                out += ["--node", "%s:%s" % (path, spec[path])]
                skip = True
                continue
            out.append(a)
        self.prefix = out

    def expect_name(self, what=None):
        """tests/expected/fix/TEST.SCENARIO[.WHAT]: TEST the test that
        called roundtrip."""
        test = sys._getframe(2).f_code.co_name
        return "%s.%s" % (test, self.name) + ("." + what if what else "")

    def rd(self, *args, env_extra=None):
        return live(self.prefix, list(args) + ["--root", self.root], env_extra=env_extra or {})

    def findings(self, *args):
        import json
        p = self.rd("check", "--json", *args)
        rdtest.check(p.returncode in (0, 1, 2), "check: %s" % p.stderr)
        return {f["id"]: f for f in json.loads(p.stdout)["findings"] if f["severity"] in ("warning", "error")}

    def roundtrip(self, fix_args, want_plan, results, gone, check_args=(), after=None, still=()):
        """plan, apply, apply again, check again, undo: the tree is back."""
        before = self.r.tree()
        f = self.findings(*check_args)
        for fid in gone + list(still):
            rdtest.check(fid in f, "%s before the fix: %s" % (fid, sorted(f)))
        p = self.rd("fix", *fix_args)
        expect(self.expect_name(), p.stdout, self.root, more=self.more)
        rdtest.eq(p.returncode, 1, "plan exit status (stderr %s)" % p.stderr)
        for w in want_plan:
            rdtest.check(w in p.stdout, "plan lacks %r:\n%s" % (w, p.stdout))
        rdtest.eq(self.r.tree(), before, "planning wrote nothing")
        p = self.rd("fix", "--apply", "--yes", *fix_args)
        expect(self.expect_name("apply"), p.stdout, self.root, more=self.more)
        rdtest.eq(p.returncode, 0, "apply (stdout %s, stderr %s)" % (p.stdout, p.stderr))
        for fid, res in results:
            rdtest.check(re.search(r"^   %s +%s$" % (re.escape(fid), res), p.stdout, re.M),
                         "result %s %s:\n%s" % (fid, res, p.stdout))
        applied = self.r.tree()
        p = self.rd("fix", "--apply", "--yes", *fix_args)
        rdtest.eq(p.returncode, 0, "apply again exit status (stderr %s)" % p.stderr)
        rdtest.check(p.stdout.startswith("Nothing to do in this root.\n"), "apply again: " + p.stdout)
        rdtest.eq(self.r.tree(), applied, "apply again changed nothing")
        if after:
            after(self)
        f_after = self.findings(*check_args)
        for fid in gone:
            rdtest.check(fid not in f_after, "%s still reported after the fix: %s" % (fid, f_after.get(fid)))
        rdtest.eq(sorted(set(f_after) - set(f)), [], "problems the fix brought")
        p = run(["undo", "--root", self.root])
        rdtest.eq(p.returncode, 0, "undo (stderr %s)" % p.stderr)
        rdtest.eq(self.r.tree(), before, "tree after undo")
        return applied
