#!/usr/bin/env python3
"""rocm-doctord's command line: every long option is documented in
rocm-doctord(8) and listed by --help; --version, usage errors."""
import re
import subprocess
import sys

binary, src = sys.argv[1], sys.argv[2]
page = open(f"{src}/man/rocm-doctord.8.scd").read()
main_c = open(f"{src}/src/daemon/daemon-main.c").read()
options = sorted(set(re.findall(r'\{ "([a-z][a-z0-9-]*)", (?:required|no|optional)_argument', main_c)))

n = failed = 0


def check(ok, name, detail=""):
    global n, failed
    n += 1
    failed += not ok
    print("%s %d - %s" % ("ok" if ok else "not ok", n, name))
    for line in str(detail).strip().splitlines():
        print("# " + line)


def run(*args):
    return subprocess.run([binary, *args], capture_output=True, text=True)


check(set(options) == {"root", "config", "once", "help", "version"}, "the options are the documented set",
      options)
h = run("--help")
check(h.returncode == 0 and h.stderr == "", "--help exits 0, stdout only", h.stderr)
for o in options:
    check(f"*--{o}*" in page, f"--{o} is documented in rocm-doctord(8)")
    check(f"--{o}" in h.stdout, f"--{o} is in --help")
check("rocm-doctord(8)" in h.stdout, "--help points to the man page")

v = run("--version")
check(v.returncode == 0 and re.fullmatch(r"rocm-doctord \d+\.\d+\.\d+\n", v.stdout) is not None,
      "--version", v.stdout)

for args, message in ((["--bogus"], "unknown option --bogus"),
                      (["--root"], "--root needs an argument"),
                      (["--config", ""], "--config needs a file name"),
                      (["extra"], 'unexpected argument "extra"')):
    r = run(*args)
    check(r.returncode == 3 and r.stdout == "" and
          r.stderr == f"rocm-doctord: {message}\nTry 'rocm-doctord --help' for more information.\n",
          "usage error: %s" % " ".join(args), r.stderr)

print("1..%d" % n)
sys.exit(1 if failed else 0)
