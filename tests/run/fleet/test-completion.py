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
import fleetlib  # noqa: E402

BIN, SCRIPT = sys.argv[1:3]
# The completion asks the program (`rocm-doctor VERB --help`, `list`): the
# one under test comes first on PATH.
os.environ["PATH"] = os.path.dirname(os.path.abspath(BIN)) + os.pathsep + os.environ.get("PATH", "")
T = fleetlib.Results()
if not shutil.which("bash"):
    print("SKIP: bash is not installed")
    sys.exit(fleetlib.EXIT_SKIP)


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
T.check("--help lists commands and options", len(commands) >= 8 and len(long_opts) >= 15,
        "%s %s" % (commands, long_opts))

got = complete("rocm-doctor ")
T.check("every command is offered", set(commands) <= set(got),
        "missing %s" % sorted(set(commands) - set(got)))
got = complete("rocm-doctor --")
T.check("every long option is offered", set(long_opts) <= set(got),
        "missing %s" % sorted(set(long_opts) - set(got)))
# After a command, only its own options (its --help); --help and --version
# (-h, -V) everywhere.
for verb in ("check", "fix", "undo", "report", "list"):
    vhelp = subprocess.run([BIN, verb, "--help"], capture_output=True, text=True).stdout.split("Options:")[1]
    own = sorted(set(re.findall(r"^  (?:-[A-Za-z], )?(--[a-z][a-z-]*)", vhelp, re.M)))
    got = complete("rocm-doctor %s --" % verb)
    T.check("%s -- offers exactly its own options" % verb, got == own, "%s vs %s" % (got, own))
T.check("check is not offered fix's --apply", "--apply" not in complete("rocm-doctor check --"))
T.check("fix is offered --apply and --only", {"--apply", "--only"} <= set(complete("rocm-doctor fix --")))
T.check("list is offered --format and --json only (and --color, --help, --version: every command's)",
        complete("rocm-doctor list --") == ["--color", "--format", "--help", "--json", "--version"],
        complete("rocm-doctor list --"))
T.check("undo is not offered --user", "--user" not in complete("rocm-doctor undo --"))

# fix --only: the fix ids and the finding ids, comma-separated
fixes = [l.split()[0] for l in subprocess.run([BIN, "list", "fixes"], capture_output=True, text=True).stdout.splitlines()]
got = complete("rocm-doctor fix --only ")
T.check("fix --only offers every fix id", len(fixes) >= 5 and set(fixes) <= set(got), "%s vs %s" % (fixes, got))
T.check("fix --only offers finding ids", {"kfd.no-access", "render.no-access", "gpu.none"} <= set(got), got)
T.check("fix --only gro: the group fix and group.* findings",
        complete("rocm-doctor fix --only gro") == ["group", "group.relogin-needed"], complete("rocm-doctor fix --only gro"))
T.check("fix --only group,kfd.no: the next id after the comma",
        complete("rocm-doctor fix --only group,kfd.no") == ["group,kfd.no-access"],
        complete("rocm-doctor fix --only group,kfd.no"))
T.check("fix --only=ud (after '=')", complete("rocm-doctor fix --only=ud") == ["udev"], complete("rocm-doctor fix --only=ud"))
# setup --usecase and --release: the binary's own tables (`list usecases`, `list releases`)
usecases = re.findall(r"^([a-z][a-z0-9-]*)(?: \(default\))?: ", subprocess.run([BIN, "list", "usecases"],
                      capture_output=True, text=True).stdout, re.M)
got = complete("rocm-doctor setup --usecase ")
T.check("setup --usecase offers every use case of list usecases, and only those",
        len(usecases) >= 4 and got == sorted(usecases) and {"rocm", "runtime", "driver"} <= set(got),
        "%s vs %s" % (usecases, got))
T.check("setup --usecase runtime,dr: the next use case after the comma",
        complete("rocm-doctor setup --usecase runtime,dr") == ["runtime,driver"],
        complete("rocm-doctor setup --usecase runtime,dr"))
rel_text = subprocess.run([BIN, "list", "releases"], capture_output=True, text=True).stdout
lines = re.findall(r"^ROCm (\d+\.\d+) ", rel_text, re.M)
points = re.findall(r"^  (\d+\.\d+\.\d+) \(", rel_text, re.M)
got = complete("rocm-doctor setup --release ")
T.check("setup --release offers every ROCm line and point release of list releases",
        len(lines) >= 5 and len(points) >= 5 and got == sorted(set(lines + points)), "%s vs %s" % (lines + points, got))
T.check("setup --release 6.0: 6.0 and its point releases",
        complete("rocm-doctor setup --release=6.0") == sorted(x for x in set(lines + points) if x.startswith("6.0")),
        complete("rocm-doctor setup --release=6.0"))
T.check("a --release value is not taken for an argument of the command",
        "--apply" in complete("rocm-doctor setup --release 6.0 --ap"), complete("rocm-doctor setup --release 6.0 --ap"))
T.check("prefix: 'rocm-doctor ve' gives verify and version", complete("rocm-doctor ve") == ["verify", "version"])
T.check("no second command after one", complete("rocm-doctor check ") == [], complete("rocm-doctor check "))
T.check("a command after an option and its value",
        "report" in complete("rocm-doctor --root /tmp re") and "report" in complete("rocm-doctor --root=/tmp re"))
for line, want in [("rocm-doctor --format ", ["json", "nfd", "prometheus", "text"]),
                   ("rocm-doctor check --format=p", ["prometheus"]),
                   ("rocm-doctor --level ", ["1", "2"]),
                   ("rocm-doctor --color ", ["always", "auto", "never"])]:
    got = complete(line)
    T.check("%r completes to %s" % (line, want), got == want, "%s" % got)
T.check("--root completes directories", "/usr/" in complete("rocm-doctor --root /us") or
        "/usr" in complete("rocm-doctor --root /us"), complete("rocm-doctor --root /us"))
T.check("--user completes user names", "root" in complete("rocm-doctor --user ro"))
T.check("-V is offered", "-V" in complete("rocm-doctor -"))
T.check("list completes its topics", complete("rocm-doctor list ") == ["archs", "checks", "fixes", "gpus", "releases", "usecases"],
        complete("rocm-doctor list "))
T.check("list takes one topic", complete("rocm-doctor list archs ") == [], complete("rocm-doctor list archs "))
T.check("help completes the commands", complete("rocm-doctor help f") == ["facts", "fix"], complete("rocm-doctor help f"))

with tempfile.TemporaryDirectory(prefix="rocm-doctor-completion-") as root:
    for run_id in ("20260101T101010Z-1", "20260102T090000Z-7"):
        os.makedirs(os.path.join(root, "var", "lib", "rocm-doctor", "journal", run_id))
    want = ["20260101T101010Z-1", "20260102T090000Z-7"]
    got = complete("rocm-doctor --root %s undo " % root)
    T.check("undo completes the run ids of the journal under --root", got == want, got)
    got = complete("rocm-doctor undo --root=%s 202601" % root)
    T.check("undo run ids after --root=DIR, by prefix", got == want, got)
    T.check("no run ids where there is no journal", complete("rocm-doctor --root /nonexistent undo ") == [])

daemon = os.path.join(os.path.dirname(BIN), "rocm-doctord")
daemon_help = subprocess.run([daemon, "--help"], capture_output=True, text=True).stdout
daemon_opts = sorted(set(re.findall(r"(?<![\w-])(--[a-z][a-z-]*)", daemon_help)))
got = complete("rocm-doctord --", "_rocm_doctord")
T.check("rocm-doctord: every option of its --help is offered", len(daemon_opts) >= 4 and got == daemon_opts,
        "%s vs %s" % (got, daemon_opts))
T.check("rocm-doctord --root completes directories", "/usr/" in complete("rocm-doctord --root /us", "_rocm_doctord")
        or "/usr" in complete("rocm-doctord --root /us", "_rocm_doctord"))
sys.exit(T.finish())
