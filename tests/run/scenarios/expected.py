"""What users see on each scenario, against tests/expected/scenarios/NAME/.

Every scenario has four files there, one per report format, each what
`rocm-doctor check --format FORMAT` prints on the scenario's testbed:

    check.txt   --format text
    check.json  --json
    check.prom  --format prometheus
    check.nfd   --format nfd

The scenario test (run.py) renders all four in its testbed and compares
them; the fleet-outputs-NAME tests (tests/run/fleet/test-outputs.py) compare
the Prometheus and NFD files again with their own runs.

A level-2 scenario that loads the machine's real HIP runtime (its JSON
names the runtime's version) keeps check.txt and check.json per HIP
release, under hip-MAJOR.MINOR/: what the runtime itself says differs by
release (HIP 5.2, Debian 12: hipInit fails with hipErrorInvalidDevice; HIP
5.7, Debian 13: hipErrorNoDevice), and the report quotes it. Each platform's
run is compared with the files of its own HIP release.

Standard output, then, when the run wrote any, "--- stderr" and standard
error (a refusal prints no report, only its reason). normalise() replaces
what changes from run to run; rdtest.expect_file compares, and
ROCM_DOCTOR_REGENERATE=1 rewrites the files (review them with git diff).
"""
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(HERE)))
sys.path.insert(0, os.path.join(SOURCE_ROOT, "tests", "lib"))
import rdtest  # noqa: E402

FILES = {"text": "check.txt", "json": "check.json", "prometheus": "check.prom", "nfd": "check.nfd"}

# Where a scenario's testbed is written: a fixed directory (not TMPDIR),
# since the text report wraps at 80 columns and the root path's length
# decides where some lines break.
TESTBED_DIR = "/tmp"


def build_version():
    """The version meson.build gives the project (what the binary prints)."""
    with open(os.path.join(SOURCE_ROOT, "meson.build")) as f:
        m = re.search(r"^\s*version:\s*'([^']+)'", f.read(), re.M)
    return m.group(1)


VERSION = build_version()
# The places the tool prints its own version: the text report's first line,
# the JSON's top-level "version", Prometheus' rocm_doctor_info and the NFD
# file's comment.
_VERSION_AT = [
    (re.compile(r"^rocm-doctor %s:" % re.escape(VERSION), re.M), "rocm-doctor VERSION:"),
    (re.compile(r'^(  "version": ?)"%s",$' % re.escape(VERSION), re.M), r'\1"VERSION",'),
    (re.compile(r'^rocm_doctor_info\{version="%s"\}' % re.escape(VERSION), re.M), 'rocm_doctor_info{version="VERSION"}'),
    (re.compile(r"^# Node Feature Discovery labels written by rocm-doctor %s$" % re.escape(VERSION), re.M),
     "# Node Feature Discovery labels written by rocm-doctor VERSION"),
]
# Prometheus: when the check ran (seconds since the epoch).
_TIMESTAMP = re.compile(r"^(rocm_doctor_last_check_timestamp_seconds) \S+$", re.M)
# JSON, level 2: how long the runtime child ran.
_ELAPSED = re.compile(r'("elapsed_s": ?)[0-9.eE+-]+')


def normalise(text, root, tmp=None):
    """text with what changes from run to run replaced: the testbed's root
    (ROOT) and temporary directory (TMP), times and run ids
    (rdtest.normalise), the build's version (VERSION) where the tool prints
    it, Prometheus' check timestamp (TIMESTAMP) and the level-2 child's
    run time (DURATION)."""
    paths = {root: "ROOT"}
    if tmp:
        paths[tmp] = "TMP"
    text = rdtest.normalise(text, paths)
    for pattern, repl in _VERSION_AT:
        text = pattern.sub(repl, text)
    text = _ELAPSED.sub(r"\1DURATION", text)
    return _TIMESTAMP.sub(r"\1 TIMESTAMP", text)


def content(stdout, stderr, root, tmp=None):
    """The expected file's text: stdout, and stderr after a separator line
    when there is any."""
    text = stdout
    if stderr:
        text += "--- stderr\n" + stderr
    return normalise(text, root, tmp)


def compared():
    """Why the files are not compared here, or None: the reports say which
    user ran the tool (as root: that ordinary users' access was not
    checked), and the files are those of a run as root."""
    if os.geteuid() != 0:
        return "the expected files are those of a run as root"
    return None


# The real HIP runtime's version in the JSON report (level 2).
_HIP_VERSION = re.compile(r'"hip": ?\{[^{}]*?"runtime_version": ?"(\d+)\.(\d+)\.')


def hip_release(json_text):
    """"hip-MAJOR.MINOR" when the JSON report names the real HIP runtime's
    version, else None."""
    m = _HIP_VERSION.search(json_text or "")
    return "hip-%s.%s" % m.groups() if m else None


def expect(name, fmt, stdout, stderr, root, tmp=None, hip=None):
    """Compares (or with ROCM_DOCTOR_REGENERATE=1 writes) one format's
    output; returns True when it matches. hip (hip_release()): the text and
    JSON files are those of that HIP release."""
    sub = hip if hip and fmt in ("text", "json") else ""
    return rdtest.expect_file(os.path.join("scenarios", name, sub, FILES[fmt]),
                              content(stdout, stderr, root, tmp))
