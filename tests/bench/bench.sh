#!/usr/bin/env bash
# Benchmarks: prints figures, asserts nothing (targets live in the closing
# notes and the README, not in pass/fail tests).
#   tests/bench/bench.sh [BUILD_DIR] [RUNS]
# Measures `rocm-doctor check` on the 64-partition MI300X CPX test bed, the
# 8x MI300X and 1-GPU test beds, and on this host, next to `lspci -vvv`:
# median wall and CPU time, peak RSS, and instructions (callgrind).
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
build=$(cd "${1:-$top/build-test}" && pwd)
runs=${2:-20}
bin=$build/rocm-doctor
tbrun=$build/tests/tb-run
measure=$top/tests/bench/measure.py
export ROCM_DOCTOR_DATA_DIR=$top/conf
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

instructions() {
    # callgrind counts instructions: repeatable whatever else the machine does
    valgrind --tool=callgrind --callgrind-out-file=/dev/null "$@" 2>&1 >/dev/null |
        sed -n 's/.*Collected : \([0-9]*\).*/\1/p'
}

echo "rocm-doctor $("$bin" --version | cut -d' ' -f2), $(nproc) cores, $(uname -r)"
echo
for s in healthy-rx7900xtx healthy-8x-mi300x mi300x-cpx; do
    python3 "$top/tests/run/scenarios/run.py" "$s" --write "$work/$s" >/dev/null
    nodes=$(find "$work/$s" -name testbed.umockdev -exec grep -c 'topology/nodes/[0-9]*/properties=' {} \;)
    "$tbrun" -d "$work/$s/testbed.umockdev" -o "$work/$s/overlay" -- \
        python3 "$measure" "check: $s ($nodes KFD nodes)" "$runs" "$bin" check --json --root "$work/$s/root"
    ins=$("$tbrun" -d "$work/$s/testbed.umockdev" -o "$work/$s/overlay" -- \
        bash -c "$(declare -f instructions); instructions '$bin' check --json --root '$work/$s/root'")
    printf '%-34s instructions %s\n' "check: $s" "$ins"
done
echo
python3 "$measure" "check: this host" "$runs" "$bin" check --json
python3 "$measure" "lspci -vvv: this host" "$runs" lspci -vvv
printf '%-34s instructions %s\n' "check: this host" "$(instructions "$bin" check --json)"
printf '%-34s instructions %s\n' "lspci -vvv: this host" "$(instructions lspci -vvv)"
