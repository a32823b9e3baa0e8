#!/usr/bin/env python3
"""Command-line contract tests through the real binary: options, exit
statuses, facts round trip, error messages, output layout."""
import json
import os
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "lib"))
import rdtest  # noqa: E402
BIN = sys.argv[1]
HERE = os.path.dirname(os.path.abspath(__file__))
FACTS = os.path.join(HERE, "facts")


def run(*args, env=None):
    return rdtest.run(BIN, *args, env=env)


def ids(report):
    return sorted((f["id"], f["severity"]) for f in report["findings"])


@rdtest.test
def help_exits_0_and_shows_usage():
    rc, out, err = run("--help")
    rdtest.check(rc == 0 and out.startswith("Usage: rocm-doctor") and "--root" in out,
                 "--help exits 0 and shows usage",
                 out)
    rdtest.check(err == "", "--help writes nothing to stderr", err)


@rdtest.test
def usage_errors_exit_3_with_a_hint():
    for args, needle in [(["--bogus"], "unknown option --bogus"), (["frobnicate"], 'unknown command "frobnicate"'),
                         (["--level", "3"], '--level must be 1 or 2, not "3"'), (["--color", "pink"], "--color must be"),
                         (["check", "extra"], 'unexpected argument "extra"'), (["--root"], "needs an argument")]:
        rc, out, err = run(*args)
        lines = err.strip().split("\n")
        rdtest.check(rc == 3 and needle in lines[0] and
                     lines[-1] == "Try 'rocm-doctor --help' for more information." and len(lines) == 2 and out == "",
                     f"{' '.join(args)}: exit 3 with one line and a hint",
                     f"rc={rc} err={err!r}")


@rdtest.test
def version():
    rc, out, err = run("--version")
    rdtest.check(rc == 0 and out.startswith("rocm-doctor "), "--version", out)


@rdtest.test
def root_on_a_missing_directory():
    rc, out, err = run("check", "--root", "/nonexistent/dir")
    rdtest.check(rc == 3 and "/nonexistent/dir" in err, "--root on a missing dir: exit 3 naming it", err)


@rdtest.test
def live_check_json_and_facts_round_trip():
    # The live host: whatever it is, the JSON is valid and agrees with the exit status.
    rc, out, err = run("check", "--json")
    rep = json.loads(out)
    rdtest.check(rep["schema"] == "rocm-doctor/1" and
                 rep["exit_status"] == rc and rc in (0, 1, 2),
                 "check --json: schema and exit status agree",
                 f"rc={rc}")
    rdtest.check(all(f["evidence"] for f in rep["findings"]), "every finding has evidence", out)

    # facts -> check --facts gives the same diagnosis as the live check
    rc_f, facts_out, err = run("facts", "--json")
    rdtest.check(rc_f == 0 and json.loads(facts_out)["schema"] == "rocm-doctor-facts/1",
                 "facts --json: valid facts",
                 err)
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as t:
        t.write(facts_out)
    rdtest.remove_at_exit(t.name)
    rc2, out2, err2 = run("check", "--json", "--facts", t.name)
    rdtest.check(rc2 == rc and ids(json.loads(out2)) == ids(rep),
                 "check --facts on saved facts = live check",
                 out2 + err2)
    # a second round trip is byte-identical
    rc3, facts2, _ = run("facts", "--json")


@rdtest.test
def nvidia_facts_give_gpu_none():
    rc, out, err = run("check", "--json", "--facts", os.path.join(FACTS, "nvidia-h200.json"))
    r = json.loads(out)
    rdtest.check(rc == 2 and ids(r) == [("gpu.none", "error")], "NVIDIA facts: gpu.none, exit 2", out)
    ev = " ".join(r["findings"][0]["evidence"])
    rdtest.check("NVIDIA GH100 [H200 SXM 141GB] (10de:2335), driver nvidia" in ev and "(1a03:2000), driver ast" in ev,
                 "NVIDIA facts: evidence names the H200 and its driver",
                 ev)
    # gpu.none's remedy; only explain adds that a message it explains came from
    # no GPU of this host
    NO_GPU_REMEDY = ("ROCm needs an AMD GPU; the GPUs here are served by other stacks. Nothing to fix if this host "
                     "is not meant to run ROCm.")
    NOT_FROM_HERE = " A message about an AMD GPU (amdgpu, KFD, HIP, HSA) cannot have come from this host's GPU."
    rdtest.check(r["findings"][0]["remedy"] == NO_GPU_REMEDY,
                 "NVIDIA facts: check's remedy is gpu.none's own",
                 out)
    rc, out, err = run("check", "--facts", os.path.join(FACTS, "nvidia-h200.json"))
    rdtest.check(rc == 2 and "is not meant to run ROCm." in out and "cannot have come" not in out,
                 "NVIDIA facts: check's text says nothing of an explained message",
                 out)
    rc, out, err = run("explain", "--json", "--facts", os.path.join(FACTS, "nvidia-h200.json"), "hipErrorNoDevice")
    r = json.loads(out)
    rdtest.check(rc == 2 and [f["remedy"] for f in r["findings"]] == [NO_GPU_REMEDY + NOT_FROM_HERE],
                 "NVIDIA facts: explain's remedy adds that the message came from no GPU here",
                 out)


@rdtest.test
def no_access_facts():
    rc, out, err = run("check", "--json", "--facts", os.path.join(FACTS, "rx7900xtx-no-access.json"))
    r = json.loads(out)
    rdtest.check(rc == 2 and ids(r) == [("kfd.no-access", "error"), ("render.no-access", "error")],
                 "no-access facts: kfd.no-access and render.no-access, exit 2",
                 out)
    rdtest.check(r["findings"][0]["remedy"].startswith("sudo usermod -aG render,video alice"),
                 "no-access facts: remedy is the usermod line",
                 out)
    rdtest.check([g["gfx"] for g in r["gpus"]] == ["gfx1100"], "no-access facts: one GPU gfx1100", out)


@rdtest.test
def text_report_layout_and_colour():
    rc, out, err = run("check", "--facts", os.path.join(FACTS, "rx7900xtx-no-access.json"))
    rdtest.check(all(len(l) <= 80 for l in out.split("\n")),
                 "text report fits 80 columns",
                 "\n".join(l for l in out.split("\n") if len(l) > 80))
    rdtest.check("\033[" not in out, "text report: no colour when not a terminal", out)
    rdtest.check("0000:03:00.0  AMD Radeon RX 7900 XTX" in out and
                 "Fix: sudo usermod -aG render,video alice" in out,
                 "text report shows the GPU and the fix",
                 out)
    rc, out, err = run("check", "--color", "always", "--facts", os.path.join(FACTS, "rx7900xtx-no-access.json"))
    rdtest.check("\033[1;31m" in out, "--color always colours", out)


@rdtest.test
def malformed_facts_files():
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
    d = rdtest.temp_dir("rd-cli-facts-")
    for name, (text, needle) in bad.items():
        path = os.path.join(d, name)
        with open(path, "w") as fh:
            fh.write(text)
        rc, out, err = run("check", "--facts", path)
        rdtest.check(rc == 3 and path in err and needle in err
                     and out == "",
                     f"malformed facts {name}: exit 3 naming file and cause",
                     f"rc={rc} err={err!r}")
    rc, out, err = run("check", "--facts", os.path.join(d, "missing.json"))
    rdtest.check(rc == 3 and "No such file" in err, "missing facts file: exit 3", err)


@rdtest.test
def malformed_knowledge_table():
    # a malformed knowledge table stops the check with file:line (exit 3)
    conf = rdtest.temp_dir("rd-cli-conf-")
    src = os.environ.get("ROCM_DOCTOR_DATA_DIR")
    with open(os.path.join(src, "pci-ids.ini")) as fh:
        ids_text = fh.read()
    with open(os.path.join(conf, "pci-ids.ini"), "w") as fh:
        fh.write(ids_text)
    with open(os.path.join(conf, "archs.ini"), "w") as fh:
        fh.write("[table]\nname = archs\nversion = 1\ndate = 2026-11-30\n\n[gfx1100]\ngfx_target_version = 110000\n"
                 "family = gfx11\natomics = sometimes\n")
    rc, out, err = run("check", "--facts", os.path.join(FACTS, "nvidia-h200.json"), env={"ROCM_DOCTOR_DATA_DIR": conf})
    rdtest.check(rc == 3 and f"{conf}/archs.ini:9:" in err and
                 "sometimes" in err,
                 "malformed archs.ini: exit 3 with file:line",
                 err)


sys.exit(rdtest.main())
