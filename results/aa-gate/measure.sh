#!/usr/bin/env bash
# Issue 25, "A same-build check must not cry wolf" (SEMANTICS H10): runs the A/A pairs and the
# deliberate regressions whose verdicts results/aa-gate/evaluate.py computes. Keeps every run's
# CSV under results/aa-gate/runs/ and a log of when each ran and the load average then.
#
#   bash results/aa-gate/measure.sh [PAIRS [SPACING_SECONDS]]     # defaults: 20, 60
#
# Needs two release builds of this tree (the second one only for the injected regression):
#   swift build -c release
#   swift build -c release --scratch-path .build-regression -Xswiftc -DPAGEBENCH_EVALUATION_REGRESSION
# The second build's store evaluates every tenth page twice (SyntheticStore.evaluate, compiled
# in only with that condition): a real 10 % per-page cost regression of the store's evaluation.
#
# Per trial, in this order, each a separate `pagebench run` process with 5 repetitions and
# --count-instructions, SPACING seconds apart:
#   A  this build: the CI scenario set (Benchmarks/Scenarios/ci), aa-in-process.json (1 and 4
#      pagers), aa-target.json through a --target-file against `pagebench serve` (fixed 2 ms);
#   R  the regression build: the CI set and aa-in-process.json;
#   S  this build: aa-target.json against a second `serve` of the same store at fixed 4 ms
#      (a target twice as slow; its target file has the same name, so rows match);
#   B  this build again: as A.
# A/A pairs are (A, B): the same build and scenarios minutes apart, never interleaved, on the
# shared 2-core machine as it is (other engineers build on it). Regressions: (A, R), (A, S).
set -euo pipefail
cd "$(dirname "$0")/../.."
pairs=${1:-20}
spacing=${2:-60}
runs=results/aa-gate/runs
work=results/tmp/aa-gate
mkdir -p "$runs" "$work/bin" "$work/base" "$work/slow"

# Private copies: rebuilding the tree meanwhile must not swap a binary mid-measurement.
cp .build/release/pagebench "$work/bin/pagebench"
cp .build-regression/release/pagebench "$work/bin/pagebench-regression"
pagebench="$work/bin/pagebench"
regression="$work/bin/pagebench-regression"

serves=()
cleanup() { for pid in "${serves[@]}"; do kill "$pid" 2>/dev/null || true; done; }
trap cleanup EXIT
serve() {  # serve DIR SERVICE_TIME: starts `pagebench serve`, writes DIR/serve-rest.json
    "$pagebench" serve --port 0 --partitions 8 --items-per-partition 400 --service-time "$2" >"$1/serve.log" 2>&1 &
    serves+=($!)
    for _ in $(seq 200); do grep -q listening "$1/serve.log" && break; sleep 0.1; done
    local url
    url=$(grep -o 'http://[0-9.:]*' "$1/serve.log")
    cat >"$1/serve-rest.json" <<JSON
{"name": "serve-rest", "kind": "http", "endpoint": "$url", "partitions": {"range": [0, 7]},
 "path": "/partitions/\${partition}/items?limit=\${limit}",
 "items": "/items", "continuation": "/nextToken", "continuationIn": {"query": "nextToken"}, "scannedCount": "/scanned"}
JSON
}
serve "$work/base" fixed:2ms
serve "$work/slow" fixed:4ms

log() { echo "$(date -u +%FT%TZ) load $(cut -d' ' -f1-3 /proc/loadavg) $*" | tee -a "$runs/log.txt"; }
run() {  # run BINARY OUTPUT ARGS...
    local binary=$1 output=$2
    shift 2
    log "start $(basename "$output")"
    "$binary" run "$@" --repetitions 5 --count-instructions --quiet --output "$output"
}
for trial in $(seq 1 "$pairs"); do
    for side in a b; do
        if [ "$side" = b ]; then
            sleep "$spacing"
            run "$regression" "$runs/r-ci-$trial.csv" Benchmarks/Scenarios/ci
            run "$regression" "$runs/r-ip-$trial.csv" results/aa-gate/in-process.json
            run "$pagebench" "$runs/s-t-$trial.csv" results/aa-gate/target.json --target-file "$work/slow/serve-rest.json"
            sleep "$spacing"
        fi
        run "$pagebench" "$runs/$side-ci-$trial.csv" Benchmarks/Scenarios/ci
        run "$pagebench" "$runs/$side-ip-$trial.csv" results/aa-gate/in-process.json
        run "$pagebench" "$runs/$side-t-$trial.csv" results/aa-gate/target.json --target-file "$work/base/serve-rest.json"
    done
    log "trial $trial done"
    sleep "$spacing"
done
log "measured $pairs trials; evaluate with: python3 results/aa-gate/evaluate.py"
