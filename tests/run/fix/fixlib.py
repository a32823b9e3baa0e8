# SPDX-License-Identifier: MIT
"""Temporary roots, facts files, tree snapshots, a local HTTPS server and
the normalised expected-output files of the fix and setup tests (the
harness is tests/lib/rdtest.py)."""
import copy
import hashlib
import os
import re
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "lib"))
import beds  # noqa: E402
import rdtest  # noqa: E402
# the beds (tests/lib/beds.py) under the names the fix tests know them by
PASSWD, SHADOW, GROUP, GSHADOW = beds.PASSWD, beds.SHADOW, beds.GROUP, beds.GSHADOW
Root, temp_dir, write_facts = beds.Root, beds.temp_dir, beds.write_facts


def normalise(text, root=None, facts=None, more=None):
    """text as tests/expected/ holds it: rdtest.normalise (run ids, times)
    with the root as ROOT, the facts file as FACTS, each string of more (a
    dict: string -> placeholder: a generated key's fingerprint, its sha256
    and size, a local server's URL) replaced, the test's other temporary
    directories (TMPDIR/rd-NAME.XXXXXXXX) as TMP/rd-NAME, this host's
    kernel release (a plan for a host without its headers names it) as
    KERNEL-RELEASE, and an armored key added by a diff as one line KEY
    (its hunk header says +1,N)."""
    paths = {os.uname().release: "KERNEL-RELEASE"}
    paths.update(more or {})
    if root is not None:
        paths[getattr(root, "path", root)] = "ROOT"
    if facts is not None:
        paths[facts] = "FACTS"
    text = rdtest.normalise(text, paths)
    # a throw-away armored key in a diff: one line KEY, any length
    text = re.sub(r"(@@ -0,0 \+1,)\d+( @@\n\+-----BEGIN PGP PUBLIC KEY BLOCK-----\n)", r"\1N\2", text)
    text = re.sub(r"(\+-----BEGIN PGP PUBLIC KEY BLOCK-----\n)(?:\+.*\n)*?(\+-----END PGP PUBLIC KEY BLOCK-----\n)",
                  r"\1+KEY\n\2", text)
    return re.sub(re.escape(tempfile.gettempdir()) + r"/(rd-[\w-]+)\.[\w]{8}", r"TMP/\1", text)


def expect(name, text, root=None, facts=None, more=None, area="fix"):
    """Compares text, normalised, with tests/expected/AREA/NAME.txt (one
    check; ROCM_DOCTOR_REGENERATE=1 writes it)."""
    return rdtest.expect_file("%s/%s.txt" % (area, name), normalise(text, root, facts, more))


def key_names(fpr, binary=None, armored=None):
    """more for normalise() of a throw-away key: its fingerprint as
    FINGERPRINT (the long and short ids as KEYID16 and KEYID), and the
    size and sha256 of its binary form (binary, or read from the armored
    file) as KEY-SIZE and KEY-SHA256."""
    import base64
    more = {fpr: "FINGERPRINT", fpr[-16:].lower(): "KEYID16", fpr[-8:].lower(): "KEYID",
            fpr[-16:]: "KEYID16", fpr[-8:]: "KEYID"}
    if binary is None and armored is not None:
        with open(armored) as f:
            body = f.read().split("\n\n", 1)[1].split("-----END")[0]
        binary = base64.b64decode("".join(l for l in body.split() if not l.startswith("=")))
    if binary is not None:
        more[hashlib.sha256(binary).hexdigest()] = "KEY-SHA256"
        more["%d bytes" % len(binary)] = "KEY-SIZE bytes"
    return more


_SEQ = {}


def current_test():
    """The name of the rdtest test that is running."""
    name = rdtest.current()
    if name is None:
        raise RuntimeError("not called from a test")
    return name


def expect_next(what, text, root=None, facts=None, more=None, area="fix"):
    """expect() for a text a helper sees several times in a test:
    tests/expected/AREA/TEST.WHAT-N.txt, N counting from 1 in each test."""
    key = (current_test(), what)
    _SEQ[key] = _SEQ.get(key, 0) + 1
    return expect("%s.%s-%d" % (key[0], what, _SEQ[key]), text, root, facts, more, area)


def load_facts(src_dir, name="rx7900xtx-no-access.json"):
    """A facts file of tests/run/cli/facts (src_dir is a folder of
    tests/run, as the scripts' arguments name it)."""
    return beds.load_facts(name)


def root_only_nodes(facts):
    """The device nodes belong to root: no group grants access."""
    f = copy.deepcopy(facts)
    for n in f["access"]["nodes"]:
        n["gid"] = 0
        n["group"] = "root"
    return f


def with_igpu(facts):
    """Adds a Phoenix iGPU (gfx1103, Radeon 780M) next to the RX 7900 XTX."""
    f = copy.deepcopy(facts)
    f["pci"]["devices"].append({
        "address": "0000:c5:00.0", "vendor_id": 4098, "device_id": 5567, "revision": 193,
        "class_code": 196608, "marketing_name": "AMD Radeon 780M", "driver": "amdgpu", "display": True,
        "pcie_type": 0, "caps_readable": True})
    f["drm"]["devices"][0]["unique_id"] = "2f7c3a4b5d6e7f80"
    f["drm"]["devices"].append({"pci_address": "0000:c5:00.0", "card": "/dev/dri/card1",
                                "render": "/dev/dri/renderD129", "render_minor": 129,
                                "vram_total": 536870912})
    f["kfd"]["nodes"].append({"node_id": 2, "gpu_id": 1234, "properties": {
        "cpu_cores_count": 0, "simd_count": 24, "gfx_target_version": 110003, "vendor_id": 4098,
        "device_id": 5567, "location_id": 50432, "domain": 0, "drm_render_minor": 129}})
    f["access"]["nodes"].append({"path": "/dev/dri/renderD129", "role": "render", "exists": True,
                                 "mode": 432, "uid": 0, "gid": 992, "group": "render"})
    return f


def https_server(directory):
    """A local HTTPS server of directory with a throw-away certificate:
    (base URL, the certificate for CURL_CA_BUNDLE, a function that stops it).
    Needs openssl."""
    import http.server
    import ssl
    import threading
    d = temp_dir("rd-https-cert.")
    cert, key = os.path.join(d, "cert.pem"), os.path.join(d, "key.pem")
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", key, "-out", cert,
                    "-days", "1", "-subj", "/CN=localhost", "-addext", "subjectAltName=DNS:localhost"],
                   capture_output=True, check=True)

    class Quiet(http.server.SimpleHTTPRequestHandler):
        def __init__(self, *a, **kw):
            super().__init__(*a, directory=directory, **kw)

        def log_message(self, *a):
            pass

    httpd = http.server.HTTPServer(("localhost", 0), Quiet)
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    ctx.load_cert_chain(cert, key)
    httpd.socket = ctx.wrap_socket(httpd.socket, server_side=True)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    return "https://localhost:%d" % httpd.server_address[1], cert, httpd.shutdown

