#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The opener rule is enforced by the build: every read of a host or image
file in probes/, fixes/ and src/core/ goes through the one safe opener
(read_file_at, open_regular_at, fopen_regular, rootfs_read_file, the
rd_root_read_* helpers), which opens regular files only, non-blocking and
bounded, so a FIFO or a device node never hangs a run. Existence tests use
stat or O_PATH.

This test fails when a file there calls open, openat, openat2, fopen,
freopen, creat, rd_root_open or rootfs_open itself, unless the call opens a
directory (O_DIRECTORY) or only a handle (O_PATH), neither of which reads or
blocks, or the call is in the short list below, each with its reason.

Usage: test-opener.py SOURCE_DIR"""
import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import rdtest  # noqa: E402

src = os.path.realpath(sys.argv[1])
FOLDERS = ["probes", "fixes", "src/core"]
CALL = re.compile(r"(?<![\w.>])(open|openat|openat2|fopen|freopen|creat|rd_root_open|rootfs_open)\s*\(")
SAFE_FLAGS = ("O_DIRECTORY", "O_PATH")

# (file, text in the call) -> why it may open directly
ALLOWED = {
    ("probes/driver.c", '"/dev/kmsg"'):
        "the kernel log is a character device by design, opened O_NONBLOCK and read until EAGAIN",
    ("probes/packages-rpm.c", '"/dev/null"'): "stdin of a child process, never read",
    ("probes/torch.c", '"/dev/null"'): "stdin of a child process, never read",
    ("probes/health.c", "O_NONBLOCK"):
        "read_attr: one read of a live sysfs attribute on a fleet's hot path, O_NONBLOCK so it never waits",
    ("src/core/context.h", "const rd_ctx *ctx"): "the declaration of rd_root_open",
    ("src/core/context.c", "const rd_ctx *ctx"): "the definition of rd_root_open",
    ("src/core/context.c", "root_how(ctx)"): "rd_root_open itself: this test checks its callers",
}


def strip_comments(text):
    """Comments would give false hits: blank them out, keeping line numbers.
    Also returns where string literals start and end (embedded Python)."""
    out, strings, i = [], [], 0
    for m in re.finditer(r'/\*.*?\*/|//[^\n]*|"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'', text, flags=re.S):
        out.append(text[i:m.start()])
        tok = m.group(0)
        if tok.startswith("/"):
            out.append(re.sub(r"[^\n]", " ", tok))
        else:
            strings.append((m.start(), m.end()))
            out.append(tok)
        i = m.end()
    out.append(text[i:])
    return "".join(out), strings


def call_text(text, start):
    """The text of a call from its name to its closing parenthesis."""
    depth, i = 0, text.index("(", start)
    while i < len(text):
        c = text[i]
        if c == "(":
            depth += 1
        elif c == ")":
            depth -= 1
            if depth == 0:
                return text[start:i + 1]
        elif c == '"':
            i += 1
            while i < len(text) and text[i] != '"':
                i += 2 if text[i] == "\\" else 1
        i += 1
    return text[start:]


HINT = ("Read host files with read_file_at, open_regular_at, fopen_regular or rd_root_read_file; "
        "test existence with stat or O_PATH (see tests/layers/test-opener.py).")


def direct_opens(path, rel, used):
    """The calls of one file that open directly; adds the allowed ones met to used."""
    bad = []
    with open(path, encoding="utf-8") as f:
        text, strings = strip_comments(f.read())
    for m in CALL.finditer(text):
        if any(a <= m.start() < b for a, b in strings):
            continue
        call = call_text(text, m.start())
        if any(flag in call for flag in SAFE_FLAGS):
            continue
        allowed = [k for k in ALLOWED if k[0] == rel and k[1] in call]
        if allowed:
            used.update(allowed)
            continue
        line = text.count("\n", 0, m.start()) + 1
        bad.append(f"{rel}:{line}: {' '.join(call.split())}")
    return bad


@rdtest.test
def every_read_goes_through_the_opener():
    used = set()
    for folder in FOLDERS:
        for dirpath, _, files in os.walk(os.path.join(src, folder)):
            for name in sorted(files):
                if not name.endswith((".c", ".h")):
                    continue
                path = os.path.join(dirpath, name)
                rel = os.path.relpath(path, src)
                bad = direct_opens(path, rel, used)
                rdtest.check(not bad, f"{rel}: no direct open outside the opener",
                             "\n".join(bad + [HINT] if bad else []))
    for k in sorted(ALLOWED):
        rdtest.check(k in used, f"allowed call still there: {k[0]} {k[1]}", "remove it from the list")


sys.exit(rdtest.main())
