#!/usr/bin/env bash
# Issue 25, "A same-build check must not cry wolf" (docs/contract.md H10): runs the A/A pairs and the
# deliberate regressions whose verdicts results/aa-gate/evaluate.py computes. Keeps every run's
# CSV under results/aa-gate/runs/ and a log of when each ran and the load average then.
#
#   bash results/aa-gate/measure.sh build                      # the two release binaries
#   bash results/aa-gate/measure.sh [PAIRS [SPACING [REPS]]]   # defaults: 20, 60 s, 5
#   (measured for results/aa-gate.md: 20 10 5)
#
# `build` makes two release builds of this tree and copies them to results/tmp/aa-gate/bin/
# (measuring from private copies: rebuilding the tree meanwhile cannot swap a binary):
#   pagebench             swift build -c release
#   pagebench-regression  PAGEBENCH_EVALUATION_REGRESSION=1 swift build -c release
# The second one's store evaluates every tenth page twice (SyntheticStore.evaluate, compiled in
# only with that condition): a real 10 % per-page cost regression of the store's evaluation.
# Package.swift sets the condition on PagebenchStore only, so that build recompiles the store
# and what depends on it; the normal build is made again at the end.
#
# Per trial, in this order, each a separate `pagebench run` process with REPS repetitions and
# --count-instructions:
#   A  this build: the CI scenario set (Benchmarks/Scenarios/ci), in-process.json (1 and 4
#      pagers), target.json through a --target-file against `pagebench serve` (fixed 2 ms);
#   R  the regression build: in-process.json (with REGRESSION_CI=1 the CI set too);
#   S  odd trials only: this build, target.json against a second `serve` of the same store at
#      fixed 4 ms (a target twice as slow; its target file has the same name, so rows match);
#   B  this build again: as A.
# SPACING seconds of sleep come after A and again before B. A/A pairs are (A, B): the same build and
# scenarios a minute or more apart, never interleaved, on the shared 2-core machine as it is
# (other engineers build on it). Regressions: (A, R), (A, S). What it costs: a callgrind run
# (--count-instructions) takes 10 to 25 s here, so a trial takes about 2 minutes at 10 s spacing.
set -euo pipefail
cd "$(dirname "$0")/../.."
work=results/tmp/aa-gate
mkdir -p "$work/bin"

if [ "${1:-}" = build ]; then
    swift build -c release --product pagebench
    cp .build/release/pagebench "$work/bin/pagebench"
    PAGEBENCH_EVALUATION_REGRESSION=1 swift build -c release --product pagebench
    cp .build/release/pagebench "$work/bin/pagebench-regression"
    swift build -c release --product pagebench
    cmp -s .build/release/pagebench "$work/bin/pagebench" || echo "note: the rebuilt normal binary differs in bytes from the copy" >&2
    exit 0
fi

pairs=${1:-20}
spacing=${2:-60}
repetitions=${3:-5}
runs=results/aa-gate/runs
mkdir -p "$runs" "$work/base" "$work/slow"
pagebench="$work/bin/pagebench"
regression="$work/bin/pagebench-regression"
for binary in "$pagebench" "$regression"; do
    [ -x "$binary" ] || { echo "no $binary: run 'bash $0 build' first" >&2; exit 66; }
done

serves=()
cleanup() { for pid in "${serves[@]}"; do kill "$pid" 2>/dev/null || true; done; }
trap cleanup EXIT
serve() {  # serve DIR SERVICE_TIME: starts `pagebench serve`, writes DIR/serve-rest.json
    "$pagebench" serve --port 0 --partitions 8 --items-per-partition 400 --service-time "$2" >"$1/serve.log" 2>&1 &
    serves+=($!)
    for _ in $(seq 300); do grep -q 'http://' "$1/serve.log" && break; sleep 0.1; done
    local url
    url=$(grep -o 'http://[0-9.:]*' "$1/serve.log" | head -1)
    [ -n "$url" ] || { echo "serve did not start: $(cat "$1/serve.log")" >&2; exit 70; }
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
    "$binary" run "$@" --repetitions "$repetitions" --count-instructions --quiet --output "$output"
}
log "measuring $pairs trials, spacing ${spacing}s, $repetitions repetitions; $(git rev-parse --short HEAD)"
for trial in $(seq 1 "$pairs"); do
    for side in a b; do
        if [ "$side" = b ]; then
            sleep "$spacing"
            if [ "${REGRESSION_CI:-0}" = 1 ]; then
                run "$regression" "$runs/r-ci-$trial.csv" Benchmarks/Scenarios/ci
            fi
            run "$regression" "$runs/r-ip-$trial.csv" results/aa-gate/in-process.json
            if [ $((trial % 2)) = 1 ]; then
                run "$pagebench" "$runs/s-t-$trial.csv" results/aa-gate/target.json --target-file "$work/slow/serve-rest.json"
            fi
            sleep "$spacing"
        fi
        run "$pagebench" "$runs/$side-ci-$trial.csv" Benchmarks/Scenarios/ci
        run "$pagebench" "$runs/$side-ip-$trial.csv" results/aa-gate/in-process.json
        run "$pagebench" "$runs/$side-t-$trial.csv" results/aa-gate/target.json --target-file "$work/base/serve-rest.json"
    done
    log "trial $trial done"
done
log "measured $pairs trials; evaluate with: python3 results/aa-gate/evaluate.py"
