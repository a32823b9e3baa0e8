#!/usr/bin/env python3
"""Ansible: the shipped facts.d script read by the real ansible-core `setup`
module on localhost, and the example playbook (syntax check, then a run
against localhost with fixes disabled).

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
PLAYBOOK = os.path.join(SRC, "tests", "fleet", "playbook.yml")
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
extra = {"rocm_doctor_bin": BIN, "rocm_doctor_fact_dir": play_facts, "rocm_doctor_fact_script": FACT,
         "rocm_doctor_become": False, "rocm_doctor_apply_fixes": False,
         "rocm_doctor_allowed_fixes": ["group.add-user"]}
p = subprocess.run(["ansible-playbook", "-i", "localhost,", "-c", "local", "-e", json.dumps(extra), PLAYBOOK],
                   capture_output=True, text=True, env=env, timeout=600)
# The default callback: "TASK [name] ***" sections, each with "ok: [localhost] => {json}"
# or "skipping: [localhost]", then "PLAY RECAP" with the counts.
tasks = {}
for section in p.stdout.split("\nTASK [")[1:]:
    name, _, body = section.partition("]")
    tasks[name] = body
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

# The fix step, once `rocm-doctor fix` exists: the playbook runs it against a
# scratch root (never this host's), with the ids in ROCM_DOCTOR_TEST_FIX_IDS
# (default: gpu.none, a finding this GPU-less host has).
root = os.path.join(tmp, "root")
os.makedirs(os.path.join(root, "etc"))
probe = subprocess.run([BIN, "fix", "--root", root], capture_output=True, text=True, env=env)
if "not available in this version" in probe.stderr:
    print("# fix step not exercised: this build has no fix command")
else:
    extra.update({"rocm_doctor_apply_fixes": True, "rocm_doctor_root": root,
                  "rocm_doctor_allowed_fixes": os.environ.get("ROCM_DOCTOR_TEST_FIX_IDS", "gpu.none").split(",")})
    p = subprocess.run(["ansible-playbook", "-i", "localhost,", "-c", "local", "-e", json.dumps(extra), PLAYBOOK],
                       capture_output=True, text=True, env=env, timeout=600)
    fix_task = p.stdout.partition("TASK [Apply the allowed fixes]")[2].partition("\nTASK [")[0]
    T.check("with fixes enabled, the playbook runs `fix --apply --yes --only` under the scratch root",
            p.returncode == 0 and "skipping: [localhost]" not in fix_task and
            ("ok: [localhost]" in fix_task or "changed: [localhost]" in fix_task),
            "rc=%d\n%s" % (p.returncode, (p.stdout + p.stderr)[-3000:]))

shutil.rmtree(tmp, ignore_errors=True)
sys.exit(T.finish())
