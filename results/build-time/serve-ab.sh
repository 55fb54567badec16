#!/usr/bin/env bash
# Interleaved A/B of `pagebench serve` binaries under the same wrk load (follow-token.lua).
# usage: ab.sh ROUNDS SECONDS LIMIT BIN_A BIN_B ; run from a checkout (for the lua script)
set -euo pipefail
rounds=$1 seconds=$2 limit=$3; shift 3
for r in $(seq "$rounds"); do
  line="round $r"
  for bin in "$@"; do
    log=$(mktemp)
    "$bin" serve --port 0 >"$log" 2>&1 & pid=$!
    for _ in $(seq 100); do grep -q "listening on" "$log" && break; sleep 0.1; done
    port=$(grep -o '127.0.0.1:[0-9]*' "$log" | cut -d: -f2)
    wrk -t 2 -c 8 -d 1s -s Benchmarks/wrk/follow-token.lua "http://127.0.0.1:$port" -- /scan "limit=$limit" >/dev/null
    rps=$(wrk -t 2 -c 8 -d "${seconds}s" -s Benchmarks/wrk/follow-token.lua "http://127.0.0.1:$port" -- /scan "limit=$limit" | awk '/Requests\/sec/{print $2}')
    kill -TERM $pid; wait $pid 2>/dev/null || true; rm -f "$log"
    line="$line  $(basename "$bin") $rps req/s"
  done
  echo "$line"
done
