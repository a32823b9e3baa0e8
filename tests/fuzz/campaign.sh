#!/bin/sh
# SPDX-License-Identifier: MIT
# A fuzz campaign: for each target, WORKERS libFuzzer processes share one
# corpus directory (seeded from corpus/<target>) until they have run RUNS
# inputs between them. Prints one line per target: the executions, the
# coverage (edges, features) and corpus size of the seeds alone and of the
# corpus at the end (each measured by loading it with -runs=0), the crashes
# (artifact files) and the seconds it took.
#
# Usage: campaign.sh BIN_DIR SEED_DIR OUT_DIR RUNS WORKERS MAX_SECONDS TARGET...
#   BIN_DIR holds fuzz-<target>; SEED_DIR holds <target>/ seed directories.
set -eu
bin=$1 seeds=$2 out=$3 runs=$4 workers=$5 max_s=$6
shift 6
mkdir -p "$out"

# "cov ft corp" from libFuzzer's INITED line
inited() {
    "$bin/fuzz-$1" -runs=0 "$2" 2>&1 | sed -n 's/.*INITED cov: \([0-9]*\) ft: \([0-9]*\) corp: \([0-9]*\).*/\1 \2 \3/p' | tail -n 1
}

printf '%-16s %12s %9s %9s %9s %9s %9s %9s %7s %6s\n' target execs cov0 cov ft0 ft corp0 corp crashes secs
for t in "$@"; do
    work="$out/work/$t"
    rm -rf "$work"
    mkdir -p "$work/corpus" "$work/crashes"
    [ -d "$seeds/$t" ] && cp "$seeds/$t"/* "$work/corpus/" 2>/dev/null || true
    set -- $(inited "$t" "$work/corpus") 0 0 0
    cov0=$1 ft0=$2 corp0=$3
    start=$(date +%s)
    i=0
    while [ $i -lt "$workers" ]; do
        "$bin/fuzz-$t" -runs=$((runs / workers)) -max_total_time="$max_s" -seed=$((i + 1)) -reload=1 \
            -print_final_stats=1 -artifact_prefix="$work/crashes/" "$work/corpus" >"$work/worker-$i.log" 2>&1 &
        i=$((i + 1))
    done
    wait || true
    secs=$(($(date +%s) - start))
    execs=$(cat "$work"/worker-*.log | sed -n 's/^stat::number_of_executed_units: *//p' | awk '{s += $1} END {print s + 0}')
    set -- $(inited "$t" "$work/corpus") 0 0 0
    crashes=$(find "$work/crashes" -type f | wc -l)
    printf '%-16s %12s %9s %9s %9s %9s %9s %9s %7s %6s\n' "$t" "$execs" "$cov0" "$1" "$ft0" "$2" "$corp0" "$3" "$crashes" "$secs"
done
