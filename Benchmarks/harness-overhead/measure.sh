#!/usr/bin/env bash
# Interleaved A/B: bare store loop (store-driver), pagebench loop and streaming (this branch),
# and the same on main's build, REPS times; then thread share and 1 vs 2 pagers.
set -uo pipefail
new=$1 base=$2 driver=$3 out=$4 reps=${5:-5}
mkdir -p "$out"
echo "start: $(date -u +%FT%TZ) $(uptime)"
for rep in $(seq 1 "$reps"); do
    echo "-- repetition $rep: $(uptime | sed 's/.*load/load/')"
    "$driver" 2000000 1 | head -1 | sed 's/^/bare store loop: /'
    for pager in loop streaming; do
        "$new" run --pager $pager --read scan --limit 10 --concurrency 1 --drains 30 --measure-overhead --quiet \
            --output "$out/new-$pager-$rep.csv" >/dev/null 2>&1
        "$base" run --pager $pager --read scan --limit 10 --concurrency 1 --drains 30 --measure-overhead --quiet \
            --output "$out/main-$pager-$rep.csv" >/dev/null 2>&1
    done
done
echo "end: $(date -u +%FT%TZ) $(uptime)"
