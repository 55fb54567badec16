#!/usr/bin/env bash
# Usage: [DRAINS=2] [REPETITIONS=6] ratios.sh NEW_BINARY BASE_BINARY OUT [ROUNDS]
# The goals' ratios from many short phases, interleaved: ROUNDS rounds (default 6), each
# running BASE then NEW, `loop` then `streaming`, 6 repetitions of a 2-drain phase (about
# 128,000 pages, 40-80 ms) with --measure-overhead. A short phase sits close in time to its
# own 50 ms bare-loop calibration (harness_overhead_ratio) and to its timing-off rerun
# (measurement_overhead_ratio), so a machine whose speed drifts by 2x within seconds (the
# shared VM) moves both sides of each ratio together; as root the runs are SCHED_FIFO
# (chrt -f 10), so other processes on the VM do not preempt them either. ratios.py prints
# the medians and quartiles.
set -uo pipefail
new=$1 base=$2 out=$3 rounds=${4:-6}
# DRAINS=30 REPETITIONS=2 is the issue's own phase (`--drains 30`, ~0.5 s, 1.9 M pages): start-up
# costs (the first pages, histogram growth) weigh less than in a 2-drain phase.
drains=${DRAINS:-2} repetitions=${REPETITIONS:-6}
mkdir -p "$out"
fifo=()
[[ $(id -u) == 0 ]] && command -v chrt >/dev/null && fifo=(chrt -f 10)
echo "start: $(date -u +%FT%TZ) load $(cut -d' ' -f1-3 /proc/loadavg) ${fifo[*]}"
for round in $(seq 1 "$rounds"); do
    echo "-- round $round: load $(cut -d' ' -f1-3 /proc/loadavg)"
    for pager in loop streaming; do
        for build in base new; do
            bin=$new
            [[ $build == base ]] && bin=$base
            "${fifo[@]}" "$bin" run --pager $pager --read scan --limit 10 --concurrency 1 --drains "$drains" --warmup 0.05 \
                --repetitions "$repetitions" --measure-overhead --quiet --output "$out/$build-$pager-$round.csv" >/dev/null 2>&1
        done
    done
done
echo "end: $(date -u +%FT%TZ) load $(cut -d' ' -f1-3 /proc/loadavg)"
