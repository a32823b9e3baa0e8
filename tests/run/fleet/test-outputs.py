#!/usr/bin/env python3
"""The machine formats on every scenario and on this host, through the real
binary: the JSON report validates against the shipped JSON Schema, the
Prometheus textfile passes `promtool check metrics` and says what the JSON
says, the NFD feature file follows the label rules and says what the JSON
says; on scenarios, the support bundle's facts round-trip through
`check --facts`.

    test-outputs.py ROCM_DOCTOR TB_RUN SCHEMA SCENARIO...
    test-outputs.py ROCM_DOCTOR TB_RUN SCHEMA --host
    test-outputs.py ROCM_DOCTOR TB_RUN SCHEMA --double LIB --kernels N SCENARIO...

--host checks this host, and that the schema rejects broken reports.
--double runs the level-2 scenarios of tests/run/runtime/scenarios_double.py
with the TEST DOUBLE of the ROCm runtime LIB (N: the GPU code objects the
build embeds; scenarios that run them skip when it is 0): the live level-2
report validates, and the formats rendered from one saved level-2 run
(`facts --level 2`, then `check --facts --level 2`) agree value for value.
Every report's keys must all be described by the schema.
"""
import copy
import json
import os
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
import time

sys.dont_write_bytecode = True  # keep the source tree clean
import fleetlib  # noqa: E402  (puts tests/run/scenarios on the path)
import expected  # noqa: E402  (tests/run/scenarios/expected.py)

sys.path.insert(0, os.path.join(fleetlib.SOURCE_ROOT, "tests", "lib"))
import rdtest  # noqa: E402

try:
    import jsonschema
except ImportError:
    print("SKIP: python3-jsonschema is not installed")
    sys.exit(rdtest.EXIT_SKIP)

BIN, TB_RUN, SCHEMA = sys.argv[1:4]
ARGS = sys.argv[4:]
HOST = ARGS == ["--host"]
DOUBLE = None
KERNELS = 0
if "--double" in ARGS:
    i = ARGS.index("--double")
    DOUBLE = os.path.abspath(ARGS[i + 1])
    del ARGS[i:i + 2]
    i = ARGS.index("--kernels")
    KERNELS = int(ARGS[i + 1])
    del ARGS[i:i + 2]
    # the level-2 catalogue instead of the level-1 one
    sys.path.insert(0, os.path.join(fleetlib.SOURCE_ROOT, "tests", "run", "runtime"))
    fleetlib.scenarios.SCENARIOS.clear()
    import scenarios_double  # noqa: E402
    os.environ["ROCM_DOCTOR_RUNTIME_LIB"] = DOUBLE
ONLY = [] if HOST else ARGS

with open(SCHEMA) as f:
    schema = json.load(f)
jsonschema.Draft202012Validator.check_schema(schema)
validator = jsonschema.Draft202012Validator(schema)
PROMTOOL = shutil.which("promtool")
if not PROMTOOL:
    print("# promtool is not installed: the metrics are checked here, not linted by promtool")

# name{labels} value; label values are "..." with \\ \" \n escapes
SAMPLE = re.compile(r'^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$')
LABEL = re.compile(r'([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"(?:,|$)')
NFD_PREFIX = "rocm-doctor.feature.node.kubernetes.io/"
NFD_NAME = re.compile(r'^[A-Za-z0-9]([A-Za-z0-9._-]{0,61}[A-Za-z0-9])?$')
NFD_VALUE = re.compile(r'^([A-Za-z0-9]([A-Za-z0-9._-]{0,61}[A-Za-z0-9])?)?$')
# Scenarios with a ROCm installation (tests/run/scenarios/scenarios_rocm.py,
# scenarios_apt.py):
# the version NFD must publish.
ROCM_VERSIONS = {"healthy-rx7900xtx-rocm": "6.2.4", "healthy-navi21-rocm-deb822": "6.3.3",
                 "healthy-8x-mi300x-rocm-dkms": "6.4.3"}
# Level 2 per HIP device: metric -> (JSON key, factor to base units)
RUNTIME_METRICS = {
    "rocm_doctor_gpu_kernel_launch_latency_seconds": ("launch_latency_us", 1e-6),
    "rocm_doctor_gpu_host_to_device_bandwidth_bytes_per_second": ("h2d_gbps", 1e9),
    "rocm_doctor_gpu_device_to_host_bandwidth_bytes_per_second": ("d2h_gbps", 1e9),
}


def unescape(v):
    return re.sub(r'\\(.)', lambda m: "\n" if m.group(1) == "n" else m.group(1), v)


def parse_prom(text):
    """Returns ({name: [(labels dict, value)]}, {name: help}, {name: type}, problems)."""
    samples, helps, types, problems = {}, {}, {}, []
    for line in text.splitlines():
        if line.startswith("# HELP "):
            name, _, h = line[7:].partition(" ")
            helps[name] = h
        elif line.startswith("# TYPE "):
            name, _, t = line[7:].partition(" ")
            types[name] = t
        elif line.startswith("#") or not line:
            continue
        else:
            m = SAMPLE.match(line)
            if not m:
                problems.append("unparsable line %r" % line)
                continue
            labels = {}
            if m.group(2):
                pairs = LABEL.findall(m.group(2))
                labels = {k: unescape(v) for k, v in pairs}
            samples.setdefault(m.group(1), []).append((labels, float(m.group(3))))
    return samples, helps, types, problems


def one(samples, name, **labels):
    got = [v for lab, v in samples.get(name, []) if all(lab.get(k) == want for k, want in labels.items())]
    return got[0] if len(got) == 1 else None


def check_prometheus(label, text, report, rc, t0, t1):
    if PROMTOOL:
        p = subprocess.run([PROMTOOL, "check", "metrics"], input=text, capture_output=True, text=True)
        rdtest.check(p.returncode == 0 and not p.stdout.strip() and not p.stderr.strip(),
                     "%s: promtool check metrics is clean" % label,
                     "rc=%d\n%s%s\n--- metrics\n%s" % (p.returncode, p.stdout, p.stderr, text))
    samples, helps, types, problems = parse_prom(text)
    rdtest.check(not problems, "%s: every line parses" % label, "\n".join(problems))
    rdtest.check(all(n in helps and types.get(n) == "gauge" for n in samples),
                 "%s: every metric has HELP and TYPE gauge" % label,
                 "%s %s" % (helps, types))
    rdtest.check(one(samples, "rocm_doctor_exit_status") == rc == report["exit_status"],
                 "%s: exit status" % label,
                 "%s vs rc %d" % (samples.get("rocm_doctor_exit_status"), rc))
    ts = one(samples, "rocm_doctor_last_check_timestamp_seconds")
    rdtest.check(ts is not None and t0 - 1 <= ts <= t1 + 1,
                 "%s: timestamp is the time of the run" % label,
                 "%r not in [%f, %f]" % (ts, t0, t1))
    rdtest.check(one(samples, "rocm_doctor_gpus") == len(report["gpus"]), "%s: GPU count" % label)
    counts = {s: sum(1 for f in report["findings"] if f["severity"] == s) for s in ("ok", "info", "warning", "error")}
    rdtest.check(all(one(samples, "rocm_doctor_findings", severity=s) == n for s, n in counts.items()),
                 "%s: findings by severity" % label,
                 "%s vs %s" % (samples.get("rocm_doctor_findings"), counts))
    want = {}
    for f in report["findings"]:
        key = (f["id"], f["severity"], f["gpu"] or "")
        want[key] = want.get(key, 0) + 1
    got = {(lab["id"], lab["severity"], lab["gpu"]): v for lab, v in samples.get("rocm_doctor_finding", [])}
    rdtest.check(got == want and len(got) == len(samples.get("rocm_doctor_finding", [])),
                 "%s: one finding series per id, severity and GPU" % label,
                 "%s vs %s" % (got, want))
    for g in report["gpus"]:
        a = g["pci_address"]
        info = [lab for lab, v in samples.get("rocm_doctor_gpu_info", []) if lab.get("pci_address") == a]
        rdtest.check(len(info) == 1 and info[0] == {
"gpu": a, "pci_address": a, "gfx": g["gfx"] or "", "family": g["family"] or "", "name": g["name"],
"driver": g["driver"] or "", "integrated": "true" if g["integrated"] else "false"},
                     "%s: gpu_info of %s" % (label, a),
                     "%s" % info)
        rdtest.check(one(samples, "rocm_doctor_gpu_vram_bytes", pci_address=a) == g["vram_bytes"] and
                     one(samples, "rocm_doctor_gpu_kfd_nodes", pci_address=a) == len(g["kfd_nodes"]),
                     "%s: VRAM and KFD nodes of %s" % (label, a))
        link = g["link"]
        for kind in ("current", "max"):
            w = link[kind + "_width"]
            s = link[kind + "_speed_gts"]
            rdtest.check(one(samples, "rocm_doctor_gpu_pcie_link_width_lanes", pci_address=a, link=kind) == (w or None) and
                         one(samples, "rocm_doctor_gpu_pcie_link_speed_transfers_per_second", pci_address=a,
                             link=kind) == (s * 1e9 or None),
                         "%s: %s link of %s" % (label, kind, a),
                         "%s %s" % (samples.get("rocm_doctor_gpu_pcie_link_width_lanes"),
                                    samples.get("rocm_doctor_gpu_pcie_link_speed_transfers_per_second")))
    # one label for a GPU's PCI address on every per-GPU series: gpu; the
    # old pci_address (same value) stays for one release where it was
    per_gpu = {n: series for n, series in samples.items() if n.startswith("rocm_doctor_gpu_") and n != "rocm_doctor_gpus"}
    no_gpu = sorted({n for n, series in per_gpu.items() for lab, _ in series if not lab.get("gpu") and
                     "hip_device" not in lab})
    rdtest.check(not no_gpu, "%s: every per-GPU series has the label gpu" % label, no_gpu)
    differ = sorted({n for n, series in per_gpu.items() for lab, _ in series
                     if "pci_address" in lab and lab["pci_address"] != lab.get("gpu")})
    rdtest.check(not differ, "%s: where pci_address is still there, it equals gpu" % label, differ)
    check_health_metrics(label, samples, report)
    if not report["gpus"]:
        rdtest.check(not any(n.startswith("rocm_doctor_gpu_") for n in samples),
                     "%s: no per-GPU series without GPUs" % label,
                     "%s" % list(samples))
    check_runtime_metrics(label, samples, report)


HEALTH_IDS = {"gpu.ras-uncorrectable", "gpu.ras-correctable", "gpu.retired-pages", "gpu.reset-seen",
              "gpu.reset-failed", "xgmi.link-missing", "xgmi.hive-incomplete", "pcie.aer-errors", "gpu.throttled",
              "gpu.power-capped", "gpu.hot", "gpu.vram-missing", "gpu.firmware-known-bad"}


def health_want(report):
    """The health series as the JSON report's gpus[].health says them."""
    want = {}

    def add(name, labels, v):
        want.setdefault(name, []).append((labels, float(v)))
    for g in report["gpus"]:
        h = g.get("health")
        if not h:
            continue
        a = g["pci_address"]
        types = ("uncorrectable", "correctable", "deferred")
        for block, counts in (h["ras"] or {}).items():
            for typ in types:
                if counts[typ] is not None:
                    add("rocm_doctor_gpu_ras_errors", {"gpu": a, "block": block, "type": typ}, counts[typ])
        for typ in types:
            if h["ras"] is not None and h["ras_" + typ] is not None:
                add("rocm_doctor_gpu_ras_error_totals", {"gpu": a, "type": typ}, h["ras_" + typ])
        if h["retired_pages"] is not None:
            add("rocm_doctor_gpu_retired_pages", {"gpu": a}, h["retired_pages"])
        add("rocm_doctor_gpu_resets", {"gpu": a}, h["resets"])
        add("rocm_doctor_gpu_reset_failures", {"gpu": a}, h["reset_failures"])
        for sensor, mc in (h["temperatures_mc"] or {}).items():
            add("rocm_doctor_gpu_temperature_celsius", {"gpu": a, "sensor": sensor}, mc / 1000)
        if h["power_uw"] is not None:
            add("rocm_doctor_gpu_power_watts", {"gpu": a}, h["power_uw"] / 1e6)
        for cap, uw in (h["power_cap_uw"] or {}).items():
            add("rocm_doctor_gpu_power_cap_watts", {"gpu": a, "cap": cap}, uw / 1e6)
        if h["throttle_active"] is not None:
            for reason in ("power", "current", "thermal", "prochot", "other"):
                add("rocm_doctor_gpu_throttle_active", {"gpu": a, "reason": reason},
                    1 if reason in h["throttle_active"] else 0)
        for reason, v in (h["throttle_residency"] or {}).items():
            add("rocm_doctor_gpu_throttle_residency_ratio", {"gpu": a, "reason": reason}, v)
        for d in h["aer_devices"]:
            for typ in ("correctable", "nonfatal", "fatal"):
                if d[typ] is not None:
                    add("rocm_doctor_gpu_pcie_aer_errors", {"gpu": a, "device": d["address"], "type": typ}, d[typ])
        for typ in ("correctable", "nonfatal", "fatal"):
            if h["aer"] is not None and h["aer"][typ] is not None:
                add("rocm_doctor_gpu_pcie_aer_error_totals", {"gpu": a, "type": typ}, h["aer"][typ])
    return want


def check_health_metrics(label, samples, report):
    """Every health series equals the JSON's number, and no series is
    missing or extra."""
    want = health_want(report)
    names = set(want) | {n for n in samples if n in (
        "rocm_doctor_gpu_ras_errors", "rocm_doctor_gpu_retired_pages", "rocm_doctor_gpu_resets",
        "rocm_doctor_gpu_reset_failures", "rocm_doctor_gpu_temperature_celsius", "rocm_doctor_gpu_power_watts",
        "rocm_doctor_gpu_power_cap_watts", "rocm_doctor_gpu_throttle_active",
        "rocm_doctor_gpu_throttle_residency_ratio", "rocm_doctor_gpu_pcie_aer_errors",
        "rocm_doctor_gpu_ras_error_totals", "rocm_doctor_gpu_pcie_aer_error_totals")}
    for name in sorted(names):
        got = sorted(map(repr, samples.get(name, [])))
        exp = sorted(map(repr, want.get(name, [])))
        rdtest.check(got == exp, "%s: %s is the JSON's health" % (label, name), "got  %s\nwant %s" % (got, exp))


def check_runtime_metrics(label, samples, report):
    """Level 2: one series per HIP device, equal to the JSON's numbers in
    base units; nothing when level 2 did not run or measured nothing."""
    runtime = report.get("runtime")
    devices = runtime["devices"] if runtime else []
    key = lambda d: {"gpu": d["pci_address"] or "", "pci_address": d["pci_address"] or "",  # noqa: E731
                     "hip_device": str(d["index"])}
    want = [(key(d), {"ok": 1.0}.get(d["result"], 0.0)) for d in devices if d["result"] != "no-code-object"]
    got = samples.get("rocm_doctor_gpu_kernel_ok", [])
    rdtest.check(sorted(map(repr, got)) == sorted(map(repr, want)),
                 "%s: rocm_doctor_gpu_kernel_ok per HIP device is the JSON's result" % label,
                 "got  %s\nwant %s" % (got, want))
    for name, (json_key, factor) in RUNTIME_METRICS.items():
        # x * 1e-6 and x / 1e6 may differ in the last bit; the renderer divides
        want = [(key(d), d[json_key] / 1e6 if factor == 1e-6 else d[json_key] * factor)
                for d in devices if d[json_key] is not None]
        got = samples.get(name, [])
        rdtest.check(sorted(map(repr, got)) == sorted(map(repr, want)),
                     "%s: %s per HIP device is the JSON's %s" % (label, name, json_key),
                     "got  %s\nwant %s" % (got, want))


def check_nfd(label, text, report, rocm_version, name=None):
    labels, bad = {}, []
    for line in text.splitlines():
        if not line or line.startswith("#"):
            continue
        key, eq, value = line.partition("=")
        name = key[len(NFD_PREFIX):] if key.startswith(NFD_PREFIX) else None
        if not eq or name is None or not NFD_NAME.match(name) or not NFD_VALUE.match(value) or key in labels:
            bad.append(line)
        labels[key] = value
    rdtest.check(not bad and labels, "%s: every NFD line is a valid, prefixed, unique label" % label, "%s" % bad)
    want = {"health": report["status"], "gpu.count": str(len(report["gpus"]))}
    for g in report["gpus"]:
        if g["gfx"]:
            want["gpu.gfx." + g["gfx"]] = "true"
        if g["family"]:
            want["gpu.family." + g["family"]] = "true"
    discrete = [g for g in report["gpus"] if not g["integrated"]] or report["gpus"]
    vram = [g["vram_bytes"] for g in discrete if g["vram_bytes"]]
    if vram:
        want["gpu.vram-gib"] = str(min(vram) >> 30)
    if rocm_version and NFD_VALUE.match(rocm_version):
        want["rocm.version"] = rocm_version
    if any(g.get("health") for g in report["gpus"]):
        sev = {f["severity"] for f in report["findings"] if f["id"] in HEALTH_IDS}
        want["gpu.health"] = "error" if "error" in sev else "warning" if "warning" in sev else "ok"
    want = {NFD_PREFIX + k: v for k, v in want.items()}
    rdtest.check(labels == want,
                 "%s: NFD labels say what the report says" % label,
                 "got  %s\nwant %s" % (labels, want))
    if name in ROCM_VERSIONS:
        rdtest.check(labels.get(NFD_PREFIX + "rocm.version") == ROCM_VERSIONS[name] == rocm_version,
                     "%s: NFD rocm.version is the installed ROCm" % label,
                     "label %r, facts %r, want %r" % (labels.get(NFD_PREFIX + "rocm.version"), rocm_version,
                                                      ROCM_VERSIONS[name]))


def resolve(sch):
    while "$ref" in sch:
        ref = sch["$ref"]
        assert ref.startswith("#/$defs/"), ref
        rest = {k: v for k, v in sch.items() if k != "$ref"}
        sch = dict(schema["$defs"][ref[len("#/$defs/"):]], **rest)
    return sch


def undescribed(inst, sch, path="", out=None):
    """Paths of the keys in inst that the schema does not describe (the
    schema accepts them, as later versions add keys, but every key this
    version writes must be documented there)."""
    out = [] if out is None else out
    sch = resolve(sch)
    alts = [sch] + [resolve(a) for a in sch.get("oneOf", []) + sch.get("anyOf", [])]
    if isinstance(inst, dict):
        props = {}
        for a in alts:
            props.update(a.get("properties", {}))
        # a map (keys are data: sensor labels, RAS blocks) describes its
        # values with additionalProperties
        maps = [a["additionalProperties"] for a in alts if isinstance(a.get("additionalProperties"), dict)]
        for k, v in inst.items():
            if k in props:
                undescribed(v, props[k], "%s/%s" % (path, k), out)
            elif maps:
                undescribed(v, maps[0], "%s/%s" % (path, k), out)
            else:
                out.append("%s/%s" % (path, k))
    elif isinstance(inst, list):
        items = [a["items"] for a in alts if isinstance(a.get("items"), dict)]
        for i, v in enumerate(inst):
            if items:
                undescribed(v, items[0], "%s/%d" % (path, i), out)
    return out


def check_schema(label, report):
    errors = sorted(validator.iter_errors(report), key=lambda e: list(e.absolute_path))
    rdtest.check(not errors,
                 "%s: JSON report validates against the schema" % label,
                 "\n".join("%s: %s" % ("/".join(map(str, e.absolute_path)), e.message) for e in errors[:5]))
    missing = undescribed(report, schema)
    rdtest.check(not missing, "%s: the schema describes every key of the report" % label, "%s" % missing[:10])


def formats(label, run, facts, name=None, expect=None):
    """run(format) -> CompletedProcess; facts() -> the facts document.
    Checks all three machine formats; expect(format, CompletedProcess), when
    given, compares the Prometheus and NFD outputs with their expected files."""
    expect = expect or (lambda fmt, p: None)
    p = run("json")
    if p.returncode == 3:
        # a scenario where the check cannot run (a bad configuration): no
        # format prints a report, and each says why on stderr
        for fmt in ("json", "prometheus", "nfd"):
            q = run(fmt)
            rdtest.check(q.returncode == 3 and not q.stdout and q.stderr.strip(),
                         "%s: %s: exit 3, nothing on stdout, the reason on stderr" % (label, fmt),
                         q.stdout + q.stderr)
            if fmt != "json":
                expect(fmt, q)
        return None
    try:
        report = json.loads(p.stdout)
    except ValueError:
        rdtest.check(False, "%s: JSON report" % label, "rc=%d\n%s\n%s" % (p.returncode, p.stdout, p.stderr))
        return None
    check_schema(label, report)
    t0 = time.time()
    p = run("prometheus")
    t1 = time.time()
    # a batch's run says when it ran
    t0, t1 = getattr(p, "t0", t0), getattr(p, "t1", t1)
    check_prometheus(label, p.stdout, report, p.returncode, t0, t1)
    expect("prometheus", p)
    p = run("nfd")
    expect("nfd", p)
    rdtest.check(p.returncode == report["exit_status"], "%s: nfd exit status is the check's" % label)
    f = facts()
    check_nfd(label, p.stdout, report, ((f or {}).get("rocm") or {}).get("default_version"), name)
    return report


def fingerprint(report):
    return sorted((f["id"], f["severity"], f["gpu"] or "") for f in report["findings"])


def stable(facts):
    """The facts without what differs from one level-2 run to the next: the
    time it took and the measured latency and bandwidths."""
    f = copy.deepcopy(facts)
    rt = f.get("runtime")
    if isinstance(rt, dict):
        rt.pop("elapsed_s", None)
        for d in rt.get("devices") or []:
            for k in ("launch_latency_us", "h2d_gbps", "d2h_gbps"):
                d.pop(k, None)
    return f


PUBLIC_HOSTS = ("repo.radeon.com", "download.pytorch.org")
URL = re.compile(r"://([^\s/?#\"'<>]*)([^\s\"'<>)\]]*)")


def _url_as_bundled(m):
    """A URL as the bundle carries it (rocm-doctor-report(8) and
    src/shared/redact.c): credentials redacted; AMD's and PyTorch's hosts keep
    their path, any other host only its name."""
    authority, rest = m.group(1), m.group(2)
    out = "://"
    if "@" in authority:
        out += "<redacted>@"
        authority = authority.rsplit("@", 1)[1]
    out += authority
    if authority.lower() in PUBLIC_HOSTS:
        path = re.split(r"[?#]", rest, 1)[0]
        out += path + ("?<redacted>" if len(path) < len(rest) else "")
    elif len(rest) > 1 or (rest and rest != "/"):
        out += "/<redacted>"
    else:
        out += rest
    return out


def as_bundled(v):
    """The live facts with the bundle's URL rule applied: the one thing in
    these scenarios the bundle may carry differently (the distribution's
    mirror and metalink URLs of the rpm repositories)."""
    if isinstance(v, dict):
        return {k: as_bundled(x) for k, x in v.items()}
    if isinstance(v, list):
        return [as_bundled(x) for x in v]
    if isinstance(v, str) and "://" in v:
        return URL.sub(_url_as_bundled, v)
    return v


def bundle_dir(bed):
    d = tempfile.mkdtemp(dir=bed.tmp)
    os.chmod(d, 0o1777)  # the scenario may run the tool under another uid
    return d


def bundle_round_trip(label, bed, report, facts, d, p):
    """p: `report -o d/bundle.tar`. Its facts are the live facts (nothing
    here is secret), and re-diagnosing them off the host gives the same
    findings."""
    out = os.path.join(d, "bundle.tar")
    found = {0: "no problem", 1: "warnings", 2: "errors"}[report["exit_status"]]
    rdtest.check(p.returncode == 0 and
"The check found %s (see README.txt in the bundle)." % found in p.stdout,
                 "%s: report exits 0 once written and says what the check found" % label,
                 "rc=%d\n%s%s" % (p.returncode, p.stdout, p.stderr))
    try:
        with tarfile.open(out) as tar:
            bundled = json.load(tar.extractfile("rocm-doctor-report/facts.json"))
    except (OSError, KeyError, ValueError, tarfile.TarError) as e:
        rdtest.check(False, "%s: the bundle has facts.json" % label, str(e))
        return
    bundled_s, facts_s = stable(bundled), as_bundled(stable(facts or {}))
    diff = sorted(k for k in set(bundled_s) | set(facts_s) if bundled_s.get(k) != facts_s.get(k))
    rdtest.check(not diff, "%s: the bundle's facts are the live facts" % label, "differ: %s" % diff)
    path = os.path.join(d, "facts.json")
    with open(path, "w") as f:
        json.dump(bundled, f)
    # --root: the same configuration (expected GPUs, ignored ids) applies
    p = subprocess.run([BIN, "check", "--facts", path, "--root", bundled["root"], "--json"],
                       capture_output=True, text=True, timeout=120)
    again = facts_of(p) or {"findings": [], "gpus": None}
    rdtest.check(p.returncode == report["exit_status"] and fingerprint(again) == fingerprint(report) and
                 again["gpus"] == report["gpus"],
                 "%s: check --facts on the bundle gives the same findings, GPUs and status" % label,
                 "rc=%d %s\n%s" % (p.returncode, fingerprint(again), p.stderr))


def facts_of(p):
    try:
        return json.loads(p.stdout)
    except ValueError:
        return None


def level2(name, bed):
    """The live level-2 report, then every format from one saved run."""
    p = bed.run("check", "--json")
    live = facts_of(p)
    rdtest.check(live is not None and live["level"] == 2 and live["runtime"] is not None,
                 "%s: live level-2 report (exit %d)" % (name, p.returncode),
                 p.stdout + p.stderr)
    if live:
        check_schema(name + " (live)", live)
    d = tempfile.mkdtemp(dir=bed.tmp)
    os.chmod(d, 0o1777)
    path = os.path.join(d, "facts.json")
    p = bed.run("facts")
    facts = facts_of(p)
    rdtest.check(facts is not None and (facts.get("runtime") or {}).get("ran") is True,
                 "%s: facts --level 2 has the runtime results" % name,
                 p.stdout[-2000:] + p.stderr)
    if not facts:
        return
    with open(path, "w") as f:
        json.dump(facts, f)
    saved = lambda fmt: subprocess.run([BIN, "check", "--facts", path, "--level", "2", "--root", bed.root,  # noqa: E731
                                        "--format", fmt], capture_output=True, text=True, timeout=120)
    report = formats(name + " (saved)", saved, lambda: facts, name)
    if report and live:
        rdtest.check(fingerprint(report) == fingerprint(live) and report["level"] == 2,
                     "%s: the saved run gives the live run's findings" % name,
                     "%s\n%s" % (fingerprint(report), fingerprint(live)))
        rdtest.check(report["runtime"] is not None and len(report["runtime"]["devices"]) ==
                     len(facts["runtime"].get("devices") or []),
                     "%s: the saved run's report has a runtime object with its devices" % name)


def expect_outputs(name, bed):
    """The expect argument of formats() for a scenario: its Prometheus and
    NFD outputs against tests/expected/scenarios/NAME/ (the scenario test
    compares the text and JSON ones)."""
    why = expected.compared()
    if why:
        print("note %s: outputs not compared with tests/expected: %s" % (name, why))
        return None
    return lambda fmt, p: expected.expect(name, fmt, p.stdout, p.stderr, bed.root, bed.tmp)


def scenario_outputs(name):
    """Every format of one scenario, its expected files and the bundle."""
    if DOUBLE and KERNELS == 0 and name in scenarios_double.NEEDS_KERNELS:
        rdtest.skip("this build embeds no GPU code objects")
    with fleetlib.Bed(name, BIN, TB_RUN) as bed:
        if DOUBLE:
            level2(name, bed)
            return
        if not bed.usable():
            rdtest.skip("needs root")
        # one testbed for every run of the scenario
        d = bundle_dir(bed)
        fmts = ("json", "prometheus", "nfd")
        ran = bed.batch(("facts",), *[("check", "--format", fmt) for fmt in fmts],
                        ("report", "-o", os.path.join(d, "bundle.tar")))
        facts = facts_of(ran[0])
        report = formats(name, lambda fmt: ran[1 + fmts.index(fmt)], lambda: facts, name,
                         expect_outputs(name, bed))
        if report:
            bundle_round_trip(name, bed, report, facts, d, ran[-1])


for _name in ONLY:
    # one test per scenario, named after it
    _fn = (lambda n: lambda: scenario_outputs(n))(_name)
    _fn.__name__ = _name
    rdtest.test(_fn)


def this_host():
    """Every format on this host, and the schema's negative tests."""
    env = dict(os.environ)
    formats("this host", lambda fmt: subprocess.run([BIN, "check", "--format", fmt], capture_output=True,
                                                    text=True, env=env, timeout=120),
            lambda: facts_of(subprocess.run([BIN, "facts"], capture_output=True, text=True, env=env, timeout=120)))

    # The schema is not vacuous: broken reports fail it.
    # a real report with GPUs and findings to break
    with fleetlib.Bed("link-x4", BIN, TB_RUN) as bed:
        base = json.loads(bed.run("check", "--json").stdout)
    rdtest.check(validator.is_valid(base) and base["findings"] and base["gpus"],
                 "the base report for the schema's negative tests validates")
    broken = {
        "unknown severity": lambda r: r["findings"][0].update(severity="fatal"),
        "status disagrees with exit_status": lambda r: r.update(exit_status=0),
        "missing findings": lambda r: r.pop("findings"),
        "finding id not dotted": lambda r: r["findings"][0].update(id="Bad Id"),
        "wrong schema string": lambda r: r.update(schema="rocm-doctor/2"),
        "gpu address malformed": lambda r: r["gpus"][0].update(pci_address="03:00.0"),
        "a runtime object without its parts": lambda r: r.update(runtime={"hsa": "a later addition"}),
        "level 2 without a runtime object": lambda r: r.update(level=2),
        "no runtime key": lambda r: r.pop("runtime"),
    }
    for what, mutate in broken.items():
        r = copy.deepcopy(base)
        mutate(r)
        rdtest.check(not validator.is_valid(r), "schema rejects a report with %s" % what)
    r = copy.deepcopy(base)
    r["new_top_level_key"] = {"added": "later"}
    r["gpus"][0]["new_key"] = 1
    r["findings"][0]["new_key"] = [1]
    rdtest.check(validator.is_valid(r), "schema accepts keys added later")
    rdtest.check(sorted(undescribed(r, schema)) == ["/findings/0/new_key", "/gpus/0/new_key", "/new_top_level_key"],
                 "keys the schema does not describe are found",
                 "%s" % undescribed(r, schema))

if HOST:
    rdtest.test(this_host)
sys.exit(rdtest.main())
