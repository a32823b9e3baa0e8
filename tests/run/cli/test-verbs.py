#!/usr/bin/env python3
"""The table of verbs: each command's number of positional arguments is
checked before it runs (the usage error names the first argument too many,
or what is missing), and the completion's lists come from the binary: `help
--list-verbs` names every command of --help, `help --list-options COMMAND`
exactly the options of COMMAND --help, with "=" after those that take a
value.

    test-verbs.py ROCM_DOCTOR
"""
import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "lib"))
import rdtest  # noqa: E402
from rdtest import check, eq  # noqa: E402

BIN = sys.argv[1]
HINT = "Try 'rocm-doctor --help' for more information.\n"


def usage_error(args, message):
    """args end in exit status 3 with exactly "rocm-doctor: message" and the hint."""
    code, out, err = rdtest.run(BIN, *args)
    eq((code, out, err), (3, "", "rocm-doctor: %s\n%s" % (message, HINT)), " ".join(args))


@rdtest.test
def too_many_arguments():
    """A command given more arguments than its entry allows names the first
    one too many; nothing runs."""
    for args, extra in [(["check", "a"], "a"), (["facts", "a"], "a"), (["fix", "a", "b"], "a"),
                        (["setup", "x"], "x"), (["verify", "x"], "x"), (["report", "x"], "x"),
                        (["list", "archs", "more"], "more"), (["slurm", "health", "more"], "more"),
                        (["undo", "run-1", "run-2"], "run-2"), (["fix", "--status", "run-1", "run-2"], "run-2")]:
        usage_error(args, 'unexpected argument "%s"' % extra)


@rdtest.test
def too_few_arguments():
    """A command that needs an argument says which."""
    usage_error(["list"], "list needs what to list: archs, releases, gpus, checks, fixes or usecases")
    usage_error(["slurm"], "slurm needs a mode: health, prolog or epilog")
    usage_error(["explain"], "explain needs the error message, e.g. rocm-doctor explain hipErrorNoDevice (or - to "
                             "read it from standard input)")


@rdtest.test
def arguments_within_the_limits_reach_the_command():
    """Within its limits the command itself judges its arguments."""
    usage_error(["list", "nothing"], 'cannot list "nothing": archs, releases, gpus, checks, fixes or usecases')
    usage_error(["slurm", "nothing"], 'unknown slurm mode "nothing" (the modes are health, prolog and epilog)')
    code, out, err = rdtest.run(BIN, "list", "archs")
    eq(code, 0, "list archs exits 0")
    check(out.startswith("gfx") or "gfx" in out, "list archs lists archs", out[:200])


def help_commands():
    _, out, _ = rdtest.run(BIN, "--help")
    return re.findall(r"^  ([a-z]+)", out.split("Commands:\n")[1].split("\n\n")[0], re.M)


@rdtest.test
def list_verbs_is_the_help_commands():
    """help --list-verbs: the commands --help shows, setup among them, in
    its order."""
    code, out, err = rdtest.run(BIN, "help", "--list-verbs")
    eq((code, err), (0, ""), "help --list-verbs")
    eq(out.split(), help_commands(), "the commands of --help")
    check("setup" in out.split(), "setup is a command", out)


def help_options(verb):
    """The options a command's --help shows: long and short forms, with "="
    after one whose line gives a value (a metavar other than [...])."""
    args = [verb, "--help"] if verb else ["--help"]
    _, out, _ = rdtest.run(BIN, *args)
    opts = []
    for m in re.finditer(r"^  (?:(-[A-Za-z]), )?(--[a-z][a-z-]*)( [^\[ ]\S*)?", out.split("\nOptions:\n")[1], re.M):
        value = "=" if m.group(3) else ""
        opts.append(m.group(2) + value)
        if m.group(1):
            opts.append(m.group(1) + value)
    return opts


@rdtest.test
def list_options_is_each_commands_help():
    """help --list-options COMMAND: exactly the options of COMMAND --help;
    without a command every option."""
    for verb in help_commands():
        if verb in ("help", "version"):
            continue
        code, out, err = rdtest.run(BIN, "help", "--list-options", verb)
        eq((code, err), (0, ""), "help --list-options %s" % verb)
        eq(sorted(out.split()), sorted(help_options(verb)), "the options of %s --help" % verb)
    code, out, err = rdtest.run(BIN, "help", "--list-options")
    eq(sorted(out.split()), sorted(help_options(None)), "every option")
    check("--root=" in out.split() and "--json" in out.split() and "-o=" in out.split() and "-V" in out.split(),
          "values marked, short forms listed", out)
    check("--list-verbs" not in out and "--list-options" not in out, "the lists are offered to no command", out)


@rdtest.test
def list_options_only_with_help():
    usage_error(["check", "--list-verbs"], "--list-verbs is an option of the help command")
    usage_error(["--list-options"], "--list-options is an option of the help command")
    usage_error(["help", "--list-options", "nothing"], 'unknown command "nothing"')


@rdtest.test
def format_names_from_the_renderer_table():
    """--format takes the renderers' names and nothing else."""
    usage_error(["check", "--format", "yaml"], '--format must be text, json, prometheus or nfd, not "yaml"')
    usage_error(["check", "--format", "json", "--format", "nfd"], "--json and --format disagree; give one of them")


@rdtest.test
def completion_has_no_list_of_its_own():
    """The completion asks the binary for the commands and the options that
    take a value; it spells out no list of them."""
    text = open(os.path.join(rdtest.SOURCE_ROOT, "conf", "completion", "rocm-doctor")).read()
    check("help --list-verbs" in text and "help --list-options" in text, "it asks the binary")
    check(re.search(r"\bcheck facts\b|--root \| --user", text) is None, "no hand-written list of commands or options")


sys.exit(rdtest.main())
