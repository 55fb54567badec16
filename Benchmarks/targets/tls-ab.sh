#!/usr/bin/env bash
# Issue 28: HTTPS throughput of two builds side by side (A: swift-nio-ssl, B: the system's
# OpenSSL through PagebenchTLS, or any two), interleaved rounds on one machine. Each build
# serves the same store over HTTPS (`serve --tls-cert`) and pages it with `run --target-file`
# (http kind, limit 10, 8 pagers on 8 keep-alive connections), so a pair A→A / B→B compares
# client and server TLS together; B→A and A→B separate the client's share from the server's.
# Prints one line per run: client → server, pages/s, the client's CPU seconds per 1000 pages
# (user + sys of the run process, less moved by other load than wall-clock) and the load.
# Usage: [DRAINS=600] bash Benchmarks/targets/tls-ab.sh ROUNDS BINARY_A BINARY_B
set -euo pipefail
rounds=$1; a=$2; b=$3
work=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null; rm -rf "$work"' EXIT
cd "$work"
openssl req -x509 -newkey rsa:2048 -nodes -keyout key.pem -out cert.pem -days 2 -subj "/CN=localhost" \
    -addext "subjectAltName=DNS:localhost,IP:127.0.0.1" 2>/dev/null
store=(--partitions 16 --items-per-partition 2000)
"$a" serve --port 0 "${store[@]}" --tls-cert cert.pem --tls-key key.pem > a.log 2>&1 &
"$b" serve --port 0 "${store[@]}" --tls-cert cert.pem --tls-key key.pem > b.log 2>&1 &
for _ in $(seq 300); do grep -q listening a.log && grep -q listening b.log && break; sleep 0.1; done
target() {
    cat <<JSON
{"kind": "http", "endpoint": "$(grep -o 'https://[0-9.:]*' "$1")", "partitions": {"range": [0, 15]},
 "path": "/partitions/\${partition}/items?limit=\${limit}&filter=\${filter}",
 "items": "/items", "continuation": "/nextToken", "continuationIn": {"query": "nextToken"}, "scannedCount": "/scanned"}
JSON
}
target a.log > A.json
target b.log > B.json
workload=("${store[@]}" --concurrency 8 --limit 10 --filter match --drains "${DRAINS:-600}" --quiet --ca-file cert.pem)
measure() {  # CLIENT_NAME CLIENT_BINARY SERVER_NAME
    /usr/bin/time -f "%U %S" -o time.txt "$2" run "${workload[@]}" --target-file "$3.json" --output out.csv
    python3 - "$1" "$3" <<'PY'
import csv, sys
row = next(csv.DictReader(open("out.csv")))
user, system = map(float, open("time.txt").read().split()[-2:])
pages = int(row["pages"])
load = open("/proc/loadavg").read().split()[0]
print(f"{sys.argv[1]}→{sys.argv[2]}  {float(row['pages_per_s']):9.0f} pages/s  {1000 * (user + system) / pages:6.3f} client CPU-s/1000 pages  load {load}")
PY
}
for round in $(seq "$rounds"); do
    echo "round $round"
    measure A "$a" A
    measure B "$b" B
    measure B "$b" A
    measure A "$a" B
done
