#!/usr/bin/env python3
"""rocm-doctord's command line: every long option is documented in
rocm-doctord(8) and listed by --help; --version, usage errors."""
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "lib"))
import rdtest  # noqa: E402
binary, src = sys.argv[1], sys.argv[2]
page = open(f"{src}/man/rocm-doctord.8.scd").read()
main_c = open(f"{src}/src/daemon/daemon-main.c").read()
options = sorted(set(re.findall(r'\{ "([a-z][a-z0-9-]*)", (?:required|no|optional)_argument', main_c)))

def run(*args):
    return subprocess.run([binary, *args], capture_output=True, text=True)


@rdtest.test
def options_documented_and_in_help():
    rdtest.check(set(options) == {"root", "config", "once", "help", "version"}, "the options are the documented set",
                 options)
    h = run("--help")
    rdtest.check(h.returncode == 0 and h.stderr == "", "--help exits 0, stdout only", h.stderr)
    for o in options:
        rdtest.check(f"*--{o}*" in page, f"--{o} is documented in rocm-doctord(8)")
        rdtest.check(f"--{o}" in h.stdout, f"--{o} is in --help")
    rdtest.check("rocm-doctord(8)" in h.stdout, "--help points to the man page")


@rdtest.test
def version():
    for flag in ("--version", "-V"):
        v = run(flag)
        rdtest.check(v.returncode == 0 and re.fullmatch(r"rocm-doctord \d+\.\d+\.\d+\n", v.stdout) is not None,
              flag, v.stdout)


@rdtest.test
def usage_errors_exit_3():
    for args, message in ((["--bogus"], "unknown option --bogus"),
                          (["--root"], "--root needs an argument"),
                          (["--config", ""], "--config needs a file name"),
                          (["extra"], 'unexpected argument "extra"')):
        r = run(*args)
        rdtest.check(r.returncode == 3 and r.stdout == "" and
                     r.stderr == f"rocm-doctord: {message}\nTry 'rocm-doctord --help' for more information.\n",
                     "usage error: %s" % " ".join(args), r.stderr)


sys.exit(rdtest.main())
