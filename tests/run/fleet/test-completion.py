#!/usr/bin/env python3
"""Bash completion: every command and every long option that `rocm-doctor
--help` lists is offered, after a command only that command's options (its
--help), `fix --only` the fix and finding ids (comma-separated), `setup
--usecase` and `--release` the use cases and releases of `list`, option
values are completed, a command is not
offered twice; `list` topics, `help` commands and `undo` run ids (from the
journal under --root) are completed; rocm-doctord's options (from its
--help) are offered.

    test-completion.py ROCM_DOCTOR COMPLETION_FILE
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile

sys.dont_write_bytecode = True  # keep the source tree clean
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "lib"))
import rdtest  # noqa: E402

BIN, SCRIPT = sys.argv[1:3]
# The completion asks the program (`rocm-doctor VERB --help`, `list`): the
# one under test comes first on PATH.
os.environ["PATH"] = os.path.dirname(os.path.abspath(BIN)) + os.pathsep + os.environ.get("PATH", "")

if not shutil.which("bash"):
    print("SKIP: bash is not installed")
    sys.exit(rdtest.EXIT_SKIP)


def complete(line, func="_rocm_doctor"):
    """COMPREPLY for the command line `line` with the cursor at its end."""
    prog = r'''
source "$1" || exit 1
COMP_LINE=$2
COMP_POINT=${#COMP_LINE}
read -r -a COMP_WORDS <<<"$COMP_LINE"
# bash splits --opt=value at '='
words=()
for w in "${COMP_WORDS[@]}"; do
    if [[ $w == --*=* ]]; then words+=("${w%%=*}" "=" "${w#*=}"); else words+=("$w"); fi
done
COMP_WORDS=("${words[@]}")
[[ $COMP_LINE == *" " ]] && COMP_WORDS+=("")
[[ $COMP_LINE == *= ]] && COMP_WORDS+=("")
COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
$3 "${COMP_WORDS[0]}" "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD-1]}"
printf '%s\n' "${COMPREPLY[@]}"
'''
    p = subprocess.run(["bash", "--norc", "--noprofile", "-c", prog, "bash", SCRIPT, line, func],
                       capture_output=True, text=True, timeout=30)
    if p.returncode != 0 or p.stderr:
        print("# bash: rc=%d %s" % (p.returncode, p.stderr))
    return sorted(x for x in p.stdout.split("\n") if x)


help_text = subprocess.run([BIN, "--help"], capture_output=True, text=True).stdout
commands = re.findall(r"^  ([a-z]+)\s{2,}", help_text.split("Commands:")[1].split("Options:")[0], re.M)
long_opts = sorted(set(re.findall(r"(?<![\w-])(--[a-z][a-z-]*)", help_text.split("Options:")[1])))


@rdtest.test
def help_lists_commands_and_options():
    rdtest.check(len(commands) >= 8 and len(long_opts) >= 15,
                 "--help lists commands and options",
                 "%s %s" % (commands, long_opts))


@rdtest.test
def every_command_and_option_is_offered():
    got = complete("rocm-doctor ")
    rdtest.check(set(commands) <= set(got),
                 "every command is offered",
                 "missing %s" % sorted(set(commands) - set(got)))
    got = complete("rocm-doctor --")
    rdtest.check(set(long_opts) <= set(got),
                 "every long option is offered",
                 "missing %s" % sorted(set(long_opts) - set(got)))


@rdtest.test
def each_command_gets_its_own_options():
    # After a command, only its own options (its --help); --help and --version
    # (-h, -V) everywhere.
    for verb in ("check", "fix", "undo", "report", "list"):
        vhelp = subprocess.run([BIN, verb, "--help"], capture_output=True, text=True).stdout.split("Options:")[1]
        own = sorted(set(re.findall(r"^  (?:-[A-Za-z], )?(--[a-z][a-z-]*)", vhelp, re.M)))
        got = complete("rocm-doctor %s --" % verb)
        rdtest.check(got == own, "%s -- offers exactly its own options" % verb, "%s vs %s" % (got, own))
    rdtest.check("--apply" not in complete("rocm-doctor check --"), "check is not offered fix's --apply")
    rdtest.check({"--apply", "--only"} <= set(complete("rocm-doctor fix --")),
                 "fix is offered --apply and --only")
    rdtest.check(complete("rocm-doctor list --") == ["--color", "--config", "--format", "--help", "--json", "--server",
                                                     "--version"],
                 "list is offered --format, --json, --server and --config only (and --color, --help, --version: "
                 "every command's)",
                 complete("rocm-doctor list --"))
    rdtest.check("--user" not in complete("rocm-doctor undo --"), "undo is not offered --user")


@rdtest.test
def fix_only_offers_fix_and_finding_ids():
    # fix --only: the fix ids and the finding ids, comma-separated
    fixes = [l.split()[0] for l in subprocess.run([BIN, "list", "fixes"], capture_output=True, text=True).stdout.splitlines()]
    got = complete("rocm-doctor fix --only ")
    rdtest.check(len(fixes) >= 5 and set(fixes) <= set(got),
                 "fix --only offers every fix id",
                 "%s vs %s" % (fixes, got))
    rdtest.check({"kfd.no-access", "render.no-access", "gpu.none"} <= set(got),
                 "fix --only offers finding ids",
                 got)
    rdtest.check(complete("rocm-doctor fix --only gro") == ["group", "group.relogin-needed"],
                 "fix --only gro: the group fix and group.* findings",
                 complete("rocm-doctor fix --only gro"))
    rdtest.check(complete("rocm-doctor fix --only group,kfd.no") == ["group,kfd.no-access"],
                 "fix --only group,kfd.no: the next id after the comma",
                 complete("rocm-doctor fix --only group,kfd.no"))
    rdtest.check(complete("rocm-doctor fix --only=ud") == ["udev"],
                 "fix --only=ud (after '=')",
                 complete("rocm-doctor fix --only=ud"))


@rdtest.test
def setup_usecase_and_release_values():
    # setup --usecase and --release: the binary's own tables (`list usecases`, `list releases`)
    usecases = re.findall(r"^([a-z][a-z0-9-]*)(?: \(default\))?: ", subprocess.run([BIN, "list", "usecases"],
                          capture_output=True, text=True).stdout, re.M)
    got = complete("rocm-doctor setup --usecase ")
    rdtest.check(len(usecases) >= 4 and got == sorted(usecases) and {"rocm", "runtime", "driver"} <= set(got),
                 "setup --usecase offers every use case of list usecases, and only those",
                 "%s vs %s" % (usecases, got))
    rdtest.check(complete("rocm-doctor setup --usecase runtime,dr") == ["runtime,driver"],
                 "setup --usecase runtime,dr: the next use case after the comma",
                 complete("rocm-doctor setup --usecase runtime,dr"))
    rel_text = subprocess.run([BIN, "list", "releases"], capture_output=True, text=True).stdout
    lines = re.findall(r"^ROCm (\d+\.\d+) ", rel_text, re.M)
    points = re.findall(r"^  (\d+\.\d+\.\d+) \(", rel_text, re.M)
    got = complete("rocm-doctor setup --release ")
    rdtest.check(len(lines) >= 5 and len(points) >= 5 and got == sorted(set(lines + points)),
                 "setup --release offers every ROCm line and point release of list releases",
                 "%s vs %s" % (lines + points, got))
    rdtest.check(complete("rocm-doctor setup --release=6.0") == sorted(x for x in set(lines + points) if x.startswith("6.0")),
                 "setup --release 6.0: 6.0 and its point releases",
                 complete("rocm-doctor setup --release=6.0"))
    rdtest.check("--apply" in complete("rocm-doctor setup --release 6.0 --ap"),
                 "a --release value is not taken for an argument of the command",
                 complete("rocm-doctor setup --release 6.0 --ap"))


@rdtest.test
def commands_topics_and_option_values():
    rdtest.check(complete("rocm-doctor ve") == ["verify", "version"],
                 "prefix: 'rocm-doctor ve' gives verify and version")
    rdtest.check(complete("rocm-doctor check ") == [],
                 "no second command after one",
                 complete("rocm-doctor check "))
    rdtest.check("report" in complete("rocm-doctor --root /tmp re") and "report" in complete("rocm-doctor --root=/tmp re"),
                 "a command after an option and its value")
    for line, want in [("rocm-doctor --format ", ["json", "nfd", "prometheus", "text"]),
                       ("rocm-doctor check --format=p", ["prometheus"]),
                       ("rocm-doctor --level ", ["1", "2"]),
                       ("rocm-doctor --color ", ["always", "auto", "never"])]:
        got = complete(line)
        rdtest.check(got == want, "%r completes to %s" % (line, want), "%s" % got)
    rdtest.check("/usr/" in complete("rocm-doctor --root /us") or
                 "/usr" in complete("rocm-doctor --root /us"),
                 "--root completes directories",
                 complete("rocm-doctor --root /us"))
    rdtest.check("root" in complete("rocm-doctor --user ro"), "--user completes user names")
    rdtest.check("-V" in complete("rocm-doctor -"), "-V is offered")
    rdtest.check(complete("rocm-doctor list ") == ["archs", "checks", "fixes", "gpus", "releases", "usecases"],
                 "list completes its topics",
                 complete("rocm-doctor list "))
    rdtest.check(complete("rocm-doctor list archs ") == [],
                 "list takes one topic",
                 complete("rocm-doctor list archs "))
    rdtest.check(complete("rocm-doctor help f") == ["facts", "fix", "fleet"],
                 "help completes the commands",
                 complete("rocm-doctor help f"))


@rdtest.test
def undo_completes_run_ids():
    with tempfile.TemporaryDirectory(prefix="rocm-doctor-completion-") as root:
        for run_id in ("20260101T101010Z-1", "20260102T090000Z-7"):
            os.makedirs(os.path.join(root, "var", "lib", "rocm-doctor", "journal", run_id))
        want = ["20260101T101010Z-1", "20260102T090000Z-7"]
        got = complete("rocm-doctor --root %s undo " % root)
        rdtest.check(got == want, "undo completes the run ids of the journal under --root", got)
        got = complete("rocm-doctor undo --root=%s 202601" % root)
        rdtest.check(got == want, "undo run ids after --root=DIR, by prefix", got)
        rdtest.check(complete("rocm-doctor --root /nonexistent undo ") == [],
                     "no run ids where there is no journal")


@rdtest.test
def rocm_doctord_options():
    daemon = os.path.join(os.path.dirname(BIN), "rocm-doctord")
    daemon_help = subprocess.run([daemon, "--help"], capture_output=True, text=True).stdout
    daemon_opts = sorted(set(re.findall(r"(?<![\w-])(--[a-z][a-z-]*)", daemon_help)))
    got = complete("rocm-doctord --", "_rocm_doctord")
    rdtest.check(len(daemon_opts) >= 4 and got == daemon_opts,
                 "rocm-doctord: every option of its --help is offered",
                 "%s vs %s" % (got, daemon_opts))
    rdtest.check("/usr/" in complete("rocm-doctord --root /us", "_rocm_doctord")
                 or "/usr" in complete("rocm-doctord --root /us", "_rocm_doctord"),
                 "rocm-doctord --root completes directories")


sys.exit(rdtest.main())
