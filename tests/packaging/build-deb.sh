#!/usr/bin/env bash
# Builds the Debian packages from a clean copy of the tree and checks them
# with lintian (no error, no warning; overrides carry their reasons).
#
#   tests/packaging/build-deb.sh OUTDIR
#
# OUTDIR receives the .deb, .dsc, .changes and lintian.txt. The copy holds
# the files git knows (tracked and untracked-but-not-ignored), so build
# directories of the tree never reach the source package.
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
out=$(mkdir -p "$1" && cd "$1" && pwd)
work=$(mktemp -d /tmp/rocm-doctor-deb.XXXXXX)
trap 'rm -rf "$work"' EXIT

version=$(dpkg-parsechangelog -l "$top/debian/changelog" -S Version)
src="$work/rocm-doctor-$version"
mkdir "$src"
(cd "$top" && git ls-files -z --cached --others --exclude-standard | xargs -0 -I{} sh -c 'test -e "{}" && echo "{}"' |
    tar -cf - -T -) | tar -xf - -C "$src"

echo "== dpkg-checkbuilddeps"
(cd "$src" && dpkg-checkbuilddeps)
echo "== dpkg-buildpackage"
(cd "$src" && dpkg-buildpackage -us -uc -j"$(nproc)") >"$out/build.log" 2>&1 || {
    tail -50 "$out/build.log"
    exit 1
}
grep -E '^(dpkg-buildpackage|dpkg-genchanges): ' "$out/build.log" | tail -3
cp "$work"/*.deb "$work"/*.dsc "$work"/*.changes "$work"/*.buildinfo "$work"/*.tar.* "$out"/

echo "== lintian"
# Errors and warnings fail; the report with information tags and the
# overrides (and their reasons) goes to lintian.txt. (--show-overrides makes
# lintian fail on overridden tags, so the gate runs without it.)
lintian --display-info --show-overrides "$out"/*.changes >"$out/lintian.txt" 2>&1 || true
if ! lintian --fail-on error,warning "$out"/*.changes; then
    cat "$out/lintian.txt"
    echo "lintian: errors or warnings" >&2
    exit 1
fi
grep -v '^N:' "$out/lintian.txt" || true
echo "lintian: no error, no warning"
