#!/usr/bin/env python3
"""The text output through the real binary: text from the host never reaches
the terminal raw (escape sequences, newlines), long words are broken at 80
columns, every verb draws a severity's mark in the same colour, and a locale
that is not UTF-8 gets ASCII marks.

    test-output.py ROCM_DOCTOR
"""
import json
import os
import re
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "lib"))
import rdtest  # noqa: E402

BIN = sys.argv[1]
FACTS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "facts")
tmp = tempfile.mkdtemp(prefix="rocm-doctor-output-")
ESC = "\x1b"
RX = os.path.join(FACTS, "rx7900xtx-no-access.json")


def run(*args, env=None):
    e = {k: v for k, v in os.environ.items() if not k.startswith("LC_")}
    e.update({"LANG": "C.UTF-8", "NO_COLOR": ""})
    e.update(env or {})
    p = subprocess.run([BIN, *args], capture_output=True, env=e, timeout=120)
    return p.returncode, p.stdout.decode("utf-8", "replace"), p.stderr.decode("utf-8", "replace")


def write_facts(name, change):
    with open(os.path.join(FACTS, "rx7900xtx-no-access.json")) as f:
        facts = json.load(f)
    change(facts)
    path = os.path.join(tmp, name)
    with open(path, "w") as f:
        json.dump(facts, f)
    return path


def too_wide(out):
    return [l for l in out.split("\n") if len(re.sub(r"\x1b\[[0-9;]*m", "", l)) > 80]


@rdtest.test
def os_release_escaped():
    # --- os-release with escape sequences, through --root (a real file read) ---
    root = os.path.join(tmp, "root")
    os.makedirs(os.path.join(root, "etc"))
    with open(os.path.join(root, "etc", "os-release"), "w") as f:
        f.write('ID=evil\nPRETTY_NAME="Evil\x1b]0;owned\x07\x1b[2J\x1b[31mOS\u202eTXT\x9b1m"\n')
    for color in ("never", "always"):
        rc, out, err = run("check", "--root", root, "--color", color)
        first = out.split("\n")[0]
        rdtest.check(rc in (0, 1, 2) and "\x07" not in out and "\x9b" not in out and "\u202e" not in out and
                     (color == "always" or ESC not in out),
                     f"os-release PRETTY_NAME (--color {color}): no raw control character",
                     repr(out[:400]) + err)
        rdtest.check("Evil\\x1b]0;owned\\x07\\x1b[2J\\x1b[31mOS\\u202eTXT\\u009b1m" in first,
                     f"os-release PRETTY_NAME (--color {color}): shown escaped",
                     repr(first))
        if color == "always":
            rdtest.check(re.sub(r"\x1b\[[0-9;]*m", "", out).count(ESC) == 0,
                         "--color always: the only escapes are colours",
                         repr(out[:400]))
    rc, out, err = run("check", "--root", root, "--json")
    rdtest.check(json.loads(out)["host"]["os"].startswith("Evil\x1b]0;"),
                 "JSON carries the os-release name as it is",
                 out[:300])


@rdtest.test
def facts_strings_escaped():
    # --- a facts file with newlines and escapes in names, paths and evidence ---
    def evil(f):
        f["pci"]["devices"][0]["marketing_name"] = "AMD Radeon\nFAKE LINE\x1b[2J\x1b[31m RX"
        f["access"]["nodes"][0]["path"] = "/dev/kfd\x1b]8;;http://x\x07"
        f["access"]["users"][0]["name"] = "alice\r\x1b[1Amallory"
        f["os"]["pretty_name"] = "Ubuntu\n24.04"


    path = write_facts("evil.json", evil)
    for verb in (["check"], ["explain", "hipErrorNoDevice"]):
        rc, out, err = run(*verb, "--facts", path, "--color", "never")
        name = verb[0]
        rdtest.check(rc == 2 and not re.search(r"[\x00-\x08\x0b-\x1f\x7f]", out),
                     f"{name}: facts strings escaped, no control character",
                     repr(out))
        rdtest.check("\nFAKE LINE" not in out and "\n24.04" not in out,
                     f"{name}: a newline in a name does not start a line",
                     out)
        rdtest.check("/dev/kfd\\x1b]8;;http://x\\x07" in out and "alice\\r\\x1b[1Amallory" in out,
                     f"{name}: evidence and summary escaped",
                     out)
        if name == "check":
            rdtest.check("AMD Radeon\\nFAKE LINE\\x1b[2J\\x1b[31m RX" in out and
                         "Ubuntu\\n24.04" in out,
                         "check: the GPU and OS names escaped",
                         out)


@rdtest.test
def long_words_broken_at_80_columns():
    # --- long words are broken at 80 columns, in check and explain ---
    LONG = "/opt/" + "very-long-directory-name-" * 8 + "renderD128"


    def long_path(f):
        f["access"]["nodes"][1]["path"] = LONG
        f["access"]["users"][0]["name"] = "u" * 95


    path = write_facts("long.json", long_path)
    for verb in (["check"], ["explain", "hipErrorNoDevice"], ["check", "--color", "always"]):
        rc, out, err = run(*verb, "--facts", path)
        rdtest.check(rc == 2 and not too_wide(out),
                     f"{' '.join(verb)}: every line fits 80 columns",
                     "\n".join(too_wide(out)) or out)
        joined = re.sub(r"\n +", "", re.sub(r"\x1b\[[0-9;]*m", "", out))
        rdtest.check(LONG in joined, f"{' '.join(verb)}: the long path is all there, broken only at line ends", out)


@rdtest.test
def one_colour_per_mark():
    # --- one colour per mark: an info finding in check and in explain ---
    # A data directory whose error table has an entry that an info finding
    # explains, and one whose causes this version cannot check at level 1.
    data = os.path.join(tmp, "data")
    subprocess.run(["cp", "-r", os.environ["ROCM_DOCTOR_DATA_DIR"], data], check=True)
    with open(os.path.join(data, "errors.ini"), "a") as f:
        f.write("\n[test-info-mark]\ndomain = runtime\ntitle = test info mark\npattern = test info mark\nmeaning = A test entry.\n"
                "causes = kfd.no-access\ninfo-causes = kfd.no-access\n"
                "\n[test-no-check]\ndomain = runtime\ntitle = test no check\npattern = test no check\nmeaning = A test entry.\n"
                "causes = runtime.kernel-failed\n")
    conf = os.path.join(tmp, "info.conf")
    with open(conf, "w") as f:
        f.write("[check]\nseverity = kfd.no-access:info render.no-access:info\n")
    marks = {}
    for verb in (["check"], ["explain", "test info mark"]):
        rc, out, err = run(*verb, "--facts", RX, "--config", conf, "--color", "always",
                           env={"ROCM_DOCTOR_DATA_DIR": data})
        m = re.search(r"(\x1b\[[0-9;]*m)i\x1b\[0m alice cannot open /dev/kfd", out)
        marks[verb[0]] = m.group(1) if m else None
        rdtest.check(m is not None, f"{verb[0]}: kfd.no-access as info has the info mark", repr(out) + err)
    rc, out, err = run("explain", "test no check", "--facts", RX, "--color", "always",
                       env={"ROCM_DOCTOR_DATA_DIR": data})
    m = re.search(r"(\x1b\[[0-9;]*m)i\x1b\[0m This version has no check", out)
    marks["explain (no check)"] = m.group(1) if m else None
    rdtest.check(marks["check"] is not None and len(set(marks.values())) == 1,
                 "the info mark has one colour in check and explain",
                 repr(marks))


@rdtest.test
def a_locale_not_utf8_gets_ascii():
    # --- a locale that is not UTF-8: ASCII marks, non-ASCII host bytes escaped ---
    rc, out, err = run("check", "--facts", RX, env={"LANG": "C"})
    rdtest.check(rc == 2 and "x alice cannot open /dev/kfd" in out and
                 all(ord(ch) < 0x80 for ch in out),
                 "C locale: ASCII marks, no byte above 0x7f",
                 out)
    rc, out, err = run("check", "--facts", RX, env={"LANG": "C", "LC_ALL": "en_US.UTF-8"})
    rdtest.check("\u2717 alice cannot open /dev/kfd" in out,
                 "LC_ALL=en_US.UTF-8 wins over LANG=C: Unicode marks",
                 out)

status = rdtest.main()
subprocess.run(["rm", "-rf", tmp])
sys.exit(status)
