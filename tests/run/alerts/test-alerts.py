#!/usr/bin/env python3
"""The Prometheus alerting rules and the Grafana dashboard of contrib/.

    test-alerts.py SOURCE_ROOT ROCM_DOCTOR TB_RUN

- promtool check rules, and promtool test rules with
  tests/run/alerts/rocm-doctor.rules.test.yml (each alert fires where it should,
  with its labels and annotations, and not where it should not).
- Names: every metric the rules and the dashboard use is one rocm-doctor
  writes (the metric names of src/), except rocm_doctor_fix_runs in the
  rules (the fix runs' metric); every metric rocm-doctor writes has a panel.
  The dashboard is JSON with unique panel ids.
- For real: the scenario health-8x-mi300x-one-bad-gpu (one MI300X with
  uncorrectable memory errors, retired pages past the threshold and an XGMI
  link missing) goes through `rocm-doctor check --format prometheus` into a
  textfile directory; Debian's prometheus-node-exporter serves it on a
  loopback port; its /metrics has the series with their values; a
  Prometheus server on another loopback port scrapes it with the rules
  loaded and raises exactly the alerts expected.
Each part is a test of tests/lib/rdtest.py: a missing promtool,
node-exporter or prometheus skips the tests that need it and says so (all
of them skipped: exit 77).
"""
import json
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request

sys.dont_write_bytecode = True  # keep the source tree clean
SRC, DOCTOR, TB_RUN = sys.argv[1], os.path.abspath(sys.argv[2]), os.path.abspath(sys.argv[3])
sys.path.insert(0, os.path.join(SRC, "tests", "run", "fleet"))
sys.path.insert(0, os.path.join(SRC, "tests", "lib"))
import fleetlib  # noqa: E402
import rdtest  # noqa: E402

RULES = os.path.join(SRC, "contrib", "prometheus", "rocm-doctor.rules.yml")
RULES_TEST = os.path.join(SRC, "tests", "run", "alerts", "rocm-doctor.rules.test.yml")
PERIODIC = os.path.join(SRC, "contrib", "prometheus", "rocm-doctor-periodic.rules.yml")
PERIODIC_TEST = os.path.join(SRC, "tests", "run", "alerts", "rocm-doctor-periodic.rules.test.yml")
DASHBOARD = os.path.join(SRC, "contrib", "grafana", "rocm-doctor.json")
SCENARIO = "health-8x-mi300x-one-bad-gpu"
BAD = "0000:65:00.0"

# ---- names ----------------------------------------------------------------
def written_metrics():
    """The metric names rocm-doctor writes, as found in src/ and probes/."""
    written = set()
    for d in ("src", "probes"):
        for dirpath, _, files in os.walk(os.path.join(SRC, d)):
            for f in files:
                if f.endswith(".c"):
                    written |= set(re.findall(r'"(rocm_doctor_[a-z0-9_]+)', open(os.path.join(dirpath, f)).read()))
    return written


def dashboard():
    """The dashboard's JSON (or None) and its metrics."""
    try:
        dash = json.load(open(DASHBOARD))
    except ValueError:
        return None, set()
    exprs = [t["expr"] for p in dash.get("panels", []) for t in p.get("targets", [])]
    exprs += [v.get("definition", "") for v in dash.get("templating", {}).get("list", [])]
    return dash, {m for e in exprs for m in re.findall(r"\b(rocm_doctor_[a-z0-9_]+)", e)}


@rdtest.test
def the_rules_use_the_metrics_written():
    written = written_metrics()
    rdtest.check("rocm_doctor_exit_status" in written and
                 len(written) >= 20,
                 "the metric names rocm-doctor writes are found in src/",
                 sorted(written))
    rules_text = open(RULES).read()
    rule_exprs = re.findall(r"^\s+expr: (.+)$", rules_text + open(PERIODIC).read(), re.M)
    rule_metrics = {m for e in rule_exprs for m in re.findall(r"\b(rocm_doctor_[a-z0-9_]+)", e)}
    unknown = rule_metrics - written
    rdtest.check(rule_metrics and not unknown, "the rules use only metrics rocm-doctor writes", unknown)
    alerts = re.findall(r"^\s+- alert: (\w+)$", rules_text, re.M)
    rdtest.check(alerts == [
                 "RocmDoctorNodeNotReady", "RocmDoctorGpuUncorrectableErrors", "RocmDoctorGpuPcieUncorrectableErrors",
                 "RocmDoctorGpuRetiredPagesNearThreshold", "RocmDoctorGpuRetiredPagesAtThreshold", "RocmDoctorXgmiLinkDown",
                 "RocmDoctorFixRunPending", "RocmDoctorFixRunFailed", "RocmDoctorCheckNotSinceBoot"],
                 "the rules' alerts",
                 alerts)
    tested = set(re.findall(r"alertname: (\w+)", open(RULES_TEST).read()))
    rdtest.check(set(alerts) <= tested, "every alert has a promtool unit test", set(alerts) - tested)
    periodic = re.findall(r"^\s+- alert: (\w+)$", open(PERIODIC).read(), re.M)
    rdtest.check(periodic == ["RocmDoctorCheckStale"] and
                 "alertname: RocmDoctorCheckStale" in open(PERIODIC_TEST).read(),
                 "the periodic rules' alert, with its promtool unit test",
                 periodic)


@rdtest.test
def the_dashboard_shows_the_metrics_written():
    written = written_metrics()
    try:
        dash = json.load(open(DASHBOARD))
        rdtest.check(True, "the dashboard is JSON")
    except ValueError as e:
        dash = {}
        rdtest.check(False, "the dashboard is JSON", str(e))
    _, dash_metrics = dashboard()
    panels = dash.get("panels", [])
    ids = [p.get("id") for p in panels]
    rdtest.check(ids and len(ids) == len(set(ids)), "the dashboard's panels have unique ids", ids)
    rdtest.check(dash_metrics and dash_metrics <= written,
                 "the dashboard uses only metrics rocm-doctor writes",
                 dash_metrics - written)
    rdtest.check(written <= dash_metrics,
                 "every metric rocm-doctor writes is on the dashboard",
                 written - dash_metrics)


@rdtest.test
def promtool_checks_and_tests_the_rules():
    # ---- promtool
    promtool = shutil.which("promtool")
    if not promtool:
        rdtest.skip("promtool is not installed (Debian: prometheus)")
    p = subprocess.run([promtool, "check", "rules", RULES], capture_output=True, text=True)
    rdtest.check(p.returncode == 0 and "SUCCESS: 9 rules found" in p.stdout,
                 "promtool check rules",
                 p.stdout + p.stderr)
    p = subprocess.run([promtool, "test", "rules", os.path.basename(RULES_TEST)], capture_output=True, text=True,
                       cwd=os.path.dirname(RULES_TEST))
    rdtest.check(p.returncode == 0 and "SUCCESS" in p.stdout, "promtool test rules", p.stdout + p.stderr)
    p = subprocess.run([promtool, "check", "rules", PERIODIC], capture_output=True, text=True)
    rdtest.check(p.returncode == 0 and "SUCCESS: 1 rules found" in p.stdout,
                 "promtool check rules (periodic)",
                 p.stdout + p.stderr)
    p = subprocess.run([promtool, "test", "rules", os.path.basename(PERIODIC_TEST)], capture_output=True, text=True,
                       cwd=os.path.dirname(PERIODIC_TEST))
    rdtest.check(p.returncode == 0 and "SUCCESS" in p.stdout,
                 "promtool test rules (periodic: the stale check)",
                 p.stdout + p.stderr)


# ---- node-exporter and Prometheus, for real -------------------------------
def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def get(url, timeout=2):
    with urllib.request.urlopen(url, timeout=timeout) as r:
        return r.read().decode()


def wait_get(url, until, timeout=60):
    end = time.time() + timeout
    last = None
    while time.time() < end:
        try:
            last = get(url)
            if until(last):
                return last
        except OSError:
            pass
        time.sleep(0.25)
    return last


class Exporter:
    """node-exporter serving rocm-doctor's textfile of the scenario, started
    once for the tests that scrape it."""
    port = None
    procs = []
    tmp = tempfile.mkdtemp(prefix="rocm-doctor-alerts-")

    @classmethod
    def start(cls):
        """The exporter's port and what rocm-doctor exited with; skips
        without node-exporter."""
        exporter = shutil.which("prometheus-node-exporter")
        if not exporter:
            rdtest.skip("prometheus-node-exporter is not installed (Debian: prometheus-node-exporter)")
        if cls.port is None:
            textdir = os.path.join(cls.tmp, "textfile")
            os.makedirs(textdir)
            with fleetlib.Bed(SCENARIO, DOCTOR, TB_RUN) as bed:
                cls.check_run = bed.run("check", "--format", "prometheus")
            with open(os.path.join(textdir, "rocm-doctor.prom"), "w") as f:
                f.write(cls.check_run.stdout)
            cls.port = free_port()
            cls.procs.append(subprocess.Popen(
                [exporter, "--web.listen-address=127.0.0.1:%d" % cls.port, "--collector.disable-defaults",
                 "--collector.textfile", "--collector.textfile.directory=" + textdir],
                stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True))
        return cls.port, cls.check_run

    @classmethod
    def stop(cls):
        for p in cls.procs:
            p.terminate()
        for p in cls.procs:
            try:
                p.wait(timeout=10)
            except subprocess.TimeoutExpired:
                p.kill()
        shutil.rmtree(cls.tmp, ignore_errors=True)


@rdtest.test
def node_exporter_serves_the_metrics():
    port, r = Exporter.start()
    rdtest.check(r.returncode == 2,
                 "rocm-doctor check --format prometheus on %s: exit 2" % SCENARIO,
                 "rc=%d %s" % (r.returncode, r.stderr[-1000:]))
    metrics = wait_get("http://127.0.0.1:%d/metrics" % port, lambda t: "rocm_doctor_" in t) or ""
    samples = {}
    for line in metrics.splitlines():
        if line.startswith("rocm_doctor_") or line.startswith("node_textfile_scrape_error"):
            name, value = line.rsplit(" ", 1)
            samples[name] = float(value)
    for series, want in [
            ("node_textfile_scrape_error", 0),
            ("rocm_doctor_exit_status", 2),
            ("rocm_doctor_gpus", 8),
            ('rocm_doctor_findings{severity="error"}', 3),
            ('rocm_doctor_finding{gpu="%s",id="xgmi.link-missing",severity="error"}' % BAD, 1),
            ('rocm_doctor_finding{gpu="%s",id="gpu.retired-pages",severity="error"}' % BAD, 1),
            ('rocm_doctor_finding{gpu="%s",id="gpu.ras-uncorrectable",severity="error"}' % BAD, 1),
            ('rocm_doctor_gpu_ras_error_totals{gpu="%s",type="uncorrectable"}' % BAD, 1000),
            ('rocm_doctor_gpu_ras_errors{block="umc",gpu="%s",type="uncorrectable"}' % BAD, 1000),
            ('rocm_doctor_gpu_retired_pages{gpu="%s"}' % BAD, 130)]:
        rdtest.check(samples.get(series) == want,
                     "node-exporter serves %s %g" % (series, want),
                     samples.get(series))
    names = {re.match(r"[a-z0-9_]+", s).group(0) for s in samples if s.startswith("rocm_doctor_")}
    _, dash_metrics = dashboard()
    rdtest.check(len(names) >= 15 and
                 names <= dash_metrics,
                 "node-exporter serves the metrics the dashboard shows for this host",
                 names - dash_metrics)


@rdtest.test
def prometheus_raises_the_expected_alerts():
    server = shutil.which("prometheus")
    if not server:
        rdtest.skip("prometheus is not installed (Debian: prometheus)")
    port, _ = Exporter.start()
    tmp = Exporter.tmp
    sport = free_port()
    with open(os.path.join(tmp, "prometheus.yml"), "w") as f:
        f.write("global:\n  scrape_interval: 1s\n  evaluation_interval: 1s\n"
                "rule_files:\n  - %s\n"
                "scrape_configs:\n  - job_name: node\n    static_configs:\n"
                "      - targets: ['127.0.0.1:%d']\n" % (RULES, port))
    Exporter.procs.append(subprocess.Popen(
        [server, "--config.file=" + os.path.join(tmp, "prometheus.yml"),
         "--storage.tsdb.path=" + os.path.join(tmp, "data"),
         "--web.listen-address=127.0.0.1:%d" % sport],
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True))

    def got_alerts(text):
        try:
            return len(json.loads(text)["data"]["alerts"]) >= 4
        except (ValueError, KeyError):
            return False
    text = wait_get("http://127.0.0.1:%d/api/v1/alerts" % sport, got_alerts, timeout=90) or "{}"
    time.sleep(2)  # one more evaluation: nothing else comes
    text = get("http://127.0.0.1:%d/api/v1/alerts" % sport)
    got = sorted((a["labels"]["alertname"], a["state"], a["labels"].get("gpu", ""), a["labels"].get("id", ""),
                  a["labels"]["instance"]) for a in json.loads(text)["data"]["alerts"])
    inst = "127.0.0.1:%d" % port
    want = sorted([("RocmDoctorGpuRetiredPagesAtThreshold", "firing", BAD, "gpu.retired-pages", inst),
                   ("RocmDoctorGpuUncorrectableErrors", "firing", BAD, "", inst),
                   ("RocmDoctorNodeNotReady", "pending", "", "", inst),
                   ("RocmDoctorXgmiLinkDown", "firing", BAD, "xgmi.link-missing", inst)])
    rdtest.check(got == want,
                 "Prometheus scraping node-exporter raises exactly the expected alerts",
                 "%s\nvs\n%s" % (got, want))


status = rdtest.main()
Exporter.stop()
sys.exit(status)
