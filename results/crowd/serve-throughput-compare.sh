#!/usr/bin/env bash
# serve's requests/s, builds side by side (issue 38: the new listener and HealthResponder cost
# nothing measurable): http-bench (CLIENT) with 64 connections, limit 100, partition 0, 5 s, 3 rounds interleaved.
# Usage: serve-throughput-compare.sh CLIENT NAME=BIN…
set -euo pipefail
client=$1; shift
for round in 1 2 3; do
  for pair in "$@"; do
    name=${pair%%=*}; bin=${pair#*=}
    log=$(mktemp); "$bin" serve --port 0 > "$log" 2>&1 & pid=$!
    for _ in $(seq 100); do grep -q "listening on" "$log" && break; sleep 0.1; done
    url=$(grep -o 'http://[0-9.]*:[0-9]*' "$log" | head -1)
    load=$(cut -d' ' -f1 /proc/loadavg)
    line=$("$client" http-bench --target "$url" --connections 64 --duration 5 --limit 100 --partition 0)
    echo "round $round $name load $load $line"
    kill $pid; wait $pid 2>/dev/null || true; rm -f "$log"
  done
done
