#!/usr/bin/env bash
# The README's install command, as written, in a fresh Debian root (12,
# bookworm, unless --suite names another: trixie is Debian 13): proves
# that it works on a new machine and that debian/control's Build-Depends are
# complete. The root is `debootstrap --variant=minbase bookworm` and gets
# only what the command itself installs (apt-get build-dep, then the built
# packages). Then, in that root: rocm-doctor runs as an ordinary user, and
# both packages purge. The .deb files and, for lintian, the source package
# (native: dpkg-source alone) come back to OUTDIR.
#
#   tests/packaging/build-in-chroot.sh [--suite SUITE] [--test 'MESON TEST ARGS'] OUTDIR [MIRROR]
#
# --test: then, in the same root, what the test suite needs
# (.ci/install-deps --test), a build of the tree with -Dwerror=true and
# `meson test` with those arguments (a suite selection), less the tests
# tests/packaging/known-failures-SUITE.txt names (each with its reason); the
# test log comes back to OUTDIR.
#
# Needs root, debootstrap and the network to a Debian mirror. The debootstrap
# result is kept as a tarball in $ROCM_DOCTOR_CHROOT_CACHE (default
# /var/cache/rocm-doctor-ci) and reused when present (delete it to refresh).
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
suite=bookworm
test_args=
while [ "${1:-}" = --suite ] || [ "${1:-}" = --test ]; do
    case $1 in
    --suite) suite=$2 ;;
    --test) test_args=$2 ;;
    esac
    shift 2
done
out=$(mkdir -p "$1" && cd "$1" && pwd)
mirror=${2:-http://deb.debian.org/debian}
cache=${ROCM_DOCTOR_CHROOT_CACHE:-/var/cache/rocm-doctor-ci}
base="$cache/$suite-minbase.tar"

if [ "$(id -u)" -ne 0 ] || ! command -v debootstrap >/dev/null; then
    echo "SKIP: needs root and debootstrap"
    exit 77
fi

install_cmd=$(sed -n '/<!-- install-command -->/,/<!-- \/install-command -->/p' "$top/README.md" |
    grep -v '^<!--' | grep -v '^```')
if [ -z "$install_cmd" ]; then
    echo "README.md has no install command between the markers" >&2
    exit 1
fi

root=$(mktemp -d /var/tmp/rocm-doctor-chroot.XXXXXX)
cleanup() {
    for m in sys dev/pts dev proc; do umount "$root/$m" 2>/dev/null || true; done
    rm -rf --one-file-system "$root"
}
trap cleanup EXIT

SECONDS=0
if [ ! -s "$base" ]; then
    mkdir -p "$cache"
    debootstrap --variant=minbase "$suite" "$root" "$mirror" >"$out/debootstrap.log" 2>&1 || {
        tail -20 "$out/debootstrap.log"
        exit 1
    }
    tar -C "$root" -cf "$base.tmp" . && mv "$base.tmp" "$base"
    echo "debootstrap: ${SECONDS}s (kept in $base)"
else
    tar -C "$root" -xf "$base"
    echo "reused $base"
fi
# Debian 13's root has its sources in deb822 form: one list, ours.
rm -f "$root"/etc/apt/sources.list.d/*.sources
echo "deb $mirror $suite main" >"$root/etc/apt/sources.list"
# /etc/hosts as on an installed system (the installer writes it; debootstrap
# does not): localhost, and the host's name, which Slurm 24.11's slurmctld
# looks up for each job and step, holding the job lock 10 seconds on a name
# that does not resolve (the slurm tests' jobs then linger). A file with the
# host's name alone would hide localhost, which the tests' servers use.
if [ ! -s "$root/etc/hosts" ]; then
    printf '127.0.0.1\tlocalhost\n::1\tlocalhost ip6-localhost ip6-loopback\n' >"$root/etc/hosts"
fi
grep -qw "$(hostname)" "$root/etc/hosts" || printf '127.0.1.1\t%s\n' "$(hostname)" >>"$root/etc/hosts"
mount -t proc proc "$root/proc"
mount --bind /dev "$root/dev"
mount --bind /dev/pts "$root/dev/pts"

# The tree as a clean checkout has it: the files git knows, or, outside a
# git checkout, everything but build directories.
mkdir -p "$root/src/rocm-doctor"
if git -C "$top" rev-parse --git-dir >/dev/null 2>&1; then
    (cd "$top" && git ls-files -z --cached --others --exclude-standard | xargs -0 -I{} sh -c 'test -e "{}" && echo "{}"' |
        tar -cf - -T -)
else
    tar -C "$top" --exclude='./build*' --exclude=./obj-\* -cf - .
fi | tar -xf - -C "$root/src/rocm-doctor"

in_root() {
    chroot "$root" /usr/bin/env -i HOME=/root PATH=/usr/sbin:/usr/bin:/sbin:/bin LANG=C.UTF-8 \
        DEBIAN_FRONTEND=noninteractive bash -euo pipefail -c "$1"
}

SECONDS=0
echo "== in the fresh root, from the tree: $install_cmd"
in_root "cd /src/rocm-doctor && $install_cmd" >"$out/install.log" 2>&1 || {
    tail -40 "$out/install.log"
    exit 1
}
echo "README install command ($suite): ${SECONDS}s"
grep -E '^dpkg-deb: building package' "$out/install.log" || true

failed=0
check() { local name=$1; shift; if "$@"; then echo "ok - $name"; else echo "FAIL - $name"; failed=1; fi; }
check "both packages are installed" in_root 'dpkg -s rocm-doctor rocm-doctord >/dev/null'
set +e
in_root 'su -s /bin/sh nobody -c "cd / && rocm-doctor check"' >"$out/check.log" 2>&1
rc=$?
set -e
check "rocm-doctor check as nobody exits 0-2 (got $rc)" test "$rc" -le 2
check "its report names the host" grep -q '^rocm-doctor [0-9.]*: ' "$out/check.log"
check "rocm-doctord --once runs" in_root 'rocm-doctord --once >/dev/null 2>&1 || [ $? -le 2 ]'
check "both packages purge" in_root 'apt-get purge -y -q rocm-doctor rocm-doctord >/dev/null && ! dpkg -s rocm-doctor >/dev/null 2>&1'

if [ -n "$test_args" ] && [ "$failed" -eq 0 ]; then
    # the suite reads this machine's /sys as a host would (the scenario
    # tests bring their own)
    mount -t sysfs sysfs "$root/sys"
    SECONDS=0
    in_root 'cd /src/rocm-doctor && .ci/install-deps --test' >"$out/test-deps.log" 2>&1 || {
        tail -30 "$out/test-deps.log"
        exit 1
    }
    echo "test dependencies ($suite): ${SECONDS}s"
    SECONDS=0
    set +e
    known=tests/packaging/known-failures-$suite.txt
    in_root "cd /src/rocm-doctor && rm -rf build-test && meson setup build-test -Dwerror=true >/dev/null && \
        ninja -C build-test >/dev/null && \
        meson test -C build-test --list $test_args 2>/dev/null | sed 's,^.* / ,,' | sort >build-test/selected && \
        if [ -f $known ]; then sed 's/#.*//; s/[[:space:]]//g; /^\$/d' $known | sort >build-test/known; \
        else : >build-test/known; fi && \
        comm -23 build-test/selected build-test/known >build-test/run && \
        echo \"\$(wc -l <build-test/selected) tests selected, \$(wc -l <build-test/known) known failures left out\" && \
        xargs -a build-test/run meson test -C build-test --print-errorlogs --num-processes 2" \
        >"$out/test.log" 2>&1
    rc=$?
    set -e
    cp "$root/src/rocm-doctor/build-test/meson-logs/testlog.txt" "$out/testlog.txt" 2>/dev/null || true
    grep -E 'tests selected' "$out/test.log" || true
    sed -n '/^Ok:/,/^Timeout:/p' "$out/test.log"
    echo "build and meson test $test_args ($suite): ${SECONDS}s"
    if [ "$rc" -ne 0 ]; then
        grep -E '^ *[0-9]+/[0-9]+ .* (FAIL|TIMEOUT|ERROR)' "$out/test.log" || tail -40 "$out/test.log"
        failed=1
    fi
    rm -rf "$root/src/rocm-doctor/build-test"
fi

# The source package, for lintian beside the binaries.
in_root 'cd /src/rocm-doctor && dh clean && cd /src && dpkg-source -b rocm-doctor' >>"$out/install.log" 2>&1
cp "$root"/src/*.deb "$root"/src/*.changes "$root"/src/*.buildinfo "$root"/src/*.dsc "$root"/src/*.tar.* "$out"/
echo "from the fresh root: $(cd "$out" && ls ./*.deb ./*.dsc | tr '\n' ' ')"
exit "$failed"
