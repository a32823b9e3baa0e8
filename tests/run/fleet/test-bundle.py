#!/usr/bin/env python3
"""`rocm-doctor report -o FILE` on a scenario testbed with secrets planted in
every kind of file the bundle collects: the archive holds what it should,
no secret survives, facts.json re-diagnoses to the same findings, and a
failed write leaves nothing behind.

    test-bundle.py ROCM_DOCTOR TB_RUN
"""
import json
import os
import re
import stat
import subprocess
import sys
import tarfile
import tempfile

sys.dont_write_bytecode = True  # keep the source tree clean
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "lib"))
import fleetlib  # noqa: E402
import rdtest  # noqa: E402

BIN, TB_RUN = sys.argv[1:3]
DKMS_LOG = "var/lib/dkms/amdgpu/6.8.5-2009582.24.04/build/make.log"

# Secrets of the shapes people keep in these files. Each has a unique core
# ("q7NNz") so that a part of one that leaks is found too.
SECRETS = []


def secret(shape):
    core = "q7%02dz" % len(SECRETS)
    value = shape.replace("@@", core)
    SECRETS.append(value)
    return value


def plant(sc):
    tb = sc.tb
    S = secret
    # apt: user info on AMD's repository, secret paths and query tokens elsewhere
    tb.root_file("etc/apt/sources.list.d/rocm.list",
                 "deb [arch=amd64 signed-by=/etc/apt/keyrings/rocm.gpg] "
                 "https://bob:%s@repo.radeon.com/rocm/apt/6.2.4 noble main\n" % S("SECRET-@@-x9"))
    tb.root_file("etc/apt/sources.list.d/private.list",
                 "deb https://apt.example.com/%s/ubuntu noble main\n"
                 "# deb https://old:%s@apt.example.com/ubuntu noble main\n"
                 "deb http://mirror.example/ubuntu?token=%s noble main\n" % (S("tok-@@-path"), S("pw@@old"), S("@@qs")))
    tb.root_file("etc/apt/sources.list.d/private.sources",
                 "Types: deb\nURIs: https://%s@pkgs.example.com/%s/debian\nSuites: noble\nComponents: main\n"
                 % (S("ghp_@@abcdefABCDEF0123456789"), S("chan-@@")))
    tb.root_file("etc/apt/preferences.d/rocm-pin-600",
                 "# pinned for ticket %s\nPackage: *\nPin: release o=repo.radeon.com\nPin-Priority: 600\n"
                 % S("TICKET@@"))
    tb.root_file("etc/apt/auth.conf", "machine apt.example.com login bob password %s\n" % S("hunter@@"))
    tb.root_file("etc/apt/auth.conf.d/private.conf",
                 "machine repo.example.com login bob password %s\n" % S("SECRET-@@-x9"))
    tb.root_file("etc/modprobe.d/amdgpu.conf",
                 "# mirror token=%s\n# %s\noptions amdgpu ppfeaturemask=0xffffffff\n" % (S("SECRET-@@-x9"), S("bare@@")))
    # /etc/environment (pam_env) with every kind of value
    tb.root_file("etc/environment", "".join([
        "PATH=/usr/local/bin:/usr/bin:/bin\n",
        "HF_TOKEN=%s\n" % S("hf_@@XyZ"),
        "MYSQL_PWD=%s\n" % S("my@@pwd"),
        'ROCM_PASSPHRASE="%s"\n' % S("correct horse @@ battery"),
        "AZURE_STORAGE_KEY=%s\n" % S("Zm9v@@YmFyYmF6cXV4==") ,
        "HSA_KEY=%s\n" % S("hsa-@@"),
        "NPM_AUTH=%s\n" % S("npm_@@abc"),
        "SLACK_WEBHOOK=https://hooks.slack.com/services/T000/B000/%s\n" % S("XXXX@@XXXX"),
        "DATABASE_URL=postgres://app:%s@db.internal:5432/prod\n" % S("dbpw@@"),
        "AWS_SECRET_ACCESS_KEY=%s\n" % S("wJalrXUtnFEMI/K7MDENG/@@EXAMPLEKEY"),
        "GPU_LICENSE='%s'\n" % S("lic-@@"),
        "HTTP_PROXY=http://user:%s@proxy.example:3128\n" % S("proxy@@"),
        "PLAIN=%s\n" % S("plain@@"),
        "# backup password %s\n" % S("comment@@"),
        'PATH="/usr/local/bin:/usr/bin:/bin:/opt/rocm/bin" # vault token %s\n' % S("envpath@@"),
    ]))
    tb.root_file("etc/environment.d/50-rocm.conf", "".join([
        "ROCM_PATH=/opt/rocm\n",
        'API_KEY="%s"\n' % S("ak-@@"),
        "BEARER=%s\n" % S("eyJhbGciOiJIUzI1NiJ9.@@.sig"),
        "ROCM_MIRROR=https://mirror.example/%s/rocm\n" % S("m-@@"),
        "HIP_CACHE_AUTH=%s\n" % S("hca@@"),
        "SESSION=%s\n" % S("a b @@ c"),
    ]))
    tb.root_file("etc/profile.d/rocm.sh", "".join([
        "export PATH=/opt/rocm/bin:$PATH; export HIDDEN=%s\n" % S("hid@@"),
        "export OPENAI_API_KEY=%s\n" % S("sk-@@proj"),
        "alias deploy='curl -u admin:%s https://deploy.example/'\n" % S("adm@@"),
        'if [ -n "$DISPLAY" ]; then export T=%s; fi\n' % S("t@@"),
        "HF_HOME=/data; HUGGING_FACE_HUB_TOKEN=%s\n" % S("hf@@hub"),
        'export CONN="host=db password=%s"\n' % S("conn@@"),
        "export HIP_VISIBLE_DEVICES=0 # %s\n" % S("trail@@"),
        "# %s\n" % S("note@@"),
        "export PATH=$PATH:/opt/rocm/bin; sshpass -p %s ssh build@host\n" % S("sshpass@@"),
    ]))
    tb.root_file("etc/ld.so.conf.d/rocm.conf", "/opt/rocm/lib # mirror password %s\n# %s\n"
                 % (S("ldconf@@"), S("ldnote@@")))
    # Every other text file a probe reads (tests/run/fleet/test-bundle.py checks
    # this list against the probes' descriptors: READ_ELSEWHERE and these)
    for path, text in [
            ("etc/yum.repos.d/private.repo", "[private]\nname=Private\n# password %s\n"
             "baseurl=https://bob:%s@rpm.example.com/%s/el9/\ngpgkey=file:///etc/pki/%s.key\n"
             % (S("repo@@"), S("repopw@@"), S("repopath@@"), S("repokey@@"))),
            ("etc/zypp/repos.d/private.repo", "[private]\n# token %s\nbaseurl=https://zypp.example.com/?auth=%s\n"
             % (S("zypp@@"), S("zyppq@@"))),
            ("etc/dnf/dnf.conf", "[main]\ngpgcheck=1\n# proxy_password=%s\nproxy_password=%s\n"
             % (S("dnfc@@"), S("dnfpw@@"))),
            ("etc/yum.conf", "[main]\n# %s\n" % S("yumc@@")),
            ("etc/dnf/vars/mirror_token", "%s\n" % S("dnfvar@@")),
            ("etc/yum/vars/mirror_token", "%s\n" % S("yumvar@@")),
            ("etc/zypp/vars.d/token", "%s\n" % S("zyppvar@@")),
            ("etc/apt/preferences", "# %s\nPackage: *\nPin: origin mirror.example\nPin-Priority: 100\n"
             % S("pref@@")),
            ("etc/apt/sources.list", "# %s\n" % S("srclist@@")),
            ("usr/lib/modprobe.d/private.conf", "# %s\noptions snd index=0\n" % S("libmod@@")),
            ("lib/modprobe.d/private.conf", "# %s\n" % S("lmod@@")),
            ("run/modprobe.d/private.conf", "# %s\n" % S("runmod@@")),
            ("usr/local/lib/modprobe.d/private.conf", "# %s\n" % S("locmod@@")),
            ("usr/lib/os-release", "NAME=Ubuntu\n# %s\n" % S("osrel@@")),
            ("opt/private/token.txt", "%s\n" % S("opt@@")),
            ("etc/slurm/slurm.conf", "ClusterName=c # %s\nAccountingStoragePass=%s\n" % (S("slurmc@@"), S("slurmpw@@"))),
            ("etc/slurm-llnl/gres.conf", "# %s\nName=gpu File=/dev/dri/renderD128\n" % S("gres@@")),
            ("usr/local/lib/python3.12/dist-packages/rocm_sdk_core-7.0.0.dist-info/METADATA",
             "Metadata-Version: 2.1\nName: rocm-sdk-core\nVersion: 7.0.0\nAuthor-email: %s\n" % S("wheel@@")),
            ("usr/lib/python3/dist-packages/private-1.0.dist-info/METADATA",
             "Name: private\nVersion: 1.0\nPassword: %s\n" % S("dist@@"))]:
        tb.root_file(path, text)

    filler = "  CC [M]  /var/lib/dkms/amdgpu/6.8.5/build/amd/amdgpu/amdgpu_drv.o\n" * 20000
    tb.root_file(DKMS_LOG, "FIRST LINE OF THE BUILD\n" + filler +
                 "curl -H 'Authorization: Bearer %s' https://fw.example/\n" % S("SECRET-@@-x9") +
                 "wget https://fw.example/%s/psp.bin\n" % S("dl@@") +
                 "make -j16 SIGN_TOKEN=%s KERNELRELEASE=6.8.0\n" % S("mk@@") +
                 "amdgpu_drv.c:1: error: implicit declaration of function 'drm_foo'\n")
    tb.kmsg([(9.1, "amdgpu 0000:03:00.0: amdgpu: fetching https://fw:%s@fw.example/%s/psp.bin"
              % (S("SECRET-@@-x9"), S("kp@@")), 6)])


# What the probes read (their descriptors' .reads) that plant() does not
# write with a secret, and why.
READ_ELSEWHERE = {
    "/etc/passwd": "the test bed writes it (its users)", "/etc/group": "the test bed writes it (its groups)",
    "/etc/os-release": "the test bed writes it",
    "/etc/apt/keyrings": "binary keys", "/etc/apt/trusted.gpg.d": "binary keys", "/usr/share/keyrings": "binary keys",
    "/var/lib/rpm": "a binary database", "/usr/lib/sysimage/rpm": "a binary database",
    "/var/lib/dpkg/status": "the test bed writes it (its packages)",
    "/var/lib/dkms": "DKMS_LOG above, with its secrets",
}


def planted_paths():
    """The paths plant() writes, as the probes name them."""
    with open(os.path.abspath(__file__)) as f:
        return set("/" + m for m in re.findall(r'(?:root_file\(|\(\s*)"((?:etc|usr|var|lib|run|opt)/[^"]+)"', f.read()))


def descriptor_reads():
    src = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "probes")
    reads = set()
    for name in os.listdir(src):
        if name.endswith(".c"):
            with open(os.path.join(src, name)) as f:
                blocks = re.findall(r"\.reads = \(const rd_probe_input\[\]\)\{(.*?)\}\s*,\s*\n\s*\.", f.read(), re.S)
                for block in blocks:
                    reads.update(re.findall(r'\{ "(/[^"]+)"', block))
    return reads

# The process environment of the run: secrets under all kinds of names,
# ROCm-looking prefixes included, and a variable the bundle shows.
PROCESS_ENV = {
    "HIP_FLEET_TOKEN": secret("SECRET-@@-x9"), "ROCM_MIRROR": "https://u:%s@m.example/" % secret("SECRET-@@-x9"),
    "AMD_LICENSE_KEY": secret("amdlic@@"), "PYTORCH_PASSPHRASE": secret("pp @@ pp"),
    "GPU_CREDS": secret("creds@@"), "TORCH_HUB_AUTH": secret("th@@"), "NCCL_SOCKET_KEY": secret("nccl@@"),
    "HSA_TOOLS_TOKEN": secret("hsat@@"), "PLAIN_VALUE": secret("pv@@"),
    "MULTI_LINE": "first line\n%s\n" % secret("ml@@"),
    "GITHUB_TOKEN": secret("ghp_@@0123456789abcdefABCDEF"), "CI_JOB_JWT": secret("eyJ0eXAi.@@.x"),
    "HSA_ENABLE_SDMA": "0", "HIP_VISIBLE_DEVICES": "0",
}


def members(path):
    with tarfile.open(path) as tar:
        return {m.name: (m, tar.extractfile(m).read()) for m in tar.getmembers()}


def fingerprint(report):
    return sorted((f["id"], f["severity"], f["gpu"] or "") for f in report["findings"])


P = "rocm-doctor-report/"


class Made:
    """The test bed with its secrets, the live check and the bundle, made
    once for the tests that read them (a bed costs more than a run)."""
    bed = None

    @classmethod
    def get(cls):
        if cls.bed is None:
            cls.make()
        return cls

    @classmethod
    def make(cls):
        cls.bed = fleetlib.Bed("healthy-rx7900xtx", BIN, TB_RUN, prepare=plant)
        cls.out_dir = tempfile.mkdtemp(prefix="rocm-doctor-bundle-")
        cls.bundle = os.path.join(cls.out_dir, "bundle.tar")
        with open(cls.bundle, "w") as f:
            f.write("an older file that the bundle must not replace\n")
        cls.live = cls.bed.run("check", "--json", env=PROCESS_ENV)
        cls.report_live = json.loads(cls.live.stdout)
        cls.text_live = cls.bed.run("check", "--color", "never", env=PROCESS_ENV).stdout
        cls.over_existing = cls.bed.run("report", "-o", cls.bundle, env=PROCESS_ENV)
        cls.kept = open(cls.bundle).read()
        os.unlink(cls.bundle)
        cls.written = cls.bed.run("report", "-o", cls.bundle, env=PROCESS_ENV)
        cls.listing = os.listdir(cls.out_dir)
        cls.m = members(cls.bundle)
        cls.names = sorted(cls.m)

    @classmethod
    def text(cls, n):
        return cls.m[P + n][1].decode()

    @classmethod
    def clean(cls):
        if cls.bed is not None:
            subprocess.run(["rm", "-rf", cls.out_dir])
            cls.bed.__exit__(None, None, None)


@rdtest.test
def every_probe_read_has_a_secret():
    Made.get()  # plant() fills SECRETS
    reads, planted = descriptor_reads(), planted_paths()
    unplanted = sorted(r for r in reads if r not in READ_ELSEWHERE and
                       not any(p == r or p.startswith(r.rstrip("/") + "/") for p in planted))
    rdtest.check(len(reads) > 20 and not unplanted,
                 "every file or directory a probe reads has a secret planted (%d read)" % len(reads),
                 "%s" % unplanted)
    rdtest.check(len(SECRETS) >= 50 and
                 len(set(SECRETS)) == len(SECRETS),
                 "at least 50 secrets are planted, each unique",
                 "%d" % len(SECRETS))


@rdtest.test
def report_writes_a_private_bundle_once():
    b = Made.get()
    bundle, live, report_live, p = b.bundle, b.live, b.report_live, b.over_existing
    rdtest.check(p.returncode == 3 and
                 p.stderr == "rocm-doctor: %s exists; remove it first, or name another file with -o\n" % bundle and
                 b.kept == "an older file that the bundle must not replace\n",
                 "an existing file: exit 3, says so, the file is left alone",
                 p.stderr)
    p = b.written
    rdtest.check(p.returncode == 0 and live.returncode == report_live["exit_status"],
                 "report exits 0 once the bundle is written, whatever the check found",
                 "rc=%d live=%d\n%s%s" % (p.returncode, live.returncode, p.stdout, p.stderr))
    found = {0: "no problem", 1: "warnings", 2: "errors"}[live.returncode]
    rdtest.check("\nThe check found %s (see README.txt in the bundle).\n" % found
                 in p.stdout,
                 "report says what the check found",
                 p.stdout)
    rdtest.check(p.stdout.startswith("Support bundle written to %s: " % bundle),
                 "report says where the bundle is",
                 p.stdout)
    rdtest.check(b.listing == ["bundle.tar"],
                 "the directory holds only the bundle (no temporary file left)",
                 "%s" % b.listing)
    rdtest.check(stat.S_IMODE(os.stat(bundle).st_mode) == 0o600, "the bundle is private (0600)")


@rdtest.test
def the_bundle_has_its_members():
    b = Made.get()
    m, names = b.m, b.names
    want = [P + n for n in ("README.txt", "environment.txt", "facts.json", "kernel-log.txt", "report.json",
                            "report.txt", "files/" + DKMS_LOG, "files/etc/apt/sources.list.d/rocm.list",
                            "files/etc/apt/preferences.d/rocm-pin-600", "files/etc/modprobe.d/amdgpu.conf",
                            "files/etc/environment", "files/etc/environment.d/50-rocm.conf",
                            "files/etc/profile.d/rocm.sh", "files/etc/apt/sources.list.d/private.list",
                            "files/etc/apt/sources.list.d/private.sources")]
    rdtest.check(all(n in names for n in want),
                 "the bundle has every expected member",
                 "missing %s\nhave %s" % ([n for n in want if n not in names], names))
    rdtest.check(not any("auth.conf" in n for n in names),
                 "apt auth.conf files are never collected",
                 "%s" % names)
    rdtest.check(all(n.startswith(P) and mi.isfile() for n, (mi, _) in m.items()),
                 "all members are regular files under rocm-doctor-report/")


@rdtest.test
def no_secret_survives():
    b = Made.get()
    m = b.m
    cores = [("q7%02dz" % i, v) for i, v in enumerate(SECRETS)]
    leaked = ["%r in %s" % (v, n) for n, (_, data) in m.items() for core, v in cores
              if core.encode() in data or v.encode() in data]
    rdtest.check(not leaked, "none of the %d secrets is in the bundle" % len(SECRETS), "\n".join(leaked))
    for n in ("files/etc/apt/sources.list.d/rocm.list", "files/etc/modprobe.d/amdgpu.conf",
              "files/etc/environment", "files/etc/environment.d/50-rocm.conf", "files/" + DKMS_LOG,
              "files/etc/profile.d/rocm.sh", "environment.txt", "kernel-log.txt", "facts.json"):
        rdtest.check(b"<redacted>" in m.get(P + n, (None, b""))[1], "%s shows where a secret was left out" % n)


@rdtest.test
def what_is_kept_of_each_file():
    b = Made.get()
    text, text_live = b.text, b.text_live
    rdtest.check(text("files/etc/apt/sources.list.d/rocm.list") ==
                 "deb [arch=amd64 signed-by=/etc/apt/keyrings/rocm.gpg] "
                 "https://<redacted>@repo.radeon.com/rocm/apt/6.2.4 noble main\n",
                 "apt source keeps everything but the password")
    rdtest.check("options amdgpu ppfeaturemask=0xffffffff\n"
                 in text("files/etc/modprobe.d/amdgpu.conf"),
                 "modprobe options are kept")
    log = text("files/" + DKMS_LOG)
    rdtest.check("FIRST LINE" not in log and log.startswith("[... first part left out") and
                 log.endswith("error: implicit declaration of function 'drm_foo'\n") and len(log) <= 1024 * 1024 + 100,
                 "a long DKMS log keeps its end, not its start",
                 log[:200])
    env_txt = text("environment.txt")
    rdtest.check("HIP_VISIBLE_DEVICES=0\n" in env_txt and "HSA_ENABLE_SDMA=<redacted>\n" in env_txt and
                 "HIP_FLEET_TOKEN=<redacted>\n" in env_txt and "ROCM_MIRROR=<redacted>\n" in env_txt and
                 "AMD_LICENSE_KEY=<redacted>\n" in env_txt,
                 "environment: values of the variables rocm-doctor reads, names of the others",
                 env_txt)
    rdtest.check(text("files/etc/environment").startswith("PATH=/usr/local/bin:/usr/bin:/bin\nHF_TOKEN=<redacted>\n"
                                                            "MYSQL_PWD=<redacted>\n") and
                 text("files/etc/environment.d/50-rocm.conf").startswith("ROCM_PATH=/opt/rocm\nAPI_KEY=<redacted>\n") and
                 text("files/etc/profile.d/rocm.sh").startswith("export PATH=/opt/rocm/bin:$PATH <redacted>\n"
                                                                 "export OPENAI_API_KEY=<redacted>\n<redacted>\n"),
                 "environment files: names kept, values only of variables rocm-doctor reads",
                 text("files/etc/environment") + text("files/etc/profile.d/rocm.sh"))
    rdtest.check("deb https://apt.example.com/<redacted> noble main\n" in text("files/etc/apt/sources.list.d/private.list")
                 and "URIs: https://<redacted>@pkgs.example.com/<redacted>\n"
                 in text("files/etc/apt/sources.list.d/private.sources"),
                 "URLs keep scheme and host (AMD's repository its path)",
                 text("files/etc/apt/sources.list.d/private.list"))
    rdtest.check("fetching https://<redacted>@fw.example/<redacted>" in text("kernel-log.txt"),
                 "kernel log has the planted record, redacted",
                 text("kernel-log.txt"))
    rdtest.check(text("report.txt") == text_live,
                 "report.txt is the text report",
                 "--- bundle\n%s\n--- live\n%s" % (text("report.txt"), text_live))


@rdtest.test
def the_reports_and_readme():
    b = Made.get()
    names, text, report_live = b.names, b.text, b.report_live
    report_b = json.loads(text("report.json"))
    rdtest.check(fingerprint(report_b) == fingerprint(report_live), "report.json has the live findings")
    readme = text("README.txt")
    rdtest.check("Values left out as secrets: " in readme and
                 int(readme.split("Values left out as secrets: ")[1].split()[0]) >= 8 and
                 all("  " + n[len(P):] + "\n" in readme for n in names if n != P + "README.txt"),
                 "README counts what was left out and lists every other member",
                 readme)


@rdtest.test
def facts_carry_where_not_what():
    b = Made.get()
    text = b.text
    rocm_facts = json.loads(text("facts.json"))["rocm"]
    dropins = [(d["file"], d["line"], d["dirs"]) for d in rocm_facts.get("path_dropin_dirs", [])]
    rdtest.check(dropins == [("/etc/profile.d/rocm.sh", 1, ["/opt/rocm/bin"]),
                             ("/etc/profile.d/rocm.sh", 9, ["/opt/rocm/bin"]),
                             ("/etc/environment", 15, ["/opt/rocm/bin"]), ("/etc/environment.d/50-rocm.conf", 1, [])]
                 and "path_dropins" not in rocm_facts,
                 "facts carry the PATH lines' file, line and ROCm entries, not the lines",
                 "%r" % dropins)
    ld = [(d["file"], d["line"], d["dir"]) for d in rocm_facts.get("ld_conf_dirs", [])]
    rdtest.check(ld == [("/etc/ld.so.conf.d/rocm.conf", 1, "/opt/rocm/lib")] and "ld_conf" not in rocm_facts,
                 "facts carry the ld.so.conf.d directory without its comment",
                 "%r" % ld)


@rdtest.test
def the_bundle_facts_rediagnose_the_same():
    b = Made.get()
    m, live, report_live, out_dir = b.m, b.live, b.report_live, b.out_dir
    # The round trip: facts.json re-diagnoses to the same findings, off the host.
    facts_path = os.path.join(out_dir, "facts.json")
    with open(facts_path, "wb") as f:
        f.write(m[P + "facts.json"][1])
    p = subprocess.run([BIN, "check", "--facts", facts_path, "--json"], capture_output=True, text=True)
    again = json.loads(p.stdout) if p.stdout else {"findings": []}
    rdtest.check(p.returncode == live.returncode and fingerprint(again) == fingerprint(report_live) and
                 again["gpus"] == report_live["gpus"],
                 "check --facts on the bundle's facts gives the same findings and status",
                 "rc=%d %s\n%s" % (p.returncode, p.stderr, p.stdout[:2000]))


@rdtest.test(root=True)
def under_sudo_the_bundle_belongs_to_the_user():
    b = Made.get()
    out_dir = b.out_dir
    bed = b.bed
    sudo_bundle = os.path.join(out_dir, "sudo.tar")
    p = bed.run("report", "-o", sudo_bundle, env={"SUDO_UID": "4321", "SUDO_GID": "4322"})
    st = os.stat(sudo_bundle)
    rdtest.check(p.returncode == 0 and
                 (st.st_uid, st.st_gid) == (4321, 4322),
                 "under sudo the bundle belongs to SUDO_UID:SUDO_GID",
                 "%s %s" % (p.stderr, (st.st_uid, st.st_gid)))
    os.unlink(sudo_bundle)


@rdtest.test
def failures_write_nothing():
    b = Made.get()
    out_dir = b.out_dir
    bed = b.bed
    before = sorted(os.listdir(out_dir))
    # Failures: clear message, exit 3, nothing written.
    p = bed.run("report", "-o", os.path.join(out_dir, "missing-dir", "b.tar"))
    rdtest.check(p.returncode == 3 and "missing-dir" in p.stderr,
                 "-o in a missing directory: exit 3 naming it",
                 p.stderr)
    p = bed.run("report", "-o", os.path.join(out_dir, "x.tar"), "--json")
    rdtest.check(p.returncode == 3 and "--format/--json" in p.stderr, "report rejects --json", p.stderr)
    ro = os.path.join(out_dir, "ro")
    os.mkdir(ro, 0o555)
    if os.geteuid() != 0:
        p = bed.run("report", "-o", os.path.join(ro, "b.tar"))
        rdtest.check(p.returncode == 3 and os.listdir(ro) == [],
                     "unwritable directory: exit 3, nothing left",
                     p.stderr)
    rdtest.check(sorted(os.listdir(out_dir)) == sorted(before + ["ro"]),
                 "the failures left nothing (but the directory made for them)",
                 "%s" % os.listdir(out_dir))


status = rdtest.main()
Made.clean()
sys.exit(status)
