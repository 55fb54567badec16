#!/usr/bin/env bash
# Issue 35, "the gate against a real API": same-build A/A pairs and a target 1.3x and 2x slower,
# checked by `pagebench check` at its defaults (results/gate-power.md; evaluate.py computes the
# verdicts). Keeps every run's CSV under results/gate-power/runs/ and a log of when each ran and
# the load average then.
#
#   bash results/gate-power/measure.sh build                      # a release binary
#   bash results/gate-power/measure.sh build-debug                # or the debug build's
#   bash results/gate-power/measure.sh [TRIALS [SPACING [REPS [TAG]]]]   # defaults: 20, 5 s, 10, run
#
# `build` makes a release build of this tree (scratch path .build-release) and copies it to
# results/tmp/gate-power/bin/pagebench (measuring from a private copy: rebuilding the tree meanwhile
# cannot swap a binary).
#
# The target: three `pagebench serve` processes of one store (8 partitions of 400 items) whose
# every page takes a fixed service time: 4 ms (the baseline), 5.2 ms (1.3x slower) and 8 ms
# (2x). Their target files have the same name, so the rows of all three match in `check`.
# Per trial, each a separate `pagebench run` process of results/gate-power/target.json with REPS
# repetitions: A (4 ms), then the two slow targets in an order that alternates between trials
# (S13 = 5.2 ms, S2 = 8 ms), then B (4 ms), SPACING seconds of sleep between runs. A/A pairs are
# (A, B) of one trial; the slow pairs (A, S13) and (A, S2). The machine is the shared 2-core VM as
# it is: other engineers build on it, which is the noise a user's CI runner or laptop has too.
set -euo pipefail
cd "$(dirname "$0")/../.."
work=results/tmp/gate-power
mkdir -p "$work/bin"

if [ "${1:-}" = build ]; then
    swift build -c release --scratch-path .build-release --product pagebench
    cp .build-release/release/pagebench "$work/bin/pagebench"
    exit 0
fi
if [ "${1:-}" = build-debug ]; then  # the debug build instead: more client CPU per page, so more load effect
    swift build --product pagebench
    cp "$(swift build --show-bin-path)/pagebench" "$work/bin/pagebench"
    exit 0
fi

trials=${1:-20}
spacing=${2:-5}
repetitions=${3:-10}
tag=${4:-run}
runs=results/gate-power/runs
mkdir -p "$runs" "$work/t4" "$work/t52" "$work/t8"
pagebench="$work/bin/pagebench"
[ -x "$pagebench" ] || { echo "no $pagebench: run 'bash $0 build' first" >&2; exit 66; }

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
serve "$work/t4" fixed:4ms
serve "$work/t52" fixed:5200us
serve "$work/t8" fixed:8ms

log() { echo "$(date -u +%FT%TZ) load $(cut -d' ' -f1-3 /proc/loadavg) $*" | tee -a "$runs/log.txt"; }
run() {  # run NAME TARGET_DIR
    log "start $1"
    "$pagebench" run results/gate-power/target.json --target-file "$work/$2/serve-rest.json" \
        --repetitions "$repetitions" --quiet --output "$runs/$1.csv"
    sleep "$spacing"
}
log "measuring $trials trials ($tag), spacing ${spacing}s, $repetitions repetitions; $(git rev-parse --short HEAD)"
for trial in $(seq 1 "$trials"); do
    run "$tag-a-$trial" t4
    if [ $((trial % 2)) = 1 ]; then
        run "$tag-s13-$trial" t52
        run "$tag-s2-$trial" t8
    else
        run "$tag-s2-$trial" t8
        run "$tag-s13-$trial" t52
    fi
    run "$tag-b-$trial" t4
    log "trial $trial done"
done
log "measured $trials trials ($tag); evaluate with: python3 results/gate-power/evaluate.py"
