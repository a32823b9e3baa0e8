#!/usr/bin/env python3
"""rocm-doctord's NFD labels never outlive it, and it says when device events
cannot reach it.

    test-nfd-lifecycle.py ROCM_DOCTORD

- The daemon's features file starts with NFD's "# +expiry-time=" directive,
  900 s ahead (RFC 3339, UTC); the boot check (--once) writes none.
- With the renewal interval shortened (ROCM_DOCTORD_TEST_RENEW_S=1, expiry
  three intervals ahead), the file and the status file are rewritten while
  the daemon idles: the expiry moves forward, the status file's mtime (the
  liveness heartbeat) stays fresh.
- SIGTERM: exit 0, the features file is gone, the status file stays.
- Device events: where /run/udev/control is missing the daemon says so and
  polls; in a mount namespace with /run/udev/control, it says nothing in its
  own network namespace, and names the network namespace when it runs in
  another one than pid 1 (unshare; root only, and only where the machine
  can make those namespaces: elsewhere, a chroot say, that part skips and
  says why). A daemon that did not start there fails, never passes.
"""
import datetime
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "lib"))
import rdtest  # noqa: E402

DAEMON = os.path.abspath(sys.argv[1])
NFD = "/etc/kubernetes/node-feature-discovery/features.d/rocm-doctor"
STATUS = "/run/rocm-doctor/status.json"
tmp = tempfile.mkdtemp(prefix="rocm-doctor-nfd-")
host = os.path.join(tmp, "host")
conf = os.path.join(tmp, "conf", "rocm-doctor.conf")
os.makedirs(os.path.join(host, "etc"))
os.makedirs(os.path.dirname(conf))
shutil.copy("/etc/os-release", os.path.join(host, "etc", "os-release"))
with open(conf, "w") as f:
    f.write("[output]\nstatus_file = %s\nnfd_file = %s\n" % (STATUS, NFD))
env = dict(os.environ, NO_COLOR="1", LC_ALL="C.UTF-8")
env.pop("ROCM_DOCTORD_TEST_RENEW_S", None)
env.pop("NOTIFY_SOCKET", None)
env.pop("JOURNAL_STREAM", None)


def expiry_of(path):
    """The expiry directive's time (aware UTC datetime) and the file's lines."""
    lines = open(path).read().splitlines()
    first = lines[0] if lines else ""
    prefix = "# +expiry-time="
    if not first.startswith(prefix) or not first.endswith("Z"):
        return None, lines
    when = datetime.datetime.strptime(first[len(prefix):], "%Y-%m-%dT%H:%M:%SZ")
    return when.replace(tzinfo=datetime.timezone.utc), lines


def wait_for(path, timeout=60):
    end = time.time() + timeout
    while time.time() < end and not os.path.exists(path):
        time.sleep(0.05)
    return os.path.exists(path)


def start(extra_env=None, argv_prefix=()):
    e = dict(env, **(extra_env or {}))
    return subprocess.Popen([*argv_prefix, DAEMON, "--root", host, "--config", conf], env=e,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)


def stop(p, sig=signal.SIGTERM):
    p.send_signal(sig)
    try:
        _, err = p.communicate(timeout=30)
    except subprocess.TimeoutExpired:
        p.kill()
        _, err = p.communicate()
    return p.returncode, err


@rdtest.test
def once_writes_no_expiry():
    # --once: no expiry (nothing renews the file)
    p = subprocess.run([DAEMON, "--once", "--root", host, "--config", conf], env=env, capture_output=True,
                       text=True, timeout=120)
    rdtest.check(p.returncode in (0, 1, 2), "--once runs (exit 0-2)", p.stderr)
    when, lines = expiry_of(host + NFD)
    rdtest.check(when is None and not any("+expiry" in l for l in lines),
                 "--once writes no expiry directive",
                 lines)
    os.unlink(host + NFD)


@rdtest.test
def the_expiry_is_900_s_ahead_and_sigterm_removes_the_file():
    # the daemon, default interval: 900 s ahead
    p = start()
    ok = wait_for(host + NFD)
    t0 = datetime.datetime.now(datetime.timezone.utc)
    when, lines = expiry_of(host + NFD) if ok else (None, [])
    rdtest.check(when is not None,
                 "the daemon's features file starts with # +expiry-time=<RFC 3339 UTC>",
                 lines[:2])
    if when:
        ahead = (when - t0).total_seconds()
        rdtest.check(895 <= ahead <= 901, "the expiry is 900 s ahead", ahead)
    rdtest.check(any(l.startswith("rocm-doctor.feature.node.kubernetes.io/health=")
                                                        for l in lines[1:]),
                 "the labels follow the directive",
                 lines)
    rc, err = stop(p)
    rdtest.check(rc == 0, "SIGTERM: exit 0", "rc=%s %s" % (rc, err))
    rdtest.check(not os.path.exists(host + NFD), "SIGTERM: the features file is removed")
    rdtest.check(os.path.exists(host + STATUS), "SIGTERM: the status file stays")


@rdtest.test
def renewal_and_heartbeat():
    # renewal, shortened to 1 s
    p = start({"ROCM_DOCTORD_TEST_RENEW_S": "1"})
    ok = wait_for(host + NFD)
    first, _ = expiry_of(host + NFD) if ok else (None, [])
    time.sleep(3.2)
    second, _ = expiry_of(host + NFD) if ok else (None, [])
    age = time.time() - os.stat(host + STATUS).st_mtime if os.path.exists(host + STATUS) else 1e9
    rdtest.check(first and second and second > first,
                 "the expiry moves forward while the daemon idles",
                 "%s -> %s" % (first, second))
    if second:
        ahead = (second - datetime.datetime.now(datetime.timezone.utc)).total_seconds()
        rdtest.check(0.5 <= ahead <= 3.5, "it stays three intervals ahead", ahead)
    rdtest.check(age < 2.0, "the status file is the heartbeat: rewritten within the interval", age)
    rc, err = stop(p)
    rdtest.check(rc == 0 and not os.path.exists(host + NFD),
                 "SIGTERM after renewals: exit 0 and the file is gone",
                 "rc=%s %s" % (rc, err))
    if not os.path.exists("/run/udev/control"):
        rdtest.check("rocm-doctord: no device events reach this daemon (/run/udev/control is missing: udev does not run "
                     "here); GPU hot-plug and resets are re-checked every 1 s instead\n" in err,
                     "without /run/udev/control it says no device events reach it, and why",
                     err)


@rdtest.test(root=True)
def events_in_another_network_namespace():
    # The network namespace, in a private mount namespace where udev "runs".
    unshare = shutil.which("unshare")
    if not unshare:
        rdtest.skip("the network namespace part needs unshare(1)")
    # what the part needs, asked first: new pid, mount and network
    # namespaces and a tmpfs on /run in them (a chroot or a container
    # without CAP_SYS_ADMIN refuses one: unshare says which)
    probe = subprocess.run([unshare, "--pid", "--fork", "--mount-proc", "--mount", "--net", "sh", "-c",
                            "mount -t tmpfs none /run"], capture_output=True, text=True, timeout=30)
    if probe.returncode != 0:
        rdtest.skip("this machine cannot make the namespaces the network namespace part needs "
                    "(unshare --pid --mount --net: %s)" % (probe.stderr.strip() or "exit %d" % probe.returncode))
    # sh stays pid 1 of the new pid namespace, in the first network
    # namespace; --kill-child takes the whole namespace down on SIGTERM.
    script = ('mount -t tmpfs none /run && mkdir /run/udev && : > /run/udev/control && '
              '{ "$@" & wait; }')
    for netns, want in ((False, None), (True, "this daemon is in another network namespace than udev")):
        prefix = [unshare, "--pid", "--fork", "--kill-child=SIGKILL", "--mount-proc", "--mount", "sh", "-c", script, "sh"]
        if netns:
            prefix += [unshare, "--net"]
        shutil.rmtree(host + "/run", ignore_errors=True)
        p = start(argv_prefix=prefix)
        ok = wait_for(host + NFD, 30)
        time.sleep(0.3)
        # unshare --fork ignores SIGTERM while it waits
        rc, err = stop(p, signal.SIGKILL)
        # the namespaces could be made (above): a daemon that never
        # wrote its file here failed, and its silence proves nothing
        rdtest.check(ok,
                     "in the namespaces%s the daemon starts and writes its features file" %
                     (" with its own network" if netns else ""),
                     err)
        if not ok:
            continue
        if want:
            rdtest.check("rocm-doctord: no device events reach this daemon (%s); " % want in err,
                         "in another network namespace it names it and polls",
                         err)
        else:
            rdtest.check("no device events" not in err,
                         "with udev running, in its network namespace, no warning",
                         err)
status = rdtest.main()
shutil.rmtree(tmp, ignore_errors=True)
sys.exit(status)
