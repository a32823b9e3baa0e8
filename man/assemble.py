#!/usr/bin/env python3
"""Prints a man page assembled from its fragments.

A page NAME.N is either one file (NAME.N.scd) or fragments NAME.N-NN-topic.scd,
concatenated in name order: the number orders the sections, so each area of
the program documents itself in its own file.
  assemble.py --list DIR PAGE   the fragment files of PAGE in DIR, one per line
  assemble.py --strays DIR PAGE...  fragments of no page (a page that moved
                                    section), one per line
  assemble.py FILE...      the page, on standard output
"""
import os
import re
import sys

if len(sys.argv) >= 3 and sys.argv[1] == "--strays":
    d, pages = sys.argv[2], sys.argv[3:]
    for name in sorted(os.listdir(d)):
        m = re.match(r"(.+\.[0-9])-[0-9][0-9]-.*\.scd$", name)
        if m and m.group(1) not in pages:
            print(name)
    sys.exit(0)
if len(sys.argv) == 4 and sys.argv[1] == "--list":
    d, page = sys.argv[2], sys.argv[3]
    for name in sorted(os.listdir(d)):
        if name.startswith(page + "-") and name.endswith(".scd"):
            print(os.path.join(d, name))
    sys.exit(0)
for path in sorted(sys.argv[1:], key=os.path.basename):
    with open(path, encoding="utf-8") as f:
        text = f.read()
    sys.stdout.write(text if text.endswith("\n") else text + "\n")
