#!/usr/bin/env python3
"""rocm-doctor.conf through the real binary: a malformed file stops the check
with exit status 3 and the reason; ignore, severity overrides and
expected_gpus change the findings and the exit status.

    test-config-cli.py ROCM_DOCTOR SOURCE_ROOT
"""
import atexit
import json
import os
import shutil
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "lib"))
import rdtest  # noqa: E402
BIN, SRC = sys.argv[1], sys.argv[2]
FACTS = os.path.join(SRC, "tests", "run", "cli", "facts")
NVIDIA = os.path.join(FACTS, "nvidia-h200.json")        # gpu.none (error), exit 2
NO_ACCESS = os.path.join(FACTS, "rx7900xtx-no-access.json")  # one GPU, kfd/render.no-access
tmp = tempfile.mkdtemp(prefix="rd-config-cli-")
atexit.register(shutil.rmtree, tmp, ignore_errors=True)




def write(rel, text):
    path = os.path.join(tmp, rel)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(text)
    return path


def run(*args):
    return rdtest.run(BIN, *args)


def findings(out):
    return sorted((f["id"], f["severity"]) for f in json.loads(out)["findings"])


@rdtest.test
def malformed_configuration_exits_3():
    # -- malformed configuration: exit 3, one line naming file, line and key, nothing on stdout
    bad = write("bad.conf", "[check]\nexpected_gpus = 8\n\n[output]\nprometheus_file = /tmp/rocm.txt\n")
    rc, out, err = run("check", "--json", "--facts", NVIDIA, "--config", bad)
    rdtest.check(rc == 3 and out == "" and err == f'rocm-doctor: {bad}:5: [output] prometheus_file: "/tmp/rocm.txt" does not '
                 "end in .prom (the node exporter's textfile collector reads only *.prom)\n",
                 "--config with a bad value: exit 3, file:line:key on stderr, nothing on stdout",
                 f"rc={rc} out={out!r} err={err!r}")

    unknown = write("unknown.conf", "[check]\nexpected_gpu = 8\n")
    rc, out, err = run("check", "--facts", NVIDIA, "--config", unknown)
    rdtest.check(rc == 3 and err == f"rocm-doctor: {unknown}:2: [check] expected_gpu: "
                 "unknown key\n",
                 "--config with an unknown key: exit 3",
                 f"rc={rc} err={err!r}")


@rdtest.test
def bad_mirror_or_missing_file_exits_3():
    # a mirror value that is shell, or that carries a password: refused by file
    # and line, the password masked
    for value, reason in (("http://mirror.example/$(id)", "'$' has no place in a mirror's path"),
                          ("http://mirror.example/`id`", "'`' has no place in a mirror's path"),
                          ("http://mirror.example/radeon;reboot", "';' has no place in a mirror's path"),
                          ("http://mirror.example/radeon|sh", "'|' has no place in a mirror's path")):
        conf = write("mirror.conf", "[repository]\nmirror = %s\n" % value)
        for verb in (["check", "--facts", NVIDIA], ["setup", "--facts", NVIDIA]):
            rc, out, err = run(*verb, "--config", conf)
            rdtest.check(rc == 3 and out == "" and err == f'rocm-doctor: {conf}:2: [repository] mirror: "{value}" is not a URL: '
                         f"{reason} (letters, digits, -._~/%+,=:@)\n",
                         "mirror = %s: %s exits 3 naming file and line" % (value, verb[0]),
                         f"rc={rc} out={out!r} err={err!r}")
    conf = write("mirror.conf", "[repository]\nmirror = http://u:Sx7qSECRET@mirror.example/a b\n")
    rc, out, err = run("check", "--facts", NVIDIA, "--config", conf)
    rdtest.check(rc == 3 and "Sx7qSECRET" not in err + out and
                 err == f"rocm-doctor: {conf}:2: [repository] mirror: a mirror URL holds no space or control character\n",
                 "a mirror with a password and a space: exit 3, the password not shown",
                 f"rc={rc} err={err!r}")

    rc, out, err = run("check", "--facts", NVIDIA, "--config", os.path.join(tmp, "missing.conf"))
    rdtest.check(rc == 3 and
                 err == f"rocm-doctor: --config {tmp}/missing.conf: No such file or directory\n",
                 "--config with a missing file: exit 3 naming it",
                 f"rc={rc} err={err!r}")


@rdtest.test
def drop_ins_under_root():
    # under --root: a drop-in's unknown section or key is a warning (a key a
    # newer version pushed must not stop an older one), the rest of it applies;
    # a bad value in a drop-in, or an unknown key in the main file, stops the run.
    root = os.path.join(tmp, "root")
    write("root/etc/rocm-doctor/rocm-doctor.conf", "[check]\nlevel = 1\n")
    dropin = write("root/etc/rocm-doctor/conf.d/50-fleet.conf",
                   "# fleet\n[checks]\nexpected_gpus = 8\n[check]\nfuture_key = 1\nexpected_gpus = 9\n")
    for verb in ("check", "facts"):
        rc, out, err = run(verb, "--json", "--root", root)
        rdtest.check(rc != 3 and out and
                     err == f"rocm-doctor: warning: {dropin}:2: unknown section [checks] (the sections are [check], [fix], "
                     "[output], [daemon] and [health]); skipped\n"
                     f"rocm-doctor: warning: {dropin}:5: [check] future_key: unknown key; skipped\n",
                     f"{verb} --root with unknown names in a drop-in: warns about each, goes on",
                     f"rc={rc} err={err!r}")
    rc, out, err = run("check", "--json", "--root", root)
    mismatch = [f for f in json.loads(out)["findings"] if f["id"] == "gpu.count-mismatch"] if out else []
    rdtest.check(len(mismatch) == 1 and "9" in mismatch[0]["summary"],
                 "the drop-in's known key applies (expected_gpus = 9, not the skipped section's 8)",
                 mismatch)
    write("root/etc/rocm-doctor/conf.d/50-fleet.conf", "[check]\nexpected_gpus = nine\n")
    rc, out, err = run("check", "--json", "--root", root)
    rdtest.check(rc == 3 and out == "" and err.startswith(f"rocm-doctor: {dropin}:2: "
                 "[check] expected_gpus: "),
                 "a bad value in a drop-in: exit 3",
                 f"rc={rc} err={err!r}")
    os.unlink(dropin)
    main = write("root/etc/rocm-doctor/rocm-doctor.conf", "[check]\nfuture_key = 1\n")
    rc, out, err = run("check", "--json", "--root", root)
    rdtest.check(rc == 3 and
                 err == f"rocm-doctor: {main}:2: [check] future_key: unknown key\n",
                 "an unknown key in the main file: exit 3",
                 f"rc={rc} err={err!r}")
    write("root/etc/rocm-doctor/rocm-doctor.conf", "[check]\nlevel = 1\n")


@rdtest.test
def severity_and_ignore_change_the_exit_status():
    # -- policy changes the exit status
    rc, out, err = run("check", "--json", "--facts", NVIDIA)
    rdtest.check(rc == 2 and findings(out) == [("gpu.none", "error")],
                 "baseline: gpu.none error, exit 2",
                 out + err)

    sev = write("severity.conf", "[check]\nseverity = gpu.none:warning\n")
    rc, out, err = run("check", "--json", "--facts", NVIDIA, "--config", sev)
    rdtest.check(rc == 1 and findings(out) == [("gpu.none", "warning")] and
                 json.loads(out)["exit_status"] == 1,
                 "severity gpu.none:warning: exit 1",
                 out + err)

    sev_info = write("severity-info.conf", "[check]\nseverity = gpu.none:info\n")
    rc, out, err = run("check", "--facts", NVIDIA, "--config", sev_info)
    rdtest.check(rc == 0 and "gpu.none" in out, "severity gpu.none:info: exit 0 (text)", out + err)

    ign = write("ignore.conf", "[check]\nignore = gpu.none\nseverity = gpu.none:error\n")
    rc, out, err = run("check", "--json", "--facts", NVIDIA, "--config", ign)
    rdtest.check(rc == 0 and findings(out) == [],
                 "ignore gpu.none (despite an override): exit 0, no findings",
                 out + err)


@rdtest.test
def expected_gpus_against_the_gpus_found():
    rc, out, err = run("check", "--json", "--facts", NO_ACCESS)
    rdtest.check(rc == 2 and findings(out) == [("kfd.no-access", "error"),
                                                                                    ("render.no-access", "error")],
                 "baseline: one GPU, no access, exit 2",
                 out + err)
    two = write("two.conf", "[check]\nexpected_gpus = 2\nignore = kfd.no-access\n"
                "severity = render.no-access:warning\n")
    rc, out, err = run("check", "--json", "--facts", NO_ACCESS, "--config", two)
    rep = json.loads(out) if out else {}
    cm = [f for f in rep.get("findings", []) if f["id"] == "gpu.count-mismatch"]
    rdtest.check(rc == 2 and findings(out) == [("gpu.count-mismatch", "error"), ("render.no-access", "warning")],
                 "expected_gpus = 2 with one GPU: gpu.count-mismatch error, exit 2",
                 out + err)
    rdtest.check(len(cm) == 1 and cm[0]["evidence"] == [f"expected_gpus = 2 ({two}:2)", "found 1 AMD GPU"] and
                 cm[0]["summary"] == "1 AMD GPU visible, 2 expected",
                 "gpu.count-mismatch evidence names expected (file:line) and found",
                 cm)

    ok_count = write("one.conf", "[check]\nexpected_gpus = 1\nignore = kfd.no-access render.no-access\n")
    rc, out, err = run("check", "--json", "--facts", NO_ACCESS, "--config", ok_count)
    rdtest.check(rc == 0 and findings(out) == [],
                 "expected_gpus = 1 with one GPU, access findings ignored: exit 0",
                 out + err)


sys.exit(rdtest.main())
