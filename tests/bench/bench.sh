#!/usr/bin/env bash
# Benchmarks: prints figures, asserts nothing (targets live in the closing
# notes and the README, not in pass/fail tests).
#   tests/bench/bench.sh [BUILD_DIR] [RUNS] [BASE_BINARY]
# Measures `rocm-doctor check --json` on the 64-partition MI300X CPX test
# bed, the 8x MI300X and 1-GPU test beds, and on this host: median wall and
# CPU time, peak RSS, and instructions (callgrind). On this host the check
# runs in one interleaved loop with rocminfo, `lspci -vvv` and /bin/true
# (interleaved.py), then the Slurm prolog per job on the 8x MI300X bed's
# facts and on this host. BASE_BINARY (an older build, its tables in
# BASE/../../conf) is measured beside the build's wherever the build's is.
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
build=$(cd "${1:-$top/build-test}" && pwd)
runs=${2:-20}
base=${3:+$(cd "$(dirname "$3")" && pwd)/$(basename "$3")}
bin=$build/rocm-doctor
tbrun=$build/tests/tb-run
bench=$top/tests/bench
export ROCM_DOCTOR_DATA_DIR=$top/conf
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# the knowledge tables of a binary's own tree (an older build refuses keys
# a newer table has)
tables() {
    local conf
    conf=$(dirname "$(dirname "$1")")/conf
    [ -d "$conf" ] && echo "$conf" || echo "$top/conf"
}

instructions() {
    # callgrind counts instructions: repeatable whatever else the machine does
    if ! command -v valgrind >/dev/null; then
        echo "(no valgrind)"
        return
    fi
    valgrind --tool=callgrind --callgrind-out-file=/dev/null "$@" 2>&1 >/dev/null |
        sed -n 's/.*Collected : \([0-9]*\).*/\1/p'
}

binaries=("$bin")
[ -n "$base" ] && binaries=("$base" "$bin")
label() { [ "$1" = "$bin" ] && echo "" || echo " [base]"; }

echo "rocm-doctor $("$bin" --version | head -1 | cut -d' ' -f2), $(nproc) cores, $(uname -r)"
echo
for s in healthy-rx7900xtx healthy-8x-mi300x mi300x-cpx; do
    python3 "$top/tests/run/scenarios/run.py" "$s" --write "$work/$s" >/dev/null
    nodes=$(find "$work/$s" -name testbed.umockdev -exec grep -c 'topology/nodes/[0-9]*/properties=' {} \;)
    for b in "${binaries[@]}"; do
        ROCM_DOCTOR_DATA_DIR=$(tables "$b") "$tbrun" -d "$work/$s/testbed.umockdev" -o "$work/$s/overlay" -- \
            python3 "$bench/measure.py" "check: $s ($nodes KFD nodes)$(label "$b")" "$runs" "$b" check --json \
            --root "$work/$s/root"
        ins=$(ROCM_DOCTOR_DATA_DIR=$(tables "$b") "$tbrun" -d "$work/$s/testbed.umockdev" -o "$work/$s/overlay" -- \
            bash -c "$(declare -f instructions); instructions '$b' check --json --root '$work/$s/root'")
        printf '%-34s instructions %s\n' "check: $s$(label "$b")" "$ins"
    done
done
# the facts the prolog reads in the Slurm bench: two of eight MI300X
"$tbrun" -d "$work/healthy-8x-mi300x/testbed.umockdev" -o "$work/healthy-8x-mi300x/overlay" -- \
    "$bin" facts --json --root "$work/healthy-8x-mi300x/root" >"$work/mi300x-facts.json"

echo
for b in "${binaries[@]}"; do
    printf '%-34s instructions %s\n' "check: this host$(label "$b")" \
        "$(ROCM_DOCTOR_DATA_DIR=$(tables "$b") instructions "$b" check --json)"
done
for t in rocminfo lspci; do
    p=$(command -v $t || command -v /usr/sbin/$t || command -v /sbin/$t || true)
    if [ -z "$p" ]; then
        echo "$t: not installed here"
        continue
    fi
    if [ "$t" = lspci ]; then
        printf '%-34s instructions %s\n' "lspci -vvv: this host" "$(instructions "$p" -vvv)"
    else
        printf '%-34s instructions %s\n' "$t: this host" "$(instructions "$p")"
    fi
done
echo
strace=()
command -v strace >/dev/null && strace=(--strace strace)
labels=()
for b in "${binaries[@]}"; do
    [ "$b" = "$bin" ] && labels+=("$b=build") || labels+=("$b=base")
done
python3 "$bench/interleaved.py" --rounds "$runs" --facts "$work/mi300x-facts.json" --gpus 0,1 \
    "${strace[@]}" "${labels[@]}"
