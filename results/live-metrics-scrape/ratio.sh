#!/usr/bin/env bash
# Interleaved: harness_overhead_ratio and pages/s of a baseline binary and ours, N rounds.
set -uo pipefail
base=$1 ours=$2 out=$3 rounds=${4:-6}
mkdir -p "$out"
common=(run --pager loop --read scan --limit 10 --concurrency 2 --duration 3s --warmup 1s --repetitions 1 --quiet)
for i in $(seq 1 "$rounds"); do
    "$base" "${common[@]}" --output "$out/base-$i.csv"
    "$ours" "${common[@]}" --output "$out/ours-$i.csv"
    echo "round $i $(uptime)"
done
