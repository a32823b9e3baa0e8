#!/usr/bin/env python3
"""rocm-doctor fleet --from: 64 nodes built from the scenario beds
(fleetfolder.py: two classes, three causes, one kernel and one firmware
outlier) grouped by cause, their drift, in every output: the JSON against
tests/expected/fleet/fleet-64.json and conf/rocm-doctor-fleet.schema.json,
the text against fleet-64.txt, Prometheus, and the HTML page opened in
headless Chromium (its rows, a screenshot, and no request to the network).
Then a healthy folder, files that are not reports, and the exit statuses.

    test-fleet-from.py ROCM_DOCTOR TB_RUN SCHEMA
"""
import json
import os
import re
import shutil
import subprocess
import sys

sys.dont_write_bytecode = True
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "lib"))
sys.path.insert(0, HERE)
import rdtest  # noqa: E402
import fleetfolder  # noqa: E402

BIN, TB_RUN, SCHEMA = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2]), sys.argv[3]
ENV = dict(os.environ, NO_COLOR="1", LC_ALL="C.UTF-8")
tmp = rdtest.temp_dir("rocm-doctor-fleet-from-")
folder = os.path.join(tmp, "f64")


def fleet(*args, env=ENV):
    return subprocess.run([BIN, "fleet", *args], capture_output=True, text=True, env=env, timeout=300)


def normalised(text):
    return text.replace('"version":"%s"' % version(), '"version":"VERSION"')


_version = []


def version():
    if not _version:
        _version.append(subprocess.run([BIN, "--version"], capture_output=True, text=True).stdout.split()[1])
    return _version[0]


@rdtest.test
def sixty_four_nodes():
    fleetfolder.build(BIN, TB_RUN, folder)
    rdtest.eq(len(os.listdir(folder)), 64, "64 node files")
    p = fleet("--from", folder, "--json")
    rdtest.eq(p.returncode, 2, "exit status: the worst node's (errors)")
    rdtest.eq(p.stderr, "", "nothing on stderr")
    rdtest.expect_file("fleet/fleet-64.json", normalised(p.stdout))
    j = json.loads(p.stdout)
    rdtest.eq(j["summary"], {"nodes": 64, "ok": 56, "warning": 3, "error": 5, "unreachable": 0}, "the counts")
    causes = {c["id"]: c for c in j["causes"]}
    rdtest.eq(causes["gpu.retired-pages"]["hostlist"], "gpu[009,031,040]", "the bad GPU's nodes")
    rdtest.eq(causes["kfd.no-access"]["hostlist"], "ws[03-04]", "the nodes whose user lacks the groups")
    rdtest.eq(causes["kfd.no-access"]["fix_command"], "rocm-doctor fix --only group --apply", "the fix named")
    rdtest.eq(causes["apt.pin-missing"]["hostlist"], "ws[07,12-13]", "the nodes without the pin")
    rdtest.eq([c["severity"] for c in j["causes"]][:5], ["error"] * 5, "errors first")
    rdtest.eq(causes["rocm.not-installed"]["hostlist"], "gpu[001-048],ws[01-06,08-11,14-16]",
              "a host list of two prefixes and several ranges")
    drift = {(d["class"], d["property"]): d for d in j["drift"]}
    rdtest.eq(sorted(drift), [("AMD Instinct MI300X", "firmware mec 0000:47:00.0"),
                              ("AMD Instinct MI300X", "kernel")],
              "two drifts, both in the MI300X class (the RX 7900 XTX class is compared on its own)")
    k = drift[("AMD Instinct MI300X", "kernel")]
    rdtest.eq((k["majority"], k["majority_nodes"], k["outliers"]),
              ("6.8.0-45-generic", 47, [{"node": "gpu017", "value": "6.8.0-51-generic"}]), "the kernel outlier")
    f = drift[("AMD Instinct MI300X", "firmware mec 0000:47:00.0")]
    rdtest.eq(f["outliers"], [{"node": "gpu023", "value": "0x000000b0"}], "the firmware outlier")
    try:
        import jsonschema
    except ImportError:
        print("  (python3-jsonschema is not installed: the schema check is left out)")
    else:
        with open(SCHEMA) as s:
            errors = list(jsonschema.Draft202012Validator(json.load(s)).iter_errors(j))
        rdtest.eq([e.message for e in errors], [], "the JSON follows conf/rocm-doctor-fleet.schema.json")

    p = fleet("--from", folder)
    rdtest.eq(p.returncode, 2, "text: exit status 2")
    rdtest.eq(p.stdout.splitlines()[0], "64 nodes: 56 healthy, 3 with warnings, 5 with errors", "the summary line")
    rdtest.expect_file("fleet/fleet-64.txt", p.stdout)

    p = fleet("--from", folder, "--format", "prometheus")
    rdtest.eq(p.returncode, 2, "prometheus: exit status 2")
    for line in ('rocm_doctor_fleet_nodes{status="ok"} 56', 'rocm_doctor_fleet_nodes{status="error"} 5',
                 'rocm_doctor_fleet_node_status{node="gpu009"} 2',
                 'rocm_doctor_fleet_cause_nodes{id="apt.pin-missing",severity="warning"} 3',
                 'rocm_doctor_fleet_drift_outliers{class="AMD Instinct MI300X",property="kernel"} 1',
                 "rocm_doctor_fleet_exit_status 2"):
        rdtest.check(line in p.stdout.splitlines(), "prometheus: " + line, p.stdout[:3000])
    promtool = shutil.which("promtool")
    if promtool:
        c = subprocess.run([promtool, "check", "metrics"], input=p.stdout, capture_output=True, text=True)
        rdtest.eq((c.returncode, c.stdout + c.stderr), (0, ""), "promtool check metrics")


# Chromium's own services, which it calls whatever page it shows.
CHROMIUM_OWN = re.compile(r"^https?://([a-z0-9.-]+\.)?(google\.com|googleapis\.com|gvt1\.com|gstatic\.com)[:/]")


def open_in_chromium(page, shot):
    """Opens page in headless Chromium with every name resolving to nothing;
    returns the DOM it built and the URLs it asked for besides its own
    services'. None when there is no Chromium."""
    exe = shutil.which("chromium") or shutil.which("chromium-browser")
    if not exe:
        return None
    netlog = shot + ".netlog.json"
    base = [exe, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--host-resolver-rules=MAP * ~NOTFOUND",
            "--user-data-dir=" + os.path.join(tmp, "chromium-profile")]
    subprocess.run(base + ["--log-net-log=" + netlog, "--screenshot=" + shot, "--window-size=1280,1600",
                           "file://" + page], capture_output=True, timeout=120)
    dom = subprocess.run(base + ["--dump-dom", "file://" + page], capture_output=True, text=True, timeout=120).stdout
    urls = set()
    try:
        with open(netlog) as f:
            urls = set(re.findall(r'"url":"([^"]*)"', f.read()))
    except OSError:
        pass
    return dom, sorted(u for u in urls if re.match(r"^[a-z]+://", u) and not u.startswith("file:")
                       and not CHROMIUM_OWN.match(u))


@rdtest.test
def html_page():
    if not os.path.isdir(folder):
        fleetfolder.build(BIN, TB_RUN, folder)
    page = os.path.join(tmp, "fleet.html")
    p = fleet("--from", folder, "--html", page)
    rdtest.eq(p.returncode, 2, "--html: exit status 2, the text on stdout")
    with open(page) as f:
        html = f.read()
    rdtest.eq(re.findall(r"https?://", html), [], "no http(s) URL in the page")
    rdtest.eq(re.findall(r"<(?:script|link|img|iframe|object)\b|\b(?:src|href)=", html), [],
              "no script and nothing loaded from elsewhere")
    rdtest.eq(len(re.findall(r'<tr class="cause">', html)), 9, "nine causes in the table")
    rdtest.eq(len(re.findall(r'<span class="node ', html)), 64, "64 nodes in the grid")
    opened = open_in_chromium(page, os.path.join(tmp, "fleet.png"))
    if opened is None:
        rdtest.skip("chromium is not installed")
    dom, urls = opened
    rdtest.eq(len(re.findall(r'<tr class="cause">', dom)), 9, "chromium: nine cause rows")
    rdtest.eq(len(re.findall(r'<tr class="drift">', dom)), 2, "chromium: two drift rows")
    rdtest.check('class="node error" title="gpu009: error' in dom, "chromium: gpu009 is red", dom[-3000:])
    rdtest.check(os.path.getsize(os.path.join(tmp, "fleet.png")) > 10000, "chromium: a screenshot")
    rdtest.eq(urls, [], "chromium: no request to the network")
    # the check can fail: a page that loads an image asks for it
    canary = os.path.join(tmp, "canary.html")
    with open(canary, "w") as f:
        f.write('<html><body><img src="http://fleet-canary.invalid/x.png"></body></html>\n')
    _, urls = open_in_chromium(canary, os.path.join(tmp, "canary.png"))
    rdtest.eq(urls, ["http://fleet-canary.invalid/x.png"], "chromium: a page's request is seen")


@rdtest.test
def healthy_and_not_reports():
    if not os.path.isdir(folder):
        fleetfolder.build(BIN, TB_RUN, folder)
    healthy = os.path.join(tmp, "healthy")
    os.mkdir(healthy)
    for i in (1, 2, 5):
        shutil.copy(os.path.join(folder, "ws01.json"), os.path.join(healthy, "n%d.json" % i))
    p = fleet("--from", healthy)
    rdtest.eq((p.returncode, p.stdout), (0, "3 nodes: 3 healthy\n"), "a healthy fleet is one line, exit 0")
    with open(os.path.join(healthy, "n6.json"), "w") as f:
        f.write('{"schema": "something-else/2"}\n')
    with open(os.path.join(healthy, "n7"), "w") as f:
        f.write("ssh: connect to host n7 port 22: Connection refused\n")
    open(os.path.join(healthy, "n8.json"), "w").close()
    p = fleet("--from", healthy, "--json")
    rdtest.eq(p.returncode, 3, "a node not checked: exit status 3")
    j = json.loads(p.stdout)
    rdtest.eq(j["unreachable"], [
        {"node": "n6", "reason": 'not a rocm-doctor report: schema "something-else/2", not "rocm-doctor/1"'},
        {"node": "n7", "reason": "not a rocm-doctor report: not JSON"},
        {"node": "n8", "reason": "no report: empty output"},
    ], "each file that is not a report, with the reason")
    rdtest.eq([n["status"] for n in j["nodes"]], ["ok"] * 3 + ["unreachable"] * 3, "never counted healthy")
    p = fleet("--from", healthy)
    rdtest.check("6 nodes: 3 healthy, 3 not checked" in p.stdout and "Not checked: n[6-8]" in p.stdout,
                 "the text names them", p.stdout)
    p = fleet("--from", os.path.join(tmp, "absent"))
    rdtest.eq(p.returncode, 3, "a folder that is not there: exit 3")
    rdtest.check("--from" in p.stderr, "and says so", p.stderr)
    p = fleet()
    rdtest.eq(p.returncode, 3, "no source: a usage error")
    p = fleet("--from", healthy, "--nodes", "a[1-2]")
    rdtest.eq(p.returncode, 3, "--nodes without --slurm: a usage error")
    p = subprocess.run([BIN, "check", "--from", healthy], capture_output=True, text=True, env=ENV)
    rdtest.eq(p.returncode, 3, "--from is refused by check")


if __name__ == "__main__":
    sys.exit(rdtest.main())
