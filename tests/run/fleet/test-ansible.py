#!/usr/bin/env python3
"""Ansible: the shipped facts.d script read by the real ansible-core `setup`
module on localhost, and the rocm_doctor role through the example playbook
contrib/ansible/playbook.yml (syntax check, a run against localhost with
fixes disabled, then, as root, on a scratch --root: the configuration from
variables, the units enabled in the tree, a second run that changes
nothing, then with fixes enabled, again with nothing to change, and
`undo --last`).

    test-ansible.py ROCM_DOCTOR SOURCE_ROOT
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile

sys.dont_write_bytecode = True  # keep the source tree clean
import fleetlib  # noqa: E402

BIN, SRC = os.path.abspath(sys.argv[1]), sys.argv[2]
FACT = os.path.join(SRC, "conf", "ansible", "rocm_doctor.fact")
PLAYBOOK = os.path.join(SRC, "contrib", "ansible", "playbook.yml")
UNITS = sys.argv[3:]  # the built units, installed into the scratch root as the package would
T = fleetlib.Results()

if not shutil.which("ansible") or not shutil.which("ansible-playbook"):
    print("SKIP: ansible-core is not installed")
    sys.exit(fleetlib.EXIT_SKIP)

tmp = tempfile.mkdtemp(prefix="rocm-doctor-ansible-")
fact_dir = os.path.join(tmp, "facts.d")
os.mkdir(fact_dir)
shutil.copy(FACT, os.path.join(fact_dir, "rocm_doctor.fact"))
os.chmod(os.path.join(fact_dir, "rocm_doctor.fact"), 0o755)

env = dict(os.environ)
env.update({
    # the fact script finds the binary under test first
    "PATH": os.path.dirname(BIN) + os.pathsep + env.get("PATH", "/usr/bin:/bin"),
    "HOME": tmp, "ANSIBLE_LOCAL_TEMP": os.path.join(tmp, "local"),
    "ANSIBLE_REMOTE_TEMP": os.path.join(tmp, "remote"), "ANSIBLE_NOCOLOR": "1",
    "ANSIBLE_LOCALHOST_WARNING": "False", "ANSIBLE_INVENTORY_UNPARSED_WARNING": "False",
    "ANSIBLE_LOAD_CALLBACK_PLUGINS": "1", "ANSIBLE_STDOUT_CALLBACK": "minimal",
    "ANSIBLE_PYTHON_INTERPRETER": sys.executable, "ANSIBLE_DEPRECATION_WARNINGS": "False",
})


def setup_fact(extra_env=None):
    e = dict(env)
    e.update(extra_env or {})
    p = subprocess.run(["ansible", "localhost", "-c", "local", "-m", "setup",
                        "-a", "fact_path=%s filter=ansible_local" % fact_dir],
                       capture_output=True, text=True, env=e, timeout=300)
    # minimal callback: "localhost | SUCCESS => {...}"
    try:
        out = json.loads(p.stdout.split(" => ", 1)[1])
        return out["ansible_facts"]["ansible_local"]["rocm_doctor"], p
    except (ValueError, KeyError, IndexError):
        return None, p


def fingerprint(report):
    return sorted((f["id"], f["severity"], f["gpu"]) for f in report["findings"])


direct = subprocess.run([BIN, "check", "--json"], capture_output=True, text=True, env=env)
want = json.loads(direct.stdout)
fact, p = setup_fact()
T.check("setup parses the fact as JSON", isinstance(fact, dict), "rc=%d\n%s\n%s" % (p.returncode, p.stdout, p.stderr))
if isinstance(fact, dict):
    T.check("the fact is the report: schema, status, exit status",
            fact.get("schema") == "rocm-doctor/1" and fact.get("status") == want["status"] and
            fact.get("exit_status") == want["exit_status"] == direct.returncode,
            "fact %s\nwant %s" % (fact.get("status"), want["status"]))
    T.check("the fact has the same findings and GPUs",
            fingerprint(fact) == fingerprint(want) and fact.get("gpus") == want["gpus"],
            "%s\n%s" % (fingerprint(fact), fingerprint(want)))

# A check that cannot run (its data tables are missing): still a fact Ansible keeps.
fact, p = setup_fact({"ROCM_DOCTOR_DATA_DIR": os.path.join(tmp, "no-such-dir")})
T.check("a check that cannot run gives status unknown, exit status 3",
        fact == {"status": "unknown", "exit_status": 3}, "%r\n%s" % (fact, p.stdout[-2000:]))

# The playbook.
env["ANSIBLE_STDOUT_CALLBACK"] = "default"
env["ANSIBLE_CALLBACK_RESULT_FORMAT"] = "json"
p = subprocess.run(["ansible-playbook", "--syntax-check", "-i", "localhost,", PLAYBOOK],
                   capture_output=True, text=True, env=env)
T.check("playbook passes --syntax-check", p.returncode == 0, p.stdout + p.stderr)

play_facts = os.path.join(tmp, "play-facts.d")
# Never this host's /etc: the role configures an empty scratch root, which
# the check then inspects.
first_root = os.path.join(tmp, "first-root")
os.mkdir(first_root)
want = json.loads(subprocess.run([BIN, "check", "--json", "--root", first_root], capture_output=True, text=True,
                                 env=env).stdout)
extra = {"rocm_doctor_bin": BIN, "rocm_doctor_fact_dir": play_facts, "rocm_doctor_fact_script": FACT,
         "rocm_doctor_become": False, "rocm_doctor_apply_fixes": False, "rocm_doctor_install": False,
         "rocm_doctor_manage_units": False, "rocm_doctor_allowed_fixes": ["group"], "rocm_doctor_root": first_root}
p = subprocess.run(["ansible-playbook", "-i", "localhost,", "-c", "local", "-e", json.dumps(extra), PLAYBOOK],
                   capture_output=True, text=True, env=env, timeout=600)
# The default callback: "TASK [name] ***" sections, each with "ok: [localhost] => {json}"
# or "skipping: [localhost]", then "PLAY RECAP" with the counts.
tasks = {}
for section in p.stdout.split("\nTASK [")[1:]:
    name, _, body = section.partition("]")
    tasks[name.rpartition(" : ")[2]] = body
recap = p.stdout.rpartition("PLAY RECAP")[2]
T.check("playbook runs on localhost without failures", p.returncode == 0 and "failed=0" in recap and
        "unreachable=0" in recap, "rc=%d\n%s" % (p.returncode, (p.stdout + p.stderr)[-3000:]))
T.check("playbook installed the fact script",
        os.access(os.path.join(play_facts, "rocm_doctor.fact"), os.X_OK))
try:
    summary = json.loads(tasks.get("Summary", "").split("ok: [localhost] => ", 1)[1].split("\n\n")[0])["msg"]
except (IndexError, ValueError, KeyError):
    summary = tasks.get("Summary", "")
print("# summary: %s" % summary)
T.check("playbook summary states the status and findings",
        summary.startswith("localhost: %s, %d GPU(s)" % (want["status"], len(want["gpus"]))) and
        all(f["id"] in summary for f in want["findings"] if f["severity"] in ("warning", "error")), summary)
T.check("the fix step is skipped when fixes are disabled",
        "skipping: [localhost]" in tasks.get("Apply the allowed fixes", "") and
        "changed: [localhost]" not in tasks.get("Apply the allowed fixes", ""), tasks.get("Apply the allowed fixes"))

# The fix step, for real, on a scratch root (never this host's): an OS tree
# with a stale amdgpu blacklist. `--only modprobe,cmdline` plans the removal
# of the blacklist and the iommu=pt drop-in on any host, GPU or not; the
# commands that act on the running system are deferred to the tree's first
# boot. Then `undo --last` must put the tree back as it was.
GENERATED = "# generated by rocm-doctor; undo with rocm-doctor undo\n"
BLACKLIST = "etc/modprobe.d/blacklist-amdgpu.conf"
GRUB_DROPIN = "etc/default/grub.d/50-rocm-doctor-iommu.cfg"
JOURNAL = "var/lib/rocm-doctor"


def snapshot(top):
    """path -> (mode, bytes or link target) of everything under top but the journal."""
    out = {}
    for d, dirs, files in os.walk(top):
        rel_d = os.path.relpath(d, top)
        for n in dirs + files:
            path = os.path.join(d, n)
            rel = os.path.normpath(os.path.join(rel_d, n))
            if rel == JOURNAL or rel.startswith(JOURNAL + os.sep) or JOURNAL.startswith(rel + os.sep):
                continue
            st = os.lstat(path)
            if os.path.islink(path):
                out[rel] = (st.st_mode, os.readlink(path))
            elif os.path.isfile(path):
                with open(path, "rb") as f:
                    out[rel] = (st.st_mode, f.read())
            else:
                out[rel] = (st.st_mode, None)
    return out


def play(extra_vars):
    p = subprocess.run(["ansible-playbook", "-i", "localhost,", "-c", "local", "-e", json.dumps(extra_vars),
                        PLAYBOOK], capture_output=True, text=True, env=env, timeout=600)
    sections = {}
    for section in p.stdout.split("\nTASK [")[1:]:
        name, _, body = section.partition("]")
        sections.setdefault(name.rpartition(" : ")[2], body)
    return p, sections


def debug_msg(body):
    try:
        return json.loads(body.split("ok: [localhost] => ", 1)[1].split("\n\n")[0])["msg"]
    except (IndexError, ValueError, KeyError):
        return body


root = os.path.join(tmp, "root")
os.makedirs(os.path.join(root, "etc", "modprobe.d"))
with open(os.path.join(root, BLACKLIST), "w") as f:
    f.write("blacklist amdgpu\n")
os.chmod(os.path.join(root, BLACKLIST), 0o644)
with open(os.path.join(root, "etc", "hostname"), "w") as f:
    f.write("gpu-node-17\n")

# The role on the scratch root with fixes off: the configuration from its
# variables, the boot check enabled in the tree (its units installed there as
# the package would); again, and nothing changes.
for unit in UNITS:
    os.makedirs(os.path.join(root, "lib", "systemd", "system"), exist_ok=True)
    shutil.copy(unit, os.path.join(root, "lib", "systemd", "system"))
role_vars = dict(extra, rocm_doctor_root=root, rocm_doctor_manage_units=bool(UNITS) and shutil.which("systemctl") is not None,
                 rocm_doctor_gpu_users=["alice", "bob"], rocm_doctor_expected_gpus=2,
                 rocm_doctor_allowed_fixes=["modprobe", "cmdline"], rocm_doctor_slurm=True,
                 rocm_doctor_slurm_on_unknown="keep",
                 rocm_doctor_nfd_file="/etc/kubernetes/node-feature-discovery/features.d/rocm-doctor",
                 rocm_doctor_config={"check": {"ignore": ["tuning.numa-balancing", "tuning.iommu-pt"]}})
p, tasks = play(role_vars)
recap = p.stdout.rpartition("PLAY RECAP")[2]
T.check("the role runs on the scratch root", p.returncode == 0 and "failed=0" in recap,
        "rc=%d\n%s" % (p.returncode, (p.stdout + p.stderr)[-3000:]))
try:
    with open(os.path.join(root, "etc", "rocm-doctor", "rocm-doctor.conf")) as f:
        conf = f.read()
except OSError as e:
    conf = str(e)
body = [l for l in conf.splitlines() if l and not l.startswith("#")]
T.check("rocm-doctor.conf is written from the variables, GPU users included", body == [
    "[check]", "users = alice bob", "expected_gpus = 2", "ignore = tuning.numa-balancing tuning.iommu-pt",
    "[fix]", "allowed_fixes = modprobe cmdline",
    "[output]", "nfd_file = /etc/kubernetes/node-feature-discovery/features.d/rocm-doctor"], conf)
wrappers = {}
for mode in ("health", "prolog", "epilog"):
    path = os.path.join(root, "usr", "local", "sbin", "rocm-doctor-" + mode)
    wrappers[mode] = (open(path).read().splitlines()[-1], os.stat(path).st_mode & 0o777) if os.path.exists(path) else None
T.check("rocm_doctor_slurm installs the Slurm wrappers", wrappers == {
    "health": ("exec %s slurm health --on-unknown keep" % BIN, 0o755),
    "prolog": ("exec %s slurm prolog" % BIN, 0o755), "epilog": ("exec %s slurm epilog" % BIN, 0o755)}, wrappers)
c = subprocess.run([BIN, "check", "--json", "--root", root], capture_output=True, text=True, env=env)
ids = [f["id"] for f in json.loads(c.stdout)["findings"]] if c.stdout.startswith("{") else []
T.check("rocm-doctor reads it: gpu.count-mismatch from expected_gpus, the ignored ids gone",
        "gpu.count-mismatch" in ids and "tuning.iommu-pt" not in ids, "rc=%d %s %s" % (c.returncode, ids, c.stderr))
if role_vars["rocm_doctor_manage_units"]:
    wants = os.path.join(root, "etc", "systemd", "system", "multi-user.target.wants")
    T.check("the boot check is enabled in the tree and the daemon is not",
            os.path.islink(os.path.join(wants, "rocm-doctor-boot.service")) and
            not os.path.exists(os.path.join(wants, "rocm-doctord.service")),
            os.listdir(wants) if os.path.isdir(wants) else "no %s" % wants)
else:
    print("# no units or no systemctl: the units are not managed here")
p, tasks = play(role_vars)
recap = p.stdout.rpartition("PLAY RECAP")[2]
T.check("a second run of the role changes nothing", p.returncode == 0 and "changed=0" in recap and "failed=0" in recap,
        "rc=%d\n%s" % (p.returncode, (p.stdout + p.stderr)[-3000:]))
before = snapshot(root)

probe = subprocess.run([BIN, "fix", "--root", root, "--only", "modprobe,cmdline", "--json"],
                       capture_output=True, text=True, env=env)
plan = None
try:
    plan = json.loads(probe.stdout)
except ValueError:
    pass
T.check("fix plans the blacklist removal and the iommu=pt drop-in for the scratch root",
        probe.returncode == 1 and plan is not None and
        sorted(s["fix"] for s in plan["steps"]) == ["cmdline", "modprobe"],
        "rc=%d\n%s%s" % (probe.returncode, probe.stdout, probe.stderr))
if os.geteuid() != 0:
    print("# fix --apply needs root: the playbook's fix step is not run here")
else:
    extra = dict(role_vars, rocm_doctor_apply_fixes=True)
    p, tasks = play(extra)
    fix_task = tasks.get("Apply the allowed fixes", "")
    T.check("with fixes enabled, the playbook runs `fix --apply` under the scratch root and reports a change",
            p.returncode == 0 and "changed: [localhost]" in fix_task and "failed=0" in p.stdout.rpartition("PLAY RECAP")[2],
            "rc=%d\n%s" % (p.returncode, (p.stdout + p.stderr)[-3000:]))
    applied = debug_msg(tasks.get("Fixes applied", ""))
    print("# fixes applied: %s" % applied)
    runs = sorted(os.listdir(os.path.join(root, JOURNAL, "journal"))) \
        if os.path.isdir(os.path.join(root, JOURNAL, "journal")) else []
    T.check("the playbook says which run, steps and first-boot commands it applied",
            len(runs) == 1 and applied.startswith("localhost: run %s, steps: " % runs[0]) and
            "modprobe" in applied and "cmdline" in applied and
            "first boot: update-initramfs -u, update-grub" in applied.replace("update-grub, update-initramfs -u",
                                                                               "update-initramfs -u, update-grub"),
            "runs %s\n%s" % (runs, applied))
    T.check("the local fact was gathered again after the fixes",
            "ok: [localhost]" in tasks.get("Check again after the fixes", ""), tasks.get("Check again after the fixes"))
    T.check("the stale blacklist is gone", not os.path.exists(os.path.join(root, BLACKLIST)))
    try:
        with open(os.path.join(root, GRUB_DROPIN)) as f:
            dropin = f.read()
    except OSError as e:
        dropin = str(e)
    T.check("the iommu=pt drop-in is written with the generated-by header",
            dropin.startswith(GENERATED) and 'GRUB_CMDLINE_LINUX_DEFAULT="${GRUB_CMDLINE_LINUX_DEFAULT} iommu=pt"' in dropin
            and os.stat(os.path.join(root, GRUB_DROPIN)).st_mode & 0o7777 == 0o644, dropin)
    journal = {}
    if runs:
        with open(os.path.join(root, JOURNAL, "journal", runs[0], "journal.json")) as f:
            journal = json.load(f)
    T.check("the run is journalled in the scratch root", bool(journal), "%s" % runs)

    # Again: nothing left to do, so nothing changes.
    p, tasks = play(extra)
    fix_task = tasks.get("Apply the allowed fixes", "")
    T.check("a second run finds nothing to apply: the fix step is ok, not changed",
            p.returncode == 0 and "ok: [localhost]" in fix_task and "changed: [localhost]" not in fix_task and
            "skipping: [localhost]" in tasks.get("Fixes applied", "") and
            "changed=0" in p.stdout.rpartition("PLAY RECAP")[2] and
            len(os.listdir(os.path.join(root, JOURNAL, "journal"))) == 1,
            "rc=%d\n%s" % (p.returncode, (p.stdout + p.stderr)[-3000:]))

    u = subprocess.run([BIN, "undo", "--last", "--root", root, "--json"], capture_output=True, text=True, env=env)
    try:
        undone = json.loads(u.stdout)
    except ValueError:
        undone = {}
    T.check("undo --last undoes the playbook's run",
            u.returncode == 0 and runs and undone.get("run_id") == runs[0] and undone.get("undone") is True,
            "rc=%d\n%s%s" % (u.returncode, u.stdout, u.stderr))
    after = snapshot(root)
    diff = sorted(k for k in set(before) | set(after) if before.get(k) != after.get(k))
    T.check("after undo the scratch root is as it was, byte for byte and mode for mode", not diff,
            "differ: %s" % diff)

shutil.rmtree(tmp, ignore_errors=True)
sys.exit(T.finish())
