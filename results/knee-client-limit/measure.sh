#!/usr/bin/env bash
# Issue 35: calibrates the thresholds by which a knee step is called limited by pagebench's own
# pager pool or CPU rather than by the API (KneeSession.clientLimit; results/knee-client-limit.md).
#
#   bash results/knee-client-limit/measure.sh PAGEBENCH [OUT_DIR]   # default OUT_DIR: results/knee-client-limit
#
# Runs open-loop phases of scenario.json (4 pages a drain) at a grid of rates, each a separate
# `pagebench run --load open-fixed:R/s --duration 4s` (0.5 s warm-up), in four cases whose limit
# is known by construction:
#   pool  `pagebench serve --service-time fixed:5ms` (its pages sleep concurrently: no limit of
#         its own at these rates) with 4 pagers: the pool's capacity is 4 ÷ (4 pages × ~5.5 ms)
#         ≈ 180 drains/s, so the steps above it are limited by the pool and nothing else;
#   large the same `serve` with 64 pagers: nothing limits below ~2,900 drains/s;
#   api   one-worker.py at 2 ms a page (one request at a time: at most 500 requests/s = 125
#         drains/s) with 64 pagers: above 125 drains/s the API is the limit, the pool is not;
#   cpu   in-process (no network, no service time), 8 pagers, at rates far above what the
#         client's CPU pages: the client's CPU is the limit.
# Then `knee` in the pool and api cases, whose printed lines are kept (knee-*.txt). Every row goes
# to OUT_DIR/runs.csv; evaluate.py computes each step's four criteria and verdicts.
set -euo pipefail
cd "$(dirname "$0")/../.."
pagebench=${1:?usage: measure.sh PAGEBENCH [OUT_DIR]}
out=${2:-results/knee-client-limit}
here=results/knee-client-limit
work=$(mktemp -d)
pids=()
cleanup() { for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done; rm -rf "$work"; }
trap cleanup EXIT
mkdir -p "$out"

"$pagebench" serve --port 0 --partitions 8 --items-per-partition 390 --service-time fixed:5ms >"$work/serve.log" 2>&1 &
pids+=($!)
python3 "$here/one-worker.py" "$work/one-worker.port" 2 8 390 &
pids+=($!)
for _ in $(seq 300); do grep -q 'http://' "$work/serve.log" && [ -s "$work/one-worker.port" ] && break; sleep 0.1; done
serve_url=$(grep -o 'http://[0-9.:]*' "$work/serve.log" | head -1)
worker_url="http://127.0.0.1:$(cat "$work/one-worker.port")"
target() {  # target NAME URL
    cat >"$work/$1.json" <<JSON
{"name": "$1", "kind": "http", "endpoint": "$2", "partitions": {"range": [0, 7]},
 "path": "/partitions/\${partition}/items?limit=\${limit}",
 "items": "/items", "continuation": "/nextToken", "continuationIn": {"query": "nextToken"}}
JSON
}
target serve "$serve_url"
target one-worker "$worker_url"

log() { echo "$(date -u +%FT%TZ) load $(cut -d' ' -f1-3 /proc/loadavg) $*" | tee -a "$out/log.txt"; }
rows=()
run() {  # run CASE RATE PAGERS [ARGS...]
    local name=$1-$2 rate=$2 pagers=$3
    shift 3
    log "start $name"
    "$pagebench" run "$here/scenario.json" --load "open-fixed:$rate/s" --concurrency "$pagers" \
        --quiet --output "$work/$name.csv" "$@"
    rows+=("$work/$name.csv")
}
log "measuring; $(git rev-parse --short HEAD); $pagebench"
for rate in 40 80 120 160 200 240 320; do run pool "$rate" 4 --target-file "$work/serve.json"; done
for rate in 40 80 120 160 200 240 320; do run large "$rate" 64 --target-file "$work/serve.json"; done
for rate in 40 80 110 130 160 200; do run api "$rate" 64 --target-file "$work/one-worker.json"; done
for rate in 20000 200000; do run cpu "$rate" 8; done
python3 - "$out/runs.csv" "${rows[@]}" <<'PY'
import csv, sys
out, files = sys.argv[1], sys.argv[2:]
# Each row with its case (the file's name: CASE-RATE.csv) in front.
rows = [{"case": f.rsplit("/", 1)[-1].split("-")[0], **row} for f in files for row in csv.DictReader(open(f))]
with open(out, "w", newline="") as f:
    writer = csv.DictWriter(f, fieldnames=list(rows[0].keys()), lineterminator="\n")
    writer.writeheader()
    writer.writerows(rows)
PY
knee() {  # knee CASE PAGERS TARGET
    log "knee $1"
    "$pagebench" knee "$here/scenario.json" --slo 'drain_latency_corrected_p99_ns<1s' --from 40 --max-rate 640 \
        --step-duration 3s --pagers "$2" --resolution 10% --output "$out/knee-$1.csv" -- --target-file "$work/$3.json" \
        >"$out/knee-$1.txt" 2>&1 || true
}
knee pool 4 serve
knee api 64 one-worker
log "measured; evaluate with: python3 $here/evaluate.py"
