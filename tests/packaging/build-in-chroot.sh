#!/usr/bin/env bash
# Proves that debian/control's Build-Depends are complete: builds the
# packages in a fresh Debian 12 chroot (debootstrap --variant=minbase plus
# build-essential) that gets only what `apt-get build-dep` installs.
#
#   tests/packaging/build-in-chroot.sh OUTDIR [MIRROR]
#
# Needs root, debootstrap and the network to a Debian mirror (a few minutes).
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
out=$(mkdir -p "$1" && cd "$1" && pwd)
mirror=${2:-http://deb.debian.org/debian}
root=$(mktemp -d /tmp/rocm-doctor-chroot.XXXXXX)
cleanup() {
    for m in proc dev/pts dev sys; do umount "$root/$m" 2>/dev/null || true; done
    rm -rf --one-file-system "$root"
}
trap cleanup EXIT

debootstrap --variant=minbase --include=build-essential,ca-certificates bookworm "$root" "$mirror" >"$out/debootstrap.log" 2>&1 || {
    tail -20 "$out/debootstrap.log"
    exit 1
}
mount -t proc proc "$root/proc"
echo "deb $mirror bookworm main" >"$root/etc/apt/sources.list"
mkdir -p "$root/src"
(cd "$top" && git ls-files -z --cached --others --exclude-standard | xargs -0 -I{} sh -c 'test -e "{}" && echo "{}"' |
    tar -cf - -T -) | tar -xf - -C "$root/src"
chroot "$root" sh -c 'apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get build-dep -y -q --no-install-recommends ./src' \
    >"$out/build-dep.log" 2>&1 || {
    tail -20 "$out/build-dep.log"
    exit 1
}
chroot "$root" sh -c 'cd /src && dpkg-buildpackage -us -uc -b' >"$out/chroot-build.log" 2>&1 || {
    tail -40 "$out/chroot-build.log"
    exit 1
}
cp "$root"/*.deb "$out"/
echo "built in a clean bookworm chroot: $(cd "$out" && ls ./*.deb | tr '\n' ' ')"
