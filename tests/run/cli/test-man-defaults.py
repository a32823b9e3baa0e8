#!/usr/bin/env python3
"""Every default a man page states for a configuration key agrees with
rocm-doctor.conf(5), which states each key's default once, and with the
commented defaults of the shipped conf/rocm-doctor.conf.

    test-man-defaults.py SRC
"""
import glob
import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "lib"))
import rdtest  # noqa: E402
src = sys.argv[1]
conf5 = open(f"{src}/man/rocm-doctor.conf.5.scd").read()
defaults = dict(re.findall(r"^\*([a-z_]+)\* = .*?default: ([^)]+)\)", conf5, re.M))


@rdtest.test
def conf5_states_the_defaults():
    rdtest.check(len(defaults) >= 15, "found only %d defaults in rocm-doctor.conf(5): the extraction is broken" % len(defaults))


@rdtest.test
def shipped_conf_agrees_with_conf5():
    """The shipped configuration file: "#key = value" lines."""
    shipped = open(f"{src}/conf/rocm-doctor.conf").read()
    for key, value in re.findall(r"^#([a-z_]+) = (.*)$", shipped, re.M):
        if key in defaults and defaults[key] != "unset":
            rdtest.check(defaults[key] == value.strip(),
                         "conf/rocm-doctor.conf says %s = %s, rocm-doctor.conf(5) says %s"
                         % (key, value, defaults[key]))


@rdtest.test
def man_pages_agree_with_conf5():
    """Other pages: "*key* ... default N" within one sentence."""
    for page in sorted(glob.glob(f"{src}/man/*.scd")):
        if page.endswith("rocm-doctor.conf.5.scd"):
            continue
        text = re.sub(r"\s+", " ", open(page).read())
        for key, value in re.findall(r"\*([a-z_]+)\*(?:(?!\. ).){0,120}?default:? ([0-9A-Za-z/._-]+)", text):
            if key in defaults:
                rdtest.check(defaults[key] == value.rstrip(".,"),
                             "%s says %s defaults to %s, rocm-doctor.conf(5) says %s" % (page, key, value, defaults[key]))


sys.exit(rdtest.main())
