#!/usr/bin/env python3
"""Command-line contract tests through the real binary: options, exit
statuses, facts round trip, error messages, output layout."""
import json
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "lib"))
import rdtest  # noqa: E402
BIN = sys.argv[1]
HERE = os.path.dirname(os.path.abspath(__file__))
FACTS = os.path.join(HERE, "facts")


T = rdtest.Tally()
check = T.check


def run(*args, env=None):
    return rdtest.run(BIN, *args, env=env)


def ids(report):
    return sorted((f["id"], f["severity"]) for f in report["findings"])


rc, out, err = run("--help")
check("--help exits 0 and shows usage", rc == 0 and out.startswith("Usage: rocm-doctor") and "--root" in out, out)
check("--help writes nothing to stderr", err == "", err)

for args, needle in [(["--bogus"], "unknown option --bogus"), (["frobnicate"], 'unknown command "frobnicate"'),
                     (["--level", "3"], '--level must be 1 or 2, not "3"'), (["--color", "pink"], "--color must be"),
                     (["check", "extra"], 'unexpected argument "extra"'), (["--root"], "needs an argument")]:
    rc, out, err = run(*args)
    lines = err.strip().split("\n")
    check(f"{' '.join(args)}: exit 3 with one line and a hint", rc == 3 and needle in lines[0] and
          lines[-1] == "Try 'rocm-doctor --help' for more information." and len(lines) == 2 and out == "",
          f"rc={rc} err={err!r}")


rc, out, err = run("--version")
check("--version", rc == 0 and out.startswith("rocm-doctor "), out)

rc, out, err = run("check", "--root", "/nonexistent/dir")
check("--root on a missing dir: exit 3 naming it", rc == 3 and "/nonexistent/dir" in err, err)

# The live host: whatever it is, the JSON is valid and agrees with the exit status.
rc, out, err = run("check", "--json")
rep = json.loads(out)
check("check --json: schema and exit status agree", rep["schema"] == "rocm-doctor/1" and
      rep["exit_status"] == rc and rc in (0, 1, 2), f"rc={rc}")
check("every finding has evidence", all(f["evidence"] for f in rep["findings"]), out)

# facts -> check --facts gives the same diagnosis as the live check
rc_f, facts_out, err = run("facts", "--json")
check("facts --json: valid facts", rc_f == 0 and json.loads(facts_out)["schema"] == "rocm-doctor-facts/1", err)
with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as t:
    t.write(facts_out)
rc2, out2, err2 = run("check", "--json", "--facts", t.name)
check("check --facts on saved facts = live check", rc2 == rc and ids(json.loads(out2)) == ids(rep), out2 + err2)
# a second round trip is byte-identical
rc3, facts2, _ = run("facts", "--json")

rc, out, err = run("check", "--json", "--facts", os.path.join(FACTS, "nvidia-h200.json"))
r = json.loads(out)
check("NVIDIA facts: gpu.none, exit 2", rc == 2 and ids(r) == [("gpu.none", "error")], out)
ev = " ".join(r["findings"][0]["evidence"])
check("NVIDIA facts: evidence names the H200 and its driver",
      "NVIDIA GH100 [H200 SXM 141GB] (10de:2335), driver nvidia" in ev and "(1a03:2000), driver ast" in ev, ev)
# gpu.none's remedy; only explain adds that a message it explains came from
# no GPU of this host
NO_GPU_REMEDY = ("ROCm needs an AMD GPU; the GPUs here are served by other stacks. Nothing to fix if this host "
                 "is not meant to run ROCm.")
NOT_FROM_HERE = " A message about an AMD GPU (amdgpu, KFD, HIP, HSA) cannot have come from this host's GPU."
check("NVIDIA facts: check's remedy is gpu.none's own", r["findings"][0]["remedy"] == NO_GPU_REMEDY, out)
rc, out, err = run("check", "--facts", os.path.join(FACTS, "nvidia-h200.json"))
check("NVIDIA facts: check's text says nothing of an explained message",
      rc == 2 and "is not meant to run ROCm." in out and "cannot have come" not in out, out)
rc, out, err = run("explain", "--json", "--facts", os.path.join(FACTS, "nvidia-h200.json"), "hipErrorNoDevice")
r = json.loads(out)
check("NVIDIA facts: explain's remedy adds that the message came from no GPU here",
      rc == 2 and [f["remedy"] for f in r["findings"]] == [NO_GPU_REMEDY + NOT_FROM_HERE], out)

rc, out, err = run("check", "--json", "--facts", os.path.join(FACTS, "rx7900xtx-no-access.json"))
r = json.loads(out)
check("no-access facts: kfd.no-access and render.no-access, exit 2",
      rc == 2 and ids(r) == [("kfd.no-access", "error"), ("render.no-access", "error")], out)
check("no-access facts: remedy is the usermod line",
      r["findings"][0]["remedy"].startswith("sudo usermod -aG render,video alice"), out)
check("no-access facts: one GPU gfx1100", [g["gfx"] for g in r["gpus"]] == ["gfx1100"], out)

rc, out, err = run("check", "--facts", os.path.join(FACTS, "rx7900xtx-no-access.json"))
check("text report fits 80 columns", all(len(l) <= 80 for l in out.split("\n")),
      "\n".join(l for l in out.split("\n") if len(l) > 80))
check("text report: no colour when not a terminal", "\033[" not in out, out)
check("text report shows the GPU and the fix", "0000:03:00.0  AMD Radeon RX 7900 XTX" in out and
      "Fix: sudo usermod -aG render,video alice" in out, out)
rc, out, err = run("check", "--color", "always", "--facts", os.path.join(FACTS, "rx7900xtx-no-access.json"))
check("--color always colours", "\033[1;31m" in out, out)

bad = {
    "not-json.json": ("this is not json", "not valid JSON"),
    "empty.json": ("", "not valid JSON"),
    "truncated.json": ('{"schema": "rocm-doctor-facts/1", "pci": {"devices": [', "unexpected end of file"),
    "schema.json": ('{"schema": "rocm-doctor-facts/99"}', 'unsupported schema "rocm-doctor-facts/99"'),
    "noschema.json": ('{"pci": {}}', 'no "schema" key'),
    "type.json": ('{"schema": "rocm-doctor-facts/1", "pci": {"devices": [{"vendor_id": "0x1002"}]}}',
                  "pci.devices[0].vendor_id: expected an integer"),
    "trailing.json": ('{"schema": "rocm-doctor-facts/1"} {"more": 1}', "trailing data"),
    "array.json": ('[1, 2, 3]', 'no "schema" key'),
    "nul.json": ('{"schema": "rocm-doctor-facts/1"}\0garbage', "NUL byte"),
}
d = tempfile.mkdtemp()
for name, (text, needle) in bad.items():
    path = os.path.join(d, name)
    with open(path, "w") as fh:
        fh.write(text)
    rc, out, err = run("check", "--facts", path)
    check(f"malformed facts {name}: exit 3 naming file and cause", rc == 3 and path in err and needle in err
          and out == "", f"rc={rc} err={err!r}")
rc, out, err = run("check", "--facts", os.path.join(d, "missing.json"))
check("missing facts file: exit 3", rc == 3 and "No such file" in err, err)

# a malformed knowledge table stops the check with file:line (exit 3)
conf = tempfile.mkdtemp()
src = os.environ.get("ROCM_DOCTOR_DATA_DIR")
with open(os.path.join(src, "pci-ids.ini")) as fh:
    ids_text = fh.read()
with open(os.path.join(conf, "pci-ids.ini"), "w") as fh:
    fh.write(ids_text)
with open(os.path.join(conf, "archs.ini"), "w") as fh:
    fh.write("[table]\nname = archs\nversion = 1\ndate = 2026-11-30\n\n[gfx1100]\ngfx_target_version = 110000\n"
             "family = gfx11\natomics = sometimes\n")
rc, out, err = run("check", "--facts", os.path.join(FACTS, "nvidia-h200.json"), env={"ROCM_DOCTOR_DATA_DIR": conf})
check("malformed archs.ini: exit 3 with file:line", rc == 3 and f"{conf}/archs.ini:9:" in err and
      "sometimes" in err, err)

T.finish()
