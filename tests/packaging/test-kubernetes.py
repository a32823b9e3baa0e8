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

sys.dont_write_bytecode = True  # keep the source tree clean
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "run", "fleet"))
import fleetlib  # noqa: E402

try:
    import yaml
    from kubernetes.client import ApiClient
except ImportError as e:
    print("SKIP: %s (Debian: python3-yaml python3-kubernetes)" % e)
    sys.exit(77)

MANIFEST, DAEMON = sys.argv[1], os.path.abspath(sys.argv[2])
NFD_DIR = "/etc/kubernetes/node-feature-discovery/features.d"
PREFIX = "rocm-doctor.feature.node.kubernetes.io/"
T = fleetlib.Results()
check = T.check


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
check("the manifest has a Namespace, ServiceAccount, ConfigMap and DaemonSet",
      sorted(kinds) == ["ConfigMap", "DaemonSet", "Namespace", "ServiceAccount"], sorted(kinds))
for d in docs:
    model = "V1" + d["kind"]
    try:
        obj = api.deserialize(Response(d), model)
        back = strip_empty(api.sanitize_for_serialization(obj))
        check("%s %s is a valid %s, no unknown field" % (d["kind"], d["metadata"]["name"], model),
              back == strip_empty(d), json.dumps(back)[:2000] + "\nvs\n" + json.dumps(d)[:2000])
    except (ValueError, TypeError) as e:
        check("%s %s is a valid %s" % (d["kind"], d["metadata"].get("name"), model), False, str(e))

ds = kinds.get("DaemonSet", {})
ns = ds["metadata"]["namespace"]
check("every namespaced object is in the namespace", all(
    d["metadata"].get("namespace") == ns for d in docs if d["kind"] != "Namespace") and
    kinds["Namespace"]["metadata"]["name"] == ns)
spec = ds["spec"]
pod = spec["template"]["spec"]
labels = spec["template"]["metadata"]["labels"]
check("the selector matches the pod template's labels",
      all(labels.get(k) == v for k, v in spec["selector"]["matchLabels"].items()))
check("no service account token", pod.get("automountServiceAccountToken") is False and
      kinds["ServiceAccount"].get("automountServiceAccountToken") is False)
check("the pod uses the RuntimeDefault seccomp profile",
      pod.get("securityContext", {}).get("seccompProfile", {}).get("type") == "RuntimeDefault")
terms = pod["affinity"]["nodeAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"]["nodeSelectorTerms"]
check("it runs on nodes NFD labels as having an AMD PCI device",
      terms and all(e["key"].startswith("feature.node.kubernetes.io/pci-") and e["key"].endswith("_1002.present")
                    for t in terms for e in t["matchExpressions"]))

(c,) = pod["containers"]
sc = c["securityContext"]
check("the container is not privileged and cannot escalate",
      sc.get("privileged") is False and sc.get("allowPrivilegeEscalation") is False)
check("every capability is dropped, none added",
      sc.get("capabilities", {}).get("drop") == ["ALL"] and not sc.get("capabilities", {}).get("add"))
check("read-only root file system", sc.get("readOnlyRootFilesystem") is True)
check("resources are requested and limited", c["resources"]["requests"] and c["resources"]["limits"])
check("it runs rocm-doctord", c["command"][0].endswith("/rocm-doctord"))
args = c["args"]
root = args[args.index("--root") + 1]
config = args[args.index("--config") + 1]

volumes = {v["name"]: v for v in pod["volumes"]}
mounts = {m["name"]: m for m in c["volumeMounts"]}
check("every volume is mounted and every mount has a volume", sorted(volumes) == sorted(mounts))
host_rw = [n for n, v in volumes.items() if "hostPath" in v and not mounts[n].get("readOnly")]
check("the only writable hostPath is NFD's features.d", len(host_rw) == 1 and
      volumes[host_rw[0]]["hostPath"]["path"] == NFD_DIR, host_rw)
check("every other hostPath is mounted read-only", all(
    mounts[n].get("readOnly") for n, v in volumes.items() if "hostPath" in v and n not in host_rw))
nfd = host_rw[0] if host_rw else None
check("features.d is mounted where the daemon writes it under --root",
      nfd and mounts[nfd]["mountPath"] == root.rstrip("/") + NFD_DIR)
check("the host root itself is not mounted (test-kubernetes-access.py checks what is)", not any(
    v.get("hostPath", {}).get("path") == "/" for v in volumes.values()))
cm_mount = [n for n, v in volumes.items() if "configMap" in v]
check("the ConfigMap is mounted where --config points",
      len(cm_mount) == 1 and os.path.dirname(config) == mounts[cm_mount[0]]["mountPath"] and
      volumes[cm_mount[0]]["configMap"]["name"] == kinds["ConfigMap"]["metadata"]["name"] and
      os.path.basename(config) in kinds["ConfigMap"]["data"])
conf_text = kinds["ConfigMap"]["data"].get(os.path.basename(config), "")
conf = dict(line.split("=", 1) for line in conf_text.splitlines() if "=" in line and not line.startswith("#"))
conf = {k.strip(): v.strip() for k, v in conf.items()}
check("the configuration names NFD's features file", conf.get("nfd_file", "").startswith(NFD_DIR + "/"), conf)
status = root.rstrip("/") + conf.get("status_file", "/run/rocm-doctor/status.json")
probe = c.get("livenessProbe", {})
check("a liveness probe reads the status the daemon writes", status in " ".join(probe.get("exec", {}).get("command", [])),
      "%s not in %s" % (status, probe))
check("the status directory is a writable volume", any(
    m["mountPath"] == os.path.dirname(status) and not m.get("readOnly") and "emptyDir" in volumes[n]
    for n, m in mounts.items()))

# Not root, and what it takes instead.
psc = pod.get("securityContext", {})
check("the pod and the daemon run as a non-root uid and gid",
      psc.get("runAsNonRoot") is True and sc.get("runAsNonRoot") is True and
      isinstance(sc.get("runAsUser"), int) and sc["runAsUser"] > 0 and
      isinstance(sc.get("runAsGroup"), int) and sc["runAsGroup"] > 0, sc)
check("no supplementary groups: device nodes are only stat()ed", not psc.get("supplementalGroups"), psc)
(init,) = pod.get("initContainers", [{}])
isc = init.get("securityContext", {})
check("the init container adds CHOWN alone, drops the rest, cannot escalate, read-only root",
      isc.get("capabilities") == {"drop": ["ALL"], "add": ["CHOWN"]} and isc.get("privileged") is False and
      isc.get("allowPrivilegeEscalation") is False and isc.get("readOnlyRootFilesystem") is True, isc)
check("the init container mounts features.d alone",
      [m["name"] for m in init.get("volumeMounts", [])] == [nfd] if nfd else False, init.get("volumeMounts"))
init_cmd = " ".join(init.get("command", []))
check("it gives features.d to the daemon's group, group-writable",
      "chgrp %d " % sc.get("runAsGroup", -1) in init_cmd and "chmod g+w" in init_cmd and
      init.get("command", [])[-1] == mounts[nfd]["mountPath"] if nfd else False, init_cmd)
check("the init container runs the DaemonSet's image", init.get("image") == c.get("image"))

# Pod Security: the same level in every mode, so applying it warns of nothing.
nslabels = kinds["Namespace"]["metadata"].get("labels", {})
modes = {m: nslabels.get("pod-security.kubernetes.io/" + m) for m in ("enforce", "audit", "warn")}
check("Pod Security: enforce, audit and warn at one level (privileged: hostPath volumes)",
      set(modes.values()) == {"privileged"}, modes)

# Scheduling on tainted GPU nodes, and no host network by default.
tols = pod.get("tolerations", [])
check("tolerates amd.com/gpu with every effect", {"key": "amd.com/gpu", "operator": "Exists"} in tols, tols)
check("tolerates sku=gpu (AKS GPU pools)", {"key": "sku", "operator": "Equal", "value": "gpu"} in tols, tols)
check("no hostNetwork by default", not pod.get("hostNetwork"))


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
hn = merge(ds, yaml.safe_load(open(os.path.join(VARIANTS, "host-network.yaml"))))
hpod = hn["spec"]["template"]["spec"]
hmounts = {m["mountPath"]: m for m in hpod["containers"][0]["volumeMounts"]}
hvols = {v["name"]: v for v in hpod["volumes"]}
check("variant host-network: a valid DaemonSet, no unknown field", valid(hn))
check("variant host-network: hostNetwork and /run/udev read-only (events reach the daemon)",
      hpod.get("hostNetwork") is True and hmounts.get("/run/udev", {}).get("readOnly") is True and
      hvols.get(hmounts.get("/run/udev", {}).get("name"), {}).get("hostPath") == {"path": "/run/udev",
                                                                                   "type": "Directory"}, hmounts)
check("variant host-network: nothing else changes", len(hmounts) == len(c["volumeMounts"]) + 1 and
      len(hpod["volumes"]) == len(pod["volumes"]) + 1)
rro = merge(ds, yaml.safe_load(open(os.path.join(VARIANTS, "recursive-read-only.yaml"))))
rmounts = rro["spec"]["template"]["spec"]["containers"][0]["volumeMounts"]
dirs = [m for m in rmounts if "hostPath" in volumes.get(m["name"], {}) and
        volumes[m["name"]]["hostPath"].get("type") == "Directory"]
check("variant recursive-read-only: a valid DaemonSet apart from recursiveReadOnly (API 1.30; the models "
      "here are older)", valid(rro, drop=("recursiveReadOnly",)))
check("variant recursive-read-only: every read-only directory hostPath is recursiveReadOnly: Enabled",
      dirs and all(m.get("readOnly") is True and m.get("recursiveReadOnly") == "Enabled" for m in dirs if
                   m["name"] != nfd), [(m["mountPath"], m.get("recursiveReadOnly")) for m in dirs])
check("variant recursive-read-only: only read-only mounts take it (the API refuses it elsewhere)",
      all(m.get("readOnly") is True for m in rmounts if "recursiveReadOnly" in m) and
      len(rmounts) == len(c["volumeMounts"]), [m["mountPath"] for m in rmounts if "recursiveReadOnly" in m])

# The configuration, for real: rocm-doctord --once with it on a scratch root.
tmp = tempfile.mkdtemp(prefix="rocm-doctor-k8s-")
try:
    with open(os.path.join(tmp, "rocm-doctor.conf"), "w") as f:
        f.write(conf_text)
    host = os.path.join(tmp, "host")
    os.makedirs(host + NFD_DIR)
    os.makedirs(os.path.join(host, "etc"), exist_ok=True)
    shutil.copy("/etc/os-release", os.path.join(host, "etc", "os-release"))
    argv = [DAEMON, "--once", "--root", host, "--config", os.path.join(tmp, "rocm-doctor.conf")]
    as_user = os.geteuid() == 0 and shutil.which("setpriv")
    if as_user:
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
        argv = ["setpriv", "--reuid", str(uid), "--regid", str(gid), "--clear-groups"] + argv
    else:
        print("# not root or no setpriv: rocm-doctord --once runs as this user, not the pod's uid")
    p = subprocess.run(argv, capture_output=True, text=True, timeout=120)
    check("rocm-doctord --once runs with the ConfigMap's configuration (exit 0-2)%s" %
          (" as uid %d, gid %d" % (sc["runAsUser"], sc["runAsGroup"]) if as_user else ""), p.returncode in (0, 1, 2),
          "rc=%d %s" % (p.returncode, p.stderr[-2000:]))
    feat = host + conf.get("nfd_file", "/nonexistent")
    lines = open(feat).read().splitlines() if os.path.exists(feat) else []
    check("it wrote NFD feature lines into features.d", lines and all(
        l.startswith(PREFIX) and "=" in l for l in lines if l and not l.startswith("#")) and
        any(l.startswith(PREFIX + "health=") for l in lines), lines)
    check("it wrote the status the liveness probe reads",
          os.path.getsize(host + conf.get("status_file", "")) > 0 if os.path.exists(host + conf.get("status_file", ""))
          else False)
finally:
    shutil.rmtree(tmp, ignore_errors=True)

sys.exit(T.finish())
