#!/usr/bin/env python3
"""The rocm_doctor role under `ansible-playbook --check`, its package
source, and ansible-lint.

    test-ansible-check.py ROCM_DOCTOR SOURCE_ROOT

- --check on a scratch root with a stale amdgpu blacklist and fixes
  allowed: no failure, the report is read (the check runs: it changes
  nothing), the plan of the allowed fixes is shown as a change, and nothing
  is written: not the configuration, not the fact, not the tree.
- --check without packages to give and none in the host's repositories
  (root and apt only; apt-cache, so without python3-apt): the play stops
  with the message that says where packages come from.
- the README's first example as written, in --check on a host without
  rocm-doctor (root and apt only): no failure, the two package files are
  what a real run installs, nothing is installed.
- ansible-lint (Debian 12: ansible-lint 6.13) passes on the playbook and
  the role; the exceptions are the ones marked `noqa` with their reason.
- README.md's variable table names every variable of defaults/main.yml.
"""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

sys.dont_write_bytecode = True  # keep the source tree clean
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "lib"))
import rdtest  # noqa: E402

BIN, SRC = os.path.abspath(sys.argv[1]), sys.argv[2]
ANSIBLE = os.path.join(SRC, "contrib", "ansible")
PLAYBOOK = os.path.join(ANSIBLE, "playbook.yml")
FACT = os.path.join(SRC, "conf", "ansible", "rocm_doctor.fact")



# README's table and defaults/main.yml
defaults = re.findall(r"^(rocm_doctor_[a-z_]+):", open(os.path.join(ANSIBLE, "roles", "rocm_doctor", "defaults",
                                                                      "main.yml")).read(), re.M)
readme = open(os.path.join(ANSIBLE, "README.md")).read()
table = set(re.findall(r"`(rocm_doctor_[a-z_]+)`", "\n".join(l for l in readme.splitlines() if l.startswith("| `"))))
internal = {"rocm_doctor_root_args", "rocm_doctor_setup_args"}  # derived, not to be set


@rdtest.test
def readme_table_names_every_variable():
    rdtest.check(set(defaults) - internal <= table,
                 "README.md's table names every variable of defaults/main.yml",
                 sorted(set(defaults) - internal - table))



def need_ansible():
    if not shutil.which("ansible-playbook"):
        rdtest.skip("ansible-core is not installed")


tmp = tempfile.mkdtemp(prefix="rocm-doctor-ansible-check-")
env = dict(os.environ)
env.update({
    "PATH": os.path.dirname(BIN) + os.pathsep + env.get("PATH", "/usr/bin:/bin"),
    "HOME": tmp, "ANSIBLE_LOCAL_TEMP": os.path.join(tmp, "local"),
    "ANSIBLE_REMOTE_TEMP": os.path.join(tmp, "remote"), "ANSIBLE_NOCOLOR": "1",
    "ANSIBLE_LOCALHOST_WARNING": "False", "ANSIBLE_INVENTORY_UNPARSED_WARNING": "False",
    "ANSIBLE_PYTHON_INTERPRETER": sys.executable, "ANSIBLE_DEPRECATION_WARNINGS": "False",
    "ANSIBLE_STDOUT_CALLBACK": "default", "ANSIBLE_CALLBACK_RESULT_FORMAT": "json",
})


def play(extra_vars, *args):
    p = subprocess.run(["ansible-playbook", "-i", "localhost,", "-c", "local", *args, "-e", json.dumps(extra_vars),
                        PLAYBOOK], capture_output=True, text=True, env=env, timeout=600)
    sections = {}
    for section in p.stdout.split("\nTASK [")[1:]:
        name, _, body = section.partition("]")
        sections.setdefault(name.rpartition(" : ")[2], body)
    return p, sections, p.stdout.rpartition("PLAY RECAP")[2]


def tree(top):
    out = {}
    for d, dirs, files in os.walk(top):
        for n in dirs + files:
            path = os.path.join(d, n)
            out[os.path.relpath(path, top)] = open(path, "rb").read() if os.path.isfile(path) else None
    return out


def scratch():
    """A root with a stale amdgpu blacklist, and the play's variables for it."""
    top = tempfile.mkdtemp(dir=tmp)
    root = os.path.join(top, "root")
    os.makedirs(os.path.join(root, "etc", "modprobe.d"))
    with open(os.path.join(root, "etc", "modprobe.d", "blacklist-amdgpu.conf"), "w") as f:
        f.write("blacklist amdgpu\n")
    facts = os.path.join(top, "facts.d")
    before = tree(root)
    extra = {"rocm_doctor_bin": BIN, "rocm_doctor_fact_dir": facts, "rocm_doctor_fact_script": FACT,
             "rocm_doctor_become": False, "rocm_doctor_install": False, "rocm_doctor_manage_units": False,
             "rocm_doctor_root": root, "rocm_doctor_apply_fixes": True,
             "rocm_doctor_allowed_fixes": ["modprobe", "cmdline"], "rocm_doctor_gpu_users": ["alice"]}
    return root, facts, before, extra


@rdtest.test
def check_mode_plans_and_applies_nothing():
    need_ansible()
    root, facts, before, extra = scratch()
    p, tasks, recap = play(extra, "--check")
    rdtest.check(p.returncode == 0 and "failed=0" in recap,
                 "--check: the play runs without failure",
                 "rc=%d\n%s" % (p.returncode, (p.stdout + p.stderr)[-3000:]))
    rdtest.check("ok: [localhost]" in tasks.get("Run the check", "") and "ok: [localhost]" in tasks.get("Keep the report", ""),
                 "--check: the check ran and its report was kept",
                 tasks.get("Keep the report"))
    rdtest.check("localhost: " in tasks.get("Summary", ""),
                 "--check: the summary is shown",
                 tasks.get("Summary"))
    rdtest.check("changed: [localhost]" in tasks.get("The fixes that would be applied", ""),
                 "--check: the allowed fixes' plan is a change",
                 tasks.get("The fixes that would be applied"))
    rdtest.check("skipping: [localhost]" in tasks.get("Apply the allowed fixes", ""),
                 "--check: nothing is applied",
                 tasks.get("Apply the allowed fixes"))
    rdtest.check("changed: [localhost]" in tasks.get("Write rocm-doctor.conf", "") and tree(root) == before,
                 "--check: the configuration would change, and is not written",
                 sorted(set(tree(root)) ^ set(before)))
    rdtest.check(not os.path.exists(os.path.join(facts, "rocm_doctor.fact")), "--check: no fact is installed")

    # The real run afterwards still works (the same variables, no --check).
    p, tasks, recap = play(dict(extra, rocm_doctor_apply_fixes=False))
    rdtest.check(p.returncode == 0 and "failed=0" in recap and
                 os.path.exists(os.path.join(facts, "rocm_doctor.fact")),
                 "without --check: the play runs and installs the fact",
                 (p.stdout + p.stderr)[-3000:])
    rdtest.check("skipping: [localhost]" in
                 tasks.get("The fixes that would be applied", "skipping: [localhost]"),
                 "without --check: the plan task is skipped",
                 tasks.get("The fixes that would be applied"))


@rdtest.test(root=True)
def package_source_message():
    # Packages: none given, none in the repositories: a clear error.
    need_ansible()
    root, facts, before, extra = scratch()
    if not shutil.which("apt-get"):
        rdtest.skip("the package-source message needs apt")
    if subprocess.run(["dpkg", "-s", "rocm-doctor"], capture_output=True).returncode == 0:
        rdtest.skip("the rocm-doctor package is installed on this host (the README's install command), so apt has "
                    "a candidate for it")
    if subprocess.run(["apt-cache", "show", "rocm-doctor"], capture_output=True).returncode == 0:
        rdtest.skip("this host's repositories have rocm-doctor")
    p, tasks, recap = play(dict(extra, rocm_doctor_install=True, rocm_doctor_root="",
                                rocm_doctor_apply_fixes=False), "--check")
    rdtest.check(p.returncode != 0 and "failed=1" in recap,
                 "no package files and no repository: the play fails at the install",
                 recap)
    said = tasks.get("Say where the packages come from (check mode)", "")
    rdtest.check("rocm-doctor and rocm-doctord cannot be installed from this host's repositories (apt has no candidate "
                 "for it). rocm-doctor publishes no package repository" in said and "rocm_doctor_package_files" in said
                 and "python3-apt" not in p.stdout,
                 "and says where packages come from (apt-cache, no python3-apt needed)",
                 said or p.stdout[-3000:])

    # a package apt has installed: check mode passes that step unchanged
    p, tasks, recap = play(dict(extra, rocm_doctor_install=True, rocm_doctor_root="", rocm_doctor_packages=["apt"],
                                rocm_doctor_apply_fixes=False), "--check")
    rdtest.check(p.returncode == 0 and "failed=0" in recap and "ok: [localhost] => (item=apt)" in
                 tasks.get("The packages a real run installs", "") and "apt: installed" in
                 tasks.get("The packages a real run installs", ""),
                 "check mode, a package apt has installed: no failure, no change at the install",
                 (p.stdout + p.stderr)[-3000:])


@rdtest.test
def readme_first_example_in_check_mode():
    need_ansible()
    # The README's first example as written (its inventory: this host; in
    # check mode, as this machine's own user), in a copy of the tree whose
    # parent holds the two packages, on a host without rocm-doctor.
    readme_cmd = re.search(r"```\n(ansible-playbook -i inventory .*?)\n```", readme, re.S).group(1)
    rdtest.check("rocm_doctor_package_files" in readme_cmd,
                 "README's first example gives the package files",
                 readme_cmd)
    top = os.path.join(tmp, "example")
    shutil.copytree(ANSIBLE, os.path.join(top, "tree", "contrib", "ansible"))
    for name in ("rocm-doctor_0.1.0-1_amd64.deb", "rocm-doctord_0.1.0-1_amd64.deb"):
        with open(os.path.join(top, name), "wb") as f:
            f.write(b"!<arch>\n")
    pkg_dir = "/var/tmp/rocm-doctor-packages"
    had_pkg_dir = os.path.exists(pkg_dir)
    cmd = readme_cmd.replace("-i inventory", "-i localhost, -c local --check -e rocm_doctor_become=false")
    # no rocm-doctor on this host, even where the packages are installed
    bare_env = dict(env, PATH=rdtest.path_without(("rocm-doctor", "rocm-doctord"), "/usr/local/bin:/usr/bin:/bin", tmp))
    rdtest.eq(shutil.which("rocm-doctor", path=bare_env["PATH"]), None, "the example's PATH has no rocm-doctor")
    p = subprocess.run(["bash", "-euo", "pipefail", "-c", cmd], cwd=os.path.join(top, "tree"), capture_output=True,
                       text=True, env=bare_env, timeout=600)
    tasks = {}
    for section in p.stdout.split("\nTASK [")[1:]:
        name, _, body = section.partition("]")
        tasks.setdefault(name.rpartition(" : ")[2], body)
    recap = p.stdout.rpartition("PLAY RECAP")[2]
    rdtest.check(p.returncode == 0 and "failed=0" in recap,
                 "README's first example, --check on a host without rocm-doctor: no failure",
                 "rc=%d\n%s" % (p.returncode, (p.stdout + p.stderr)[-3000:]))
    files_task = tasks.get("The package files a real run installs", "")
    rdtest.check(files_task.count("changed: [localhost]") == 2 and "rocm-doctor_0.1.0-1_amd64.deb: a real run copies and "
                 "installs it" in files_task and "rocm-doctord_0.1.0-1_amd64.deb" in files_task,
                 "it names both package files as what a real run installs",
                 files_task)
    rdtest.check("skipping: [localhost]" in tasks.get("Install the .deb packages", "")
                 and (had_pkg_dir or not os.path.exists(pkg_dir)),
                 "it installs nothing in check mode",
                 tasks.get("Install the .deb packages"))
    rdtest.check("rocm-doctor is not installed yet; a real run installs it"
                 in tasks.get("Check mode, rocm-doctor not installed yet", ""),
                 "and says rocm-doctor is not installed yet",
                 tasks.get("Check mode, rocm-doctor not "
                                                                                           "installed yet"))


@rdtest.test
def ansible_lint_passes():
    need_ansible()
    lint = shutil.which("ansible-lint")
    if not lint:
        rdtest.skip("ansible-lint is not installed (Debian: ansible-lint)")
    # the production profile asked for: its exit status is the verdict (0:
    # passed), whatever its summary line says (ansible-lint 6: "Passed with
    # production profile", 25: "Passed: 0 failure(s), 0 warning(s)")
    p = subprocess.run([lint, "--offline", "--nocolor", "--profile", "production", "-p", "playbook.yml",
                        "roles/rocm_doctor"], cwd=ANSIBLE, capture_output=True, text=True, env=env, timeout=600)
    out = p.stdout + p.stderr
    rdtest.check(p.returncode == 0 and "production" in out and not re.search(r"\b[1-9]\d* failure", out),
                 "ansible-lint passes (the production profile)", out[-3000:])


status = rdtest.main()
shutil.rmtree(tmp, ignore_errors=True)
sys.exit(status)
