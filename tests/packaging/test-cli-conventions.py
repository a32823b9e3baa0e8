#!/usr/bin/env python3
"""Command-line conventions of an installed command.

    test-cli-conventions.py ROCM_DOCTOR

- `COMMAND --help` (and `help COMMAND`) shows that command's usage and only
  the options it takes: every option of the full --help that a command's
  help leaves out is refused by that command ("is not an option of").
- `fix --help` shows --apply and --only; `check --help` does not.
- -V is --version; both name the embedded GPU targets (or say none are).
- --help and --version exit 3 when standard output cannot be written
  (/dev/full), with the reason on stderr.
- The man page's SYNOPSIS and the README's command list name every command
  of --help and every topic `list` takes (read beside the source tree this
  script is in).
"""
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import rdtest  # noqa: E402

BIN = sys.argv[1]


def run(*args, stdout=subprocess.PIPE):
    p = subprocess.run([BIN] + list(args), stdout=stdout, stderr=subprocess.PIPE, text=True, timeout=60)
    return p.returncode, p.stdout or "", p.stderr


def options(text):
    return set(re.findall(r"^\s+(?:-\w, )?(--[a-z][a-z-]*)", text.split("Options:")[1], re.M))


rc, full, err = run("--help")
commands = re.findall(r"^  ([a-z]+)\s", full.split("Commands:")[1].split("Options:")[0], re.M)
all_opts = options(full)


@rdtest.test
def help_lists_commands_and_options():
    rdtest.check(len(commands) >= 8 and len(all_opts) >= 15, "--help lists the commands and options", full)
# A value for the options that take one, to reach the verb's own check.
VALUES = {"--root": "/nonexistent", "--user": "root", "--facts": "/nonexistent", "--config": "/nonexistent",
          "--format": "json", "--level": "1", "--timeout": "5", "--color": "never", "--only": "group",
          "--key-file": "/nonexistent", "--output": "/nonexistent/x.tar", "--python": "/nonexistent",
          "--rocm-path": "/nonexistent", "--release": "6.4", "--usecase": "rocm", "--on-unknown": "keep",
          "--from": "/nonexistent", "--hosts": "n1", "--html": "/nonexistent/x.html", "--node-timeout": "5",
          "--nodes": "n1", "--parallel": "2", "--partition": "p"}


@rdtest.test
def each_command_has_its_help_and_refuses_other_options():
    for verb in [c for c in commands if c not in ("help", "version")]:
        rc, out, err = run(verb, "--help")
        rdtest.check(rc == 0 and out.startswith("Usage: rocm-doctor " + verb),
                     "%s --help exits 0 with its usage line" % verb,
                     out[:200])
        rc2, out2, _ = run("help", verb)
        rdtest.check(rc2 == 0 and out2 == out, "help %s is %s --help" % (verb, verb))
        mine = options(out)
        rdtest.check(mine <= all_opts, "%s --help lists options of the full help only" % verb, mine - all_opts)
        for opt in sorted(all_opts - mine - {"--help", "--version", "--json"}):
            args = [verb, opt] + ([VALUES[opt]] if opt in VALUES else [])
            rc, out2, err = run(*args)
            rdtest.check(rc == 3 and "is not an option of the %s command" % verb in err,
                         "%s refuses %s, which its help leaves out" % (verb, opt),
                         "rc=%d %s" % (rc, err))


@rdtest.test
def fix_and_check_help_differ():
    rc, fix_help, _ = run("fix", "--help")
    rc, check_help, _ = run("check", "--help")
    rdtest.check({"--apply", "--only"} <= options(fix_help), "fix --help shows --apply and --only")
    rdtest.check(not ({"--apply", "--only"} & options(check_help)), "check --help shows neither")


@rdtest.test
def version_and_targets():
    rc_v, out_v, _ = run("-V")
    rc_ver, out_ver, _ = run("--version")
    rdtest.check(rc_v == 0 and out_v == out_ver and out_v.startswith("rocm-doctor "), "-V is --version", out_v)
    rdtest.check(re.search(r"^GPU kernels \(code object v4, v5\):( gfx[0-9a-f]+)+$", " ".join(" ".join(out_v.split("\n")[1:]).split()))
                 or "GPU kernels: none embedded" in out_v,
                 "--version names the embedded GPU targets, or says there are none",
                 out_v)


@rdtest.test
def writing_to_a_full_disk_fails_cleanly():
    for args in (["--help"], ["--version"], ["-V"], ["fix", "--help"]):
        with open("/dev/full", "w") as full_dev:
            rc, _, err = run(*args, stdout=full_dev)
        rdtest.check(rc == 3 and "cannot write to standard output" in err,
                     "%s to /dev/full exits 3 and says why" % " ".join(args),
                     "rc=%d %s" % (rc, err))


TOP = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")


@rdtest.test
def synopsis_and_readme_name_every_command_and_list_topic():
    rc, _, err = run("list")
    m = re.search(r"list needs what to list: (.*)", err)
    rdtest.check(m, "`list` alone names its topics: " + err)
    topics = re.findall(r"[a-z]+", m.group(1).replace(" or ", ", ")) if m else []
    rdtest.check("fixes" in topics and "usecases" in topics, "list topics: %r" % topics)
    man = open(os.path.join(TOP, "man", "rocm-doctor.1-00-name.scd"), encoding="utf-8").read()
    synopsis = man.split("# SYNOPSIS")[1].split("# DESCRIPTION")[0]
    readme = open(os.path.join(TOP, "README.md"), encoding="utf-8").read()
    commands_section = readme.split("\n## Commands\n")[1].split("\n## ")[0]
    for c in commands:
        rdtest.check(re.search(r"^\*rocm-doctor\* (\[)?\*%s\*" % c, synopsis, re.M),
                     "the man page's SYNOPSIS has %s" % c, synopsis)
        rdtest.check(re.search(r"`rocm-doctor (\[)?%s\b" % c, commands_section),
                     "the README's command list has %s" % c)
    list_line = re.search(r"^\*rocm-doctor\* \*list\* (.*)$", synopsis, re.M)
    readme_list = re.search(r"`rocm-doctor list ([a-z|]+)`", commands_section)
    for topic in topics:
        rdtest.check(list_line and "*%s*" % topic in list_line.group(1), "SYNOPSIS: list %s" % topic)
        rdtest.check(readme_list and topic in readme_list.group(1).split("|"), "README: list %s" % topic)


sys.exit(rdtest.main())
