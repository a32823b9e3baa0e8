"""The 64-node folder the fleet command's tests judge, built from the
scenario beds of tests/run/scenarios with the real binary: each bed once
(`rocm-doctor facts`, or a saved `check --json` report), copied to its
nodes.

    gpu[001-048]  AMD Instinct MI300X x8, facts files (diagnosed by fleet)
                  gpu[009,031,040]: health-8x-mi300x-one-bad-gpu
                  gpu017: another kernel release, gpu023: another MEC
                  firmware on one GPU (the facts edited: one node's
                  kernel updated, one GPU's firmware flashed)
    ws[01-16]     AMD Radeon RX 7900 XTX, saved reports
                  ws[03-04]: access-nodes (the user lacks the groups)
                  ws[07,12-13]: apt-pin-missing

    fleetfolder.py ROCM_DOCTOR TB_RUN DIR   (writes the folder, for the bench)
"""
import json
import os
import sys

sys.dont_write_bytecode = True
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import fleetlib  # noqa: E402

BAD_GPU = {9, 31, 40}
KERNEL_OUTLIER, FIRMWARE_OUTLIER = 17, 23
ACCESS = {3, 4}
APT_PIN = {7, 12, 13}


def _output(binary, tb_run, scenario, verb, *args):
    with fleetlib.Bed(scenario, binary, tb_run) as bed:
        if not bed.usable():
            raise RuntimeError("scenario %s needs root here" % scenario)
        p = bed.run(verb, *args)
        if p.returncode not in (0, 1, 2) or not p.stdout.startswith("{"):
            raise RuntimeError("%s %s in %s: exit %d: %s" % (verb, " ".join(args), scenario, p.returncode,
                                                             p.stderr[-2000:]))
        return json.loads(p.stdout)


def build(binary, tb_run, folder):
    os.makedirs(folder, exist_ok=True)
    healthy = _output(binary, tb_run, "healthy-8x-mi300x", "facts")
    bad = _output(binary, tb_run, "health-8x-mi300x-one-bad-gpu", "facts")
    ws = {name: _output(binary, tb_run, name, "check", "--json")
          for name in ("healthy-rx7900xtx", "access-nodes", "apt-pin-missing")}

    def write(name, doc):
        with open(os.path.join(folder, name + ".json"), "w") as f:
            json.dump(doc, f, indent=1)

    for i in range(1, 49):
        doc = json.loads(json.dumps(bad if i in BAD_GPU else healthy))
        if i == KERNEL_OUTLIER:
            doc["os"]["kernel_release"] = "6.8.0-51-generic"
        if i == FIRMWARE_OUTLIER:
            gpu = doc["health"]["gpus"][2]
            gpu["firmware"] = [("mec=0x000000b0" if fw.startswith("mec=") else fw) for fw in gpu["firmware"]]
        write("gpu%03d" % i, doc)
    for i in range(1, 17):
        scenario = "access-nodes" if i in ACCESS else "apt-pin-missing" if i in APT_PIN else "healthy-rx7900xtx"
        write("ws%02d" % i, ws[scenario])


if __name__ == "__main__":
    build(sys.argv[1], sys.argv[2], sys.argv[3])
