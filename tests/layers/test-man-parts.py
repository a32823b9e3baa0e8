#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The man page parts (man/PAGE-NN-topic.scd, assembled in name order by
man/assemble.py): each is named PAGE-NN-topic with a two-digit number, and
no two parts of one page share a number, so the order of the assembled
page is the numbers' and never the spelling of the topics.

Usage: test-man-parts.py SOURCE_ROOT"""
import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import rdtest  # noqa: E402

ROOT = os.path.abspath(sys.argv[1]) if len(sys.argv) > 1 else rdtest.SOURCE_ROOT
PART = re.compile(r"^(?P<page>.+\.[0-9])-(?P<number>[0-9]+)-(?P<topic>.*)\.scd$")
TOPIC = re.compile(r"^[a-z0-9]+(-[a-z0-9]+)*$")


def problems(names):
    """What is wrong with a folder's part names: a bad name or topic, a
    number shared within a page."""
    out, seen = [], {}
    for name in sorted(names):
        m = PART.match(name)
        if not m:
            continue
        if len(m.group("number")) != 2:
            out.append("%s: the number is not two digits" % name)
        if not TOPIC.match(m.group("topic")):
            out.append("%s: the topic is not lower-case words joined by '-'" % name)
        key = (m.group("page"), m.group("number"))
        if key in seen:
            out.append("%s: number %s already taken by %s" % (name, m.group("number"), seen[key]))
        else:
            seen[key] = name
    return out


@rdtest.test
def rule_can_fail():
    rdtest.eq(problems(["rocm-doctor.1-18-commands-report.scd", "rocm-doctor.1-18-commands-slurm.scd",
                        "rocm-doctor.1-5-x.scd", "rocm-doctor.1-40-Output_Formats.scd", "rocm-doctord.8.scd",
                        "rocm-doctor.conf.5-18-report.scd"]),
              ["rocm-doctor.1-18-commands-slurm.scd: number 18 already taken by rocm-doctor.1-18-commands-report.scd",
               "rocm-doctor.1-40-Output_Formats.scd: the topic is not lower-case words joined by '-'",
               "rocm-doctor.1-5-x.scd: the number is not two digits"],
              "a shared number, a bad topic and a short number are reported; other pages' numbers are their own")


@rdtest.test
def part_numbers_unique():
    names = os.listdir(os.path.join(ROOT, "man"))
    parts = [n for n in names if PART.match(n)]
    rdtest.check(len(parts) >= 30, "man/ holds the parts of rocm-doctor.1 (%d found)" % len(parts))
    rdtest.eq(problems(names), [], "every part is PAGE-NN-topic.scd with a number of its own")


sys.exit(rdtest.main())
