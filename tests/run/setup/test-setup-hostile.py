#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""setup on a real Debian root (test-setup.py's host: the cached debootstrap
tree, stand-in packages, the real apt-get and dpkg) against hostile input:
a mirror that trickles, package state that is a FIFO or a link out of the
root, a mirror URL with credentials, text from the mirror's index with
terminal escapes, mirror values that are shell.

Usage: test-setup-hostile.py ROCM_DOCTOR SOURCE_DIR CACHE_DIR"""
import http.server
import importlib.util
import json
import os
import re
import socketserver
import subprocess
import sys
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "fix"))
sys.path.insert(0, HERE)
import fixlib  # noqa: E402
from fixlib import check, eq, main, temp_dir  # noqa: E402

# test-setup.py's host and helpers, without its tests
_spec = importlib.util.spec_from_file_location("test_setup", os.path.join(HERE, "test-setup.py"))
ts = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(ts)
fixlib.TESTS.clear()
test = fixlib.test
Host = ts.Host
RD = ts.RD


class _Trickle(http.server.BaseHTTPRequestHandler):
    """Every GET answers 200 with a long body, one byte every 2 s."""

    def do_GET(self):  # noqa: N802
        self.send_response(200)
        self.send_header("Content-Length", "100000")
        self.end_headers()
        try:
            for _ in range(1000):
                self.wfile.write(b"x")
                self.wfile.flush()
                time.sleep(2)
        except OSError:
            pass

    def log_message(self, *args):
        pass


def trickling_server():
    srv = socketserver.ThreadingTCPServer(("127.0.0.1", 0), _Trickle)
    srv.daemon_threads = True
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    return srv, "http://127.0.0.1:%d" % srv.server_address[1]


def set_conf(h, fix_extra="", mirror=None):
    """The host's rocm-doctor.conf with extra [fix] keys and its mirror."""
    m = ts.mirror()
    h.r.write("/etc/rocm-doctor/rocm-doctor.conf",
              "[fix]\napt_key_file = %s\napt_key_fingerprint = %s\npackage_lock_timeout_s = 2\n%s"
              "[repository]\nmirror = %s\n" % (m.key_file, m.fingerprint, fix_extra, mirror or m.base + "/radeon"))


@test
def trickling_mirror_ends_at_the_deadline():
    h = Host()
    srv, base = trickling_server()
    try:
        set_conf(h, "package_query_timeout_s = 6\n", base + "/radeon")
        pkgs_before, tree_before = h.packages(), h.tree()
        t0 = time.monotonic()
        p = h.setup(timeout=120)
        took = time.monotonic() - t0
    finally:
        srv.shutdown()
        srv.server_close()
    out = p.stdout.replace(h.path, "ROOT")
    eq(p.returncode, 2, "setup with its package step unplanned (stdout %s, stderr %s)" % (out, p.stderr))
    print("# the plan took %.1f s: %s" % (took, [l for l in out.splitlines() if "did not finish" in l]))
    check(took < 40, "the plan ended about the deadline (6 s), not when the mirror gave up: %.1f s" % took)
    check("packages: the apt dry run could not run (apt-get update did not finish within 6 s "
          "(package_query_timeout_s) and was stopped; it was at: " in out, "the command and the deadline named: " + out)
    leftover = subprocess.run(["pgrep", "-f", "127.0.0.1:%d" % srv.server_address[1]], capture_output=True,
                              text=True).stdout.split()
    leftover += subprocess.run(["pgrep", "-f", "Dir::State=.*rd-overlay"], capture_output=True,
                               text=True).stdout.split()
    eq(leftover, [], "no apt-get or http method left running")
    eq(h.packages(), pkgs_before, "nothing installed")
    ts.same_tree(h.tree(), tree_before, "planning wrote nothing")


if __name__ == "__main__":
    only = [t for t in os.environ.get("ROCM_DOCTOR_SETUP_TESTS", "").split(",") if t]
    if only:
        fixlib.TESTS[:] = [t for t in fixlib.TESTS if t.__name__ in only]
    sys.exit(main())
