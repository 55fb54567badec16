#!/usr/bin/env bash
# Issue 14 performance checks, interleaved rounds on one release build:
#   1. `run --target-file` (http kind) vs `run --target URL` against the same `pagebench serve`
#      REST endpoint, same workload (goal: http kind >= 0.8x the dedicated path's pages/s);
#   2. HTTPS vs HTTP through the http kind at limit 10 with keep-alive (goal: >= 0.6x).
# Usage: [DRAINS=600] bash Benchmarks/targets/compare.sh [ROUNDS] [PAGEBENCH]
# Prints one line per run: what, pages/s, and the load average at that moment.
set -euo pipefail
rounds=${1:-3}
bin=${2:-$(swift build -c release --show-bin-path)/pagebench}
work=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null; rm -rf "$work"' EXIT
cd "$work"
openssl req -x509 -newkey rsa:2048 -nodes -keyout key.pem -out cert.pem -days 2 -subj "/CN=localhost" \
    -addext "subjectAltName=DNS:localhost,IP:127.0.0.1" 2>/dev/null
store=(--partitions 16 --items-per-partition 2000)
"$bin" serve --port 0 "${store[@]}" > plain.log 2>&1 &
"$bin" serve --port 0 "${store[@]}" --tls-cert cert.pem --tls-key key.pem > tls.log 2>&1 &
for _ in $(seq 100); do grep -q listening plain.log && grep -q listening tls.log && break; sleep 0.1; done
plain=$(grep -o 'http://[0-9.:]*' plain.log)
tls=$(grep -o 'https://[0-9.:]*' tls.log)
target() {
    cat <<JSON
{"kind": "http", "endpoint": "$1", "partitions": {"range": [0, 15]},
 "path": "/partitions/\${partition}/items?limit=\${limit}&filter=\${filter}",
 "items": "/items", "continuation": "/nextToken", "continuationIn": {"query": "nextToken"}, "scannedCount": "/scanned"}
JSON
}
target "$plain" > http.json
target "$tls" > https.json
workload=("${store[@]}" --concurrency 8 --limit 10 --filter match --drains "${DRAINS:-600}" --quiet)
pages_per_s() { python3 -c "import csv,sys; print(round(float(next(csv.DictReader(open(sys.argv[1])))['pages_per_s'])))" "$1"; }
for round in $(seq "$rounds"); do
    "$bin" run "${workload[@]}" --target "$plain" --output a.csv
    echo "round $round  --target URL            $(pages_per_s a.csv) pages/s  load $(cut -d' ' -f1 /proc/loadavg)"
    "$bin" run "${workload[@]}" --target-file http.json --output b.csv
    echo "round $round  --target-file http      $(pages_per_s b.csv) pages/s  load $(cut -d' ' -f1 /proc/loadavg)"
    "$bin" run "${workload[@]}" --target-file https.json --ca-file cert.pem --output c.csv
    echo "round $round  --target-file https     $(pages_per_s c.csv) pages/s  load $(cut -d' ' -f1 /proc/loadavg)"
done
