#!/usr/bin/env python3
"""The Kubernetes DaemonSet of contrib/kubernetes/.

    test-kubernetes.py MANIFEST ROCM_DOCTORD

- Every document is deserialized into the Kubernetes API models of the
  official Python client (Debian's python3-kubernetes), which reject missing
  required fields and wrong types; serialized back, nothing may be lost (a
  lost key is a field the API does not have: a typo the API server would
  drop or refuse).
- What the kubelet and NFD need: the selector matches the pod labels; the
  features.d hostPath is NFD's directory and the only writable host mount;
  every other hostPath is read-only, and / is not one of them (which paths
  are: test-kubernetes-access.py); the daemon's --root, --config and the
  ConfigMap's nfd_file and status_file agree with the mounts; the liveness
  probe reads the status the daemon writes.
- Least privilege: not privileged, no privilege escalation, every capability
  dropped, read-only root file system, RuntimeDefault seccomp, no service
  account token.
- The ConfigMap's rocm-doctor.conf works: rocm-doctord --once --root TMP
  --config it writes TMP/etc/kubernetes/node-feature-discovery/features.d/
  rocm-doctor (NFD feature lines) and TMP/run/rocm-doctor/status.json.
"""
import json
import os
import shutil
import subprocess
import tempfile
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import rdtest  # noqa: E402

try:
    import yaml
    from kubernetes.client import ApiClient
except ImportError as e:
    print("SKIP: %s (Debian: python3-yaml python3-kubernetes)" % e)
    sys.exit(rdtest.EXIT_SKIP)

MANIFEST, DAEMON = sys.argv[1], os.path.abspath(sys.argv[2])
NFD_DIR = "/etc/kubernetes/node-feature-discovery/features.d"
PREFIX = "rocm-doctor.feature.node.kubernetes.io/"


class Response:
    def __init__(self, obj):
        self.data = json.dumps(obj)


def strip_empty(o):
    if isinstance(o, dict):
        return {k: strip_empty(v) for k, v in o.items() if v is not None}
    if isinstance(o, list):
        return [strip_empty(v) for v in o]
    return o


api = ApiClient()
docs = [d for d in yaml.safe_load_all(open(MANIFEST)) if d]
kinds = {d["kind"]: d for d in docs}
ds = kinds.get("DaemonSet", {})
ns = ds["metadata"]["namespace"]
spec = ds["spec"]
pod = spec["template"]["spec"]
labels = spec["template"]["metadata"]["labels"]
terms = pod["affinity"]["nodeAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"]["nodeSelectorTerms"]
(c,) = pod["containers"]
sc = c["securityContext"]
args = c["args"]
root = args[args.index("--root") + 1]
config = args[args.index("--config") + 1]
volumes = {v["name"]: v for v in pod["volumes"]}
mounts = {m["name"]: m for m in c["volumeMounts"]}
host_rw = [n for n, v in volumes.items() if "hostPath" in v and not mounts[n].get("readOnly")]
nfd = host_rw[0] if host_rw else None
cm_mount = [n for n, v in volumes.items() if "configMap" in v]
conf_text = kinds["ConfigMap"]["data"].get(os.path.basename(config), "")
conf = dict(line.split("=", 1) for line in conf_text.splitlines() if "=" in line and not line.startswith("#"))
conf = {k.strip(): v.strip() for k, v in conf.items()}
status = root.rstrip("/") + conf.get("status_file", "/run/rocm-doctor/status.json")
probe = c.get("livenessProbe", {})
# Not root, and what it takes instead.
psc = pod.get("securityContext", {})
(init,) = pod.get("initContainers", [{}])
isc = init.get("securityContext", {})
init_cmd = " ".join(init.get("command", []))
# Pod Security: the same level in every mode, so applying it warns of nothing.
nslabels = kinds["Namespace"]["metadata"].get("labels", {})
modes = {m: nslabels.get("pod-security.kubernetes.io/" + m) for m in ("enforce", "audit", "warn")}
# Scheduling on tainted GPU nodes, and no host network by default.
tols = pod.get("tolerations", [])


@rdtest.test
def every_document_is_a_valid_model():
    rdtest.check(sorted(kinds) == ["ConfigMap", "DaemonSet", "Namespace", "ServiceAccount"],
                 "the manifest has a Namespace, ServiceAccount, ConfigMap and DaemonSet",
                 sorted(kinds))
    for d in docs:
        model = "V1" + d["kind"]
        try:
            obj = api.deserialize(Response(d), model)
            back = strip_empty(api.sanitize_for_serialization(obj))
            rdtest.check(back == strip_empty(d),
                         "%s %s is a valid %s, no unknown field" % (d["kind"], d["metadata"]["name"], model),
                         json.dumps(back)[:2000] + "\nvs\n" + json.dumps(d)[:2000])
        except (ValueError, TypeError) as e:
            rdtest.check(False, "%s %s is a valid %s" % (d["kind"], d["metadata"].get("name"), model), str(e))


@rdtest.test
def what_the_kubelet_and_nfd_need():
    rdtest.check(all(
                 d["metadata"].get("namespace") == ns for d in docs if d["kind"] != "Namespace") and
                 kinds["Namespace"]["metadata"]["name"] == ns,
                 "every namespaced object is in the namespace")
    rdtest.check(all(labels.get(k) == v for k, v in spec["selector"]["matchLabels"].items()),
                 "the selector matches the pod template's labels")
    rdtest.check(pod.get("automountServiceAccountToken") is False and
                 kinds["ServiceAccount"].get("automountServiceAccountToken") is False,
                 "no service account token")
    rdtest.check(pod.get("securityContext", {}).get("seccompProfile", {}).get("type") == "RuntimeDefault",
                 "the pod uses the RuntimeDefault seccomp profile")
    rdtest.check(terms and all(e["key"].startswith("feature.node.kubernetes.io/pci-") and e["key"].endswith("_1002.present")
                               for t in terms for e in t["matchExpressions"]),
                 "it runs on nodes NFD labels as having an AMD PCI device")
    rdtest.check(sc.get("privileged") is False and sc.get("allowPrivilegeEscalation") is False,
                 "the container is not privileged and cannot escalate")
    rdtest.check(sc.get("capabilities", {}).get("drop") == ["ALL"] and not sc.get("capabilities", {}).get("add"),
                 "every capability is dropped, none added")
    rdtest.check(sc.get("readOnlyRootFilesystem") is True, "read-only root file system")
    rdtest.check(c["resources"]["requests"] and c["resources"]["limits"],
                 "resources are requested and limited")
    rdtest.check(c["command"][0].endswith("/rocm-doctord"), "it runs rocm-doctord")
    rdtest.check(sorted(volumes) == sorted(mounts), "every volume is mounted and every mount has a volume")
    rdtest.check(len(host_rw) == 1 and
                 volumes[host_rw[0]]["hostPath"]["path"] == NFD_DIR,
                 "the only writable hostPath is NFD's features.d",
                 host_rw)
    rdtest.check(all(
                 mounts[n].get("readOnly") for n, v in volumes.items() if "hostPath" in v and n not in host_rw),
                 "every other hostPath is mounted read-only")
    rdtest.check(nfd and mounts[nfd]["mountPath"] == root.rstrip("/") + NFD_DIR,
                 "features.d is mounted where the daemon writes it under --root")
    rdtest.check(not any(
                 v.get("hostPath", {}).get("path") == "/" for v in volumes.values()),
                 "the host root itself is not mounted (test-kubernetes-access.py checks what is)")
    rdtest.check(len(cm_mount) == 1 and os.path.dirname(config) == mounts[cm_mount[0]]["mountPath"] and
                 volumes[cm_mount[0]]["configMap"]["name"] == kinds["ConfigMap"]["metadata"]["name"] and
                 os.path.basename(config) in kinds["ConfigMap"]["data"],
                 "the ConfigMap is mounted where --config points")
    rdtest.check(conf.get("nfd_file", "").startswith(NFD_DIR + "/"),
                 "the configuration names NFD's features file",
                 conf)
    rdtest.check(status in " ".join(probe.get("exec", {}).get("command", [])),
                 "a liveness probe reads the status the daemon writes",
                 "%s not in %s" % (status, probe))
    rdtest.check(any(
                 m["mountPath"] == os.path.dirname(status) and not m.get("readOnly") and "emptyDir" in volumes[n]
                 for n, m in mounts.items()),
                 "the status directory is a writable volume")


@rdtest.test
def not_root_and_what_it_takes_instead():
    rdtest.check(psc.get("runAsNonRoot") is True and sc.get("runAsNonRoot") is True and
                 isinstance(sc.get("runAsUser"), int) and sc["runAsUser"] > 0 and
                 isinstance(sc.get("runAsGroup"), int) and sc["runAsGroup"] > 0,
                 "the pod and the daemon run as a non-root uid and gid",
                 sc)
    rdtest.check(not psc.get("supplementalGroups"),
                 "no supplementary groups: device nodes are only stat()ed",
                 psc)
    rdtest.check(isc.get("capabilities") == {"drop": ["ALL"], "add": ["CHOWN"]} and isc.get("privileged") is False and
                 isc.get("allowPrivilegeEscalation") is False and isc.get("readOnlyRootFilesystem") is True,
                 "the init container adds CHOWN alone, drops the rest, cannot escalate, read-only root",
                 isc)
    rdtest.check([m["name"] for m in init.get("volumeMounts", [])] == [nfd] if nfd else False,
                 "the init container mounts features.d alone",
                 init.get("volumeMounts"))
    rdtest.check("chgrp %d " % sc.get("runAsGroup", -1) in init_cmd and "chmod g+w" in init_cmd and
                 init.get("command", [])[-1] == mounts[nfd]["mountPath"] if nfd else False,
                 "it gives features.d to the daemon's group, group-writable",
                 init_cmd)
    rdtest.check(init.get("image") == c.get("image"), "the init container runs the DaemonSet's image")


@rdtest.test
def pod_security_and_scheduling():
    rdtest.check(set(modes.values()) == {"privileged"},
                 "Pod Security: enforce, audit and warn at one level (privileged: hostPath volumes)",
                 modes)
    rdtest.check({"key": "amd.com/gpu", "operator": "Exists"} in tols,
                 "tolerates amd.com/gpu with every effect",
                 tols)
    rdtest.check({"key": "sku", "operator": "Equal", "value": "gpu"} in tols,
                 "tolerates sku=gpu (AKS GPU pools)",
                 tols)
    rdtest.check(not pod.get("hostNetwork"), "no hostNetwork by default")


def merge(base, patch, key=None):
    """A strategic merge patch as kubectl applies it to these lists: by name
    (containers, volumes) or mountPath (volumeMounts)."""
    if isinstance(base, dict) and isinstance(patch, dict):
        out = dict(base)
        for k, v in patch.items():
            out[k] = merge(base.get(k), v, k) if k in base else v
        return out
    if isinstance(base, list) and isinstance(patch, list):
        mk = "mountPath" if key == "volumeMounts" else "name"
        out = list(base)
        for item in patch:
            idx = [i for i, b in enumerate(out) if isinstance(b, dict) and b.get(mk) == item.get(mk)]
            if idx:
                out[idx[0]] = merge(out[idx[0]], item)
            else:
                out.append(item)
        return out
    return patch


def valid(doc, drop=()):
    d = json.loads(json.dumps(doc))
    for m in d["spec"]["template"]["spec"]["containers"][0]["volumeMounts"]:
        for k in drop:
            m.pop(k, None)
    obj = api.deserialize(Response(d), "V1DaemonSet")
    return strip_empty(api.sanitize_for_serialization(obj)) == strip_empty(d)


VARIANTS = os.path.join(os.path.dirname(MANIFEST), "variants")


@rdtest.test
def the_variants():
    hn = merge(ds, yaml.safe_load(open(os.path.join(VARIANTS, "host-network.yaml"))))
    hpod = hn["spec"]["template"]["spec"]
    hmounts = {m["mountPath"]: m for m in hpod["containers"][0]["volumeMounts"]}
    hvols = {v["name"]: v for v in hpod["volumes"]}
    rdtest.check(valid(hn), "variant host-network: a valid DaemonSet, no unknown field")
    rdtest.check(hpod.get("hostNetwork") is True and hmounts.get("/run/udev", {}).get("readOnly") is True and
                 hvols.get(hmounts.get("/run/udev", {}).get("name"), {}).get("hostPath") == {"path": "/run/udev",
                                                                                              "type": "Directory"},
                 "variant host-network: hostNetwork and /run/udev read-only (events reach the daemon)",
                 hmounts)
    rdtest.check(len(hmounts) == len(c["volumeMounts"]) + 1 and
                 len(hpod["volumes"]) == len(pod["volumes"]) + 1,
                 "variant host-network: nothing else changes")
    rro = merge(ds, yaml.safe_load(open(os.path.join(VARIANTS, "recursive-read-only.yaml"))))
    rmounts = rro["spec"]["template"]["spec"]["containers"][0]["volumeMounts"]
    dirs = [m for m in rmounts if "hostPath" in volumes.get(m["name"], {}) and
            volumes[m["name"]]["hostPath"].get("type") == "Directory"]
    rdtest.check(valid(rro, drop=("recursiveReadOnly",)),
                 "variant recursive-read-only: a valid DaemonSet apart from recursiveReadOnly (API 1.30; the models "
                 "here are older)")
    rdtest.check(dirs and all(m.get("readOnly") is True and m.get("recursiveReadOnly") == "Enabled" for m in dirs if
                              m["name"] != nfd),
                 "variant recursive-read-only: every read-only directory hostPath is recursiveReadOnly: Enabled",
                 [(m["mountPath"], m.get("recursiveReadOnly")) for m in dirs])
    rdtest.check(all(m.get("readOnly") is True for m in rmounts if "recursiveReadOnly" in m) and
                 len(rmounts) == len(c["volumeMounts"]),
                 "variant recursive-read-only: only read-only mounts take it (the API refuses it elsewhere)",
                 [m["mountPath"] for m in rmounts if "recursiveReadOnly" in m])

def run_once(as_pod):
    """rocm-doctord --once with the ConfigMap's configuration on a scratch
    root: as this user, or (as_pod) as the pod runs it."""
    tmp = tempfile.mkdtemp(prefix="rocm-doctor-k8s-")
    try:
        with open(os.path.join(tmp, "rocm-doctor.conf"), "w") as f:
            f.write(conf_text)
        host = os.path.join(tmp, "host")
        os.makedirs(host + NFD_DIR)
        os.makedirs(os.path.join(host, "etc"), exist_ok=True)
        shutil.copy("/etc/os-release", os.path.join(host, "etc", "os-release"))
        argv = [DAEMON, "--once", "--root", host, "--config", os.path.join(tmp, "rocm-doctor.conf")]
        env = dict(os.environ)
        if as_pod:
            # as the pod runs it: the daemon's uid and gid, no other group, and
            # features.d as the init container leaves it (root's, the daemon's
            # group, group-writable)
            uid, gid = sc["runAsUser"], sc["runAsGroup"]
            os.chmod(tmp, 0o755)
            for d in (host, host + "/etc", host + "/etc/kubernetes", host + "/etc/kubernetes/node-feature-discovery"):
                os.chmod(d, 0o755)
            os.chown(host + NFD_DIR, 0, gid)
            os.chmod(host + NFD_DIR, 0o775)
            os.makedirs(host + "/run/rocm-doctor")
            os.chown(host + "/run/rocm-doctor", uid, gid)  # the emptyDir, writable by the pod
            # the daemon and its tables where that uid reaches them (a checkout
            # under /root is out of its reach)
            staged = os.path.join(tmp, "staged")
            os.mkdir(staged, 0o755)
            argv[0] = rdtest.reachable_copy(DAEMON, staged)
            if env.get("ROCM_DOCTOR_DATA_DIR"):
                env["ROCM_DOCTOR_DATA_DIR"] = rdtest.reachable_copy(env["ROCM_DOCTOR_DATA_DIR"], staged)
            argv = ["setpriv", "--reuid", str(uid), "--regid", str(gid), "--clear-groups"] + argv
        p = subprocess.run(argv, capture_output=True, text=True, timeout=120, env=env)
        rdtest.check(p.returncode in (0, 1, 2),
                     "rocm-doctord --once runs with the ConfigMap's configuration (exit 0-2)%s" %
                     (" as uid %d, gid %d" % (sc["runAsUser"], sc["runAsGroup"]) if as_pod else ""),
                     "rc=%d %s" % (p.returncode, p.stderr[-2000:]))
        feat = host + conf.get("nfd_file", "/nonexistent")
        lines = open(feat).read().splitlines() if os.path.exists(feat) else []
        rdtest.check(lines and all(
                     l.startswith(PREFIX) and "=" in l for l in lines if l and not l.startswith("#")) and
                     any(l.startswith(PREFIX + "health=") for l in lines),
                     "it wrote NFD feature lines into features.d",
                     lines)
        rdtest.check(os.path.getsize(host + conf.get("status_file", "")) > 0 if os.path.exists(host + conf.get("status_file", ""))
                     else False,
                     "it wrote the status the liveness probe reads")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


@rdtest.test
def the_configmap_configuration_works():
    run_once(as_pod=False)


@rdtest.test(root=True)
def the_configmap_configuration_works_as_the_pod_uid():
    if not shutil.which("setpriv"):
        rdtest.skip("setpriv is not installed (util-linux)")
    run_once(as_pod=True)


sys.exit(rdtest.main())
