#!/usr/bin/env bash
# Installs the built .deb files as a user would, uses them, and purges them:
#
#   tests/packaging/test-deb-install.sh DIR-WITH-DEBS
#
# - `apt-get install ./rocm-doctor_*.deb ./rocm-doctord_*.deb` (as root)
# - `rocm-doctor check` as an ordinary user, found on PATH: exit status 2 on a
#   host without an AMD GPU (the CI machine), 0-2 elsewhere, never 3
# - `man rocm-doctor` (and rocm-doctord, rocm-doctor.conf) resolve
# - the installed units pass `systemd-analyze verify`, their exposure is at
#   most 2.0, the boot check is enabled and the daemon is not
# - `rocm-doctord --once` under umask 077 writes the configured status,
#   Prometheus and NFD files mode 0644, and the purge removes them
# - `apt-get purge` leaves nothing behind but what policy allows (dpkg's and
#   apt's own records and logs, man-db's cache)
set -euo pipefail
debs=$(cd "$1" && pwd)
failed=0 passed=0
ok() { echo "ok - $1"; passed=$((passed + 1)); }
fail() { echo "FAIL - $1"; failed=$((failed + 1)); }
check() { local name=$1; shift; if "$@"; then ok "$name"; else fail "$name"; fi; }

if [ "$(id -u)" -ne 0 ]; then
    echo "SKIP: installing packages needs root"
    exit 77
fi
if dpkg -s rocm-doctor >/dev/null 2>&1 || dpkg -s rocm-doctord >/dev/null 2>&1; then
    echo "rocm-doctor is installed already; remove it first" >&2
    exit 1
fi
if [ -e /etc/rocm-doctor ]; then
    echo "/etc/rocm-doctor exists (this test writes and removes its configuration); move it aside first" >&2
    exit 1
fi

snapshot() {
    find /etc /usr /var /opt /lib /run -xdev \( -path /var/lib/dpkg -o -path /var/lib/apt -o -path /var/cache \
        -o -path /var/log -o -path /var/tmp -o -path /run/user -o -path /var/lib/systemd/deb-systemd-helper-enabled \
        -o -path /run/systemd \) -prune -o -print 2>/dev/null | sort
}
before=$(mktemp) after=$(mktemp) user_out=$(mktemp)
# The daemon's outputs go here (/var/tmp: outside the snapshot).
outputs=$(mktemp -d /var/tmp/rocm-doctor-outputs.XXXXXX)
trap 'rm -f "$before" "$after" "$user_out"; rm -rf "$outputs"' EXIT
snapshot >"$before"

export DEBIAN_FRONTEND=noninteractive
apt-get install -y -q --no-install-recommends "$debs"/rocm-doctor_*.deb "$debs"/rocm-doctord_*.deb >/dev/null
check "both packages are installed" dpkg -s rocm-doctor rocm-doctord >/dev/null

user=nobody
check "rocm-doctor is on an ordinary user's PATH in /usr/bin" \
    test "$(su -s /bin/sh "$user" -c 'PATH=/usr/local/bin:/usr/bin:/bin command -v rocm-doctor')" = /usr/bin/rocm-doctor
set +e
su -s /bin/sh "$user" -c 'cd / && PATH=/usr/local/bin:/usr/bin:/bin rocm-doctor check' >"$user_out" 2>&1
rc=$?
set -e
want="0 1 2"
if [ ! -e /dev/kfd ] && ! ls /sys/class/drm/card*/device/vendor 2>/dev/null | xargs -r cat | grep -q 0x1002; then
    want=2
fi
check "rocm-doctor check as $user exits $want (got $rc)" grep -qw -- "$rc" <<<"$want"
check "its report names the host" grep -q '^rocm-doctor [0-9.]*: ' "$user_out"
[ "$want" = 2 ] && check "no AMD GPU here: gpu.none" grep -q 'gpu.none' "$user_out"
check "rocm-doctor --version names the embedded GPU targets" \
    sh -c 'rocm-doctor --version | tr "\n" " " | grep -q "GPU kernels (code object v4, v5):.* gfx1100 "'
for page in rocm-doctor rocm-doctord rocm-doctor.conf; do
    check "man $page resolves" sh -c "man -w $page >/dev/null && MANPAGER=cat man $page 2>/dev/null | grep -q NAME"
done
check "the bash completion of both commands is installed" \
    test -f /usr/share/bash-completion/completions/rocm-doctor -a -e /usr/share/bash-completion/completions/rocm-doctord
# where the package put them: systemd.pc's directory of the build system
mapfile -t units < <(dpkg -L rocm-doctord | grep -E '/systemd/system/rocm-doctor(-boot|d)\.service$')
check "the package has both units (${units[*]})" test "${#units[@]}" = 2
check "systemd-analyze verify on the installed units" systemd-analyze verify "${units[@]}"
for u in "${units[@]}"; do
    level=$(systemd-analyze security --offline=true "$u" 2>/dev/null | sed -n 's/.*Overall exposure level for [^:]*: \([0-9.]*\).*/\1/p')
    check "$(basename "$u") exposure $level <= 2.0" awk -v l="$level" 'BEGIN { exit !(l != "" && l <= 2.0) }'
done
check "the boot check is enabled" test -L /etc/systemd/system/multi-user.target.wants/rocm-doctor-boot.service
check "the daemon is not enabled" test ! -e /etc/systemd/system/multi-user.target.wants/rocm-doctord.service
check "tmpfiles.d created /run/rocm-doctor" test -d /run/rocm-doctor
check "no file in /etc but the unit link" \
    test -z "$(dpkg -L rocm-doctor rocm-doctord | grep '^/etc/' || true)"

# What the daemon publishes: written 0644 under umask 077 (the units' UMask=),
# and removed by the purge where the administrator's configuration put it.
mkdir -p /etc/rocm-doctor/conf.d
cat >/etc/rocm-doctor/conf.d/50-outputs.conf <<EOF
[output]
status_file = $outputs/status.json
prometheus_file = $outputs/textfile/rocm-doctor.prom
nfd_file = $outputs/features.d/rocm-doctor
EOF
set +e
(umask 077 && rocm-doctord --once >/dev/null 2>&1)
rc=$?
set -e
check "rocm-doctord --once with the outputs configured exits 0-2 (got $rc)" test "$rc" -le 2
for f in status.json textfile/rocm-doctor.prom features.d/rocm-doctor; do
    check "$f is written mode 0644 under umask 077" test "$(stat -c %a "$outputs/$f" 2>&1)" = 644
done
for d in textfile features.d; do
    check "$d/ is made mode 0755 under umask 077" test "$(stat -c %a "$outputs/$d" 2>&1)" = 755
done

apt-get purge -y -q rocm-doctor rocm-doctord >/dev/null
for f in status.json textfile/rocm-doctor.prom features.d/rocm-doctor; do
    check "purge removes the configured $f" test ! -e "$outputs/$f"
done
check "purge keeps the administrator's configuration" test -f /etc/rocm-doctor/conf.d/50-outputs.conf
rm -r /etc/rocm-doctor
check "both packages are gone" sh -c '! dpkg -s rocm-doctor >/dev/null 2>&1 && ! dpkg -s rocm-doctord >/dev/null 2>&1'
snapshot >"$after"
left=$(comm -13 "$before" "$after")
if [ -z "$left" ]; then ok "purge leaves nothing behind"; else fail "purge left: $left"; fi
check "no deb-systemd-helper state is left" \
    sh -c '! ls /var/lib/systemd/deb-systemd-helper-enabled 2>/dev/null | grep -q rocm-doctor'

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
